//! `kabe probe` (exact verdict under the draw rules) and `kabe check-rules` (the rule
//! tables against the brute force).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use kabe_generator::{brute_rules, check_signature, with_deep_stack, BruteForce};
use kabe_probe::notation::fen::{quoted, QUOTED};
use kabe_probe::rules::exact::{LineEnd, MoveVerdict, Verdict};
use kabe_probe::table::TableDir;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Counters, DrawRules, Position, Signature, Variant};
use serde_json::json;

use kabe_server::json::{move_json, verdict_json, wld_word};

use crate::cli_tables::{rules_arg, TableSet};

/// Arguments of `kabe probe`.
#[derive(Args)]
pub struct ProbeArgs {
    /// The position, as a PDN FEN (e.g. "W:WK46,K47,K48:BK5"); omit with --stdin.
    fen: Option<String>,
    #[command(flatten)]
    tables: TableSet,
    /// Draw rules (default: the variant's usual set).
    #[arg(long, value_parser = crate::rule_set_names())]
    rules: Option<String>,
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
        Some(p) => format!("{} in {p} plies", wld_word(v.theoretical.wld())),
        None => "draw".to_string(),
    };
    let mut out = format!("exact: {}   theoretical: {theory}", wld_word(v.exact));
    if let Some((article, left)) = v.count {
        out += &format!("   count {article}: {left} plies left");
        if let Some((_, p)) = v.within.decided() {
            out += &format!(", decided within it in {p}");
        }
    }
    if v.rule_decides() {
        if let Some((article, left)) = v.count {
            out += &format!(
                "\n{article} decides: the {} needs more than the {left} plies the count leaves",
                wld_word(v.theoretical.wld())
            );
        }
    }
    out
}

/// Everything `kabe probe` says about one position: verdict, moves, best line.
struct Probed {
    position: Position,
    counters: Counters,
    verdict: Verdict,
    ranked: Vec<MoveVerdict>,
    best: Vec<MoveVerdict>,
    line: Vec<String>,
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
    let (line, end) = tables.best_line(&position, &counters, 120)?;
    let mut line_text = Vec::new();
    let mut at = position;
    for m in &line {
        line_text.push(at.move_text(&m.mv));
        at = m.position;
    }
    let end = match end {
        LineEnd::GameOver => "game over".to_string(),
        LineEnd::CountExpired(article) => format!("drawn by {article}"),
        LineEnd::Unbounded => "draw (line cut)".to_string(),
    };
    Ok(Probed { position, counters, verdict: v, ranked, best, line: line_text, end })
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
        "line": p.line,
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
    let rules = rules_arg(args.rules.as_deref(), &variant)?;
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
        let within = m.child.within.decided().map_or(String::new(), |(_, p)| format!(", {p} within the count after"));
        let theory = m.child.theoretical.plies().map_or("draw".to_string(), |p| format!("{p} plies after"));
        outln!("  {:<12} {:<5} (theory: {theory}{within})", p.position.move_text(&m.mv), wld_word(m.exact))?;
    }
    let line = if p.line.is_empty() { "-".to_string() } else { p.line.join(" ") };
    outln!("best line: {line} ({})", p.end)?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `kabe check-rules`.
#[derive(Args)]
pub struct CheckRulesArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Largest number of pieces to compare.
    #[arg(long, short, default_value_t = 3)]
    pieces: u32,
    /// Draw rules (default: the variant's usual set).
    #[arg(long, value_parser = crate::rule_set_names())]
    rules: Option<String>,
    /// Compare only these signatures (`wm wk bm bk`, e.g. 1211), whatever their pieces;
    /// the brute force still solves every material they reach.
    #[arg(long, value_delimiter = ',')]
    signature: Vec<String>,
    /// Use the layered brute force (bounded memory: a pair's moves, two ranks of
    /// counter states and what later materials need) instead of the memoised one; it
    /// takes Russian and 100-square 1953 rules, and FMJD materials of kings only.
    #[arg(long)]
    layered: bool,
    /// With --layered: the bytes a pair's moves may take (e.g. 4G); a larger pair makes
    /// them again for every rank of counter states (default: always kept).
    #[arg(long, value_parser = kabe_generator::MemoryBudget::parse, requires = "layered")]
    move_budget: Option<kabe_generator::MemoryBudget>,
}

