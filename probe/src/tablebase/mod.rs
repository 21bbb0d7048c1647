//! The probe library: a directory of tables opened once, probed from any thread.
//!
//! ```
//! # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
//! use kabe_probe::tablebase::Tablebase;
//! use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, Variant, Wld};
//!
//! let tb = Tablebase::builder(&tables).cache_bytes(64 << 20).open()?;
//! let p = Position::from_fen(Variant::INTERNATIONAL, "W:W32:B27")?;
//! assert_eq!(tb.probe_wld(&p)?, Wld::Win); // 32x21 takes Black's last piece
//! let rules = tb.draw_rules(p.variant()).expect("international tables are open");
//! let verdict = tb.probe(&p, &Counters::fresh(rules, &p))?;
//! println!("{:?} under {}, {:?} in theory", verdict.exact, rules.set, verdict.theoretical);
//! // The counters carry their rule set: the same tablebase answers under another one.
//! let older = DrawRules::new(DrawRuleSet::Fmjd2000, p.variant());
//! match tb.probe(&p, &Counters::fresh(&older, &p)) {
//!     Ok(v) => println!("{:?} under fmjd-2000", v.exact),
//!     Err(e) => println!("{e}"), // names the missing fmjd-2000 table and how to build it
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! One tablebase answers under every draw-rule set whose tables the directory holds: the
//! set is the one the [`Counters`] were made for. A set not written for the game, or
//! counters that cannot belong to the position, are a typed error, never a panic.
//!
//! Every table file's header is read and checked at open; files are opened the first time
//! a position needs them, and decompressed blocks live in one bounded cache shared by all
//! threads ([`TablebaseBuilder::cache_bytes`], default [`DEFAULT_CACHE_BYTES`]).
//!
//! DTW and rule tables hold every position of their material, so a position within
//! range is one lookup. WLD tables leave out the positions whose side to move must
//! capture; those, and positions with more pieces than the tables where the side to move
//! must capture, are resolved by playing the captures (recursively) to positions that
//! hold a value.

mod catalog;
mod error;

pub use error::ProbeError;

use std::path::{Path, PathBuf};

use self::catalog::{Catalog, Column, Slot};
use crate::index::Signature;
use crate::rules::exact::{self, MoveVerdict, Oracle, Verdict};
use crate::rules::{Counters, DrawRuleSet, DrawRules};
use crate::successors;
pub use crate::table::CacheStats;
use crate::table::{decode_entry, decode_rule_entry, decode_wld_entry, BlockReader};
use crate::table::{file_name, Metric, TableError};
use crate::{Move, Position, RuleScore, Score, Variant, Wld};

/// The block cache's size when the caller does not set one: 64 MiB of decompressed
/// blocks (4,096 DTW blocks, or 16,384 WLD blocks of 16,384 positions each).
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// The largest block cache the front ends take (`kabe serve --cache`, the C ABI's
/// `cache_bytes`, the Python package's `cache_bytes`): 1 TiB, past any table set's size.
pub const MAX_CACHE_BYTES: usize = 1 << 40;

/// Options for opening a [`Tablebase`].
#[derive(Clone, Debug)]
pub struct TablebaseBuilder {
    dir: PathBuf,
    cache_bytes: usize,
    variants: Option<Vec<Variant>>,
    rules: Vec<DrawRuleSet>,
    memory_map: bool,
}

impl TablebaseBuilder {
    /// Bytes of decompressed blocks to keep (shared by all threads).
    ///
    /// ```
    /// let builder = kabe_probe::tablebase::Tablebase::builder("tables").cache_bytes(256 << 20);
    /// # drop(builder);
    /// ```
    #[must_use]
    pub fn cache_bytes(mut self, bytes: usize) -> TablebaseBuilder {
        self.cache_bytes = bytes;
        self
    }

    /// Only these variants (default: every variant with a folder in the directory).
    ///
    /// ```
    /// use kabe_probe::{tablebase::Tablebase, Variant};
    /// let builder = Tablebase::builder("tables").variants(&[Variant::RUSSIAN]);
    /// # drop(builder);
    /// ```
    #[must_use]
    pub fn variants(mut self, variants: &[Variant]) -> TablebaseBuilder {
        self.variants = Some(variants.to_vec());
        self
    }

    /// The draw rules [`Tablebase::draw_rules`] offers as a variant's default, for the
    /// variants they apply to (default: each variant's own set: `fmjd` on 10x10,
    /// `ussr1953` on Russian). A probe applies the set its [`Counters`] carry, whatever
    /// this says.
    ///
    /// ```
    /// use kabe_probe::{tablebase::Tablebase, DrawRuleSet};
    /// let builder = Tablebase::builder("tables").rules(DrawRuleSet::Fmjd2000);
    /// # drop(builder);
    /// ```
    #[must_use]
    pub fn rules(mut self, set: DrawRuleSet) -> TablebaseBuilder {
        self.rules.push(set);
        self
    }

