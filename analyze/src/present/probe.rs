//! The answer to a probe: the position, its counters, the exact verdict, every move
//! ranked best first, and a line of best play with how it ends.

use std::fmt;

use kabe_probe::notation::plies;
use kabe_probe::request::Asked;
use kabe_probe::rules::exact::{LineEnd, MoveVerdict, Verdict};
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Counters, DrawRuleSet, Position, Wld};
use serde_json::{json, Value};

use crate::json::{line_end_text, line_json, move_json, verdict_json};

/// A line of best play from a position: each side's first best move until the game ends,
/// a count draws it, or `max_plies` plies of a draw that nothing ends.
#[derive(Clone, Debug)]
pub struct BestLine {
    /// The rule set the counts belong to.
    pub rules: DrawRuleSet,
    /// Where the line starts.
    pub start: Position,
    /// The counts there.
    pub counters: Counters,
    /// The moves, each with the position and counts after it.
    pub moves: Vec<MoveVerdict>,
    /// How it stops.
    pub end: LineEnd,
    /// The longest line asked for.
    pub max_plies: usize,
}

impl BestLine {
    /// The line of best play from the position `asked`, of at most `max_plies` plies.
    ///
    /// # Errors
    /// The tables' [`ProbeError`] (a missing table, a damaged file).
    pub fn probe(tables: &Tablebase, asked: &Asked, max_plies: usize) -> Result<BestLine, ProbeError> {
        let (moves, end) = tables.best_line(&asked.position, &asked.counters, max_plies)?;
        let (start, counters) = (asked.position, asked.counters);
        Ok(BestLine { rules: asked.rules.set, start, counters, moves, end, max_plies })
    }

    /// How the line ends, in words: `game over`, `drawn by 6.3`, `draw (line cut after
    /// 120 plies)`.
    pub fn end_text(&self) -> String {
        line_end_text(self.end, self.max_plies)
    }

    /// The moves in standard notation, space-separated; `-` for none.
    pub fn moves_text(&self) -> String {
        let moves: Vec<String> = self
            .moves
            .iter()
            .scan(self.start, |before, m| {
                let text = before.move_text(&m.mv);
                *before = m.position;
                Some(text)
            })
            .collect();
        if moves.is_empty() {
            "-".to_string()
        } else {
            moves.join(" ")
        }
    }

    /// `{fen, variant, rules, counters, moves, end}`: the API's `mainline`.
    pub fn to_json(&self) -> Value {
        json!({
            "fen": self.start.fen(),
            "variant": self.start.variant().name,
            "rules": self.rules.name(),
            "counters": self.counters.describe_at(&self.start),
            "moves": line_json(&self.start, &self.moves),
            "end": self.end_text(),
        })
    }
}

/// `best line: MOVES (END)`.
impl fmt::Display for BestLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "best line: {} ({})", self.moves_text(), self.end_text())
    }
}

/// Everything a probe says about one position.
#[derive(Clone, Debug)]
pub struct ProbeAnswer {
    /// The rule set the counts belong to.
    pub rules: DrawRuleSet,
    /// The position.
    pub position: Position,
    /// Its counts.
    pub counters: Counters,
    /// Its exact verdict.
    pub verdict: Verdict,
    /// Every legal move with its verdict, best first.
    pub moves: Vec<MoveVerdict>,
    /// A line of best play, when one was asked for.
    pub line: Option<BestLine>,
}

impl ProbeAnswer {
    /// The answer for the position `asked`, with a line of best play of at most
    /// `line_plies` plies when asked.
    ///
    /// # Errors
    /// The tables' [`ProbeError`] (a missing table, a damaged file).
    pub fn probe(tables: &Tablebase, asked: &Asked, line_plies: Option<usize>) -> Result<ProbeAnswer, ProbeError> {
        let verdict = tables.probe(&asked.position, &asked.counters)?;
        let moves = tables.ranked_moves(&asked.position, &asked.counters)?;
        let line = line_plies.map(|max| BestLine::probe(tables, asked, max)).transpose()?;
        let (position, counters) = (asked.position, asked.counters);
        Ok(ProbeAnswer { rules: asked.rules.set, position, counters, verdict, moves, line })
    }

    /// The moves that keep the exact verdict: the first of the ranking and those as good.
    pub fn best(&self) -> &[MoveVerdict] {
        let best = self.moves.first().map(|m| m.exact);
        &self.moves[..self.moves.iter().take_while(|m| Some(m.exact) == best).count()]
    }

    /// `{fen, variant, rules, counters, verdict, best_moves, moves}`, and `line` and
    /// `line_end` when there is a line: `kabe probe --json`, and the API's position
    /// (which adds its own fields).
    pub fn to_json(&self) -> Value {
        let p = &self.position;
        let mut answer = json!({
            "fen": p.fen(),
            "variant": p.variant().name,
            "rules": self.rules.name(),
            "counters": self.counters.describe_at(p),
            "verdict": verdict_json(&self.verdict),
            "best_moves": self.best().iter().map(|m| p.move_text(&m.mv)).collect::<Vec<_>>(),
            "moves": self.moves.iter().map(|m| move_json(p, m)).collect::<Vec<_>>(),
        });
        if let (Some(line), Some(map)) = (&self.line, answer.as_object_mut()) {
            map.insert("line".into(), line_json(&line.start, &line.moves));
            map.insert("line_end".into(), json!(line.end_text()));
        }
        answer
    }
}

/// The verdict in words: exact and theoretical results, the count and what it decides.
fn verdict_text(v: &Verdict) -> String {
    let theory = match v.theoretical.plies() {
        Some(p) => format!("{} in {}", v.theoretical.wld().word(), plies(p)),
        None => Wld::Draw.to_string(),
    };
    let mut out = format!("exact: {}   theoretical: {theory}", v.exact.word());
    if let Some((article, left)) = v.count {
        out += &format!("   count {article}: {} left", plies(left));
        if let Some((_, p)) = v.within.decided() {
            out += &format!(", decided within it in {}", plies(p));
        }
        if v.rule_decides() {
            let result = v.theoretical.wld().word();
            out += &format!("\n{article} decides: the {result} needs more than the {} the count leaves", plies(left));
        }
    }
    out
}

/// The position and its rules, the verdict, every move with its distances, and the line:
/// what `kabe probe` prints.
impl fmt::Display for ProbeAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.position;
        let (variant, rules, counts) = (p.variant().name, self.rules.name(), self.counters.describe_at(p));
        writeln!(f, "{}  ({variant}, {rules} rules, counts {counts})", p.fen())?;
        writeln!(f, "{}", verdict_text(&self.verdict))?;
        write!(f, "moves, best first:")?;
        for m in &self.moves {
            let within = m
                .child
                .within
                .decided()
                .map_or(String::new(), |(_, n)| format!(", {} within the count after", plies(n)));
            let theory = m.child.theoretical.plies().map_or(Wld::Draw.to_string(), |n| format!("{} after", plies(n)));
            write!(f, "\n  {:<12} {:<5} (theory: {theory}{within})", p.move_text(&m.mv), m.exact.word())?;
        }
        if let Some(line) = &self.line {
            write!(f, "\n{line}")?;
        }
        Ok(())
    }
}
