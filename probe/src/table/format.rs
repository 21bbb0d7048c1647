//! The byte layout of table files, shared by the writer (generator) and the reader.

use std::path::{Path, PathBuf};

use crate::index::Signature;
use crate::rules::DrawRuleSet;
use crate::{RuleScore, Score, Wld};

use super::metric::Metric;

/// First bytes of every table file.
pub const MAGIC: [u8; 8] = *b"KABETBL\x1a";
/// The format version this code reads and writes.
/// Version 2: every block frame carries its zstd content checksum.
/// Version 3: WLD blocks are run-length coded ([`super::runs`]) before zstd, and hold no
/// value of their own for positions whose side to move must capture.
/// Version 4: a flags byte ([`TableFlags`]): DTW and rule tables leave capture positions
/// out too, and one table of a pair may hold no values at all, its positions found by a
/// one-ply search through its colour flip's table.
///
/// [`super::runs`]: crate::internal::table::runs
pub const FORMAT_VERSION: u16 = 4;
/// Bytes before the block index.
pub const HEADER_LEN: usize = 64;
const VARIANT_LEN: usize = 23;
/// Offset of the flags byte.
const FLAGS_AT: usize = 16 + VARIANT_LEN;

/// What a table leaves out (header byte 39).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableFlags(u8);

impl TableFlags {
    /// Positions whose side to move must capture hold no value of their own: a reader
    /// plays the captures and takes the best of what follows.
    pub const CAPTURES_FREE: TableFlags = TableFlags(1);
    /// The file holds no values: every position is found by a one-ply search, whose
    /// quiet moves lead into the colour flip's table (stored) and whose captures and
    /// promotions lead to other tables. The table of a pair that compressed worse.
    pub const BY_SEARCH: TableFlags = TableFlags(2);
    const KNOWN: u8 = 3;

    /// No flag.
    pub const NONE: TableFlags = TableFlags(0);

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: TableFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets of flags.
    pub const fn with(self, other: TableFlags) -> TableFlags {
        TableFlags(self.0 | other.0)
    }

    /// The byte.
    pub const fn bits(self) -> u8 {
        self.0
    }
}
/// Largest block a reader accepts (bounds what one corrupt block can make it allocate).
pub const MAX_BLOCK_POSITIONS: u32 = 1 << 20;

/// The most pieces of a table kabe builds (`kabe generate --pieces` at most).
pub const MAX_TABLE_PIECES: u32 = 8;

/// The command that builds the table file at `path` (`<dir>/<variant>/<sig>.<metric>.kabe`)
/// and everything it needs: `kabe generate --variant V --closure SIG --tables D`, with
/// `--rules R` for a rule table. `None` for a path not of that shape.
///
/// ```
/// use kabe_probe::internal::table::build_command;
/// assert_eq!(
///     build_command("tables/international/0401.ussr1953.kabe".as_ref()).as_deref(),
///     Some("kabe generate --variant international --closure 0401 --rules ussr1953 --tables tables")
/// );
/// ```
pub fn build_command(path: &Path) -> Option<String> {
    build_command_with(path, None)
}

/// As [`build_command`], the rule tables of `rules` built too (for a WLD or DTW file
/// missing where a rule set other than the variant's usual one is probed).
pub fn build_command_with(path: &Path, rules: Option<DrawRuleSet>) -> Option<String> {
    let (signature, metric) = super::parse_file_name(path.file_name()?.to_str()?)?;
    // A side without pieces: the game is over, no table holds it and none can be built.
    if signature.white_men + signature.white_kings == 0 || signature.black_men + signature.black_kings == 0 {
        return None;
    }
    if signature.pieces() > MAX_TABLE_PIECES {
        return None;
    }
    let variant_dir = path.parent()?;
    let variant = variant_dir.file_name()?.to_str()?;
    let dir =
        variant_dir.parent().map(|d| d.display().to_string()).filter(|d| !d.is_empty()).unwrap_or_else(|| ".".into());
    let rules = match (metric, rules) {
        (Metric::Rules(set), _) | (_, Some(set)) => format!(" --rules {set}"),
        (_, None) => String::new(),
    };
    Some(format!("kabe generate --variant {variant} --closure {signature}{rules} --tables {dir}"))
}

