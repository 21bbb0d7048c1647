//! Counted-move draw rules as data, the counters of a game, and the exact verdict.
//!
//! A rule set ([`DrawRules`]) has at most one *reset* rule (a count of plies that an
//! irreversible kind of move sets back to zero: FMJD 6.2, the 1953 30-move rule) and any
//! number of *material* rules (a count that starts when certain material arises and is
//! never reset: FMJD 6.3 and 6.4, the 1953 18-move rules). When the count of a rule
//! reaches its limit the game is drawn, unless the position reached is already lost for
//! the side to move (no piece or no move): a win delivered on the last counted move counts.
//!
//! Two facts keep the state small, and [`DrawRules::check`] asserts the second:
//! - a material count starts with a capture or a promotion, which also resets the reset
//!   count, so while a material count runs the reset count is at most as large;
//! - every material limit is below the reset limit, so while a material count runs the
//!   reset rule can never be the one that ends the game.
//!
//! How the verdict is stored exactly for every counter value is described in
//! [`exact`]: per signature the rule set keeps one *context* ([`Context`]).

mod counters;
pub mod exact;
mod set;

pub use counters::{CounterError, Counters, MaterialCount};
pub use set::{DrawRuleSet, RuleSetError, UnknownDrawRules};

use crate::index::Signature;
use crate::{Color, Move, PieceKind, Position};

/// A count that any move of a given kind sets back to zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResetRule {
    /// Where the rule is written, e.g. `6.2`.
    pub article: &'static str,
    /// Plies after which the game is drawn.
    pub limit_plies: u16,
    /// Which moves set the count back to zero.
    pub reset_by: ResetBy,
}

/// What resets a [`ResetRule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetBy {
    /// FMJD 6.2: any capture and any move of a man ("only kings were moved, no capture").
    ManMoveOrCapture,
    /// USSR 1953 §16b: a change in the number or kind of pieces (a capture, a promotion).
    MaterialChange,
}

impl ResetRule {
    /// Whether `mv` sets the count back to zero.
    pub fn resets(&self, mv: &Move) -> bool {
        mv.is_capture()
            || match self.reset_by {
                ResetBy::ManMoveOrCapture => mv.piece() == PieceKind::Man,
                ResetBy::MaterialChange => mv.promotes(),
            }
    }

    /// Whether a man's step that neither captures nor crowns sets the count back to zero.
    pub fn resets_on_man_step(&self) -> bool {
        self.reset_by == ResetBy::ManMoveOrCapture
    }
}

/// The material of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Material {
    /// Men.
    pub men: u8,
    /// Kings.
    pub kings: u8,
}

const fn m(men: u8, kings: u8) -> Material {
    Material { men, kings }
}

/// A count that starts when one side has one of the `strong` materials against a lone king.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaterialRule {
    /// Where the rule is written, e.g. `6.3`.
    pub article: &'static str,
    /// The materials of the strong side (the other side has a single king and nothing else).
    pub strong: &'static [Material],
    /// When the game is drawn.
    pub limit: CountLimit,
    /// What happens to the count when the material changes while it runs.
    pub persistence: Persistence,
}

/// The limit of a [`MaterialRule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountLimit {
    /// Drawn once this many plies have been played since the material arose
    /// ("each player has made N moves": 2N plies).
    Plies(u16),
    /// Drawn once the strong side has made this many moves since the material arose
    /// without winning (1953 "by its 18th move").
    StrongSideMoves(u16),
}

/// What a running material count does when the material changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persistence {
    /// The count runs while the material stays one of the rule's (a promotion or a capture
    /// inside the rule keeps it); when the material leaves the rule, the count ends and the
    /// new material's own rule, if any, starts afresh.
    WhileInRule,
    /// Once started the count stays in force, whatever is captured, until the game ends
    /// (FMJD 6.3, newer text; USSR 1953 §16c and §31, whose deadline is for capturing or
    /// blocking the lone king).
    UntilGameEnds,
}

impl MaterialRule {
    /// The strong side when the material of `position` is this rule's, `None` otherwise.
    /// King against king: White.
    pub fn strong_side(&self, position: &Position) -> Option<Color> {
        [Color::White, Color::Black].into_iter().find(|&c| {
            let weak = c.opposite();
            position.count(weak, PieceKind::Man) == 0
                && position.count(weak, PieceKind::King) == 1
                && self
                    .strong
                    .contains(&m(position.count(c, PieceKind::Man) as u8, position.count(c, PieceKind::King) as u8))
        })
    }

