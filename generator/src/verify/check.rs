//! The check of one pair: its values and its inputs' held ([`derive_pair`], through
//! `resident`), its figures counted (`counting`), and every value of each signature
//! derived again from its successors and compared with the one stored
//! ([`check_signature`], [`SignatureCheck`]).
//!
//! The one room that knows the order of a pair's passes: `mod.rs` calls it once a pair,
//! and it calls down to every room below.

use std::sync::atomic::Ordering;

use kabe_probe::internal::table::{rule_of_code, BlockReader};
use kabe_probe::table::{TableError, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, Position, RuleScore, Score, Signature, Variant};
use rayon::prelude::*;

use crate::verify::counting::{count_pair_rules, count_theory};
use crate::verify::reader::Gap;
use crate::verify::report::{Disagreement, Findings, RuleDisagreement};
use crate::verify::resident::{
    hold_inputs, hold_lone_king_inputs, hold_resident_dtw, hold_resident_rules, hold_resident_together, laid_out,
};
use crate::verify::slices::{pair_slices, slice_bytes, PairSlice};
use crate::verify::statistics::{RuleStats, TableStats};
use crate::verify::successors::CaptureTest;
use crate::verify::symmetry::{KingClasses, Members};
use crate::verify::tables::{Held, Placements, Tables, RESIDENT_BYTES_PER_POSITION};
use crate::verify::worker::{Worker, CHECK_CHUNK};

