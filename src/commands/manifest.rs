//! `kabe manifest`: the reference checksums of a table set (SHA-256, size, positions and
//! win/draw/loss counts of every file), written, or a set checked against them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_generator::{check_manifest, manifest_of, Manifest};
use kabe_probe::table::Metric;
use kabe_probe::Signature;

use crate::args::{rules_arg, TableSet};
use crate::commands::stats::figures;

/// Arguments of `kabe manifest`.
#[derive(Args)]
pub struct ManifestArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Check the set against this manifest (`data/manifests/...`): every file it lists
    /// must be there with the same bytes; each one that differs is named (exit 1).
    #[arg(long, value_name = "FILE", conflicts_with = "output")]
    check: Option<PathBuf>,
    /// Write the manifest to this file (through a temporary file renamed over it; a
    /// device, FIFO or link such as /dev/stdout is written through, never replaced)
    /// instead of printing it.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// List the files of these signatures only (e.g. 0105,0501): a pair's lines, without
    /// counting the values of the others.
    #[arg(long, value_delimiter = ',', conflicts_with = "check")]
    signature: Vec<String>,
    /// The rule set whose rule tables get their counts (default: the variant's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// Peak memory while counts that `kabe verify`'s ledger does not record are counted
    /// by verifying their pairs, as `kabe verify --memory` (default: three quarters of
    /// this machine's).
    #[arg(long, value_parser = kabe_generator::MemoryBudget::parse, conflicts_with = "check")]
    memory: Option<kabe_generator::MemoryBudget>,
}

pub fn manifest(args: &ManifestArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    if let Some(path) = &args.check {
        let manifest = Manifest::read(path)?;
        anyhow::ensure!(
            manifest.variant == variant.name,
            "{}: a manifest of {} tables, not {} (give --variant {})",
            path.display(),
            manifest.variant,
            variant.name,
            manifest.variant
        );
        let differences =
            check_manifest(&dir, variant, &manifest).with_context(|| format!("reading {}", dir.display()))?;
        let wrong = differences.iter().filter(|d| !matches!(d, kabe_generator::Difference::NotListed { .. })).count();
        for d in &differences {
            outln!("{}/{d}", variant.name)?;
        }
        outln!(
            "{} files listed, {} as listed, {wrong} missing or different, {} not listed",
            manifest.entries.len(),
            manifest.entries.len() - wrong,
            differences.len() - wrong
        )?;
        return Ok(if wrong == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE });
    }
    let rules = rules_arg(args.rules, &variant)?;
    let only: Vec<Signature> =
        args.signature.iter().map(|s| crate::args::signature_arg(s)).collect::<anyhow::Result<_>>()?;
    let only = (!only.is_empty()).then_some(only.as_slice());
    let by_signature: std::collections::BTreeMap<_, _> =
        figures(&dir, variant, Some(&rules), only, args.memory.unwrap_or_else(crate::args::default_memory))?
            .into_iter()
            .map(|f| (f.signature, f))
            .collect();
    let counts = |sig, metric: Metric| {
        let f = by_signature.get(&sig)?;
        let t = f.theory;
        match metric {
            Metric::Wld | Metric::Dtw => Some([t.wins, t.draws, t.losses]),
            Metric::Rules(set) if set == rules.set => f.ruled.map(|r| {
                let losses = t.losses - r.losses_saved_by_count;
                [r.wins_kept, t.positions - r.wins_kept - losses, losses]
            }),
            Metric::Rules(_) => None,
        }
    };
    let manifest = manifest_of(&dir, variant, only, &counts).with_context(|| format!("reading {}", dir.display()))?;
    let text = manifest.to_text();
    match &args.output {
        Some(path) => kabe_generator::files::write_output(path, text.as_bytes())?,
        None => outln!("{}", text.trim_end())?,
    }
    Ok(ExitCode::SUCCESS)
}
