//! Values of positions: the theoretical result and the distance to the end of the game.

use std::fmt;

/// Game-theoretic result for the side to move, repetition counting as a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wld {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wld {
    /// The same result seen from the other side: a win for one is a loss for the other.
    pub const fn for_opponent(self) -> Wld {
        match self {
            Wld::Win => Wld::Loss,
            Wld::Loss => Wld::Win,
            Wld::Draw => Wld::Draw,
        }
    }

    /// `win`, `draw` or `loss`: the one spelling of a result, in text, in JSON (the
    /// presentation layer, `kabe_analyze::json`), in Python and in C's messages.
    pub const fn word(self) -> &'static str {
        match self {
            Wld::Win => "win",
            Wld::Draw => "draw",
            Wld::Loss => "loss",
        }
    }
}

impl fmt::Display for Wld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A position's value with its distance to win (DTW): the number of plies to the end of
/// the game when the winner takes the shortest way and the loser the longest. The game
/// ends when the side to move has no piece or no legal move, so a win is an odd number of
/// plies and a loss an even number (0: the side to move has already lost).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Score(u16);

impl Score {
    /// A draw.
    pub const DRAW: Score = Score(u16::MAX);
    /// Longest distance a score can hold.
    pub const MAX_PLIES: u16 = u16::MAX - 1;

    /// A win in `plies` (odd) plies.
    pub fn win(plies: u16) -> Score {
        debug_assert!(plies % 2 == 1);
        Score(plies)
    }

    /// A loss in `plies` (even) plies.
    pub fn loss(plies: u16) -> Score {
        debug_assert!(plies.is_multiple_of(2));
        Score(plies)
    }

    /// From a raw ply count: odd is a win, even a loss, `u16::MAX` a draw.
    pub const fn from_raw(raw: u16) -> Score {
        Score(raw)
    }

    /// The raw ply count (`u16::MAX` for a draw).
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Win, draw or loss.
    pub fn wld(self) -> Wld {
        match self.0 {
            u16::MAX => Wld::Draw,
            p if p % 2 == 1 => Wld::Win,
            _ => Wld::Loss,
        }
    }

    /// Plies to the end of the game, `None` for a draw.
    pub fn plies(self) -> Option<u16> {
        (self.0 != u16::MAX).then_some(self.0)
    }

    /// The value of the position before a move that leads to a position of this value.
    #[must_use]
    pub fn parent(self) -> Score {
        match self.0 {
            u16::MAX => Score::DRAW,
            p => Score(p + 1),
        }
    }
}

impl fmt::Debug for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.wld() {
            Wld::Draw => write!(f, "{}", Wld::Draw),
            w => write!(f, "{w} in {}", self.0),
        }
    }
}

/// A value within a running count: whether the side to move wins or loses before the
/// count needs more plies, and in how many plies the game is decided for the count (the
/// game ends, or a move that ends the count leads to a position won afresh). Unlike
/// [`Score`], either side may make the deciding move, so the distance has no parity.
/// With `left` plies left on the count the side to move wins when this is a win in at
/// most `left` plies, loses when it is a loss in at most `left`, and draws otherwise.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleScore(u16);

impl RuleScore {
    /// Neither side can force a result within any count the rule allows.
    pub const NONE: RuleScore = RuleScore(u16::MAX);

    /// A win decided in `plies` plies.
    pub const fn win(plies: u16) -> RuleScore {
        RuleScore(plies * 2 + 1)
    }

    /// A loss decided in `plies` plies.
    pub const fn loss(plies: u16) -> RuleScore {
        RuleScore(plies * 2)
    }

    /// The theoretical score read as a count that never ends early.
    pub fn from_score(score: Score) -> RuleScore {
        match score.wld() {
            Wld::Win => RuleScore::win(score.raw()),
            Wld::Loss => RuleScore::loss(score.raw()),
            Wld::Draw => RuleScore::NONE,
        }
    }

    /// From the raw code (`plies * 2 + win`, `u16::MAX` for none).
    pub const fn from_raw(raw: u16) -> RuleScore {
        RuleScore(raw)
    }

    /// The raw code.
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Win or loss with its distance, `None` when undecided.
    pub fn decided(self) -> Option<(Wld, u16)> {
        match self.0 {
            u16::MAX => None,
            r if r % 2 == 1 => Some((Wld::Win, r / 2)),
            r => Some((Wld::Loss, r / 2)),
        }
    }

    /// The result with `left` plies left on the count.
    pub fn within(self, left: u16) -> Wld {
        match self.decided() {
            Some((wld, plies)) if plies <= left => wld,
            _ => Wld::Draw,
        }
    }

    /// The same value with distances beyond `cap` plies forgotten.
    #[must_use]
    pub fn capped(self, cap: u16) -> RuleScore {
        match self.decided() {
            Some((_, plies)) if plies > cap => RuleScore::NONE,
            _ => self,
        }
    }
}

impl fmt::Debug for RuleScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for RuleScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.decided() {
            None => f.write_str("undecided"),
            Some((Wld::Win, p)) => write!(f, "win in {p}"),
            Some((_, p)) => write!(f, "loss in {p}"),
        }
    }
}
