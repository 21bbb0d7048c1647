//! The state of a game's running counts.

use super::{DrawRuleSet, DrawRules, MaterialRule, Persistence, RuleRef};
use crate::index::Signature;
use crate::{Color, Move, Position, Variant};

/// The running count of a material rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaterialCount {
    /// The rule, by its place in [`DrawRules::material`].
    pub rule: usize,
    /// Plies played since the material arose.
    pub plies: u16,
    /// For a rule that counts the strong side's moves (1953 §16c, §31): the side that had
    /// the kings when the count began. `None` elsewhere, or to let [`Counters::new`] read
    /// it from the material.
    pub strong: Option<Color>,
}

impl MaterialCount {
    /// The count of `rule` starting in `position`.
    pub fn start(rules: &DrawRules, rule: usize, position: &Position) -> MaterialCount {
        MaterialCount { rule, plies: 0, strong: rules.material[rule].start_strong(position) }
    }
}

/// Every running count of a game at one position, under the rule set they were made
/// for (they carry it: a probe applies the counters' own set, so a count can never be
/// read under another set's articles). Threefold repetition is not here: it depends on
/// the whole history, and stays the business of whoever replays the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Counters {
    /// The rule set the counts belong to.
    pub set: DrawRuleSet,
    /// Plies since the reset rule's count was last reset (0 when the set has none).
    pub reset_plies: u16,
    /// The material rule's count, when one runs.
    pub material: Option<MaterialCount>,
}

/// Counters that cannot belong to the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CounterError {
    /// The rule set has no rule of that name.
    #[error("the {set} rules have no article '{article}' (articles: {known})")]
    UnknownArticle {
        /// Rule set name.
        set: &'static str,
        /// The name given.
        article: String,
        /// The set's articles.
        known: String,
    },
    /// A count beyond its limit.
    #[error("count {article} at {} is past its limit of {limit}", crate::notation::plies(*plies))]
    PastLimit {
        /// The rule.
        article: &'static str,
        /// The count given.
        plies: u16,
        /// The limit.
        limit: u16,
    },
    /// A material count for material that is not the rule's.
    #[error("count {article} given, but the material {signature} is not {article}'s")]
    WrongMaterial {
        /// The rule.
        article: &'static str,
        /// The position's material, side to move first.
        signature: Signature,
    },
    /// The reset count started before the material count, which a game cannot reach.
    #[error("count {reset} at {} cannot exceed count {material} at {material_plies}: both restart when the material changes", crate::notation::plies(*reset_plies))]
    ResetBeyondMaterial {
        /// The reset rule.
        reset: &'static str,
        /// Its count.
        reset_plies: u16,
        /// The material rule.
        material: &'static str,
        /// Its count.
        material_plies: u16,
    },
    /// Text that is not `ARTICLE=PLIES,...`.
    #[error("bad counters '{0}': expected ARTICLE=PLIES[,ARTICLE=PLIES], e.g. 6.2=14 or 16c=3")]
    Syntax(String),
    /// A count by the strong side's moves running where both sides are lone kings: the
    /// material cannot tell whose moves it counts.
    #[error("count {article} with a king against a king: say which side had the kings, e.g. {article}={plies}:white")]
    StrongSideUnknown {
        /// The rule.
        article: &'static str,
        /// The count given.
        plies: u16,
    },
    /// The rule set is not written for the position's game.
    #[error(transparent)]
    RuleSet(#[from] super::RuleSetError),
    /// The counters belong to another rule set than the one asked for.
    #[error("the counters are {counters} counts, but the {asked} rules were asked for")]
    OtherRuleSet {
        /// The counters' set.
        counters: &'static str,
        /// The set asked for.
        asked: &'static str,
    },
    /// The strong side given is the lone king.
    #[error("count {article}: {side} has the lone king here, not the kings")]
    WrongStrongSide {
        /// The rule.
        article: &'static str,
        /// The side given.
        side: &'static str,
    },
}

impl Counters {
    /// The counts of a position where play starts: zero, with the material rule's count
    /// started when the material is one.
    pub fn fresh(rules: &DrawRules, position: &Position) -> Counters {
        let material = rules.rule_of(Signature::of(position)).map(|rule| MaterialCount::start(rules, rule, position));
        Counters { set: rules.set, reset_plies: 0, material }
    }

