//! `kabe study`: a study or composition proved (or not) down into the tables, its key,
//! cooks, main line and duals; `--pdn` checks published solutions.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_analyze::json::{proof_json, proof_summary_json, solution_json, study_json};
use kabe_analyze::prove::{
    check_solution, main_line, prove, Budget, FirstMove, Outcome, PositionProof, ProofTree, SolutionCheck,
};
use kabe_analyze::replay::move_number;
use kabe_analyze::study::{check_study, LineEnd, StudyReport};
use kabe_analyze::{replay, PdnReader};
use kabe_generator::Scope;
use kabe_probe::notation::fen::quoted;
use kabe_probe::notation::plies;
use kabe_probe::request::{read_counters, Game, Limits, ProbeRequest};
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Color, Counters, DrawRuleSet, Position, Signature, Variant, Wld};

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
/// to decoding blocks again.
const STUDY_CACHE_BYTES: usize = 256 << 20;

/// The winner a PDN Result tag names, if it names one.
fn winner_of(result: Option<&str>) -> Option<Color> {
    match result.map(str::trim) {
        Some("1-0" | "2-0") => Some(Color::White),
        Some("0-1" | "0-2") => Some(Color::Black),
        _ => None,
    }
}

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
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&proof_json(&proof))?)?;
        } else {
            print_proof(&proof, variant, rules.set, tables.max_pieces_of(&variant))?;
        }
        let sound = proof.wins() == Some(true) && (!proof.solver_moves_first() || proof.keys().count() == 1);
        return Ok(if sound { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let found = check_study(&tables, &position, &counters)
        .with_context(|| format!("the study needs {}-piece tables (try --generate)", position.piece_count()))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&study_json(&found))?)?;
    } else {
        print_study(&found, variant, rules.set)?;
    }
    Ok(if found.is_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn side_name(p: &Position) -> &'static str {
    if p.turn() == kabe_probe::Color::White {
        "White"
    } else {
        "Black"
    }
}

/// The main line of a proof with move numbers, from `start` (whose first move is `key`).
fn numbered_line(start: &Position, key: &str, tree: &ProofTree) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut defences = Vec::new();
    let moves = std::iter::once((key.to_string(), Vec::new())).chain(main_line(tree));
    for (ply, (mv, others)) in moves.enumerate() {
        let number = move_number(start, ply);
        if ply == 0 || number.ends_with('.') && !number.ends_with("...") {
            text.push_str(&number);
            text.push(' ');
        }
        text.push_str(&mv);
        text.push(' ');
        if !others.is_empty() {
            let shown: Vec<String> = others
                .iter()
                .map(|(d, answer)| if answer.is_empty() { d.clone() } else { format!("{d} ({answer})") })
                .collect();
            defences.push(format!("{number} {mv}: also {}", shown.join(", ")));
        }
    }
    (text.trim_end().to_string(), defences)
}

fn print_proof(p: &PositionProof, variant: Variant, rules: DrawRuleSet, reach: u32) -> anyhow::Result<()> {
    outln!("study {} ({}, {} rules, tables up to {reach} pieces)", p.position.fen(), variant.name, rules)?;
    outln!(
        "searched each of the {} first moves within {} nodes{} in {:.2} s",
        p.moves.len(),
        p.budget.nodes,
        p.budget.time.map_or(String::new(), |t| format!(" and {:.1} s", t.as_secs_f64())),
        p.elapsed.as_secs_f64()
    )?;
    let side = side_name(&p.position);
    let keys: Vec<&FirstMove> = p.keys().collect();
    let solver = if p.solver == Color::White { "White" } else { "Black" };
    match (p.wins(), p.solver_moves_first()) {
        (Some(true), true) => outln!("result: {side} to move wins (proved; every proof replayed by the checker)")?,
        (Some(false), true) => outln!("result: {side} to move does not win (every first move refuted)")?,
        (None, true) => outln!("result: unresolved: no win found within the budget")?,
        (Some(true), false) => {
            outln!("result: {side} to move loses: {solver} wins after every move (proved; every proof replayed)")?
        }
        (Some(false), false) => outln!("result: {solver} does not win: a defence holds")?,
        (None, false) => outln!("result: unresolved: not every defence is refuted within the budget")?,
    }
    if let Some(longest) = p.longest_defence()
        && let Outcome::Win(tree) = &longest.outcome
    {
        let (line, defences) = numbered_line(&p.position, &longest.text, tree);
        outln!("longest defence {}: {line}; {}", longest.text, tree.main_line_end())?;
        for d in defences {
            outln!("  defences at {d}")?;
        }
    }
    match keys.as_slice() {
        [] => {}
        [one] => outln!("key move: {} (the only one)", one.text)?,
        many => outln!(
            "key moves ({}): {} (cooked)",
            many.len(),
            many.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join(", ")
        )?,
    }
    for key in &keys {
        if let Outcome::Win(tree) = &key.outcome {
            let (line, defences) = numbered_line(&p.position, &key.text, tree);
            outln!("{} line: {line}; {}", key.text, tree.main_line_end())?;
            outln!("  proof: {} positions, the win within {}", tree.size(), plies(tree.plies + 1))?;
            print_duals(&p.position, key)?;
            for d in defences {
                outln!("  defences at {d}")?;
            }
        }
    }
    let others: Vec<&FirstMove> = p.moves.iter().filter(|m| !m.outcome.is_win()).collect();
    if !others.is_empty() {
        outln!("{}:", if p.solver_moves_first() { "other first moves" } else { "defences not refuted" })?;
        for m in others {
            outln!("  {}", first_move_failing(m))?;
        }
    }
    Ok(())
}

