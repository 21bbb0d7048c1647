//! `kabe study`: a study or composition proved (or not) down into the tables, its key,
//! cooks, main line and duals; `--pdn` checks published solutions.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_analyze::present::{Collection, Composition, ProofAnswer, StudyAnswer};
use kabe_analyze::prove::{prove, Budget};
use kabe_analyze::study::check_study;
use kabe_analyze::{replay, PdnReader};
use kabe_generator::Scope;
use kabe_probe::notation::fen::quoted;
use kabe_probe::request::{read_counters, Game, Limits, ProbeRequest};
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{DrawRuleSet, Signature, Variant};

use crate::args::{default_memory, request_error, rules_arg, table_dir};
use crate::commands::generate::build_with_progress;

/// Arguments of `kabe study`.
#[derive(Args)]
pub struct StudyArgs {
    /// The position, as a PDN FEN, the side to move being the solver. Beyond the tables
    /// it is proved by search down into them.
    #[arg(required_unless_present = "pdn")]
    fen: Option<String>,
    /// Check the compositions of a PDN file instead: each game's FEN and published
    /// solution (its moves).
    #[arg(long, conflicts_with = "fen")]
    pdn: Option<PathBuf>,
    /// Nodes the proof search may create for each first move (bounds its memory: about
    /// 100 bytes a node).
    #[arg(long, default_value_t = kabe_analyze::prove::Budget::default().nodes)]
    nodes: usize,
    /// Seconds the proof search of one position may take (default: no limit but --nodes).
    #[arg(long)]
    time: Option<f64>,
    /// The side that wins: white or black (default: the side to move; with --pdn, the
    /// side each game's Result tag names). When it is not the side to move, every first
    /// move must lose.
    #[arg(long, value_enum, ignore_case = true)]
    solver: Option<crate::args::Side>,
    /// Variant (default: russian for algebraic squares, else international).
    #[arg(long, short, value_parser = crate::args::variant_value)]
    variant: Option<Variant>,
    /// Draw rules (default: the variant's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
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

/// The block cache of a study's tables: a proof search's leaves fall all over the
/// largest tables, and with the library's default of 64 MiB a fifth of the search went
/// to decoding blocks again; 1 GiB holds a 2-5 set's blocks decoded (the collections
/// 1.06-1.09x faster than with 256 MiB, at about twice the peak memory).
const STUDY_CACHE_BYTES: usize = 1024 << 20;

/// The proof search's budget from `--nodes` and `--time`.
fn budget_arg(args: &StudyArgs) -> anyhow::Result<Budget> {
    // The first moves are searched side by side, one a thread, each with its nodes.
    let memory = kabe_analyze::prove::usable_memory();
    Budget::checked(args.nodes, args.time, memory, rayon::current_num_threads()).map_err(|e| anyhow::anyhow!("--{e}"))
}

pub fn study(args: &StudyArgs) -> anyhow::Result<ExitCode> {
    if let Some(pdn) = &args.pdn {
        return study_pdn(args, pdn);
    }
    let fen = args.fen.as_deref().unwrap_or_default();
    // The game given, or guessed from the FEN, as every front end reads a probe request.
    let game = args.variant.map_or(Game::Guessed(None), Game::Known);
    let request = ProbeRequest { game, rules: None, fen: Some(fen), counters: None, limits: Limits::NONE };
    let position = request.position().map_err(|e| request_error(e, "give a FEN"))?;
    let variant = *position.variant();
    let rules = rules_arg(args.rules, &variant)?;
    let budget = budget_arg(args)?;
    let solver = args.solver.map(crate::args::Side::color);
    anyhow::ensure!(
        !position.legal_moves().is_empty(),
        "FEN \"{}\": the side to move has no legal move, so there is nothing to solve",
        quoted(fen)
    );
    let dir = table_dir(args.tables.as_deref())?;
    if args.generate && position.piece_count() > 6 {
        anyhow::bail!(
            "--generate builds the tables of the study's own material, and {} pieces are beyond any table: \
             build a set (kabe generate --variant {} --pieces 5) and the search proves the study down into it",
            position.piece_count(),
            variant.name
        );
    }
    if args.generate {
        build_with_progress(variant, Scope::Closure(Signature::of(&position)), &dir, rules, default_memory())?;
    }
    let tables = Tablebase::builder(&dir)
        .variants(&[variant])
        .rules(rules.set)
        .cache_bytes(STUDY_CACHE_BYTES)
        .open()
        .with_context(|| format!("opening the tables in {}", dir.display()))?;
    let counters = read_counters(&rules, &position, args.counters.as_deref(), Limits::NONE)
        .map_err(|e| request_error(e, "give a FEN"))?;
    // Within the tables (its own table, or captures into them) the tables decide the study
    // exactly; beyond them, or for a solver not to move, the proof search does.
    let in_tables = match tables.probe(&position, &counters) {
        Ok(_) => true,
        Err(ProbeError::NoTable { .. } | ProbeError::TooManyPieces { .. }) => false,
        Err(e) => return Err(e.into()),
    };
    if !in_tables || solver.is_some_and(|s| s != position.turn()) {
        let solver = solver.unwrap_or(position.turn());
        let proof = prove(&tables, &position, &counters, solver, budget)?;
        let answer = ProofAnswer { proof, rules: rules.set, reach: tables.max_pieces_of(&variant) };
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&answer.to_json())?)?;
        } else {
            outln!("{answer}")?;
        }
        return Ok(if answer.is_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let report = check_study(&tables, &position, &counters)
        .with_context(|| format!("the study needs {}-piece tables (try --generate)", position.piece_count()))?;
    let answer = StudyAnswer { report, rules: rules.set };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&answer.to_json())?)?;
    } else {
        outln!("{answer}")?;
    }
    Ok(if answer.report.is_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The tables of `variant` under `rules`: those already open when they hold it, else
/// opened afresh (a file of compositions may mix variants).
fn tables_for<'t>(
    tables: &'t mut Option<Tablebase>,
    dir: &Path,
    variant: Variant,
    rules: DrawRuleSet,
) -> anyhow::Result<&'t Tablebase> {
    if tables.as_ref().is_none_or(|t| t.draw_rules(&variant).is_none()) {
        *tables = Some(
            Tablebase::builder(dir)
                .variants(&[variant])
                .rules(rules)
                .cache_bytes(STUDY_CACHE_BYTES)
                .open()
                .with_context(|| format!("opening the tables in {}", dir.display()))?,
        );
    }
    Ok(tables.as_ref().expect("opened above"))
}

/// `kabe study --pdn FILE`: every composition of the file proved and its published
/// solution checked.
fn study_pdn(args: &StudyArgs, path: &Path) -> anyhow::Result<ExitCode> {
    let budget = budget_arg(args)?;
    let forced = args.variant;
    let dir = table_dir(args.tables.as_deref())?;
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let name = path.display().to_string();
    let mut tables: Option<Tablebase> = None;
    let mut collection = Collection::new(&name);
    for game in PdnReader::new(BufReader::new(file)) {
        let game = game.with_context(|| format!("reading {name}"))?;
        let composition = match replay(&name, &game, forced) {
            Err(e) => Composition::unreadable(&name, &game, &e),
            Ok(replayed) => {
                let rules = rules_arg(args.rules, &replayed.variant)?;
                let tb = tables_for(&mut tables, &dir, replayed.variant, rules.set)?;
                let solver = args.solver.map(crate::args::Side::color);
                Composition::check(&name, &game, &replayed, tb, &rules, solver, budget)?
            }
        };
        let composition = collection.add(composition);
        if !args.json {
            outln!("{composition}")?;
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&collection.to_json())?)?;
    } else {
        outln!("{}", collection.tally)?;
    }
    Ok(if collection.tally.all_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
