//! `kabe generate`, `kabe verify`, `kabe stats`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use kabe_generator::{build_rules_scope, build_scope, table_path, tables_in, BuildEvent, MemoryBudget, Scope};
use kabe_probe::rules::exact::verdict;
use kabe_probe::table::TableDir;
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::{Counters, DrawRuleSet, DrawRules, MaterialIndex, Signature, Variant, Wld};
use serde_json::json;

/// Where tables live unless `--tables` says otherwise: `$KABE_TABLES`, else
/// `$XDG_DATA_HOME/kabe/tables`, else `~/.local/share/kabe/tables`.
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("KABE_TABLES") {
        return PathBuf::from(dir);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    data.join("kabe/tables")
}

/// The variant and directory every table command works on.
#[derive(Args)]
pub struct TableSet {
    /// Variant: international, russian, kabe, ...
    #[arg(long, short, default_value = "international")]
    variant: String,
    /// Table directory (default: $KABE_TABLES, else the per-user data directory);
    /// `--dir` is the older name.
    #[arg(long = "tables", alias = "dir", value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl TableSet {
    pub fn resolve(&self) -> anyhow::Result<(Variant, PathBuf)> {
        Ok((crate::variant_arg(&self.variant)?, self.dir.clone().unwrap_or_else(default_dir)))
    }
}

/// The draw rules named by `--rules`, or the variant's usual set.
pub fn rules_arg(name: Option<&str>, variant: &Variant) -> anyhow::Result<DrawRules> {
    let set = DrawRuleSet::for_game(name, variant)?;
    let rules = DrawRules::new(set, variant);
    rules.check().map_err(anyhow::Error::msg)?;
    Ok(rules)
}

/// Arguments of `kabe generate`.
#[derive(Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Largest number of pieces.
    #[arg(long, short, default_value_t = 3)]
    pieces: u32,
    /// Build one signature (`wm wk bm bk`, e.g. 0303 or 2211) with everything it
    /// reaches instead: every material of fewer pieces and those its promotions lead to.
    #[arg(long, conflicts_with = "pieces")]
    closure: Option<String>,
    /// Build one pair only: SIG and its colour flip, WLD, DTW and rule tables, reading
    /// the tables it needs from --tables (one job of `kabe plan`). Missing inputs are an
    /// error naming them; a pair already complete exits at once.
    #[arg(long, value_name = "SIG", conflicts_with_all = ["pieces", "closure"])]
    pair: Option<String>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Draw rules whose rule tables to build too (default: the variant's usual set).
    #[arg(long, value_parser = crate::rule_set_names())]
    rules: Option<String>,
    /// Peak memory the build may use, e.g. 4G or 512M (default: three quarters of this
    /// machine's memory). A pair that needs more is an error naming it.
    #[arg(long, value_parser = MemoryBudget::parse)]
    memory: Option<MemoryBudget>,
}

/// The memory budget when `--memory` is not given: three quarters of the machine's
/// memory (from /proc/meminfo), or the library's 4 GiB where that cannot be read.
pub fn default_memory() -> MemoryBudget {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines().find_map(|l| l.strip_prefix("MemTotal:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
    });
    total_kib.map_or_else(MemoryBudget::default, |kib| MemoryBudget::new(kib * 1024 / 4 * 3))
}

/// The scope of `--pieces N` or `--closure SIG`.
pub fn scope_arg(variant: &Variant, pieces: u32, closure: Option<&str>) -> anyhow::Result<Scope> {
    anyhow::ensure!((2..=8).contains(&pieces), "--pieces must be 2 to 8");
    Ok(match closure {
        Some(sig) => {
            let sig = crate::cli_rules::signature_arg(sig)?;
            check_signature(variant, sig)?;
            Scope::Closure(sig)
        }
        None => Scope::Pieces(pieces),
    })
}

