//! Wolf and sheep ("Hunt ja lambad", seeds/004), solved completely.
//!
//! Four sheep (White) stand on the dark squares of their first row (a1, c1, e1, g1) and
//! step one square diagonally forward; the wolf (Black) stands on any other dark square
//! and steps one square diagonally forward or back. Nothing is ever captured. The sheep
//! win when the wolf cannot move; the wolf wins once it has passed every sheep: the
//! sheep cannot step back, so from then on nothing can stop it.
//!
//! Readings where the seed is silent, named here:
//! - **passed** means every sheep stands on a higher row than the wolf (a sheep level
//!   with the wolf has not been passed), whichever side's move made it so;
//! - a side with no move loses, as in every draughts game: trapped sheep lose (it
//!   happens only once the wolf is through, so it changes no result);
//! - either side may move first: both are solved.
//!
//! The sheep move once per turn and only forward, so a game has at most 2 * 28 + 1
//! plies and no position repeats: the values come from plain minimax over the 2.3 M
//! positions (winner's shortest way, loser's longest), memoised.

use std::collections::HashMap;
use std::fmt;

/// Dark squares of the 8x8 board, `0..32`: `row * 4 + file / 2`, row 0 being the sheep's
/// first row (rank 1) and a1 dark.
type Square = u8;

/// The side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The four sheep (White, starting on rank 1).
    Sheep,
    /// The wolf (Black).
    Wolf,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Sheep => Side::Wolf,
            Side::Wolf => Side::Sheep,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Sheep => "sheep",
            Side::Wolf => "wolf",
        })
    }
}

/// A position: where the wolf and the sheep stand, and who moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hunt {
    /// The wolf's square.
    wolf: Square,
    /// One bit per sheep.
    sheep: u32,
    /// The side to move.
    pub to_move: Side,
}

/// The result of a position with best play: who wins and after how many plies the game
/// ends (the winner taking the shortest way, the loser the longest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The side that wins.
    pub winner: Side,
    /// Plies until the game ends.
    pub plies: u8,
}

/// One step: from a square to a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The square left.
    pub from: Square,
    /// The square reached.
    pub to: Square,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", square_name(self.from), square_name(self.to))
    }
}

/// `a1` .. `h8`.
pub fn square_name(square: Square) -> String {
    let (row, col) = (square / 4, square % 4);
    let file = 2 * col + row % 2;
    format!("{}{}", (b'a' + file) as char, row + 1)
}

/// The dark square named `name` (`a1` .. `h8`).
pub fn parse_square(name: &str) -> Option<Square> {
    let bytes = name.trim().to_ascii_lowercase().into_bytes();
    let [file @ b'a'..=b'h', rank @ b'1'..=b'8'] = bytes[..] else { return None };
    let (file, row) = (file - b'a', rank - b'1');
    ((file + row) % 2 == 0).then_some(row * 4 + file / 2)
}

/// The diagonal neighbour of `square` one row up (`up`) or down, to the left or right.
fn neighbour(square: Square, up: bool, right: bool) -> Option<Square> {
    let (row, col) = (square / 4, square % 4);
    let file = 2 * col + row % 2;
    let row = if up { row.checked_add(1).filter(|r| *r < 8)? } else { row.checked_sub(1)? };
    let file = if right { file.checked_add(1).filter(|f| *f < 8)? } else { file.checked_sub(1)? };
    Some(row * 4 + file / 2)
}

/// The sheep's first row.
const SHEEP_START: u32 = 0b1111;

impl Hunt {
    /// The start of a game: the sheep on a1, c1, e1 and g1, the wolf on `wolf`, `to_move`
    /// first. `None` when `wolf` is a sheep's square.
    pub fn start(wolf: Square, to_move: Side) -> Option<Hunt> {
        (wolf < 32 && SHEEP_START & 1 << wolf == 0).then_some(Hunt { wolf, sheep: SHEEP_START, to_move })
    }

    /// The wolf's square.
    pub fn wolf(&self) -> Square {
        self.wolf
    }