    /// Counters from explicit numbers, as an engine knows them: plies since the last reset
    /// and, when a material count runs, which rule's and its plies. A position whose
    /// material is a rule's always has that count (started now when not given).
    ///
    /// # Errors
    /// [`CounterError::RuleSet`] when `rules` are not written for the position's game;
    /// [`CounterError::PastLimit`] when a count is beyond its rule's limit;
    /// [`CounterError::UnknownArticle`] when the material count names no rule of the set;
    /// [`CounterError::WrongMaterial`] when that rule's count cannot run in the position's
    /// material; [`CounterError::StrongSideUnknown`] when a count by the strong side's
    /// moves with a king against a king names no side, [`CounterError::WrongStrongSide`]
    /// when the side it names has the lone king; [`CounterError::ResetBeyondMaterial`]
    /// when the reset count exceeds the material count.
    pub fn new(
        rules: &DrawRules,
        position: &Position,
        reset_plies: u16,
        material: Option<MaterialCount>,
    ) -> Result<Counters, CounterError> {
        rules.set.check_for(position.variant())?;
        let signature = Signature::of(position);
        let material = material.or_else(|| Counters::fresh(rules, position).material);
        if let Some(reset) = rules.reset
            && reset_plies > reset.limit_plies
        {
            return Err(CounterError::PastLimit {
                article: reset.article,
                plies: reset_plies,
                limit: reset.limit_plies,
            });
        }
        let mut material = material;
        if let Some(count) = &mut material {
            let rule = rules.material.get(count.rule).ok_or_else(|| CounterError::UnknownArticle {
                set: rules.set.name(),
                article: format!("#{}", count.rule),
                known: rules.articles().join(", "),
            })?;
            // A count runs in its own material, or in what its material can become while
            // it stays in force; and no other rule's material starts its own count then.
            let own = rules.rule_of(signature);
            let stands = rule.persistence == Persistence::UntilGameEnds;
            if !rule.can_follow(signature) || (own.is_some_and(|o| o != count.rule) && !stands) {
                let article = own.map_or(rule.article, |o| rules.material[o].article);
                return Err(CounterError::WrongMaterial { article, signature });
            }
            if rule.counts_strong_moves() {
                let by_material = rule.strong_side_by_material(position);
                match (count.strong, by_material) {
                    (None, None) => {
                        return Err(CounterError::StrongSideUnknown { article: rule.article, plies: count.plies })
                    }
                    (Some(given), Some(known)) if given != known => {
                        return Err(CounterError::WrongStrongSide { article: rule.article, side: color_word(given) })
                    }
                    (None, Some(known)) => count.strong = Some(known),
                    _ => {}
                }
            } else {
                count.strong = None;
            }
            if rule.plies_left(count.plies, position, count.strong).is_none() {
                return Err(CounterError::PastLimit {
                    article: rule.article,
                    plies: count.plies,
                    limit: rule.max_plies(),
                });
            }
            if let Some(reset) = rules.reset
                && reset_plies > count.plies
            {
                return Err(CounterError::ResetBeyondMaterial {
                    reset: reset.article,
                    reset_plies,
                    material: rule.article,
                    material_plies: count.plies,
                });
            }
        }
        Ok(Counters { set: rules.set, reset_plies, material })
    }

