//! `kabe moves`.

use std::io::BufRead;
use std::process::ExitCode;

use clap::Args;
use kabe_probe::{notation, PieceKind, Position, Variant};
use serde_json::{json, Value};

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
            outln!("{}", moves_json(&position))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let fen = args.fen.as_deref().ok_or_else(|| anyhow::anyhow!("give a FEN (or --stdin)"))?;
    let position = Position::from_fen(variant, fen)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&moves_json(&position))?)?;
    } else {
        let mut texts: Vec<String> = position.legal_moves().iter().map(|m| position.move_text(m)).collect();
        texts.sort_by_key(|t| sort_key(&variant, t));
        if texts.is_empty() {
            let result = if position.is_lost() { "lost" } else { "won (giveaway)" };
            outln!("no legal moves: {} to move has {result}", position.turn())?;
        }
        for t in texts {
            outln!("{t}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn sort_key(variant: &Variant, text: &str) -> Vec<u32> {
    text.split(['-', 'x', ':']).map(|s| notation::parse_square(variant, s).unwrap_or(0)).collect()
}

fn moves_json(position: &Position) -> Value {
    let variant = position.variant();
    let moves: Vec<Value> = position
        .legal_moves()
        .iter()
        .map(|m| {
            json!({
                "move": position.move_text(m),
                "full": notation::movetext::format(variant, m, true),
                // Numbers as the game writes them (Italian numbers the mirrored board).
                "from": variant.square_number(m.from()),
                "to": variant.square_number(m.to()),
                "piece": if m.piece() == PieceKind::King { "king" } else { "man" },
                "captured": m.captured_squares(variant).map(|s| variant.square_number(s)).collect::<Vec<_>>(),
                "promotes": m.promotes(),
                "fen_after": position.play(m).fen(),
            })
        })
        .collect();
    json!({ "variant": variant.name, "fen": position.fen(), "moves": moves })
}
