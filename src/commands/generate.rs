//! `kabe generate`: the tables of a variant up to N pieces, a closure, or one pair (a job
//! of `kabe plan`).

use std::collections::{HashMap, HashSet};
use std::io::IsTerminal as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use indicatif::{MultiProgress, ProgressBar};
use kabe_generator::{
    build_pair_job, build_rules_scope, build_scope, keep_one_side, table_path, BuildEvent, CheckpointEvent,
    DroppedFiles, MemoryBudget, PairJob, Scope, TablePair,
};
use kabe_probe::internal::table::TableDir;
use kabe_probe::table::Metric;
use kabe_probe::{DrawRules, Signature, Variant};

use crate::args::{default_memory, rules_arg, scope_arg, TableSet};
use crate::output::{bar_style, mebibytes};

/// Arguments of `kabe generate`.
#[derive(Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Largest number of pieces.
    #[arg(long, short, default_value_t = 3)]
    pieces: u32,
    /// Build one signature (`wm wk bm bk`, e.g. 0303 or 2211) with everything it
    /// reaches instead: the materials its captures and promotions lead to, either side
    /// to move (no side gains men or pieces).
    #[arg(long, conflicts_with = "pieces")]
    closure: Option<String>,
    /// Build one pair only: SIG and its colour flip, WLD, DTW and rule tables, reading
    /// the tables it needs from --tables (one job of `kabe plan`). Missing inputs are an
    /// error naming them; a pair already complete exits at once.
    #[arg(long, value_name = "SIG", conflicts_with_all = ["pieces", "closure", "both_sides", "keep_dropped"])]
    pair: Option<String>,
    #[command(flatten)]
    threads: crate::args::Threads,
    /// Draw rules whose rule tables to build too (default: the variant's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// Peak memory the build may use, e.g. 4G or 512M (default: three quarters of this
    /// machine's memory). A pair whose whole state needs more is solved one men placement at a
    /// time, with scratch files beside the tables; one that needs more even so (a pair of
    /// kings only is one placement) is an error naming it.
    #[arg(long, value_parser = MemoryBudget::parse)]
    memory: Option<MemoryBudget>,
    #[command(flatten)]
    sides: crate::args::Sides,
}

