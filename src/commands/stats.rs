//! `kabe stats`: wins, draws, losses and the longest win of every table, and with
//! `--rules` how many wins the draw rules keep.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use indicatif::ProgressBar;
use kabe_generator::{recorded_statistics, tables_in, MemoryBudget, RuleStats, TableStats, VerifyOptions};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, Score, Signature, Variant};
use rayon::prelude::*;
use serde_json::json;

use crate::args::{rules_arg, TableSet};
use crate::output::bar_style;

/// Arguments of `kabe stats`.
#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also count, per signature, the wins that stay wins under these draw rules with a
    /// fresh count; needs the rule tables.
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// The figures of these signatures only (e.g. 0105,0501), without counting the others.
    #[arg(long, value_delimiter = ',')]
    signature: Vec<String>,
    /// Peak memory while figures that `kabe verify`'s ledger does not record are
    /// counted, as `kabe verify --memory` (default: three quarters of this machine's).
    #[arg(long, value_parser = MemoryBudget::parse)]
    memory: Option<MemoryBudget>,
}

/// The figures of one material: theoretical, and under a rule set with fresh counts.
pub struct Figures {
    pub signature: Signature,
    pub theory: TableStats,
    pub ruled: Option<RuleStats>,
}

/// The figures of every material with tables under `dir`: what `kabe verify` recorded
/// for these same files where its ledger holds; the others are counted as `kabe verify`
/// derives every value of their pairs again (recorded in the ledger as it does, within
/// `memory`), and an error where those tables do not verify: figures of tables that
/// disagree with their successors would be wrong. A pair too large to be held in memory
/// is counted through the reader (slow where a table's positions are found by search).
/// A torn or edited ledger line is named in a warning and its figures counted again.
pub fn figures(
    dir: &Path,
    variant: Variant,
    rules: Option<&DrawRules>,
    only: Option<&[Signature]>,
    memory: MemoryBudget,
) -> anyhow::Result<Vec<Figures>> {
    let found = tables_in(dir, &variant).with_context(|| format!("reading {}", dir.display()))?;
    anyhow::ensure!(!found.is_empty(), "no {} tables in {}", variant.name, dir.display());
    let mut tables = Tablebase::builder(dir).variants(&[variant]).cache_bytes(STATS_CACHE_BYTES);
    if let Some(r) = rules {
        tables = tables.rules(r.set);
    }
    let tables = tables.open()?;
    // A ledger that cannot be read (a folder in its place, no permission) is warned of
    // once; the figures are counted without it.
    let (recorded, ledger_readable) = match recorded_statistics(dir, variant) {
        Ok(recorded) => (recorded, true),
        Err(e) => {
            eprintln!("kabe: warning: {e}: the figures are counted without the ledger");
            (Default::default(), false)
        }
    };
    if !recorded.ignored_lines.is_empty() {
        eprintln!(
            "kabe: warning: {}: line {} torn or edited (its seal does not hold): not used: those pairs are \
             derived again and the ledger written without it",
            dir.join(variant.name).join(kabe_generator::LEDGER_NAME).display(),
            crate::output::some_of(&recorded.ignored_lines)
        );
    }
    let mut recorded = recorded.by_signature;
    let wanted: Vec<Signature> = found.keys().copied().filter(|s| only.is_none_or(|o| o.contains(s))).collect();
    let uncounted = |sig: Signature| rules.is_some_and(|r| r.context(sig).is_none());
    // A material's figures are recorded where its theory is, and its rule figures when asked.
    let holds = |sig: Signature, (_, by_set): &(TableStats, Vec<(DrawRuleSet, RuleStats)>)| {
        uncounted(sig) || rules.is_none_or(|r| by_set.iter().any(|(s, _)| *s == r.set))
    };
    let unrecorded: Vec<Signature> =
        wanted.iter().copied().filter(|s| !recorded.get(s).is_some_and(|e| holds(*s, e))).collect();
    if !unrecorded.is_empty() {
        recorded.extend(verified_figures(dir, variant, &unrecorded, memory, ledger_readable)?);
    }
    let from_ledger = |sig: Signature| recorded.get(&sig).filter(|e| holds(sig, e));
    // What is neither recorded nor verified now (a pair too large to hold) is counted
    // position by position: a pair kept on one side searches every position of its
    // other side, minutes to hours at six pieces.
    let to_count: u64 = wanted
        .iter()
        .filter(|s| from_ledger(**s).is_none())
        .map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len()) * if rules.is_some() { 2 } else { 1 })
        .sum();
    let bar = if to_count > 0 { ProgressBar::new(to_count) } else { ProgressBar::hidden() };
    if to_count > 0 {
        bar.set_style(bar_style(
            "{prefix:>10} [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions not in the ledger  {per_sec}  ETA {eta}",
        ));
        bar.set_prefix("counting");
        bar.enable_steady_tick(Duration::from_millis(250));
    }
    let mut out = Vec::new();
    for sig in &wanted {
        let index = MaterialIndex::new(variant, *sig).expect("opened, so table-sized");
        // A material without a count keeps every theoretical value under the rules.
        let no_count = |t: &TableStats| RuleStats {
            wins_kept: t.wins,
            longest_win_within_count: t.longest_win,
            ..RuleStats::default()
        };
        let uncounted = uncounted(*sig);
        let (theory, ruled) = match from_ledger(*sig) {
            Some((theory, by_set)) => {
                let of_set = rules.and_then(|r| by_set.iter().find(|(s, _)| *s == r.set).map(|(_, x)| *x));
                (*theory, if uncounted { Some(no_count(theory)) } else { of_set })
            }
            None => (
                count_values(&index, &bar, |p| Ok(tables.probe_dtw(p)?))?,
                rules.map(|r| rule_stats(&tables, r, &index, &bar)).transpose()?,
            ),
        };
        out.push(Figures { signature: *sig, theory, ruled });
    }
    bar.finish_and_clear();
    Ok(out)
}

