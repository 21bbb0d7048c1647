//! Annotation: every position of a replayed game that the tables cover, with its exact
//! verdict under the game's draw rules (counts and repetition as the game actually ran),
//! its theoretical verdict, the count that separates them, and the moves that threw a
//! result away.

use std::collections::HashSet;

use kabe_probe::rules::exact::Verdict;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Counters, DrawRuleSet, Move, Position, Signature, Variant, Wld};

use crate::repetition::{self, irreversible, RepetitionEffect, Repetitions};
use crate::replay::{move_number, Replay};

/// How far the tables reach for one analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// Positions with at most this many pieces are probed; a table missing among them is
    /// reported. `None`: as far as the variant's tables are complete.
    pub pieces: Option<u32>,
}

/// What the analysis of one game found.
#[derive(Clone, Debug)]
pub struct GameAnnotation {
    /// The variant played.
    pub variant: Variant,
    /// The draw rules applied.
    pub rules: DrawRuleSet,
    /// Whether play started from a setup (the counts then start at the setup).
    pub from_setup: bool,
    /// Every position within table range, in game order.
    pub positions: Vec<PositionNote>,
    /// How a draw rule ended the game before its last move, if it did.
    pub ended: Option<RuleEnd>,
    /// Tables the game needed that are not there.
    pub missing: Vec<Signature>,
}

/// A draw rule that ended the game while moves were still written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleEnd {
    /// Plies played from the start when it happened (the position then on the board).
    pub ply: usize,
    /// The article: `6.1` (or `16a`) for repetition, else the count's article.
    pub article: &'static str,
    /// Whether it was the repetition rule.
    pub repetition: bool,
}

/// One position within table range.
#[derive(Clone, Debug)]
pub struct PositionNote {
    /// Plies played from the start to reach it.
    pub ply: usize,
    /// The move number and side to move, as `45.` or `45...`.
    pub move_number: String,
    /// The position.
    pub position: Position,
    /// The counts as the game ran them.
    pub counters: Counters,
    /// How often this position has stood on the board with this side to move, this
    /// occurrence included (6.1: the third is a draw).
    pub occurrences: u8,
    /// The tables' verdict for the counts (repetition not yet considered).
    pub verdict: Verdict,
    /// The exact result for the side to move with repetition considered too.
    pub exact: Wld,
    /// Set when the positions already seen twice change `verdict.exact` into `exact`, or
    /// could not be searched to the end (then `exact` stays the tables' verdict).
    pub repetition: Option<RepetitionEffect>,
    /// The move played from here, if the game goes on.
    pub played: Option<PlayedMove>,
}

impl PositionNote {
    /// Plies to the end of the game when the exact result is the theoretical one and no
    /// count can stop it (then both walk the same line); `None` otherwise.
    pub fn exact_plies(&self) -> Option<u16> {
        let same_line = self.verdict.within == kabe_probe::RuleScore::from_score(self.verdict.theoretical);
        (self.exact == self.verdict.exact && self.exact != Wld::Draw && same_line)
            .then(|| self.verdict.theoretical.plies())
            .flatten()
    }

    /// Plies to the move that secures the exact result under the counts: the end of the
    /// game, or a capture or promotion that starts a fresh count in a position already won.
    pub fn secured_plies(&self) -> Option<u16> {
        (self.exact == self.verdict.exact && self.exact != Wld::Draw)
            .then(|| self.verdict.within.decided().map(|(_, p)| p))
            .flatten()
    }
}

/// The move played from a position, judged.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    /// The move as the game wrote it.
    pub text: String,
    /// The move.
    pub mv: Move,
    /// The exact result for the mover after it.
    pub result: Wld,
    /// Set when the move makes the mover's exact result worse.
    pub error: Option<MoveError>,
}

/// A move that changes the exact verdict for the worse, with what was better.
#[derive(Clone, Debug)]
pub struct MoveError {
    /// The result before the move.
    pub from: Wld,
    /// The result after it.
    pub to: Wld,
    /// The best move instead, in the game's notation.
    pub best: String,
    /// The best move's result (equal to `from`).
    pub best_result: Wld,
    /// Plies to the end of the game after the best move when it wins (its DTW, counted
    /// from before it); `None` for a draw.
    pub best_win_plies: Option<u16>,
}

