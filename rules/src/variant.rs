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

/// When the pieces jumped in a capture leave the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CapturedPieces {
    /// At the end of the move: until then they block, and none is jumped twice (every
    /// diagonal game; the "Turkish strike" cannot happen).
    RemovedAtEnd,
    /// Each as it is jumped: its square is free at once (Turkish draughts). A king may
    /// then not turn straight back, which the rules forbid in words.
    RemovedAtOnce,
}

/// Which capture a player must choose when several are possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureChoice {
    /// Any capture (Russian, English, Pool, the 8x8 family game).
    Free,
    /// Majority rule: only the captures that take the most pieces, kings and men counting
    /// the same (international, Brazilian).
    Majority,
    /// A king must capture if any king can; otherwise any capture (Czech).
    KingFirst,
    /// Italian precedence (FID rules, art. 6): the most pieces; then a capture by a king
    /// before one by a man; then the most kings taken; then the capture that meets a
    /// king earliest. What is still equal after that is free.
    Italian,
}

/// What a player plays for: how the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// A player left with no piece or no legal move on its turn has lost.
    Capture,
    /// Giveaway: a player left with no piece or no legal move on its turn has won
    /// (seeds/004 "Äraandmine"; lidraughts' antidraughts; Russian poddavki). Captures stay
    /// compulsory and every other rule is the family game's.
    Giveaway,
}

