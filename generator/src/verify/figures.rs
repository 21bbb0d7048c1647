//! The figures of every table of a set ([`count_figures`]): what `kabe verify` recorded in
//! its ledger for these same files where it holds, the rest counted as `kabe verify`
//! derives every value of their pairs again (and recorded), and what cannot be held in
//! memory counted position by position through the reader.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use kabe_probe::internal::MaterialIndex;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, Score, Signature, Variant};
use rayon::prelude::*;

use crate::verify::ledger::{recorded_statistics, LEDGER_NAME};
use crate::verify::statistics::{RuleStats, TableStats};
use crate::verify::tables::tables_in;
use crate::verify::{positions_to_verify, verify_with, VerifyOptions, VerifyReport};

/// The figures of one material: theoretical, and under a rule set with fresh counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figures {
    /// The material.
    pub signature: Signature,
    /// Its positions.
    pub positions: u64,
    /// Its theoretical figures.
    pub theory: TableStats,
    /// The position of the longest win, as FEN.
    pub longest_win_fen: Option<String>,
    /// Its figures under the rules asked for, every position with a fresh count.
    pub ruled: Option<RuleStats>,
    /// The count a fresh start runs in this material under those rules (the same for
    /// every position of it).
    pub count: Option<&'static str>,
    /// The position of the longest win within the count, as FEN.
    pub longest_win_within_count_fen: Option<String>,
}

/// What [`count_figures`] reports as it goes, for a progress bar and warnings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FiguresEvent {
    /// Something the figures are counted in spite of (an unreadable ledger, torn lines).
    Warning(String),
    /// A stage begins: `verifying` pairs not in the ledger, or `counting` positions
    /// through the reader; `total` positions to go.
    Start {
        /// `verifying` or `counting`.
        stage: &'static str,
        /// Positions it goes through.
        total: u64,
    },
    /// So many more positions done.
    Advance(u64),
    /// The stage is over.
    Finish,
}

/// How [`count_figures`] works: which materials, and within what memory.
#[derive(Clone, Copy, Debug)]
pub struct FiguresOptions<'a> {
    /// The rules whose figures are counted besides the theory's.
    pub rules: Option<&'a DrawRules>,
    /// These materials only; every one with tables when `None`.
    pub only: Option<&'a [Signature]>,
    /// The block cache of the verification (`VerifyOptions::cache_bytes`).
    pub cache_bytes: usize,
    /// Memory for the pairs verified (`VerifyOptions::resident_bytes`).
    pub resident_bytes: usize,
}

/// Why figures could not be counted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FiguresError {
    /// The table directory cannot be read.
    #[error("reading {}: {source}", dir.display())]
    Read {
        /// The directory.
        dir: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// No tables of the variant there.
    #[error("no {variant} tables in {}", dir.display())]
    NoTables {
        /// The variant.
        variant: &'static str,
        /// The directory.
        dir: PathBuf,
    },
    /// A table could not be opened or read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The verification stopped.
    #[error("verifying {}: {source}", dir.display())]
    Verify {
        /// The directory.
        dir: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// The tables do not verify: figures of tables that disagree with their successors
    /// would be wrong.
    #[error(
        "{}: the tables do not verify, so their figures would be wrong: {first} ({disagreements} disagreements, \
         {bad_files} bad files; `kabe verify` names each)",
        dir.display()
    )]
    NotVerified {
        /// The directory.
        dir: PathBuf,
        /// The first thing wrong.
        first: String,
        /// Disagreements, of values and of rule values.
        disagreements: u64,
        /// Bad files.
        bad_files: usize,
    },
}

/// Block cache of the reader the figures not in the ledger are counted through: the
/// positions are read in index order, so a block is decoded once, but positions found by
/// search read other tables' blocks.
const FIGURES_CACHE_BYTES: usize = 256 << 20;

/// A material's recorded figures: the theory's, and each rule set's.
type Recorded = BTreeMap<Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>)>;