    /// Counters from text such as `6.2=14` or `6.3=9,6.2=4` (plies per article). A count
    /// by the strong side's moves may name that side (`16c=20:white`), which it must where
    /// both sides are lone kings.
    ///
    /// # Errors
    /// [`CounterError::Syntax`] when a part is not `ARTICLE=PLIES` (with an optional
    /// `:white` or `:black`, never on the reset count); [`CounterError::UnknownArticle`]
    /// when an article is not the set's; then every error of [`Counters::new`].
    pub fn parse(rules: &DrawRules, position: &Position, text: &str) -> Result<Counters, CounterError> {
        let mut reset_plies = 0;
        let mut material = None;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (article, value) = part.split_once('=').ok_or_else(|| CounterError::Syntax(text.to_string()))?;
            let (plies, strong) = match value.split_once(':') {
                Some((p, side)) => match side.trim().to_ascii_lowercase().as_str() {
                    "white" | "w" => (p, Some(Color::White)),
                    "black" | "b" => (p, Some(Color::Black)),
                    _ => return Err(CounterError::Syntax(text.to_string())),
                },
                None => (value, None),
            };
            let plies: u16 = plies.trim().parse().map_err(|_| CounterError::Syntax(text.to_string()))?;
            match rules.article(article.trim()) {
                Some(RuleRef::Reset) if strong.is_none() => reset_plies = plies,
                Some(RuleRef::Reset) => return Err(CounterError::Syntax(text.to_string())),
                Some(RuleRef::Material(rule)) => material = Some(MaterialCount { rule, plies, strong }),
                None => {
                    return Err(CounterError::UnknownArticle {
                        set: rules.set.name(),
                        article: article.trim().to_string(),
                        known: rules.articles().join(", "),
                    })
                }
            }
        }
        Counters::new(rules, position, reset_plies, material)
    }

    /// The rules the counts belong to, on the board of `variant`.
    pub fn rules(&self, variant: &Variant) -> DrawRules {
        DrawRules::new(self.set, variant)
    }

    /// The material rule whose count runs, under the counters' own rules.
    fn material_rule(&self, variant: &Variant) -> Option<(MaterialCount, MaterialRule)> {
        let count = self.material?;
        Some((count, *self.rules(variant).material.get(count.rule)?))
    }

    /// The counters checked against `position` as [`Counters::new`] checks them (for
    /// counters assembled field by field, as an engine may), with a count the material
    /// starts filled in.
    ///
    /// # Errors
    /// Those of [`Counters::new`], e.g. [`CounterError::RuleSet`] for counters of a set
    /// not written for the position's game, [`CounterError::PastLimit`] for a count
    /// beyond its limit.
    pub fn checked(&self, position: &Position) -> Result<Counters, CounterError> {
        Counters::new(&self.rules(position.variant()), position, self.reset_plies, self.material)
    }

    /// The counts after `mv` is played, reaching `after`.
    #[must_use]
    pub fn after(&self, mv: &Move, after: &Position) -> Counters {
        let rules = self.rules(after.variant());
        let reset_plies = match rules.reset {
            Some(r) if r.resets(mv) => 0,
            Some(_) => self.reset_plies.saturating_add(1),
            None => 0,
        };
        let material_changed = mv.is_capture() || mv.promotes();
        let now = Signature::of(after);
        let started = || rules.rule_of(now).map(|rule| MaterialCount::start(&rules, rule, after));
        let material = match self.material_rule(after.variant()) {
            Some((c, rule)) => {
                if !material_changed || rule.covers(now) || rule.can_follow(now) {
                    Some(MaterialCount { plies: c.plies.saturating_add(1), ..c })
                } else {
                    started()
                }
            }
            None if material_changed => started(),
            None => None,
        };
        Counters { set: self.set, reset_plies, material }
    }

    /// The counts at the end of `moves` played from `start` with fresh counts, and the
    /// position reached. Every move must be legal where it is played.
    pub fn from_moves(rules: &DrawRules, start: &Position, moves: &[Move]) -> (Position, Counters) {
        let mut position = *start;
        let mut counters = Counters::fresh(rules, start);
        for mv in moves {
            let next = position.play(mv);
            counters = counters.after(mv, &next);
            position = next;
        }
        (position, counters)
    }

    /// Plies left on the count that governs the position, with its article; `None` when
    /// no count runs (no rule set).
    pub fn governing(&self, position: &Position) -> Option<(&'static str, u16)> {
        match self.material_rule(position.variant()) {
            Some((c, rule)) => Some((rule.article, rule.plies_left(c.plies, position, c.strong).unwrap_or(0))),
            None => self
                .rules(position.variant())
                .reset
                .map(|r| (r.article, r.limit_plies.saturating_sub(self.reset_plies))),
        }
    }

    /// As [`Counters::describe`], with the strong side named where the material of
    /// `position` cannot tell it (`16c=30:white` with a king against a king), so that
    /// [`Counters::parse`] reads back the same counters.
    pub fn describe_at(&self, position: &Position) -> String {
        let mut text = self.describe(position.variant());
        if let Some((MaterialCount { strong: Some(side), .. }, rule)) = self.material_rule(position.variant())
            && rule.strong_side_by_material(position).is_none()
        {
            text.push(':');
            text.push_str(color_word(side));
        }
        text
    }

    /// The counters written as `ARTICLE=PLIES`, the form [`Counters::parse`] reads.
    pub fn describe(&self, variant: &Variant) -> String {
        let mut parts = Vec::new();
        if let Some(r) = self.rules(variant).reset {
            parts.push(format!("{}={}", r.article, self.reset_plies));
        }
        if let Some((c, rule)) = self.material_rule(variant) {
            parts.push(format!("{}={}", rule.article, c.plies));
        }
        parts.join(",")
    }
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DrawRuleSet, Variant};

    fn intl(fen: &str) -> Position {
        Position::from_fen(Variant::INTERNATIONAL, fen).expect("fen")
    }

    #[test]
    fn fmjd_counts_follow_the_moves() {
        let rules = DrawRules::new(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
        // Two kings and a man against a king: 6.3 runs from the start.
        let p = intl("W:WK1,K2,30:BK50");
        let c = Counters::fresh(&rules, &p);
        assert_eq!(c.material, Some(MaterialCount { rule: 0, plies: 0, strong: None }));
        let king_move = p.parse_move("1-7").expect("legal");
        let q = p.play(&king_move);
        let c1 = c.after(&king_move, &q);
        assert_eq!((c1.reset_plies, c1.material.map(|m| m.plies)), (1, Some(1)));
        let man_move = q.with_turn(crate::Color::White).parse_move("30-24").expect("legal");
        let r = q.with_turn(crate::Color::White).play(&man_move);
        let c2 = c1.after(&man_move, &r);
        assert_eq!((c2.reset_plies, c2.material.map(|m| m.plies)), (0, Some(2)));
    }

    #[test]
    fn removal_keeps_the_6_3_count_only_in_the_newer_text() {
        // Black's king takes a white king: three kings become two.
        let p = intl("B:WK10,K45,K50:BK5");
        let take = p.legal_moves().iter().find(|m| m.is_capture()).copied().expect("a capture");
        assert_eq!(take.captured_count(), 1);
        let q = p.play(&take);
        let counting = |set| {
            let rules = DrawRules::new(set, &Variant::INTERNATIONAL);
            let c =
                Counters::new(&rules, &p, 7, Some(MaterialCount { rule: 0, plies: 7, strong: None })).expect("valid");
            c.after(&take, &q)
        };
        assert_eq!(counting(DrawRuleSet::Fmjd).material, Some(MaterialCount { rule: 0, plies: 8, strong: None }));
        assert_eq!(counting(DrawRuleSet::Fmjd2000).material, Some(MaterialCount { rule: 1, plies: 0, strong: None }));
        assert_eq!(counting(DrawRuleSet::Fmjd).reset_plies, 0);
    }

    #[test]
    fn explicit_counters_are_checked() {
        let rules = DrawRules::new(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
        let p = intl("W:WK1,K2:BK50");
        assert!(Counters::parse(&rules, &p, "6.4=4,6.2=4").is_ok());
        assert!(Counters::parse(&rules, &p, "6.3=20").is_ok(), "an inherited 6.3 count");
        assert!(matches!(Counters::parse(&rules, &p, "6.4=11"), Err(CounterError::PastLimit { .. })));
        assert!(matches!(Counters::parse(&rules, &p, "6.4=2,6.2=3"), Err(CounterError::ResetBeyondMaterial { .. })));
        assert!(matches!(Counters::parse(&rules, &p, "6.9=2"), Err(CounterError::UnknownArticle { .. })));
        assert!(matches!(Counters::parse(&rules, &p, "6.2"), Err(CounterError::Syntax(_))));
        let q = intl("W:WK1,K2:BK50,K49");
        assert!(matches!(Counters::parse(&rules, &q, "6.4=2"), Err(CounterError::WrongMaterial { .. })));
        assert_eq!(Counters::parse(&rules, &q, "6.2=49").expect("valid").reset_plies, 49);
    }
}