/// A first move that does not win, in words: a try and the one defence that refutes it,
/// the defences that refute it, or no win found; with the refutation's line (checked).
fn first_move_failing(m: &FirstMove) -> String {
    match (&m.outcome, &m.defences) {
        (Outcome::NotWin(_), Some(d)) if !d.holding.is_empty() => {
            let r = &d.holding[0];
            let what = if d.is_try() {
                format!("a try, refuted only by {}", d.refuting()[0])
            } else if d.forced() {
                format!("not a win, refuted by the forced {}", d.refuting()[0])
            } else {
                format!("not a win, refuted by {}", d.refuting().join(", "))
            };
            let open = match d.unresolved.len() {
                0 => String::new(),
                n => format!("; {n} other defences neither proved nor refuted: {}", d.unresolved.join(", ")),
            };
            format!(
                "{}: {what}: {} ({}; disproof of {} positions, replayed by the checker){open}",
                m.text,
                r.line.join(" "),
                r.end,
                r.disproof.size()
            )
        }
        (Outcome::NotWin(r), _) => {
            format!(
                "{}: not a win: {} ({}; disproof of {} positions)",
                m.text,
                r.line.join(" "),
                r.end,
                r.disproof.size()
            )
        }
        (Outcome::Unresolved { nodes }, _) => format!("{}: no win found within {nodes} nodes", m.text),
        (Outcome::Win(_), _) => format!("{}: wins", m.text),
    }
}

/// The duals along a key's main line, one line each.
fn print_duals(start: &Position, key: &FirstMove) -> anyhow::Result<()> {
    for d in &key.duals {
        let number = move_number(start, d.ply);
        if !d.duals.is_empty() {
            outln!("  dual at {number} {}: {} win too", d.played, d.duals.join(", "))?;
        }
        if !d.unresolved.is_empty() {
            outln!("  at {number} {}: {} neither proved nor refuted (dual search)", d.played, d.unresolved.join(", "))?;
        }
    }
    Ok(())
}

/// What `kabe study --pdn` counts over a file.
#[derive(Default)]
struct Tally {
    sound: usize,
    cooked: usize,
    refuted: usize,
    unresolved: usize,
    failed: usize,
    with_duals: usize,
    with_tries: usize,
    faulty_solutions: usize,
}

impl Tally {
    /// Counts one composition proved and its solution checked; returns its verdict.
    fn record(&mut self, proof: &PositionProof, solution: &SolutionCheck) -> &'static str {
        if !solution.holds() {
            self.faulty_solutions += 1;
        }
        if proof.keys().any(|k| k.duals.iter().any(|d| !d.duals.is_empty())) {
            self.with_duals += 1;
        }
        if proof.tries().next().is_some() {
            self.with_tries += 1;
        }
        let (count, verdict) = match (proof.wins(), proof.keys().count()) {
            (Some(true), 1) => (&mut self.sound, "sound"),
            (Some(true), 0) => (&mut self.sound, "sound (every first move of the defender loses)"),
            (Some(true), _) => (&mut self.cooked, "cooked"),
            (Some(false), _) => (&mut self.refuted, "refuted"),
            (None, _) => (&mut self.unresolved, "unresolved"),
        };
        *count += 1;
        verdict
    }

    fn total(&self) -> usize {
        self.sound + self.cooked + self.refuted + self.unresolved + self.failed
    }

    /// Whether every composition is sound and every published solution holds.
    fn all_sound(&self) -> bool {
        self.total() == self.sound && self.faulty_solutions == 0
    }

    fn summary(&self) -> String {
        let Tally { sound, cooked, refuted, unresolved, failed, with_duals, with_tries, faulty_solutions } = self;
        format!(
            "{} compositions: {sound} sound, {cooked} cooked, {refuted} refuted, {unresolved} unresolved, {failed} \
             unreadable; {with_duals} with duals in the main line; {with_tries} with tries; {faulty_solutions} \
             published solutions that do not hold",
            self.total()
        )
    }
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