/// The figures of every material with tables of `variant` under `dir` (those of
/// `options.only`): recorded, verified now, or counted through the reader; an error
/// where tables not recorded do not verify. A torn or edited ledger line is named in a
/// warning and its figures counted again.
///
/// # Errors
/// [`FiguresError`]: the directory cannot be read or holds no tables, a table cannot be
/// read, or the tables do not verify.
pub fn count_figures(
    dir: &Path,
    variant: Variant,
    options: &FiguresOptions<'_>,
    events: &(dyn Fn(FiguresEvent) + Sync),
) -> Result<Vec<Figures>, FiguresError> {
    let rules = options.rules;
    let found = tables_in(dir, &variant).map_err(|source| FiguresError::Read { dir: dir.to_path_buf(), source })?;
    if found.is_empty() {
        return Err(FiguresError::NoTables { variant: variant.name, dir: dir.to_path_buf() });
    }
    let mut tables = Tablebase::builder(dir).variants(&[variant]).cache_bytes(FIGURES_CACHE_BYTES);
    if let Some(r) = rules {
        tables = tables.rules(r.set);
    }
    let tables = tables.open()?;
    let (mut recorded, ledger_readable) = ledger_figures(dir, variant, events);
    let wanted: Vec<Signature> = found.keys().copied().filter(|s| options.only.is_none_or(|o| o.contains(s))).collect();
    let unrecorded: Vec<Signature> =
        wanted.iter().copied().filter(|s| recorded_for(&recorded, rules, *s).is_none()).collect();
    if !unrecorded.is_empty() {
        recorded.extend(verified_figures(dir, variant, &unrecorded, options, ledger_readable, events)?);
    }
    // What is neither recorded nor verified now (a pair too large to hold) is counted
    // position by position: a pair kept on one side searches every position of its
    // other side, minutes to hours at six pieces.
    let to_count: u64 = wanted
        .iter()
        .filter(|s| recorded_for(&recorded, rules, **s).is_none())
        .map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len()) * if rules.is_some() { 2 } else { 1 })
        .sum();
    if to_count > 0 {
        events(FiguresEvent::Start { stage: "counting", total: to_count });
    }
    let mut out = Vec::new();
    for sig in &wanted {
        // tables_in lists the materials whose files name them, each with an index.
        let Some(index) = MaterialIndex::new(variant, *sig) else { continue };
        let (theory, ruled) = match recorded_for(&recorded, rules, *sig) {
            Some(figures) => figures,
            None => (
                count_values(&index, events, |p| tables.probe_dtw(p))?,
                rules.map(|r| rule_stats(&tables, r, &index, events)).transpose()?,
            ),
        };
        out.push(figures_of(&index, *sig, rules, theory, ruled));
    }
    if to_count > 0 {
        events(FiguresEvent::Finish);
    }
    Ok(out)
}

/// What the ledger records, and whether it could be read; a ledger that cannot be read
/// (a folder in its place, no permission) or torn lines are warned of once.
fn ledger_figures(dir: &Path, variant: Variant, events: &(dyn Fn(FiguresEvent) + Sync)) -> (Recorded, bool) {
    let recorded = match recorded_statistics(dir, variant) {
        Ok(recorded) => recorded,
        Err(e) => {
            events(FiguresEvent::Warning(format!("{e}: the figures are counted without the ledger")));
            return (Recorded::new(), false);
        }
    };
    if !recorded.ignored_lines.is_empty() {
        let lines = &recorded.ignored_lines;
        let mut shown: Vec<String> = lines.iter().take(10).map(|n| n.to_string()).collect();
        if lines.len() > 10 {
            shown.push(format!("and {} more", lines.len() - 10));
        }
        events(FiguresEvent::Warning(format!(
            "{}: line {} torn or edited (its seal does not hold): not used: those pairs are derived again and the \
             ledger written without it",
            dir.join(variant.name).join(LEDGER_NAME).display(),
            shown.join(", ")
        )));
    }
    (recorded.by_signature, true)
}

/// A material's recorded figures, when they hold what is asked: its theory, and its rule
/// figures when rules are asked for (a material without a count keeps every theoretical
/// value under the rules).
fn recorded_for(
    recorded: &Recorded,
    rules: Option<&DrawRules>,
    sig: Signature,
) -> Option<(TableStats, Option<RuleStats>)> {
    let (theory, by_set) = recorded.get(&sig)?;
    let Some(rules) = rules else { return Some((*theory, None)) };
    if rules.context(sig).is_none() {
        let kept =
            RuleStats { wins_kept: theory.wins, longest_win_within_count: theory.longest_win, ..RuleStats::default() };
        return Some((*theory, Some(kept)));
    }
    let of_set = by_set.iter().find(|(s, _)| *s == rules.set)?;
    Some((*theory, Some(of_set.1)))
}

/// The row of one material: its figures with the positions they name, as FEN.
fn figures_of(
    index: &MaterialIndex,
    signature: Signature,
    rules: Option<&DrawRules>,
    theory: TableStats,
    ruled: Option<RuleStats>,
) -> Figures {
    let fen = |at: Option<(u16, u64)>| at.map(|(_, i)| index.position(i).fen());
    let count = rules.filter(|_| ruled.is_some()).and_then(|r| {
        let first = index.positions(0..index.len().min(1)).next()?;
        Counters::fresh(r, &first).governing(&first).map(|(article, _)| article)
    });
    Figures {
        signature,
        positions: index.len(),
        theory,
        longest_win_fen: fen(theory.longest_win),
        ruled,
        count,
        longest_win_within_count_fen: ruled.and_then(|r| fen(r.longest_win_within_count)),
    }
}

