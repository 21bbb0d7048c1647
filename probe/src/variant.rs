//! Variants as values: every rule difference the move generator knows is a field here.

use std::fmt;
use std::str::FromStr;

use crate::geometry::BoardSize;

/// A side. White starts at the bottom of the board (the high square numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The light pieces, starting on the high square numbers.
    White,
    /// The dark pieces, starting on squares 1, 2, ...
    Black,
}

impl Color {
    /// The other side.
    #[must_use]
    pub const fn opposite(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `'W'` or `'B'`, as in FEN.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// Man or king.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PieceKind {
    /// A man: moves one square forward.
    Man,
    /// A king (crowned man).
    King,
}

/// How far a king reaches along a diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KingRange {
    /// Any number of empty squares ("flying king"). For captures: the enemy piece may be
    /// at any distance with only empty squares between, and the king lands on any empty
    /// square behind it.
    Flying,
    /// One square. For captures: the enemy piece is adjacent and the king lands directly
    /// behind it.
    Short,
}

/// Where a flying king may land after capturing, when it could continue from some
/// landing squares and not from others. Without the majority rule this changes the
/// move list; with it both readings give the same moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KingLanding {
    /// The king must land on a square from which it can go on capturing, if there is
    /// one (USSR 1953 section 9: "the king must continue capturing if further pieces of
    /// the opponent stand on its way"; modern Russian and FMJD-64 practice).
    MustContinue,
    /// Any empty square behind the captured piece; the capture goes on from there if it
    /// can (a literal reading of the 1953 text, "may stop on any free square").
    Free,
}

/// What happens to a man that reaches its far row in the middle of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrowningInCapture {
    /// It stays a man and goes on capturing as a man; it is crowned only if the capture
    /// ends on the far row (FMJD; USSR 1953 section 25 for the 100-square game).
    StaysMan,
    /// It is crowned at once and goes on capturing as a king (Russian, USSR 1953 section 9).
    CrownAndContinue,
    /// It is crowned and the move ends there (the 8x8 family game of seeds/004).
    CrownAndStop,
}

/// How squares and moves are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotationStyle {
    /// Square numbers 1..n; `-` for a move, `x` for a capture (`32-28`, `28x19`).
    Numeric,
    /// Algebraic `a1`..`h8` from White's side; `-` for a move, `:` for a capture
    /// (`c3-d4`, `e3:c5:e7`). Numbers 1..32 are read too.
    Algebraic,
}

/// The rules of movement of one draughts game. Draw rules are a separate value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// Short name, as used on the command line.
    pub name: &'static str,
    /// 8x8 or 10x10.
    pub board: BoardSize,
    /// The side that makes the first move of a game.
    pub first_to_move: Color,
    /// Whether men capture backward as well as forward.
    pub men_capture_backward: bool,
    /// How kings move.
    pub king_moves: KingRange,
    /// How kings capture.
    pub king_captures: KingRange,
    /// Landing choice of a flying king after a capture.
    pub king_landing: KingLanding,
    /// Majority rule: only the captures that take the most pieces are legal (kings and
    /// men count the same).
    pub majority_capture: bool,
    /// A man reaching its far row during a capture.
    pub crowning_in_capture: CrowningInCapture,
    /// How squares and moves are written.
    pub notation: NotationStyle,
    /// PDN `GameType` number, where the standard assigns one.
    pub pdn_game_type: Option<u8>,
}

impl Variant {
    /// International draughts, FMJD rules (10x10, majority rule, flying kings).
    pub const INTERNATIONAL: Variant = Variant {
        name: "international",
        board: BoardSize::Ten,
        first_to_move: Color::White,
        men_capture_backward: true,
        king_moves: KingRange::Flying,
        king_captures: KingRange::Flying,
        king_landing: KingLanding::MustContinue,
        majority_capture: true,
        crowning_in_capture: CrowningInCapture::StaysMan,
        notation: NotationStyle::Numeric,
        pdn_game_type: Some(20),
    };