/// Material that ends the game as a draw as soon as it is on the board, whoever moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawnMaterial {
    /// None: the game goes on while the side to move has a move.
    Never,
    /// One piece against one, men or kings: a draw (Turkish draughts: "when both players
    /// have one piece left, even if one of them is a king, the game is a draw", the Turkish
    /// rules as taught by the Dama Akademisi, rule 19b; kish plays the same rule).
    OnePieceEach,
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
    /// Which of several captures may be chosen.
    pub capture_choice: CaptureChoice,
    /// Whether a man may capture a king (not in Italian draughts).
    pub men_capture_kings: bool,
    /// A man reaching its far row during a capture.
    pub crowning_in_capture: CrowningInCapture,
    /// How the game is won.
    pub goal: Goal,
    /// Material that is a draw on the board (Turkish: one piece each).
    pub drawn_material: DrawnMaterial,
    /// When jumped pieces leave the board.
    pub captured_pieces: CapturedPieces,
    /// How squares and moves are written.
    pub notation: NotationStyle,
    /// The board is placed with a light square in each player's left corner (Italian):
    /// it is kabe's board seen in a mirror, so square names and numbers are mirrored along
    /// each row (the game's square 1 is kabe's square 4). The rules are symmetric, so
    /// only the names change.
    pub mirrored_board: bool,
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
        capture_choice: CaptureChoice::Majority,
        men_capture_kings: true,
        crowning_in_capture: CrowningInCapture::StaysMan,
        goal: Goal::Capture,
        drawn_material: DrawnMaterial::Never,
        captured_pieces: CapturedPieces::RemovedAtEnd,
        notation: NotationStyle::Numeric,
        mirrored_board: false,
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
        capture_choice: CaptureChoice::Free,
        men_capture_kings: true,
        crowning_in_capture: CrowningInCapture::CrownAndContinue,
        goal: Goal::Capture,
        drawn_material: DrawnMaterial::Never,
        captured_pieces: CapturedPieces::RemovedAtEnd,
        notation: NotationStyle::Algebraic,
        mirrored_board: false,
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
        capture_choice: CaptureChoice::Free,
        men_capture_kings: true,
        crowning_in_capture: CrowningInCapture::CrownAndStop,
        goal: Goal::Capture,
        drawn_material: DrawnMaterial::Never,
        captured_pieces: CapturedPieces::RemovedAtEnd,
        notation: NotationStyle::Algebraic,
        mirrored_board: false,
        pdn_game_type: None,
    };

    /// [`Variant::KABE`] with the other reading of the king capture: adjacent piece,
    /// landing directly behind it (the king still moves any distance).
    pub const KABE_SHORT_KING_CAPTURE: Variant =
        Variant { name: "kabe-short-king-capture", king_captures: KingRange::Short, ..Variant::KABE };

    /// English draughts (American checkers, PDN GameType 21): kings move and capture one
    /// square, men capture forward only, free choice of capture, a man crowned during a
    /// capture ends the move, Black (the dark side) moves first. Squares 1..32 from
    /// Black's side, as in every English book.
    pub const ENGLISH: Variant = Variant {
        name: "english",
        board: BoardSize::Eight,
        first_to_move: Color::Black,
        men_capture_backward: false,
        king_moves: KingRange::Short,
        king_captures: KingRange::Short,
        king_landing: KingLanding::MustContinue,
        capture_choice: CaptureChoice::Free,
        men_capture_kings: true,
        crowning_in_capture: CrowningInCapture::CrownAndStop,
        goal: Goal::Capture,
        drawn_material: DrawnMaterial::Never,
        captured_pieces: CapturedPieces::RemovedAtEnd,
        notation: NotationStyle::Numeric,
        mirrored_board: false,
        pdn_game_type: Some(21),
    };

    /// Italian draughts (FID rules, GameType 22): short kings, men capture forward only
    /// and never a king, the Italian precedence among captures, White first, on a board
    /// whose corner square a1 is light (numbered as Italian books do).
    pub const ITALIAN: Variant = Variant {
        name: "italian",
        first_to_move: Color::White,
        capture_choice: CaptureChoice::Italian,
        men_capture_kings: false,
        mirrored_board: true,
        pdn_game_type: Some(22),
        ..Variant::ENGLISH
    };

    /// American pool checkers (GameType 23): flying kings, men capture backward too, free
    /// choice of capture but a capture goes on while it can (a king lands where it can
    /// go on), a man that reaches the far row during a capture and can jump back goes on
    /// as a man and is crowned only where the capture ends there, Black first.
    pub const POOL: Variant = Variant {
        name: "pool",
        first_to_move: Color::Black,
        crowning_in_capture: CrowningInCapture::StaysMan,
        goal: Goal::Capture,
        drawn_material: DrawnMaterial::Never,
        captured_pieces: CapturedPieces::RemovedAtEnd,
        notation: NotationStyle::Numeric,
        pdn_game_type: Some(23),
        ..Variant::RUSSIAN
    };

    /// Brazilian draughts (GameType 26): the international rules on the 8x8 board
    /// (majority rule, flying kings, men capture backward, a man passing the far row
    /// during a capture stays a man), White first, algebraic notation.
    pub const BRAZILIAN: Variant = Variant {
        name: "brazilian",
        board: BoardSize::Eight,
        notation: NotationStyle::Algebraic,
        pdn_game_type: Some(26),
        ..Variant::INTERNATIONAL
    };

    /// Czech draughts (Czech Draughts Federation, GameType 29): flying kings, men move and
    /// capture forward only, a king must capture if a king can, otherwise free choice;
    /// a capture is taken to its end (a king lands where it can go on: our reading of
    /// "no partial captures"), White first, algebraic notation.
    pub const CZECH: Variant = Variant {
        name: "czech",
        board: BoardSize::Eight,
        first_to_move: Color::White,
        men_capture_backward: false,
        king_moves: KingRange::Flying,
        king_captures: KingRange::Flying,
        king_landing: KingLanding::MustContinue,
        capture_choice: CaptureChoice::KingFirst,
        men_capture_kings: true,
        crowning_in_capture: CrowningInCapture::CrownAndStop,
        goal: Goal::Capture,
        drawn_material: DrawnMaterial::Never,
        captured_pieces: CapturedPieces::RemovedAtEnd,
        notation: NotationStyle::Algebraic,
        mirrored_board: false,
        pdn_game_type: Some(29),
    };

    /// Giveaway on the family game's board (seeds/004, "Äraandmine"): the rules of
    /// [`Variant::KABE`], and the first player left without a piece or a move wins.
    pub const GIVEAWAY: Variant =
        Variant { name: "giveaway", goal: Goal::Giveaway, pdn_game_type: None, ..Variant::KABE };

    /// International draughts played to lose (lidraughts' antidraughts): the FMJD moves,
    /// and the first player left without a piece or a move wins.
    pub const ANTIDRAUGHTS: Variant =
        Variant { name: "antidraughts", goal: Goal::Giveaway, pdn_game_type: None, ..Variant::INTERNATIONAL };

    /// Russian draughts played to lose (poddavki): the 1953 moves, and the first player
    /// left without a piece or a move wins.
    pub const PODDAVKI: Variant =
        Variant { name: "poddavki", goal: Goal::Giveaway, pdn_game_type: None, ..Variant::RUSSIAN };

    /// Turkish draughts (seeds/003 "Türgi kabe"; GameType 30): all 64 squares, 16 men
    /// each on the second and third rows, men step and capture one square forward or
    /// sideways, kings fly along rows and columns, the majority rule (men and kings count
    /// the same), jumped pieces removed at once and no turning straight back, White first.
    /// A man reaching the last row during a capture is crowned and goes on as a king (the
    /// reading of the kish engine and of the Turkish federation's rules as kish cites
    /// them; [`Variant::TURKISH_CROWN_AT_END`] and [`Variant::TURKISH_CROWN_AND_STOP`]
    /// are the other readings).
    pub const TURKISH: Variant = Variant {
        name: "turkish",
        board: BoardSize::EightOrthogonal,
        first_to_move: Color::White,
        men_capture_backward: false,
        king_moves: KingRange::Flying,
        king_captures: KingRange::Flying,
        king_landing: KingLanding::Free,
        capture_choice: CaptureChoice::Majority,
        men_capture_kings: true,
        crowning_in_capture: CrowningInCapture::CrownAndContinue,
        goal: Goal::Capture,
        drawn_material: DrawnMaterial::OnePieceEach,
        captured_pieces: CapturedPieces::RemovedAtOnce,
        notation: NotationStyle::Algebraic,
        mirrored_board: false,
        pdn_game_type: Some(30),
    };

    /// Turkish draughts read so that a man reaching the last row mid-capture goes on as
    /// a man and is crowned only if the capture ends there.
    pub const TURKISH_CROWN_AT_END: Variant = Variant {
        name: "turkish-crown-at-end",
        crowning_in_capture: CrowningInCapture::StaysMan,
        pdn_game_type: None,
        ..Variant::TURKISH
    };

    /// Turkish draughts read so that a man reaching the last row mid-capture is crowned
    /// and the move ends.
    pub const TURKISH_CROWN_AND_STOP: Variant = Variant {
        name: "turkish-crown-and-stop",
        crowning_in_capture: CrowningInCapture::CrownAndStop,
        pdn_game_type: None,
        ..Variant::TURKISH
    };

    /// Every built-in variant. New ones go at the end: the C ABI numbers them by place.
    pub const ALL: [Variant; 16] = [
        Variant::INTERNATIONAL,
        Variant::RUSSIAN,
        Variant::RUSSIAN_FREE_LANDING,
        Variant::KABE,
        Variant::KABE_SHORT_KING_CAPTURE,
        Variant::ENGLISH,
        Variant::ITALIAN,
        Variant::POOL,
        Variant::BRAZILIAN,
        Variant::CZECH,
        Variant::GIVEAWAY,
        Variant::ANTIDRAUGHTS,
        Variant::PODDAVKI,
        Variant::TURKISH,
        Variant::TURKISH_CROWN_AT_END,
        Variant::TURKISH_CROWN_AND_STOP,
    ];

    /// Looks a built-in variant up by name or alias (`fmjd`, `ussr`, `family`, and the
    /// names py-draughts and pydraughts give: `standard`, `russian draughts`): the one
    /// alias table of every front end.
    pub fn by_name(name: &str) -> Option<Variant> {
        let name = name.trim().to_ascii_lowercase();
        let canonical = match name.as_str() {
            "fmjd" | "10x10" | "intl" | "standard" | "standard (international) checkers" | "international draughts" => {
                "international"
            }
            "ussr" | "8x8" | "shashki" | "russian draughts" => "russian",
            "family" | "estonian" => "kabe",
            "checkers" | "american" | "english-checkers" => "english",
            "damiera" | "italiana" | "italian-draughts" => "italian",
            "american-pool" | "pool-checkers" => "pool",
            "brazil" => "brazilian",
            "ceska" | "czech-draughts" => "czech",
            "araandmine" | "kabe-giveaway" => "giveaway",
            "international-giveaway" | "anti-draughts" => "antidraughts",
            "russian-giveaway" | "shashki-giveaway" => "poddavki",
            "dama" | "turkish-draughts" | "turk" => "turkish",
            other => other,
        };
        Variant::ALL.into_iter().find(|v| v.name == canonical)
    }

    /// Every built-in variant's name, comma-separated: for help texts and errors.
    pub fn names() -> String {
        Variant::ALL.map(|v| v.name).join(", ")
    }

    /// The value of a position whose side to move has no piece or no legal move: lost
    /// at once, or in giveaway won. Distances count to the turn that decides the game,
    /// the winner's included, so a win is an odd number of plies either way: in giveaway
    /// the winner's deciding turn is the one where it has nothing left to play (win in
    /// 1), one ply after the last move on the board.
    pub fn score_at_end(&self) -> crate::Score {
        match self.goal {
            Goal::Capture => crate::Score::loss(0),
            Goal::Giveaway => crate::Score::win(1),
        }
    }

    /// Number of playable squares.
    pub const fn squares(&self) -> u8 {
        self.board.squares()
    }

    /// The number `square` is written with in this variant (1-based; mirrored on a
    /// mirrored board).
    pub fn square_number(&self, square: Square) -> u32 {
        self.mirror(square).number()
    }

    /// The square this variant writes as `number`, if it is on the board.
    pub fn numbered_square(&self, number: u32) -> Option<Square> {
        Square::from_number(number, self.squares()).map(|s| self.mirror(s))
    }

    /// `square` seen in the mirror where the board is mirrored (its own inverse).
    fn mirror(&self, square: Square) -> Square {
        if !self.mirrored_board {
            return square;
        }
        let half = self.board.row_len();
        let (row, col) = (square.0 / half, square.0 % half);
        Square(row * half + half - 1 - col)
    }

    /// The row where `color`'s men are crowned, as square indices `lo..hi`.
    pub fn promotion_row(&self, color: Color) -> std::ops::Range<u8> {
        let half = self.board.row_len();
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
#[error("unknown variant '{0}' (known: {known})", known = Variant::names())]
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
