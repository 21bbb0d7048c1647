//! Draw rule sets, by name. They are values separate from the [`Variant`]: the same
//! 100-square game is played under `fmjd` or under `ussr1953`. Each variant has its usual
//! set; the counting itself is data ([`super::DrawRules`]).

use std::fmt;
use std::str::FromStr;

use crate::{BoardSize, Goal, Variant};

/// A named set of counted-move draw rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DrawRuleSet {
    /// FMJD article 6 as in the newer text (seeds/001): 6.2 25 king-only moves each,
    /// 6.3 16 moves each with the count kept when a piece is removed, 6.4 5 moves each.
    Fmjd,
    /// FMJD article 6 as in the older text (seeds/000), where 6.3 lacks the newer clause.
    Fmjd2000,
    /// USSR rules of 1953 (seeds/002): 30 moves without a change of material; three kings
    /// (8x8) or four kings (10x10) against a lone king drawn after the strong side's 18th move.
    Ussr1953,
    /// No counted-move rule: only repetition draws (the family game of seeds/004).
    None,
    /// USSR 1953 read as kabe read it before 0.2: the §16c/§31 count ends when the
    /// material changes (the lone king taking a king ends the deadline, and §16b alone
    /// counts on). Not the text's reading (see [`DrawRuleSet::Ussr1953`]); kept by name to
    /// compare with analyses made under it.
    Ussr1953CountEnds,
    /// FMJD article 6 (newer text) with 6.4's count kept running when the lone king takes
    /// the king of king and man against king (man against king is then still counted, as
    /// 6.3's newer text does for its materials). The default [`DrawRuleSet::Fmjd`] ends
    /// the count there: 6.4 names its endgames, and man against king is not one of them.
    Fmjd64Stands,
}

impl DrawRuleSet {
    /// Every rule set and named reading.
    pub const ALL: [DrawRuleSet; 6] = [
        DrawRuleSet::Fmjd,
        DrawRuleSet::Fmjd2000,
        DrawRuleSet::Ussr1953,
        DrawRuleSet::None,
        DrawRuleSet::Ussr1953CountEnds,
        DrawRuleSet::Fmjd64Stands,
    ];

    /// Every name, comma-separated: for help texts and error messages.
    pub fn names() -> String {
        DrawRuleSet::ALL.map(DrawRuleSet::name).join(", ")
    }

    /// The names of the sets written for `variant`, its usual set first.
    pub fn names_for(variant: &Variant) -> String {
        let usual = DrawRuleSet::usual_for(variant);
        std::iter::once(usual)
            .chain(DrawRuleSet::ALL.into_iter().filter(|s| *s != usual && s.applies_to(variant)))
            .map(DrawRuleSet::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            DrawRuleSet::Fmjd => "fmjd",
            DrawRuleSet::Fmjd2000 => "fmjd-2000",
            DrawRuleSet::Ussr1953 => "ussr1953",
            DrawRuleSet::None => "none",
            DrawRuleSet::Ussr1953CountEnds => "ussr1953-count-ends",
            DrawRuleSet::Fmjd64Stands => "fmjd-6.4-stands",
        }
    }

    /// The code of this set's rule tables in a file header. `ussr1953` tables built
    /// before the §16c deadline was read as standing carry 18, now the code of
    /// `ussr1953-count-ends` (whose values they hold); the standing reading has its own
    /// code, so an old file is refused by name, never misread.
    pub const fn table_code(self) -> u8 {
        match self {
            DrawRuleSet::Fmjd => 16,
            DrawRuleSet::Fmjd2000 => 17,
            DrawRuleSet::Ussr1953CountEnds => 18,
            DrawRuleSet::None => 19,
            DrawRuleSet::Ussr1953 => 20,
            DrawRuleSet::Fmjd64Stands => 21,
        }
    }

    /// Whether the set is written for the board of `variant`.
    pub fn applies_to(self, variant: &Variant) -> bool {
        // The counts of article 6 and of the 1953 rules stop a side winning by taking
        // pieces; no source gives counts for the games played to lose.
        if variant.goal == Goal::Giveaway {
            return self == DrawRuleSet::None;
        }
        match self {
            DrawRuleSet::Fmjd | DrawRuleSet::Fmjd2000 | DrawRuleSet::Fmjd64Stands => variant.board == BoardSize::Ten,
            DrawRuleSet::Ussr1953 | DrawRuleSet::Ussr1953CountEnds => !variant.board.is_orthogonal(),
            DrawRuleSet::None => true,
        }
    }
}

