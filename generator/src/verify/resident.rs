//! Holding values in memory for a pair's check: the pair's own values resident (every
//! position's, left-out ones derived once: [`hold_resident_dtw`],
//! [`hold_resident_rules`], [`hold_resident_together`]) and its inputs' values lazily
//! ([`hold_inputs`]), so that a successor is read by its index instead of searched.
//!
//! Which values are held changes the speed, never a value: this room fills what
//! `tables` keeps, deriving through a `worker`; `check` calls it before deriving a pair.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};

use kabe_probe::internal::table::{rule_code, BlockReader};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{TableError, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, Position, RuleScore, Score, Signature, Variant};
use rayon::prelude::*;

use crate::finished::working::tables_read;
use crate::pair::TablePair;
use crate::verify::reader::Gap;
use crate::verify::report::Findings;
use crate::verify::successors::CaptureTest;
use crate::verify::tables::Tables;
use crate::verify::worker::{Worker, CHECK_CHUNK};

/// Before `pair` is derived: holds lazily ([`Tables::hold_lazily`]) the tables whose
/// values it reads ([`tables_read`]: the tables its captures and promotions lead to, and
/// those these are searched through) that are not held already: tables the ledger or
/// `--signature` spares from being derived, or that were let go for memory. Their values
/// are kept in blocks made as they are read, within what the budget leaves beside the
/// pair and the values kept resident; where the pair's inputs would not fit whole, the
/// tables held that `pair` does not read are let go first. Without that a successor in
/// a table kept on one side, or a capture to make, is found by a search of its own each
/// time it is met; held, it is found once and read by its index. Which tables are held
/// changes the speed, never a value.
pub(super) fn hold_inputs(tables: &mut Tables, variant: Variant, pair: &[Signature], resident_bytes: usize) {
    let Some(&first) = pair.first() else { return };
    let order = tables_read(variant, &[TablePair::of(first)], |sig| tables.searched_whole(sig));
    let budget = resident_bytes as u64;
    let needed = tables.resident_need(pair);
    let missing: Vec<Signature> =
        order.iter().copied().filter(|s| tables.dtw.contains_key(s) && !tables.holds_dtw(s)).collect();
    let reached: BTreeSet<Signature> = order.into_iter().collect();
    if tables.resident_bytes() + needed + tables.resident_need(&missing) > budget {
        tables.keep_only(&reached);
    }
    tables.hold_lazily(variant, &missing);
    let room = budget.saturating_sub(tables.held_bytes() + needed);
    if tables.lazy_room.spent() > room {
        tables.forget_lazy_where(|_| true);
        tables.hold_lazily(variant, &reached.into_iter().collect::<Vec<_>>());
    }
    tables.lazy_room.set_limit(room);
}