    /// Memory-map the table files instead of reading them by positional reads (the
    /// default, which needs no promise).
    ///
    /// # Safety
    ///
    /// No table file under the directory may be written in place, truncated or shrunk
    /// while the tablebase is open (the contract of
    /// [`TableFile::open_mapped`](crate::table::TableFile::open_mapped), for every file):
    /// a mapped file that shrinks ends the process with SIGBUS, where positional
    /// reads give an error naming the file. kabe's builds replace files by rename, which
    /// keeps that promise; another program writing the tables does not.
    ///
    /// ```
    /// // SAFETY: nothing writes the table files while this tablebase is open.
    /// let builder = unsafe { kabe_probe::tablebase::Tablebase::builder("tables").memory_map() };
    /// # drop(builder);
    /// ```
    #[must_use]
    pub unsafe fn memory_map(mut self) -> TablebaseBuilder {
        self.memory_map = true;
        self
    }

    /// Finds the tables and checks every header.
    ///
    /// ```
    /// use kabe_probe::tablebase::{ProbeError, Tablebase};
    /// let missing = Tablebase::builder("/no/such/dir").open();
    /// assert!(matches!(missing, Err(ProbeError::Directory { .. })));
    /// ```
    ///
    /// # Errors
    /// [`ProbeError::Directory`], naming the folder, when the directory is missing or not
    /// a directory, or it or a variant's folder in it cannot be read. A table file that
    /// cannot be used is no error here: [`Tablebase::unusable_files`] lists it, and a
    /// probe that needs it names it.
    pub fn open(self) -> Result<Tablebase, ProbeError> {
        if let Ok(meta) = std::fs::metadata(&self.dir)
            && !meta.is_dir()
        {
            return Err(ProbeError::Directory {
                path: self.dir.clone(),
                error: std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    "not a directory (the table directory holds a folder per variant)",
                ),
            });
        }
        let variants = match self.variants {
            Some(v) => v,
            None => {
                let mut found = Vec::new();
                for variant in Variant::ALL {
                    let folder = self.dir.join(variant.name);
                    match std::fs::metadata(&folder) {
                        Ok(meta) if meta.is_dir() => found.push(variant),
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        // Unreadable (no permission, a loop of links): said, not taken for "no tables".
                        Err(error) => return Err(ProbeError::Directory { path: folder, error }),
                    }
                }
                if found.is_empty()
                    && let Err(error) = std::fs::read_dir(&self.dir)
                {
                    let error = if error.kind() == std::io::ErrorKind::NotFound {
                        std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory")
                    } else {
                        error
                    };
                    return Err(ProbeError::Directory { path: self.dir.clone(), error });
                }
                found
            }
        };
        let mut next_id = 0;
        let mut open = Vec::new();
        for variant in variants {
            let set = self
                .rules
                .iter()
                .copied()
                .find(|s| s.applies_to(&variant))
                .unwrap_or_else(|| DrawRuleSet::usual_for(&variant));
            let catalog = Catalog::scan(&self.dir, &variant, self.memory_map, &mut next_id)?;
            open.push(VariantTables { variant, default_rules: DrawRules::new(set, &variant), catalog });
        }
        Ok(Tablebase { dir: self.dir, variants: open, blocks: BlockReader::new(self.cache_bytes) })
    }
}

#[derive(Debug)]
struct VariantTables {
    variant: Variant,
    /// What [`Tablebase::draw_rules`] offers.
    default_rules: DrawRules,
    catalog: Catalog,
}

/// Endgame tables of one directory: `Send + Sync`, no global state; open as many as you
/// like side by side.
pub struct Tablebase {
    dir: PathBuf,
    variants: Vec<VariantTables>,
    /// Every entry is read through it (the block cache all threads share).
    blocks: BlockReader,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase").field("dir", &self.dir).field("cache", &self.blocks.stats()).finish()
    }
}

/// Whether a probe may read files or only the cache.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Disk,
    CacheOnly,
}

/// Whether `a` is better than `b` for the side to move: quicker wins, slower losses.
fn better(a: Score, b: Score) -> bool {
    let key = |s: Score| match (s.wld(), s.plies()) {
        (Wld::Win, Some(p)) => (2, -(p as i32)),
        (Wld::Loss, Some(p)) => (0, p as i32),
        _ => (1, 0),
    };
    key(a) > key(b)
}

