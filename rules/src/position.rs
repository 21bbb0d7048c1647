//! Positions: an unvalidated [`Setup`] and the validated [`Position`] built from it.

use std::fmt;

use crate::geometry::{Bits, Geometry};
use crate::variant::{Color, PieceKind, Square, Variant};

/// A position as written, not yet checked against a variant's rules. Square numbers
/// are the 1-based numbers of the notation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// Side to move.
    pub turn: Option<Color>,
    /// Every piece, in the order given.
    pub pieces: Vec<SetupPiece>,
}

/// One piece of a [`Setup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetupPiece {
    /// Owner.
    pub color: Color,
    /// Man or king.
    pub kind: PieceKind,
    /// Square number, 1-based, unchecked.
    pub square: u32,
}

/// Why a [`Setup`] is not a position of the variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A square number outside `1..=n`.
    #[error("square {square} is off the board (the {variant} board has squares 1-{squares})")]
    SquareOutOfRange {
        /// The number given.
        square: u32,
        /// Squares on the board.
        squares: u8,
        /// The variant's name.
        variant: &'static str,
    },
    /// Two pieces on one square.
    #[error("square {square} is used twice")]
    SquareUsedTwice {
        /// The square, as written in the variant's notation.
        square: String,
    },
    /// A man on the row where it would have been crowned.
    #[error("{color} man on {square}, its own promotion row (it would be a king)")]
    ManOnPromotionRow {
        /// Owner of the man.
        color: Color,
        /// The square, as written in the variant's notation.
        square: String,
    },
    /// No side to move was given.
    #[error("no side to move")]
    NoSideToMove,
}

/// Pieces as masks of square indices: bit `s` set means a piece on [`Square`] index `s`
/// (numbered 0.. in the order of the board's squares).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SquareSets {
    /// Men of White.
    pub white_men: u64,
    /// Kings of White.
    pub white_kings: u64,
    /// Men of Black.
    pub black_men: u64,
    /// Kings of Black.
    pub black_kings: u64,
}

/// A legal arrangement of pieces with a side to move, for one variant.
///
/// Bitboards use the ghost-square layout of the board geometry; they are private so
/// that a position can only be made through validation.
#[derive(Clone, Copy, Eq)]
pub struct Position {
    pub(crate) variant: Variant,
    pub(crate) white: u64,
    pub(crate) black: u64,
    pub(crate) kings: u64,
    pub(crate) turn: Color,
}

// The pieces first: positions compared in a search or a map nearly always differ there,
// and the variant, a record of many fields, is compared only when they do not.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        (self.white, self.black, self.kings, self.turn) == (other.white, other.black, other.kings, other.turn)
            && self.variant == other.variant
    }
}

// The pieces alone: equal positions have equal pieces, so their hashes agree, and the
// variant's many fields would cost more than they separate.
impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.white, self.black, self.kings, self.turn).hash(state);
    }
}

impl Position {
    /// The start position of `variant`: men on the three (8x8) or four (10x10) rows
    /// nearest each side, or on the second and third (Turkish), the variant's first
    /// player to move.
    pub fn start(variant: Variant) -> Position {
        let geo = variant.board.geometry();
        let (skip, rows) = variant.board.start_rows();
        let row_len = geo.half;
        let n = variant.squares() as u32;
        let mut p = Position::empty(variant, variant.first_to_move);
        for s in skip as u32 * row_len..(skip + rows) as u32 * row_len {
            p.black |= 1 << geo.bit_of[s as usize];
            p.white |= 1 << geo.bit_of[(n - 1 - s) as usize];
        }
        p
    }

    /// An empty board with `turn` to move.
    pub fn empty(variant: Variant, turn: Color) -> Position {
        Position { variant, white: 0, black: 0, kings: 0, turn }
    }