fn check_rules_layered(
    args: &CheckRulesArgs,
    variant: Variant,
    rules: &DrawRules,
    brute: kabe_generator::BruteRules,
    tables: &TableDir,
) -> anyhow::Result<ExitCode> {
    let mut solver = kabe_generator::LayeredBrute::new(variant, brute);
    if let Some(budget) = args.move_budget {
        solver = solver.with_move_budget(budget.bytes as usize);
    }
    let chosen: Vec<Signature> = if args.signature.is_empty() {
        (2..=args.pieces).flat_map(Signature::all_with).collect()
    } else {
        args.signature.iter().map(|s| signature_arg(s)).collect::<anyhow::Result<_>>()?
    };
    let (mut positions, mut states, mut differ) = (0, 0, 0);
    let mut done = std::collections::HashSet::new();
    let start_all = Instant::now();
    for sig in chosen {
        if !done.insert(sig) {
            continue;
        }
        done.insert(sig.flipped());
        let start = Instant::now();
        let reports = match kabe_generator::check_pair_layered(&mut solver, rules, tables, sig) {
            Ok(r) => r,
            Err(kabe_generator::LayeredCheckError::Layers(kabe_generator::LayerError::ResetInside(_))) => {
                outln!("{:>6} skipped: men under FMJD 6.2 (the memoised brute force takes them)", sig.to_string())?;
                continue;
            }
            Err(e) => anyhow::bail!("{sig}: {e}"),
        };
        let seconds = start.elapsed().as_secs_f64();
        for report in reports {
            let name = report.signature.map_or_else(String::new, |s| s.to_string());
            outln!(
                "{:>6} {:>12} {:>14} {:>10} {:>8.1}",
                name,
                report.positions,
                report.states,
                report.disagreements,
                seconds
            )?;
            for e in &report.examples {
                outln!("    {e}")?;
            }
            positions += report.positions;
            states += report.states;
            differ += report.disagreements;
        }
    }
    outln!(
        "compared {positions} positions, {states} (position, counters) states: {differ} differ \
         (layered brute force: {:.1} s, peak {:.1} MiB of its own state)",
        start_all.elapsed().as_secs_f64(),
        solver.peak_bytes as f64 / (1 << 20) as f64
    )?;
    Ok(if differ == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// A signature written `wm wk bm bk`, e.g. `1211`.
pub fn signature_arg(text: &str) -> anyhow::Result<Signature> {
    let digits: Vec<u8> = text.trim().bytes().map(|b| b.wrapping_sub(b'0')).collect();
    anyhow::ensure!(
        digits.len() == 4 && digits.iter().all(|d| *d <= 9),
        "signature '{text}': expected four digits, white men, white kings, black men, black kings (e.g. 1211)"
    );
    Ok(Signature::new(digits[0], digits[1], digits[2], digits[3]))
}

pub fn check_rules(args: &CheckRulesArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let rules = rules_arg(args.rules.as_deref(), &variant)?;
    let brute = brute_rules(rules.set, &variant).context("the brute force needs a rule set with counts")?;
    let tables = TableDir::new(&dir, variant, rules);
    outln!(
        "{} under {}: table verdicts against the brute force, every position and counter state",
        variant.name,
        rules.set.name()
    )?;
    outln!("{:>6} {:>12} {:>14} {:>10} {:>8}", "sig", "positions", "states", "differ", "seconds")?;
    if args.layered {
        return check_rules_layered(args, variant, &rules, brute, &tables);
    }
    let outcome = with_deep_stack(|| -> anyhow::Result<(u64, u64, u64)> {
        let mut solver = BruteForce::new(variant, brute);
        let (mut positions, mut states, mut differ) = (0, 0, 0);
        let chosen: Vec<Signature> = if args.signature.is_empty() {
            (2..=args.pieces).flat_map(Signature::all_with).collect()
        } else {
            args.signature.iter().map(|s| signature_arg(s)).collect::<anyhow::Result<_>>()?
        };
        for sig in chosen {
            let start = Instant::now();
            let report = check_signature(&mut solver, &rules, &tables, variant, sig)?;
            outln!(
                "{:>6} {:>12} {:>14} {:>10} {:>8.1}",
                sig.to_string(),
                report.positions,
                report.states,
                report.disagreements,
                start.elapsed().as_secs_f64()
            )?;
            for e in &report.examples {
                outln!("    {e}")?;
            }
            positions += report.positions;
            states += report.states;
            differ += report.disagreements;
        }
        Ok((positions, states, differ))
    })?;
    let (positions, states, differ) = outcome;
    outln!("compared {positions} positions, {states} (position, counters) states: {differ} differ")?;
    Ok(if differ == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
