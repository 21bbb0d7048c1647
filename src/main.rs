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

mod cli_analyze;
mod cli_info;
mod cli_moves;
mod cli_perft;
mod cli_plan;
mod cli_rules;
mod cli_serve;
mod cli_solve;
mod cli_tables;

use std::process::ExitCode;

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
    Perft(cli_perft::PerftArgs),
    /// List the legal moves of a position.
    Moves(cli_moves::MovesArgs),
    /// List the material signatures of a table set, their sizes and build order.
    Info(cli_info::InfoArgs),
    /// Build the endgame tables (WLD, DTW and the rule tables) up to N pieces, resuming where a run stopped.
    Generate(cli_tables::GenerateArgs),
    /// Check every table: checksums, and every value derived again from its successors.
    Verify(cli_tables::VerifyArgs),
    /// The build as a job graph (one job per table pair), its estimates and critical path; --slurm writes a submission.
    Plan(cli_plan::PlanArgs),
    /// Wins, draws, losses and the longest win of every table (with --rules: under the draw rules).
    Stats(cli_tables::StatsArgs),
    /// The exact verdict of a position under the draw rules, its best moves and a best line.
    Probe(cli_rules::ProbeArgs),
    /// Compare the rule tables with an independent brute force, every position and counter state.
    CheckRules(cli_rules::CheckRulesArgs),
    /// Annotate PDN games: exact verdicts under the draw rules, moves that threw a result away.
    Analyze(cli_analyze::AnalyzeArgs),
    /// Open the tables in a browser: a board, every move's verdict, the counts (and a JSON API).
    Serve(cli_serve::ServeArgs),
    /// Check a study: verdict, key moves, main line, duals (exit 0 sound, 1 not, 2 bad input).
    Study(cli_analyze::StudyArgs),
    /// Solve a small game whole from its start (wolf and sheep: every start, who wins, in how many plies, a best line).
    Solve(cli_solve::SolveArgs),
}

fn main() -> ExitCode {
    // Output piped into `head` and closed early ends the program quietly, as for any Unix
    // tool, instead of panicking on the failed write (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restoring the default action of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => cli_perft::run(&args),
        Command::Moves(args) => cli_moves::run(&args),
        Command::Info(args) => cli_info::run(&args),
        Command::Generate(args) => cli_tables::generate(&args),
        Command::Verify(args) => cli_tables::verify(&args),
        Command::Plan(args) => cli_plan::plan(&args),
        Command::Stats(args) => cli_tables::stats(&args),
        Command::Probe(args) => cli_rules::probe(&args),
        Command::CheckRules(args) => cli_rules::check_rules(&args),
        Command::Analyze(args) => cli_analyze::analyze(&args),
        Command::Study(args) => cli_analyze::study(&args),
        Command::Serve(args) => cli_serve::serve(&args),
        Command::Solve(args) => cli_solve::solve(&args),
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

/// The variant named on the command line.
/// The `--rules` values, from the one list of rule sets (clap prints them in the help).
fn rule_set_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(kabe_probe::DrawRuleSet::ALL.map(kabe_probe::DrawRuleSet::name))
}

fn variant_arg(name: &str) -> anyhow::Result<kabe_probe::Variant> {
    Ok(name.parse::<kabe_probe::Variant>()?)
}