    /// Checks `setup` against `variant` and builds the position.
    ///
    /// # Errors
    /// [`SetupError::NoSideToMove`] when the setup has no side to move;
    /// [`SetupError::SquareOutOfRange`] for a square number off the board;
    /// [`SetupError::SquareUsedTwice`] for two pieces on one square;
    /// [`SetupError::ManOnPromotionRow`] for a man on the row where it would be crowned.
    pub fn from_setup(variant: Variant, setup: &Setup) -> Result<Position, SetupError> {
        let turn = setup.turn.ok_or(SetupError::NoSideToMove)?;
        let mut p = Position::empty(variant, turn);
        for piece in &setup.pieces {
            let square = Square::from_number(piece.square, variant.squares()).ok_or(SetupError::SquareOutOfRange {
                square: piece.square,
                squares: variant.squares(),
                variant: variant.name,
            })?;
            if p.piece_at(square).is_some() {
                return Err(SetupError::SquareUsedTwice { square: crate::square_names::square_name(&variant, square) });
            }
            if piece.kind == PieceKind::Man && variant.promotion_row(piece.color).contains(&square.index()) {
                return Err(SetupError::ManOnPromotionRow {
                    color: piece.color,
                    square: crate::square_names::square_name(&variant, square),
                });
            }
            p.put(square, piece.color, piece.kind);
        }
        Ok(p)
    }

    fn put(&mut self, square: Square, color: Color, kind: PieceKind) {
        let bit = 1u64 << self.geo().bit_of[square.index() as usize];
        match color {
            Color::White => self.white |= bit,
            Color::Black => self.black |= bit,
        }
        if kind == PieceKind::King {
            self.kings |= bit;
        }
    }

    /// The variant whose rules this position follows.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    #[inline(always)]
    pub(crate) fn geo(&self) -> &'static Geometry {
        self.variant.board.geometry()
    }

    #[inline(always)]
    pub(crate) fn side(&self, color: Color) -> u64 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    #[inline(always)]
    pub(crate) fn side_mut(&mut self, color: Color) -> &mut u64 {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    #[inline(always)]
    pub(crate) fn empty_squares(&self) -> u64 {
        self.geo().mask & !(self.white | self.black)
    }

    /// The piece on `square`, if any.
    pub fn piece_at(&self, square: Square) -> Option<(Color, PieceKind)> {
        let bit = 1u64 << self.geo().bit_of[square.index() as usize];
        let kind = if self.kings & bit != 0 { PieceKind::King } else { PieceKind::Man };
        if self.white & bit != 0 {
            Some((Color::White, kind))
        } else if self.black & bit != 0 {
            Some((Color::Black, kind))
        } else {
            None
        }
    }

    /// The squares holding `color`'s pieces of `kind`, in square order.
    pub fn squares_of(&self, color: Color, kind: PieceKind) -> impl Iterator<Item = Square> + '_ {
        let kings = match kind {
            PieceKind::King => self.kings,
            PieceKind::Man => !self.kings,
        };
        let geo = self.geo();
        Bits(self.side(color) & kings).map(move |b| Square(geo.square_of[b as usize]))
    }

    /// The pieces as masks of square indices (bit `s` is [`Square`] index `s`): the
    /// layout the table index ranks, independent of the board's internal bitboards.
    #[inline]
    pub fn square_sets(&self) -> SquareSets {
        // Three conversions, not four: the kinds split again in square order.
        let board = self.variant.board;
        let (white, black, kings) =
            (board.squares_of_bits(self.white), board.squares_of_bits(self.black), board.squares_of_bits(self.kings));
        SquareSets {
            white_men: white & !kings,
            white_kings: white & kings,
            black_men: black & !kings,
            black_kings: black & kings,
        }
    }

    /// The position with the side to move as White: itself, or its colour flip.
    #[must_use]
    pub fn normalized(&self) -> Position {
        match self.turn {
            Color::White => *self,
            Color::Black => self.flipped(),
        }
    }

    /// Number of `color`'s pieces of `kind`.
    pub fn count(&self, color: Color, kind: PieceKind) -> u32 {
        let kings = match kind {
            PieceKind::King => self.kings,
            PieceKind::Man => !self.kings,
        };
        (self.side(color) & kings).count_ones()
    }

    /// Total number of pieces on the board.
    pub fn piece_count(&self) -> u32 {
        (self.white | self.black).count_ones()
    }

    /// The same position seen from the other side: the board turned half a circle and
    /// the colours swapped (also the side to move). Values are the same for the mover.
    #[must_use]
    pub fn flipped(&self) -> Position {
        let geo = self.geo();
        let top_bit = geo.bit_of[self.variant.squares() as usize - 1] as u32;
        let rotate = |bb: u64| bb.reverse_bits() >> (63 - top_bit);
        Position {
            variant: self.variant,
            white: rotate(self.black),
            black: rotate(self.white),
            kings: rotate(self.kings),
            turn: self.turn.opposite(),
        }
    }

    /// Where the piece on `square` stands in [`Position::flipped`].
    #[inline]
    pub fn flipped_square(&self, square: Square) -> Square {
        let geo = self.geo();
        let top_bit = geo.bit_of[self.variant.squares() as usize - 1];
        Square(geo.square_of[(top_bit - geo.bit_of[square.index() as usize]) as usize])
    }

    /// The same pieces with the other side to move.
    #[must_use]
    pub fn with_turn(&self, turn: Color) -> Position {
        Position { turn, ..*self }
    }

    /// Back to an unvalidated setup.
    pub fn to_setup(&self) -> Setup {
        let mut pieces = Vec::new();
        for color in [Color::White, Color::Black] {
            for s in 0..self.variant.squares() {
                if let Some((c, kind)) = self.piece_at(Square(s))
                    && c == color
                {
                    pieces.push(SetupPiece { color, kind, square: Square(s).number() });
                }
            }
        }
        Setup { turn: Some(self.turn), pieces }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} {})", self.variant.name, self.fen())
    }
}

