//! `kabe plan`: the build as a job graph, its estimates and critical path, and a Slurm
//! submission of it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_generator::{write_slurm, MemoryBudget, Plan, PlanReport, Rates};

use crate::args::{rules_arg, scope_arg, TableSet};

/// Arguments of `kabe plan`.
#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Largest number of pieces.
    #[arg(long, short, default_value_t = 4)]
    pieces: u32,
    /// Plan one signature's closure instead (as `kabe generate --closure`).
    #[arg(long, conflicts_with = "pieces")]
    closure: Option<String>,
    /// Draw rules whose rule tables the jobs build (default: the variant's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// Threads (cores) per job: the estimates assume them, and the Slurm jobs ask for them.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1024))]
    cpus: u64,
    /// The most memory one job may ask for (a node's memory, e.g. 4G): a pair whose whole
    /// working state is larger is planned as a job that solves it one men placement at a
    /// time within this. Default: each job asks for what its whole pair needs.
    #[arg(long, value_name = "SIZE", value_parser = MemoryBudget::parse)]
    job_memory: Option<MemoryBudget>,
    /// Print the graph as JSON.
    #[arg(long)]
    json: bool,
    /// Write a Slurm submission into this directory: one batch script per job still to
    /// run, with its dependencies, and submit.sh.
    #[arg(long, value_name = "DIR")]
    slurm: Option<PathBuf>,
    /// The kabe binary the jobs run (default: this one).
    #[arg(long, value_name = "PATH")]
    kabe: Option<PathBuf>,
    #[command(flatten)]
    sides: crate::args::Sides,
}

pub fn plan(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let rules = rules_arg(args.rules, &variant)?;
    let scope = scope_arg(&variant, args.pieces, args.closure.as_deref())?;
    let plan = Plan::new(variant, scope, rules, args.cpus as usize, Rates::default(), args.job_memory);
    let done: Vec<bool> = (0..plan.jobs.len()).map(|i| plan.is_done(&dir, i)).collect();
    let report = PlanReport { plan: &plan, kept: args.sides.kept(), done: &done, dir: &dir };
    let Some(out) = &args.slurm else {
        if args.json {
            outln!("{}", report.to_json())?;
        } else {
            outln!("{report}")?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    let over = report.over_cap();
    anyhow::ensure!(
        over.is_empty(),
        "{} jobs need more than --job-memory even solved in slices: {}; raise it or give --cpus fewer \
         threads (each slice worker holds one men placement)",
        over.len(),
        over.join(", ")
    );
    let kabe = match &args.kabe {
        Some(path) => path.clone(),
        None => std::env::current_exe().context("finding this kabe binary")?,
    };
    let written = write_slurm(&plan, args.sides.kept(), &done, &dir, out, &kabe)?;
    outln!(
        "{}: {written} jobs to run ({} already done in {}); submit with: bash {}/submit.sh [sbatch options]",
        out.display(),
        plan.jobs.len() - written,
        dir.display(),
        out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
