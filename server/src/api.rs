//! The API's answers: a position with every move's verdict, and a line of best play.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::Json;
use kabe_analyze::json::{color_word, proof_summary_json};
use kabe_analyze::present::{BestLine, ProbeAnswer};
use kabe_analyze::prove::{prove, Budget, ProveError};
use kabe_probe::request::{read_rules, Field, Game, Limits, ProbeRequest, RequestError};
use kabe_probe::rules::exact::MoveVerdict;
use kabe_probe::table::TableError;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Color, Counters, DrawRuleSet, DrawRules, NotationStyle, PieceKind, Position, Square, Variant};
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::Explorer;

/// Longest line of best play returned (a draw no count ends stops here).
const MAX_LINE: usize = 300;

/// What a request asks about: a position of a variant, under a rule set, with counts.
#[derive(Clone, Debug, Default)]
pub struct Question {
    /// Variant name, as in the path.
    pub variant: String,
    /// The position.
    pub fen: Option<String>,
    /// Draw rules (default: the variant's own).
    pub rules: Option<String>,
    /// Counts, as `6.3=20` (default: all start now).
    pub counters: Option<String>,
    /// Nodes per first move for the proof search (default [`PROVE_NODES`]).
    pub nodes: Option<String>,
}

/// The proof search's nodes per first move when a request does not say.
pub const PROVE_NODES: usize = 100_000;
/// The most nodes per first move a request may ask for (about 100 bytes a node, one
/// search per core at a time).
pub const MAX_PROVE_NODES: usize = 2_000_000;
/// Wall-clock time of one proof search, within the server's request timeout.
const PROVE_TIME: std::time::Duration = std::time::Duration::from_secs(6);

/// A question read: the tablebase applying the rules, and the position with its counters.
struct Asked<'a> {
    tb: &'a Tablebase,
    asked: kabe_probe::request::Asked,
}

/// A request's field that cannot be read, as the API says it: an unknown variant is not
/// found, the rest a bad request of its field's kind.
fn request_error(e: RequestError) -> ApiError {
    match e {
        RequestError::Variant { .. } => ApiError::NotFound(e.to_string()),
        RequestError::MissingFen => ApiError::bad("missing_fen", "fen: give a position, e.g. ?fen=W:WK46,K47,K48:BK5"),
        e => {
            let kind = match e.field() {
                Field::Variant | Field::Rules => "bad_rules",
                Field::Fen => "bad_fen",
                Field::Counters => "bad_counters",
            };
            ApiError::bad(kind, e.to_string())
        }
    }
}

/// The question read through the one probe request every front end reads, the variant
/// first checked against the tables served.
fn read<'a>(explorer: &'a Explorer, q: &Question) -> Result<Asked<'a>, ApiError> {
    let request = ProbeRequest {
        game: Game::Named(&q.variant),
        rules: q.rules.as_deref(),
        fen: q.fen.as_deref(),
        counters: q.counters.as_deref(),
        limits: Limits::QUERY,
    };
    let variant = request.variant().map_err(request_error)?;
    read_rules(request.rules, &variant).map_err(request_error)?;
    let tb = explorer.tablebase();
    if tb.draw_rules(&variant).is_none() {
        return Err(ApiError::NotFound(format!(
            "no {} tables here (variants served: see /api/variants)",
            variant.name
        )));
    }
    Ok(Asked { tb, asked: request.read().map_err(request_error)? })
}

fn probe_error(tb: &Tablebase, e: ProbeError) -> ApiError {
    let message = relative_to(tb.dir(), &e.to_string());
    match e {
        ProbeError::TooManyPieces { .. } => ApiError::Unanswerable { kind: "too_many_pieces", message },
        ProbeError::NoTable { .. } | ProbeError::Table(TableError::Missing { .. } | TableError::FlipMissing { .. }) => {
            ApiError::Unanswerable { kind: "missing_table", message }
        }
        ProbeError::VariantNotOpen { .. } => ApiError::NotFound(message),
        ProbeError::Counters(e) => ApiError::bad("bad_counters", format!("counters: {e}")),
        _ => ApiError::Table(message),
    }
}

