//! Table files: one per signature and metric, a fixed header, a block offset index and
//! independently zstd-compressed blocks, so that a probe decompresses one small block.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "KABETBL\x1a"
//!      8     2  format version (4)
//!     10     1  metric (1 = WLD, 2 = DTW, 16 + n = rule set n's counted distances)
//!     11     1  bits per entry (WLD 2; DTW 8 or 16; rules 8; 0 in a table found by search)
//!     12     4  signature: white men, white kings, black men, black kings
//!     16    23  variant name, ASCII, zero padded
//!     39     1  flags (TableFlags): 1 capture positions left out, 2 no values (by search)
//!     40     8  positions
//!     48     4  positions per block
//!     52     4  blocks
//!     56     8  xxh3-64 of bytes 0..56 and of everything after the header
//!     64   8(b+1) block offsets from the start of the file; the last is the file length
//!      …        zstd frames, one per block, each with its content checksum
//! ```
//!
//! Entries, little-endian, before compression: WLD is a run-length code of the values
//! (0 loss, 1 draw, 2 win; [`runs`]), read back as four 2-bit values a byte. **No file
//! holds a value of its own for a position whose side to move must capture**
//! ([`TableFlags::CAPTURES_FREE`]): the writer lets it repeat the entry before it, and
//! readers resolve it by playing the captures (as Kingsrow's and Scan's databases do).
//! Of the two tables of a signature and its colour flip, one may hold no values at all
//! ([`TableFlags::BY_SEARCH`]): a reader finds its positions by a one-ply search, whose
//! quiet moves lead into the other table ([`crate::internal::successors`]).
//! DTW stores the plies to the end of the game, odd for a win
//! and even for a loss, with all bits set for a draw. A rule table (file `<sig>.<rules>.kabe`)
//! stores one byte per position: `2 * plies + 1` for a win and `2 * plies` for a loss
//! decided within the count ([`crate::RuleScore`]), 255 when the count cannot decide it.
//!
//! [`runs`]: crate::internal::table::runs
//! [`TableFlags::CAPTURES_FREE`]: crate::internal::table::TableFlags::CAPTURES_FREE
//! [`TableFlags::BY_SEARCH`]: crate::internal::table::TableFlags::BY_SEARCH

pub(crate) mod blocks;
pub(crate) mod cache;
pub(crate) mod format;
pub(crate) mod layout;
mod metric;
mod reader;
pub(crate) mod runs;

pub(crate) use blocks::BlockReader;
pub use cache::CacheStats;
pub(crate) use format::build_hint as format_build_hint;
pub use format::TableError;
pub(crate) use format::{decode_entry, decode_rule_entry, decode_wld_entry, Header, HEADER_LEN, MAX_TABLE_PIECES};
pub(crate) use layout::{file_name, parse_file_name, TableDir};
pub use metric::Metric;
pub(crate) use reader::open_regular;
pub use reader::{MappedFile, PositionalFile, TableFile, TableSource};