/// "; build it with `...`" for an error message, or nothing.
pub(crate) fn build_hint(path: &Path, rules: Option<DrawRuleSet>) -> String {
    build_command_with(path, rules).map_or_else(String::new, |c| format!("; build it with `{c}`"))
}

/// A table file that cannot be used. Every error names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// The file is not there.
    #[error("{path}: table file missing{}", build_hint(path, *rules))]
    Missing {
        /// The file.
        path: PathBuf,
        /// The rule set being probed, when its rule tables are wanted beside this file.
        rules: Option<DrawRuleSet>,
    },
    /// Reading failed. (The failure is shown in the message, not chained as a source,
    /// so that it is said once.)
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        error: std::io::Error,
    },
    /// Not a kabe table at all.
    #[error("{path}: not a kabe table file")]
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// Written by another format version.
    #[error(
        "{path}: table format version {found}, this kabe reads version {FORMAT_VERSION}: rebuild the tables \
         (kabe generate; delete the old files first)"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u16,
    },
    /// A valid table, but of other rules, material or metric than asked for.
    #[error(
        "{path}: table is for {found}, expected {expected} (a file of an older reading or another build: delete it{})",
        build_hint(path, None)
    )]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What the file holds.
        found: String,
        /// What was asked for.
        expected: String,
    },
    /// A valid table of another game under this game's name: never this game's to
    /// replace or delete.
    #[error(
        "{path}: a table of {found} draughts, not {expected}: another game's table in this game's folder (a link \
         or mount between the two?); kabe leaves it as it is"
    )]
    OtherGame {
        /// The file.
        path: PathBuf,
        /// The game it is of.
        found: String,
        /// The game asked for.
        expected: String,
    },
    /// Truncated, damaged or inconsistent.
    #[error("{path}: corrupt table: {detail}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The file that holds a pair's values is missing: its colour flip keeps none of its
    /// own ([`TableFlags::BY_SEARCH`]) and reads them here. The missing file is the one
    /// named, the one to rebuild.
    #[error(
        "{path}: table file missing ({reader} keeps no values of its own and reads them here){}",
        build_hint(path, None)
    )]
    FlipMissing {
        /// The missing file.
        path: PathBuf,
        /// Its colour flip's file, which reads through it.
        reader: PathBuf,
    },
}

impl TableError {
    /// The same error again, for a second reader of the same unusable file (an I/O
    /// failure keeps its kind and message).
    pub fn duplicate(&self) -> TableError {
        match self {
            TableError::Missing { path, rules } => TableError::Missing { path: path.clone(), rules: *rules },
            TableError::Io { path, error } => {
                TableError::Io { path: path.clone(), error: std::io::Error::new(error.kind(), error.to_string()) }
            }
            TableError::NotATable { path } => TableError::NotATable { path: path.clone() },
            TableError::Version { path, found } => TableError::Version { path: path.clone(), found: *found },
            TableError::Foreign { path, found, expected } => {
                TableError::Foreign { path: path.clone(), found: found.clone(), expected: expected.clone() }
            }
            TableError::Corrupt { path, detail } => TableError::Corrupt { path: path.clone(), detail: detail.clone() },
            TableError::OtherGame { path, found, expected } => {
                TableError::OtherGame { path: path.clone(), found: found.clone(), expected: expected.clone() }
            }
            TableError::FlipMissing { path, reader } => {
                TableError::FlipMissing { path: path.clone(), reader: reader.clone() }
            }
        }
    }

