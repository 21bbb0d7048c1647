//! The exact verdict: the result under perfect play when the counts end the game.
//!
//! For a count that is never reset, the game with `left` plies on the count is won by the
//! side to move exactly when it can force the end of the game within `left` plies, so the
//! verdict is `distance <= left`. For the reset count, and for a material count that ends
//! when the material leaves its rule, the same holds with the distance measured to the
//! first move that ends the count into a position won (or lost) afresh, as chess's DTZ
//! does for the 50-move rule: the game is decided once that move is made, because the
//! counts after it are fresh. These distances ([`RuleScore`]) are the rule tables; a
//! count that is never reset (FMJD 6.3 in the newer text) needs none, its distance is the
//! DTW.

use super::{Counters, Persistence};
use crate::{Move, Position, RuleScore, Score, Wld};

/// Where the values come from: tables on disk, or tables being built.
pub trait Oracle {
    /// Why a value is not available.
    type Error;
    /// The theoretical score (DTW) of any position within table range.
    ///
    /// # Errors
    /// [`Oracle::Error`] when the value is not available: for the tablebase, a
    /// [`ProbeError`](crate::tablebase::ProbeError) naming the missing or unusable table;
    /// for a build, a table not built yet.
    fn theoretical(&self, position: &Position) -> Result<Score, Self::Error>;
    /// The stored rule value of a position whose signature has a rule table
    /// ([`super::DrawRules::context`] is `Some`).
    ///
    /// # Errors
    /// [`Oracle::Error`] when the value is not available, as
    /// [`Oracle::theoretical`]: the rule table or a table its search reads is missing or
    /// unusable, or not built yet.
    fn counted(&self, position: &Position) -> Result<RuleScore, Self::Error>;
}

/// The verdict for one position and its counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Win, draw or loss for the side to move under the counts.
    pub exact: Wld,
    /// The rule-free value with its distance to win.
    pub theoretical: Score,
    /// The count that governs the position: its article and the plies left on it.
    pub count: Option<(&'static str, u16)>,
    /// The distance within that count (to the game's end or to the move ending the count).
    pub within: RuleScore,
}

impl Verdict {
    /// Whether the count turns the theoretical result into another.
    pub fn rule_decides(&self) -> bool {
        self.exact != self.theoretical.wld()
    }
}

/// The exact verdict of `position` with `counters`.
///
/// # Errors
/// The first error of `oracle`: for the position's theoretical value, or its rule value
/// where a count governs it. `counters` are not checked against the position here.
pub fn verdict<O: Oracle>(oracle: &O, position: &Position, counters: &Counters) -> Result<Verdict, O::Error> {
    let theoretical = oracle.theoretical(position)?;
    let (count, within) = match governing_distance(oracle, position, counters)? {
        Governing::NoCount => (None, RuleScore::from_score(theoretical)),
        Governing::ToTheEnd(count) => (Some(count), RuleScore::from_score(theoretical)),
        Governing::Table(count, within) => (Some(count), within),
    };
    let exact = match count {
        Some((_, left)) => within.within(left),
        None => theoretical.wld(),
    };
    Ok(Verdict { exact, theoretical, count, within })
}

/// The exact result alone, as [`verdict`]'s `exact`: the theoretical value is read only
/// where the rule table does not decide (a generator values every move that ends a
/// count this way, and the rule table answers nearly all of them alone).
///
/// # Errors
/// The first error of `oracle`, as [`verdict`].
pub fn exact_result<O: Oracle>(oracle: &O, position: &Position, counters: &Counters) -> Result<Wld, O::Error> {
    Ok(match governing_distance(oracle, position, counters)? {
        Governing::NoCount => oracle.theoretical(position)?.wld(),
        Governing::ToTheEnd((_, left)) => RuleScore::from_score(oracle.theoretical(position)?).within(left),
        Governing::Table((_, left), within) => within.within(left),
    })
}

