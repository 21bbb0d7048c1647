//! The analysis written out: a readable text report, the games as PDN with the verdicts
//! in comments (read back by [`crate::PdnReader`] to the same games), or JSON whose
//! schema is documented in `analyze/JSON.md`.

use std::collections::BTreeSet;
use std::io::{self, Write};

use kabe_probe::{Color, Position, Wld};

use crate::analysis::{GameOutcome, Summary};
use crate::annotate::{repetition_article, GameAnnotation, MoveError, PositionNote};
use crate::pdn::PdnGame;
use crate::repetition::RepetitionEffect;
use crate::replay::{move_number, move_number_of, Problem};

/// Output formats of `kabe analyze`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Readable text.
    Text,
    /// PDN with comments.
    Pdn,
    /// JSON (`analyze/JSON.md`).
    Json,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "text" => Ok(Format::Text),
            "pdn" => Ok(Format::Pdn),
            "json" => Ok(Format::Json),
            other => Err(format!("unknown format '{other}' (text, pdn, json)")),
        }
    }
}

/// Writes games as they are analysed, then the summary.
pub trait Report {
    /// One game and what became of it.
    fn game(&mut self, file: &str, game: &PdnGame, outcome: &GameOutcome) -> io::Result<()>;
    /// The end: counts and missing tables.
    fn finish(&mut self, summary: &Summary) -> io::Result<()>;
}

/// The report of `format` written to `out`.
pub fn report<'w>(format: Format, out: Box<dyn Write + 'w>) -> Box<dyn Report + 'w> {
    match format {
        Format::Text => Box::new(TextReport { out, skipped_named: BTreeSet::new() }),
        Format::Pdn => Box::new(PdnReport { out }),
        Format::Json => Box::new(JsonReport { out, games: 0 }),
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// "White wins in 7", "draw", "Black wins in 12" from the side to move's result.
fn absolute(position: &Position, result: Wld, plies: Option<u16>) -> String {
    let winner = match result {
        Wld::Win => position.turn(),
        Wld::Loss => position.turn().opposite(),
        Wld::Draw => return Wld::Draw.to_string(),
    };
    match plies {
        Some(0) => format!("{} has won", color_name(winner)),
        Some(p) => format!("{} wins in {p}", color_name(winner)),
        None => format!("{} wins", color_name(winner)),
    }
}

/// What the rules do here, in words: the count that decides, a repetition.
fn rule_note(annotation: &GameAnnotation, start: &Position, note: &PositionNote) -> String {
    let mut parts = Vec::new();
    if note.verdict.rule_decides()
        && let Some((article, left)) = note.verdict.count
    {
        parts
            .push(format!("{article} decides: count runs out at {}", move_number(start, note.ply + usize::from(left))));
    }
    match note.repetition {
        Some(RepetitionEffect::Draws) => {
            parts.push(format!("a third repetition draws ({})", repetition_article(annotation.rules)))
        }
        Some(RepetitionEffect::Unresolved) => parts.push("repetition not searched to the end".to_string()),
        None if note.occurrences >= 2 => parts.push(format!("position seen {} times", note.occurrences)),
        None => {}
    }
    parts.join("; ")
}

fn error_text(position: &Position, e: &MoveError) -> String {
    let what = match (e.from, e.to) {
        (Wld::Win, Wld::Draw) => "throws the win away: now a draw",
        (Wld::Win, _) => "throws the win away: now lost",
        _ => "loses a drawn position",
    };
    let best = match e.best_win_plies {
        Some(p) => format!("{} wins in {p}", e.best),
        None => format!("{} holds the draw", e.best),
    };
    format!("{} {what}; {best}", color_name(position.turn()))
}

fn mark(e: &MoveError) -> &'static str {
    if e.from == Wld::Win && e.to == Wld::Loss {
        "??"
    } else {
        "?"
    }
}

fn table_start(annotation: &GameAnnotation) -> Option<&PositionNote> {
    annotation.positions.first()
}

