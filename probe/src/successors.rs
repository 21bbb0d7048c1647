//! The value of a position from the values of the positions its moves lead to: one ply
//! of search. A reader does this for the positions a table leaves out (a capture to make,
//! or the whole table of a pair that holds its colour flip's values only); the verifier
//! checks every stored value against it. (WLD has its own search in the reader, which
//! looks at stored successors first: a win among them ends it.)
//!
//! The rules of best play are the generator's: the winner takes the quickest win, the
//! loser the slowest loss, a position with no move has lost (in giveaway, won), and a
//! material drawn by rule is a draw.

use crate::rules::exact::{exact_result, Oracle};
use crate::rules::{Context, DrawRules};
use crate::{Counters, Move, Position, RuleScore, Score, Wld};

/// The DTW score from the successors' scores: the quickest win through a lost child, else
/// the slowest loss when every child wins, else a draw.
///
/// # Errors
/// The first error `child` returns; the moves after it are not looked at.
pub fn score_from<E>(position: &Position, mut child: impl FnMut(&Position) -> Result<Score, E>) -> Result<Score, E> {
    if let Some(settled) = position.settled_score() {
        return Ok(settled);
    }
    let moves = position.legal_moves();
    if moves.is_empty() {
        return Ok(position.variant().score_at_end());
    }
    best_score(moves.iter().map(|mv| child(&position.play(mv))))
}

/// The score of a position that has moves (and is not settled by its material), from
/// its children's scores: what [`score_from`] gives, for a caller that gathers the
/// children itself.
///
/// # Errors
/// The first error among `children`; the ones after it are not read.
pub fn best_score<E>(children: impl IntoIterator<Item = Result<Score, E>>) -> Result<Score, E> {
    let mut quickest_win: Option<u16> = None;
    let mut slowest_loss = 0u16;
    let mut every_move_loses = true;
    for c in children {
        let c = c?;
        match c.wld() {
            Wld::Loss => quickest_win = Some(quickest_win.map_or(c.raw() + 1, |w| w.min(c.raw() + 1))),
            Wld::Win => slowest_loss = slowest_loss.max(c.raw() + 1),
            Wld::Draw => every_move_loses = false,
        }
        if quickest_win == Some(1) {
            break; // no win is quicker: the other children cannot change the value
        }
    }
    Ok(match quickest_win {
        Some(d) => Score::win(d),
        None if every_move_loses => Score::loss(slowest_loss),
        None => Score::DRAW,
    })
}

/// The rule value from the successors, within the count `context` of `rules`: a move
/// that ends the count is worth the exact verdict of the position after it with fresh
/// counts (decided at once); any other move is worth the successor's own rule value one
/// ply later. Wins are the quickest, losses the slowest; a distance beyond the count's
/// longest limit is undecided, as is a position that is neither.
///
/// # Errors
/// The first error of `oracle` for a position after a move (for the tablebase's oracle,
/// a [`ProbeError`](crate::tablebase::ProbeError) naming a missing or unusable table).
pub fn rule_score_from<O: Oracle>(
    oracle: &O,
    rules: &DrawRules,
    context: Context,
    position: &Position,
) -> Result<RuleScore, O::Error> {
    if position.is_drawn_by_material() {
        return Ok(RuleScore::NONE);
    }
    let moves = position.legal_moves();
    rule_score_of_children(oracle, rules, context, position, moves.iter().map(|mv| (mv, position.play(mv))))
}

/// As [`rule_score_from`], for a caller that has made the moves itself: `children` are
/// every legal move of `position` (not drawn by its material) with the position after
/// it. The oracle is asked about those very positions (by reference), so a caller that
/// has located them already can answer without locating them again.
///
/// # Errors
/// The first error of `oracle` for one of `children`, as [`rule_score_from`].
pub fn rule_score_of_children<'m, O: Oracle, P: std::borrow::Borrow<Position>>(
    oracle: &O,
    rules: &DrawRules,
    context: Context,
    position: &Position,
    children: impl IntoIterator<Item = (&'m Move, P)>,
) -> Result<RuleScore, O::Error> {
    rule_score_with_king_steps(oracle, rules, context, position, children, std::iter::empty())
}

/// As [`rule_score_of_children`], the positions after the quiet king moves given apart,
/// by their own rule values (`king_steps`; `children` are then the other moves): such a
/// move never ends a count (no reset rule resets on it, and it changes no material), so
/// that value is all it is worth, and a caller that reads those values by index need not
/// make the moves.
///
/// # Errors
/// The first error of `oracle` for one of `children`, or the first error among
/// `king_steps`.
pub fn rule_score_with_king_steps<'m, O: Oracle, P: std::borrow::Borrow<Position>>(
    oracle: &O,
    rules: &DrawRules,
    context: Context,
    position: &Position,
    children: impl IntoIterator<Item = (&'m Move, P)>,
    king_steps: impl IntoIterator<Item = Result<RuleScore, O::Error>>,
) -> Result<RuleScore, O::Error> {
    let cap = context.max_plies(rules);
    let mut best = BestRule::default();
    for (mv, child) in children {
        let child = child.borrow();
        let child_value = if context.ends_with(rules, mv, child) {
            // The exact result alone: the theoretical value is read only where the rule
            // table does not decide (a left-out successor's would cost a search).
            match exact_result(oracle, child, &Counters::fresh(rules, child))? {
                Wld::Win => Some((Wld::Win, 0)),
                Wld::Loss => Some((Wld::Loss, 0)),
                Wld::Draw => None,
            }
        } else {
            oracle.counted(child)?.decided().filter(|&(_, plies)| plies <= cap)
        };
        if best.add(child_value) {
            return Ok(best.score(position, cap));
        }
    }
    for child in king_steps {
        if best.add(child?.decided().filter(|&(_, plies)| plies <= cap)) {
            break;
        }
    }
    Ok(best.score(position, cap))
}

/// The best rule value of a position's moves so far ([`rule_score_with_king_steps`]).
struct BestRule {
    quickest_win: Option<u16>,
    slowest_loss: u16,
    every_move_loses: bool,
    any_move: bool,
}

impl Default for BestRule {
    fn default() -> Self {
        BestRule { quickest_win: None, slowest_loss: 0, every_move_loses: true, any_move: false }
    }
}

impl BestRule {
    /// Takes in a move worth `child_value` (the position after it as its opponent sees
    /// it, where decided within the count); returns whether no later move can change
    /// the value (a win at once).
    #[inline]
    fn add(&mut self, child_value: Option<(Wld, u16)>) -> bool {
        self.any_move = true;
        match child_value {
            Some((Wld::Loss, plies)) => {
                self.quickest_win = Some(self.quickest_win.map_or(plies + 1, |w| w.min(plies + 1)));
                self.every_move_loses = false;
                self.quickest_win == Some(1) // no win is quicker
            }
            Some((_, plies)) => {
                self.slowest_loss = self.slowest_loss.max(plies + 1);
                false
            }
            None => {
                self.every_move_loses = false;
                false
            }
        }
    }

    fn score(&self, position: &Position, cap: u16) -> RuleScore {
        if !self.any_move {
            return RuleScore::from_score(position.variant().score_at_end()).capped(cap);
        }
        match self.quickest_win.filter(|&w| w <= cap) {
            Some(w) => RuleScore::win(w),
            None if self.every_move_loses && self.slowest_loss <= cap => RuleScore::loss(self.slowest_loss),
            None => RuleScore::NONE,
        }
    }
}