    /// Whether the material of `signature` is this rule's.
    pub fn covers(&self, signature: Signature) -> bool {
        let lone = |men: u8, kings: u8| men == 0 && kings == 1;
        (lone(signature.black_men, signature.black_kings)
            && self.strong.contains(&m(signature.white_men, signature.white_kings)))
            || (lone(signature.white_men, signature.white_kings)
                && self.strong.contains(&m(signature.black_men, signature.black_kings)))
    }

    /// The largest number of plies the count can allow.
    pub fn max_plies(&self) -> u16 {
        match self.limit {
            CountLimit::Plies(p) => p,
            CountLimit::StrongSideMoves(n) => 2 * n,
        }
    }

    /// Whether the limit counts the strong side's moves (so a running count must know
    /// which side that is).
    pub fn counts_strong_moves(&self) -> bool {
        matches!(self.limit, CountLimit::StrongSideMoves(_))
    }

    /// The side a count of this rule started in `position` belongs to, when it counts
    /// the strong side's moves.
    pub fn start_strong(&self, position: &Position) -> Option<Color> {
        self.counts_strong_moves().then(|| self.strong_side(position)).flatten()
    }

    /// Whether a count of this rule can still run in a position of `signature`: its own
    /// materials, and for a count that stays in force, every material the captures of
    /// the lone king (and the strong side's promotions) can leave: a lone king against at
    /// most as many pieces, and no more men, than the rule's materials have.
    pub fn can_follow(&self, signature: Signature) -> bool {
        if self.covers(signature) {
            return true;
        }
        if self.persistence != Persistence::UntilGameEnds {
            return false;
        }
        let max_pieces = self.strong.iter().map(|m| m.men + m.kings).max().unwrap_or(0);
        let max_men = self.strong.iter().map(|m| m.men).max().unwrap_or(0);
        let fits = |men: u8, kings: u8| men + kings >= 1 && men + kings <= max_pieces && men <= max_men;
        let lone = |men: u8, kings: u8| men == 0 && kings == 1;
        (lone(signature.black_men, signature.black_kings) && fits(signature.white_men, signature.white_kings))
            || (lone(signature.white_men, signature.white_kings) && fits(signature.black_men, signature.black_kings))
    }

    /// The strong side of a count running in `position`, as far as the material tells:
    /// the rule's own material, or the one side that is not a lone king. `None` when both
    /// sides are lone kings (the count must then say which side had the kings).
    pub fn strong_side_by_material(&self, position: &Position) -> Option<Color> {
        if let Some(c) = self.strong_side(position) {
            return Some(c);
        }
        let lone = |c: Color| position.count(c, PieceKind::Man) == 0 && position.count(c, PieceKind::King) == 1;
        match (lone(Color::White), lone(Color::Black)) {
            (false, true) => Some(Color::White),
            (true, false) => Some(Color::Black),
            _ => None,
        }
    }

    /// Plies left before the draw in `position` after `plies` plies of the count, or
    /// `None` when the count is already past its limit (or, for a count by the strong
    /// side's moves, when neither `strong` nor the material says which side that is).
    pub fn plies_left(&self, plies: u16, position: &Position, strong: Option<Color>) -> Option<u16> {
        let limit = match self.limit {
            CountLimit::Plies(p) => p,
            CountLimit::StrongSideMoves(n) => {
                let strong = strong.or_else(|| self.strong_side_by_material(position))?;
                // Who moved first when the count began: the side to move now after an even
                // number of plies. The strong side's n-th move is ply 2n - 1 when it moved
                // first, ply 2n otherwise.
                let first = if plies.is_multiple_of(2) { position.turn() } else { position.turn().opposite() };
                if first == strong {
                    2 * n - 1
                } else {
                    2 * n
                }
            }
        };
        limit.checked_sub(plies)
    }
}

/// A rule set's counted rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// The set's name.
    pub set: DrawRuleSet,
    /// The count reset by irreversible moves, if the set has one.
    pub reset: Option<ResetRule>,
    /// The counts started by material.
    pub material: &'static [MaterialRule],
}