/// Why a game could not be annotated at all.
#[derive(Debug, thiserror::Error)]
pub enum AnnotateError {
    /// The tables have no rules for this variant (the variant was not opened).
    #[error("{0}")]
    Probe(#[from] ProbeError),
}

impl GameAnnotation {
    /// The positions whose played move changed the exact verdict.
    pub fn errors(&self) -> impl Iterator<Item = &PositionNote> {
        self.positions.iter().filter(|p| p.played.as_ref().is_some_and(|m| m.error.is_some()))
    }
}

/// Annotates a replayed game with `tables`. `texts` are the moves as written (for the
/// report). Positions beyond `reach` are skipped; a missing table inside it is noted in
/// [`GameAnnotation::missing`] and the analysis goes on.
pub fn annotate(
    tables: &Tablebase,
    game: &Replay,
    texts: &[String],
    reach: Reach,
) -> Result<GameAnnotation, AnnotateError> {
    let variant = game.variant;
    let rules = *tables
        .draw_rules(&variant)
        .ok_or_else(|| ProbeError::VariantNotOpen { variant: variant.name, open: String::from("see --tables") })?;
    let range = reach.pieces.unwrap_or_else(|| tables.max_pieces_of(&variant));
    let mut out = GameAnnotation {
        variant,
        rules: rules.set,
        from_setup: game.start != Position::start(variant),
        positions: Vec::new(),
        ended: None,
        missing: Vec::new(),
    };
    let mut missing = HashSet::new();
    let mut seen = Repetitions::default();
    let mut position = game.start;
    let mut counters = Counters::fresh(&rules, &position);
    for ply in 0..=game.moves.len() {
        let occurrences = seen.visit(position);
        let next = game.moves.get(ply);
        if occurrences >= 3 && out.ended.is_none() {
            out.ended = Some(RuleEnd { ply, article: repetition_article(rules.set), repetition: true });
        }
        if let Some((article, 0)) = counters.governing(&position)
            && out.ended.is_none()
            && !position.is_over()
        {
            out.ended = Some(RuleEnd { ply, article, repetition: false });
        }
        if out.ended.is_none() && within_range(&position, range) {
            match note(tables, &seen, &position, &counters, ply, game, texts) {
                Ok(n) => out.positions.push(n),
                Err(ProbeError::NoTable { signature, .. } | ProbeError::TooManyPieces { signature, .. }) => {
                    // Beyond the range only captures are tried: no table there is expected.
                    if position.piece_count() <= range {
                        missing.insert(signature);
                    }
                }
                Err(other) => return Err(other.into()),
            }
        }
        let Some(mv) = next else { break };
        let after = position.play(mv);
        counters = counters.after(mv, &after);
        if irreversible(mv) {
            seen.clear();
        }
        position = after;
    }
    out.missing = missing.into_iter().collect();
    out.missing.sort();
    Ok(out)
}

/// Where the rule set writes its repetition rule.
pub(crate) fn repetition_article(set: DrawRuleSet) -> &'static str {
    match set {
        DrawRuleSet::Ussr1953 => "16a",
        _ => "6.1",
    }
}

/// Whether the tables should answer for `position`: few enough pieces, or a capture that
/// leads there (the tablebase plays forced captures into range).
fn within_range(position: &Position, range: u32) -> bool {
    position.piece_count() <= range || (position.piece_count() <= range + 2 && position.has_capture())
}

#[allow(clippy::too_many_arguments)]
fn note(
    tables: &Tablebase,
    seen: &Repetitions,
    position: &Position,
    counters: &Counters,
    ply: usize,
    game: &Replay,
    texts: &[String],
) -> Result<PositionNote, ProbeError> {
    let verdict = tables.probe(position, counters)?;
    let hot = seen.twice();
    let (exact, repetition) = repetition::refine(tables, position, counters, verdict.exact, &hot)?;
    let played = match game.moves.get(ply) {
        Some(mv) => Some(judge(tables, seen, position, counters, exact, mv, texts.get(ply))?),
        None => None,
    };
    Ok(PositionNote {
        ply,
        move_number: move_number(&game.start, ply),
        position: *position,
        counters: *counters,
        occurrences: seen.count(position),
        verdict,
        exact,
        repetition,
        played,
    })
}

#[allow(clippy::too_many_arguments)]
fn judge(
    tables: &Tablebase,
    seen: &Repetitions,
    position: &Position,
    counters: &Counters,
    before: Wld,
    mv: &Move,
    text: Option<&String>,
) -> Result<PlayedMove, ProbeError> {
    let after = position.play(mv);
    let after_counters = counters.after(mv, &after);
    let result = result_of_move(tables, seen, mv, &after, &after_counters)?;
    let error = if result < before {
        let ranked = tables.best_moves(position, counters)?;
        // The tables' best move may itself walk into a third repetition: take the first
        // that keeps the result with repetition considered.
        let mut best = None;
        for m in &ranked {
            if result_of_move(tables, seen, &m.mv, &m.position, &m.counters)? == before {
                best = Some(m);
                break;
            }
        }
        best.map(|m| MoveError {
            from: before,
            to: result,
            best: position.move_text(&m.mv),
            best_result: before,
            best_win_plies: match before {
                Wld::Win => m.child.theoretical.plies().map(|p| p + 1),
                _ => None,
            },
        })
    } else {
        None
    };
    Ok(PlayedMove { text: text.cloned().unwrap_or_else(|| position.move_text(mv)), mv: *mv, result, error })
}

/// The exact result for the mover of playing `mv` into `after`, repetition included.
fn result_of_move(
    tables: &Tablebase,
    seen: &Repetitions,
    mv: &Move,
    after: &Position,
    after_counters: &Counters,
) -> Result<Wld, ProbeError> {
    if let Some(result) = after.result_if_over() {
        return Ok(result.for_opponent());
    }
    // A third occurrence ends the game drawn at once.
    if !irreversible(mv) && seen.count(after) >= 2 {
        return Ok(Wld::Draw);
    }
    let child = tables.probe(after, after_counters)?;
    let mut hot = if irreversible(mv) { HashSet::new() } else { seen.twice() };
    if !irreversible(mv) && seen.count(after) == 1 {
        hot.insert(*after); // arriving makes it the second; coming back, the third
    }
    let (exact, _) = repetition::refine(tables, after, after_counters, child.exact, &hot)?;
    Ok(exact.for_opponent())
}
