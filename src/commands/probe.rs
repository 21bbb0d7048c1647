//! `kabe probe`: the exact verdict of a position under the draw rules, its moves and a
//! line of best play; `--stdin` answers a position a line in JSON.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_analyze::present::ProbeAnswer;
use kabe_probe::notation::fen::{quoted, QUOTED};
use kabe_probe::request::{Game, Limits, ProbeRequest};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{DrawRules, Variant};
use serde_json::json;

use crate::args::{request_error, rules_arg, TableSet};

/// Arguments of `kabe probe`.
#[derive(Args)]
pub struct ProbeArgs {
    /// The position, as a PDN FEN (e.g. "W:WK46,K47,K48:BK5"); omit with --stdin.
    fen: Option<String>,
    #[command(flatten)]
    tables: TableSet,
    /// Draw rules (default: the variant's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// Running counts in plies, as ARTICLE=PLIES[,ARTICLE=PLIES], e.g. "6.2=14" or
    /// "6.3=9"; counts not given start now.
    #[arg(long)]
    counters: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Read positions from standard input, one per line (FEN, optionally a tab and
    /// counters such as 6.2=14), and print one JSON line each (the fields of --json).
    #[arg(long, conflicts_with_all = ["fen", "counters"])]
    stdin: bool,
}

/// Longest line of best play shown (a draw no count ends stops here).
const MAX_LINE: usize = 120;

/// The answer to `request`, read as every front end reads one, probed through the
/// block-cached tablebase (a fresh process reads only the blocks the position and its
/// moves need).
fn probe_one(tables: &Tablebase, request: &ProbeRequest<'_>) -> anyhow::Result<ProbeAnswer> {
    let asked = request.read().map_err(|e| request_error(e, "give a FEN (or --stdin)"))?;
    Ok(ProbeAnswer::probe(tables, &asked, Some(MAX_LINE))?)
}

/// The longest line `kabe probe --stdin` reads; the rest of a longer one is skipped.
const MAX_STDIN_LINE: usize = 64 << 10;

/// `kabe probe --stdin`: one position per line (FEN, optionally a tab and counters), one
/// JSON line out per line in; a line that cannot be probed (not a position, not UTF-8,
/// longer than 64 KiB) gives `{"line": N, "input": ..., "error": ...}`, its input quoted
/// up to 200 characters, and the rest go on. Fails (exit 1) when any line did.
fn probe_stdin(variant: Variant, rules: &DrawRules, tables: &Tablebase) -> anyhow::Result<ExitCode> {
    use std::io::{BufRead, Read, Write};
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut input = std::io::stdin().lock();
    let mut failed = 0usize;
    let mut bytes = Vec::new();
    for n in 1.. {
        bytes.clear();
        let read = (&mut input)
            .take(MAX_STDIN_LINE as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .with_context(|| format!("reading standard input at line {n}"))?;
        if read == 0 {
            break;
        }
        let mut too_long = false;
        if bytes.len() > MAX_STDIN_LINE && bytes.last() != Some(&b'\n') {
            too_long = true;
            // Skip to the end of the line, a bounded piece at a time.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let got = (&mut input)
                    .take(MAX_STDIN_LINE as u64)
                    .read_until(b'\n', &mut rest)
                    .with_context(|| format!("reading standard input at line {n}"))?;
                if got == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
        }
        let value = match (too_long, std::str::from_utf8(&bytes)) {
            (true, _) => {
                let shown = String::from_utf8_lossy(&bytes[..QUOTED.min(bytes.len())]).into_owned();
                json!({"line": n, "input": format!("{shown}..."), "error": format!("the line is longer than {MAX_STDIN_LINE} bytes")})
            }
            (false, Err(e)) => {
                let shown = String::from_utf8_lossy(&bytes[..QUOTED.min(bytes.len())]).into_owned();
                json!({"line": n, "input": shown, "error": format!("not UTF-8 text (byte {} is not)", e.valid_up_to() + 1)})
            }
            (false, Ok(line)) => {
                let text = line.trim_end_matches('\n').trim_end_matches('\r');
                if text.trim().is_empty() {
                    continue;
                }
                let request = ProbeRequest::from_line(Game::Known(variant), Some(rules.set.name()), text, Limits::NONE);
                match probe_one(tables, &request) {
                    Ok(answer) => answer.to_json(),
                    Err(e) => {
                        let said = format!("{e:#}");
                        json!({"line": n, "input": quoted(text), "error": quoted(&said)})
                    }
                }
            }
        };
        if value.get("error").is_some() {
            failed += 1;
        }
        serde_json::to_writer(&mut out, &value).map_err(|e| crate::output_error(e.into()))?;
        writeln!(out).map_err(crate::output_error)?;
        // One answer per question as it comes, for a caller that talks to us line by line.
        out.flush().map_err(crate::output_error)?;
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

pub fn probe(args: &ProbeArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let rules = rules_arg(args.rules, &variant)?;
    let tables = Tablebase::builder(&dir)
        .variants(&[variant])
        .rules(rules.set)
        .open()
        .with_context(|| format!("opening the tables in {}", dir.display()))?;
    if args.stdin {
        return probe_stdin(variant, &rules, &tables);
    }
    let fen = args.fen.as_deref().ok_or_else(|| anyhow::anyhow!("give a FEN (or --stdin)"))?;
    let request = ProbeRequest {
        game: Game::Known(variant),
        rules: Some(rules.set.name()),
        fen: Some(fen),
        counters: args.counters.as_deref(),
        limits: Limits::NONE,
    };
    let answer = probe_one(&tables, &request)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&answer.to_json())?)?;
    } else {
        outln!("{answer}")?;
    }
    Ok(ExitCode::SUCCESS)
}