/// `message` with the table directory left out of the paths it names: a client is told
/// `international/0111.dtw.kabe`, not where the server keeps its files. Only a path that
/// starts with the directory loses it, and the directory itself only as the value of
/// `--tables` (a directory `tables` leaves "the tables" alone).
fn relative_to(dir: &std::path::Path, message: &str) -> String {
    let dir = dir.display().to_string();
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        return message.to_string();
    }
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(dir) {
        let before = out.chars().last();
        let (head, tail) = (&rest[..at], &rest[at + dir.len()..]);
        out.push_str(head);
        let before = head.chars().last().or(before);
        let starts_path = before.is_none_or(|c| c.is_whitespace() || "(`'\"=".contains(c));
        let after_flag = head.ends_with("--tables ");
        match tail.chars().next() {
            Some('/') if starts_path => rest = &tail[1..],
            None | Some(' ' | '`' | '\'' | '"' | ')' | ';' | ',') if after_flag => {
                out.push_str("<table directory>");
                rest = tail;
            }
            _ => {
                out.push_str(dir);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod relative_tests {
    #[test]
    fn the_table_directory_is_left_out_of_messages_as_whole_path_components() {
        let path = std::path::Path::new;
        let message = "d/international/0111.dtw.kabe: table file missing (d/international/1101.dtw.kabe keeps \
                       no values and reads them here); build it with `kabe generate --tables d`";
        assert_eq!(
            super::relative_to(path("d"), message),
            "international/0111.dtw.kabe: table file missing (international/1101.dtw.kabe keeps no values and \
             reads them here); build it with `kabe generate --tables <table directory>`"
        );
        assert_eq!(super::relative_to(path("/srv/t/"), "/srv/t/russian/0101.wld.kabe: x"), "russian/0101.wld.kabe: x");
        assert_eq!(super::relative_to(path("t"), "at t2/x and t/x"), "at t2/x and x");
        let words = "the tablebase has no russian tables (open variants: none): rebuild the tables";
        assert_eq!(super::relative_to(path("tables"), words), words);
        assert_eq!(super::relative_to(path("kabe"), "build it with `kabe generate`"), "build it with `kabe generate`");
    }
}

fn square_name(variant: &Variant, s: Square) -> String {
    kabe_probe::notation::square_name(variant, s)
}

/// A board as a page draws it: its size, notation and every playable square with kabe's
/// number, the game's number and name and the cell it is drawn in, so that a client needs
/// no geometry of its own (diagonal, orthogonal or mirrored).
fn board_json(variant: &Variant) -> Value {
    let cells: Vec<Value> = (1..=u32::from(variant.squares()))
        .filter_map(|n| Square::from_number(n, variant.squares()))
        .map(|s| {
            let (row, col) = kabe_probe::notation::square_cell(variant, s);
            json!({
                "square": s.number(),
                "number": variant.square_number(s),
                "name": square_name(variant, s),
                "row": row,
                "col": col,
            })
        })
        .collect();
    json!({
        "width": variant.board.width(),
        "squares": variant.squares(),
        "kind": if variant.board.is_orthogonal() { "orthogonal" } else { "diagonal" },
        "notation": if variant.notation == NotationStyle::Numeric { "numeric" } else { "algebraic" },
        "cells": cells,
    })
}

fn pieces_json(position: &Position) -> Value {
    let variant = position.variant();
    let mut pieces = Vec::new();
    for color in [Color::White, Color::Black] {
        for kind in [PieceKind::Man, PieceKind::King] {
            for s in position.squares_of(color, kind) {
                pieces.push(json!({
                    "square": s.number(),
                    "name": square_name(variant, s),
                    "color": color_word(color),
                    "king": kind == PieceKind::King,
                }));
            }
        }
    }
    pieces.sort_by_key(|p| p["square"].as_u64());
    Value::Array(pieces)
}

/// Every count of the rule set at this position: its plies, limit and meaning.
fn counts_json(rules: &DrawRules, counters: &Counters) -> Value {
    let mut counts = Vec::new();
    if let Some(reset) = rules.reset {
        let what = match reset.reset_by {
            kabe_probe::rules::ResetBy::ManMoveOrCapture => "moves of kings only, without a capture",
            kabe_probe::rules::ResetBy::MaterialChange => "moves without a capture or a promotion",
        };
        counts.push(json!({
            "article": reset.article,
            "plies": counters.reset_plies,
            "limit": reset.limit_plies,
            "running": counters.material.is_none(),
            "meaning": format!("{}: plies played in a row with {what}; a draw at {}", reset.article, reset.limit_plies),
        }));
    }
    if let Some(c) = counters.material {
        let rule = &rules.material[c.rule];
        counts.push(json!({
            "article": rule.article,
            "plies": c.plies,
            "limit": rule.max_plies(),
            "running": true,
            "strong": c.strong.map(color_word),
            "meaning": format!(
                "{}: plies since this material (kings against a lone king) arose; a draw at {}{}",
                rule.article,
                rule.max_plies(),
                if rule.persistence == kabe_probe::rules::Persistence::UntilGameEnds {
                    ", whatever is captured meanwhile"
                } else {
                    ""
                }
            ),
        }));
    }
    Value::Array(counts)
}

/// What the page needs of a move beyond `kabe probe --json`'s: its path, the pieces it
/// takes, and the position, counts and distances after it.
fn add_move_detail(value: &mut Value, m: &MoveVerdict) {
    let variant = m.position.variant();
    let mut path = vec![m.mv.from().number()];
    path.extend(m.mv.landings().map(|s| s.number()));
    if path.len() == 1 {
        path.push(m.mv.to().number()); // a quiet move has no landings of captures
    }
    value["path"] = json!(path);
    value["captured"] = json!(m.mv.captured_squares(variant).map(|s| s.number()).collect::<Vec<_>>());
    value["fen_after"] = json!(m.position.fen());
    value["counters_after"] = json!(m.counters.describe_at(&m.position));
    value["within_count_plies"] = json!(m.child.within.decided().map(|(_, p)| p + 1));
    value["theoretical_plies"] = json!(m.child.theoretical.plies().map(|p| p + 1));
}

/// Everything about one position: the probe answer of `kabe probe --json` (without the
/// line), with the side to move, the board, the pieces, the counts and each move's detail.
pub fn explore(explorer: &Explorer, q: &Question) -> Result<Value, ApiError> {
    let Asked { tb, asked } = read(explorer, q)?;
    let answer = ProbeAnswer::probe(tb, &asked, None).map_err(|e| probe_error(tb, e))?;
    let p = &answer.position;
    let mut value = answer.to_json();
    value["turn"] = json!(color_word(p.turn()));
    value["board"] = board_json(p.variant());
    value["pieces"] = pieces_json(p);
    value["counts"] = counts_json(&asked.rules, &asked.counters);
    for (json, m) in value["moves"].as_array_mut().into_iter().flatten().zip(&answer.moves) {
        add_move_detail(json, m);
    }
    Ok(value)
}

/// A line of best play from the position to the end of the game, until a count draws
/// it, or for [`MAX_LINE`] plies of a draw that nothing ends.
pub fn mainline(explorer: &Explorer, q: &Question) -> Result<Value, ApiError> {
    let Asked { tb, asked } = read(explorer, q)?;
    Ok(BestLine::probe(tb, &asked, MAX_LINE).map_err(|e| probe_error(tb, e))?.to_json())
}

/// A proof by search that the side to move wins, for a position of any size: every
/// first move searched down into the tables within the request's node budget and a time
/// limit (the record of `kabe study --json` beyond the tables, without the proof tree).
pub fn proof(explorer: &Explorer, q: &Question) -> Result<Value, ApiError> {
    let Asked { tb, asked } = read(explorer, q)?;
    let nodes = match q.nodes.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        None => PROVE_NODES,
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=MAX_PROVE_NODES).contains(&n) => n,
            _ => {
                let shown: String = text.chars().take(20).collect();
                return Err(ApiError::bad(
                    "bad_nodes",
                    format!("nodes: '{shown}': give a whole number from 1 to {MAX_PROVE_NODES}"),
                ));
            }
        },
    };
    let p = &asked.position;
    if p.legal_moves().is_empty() {
        return Err(ApiError::bad("no_moves", "fen: the side to move has no legal move: nothing to prove"));
    }
    let budget = Budget { nodes, time: Some(PROVE_TIME) };
    let found = prove(tb, p, &asked.counters, p.turn(), budget).map_err(|e| match e {
        ProveError::Probe(e) => probe_error(tb, e),
        other => ApiError::Table(relative_to(tb.dir(), &other.to_string())),
    })?;
    let mut answer = proof_summary_json(&found);
    if let Some(map) = answer.as_object_mut() {
        map.insert("variant".into(), json!(p.variant().name));
        map.insert("rules".into(), json!(asked.rules.set.name()));
        map.insert("tables_reach".into(), json!(tb.max_pieces_of(p.variant())));
    }
    Ok(answer)
}

