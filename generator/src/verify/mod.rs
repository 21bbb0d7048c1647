//! Verification of a table directory through the table reader: every checksum of every
//! file (WLD, DTW and the rule tables of every draw-rule set present), and every stored
//! value derived again from its successors by a one-ply search. It shares nothing with
//! the solvers but move generation, the index, and for rule tables the definition of a
//! fresh count's verdict (`kabe_probe::rules::exact::verdict`), which is what the stored
//! distances mean.
//!
//! A one-ply check of exact distances is a complete proof: if some stored value were
//! wrong, the wrong one with the smallest true distance would disagree with its children.
//! The same holds for a rule table's distances within its count (capped at the count's
//! longest limit, beyond which a value is stored as undecided).

//!
//! Beside it: `statistics` (the figures counted while the values are held) and
//! `manifest` (the reference checksums of a set, checked file by file).

pub mod manifest;
mod sig_map;
pub mod statistics;
mod unfinished;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

use std::cell::RefCell;

use kabe_probe::rules::exact::{verdict, Oracle};
use kabe_probe::successors;
use kabe_probe::table::{decode_entry, BlockCache, BlockKey, Metric, TableDir, TableError, TableFile};
use kabe_probe::{
    Color, Counters, DrawRuleSet, DrawRules, MaterialIndex, Move, MoveList, PieceKind, Position, RuleScore, Score,
    Signature, Variant, Wld,
};
use rayon::prelude::*;

use crate::finished::working::tables_read;
use crate::memory::{Allowance, LazyBlocks};
use crate::pair::TablePair;
use crate::verify::sig_map::SigMap;
use crate::verify::statistics::{RuleStats, TableStats};

/// A stored value that its successors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The table.
    pub signature: Signature,
    /// The position, as FEN.
    pub fen: String,
    /// What the DTW table says.
    pub stored: Score,
    /// What the WLD table says (for a position it holds no value for, what its captures
    /// give through the WLD tables).
    pub stored_wld: Wld,
    /// What its successors give.
    pub derived: Score,
}

/// A stored rule-table value that its successors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleDisagreement {
    /// The draw-rule set of the table.
    pub set: DrawRuleSet,
    /// The table.
    pub signature: Signature,
    /// The position, as FEN.
    pub fen: String,
    /// What the rule table says.
    pub stored: RuleScore,
    /// What its successors give.
    pub derived: RuleScore,
}

/// What a verification found.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Table files whose checksum was checked.
    pub files: usize,
    /// Those files by kind (`wld`, `dtw`, or a draw-rule set's name).
    pub files_by_kind: BTreeMap<String, usize>,
    /// Files that hold no values: their positions are found by search through their
    /// colour flip's table.
    pub files_by_search: usize,
    /// Stored DTW and WLD values derived again (one per position holding either).
    pub positions: u64,
    /// Stored rule-table values derived again (one per table and position).
    pub rule_positions: u64,
    /// Pairs checked now.
    pub pairs_derived: usize,
    /// Pairs the ledger records as verified against the same files, not derived again.
    pub pairs_from_ledger: usize,
    /// Files that are unusable or missing, with the reason: one line each.
    pub bad_files: Vec<String>,
    /// Signatures with one of their two files (WLD, DTW) missing.
    pub incomplete: Vec<Signature>,
    /// What shows the set unfinished, one line each: a build writing it now, files a
    /// pass stopped in the middle left, a pair with one side's tables, a material the
    /// tables lead to with none. The values there were derived; these were not seen.
    pub unfinished: Vec<String>,
    /// The first disagreements found (at most `max_reported`), and how many in all.
    pub disagreements: Vec<Disagreement>,
    /// Disagreements in all.
    pub disagreement_count: u64,
    /// The first rule-table disagreements found (at most `max_reported`).
    pub rule_disagreements: Vec<RuleDisagreement>,
    /// Rule-table disagreements in all.
    pub rule_disagreement_count: u64,
    /// Positions not derived again because a successor's table is bad or missing (the
    /// table itself is named once in `bad_files`).
    pub unverified: u64,
    /// The ledger's lines (numbered from 1) whose seal did not hold, torn or edited: their
    /// pairs were derived again and the ledger written without them.
    pub ledger_ignored_lines: Vec<usize>,
    /// Why the ledger could not be read or written (an unwritable folder, a full disk):
    /// the verification went on without it.
    pub ledger_problem: Option<String>,
    /// The figures of the tables of the pairs derived now and found sound, by signature
    /// (theoretical, and under each rule set present), where the pair was held in memory;
    /// the ledger records the same.
    #[allow(clippy::type_complexity)]
    pub statistics: BTreeMap<Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>)>,
}

impl VerifyReport {
    /// Whether everything checked out.
    pub fn ok(&self) -> bool {
        self.bad_files.is_empty()
            && self.incomplete.is_empty()
            && self.unfinished.is_empty()
            && self.disagreement_count == 0
            && self.rule_disagreement_count == 0
            && self.unverified == 0
    }
}

/// The signatures with a table file of `variant` under `dir`, with the metrics present
/// (WLD, DTW and rule tables).
pub fn tables_in(dir: &Path, variant: &Variant) -> std::io::Result<BTreeMap<Signature, Vec<Metric>>> {
    TableDir::new(dir).tables(variant)
}

/// Tables read block by block through the table reader and the probe library's block
/// cache (the one read seam of every reader of table files), not through the solver's
/// lookups (`Registry::score`, the working form), so that verification shares no code
/// with them, and its memory stays bounded whatever the size of the set.
///
/// The pair being checked is held resident: every value of both its tables in memory,
/// left-out positions included (each derived once), so that a successor in the pair is
/// read by its index, with no capture test and no block lookup. Without that, a one-side
/// pair's successors are all left out and each costs a search of its own.
#[derive(Default)]
struct Tables {
    index: SigMap<MaterialIndex>,
    dtw: BTreeMap<Signature, TableFile>,
    wld: BTreeMap<Signature, TableFile>,
    rules: BTreeMap<DrawRuleSet, BTreeMap<Signature, TableFile>>,
    /// DTW values ([`Score::raw`]) of every position of the resident signatures: the
    /// pair being checked, and the pairs checked before it that are kept (pairs are
    /// checked in build order, so their values serve the later pairs' successors as
    /// one memory read each, the files' blocks and searches not read again).
    resident_dtw: SigMap<Vec<u16>>,
    /// Rule values (the file's one-byte code) of every position of the resident
    /// signatures, for the set named.
    resident_rules: Option<(DrawRuleSet, SigMap<Vec<u8>>)>,
    /// The rule values of the pairs checked before, by rule set, while the set's pass
    /// is not running.
    kept_rules: BTreeMap<DrawRuleSet, SigMap<Vec<u8>>>,
    /// DTW values of the pairs read but not checked in this run (the inputs of a pair
    /// checked alone, or of one after pairs the ledger spares): a position's value is
    /// found the first time a successor asks for it, from its file or from its own
    /// successors where the file leaves it out, and kept ([`NOT_YET_DTW`] until then). A
    /// pair reads only part of its inputs: deriving every left-out position of each, as
    /// for a pair checked, cost a pair checked alone most of its time. The values are
    /// kept in blocks made as they are first asked for, within `lazy_room`; where it has
    /// no room, a value is found each time it is asked for.
    lazy_dtw: SigMap<LazyBlocks<AtomicU16>>,
    /// Rule values of those pairs, by rule set, found the same way ([`NOT_YET_RULE`]).
    lazy_rules: BTreeMap<DrawRuleSet, SigMap<LazyBlocks<AtomicU8>>>,
    /// The bytes the blocks of lazily held values may take ([`hold_inputs`]), and take.
    lazy_room: Allowance,
}

/// Positions in a block of lazily held values: 32 KiB of DTW values.
const LAZY_BLOCK: u64 = 1 << 14;

/// A lazily held DTW value not found yet: a DTW of 65,534 plies, which no table comes
/// near.
const NOT_YET_DTW: u16 = u16::MAX - 1;
/// A lazily held rule value not found yet: no rule code ([`rule_code`]: `2 * plies + win`
/// within a count of at most 64 plies, or 255).
const NOT_YET_RULE: u8 = u8::MAX - 1;

impl Tables {
    /// Bytes of resident values, the pair being checked's and those kept.
    fn resident_bytes(&self) -> u64 {
        self.held_bytes() + self.lazy_room.spent()
    }

    /// Bytes of resident values but those held lazily.
    fn held_bytes(&self) -> u64 {
        let rules = self.resident_rules.iter().map(|(_, r)| r).chain(self.kept_rules.values());
        2 * self.resident_dtw.values().map(|v| v.len() as u64).sum::<u64>()
            + rules.flat_map(|r| r.values()).map(|v| v.len() as u64).sum::<u64>()
    }

    /// Lets go of every lazily held value.
    fn forget_all_lazy(&mut self) {
        self.lazy_dtw.clear();
        self.lazy_rules.clear();
        *self.lazy_room.spent_mut() = 0;
    }

    /// Lets go of the lazily held values of the signatures `drop` names.
    fn forget_lazy_where(&mut self, drop: impl Fn(&Signature) -> bool) {
        self.lazy_dtw.retain(|s| !drop(s));
        for values in self.lazy_rules.values_mut() {
            values.retain(|s| !drop(s));
        }
        let rules = self.lazy_rules.values().flat_map(|r| r.values()).map(LazyBlocks::made_bytes);
        *self.lazy_room.spent_mut() =
            self.lazy_dtw.values().map(LazyBlocks::made_bytes).sum::<u64>() + rules.sum::<u64>();
    }

    /// Whether `sig`'s DTW values are held, resident or lazily.
    fn holds_dtw(&self, sig: &Signature) -> bool {
        self.resident_dtw.contains_key(sig) || self.lazy_dtw.contains_key(sig)
    }

    /// Bytes `members` take once held resident ([`RESIDENT_BYTES_PER_POSITION`]).
    fn resident_need(&self, members: &[Signature]) -> u64 {
        members.iter().filter_map(|s| self.index.get(s)).map(MaterialIndex::len).sum::<u64>()
            * RESIDENT_BYTES_PER_POSITION
    }

