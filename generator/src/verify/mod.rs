//! Verification of a table directory through the table reader: every checksum of every
//! file (WLD, DTW and the rule tables of every draw-rule set present), and every stored
//! value derived again from its successors by a one-ply search. It shares nothing with
//! the solvers but move generation, the index, and for rule tables the definition of a
//! fresh count's verdict (`kabe_probe::rules::exact::verdict`), which is what the stored
//! distances mean.
//!
//! A one-ply check of exact distances is a complete proof: if some stored value were
//! wrong, the wrong one with the smallest true distance would disagree with its children.
//! The same holds for a rule table's distances within its count (capped at the count's
//! longest limit, beyond which a value is stored as undecided).

//!
//! Beside it: `statistics` (the figures counted while the values are held), `figures`
//! (a set's figures, from the ledger or counted), `stats_report` (them as JSON and text)
//! and `manifest` (the reference checksums of a set, checked file by file).
//!
//! The verifier's rooms, each using only the rooms after it (imports run one way):
//! this file (the entry: the options, the pairs in build order, the files opened and
//! checked, and [`verify_with`]'s steps); `ledger` (the verification ledger); `check`
//! (one pair's check); `resident` (the values held in memory for it); `counting` (its
//! figures); `worker` (one worker's reader and successors); `rule_values` (rule values
//! and the rule oracle); `reader` (blocks read, and DTW values); `successors` (where
//! positions lie); `symmetry` (the classes of positions of kings only, derived once);
//! `lanes` (a table of kings against a lone king held lane by lane from its flip's
//! values); `slices` (a pair too large to hold whole, cut by its men's placements);
//! `tables` (the files, and what is held of them). `report` (what is found)
//! lies below every room that says what it finds.

pub mod figures;
pub mod manifest;
mod sig_map;
pub mod statistics;
pub mod stats_report;
mod unfinished;

mod check;
mod counting;
mod lanes;
mod ledger;
mod reader;
mod report;
mod resident;
mod rule_values;
mod slices;
mod successors;
mod symmetry;
mod tables;
mod worker;

pub(crate) use ledger::{carry_ledger, ledger_lines_holding};
pub use ledger::{recorded_statistics, LEDGER_NAME};
pub use report::{Disagreement, RuleDisagreement, VerifyReport};
pub use tables::tables_in;

use std::collections::BTreeMap;
use std::path::Path;

use kabe_probe::internal::table::{BlockReader, TableDir};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{Metric, TableError, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, Signature, Variant};

use crate::verify::check::derive_pair;
use crate::verify::ledger::{figures_by_signature, ledger_digest, KeptLedger};
use crate::verify::report::Findings;
use crate::verify::tables::Tables;

/// Verifies every table of `variant` under `dir`; reports at most `max_reported`
/// disagreements in detail. `progress` receives positions checked. Every DTW value is
/// derived from its successors; every WLD value equals that derived value's, including
/// those of positions with a capture to make, which the WLD file does not hold: they are
/// resolved through their captures from the WLD values of the positions after them.
/// Every rule-table value is derived from its successors too (see [`derive_rule`]).
pub fn verify(
    dir: &Path,
    variant: Variant,
    max_reported: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<VerifyReport> {
    verify_with(dir, variant, &VerifyOptions { max_reported, ..VerifyOptions::default() }, progress)
}

/// How [`verify_with`] goes about it.
#[derive(Clone, Copy, Debug)]
pub struct VerifyOptions<'a> {
    /// Derive the values of these signatures only (every file's checksum is checked all
    /// the same); every signature when `None`. A build that adds a few tables to a large
    /// set verifies the new ones without going over the old.
    pub only: Option<&'a [Signature]>,
    /// The block cache the workers share, in bytes of decompressed blocks.
    pub cache_bytes: usize,
    /// Memory for the pair being checked and the pairs its moves lead to: a pair whose
    /// values fit (three bytes a position) is held in memory, every left-out value
    /// derived once where it leaves a quarter of this for its inputs; a larger pair with
    /// men is held and checked a slice of its men's placements at a time (three quarters
    /// of this; the values read out of the slice held lazily in the rest); one that
    /// neither fits (kings only, too large) is checked
    /// through the block cache alone, each left-out successor searched where it is met
    /// (the same proof, many times slower for a pair that stores one side). The pairs its
    /// moves lead to that are not derived now (in the ledger, or left out by `only`) are
    /// held as far as room is left.
    pub resident_bytes: usize,
    /// Disagreements reported in detail.
    pub max_reported: usize,
    /// Keep the ledger ([`LEDGER_NAME`] beside the tables): a pair it records as
    /// verified, with the same files under it, is not derived again, and each pair found
    /// sound is added to it at once, so that an interrupted verification resumes.
    pub ledger: bool,
}

