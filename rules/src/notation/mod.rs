//! Text forms: square names, FEN and move text.

pub mod fen;
pub mod movetext;

pub use crate::square_names::{algebraic_name, square_cell, square_name};
use crate::variant::Variant;

/// A count of half-moves in words: "1 ply", "7 plies".
///
/// ```
/// assert_eq!(kabe_rules::notation::plies(1u16), "1 ply");
/// assert_eq!(kabe_rules::notation::plies(0u64), "0 plies");
/// ```
pub fn plies(n: impl Into<u64>) -> String {
    match n.into() {
        1 => String::from("1 ply"),
        n => format!("{n} plies"),
    }
}

/// kabe's number of the square the game writes as `written` (numbers off the board are
/// left for validation to report as written).
pub(crate) fn kabe_number(variant: &Variant, written: u32) -> u32 {
    variant.numbered_square(written).map_or(written, |s| s.number())
}

/// Reads one square: a number `1..=n` or, on any board, an algebraic name. Returns kabe's
/// 1-based square number (the game's own on all but a mirrored board; numbers are
/// range-checked later, by validation) or a reason.
///
/// # Errors
/// The reason, as a short phrase, when the text is empty, too large a number, neither a
/// number nor a name like `c3`, a name off the board, or a light square of a diagonal
/// board.
pub fn parse_square(variant: &Variant, text: &str) -> Result<u32, &'static str> {
    let text = text.trim();
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return Err("empty square");
    }
    if bytes.iter().all(u8::is_ascii_digit) {
        let number = text.parse::<u32>().map_err(|_| "square number too large")?;
        return Ok(kabe_number(variant, number));
    }
    let file = bytes[0].to_ascii_lowercase();
    let width = variant.board.width();
    if !file.is_ascii_lowercase() || !bytes[1..].iter().all(u8::is_ascii_digit) || bytes.len() < 2 {
        return Err("not a square (expected a number or a name like c3)");
    }
    let col = file - b'a';
    let col = if variant.mirrored_board && col < width { width - 1 - col } else { col };
    let rank: u8 = text[1..].parse().map_err(|_| "bad rank")?;
    if col >= width || rank == 0 || rank > width {
        return Err("square name off the board");
    }
    let row = width - rank;
    if variant.board.is_orthogonal() {
        return Ok(row as u32 * width as u32 + col as u32 + 1);
    }
    if (row + col).is_multiple_of(2) {
        return Err("a light square (play is on the dark squares)");
    }
    Ok((row as u32) * (width as u32 / 2) + col as u32 / 2 + 1)
}