/// A signature with positions on the board, of at most 8 pieces.
pub fn check_signature(variant: &Variant, sig: Signature) -> anyhow::Result<()> {
    anyhow::ensure!(
        MaterialIndex::new(*variant, sig).is_some_and(|i| !i.is_empty())
            && sig.pieces() <= 8
            && sig.white_men + sig.white_kings > 0
            && sig.black_men + sig.black_kings > 0,
        "signature {sig} has no table in {} (no positions, a side without pieces, or more than 8 pieces)",
        variant.name
    );
    Ok(())
}

fn bar_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> ")
}

fn pair_name(sigs: &[Signature]) -> String {
    sigs.iter().map(Signature::to_string).collect::<Vec<_>>().join("+")
}

pub fn generate(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().context("setting --threads")?;
    }
    let rules = rules_arg(args.rules.as_deref(), &variant)?;
    if let Some(pair) = &args.pair {
        return crate::cli_plan::generate_pair(variant, &dir, rules, args.memory, pair);
    }
    let memory = args.memory.unwrap_or_else(default_memory);
    let scope = scope_arg(&variant, args.pieces, args.closure.as_deref())?;
    let built = build_with_progress(variant, scope, &dir, rules, memory)?;
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
    let bars: Mutex<HashMap<String, ProgressBar>> = Mutex::new(HashMap::new());
    let counts = Mutex::new((0usize, 0usize, 0u64));
    let start = Instant::now();
    let on_event = |event: BuildEvent<'_>| match event {
        // The solver reports two units of work per position (initialise, resolve); the
        // bars count positions.
        BuildEvent::Planned { positions } => overall.set_length(positions),
        BuildEvent::Started { signatures, positions } => {
            let bar = multi.insert_before(&overall, ProgressBar::new(positions));
            bar.set_style(bar_style("{prefix:>10} [{bar:40}] {percent:>3}% {per_sec} ETA {eta}"));
            bar.set_prefix(pair_name(signatures));
            bars.lock().expect("bars").insert(pair_name(signatures), bar);
        }
        BuildEvent::Progress { signatures, units } => {
            if let Some(bar) = bars.lock().expect("bars").get(&pair_name(signatures)) {
                let before = bar.position();
                bar.inc(units / 2);
                overall.inc(bar.position() - before);
            }
        }
        BuildEvent::Loaded { positions, .. } => {
            overall.inc(positions);
            counts.lock().expect("counts").1 += 1;
        }
        BuildEvent::Finished { signatures, positions } => {
            let sigs = signatures;
            if let Some(bar) = bars.lock().expect("bars").remove(&pair_name(sigs)) {
                overall.inc(positions.saturating_sub(bar.position()));
                bar.finish_and_clear();
            }
            let mut c = counts.lock().expect("counts");
            c.0 += 1;
            c.2 += positions;
            overall.set_message(format!("last: {}", pair_name(sigs)));
        }
    };
    let summary = build_scope(variant, scope, dir, memory, &on_event)?;
    overall.set_position(0);
    overall.set_prefix(rules.set.name());
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

/// Arguments of `kabe verify`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Disagreements to print in full.
    #[arg(long, default_value_t = 10)]
    show: usize,
    /// Derive the values of these signatures only (e.g. 0501,0105); every file's
    /// checksum is checked all the same.
    #[arg(long, value_delimiter = ',')]
    signature: Vec<String>,
    /// Peak memory, e.g. 4G (default: three quarters of this machine's memory); three
    /// quarters of it cache decoded blocks, which the lookups of large tables need.
    #[arg(long, value_parser = MemoryBudget::parse)]
    memory: Option<MemoryBudget>,
}