    /// Whether a file of `sig` leaves every position out (its DTW table, or a rule table
    /// of any set): its values are found through its colour flip ([`tables_read`]). A
    /// table without a DTW file counts as one: its flip may be read.
    fn searched_whole(&self, sig: Signature) -> bool {
        let searched = |files: &BTreeMap<Signature, TableFile>| files.get(&sig).is_some_and(|f| f.header().by_search());
        !self.dtw.contains_key(&sig) || searched(&self.dtw) || self.rules.values().any(searched)
    }

    /// Lets go of the values kept of every signature but those of `keep`.
    fn keep_only(&mut self, keep: &BTreeSet<Signature>) {
        self.resident_dtw.retain(|s| keep.contains(s));
        for values in self.kept_rules.values_mut() {
            values.retain(|s| keep.contains(s));
        }
        self.forget_lazy_where(|s| !keep.contains(s));
    }

    /// Lets go of the values kept from the pairs checked before.
    fn forget_kept(&mut self) {
        self.resident_dtw.clear();
        self.kept_rules.clear();
        self.forget_all_lazy();
    }

    /// Holds the values of `pair` (not checked in this run) lazily: each position's found
    /// the first time it is asked for ([`Tables::lazy_dtw`]).
    fn hold_lazily(&mut self, variant: Variant, pair: &[Signature]) {
        for &sig in pair {
            let Some(len) = self.index.get(&sig).map(MaterialIndex::len) else { continue };
            if self.dtw.contains_key(&sig) && !self.holds_dtw(&sig) {
                self.lazy_dtw.insert(sig, LazyBlocks::new(len, LAZY_BLOCK));
            }
            for (&set, files) in &self.rules {
                let lazy = self.lazy_rules.entry(set).or_default();
                let ruled = DrawRules::new(set, &variant).context(sig).is_some();
                if ruled && files.contains_key(&sig) && !lazy.contains_key(&sig) {
                    lazy.insert(sig, LazyBlocks::new(len, LAZY_BLOCK));
                }
            }
        }
    }

    /// Lets go of `pair`'s lazily held values: the pair is now held whole, to be checked.
    fn forget_lazy(&mut self, pair: &[Signature]) {
        self.forget_lazy_where(|s| pair.contains(s));
    }
}

/// Bytes a resident pair takes a position: DTW (two) and one rule set (one).
const RESIDENT_BYTES_PER_POSITION: u64 = 3;

/// Positions a worker checks at a time.
const CHECK_CHUNK: u64 = 1 << 14;

/// Which block: signature, metric and block number in one word ([`BlockKey`]).
fn block_key(sig: Signature, metric: Metric, block: u32) -> BlockKey {
    let sig = (sig.white_men as u64 & 63) << 18
        | (sig.white_kings as u64 & 63) << 12
        | (sig.black_men as u64 & 63) << 6
        | sig.black_kings as u64 & 63;
    let metric = match metric {
        Metric::Dtw => 0,
        Metric::Wld => 1,
        Metric::Rules(set) => 2 + set.table_code() as u64,
    };
    sig << 40 | metric << 32 | block as u64
}

/// One worker's way to the tables: the block cache every worker shares (the probe
/// library's [`BlockCache`], as large as the verifier's memory allows: the children of a
/// position lie all over the other table of its pair), its own decompression context,
/// and spare successor lists.
struct Reader<'a> {
    cache: &'a BlockCache,
    context: zstd::bulk::Decompressor<'static>,
    /// Successor lists of the searches below a left-out position, kept to spare their
    /// allocations (one per level of the search).
    spare: Vec<Successors>,
}

impl<'a> Reader<'a> {
    fn new(cache: &'a BlockCache) -> Reader<'a> {
        Reader { cache, context: zstd::bulk::Decompressor::new().expect("a zstd context"), spare: Vec::new() }
    }

    /// The entry at `at` of `file`, read by `decode`; `Ok(None)` past the table's end.
    fn entry<R>(
        &mut self,
        sig: Signature,
        file: &TableFile,
        at: u64,
        decode: impl Fn(&[u8], usize) -> Option<R>,
    ) -> Result<Option<R>, TableError> {
        let header = file.header();
        let per = header.block_positions as u64;
        let block = (at / per) as u32;
        if at >= header.positions {
            return Ok(None);
        }
        let i = (at % per) as usize;
        let key = block_key(sig, header.metric, block);
        let found = self.cache.read_block(key, file, block, &mut self.context, |bytes| decode(bytes, i))?;
        found.map(Some).ok_or_else(|| TableError::Corrupt {
            path: file.path().to_path_buf(),
            detail: format!("undefined value at index {at}"),
        })
    }

    fn value(&mut self, sig: Signature, file: &TableFile, at: u64) -> Result<Option<Score>, TableError> {
        let header = file.header();
        self.entry(sig, file, at, |bytes, i| decode_entry(header, bytes, i))
    }

    fn rule_value(&mut self, sig: Signature, file: &TableFile, at: u64) -> Result<Option<RuleScore>, TableError> {
        self.entry(sig, file, at, rule_entry)
    }
}

/// Entry `i` of a decompressed rule-table block: the [`RuleScore`] code in one byte,
/// 255 for undecided.
fn rule_entry(block: &[u8], i: usize) -> Option<RuleScore> {
    block.get(i).map(|&code| rule_of_code(code))
}

/// The rule value a one-byte code ([`rule_code`]) stands for.
fn rule_of_code(code: u8) -> RuleScore {
    if code == u8::MAX {
        RuleScore::NONE
    } else {
        RuleScore::from_raw(code as u16)
    }
}

/// Why a value could not be found while verifying.
enum Gap {
    /// A successor's table is missing (or bad, and named as such already).
    Missing,
    /// A block could not be read.
    Bad(TableError),
}

impl Gap {
    fn of<T>(found: Result<Option<T>, TableError>) -> Result<T, Gap> {
        found.map_err(Gap::Bad)?.ok_or(Gap::Missing)
    }

    fn back<T>(found: Result<T, Gap>) -> Result<Option<T>, TableError> {
        match found {
            Ok(v) => Ok(Some(v)),
            Err(Gap::Missing) => Ok(None),
            Err(Gap::Bad(e)) => Err(e),
        }
    }
}

impl Tables {
    /// Where `position` lies: its signature and index, when its material has tables here
    /// and does not settle it.
    fn place(&self, position: &Position) -> Option<Placed> {
        if position.settled_score().is_some() {
            return None;
        }
        let p = position.normalized();
        let sig = Signature::of(&p);
        Some(Placed { sig, at: self.index.get(&sig)?.index(&p) })
    }

    /// The DTW value of any position whose table is here (or whose material decides it:
    /// [`Position::settled_score`]): stored, or where the file leaves the position out,
    /// found from its successors; `Ok(None)` when a table is missing.
    fn score(&self, position: &Position, cache: &mut Reader) -> Result<Option<Score>, TableError> {
        self.score_placed(position, self.place(position), cache)
    }

    /// As [`Tables::score`], `placed` being where [`Tables::place`] puts `position`.
    fn score_placed(
        &self,
        position: &Position,
        placed: Option<Placed>,
        cache: &mut Reader,
    ) -> Result<Option<Score>, TableError> {
        let Some(Placed { sig, at }) = placed else {
            return Ok(position.settled_score());
        };
        if let Some(values) = self.resident_dtw.get(&sig) {
            return Ok(values.get(at as usize).map(|&raw| Score::from_raw(raw)));
        }
        if let Some(values) = self.lazy_dtw.get(&sig) {
            let make = |_, n| Ok::<_, TableError>((0..n).map(|_| AtomicU16::new(NOT_YET_DTW)).collect());
            let Some(slot) = values.slot(at, Some(&self.lazy_room), make)? else {
                return self.score_unheld(position, sig, at, cache);
            };
            let raw = slot.load(Ordering::Relaxed);
            if raw != NOT_YET_DTW {
                return Ok(Some(Score::from_raw(raw)));
            }
            let found = self.score_unheld(position, sig, at, cache)?;
            if let Some(score) = found {
                slot.store(score.raw(), Ordering::Relaxed);
            }
            return Ok(found);
        }
        self.score_unheld(position, sig, at, cache)
    }

    /// The DTW value of `position` (index `at` of `sig`) from its file, or from its
    /// successors where the file leaves it out.
    fn score_unheld(
        &self,
        position: &Position,
        sig: Signature,
        at: u64,
        cache: &mut Reader,
    ) -> Result<Option<Score>, TableError> {
        let Some(file) = self.dtw.get(&sig) else { return Ok(None) };
        if file.header().holds(&position.normalized()) {
            return cache.value(sig, file, at);
        }
        derive(self, position, cache)
    }

    /// The rule value of `set` of any position whose rule table is here (or whose
    /// material decides it), stored or found from its successors; `Ok(None)` when a
    /// table is missing. `placed` is where [`Tables::place`] puts `position`.
    fn rule_placed(
        &self,
        set: DrawRuleSet,
        position: &Position,
        placed: Option<Placed>,
        cache: &mut Reader,
    ) -> Result<Option<RuleScore>, TableError> {
        let Some(Placed { sig, at }) = placed else {
            return Ok(position.settled_score().map(RuleScore::from_score));
        };
        if let Some((_, resident)) = self.resident_rules.as_ref().filter(|(s, _)| *s == set)
            && let Some(values) = resident.get(&sig)
        {
            return Ok(rule_entry(values, at as usize));
        }
        if let Some(values) = self.lazy_rules.get(&set).and_then(|lazy| lazy.get(&sig)) {
            let make = |_, n| Ok::<_, TableError>((0..n).map(|_| AtomicU8::new(NOT_YET_RULE)).collect());
            let Some(slot) = values.slot(at, Some(&self.lazy_room), make)? else {
                return self.rule_unheld(set, position, Placed { sig, at }, cache);
            };
            let code = slot.load(Ordering::Relaxed);
            if code != NOT_YET_RULE {
                return Ok(Some(rule_of_code(code)));
            }
            let found = self.rule_unheld(set, position, Placed { sig, at }, cache)?;
            if let Some(rule) = found {
                slot.store(rule_code(rule), Ordering::Relaxed);
            }
            return Ok(found);
        }
        self.rule_unheld(set, position, Placed { sig, at }, cache)
    }

