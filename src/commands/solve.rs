//! `kabe solve`: games small enough to solve whole from their start (wolf and sheep).

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use kabe_generator::games::wolf_sheep::{self, Side, Solution, StartResult};
use serde_json::json;

/// Arguments of `kabe solve`.
#[derive(Args)]
pub struct SolveArgs {
    /// The game to solve.
    game: Game,
    /// Only the start with the wolf on this square (a dark square, e.g. d8).
    #[arg(long)]
    wolf: Option<String>,
    /// Only the starts where this side moves first.
    #[arg(long)]
    first: Option<FirstMover>,
    /// Print JSON: every start with its winner, plies and best line.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Game {
    /// Wolf and sheep (seeds/004, "Hunt ja lambad"): every start of the wolf, either side first.
    WolfAndSheep,
}

#[derive(Clone, Copy, ValueEnum)]
enum FirstMover {
    Sheep,
    Wolf,
}

pub fn solve(args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let Game::WolfAndSheep = args.game;
    let wolf = match &args.wolf {
        Some(name) => Some(
            wolf_sheep::parse_square(name)
                .filter(|s| *s >= 4)
                .ok_or_else(|| anyhow::anyhow!("--wolf {name}: not a dark square free at the start (b2 .. h8)"))?,
        ),
        None => None,
    };
    let first = args.first.map(|f| match f {
        FirstMover::Sheep => Side::Sheep,
        FirstMover::Wolf => Side::Wolf,
    });
    let mut solution = Solution::solve();
    let starts: Vec<StartResult> = wolf_sheep::solve_starts(&mut solution)
        .into_iter()
        .filter(|s| wolf.is_none_or(|w| s.wolf == w) && first.is_none_or(|f| s.first == f))
        .collect();
    if args.json {
        let rows: Vec<_> = starts
            .iter()
            .map(|s| {
                json!({
                    "wolf": wolf_sheep::square_name(s.wolf),
                    "first": s.first.to_string(),
                    "winner": s.outcome.winner.to_string(),
                    "plies": s.outcome.plies,
                    "line": s.line.iter().map(ToString::to_string).collect::<Vec<_>>(),
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&json!({ "positions_solved": solution.len(), "starts": rows }))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!("wolf and sheep: sheep on a1 c1 e1 g1; {} positions solved", solution.len())?;
    // A best line is 40-odd plies: printed when one or two starts are asked for.
    let with_lines = starts.len() <= 2;
    for s in &starts {
        let verdict = match s.outcome.winner {
            Side::Sheep => "the sheep win",
            Side::Wolf => "the wolf wins",
        };
        outln!(
            "wolf {:<2}  {:<5} first: {verdict} in {}",
            wolf_sheep::square_name(s.wolf),
            s.first,
            kabe_probe::notation::plies(s.outcome.plies)
        )?;
        if with_lines {
            let line: Vec<String> = s.line.iter().map(ToString::to_string).collect();
            outln!("  best line: {}", line.join(" "))?;
        }
    }
    for first in [Side::Sheep, Side::Wolf] {
        let of: Vec<&StartResult> = starts.iter().filter(|s| s.first == first).collect();
        let wolf_wins: Vec<String> =
            of.iter().filter(|s| s.outcome.winner == Side::Wolf).map(|s| wolf_sheep::square_name(s.wolf)).collect();
        if !of.is_empty() {
            outln!(
                "{first} first: the wolf wins from {} of {} squares{}",
                wolf_wins.len(),
                of.len(),
                if wolf_wins.is_empty() { String::new() } else { format!(" ({})", wolf_wins.join(" ")) }
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
