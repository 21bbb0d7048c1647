//! kabe-probe: the endgame table reader for engines ([`tablebase`]), the table index and
//! file format, and the counted draw rules, over the games of [`kabe_rules`] (re-exported
//! here, so one dependency serves an engine).
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

#![warn(clippy::missing_errors_doc)]

mod index;
pub mod request;
pub mod rules;
pub mod successors;
pub mod table;
pub mod tablebase;

pub use index::{BlackKingMoved, LastMen, MaterialIndex, OneKingMoved, Signature, SignatureError};
pub use kabe_rules::notation;
pub use kabe_rules::{
    parse_perft_vectors, perft, perft_divide, perft_routes, BoardSize, CaptureChoice, CapturedPieces, Color,
    CrowningInCapture, DrawnMaterial, FenError, Goal, KingLanding, KingRange, Move, MoveError, MoveList, NotationStyle,
    PerftVector, PieceKind, Position, Predecessor, Restore, RuleScore, Score, Setup, SetupError, SetupPiece, Square,
    SquareSets, UnknownVariant, Unmoves, Variant, Wld, MAX_CAPTURES,
};
pub use rules::{Counters, DrawRuleSet, DrawRules, RuleSetError, UnknownDrawRules};