    /// The rule value of `set` of `position` (at `placed`) from its file, or from its
    /// successors where the file leaves it out.
    fn rule_unheld(
        &self,
        set: DrawRuleSet,
        position: &Position,
        placed: Placed,
        cache: &mut Reader,
    ) -> Result<Option<RuleScore>, TableError> {
        let Placed { sig, at } = placed;
        let Some(file) = self.rules.get(&set).and_then(|f| f.get(&sig)) else { return Ok(None) };
        let p = position.normalized();
        if file.header().holds(&p) {
            return cache.rule_value(sig, file, at);
        }
        let rules = DrawRules::new(set, &p.variant().clone());
        let Some(context) = rules.context(sig) else { return Ok(None) };
        // Drawn in theory: undecided under every count, no search needed.
        match self.score_placed(position, Some(placed), cache)? {
            None => return Ok(None),
            Some(Score::DRAW) => return Ok(Some(RuleScore::NONE)),
            Some(_) => {}
        }
        let oracle = RuleOracle { tables: self, set, cache: RefCell::new(cache), children: &[], placed: &[] };
        Gap::back(successors::rule_score_from(&oracle, &rules, context, position))
    }
}

/// Whether a position has a capture to make, tested at most once for all the files asked
/// whether they hold it (a file that leaves capture positions out asks; the DTW, WLD and
/// rule files of one position tested it three times).
struct CaptureTest<'p> {
    position: &'p Position,
    known: std::cell::OnceCell<bool>,
}

impl<'p> CaptureTest<'p> {
    fn new(position: &'p Position) -> Self {
        CaptureTest { position, known: std::cell::OnceCell::new() }
    }

    /// Whether `file` holds a value of its own for the position ([`kabe_probe::table::Header::holds`]).
    #[inline]
    fn held_by(&self, file: &TableFile) -> bool {
        file.header().holds_with(|| *self.known.get_or_init(|| self.position.has_capture()))
    }

    /// Whether the position was found to have no capture (not tested here).
    #[inline]
    fn known_none(&self) -> bool {
        self.known.get() == Some(&false)
    }
}

/// Where a position lies in the tables: its signature (of the position with White to
/// move) and its index there.
#[derive(Clone, Copy, Debug)]
struct Placed {
    sig: Signature,
    at: u64,
}

/// Verifies every table of `variant` under `dir`; reports at most `max_reported`
/// disagreements in detail. `progress` receives positions checked. Every DTW value is
/// derived from its successors; every WLD value equals that derived value's, including
/// those of positions with a capture to make, which the WLD file does not hold: they are
/// resolved through their captures from the WLD values of the positions after them.
/// Every rule-table value is derived from its successors too (see [`derive_rule`]).
pub fn verify(
    dir: &Path,
    variant: Variant,
    max_reported: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<VerifyReport> {
    verify_with(dir, variant, &VerifyOptions { max_reported, ..VerifyOptions::default() }, progress)
}

/// How [`verify_with`] goes about it.
#[derive(Clone, Copy, Debug)]
pub struct VerifyOptions<'a> {
    /// Derive the values of these signatures only (every file's checksum is checked all
    /// the same); every signature when `None`. A build that adds a few tables to a large
    /// set verifies the new ones without going over the old.
    pub only: Option<&'a [Signature]>,
    /// The block cache the workers share, in bytes of decompressed blocks.
    pub cache_bytes: usize,
    /// Memory for the pair being checked and the pairs its moves lead to: a pair whose
    /// values fit (three bytes a position) is held in memory, every left-out value
    /// derived once; a larger one is checked through the block cache alone, each
    /// left-out successor searched where it is met (the same proof, many times slower
    /// for a pair that stores one side). The pairs its moves lead to that are not derived
    /// now (in the ledger, or left out by `only`) are held as far as room is left.
    pub resident_bytes: usize,
    /// Disagreements reported in detail.
    pub max_reported: usize,
    /// Keep the ledger ([`LEDGER_NAME`] beside the tables): a pair it records as
    /// verified, with the same files under it, is not derived again, and each pair found
    /// sound is added to it at once, so that an interrupted verification resumes.
    pub ledger: bool,
}

impl Default for VerifyOptions<'_> {
    fn default() -> Self {
        VerifyOptions {
            only: None,
            cache_bytes: DEFAULT_CACHE_BYTES,
            resident_bytes: DEFAULT_RESIDENT_BYTES,
            max_reported: 10,
            ledger: false,
        }
    }
}

/// The shared block cache of [`verify`].
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// The memory of [`verify`] for the pair being checked.
pub const DEFAULT_RESIDENT_BYTES: usize = 1 << 30;

/// The verification ledger's file name, in a variant's table folder: one line a pair
/// found sound, `PAIR DIGEST`, the digest covering the checksums of the pair's files and
/// of every file its successors lie in (so that a pair is derived again when any table
/// it was checked against changes).
pub const LEDGER_NAME: &str = "verified.txt";

/// The positions [`verify_with`] derives again for the signatures in `only` (every
/// signature when `None`): one per position of each DTW and each rule table present.
pub fn positions_to_verify(dir: &Path, variant: Variant, only: Option<&[Signature]>) -> std::io::Result<u64> {
    Ok(tables_in(dir, &variant)?
        .iter()
        .filter(|(sig, _)| only.is_none_or(|o| o.contains(sig)))
        .map(|(sig, metrics)| {
            let tables = metrics.iter().filter(|m| !matches!(m, Metric::Wld)).count() as u64;
            MaterialIndex::new(variant, *sig).map_or(0, |i| i.len()) * tables
        })
        .sum())
}

/// The digest a ledger line records for `pair`: FNV-1a over the signature, kind and
/// header checksum of every file of the pair and of the pairs its successors lie in.
fn ledger_digest(tables: &Tables, pair: &[Signature]) -> u64 {
    let mut sigs: Vec<Signature> = pair
        .iter()
        .flat_map(|&s| crate::pair::successors(s))
        .chain(pair.iter().copied())
        .flat_map(|s| [s, s.flipped()])
        .collect();
    sigs.sort();
    sigs.dedup();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    for sig in sigs {
        let files = [("wld", tables.wld.get(&sig)), ("dtw", tables.dtw.get(&sig))]
            .into_iter()
            .chain(tables.rules.iter().map(|(set, files)| (set.name(), files.get(&sig))));
        for (kind, file) in files {
            if let Some(file) = file {
                eat(format!("{sig} {kind} {:016x}\n", file.header().checksum).as_bytes());
            }
        }
    }
    hash
}

/// A ledger line as written: `line` and its seal, ` #` and the FNV-1a digest of `line`
/// in hex, so that a torn (cut) or edited line is recognised and ignored.
fn sealed(line: &str) -> String {
    format!("{line} #{:016x}", fnv1a(line.as_bytes()))
}

/// The line without its seal when the seal holds.
fn unsealed(line: &str) -> Option<&str> {
    let (body, seal) = line.rsplit_once(" #")?;
    (seal.len() == 16 && u64::from_str_radix(seal, 16).ok()? == fnv1a(body.as_bytes())).then_some(body)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| (hash ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// The verification ledger as read.
#[derive(Debug, Default)]
struct Ledger {
    /// Its sound lines by their first two words (`PAIR DIGEST`), with the rest (the pair's
    /// statistics, see [`crate::verify::statistics::to_ledger_words`]).
    lines: std::collections::HashMap<String, String>,
    /// The numbers (from 1) of the lines whose seal does not hold: torn or edited, ignored.
    ignored: Vec<usize>,
}

/// Reads the ledger at `path`; none when there is no ledger.
fn read_ledger(path: &Path) -> std::io::Result<Ledger> {
    let key_and_rest = |line: &str| {
        let mut words = line.splitn(3, ' ');
        let key = format!("{} {}", words.next()?, words.next()?);
        Some((key, words.next().unwrap_or("").to_string()))
    };
    // A FIFO or device under the ledger's name would block or never end, a link would
    // be written through: not opened.
    crate::files::ensure_replaceable(path)?;
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ledger::default()),
        Err(e) => return Err(std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    };
    let mut ledger = Ledger::default();
    for (n, line) in text.lines().enumerate() {
        match unsealed(line).and_then(key_and_rest) {
            Some((key, rest)) => {
                ledger.lines.insert(key, rest);
            }
            None if line.trim().is_empty() => {}
            None => ledger.ignored.push(n + 1),
        }
    }
    Ok(ledger)
}

/// The ledger at `path` for a verification: its sound lines. Lines whose seal does not
/// hold are numbered in `report` and the ledger is written again without them; a ledger
/// that cannot be read or written is said in `report` (the verification goes on without
/// it).
fn open_ledger(path: &Path, report: &mut VerifyReport) -> std::collections::HashMap<String, String> {
    let found = match read_ledger(path) {
        Ok(found) => found,
        Err(e) => {
            report.ledger_problem = Some(e.to_string());
            return Default::default();
        }
    };
    if !found.ignored.is_empty() {
        let mut keys: Vec<(&String, &String)> = found.lines.iter().collect();
        keys.sort();
        let line =
            |(key, rest): (&String, &String)| if rest.is_empty() { key.clone() } else { format!("{key} {rest}") };
        let text: String = keys.into_iter().map(|k| sealed(&line(k)) + "\n").collect();
        if let Err(e) = crate::files::write_whole(path, text.as_bytes()) {
            report.ledger_problem = Some(e.to_string());
        }
        report.ledger_ignored_lines = found.ignored;
    }
    found.lines
}

/// Appends `line`, sealed, to the ledger at `path`. On a failure (a full disk) the file
/// is cut back to what it held, so that no torn or empty ledger is left behind.
fn append_to_ledger(path: &Path, line: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let named = |e: std::io::Error| crate::files::named(path, e);
    let mut file = crate::files::open_own(path, std::fs::OpenOptions::new().create(true).append(true).read(true))?;
    let before = file.metadata().map_err(named)?.len();
    // A last line that lost its line end (torn, or an editor's doing) keeps its own line.
    let mut last = [b'\n'];
    if before > 0 {
        use std::io::{Seek, SeekFrom};
        file.seek(SeekFrom::End(-1)).and_then(|_| std::io::Read::read_exact(&mut file, &mut last)).map_err(named)?;
    }
    let end = if last[0] == b'\n' { "" } else { "\n" };
    let written = writeln!(file, "{end}{}", sealed(line)).and_then(|()| file.sync_data());
    if let Err(e) = written {
        if before == 0 {
            let _ = std::fs::remove_file(path);
        } else {
            let _ = file.set_len(before);
        }
        return Err(named(e));
    }
    Ok(())
}

/// What [`recorded_statistics`] found in the ledger.
#[derive(Debug, Default)]
pub struct RecordedStatistics {
    /// By signature, the theoretical figures and those of each rule set, for the pairs
    /// whose files (and those they lead to) are the ones the ledger's line verified.
    #[allow(clippy::type_complexity)]
    pub by_signature: BTreeMap<Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>)>,
    /// The ledger's lines (numbered from 1) whose seal does not hold, torn or edited:
    /// their figures are not used.
    pub ignored_lines: Vec<usize>,
}

