//! A study's answer: checked within the tables ([`StudyAnswer`]), or proved by search
//! beyond them ([`ProofAnswer`]), each with its JSON and its text.

use std::fmt;

use kabe_probe::notation::plies;
use kabe_probe::{Color, DrawRuleSet, Position, Wld};
use serde_json::Value;

use crate::json::{proof_json, study_json};
use crate::prove::{main_line, BeyondTables, FirstMove, Outcome, PositionProof, ProofTree};
use crate::replay::move_number;
use crate::study::{LineEnd, StudyReport};

/// A study checked within the tables, under a rule set.
#[derive(Clone, Debug)]
pub struct StudyAnswer {
    /// What the checker found.
    pub report: StudyReport,
    /// The rule set of its counts.
    pub rules: DrawRuleSet,
}

impl StudyAnswer {
    /// The report's JSON (`kabe study --json` within the tables).
    pub fn to_json(&self) -> Value {
        study_json(&self.report)
    }
}

/// `White` or `Black`, for sentences.
pub(super) fn side_word(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The main line with move numbers, a solver's move and a new full move numbered.
fn study_line_text(s: &StudyReport) -> String {
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
    format!("main line: {}; {end}", line.trim_end())
}

/// The verdict, the count, the keys, the main line and the faults: `kabe study`.
impl fmt::Display for StudyAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.report;
        writeln!(f, "study {} ({}, {} rules)", s.position.fen(), s.position.variant().name, self.rules)?;
        let v = &s.verdict;
        let side = side_word(s.position.turn());
        let result = match v.exact {
            Wld::Win => "wins",
            Wld::Draw => "draws",
            Wld::Loss => "loses",
        };
        let theory = match (v.theoretical.wld(), v.theoretical.plies()) {
            (Wld::Draw, _) | (_, None) => v.theoretical.wld().word().to_string(),
            (w, Some(p)) => format!("{} in {}", w.word(), plies(p)),
        };
        writeln!(f, "verdict: {side} to move {result} (theory: {theory})")?;
        if let Some((article, left)) = v.count {
            let secured = match v.within.decided() {
                Some((_, p)) if v.exact != Wld::Draw => format!("; the result is secured within it in {}", plies(p)),
                _ => String::new(),
            };
            let decides = if v.rule_decides() { " (it decides the result)" } else { "" };
            writeln!(f, "count: {article}, {} left{decides}{secured}", plies(left))?;
        }
        match s.keys.len() {
            0 => writeln!(f, "key move: none")?,
            1 => writeln!(f, "key move: {} (the only one)", s.keys[0])?,
            n => writeln!(f, "key moves ({n}): {}", s.keys.join(", "))?,
        }
        writeln!(f, "{}", study_line_text(s))?;
        if s.is_sound() {
            return write!(f, "sound: one key move, no duals in the main line");
        }
        write!(f, "not sound:")?;
        for fault in &s.faults {
            write!(f, "\n  {fault}")?;
        }
        Ok(())
    }
}

/// A position proved (or not) by search down into the tables, under a rule set, with the
/// tables' reach.
#[derive(Clone, Debug)]
pub struct ProofAnswer {
    /// What the search found.
    pub proof: PositionProof,
    /// The rule set of its counts.
    pub rules: DrawRuleSet,
    /// The most pieces of the tables it searched into.
    pub reach: u32,
}

impl ProofAnswer {
    /// The proof's JSON with its tree (`kabe study --json` beyond the tables).
    pub fn to_json(&self) -> Value {
        proof_json(&self.proof)
    }

    /// Whether the study is sound: the solver wins, by one key when it moves first.
    pub fn is_sound(&self) -> bool {
        let p = &self.proof;
        p.wins() == Some(true) && (!p.solver_moves_first() || p.keys().count() == 1)
    }
}

/// The main line of a proof with move numbers, from `start` (whose first move is `key`),
/// and the defences met along it, each in words.
pub(super) fn numbered_line(start: &Position, key: &str, tree: &ProofTree) -> (String, Vec<String>) {
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

/// A first move that does not win, in words: a try and the one defence that refutes it,
/// the defences that refute it, or no win found; with the refutation's line (checked).
pub(super) fn first_move_failing(m: &FirstMove) -> String {
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
            let (line, end, size) = (r.line.join(" "), &r.end, r.disproof.size());
            format!("{}: {what}: {line} ({end}; disproof of {size} positions, replayed by the checker){open}", m.text)
        }
        (Outcome::NotWin(r), _) => {
            let (line, end, size) = (r.line.join(" "), &r.end, r.disproof.size());
            format!("{}: not a win: {line} ({end}; disproof of {size} positions)", m.text)
        }
        (Outcome::Unresolved { nodes, beyond }, _) => {
            let beyond = match beyond.is_empty() {
                true => String::new(),
                false => format!("; open beyond the tables: {}", BeyondTables::list(beyond)),
            };
            format!("{}: no win found within {nodes} nodes{beyond}", m.text)
        }
        (Outcome::Win(_), _) => format!("{}: wins", m.text),
    }
}