    /// `path` keeps no values of its own ([`TableFlags::BY_SEARCH`]) and its colour flip
    /// `flip`, which should hold them, keeps none either (or is the same file).
    pub fn values_nowhere(path: &Path, flip: &Path) -> TableError {
        TableError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("holds no values, to be found through {}, which does not hold them either", flip.display()),
        }
    }

    /// The error for a header of `found_variant`'s table of `found` where `expected` (of
    /// `variant`) was asked for: another game's ([`TableError::OtherGame`]) or this
    /// game's of another material, kind or reading ([`TableError::Foreign`]).
    pub fn not_the_table(
        path: &Path,
        found_variant: &str,
        found: String,
        variant: &str,
        expected: String,
    ) -> TableError {
        if found_variant != variant {
            TableError::OtherGame {
                path: path.to_path_buf(),
                found: found_variant.to_string(),
                expected: variant.to_string(),
            }
        } else {
            TableError::Foreign { path: path.to_path_buf(), found, expected }
        }
    }

    /// Entry `index` of `path` holds no value the format defines.
    pub fn undefined_value(path: &Path, index: u64) -> TableError {
        TableError::Corrupt { path: path.to_path_buf(), detail: format!("undefined value at index {index}") }
    }

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TableError::Missing { path, .. }
            | TableError::Io { path, .. }
            | TableError::NotATable { path }
            | TableError::Version { path, .. }
            | TableError::Foreign { path, .. }
            | TableError::OtherGame { path, .. }
            | TableError::Corrupt { path, .. }
            | TableError::FlipMissing { path, .. } => path,
        }
    }
}

/// The fixed header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u16,
    /// What is stored.
    pub metric: Metric,
    /// Bits per entry before compression (0 in a table found by search).
    pub entry_bits: u8,
    /// What the table leaves out.
    pub flags: TableFlags,
    /// Material.
    pub signature: Signature,
    /// Variant name.
    pub variant: String,
    /// Number of positions.
    pub positions: u64,
    /// Positions per block.
    pub block_positions: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// xxh3-64 of header bytes 0..56 and the rest of the file.
    pub checksum: u64,
}