/// What the ledger beside the tables of `variant` under `dir` records of each table's
/// statistics, for the pairs whose files (and those they lead to) are the ones it
/// verified; lines whose seal does not hold are left out and numbered.
pub fn recorded_statistics(dir: &Path, variant: Variant) -> std::io::Result<RecordedStatistics> {
    let recorded = read_ledger(&dir.join(variant.name).join(LEDGER_NAME))?;
    let mut out = RecordedStatistics { ignored_lines: recorded.ignored, ..RecordedStatistics::default() };
    if recorded.lines.is_empty() {
        return Ok(out);
    }
    let tables = open_tables(dir, variant)?;
    for (name, pair) in pairs_of(&tables) {
        let key = format!("{name} {:016x}", ledger_digest(&tables, &pair));
        let Some(words) = recorded.lines.get(&key) else { continue };
        let Some((theory, rules)) = crate::verify::statistics::from_ledger_words(words.split_whitespace()) else {
            continue;
        };
        out.by_signature.extend(figures_by_signature(&pair, theory, &rules));
    }
    Ok(out)
}

/// The figures of the tables of `pair`, as a pair's check counts them, by signature.
#[allow(clippy::type_complexity)]
fn figures_by_signature<'a>(
    pair: &'a [Signature],
    theory: Vec<(Signature, TableStats)>,
    rules: &'a [(Signature, DrawRuleSet, RuleStats)],
) -> impl Iterator<Item = (Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>))> + 'a {
    theory.into_iter().filter(|(s, _)| pair.contains(s)).map(move |(sig, stats)| {
        let of_sig = rules.iter().filter(|(s, _, _)| *s == sig).map(|(_, set, r)| (*set, *r)).collect();
        (sig, (stats, of_sig))
    })
}

/// The tables of `variant` under `dir`, opened (their checksums are not read here).
fn open_tables(dir: &Path, variant: Variant) -> std::io::Result<Tables> {
    let mut tables = Tables::default();
    for (sig, metrics) in tables_in(dir, &variant)? {
        for metric in metrics {
            let Ok(file) = TableFile::open(&TableDir::new(dir).path(&variant, sig, metric), &variant, sig, metric)
            else {
                continue;
            };
            match metric {
                Metric::Dtw => tables.dtw.insert(sig, file),
                Metric::Wld => tables.wld.insert(sig, file),
                Metric::Rules(set) => tables.rules.entry(set).or_default().insert(sig, file),
            };
        }
    }
    Ok(tables)
}

/// The pairs of `tables` (one signature, or a signature and its flip) with their names.
fn pairs_of(tables: &Tables) -> Vec<(String, Vec<Signature>)> {
    let pairs: std::collections::BTreeSet<crate::TablePair> =
        tables.dtw.keys().map(|s| crate::TablePair::of(*s)).collect();
    pairs.into_iter().map(|pair| (pair.to_string(), pair.to_vec())).collect()
}

/// The ledger lines that hold for the files under `dir` now, by pair name: what
/// [`carry_ledger`] writes again once the files have changed without changing a value.
pub(crate) fn ledger_lines_holding(dir: &Path, variant: Variant) -> std::io::Result<BTreeMap<String, String>> {
    let recorded = read_ledger(&dir.join(variant.name).join(LEDGER_NAME))?.lines;
    let mut out = BTreeMap::new();
    if recorded.is_empty() {
        return Ok(out);
    }
    let tables = open_tables(dir, variant)?;
    for (name, pair) in pairs_of(&tables) {
        if let Some(words) = recorded.get(&format!("{name} {:016x}", ledger_digest(&tables, &pair))) {
            out.insert(name, words.clone());
        }
    }
    Ok(out)
}

/// Writes the ledger again with `holding` (from [`ledger_lines_holding`] before the
/// change) under the digests of the files now: for a change that keeps every value, as
/// keeping one side of each pair does (a file left to search gives by a one-ply search
/// exactly the values the verifier checked it held).
pub(crate) fn carry_ledger(dir: &Path, variant: Variant, holding: &BTreeMap<String, String>) -> std::io::Result<()> {
    if holding.is_empty() {
        return Ok(());
    }
    let tables = open_tables(dir, variant)?;
    let mut text = String::new();
    for (name, pair) in pairs_of(&tables) {
        if let Some(words) = holding.get(&name) {
            let space = if words.is_empty() { "" } else { " " };
            text += &sealed(&format!("{name} {:016x}{space}{words}", ledger_digest(&tables, &pair)));
            text.push('\n');
        }
    }
    crate::files::write_whole(&dir.join(variant.name).join(LEDGER_NAME), text.as_bytes())
}

