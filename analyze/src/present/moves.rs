//! The legal moves of a position ([`MoveList`]): as text, in square order, or as JSON
//! with each move's squares, captures and the position after it (`kabe moves`).

use std::fmt;

use kabe_probe::{notation, PieceKind, Position, Variant};
use serde_json::{json, Value};

/// The legal moves of a position.
#[derive(Clone, Copy, Debug)]
pub struct MoveList {
    /// The position.
    pub position: Position,
}

/// A move's squares as numbers, for sorting moves in square order.
fn sort_key(variant: &Variant, text: &str) -> Vec<u32> {
    text.split(['-', 'x', ':']).map(|s| notation::parse_square(variant, s).unwrap_or(0)).collect()
}

impl MoveList {
    /// `{variant, fen, moves}`, each move with its full notation, squares (as the game
    /// numbers them), piece, captures, promotion and the FEN after it.
    pub fn to_json(&self) -> Value {
        let (position, variant) = (&self.position, self.position.variant());
        let moves: Vec<Value> = position
            .legal_moves()
            .iter()
            .map(|m| {
                json!({
                    "move": position.move_text(m),
                    "full": notation::movetext::format(variant, m, true),
                    // Numbers as the game writes them (Italian numbers the mirrored board).
                    "from": variant.square_number(m.from()),
                    "to": variant.square_number(m.to()),
                    "piece": if m.piece() == PieceKind::King { "king" } else { "man" },
                    "captured": m.captured_squares(variant).map(|s| variant.square_number(s)).collect::<Vec<_>>(),
                    "promotes": m.promotes(),
                    "fen_after": position.play(m).fen(),
                })
            })
            .collect();
        json!({ "variant": variant.name, "fen": position.fen(), "moves": moves })
    }
}

/// One move a line, in square order; with none, who has won.
impl fmt::Display for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (position, variant) = (&self.position, self.position.variant());
        let mut texts: Vec<String> = position.legal_moves().iter().map(|m| position.move_text(m)).collect();
        texts.sort_by_key(|t| sort_key(variant, t));
        if texts.is_empty() {
            let result = if position.is_lost() { "lost" } else { "won (giveaway)" };
            return write!(f, "no legal moves: {} to move has {result}", position.turn());
        }
        write!(f, "{}", texts.join("\n"))
    }
}