impl Header {
    /// The 64 header bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&self.version.to_le_bytes());
        b[10] = self.metric.code();
        b[11] = self.entry_bits;
        let s = self.signature;
        b[12..16].copy_from_slice(&[s.white_men, s.white_kings, s.black_men, s.black_kings]);
        let name = self.variant.as_bytes();
        b[16..16 + name.len().min(VARIANT_LEN)].copy_from_slice(&name[..name.len().min(VARIANT_LEN)]);
        b[FLAGS_AT] = self.flags.0;
        b[40..48].copy_from_slice(&self.positions.to_le_bytes());
        b[48..52].copy_from_slice(&self.block_positions.to_le_bytes());
        b[52..56].copy_from_slice(&self.blocks.to_le_bytes());
        b[56..64].copy_from_slice(&self.checksum.to_le_bytes());
        b
    }

    /// Reads a header, checking magic and version; `path` is for errors.
    ///
    /// # Errors
    /// [`TableError::NotATable`] when the bytes do not start with kabe's magic;
    /// [`TableError::Version`] for another format version; [`TableError::Corrupt`] for a
    /// truncated header, an unknown metric or flag, or an entry width, variant name,
    /// block size or block count that cannot be right.
    pub fn parse(bytes: &[u8], path: &std::path::Path) -> Result<Header, TableError> {
        if bytes.len() < 8 || bytes[0..8] != MAGIC {
            return Err(TableError::NotATable { path: path.to_path_buf() });
        }
        if bytes.len() < HEADER_LEN {
            return Err(TableError::Corrupt { path: path.to_path_buf(), detail: "truncated header".into() });
        }
        let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
        let version = u16_at(8);
        if version != FORMAT_VERSION {
            return Err(TableError::Version { path: path.to_path_buf(), found: version });
        }
        let corrupt = |detail: &str| TableError::Corrupt { path: path.to_path_buf(), detail: detail.to_string() };
        let metric = Metric::from_code(bytes[10]).ok_or_else(|| corrupt("unknown metric"))?;
        let entry_bits = bytes[11];
        if bytes[FLAGS_AT] & !TableFlags::KNOWN != 0 {
            return Err(corrupt("unknown flags"));
        }
        let flags = TableFlags(bytes[FLAGS_AT]);
        let by_search = flags.contains(TableFlags::BY_SEARCH);
        let valid_bits = match metric {
            _ if by_search => entry_bits == 0,
            Metric::Wld => entry_bits == 2,
            Metric::Dtw => entry_bits == 8 || entry_bits == 16,
            Metric::Rules(_) => entry_bits == 8,
        };
        if !valid_bits {
            return Err(corrupt("bad entry width"));
        }
        let name = &bytes[16..16 + VARIANT_LEN];
        let end = name.iter().position(|&c| c == 0).unwrap_or(VARIANT_LEN);
        let variant = std::str::from_utf8(&name[..end]).map_err(|_| corrupt("variant name is not text"))?.to_string();
        let header = Header {
            version,
            metric,
            entry_bits,
            flags,
            signature: Signature::new(bytes[12], bytes[13], bytes[14], bytes[15]),
            variant,
            positions: u64_at(40),
            block_positions: u32_at(48),
            blocks: u32_at(52),
            checksum: u64_at(56),
        };
        let per = header.block_positions;
        if per == 0 || per > MAX_BLOCK_POSITIONS {
            return Err(corrupt("block size out of range"));
        }
        let blocks = if by_search { 0 } else { header.positions.div_ceil(per as u64) };
        if header.blocks as u64 != blocks {
            return Err(corrupt("block count does not match the position count"));
        }
        Ok(header)
    }

    /// Whether the file holds a value of its own for `position` (of its signature, either
    /// side to move): not where its flags leave the position out, which a reader finds
    /// by one ply of search ([`crate::internal::successors`]).
    #[inline]
    pub fn holds(&self, position: &crate::Position) -> bool {
        self.holds_with(|| position.has_capture())
    }

    /// As [`Header::holds`], the position's capture test made by `has_capture` only
    /// where the flags ask for it: a caller asking several files about one position
    /// tests it once.
    #[inline]
    pub fn holds_with(&self, has_capture: impl FnOnce() -> bool) -> bool {
        let left_out = self.flags.contains(TableFlags::BY_SEARCH)
            || (self.flags.contains(TableFlags::CAPTURES_FREE) && has_capture());
        !left_out
    }

    /// Whether the file holds no values at all ([`TableFlags::BY_SEARCH`]).
    pub fn by_search(&self) -> bool {
        self.flags.contains(TableFlags::BY_SEARCH)
    }

    /// Positions in block `b`.
    pub fn positions_in_block(&self, b: u32) -> usize {
        let start = b as u64 * self.block_positions as u64;
        (self.positions - start).min(self.block_positions as u64) as usize
    }

    /// Uncompressed bytes of block `b`.
    pub fn block_bytes(&self, b: u32) -> usize {
        (self.positions_in_block(b) * self.entry_bits as usize).div_ceil(8)
    }
}

/// The WLD code of a value: 0 loss, 1 draw, 2 win.
pub fn wld_code(wld: Wld) -> u8 {
    match wld {
        Wld::Loss => 0,
        Wld::Draw => 1,
        Wld::Win => 2,
    }
}

/// The bytes (before zstd) of one WLD block: `dont_care(i)` says that position `i` of
/// the block holds no value of its own (its side to move must capture); it continues the
/// run before it, which is what makes the file small.
pub fn encode_wld_block(scores: &[Score], dont_care: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut last = 1u8;
    let values: Vec<u8> = scores
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if !dont_care(i) {
                last = wld_code(s.wld());
            }
            last
        })
        .collect();
    super::runs::encode(&values)
}