struct TextReport<'w> {
    out: Box<dyn Write + 'w>,
    /// (file, GameType) pairs already named: a file of skipped games says so once.
    skipped_named: BTreeSet<(String, String)>,
}

impl Report for TextReport<'_> {
    fn game(&mut self, file: &str, game: &PdnGame, outcome: &GameOutcome) -> io::Result<()> {
        let out = &mut self.out;
        let result = game.result.as_deref().unwrap_or("*");
        write!(out, "{file}, game {}: {}", game.number, game.players())?;
        if let Some(event) = game.tag("Event").map(str::trim).filter(|e| !e.is_empty() && *e != "?") {
            write!(out, " ({event})")?;
        }
        write!(out, ", {result}")?;
        match outcome {
            GameOutcome::Failed(e) => writeln!(out, "\n  not analysed: {}", e.problem)?,
            GameOutcome::Skipped(e) if matches!(e.problem, Problem::TooLarge { .. }) => {
                writeln!(out, "\n  line {}: {}", e.line, e.problem)?
            }
            GameOutcome::Skipped(e) => {
                let tag = game.tag("GameType").unwrap_or_default().to_string();
                if self.skipped_named.insert((file.to_string(), tag)) {
                    writeln!(out, "\n  {} (and every game of this GameType in this file)", e.problem)?;
                } else {
                    writeln!(out, ", skipped")?;
                }
            }
            GameOutcome::NoTables { replay } => {
                writeln!(out, " ({})\n  no tables for {} are open", replay.variant.name, replay.variant.name)?
            }
            GameOutcome::Analysed { replay, annotation } => {
                let guessed = if replay.guessed { ", no GameType: guessed from its squares" } else { "" };
                writeln!(out, " ({}{guessed}, {} rules)", replay.variant.name, annotation.rules.name())?;
                for (line, text) in &game.errors {
                    writeln!(out, "  line {line}: skipped '{text}'")?;
                }
                if let Some(end) = annotation.ended {
                    let why = if end.repetition { "third repetition" } else { "the count ran out" };
                    writeln!(
                        out,
                        "  drawn by {} at {} ({why}); the moves after it are not analysed",
                        end.article,
                        move_number(&replay.start, end.ply)
                    )?;
                }
                let Some(first) = table_start(annotation) else {
                    writeln!(
                        out,
                        "  no position within table range ({})",
                        kabe_probe::notation::plies(replay.moves.len() as u64)
                    )?;
                    return Ok(());
                };
                writeln!(
                    out,
                    "  in the tables from {} ({} pieces); {} positions, {} move(s) changed the verdict{}",
                    first.move_number,
                    first.position.piece_count(),
                    annotation.positions.len(),
                    annotation.errors().count(),
                    if annotation.from_setup { "; counts start at the setup" } else { "" }
                )?;
                writeln!(
                    out,
                    "  {:<7} {:<12} {:<18} {:<25} {:<14} notes",
                    "move", "played", "exact (rules)", "theory (no counts)", "counts (plies)"
                )?;
                for note in &annotation.positions {
                    let played = match &note.played {
                        Some(m) => format!("{}{}", m.text, m.error.as_ref().map_or("", mark)),
                        None => "end".to_string(),
                    };
                    let exact = absolute(&note.position, note.exact, note.exact_plies());
                    let theory =
                        absolute(&note.position, note.verdict.theoretical.wld(), note.verdict.theoretical.plies());
                    let mut extra = rule_note(annotation, &replay.start, note);
                    if let Some(e) = note.played.as_ref().and_then(|m| m.error.as_ref()) {
                        if !extra.is_empty() {
                            extra.push_str("; ");
                        }
                        extra.push_str(&error_text(&note.position, e));
                    }
                    writeln!(
                        out,
                        "  {:<7} {:<12} {:<18} {:<25} {:<14} {extra}",
                        note.move_number,
                        played,
                        exact,
                        theory,
                        note.counters.describe(&replay.variant)
                    )?;
                }
                for s in &annotation.missing {
                    writeln!(out, "  table missing: {} {s}", replay.variant.name)?;
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        writeln!(
            self.out,
            "\n{} games read, {} analysed, {} skipped, {} failed; {} positions in the tables, {} move(s) changed the exact verdict, {} game(s) ended by a draw rule",
            s.read, s.analysed, s.skipped, s.failed, s.positions, s.errors, s.ended_by_rule
        )?;
        write_missing(&mut self.out, s, "")?;
        self.out.flush()
    }
}

fn write_missing(out: &mut dyn Write, s: &Summary, prefix: &str) -> io::Result<()> {
    for (file, error) in &s.unreadable_files {
        writeln!(out, "{prefix}unreadable: {file}: {error}")?;
    }
    for (file, game_type) in &s.skipped_game_types {
        let name = crate::replay::game_type_name(game_type).map(|n| format!(" ({n})")).unwrap_or_default();
        writeln!(out, "{prefix}skipped: {file}: GameType {game_type}{name}, a game kabe does not play")?;
    }
    for v in &s.variants_without_tables {
        writeln!(
            out,
            "{prefix}no {v} tables: build them with `kabe generate --variant {v}` or analyse with --generate"
        )?;
    }
    if !s.missing.is_empty() {
        let names: Vec<String> = s.missing.iter().map(|(v, sig)| format!("{v} {sig}")).collect();
        writeln!(out, "{prefix}missing tables ({}): {}", names.len(), names.join(", "))?;
    }
    Ok(())
}

struct PdnReport<'w> {
    out: Box<dyn Write + 'w>,
}

/// A comment's text: PDN comments end at the first `}`.
fn comment(text: &str) -> String {
    format!("{{{}}}", text.replace('}', ")").replace('{', "("))
}

fn pdn_escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Wraps PDN movetext tokens at 79 columns.
struct Wrapped<'a> {
    out: &'a mut dyn Write,
    column: usize,
}