impl Default for VerifyOptions<'_> {
    fn default() -> Self {
        VerifyOptions {
            only: None,
            cache_bytes: DEFAULT_CACHE_BYTES,
            resident_bytes: DEFAULT_RESIDENT_BYTES,
            max_reported: 10,
            ledger: false,
        }
    }
}

/// The shared block cache of [`verify`].
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// The memory of [`verify`] for the pair being checked.
pub const DEFAULT_RESIDENT_BYTES: usize = 1 << 30;

/// The positions [`verify_with`] derives again for the signatures in `only` (every
/// signature when `None`): one per position of each DTW and each rule table present.
pub fn positions_to_verify(dir: &Path, variant: Variant, only: Option<&[Signature]>) -> std::io::Result<u64> {
    Ok(tables_in(dir, &variant)?
        .iter()
        .filter(|(sig, _)| only.is_none_or(|o| o.contains(sig)))
        .map(|(sig, metrics)| {
            let tables = metrics.iter().filter(|m| !matches!(m, Metric::Wld)).count() as u64;
            MaterialIndex::new(variant, *sig).map_or(0, |i| i.len()) * tables
        })
        .sum())
}

/// The pairs [`verify_with`] derives for `only` (every pair when `None`; a pair the ledger
/// records as verified is skipped there, and named here all the same) whose values
/// `resident_bytes` cannot hold, three bytes a position, not even a slice of their men's
/// placements at a time (kings only, or a placement too large), each with the bytes it
/// needs whole: such a pair is checked through the block cache, each left-out successor
/// searched where it is met, many times slower. What a caller warns of before hours go
/// by.
pub fn pairs_too_large_to_hold(
    dir: &Path,
    variant: Variant,
    only: Option<&[Signature]>,
    resident_bytes: usize,
) -> std::io::Result<Vec<(String, u64)>> {
    let mut pairs: BTreeMap<Signature, Vec<Signature>> = BTreeMap::new();
    for &sig in tables_in(dir, &variant)?.keys().filter(|s| only.is_none_or(|o| o.contains(s))) {
        pairs.entry(sig.min(sig.flipped())).or_default().push(sig);
    }
    Ok(pairs
        .into_values()
        .filter_map(|members| {
            let indices: Vec<MaterialIndex> = members.iter().filter_map(|s| MaterialIndex::new(variant, *s)).collect();
            let need = indices.iter().map(MaterialIndex::len).sum::<u64>() * tables::RESIDENT_BYTES_PER_POSITION;
            let sliced = indices.first().is_some_and(|i| slices::sliceable(i, resident_bytes));
            (need > resident_bytes as u64 && !sliced).then(|| (pair_name(&members), need))
        })
        .collect())
}

/// As [`verify`], as `options` say. A rule table is expected for every signature whose
/// material keeps one under its set ([`DrawRules::context`]), up to the most pieces of
/// that set's tables present: one that is missing is a bad file.
///
/// The recipe: open every file and check its checksum; name the rule tables missing;
/// then, pair by pair in build order, skip what the ledger records as verified with the
/// same files, derive every value of the others again ([`derive_pair`]), and record each
/// pair found sound in the ledger at once.
pub fn verify_with(
    dir: &Path,
    variant: Variant,
    options: &VerifyOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<VerifyReport> {
    let mut report = VerifyReport::default();
    check_ledger_folder(dir, variant, options)?;
    let mut tables = open_set(dir, variant, options.only, &mut report)?;
    let mut ledger = KeptLedger::open(dir, variant, options.ledger, &mut report);
    let run = PairChecks::new(variant, options, progress);
    for (pair, line) in pairs_with_ledger_lines(&tables, options.only) {
        if ledger.records(&line) {
            run.take_from_ledger(&tables, &pair, &mut report);
        } else {
            run.derive_and_record(&mut tables, &pair, &line, &mut ledger, &mut report);
        }
    }
    run.findings.into_report(&mut report);
    Ok(report)
}

/// Where the ledger is kept, whether `dir` is `variant`'s folder of tables.
fn check_ledger_folder(dir: &Path, variant: Variant, options: &VerifyOptions) -> std::io::Result<()> {
    if options.ledger {
        // The ledger is written beside the tables: never into another game's folder.
        crate::files::check_variant_folder(dir, &variant)?;
    }
    Ok(())
}

/// The tables of `variant` under `dir`, every file opened and its checksum checked
/// ([`open_checked`]); what shows the set unfinished, the files that cannot be used and
/// the rule tables missing (of `only`, where given) are said in `report`.
fn open_set(
    dir: &Path,
    variant: Variant,
    only: Option<&[Signature]>,
    report: &mut VerifyReport,
) -> std::io::Result<Tables> {
    let found = tables_in(dir, &variant)?;
    report.unfinished = unfinished::unfinished(dir, &variant, &found);
    let tables = open_checked(dir, variant, &found, report);
    report.bad_files.extend(missing_rule_tables(dir, &variant, &found, only));
    Ok(tables)
}

/// The pairs to derive in build order ([`pairs_in_build_order`]), each with its ledger
/// line as it stands for the files now (`PAIR DIGEST`).
fn pairs_with_ledger_lines(tables: &Tables, only: Option<&[Signature]>) -> Vec<(Vec<Signature>, String)> {
    pairs_in_build_order(tables, only)
        .into_iter()
        .map(|(name, pair)| {
            let line = format!("{name} {:016x}", ledger_digest(tables, &pair));
            (pair, line)
        })
        .collect()
}

/// What the pairs' checks share in one run of [`verify_with`]: the block cache, what is
/// found, and where progress goes.
struct PairChecks<'a> {
    variant: Variant,
    resident_bytes: usize,
    cache: BlockReader,
    findings: Findings,
    progress: &'a (dyn Fn(u64) + Sync),
}

