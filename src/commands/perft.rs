//! `kabe perft`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use kabe_probe::internal::{parse_perft_vectors, perft, perft_divide, perft_routes};
use kabe_probe::Position;

/// Arguments of `kabe perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// Variant: international, russian, russian-free-landing, kabe, kabe-short-king-capture, english, italian, pool, brazilian, czech, giveaway, antidraughts, poddavki, turkish (and its readings).
    #[arg(long, short, default_value = "international", value_parser = crate::args::variant_value)]
    variant: kabe_probe::Variant,
    /// Start from this FEN instead of the variant's start position.
    #[arg(long)]
    fen: Option<String>,
    /// Plies to search (at most 64: the counts overflow long before).
    #[arg(long, short, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=MAX_DEPTH as i64))]
    depth: u32,
    /// Print the count below each legal move.
    #[arg(long)]
    divide: bool,
    /// Count captures that take the same pieces by different routes apart (kish's
    /// convention for its Turkish counts); by default they are one move.
    #[arg(long, conflicts_with = "divide")]
    routes: bool,
    /// Check every vector of these perft data files (e.g. data/perft/*.perft) up to
    /// --max-nodes instead.
    #[arg(long, num_args = 1.., conflicts_with_all = ["fen", "divide"])]
    vectors: Vec<PathBuf>,
    /// With --vectors: skip counts above this many nodes.
    #[arg(long, default_value_t = u64::MAX, value_parser = clap::value_parser!(u64).range(1..))]
    max_nodes: u64,
}

/// The deepest perft asked for: a search stack per ply, and counts beyond any u64 long
/// before (the international start passes 10^17 at about depth 25).
const MAX_DEPTH: u32 = 64;

pub fn run(args: &PerftArgs) -> anyhow::Result<ExitCode> {
    if !args.vectors.is_empty() {
        return run_vectors(&args.vectors, args.max_nodes);
    }
    let variant = args.variant;
    let position = match &args.fen {
        Some(fen) => Position::from_fen(variant, fen)?,
        None => Position::start(variant),
    };
    let start = Instant::now();
    if args.divide {
        let mut total = 0;
        for (mv, nodes) in perft_divide(&position, args.depth) {
            outln!("{:<24} {nodes}", position.move_text(&mv))?;
            total += nodes;
        }
        outln!("total {total}")?;
        return Ok(ExitCode::SUCCESS);
    }
    let nodes = if args.routes { perft_routes(&position, args.depth) } else { perft(&position, args.depth) };
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "perft {}{} {}: {nodes} nodes in {secs:.3} s ({:.1} M/s)",
        variant.name,
        if args.routes { " (routes apart)" } else { "" },
        args.depth,
        nodes as f64 / secs.max(1e-9) / 1e6
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The largest perft vector file read (`data/perft` holds files of 0.5-2 KiB).
const MAX_VECTOR_FILE: u64 = 16 << 20;

fn run_vectors(paths: &[PathBuf], max_nodes: u64) -> anyhow::Result<ExitCode> {
    let mut vectors = Vec::new();
    for path in paths {
        // A vector file is a few KiB; a file a thousand times that is not one (or is endless).
        let bytes = kabe_generator::files::read_capped(path, MAX_VECTOR_FILE)?;
        let text = String::from_utf8(bytes).with_context(|| format!("{}: not text (UTF-8)", path.display()))?;
        vectors.extend(parse_perft_vectors(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?);
    }
    let (mut passed, mut failed) = (0, 0);
    for v in &vectors {
        for &(depth, expected) in v.counts.iter().filter(|(_, n)| *n <= max_nodes) {
            let start = Instant::now();
            let got = perft(&v.position, depth);
            let ok = got == expected;
            outln!(
                "{} {} {} depth {depth}: {got} {} ({:.2} s)",
                if ok { "ok  " } else { "FAIL" },
                v.position.variant().name,
                v.id,
                if ok { String::new() } else { format!("expected {expected}") },
                start.elapsed().as_secs_f64()
            )?;
            if ok {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    outln!("{passed} passed, {failed} failed")?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