/// One composition of `kabe study --pdn` as text: its verdict, keys, lines and the
/// published solution checked.
fn print_composition(
    title: &str,
    verdict: &str,
    position: &Position,
    proof: &PositionProof,
    solution: &SolutionCheck,
    published_plies: usize,
) -> anyhow::Result<()> {
    outln!("{title}: {verdict}, {:.2} s", proof.elapsed.as_secs_f64())?;
    outln!("  {}", position.fen())?;
    let keys: Vec<&str> = proof.keys().map(|m| m.text.as_str()).collect();
    let published = solution.published_key.as_deref().unwrap_or("none");
    outln!("  keys: {} (published: {published})", if keys.is_empty() { "none".to_string() } else { keys.join(", ") })?;
    for key in proof.keys().chain(proof.longest_defence()) {
        if let Outcome::Win(tree) = &key.outcome {
            let (line, _) = numbered_line(position, &key.text, tree);
            outln!("  {} line: {line}; {}", key.text, tree.main_line_end())?;
            print_duals(position, key)?;
        }
    }
    for t in proof.tries() {
        outln!("  {}", first_move_failing(t))?;
    }
    outln!(
        "  published solution: {} ({} of {} checked)",
        if solution.holds() { "holds" } else { "does not hold" },
        solution.plies_checked,
        plies(published_plies as u64)
    )?;
    for f in &solution.faults {
        outln!("    fault: {f}")?;
    }
    for r in &solution.remarks {
        outln!("    note: {r}")?;
    }
    Ok(())
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
    let mut out = Vec::new();
    let mut tally = Tally::default();
    for game in PdnReader::new(BufReader::new(file)) {
        let game = game.with_context(|| format!("reading {name}"))?;
        let title = format!(
            "{name}: game {} ({}{})",
            game.number,
            game.tag("Event").unwrap_or("?").trim(),
            game.tag("Round").map_or(String::new(), |r| format!(", {}", r.trim()))
        );
        let replayed = match replay(&name, &game, forced) {
            Ok(r) => r,
            Err(e) => {
                tally.failed += 1;
                if args.json {
                    out.push(serde_json::json!({"game": game.number, "error": e.to_string()}));
                } else {
                    outln!("{title}\n  error: {e}")?;
                }
                continue;
            }
        };
        let variant = replayed.variant;
        let rules = rules_arg(args.rules, &variant)?;
        let tb = tables_for(&mut tables, &dir, variant, rules.set)?;
        let position = replayed.start;
        let counters = Counters::fresh(&rules, &position);
        let solver = match &args.solver {
            Some(side) => side.color(),
            None => winner_of(game.tag("Result").or(game.result.as_deref())).unwrap_or(position.turn()),
        };
        let proof = prove(tb, &position, &counters, solver, budget)?;
        let solution = check_solution(tb, &proof, &replayed.moves, budget)?;
        let verdict = tally.record(&proof, &solution);
        if args.json {
            let mut j = proof_summary_json(&proof);
            j["game"] = serde_json::json!(game.number);
            j["event"] = serde_json::json!(game.tag("Event"));
            j["round"] = serde_json::json!(game.tag("Round"));
            j["verdict"] = serde_json::json!(verdict);
            j["solution"] = solution_json(&solution);
            out.push(j);
        } else {
            print_composition(&title, verdict, &position, &proof, &solution, replayed.moves.len())?;
        }
    }
    if args.json {
        let doc = serde_json::json!({"file": name, "compositions": out, "summary": tally.summary()});
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        outln!("{}", tally.summary())?;
    }
    Ok(if tally.all_sound() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn print_study(s: &StudyReport, variant: Variant, rules: DrawRuleSet) -> anyhow::Result<()> {
    outln!("study {} ({}, {} rules)", s.position.fen(), variant.name, rules)?;
    let v = &s.verdict;
    let result = match v.exact {
        Wld::Win => format!("{} to move wins", side_name(&s.position)),
        Wld::Draw => format!("{} to move draws", side_name(&s.position)),
        Wld::Loss => format!("{} to move loses", side_name(&s.position)),
    };
    let theory = match (v.theoretical.wld(), v.theoretical.plies()) {
        (Wld::Draw, _) | (_, None) => v.theoretical.wld().word().to_string(),
        (w, Some(p)) => format!("{} in {}", w.word(), plies(p)),
    };
    outln!("verdict: {result} (theory: {theory})")?;
    if let Some((article, left)) = v.count {
        let secured = match v.within.decided() {
            Some((_, p)) if v.exact != Wld::Draw => format!("; the result is secured within it in {}", plies(p)),
            _ => String::new(),
        };
        let decides = if v.rule_decides() { " (it decides the result)" } else { "" };
        outln!("count: {article}, {} left{decides}{secured}", plies(left))?;
    }
    match s.keys.len() {
        0 => outln!("key move: none")?,
        1 => outln!("key move: {} (the only one)", s.keys[0])?,
        n => outln!("key moves ({n}): {}", s.keys.join(", "))?,
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
        LineEnd::Cut(n) => format!("still drawn after {}", plies(n as u64)),
    };
    outln!("main line: {}; {end}", line.trim_end())?;
    if s.is_sound() {
        outln!("sound: one key move, no duals in the main line")?;
    } else {
        outln!("not sound:")?;
        for f in &s.faults {
            outln!("  {f}")?;
        }
    }
    Ok(())
}