/// Holds the DTW and the `rules` values of `pair` resident in one pass over each member,
/// its successors made and placed once for both kinds, and keeps the rule values with
/// those kept before; `false` (nothing done) where the two kinds do not store the same
/// member (a left-out member's values are derived from the stored one's, which must be
/// held first for both).
pub(super) fn hold_resident_together(
    tables: &mut Tables,
    rules: &DrawRules,
    pair: &[Signature],
    cache: &BlockReader,
    findings: &Findings,
) -> bool {
    let Some(rule_files) = tables.rules.get(&rules.set) else { return false };
    let order = stored_first(pair, &tables.dtw);
    if order != stored_first(pair, rule_files) {
        return false;
    }
    tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
    for sig in order {
        match resident_together(tables, rules, sig, cache) {
            Ok(Some((dtw, rule_values))) => {
                tables.resident_dtw.insert(sig, dtw);
                if let (Some(values), Some((_, resident))) = (rule_values, tables.resident_rules.as_mut()) {
                    resident.insert(sig, values);
                }
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
    if let Some((set, values)) = tables.resident_rules.take() {
        tables.kept_rules.insert(set, values);
    }
    true
}

/// A table's resident DTW values, and its rule values where it keeps a rule table.
type DtwAndRules = (Vec<u16>, Option<Vec<u8>>);

/// Every DTW value of `sig` and, where it keeps a rule table, every rule value under
/// `rules`, as [`resident_dtw`] and [`resident_rules`] give them, in one pass: a
/// left-out position's successors are made and placed once for both.
fn resident_together(
    tables: &Tables,
    rules: &DrawRules,
    sig: Signature,
    shared: &BlockReader,
) -> Result<Option<DtwAndRules>, TableError> {
    let rule_file = rules.context(sig).and_then(|context| Some((context, tables.rules[&rules.set].get(&sig)?)));
    let Some((context, rule_file)) = rule_file else {
        return Ok(resident_dtw(tables, sig, shared)?.map(|dtw| (dtw, None)));
    };
    let dtw_file = &tables.dtw[&sig];
    let index = &tables.index[&sig];
    let len = index.len() as usize;
    let mut dtw = crate::memory::huge_vec(len, 0u16);
    let mut rule_values = crate::memory::huge_vec(len, 0u8);
    let missing = AtomicBool::new(false);
    dtw.par_chunks_mut(CHECK_CHUNK as usize)
        .zip(rule_values.par_chunks_mut(CHECK_CHUNK as usize))
        .enumerate()
        .try_for_each_init(
            || Worker::new(shared),
            |worker, (c, (dtw_out, rule_out))| {
                let start = c as u64 * CHECK_CHUNK;
                let range = start..start + dtw_out.len() as u64;
                for ((at, position), (dtw_slot, rule_slot)) in
                    range.clone().zip(index.positions(range)).zip(dtw_out.iter_mut().zip(rule_out.iter_mut()))
                {
                    let capture = CaptureTest::new(&position);
                    let (score, gathered) = held_dtw(worker, tables, sig, dtw_file, at, &capture, Some(rules.set))?;
                    let Some(score) = score else {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    };
                    let drawn = score == Score::DRAW;
                    let rule =
                        held_rule(worker, tables, rules, context, sig, rule_file, at, &capture, drawn, gathered)?;
                    let Some(rule) = rule else {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    };
                    *dtw_slot = score.raw();
                    *rule_slot = rule_code(rule);
                }
                Ok::<(), TableError>(())
            },
        )?;
    Ok((!missing.into_inner()).then_some((dtw, Some(rule_values))))
}

/// Holds the DTW values of `pair` resident: the side that stores its values first, the
/// other side's found through it.
pub(super) fn hold_resident_dtw(tables: &mut Tables, pair: &[Signature], cache: &BlockReader, findings: &Findings) {
    for sig in stored_first(pair, &tables.dtw) {
        match resident_dtw(tables, sig, cache) {
            Ok(Some(values)) => {
                tables.resident_dtw.insert(sig, values);
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
}

/// Holds the rule values of `rules` of `pair` resident, beside those kept from the pairs
/// checked before.
pub(super) fn hold_resident_rules(
    tables: &mut Tables,
    rules: &DrawRules,
    pair: &[Signature],
    cache: &BlockReader,
    findings: &Findings,
) {
    tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
    for sig in stored_first(pair, &tables.rules[&rules.set]) {
        let Some(context) = rules.context(sig) else { continue };
        match resident_rules(tables, rules, context, sig, cache) {
            Ok(Some(values)) => {
                if let Some((_, resident)) = tables.resident_rules.as_mut() {
                    resident.insert(sig, values);
                }
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
}

/// The members of `pair` with a file among `files` that stores values, then those whose
/// file is found by search through them; members without a file are left out.
fn stored_first(pair: &[Signature], files: &BTreeMap<Signature, TableFile>) -> Vec<Signature> {
    let mut members: Vec<Signature> = pair.iter().copied().filter(|s| files.contains_key(s)).collect();
    members.sort_by_key(|s| files.get(s).is_some_and(|f| f.header().by_search()));
    members
}

/// The values of every position of `index` in memory, `value` giving each (stored, or
/// derived where the file leaves the position out); `Ok(None)` when some value cannot be
/// found (a table it leads to is missing: the positions are then counted unverified by
/// the check itself).
fn fill_resident<T: Copy + Default + Send + Sync>(
    index: &MaterialIndex,
    shared: &BlockReader,
    value: impl Fn(&mut Worker, u64, &Position) -> Result<Option<T>, TableError> + Sync,
) -> Result<Option<Vec<T>>, TableError> {
    let mut values = crate::memory::huge_vec(index.len() as usize, T::default());
    let missing = AtomicBool::new(false);
    values.par_chunks_mut(CHECK_CHUNK as usize).enumerate().try_for_each_init(
        || Worker::new(shared),
        |worker, (c, out)| {
            let start = c as u64 * CHECK_CHUNK;
            let range = start..start + out.len() as u64;
            for ((at, position), slot) in range.clone().zip(index.positions(range)).zip(out) {
                match value(worker, at, &position)? {
                    Some(v) => *slot = v,
                    None => {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
            Ok::<(), TableError>(())
        },
    )?;
    Ok((!missing.into_inner()).then_some(values))
}

/// Every DTW value of `sig` ([`Score::raw`]), as [`fill_resident`] gives them.
fn resident_dtw(tables: &Tables, sig: Signature, shared: &BlockReader) -> Result<Option<Vec<u16>>, TableError> {
    let file = &tables.dtw[&sig];
    fill_resident(&tables.index[&sig], shared, |worker, at, position| {
        Ok(held_dtw(worker, tables, sig, file, at, &CaptureTest::new(position), None)?.0.map(Score::raw))
    })
}

/// Every rule value of `sig` under `rules` (the file's one-byte codes), as
/// [`fill_resident`] gives them.
fn resident_rules(
    tables: &Tables,
    rules: &DrawRules,
    context: kabe_probe::rules::Context,
    sig: Signature,
    shared: &BlockReader,
) -> Result<Option<Vec<u8>>, TableError> {
    let file = &tables.rules[&rules.set][&sig];
    let drawn = |at: u64| tables.resident_dtw.get(&sig).is_some_and(|v| v[at as usize] == Score::DRAW.raw());
    fill_resident(&tables.index[&sig], shared, |worker, at, position| {
        let capture = CaptureTest::new(position);
        Ok(held_rule(worker, tables, rules, context, sig, file, at, &capture, drawn(at), false)?.map(rule_code))
    })
}

/// The DTW value of `position` (index `at` of `sig`) as the verifier holds it: stored,
/// settled by its material, or derived from its successors, and whether they were
/// gathered for that ([`Worker::gather`], for the rule values of `rules` too where given).
fn held_dtw(
    worker: &mut Worker,
    tables: &Tables,
    sig: Signature,
    file: &TableFile,
    at: u64,
    capture: &CaptureTest,
    rules: Option<DrawRuleSet>,
) -> Result<(Option<Score>, bool), TableError> {
    let position = capture.position;
    if capture.held_by(file) {
        return Ok((worker.cache.value(sig, file, at)?, false));
    }
    if let Some(settled) = position.settled_score() {
        return Ok((Some(settled), false));
    }
    worker.gather(tables, capture, true, rules);
    Ok((worker.derive(tables, position)?, true))
}

/// The rule value of `position` as the verifier holds it: stored, undecided where it is
/// drawn by its material or in theory (`drawn`: a count only turns wins into draws), or
/// derived from its successors (`gathered`: already gathered for this position).
#[allow(clippy::too_many_arguments)]
fn held_rule(
    worker: &mut Worker,
    tables: &Tables,
    rules: &DrawRules,
    context: kabe_probe::rules::Context,
    sig: Signature,
    file: &TableFile,
    at: u64,
    capture: &CaptureTest,
    drawn: bool,
    gathered: bool,
) -> Result<Option<RuleScore>, TableError> {
    let position = capture.position;
    if capture.held_by(file) {
        return worker.cache.rule_value(sig, file, at);
    }
    if position.is_drawn_by_material() || drawn {
        return Ok(Some(RuleScore::NONE));
    }
    if !gathered {
        worker.gather(tables, capture, false, Some(rules.set));
    }
    Gap::back(worker.derive_rule(tables, rules, context, position))
}