/// The figures of the tables of `signatures` and of their pairs, counted as `kabe verify`
/// derives every value again (and recorded in its ledger); an error naming what is wrong
/// where they do not verify.
fn verified_figures(
    dir: &Path,
    variant: Variant,
    signatures: &[Signature],
    options: &FiguresOptions<'_>,
    say_ledger_problem: bool,
    events: &(dyn Fn(FiguresEvent) + Sync),
) -> Result<Recorded, FiguresError> {
    let total = positions_to_verify(dir, variant, Some(signatures))
        .map_err(|source| FiguresError::Read { dir: dir.to_path_buf(), source })?;
    events(FiguresEvent::Start { stage: "verifying", total });
    let verify = VerifyOptions {
        only: Some(signatures),
        cache_bytes: options.cache_bytes,
        resident_bytes: options.resident_bytes,
        max_reported: 1,
        ledger: true,
    };
    let report = verify_with(dir, variant, &verify, &|n| events(FiguresEvent::Advance(n)))
        .map_err(|source| FiguresError::Verify { dir: dir.to_path_buf(), source })?;
    events(FiguresEvent::Finish);
    if let Some(problem) = report.ledger_problem.as_ref().filter(|_| say_ledger_problem) {
        events(FiguresEvent::Warning(format!(
            "the figures are not recorded in the ledger ({problem}): they are counted again next time"
        )));
    }
    if !report.ok() {
        return Err(FiguresError::NotVerified {
            dir: dir.to_path_buf(),
            first: first_fault(&report),
            disagreements: report.disagreement_count + report.rule_disagreement_count,
            bad_files: report.bad_files.len(),
        });
    }
    Ok(report.statistics)
}

/// The first thing a verification found wrong, in words.
fn first_fault(report: &VerifyReport) -> String {
    let bad = report.bad_files.first().map(|bad| format!("bad file: {bad}"));
    let incomplete = || report.incomplete.first().map(|sig| format!("{sig} has only one of its WLD and DTW tables"));
    let disagreement = || {
        let d = report.disagreements.first()?;
        Some(format!("{}: {} stored {}, its successors give {}", d.signature, d.fen, d.stored, d.derived))
    };
    let rule_disagreement = || {
        let d = report.rule_disagreements.first()?;
        Some(format!(
            "the {} rule table of {}: {} stored {:?}, its successors give {:?}",
            d.set, d.signature, d.fen, d.stored, d.derived
        ))
    };
    bad.or_else(incomplete)
        .or_else(disagreement)
        .or_else(rule_disagreement)
        .unwrap_or_else(|| format!("{} positions lead to a bad or missing table", report.unverified))
}

/// Positions a parallel chunk of index order counts (each chunk reads its blocks once).
const CHUNK: u64 = 1 << 14;

/// The theoretical figures of one table, counted through the reader.
fn count_values(
    index: &MaterialIndex,
    events: &(dyn Fn(FiguresEvent) + Sync),
    score: impl Fn(&Position) -> Result<Score, ProbeError> + Sync,
) -> Result<TableStats, ProbeError> {
    (0..index.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.len());
            let mut stats = TableStats::default();
            for (i, position) in range.clone().zip(index.positions(range.clone())) {
                stats.add(i, score(&position)?);
            }
            events(FiguresEvent::Advance(range.end - range.start));
            Ok(stats)
        })
        .try_reduce(TableStats::default, |a, b| Ok(a.merge(b)))
}

/// The figures of one table under `rules`, every position with a fresh count, counted
/// through the reader.
fn rule_stats(
    tables: &Tablebase,
    rules: &DrawRules,
    index: &MaterialIndex,
    events: &(dyn Fn(FiguresEvent) + Sync),
) -> Result<RuleStats, ProbeError> {
    (0..index.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.len());
            let mut stats = RuleStats::default();
            for (i, position) in range.clone().zip(index.positions(range.clone())) {
                let v = tables.probe(&position, &Counters::fresh(rules, &position))?;
                stats.add(i, v.theoretical.wld(), v.exact, v.within.decided().map_or(0, |(_, p)| p));
            }
            events(FiguresEvent::Advance(range.end - range.start));
            Ok(stats)
        })
        .try_reduce(RuleStats::default, |a, b| Ok(a.merge(b)))
}