/// As [`verify`], as `options` say. A rule table is expected for every signature whose
/// material keeps one under its set ([`DrawRules::context`]), up to the most pieces of
/// that set's tables present: one that is missing is a bad file.
///
/// The recipe: open every file and check its checksum; name the rule tables missing;
/// then, pair by pair in build order, skip what the ledger records as verified with the
/// same files, derive every value of the others again ([`derive_pair`]), and record each
/// pair found sound in the ledger at once.
pub fn verify_with(
    dir: &Path,
    variant: Variant,
    options: &VerifyOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<VerifyReport> {
    let mut report = VerifyReport::default();
    if options.ledger {
        // The ledger is written beside the tables: never into another game's folder.
        crate::files::check_variant_folder(dir, &variant)?;
    }
    let found = tables_in(dir, &variant)?;
    report.unfinished = unfinished::unfinished(dir, &variant, &found);
    let mut tables = open_checked(dir, variant, &found, &mut report);
    report.bad_files.extend(missing_rule_tables(dir, &variant, &found, options.only));
    let cache = BlockCache::new(options.cache_bytes);
    let findings = Findings::new(options.max_reported);
    let ledger_path = dir.join(variant.name).join(LEDGER_NAME);
    let recorded = if options.ledger { open_ledger(&ledger_path, &mut report) } else { Default::default() };
    let mut ledger = options.ledger && report.ledger_problem.is_none();
    let order: Vec<(String, Vec<Signature>, String)> = pairs_in_build_order(&tables, options.only)
        .into_iter()
        .map(|(name, pair)| {
            let line = format!("{name} {:016x}", ledger_digest(&tables, &pair));
            (name, pair, line)
        })
        .collect();
    for (_, pair, line) in order {
        if recorded.contains_key(&line) {
            report.pairs_from_ledger += 1;
            progress(positions_derived(&tables, &pair));
            continue;
        }
        let before = findings.so_far();
        let figures = derive_pair(&mut tables, variant, &pair, options.resident_bytes, &cache, &findings, progress);
        report.pairs_derived += 1;
        // A pair is sound when nothing was found while checking it and none of its files
        // (nor those it leads to, which the digest covers) is bad.
        let sound = findings.so_far() == before
            && report.bad_files.is_empty()
            && pair.iter().all(|s| tables.dtw.contains_key(s) && tables.wld.contains_key(s));
        if !sound {
            continue;
        }
        let words = figures
            .as_ref()
            .map_or_else(String::new, |(theory, rules)| crate::verify::statistics::to_ledger_words(theory, rules));
        if ledger && let Err(e) = append_to_ledger(&ledger_path, &format!("{line}{words}")) {
            report.ledger_problem = Some(e.to_string());
            ledger = false;
        }
        if let Some((theory, rules)) = figures {
            report.statistics.extend(figures_by_signature(&pair, theory, &rules));
        }
    }
    findings.into_report(&mut report);
    Ok(report)
}

/// Before `pair` is derived: holds lazily ([`Tables::hold_lazily`]) the tables whose
/// values it reads ([`tables_read`]: the tables its captures and promotions lead to, and
/// those these are searched through) that are not held already: tables the ledger or
/// `--signature` spares from being derived, or that were let go for memory. Their values
/// are kept in blocks made as they are read, within what the budget leaves beside the
/// pair and the values kept resident; where the pair's inputs would not fit whole, the
/// tables held that `pair` does not read are let go first. Without that a successor in
/// a table kept on one side, or a capture to make, is found by a search of its own each
/// time it is met; held, it is found once and read by its index. Which tables are held
/// changes the speed, never a value.
fn hold_inputs(tables: &mut Tables, variant: Variant, pair: &[Signature], resident_bytes: usize) {
    let Some(&first) = pair.first() else { return };
    let order = tables_read(variant, &[TablePair::of(first)], |sig| tables.searched_whole(sig));
    let budget = resident_bytes as u64;
    let needed = tables.resident_need(pair);
    let missing: Vec<Signature> =
        order.iter().copied().filter(|s| tables.dtw.contains_key(s) && !tables.holds_dtw(s)).collect();
    let reached: BTreeSet<Signature> = order.into_iter().collect();
    if tables.resident_bytes() + needed + tables.resident_need(&missing) > budget {
        tables.keep_only(&reached);
    }
    tables.hold_lazily(variant, &missing);
    let room = budget.saturating_sub(tables.held_bytes() + needed);
    if tables.lazy_room.spent() > room {
        tables.forget_lazy_where(|_| true);
        tables.hold_lazily(variant, &reached.into_iter().collect::<Vec<_>>());
    }
    tables.lazy_room.set_limit(room);
}

/// Holds the DTW and the `rules` values of `pair` resident in one pass over each member,
/// its successors made and placed once for both kinds, and keeps the rule values with
/// those kept before; `false` (nothing done) where the two kinds do not store the same
/// member (a left-out member's values are derived from the stored one's, which must be
/// held first for both).
fn hold_resident_together(
    tables: &mut Tables,
    rules: &DrawRules,
    pair: &[Signature],
    cache: &BlockCache,
    findings: &Findings,
) -> bool {
    let Some(rule_files) = tables.rules.get(&rules.set) else { return false };
    let order = stored_first(pair, &tables.dtw);
    if order != stored_first(pair, rule_files) {
        return false;
    }
    tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
    for sig in order {
        match resident_together(tables, rules, sig, cache) {
            Ok(Some((dtw, rule_values))) => {
                tables.resident_dtw.insert(sig, dtw);
                if let (Some(values), Some((_, resident))) = (rule_values, tables.resident_rules.as_mut()) {
                    resident.insert(sig, values);
                }
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
    if let Some((set, values)) = tables.resident_rules.take() {
        tables.kept_rules.insert(set, values);
    }
    true
}

/// A table's resident DTW values, and its rule values where it keeps a rule table.
type DtwAndRules = (Vec<u16>, Option<Vec<u8>>);

/// Every DTW value of `sig` and, where it keeps a rule table, every rule value under
/// `rules`, as [`resident_dtw`] and [`resident_rules`] give them, in one pass: a
/// left-out position's successors are made and placed once for both.
fn resident_together(
    tables: &Tables,
    rules: &DrawRules,
    sig: Signature,
    shared: &BlockCache,
) -> Result<Option<DtwAndRules>, TableError> {
    let rule_file = rules.context(sig).and_then(|context| Some((context, tables.rules[&rules.set].get(&sig)?)));
    let Some((context, rule_file)) = rule_file else {
        return Ok(resident_dtw(tables, sig, shared)?.map(|dtw| (dtw, None)));
    };
    let dtw_file = &tables.dtw[&sig];
    let index = &tables.index[&sig];
    let len = index.len() as usize;
    let mut dtw = crate::memory::huge_vec(len, 0u16);
    let mut rule_values = crate::memory::huge_vec(len, 0u8);
    let missing = AtomicBool::new(false);
    dtw.par_chunks_mut(CHECK_CHUNK as usize)
        .zip(rule_values.par_chunks_mut(CHECK_CHUNK as usize))
        .enumerate()
        .try_for_each_init(
            || Worker::new(shared),
            |worker, (c, (dtw_out, rule_out))| {
                let start = c as u64 * CHECK_CHUNK;
                let range = start..start + dtw_out.len() as u64;
                for ((at, position), (dtw_slot, rule_slot)) in
                    range.clone().zip(index.positions(range)).zip(dtw_out.iter_mut().zip(rule_out.iter_mut()))
                {
                    let capture = CaptureTest::new(&position);
                    let (score, gathered) = held_dtw(worker, tables, sig, dtw_file, at, &capture, Some(rules.set))?;
                    let Some(score) = score else {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    };
                    let drawn = score == Score::DRAW;
                    let rule =
                        held_rule(worker, tables, rules, context, sig, rule_file, at, &capture, drawn, gathered)?;
                    let Some(rule) = rule else {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    };
                    *dtw_slot = score.raw();
                    *rule_slot = rule_code(rule);
                }
                Ok::<(), TableError>(())
            },
        )?;
    Ok((!missing.into_inner()).then_some((dtw, Some(rule_values))))
}

/// Opens every table file of `found`, checking its checksum, and a file found by search
/// against its colour flip; what cannot be used is a bad file of `report`, the rest is
/// what the values are read from.
fn open_checked(
    dir: &Path,
    variant: Variant,
    found: &BTreeMap<Signature, Vec<Metric>>,
    report: &mut VerifyReport,
) -> Tables {
    let mut tables = Tables::default();
    for (sig, metrics) in found {
        if !(metrics.contains(&Metric::Wld) && metrics.contains(&Metric::Dtw)) {
            report.incomplete.push(*sig);
        }
        for &metric in metrics {
            report.files += 1;
            *report.files_by_kind.entry(metric.name().to_string()).or_default() += 1;
            let file = match open_whole(dir, variant, *sig, metric) {
                Ok(file) => file,
                Err(e) => {
                    report.bad_files.push(e.to_string());
                    continue;
                }
            };
            report.files_by_search += file.header().by_search() as usize;
            tables
                .index
                .get_or_insert_with(*sig, || MaterialIndex::new(variant, *sig).expect("opened, so table-sized"));
            match metric {
                Metric::Dtw => tables.dtw.insert(*sig, file),
                Metric::Wld => tables.wld.insert(*sig, file),
                Metric::Rules(set) => tables.rules.entry(set).or_default().insert(*sig, file),
            };
        }
    }
    tables
}

/// The table file of `sig` and `metric`, its checksum checked; one found by search needs
/// its colour flip on disk, holding values.
fn open_whole(dir: &Path, variant: Variant, sig: Signature, metric: Metric) -> Result<TableFile, TableError> {
    let path = TableDir::new(dir).path(&variant, sig, metric);
    let file = TableFile::open(&path, &variant, sig, metric)?;
    file.verify_checksum()?;
    if file.header().by_search() {
        let flip = TableDir::new(dir).path(&variant, sig.flipped(), metric);
        if !flip.exists() {
            return Err(TableError::FlipMissing { path: flip, reader: path });
        }
        let flip_stores = sig.flipped() != sig
            && TableFile::open(&flip, &variant, sig.flipped(), metric).is_ok_and(|f| !f.header().by_search());
        if !flip_stores {
            return Err(TableError::values_nowhere(&path, &flip));
        }
    }
    Ok(file)
}

/// The pairs to derive (every signature with a DTW or rule table, or those of `only`,
/// each with its colour flip where it has one) in build order, by pieces then men: a
/// pair's successors lie in pairs checked before it, whose values are kept resident while
/// the memory allows.
fn pairs_in_build_order(tables: &Tables, only: Option<&[Signature]>) -> Vec<(String, Vec<Signature>)> {
    let chosen = |sig: &Signature| only.is_none_or(|o| o.contains(sig));
    let mut pairs: BTreeMap<Signature, Vec<Signature>> = BTreeMap::new();
    for &sig in tables.dtw.keys().chain(tables.rules.values().flat_map(|files| files.keys())).filter(|s| chosen(s)) {
        let members = pairs.entry(sig.min(sig.flipped())).or_default();
        if !members.contains(&sig) {
            members.push(sig);
        }
    }
    let mut in_order: Vec<(Signature, Vec<Signature>)> = pairs.into_iter().collect();
    in_order.sort_by_key(|(first, _)| (first.pieces(), first.men(), *first));
    in_order.into_iter().map(|(_, pair)| (pair_name(&pair), pair)).collect()
}

/// A pair's name in the ledger: as [`crate::TablePair`] names it (`0105+0501`) where both
/// members are checked, else the one member checked, so that checking one side never
/// stands for the other.
fn pair_name(members: &[Signature]) -> String {
    let mut members = members.to_vec();
    members.sort();
    members.iter().map(Signature::to_string).collect::<Vec<_>>().join("+")
}

/// The positions derived for `pair`: one per position of each DTW and rule table.
fn positions_derived(tables: &Tables, pair: &[Signature]) -> u64 {
    let kinds = |s: &Signature| {
        tables.dtw.contains_key(s) as u64 + tables.rules.values().filter(|f| f.contains_key(s)).count() as u64
    };
    pair.iter().map(|s| tables.index[s].len() * kinds(s)).sum()
}

/// Derives every value of `pair` again (one pass for each rule set present, the first
/// checking the theoretical values too, each successor made and located once for both),
/// holding the pair's values and its inputs' ([`hold_inputs`]) resident where
/// `resident_bytes` allows. Returns the figures of the pair's tables (theoretical, and
/// of each rule table), `None` where some figure could not be counted.
#[allow(clippy::type_complexity)]
fn derive_pair(
    tables: &mut Tables,
    variant: Variant,
    pair: &[Signature],
    resident_bytes: usize,
    cache: &BlockCache,
    findings: &Findings,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<(Vec<(Signature, TableStats)>, Vec<(Signature, DrawRuleSet, RuleStats)>)> {
    tables.forget_lazy(pair);
    hold_inputs(tables, variant, pair, resident_bytes);
    let needed = tables.resident_need(pair);
    let resident = needed <= resident_bytes as u64;
    if tables.resident_bytes() + needed > resident_bytes as u64 {
        tables.forget_kept();
    }
    // With one rule set, the pair's DTW and rule values are held in one pass where they can be.
    let rule_sets: Vec<DrawRuleSet> = tables.rules.keys().copied().collect();
    let together = resident
        && matches!(rule_sets[..], [set] if hold_resident_together(tables, &DrawRules::new(set, &variant), pair, cache, findings));
    if resident && !together {
        hold_resident_dtw(tables, pair, cache, findings);
    }
    let theory_stats: Vec<(Signature, TableStats)> = if pair.iter().all(|s| tables.resident_dtw.contains_key(s)) {
        pair.iter().map(|s| (*s, count_theory(&tables.resident_dtw[s]))).collect()
    } else {
        Vec::new()
    };
    let mut rule_stats = Vec::new();
    let sets: Vec<Option<DrawRuleSet>> = match tables.rules.keys().copied().collect::<Vec<_>>() {
        sets if sets.is_empty() => vec![None],
        sets => sets.into_iter().map(Some).collect(),
    };
    for (pass, set) in sets.into_iter().enumerate() {
        let rules = set.map(|set| DrawRules::new(set, &variant));
        if let Some(rules) = &rules {
            if together {
                tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
            } else if resident {
                hold_resident_rules(tables, rules, pair, cache, findings);
            }
            rule_stats.extend(count_pair_rules(tables, rules, pair, cache, findings));
        }
        for &sig in pair {
            check_signature(tables, sig, pass == 0, rules.as_ref(), cache, findings, progress);
        }
        if let Some((set, values)) = tables.resident_rules.take() {
            tables.kept_rules.insert(set, values);
        }
    }
    if tables.resident_bytes() > resident_bytes as u64 {
        tables.forget_kept();
    }
    // The statistics only where every figure of the pair was counted.
    (theory_stats.len() == pair.len()).then_some((theory_stats, rule_stats))
}

/// Holds the DTW values of `pair` resident: the side that stores its values first, the
/// other side's found through it.
fn hold_resident_dtw(tables: &mut Tables, pair: &[Signature], cache: &BlockCache, findings: &Findings) {
    for sig in stored_first(pair, &tables.dtw) {
        match resident_dtw(tables, sig, cache) {
            Ok(Some(values)) => {
                tables.resident_dtw.insert(sig, values);
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
}

/// Holds the rule values of `rules` of `pair` resident, beside those kept from the pairs
/// checked before.
fn hold_resident_rules(
    tables: &mut Tables,
    rules: &DrawRules,
    pair: &[Signature],
    cache: &BlockCache,
    findings: &Findings,
) {
    tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
    for sig in stored_first(pair, &tables.rules[&rules.set]) {
        let Some(context) = rules.context(sig) else { continue };
        match resident_rules(tables, rules, context, sig, cache) {
            Ok(Some(values)) => {
                if let Some((_, resident)) = tables.resident_rules.as_mut() {
                    resident.insert(sig, values);
                }
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
}

/// The rule statistics of the members of `pair` that keep a count, where their theory
/// and rule values are all resident (none otherwise).
fn count_pair_rules(
    tables: &Tables,
    rules: &DrawRules,
    pair: &[Signature],
    cache: &BlockCache,
    findings: &Findings,
) -> Vec<(Signature, DrawRuleSet, RuleStats)> {
    let ruled = || pair.iter().filter(|s| rules.context(**s).is_some());
    let resident = |s: &Signature| {
        tables.resident_rules.as_ref().is_some_and(|(_, r)| r.contains_key(s)) && tables.resident_dtw.contains_key(s)
    };
    if !ruled().all(resident) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &sig in ruled() {
        match count_rules(tables, rules, sig, cache) {
            Ok(Some(counted)) => out.push((sig, rules.set, counted)),
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
    out
}

/// What the checks find, gathered from every worker: bad files, disagreements (the
/// first `max_reported` of each kind in detail) and counts.
struct Findings {
    disagreements: Mutex<Vec<Disagreement>>,
    rule_disagreements: Mutex<Vec<RuleDisagreement>>,
    bad: Mutex<Vec<String>>,
    count: AtomicU64,
    rule_count: AtomicU64,
    checked: AtomicU64,
    rule_checked: AtomicU64,
    unverified: AtomicU64,
    max_reported: usize,
}

impl Findings {
    fn new(max_reported: usize) -> Findings {
        Findings {
            disagreements: Mutex::default(),
            rule_disagreements: Mutex::default(),
            bad: Mutex::default(),
            count: AtomicU64::new(0),
            rule_count: AtomicU64::new(0),
            checked: AtomicU64::new(0),
            rule_checked: AtomicU64::new(0),
            unverified: AtomicU64::new(0),
            max_reported,
        }
    }

    fn bad(&self, e: TableError) {
        self.bad.lock().unwrap_or_else(|p| p.into_inner()).push(e.to_string());
    }

    fn disagreement(&self, d: Disagreement) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut found = self.disagreements.lock().unwrap_or_else(|p| p.into_inner());
        if found.len() < self.max_reported {
            found.push(d);
        }
    }

    fn rule_disagreement(&self, d: RuleDisagreement) {
        self.rule_count.fetch_add(1, Ordering::Relaxed);
        let mut found = self.rule_disagreements.lock().unwrap_or_else(|p| p.into_inner());
        if found.len() < self.max_reported {
            found.push(d);
        }
    }

    /// Everything found so far that makes a pair unsound: disagreements, positions left
    /// unverified, and bad files.
    fn so_far(&self) -> (u64, usize) {
        let counted = self.count.load(Ordering::Relaxed)
            + self.rule_count.load(Ordering::Relaxed)
            + self.unverified.load(Ordering::Relaxed);
        (counted, self.bad.lock().unwrap_or_else(|p| p.into_inner()).len())
    }

    fn into_report(self, report: &mut VerifyReport) {
        fn taken<T>(found: Mutex<Vec<T>>) -> Vec<T> {
            found.into_inner().unwrap_or_else(|p| p.into_inner())
        }
        report.positions = self.checked.into_inner();
        report.rule_positions = self.rule_checked.into_inner();
        let mut bad = taken(self.bad);
        bad.sort();
        bad.dedup();
        report.bad_files.extend(bad);
        report.disagreements = taken(self.disagreements);
        report.disagreement_count = self.count.into_inner();
        report.rule_disagreements = taken(self.rule_disagreements);
        report.rule_disagreement_count = self.rule_count.into_inner();
        report.unverified = self.unverified.into_inner();
    }
}

/// A position's moves and its successors, each placed in the tables: what a value is
/// derived from. Kept from one position to the next to spare allocations.
#[derive(Default)]
struct Successors {
    moves: MoveList,
    children: Vec<Position>,
    /// Where each successor lies ([`Tables::place`]).
    placed: Vec<Option<Placed>>,
    /// Where the quiet king moves' positions lie, when they are read by index alone
    /// ([`Successors::place_king_steps`]): their table (resident), and their indices.
    /// `moves` and `children` then hold the other moves.
    king_steps: Option<Signature>,
    king_step_ats: Vec<u64>,
}

impl Successors {
    /// Makes every move of `capture`'s position and places each successor, fetching ahead
    /// the resident DTW slot (`theory`) and rule slot (of the rule set `rules`) to be
    /// read, so that the reads from memory overlap instead of waiting one after another.
    /// A position already found to have no capture is not searched for one again.
    fn gather(&mut self, tables: &Tables, capture: &CaptureTest, theory: bool, rules: Option<DrawRuleSet>) {
        let position = capture.position;
        self.children.clear();
        self.placed.clear();
        self.king_steps = None;
        self.king_step_ats.clear();
        let resident_rules =
            rules.and_then(|set| tables.resident_rules.as_ref().filter(|(s, _)| *s == set)).map(|(_, r)| r);
        let king_steps = match capture.known_none() {
            true => position.quiet_moves_counting_king_steps(&mut self.moves),
            false => position.legal_moves_counting_king_steps(&mut self.moves),
        };
        // Quiet king moves are counted only where there is no capture.
        if king_steps > 0 && !self.place_king_steps(tables, position, theory, rules.map(|_| resident_rules)) {
            position.legal_quiet_moves_into(&mut self.moves);
        }
        // Made on the first quiet king move: the others are placed through it.
        let mut king_moves: Option<Option<KingMovePlacer>> = None;
        for mv in self.moves.iter() {
            let child = position.play(mv);
            let placed = if mv.piece() == PieceKind::King && !mv.is_capture() {
                king_moves
                    .get_or_insert_with(|| KingMovePlacer::new(tables, position, &child))
                    .as_mut()
                    .map(|p| p.place(mv, position))
            } else {
                tables.place(&child)
            };
            if let Some(Placed { sig, at }) = placed.filter(|_| theory) {
                // Resident (the pair itself) or held lazily (the tables its captures and
                // promotions lead to, whose reads were a quarter of 0303's check, perf).
                if let Some(slot) = tables.resident_dtw.get(&sig).and_then(|v| v.get(at as usize)) {
                    crate::memory::prefetch(slot);
                } else if let Some(slot) = tables.lazy_dtw.get(&sig).and_then(|v| v.made_slot(at)) {
                    crate::memory::prefetch(slot);
                }
            }
            if let Some(Placed { sig, at }) = placed
                && let Some(slot) = resident_rules.and_then(|r| r.get(&sig)).and_then(|v| v.get(at as usize))
            {
                crate::memory::prefetch(slot);
            }
            self.children.push(child);
            self.placed.push(placed);
        }
    }

    /// Places the positions after `position`'s quiet king moves by index alone, without
    /// making the moves: they share their men and the other side's kings with it, and
    /// each differs from the others in where one king stands (normalized: White to
    /// move, the moved king Black's). Only where every value to be read of them is
    /// resident (`theory`: DTW; `rules`: the rule set's values, `Some(None)` when they
    /// are not resident): returns whether it placed them. Making each move, its
    /// position and its place took most of the verifier's time on positions with kings.
    fn place_king_steps(
        &mut self,
        tables: &Tables,
        position: &Position,
        theory: bool,
        rules: Option<Option<&SigMap<Vec<u8>>>>,
    ) -> bool {
        let pivot = position.with_turn(position.turn().opposite()).normalized();
        if pivot.settled_score().is_some() {
            return false;
        }
        let sig = Signature::of(&pivot);
        let dtw = match theory {
            true => match tables.resident_dtw.get(&sig) {
                Some(values) => Some(values),
                None => return false,
            },
            false => None,
        };
        let rule_values = match rules {
            Some(resident) => match resident.and_then(|r| r.get(&sig)) {
                Some(values) => Some(values),
                None => return false,
            },
            None => None,
        };
        let Some(index) = tables.index.get(&sig) else { return false };
        let mut ranks = index.black_king_moved(&pivot);
        for (king, squares) in pivot.king_step_squares(Color::Black) {
            ranks.moving(king);
            for at in ranks.indices(squares) {
                if let Some(slot) = dtw.and_then(|v| v.get(at as usize)) {
                    crate::memory::prefetch(slot);
                }
                if let Some(slot) = rule_values.and_then(|v| v.get(at as usize)) {
                    crate::memory::prefetch(slot);
                }
                self.king_step_ats.push(at);
            }
        }
        self.king_steps = Some(sig);
        true
    }

    /// The DTW value of a position not settled by its material, from its successors as
    /// [`Successors::gather`] found them; `Ok(None)` when a successor's table is missing.
    fn best_score(
        &self,
        tables: &Tables,
        position: &Position,
        cache: &mut Reader,
    ) -> Result<Option<Score>, TableError> {
        if self.children.is_empty() && self.king_step_ats.is_empty() {
            return Ok(Some(position.variant().score_at_end()));
        }
        let resident = self.king_steps.and_then(|sig| tables.resident_dtw.get(&sig));
        let king_steps = self
            .king_step_ats
            .iter()
            .map(|&at| resident.and_then(|v| v.get(at as usize)).map(|&raw| Score::from_raw(raw)).ok_or(Gap::Missing));
        Gap::back(successors::best_score(
            self.children
                .iter()
                .zip(self.placed.iter())
                .map(|(child, placed)| Gap::of(tables.score_placed(child, *placed, cache)))
                .chain(king_steps),
        ))
    }
}

/// Places the successors of one position by its quiet king moves. They share their men
/// and the other side's kings with the position (normalized: White to move, the moved
/// king Black's), so each is placed by one rank of where the moved king stands, in a few
/// instructions where [`Tables::place`] ranks the whole position: most successors of
/// positions with kings are of this kind, and placing them was half the verifier's time.
#[derive(Clone, Copy)]
struct KingMovePlacer {
    sig: Signature,
    ranks: kabe_probe::BlackKingMoved,
    /// The successors are normalized by their colour flip: squares are flipped too.
    flipped: bool,
}

impl KingMovePlacer {
    /// For the quiet king moves of `position`, `child` the position after one of them;
    /// `None` where [`Tables::place`] places none (material settled, or no table).
    fn new(tables: &Tables, position: &Position, child: &Position) -> Option<KingMovePlacer> {
        if child.settled_score().is_some() {
            return None;
        }
        // The position's pieces as its successors are normalized: the moved king is Black's.
        let pivot = position.with_turn(child.turn()).normalized();
        let sig = Signature::of(&pivot);
        let ranks = tables.index.get(&sig)?.black_king_moved(&pivot);
        Some(KingMovePlacer { sig, ranks, flipped: child.turn() == Color::Black })
    }

    /// Where the successor by `mv`, a quiet king move, lies ([`Tables::place`]).
    #[inline]
    fn place(&mut self, mv: &Move, position: &Position) -> Placed {
        let (from, to) = if self.flipped {
            (position.flipped_square(mv.from()), position.flipped_square(mv.to()))
        } else {
            (mv.from(), mv.to())
        };
        self.ranks.moving(from);
        Placed { sig: self.sig, at: self.ranks.index(to) }
    }
}

/// One worker's block cache, and the successors of the position it checks.
struct Worker<'s> {
    cache: Reader<'s>,
    successors: Successors,
}

impl<'s> Worker<'s> {
    fn new(shared: &'s BlockCache) -> Worker<'s> {
        Worker { cache: Reader::new(shared), successors: Successors::default() }
    }

    /// As [`Successors::gather`].
    fn gather(&mut self, tables: &Tables, capture: &CaptureTest, theory: bool, rules: Option<DrawRuleSet>) {
        self.successors.gather(tables, capture, theory, rules);
    }

    /// As [`Successors::best_score`], for the successors gathered last.
    fn derive(&mut self, tables: &Tables, position: &Position) -> Result<Option<Score>, TableError> {
        self.successors.best_score(tables, position, &mut self.cache)
    }

    /// The rule value of `rules` (its count `context`) of a position not drawn by its
    /// material, from its successors as [`Worker::gather`] found them.
    fn derive_rule(
        &mut self,
        tables: &Tables,
        rules: &DrawRules,
        context: kabe_probe::rules::Context,
        position: &Position,
    ) -> Result<RuleScore, Gap> {
        let Worker { cache, successors: Successors { moves, children, placed, king_steps, king_step_ats } } = self;
        let resident = king_steps.and_then(|sig| {
            tables.resident_rules.as_ref().filter(|(set, _)| *set == rules.set).and_then(|(_, r)| r.get(&sig))
        });
        let king_steps =
            king_step_ats.iter().map(|&at| resident.and_then(|v| rule_entry(v, at as usize)).ok_or(Gap::Missing));
        let oracle = RuleOracle { tables, set: rules.set, cache: RefCell::new(cache), children, placed };
        let children = moves.iter().zip(children.iter());
        successors::rule_score_with_king_steps(&oracle, rules, context, position, children, king_steps)
    }
}

/// Derives again every value of `sig` held by its files: the DTW and WLD values when
/// `theory`, the rule values of `rules` when given (its table present). Each position's
/// successors are made and located once for both; a resident pair's stored values are
/// read from memory, where they were loaded from the files.
fn check_signature(
    tables: &Tables,
    sig: Signature,
    theory: bool,
    rules: Option<&DrawRules>,
    shared: &BlockCache,
    findings: &Findings,
    progress: &(dyn Fn(u64) + Sync),
) {
    let Some(check) = SignatureCheck::new(tables, sig, theory, rules) else { return };
    let index = &tables.index[&sig];
    let kinds = check.theory_files.is_some() as u64 + check.rule_file.is_some() as u64;
    let chunks = index.len().div_ceil(CHECK_CHUNK);
    (0..chunks).into_par_iter().for_each_init(
        || Worker::new(shared),
        |worker, c| {
            let range = c * CHECK_CHUNK..((c + 1) * CHECK_CHUNK).min(index.len());
            let n = range.end - range.start;
            for (at, position) in range.clone().zip(index.positions(range)) {
                match check.position(worker, at, &position, findings) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => return findings.bad(e),
                }
            }
            progress(n * kinds);
        },
    );
}

/// What [`check_signature`] checks of one signature: its theory files (DTW, WLD) when
/// they hold values, its rule file and count, and its resident values.
struct SignatureCheck<'t> {
    tables: &'t Tables,
    sig: Signature,
    theory_files: Option<(&'t TableFile, &'t TableFile)>,
    rule_file: Option<(&'t DrawRules, kabe_probe::rules::Context, &'t TableFile)>,
    resident_dtw: Option<&'t Vec<u16>>,
    resident_rules: Option<&'t Vec<u8>>,
}

impl<'t> SignatureCheck<'t> {
    /// `None` when `sig` has nothing to check here.
    fn new(tables: &'t Tables, sig: Signature, theory: bool, rules: Option<&'t DrawRules>) -> Option<Self> {
        // A pair member whose files hold nothing is read through its colour flip, checked there.
        let theory_files = match (theory, tables.dtw.get(&sig), tables.wld.get(&sig)) {
            (true, Some(dtw), Some(wld)) if !(dtw.header().by_search() && wld.header().by_search()) => Some((dtw, wld)),
            _ => None,
        };
        let rule_file = rules.and_then(|rules| {
            let context = rules.context(sig)?;
            let file = tables.rules.get(&rules.set)?.get(&sig)?;
            (!file.header().by_search()).then_some((rules, context, file))
        });
        if theory_files.is_none() && rule_file.is_none() {
            return None;
        }
        let resident_rules = tables
            .resident_rules
            .as_ref()
            .filter(|(set, _)| rules.is_some_and(|r| r.set == *set))
            .and_then(|(_, r)| r.get(&sig));
        let resident_dtw = tables.resident_dtw.get(&sig);
        Some(SignatureCheck { tables, sig, theory_files, rule_file, resident_dtw, resident_rules })
    }

    /// Checks the values the files hold for `position` (index `at`); `Ok(false)` where
    /// the rest of the chunk cannot be read.
    fn position(
        &self,
        worker: &mut Worker,
        at: u64,
        position: &Position,
        findings: &Findings,
    ) -> Result<bool, TableError> {
        let capture = CaptureTest::new(position);
        let (dtw_held, wld_held) =
            self.theory_files.map_or((false, false), |(dtw, wld)| (capture.held_by(dtw), capture.held_by(wld)));
        let rule_held = self.rule_file.is_some_and(|(_, _, file)| capture.held_by(file));
        if !(dtw_held || wld_held || rule_held) {
            return Ok(true);
        }
        // Drawn in theory (a DTW value this run checks from its own successors) means
        // undecided under every count: a count only turns wins into draws, so no move
        // can lead to a position lost within it.
        let drawn = self.resident_dtw.is_some_and(|v| v[at as usize] == Score::DRAW.raw());
        let settled = position.settled_score();
        let rule_from_children = rule_held && !drawn && !position.is_drawn_by_material();
        if (dtw_held && settled.is_none()) || rule_from_children {
            let rules = self.rule_file.filter(|_| rule_from_children).map(|(rules, _, _)| rules.set);
            worker.gather(self.tables, &capture, dtw_held, rules);
        }
        if dtw_held || wld_held {
            self.theory(worker, at, position, (dtw_held, wld_held), findings)?;
        }
        if rule_held {
            return self.rule(worker, at, position, rule_from_children, findings);
        }
        Ok(true)
    }

    /// Checks the DTW and WLD values held for `position` against the DTW its successors
    /// give (a position whose DTW is not stored by its WLD alone).
    fn theory(
        &self,
        worker: &mut Worker,
        at: u64,
        position: &Position,
        (dtw_held, wld_held): (bool, bool),
        findings: &Findings,
    ) -> Result<(), TableError> {
        let Some((dtw, wld)) = self.theory_files else { return Ok(()) };
        let derived = match position.settled_score() {
            Some(settled) => Some(settled),
            None if dtw_held => worker.derive(self.tables, position)?,
            None => self.tables.score(position, &mut worker.cache)?,
        };
        let Some(derived) = derived else {
            findings.unverified.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        };
        let stored = match self.resident_dtw {
            Some(values) if dtw_held => Some(Score::from_raw(values[at as usize])),
            _ if dtw_held => worker.cache.value(self.sig, dtw, at)?,
            _ => Some(derived),
        };
        let stored_wld =
            if wld_held { worker.cache.value(self.sig, wld, at)?.map(Score::wld) } else { Some(derived.wld()) };
        let Some((stored, stored_wld)) = stored.zip(stored_wld) else {
            findings.unverified.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        };
        findings.checked.fetch_add(1, Ordering::Relaxed);
        if stored != derived || stored_wld != derived.wld() {
            let fen = position.fen();
            findings.disagreement(Disagreement { signature: self.sig, fen, stored, stored_wld, derived });
        }
        Ok(())
    }

    /// Checks the rule value held for `position` against the one its successors give
    /// (undecided where it is drawn in theory or by its material); `Ok(false)` past the
    /// table's end.
    fn rule(
        &self,
        worker: &mut Worker,
        at: u64,
        position: &Position,
        from_children: bool,
        findings: &Findings,
    ) -> Result<bool, TableError> {
        let Some((rules, context, file)) = self.rule_file else { return Ok(true) };
        let stored = match self.resident_rules {
            Some(values) => rule_entry(values, at as usize),
            None => worker.cache.rule_value(self.sig, file, at)?,
        };
        let Some(stored) = stored else { return Ok(false) };
        let derived =
            if from_children { worker.derive_rule(self.tables, rules, context, position) } else { Ok(RuleScore::NONE) };
        let derived = match derived {
            Ok(d) => d,
            Err(Gap::Missing) => {
                findings.unverified.fetch_add(1, Ordering::Relaxed);
                return Ok(true);
            }
            Err(Gap::Bad(e)) => return Err(e),
        };
        findings.rule_checked.fetch_add(1, Ordering::Relaxed);
        if stored != derived {
            let (set, signature, fen) = (rules.set, self.sig, position.fen());
            findings.rule_disagreement(RuleDisagreement { set, signature, fen, stored, derived });
        }
        Ok(true)
    }
}

/// The draw-rule sets with at least one table among `found`.
pub(crate) fn rule_sets_of(found: &BTreeMap<Signature, Vec<Metric>>) -> std::collections::BTreeSet<DrawRuleSet> {
    found
        .values()
        .flatten()
        .filter_map(|m| match m {
            Metric::Rules(set) => Some(*set),
            _ => None,
        })
        .collect()
}

/// The rule tables a set present under `dir` lacks: for each draw-rule set with a table
/// here, every signature (of `only`, when given) of at most as many pieces as its largest
/// table whose material keeps a rule table, and whose theoretical tables are here.
fn missing_rule_tables(
    dir: &Path,
    variant: &Variant,
    found: &BTreeMap<Signature, Vec<Metric>>,
    only: Option<&[Signature]>,
) -> Vec<String> {
    let sets = rule_sets_of(found);
    let pieces = |s: &Signature| s.white_men + s.white_kings + s.black_men + s.black_kings;
    let mut missing = Vec::new();
    for set in sets {
        let rules = DrawRules::new(set, variant);
        let metric = Metric::Rules(set);
        let reach = found.iter().filter(|(_, m)| m.contains(&metric)).map(|(s, _)| pieces(s)).max().unwrap_or(0);
        for (sig, metrics) in found {
            let chosen = only.is_none_or(|o| o.contains(sig));
            if chosen && pieces(sig) <= reach && rules.context(*sig).is_some() && !metrics.contains(&metric) {
                missing.push(format!(
                    "{}: missing (the {set} rule table of {sig}; the set has rule tables up to {reach} pieces)",
                    TableDir::new(dir).path(variant, *sig, metric).display()
                ));
            }
        }
    }
    missing
}

/// The members of `pair` with a file among `files` that stores values, then those whose
/// file is found by search through them; members without a file are left out.
fn stored_first(pair: &[Signature], files: &BTreeMap<Signature, TableFile>) -> Vec<Signature> {
    let mut members: Vec<Signature> = pair.iter().copied().filter(|s| files.contains_key(s)).collect();
    members.sort_by_key(|s| files.get(s).is_some_and(|f| f.header().by_search()));
    members
}

/// The values of every position of `index` in memory, `value` giving each (stored, or
/// derived where the file leaves the position out); `Ok(None)` when some value cannot be
/// found (a table it leads to is missing: the positions are then counted unverified by
/// the check itself).
fn fill_resident<T: Copy + Default + Send + Sync>(
    index: &MaterialIndex,
    shared: &BlockCache,
    value: impl Fn(&mut Worker, u64, &Position) -> Result<Option<T>, TableError> + Sync,
) -> Result<Option<Vec<T>>, TableError> {
    let mut values = crate::memory::huge_vec(index.len() as usize, T::default());
    let missing = AtomicBool::new(false);
    values.par_chunks_mut(CHECK_CHUNK as usize).enumerate().try_for_each_init(
        || Worker::new(shared),
        |worker, (c, out)| {
            let start = c as u64 * CHECK_CHUNK;
            let range = start..start + out.len() as u64;
            for ((at, position), slot) in range.clone().zip(index.positions(range)).zip(out) {
                match value(worker, at, &position)? {
                    Some(v) => *slot = v,
                    None => {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
            Ok::<(), TableError>(())
        },
    )?;
    Ok((!missing.into_inner()).then_some(values))
}

/// Every DTW value of `sig` ([`Score::raw`]), as [`fill_resident`] gives them.
fn resident_dtw(tables: &Tables, sig: Signature, shared: &BlockCache) -> Result<Option<Vec<u16>>, TableError> {
    let file = &tables.dtw[&sig];
    fill_resident(&tables.index[&sig], shared, |worker, at, position| {
        Ok(held_dtw(worker, tables, sig, file, at, &CaptureTest::new(position), None)?.0.map(Score::raw))
    })
}

/// Every rule value of `sig` under `rules` (the file's one-byte codes), as
/// [`fill_resident`] gives them.
fn resident_rules(
    tables: &Tables,
    rules: &DrawRules,
    context: kabe_probe::rules::Context,
    sig: Signature,
    shared: &BlockCache,
) -> Result<Option<Vec<u8>>, TableError> {
    let file = &tables.rules[&rules.set][&sig];
    let drawn = |at: u64| tables.resident_dtw.get(&sig).is_some_and(|v| v[at as usize] == Score::DRAW.raw());
    fill_resident(&tables.index[&sig], shared, |worker, at, position| {
        let capture = CaptureTest::new(position);
        Ok(held_rule(worker, tables, rules, context, sig, file, at, &capture, drawn(at), false)?.map(rule_code))
    })
}

/// The DTW value of `position` (index `at` of `sig`) as the verifier holds it: stored,
/// settled by its material, or derived from its successors, and whether they were
/// gathered for that ([`Worker::gather`], for the rule values of `rules` too where given).
fn held_dtw(
    worker: &mut Worker,
    tables: &Tables,
    sig: Signature,
    file: &TableFile,
    at: u64,
    capture: &CaptureTest,
    rules: Option<DrawRuleSet>,
) -> Result<(Option<Score>, bool), TableError> {
    let position = capture.position;
    if capture.held_by(file) {
        return Ok((worker.cache.value(sig, file, at)?, false));
    }
    if let Some(settled) = position.settled_score() {
        return Ok((Some(settled), false));
    }
    worker.gather(tables, capture, true, rules);
    Ok((worker.derive(tables, position)?, true))
}

/// The rule value of `position` as the verifier holds it: stored, undecided where it is
/// drawn by its material or in theory (`drawn`: a count only turns wins into draws), or
/// derived from its successors (`gathered`: already gathered for this position).
#[allow(clippy::too_many_arguments)]
fn held_rule(
    worker: &mut Worker,
    tables: &Tables,
    rules: &DrawRules,
    context: kabe_probe::rules::Context,
    sig: Signature,
    file: &TableFile,
    at: u64,
    capture: &CaptureTest,
    drawn: bool,
    gathered: bool,
) -> Result<Option<RuleScore>, TableError> {
    let position = capture.position;
    if capture.held_by(file) {
        return worker.cache.rule_value(sig, file, at);
    }
    if position.is_drawn_by_material() || drawn {
        return Ok(Some(RuleScore::NONE));
    }
    if !gathered {
        worker.gather(tables, capture, false, Some(rules.set));
    }
    Gap::back(worker.derive_rule(tables, rules, context, position))
}

/// The theoretical figures of a resident table.
fn count_theory(values: &[u16]) -> TableStats {
    values
        .par_chunks(CHECK_CHUNK as usize)
        .enumerate()
        .map(|(c, chunk)| {
            let mut stats = TableStats::default();
            for (i, &v) in (c as u64 * CHECK_CHUNK..).zip(chunk) {
                stats.add(i, Score::from_raw(v));
            }
            stats
        })
        .reduce(TableStats::default, TableStats::merge)
}

/// The figures of resident `sig` under `rules`, every position with a fresh count;
/// `Ok(None)` when a value cannot be found.
fn count_rules(
    tables: &Tables,
    rules: &DrawRules,
    sig: Signature,
    shared: &BlockCache,
) -> Result<Option<RuleStats>, TableError> {
    let index = &tables.index[&sig];
    (0..index.len().div_ceil(CHECK_CHUNK))
        .into_par_iter()
        .map_init(
            || Reader::new(shared),
            |cache, c| {
                let range = c * CHECK_CHUNK..((c + 1) * CHECK_CHUNK).min(index.len());
                let mut stats = RuleStats::default();
                for (i, position) in range.clone().zip(index.positions(range)) {
                    // The position is read where it lies, without being located again.
                    let (position, placed) = ([position], [Some(Placed { sig, at: i })]);
                    let oracle = RuleOracle {
                        tables,
                        set: rules.set,
                        cache: RefCell::new(&mut *cache),
                        children: &position,
                        placed: &placed,
                    };
                    let position = &position[0];
                    let counters = Counters::fresh(rules, position);
                    let v = match verdict(&oracle, position, &counters) {
                        Ok(v) => v,
                        Err(Gap::Missing) => return Ok(None),
                        Err(Gap::Bad(e)) => return Err(e),
                    };
                    let plies = v.within.decided().map_or(0, |(_, p)| p);
                    stats.add(i, v.theoretical.wld(), v.exact, plies);
                }
                Ok(Some(stats))
            },
        )
        .try_reduce(|| Some(RuleStats::default()), |a, b| Ok(a.zip(b).map(|(a, b)| a.merge(b))))
}

/// The one-byte code of a rule value, as a rule table stores it ([`rule_entry`] reads it).
fn rule_code(value: RuleScore) -> u8 {
    if value == RuleScore::NONE {
        u8::MAX
    } else {
        value.raw() as u8
    }
}

/// The value of a position its DTW table leaves out, from its successors; `None` when a
/// successor's table is missing.
fn derive(tables: &Tables, position: &Position, cache: &mut Reader) -> Result<Option<Score>, TableError> {
    if let Some(settled) = position.settled_score() {
        return Ok(Some(settled));
    }
    let mut children = cache.spare.pop().unwrap_or_default();
    children.gather(tables, &CaptureTest::new(position), true, None);
    let derived = children.best_score(tables, position, cache);
    cache.spare.push(children);
    derived
}

/// The verifier's tables seen as the exact verdict's [`Oracle`] for one rule set. A
/// position asked about that is one of `children` (by reference: the successors a
/// [`Worker`] gathered) is read where `placed` says, without being located again.
struct RuleOracle<'t, 'c, 's> {
    tables: &'t Tables,
    set: DrawRuleSet,
    cache: RefCell<&'c mut Reader<'s>>,
    children: &'t [Position],
    placed: &'t [Option<Placed>],
}

impl RuleOracle<'_, '_, '_> {
    /// Where `position` lies: from `placed` when it is one of the children, else found.
    fn place(&self, position: &Position) -> Option<Placed> {
        let offset = (position as *const Position as usize).wrapping_sub(self.children.as_ptr() as usize);
        let i = offset / std::mem::size_of::<Position>();
        if offset.is_multiple_of(std::mem::size_of::<Position>()) && i < self.children.len() {
            self.placed[i]
        } else {
            self.tables.place(position)
        }
    }
}

impl Oracle for RuleOracle<'_, '_, '_> {
    type Error = Gap;

    fn theoretical(&self, position: &Position) -> Result<Score, Gap> {
        Gap::of(self.tables.score_placed(position, self.place(position), &mut self.cache.borrow_mut()))
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, Gap> {
        Gap::of(self.tables.rule_placed(self.set, position, self.place(position), &mut self.cache.borrow_mut()))
    }
}
