//! Perft: the number of move sequences of a given length, the standard proof of a
//! move generator. Captures with the same outcome count once.

use crate::movegen::{Move, MoveList};
use crate::position::Position;

/// Number of leaf nodes of the move tree `depth` plies deep.
///
/// ```
/// use kabe_rules::{perft, Position, Variant};
/// assert_eq!(perft(&Position::start(Variant::INTERNATIONAL), 3), 658);
/// ```
pub fn perft(position: &Position, depth: u32) -> u64 {
    // One list per ply, plus a scratch list for counting at the last ply.
    let mut lists = vec![MoveList::new(); depth as usize + 1];
    perft_with(position, depth, &mut lists)
}

fn perft_with(position: &Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    match depth {
        0 => 1,
        1 => position.count_legal_moves_using(&mut lists[0]) as u64,
        _ => {
            let (list, rest) = lists.split_first_mut().expect("one list per ply");
            position.legal_moves_into(list);
            list.iter().map(|mv| perft_with(&position.play(mv), depth - 1, rest)).sum()
        }
    }
}

/// [`perft`] counting every capture route apart: two captures that take the same pieces
/// from the same square to the same square by different paths count twice (the
/// convention of the kish engine's published Turkish counts).
pub fn perft_routes(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = position.capture_routes();
    if moves.is_empty() {
        moves = position.legal_moves().into_iter().collect();
    }
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|mv| perft_routes(&position.play(mv), depth - 1)).sum()
}

/// Perft below each legal move ("divide"), for finding where two generators differ.
pub fn perft_divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    position.legal_moves().into_iter().map(|mv| (mv, perft(&position.play(&mv), depth - 1))).collect()
}

/// One position of a perft data file with its known counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftVector {
    /// Name of the position.
    pub id: String,
    /// The position.
    pub position: Position,
    /// `(depth, nodes)` pairs.
    pub counts: Vec<(u32, u64)>,
}

/// Reads a perft data file: blocks of `id NAME`, `variant V`, `fen FEN` and
/// `perft DEPTH NODES` lines; `#` starts a comment. Errors name the line.
///
/// # Errors
/// A message naming the line (its number and text) at the first line that is not
/// `KEY VALUE`, has an unknown key or variant, gives a `fen` before its `variant` or `id`
/// or one that is not a position of the variant, or a `perft` line before any `fen` or
/// not of the form `perft DEPTH NODES` with a depth of at most 64.
pub fn parse_perft_vectors(text: &str) -> Result<Vec<PerftVector>, String> {
    let mut out: Vec<PerftVector> = Vec::new();
    let mut id: Option<String> = None;
    let mut variant: Option<crate::Variant> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let err = |what: String| format!("line {}: {what}: \"{raw}\"", n + 1);
        let Some((key, value)) = line.split_once(char::is_whitespace).map(|(k, v)| (k, v.trim())) else {
            if line.is_empty() {
                continue;
            }
            return Err(err("expected KEY VALUE".into()));
        };
        match key {
            "id" => id = Some(value.to_string()),
            "variant" => variant = Some(value.parse().map_err(|e| err(format!("{e}")))?),
            "fen" => {
                let v = variant.ok_or_else(|| err("fen before variant".into()))?;
                let position = Position::from_fen(v, value).map_err(|e| err(e.to_string()))?;
                let id = id.take().ok_or_else(|| err("fen before id".into()))?;
                out.push(PerftVector { id, position, counts: Vec::new() });
            }
            "perft" => {
                let last = out.last_mut().ok_or_else(|| err("perft before fen".into()))?;
                let mut it = value.split_whitespace().map(str::parse::<u64>);
                match (it.next(), it.next(), it.next()) {
                    (Some(Ok(d)), Some(Ok(nodes)), None) if d <= 64 => last.counts.push((d as u32, nodes)),
                    _ => return Err(err("expected perft DEPTH NODES".into())),
                }
            }
            other => return Err(err(format!("unknown key {other}"))),
        }
    }
    Ok(out)
}