impl<'a> PairChecks<'a> {
    fn new(variant: Variant, options: &VerifyOptions, progress: &'a (dyn Fn(u64) + Sync)) -> Self {
        PairChecks {
            variant,
            resident_bytes: options.resident_bytes,
            cache: BlockReader::new(options.cache_bytes),
            findings: Findings::new(options.max_reported),
            progress,
        }
    }

    /// Counts `pair` as verified by the ledger, not derived again.
    fn take_from_ledger(&self, tables: &Tables, pair: &[Signature], report: &mut VerifyReport) {
        report.pairs_from_ledger += 1;
        (self.progress)(positions_derived(tables, pair));
    }

    /// Derives every value of `pair` again ([`derive_pair`]) and, where it is found
    /// sound, records it in the ledger under `line` with its figures, and the figures in
    /// `report`.
    fn derive_and_record(
        &self,
        tables: &mut Tables,
        pair: &[Signature],
        line: &str,
        ledger: &mut KeptLedger,
        report: &mut VerifyReport,
    ) {
        let before = self.findings.so_far();
        let figures =
            derive_pair(tables, self.variant, pair, self.resident_bytes, &self.cache, &self.findings, self.progress);
        report.pairs_derived += 1;
        // A pair is sound when nothing was found while checking it and none of its files
        // (nor those it leads to, which the digest covers) is bad.
        let sound = self.findings.so_far() == before
            && report.bad_files.is_empty()
            && pair.iter().all(|s| tables.dtw.contains_key(s) && tables.wld.contains_key(s));
        if !sound {
            return;
        }
        let words = figures
            .as_ref()
            .map_or_else(String::new, |(theory, rules)| crate::verify::statistics::to_ledger_words(theory, rules));
        ledger.append(line, &words, report);
        if let Some((theory, rules)) = figures {
            report.statistics.extend(figures_by_signature(pair, theory, &rules));
        }
    }
}

/// Opens every table file of `found`, checking its checksum, and a file found by search
/// against its colour flip; what cannot be used is a bad file of `report`, the rest is
/// what the values are read from.
fn open_checked(
    dir: &Path,
    variant: Variant,
    found: &BTreeMap<Signature, Vec<Metric>>,
    report: &mut VerifyReport,
) -> Tables {
    let mut tables = Tables::default();
    for (sig, metrics) in found {
        if !(metrics.contains(&Metric::Wld) && metrics.contains(&Metric::Dtw)) {
            report.incomplete.push(*sig);
        }
        for &metric in metrics {
            report.files += 1;
            *report.files_by_kind.entry(metric.name().to_string()).or_default() += 1;
            let file = match open_whole(dir, variant, *sig, metric) {
                Ok(file) => file,
                Err(e) => {
                    report.bad_files.push(e.to_string());
                    continue;
                }
            };
            report.files_by_search += file.header().by_search() as usize;
            tables
                .index
                .get_or_insert_with(*sig, || MaterialIndex::new(variant, *sig).expect("opened, so table-sized"));
            match metric {
                Metric::Dtw => tables.dtw.insert(*sig, file),
                Metric::Wld => tables.wld.insert(*sig, file),
                Metric::Rules(set) => tables.rules.entry(set).or_default().insert(*sig, file),
            };
        }
    }
    tables
}