fn question(variant: String, mut params: HashMap<String, String>) -> Question {
    Question {
        variant,
        fen: params.remove("fen"),
        rules: params.remove("rules"),
        counters: params.remove("counters"),
        nodes: params.remove("nodes"),
    }
}

/// Runs a probe on the blocking pool: table reads may wait on the disk.
async fn blocking(
    explorer: Arc<Explorer>,
    q: Question,
    f: fn(&Explorer, &Question) -> Result<Value, ApiError>,
) -> Result<Json<Value>, ApiError> {
    tokio::task::spawn_blocking(move || f(&explorer, &q))
        .await
        .map_err(|e| ApiError::Table(format!("the probe failed: {e}")))?
        .map(Json)
}

pub(crate) async fn position(
    State(explorer): State<Arc<Explorer>>,
    Path(variant): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    blocking(explorer, question(variant, params), explore).await
}

pub(crate) async fn line(
    State(explorer): State<Arc<Explorer>>,
    Path(variant): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    blocking(explorer, question(variant, params), mainline).await
}

pub(crate) async fn prove_position(
    State(explorer): State<Arc<Explorer>>,
    Path(variant): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    blocking(explorer, question(variant, params), proof).await
}

pub(crate) async fn variants(State(explorer): State<Arc<Explorer>>) -> Json<Value> {
    let list: Vec<Value> = explorer
        .variants()
        .into_iter()
        .map(|(v, pieces)| {
            json!({
                "name": v.name,
                "board": board_json(&v),
                "pieces": pieces,
                "default_rules": DrawRuleSet::usual_for(&v).name(),
                "rules": DrawRuleSet::ALL.iter().filter(|s| s.applies_to(&v)).map(|s| s.name()).collect::<Vec<_>>(),
            })
        })
        .collect();
    Json(json!({ "variants": list }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board the page may draw: each playable square once, in its own cell on the
    /// board, named as the notation reads it back, and on a diagonal board on a dark cell
    /// (a1 dark, as the games place the board; mirrored: a1 light).
    #[test]
    fn board_cells_place_and_name_every_square_once() {
        for variant in Variant::ALL {
            let board = board_json(&variant);
            let cells = board["cells"].as_array().expect("cells");
            assert_eq!(cells.len(), usize::from(variant.squares()), "{}", variant.name);
            let width = u64::from(variant.board.width());
            let mut seen = std::collections::HashSet::new();
            for c in cells {
                let (row, col) = (c["row"].as_u64().expect("row"), c["col"].as_u64().expect("col"));
                assert!(row < width && col < width, "{}: {c}", variant.name);
                assert!(seen.insert((row, col)), "{}: two squares in one cell: {c}", variant.name);
                let name = c["name"].as_str().expect("name");
                let read = kabe_probe::notation::parse_square(&variant, name).expect("name reads back");
                assert_eq!(u64::from(read), c["square"].as_u64().expect("square"), "{}: {c}", variant.name);
                let number = c["number"].as_u64().expect("number").to_string();
                let read = kabe_probe::notation::parse_square(&variant, &number).expect("number reads back");
                assert_eq!(u64::from(read), c["square"].as_u64().expect("square"), "{}: {c}", variant.name);
                if !variant.board.is_orthogonal() {
                    // a1 (row width-1, col 0) is played on a standard board, not on a mirrored one
                    let coloured_as_a1 = (row + col) % 2 == (width - 1) % 2;
                    assert_eq!(coloured_as_a1, !variant.mirrored_board, "{}: {c}", variant.name);
                }
            }
        }
    }
}
