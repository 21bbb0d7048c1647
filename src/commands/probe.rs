//! `kabe probe`: the exact verdict of a position under the draw rules, its moves and a
//! line of best play; `--stdin` answers a position a line in JSON.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_analyze::json::{line_end_text, line_json, move_json, verdict_json};
use kabe_probe::notation::fen::{quoted, QUOTED};
use kabe_probe::notation::plies;
use kabe_probe::rules::exact::{MoveVerdict, Verdict};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Counters, DrawRules, Position, Variant, Wld};
use serde_json::json;

use crate::args::{rules_arg, TableSet};

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

fn describe(v: &Verdict) -> String {
    let theory = match v.theoretical.plies() {
        Some(p) => format!("{} in {}", v.theoretical.wld().word(), plies(p)),
        None => Wld::Draw.to_string(),
    };
    let mut out = format!("exact: {}   theoretical: {theory}", v.exact.word());
    if let Some((article, left)) = v.count {
        out += &format!("   count {article}: {} left", plies(left));
        if let Some((_, p)) = v.within.decided() {
            out += &format!(", decided within it in {}", plies(p));
        }
    }
    if v.rule_decides()
        && let Some((article, left)) = v.count
    {
        out += &format!(
            "\n{article} decides: the {} needs more than the {} the count leaves",
            v.theoretical.wld().word(),
            plies(left)
        );
    }
    out
}

/// Longest line of best play shown (a draw no count ends stops here).
const MAX_LINE: usize = 120;

/// Everything `kabe probe` says about one position: verdict, moves, best line.
struct Probed {
    position: Position,
    counters: Counters,
    verdict: Verdict,
    ranked: Vec<MoveVerdict>,
    best: Vec<MoveVerdict>,
    line: Vec<MoveVerdict>,
    end: String,
}

/// Probes through the block-cached tablebase: a fresh process reads only the blocks the
/// position and its moves need.
fn probe_one(
    rules: &DrawRules,
    tables: &Tablebase,
    position: Position,
    counters: Option<&str>,
) -> anyhow::Result<Probed> {
    let counters = match counters {
        Some(text) => Counters::parse(rules, &position, text)?,
        None => Counters::fresh(rules, &position),
    };
    let v = tables.probe(&position, &counters)?;
    let ranked = tables.ranked_moves(&position, &counters)?;
    let best: Vec<MoveVerdict> =
        ranked.iter().take_while(|m| Some(m.exact) == ranked.first().map(|b| b.exact)).copied().collect();
    let (line, end) = tables.best_line(&position, &counters, MAX_LINE)?;
    let end = line_end_text(end, MAX_LINE);
    Ok(Probed { position, counters, verdict: v, ranked, best, line, end })
}

fn probed_json(variant: &Variant, rules: &DrawRules, p: &Probed) -> serde_json::Value {
    json!({
        "fen": p.position.fen(),
        "variant": variant.name,
        "rules": rules.set.name(),
        "counters": p.counters.describe_at(&p.position),
        "verdict": verdict_json(&p.verdict),
        "best_moves": p.best.iter().map(|m| p.position.move_text(&m.mv)).collect::<Vec<_>>(),
        "moves": p.ranked.iter().map(|m| move_json(&p.position, m)).collect::<Vec<_>>(),
        "line": line_json(&p.position, &p.line),
        "line_end": p.end,
    })
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
                let (fen, counters) = match text.split_once('\t') {
                    Some((fen, c)) => (fen.trim(), Some(c.trim()).filter(|c| !c.is_empty())),
                    None => (text.trim(), None),
                };
                let result = Position::from_fen(variant, fen)
                    .map_err(anyhow::Error::from)
                    .and_then(|position| probe_one(rules, tables, position, counters));
                match result {
                    Ok(p) => probed_json(&variant, rules, &p),
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
    let position = Position::from_fen(variant, fen)?;
    let p = probe_one(&rules, &tables, position, args.counters.as_deref())?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&probed_json(&variant, &rules, &p))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{}  ({}, {} rules, counts {})",
        p.position.fen(),
        variant.name,
        rules.set.name(),
        p.counters.describe_at(&p.position)
    )?;
    outln!("{}", describe(&p.verdict))?;
    outln!("moves, best first:")?;
    for m in &p.ranked {
        let within =
            m.child.within.decided().map_or(String::new(), |(_, p)| format!(", {} within the count after", plies(p)));
        let theory = m.child.theoretical.plies().map_or(Wld::Draw.to_string(), |p| format!("{} after", plies(p)));
        outln!("  {:<12} {:<5} (theory: {theory}{within})", p.position.move_text(&m.mv), m.exact.word())?;
    }
    let mut at = p.position;
    let moves: Vec<String> = p
        .line
        .iter()
        .map(|m| {
            let text = at.move_text(&m.mv);
            at = m.position;
            text
        })
        .collect();
    let line = if moves.is_empty() { "-".to_string() } else { moves.join(" ") };
    outln!("best line: {line} ({})", p.end)?;
    Ok(ExitCode::SUCCESS)
}
