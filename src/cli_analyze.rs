//! `kabe analyze` (PDN games annotated with exact verdicts) and `kabe study` (is a study
//! sound?).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_analyze::report::{report, Format};
use kabe_analyze::study::{check_study, LineEnd, StudyReport};
use kabe_analyze::{replay, Analyzer, PdnReader, Reach, Summary};
use kabe_generator::Scope;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Counters, DrawRuleSet, Position, Signature, Variant, Wld};

use crate::cli_tables::{build_with_progress, default_dir, default_memory, rules_arg};

/// Arguments of `kabe analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// PDN files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Report format: text, pdn (the games with the verdicts as comments) or json.
    #[arg(long, short, default_value = "text")]
    format: String,
    /// Draw rules: fmjd, fmjd-2000, ussr1953, none (default: each game's usual set).
    #[arg(long)]
    rules: Option<String>,
    /// Table directory (default: $KABE_TABLES, else the per-user data directory).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Read every game as this variant, whatever its tags say.
    #[arg(long)]
    variant: Option<String>,
    /// Build the tables the games need first, up to --pieces (complete sets are kept).
    /// Without it, a variant with no tables at all gets the small set (4 pieces) built on
    /// first use.
    #[arg(long, conflicts_with = "no_generate")]
    generate: bool,
    /// Never build tables: analyse with what is there and name what is missing.
    #[arg(long)]
    no_generate: bool,
    /// Largest number of pieces probed (and built with --generate); default: as far as
    /// the tables are complete, 4 with --generate.
    #[arg(long)]
    pieces: Option<u32>,
}

/// Pieces of the table set built on first use: seconds to build, enough for the endings
/// of real games.
const SMALL_SET_PIECES: u32 = 4;

/// The variants the games of `files` are played in (for --generate).
fn variants_in(files: &[PathBuf], forced: Option<Variant>) -> anyhow::Result<BTreeSet<&'static str>> {
    let mut found = BTreeSet::new();
    for path in files {
        let name = path.display().to_string();
        let input = File::open(path).with_context(|| format!("opening {name}"))?;
        for game in PdnReader::new(BufReader::new(input)) {
            let game = game.with_context(|| format!("reading {name}"))?;
            if let Ok(r) = replay(&name, &game, forced) {
                found.insert(r.variant.name);
            }
        }
    }
    Ok(found)
}

fn open_tables(dir: &Path, rules: Option<DrawRuleSet>) -> anyhow::Result<Tablebase> {
    let mut builder = Tablebase::builder(dir);
    if let Some(set) = rules {
        builder = builder.rules(set);
    }
    if !dir.exists() {
        // No tables yet: every game is reported without verdicts and the summary says so.
        builder = builder.variants(&[]);
    }
    builder.open().with_context(|| format!("opening the tables in {}", dir.display()))
}

