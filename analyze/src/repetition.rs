//! The repetition rule (FMJD 6.1, USSR 1953 §16a) on top of the tables.
//!
//! The tables are exact for the counts but know nothing of a game's history. A position
//! that has already stood on the board twice is a draw when it comes a third time, so
//! such positions ("hot") can only turn results into draws: a win that cannot avoid
//! them, or a loss whose defender can reach one. Only positions since the last
//! irreversible move (a capture or a man move) can come back, and every count rises by
//! one each ply in between, so the search below is finite: it runs over the reversible
//! moves until the count runs out, with the tables' verdict at every irreversible move
//! (the history starts afresh there) and the tables' result as a bound everywhere.

use std::collections::{HashMap, HashSet};

use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Counters, Move, PieceKind, Position, Wld};

/// What the history of repeated positions does to a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionEffect {
    /// A third occurrence that the defending side can force turns the result into a draw.
    Draws,
    /// The search for it ran past its budget: the verdict ignores repetition.
    Unresolved,
}

/// Whether a move can never be undone, so no earlier position can come back.
pub(crate) fn irreversible(mv: &Move) -> bool {
    mv.is_capture() || mv.piece() == PieceKind::Man
}

/// The occurrences of each position since the last irreversible move.
pub(crate) type Occurrences = HashMap<Position, u8>;

/// Nodes the search may visit before it gives up on one position.
pub const SEARCH_BUDGET: usize = 20_000;

/// Occurrences of the positions since the last irreversible move.
#[derive(Clone, Debug, Default)]
pub struct Repetitions {
    seen: Occurrences,
}

impl Repetitions {
    /// Records `position` standing on the board; returns its occurrences so far.
    pub fn visit(&mut self, position: Position) -> u8 {
        let n = self.seen.entry(position).or_insert(0);
        *n = n.saturating_add(1);
        *n
    }

    /// How often `position` has stood on the board.
    pub fn count(&self, position: &Position) -> u8 {
        self.seen.get(position).copied().unwrap_or(0)
    }

    /// Forgets everything: after an irreversible move nothing earlier can come back.
    pub fn clear(&mut self) {
        self.seen.clear();
    }

    /// The positions whose next occurrence is the third.
    pub fn twice(&self) -> HashSet<Position> {
        self.seen.iter().filter(|&(_, &n)| n >= 2).map(|(p, _)| *p).collect()
    }
}

/// The exact result of `position` with `counters` for the side to move when the positions
/// in `hot` draw on arrival, given the tables' result `table` (which ignores them). The
/// effect is `Some` when the result changes or the search ran out of budget (then the
/// tables' result is returned).
pub fn refine(
    tables: &Tablebase,
    position: &Position,
    counters: &Counters,
    table: Wld,
    hot: &HashSet<Position>,
) -> Result<(Wld, Option<RepetitionEffect>), ProbeError> {
    if hot.is_empty() || table == Wld::Draw {
        return Ok((table, None));
    }
    let mut search = Search { tables, hot, memo: HashMap::new(), budget: SEARCH_BUDGET };
    match search.value(position, counters) {
        Ok(value) if value == table => Ok((table, None)),
        Ok(value) => Ok((value, Some(RepetitionEffect::Draws))),
        Err(Stop::Budget) => Ok((table, Some(RepetitionEffect::Unresolved))),
        Err(Stop::Probe(e)) => Err(e),
    }
}

enum Stop {
    Budget,
    Probe(ProbeError),
}

impl From<ProbeError> for Stop {
    fn from(e: ProbeError) -> Stop {
        Stop::Probe(e)
    }
}

struct Search<'a> {
    tables: &'a Tablebase,
    hot: &'a HashSet<Position>,
    memo: HashMap<(Position, Counters), Wld>,
    budget: usize,
}

impl Search<'_> {
    /// The result for the side to move with the hot positions drawing.
    fn value(&mut self, position: &Position, counters: &Counters) -> Result<Wld, Stop> {
        if let Some(result) = position.result_if_over() {
            return Ok(result);
        }
        if let Some((_, 0)) = counters.governing(position) {
            return Ok(Wld::Draw);
        }
        let table = self.tables.probe(position, counters)?.exact;
        if table == Wld::Draw {
            return Ok(Wld::Draw); // repetition adds draws only
        }
        if let Some(&v) = self.memo.get(&(*position, *counters)) {
            return Ok(v);
        }
        self.budget = self.budget.checked_sub(1).ok_or(Stop::Budget)?;
        // The best the mover can reach: a win stays at most a win, a loss at most a draw.
        let ceiling = if table == Wld::Win { Wld::Win } else { Wld::Draw };
        let mut children = Vec::new();
        for mv in position.legal_moves().iter() {
            let child = position.play(mv);
            let child_counters = counters.after(mv, &child);
            let reversible = !irreversible(mv);
            let verdict = self.tables.probe(&child, &child_counters)?;
            children.push((reversible, child, child_counters, verdict));
        }
        // Try the tables' best first: quickest wins.
        children.sort_by_key(|(_, _, _, v)| {
            (v.exact.for_opponent(), std::cmp::Reverse(v.within.decided().map_or(u16::MAX, |(_, p)| p)))
        });
        children.reverse();
        let mut best = Wld::Loss;
        for (reversible, child, child_counters, verdict) in children {
            let result = if !reversible {
                verdict.exact.for_opponent() // the history starts afresh: the tables are exact
            } else if self.hot.contains(&child) {
                Wld::Draw
            } else {
                self.value(&child, &child_counters)?.for_opponent()
            };
            best = best.max(result);
            if best == ceiling {
                break;
            }
        }
        self.memo.insert((*position, *counters), best);
        Ok(best)
    }
}
