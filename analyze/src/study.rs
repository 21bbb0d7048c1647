//! The study checker: is a composed position sound? A study's side to move must reach
//! its result (a win, or a draw for a draw study) by exactly one key move, and along the
//! main line every move of the solving side must be the only one that keeps the result;
//! a second such move is a dual.

use kabe_probe::rules::exact::Verdict;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Counters, Position, Wld};

use crate::replay::move_number;

/// A draw study's main line stops after this many plies unless a count ends it first.
pub const DRAW_LINE_PLIES: usize = 40;

/// One move of the main line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMove {
    /// `12.` or `12...`, counted from 1 at the study's position.
    pub number: String,
    /// The move.
    pub text: String,
    /// Whether the solving side makes it.
    pub solver: bool,
    /// Other moves of the solving side that keep the result here (duals).
    pub duals: Vec<String>,
    /// The exact result for the mover after the move, with plies to it within the count.
    pub result: Wld,
    /// Plies to the end of that result, when decided.
    pub plies: Option<u16>,
}

/// How the main line stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The side to move has no piece or no move.
    GameOver,
    /// The count that governs ran out: drawn by this article.
    CountExpired(&'static str),
    /// A draw with no count ending it: shown for this many plies.
    Cut(usize),
}

/// What the checker found.
#[derive(Clone, Debug)]
pub struct StudyReport {
    /// The position.
    pub position: Position,
    /// Its counts.
    pub counters: Counters,
    /// The exact verdict for the side to move.
    pub verdict: Verdict,
    /// Every move of the side to move that keeps the verdict.
    pub keys: Vec<String>,
    /// The main line, each side playing its first best move.
    pub line: Vec<LineMove>,
    /// How it stops.
    pub end: LineEnd,
    /// Why the study is unsound (empty when sound).
    pub faults: Vec<String>,
}

impl StudyReport {
    /// One key move, no dual in the main line, and a result to reach (not a loss).
    pub fn is_sound(&self) -> bool {
        self.faults.is_empty()
    }
}

/// Checks the study at `position` with `counters` against `tables`.
pub fn check_study(tables: &Tablebase, position: &Position, counters: &Counters) -> Result<StudyReport, ProbeError> {
    let verdict = tables.probe(position, counters)?;
    let solver = position.turn();
    let goal = verdict.exact;
    let mut faults = Vec::new();
    let keys: Vec<String> = if goal == Wld::Loss {
        faults.push("the side to move loses: there is nothing to solve".to_string());
        Vec::new()
    } else {
        tables.best_moves(position, counters)?.iter().map(|m| position.move_text(&m.mv)).collect()
    };
    if goal != Wld::Loss && keys.len() > 1 {
        faults.push(format!("{} key moves: {}", keys.len(), keys.join(", ")));
    }
    let mut line = Vec::new();
    let (mut here, mut count) = (*position, *counters);
    let end = loop {
        if here.legal_moves().is_empty() {
            break LineEnd::GameOver;
        }
        if let Some((article, 0)) = count.governing(&here) {
            break LineEnd::CountExpired(article);
        }
        if goal != Wld::Win && line.len() >= DRAW_LINE_PLIES {
            break LineEnd::Cut(line.len());
        }
        let best = tables.best_moves(&here, &count)?;
        let Some(first) = best.first() else { break LineEnd::GameOver };
        let by_solver = here.turn() == solver;
        let duals: Vec<String> = if by_solver && !line.is_empty() {
            best[1..].iter().map(|m| here.move_text(&m.mv)).collect()
        } else {
            Vec::new()
        };
        let number = move_number(position, line.len());
        if !duals.is_empty() {
            faults.push(format!("dual at {number}: {} and {}", here.move_text(&first.mv), duals.join(", ")));
        }
        line.push(LineMove {
            number,
            text: here.move_text(&first.mv),
            solver: by_solver,
            duals,
            result: first.exact,
            plies: first.child.within.decided().map(|(_, p)| p + 1).filter(|_| first.exact != Wld::Draw),
        });
        here = first.position;
        count = first.counters;
    };
    Ok(StudyReport { position: *position, counters: *counters, verdict, keys, line, end, faults })
}