    /// The sheep's squares, lowest first.
    pub fn sheep(&self) -> impl Iterator<Item = Square> + '_ {
        (0..32).filter(|s| self.sheep & 1 << s != 0)
    }

    /// Whether every sheep stands on a higher row than the wolf.
    pub fn wolf_is_through(&self) -> bool {
        self.sheep().all(|s| s / 4 > self.wolf / 4)
    }

    /// The legal steps of the side to move.
    pub fn steps(&self) -> Vec<Step> {
        let occupied = self.sheep | 1 << self.wolf;
        let free = |to: &Square| occupied & 1 << to == 0;
        let mut out = Vec::new();
        match self.to_move {
            Side::Sheep => {
                for from in self.sheep() {
                    for right in [false, true] {
                        out.extend(neighbour(from, true, right).filter(free).map(|to| Step { from, to }));
                    }
                }
            }
            Side::Wolf => {
                for (up, right) in [(true, false), (true, true), (false, false), (false, true)] {
                    out.extend(neighbour(self.wolf, up, right).filter(free).map(|to| Step { from: self.wolf, to }));
                }
            }
        }
        out
    }

    /// The position after `step` (one of [`Hunt::steps`]).
    #[must_use]
    pub fn play(&self, step: Step) -> Hunt {
        let mut next = *self;
        match self.to_move {
            Side::Sheep => next.sheep = self.sheep & !(1 << step.from) | 1 << step.to,
            Side::Wolf => next.wolf = step.to,
        }
        next.to_move = self.to_move.other();
        next
    }

    /// The winner if the game is over: the wolf once it is through, else the side to
    /// move when it has no step.
    pub fn finished(&self) -> Option<Side> {
        if self.wolf_is_through() {
            Some(Side::Wolf)
        } else if self.steps().is_empty() {
            Some(self.to_move.other())
        } else {
            None
        }
    }
}

/// Every position reachable from the starts, solved.
pub struct Solution {
    values: HashMap<Hunt, Outcome>,
}

impl Solution {
    /// Solves every position reachable from every start (both first movers).
    pub fn solve() -> Solution {
        let mut solution = Solution { values: HashMap::new() };
        for first in [Side::Sheep, Side::Wolf] {
            for wolf in 0..32 {
                if let Some(start) = Hunt::start(wolf, first) {
                    solution.outcome(start);
                }
            }
        }
        solution
    }

    /// Positions solved.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether nothing is solved.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of `position`, solving what it needs first.
    pub fn outcome(&mut self, position: Hunt) -> Outcome {
        if let Some(known) = self.values.get(&position) {
            return *known;
        }
        let value = match position.finished() {
            Some(winner) => Outcome { winner, plies: 0 },
            None => {
                let children: Vec<Outcome> =
                    position.steps().into_iter().map(|step| self.outcome(position.play(step))).collect();
                best_of(position.to_move, &children)
            }
        };
        self.values.insert(position, value);
        value
    }

    /// The value of a solved position (`None` when it was not reached from a start).
    pub fn get(&self, position: &Hunt) -> Option<Outcome> {
        self.values.get(position).copied()
    }

    /// The steps of the side to move that keep the best result: the shortest win, or
    /// the longest loss.
    pub fn best_steps(&mut self, position: Hunt) -> Vec<Step> {
        let value = self.outcome(position);
        if value.plies == 0 {
            return Vec::new();
        }
        position
            .steps()
            .into_iter()
            .filter(|step| {
                let child = self.outcome(position.play(*step));
                child.winner == value.winner && child.plies + 1 == value.plies
            })
            .collect()
    }

    /// A best line from `position` to the end of the game (the first best step each
    /// time).
    pub fn main_line(&mut self, mut position: Hunt) -> Vec<Step> {
        let mut line = Vec::new();
        while let Some(step) = self.best_steps(position).first().copied() {
            line.push(step);
            position = position.play(step);
        }
        line
    }

    /// Re-checks every stored value against its children's stored values: a finished
    /// position is valued by [`Hunt::finished`]; otherwise a win has a step to a child
    /// lost in one ply less and none shorter, and a loss has every step lead to a win for
    /// the other side, the longest in one ply less. Returns the first position that
    /// fails.
    pub fn check(&self) -> Result<usize, Hunt> {
        for (position, value) in &self.values {
            let expected = match position.finished() {
                Some(winner) => Some(Outcome { winner, plies: 0 }),
                None => {
                    let children: Option<Vec<Outcome>> =
                        position.steps().into_iter().map(|s| self.get(&position.play(s))).collect();
                    children.map(|c| best_of(position.to_move, &c))
                }
            };
            if expected != Some(*value) {
                return Err(*position);
            }
        }
        Ok(self.values.len())
    }
}

