//! Reading a rule value: the rule value of any position (held, stored, or
//! derived where its file leaves it out: [`Tables::rule_placed`]), and the verifier's
//! tables seen as the exact verdict's oracle ([`RuleOracle`]).
//!
//! A rule value is derived through theoretical ones (a position drawn in theory is
//! undecided under every count), never the other way round: so this room sits on
//! `reader`, and the oracle with the lookups it recurses through.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU8, Ordering};

use kabe_probe::internal::successors;
use kabe_probe::internal::table::{decode_rule_entry, rule_code, rule_of_code};
use kabe_probe::rules::exact::Oracle;
use kabe_probe::table::{TableError, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, Position, RuleScore, Score, Signature};

use crate::verify::reader::{Gap, Reader};
use crate::verify::successors::Placed;
use crate::verify::tables::{Tables, NOT_YET_RULE};

impl Reader<'_> {
    pub(super) fn rule_value(
        &mut self,
        sig: Signature,
        file: &TableFile,
        at: u64,
    ) -> Result<Option<RuleScore>, TableError> {
        self.entry(sig, file, at, decode_rule_entry)
    }
}

impl Tables {
    /// The rule value of `set` of any position whose rule table is here (or whose
    /// material decides it), stored or found from its successors; `Ok(None)` when a
    /// table is missing. `placed` is where [`Tables::place`] puts `position`.
    fn rule_placed(
        &self,
        set: DrawRuleSet,
        position: &Position,
        placed: Option<Placed>,
        cache: &mut Reader,
    ) -> Result<Option<RuleScore>, TableError> {
        let Some(Placed { sig, at }) = placed else {
            return Ok(position.settled_score().map(RuleScore::from_score));
        };
        if let Some((_, resident)) = self.resident_rules.as_ref().filter(|(s, _)| *s == set)
            && let Some(&code) = resident.get(&sig).and_then(|v| v.get(at))
        {
            return Ok(Some(rule_of_code(code)));
        }
        if let Some(values) = self.lazy_rules.get(&set).and_then(|lazy| lazy.get(&sig)) {
            let make = |_, n| Ok::<_, TableError>((0..n).map(|_| AtomicU8::new(NOT_YET_RULE)).collect());
            let Some(slot) = values.slot(at, Some(&self.lazy_room), make)? else {
                return self.rule_unheld(set, position, Placed { sig, at }, cache);
            };
            let code = slot.load(Ordering::Relaxed);
            if code != NOT_YET_RULE {
                return Ok(Some(rule_of_code(code)));
            }
            let found = self.rule_unheld(set, position, Placed { sig, at }, cache)?;
            if let Some(rule) = found {
                slot.store(rule_code(rule), Ordering::Relaxed);
            }
            return Ok(found);
        }
        self.rule_unheld(set, position, Placed { sig, at }, cache)
    }

    /// The rule value of `set` of `position` (at `placed`) from its file, or from its
    /// successors where the file leaves it out.
    fn rule_unheld(
        &self,
        set: DrawRuleSet,
        position: &Position,
        placed: Placed,
        cache: &mut Reader,
    ) -> Result<Option<RuleScore>, TableError> {
        let Placed { sig, at } = placed;
        let Some(file) = self.rules.get(&set).and_then(|f| f.get(&sig)) else { return Ok(None) };
        let p = position.normalized();
        if file.header().holds(&p) {
            return cache.rule_value(sig, file, at);
        }
        let rules = DrawRules::new(set, &p.variant().clone());
        let Some(context) = rules.context(sig) else { return Ok(None) };
        // Drawn in theory: undecided under every count, no search needed.
        match self.score_placed(position, Some(placed), cache)? {
            None => return Ok(None),
            Some(Score::DRAW) => return Ok(Some(RuleScore::NONE)),
            Some(_) => {}
        }
        let oracle = RuleOracle { tables: self, set, cache: RefCell::new(cache), children: &[], placed: &[] };
        Gap::back(successors::rule_score_from(&oracle, &rules, context, position))
    }
}

/// The verifier's tables seen as the exact verdict's [`Oracle`] for one rule set. A
/// position asked about that is one of `children` (by reference: the successors a
/// [`Worker`](super::worker::Worker) gathered) is read where `placed` says, without being located again.
pub(super) struct RuleOracle<'t, 'c, 's> {
    pub(super) tables: &'t Tables,
    pub(super) set: DrawRuleSet,
    pub(super) cache: RefCell<&'c mut Reader<'s>>,
    pub(super) children: &'t [Position],
    pub(super) placed: &'t [Option<Placed>],
}

impl RuleOracle<'_, '_, '_> {
    /// Where `position` lies: from `placed` when it is one of the children, else found.
    fn place(&self, position: &Position) -> Option<Placed> {
        let offset = (position as *const Position as usize).wrapping_sub(self.children.as_ptr() as usize);
        let i = offset / std::mem::size_of::<Position>();
        if offset.is_multiple_of(std::mem::size_of::<Position>()) && i < self.children.len() {
            self.placed[i]
        } else {
            self.tables.place(position)
        }
    }
}

impl Oracle for RuleOracle<'_, '_, '_> {
    type Error = Gap;

    fn theoretical(&self, position: &Position) -> Result<Score, Gap> {
        Gap::of(self.tables.score_placed(position, self.place(position), &mut self.cache.borrow_mut()))
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, Gap> {
        Gap::of(self.tables.rule_placed(self.set, position, self.place(position), &mut self.cache.borrow_mut()))
    }
}