pub fn verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let found = tables_in(&dir, &variant).with_context(|| format!("reading {}", dir.display()))?;
    anyhow::ensure!(!found.is_empty(), "no {} tables in {}", variant.name, dir.display());
    let only: Vec<Signature> =
        args.signature.iter().map(|s| crate::cli_rules::signature_arg(s)).collect::<anyhow::Result<_>>()?;
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
    let cache = args.memory.unwrap_or_else(default_memory).bytes / 4 * 3;
    let report = kabe_generator::verify_only(&dir, variant, only, cache as usize, args.show, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    for bad in &report.bad_files {
        outln!("bad file: {bad}")?;
    }
    for sig in &report.incomplete {
        outln!("incomplete: {} has only one of its WLD and DTW tables", sig)?;
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
    outln!(
        "{} files ({}), {} positions re-derived, {} rule-table values re-derived: {} disagreements, {} bad files",
        report.files,
        kinds.join(", "),
        report.positions,
        report.rule_positions,
        report.disagreement_count + report.rule_disagreement_count,
        report.bad_files.len()
    )?;
    Ok(if report.ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

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
    #[arg(long, value_parser = crate::rule_set_names())]
    rules: Option<String>,
}

pub fn stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let found = tables_in(&dir, &variant).with_context(|| format!("reading {}", dir.display()))?;
    anyhow::ensure!(!found.is_empty(), "no {} tables in {}", variant.name, dir.display());
    let rules = args.rules.as_deref().map(|r| rules_arg(Some(r), &variant)).transpose()?;
    let rule_tables = rules.map(|r| TableDir::new(&dir, variant, r));
    let mut rows = Vec::new();
    for sig in found.keys() {
        let table = TableFile::open(&table_path(&dir, &variant, *sig, Metric::Dtw), &variant, *sig, Metric::Dtw)?;
        let scores = table.all_scores()?;
        let index = MaterialIndex::new(variant, *sig).expect("opened, so table-sized");
        let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
        let mut longest: Option<(u16, u64)> = None;
        for (i, s) in scores.iter().enumerate() {
            match s.wld() {
                Wld::Win => {
                    wins += 1;
                    let p = s.raw();
                    if longest.is_none_or(|(best, _)| p > best) {
                        longest = Some((p, i as u64));
                    }
                }
                Wld::Draw => draws += 1,
                Wld::Loss => losses += 1,
            }
        }
        let longest_fen = longest.map(|(_, i)| index.position(i).fen());
        let mut row = json!({
            "signature": sig.to_string(),
            "positions": scores.len(),
            "wins": wins, "draws": draws, "losses": losses,
            "longest_win_plies": longest.map(|(p, _)| p),
            "longest_win_fen": longest_fen,
        });
        if let Some(tables) = &rule_tables {
            row["rules"] = rule_stats(tables, &index)?;
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

/// Under the rules, with a fresh count: wins kept, wins lost to a count, and the longest
/// win within the count (plies to the move that decides it).
fn rule_stats(tables: &TableDir, index: &MaterialIndex) -> anyhow::Result<serde_json::Value> {
    let (mut kept, mut cursed, mut blessed) = (0u64, 0u64, 0u64);
    let mut longest: Option<(u16, u64)> = None;
    for (i, position) in index.positions(0..index.len()).enumerate() {
        let counters = Counters::fresh(tables.rules(), &position);
        let v = verdict(tables, &position, &counters)?;
        match (v.theoretical.wld(), v.exact) {
            (Wld::Win, Wld::Win) => {
                kept += 1;
                let plies = v.within.decided().map_or(0, |(_, p)| p);
                if longest.is_none_or(|(best, _)| plies > best) {
                    longest = Some((plies, i as u64));
                }
            }
            (Wld::Win, _) => cursed += 1,
            (Wld::Loss, Wld::Draw) => blessed += 1,
            _ => {}
        }
    }
    // The count a fresh start runs in this material (the same for every position of it).
    let article = index
        .positions(0..index.len().min(1))
        .next()
        .and_then(|p| Counters::fresh(tables.rules(), &p).governing(&p).map(|(article, _)| article));
    Ok(json!({
        "count": article,
        "wins_kept": kept,
        "wins_drawn_by_count": cursed,
        "losses_saved_by_count": blessed,
        "longest_win_within_count_plies": longest.map(|(p, _)| p),
        "longest_win_within_count_fen": longest.map(|(_, i)| index.position(i).fen()),
    }))
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