/// The value of a position whose side to move has steps leading to `children`.
fn best_of(mover: Side, children: &[Outcome]) -> Outcome {
    let win = children.iter().filter(|c| c.winner == mover).map(|c| c.plies).min();
    match win {
        Some(plies) => Outcome { winner: mover, plies: plies + 1 },
        None => Outcome { winner: mover.other(), plies: children.iter().map(|c| c.plies).max().unwrap_or(0) + 1 },
    }
}

/// One start's result: the wolf's square, who moves first, the outcome, a best line.
#[derive(Clone, Debug)]
pub struct StartResult {
    /// Where the wolf starts.
    pub wolf: Square,
    /// Who moves first.
    pub first: Side,
    /// The result with best play.
    pub outcome: Outcome,
    /// A best line.
    pub line: Vec<Step>,
}

/// The result of every start: the wolf on each of the 28 free dark squares, each side
/// moving first.
pub fn solve_starts(solution: &mut Solution) -> Vec<StartResult> {
    let mut out = Vec::new();
    for first in [Side::Sheep, Side::Wolf] {
        for wolf in 0..32 {
            if let Some(start) = Hunt::start(wolf, first) {
                let outcome = solution.outcome(start);
                out.push(StartResult { wolf, first, outcome, line: solution.main_line(start) });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        parse_square(name).expect("dark square")
    }

    #[test]
    fn square_names_round_trip_over_the_dark_squares() {
        let names: Vec<String> = (0..32).map(square_name).collect();
        assert_eq!(&names[..5], ["a1", "c1", "e1", "g1", "b2"]);
        assert_eq!(names[31], "h8");
        for (s, name) in names.iter().enumerate() {
            assert_eq!(parse_square(name), Some(s as Square));
        }
        assert_eq!(parse_square("a2"), None, "a light square");
        assert_eq!(parse_square("i1"), None);
    }

    #[test]
    fn sheep_step_forward_and_the_wolf_both_ways() {
        let start = Hunt::start(sq("d4"), Side::Sheep).expect("free square");
        let steps: Vec<String> = start.steps().iter().map(Step::to_string).collect();
        assert_eq!(steps, ["a1-b2", "c1-b2", "c1-d2", "e1-d2", "e1-f2", "g1-f2", "g1-h2"]);
        let wolf = Hunt { to_move: Side::Wolf, ..start };
        let steps: Vec<String> = wolf.steps().iter().map(Step::to_string).collect();
        assert_eq!(steps, ["d4-c5", "d4-e5", "d4-c3", "d4-e3"]);
        assert!(Hunt::start(sq("a1"), Side::Wolf).is_none());
    }

    #[test]
    fn a_trapped_wolf_loses_and_a_wolf_through_wins() {
        // The wolf on a3 boxed in by sheep on b2 and b4.
        let trapped =
            Hunt { wolf: sq("a3"), sheep: 1 << sq("b2") | 1 << sq("b4") | 1 << sq("c5"), to_move: Side::Wolf };
        assert_eq!(trapped.finished(), Some(Side::Sheep));
        let through = Hunt { wolf: sq("b2"), sheep: 1 << sq("c3") | 1 << sq("e3"), to_move: Side::Sheep };
        assert_eq!(through.finished(), Some(Side::Wolf));
        let level = Hunt { wolf: sq("b2"), sheep: 1 << sq("d2") | 1 << sq("e3"), to_move: Side::Wolf };
        assert_eq!(level.finished(), None, "a sheep level with the wolf is not passed");
    }

    #[test]
    fn the_sheep_win_from_every_start() {
        // The classical result (the sheep can always trap the wolf), as solved here: the
        // wolf can only delay, to the 43rd ply when the sheep move first.
        let mut solution = Solution::solve();
        for start in solve_starts(&mut solution) {
            let expected = match start.first {
                Side::Sheep => 43,
                Side::Wolf => 44,
            };
            assert_eq!(
                start.outcome,
                Outcome { winner: Side::Sheep, plies: expected },
                "wolf on {}",
                square_name(start.wolf)
            );
        }
    }

    #[test]
    fn every_value_agrees_with_its_children() {
        let mut solution = Solution::solve();
        assert!(solution.check().expect("consistent") > 100_000);
        for start in solve_starts(&mut solution) {
            // The line ends the game after the stated plies, with the stated winner.
            let mut position = Hunt::start(start.wolf, start.first).expect("start");
            for step in &start.line {
                assert!(position.steps().contains(step));
                position = position.play(*step);
            }
            assert_eq!(start.line.len(), start.outcome.plies as usize);
            assert_eq!(position.finished(), Some(start.outcome.winner));
        }
    }
}
