//! Why a probe has no answer: every case names the material or the file.

use std::path::PathBuf;

use crate::index::Signature;
use crate::rules::{CounterError, DrawRuleSet};
use crate::table::TableError;

/// Why a probe has no answer. Every case names the material or the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// A table file is unusable: missing, damaged, of another version or another game.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The directory (or a variant's folder in it) cannot be read.
    #[error("{path}: cannot read the table directory: {error}")]
    Directory {
        /// The folder.
        path: PathBuf,
        /// The failure (said in the message once, not chained).
        error: std::io::Error,
    },
    /// No table holds this material, and the side to move has no capture to leave it.
    #[error(
        "no {variant} table for {signature} ({path} is not in the table directory{})",
        crate::table::format_build_hint(path, *rules)
    )]
    NoTable {
        /// Variant name.
        variant: &'static str,
        /// The material, side to move first.
        signature: Signature,
        /// The file that would hold it.
        path: PathBuf,
        /// The draw rules the tablebase applies (their tables are built with it).
        rules: Option<DrawRuleSet>,
    },
    /// More pieces than the largest table here, and no capture leads into the tables.
    #[error(
        "{pieces} pieces: the {variant} tables here reach {largest} and no capture leads into them ({path} is not in \
         the table directory{}{})",
        crate::table::format_build_hint(path, *rules),
        if *pieces > crate::table::MAX_TABLE_PIECES {
            format!("; kabe builds tables of up to {} pieces", crate::table::MAX_TABLE_PIECES)
        } else {
            String::new()
        }
    )]
    TooManyPieces {
        /// Variant name.
        variant: &'static str,
        /// The material, side to move first.
        signature: Signature,
        /// Its pieces.
        pieces: u32,
        /// The most pieces of a table here.
        largest: u32,
        /// The file that would hold it.
        path: PathBuf,
        /// The draw rules the tablebase applies (their tables are built with it).
        rules: Option<DrawRuleSet>,
    },
    /// The tablebase was not opened for this variant.
    #[error("the tablebase has no {variant} tables (open variants: {open})")]
    VariantNotOpen {
        /// The position's variant.
        variant: &'static str,
        /// The variants it has.
        open: String,
    },
    /// The counters do not fit the position, or their rule set is not the game's.
    #[error("{0}")]
    Counters(#[from] CounterError),
    /// Only from [`Tablebase::probe_wld_cached`](super::Tablebase::probe_wld_cached)'s callers that want an error: the block
    /// is not in memory.
    #[error("not in the cache")]
    NotCached,
}
