//! `kabe stats`: wins, draws, losses and the longest win of every table, and with
//! `--rules` how many wins the draw rules keep.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_generator::{table_path, tables_in};
use kabe_probe::rules::exact::verdict;
use kabe_probe::table::{Metric, TableDir, TableFile};
use kabe_probe::{Counters, DrawRules, MaterialIndex, Variant, Wld};
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