pub fn stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let rules = args.rules.map(|r| rules_arg(Some(r), &variant)).transpose()?;
    let only: Vec<Signature> =
        args.signature.iter().map(|s| crate::args::signature_arg(s)).collect::<anyhow::Result<_>>()?;
    let found = tables_in(&dir, &variant).with_context(|| format!("reading {}", dir.display()))?;
    if let Some(absent) = only.iter().find(|s| !found.contains_key(s)) {
        anyhow::bail!("--signature {absent}: no {} table of it in {}", variant.name, dir.display());
    }
    let only = (!only.is_empty()).then_some(only.as_slice());
    let mut rows = Vec::new();
    for Figures { signature: sig, theory, ruled } in
        figures(&dir, variant, rules.as_ref(), only, args.memory.unwrap_or_else(crate::args::default_memory))?
    {
        let index = MaterialIndex::new(variant, sig).expect("opened, so table-sized");
        let fen = |at: Option<(u16, u64)>| at.map(|(_, i)| index.position(i).fen());
        let mut row = json!({
            "signature": sig.to_string(),
            "positions": index.len(),
            "wins": theory.wins, "draws": theory.draws, "losses": theory.losses,
            "longest_win_plies": theory.longest_win.map(|(p, _)| p),
            "longest_win_fen": fen(theory.longest_win),
        });
        if let (Some(r), Some(ruled)) = (&rules, ruled) {
            // The count a fresh start runs in this material (the same for every position of it).
            let article = index
                .positions(0..index.len().min(1))
                .next()
                .and_then(|p| Counters::fresh(r, &p).governing(&p).map(|(article, _)| article));
            row["rules"] = json!({
                "count": article,
                "wins_kept": ruled.wins_kept,
                "wins_drawn_by_count": ruled.wins_drawn_by_count,
                "losses_saved_by_count": ruled.losses_saved_by_count,
                "longest_win_within_count_plies": ruled.longest_win_within_count.map(|(p, _)| p),
                "longest_win_within_count_fen": fen(ruled.longest_win_within_count),
            });
        }
        rows.push(row);
    }
    if args.json {
        let rules = rules.map(|r| r.set.name());
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({ "variant": variant.name, "rules": rules, "tables": rows }))?
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(rules) = rules {
        print_rule_stats(&variant, &dir, &rules, &rows)?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{} tables in {} (side to move's material first)", variant.name, dir.display())?;
    outln!(
        "{:>6} {:>12} {:>12} {:>12} {:>12} {:>8}  position",
        "sig",
        "positions",
        "wins",
        "draws",
        "losses",
        "longest"
    )?;
    for r in &rows {
        let n = |k: &str| r[k].as_u64().unwrap_or(0);
        outln!(
            "{:>6} {:>12} {:>12} {:>12} {:>12} {:>8}  {}",
            r["signature"].as_str().unwrap_or(""),
            n("positions"),
            n("wins"),
            n("draws"),
            n("losses"),
            r["longest_win_plies"].as_u64().map_or("-".to_string(), |p| p.to_string()),
            r["longest_win_fen"].as_str().unwrap_or("")
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The figures of the tables of `signatures` and of their pairs, counted as `kabe verify`
/// derives every value again (and recorded in its ledger); an error naming what is wrong
/// where they do not verify.
#[allow(clippy::type_complexity)]
fn verified_figures(
    dir: &Path,
    variant: Variant,
    signatures: &[Signature],
    memory: MemoryBudget,
    say_ledger_problem: bool,
) -> anyhow::Result<std::collections::BTreeMap<Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>)>> {
    let total = kabe_generator::positions_to_verify(dir, variant, Some(signatures))
        .with_context(|| format!("reading {}", dir.display()))?;
    let bar = ProgressBar::new(total);
    bar.set_style(bar_style(
        "{prefix:>10} [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions not in the ledger  {per_sec}  ETA {eta}",
    ));
    bar.set_prefix("verifying");
    bar.enable_steady_tick(Duration::from_millis(250));
    let cache = memory.cache_bytes();
    let options = VerifyOptions {
        only: Some(signatures),
        cache_bytes: cache,
        resident_bytes: (memory.bytes as usize).saturating_sub(cache),
        max_reported: 1,
        ledger: true,
    };
    let report = kabe_generator::verify_with(dir, variant, &options, &|n| bar.inc(n))
        .with_context(|| format!("verifying {}", dir.display()))?;
    bar.finish_and_clear();
    if let Some(problem) = report.ledger_problem.as_ref().filter(|_| say_ledger_problem) {
        eprintln!(
            "kabe: warning: the figures are not recorded in the ledger ({problem}): they are counted again next time"
        );
    }
    if !report.ok() {
        let first = report
            .bad_files
            .first()
            .map(|bad| format!("bad file: {bad}"))
            .or_else(|| report.incomplete.first().map(|sig| format!("{sig} has only one of its WLD and DTW tables")))
            .or_else(|| {
                report.disagreements.first().map(|d| {
                    format!("{}: {} stored {}, its successors give {}", d.signature, d.fen, d.stored, d.derived)
                })
            })
            .or_else(|| {
                report.rule_disagreements.first().map(|d| {
                    format!(
                        "the {} rule table of {}: {} stored {:?}, its successors give {:?}",
                        d.set, d.signature, d.fen, d.stored, d.derived
                    )
                })
            })
            .unwrap_or_else(|| format!("{} positions lead to a bad or missing table", report.unverified));
        anyhow::bail!(
            "{}: the tables do not verify, so their figures would be wrong: {first} ({} disagreements, {} bad files; \
             `kabe verify` names each)",
            dir.display(),
            report.disagreement_count + report.rule_disagreement_count,
            report.bad_files.len()
        );
    }
    Ok(report.statistics)
}

/// Block cache of `kabe stats`: the positions are read in index order, so a block is
/// decoded once, but positions found by search read other tables' blocks.
const STATS_CACHE_BYTES: usize = 256 << 20;

/// The theoretical figures of one table, counted through the reader in parallel chunks
/// of index order (each chunk reads its blocks once).
fn count_values(
    index: &MaterialIndex,
    bar: &ProgressBar,
    score: impl Fn(&Position) -> anyhow::Result<Score> + Sync,
) -> anyhow::Result<TableStats> {
    const CHUNK: u64 = 1 << 14;
    (0..index.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.len());
            let mut stats = TableStats::default();
            for (i, position) in range.clone().zip(index.positions(range.clone())) {
                stats.add(i, score(&position)?);
            }
            bar.inc(range.end - range.start);
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
    bar: &ProgressBar,
) -> anyhow::Result<RuleStats> {
    const CHUNK: u64 = 1 << 14;
    (0..index.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| -> anyhow::Result<RuleStats> {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.len());
            let mut stats = RuleStats::default();
            for (i, position) in range.clone().zip(index.positions(range.clone())) {
                let v = tables.probe(&position, &Counters::fresh(rules, &position))?;
                stats.add(i, v.theoretical.wld(), v.exact, v.within.decided().map_or(0, |(_, p)| p));
            }
            bar.inc(range.end - range.start);
            Ok(stats)
        })
        .try_reduce(RuleStats::default, |a, b| Ok(a.merge(b)))
}

fn print_rule_stats(
    variant: &Variant,
    dir: &Path,
    rules: &DrawRules,
    rows: &[serde_json::Value],
) -> anyhow::Result<()> {
    outln!(
        "{} tables in {} under the {} rules, fresh counts (side to move's material first)",
        variant.name,
        dir.display(),
        rules.set.name()
    )?;
    outln!(
        "{:>6} {:>12} {:>12} {:>12} {:>12} {:>8}  position",
        "sig",
        "wins",
        "still wins",
        "drawn",
        "saved",
        "longest"
    )?;
    for r in rows {
        let n = |k: &str| r["rules"][k].as_u64().unwrap_or(0);
        outln!(
            "{:>6} {:>12} {:>12} {:>12} {:>12} {:>8}  {}",
            r["signature"].as_str().unwrap_or(""),
            r["wins"].as_u64().unwrap_or(0),
            n("wins_kept"),
            n("wins_drawn_by_count"),
            n("losses_saved_by_count"),
            r["rules"]["longest_win_within_count_plies"].as_u64().map_or("-".to_string(), |p| p.to_string()),
            r["rules"]["longest_win_within_count_fen"].as_str().unwrap_or("")
        )?;
    }
    Ok(())
}