/// The count governing a position (article, plies left) and where its distance comes from.
enum Governing {
    /// No count runs: the theoretical value decides.
    NoCount,
    /// A count that never ends before the game does: the distance is the DTW.
    ToTheEnd((&'static str, u16)),
    /// The distance within the count, from the rule table.
    Table((&'static str, u16), RuleScore),
}

fn governing_distance<O: Oracle>(oracle: &O, position: &Position, counters: &Counters) -> Result<Governing, O::Error> {
    let Some(count) = counters.governing(position) else { return Ok(Governing::NoCount) };
    let never_ends_early = counters.material.is_some_and(|c| {
        counters
            .rules(position.variant())
            .material
            .get(c.rule)
            .is_some_and(|r| r.persistence == Persistence::UntilGameEnds)
    });
    if never_ends_early {
        return Ok(Governing::ToTheEnd(count));
    }
    Ok(Governing::Table(count, oracle.counted(position)?))
}

/// A move with the verdict it leads to, seen from the side that makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveVerdict {
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub position: Position,
    /// The counters after it.
    pub counters: Counters,
    /// The exact result for the mover.
    pub exact: Wld,
    /// The verdict of the position after the move (for the opponent).
    pub child: Verdict,
}

/// Every legal move with its exact result, best first: wins before draws before losses;
/// among wins the fastest (shortest distance within the count, then shortest DTW), among
/// losses the longest, among draws those the theory rates best.
///
/// # Errors
/// The first error of `oracle` for a position after a move, as [`verdict`].
pub fn rank_moves<O: Oracle>(
    oracle: &O,
    position: &Position,
    counters: &Counters,
) -> Result<Vec<MoveVerdict>, O::Error> {
    let mut out = Vec::new();
    for mv in position.legal_moves().iter() {
        let child_position = position.play(mv);
        let child_counters = counters.after(mv, &child_position);
        let child = verdict(oracle, &child_position, &child_counters)?;
        out.push(MoveVerdict {
            mv: *mv,
            position: child_position,
            counters: child_counters,
            exact: child.exact.for_opponent(),
            child,
        });
    }
    sort_ranked(&mut out);
    Ok(out)
}

/// Sorts moves best first for the mover.
pub(crate) fn sort_ranked(moves: &mut [MoveVerdict]) {
    moves.sort_by_key(rank_key);
}

/// Smaller is better for the mover.
fn rank_key(m: &MoveVerdict) -> (u8, i64, i64) {
    let within = m.child.within.decided().map_or(i64::MAX / 2, |(_, p)| p as i64);
    let dtw = m.child.theoretical.plies().map_or(i64::MAX / 2, |p| p as i64);
    match m.exact {
        // The child is lost for the opponent: quickest first.
        Wld::Win => (0, within, dtw),
        // Draws: prefer positions the theory rates lost for the opponent, then drawn.
        Wld::Draw => {
            let theory = match m.child.theoretical.wld() {
                Wld::Loss => 0,
                Wld::Draw => 1,
                Wld::Win => 2,
            };
            (1, theory, 0)
        }
        // Lost: the longest resistance first.
        Wld::Loss => (2, -within, -dtw),
    }
}

/// The moves that keep the exact verdict of the position, best first.
///
/// # Errors
/// The first error of `oracle` for a position after a move, as [`rank_moves`].
pub fn best_moves<O: Oracle>(
    oracle: &O,
    position: &Position,
    counters: &Counters,
) -> Result<Vec<MoveVerdict>, O::Error> {
    Ok(keep_best(rank_moves(oracle, position, counters)?))
}

/// Ranks `moves` best first and keeps those with the best exact result.
pub(crate) fn keep_best(mut moves: Vec<MoveVerdict>) -> Vec<MoveVerdict> {
    sort_ranked(&mut moves);
    let best = moves.first().map(|m| m.exact);
    moves.into_iter().take_while(|m| Some(m.exact) == best).collect()
}

/// How a line of best play stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The side to move at the end has no piece or no move.
    GameOver,
    /// The governing count ran out: drawn by this article.
    CountExpired(&'static str),
    /// A draw that no count ends; the line stops after `max_plies`.
    Unbounded,
}

/// One line of best play from the position (each side playing its first best move) until
/// the game ends, a count draws it, or `max_plies` plies for a draw no count ends.
///
/// # Errors
/// The first error of `oracle` for a position along the line, as [`rank_moves`]; the
/// line found before it is not returned.
pub fn best_line<O: Oracle>(
    oracle: &O,
    position: &Position,
    counters: &Counters,
    max_plies: usize,
) -> Result<(Vec<MoveVerdict>, LineEnd), O::Error> {
    let mut line = Vec::new();
    let (mut position, mut counters) = (*position, *counters);
    loop {
        if position.legal_moves().is_empty() {
            return Ok((line, LineEnd::GameOver));
        }
        if let Some((article, 0)) = counters.governing(&position) {
            return Ok((line, LineEnd::CountExpired(article)));
        }
        if line.len() >= max_plies {
            return Ok((line, LineEnd::Unbounded));
        }
        let Some(next) = best_moves(oracle, &position, &counters)?.into_iter().next() else {
            return Ok((line, LineEnd::GameOver));
        };
        position = next.position;
        counters = next.counters;
        line.push(next);
    }
}