impl DrawRuleSet {
    /// The draw rules a game of `variant` is normally played under.
    pub fn usual_for(variant: &Variant) -> DrawRuleSet {
        let v = variant;
        // The 8x8 games other than Russian are rule-free by a named choice (docs/variants.md,
        // "Variants"): English's 40-move rule is a claim judged on advantage, not a count;
        // Pool's 13-move rule depends on a "long king" whose count start no text at hand
        // gives; no Italian, Czech or Brazilian federation text is in the sources.
        match (v.board, v.pdn_game_type) {
            _ if v.goal == Goal::Giveaway => DrawRuleSet::None,
            (BoardSize::Ten, _) => DrawRuleSet::Fmjd,
            (BoardSize::Eight, Some(25)) => DrawRuleSet::Ussr1953,
            (BoardSize::Eight | BoardSize::EightOrthogonal, _) => DrawRuleSet::None,
        }
    }
}

impl fmt::Display for DrawRuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name given is not a draw rule set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown draw rules '{0}' (known: {known})", known = DrawRuleSet::names())]
pub struct UnknownDrawRules(pub String);

/// A rule set that cannot be used for a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleSetError {
    /// No set has that name.
    #[error(transparent)]
    Unknown(#[from] UnknownDrawRules),
    /// The set is not written for the game.
    #[error("the {set} rules are not written for {variant} (its rule sets: {known})")]
    NotForVariant {
        /// The set.
        set: &'static str,
        /// The game.
        variant: &'static str,
        /// The sets that are, its usual set first.
        known: String,
    },
}

impl DrawRuleSet {
    /// `self`, when it is written for `variant`.
    ///
    /// # Errors
    /// [`RuleSetError::NotForVariant`], with the sets that are, when the set is not
    /// written for `variant`.
    pub fn check_for(self, variant: &Variant) -> Result<DrawRuleSet, RuleSetError> {
        if self.applies_to(variant) {
            Ok(self)
        } else {
            Err(RuleSetError::NotForVariant {
                set: self.name(),
                variant: variant.name,
                known: DrawRuleSet::names_for(variant),
            })
        }
    }

    /// The set named `name` (`None` or empty: the variant's usual set), checked against
    /// the game: what every front end reads a `rules` argument with.
    ///
    /// # Errors
    /// [`RuleSetError::Unknown`] when `name` is not a rule set;
    /// [`RuleSetError::NotForVariant`] when it is one not written for `variant`.
    pub fn for_game(name: Option<&str>, variant: &Variant) -> Result<DrawRuleSet, RuleSetError> {
        match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(name) => name.parse::<DrawRuleSet>()?.check_for(variant),
            None => Ok(DrawRuleSet::usual_for(variant)),
        }
    }
}

impl FromStr for DrawRuleSet {
    type Err = UnknownDrawRules;
    fn from_str(s: &str) -> Result<DrawRuleSet, UnknownDrawRules> {
        let s = s.trim().to_ascii_lowercase();
        DrawRuleSet::ALL.into_iter().find(|r| r.name() == s).ok_or(UnknownDrawRules(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_has_its_usual_rules() {
        assert_eq!(DrawRuleSet::usual_for(&Variant::INTERNATIONAL), DrawRuleSet::Fmjd);
        assert_eq!(DrawRuleSet::usual_for(&Variant::RUSSIAN), DrawRuleSet::Ussr1953);
        assert_eq!(DrawRuleSet::usual_for(&Variant::KABE), DrawRuleSet::None);
        assert_eq!(DrawRuleSet::usual_for(&Variant::ENGLISH), DrawRuleSet::None);
        assert_eq!(DrawRuleSet::usual_for(&Variant::BRAZILIAN), DrawRuleSet::None);
        assert_eq!(DrawRuleSet::usual_for(&Variant::ANTIDRAUGHTS), DrawRuleSet::None);
        assert!(!DrawRuleSet::Fmjd.applies_to(&Variant::ANTIDRAUGHTS));
        assert!(!DrawRuleSet::Ussr1953.applies_to(&Variant::PODDAVKI));
        assert!(DrawRuleSet::None.applies_to(&Variant::GIVEAWAY));
        assert!(DrawRuleSet::Ussr1953.applies_to(&Variant::INTERNATIONAL));
        assert!(!DrawRuleSet::Fmjd.applies_to(&Variant::RUSSIAN));
        for r in DrawRuleSet::ALL {
            assert_eq!(r.name().parse::<DrawRuleSet>(), Ok(r));
        }
        assert!("fide".parse::<DrawRuleSet>().is_err());
    }
}