/// What a position's table stores for it.
enum Stored {
    /// Its value.
    Value(Wld),
    /// Its block is not in the cache (a cache-only probe).
    NotCached,
    /// Nothing: the table leaves the position out (found by search).
    LeftOut,
    /// There is no table of its material.
    NoTable,
}

/// How many pieces beyond its largest table a position may have and still be resolved
/// through its forced captures: each capture takes at least one piece, so this bounds the
/// depth, and so the work, of that search whatever the position (a proof search beyond
/// the tables is `kabe_analyze::prove`'s job, with its own budget).
pub const CAPTURE_REACH: u32 = 6;

/// The captures the side to move must make when `position` is beyond the tables but
/// within [`CAPTURE_REACH`] of them; `None` otherwise.
fn forced_captures(tables: &VariantTables, position: &Position) -> Option<Vec<Move>> {
    if position.piece_count() > tables.catalog.largest_pieces + CAPTURE_REACH {
        return None;
    }
    let moves = position.legal_moves();
    moves.first().is_some_and(Move::is_capture).then(|| moves.iter().copied().collect())
}

impl Tablebase {
    /// The tables under `dir` with the default options.
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// let tb = kabe_probe::tablebase::Tablebase::open(&tables)?;
    /// println!("complete up to {} pieces", tb.max_pieces());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`TablebaseBuilder::open`]: [`ProbeError::Directory`] when the directory is
    /// missing, not a directory or unreadable.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        Tablebase::builder(dir).open()
    }

    /// Options: cache size, variants, draw rules.
    ///
    /// ```
    /// let builder = kabe_probe::tablebase::Tablebase::builder("tables");
    /// # drop(builder);
    /// ```
    pub fn builder(dir: impl AsRef<Path>) -> TablebaseBuilder {
        TablebaseBuilder {
            dir: dir.as_ref().to_path_buf(),
            cache_bytes: DEFAULT_CACHE_BYTES,
            variants: None,
            rules: Vec::new(),
            memory_map: false,
        }
    }

    /// The largest number of pieces up to which every material of some open variant has
    /// its tables (0 when none is complete).
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// let tb = kabe_probe::tablebase::Tablebase::open(&tables)?;
    /// assert!(tb.max_pieces() >= 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_pieces(&self) -> u32 {
        self.variants.iter().map(|v| v.catalog.complete_pieces).max().unwrap_or(0)
    }

    /// The table directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files of the directory that cannot be used (missing a colour flip they read
    /// through, empty, damaged in the header, foreign, not a regular file), each with
    /// what is wrong. The tablebase answers without them: a probe that needs one names
    /// it, every other probe is answered. A block damaged inside a file is found when it
    /// is read, not here (`kabe verify` reads every block).
    pub fn unusable_files(&self) -> impl Iterator<Item = &TableError> + '_ {
        self.variants.iter().flat_map(|v| v.catalog.unusable.iter().map(|u| &u.error))
    }

    /// The same for one variant (0 when it is not open).
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Variant};
    /// let tb = Tablebase::open(&tables)?;
    /// println!("Russian up to {} pieces", tb.max_pieces_of(&Variant::RUSSIAN));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_pieces_of(&self, variant: &Variant) -> u32 {
        self.tables(variant).map_or(0, |v| v.catalog.complete_pieces)
    }

    /// The draw rules a game of `variant` is played under unless the caller says
    /// otherwise (the builder's [`TablebaseBuilder::rules`], else the variant's usual set),
    /// for building counters; `None` when the variant is not open. Any other set written
    /// for the game works as well: build its counters with [`DrawRules::new`].
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, DrawRuleSet, Variant};
    /// let tb = Tablebase::open(&tables)?;
    /// assert_eq!(tb.draw_rules(&Variant::INTERNATIONAL).map(|r| r.set), Some(DrawRuleSet::Fmjd));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn draw_rules(&self, variant: &Variant) -> Option<&DrawRules> {
        self.tables(variant).ok().map(|v| &v.default_rules)
    }

    /// The rule sets with rule tables for `variant` (the exact verdict under a set needs
    /// them, beyond the materials whose count never ends early).
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, DrawRuleSet, Variant};
    /// let tb = Tablebase::open(&tables)?;
    /// assert!(tb.rule_sets(&Variant::RUSSIAN).contains(&DrawRuleSet::Ussr1953));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rule_sets(&self, variant: &Variant) -> Vec<DrawRuleSet> {
        let mut sets: Vec<DrawRuleSet> =
            self.tables(variant).map(|v| v.catalog.rule_sets().collect()).unwrap_or_default();
        sets.sort();
        sets
    }

    /// What the block cache holds.
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// let tb = kabe_probe::tablebase::Tablebase::open(&tables)?;
    /// assert_eq!(tb.cache_stats().capacity_bytes, kabe_probe::tablebase::DEFAULT_CACHE_BYTES);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cache_stats(&self) -> CacheStats {
        self.blocks.stats()
    }

    /// Win, draw or loss for the side to move, ignoring the counted draw rules (as the
    /// published databases give it).
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Position, Variant, Wld};
    /// let tb = Tablebase::open(&tables)?;
    /// let p = Position::from_fen(Variant::RUSSIAN, "W:WKa1,Kc1:BKh8")?;
    /// assert_eq!(tb.probe_wld(&p)?, Wld::Win);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ProbeError::VariantNotOpen`] when the position's variant is not open;
    /// [`ProbeError::NoTable`] when no table holds the material and the side to move has
    /// no capture to leave it, or [`ProbeError::TooManyPieces`] when the position has
    /// more pieces than the tables here and no capture leads into them;
    /// [`ProbeError::Table`], naming the file, when a table it reads is unusable: damaged
    /// (in its header, or in a block read now), of another version or game, or gone
    /// since the open.
    pub fn probe_wld(&self, position: &Position) -> Result<Wld, ProbeError> {
        self.wld(position, Access::Disk)?.ok_or(ProbeError::NotCached)
    }

    /// The WLD value `position`'s table stores, without any search: `Ok(None)` for a
    /// position the table leaves out (a capture to make, or a table of a pair whose
    /// colour flip holds the values), which [`Tablebase::probe_wld`] resolves by a
    /// one-ply search. For an engine's search, which resolves such positions itself one
    /// ply later, as with Kingsrow's and Scan's databases: one lookup, never more.
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Position, Variant, Wld};
    /// let tb = Tablebase::open(&tables)?;
    /// let p = Position::from_fen(Variant::RUSSIAN, "W:WKa1,Kc1:BKh8")?;
    /// if let Some(stored) = tb.probe_wld_stored(&p)? {
    ///     assert_eq!(stored, Wld::Win);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ProbeError::VariantNotOpen`] when the position's variant is not open;
    /// [`ProbeError::NoTable`] (or [`ProbeError::TooManyPieces`], beyond the largest
    /// table) when no WLD table holds its material: no capture is searched here;
    /// [`ProbeError::Table`], naming the file, when the table is unusable or the block
    /// read is damaged.
    pub fn probe_wld_stored(&self, position: &Position) -> Result<Option<Wld>, ProbeError> {
        let tables = self.tables(position.variant())?;
        match self.wld_stored(tables, position, Access::Disk)? {
            Stored::Value(w) => Ok(Some(w)),
            Stored::LeftOut => Ok(None),
            Stored::NotCached => Err(ProbeError::NotCached),
            Stored::NoTable => Err(self.no_table(tables, Signature::of(&position.normalized()), Metric::Wld)),
        }
    }

    /// As [`Tablebase::probe_wld_stored`] for consecutive positions of one table:
    /// `positions[i]` (White to move, of `signature`) has index `first + i`. Appends one
    /// value a position to `out`. What a generator's pass over a table asks: the indices
    /// are known, and each block is looked up once, not once a position.
    ///
    /// # Errors
    /// As [`Tablebase::probe_wld_stored`], at the first position that has no answer
    /// (what was appended before it stays in `out`).
    pub fn probe_wld_stored_run(
        &self,
        signature: Signature,
        first: u64,
        positions: &[Position],
        out: &mut Vec<Option<Wld>>,
    ) -> Result<(), ProbeError> {
        let Some(sample) = positions.first() else { return Ok(()) };
        let tables = self.tables(sample.variant())?;
        let slot = match tables.catalog.slot(signature, Column::Wld) {
            Some(slot) if signature.black_men + signature.black_kings > 0 && !slot.header.by_search() => slot,
            // No table, none needed, or one that stores nothing: a position at a time.
            _ => {
                for position in positions {
                    out.push(self.probe_wld_stored(position)?);
                }
                return Ok(());
            }
        };
        debug_assert_eq!(slot.index.index(sample), first, "{} is not at index {first}", sample.fen());
        let per = slot.header.block_positions as u64;
        let mut done = 0;
        while done < positions.len() {
            let index = first + done as u64;
            let n = ((per - index % per) as usize).min(positions.len() - done);
            let run = &positions[done..done + n];
            let found = self.entry(&tables.variant, slot, index, Access::Disk, |block, at| {
                // A left-out position's slot may hold anything: read only the others.
                let mut values = Vec::with_capacity(n);
                for (k, position) in run.iter().enumerate() {
                    values.push(match position.settled_score() {
                        Some(settled) => Some(settled.wld()),
                        None if !slot.holds(position) => None,
                        None => Some(decode_wld_entry(block, at + k)?),
                    });
                }
                Some(values)
            })?;
            out.extend(found.ok_or(ProbeError::NotCached)?);
            done += n;
        }
        Ok(())
    }

    /// As [`Tablebase::probe_wld`], but never reads a file: `Ok(None)` when the block is
    /// not in the cache (for use deep in a search, where a disk read costs too much).
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Position, Variant};
    /// let tb = Tablebase::open(&tables)?;
    /// let p = Position::from_fen(Variant::RUSSIAN, "W:WKa1,Kc1:BKh8")?;
    /// assert_eq!(tb.probe_wld_cached(&p)?, None); // nothing read yet
    /// tb.probe_wld(&p)?;
    /// assert!(tb.probe_wld_cached(&p)?.is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tablebase::probe_wld`], for what the cache holds; a block not in the cache is
    /// `Ok(None)`, not an error.
    pub fn probe_wld_cached(&self, position: &Position) -> Result<Option<Wld>, ProbeError> {
        self.wld(position, Access::CacheOnly)
    }

    /// The theoretical value with its distance to win (plies to the end of the game).
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Position, Variant};
    /// let tb = Tablebase::open(&tables)?;
    /// let p = Position::from_fen(Variant::INTERNATIONAL, "W:W32:B27")?;
    /// println!("{}", tb.probe_dtw(&p)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ProbeError::VariantNotOpen`] when the position's variant is not open;
    /// [`ProbeError::NoTable`] when no DTW table holds the material and the side to move
    /// has no capture to leave it, or [`ProbeError::TooManyPieces`] when the position has
    /// more pieces than the tables here and no capture leads into them;
    /// [`ProbeError::Table`], naming the file, when a table it reads is unusable, as for
    /// [`Tablebase::probe_wld`].
    pub fn probe_dtw(&self, position: &Position) -> Result<Score, ProbeError> {
        let tables = self.tables(position.variant())?;
        self.dtw(tables, position)
    }

    /// The raw rule-table value of a position within range: the distance within the count
    /// its material keeps ([`RuleScore`]), as the rule tables of `set` store it. Most
    /// callers want [`Tablebase::probe`], which applies the counters.
    ///
    /// # Errors
    /// [`ProbeError::VariantNotOpen`] when the position's variant is not open;
    /// [`ProbeError::NoTable`] (or [`ProbeError::TooManyPieces`], beyond the largest
    /// table) when `set` has no rule table for the material: no capture is searched
    /// here; [`ProbeError::Table`], naming the file, when a table it reads is unusable.
    pub fn probe_counted(&self, position: &Position, set: DrawRuleSet) -> Result<RuleScore, ProbeError> {
        let tables = self.tables(position.variant())?;
        self.counted(tables, set, position)
    }

    /// The exact verdict under the draw rules for `counters` (see [`Counters`]): the
    /// result, the theoretical value, the count that governs and its plies left.
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Counters, Position, Variant, Wld};
    /// let tb = Tablebase::open(&tables)?;
    /// let p = Position::from_fen(Variant::RUSSIAN, "W:WKa1,Kc1:BKh8")?;
    /// let rules = tb.draw_rules(p.variant()).expect("open");
    /// assert_eq!(tb.probe(&p, &Counters::fresh(rules, &p))?.exact, Wld::Win); // in 3 plies
    /// // 58 plies of the 30-move count gone: the win no longer fits in the 2 left.
    /// let late = Counters::parse(rules, &p, "16b=58")?;
    /// let verdict = tb.probe(&p, &late)?;
    /// assert_eq!((verdict.exact, verdict.count), (Wld::Draw, Some(("16b", 2))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ProbeError::Counters`] when `counters` do not fit the position (see
    /// [`Counters::checked`]); otherwise as [`Tablebase::probe_dtw`], the rule tables of
    /// the counters' set read as well: [`ProbeError::VariantNotOpen`],
    /// [`ProbeError::NoTable`] or [`ProbeError::TooManyPieces`] naming the DTW or rule
    /// table that is not here, [`ProbeError::Table`] naming an unusable file.
    pub fn probe(&self, position: &Position, counters: &Counters) -> Result<Verdict, ProbeError> {
        let tables = self.tables(position.variant())?;
        self.verdict(tables, position, &counters.checked(position)?)
    }

    /// The moves that keep the exact verdict, best first (quickest win within the count,
    /// longest loss), each with the position and counters after it.
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Counters, Position, Variant};
    /// let tb = Tablebase::open(&tables)?;
    /// let p = Position::from_fen(Variant::INTERNATIONAL, "W:W32:B27")?;
    /// let rules = tb.draw_rules(p.variant()).expect("open");
    /// for m in tb.best_moves(&p, &Counters::fresh(rules, &p))? {
    ///     println!("{} {:?}", p.move_text(&m.mv), m.exact);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tablebase::ranked_moves`].
    pub fn best_moves(&self, position: &Position, counters: &Counters) -> Result<Vec<MoveVerdict>, ProbeError> {
        Ok(exact::keep_best(self.ranked_moves(position, counters)?))
    }

    /// Every legal move with its exact result, best first (wins quickest first, then
    /// draws, then losses longest first), each with the position and counters after it.
    ///
    /// ```
    /// # let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables"); // 2-3 pieces, committed
    /// use kabe_probe::{tablebase::Tablebase, Counters, Position, Variant, Wld};
    /// let tb = Tablebase::open(&tables)?;
    /// let p = Position::from_fen(Variant::RUSSIAN, "W:WKa1,Kc1:BKh8")?;
    /// let rules = tb.draw_rules(p.variant()).expect("open");
    /// let moves = tb.ranked_moves(&p, &Counters::fresh(rules, &p))?;
    /// assert_eq!(moves.len(), p.legal_moves().len());
    /// assert_eq!(moves[0].exact, Wld::Win);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ProbeError::Counters`] when `counters` do not fit the position; otherwise as
    /// [`Tablebase::probe`] for the first position after a move that has no answer.
    pub fn ranked_moves(&self, position: &Position, counters: &Counters) -> Result<Vec<MoveVerdict>, ProbeError> {
        let tables = self.tables(position.variant())?;
        let counters = counters.checked(position)?;
        let mut ranked = Vec::new();
        for mv in position.legal_moves().iter() {
            let child = position.play(mv);
            let child_counters = counters.after(mv, &child);
            let verdict = self.verdict(tables, &child, &child_counters)?;
            ranked.push(MoveVerdict {
                mv: *mv,
                position: child,
                counters: child_counters,
                exact: verdict.exact.for_opponent(),
                child: verdict,
            });
        }
        exact::sort_ranked(&mut ranked);
        Ok(ranked)
    }

    /// One line of best play from the position (each side playing its first best move)
    /// until the game ends, a count draws it, or `max_plies` plies of a draw no count ends.
    ///
    /// # Errors
    /// As [`Tablebase::best_moves`], for the first position along the line that has no
    /// answer; the line found before it is not returned.
    pub fn best_line(
        &self,
        position: &Position,
        counters: &Counters,
        max_plies: usize,
    ) -> Result<(Vec<MoveVerdict>, exact::LineEnd), ProbeError> {
        let mut line = Vec::new();
        let (mut position, mut counters) = (*position, counters.checked(position)?);
        loop {
            if position.legal_moves().is_empty() {
                return Ok((line, exact::LineEnd::GameOver));
            }
            if let Some((article, 0)) = counters.governing(&position) {
                return Ok((line, exact::LineEnd::CountExpired(article)));
            }
            if line.len() >= max_plies {
                return Ok((line, exact::LineEnd::Unbounded));
            }
            let Some(next) = self.best_moves(&position, &counters)?.into_iter().next() else {
                return Ok((line, exact::LineEnd::GameOver));
            };
            position = next.position;
            counters = next.counters;
            line.push(next);
        }
    }

    fn tables(&self, variant: &Variant) -> Result<&VariantTables, ProbeError> {
        self.variants.iter().find(|v| v.variant.name == variant.name).ok_or_else(|| ProbeError::VariantNotOpen {
            variant: variant.name,
            open: self.variants.iter().map(|v| v.variant.name).collect::<Vec<_>>().join(", "),
        })
    }

    fn no_table(&self, tables: &VariantTables, signature: Signature, metric: Metric) -> ProbeError {
        if let Some(error) = tables.catalog.unusable(signature, Column::of(metric)) {
            return ProbeError::Table(error.duplicate());
        }
        let path = self.dir.join(file_name(tables.variant.name, signature, metric));
        let rules = Some(match metric {
            Metric::Rules(set) => set,
            _ => tables.default_rules.set,
        })
        .filter(|s| *s != DrawRuleSet::None);
        if signature.pieces() > tables.catalog.largest_pieces {
            return ProbeError::TooManyPieces {
                variant: tables.variant.name,
                signature,
                pieces: signature.pieces(),
                largest: tables.catalog.largest_pieces,
                path,
                rules,
            };
        }
        ProbeError::NoTable { variant: tables.variant.name, signature, path, rules }
    }

    /// Looks up entry `index` of `slot`, decoding it with `decode`; `None` only for a
    /// cache-only probe whose block is not cached.
    #[inline]
    fn entry<R>(
        &self,
        variant: &Variant,
        slot: &Slot,
        index: u64,
        access: Access,
        decode: impl Fn(&[u8], usize) -> Option<R>,
    ) -> Result<Option<R>, ProbeError> {
        if let Some(found) = self.blocks.cached_entry_at(slot.id, &slot.header, index, &decode) {
            return found.map(Some).ok_or_else(|| TableError::undefined_value(&slot.path, index).into());
        }
        if access == Access::CacheOnly {
            return Ok(None);
        }
        Ok(Some(self.blocks.entry_at(slot.id, slot.file(variant)?, index, decode)?))
    }

    fn wld(&self, position: &Position, access: Access) -> Result<Option<Wld>, ProbeError> {
        let tables = self.tables(position.variant())?;
        match self.wld_stored(tables, position, access)? {
            Stored::Value(w) => return Ok(Some(w)),
            Stored::NotCached => return Ok(None),
            Stored::LeftOut => return self.wld_by_search(position, access),
            Stored::NoTable => {}
        }
        let signature = Signature::of(&position.normalized());
        let Some(captures) = forced_captures(tables, position) else {
            return Err(self.no_table(tables, signature, Metric::Wld));
        };
        let mut best = Wld::Loss;
        for mv in &captures {
            match self.wld(&position.play(mv), access)? {
                None => return Ok(None),
                Some(w) => best = best.max(w.for_opponent()),
            }
            if best == Wld::Win {
                break;
            }
        }
        Ok(Some(best))
    }

    /// The WLD value `position`'s table stores for it, if it stores one.
    #[inline]
    fn wld_stored(&self, tables: &VariantTables, position: &Position, access: Access) -> Result<Stored, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(Stored::Value(settled.wld()));
        }
        let normalized = position.normalized();
        let signature = Signature::of(&normalized);
        // No piece on the other side: the game is over (normally won by the side to move).
        if signature.black_men + signature.black_kings == 0 {
            return Ok(Stored::Value(tables.variant.score_at_end().wld().for_opponent()));
        }
        let Some(slot) = tables.catalog.slot(signature, Column::Wld) else { return Ok(Stored::NoTable) };
        if !slot.holds(position) {
            return Ok(Stored::LeftOut);
        }
        let index = slot.index.index(&normalized);
        let found = self.entry(&tables.variant, slot, index, access, decode_wld_entry)?;
        Ok(found.map_or(Stored::NotCached, Stored::Value))
    }

    /// A position its WLD table leaves out (a capture to make, or the colour flip's table
    /// holds the pair): the best of its moves, by an alpha-beta search over the three
    /// values. The moves into positions whose values are stored come first (a win among
    /// them ends it at once); the others are searched within the window that still
    /// matters, so a position that needs only "not lost" stops at its first drawing move.
    /// The search ends: a left-out position's moves lead into the stored table of its
    /// pair, or to fewer pieces or men.
    fn wld_by_search(&self, position: &Position, access: Access) -> Result<Option<Wld>, ProbeError> {
        self.wld_within(position, access, Wld::Loss, Wld::Win)
    }

    /// The value of `position` if it lies strictly between `alpha` and `beta`; else a
    /// bound on the same side of the window (at most `alpha`, at least `beta`).
    fn wld_within(
        &self,
        position: &Position,
        access: Access,
        alpha: Wld,
        beta: Wld,
    ) -> Result<Option<Wld>, ProbeError> {
        let tables = self.tables(position.variant())?;
        match self.wld_stored(tables, position, access)? {
            Stored::Value(w) => return Ok(Some(w)),
            Stored::NotCached => return Ok(None),
            Stored::NoTable => return self.wld(position, access),
            Stored::LeftOut => {}
        }
        if position.is_drawn_by_material() {
            return Ok(Some(Wld::Draw));
        }
        let moves = position.legal_moves();
        if moves.is_empty() {
            return Ok(Some(position.variant().score_at_end().wld()));
        }
        let (mut best, mut alpha) = (Wld::Loss, alpha);
        let mut later: Vec<Position> = Vec::new();
        for mv in moves.iter() {
            let child = position.play(mv);
            match self.wld_stored(tables, &child, access)? {
                Stored::Value(w) => best = best.max(w.for_opponent()),
                Stored::NotCached => return Ok(None),
                Stored::LeftOut | Stored::NoTable => later.push(child),
            }
            if best >= beta {
                return Ok(Some(best));
            }
        }
        alpha = alpha.max(best);
        for child in &later {
            let Some(w) = self.wld_within(child, access, beta.for_opponent(), alpha.for_opponent())? else {
                return Ok(None);
            };
            best = best.max(w.for_opponent());
            if best >= beta {
                break;
            }
            alpha = alpha.max(best);
        }
        Ok(Some(best))
    }

    fn dtw(&self, tables: &VariantTables, position: &Position) -> Result<Score, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(settled);
        }
        let normalized = position.normalized();
        let signature = Signature::of(&normalized);
        if let Some(slot) = tables.catalog.slot(signature, Column::Dtw) {
            if !slot.holds(position) {
                return successors::score_from(position, |child| self.dtw(tables, child));
            }
            let index = slot.index.index(&normalized);
            let header = &slot.header;
            let found =
                self.entry(&tables.variant, slot, index, Access::Disk, |block, i| decode_entry(header, block, i))?;
            return found.ok_or(ProbeError::NotCached);
        }
        let Some(captures) = forced_captures(tables, position) else {
            return Err(self.no_table(tables, signature, Metric::Dtw));
        };
        let mut best: Option<Score> = None;
        for mv in &captures {
            let score = self.dtw(tables, &position.play(mv))?.parent();
            if best.is_none_or(|b| better(score, b)) {
                best = Some(score);
            }
        }
        best.ok_or_else(|| self.no_table(tables, signature, Metric::Dtw))
    }

    fn counted(&self, tables: &VariantTables, set: DrawRuleSet, position: &Position) -> Result<RuleScore, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(RuleScore::from_score(settled));
        }
        let normalized = position.normalized();
        let signature = Signature::of(&normalized);
        let metric = Metric::Rules(set);
        let slot = tables
            .catalog
            .slot(signature, Column::Rules(set))
            .ok_or_else(|| self.no_table(tables, signature, metric))?;
        if !slot.holds(position) {
            let rules = DrawRules::new(set, &tables.variant);
            let context = rules.context(signature).ok_or_else(|| self.no_table(tables, signature, metric))?;
            let oracle = VariantOracle { tb: self, tables, set };
            return successors::rule_score_from(&oracle, &rules, context, position);
        }
        let index = slot.index.index(&normalized);
        let found = self.entry(&tables.variant, slot, index, Access::Disk, decode_rule_entry)?;
        found.ok_or(ProbeError::NotCached)
    }

    fn verdict(&self, tables: &VariantTables, position: &Position, counters: &Counters) -> Result<Verdict, ProbeError> {
        let signature = Signature::of(&position.normalized());
        let in_range = signature.white_men + signature.white_kings == 0
            || signature.black_men + signature.black_kings == 0
            || tables.catalog.slot(signature, Column::Dtw).is_some();
        if in_range {
            return exact::verdict(&VariantOracle { tb: self, tables, set: counters.set }, position, counters);
        }
        // Beyond the tables: play the forced captures into range.
        let Some(captures) = forced_captures(tables, position) else {
            return Err(self.no_table(tables, signature, Metric::Dtw));
        };
        let mut best: Option<Verdict> = None;
        for mv in &captures {
            let child = position.play(mv);
            let after = self.verdict(tables, &child, &counters.after(mv, &child))?;
            let within = match after.within.decided() {
                Some((Wld::Win, p)) => RuleScore::loss(p + 1),
                Some((_, p)) => RuleScore::win(p + 1),
                None => RuleScore::NONE,
            };
            let mine = Verdict {
                exact: after.exact.for_opponent(),
                theoretical: after.theoretical.parent(),
                count: counters.governing(position),
                within,
            };
            let improves = best.is_none_or(|b| {
                mine.exact > b.exact || (mine.exact == b.exact && better(mine.theoretical, b.theoretical))
            });
            if improves {
                best = Some(mine);
            }
        }
        best.ok_or_else(|| self.no_table(tables, signature, Metric::Dtw))
    }
}

/// The exact-verdict code's view of one variant's tables under one rule set.
struct VariantOracle<'a> {
    tb: &'a Tablebase,
    tables: &'a VariantTables,
    set: DrawRuleSet,
}

impl Oracle for VariantOracle<'_> {
    type Error = ProbeError;

    fn theoretical(&self, position: &Position) -> Result<Score, ProbeError> {
        self.tb.dtw(self.tables, position)
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, ProbeError> {
        self.tb.counted(self.tables, self.set, position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tablebase_is_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<Tablebase>();
    }

    #[test]
    fn scores_order_quick_wins_first_and_slow_losses_before_quick_ones() {
        assert!(better(Score::win(1), Score::win(3)));
        assert!(better(Score::win(99), Score::DRAW));
        assert!(better(Score::DRAW, Score::loss(90)));
        assert!(better(Score::loss(8), Score::loss(2)));
        assert!(!better(Score::loss(2), Score::loss(2)));
    }
}