/// The duals along a key's main line, one line each, each line starting with a newline.
pub(super) fn duals_text(start: &Position, key: &FirstMove) -> String {
    let mut out = String::new();
    for d in &key.duals {
        let number = move_number(start, d.ply);
        if !d.duals.is_empty() {
            out += &format!("\n  dual at {number} {}: {} win too", d.played, d.duals.join(", "));
        }
        if !d.unresolved.is_empty() {
            out += &format!(
                "\n  at {number} {}: {} neither proved nor refuted (dual search)",
                d.played,
                d.unresolved.join(", ")
            );
        }
    }
    out
}

/// The proof's result in one sentence.
fn result_text(p: &PositionProof) -> String {
    let side = side_word(p.position.turn());
    let solver = side_word(p.solver);
    match (p.wins(), p.solver_moves_first()) {
        (Some(true), true) => format!("result: {side} to move wins (proved; every proof replayed by the checker)"),
        (Some(false), true) => format!("result: {side} to move does not win (every first move refuted)"),
        (None, true) => "result: unresolved: no win found within the budget".to_string(),
        (Some(true), false) => {
            format!("result: {side} to move loses: {solver} wins after every move (proved; every proof replayed)")
        }
        (Some(false), false) => format!("result: {solver} does not win: a defence holds"),
        (None, false) => "result: unresolved: not every defence is refuted within the budget".to_string(),
    }
}

/// The keys of a proof, each with its line, proof size, duals and the defences met.
fn keys_text(f: &mut fmt::Formatter<'_>, p: &PositionProof) -> fmt::Result {
    let keys: Vec<&FirstMove> = p.keys().collect();
    match keys.as_slice() {
        [] => {}
        [one] => write!(f, "\nkey move: {} (the only one)", one.text)?,
        many => {
            let texts: Vec<&str> = many.iter().map(|m| m.text.as_str()).collect();
            write!(f, "\nkey moves ({}): {} (cooked)", many.len(), texts.join(", "))?
        }
    }
    for key in &keys {
        if let Outcome::Win(tree) = &key.outcome {
            let (line, defences) = numbered_line(&p.position, &key.text, tree);
            write!(f, "\n{} line: {line}; {}", key.text, tree.main_line_end())?;
            write!(f, "\n  proof: {} positions, the win within {}", tree.size(), plies(tree.plies + 1))?;
            write!(f, "{}", duals_text(&p.position, key))?;
            for d in defences {
                write!(f, "\n  defences at {d}")?;
            }
        }
    }
    Ok(())
}

/// The search, its result, the longest defence, the keys and the other first moves:
/// `kabe study` beyond the tables.
impl fmt::Display for ProofAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.proof;
        let (fen, variant, reach) = (p.position.fen(), p.position.variant().name, self.reach);
        writeln!(f, "study {fen} ({variant}, {} rules, tables up to {reach} pieces)", self.rules)?;
        let time = p.budget.time.map_or(String::new(), |t| format!(" and {:.1} s", t.as_secs_f64()));
        let (moves, nodes, elapsed) = (p.moves.len(), p.budget.nodes, p.elapsed.as_secs_f64());
        writeln!(f, "searched each of the {moves} first moves within {nodes} nodes{time} in {elapsed:.2} s")?;
        write!(f, "{}", result_text(p))?;
        if let Some(longest) = p.longest_defence()
            && let Outcome::Win(tree) = &longest.outcome
        {
            let (line, defences) = numbered_line(&p.position, &longest.text, tree);
            write!(f, "\nlongest defence {}: {line}; {}", longest.text, tree.main_line_end())?;
            for d in defences {
                write!(f, "\n  defences at {d}")?;
            }
        }
        keys_text(f, p)?;
        let others: Vec<&FirstMove> = p.moves.iter().filter(|m| !m.outcome.is_win()).collect();
        if !others.is_empty() {
            write!(f, "\n{}:", if p.solver_moves_first() { "other first moves" } else { "defences not refuted" })?;
            for m in others {
                write!(f, "\n  {}", first_move_failing(m))?;
            }
        }
        Ok(())
    }
}
