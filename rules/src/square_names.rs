//! The names of a board's squares and where they are drawn: board geometry, below the
//! text forms of [`crate::notation`] (which re-exports these) and the positions whose
//! errors name squares.

use crate::variant::{NotationStyle, Square, Variant};

/// The name of `square` in the variant's notation: `28` or `c3`.
pub fn square_name(variant: &Variant, square: Square) -> String {
    match variant.notation {
        NotationStyle::Numeric => variant.square_number(square).to_string(),
        NotationStyle::Algebraic => algebraic_name(variant, square),
    }
}

/// Where `square` is drawn: (row, column) with row 0 the far row from White (Black's
/// side) and column 0 White's left, as the game's own board is seen from White (a
/// mirrored board is drawn mirrored).
pub fn square_cell(variant: &Variant, square: Square) -> (u8, u8) {
    let width = variant.board.width();
    let (row, col) = if variant.board.is_orthogonal() {
        (square.index() / width, square.index() % width)
    } else {
        let half = width / 2;
        let row = square.index() / half;
        (row, 2 * (square.index() % half) + if row.is_multiple_of(2) { 1 } else { 0 })
    };
    (row, if variant.mirrored_board { width - 1 - col } else { col })
}

/// The algebraic name (`a1` at White's bottom left) of `square`.
pub fn algebraic_name(variant: &Variant, square: Square) -> String {
    let (row, col) = square_cell(variant, square);
    let file = (b'a' + col) as char;
    format!("{file}{}", variant.board.width() - row)
}
