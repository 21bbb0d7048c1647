//! `kabe verify`: every checksum, every value derived again from its successors.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use indicatif::ProgressBar;
use kabe_generator::{tables_in, MemoryBudget, VerifyOptions, LEDGER_NAME};
use kabe_probe::Signature;

use crate::args::{default_memory, TableSet};
use crate::output::bar_style;

/// Arguments of `kabe verify`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Disagreements to print in full (at most 100000).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    show: u64,
    /// Derive the values of these signatures only (e.g. 0501,0105); every file's
    /// checksum is checked all the same.
    #[arg(long, value_delimiter = ',')]
    signature: Vec<String>,
    /// Peak memory, e.g. 4G (default: three quarters of this machine's memory): an
    /// eighth (at most 1G, as a build's) caches decoded blocks, the rest holds the pair
    /// being checked and the tables its moves lead to (three bytes a position; a larger
    /// pair with men is checked a slice of its men's placements at a time, one of kings
    /// only through the block cache, many times slower).
    #[arg(long, value_parser = MemoryBudget::parse)]
    memory: Option<MemoryBudget>,
    /// Derive every pair again, whatever the ledger (verified.txt beside the tables)
    /// records; without it a pair recorded as verified against the same files is
    /// skipped, so that a long verification resumes where it stopped.
    #[arg(long)]
    again: bool,
    #[command(flatten)]
    threads: crate::args::Threads,
}

pub fn verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    args.threads.apply()?;
    let found = tables_in(&dir, &variant).with_context(|| format!("reading {}", dir.display()))?;
    anyhow::ensure!(!found.is_empty(), "no {} tables in {}", variant.name, dir.display());
    let only: Vec<Signature> =
        args.signature.iter().map(|s| crate::args::signature_arg(s)).collect::<anyhow::Result<_>>()?;
    for sig in &only {
        anyhow::ensure!(found.contains_key(sig), "no {} table {sig} in {}", variant.name, dir.display());
    }
    let only = (!only.is_empty()).then_some(only.as_slice());
    let total = kabe_generator::positions_to_verify(&dir, variant, only)
        .with_context(|| format!("reading {}", dir.display()))?;
    let bar = ProgressBar::new(total);
    bar.set_style(bar_style(
        "{prefix:>10} [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions  {per_sec}  ETA {eta}",
    ));
    bar.set_prefix("verify");
    bar.enable_steady_tick(Duration::from_millis(250));
    // Held values are what make a one-side set fast: a value held is found once, a
    // value cached is searched again where its block is dropped.
    let budget = args.memory.unwrap_or_else(default_memory);
    let cache = budget.cache_bytes();
    let resident = (budget.bytes as usize).saturating_sub(cache);
    let options = VerifyOptions {
        only,
        cache_bytes: cache,
        resident_bytes: resident,
        max_reported: args.show as usize,
        ledger: !args.again,
    };
    let too_large = kabe_generator::pairs_too_large_to_hold(&dir, variant, only, resident)
        .with_context(|| format!("reading {}", dir.display()))?;
    for (pair, need) in too_large {
        bar.suspend(|| {
            eprintln!(
                "kabe: warning: {pair} needs {} held (three bytes a position) and --memory {} leaves {}: it is \
                 checked through the block cache, many times slower (unless the ledger records it verified); \
                 --memory {} holds it",
                gib(need),
                gib(budget.bytes),
                gib(resident as u64),
                gib(memory_holding(need)),
            )
        });
    }
    let report = kabe_generator::verify_with(&dir, variant, &options, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    print_report(&report, &dir.join(variant.name).join(LEDGER_NAME))?;
    Ok(if report.ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `21.1G`: bytes in GiB, a tenth rounded up (what `--memory` takes).
fn gib(bytes: u64) -> String {
    format!("{:.1}G", (bytes as f64 / (1u64 << 30) as f64 * 10.0).ceil() / 10.0)
}

/// The least `--memory` whose part beside the block cache holds `need` bytes.
fn memory_holding(need: u64) -> u64 {
    // The cache takes an eighth, from 32 MiB to 1 GiB (MemoryBudget::cache_bytes).
    let mut memory = need + (32 << 20);
    while memory - (MemoryBudget::new(memory).cache_bytes() as u64) < need {
        memory += 16 << 20;
    }
    memory
}

/// What the verification found: warnings about the ledger on stderr, then every bad file,
/// gap and disagreement, and the counts.
fn print_report(report: &kabe_generator::VerifyReport, ledger_path: &std::path::Path) -> anyhow::Result<()> {
    if !report.ledger_ignored_lines.is_empty() {
        eprintln!(
            "kabe: warning: {}: line {} torn or edited (its seal does not hold): ignored, those pairs derived again",
            ledger_path.display(),
            crate::output::some_of(&report.ledger_ignored_lines)
        );
    }
    if let Some(problem) = &report.ledger_problem {
        eprintln!("kabe: warning: verified without the ledger ({problem}): the next verify derives every pair again");
    }
    for bad in &report.bad_files {
        outln!("bad file: {bad}")?;
    }
    for sig in &report.incomplete {
        outln!("incomplete: {} has only one of its WLD and DTW tables", sig)?;
    }
    for what in &report.unfinished {
        outln!("incomplete: {what}")?;
    }
    for d in &report.disagreements {
        outln!(
            "disagreement in {}: {} stored {} (WLD {:?}), successors give {}",
            d.signature,
            d.fen,
            d.stored,
            d.stored_wld,
            d.derived
        )?;
    }
    for d in &report.rule_disagreements {
        outln!(
            "disagreement in the {} rule table of {}: {} stored {:?}, successors give {:?}",
            d.set,
            d.signature,
            d.fen,
            d.stored,
            d.derived
        )?;
    }
    if report.unverified > 0 {
        outln!("{} positions not re-derived: a table they lead to is bad or missing (named above)", report.unverified)?;
    }
    let kinds: Vec<String> = report.files_by_kind.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
    let by_search = if report.files_by_search > 0 {
        format!("; {} found by search", report.files_by_search)
    } else {
        String::new()
    };
    let ledger = if report.pairs_from_ledger > 0 {
        format!(
            " ({} more pairs recorded in {} as verified against these same files)",
            report.pairs_from_ledger,
            ledger_path.display()
        )
    } else {
        String::new()
    };
    let unfinished = match report.unfinished.len() + report.incomplete.len() {
        0 => String::new(),
        n => format!("; the set is incomplete ({n} {} above)", if n == 1 { "thing" } else { "things" }),
    };
    outln!(
        "{} files ({}{by_search}); {} pairs derived again{ledger}: {} stored values, {} rule-table values; {} disagreements, {} bad files{unfinished}",
        report.files,
        kinds.join(", "),
        report.pairs_derived,
        report.positions,
        report.rule_positions,
        report.disagreement_count + report.rule_disagreement_count,
        report.bad_files.len()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memory named holds the pair beside its block cache, and 16 MiB less would not.
    #[test]
    fn the_memory_named_is_the_least_that_holds_the_pair() {
        for need in [1u64 << 20, 200 << 20, 7 << 30, 22_653_781_920, 100 << 30] {
            let memory = memory_holding(need);
            let beside_cache = |m: u64| m.saturating_sub(MemoryBudget::new(m).cache_bytes() as u64);
            assert!(beside_cache(memory) >= need, "{need}");
            assert!(beside_cache(memory - (16 << 20)) < need, "{need}");
        }
        // 0511+1105: 7,551,260,640 positions.
        assert_eq!(gib(22_653_781_920), "21.1G");
        assert_eq!(gib(memory_holding(22_653_781_920)), "22.1G");
    }
}