impl fmt::Display for Position {
    /// A diagram from White's side: `w`/`b` men, `W`/`B` kings, `.` empty dark squares.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.variant.board.width();
        let orthogonal = self.variant.board.is_orthogonal();
        for row in 0..width {
            for col in 0..width {
                let dark = (row + col) % 2 == 1;
                if !dark && !orthogonal {
                    f.write_str("  ")?;
                    continue;
                }
                let square = if orthogonal { Square(row * width + col) } else { Square(row * (width / 2) + col / 2) };
                let c = match self.piece_at(square) {
                    None => '.',
                    Some((Color::White, PieceKind::Man)) => 'w',
                    Some((Color::White, PieceKind::King)) => 'W',
                    Some((Color::Black, PieceKind::Man)) => 'b',
                    Some((Color::Black, PieceKind::King)) => 'B',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.turn)
    }
}

/// A position built from square sets without the checks of [`Position::from_setup`]:
/// for the table index, whose every number stands for a legal arrangement (no man on
/// its promotion row, no square taken twice). A trait, so that only code that imports
/// it (the index, not an engine) can build an unchecked position.
pub trait UncheckedPosition {
    /// The position with these pieces and `turn` to move, unchecked.
    fn from_square_sets(variant: Variant, turn: Color, sets: &SquareSets) -> Position;
}

impl UncheckedPosition for Position {
    #[inline]
    fn from_square_sets(variant: Variant, turn: Color, sets: &SquareSets) -> Position {
        debug_assert_eq!(sets.white_men & sets.white_kings, 0);
        debug_assert_eq!((sets.white_men | sets.white_kings) & (sets.black_men | sets.black_kings), 0);
        let bits = |squares: u64| variant.board.bits_of_squares(squares);
        Position {
            variant,
            white: bits(sets.white_men | sets.white_kings),
            black: bits(sets.black_men | sets.black_kings),
            kings: bits(sets.white_kings | sets.black_kings),
            turn,
        }
    }
}