/// Derives every value of `pair` again (one pass for each rule set present, the first
/// checking the theoretical values too, each successor made and located once for both),
/// holding the pair's values and its inputs' ([`hold_inputs`]) resident where
/// `resident_bytes` allows. Returns the figures of the pair's tables (theoretical, and
/// of each rule table), `None` where some figure could not be counted.
#[allow(clippy::type_complexity)]
pub(super) fn derive_pair(
    tables: &mut Tables,
    variant: Variant,
    pair: &[Signature],
    resident_bytes: usize,
    cache: &BlockReader,
    findings: &Findings,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<(Vec<(Signature, TableStats)>, Vec<(Signature, DrawRuleSet, RuleStats)>)> {
    tables.forget_lazy(pair);
    let needed = tables.resident_need(pair);
    // Held whole only where a quarter of the room is left to hold its inputs: with less,
    // slices are faster (1112+1211 at --memory 720M: 96.8 s whole, 65.6 s in slices).
    if needed > slice_bytes(resident_bytes)
        && let Some(slices) = pair_slices(tables, pair, resident_bytes)
    {
        derive_in_slices(tables, variant, pair, &slices, resident_bytes, cache, findings, progress);
        return None;
    }
    hold_inputs(tables, variant, pair, needed, resident_bytes);
    let rule_sets: Vec<DrawRuleSet> = tables.rules.keys().copied().collect();
    let one_set = match rule_sets[..] {
        [set] => Some(DrawRules::new(set, &variant)),
        _ => None,
    };
    if rule_sets.len() <= 1 {
        hold_lone_king_inputs(tables, variant, one_set.as_ref(), pair, resident_bytes, cache, findings);
    }
    let resident = needed <= resident_bytes as u64;
    if tables.resident_bytes() + needed > resident_bytes as u64 {
        tables.forget_kept();
    }
    // What is left beside the pair's values for a copy of part of them (lanes).
    let lane_room = (resident_bytes as u64).saturating_sub(tables.resident_bytes() + needed);
    // With one rule set, the pair's DTW and rule values are held in one pass where they can be.
    let together = resident
        && one_set.is_some_and(|rules| hold_resident_together(tables, &rules, pair, None, cache, findings, lane_room));
    if resident && !together {
        hold_resident_dtw(tables, pair, None, cache, findings, lane_room);
    }
    let whole = |s: &Signature| tables.resident_dtw.get(s).and_then(Held::all);
    let theory_stats: Vec<(Signature, TableStats)> = match pair.iter().map(whole).collect::<Option<Vec<_>>>() {
        Some(values) => pair.iter().zip(values).map(|(s, v)| (*s, count_theory(v))).collect(),
        None => Vec::new(),
    };
    let mut rule_stats = Vec::new();
    for (pass, set) in rule_passes(tables).into_iter().enumerate() {
        let rules = set.map(|set| DrawRules::new(set, &variant));
        if let Some(rules) = &rules {
            if together {
                tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
            } else if resident {
                hold_resident_rules(tables, rules, pair, None, cache, findings);
            }
            rule_stats.extend(count_pair_rules(tables, rules, pair, cache, findings));
        }
        for &sig in pair {
            check_signature(tables, sig, pass == 0, rules.as_ref(), None, cache, findings, progress);
        }
        if let Some((set, values)) = tables.resident_rules.take() {
            tables.kept_rules.insert(set, values);
        }
    }
    if tables.resident_bytes() > resident_bytes as u64 {
        tables.forget_kept();
    }
    // The statistics only where every figure of the pair was counted.
    (theory_stats.len() == pair.len()).then_some((theory_stats, rule_stats))
}

/// The passes over a pair: one for each rule set present (the first also checking the
/// theoretical values), or one for the theoretical values alone.
fn rule_passes(tables: &Tables) -> Vec<Option<DrawRuleSet>> {
    match tables.rules.keys().copied().collect::<Vec<_>>() {
        sets if sets.is_empty() => vec![None],
        sets => sets.into_iter().map(Some).collect(),
    }
}

/// [`derive_pair`] for a pair too large to hold resident, a slice at a time
/// ([`pair_slices`]): each slice held as a whole pair is, its positions checked, then let
/// go; the values read out of the slice (the pair's and its inputs') held lazily in the
/// room left. No figures are counted.
#[allow(clippy::too_many_arguments)]
fn derive_in_slices(
    tables: &mut Tables,
    variant: Variant,
    pair: &[Signature],
    slices: &[PairSlice],
    resident_bytes: usize,
    cache: &BlockReader,
    findings: &Findings,
    progress: &(dyn Fn(u64) + Sync),
) {
    tables.forget_kept();
    let largest = slices.iter().map(PairSlice::positions).max().unwrap_or(0) * RESIDENT_BYTES_PER_POSITION;
    hold_inputs(tables, variant, pair, largest, resident_bytes);
    tables.hold_lazily(variant, pair);
    let passes = rule_passes(tables);
    let one_set = match passes[..] {
        [Some(set)] => Some(DrawRules::new(set, &variant)),
        _ => None,
    };
    for slice in slices {
        let together =
            one_set.is_some_and(|rules| hold_resident_together(tables, &rules, pair, Some(slice), cache, findings, 0));
        if !together {
            hold_resident_dtw(tables, pair, Some(slice), cache, findings, 0);
        }
        for (pass, set) in passes.iter().enumerate() {
            let rules = set.map(|set| DrawRules::new(set, &variant));
            if let Some(rules) = &rules {
                if together {
                    tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
                } else {
                    hold_resident_rules(tables, rules, pair, Some(slice), cache, findings);
                }
            }
            for &sig in pair {
                check_signature(
                    tables,
                    sig,
                    pass == 0,
                    rules.as_ref(),
                    Some(slice.checked(sig)),
                    cache,
                    findings,
                    progress,
                );
            }
            // The slice's rule values go with it.
            tables.resident_rules = None;
        }
        tables.resident_dtw.retain(|s| !pair.contains(s));
        tables.kept_rules.clear();
    }
}

/// Derives again every value of `sig` held by its files: the DTW and WLD values when
/// `theory`, the rule values of `rules` when given (its table present). Each position's
/// successors are made and located once for both; a resident pair's stored values are
/// read from memory, where they were loaded from the files.
#[allow(clippy::too_many_arguments)]
fn check_signature(
    tables: &Tables,
    sig: Signature,
    theory: bool,
    rules: Option<&DrawRules>,
    checked: Option<&Placements>,
    shared: &BlockReader,
    findings: &Findings,
    progress: &(dyn Fn(u64) + Sync),
) {
    let Some(check) = SignatureCheck::new(tables, sig, theory, rules) else { return };
    let index = &tables.index[&sig];
    let kinds = check.theory_files.is_some() as u64 + check.rule_file.is_some() as u64;
    let total = checked.map_or(index.len(), Placements::positions);
    let chunks = total.div_ceil(CHECK_CHUNK);
    // A slice is of a pair with men, whose kings have no classes.
    let classes = KingClasses::of(index.variant(), sig).filter(|_| checked.is_none());
    (0..chunks).into_par_iter().for_each_init(
        || Worker::new(shared),
        |worker, c| {
            let start = c * CHECK_CHUNK;
            let n = CHECK_CHUNK.min(total - start);
            for (_, at, position) in laid_out(index, checked, start, n) {
                // Of a class of kings, its canonical member derives the class.
                let members = match &classes {
                    Some(classes) => match classes.members_if_canonical(index, at, &position) {
                        Some(members) => members,
                        None => continue,
                    },
                    None => Members::NONE,
                };
                match check.position(worker, at, &position, &members, findings) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => return findings.bad(e),
                }
            }
            progress(n * kinds);
        },
    );
}

