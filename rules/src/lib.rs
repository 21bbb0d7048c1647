//! kabe-rules: how a game of draughts is defined. A [`Variant`] is a value (board kind,
//! how men and kings move and capture, which capture must be taken, when a man is
//! crowned, what wins); one move generator plays every variant from it, and the same
//! data drives the reverse moves the table generator needs, perft and the notation.
//!
//! Everything above (the tables, the draw rules, the probe library, the generator) reads
//! the game through this crate; a new game is a new [`Variant`] value here, and a new
//! board kind is a new [`BoardSize`] with its geometry.
//!
//! ```
//! use kabe_rules::{Position, Variant};
//! let start = Position::start(Variant::RUSSIAN);
//! let moves = start.legal_moves();
//! assert_eq!(moves.len(), 7);
//! let after = start.play(&start.parse_move("c3-d4")?);
//! assert_eq!(after.fen(), "B:Wd4,a3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6");
//! # Ok::<(), kabe_rules::MoveError>(())
//! ```

#![warn(clippy::missing_errors_doc)]

mod geometry;
mod movegen;
pub mod notation;
mod perft;
mod position;
mod score;
mod square_names;
mod unmove;
mod variant;

pub use geometry::{Bits, BoardSize};
pub use movegen::{Move, MoveList, MAX_CAPTURES};
pub use notation::fen::FenError;
pub use notation::movetext::MoveError;
pub use perft::{parse_perft_vectors, perft, perft_divide, perft_routes, PerftVector};
pub use position::{Position, Setup, SetupError, SetupPiece, SquareSets, UncheckedPosition};
pub use score::{RuleScore, Score, Wld};
pub use unmove::{Predecessor, QuietStep, Restore, Unmoves};
pub use variant::{
    CaptureChoice, CapturedPieces, Color, CrowningInCapture, DrawnMaterial, Goal, KingLanding, KingRange,
    NotationStyle, PieceKind, Square, UnknownVariant, Variant,
};