/// FMJD 6.2. Seeds/001: "Kui 25 käigu jooksul tehakse käike üksnes kabedega ega tehta
/// ühtegi löömiskäiku, siis loetakse partii viigiks" (if during 25 moves only kings are
/// moved and no capture is made, the game is drawn). A move is one by each player, as in
/// 6.3 ("kumbki mängija on teinud veel 16 käiku"): 50 plies.
const FMJD_6_2: ResetRule = ResetRule { article: "6.2", limit_plies: 50, reset_by: ResetBy::ManMoveOrCapture };

/// FMJD 6.3 as in seeds/001: "... kolm kabet, või kaks kabet ja kivi, või üks kabe ja kaks
/// kivi vastase ühe kabe vastu ... viigiks, kui kumbki mängija on teinud veel 16 käiku. Kui
/// nende käikude jooksul eemaldatakse laualt kabend, jääb kehtima algne maksimaalselt 16
/// käigu loendamine" (three kings, two kings and a man, or a king and two men against one
/// king: drawn when each player has made 16 more moves; if a piece is removed during
/// these moves, the original count of at most 16 moves stays in force). Read literally:
/// the count stays whatever the capture leaves on the board, and a promotion (two kings
/// and a man becoming three kings) is no new start either.
const FMJD_6_3: MaterialRule = MaterialRule {
    article: "6.3",
    strong: &[m(0, 3), m(1, 2), m(2, 1)],
    limit: CountLimit::Plies(32),
    persistence: Persistence::UntilGameEnds,
};

/// FMJD 6.3 as in seeds/000, without the clause on removed pieces: the count belongs to
/// the material, and a capture that leaves other material ends it (6.4 then starts
/// afresh when the new material is 6.4's).
const FMJD_2000_6_3: MaterialRule = MaterialRule { persistence: Persistence::WhileInRule, ..FMJD_6_3 };

/// FMJD 6.4: "Lõppmängud kaks kabet, kabe ja kivi või kabe kabe vastu loetakse viigiks,
/// kui mõlemad mängijad on teinud 5 käiku" (two kings, king and man, or king against king
/// are drawn when both players have made 5 moves). The endgame is the whole group: a
/// promotion or a capture inside it keeps the count; leaving it ends the count.
const FMJD_6_4: MaterialRule = MaterialRule {
    article: "6.4",
    strong: &[m(0, 2), m(1, 1), m(0, 1)],
    limit: CountLimit::Plies(10),
    persistence: Persistence::WhileInRule,
};

/// USSR 1953 §16b: "viimase 30 käigu jooksul pole muutunud kabendite koosseis (nende arv
/// ja väärtus)" (in the last 30 moves the composition of the pieces, their number and
/// value, has not changed). 30 moves of each side: read as 30 plies, §16c's 18 moves of
/// the strong side (35 or 36 plies) could never come into force.
const USSR_16B: ResetRule = ResetRule { article: "16b", limit_plies: 60, reset_by: ResetBy::MaterialChange };

/// USSR 1953 §16c: "mängija, kellel on kolm kabet vastase üksiku kabe vastu, oma 18.
/// käiguga (arvates selle jõudude vahekorra kindlakstegemise momendist) ei löö vastase
/// kabet" (a player with three kings against a lone king who does not capture it by their
/// 18th move, counted from when this balance of forces arose). Blocking the lone king
/// wins as well: the game is lost at once by §15a, before the draw. The deadline is for
/// capturing the lone king; the text gives it no other end, so it stands when the lone
/// king takes a king (two kings or one against it then play on to the same deadline).
const USSR_16C: MaterialRule = MaterialRule {
    article: "16c",
    strong: &[m(0, 3)],
    limit: CountLimit::StrongSideMoves(18),
    persistence: Persistence::UntilGameEnds,
};

/// §16c as kabe read it before (`ussr1953-count-ends`): the count ends with its material.
const USSR_16C_COUNT_ENDS: MaterialRule = MaterialRule { persistence: Persistence::WhileInRule, ..USSR_16C };

/// USSR 1953 §31 (100-square game): "neli kabet vastase üksiku kabe vastu ja oma 18
/// käiguga ... ei löö vastase kabet" (four kings against a lone king, 18 moves).
const USSR_31: MaterialRule = MaterialRule { article: "31", strong: &[m(0, 4)], ..USSR_16C };

