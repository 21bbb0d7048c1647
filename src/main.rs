//! The `kabe` command line: perft, moves, table generation and checks, exact probes,
//! game analysis and study checking.

/// `println!` that returns the write error instead of panicking: a full disk or a
/// closed file is an error the user sees, with a non-zero exit.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*).map_err(crate::output_error)
    }};
}

mod args;
mod commands;
mod output;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

/// Perfect-play endgame databases for draughts.
#[derive(Parser)]
#[command(name = "kabe", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count move sequences to a depth (proves the move generator).
    Perft(commands::perft::PerftArgs),
    /// List the legal moves of a position.
    Moves(commands::moves::MovesArgs),
    /// List the material signatures of a table set, their sizes and build order.
    Info(commands::info::InfoArgs),
    /// Build the endgame tables (WLD, DTW and the rule tables) up to N pieces, resuming where a run stopped.
    Generate(commands::generate::GenerateArgs),
    /// Check every table: checksums, and every value derived again from its successors.
    Verify(commands::verify::VerifyArgs),
    /// The build as a job graph (one job per table pair), its estimates and critical path; --slurm writes a submission.
    Plan(commands::plan::PlanArgs),
    /// Wins, draws, losses and the longest win of every table (with --rules: under the draw rules); figures `kabe verify` has not recorded are counted by verifying those pairs.
    Stats(commands::stats::StatsArgs),
    /// The reference checksums of a set (SHA-256, positions, W/D/L of every file), or --check a set against them.
    Manifest(commands::manifest::ManifestArgs),
    /// The exact verdict of a position under the draw rules, its best moves and a best line.
    Probe(commands::probe::ProbeArgs),
    /// Compare the rule tables with an independent brute force, every position and counter state.
    CheckRules(commands::check_rules::CheckRulesArgs),
    /// Annotate PDN games: exact verdicts under the draw rules, moves that threw a result away.
    Analyze(commands::analyze::AnalyzeArgs),
    /// Open the tables in a browser: a board, every move's verdict, the counts (and a JSON API).
    Serve(commands::serve::ServeArgs),
    /// Check a study: verdict, key moves, main line, duals (exit 0 sound, 1 not, 2 bad input).
    Study(commands::study::StudyArgs),
    /// Solve a small game whole from its start (wolf and sheep: every start, who wins, in how many plies, a best line).
    Solve(commands::solve::SolveArgs),
}

fn main() -> ExitCode {
    // Output piped into `head` and closed early ends the program quietly, as for any Unix
    // tool, instead of panicking on the failed write (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::InvalidValue | ErrorKind::ValueValidation) => {
            // A bad value is bad input like any other: one line naming the flag and why.
            eprintln!("kabe: error: {}", value_error_text(&e));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Perft(args) => commands::perft::run(&args),
        Command::Moves(args) => commands::moves::run(&args),
        Command::Info(args) => commands::info::run(&args),
        Command::Generate(args) => commands::generate::generate(&args),
        Command::Verify(args) => commands::verify::verify(&args),
        Command::Plan(args) => commands::plan::plan(&args),
        Command::Stats(args) => commands::stats::stats(&args),
        Command::Manifest(args) => commands::manifest::manifest(&args),
        Command::Probe(args) => commands::probe::probe(&args),
        Command::CheckRules(args) => commands::check_rules::check_rules(&args),
        Command::Analyze(args) => commands::analyze::analyze(&args),
        Command::Study(args) => commands::study::study(&args),
        Command::Serve(args) => commands::serve::serve(&args),
        Command::Solve(args) => commands::solve::solve(&args),
    };
    // Whatever is still buffered must reach the file too.
    let flushed = std::io::Write::flush(&mut std::io::stdout());
    match result.and_then(|code| flushed.map(|()| code).map_err(output_error)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kabe: error: {}", error_text(&e));
            ExitCode::from(2)
        }
    }
}

/// An error with its causes, each said once: many errors already show their cause in
/// their own message.
/// A clap error about one value on one line: `invalid value 'x' for '--solver <SOLVER>'
/// (possible values: white, black)`, without clap's own prefix and its pointer to
/// `--help`.
fn value_error_text(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("For more information"));
    let first = lines.next().unwrap_or("invalid value").trim_start_matches("error: ").to_string();
    let rest: Vec<&str> = lines.map(|l| l.trim_start_matches('[').trim_end_matches(']')).collect();
    if rest.is_empty() {
        first
    } else {
        format!("{first} ({})", rest.join("; "))
    }
}

fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if !text.contains(&said) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&said);
        }
    }
    text
}

/// A failed write to standard output, said as such.
fn output_error(e: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("writing the output: {e}")
}
