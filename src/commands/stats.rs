//! `kabe stats`: wins, draws, losses and the longest win of every table, and with
//! `--rules` how many wins the draw rules keep.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use indicatif::ProgressBar;
use kabe_generator::{count_figures, tables_in, Figures, FiguresEvent, FiguresOptions, MemoryBudget, StatsReport};
use kabe_probe::{DrawRules, Signature, Variant};

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

/// The figures of every material with tables under `dir` (`kabe_generator::count_figures`),
/// its stages shown as progress bars and its warnings on standard error.
pub fn figures(
    dir: &Path,
    variant: Variant,
    rules: Option<&DrawRules>,
    only: Option<&[Signature]>,
    memory: MemoryBudget,
) -> anyhow::Result<Vec<Figures>> {
    let cache_bytes = memory.cache_bytes();
    let resident_bytes = (memory.bytes as usize).saturating_sub(cache_bytes);
    let options = FiguresOptions { rules, only, cache_bytes, resident_bytes };
    let bar = Mutex::new(ProgressBar::hidden());
    let events = |event: FiguresEvent| {
        let Ok(mut bar) = bar.lock() else { return };
        match event {
            FiguresEvent::Warning(text) => bar.suspend(|| eprintln!("kabe: warning: {text}")),
            FiguresEvent::Start { stage, total } => {
                *bar = ProgressBar::new(total);
                bar.set_style(bar_style(
                    "{prefix:>10} [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions not in the ledger  {per_sec}  ETA {eta}",
                ));
                bar.set_prefix(stage);
                bar.enable_steady_tick(Duration::from_millis(250));
            }
            FiguresEvent::Advance(n) => bar.inc(n),
            FiguresEvent::Finish => bar.finish_and_clear(),
        }
    };
    Ok(count_figures(dir, variant, &options, &events)?)
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
    let memory = args.memory.unwrap_or_else(crate::args::default_memory);
    let figures = figures(&dir, variant, rules.as_ref(), only, memory)?;
    let report = StatsReport { variant, dir: &dir, rules: rules.as_ref(), figures: &figures };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report.to_json())?)?;
    } else {
        outln!("{report}")?;
    }
    Ok(ExitCode::SUCCESS)
}
