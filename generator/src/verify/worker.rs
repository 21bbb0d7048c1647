//! One worker's means to derive values again: its block [`Reader`] and the successors of
//! the position it checks ([`Worker`]), and the chunk of positions it takes at a time
//! ([`CHECK_CHUNK`]).
//!
//! Both the values filled in memory (`resident`) and the check itself (`check`) derive
//! through a worker, so it has a room of its own below them, on `rule_values` and
//! `reader`.

use std::cell::RefCell;

use kabe_probe::internal::successors;
use kabe_probe::internal::table::{rule_of_code, BlockReader};
use kabe_probe::table::TableError;
use kabe_probe::{DrawRuleSet, DrawRules, Position, RuleScore, Score};

use crate::verify::reader::{Gap, Reader};
use crate::verify::rule_values::RuleOracle;
use crate::verify::successors::{CaptureTest, Successors};
use crate::verify::tables::Tables;

/// Positions a worker checks at a time.
pub(super) const CHECK_CHUNK: u64 = 1 << 14;

/// One worker's block cache, and the successors of the position it checks.
pub(super) struct Worker<'s> {
    pub(super) cache: Reader<'s>,
    successors: Successors,
}

impl<'s> Worker<'s> {
    pub(super) fn new(shared: &'s BlockReader) -> Worker<'s> {
        Worker { cache: Reader::new(shared), successors: Successors::default() }
    }

    /// As [`Successors::gather`].
    pub(super) fn gather(&mut self, tables: &Tables, capture: &CaptureTest, theory: bool, rules: Option<DrawRuleSet>) {
        self.successors.gather(tables, capture, theory, rules);
    }

    /// As [`Successors::best_score`], for the successors gathered last.
    pub(super) fn derive(&mut self, tables: &Tables, position: &Position) -> Result<Option<Score>, TableError> {
        self.successors.best_score(tables, position, &mut self.cache)
    }

    /// The rule value of `rules` (its count `context`) of a position not drawn by its
    /// material, from its successors as [`Worker::gather`] found them.
    pub(super) fn derive_rule(
        &mut self,
        tables: &Tables,
        rules: &DrawRules,
        context: kabe_probe::rules::Context,
        position: &Position,
    ) -> Result<RuleScore, Gap> {
        let Worker { cache, successors: Successors { moves, children, placed, king_steps, king_step_ats } } = self;
        let resident = king_steps.and_then(|sig| {
            tables.resident_rules.as_ref().filter(|(set, _)| *set == rules.set).and_then(|(_, r)| r.get(&sig))
        });
        let king_steps = king_step_ats
            .iter()
            .map(|&at| resident.and_then(|v| v.get(at)).map(|&code| rule_of_code(code)).ok_or(Gap::Missing));
        let oracle = RuleOracle { tables, set: rules.set, cache: RefCell::new(cache), children, placed };
        let children = moves.iter().zip(children.iter());
        successors::rule_score_with_king_steps(&oracle, rules, context, position, children, king_steps)
    }
}
