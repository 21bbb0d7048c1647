//! `kabe moves`.

use std::io::BufRead;
use std::process::ExitCode;

use clap::Args;
use kabe_analyze::present::MoveList;
use kabe_probe::Position;

/// Arguments of `kabe moves`.
#[derive(Args)]
pub struct MovesArgs {
    /// The position (PDN FEN, e.g. "W:W31-50:B1-20"); omit with --stdin.
    fen: Option<String>,
    /// Variant: international, russian, russian-free-landing, kabe, kabe-short-king-capture, english, italian, pool, brazilian, czech, giveaway, antidraughts, poddavki.
    #[arg(long, short, default_value = "international", value_parser = crate::args::variant_value)]
    variant: kabe_probe::Variant,
    /// Print JSON: the moves with their squares, captured pieces and the FEN after.
    #[arg(long)]
    json: bool,
    /// Read one FEN per line from standard input and print one JSON line each.
    #[arg(long, conflicts_with = "fen")]
    stdin: bool,
}

pub fn run(args: &MovesArgs) -> anyhow::Result<ExitCode> {
    let variant = args.variant;
    if args.stdin {
        let stdin = std::io::stdin();
        for (n, line) in stdin.lock().lines().enumerate() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let position =
                Position::from_fen(variant, &line).map_err(|e| anyhow::anyhow!("stdin line {}: {e}", n + 1))?;
            outln!("{}", MoveList { position }.to_json())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let fen = args.fen.as_deref().ok_or_else(|| anyhow::anyhow!("give a FEN (or --stdin)"))?;
    let list = MoveList { position: Position::from_fen(variant, fen)? };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&list.to_json())?)?;
    } else {
        outln!("{list}")?;
    }
    Ok(ExitCode::SUCCESS)
}
