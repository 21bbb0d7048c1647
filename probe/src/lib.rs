//! kabe-probe: the endgame table reader for engines ([`tablebase`]) and the counted draw
//! rules, over the games of [`kabe_rules`] (their positions, moves and variants
//! re-exported here, so one dependency serves an engine); the table index and the file
//! format's parts are the tools' ([`internal`]).
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
mod successors;
pub mod table;
pub mod tablebase;

pub use index::{Signature, SignatureError};
pub use kabe_rules::notation;
pub use kabe_rules::{
    BoardSize, CaptureChoice, CapturedPieces, Color, CrowningInCapture, DrawnMaterial, FenError, Goal, KingLanding,
    KingRange, Move, MoveError, MoveList, NotationStyle, PieceKind, Position, RuleScore, Score, Setup, SetupError,
    SetupPiece, Square, SquareSets, UnknownVariant, Variant, Wld,
};
pub use rules::{Counters, DrawRuleSet, DrawRules, RuleSetError, UnknownDrawRules};

/// The toolbox the generator, the verifier and the tools build on: the table index, the
/// file format's encoders and decoders, the shared block reader, successor values,
/// unmoves and perft. Not for engines: these follow the table format and the solvers,
/// and change with them.
pub mod internal {
    pub use crate::index::{BlackKingMoved, LastMen, MaterialIndex, OneKingMoved};
    /// A value from its successors: what a reader searches for and the verifier checks.
    pub mod successors {
        pub use crate::successors::*;
    }
    pub use kabe_rules::{
        parse_perft_vectors, perft, perft_divide, perft_routes, PerftVector, Predecessor, Restore, UncheckedPosition,
        Unmoves, MAX_CAPTURES,
    };

    /// The table format's parts below [`crate::table`]'s readers.
    pub mod table {
        pub use crate::table::blocks::{BlockReader, Decompressors};
        pub use crate::table::cache::{BlockCache, BlockKey};
        pub use crate::table::format::{
            build_command, build_command_with, decode_entry, decode_rule_entry, decode_wld_entry, encode_dtw_block,
            encode_rule_block, encode_wld_block, rule_code, rule_of_code, wld_code, Header, TableFlags, FORMAT_VERSION,
            HEADER_LEN, MAGIC, MAX_BLOCK_POSITIONS, MAX_TABLE_PIECES,
        };
        pub use crate::table::layout::{file_name, parse_file_name, TableDir};
        /// The WLD run code.
        pub mod runs {
            pub use crate::table::runs::*;
        }
    }
}
