//! A file of compositions checked: each one proved and its published solution followed
//! ([`Composition`]), and what the file comes to ([`Tally`]), with JSON and text.

use std::fmt;

use kabe_probe::notation::plies;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Color, Counters, DrawRules, Position};
use serde_json::{json, Value};

use super::study::{duals_text, first_move_failing, numbered_line};
use crate::json::{proof_summary_json, solution_json};
use crate::prove::{check_solution, prove, Budget, Outcome, PositionProof, ProveError, SolutionCheck};
use crate::{PdnGame, Replay};

/// The winner a PDN Result tag names, if it names one.
pub fn winner_of(result: Option<&str>) -> Option<Color> {
    match result.map(str::trim) {
        Some("1-0" | "2-0") => Some(Color::White),
        Some("0-1" | "0-2") => Some(Color::Black),
        _ => None,
    }
}

/// A composition proved and its published solution checked.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Its position.
    pub position: Position,
    /// What the search found.
    pub proof: PositionProof,
    /// The published solution followed through the proofs.
    pub solution: SolutionCheck,
    /// Plies of the published solution.
    pub published_plies: usize,
}

impl Checked {
    /// The composition's verdict in words: `sound`, `cooked`, `refuted`, `unresolved`.
    pub fn verdict(&self) -> &'static str {
        match (self.proof.wins(), self.proof.keys().count()) {
            (Some(true), 1) => "sound",
            (Some(true), 0) => "sound (every first move of the defender loses)",
            (Some(true), _) => "cooked",
            (Some(false), _) => "refuted",
            (None, _) => "unresolved",
        }
    }
}

/// One game of a file of compositions: proved and checked, or why it could not be read.
#[derive(Clone, Debug)]
pub struct Composition {
    /// Its number in the file, from 1.
    pub number: usize,
    /// `FILE: game N (EVENT, ROUND)`.
    pub title: String,
    /// Its Event tag.
    pub event: Option<String>,
    /// Its Round tag.
    pub round: Option<String>,
    /// What checking it found, or why its moves could not be replayed.
    pub checked: Result<Checked, String>,
}

impl Composition {
    fn titled(file: &str, game: &PdnGame, checked: Result<Checked, String>) -> Composition {
        let round = game.tag("Round").map_or(String::new(), |r| format!(", {}", r.trim()));
        let event = game.tag("Event").unwrap_or("?").trim();
        Composition {
            number: game.number,
            title: format!("{file}: game {} ({event}{round})", game.number),
            event: game.tag("Event").map(str::to_string),
            round: game.tag("Round").map(str::to_string),
            checked,
        }
    }

    /// A game of `file` whose moves could not be replayed, with why.
    pub fn unreadable(file: &str, game: &PdnGame, error: &dyn std::error::Error) -> Composition {
        Composition::titled(file, game, Err(error.to_string()))
    }

    /// The game `replayed` of `file` proved for `solver` (default: the side the Result tag
    /// names, else the side to move) with fresh counts under `rules`, and its published
    /// solution checked, each search within `budget`.
    ///
    /// # Errors
    /// The search's [`ProveError`] (a table missing or damaged, a proof the checker
    /// refuses).
    pub fn check(
        file: &str,
        game: &PdnGame,
        replayed: &Replay,
        tables: &Tablebase,
        rules: &DrawRules,
        solver: Option<Color>,
        budget: Budget,
    ) -> Result<Composition, ProveError> {
        let position = replayed.start;
        let counters = Counters::fresh(rules, &position);
        let result = game.tag("Result").or(game.result.as_deref());
        let solver = solver.or_else(|| winner_of(result)).unwrap_or(position.turn());
        let proof = prove(tables, &position, &counters, solver, budget)?;
        let solution = check_solution(tables, &proof, &replayed.moves, budget)?;
        let checked = Checked { position, proof, solution, published_plies: replayed.moves.len() };
        Ok(Composition::titled(file, game, Ok(checked)))
    }

    /// The proof's summary with the game's number, tags, verdict and solution; or the
    /// game's number and its error.
    pub fn to_json(&self) -> Value {
        let c = match &self.checked {
            Ok(c) => c,
            Err(e) => return json!({"game": self.number, "error": e}),
        };
        let mut j = proof_summary_json(&c.proof);
        j["game"] = json!(self.number);
        j["event"] = json!(self.event);
        j["round"] = json!(self.round);
        j["verdict"] = json!(c.verdict());
        j["solution"] = solution_json(&c.solution);
        // Against a published key the cooks are the other keys, whichever was proved first.
        let keys: Vec<&str> = c.proof.keys().map(|m| m.text.as_str()).collect();
        if let Some(published) = c.solution.published_key.as_deref().filter(|k| keys.contains(k)) {
            j["cooks"] = json!(keys.iter().filter(|k| **k != published).collect::<Vec<_>>());
        }
        j
    }
}

