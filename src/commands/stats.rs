//! `kabe stats`: wins, draws, losses and the longest win of every table, and with
//! `--rules` how many wins the draw rules keep.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_generator::tables_in;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Counters, DrawRules, MaterialIndex, Position, Score, Variant, Wld};
use rayon::prelude::*;
use serde_json::json;

use crate::args::{rules_arg, TableSet};

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
    #[arg(long, value_parser = crate::args::rule_set_names())]
    rules: Option<String>,
}

pub fn stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let found = tables_in(&dir, &variant).with_context(|| format!("reading {}", dir.display()))?;
    anyhow::ensure!(!found.is_empty(), "no {} tables in {}", variant.name, dir.display());
    let rules = args.rules.as_deref().map(|r| rules_arg(Some(r), &variant)).transpose()?;
    let mut tables = Tablebase::builder(&dir).variants(&[variant]).cache_bytes(STATS_CACHE_BYTES);
    if let Some(r) = rules {
        tables = tables.rules(r.set);
    }
    let tables = tables.open()?;
    let mut rows = Vec::new();
    for sig in found.keys() {
        let index = MaterialIndex::new(variant, *sig).expect("opened, so table-sized");
        let counts = count_values(&index, |p| Ok(tables.probe_dtw(p)?))?;
        let longest_fen = counts.longest_win.map(|(_, i)| index.position(i).fen());
        let mut row = json!({
            "signature": sig.to_string(),
            "positions": index.len(),
            "wins": counts.wins, "draws": counts.draws, "losses": counts.losses,
            "longest_win_plies": counts.longest_win.map(|(p, _)| p),
            "longest_win_fen": longest_fen,
        });
        if let Some(rules) = &rules {
            row["rules"] = rule_stats(&tables, rules, &index)?;
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

/// Block cache of `kabe stats`: the positions are read in index order, so a block is
/// decoded once, but positions found by search read other tables' blocks.
const STATS_CACHE_BYTES: usize = 256 << 20;

/// Wins, draws and losses of one table, and its longest win (plies, index).
#[derive(Default)]
struct Counts {
    wins: u64,
    draws: u64,
    losses: u64,
    longest_win: Option<(u16, u64)>,
}

impl Counts {
    fn merge(mut self, other: Counts) -> Counts {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        // The longest, the first in index order among equals.
        self.longest_win = match (self.longest_win, other.longest_win) {
            (Some(a), Some(b)) => Some(if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }),
            (a, b) => a.or(b),
        };
        self
    }
}

/// Counts the values `score` gives every position of `index`, in parallel chunks of
/// index order (each chunk reads its blocks once). A win's length is what `score`
/// gives (plies).
fn count_values(
    index: &MaterialIndex,
    score: impl Fn(&Position) -> anyhow::Result<Score> + Sync,
) -> anyhow::Result<Counts> {
    const CHUNK: u64 = 1 << 14;
    (0..index.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.len());
            let mut counts = Counts::default();
            for (i, position) in range.clone().zip(index.positions(range)) {
                let s = score(&position)?;
                match s.wld() {
                    Wld::Win => {
                        counts.wins += 1;
                        let plies = s.plies().unwrap_or(0);
                        if counts.longest_win.is_none_or(|(best, _)| plies > best) {
                            counts.longest_win = Some((plies, i));
                        }
                    }
                    Wld::Draw => counts.draws += 1,
                    Wld::Loss => counts.losses += 1,
                }
            }
            Ok(counts)
        })
        .try_reduce(Counts::default, |a, b| Ok(a.merge(b)))
}

/// Under the rules, with a fresh count: wins kept, wins lost to a count, losses saved,
/// and the longest win within the count (plies to the move that decides it).
fn rule_stats(tables: &Tablebase, rules: &DrawRules, index: &MaterialIndex) -> anyhow::Result<serde_json::Value> {
    const CHUNK: u64 = 1 << 14;
    type Tally = (u64, u64, u64, Option<(u16, u64)>);
    let (kept, cursed, blessed, longest) = (0..index.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| -> anyhow::Result<Tally> {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.len());
            let (mut kept, mut cursed, mut blessed) = (0u64, 0u64, 0u64);
            let mut longest: Option<(u16, u64)> = None;
            for (i, position) in range.clone().zip(index.positions(range)) {
                let v = tables.probe(&position, &Counters::fresh(rules, &position))?;
                match (v.theoretical.wld(), v.exact) {
                    (Wld::Win, Wld::Win) => {
                        kept += 1;
                        let plies = v.within.decided().map_or(0, |(_, p)| p);
                        if longest.is_none_or(|(best, _)| plies > best) {
                            longest = Some((plies, i));
                        }
                    }
                    (Wld::Win, _) => cursed += 1,
                    (Wld::Loss, Wld::Draw) => blessed += 1,
                    _ => {}
                }
            }
            Ok((kept, cursed, blessed, longest))
        })
        .try_reduce(
            || (0, 0, 0, None),
            |a, b| {
                let longest = match (a.3, b.3) {
                    (Some(x), Some(y)) => Some(if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) { y } else { x }),
                    (x, y) => x.or(y),
                };
                Ok((a.0 + b.0, a.1 + b.1, a.2 + b.2, longest))
            },
        )?;
    // The count a fresh start runs in this material (the same for every position of it).
    let article = index
        .positions(0..index.len().min(1))
        .next()
        .and_then(|p| Counters::fresh(rules, &p).governing(&p).map(|(article, _)| article));
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
