//! The figures of a pair's tables counted while their values are held resident:
//! theoretical ([`count_theory`]) and under a draw-rule set, every position with a fresh
//! count ([`count_rules`], [`count_pair_rules`]).
//!
//! Kept apart from `statistics` (the figures themselves, and their ledger words, which
//! the crate's users see): counting reads the tables (`reader`, `rule_values`), which
//! the figures need not know.

use std::cell::RefCell;

use kabe_probe::internal::table::BlockReader;
use kabe_probe::rules::exact::verdict;
use kabe_probe::table::TableError;
use kabe_probe::{Counters, DrawRuleSet, DrawRules, Score, Signature};
use rayon::prelude::*;

use crate::verify::reader::{Gap, Reader};
use crate::verify::report::Findings;
use crate::verify::rule_values::RuleOracle;
use crate::verify::statistics::{RuleStats, TableStats};
use crate::verify::successors::Placed;
use crate::verify::tables::Tables;
use crate::verify::worker::CHECK_CHUNK;

/// The theoretical figures of a resident table.
pub(super) fn count_theory(values: &[u16]) -> TableStats {
    values
        .par_chunks(CHECK_CHUNK as usize)
        .enumerate()
        .map(|(c, chunk)| {
            let mut stats = TableStats::default();
            for (i, &v) in (c as u64 * CHECK_CHUNK..).zip(chunk) {
                stats.add(i, Score::from_raw(v));
            }
            stats
        })
        .reduce(TableStats::default, TableStats::merge)
}

/// The figures of resident `sig` under `rules`, every position with a fresh count;
/// `Ok(None)` when a value cannot be found.
fn count_rules(
    tables: &Tables,
    rules: &DrawRules,
    sig: Signature,
    shared: &BlockReader,
) -> Result<Option<RuleStats>, TableError> {
    let index = &tables.index[&sig];
    (0..index.len().div_ceil(CHECK_CHUNK))
        .into_par_iter()
        .map_init(
            || Reader::new(shared),
            |cache, c| {
                let range = c * CHECK_CHUNK..((c + 1) * CHECK_CHUNK).min(index.len());
                let mut stats = RuleStats::default();
                for (i, position) in range.clone().zip(index.positions(range)) {
                    // The position is read where it lies, without being located again.
                    let (position, placed) = ([position], [Some(Placed { sig, at: i })]);
                    let oracle = RuleOracle {
                        tables,
                        set: rules.set,
                        cache: RefCell::new(&mut *cache),
                        children: &position,
                        placed: &placed,
                    };
                    let position = &position[0];
                    let counters = Counters::fresh(rules, position);
                    let v = match verdict(&oracle, position, &counters) {
                        Ok(v) => v,
                        Err(Gap::Missing) => return Ok(None),
                        Err(Gap::Bad(e)) => return Err(e),
                    };
                    let plies = v.within.decided().map_or(0, |(_, p)| p);
                    stats.add(i, v.theoretical.wld(), v.exact, plies);
                }
                Ok(Some(stats))
            },
        )
        .try_reduce(|| Some(RuleStats::default()), |a, b| Ok(a.zip(b).map(|(a, b)| a.merge(b))))
}

/// The rule statistics of the members of `pair` that keep a count, where their theory
/// and rule values are all resident (none otherwise).
pub(super) fn count_pair_rules(
    tables: &Tables,
    rules: &DrawRules,
    pair: &[Signature],
    cache: &BlockReader,
    findings: &Findings,
) -> Vec<(Signature, DrawRuleSet, RuleStats)> {
    let ruled = || pair.iter().filter(|s| rules.context(**s).is_some());
    let resident = |s: &Signature| {
        tables.resident_rules.as_ref().is_some_and(|(_, r)| r.get(s).is_some_and(|v| v.all().is_some()))
            && tables.resident_dtw.get(s).is_some_and(|v| v.all().is_some())
    };
    if !ruled().all(resident) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &sig in ruled() {
        match count_rules(tables, rules, sig, cache) {
            Ok(Some(counted)) => out.push((sig, rules.set, counted)),
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
    out
}