/// The table file of `sig` and `metric`, its checksum checked; one found by search needs
/// its colour flip on disk, holding values.
fn open_whole(dir: &Path, variant: Variant, sig: Signature, metric: Metric) -> Result<TableFile, TableError> {
    let path = TableDir::new(dir).path(&variant, sig, metric);
    let file = TableFile::open(&path, &variant, sig, metric)?;
    file.verify_checksum()?;
    if file.header().by_search() {
        let flip = TableDir::new(dir).path(&variant, sig.flipped(), metric);
        if !flip.exists() {
            return Err(TableError::FlipMissing { path: flip, reader: path });
        }
        let flip_stores = sig.flipped() != sig
            && TableFile::open(&flip, &variant, sig.flipped(), metric).is_ok_and(|f| !f.header().by_search());
        if !flip_stores {
            return Err(TableError::values_nowhere(&path, &flip));
        }
    }
    Ok(file)
}

/// The pairs to derive (every signature with a DTW or rule table, or those of `only`,
/// each with its colour flip where it has one) in build order, by pieces then men: a
/// pair's successors lie in pairs checked before it, whose values are kept resident while
/// the memory allows.
fn pairs_in_build_order(tables: &Tables, only: Option<&[Signature]>) -> Vec<(String, Vec<Signature>)> {
    let chosen = |sig: &Signature| only.is_none_or(|o| o.contains(sig));
    let mut pairs: BTreeMap<Signature, Vec<Signature>> = BTreeMap::new();
    for &sig in tables.dtw.keys().chain(tables.rules.values().flat_map(|files| files.keys())).filter(|s| chosen(s)) {
        let members = pairs.entry(sig.min(sig.flipped())).or_default();
        if !members.contains(&sig) {
            members.push(sig);
        }
    }
    let mut in_order: Vec<(Signature, Vec<Signature>)> = pairs.into_iter().collect();
    in_order.sort_by_key(|(first, _)| (first.pieces(), first.men(), *first));
    in_order.into_iter().map(|(_, pair)| (pair_name(&pair), pair)).collect()
}

/// A pair's name in the ledger: as [`crate::TablePair`] names it (`0105+0501`) where both
/// members are checked, else the one member checked, so that checking one side never
/// stands for the other.
fn pair_name(members: &[Signature]) -> String {
    let mut members = members.to_vec();
    members.sort();
    members.iter().map(Signature::to_string).collect::<Vec<_>>().join("+")
}

/// The positions derived for `pair`: one per position of each DTW and rule table.
fn positions_derived(tables: &Tables, pair: &[Signature]) -> u64 {
    let kinds = |s: &Signature| {
        tables.dtw.contains_key(s) as u64 + tables.rules.values().filter(|f| f.contains_key(s)).count() as u64
    };
    pair.iter().map(|s| tables.index[s].len() * kinds(s)).sum()
}

/// The draw-rule sets with at least one table among `found`.
pub(crate) fn rule_sets_of(found: &BTreeMap<Signature, Vec<Metric>>) -> std::collections::BTreeSet<DrawRuleSet> {
    found
        .values()
        .flatten()
        .filter_map(|m| match m {
            Metric::Rules(set) => Some(*set),
            _ => None,
        })
        .collect()
}

/// The rule tables a set present under `dir` lacks: for each draw-rule set with a table
/// here, every signature (of `only`, when given) of at most as many pieces as its largest
/// table whose material keeps a rule table, and whose theoretical tables are here.
fn missing_rule_tables(
    dir: &Path,
    variant: &Variant,
    found: &BTreeMap<Signature, Vec<Metric>>,
    only: Option<&[Signature]>,
) -> Vec<String> {
    let sets = rule_sets_of(found);
    let pieces = |s: &Signature| s.white_men + s.white_kings + s.black_men + s.black_kings;
    let mut missing = Vec::new();
    for set in sets {
        let rules = DrawRules::new(set, variant);
        let metric = Metric::Rules(set);
        let reach = found.iter().filter(|(_, m)| m.contains(&metric)).map(|(s, _)| pieces(s)).max().unwrap_or(0);
        for (sig, metrics) in found {
            let chosen = only.is_none_or(|o| o.contains(sig));
            if chosen && pieces(sig) <= reach && rules.context(*sig).is_some() && !metrics.contains(&metric) {
                missing.push(format!(
                    "{}: missing (the {set} rule table of {sig}; the set has rule tables up to {reach} pieces)",
                    TableDir::new(dir).path(variant, *sig, metric).display()
                ));
            }
        }
    }
    missing
}