/// What [`check_signature`] checks of one signature: its theory files (DTW, WLD) when
/// they hold values, its rule file and count, and its resident values.
struct SignatureCheck<'t> {
    tables: &'t Tables,
    sig: Signature,
    theory_files: Option<(&'t TableFile, &'t TableFile)>,
    rule_file: Option<(&'t DrawRules, kabe_probe::rules::Context, &'t TableFile)>,
    resident_dtw: Option<&'t Held<u16>>,
    resident_rules: Option<&'t Held<u8>>,
}

impl<'t> SignatureCheck<'t> {
    /// `None` when `sig` has nothing to check here.
    fn new(tables: &'t Tables, sig: Signature, theory: bool, rules: Option<&'t DrawRules>) -> Option<Self> {
        // A pair member whose files hold nothing is read through its colour flip, checked there.
        let theory_files = match (theory, tables.dtw.get(&sig), tables.wld.get(&sig)) {
            (true, Some(dtw), Some(wld)) if !(dtw.header().by_search() && wld.header().by_search()) => Some((dtw, wld)),
            _ => None,
        };
        let rule_file = rules.and_then(|rules| {
            let context = rules.context(sig)?;
            let file = tables.rules.get(&rules.set)?.get(&sig)?;
            (!file.header().by_search()).then_some((rules, context, file))
        });
        if theory_files.is_none() && rule_file.is_none() {
            return None;
        }
        let resident_rules = tables
            .resident_rules
            .as_ref()
            .filter(|(set, _)| rules.is_some_and(|r| r.set == *set))
            .and_then(|(_, r)| r.get(&sig));
        let resident_dtw = tables.resident_dtw.get(&sig);
        Some(SignatureCheck { tables, sig, theory_files, rule_file, resident_dtw, resident_rules })
    }

    /// Checks the values the files hold for `position` (index `at`), and for the other
    /// `members` of its class (kings only) the same values; `Ok(false)` where the rest
    /// of the chunk cannot be read.
    fn position(
        &self,
        worker: &mut Worker,
        at: u64,
        position: &Position,
        members: &Members,
        findings: &Findings,
    ) -> Result<bool, TableError> {
        let capture = CaptureTest::new(position);
        let (dtw_held, wld_held) =
            self.theory_files.map_or((false, false), |(dtw, wld)| (capture.held_by(dtw), capture.held_by(wld)));
        let rule_held = self.rule_file.is_some_and(|(_, _, file)| capture.held_by(file));
        if !(dtw_held || wld_held || rule_held) {
            return Ok(true);
        }
        // Drawn in theory (a DTW value this run checks from its own successors) means
        // undecided under every count: a count only turns wins into draws, so no move
        // can lead to a position lost within it.
        let drawn = self.resident_dtw.and_then(|v| v.get(at)).is_some_and(|&v| v == Score::DRAW.raw());
        let settled = position.settled_score();
        let rule_from_children = rule_held && !drawn && !position.is_drawn_by_material();
        if (dtw_held && settled.is_none()) || rule_from_children {
            let rules = self.rule_file.filter(|_| rule_from_children).map(|(rules, _, _)| rules.set);
            worker.gather(self.tables, &capture, dtw_held, rules);
        }
        if dtw_held || wld_held {
            self.theory(worker, at, position, members, (dtw_held, wld_held), findings)?;
        }
        if rule_held {
            return self.rule(worker, at, position, members, rule_from_children, findings);
        }
        Ok(true)
    }