/// The published solution's check in lines: whether it holds, its faults and notes.
fn solution_text(c: &Checked) -> String {
    let s = &c.solution;
    let holds = if s.holds() { "holds" } else { "does not hold" };
    let mut out =
        format!("  published solution: {holds} ({} of {} checked)", s.plies_checked, plies(c.published_plies as u64));
    for fault in &s.faults {
        out += &format!("\n    fault: {fault}");
    }
    for remark in &s.remarks {
        out += &format!("\n    note: {remark}");
    }
    out
}

/// The title, verdict and time, the position, the keys with their lines, the tries and
/// the published solution: one composition of `kabe study --pdn`.
impl fmt::Display for Composition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = match &self.checked {
            Ok(c) => c,
            Err(e) => return write!(f, "{}\n  error: {e}", self.title),
        };
        let (proof, position) = (&c.proof, &c.position);
        writeln!(f, "{}: {}, {:.2} s", self.title, c.verdict(), proof.elapsed.as_secs_f64())?;
        writeln!(f, "  {}", position.fen())?;
        let keys: Vec<&str> = proof.keys().map(|m| m.text.as_str()).collect();
        let keys = if keys.is_empty() { "none".to_string() } else { keys.join(", ") };
        let published = c.solution.published_key.as_deref().unwrap_or("none");
        writeln!(f, "  keys: {keys} (published: {published})")?;
        for key in proof.keys().chain(proof.longest_defence()) {
            if let Outcome::Win(tree) = &key.outcome {
                let (line, _) = numbered_line(position, &key.text, tree);
                writeln!(f, "  {} line: {line}; {}{}", key.text, tree.main_line_end(), duals_text(position, key))?;
            }
        }
        for t in proof.tries() {
            writeln!(f, "  {}", first_move_failing(t))?;
        }
        write!(f, "{}", solution_text(c))
    }
}

/// What `kabe study --pdn` counts over a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Sound: one key (or every defence loses).
    pub sound: usize,
    /// More than one key.
    pub cooked: usize,
    /// Proved not to win.
    pub refuted: usize,
    /// Neither, within the budget.
    pub unresolved: usize,
    /// Games whose moves could not be replayed.
    pub failed: usize,
    /// Compositions with a dual in a key's main line.
    pub with_duals: usize,
    /// Compositions with a try.
    pub with_tries: usize,
    /// Published solutions that do not hold.
    pub faulty_solutions: usize,
}

impl Tally {
    /// Counts one composition.
    pub fn record(&mut self, composition: &Composition) {
        let Ok(c) = &composition.checked else {
            self.failed += 1;
            return;
        };
        self.faulty_solutions += usize::from(!c.solution.holds());
        self.with_duals += usize::from(c.proof.keys().any(|k| k.duals.iter().any(|d| !d.duals.is_empty())));
        self.with_tries += usize::from(c.proof.tries().next().is_some());
        let count = match (c.proof.wins(), c.proof.keys().count()) {
            (Some(true), 0 | 1) => &mut self.sound,
            (Some(true), _) => &mut self.cooked,
            (Some(false), _) => &mut self.refuted,
            (None, _) => &mut self.unresolved,
        };
        *count += 1;
    }

    /// Every composition counted.
    pub fn total(&self) -> usize {
        self.sound + self.cooked + self.refuted + self.unresolved + self.failed
    }

    /// Whether every composition is sound and every published solution holds.
    pub fn all_sound(&self) -> bool {
        self.total() == self.sound && self.faulty_solutions == 0
    }
}

/// The counts in one sentence.
impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Tally { sound, cooked, refuted, unresolved, failed, with_duals, with_tries, faulty_solutions } = self;
        write!(
            f,
            "{} compositions: {sound} sound, {cooked} cooked, {refuted} refuted, {unresolved} unresolved, {failed} \
             unreadable; {with_duals} with duals in the main line; {with_tries} with tries; {faulty_solutions} \
             published solutions that do not hold",
            self.total()
        )
    }
}

/// A file of compositions checked, one at a time: each shown as it is added, the tally
/// kept.
#[derive(Clone, Debug, Default)]
pub struct Collection {
    /// The file's name as given.
    pub file: String,
    /// Each composition, in the file's order.
    pub compositions: Vec<Composition>,
    /// What they come to.
    pub tally: Tally,
}

impl Collection {
    /// An empty collection of `file`.
    pub fn new(file: &str) -> Collection {
        Collection { file: file.to_string(), ..Collection::default() }
    }

    /// Counts `composition` in and keeps it; returns it, to be shown.
    pub fn add(&mut self, composition: Composition) -> &Composition {
        self.tally.record(&composition);
        self.compositions.push(composition);
        &self.compositions[self.compositions.len() - 1]
    }

    /// `{file, compositions, summary}`: `kabe study --pdn --json`.
    pub fn to_json(&self) -> Value {
        let compositions: Vec<Value> = self.compositions.iter().map(Composition::to_json).collect();
        json!({"file": self.file, "compositions": compositions, "summary": self.tally.to_string()})
    }
}

/// Every composition, then the tally: `kabe study --pdn`.
impl fmt::Display for Collection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.compositions {
            writeln!(f, "{c}")?;
        }
        write!(f, "{}", self.tally)
    }
}
