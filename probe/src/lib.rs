//! kabe-probe: the rules of draughts as data, one move generator for every variant,
//! notation, the draw rules, and the endgame table reader for engines ([`tablebase`]).
//!
//! ```
//! use kabe_probe::{Position, Variant};
//! let start = Position::start(Variant::RUSSIAN);
//! let moves = start.legal_moves();
//! assert_eq!(moves.len(), 7);
//! let after = start.play(&start.parse_move("c3-d4")?);
//! assert_eq!(after.fen(), "B:Wd4,a3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6");
//! # Ok::<(), kabe_probe::MoveError>(())
//! ```

mod geometry;
mod index;
mod movegen;
pub mod notation;
mod perft;
mod position;
pub mod rules;
mod score;
pub mod table;
pub mod tablebase;
mod unmove;
mod variant;

pub use geometry::BoardSize;
pub use index::{MaterialIndex, Signature};
pub use movegen::{Move, MoveList, MAX_CAPTURES};
pub use notation::fen::FenError;
pub use notation::movetext::MoveError;
pub use perft::{parse_perft_vectors, perft, perft_divide, perft_routes, PerftVector};
pub use position::{Position, Setup, SetupError, SetupPiece};
pub use rules::{Counters, DrawRuleSet, DrawRules, UnknownDrawRules};
pub use score::{RuleScore, Score, Wld};
pub use unmove::{Predecessor, Restore};
pub use variant::{
    CaptureChoice, CapturedPieces, Color, CrowningInCapture, Goal, KingLanding, KingRange, NotationStyle, PieceKind,
    Square, UnknownVariant, Variant,
};