    /// Russian draughts, USSR rules of 1953 (8x8, free choice of capture, a man crowned
    /// mid-capture goes on as a king).
    pub const RUSSIAN: Variant = Variant {
        name: "russian",
        board: BoardSize::Eight,
        first_to_move: Color::White,
        men_capture_backward: true,
        king_moves: KingRange::Flying,
        king_captures: KingRange::Flying,
        king_landing: KingLanding::MustContinue,
        majority_capture: false,
        crowning_in_capture: CrowningInCapture::CrownAndContinue,
        notation: NotationStyle::Algebraic,
        pdn_game_type: Some(25),
    };

    /// Russian draughts with the literal reading of 1953 section 9: a capturing king may
    /// land on any empty square behind the captured piece, even one that ends the capture.
    pub const RUSSIAN_FREE_LANDING: Variant =
        Variant { name: "russian-free-landing", king_landing: KingLanding::Free, ..Variant::RUSSIAN };

    /// The 8x8 family game of seeds/004 ("Kabe"): men move and capture forward only,
    /// flying kings, free choice among captures, a man reaching the far row during a
    /// capture is crowned and the move ends, the dark side (Black) moves first.
    ///
    /// The seed says a capturing king needs "a free dark square behind the opponent's
    /// piece, on which the king lands", and that kings move any distance. We read it as
    /// the flying capture of Russian draughts; [`Variant::KABE_SHORT_KING_CAPTURE`] is
    /// the other reading (the king captures an adjacent piece and lands directly behind).
    pub const KABE: Variant = Variant {
        name: "kabe",
        board: BoardSize::Eight,
        first_to_move: Color::Black,
        men_capture_backward: false,
        king_moves: KingRange::Flying,
        king_captures: KingRange::Flying,
        king_landing: KingLanding::MustContinue,
        majority_capture: false,
        crowning_in_capture: CrowningInCapture::CrownAndStop,
        notation: NotationStyle::Algebraic,
        pdn_game_type: None,
    };

    /// [`Variant::KABE`] with the other reading of the king capture: adjacent piece,
    /// landing directly behind it (the king still moves any distance).
    pub const KABE_SHORT_KING_CAPTURE: Variant =
        Variant { name: "kabe-short-king-capture", king_captures: KingRange::Short, ..Variant::KABE };

    /// Every built-in variant.
    pub const ALL: [Variant; 5] = [
        Variant::INTERNATIONAL,
        Variant::RUSSIAN,
        Variant::RUSSIAN_FREE_LANDING,
        Variant::KABE,
        Variant::KABE_SHORT_KING_CAPTURE,
    ];

    /// Looks a built-in variant up by name (also `fmjd`, `ussr`, `family`).
    pub fn by_name(name: &str) -> Option<Variant> {
        let name = name.trim().to_ascii_lowercase();
        let canonical = match name.as_str() {
            "fmjd" | "10x10" | "intl" => "international",
            "ussr" | "8x8" | "shashki" => "russian",
            "family" | "estonian" => "kabe",
            other => other,
        };
        Variant::ALL.into_iter().find(|v| v.name == canonical)
    }

    /// Number of playable squares.
    pub const fn squares(&self) -> u8 {
        self.board.squares()
    }

    /// The row where `color`'s men are crowned, as square indices `lo..hi`.
    pub fn promotion_row(&self, color: Color) -> std::ops::Range<u8> {
        let half = self.board.width() / 2;
        match color {
            Color::White => 0..half,
            Color::Black => self.squares() - half..self.squares(),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The name given is not a built-in variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}' (known: international, russian, russian-free-landing, kabe, kabe-short-king-capture)")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        Variant::by_name(s).ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// A playable square, by index `0..n` (square number minus one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub(crate) u8);

impl Square {
    /// The square with notation number `number` (1-based), if it is on a board of `n` squares.
    pub fn from_number(number: u32, squares: u8) -> Option<Square> {
        (1..=squares as u32).contains(&number).then(|| Square((number - 1) as u8))
    }

    /// Index `0..n`.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// Notation number `1..=n`.
    pub const fn number(self) -> u32 {
        self.0 as u32 + 1
    }
}