pub fn analyze(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let format: Format = args.format.parse().map_err(anyhow::Error::msg)?;
    let dir = args.tables.clone().unwrap_or_else(default_dir);
    let forced = args.variant.as_deref().map(crate::variant_arg).transpose()?;
    let rules = args.rules.as_deref().map(str::parse::<DrawRuleSet>).transpose()?;
    if let Some(p) = args.pieces {
        anyhow::ensure!((2..=8).contains(&p), "--pieces must be 2 to 8");
    }
    if !args.no_generate {
        // Build what is asked (--generate), or the small set for a variant that has none.
        let present = if dir.exists() { open_tables(&dir, rules).ok() } else { None };
        let pieces = args.pieces.unwrap_or(SMALL_SET_PIECES);
        for name in variants_in(&args.files, forced)? {
            let variant: Variant = name.parse()?;
            let has_some = present.as_ref().is_some_and(|tb| tb.max_pieces_of(&variant) >= 2);
            if has_some && !args.generate {
                continue;
            }
            let set = rules.filter(|s| s.applies_to(&variant)).map(|s| s.name());
            let draw_rules = rules_arg(set, &variant)?;
            eprintln!(
                "building the {name} tables up to {pieces} pieces ({} rules) in {}",
                draw_rules.set,
                dir.display()
            );
            build_with_progress(variant, Scope::Pieces(pieces), &dir, draw_rules, default_memory())?;
        }
    }
    let tables = open_tables(&dir, rules)?;
    let reach = Reach { pieces: args.pieces };
    let analyzer = Analyzer::new(&tables, forced, reach);
    let stdout = io::stdout().lock();
    let mut out = report(format, Box::new(BufWriter::new(stdout)));
    let mut summary = Summary::default();
    for path in &args.files {
        analyzer.file(path, &mut summary, &mut |file, game, outcome| out.game(file, game, outcome))?;
    }
    out.finish(&summary)?;
    drop(out);
    if format != Format::Text {
        // Keep machine-readable output clean; say what is missing on stderr.
        if !summary.missing.is_empty() || !summary.variants_without_tables.is_empty() {
            eprintln!("kabe: some positions had no tables; see the summary");
        }
    }
    Ok(if summary.failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Arguments of `kabe study`.
#[derive(Args)]
pub struct StudyArgs {
    /// The position, as a PDN FEN, the side to move being the solver.
    fen: String,
    /// Variant (default: russian for algebraic squares, else international).
    #[arg(long, short)]
    variant: Option<String>,
    /// Draw rules: fmjd, fmjd-2000, ussr1953, none (default: the variant's usual set).
    #[arg(long)]
    rules: Option<String>,
    /// Running counts in plies, e.g. "6.2=14" (default: they start now).
    #[arg(long)]
    counters: Option<String>,
    /// Table directory (default: $KABE_TABLES, else the per-user data directory).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Build the tables the study needs first: its material and all it can reach.
    #[arg(long)]
    generate: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// The variant of a study: given, or Russian when the FEN names squares by letter.
fn study_variant(args: &StudyArgs) -> anyhow::Result<Variant> {
    match &args.variant {
        Some(v) => crate::variant_arg(v),
        None if args.fen.chars().any(|c| matches!(c, 'a'..='h')) => Ok(Variant::RUSSIAN),
        None => Ok(Variant::INTERNATIONAL),
    }
}

pub fn study(args: &StudyArgs) -> anyhow::Result<ExitCode> {
    let variant = study_variant(args)?;
    let position = Position::from_fen(variant, &args.fen).with_context(|| format!("FEN \"{}\"", args.fen))?;
    let rules = rules_arg(args.rules.as_deref(), &variant)?;
    let dir = args.tables.clone().unwrap_or_else(default_dir);
    if args.generate {
        build_with_progress(variant, Scope::Closure(Signature::of(&position)), &dir, rules, default_memory())?;
    }
    let tables = Tablebase::builder(&dir)
        .variants(&[variant])
        .rules(rules.set)
        .open()
        .with_context(|| format!("opening the tables in {}", dir.display()))?;
    let counters = match &args.counters {
        Some(text) => Counters::parse(&rules, &position, text)?,
        None => Counters::fresh(&rules, &position),
    };
    let found = check_study(&tables, &position, &counters)
        .with_context(|| format!("the study needs {}-piece tables (try --generate)", position.piece_count()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found.to_json())?);
    } else {
        print_study(&found, variant, rules.set);
    }
    Ok(if found.is_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn print_study(s: &StudyReport, variant: Variant, rules: DrawRuleSet) {
    let side = |p: &Position| if p.turn() == kabe_probe::Color::White { "White" } else { "Black" };
    println!("study {} ({}, {} rules)", s.position.fen(), variant.name, rules);
    let v = &s.verdict;
    let result = match v.exact {
        Wld::Win => format!("{} to move wins", side(&s.position)),
        Wld::Draw => format!("{} to move draws", side(&s.position)),
        Wld::Loss => format!("{} to move loses", side(&s.position)),
    };
    let theory = match (v.theoretical.wld(), v.theoretical.plies()) {
        (Wld::Draw, _) => "draw".to_string(),
        (w, Some(p)) => format!("{w:?} in {p} plies").to_lowercase(),
        (w, None) => format!("{w:?}").to_lowercase(),
    };
    println!("verdict: {result} (theory: {theory})");
    if let Some((article, left)) = v.count {
        let secured = match v.within.decided() {
            Some((_, p)) if v.exact != Wld::Draw => format!("; the result is secured within it in {p} plies"),
            _ => String::new(),
        };
        let decides = if v.rule_decides() { " (it decides the result)" } else { "" };
        println!("count: {article}, {left} plies left{decides}{secured}");
    }
    match s.keys.len() {
        0 => println!("key move: none"),
        1 => println!("key move: {} (the only one)", s.keys[0]),
        n => println!("key moves ({n}): {}", s.keys.join(", ")),
    }
    let mut line = String::new();
    for m in &s.line {
        if m.solver || line.is_empty() || m.number.ends_with('.') && !m.number.ends_with("...") {
            line.push_str(&m.number);
            line.push(' ');
        }
        line.push_str(&m.text);
        if !m.duals.is_empty() {
            line.push_str(&format!(" (dual: {})", m.duals.join(", ")));
        }
        line.push(' ');
    }
    let end = match s.end {
        LineEnd::GameOver => "the game is over".to_string(),
        LineEnd::CountExpired(a) => format!("drawn by {a}"),
        LineEnd::Cut(n) => format!("still drawn after {n} plies"),
    };
    println!("main line: {}; {end}", line.trim_end());
    if s.is_sound() {
        println!("sound: one key move, no duals in the main line");
    } else {
        println!("not sound:");
        for f in &s.faults {
            println!("  {f}");
        }
    }
}