/// The uncompressed bytes of one DTW block of `scores`, entries of `entry_bits` (8: the
/// plies, 255 for a draw; otherwise 16: [`Score::raw`]); a position `dont_care` says holds
/// no value of its own repeats the entry before it. (WLD blocks: [`encode_wld_block`],
/// rule blocks: [`encode_rule_block`].)
pub fn encode_dtw_block(entry_bits: u8, scores: &[Score], dont_care: impl Fn(usize) -> bool) -> Vec<u8> {
    let entry = |s: &Score| match entry_bits {
        8 => s.plies().map_or(u8::MAX as u16, |p| p),
        _ => s.raw(),
    };
    let mut last = entry(&Score::DRAW);
    let values = scores.iter().enumerate().map(|(i, s)| {
        if !dont_care(i) {
            last = entry(s);
        }
        last
    });
    if entry_bits == 8 {
        values.map(|v| v as u8).collect()
    } else {
        values.flat_map(u16::to_le_bytes).collect()
    }
}

/// Entry `i` of a decompressed WLD or DTW block (as [`super::TableFile::block`] returns
/// it); `None` for a value the format does not define or an entry past the block's end.
pub fn decode_entry(header: &Header, block: &[u8], i: usize) -> Option<Score> {
    match (header.metric, header.entry_bits) {
        // WLD tables carry no distance: a win is reported as 1 ply, a loss as 0.
        (Metric::Wld, _) => decode_wld_entry(block, i).map(|wld| match wld {
            Wld::Loss => Score::loss(0),
            Wld::Draw => Score::DRAW,
            Wld::Win => Score::win(1),
        }),
        (Metric::Dtw, 8) => Some(match *block.get(i)? {
            u8::MAX => Score::DRAW,
            p => Score::from_raw(p as u16),
        }),
        (Metric::Dtw, _) => Some(Score::from_raw(u16::from_le_bytes([*block.get(2 * i)?, *block.get(2 * i + 1)?]))),
        (Metric::Rules(_), _) => None,
    }
}

/// Entry `i` of a decompressed WLD block: two bits a position (0 loss, 1 draw, 2 win);
/// `None` for the undefined code or an entry past the block's end.
#[inline]
pub fn decode_wld_entry(block: &[u8], i: usize) -> Option<Wld> {
    match (block.get(i / 4)? >> (2 * (i % 4))) & 3 {
        0 => Some(Wld::Loss),
        1 => Some(Wld::Draw),
        2 => Some(Wld::Win),
        _ => None,
    }
}

/// The bytes of one block of a rule table: one byte per entry, the [`RuleScore`] code
/// (`2 * plies + win`, at most 2 * 60 + 1), 255 for undecided; a position `dont_care`
/// says holds no value of its own repeats the entry before it.
pub fn encode_rule_block(values: &[RuleScore], dont_care: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut last = u8::MAX;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if !dont_care(i) {
                last = rule_code(*v);
            }
            last
        })
        .collect()
}

/// The one-byte code of a rule value in a rule table: `2 * plies + win` within the
/// count, 255 for undecided ([`decode_rule_entry`] reads it back).
pub fn rule_code(value: RuleScore) -> u8 {
    if value == RuleScore::NONE {
        u8::MAX
    } else {
        u8::try_from(value.raw()).unwrap_or(u8::MAX)
    }
}

/// Entry `i` of a decompressed rule-table block ([`rule_code`]); `None` past the block's
/// end.
#[inline]
pub fn decode_rule_entry(block: &[u8], i: usize) -> Option<RuleScore> {
    block.get(i).map(|&code| rule_of_code(code))
}

/// The rule value a one-byte code ([`rule_code`]) stands for.
#[inline]
pub fn rule_of_code(code: u8) -> RuleScore {
    match code {
        u8::MAX => RuleScore::NONE,
        code => RuleScore::from_raw(code as u16),
    }
}
