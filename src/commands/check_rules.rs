//! `kabe check-rules`: the rule tables against an independent brute force, every position
//! and counter state.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use kabe_generator::{brute_rules, check_signature, with_deep_stack, BruteForce, TableFiles};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{DrawRules, Signature, Variant};

use crate::args::{rules_arg, signature_arg, TableSet};

/// Arguments of `kabe check-rules`.
#[derive(Args)]
pub struct CheckRulesArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Largest number of pieces to compare (2 to 6: the brute force holds every
    /// material and counter state in memory).
    #[arg(long, short, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=6))]
    pieces: u32,
    /// Draw rules (default: the variant's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// Compare only these signatures (`wm wk bm bk`, e.g. 1211), whatever their pieces;
    /// the brute force still solves every material they reach.
    #[arg(long, value_delimiter = ',')]
    signature: Vec<String>,
    /// Use the layered brute force (bounded memory: a pair's moves, two ranks of
    /// counter states and what later materials need) instead of the memoised one; it
    /// takes Russian and 100-square 1953 rules, and FMJD materials of kings only.
    #[arg(long)]
    layered: bool,
    /// With --layered: the bytes a pair's moves may take (e.g. 4G); a larger pair makes
    /// them again for every rank of counter states (default: always kept).
    #[arg(long, value_parser = kabe_generator::MemoryBudget::parse, requires = "layered")]
    move_budget: Option<kabe_generator::MemoryBudget>,
}

fn check_rules_layered(
    args: &CheckRulesArgs,
    variant: Variant,
    rules: &DrawRules,
    brute: kabe_generator::BruteRules,
    tables: &TableFiles<'_>,
) -> anyhow::Result<ExitCode> {
    let mut solver = kabe_generator::LayeredBrute::new(variant, brute);
    if let Some(budget) = args.move_budget {
        solver = solver.with_move_budget(budget.bytes as usize);
    }
    let chosen: Vec<Signature> = if args.signature.is_empty() {
        (2..=args.pieces).flat_map(Signature::all_with).collect()
    } else {
        args.signature.iter().map(|s| signature_arg(s)).collect::<anyhow::Result<_>>()?
    };
    let (mut positions, mut states, mut differ) = (0, 0, 0);
    let mut done = std::collections::HashSet::new();
    let start_all = Instant::now();
    for sig in chosen {
        if !done.insert(sig) {
            continue;
        }
        done.insert(sig.flipped());
        let start = Instant::now();
        let reports = match kabe_generator::check_pair_layered(&mut solver, rules, tables, sig) {
            Ok(r) => r,
            Err(kabe_generator::LayeredCheckError::Layers(kabe_generator::LayerError::ResetInside(_))) => {
                outln!("{:>6} skipped: men under FMJD 6.2 (the memoised brute force takes them)", sig.to_string())?;
                continue;
            }
            Err(e) => anyhow::bail!("{sig}: {e}"),
        };
        let seconds = start.elapsed().as_secs_f64();
        for report in reports {
            let name = report.signature.map_or_else(String::new, |s| s.to_string());
            outln!(
                "{:>6} {:>12} {:>14} {:>10} {:>8.1}",
                name,
                report.positions,
                report.states,
                report.disagreements,
                seconds
            )?;
            for e in &report.examples {
                outln!("    {e}")?;
            }
            positions += report.positions;
            states += report.states;
            differ += report.disagreements;
        }
    }
    outln!(
        "compared {positions} positions, {states} (position, counters) states: {differ} differ \
         (layered brute force: {:.1} s, peak {:.1} MiB of its own state)",
        start_all.elapsed().as_secs_f64(),
        solver.peak_bytes as f64 / (1 << 20) as f64
    )?;
    Ok(if differ == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

pub fn check_rules(args: &CheckRulesArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let rules = rules_arg(args.rules, &variant)?;
    let brute = brute_rules(rules.set, &variant).context("the brute force needs a rule set with counts")?;
    let tablebase = Tablebase::builder(&dir).variants(&[variant]).rules(rules.set).open()?;
    let tables = TableFiles(&tablebase, rules.set);
    outln!(
        "{} under {}: table verdicts against the brute force, every position and counter state",
        variant.name,
        rules.set.name()
    )?;
    outln!("{:>6} {:>12} {:>14} {:>10} {:>8}", "sig", "positions", "states", "differ", "seconds")?;
    if args.layered {
        return check_rules_layered(args, variant, &rules, brute, &tables);
    }
    let outcome = with_deep_stack(|| -> anyhow::Result<(u64, u64, u64)> {
        let mut solver = BruteForce::new(variant, brute);
        let (mut positions, mut states, mut differ) = (0, 0, 0);
        let chosen: Vec<Signature> = if args.signature.is_empty() {
            (2..=args.pieces).flat_map(Signature::all_with).collect()
        } else {
            args.signature.iter().map(|s| signature_arg(s)).collect::<anyhow::Result<_>>()?
        };
        for sig in chosen {
            let start = Instant::now();
            let report = check_signature(&mut solver, &rules, &tables, variant, sig)?;
            outln!(
                "{:>6} {:>12} {:>14} {:>10} {:>8.1}",
                sig.to_string(),
                report.positions,
                report.states,
                report.disagreements,
                start.elapsed().as_secs_f64()
            )?;
            for e in &report.examples {
                outln!("    {e}")?;
            }
            positions += report.positions;
            states += report.states;
            differ += report.disagreements;
        }
        Ok((positions, states, differ))
    })?;
    let (positions, states, differ) = outcome;
    outln!("compared {positions} positions, {states} (position, counters) states: {differ} differ")?;
    Ok(if differ == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