pub fn generate(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    args.threads.apply()?;
    let rules = rules_arg(args.rules, &variant)?;
    if let Some(pair) = &args.pair {
        return generate_pair(variant, &dir, rules, args.memory, pair);
    }
    let memory = args.memory.unwrap_or_else(default_memory);
    let scope = scope_arg(&variant, args.pieces, args.closure.as_deref())?;
    let built = build_with_progress(variant, scope, &dir, rules, memory)?;
    if let Some(dropped) = args.sides.kept().dropped() {
        let kept = keep_one_side(&dir, variant, scope.max_pieces(), dropped)?;
        if kept.files > 0 && dropped == DroppedFiles::KeptAside {
            let aside = TableDir::new(&dir).dropped_folder(&variant);
            outln!(
                "kept one table of each pair: {} files now found by search, {:.1} MB less in the set, kept aside in {}",
                kept.files,
                kept.bytes_saved as f64 / 1e6,
                aside.display()
            )?;
        } else if kept.files > 0 {
            outln!(
                "kept one table of each pair: {} files now found by search, {:.1} MB saved",
                kept.files,
                kept.bytes_saved as f64 / 1e6
            )?;
        }
    }
    let bytes = disk_bytes(&dir, &variant, &built.signatures);
    outln!(
        "{} tables {} in {}: {} signatures, {} positions, {:.1} MB on disk ({:.2} bits/position)",
        variant.name,
        match scope {
            Scope::Closure(sig) => format!("of the closure of {sig}"),
            Scope::Pieces(n) => format!("up to {n} pieces"),
        },
        dir.display(),
        built.signatures.len(),
        built.positions,
        bytes as f64 / 1e6,
        bytes as f64 * 8.0 / built.positions.max(1) as f64
    )?;
    outln!(
        "built {} pairs ({} positions) and loaded {} in {:.1} s ({:.2} M positions/s)",
        built.pairs_built,
        built.positions_solved,
        built.pairs_loaded,
        built.seconds,
        built.positions_solved as f64 / built.seconds.max(1e-9) / 1e6
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What [`build_with_progress`] did.
pub struct Built {
    /// Every signature of the set.
    pub signatures: Vec<Signature>,
    /// Their positions.
    pub positions: u64,
    /// Pairs solved now, and their positions.
    pub pairs_built: usize,
    pub positions_solved: u64,
    /// Pairs found complete on disk.
    pub pairs_loaded: usize,
    pub seconds: f64,
}

/// Builds (or completes) the theoretical and rule tables of `variant` in `scope` under
/// `dir`, with progress bars on the terminal.
pub fn build_with_progress(
    variant: Variant,
    scope: Scope,
    dir: &Path,
    rules: DrawRules,
    memory: MemoryBudget,
) -> anyhow::Result<Built> {
    let multi = MultiProgress::new();
    let overall = multi.add(ProgressBar::new(0));
    overall.set_style(bar_style(
        "{prefix:>10} [{bar:40}] {percent:>3}% {human_pos}/{human_len} positions  {per_sec}  ETA {eta}  {msg}",
    ));
    overall.set_prefix(variant.name);
    let bars: Mutex<HashMap<TablePair, (ProgressBar, Instant)>> = Mutex::new(HashMap::new());
    // Bars are hidden where stderr is not a terminal (a build under nohup or a batch
    // system); there each finished pair gets one line, which also records its rate.
    let log_pairs = !std::io::stderr().is_terminal();
    let phase = Mutex::new(String::from("theory"));
    let counts = Mutex::new((0usize, 0usize, 0u64));
    let resumed: Mutex<HashSet<TablePair>> = Mutex::new(HashSet::new());
    let start = Instant::now();
    let on_event = |event: BuildEvent<'_>| match event {
        // The solver reports two units of work per position (initialise, resolve); the
        // bars count positions.
        BuildEvent::Planned { positions } => overall.set_length(positions),
        BuildEvent::Started { pair, positions } => {
            let bar = multi.insert_before(&overall, ProgressBar::new(positions));
            bar.set_style(bar_style("{prefix:>10} [{bar:40}] {percent:>3}% {per_sec} ETA {eta}"));
            bar.set_prefix(pair.to_string());
            bars.lock().expect("bars").insert(pair, (bar, Instant::now()));
        }
        BuildEvent::Progress { pair, units } => {
            if let Some((bar, _)) = bars.lock().expect("bars").get(&pair) {
                let before = bar.position();
                bar.inc(units / 2);
                overall.inc(bar.position() - before);
            }
        }
        BuildEvent::Repairing { pair, problem } => {
            multi.suspend(|| eprintln!("rebuilding {pair}: {problem}"));
        }
        BuildEvent::Checkpoint { pair, event } => {
            if let CheckpointEvent::Resumed { .. } = event {
                resumed.lock().expect("resumed").insert(pair);
            }
            multi.suspend(|| report_checkpoint(pair, event, log_pairs));
        }
        BuildEvent::Loaded { positions, .. } => {
            overall.inc(positions);
            counts.lock().expect("counts").1 += 1;
        }
        BuildEvent::Finished { pair, positions } => {
            if let Some((bar, started)) = bars.lock().expect("bars").remove(&pair) {
                overall.inc(positions.saturating_sub(bar.position()));
                bar.finish_and_clear();
                if log_pairs {
                    let seconds = started.elapsed().as_secs_f64();
                    // A resumed pass's time is that of its last part only: no rate.
                    let rate = if resumed.lock().expect("resumed").remove(&pair) {
                        String::from("resumed from a checkpoint")
                    } else {
                        format!("{:.2} M/s", positions as f64 / seconds.max(1e-9) / 1e6)
                    };
                    eprintln!(
                        "{} {} {pair}: {positions} positions in {seconds:.1} s ({rate})",
                        variant.name,
                        phase.lock().expect("phase"),
                    );
                }
            }
            let mut c = counts.lock().expect("counts");
            c.0 += 1;
            c.2 += positions;
            overall.set_message(format!("last: {pair}"));
        }
    };
    let summary = build_scope(variant, scope, dir, memory, rules, &on_event)?;
    overall.set_position(0);
    overall.set_prefix(rules.set.name());
    *phase.lock().expect("phase") = rules.set.name().to_string();
    build_rules_scope(variant, rules, scope, dir, memory, &on_event)?;
    overall.finish_and_clear();
    let (pairs_built, pairs_loaded, positions_solved) = *counts.lock().expect("counts");
    Ok(Built {
        signatures: summary.signatures,
        positions: summary.positions,
        pairs_built,
        positions_solved,
        pairs_loaded,
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn disk_bytes(dir: &Path, variant: &Variant, sigs: &[Signature]) -> u64 {
    sigs.iter()
        .flat_map(|s| [Metric::Wld, Metric::Dtw].map(|m| table_path(dir, variant, *s, m)))
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// `kabe generate --pair SIG`: one job of the plan.
pub fn generate_pair(
    variant: Variant,
    dir: &Path,
    rules: DrawRules,
    memory: Option<MemoryBudget>,
    pair: &str,
) -> anyhow::Result<ExitCode> {
    let sig = crate::args::signature_arg(pair)?;
    crate::args::check_signature(&variant, sig)?;
    let memory = memory.unwrap_or_else(default_memory);
    let start = Instant::now();
    let name = kabe_generator::TablePair::of(sig);
    outln!("{} {name}: building in {} (memory budget {})", variant.name, dir.display(), mebibytes(memory.bytes))?;
    let on_event = |event: BuildEvent<'_>| match event {
        BuildEvent::Checkpoint { pair, event } => report_checkpoint(pair, event, true),
        BuildEvent::Repairing { pair, problem } => eprintln!("rebuilding {pair}: {problem}"),
        _ => {}
    };
    match build_pair_job(variant, sig, rules, dir, memory, &on_event)? {
        PairJob::AlreadyComplete => outln!("{} {name}: already complete", variant.name)?,
        PairJob::Built => outln!("{} {name}: built in {:.1} s", variant.name, start.elapsed().as_secs_f64())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Tells of a pass resumed from its checkpoint, of one that cannot write its checkpoint
/// and, with `written`, of each checkpoint written (a log, not a terminal).
fn report_checkpoint(pair: TablePair, event: CheckpointEvent<'_>, written: bool) {
    match event {
        CheckpointEvent::Resumed { path, stage } => {
            eprintln!("{pair}: resuming from {} ({stage})", path.display());
        }
        CheckpointEvent::Written { stage, .. } if written => {
            eprintln!("{pair}: checkpoint written ({stage})");
        }
        CheckpointEvent::Written { .. } => {}
        CheckpointEvent::NotWritten { path, error } => eprintln!(
            "warning: {pair}: cannot write the checkpoint {}: {error}; the pass goes on without checkpoints (stopped, \
             it would start again)",
            path.display()
        ),
    }
}