/// §31 as kabe read it before (`ussr1953-count-ends`).
const USSR_31_COUNT_ENDS: MaterialRule = MaterialRule { persistence: Persistence::WhileInRule, ..USSR_31 };

/// FMJD 6.4 kept running when the lone king takes the king of king and man against king
/// (`fmjd-6.4-stands`), as the newer 6.3 keeps its count.
const FMJD_6_4_STANDS: MaterialRule = MaterialRule { persistence: Persistence::UntilGameEnds, ..FMJD_6_4 };

impl DrawRules {
    /// No counted rule.
    pub const NONE: DrawRules = DrawRules { set: DrawRuleSet::None, reset: None, material: &[] };

    /// The rules of `set` on the board of `variant`.
    pub fn new(set: DrawRuleSet, variant: &crate::Variant) -> DrawRules {
        match set {
            DrawRuleSet::Fmjd => DrawRules { set, reset: Some(FMJD_6_2), material: &[FMJD_6_3, FMJD_6_4] },
            DrawRuleSet::Fmjd2000 => DrawRules { set, reset: Some(FMJD_6_2), material: &[FMJD_2000_6_3, FMJD_6_4] },
            DrawRuleSet::Fmjd64Stands => {
                DrawRules { set, reset: Some(FMJD_6_2), material: &[FMJD_6_3, FMJD_6_4_STANDS] }
            }
            DrawRuleSet::Ussr1953 => match variant.board {
                crate::BoardSize::Ten => DrawRules { set, reset: Some(USSR_16B), material: &[USSR_31] },
                crate::BoardSize::Eight | crate::BoardSize::EightOrthogonal => {
                    DrawRules { set, reset: Some(USSR_16B), material: &[USSR_16C] }
                }
            },
            DrawRuleSet::Ussr1953CountEnds => match variant.board {
                crate::BoardSize::Ten => DrawRules { set, reset: Some(USSR_16B), material: &[USSR_31_COUNT_ENDS] },
                crate::BoardSize::Eight | crate::BoardSize::EightOrthogonal => {
                    DrawRules { set, reset: Some(USSR_16B), material: &[USSR_16C_COUNT_ENDS] }
                }
            },
            DrawRuleSet::None => DrawRules::NONE,
        }
    }

    /// The material rule whose material `signature` is (rules do not overlap).
    pub fn rule_of(&self, signature: Signature) -> Option<usize> {
        self.material.iter().position(|r| r.covers(signature))
    }

    /// The rule with this article name.
    pub fn article(&self, name: &str) -> Option<RuleRef> {
        if self.reset.is_some_and(|r| r.article == name) {
            return Some(RuleRef::Reset);
        }
        self.material.iter().position(|r| r.article == name).map(RuleRef::Material)
    }