    /// Checks the DTW and WLD values held for `position` and the other `members` of its
    /// class against the DTW its successors give (a position whose DTW is not stored by
    /// its WLD alone).
    fn theory(
        &self,
        worker: &mut Worker,
        at: u64,
        position: &Position,
        members: &Members,
        held: (bool, bool),
        findings: &Findings,
    ) -> Result<(), TableError> {
        let derived = match position.settled_score() {
            Some(settled) => Some(settled),
            None if held.0 => worker.derive(self.tables, position)?,
            None => self.tables.score(position, &mut worker.cache)?,
        };
        let Some(derived) = derived else {
            let unverified = 1 + members.indices().len() as u64;
            findings.unverified.fetch_add(unverified, Ordering::Relaxed);
            return Ok(());
        };
        self.compare_theory(worker, at, || position.fen(), derived, held, findings)?;
        for &member in members.indices() {
            let fen = || self.tables.index[&self.sig].position(member).fen();
            self.compare_theory(worker, member, fen, derived, held, findings)?;
        }
        Ok(())
    }

    /// Compares the DTW and WLD values held at `at` (those `dtw_held`, `wld_held`) with
    /// `derived`, the position's (`fen`) value from its successors.
    fn compare_theory(
        &self,
        worker: &mut Worker,
        at: u64,
        fen: impl FnOnce() -> String,
        derived: Score,
        (dtw_held, wld_held): (bool, bool),
        findings: &Findings,
    ) -> Result<(), TableError> {
        let Some((dtw, wld)) = self.theory_files else { return Ok(()) };
        let stored = match self.resident_dtw.and_then(|v| v.get(at)) {
            Some(&raw) if dtw_held => Some(Score::from_raw(raw)),
            _ if dtw_held => worker.cache.value(self.sig, dtw, at)?,
            _ => Some(derived),
        };
        let stored_wld =
            if wld_held { worker.cache.value(self.sig, wld, at)?.map(Score::wld) } else { Some(derived.wld()) };
        let Some((stored, stored_wld)) = stored.zip(stored_wld) else {
            findings.unverified.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        };
        findings.checked.fetch_add(1, Ordering::Relaxed);
        if stored != derived || stored_wld != derived.wld() {
            findings.disagreement(Disagreement { signature: self.sig, fen: fen(), stored, stored_wld, derived });
        }
        Ok(())
    }

    /// Checks the rule value held for `position` and the other `members` of its class
    /// against the one its successors give (undecided where it is drawn in theory or by
    /// its material); `Ok(false)` past the table's end.
    fn rule(
        &self,
        worker: &mut Worker,
        at: u64,
        position: &Position,
        members: &Members,
        from_children: bool,
        findings: &Findings,
    ) -> Result<bool, TableError> {
        let Some((rules, context, _)) = self.rule_file else { return Ok(true) };
        let derived =
            if from_children { worker.derive_rule(self.tables, rules, context, position) } else { Ok(RuleScore::NONE) };
        let derived = match derived {
            Ok(d) => d,
            Err(Gap::Missing) => {
                let unverified = 1 + members.indices().len() as u64;
                findings.unverified.fetch_add(unverified, Ordering::Relaxed);
                return Ok(true);
            }
            Err(Gap::Bad(e)) => return Err(e),
        };
        for &member in members.indices() {
            let fen = || self.tables.index[&self.sig].position(member).fen();
            if !self.compare_rule(worker, member, fen, derived, findings)? {
                return Ok(false);
            }
        }
        self.compare_rule(worker, at, || position.fen(), derived, findings)
    }

    /// Compares the rule value held at `at` with `derived`, the position's (`fen`) value
    /// from its successors; `Ok(false)` past the table's end.
    fn compare_rule(
        &self,
        worker: &mut Worker,
        at: u64,
        fen: impl FnOnce() -> String,
        derived: RuleScore,
        findings: &Findings,
    ) -> Result<bool, TableError> {
        let Some((rules, _, file)) = self.rule_file else { return Ok(true) };
        let stored = match self.resident_rules.and_then(|v| v.get(at)) {
            Some(&code) => Some(rule_of_code(code)),
            None => worker.cache.rule_value(self.sig, file, at)?,
        };
        let Some(stored) = stored else { return Ok(false) };
        findings.rule_checked.fetch_add(1, Ordering::Relaxed);
        if stored != derived {
            let (set, signature) = (rules.set, self.sig);
            findings.rule_disagreement(RuleDisagreement { set, signature, fen: fen(), stored, derived });
        }
        Ok(true)
    }
}