impl Wrapped<'_> {
    fn token(&mut self, t: &str) -> io::Result<()> {
        if self.column > 0 && self.column + 1 + t.len() > 79 {
            writeln!(self.out)?;
            self.column = 0;
        }
        if self.column > 0 {
            write!(self.out, " ")?;
            self.column += 1;
        }
        write!(self.out, "{t}")?;
        self.column += t.chars().count();
        Ok(())
    }
}

impl Report for PdnReport<'_> {
    fn game(&mut self, _file: &str, game: &PdnGame, outcome: &GameOutcome) -> io::Result<()> {
        for (name, value) in &game.tags {
            writeln!(self.out, "[{name} \"{}\"]", pdn_escape(value))?;
        }
        writeln!(self.out)?;
        let mut w = Wrapped { out: &mut *self.out, column: 0 };
        if let Some(setup) = &game.setup {
            w.token(&format!("/FEN \"{}\"/", pdn_escape(setup)))?;
        }
        for piece in &game.preamble {
            w.token(piece)?;
        }
        let (start, annotation) = match outcome {
            GameOutcome::Analysed { replay, annotation } => {
                let lead = match table_start(annotation) {
                    Some(first) => format!(
                        "kabe: {} rules, tables from {} ({} pieces), {} move(s) changed the verdict",
                        annotation.rules.name(),
                        first.move_number,
                        first.position.piece_count(),
                        annotation.errors().count()
                    ),
                    None => format!("kabe: {} rules, no position within table range", annotation.rules.name()),
                };
                w.token(&comment(&lead))?;
                (Some(replay.start), Some(annotation))
            }
            GameOutcome::NoTables { replay } => {
                w.token(&comment(&format!("kabe: no {} tables open", replay.variant.name)))?;
                (Some(replay.start), None)
            }
            GameOutcome::Failed(e) | GameOutcome::Skipped(e) => {
                w.token(&comment(&format!("kabe: not analysed: {}", e.problem)))?;
                (None, None)
            }
        };
        let mut need_number = true;
        for (ply, text) in game.moves.iter().enumerate() {
            let note = annotation.and_then(|a| a.positions.iter().find(|n| n.ply == ply));
            let (number, opens) = start.as_ref().map_or((ply / 2 + 1, ply % 2 == 0), |s| move_number_of(s, ply));
            if opens {
                w.token(&format!("{number}."))?;
            } else if need_number {
                w.token(&format!("{number}..."))?;
            }
            let error = note.and_then(|n| n.played.as_ref()).and_then(|m| m.error.as_ref());
            // The player's marks, else kabe's where the move changed the verdict.
            let marks = if text.marks.is_empty() { error.map_or("", mark) } else { text.marks.as_str() };
            w.token(&format!("{}{marks}", text.text))?;
            need_number = false;
            // The game's own comments, variations and NAGs, as written.
            for piece in &text.after {
                w.token(piece)?;
                need_number = true;
            }
            if let (Some(note), Some(annotation), Some(start)) = (note, annotation, start.as_ref()) {
                // The verdict after the move, as the next position's note says; the error, if any.
                let mut parts = Vec::new();
                if let Some(e) = error {
                    parts.push(error_text(&note.position, e));
                }
                if let Some(next) = annotation.positions.iter().find(|n| n.ply == ply + 1) {
                    let mut after = absolute(&next.position, next.exact, next.exact_plies());
                    let theory =
                        absolute(&next.position, next.verdict.theoretical.wld(), next.verdict.theoretical.plies());
                    if next.exact != next.verdict.theoretical.wld() {
                        after.push_str(&format!(" (theory: {theory})"));
                    } else if let (None, Some(dtw)) = (next.exact_plies(), next.verdict.theoretical.plies()) {
                        // Won within the counts, by a line the counts may lengthen: the DTW.
                        after.push_str(&format!(" (DTW {dtw})"));
                    }
                    let rules = rule_note(annotation, start, next);
                    if !rules.is_empty() {
                        after.push_str(&format!("; {rules}"));
                    }
                    parts.push(after);
                }
                if !parts.is_empty() {
                    w.token(&comment(&parts.join("; ")))?;
                    need_number = true;
                }
            }
        }
        if let Some(end) = annotation.and_then(|a| a.ended) {
            let why = if end.repetition { "third repetition" } else { "count ran out" };
            w.token(&comment(&format!("kabe: drawn by {} ({why})", end.article)))?;
        }
        w.token(game.result.as_deref().unwrap_or("*"))?;
        writeln!(self.out, "\n")
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        // A trailing comment outside any game: the reader skips it.
        let mut text = Vec::new();
        writeln!(text, "{} games read, {} analysed, {} skipped, {} failed", s.read, s.analysed, s.skipped, s.failed)?;
        write_missing(&mut text, s, "")?;
        writeln!(self.out, "{}", comment(&format!("kabe summary: {}", String::from_utf8_lossy(&text).trim())))?;
        self.out.flush()
    }
}

struct JsonReport<'w> {
    out: Box<dyn Write + 'w>,
    games: usize,
}

impl Report for JsonReport<'_> {
    fn game(&mut self, file: &str, game: &PdnGame, outcome: &GameOutcome) -> io::Result<()> {
        // Written game by game, so memory stays flat for any number of games.
        if self.games == 0 {
            writeln!(self.out, "{{\"schema\":\"kabe-analysis/1\",\"games\":[")?;
        } else {
            writeln!(self.out, ",")?;
        }
        self.games += 1;
        serde_json::to_writer(&mut self.out, &crate::json::game_json(file, game, outcome))?;
        Ok(())
    }

    fn finish(&mut self, s: &Summary) -> io::Result<()> {
        if self.games == 0 {
            write!(self.out, "{{\"schema\":\"kabe-analysis/1\",\"games\":[")?;
        }
        writeln!(self.out, "\n],\"summary\":{}}}", crate::json::summary_json(s))?;
        self.out.flush()
    }
}