    /// The articles of the set, reset rule first.
    pub fn articles(&self) -> Vec<&'static str> {
        self.reset.iter().map(|r| r.article).chain(self.material.iter().map(|r| r.article)).collect()
    }

    /// What the tables of this rule set keep for `signature`, `None` when nothing need be
    /// kept (no rule, or a count that never ends early, derived from the DTW table).
    pub fn context(&self, signature: Signature) -> Option<Context> {
        match self.rule_of(signature) {
            Some(r) if self.material[r].persistence == Persistence::UntilGameEnds => None,
            Some(r) => Some(Context::Material(r)),
            None => self.reset.map(|_| Context::Reset),
        }
    }

    /// Checks the facts the counters rely on (see the module documentation).
    ///
    /// # Errors
    /// A message naming the article when a material rule's longest count is not below
    /// the reset rule's limit.
    pub fn check(&self) -> Result<(), String> {
        if let Some(reset) = self.reset {
            for r in self.material {
                if r.max_plies() >= reset.limit_plies {
                    return Err(format!(
                        "{}: limit {} not below {}'s {}",
                        r.article,
                        r.max_plies(),
                        reset.article,
                        reset.limit_plies
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A rule of a set, by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleRef {
    /// The reset rule.
    Reset,
    /// A material rule, by its place in [`DrawRules::material`].
    Material(usize),
}

/// Which count a stored rule table measures for its signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// The reset count: distances to the next reset move that keeps the result.
    Reset,
    /// The count of a material rule that ends when the material leaves it.
    Material(usize),
}

impl Context {
    /// Whether a move leaves the count (after it, the counts start afresh).
    pub fn ends_with(self, rules: &DrawRules, mv: &Move, child: &Position) -> bool {
        match self {
            Context::Reset => rules.reset.is_some_and(|r| r.resets(mv)),
            Context::Material(r) => {
                (mv.is_capture() || mv.promotes()) && !rules.material[r].covers(Signature::of(child))
            }
        }
    }

    /// Whether a man's step that neither captures nor crowns leaves the count: it keeps
    /// the material, so only a reset rule that any man's move resets ends it
    /// ([`Context::ends_with`] of such a move).
    pub fn ends_by_man_step(self, rules: &DrawRules) -> bool {
        match self {
            Context::Reset => rules.reset.is_some_and(|r| r.resets_on_man_step()),
            Context::Material(_) => false,
        }
    }

    /// The largest number of plies the count allows.
    pub fn max_plies(self, rules: &DrawRules) -> u16 {
        match self {
            Context::Reset => rules.reset.map_or(0, |r| r.limit_plies),
            Context::Material(r) => rules.material[r].max_plies(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn limits_and_classes() {
        let fmjd = DrawRules::new(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
        fmjd.check().expect("consistent");
        assert_eq!(fmjd.rule_of(Signature::new(0, 3, 0, 1)), Some(0));
        assert_eq!(fmjd.rule_of(Signature::new(0, 1, 2, 1)), Some(0));
        assert_eq!(fmjd.rule_of(Signature::new(0, 1, 1, 1)), Some(1));
        assert_eq!(fmjd.rule_of(Signature::new(0, 1, 0, 1)), Some(1));
        assert_eq!(fmjd.rule_of(Signature::new(0, 2, 0, 2)), None);
        assert_eq!(fmjd.rule_of(Signature::new(3, 0, 0, 1)), None);
        assert_eq!(fmjd.context(Signature::new(0, 3, 0, 1)), None);
        assert_eq!(fmjd.context(Signature::new(0, 2, 0, 1)), Some(Context::Material(1)));
        assert_eq!(fmjd.context(Signature::new(1, 2, 0, 1)), None);
        assert_eq!(fmjd.context(Signature::new(2, 0, 0, 1)), Some(Context::Reset));
        let old = DrawRules::new(DrawRuleSet::Fmjd2000, &Variant::INTERNATIONAL);
        assert_eq!(old.context(Signature::new(0, 3, 0, 1)), Some(Context::Material(0)));
        let russian = DrawRules::new(DrawRuleSet::Ussr1953, &Variant::RUSSIAN);
        russian.check().expect("consistent");
        assert_eq!(russian.rule_of(Signature::new(0, 1, 0, 3)), Some(0));
        assert_eq!(russian.rule_of(Signature::new(0, 4, 0, 1)), None);
        let hundred = DrawRules::new(DrawRuleSet::Ussr1953, &Variant::INTERNATIONAL);
        assert_eq!(hundred.rule_of(Signature::new(0, 4, 0, 1)), Some(0));
        assert_eq!(hundred.rule_of(Signature::new(0, 3, 0, 1)), None);
    }

    #[test]
    fn strong_side_moves_count_from_who_moved_first() {
        let rule = USSR_16C;
        let white_to_move: Position = Position::from_fen(Variant::RUSSIAN, "W:WKa1,Kc1,Ke1:BKh8").expect("fen");
        let black_to_move = white_to_move.with_turn(Color::Black);
        // Count just started with the strong side to move: its 18th move is ply 35.
        assert_eq!(rule.plies_left(0, &white_to_move, None), Some(35));
        // Started with the lone king to move: ply 36.
        assert_eq!(rule.plies_left(0, &black_to_move, None), Some(36));
        // One ply later the other side moves; the limit stays.
        assert_eq!(rule.plies_left(1, &black_to_move, None), Some(34));
        assert_eq!(rule.plies_left(1, &white_to_move, None), Some(35));
        assert_eq!(rule.plies_left(36, &black_to_move, None), Some(0));
        assert_eq!(rule.plies_left(36, &white_to_move, None), None);
    }
}
