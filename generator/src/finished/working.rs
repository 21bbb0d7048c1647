//! The working form of finished tables during a build: the values of the tables a build
//! reads, in memory, every position one slot (both sides to move, capture positions
//! too), so that a solver takes a successor's value with one ranking and a memory read.
//!
//! A block of a table is decompressed the first time a position of it is read, once for
//! the whole build; a position the files leave out (a capture to make, or the whole
//! colour flip of a pair kept on one side) is searched the first time it is read and its
//! value kept in its slot. The reader of the probe library would search it on every
//! probe, which a build repeats millions of times for the same positions; decoding every
//! table whole before use would spend the time on positions no pair reaches (a 6-piece
//! pair reads its promotions' tables at a few positions).
//!
//! A [`WorkingSet`] holds the tables a build reads ([`tables_read`]) within a byte
//! allowance taken from the memory budget, two bytes a position for DTW and one for a
//! rule table ([`WorkingSet::arrange`]): the first tables in the build's order that fit
//! whole are counted whole; the others share what is left, block by block as their
//! blocks are decoded. A six-piece pair reads its promotions' tables, and the tables
//! these are searched through, at a small part of their positions, so counting them
//! whole would leave them unheld for memory never used. A block for which no room is
//! left is read through the files ([`Tablebase`]), as is a table the set does not hold:
//! a set that does not fit is slower, never wrong. It holds tables, not pairs: a pair's promotions reach one side of
//! a larger pair, and where that side's file stores its values the other side is never
//! read, so holding it would only crowd out a table that is.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};

use kabe_probe::internal::successors::{best_score, rule_score_of_children};
use kabe_probe::internal::table::{
    decode_entry, file_name, rule_code, rule_of_code, Decompressors, TableDir, TableFlags,
};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::rules::Context;
use kabe_probe::table::{Metric, TableError, TableFile};
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{DrawRuleSet, DrawRules, Position, RuleScore, Score, Signature, Variant, Wld};

use crate::finished::lookup::{AsOracle, Finished};
use crate::memory::{prefetch, Allowance, LazyBlocks};
use crate::pair::{successors, TablePair};

/// The tables a build of `pairs` reads, and those they are read through, in the order
/// to hold them where memory is short: the tables the pairs' captures and promotions
/// lead to first, then the tables their left-out positions are searched through, and so
/// on, each layer in build order (by pieces, then men, then pair). A table read by the
/// pairs is read at every position that leads to it; one read through it, only where a
/// position of it is searched, once each when it is held.
///
/// A capture position (which a file may leave out) is found from its captures' tables;
/// where `searched(sig)` (the file of `sig` stores no value at all, its pair's other
/// side being stored) every position is found from all its moves, so its colour flip
/// and its promotions' tables are read too. A table that stores its values needs no
/// flip: a six-piece pair's promotions reach one side of a larger pair, and the other
/// side is never read.
pub fn tables_read(variant: Variant, pairs: &[TablePair], searched: impl Fn(Signature) -> bool) -> Vec<Signature> {
    let leads_to = |sig: Signature| {
        successors(sig).into_iter().filter(move |s| MaterialIndex::new(variant, *s).is_some_and(|i| !i.is_empty()))
    };
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    let mut layer: BTreeSet<Signature> = pairs
        .iter()
        .flat_map(|pair| pair.iter().copied())
        .flat_map(leads_to)
        .filter(|s| !pairs.iter().any(|p| p.contains(s)))
        .collect();
    while !layer.is_empty() {
        let mut tables: Vec<Signature> = layer.into_iter().filter(|s| seen.insert(*s)).collect();
        tables.sort_by_key(|s| (s.pieces(), s.men(), TablePair::of(*s), *s));
        let mut next = BTreeSet::new();
        for &sig in &tables {
            // A stored table's left-out positions have a capture to make, which takes
            // pieces; one found by search makes every move (its flip's, its promotions).
            let searched = searched(sig);
            next.extend(leads_to(sig).filter(|s| (searched || s.pieces() < sig.pieces()) && !seen.contains(s)));
        }
        order.extend(tables);
        layer = next;
    }
    order
}

/// A slot of the working form: a code ([`Code`]) for a value known to be the
/// position's, a value decoded but not yet known to be (a file that leaves capture
/// positions out keeps a filler value there), or [`Slot::UNKNOWN`]: a position to search.
///
/// A block is decoded without testing its positions, each value marked unchecked where
/// the file leaves capture positions out, and a position is tested when it is read. A
/// block is 16,384 positions, and a pair reads most tables it reaches at a few of them:
/// testing every position for a capture as its block was decoded was a quarter of a
/// six-piece pass (1050+5010's theory, perf).
trait Slot: Send + Sync {
    /// A stored value: the raw DTW, or the rule code.
    type Value: Copy + Eq + Into<u32> + TryFrom<u32>;
    /// The code of a position to search.
    const UNKNOWN: Self::Value;
    /// The value with no distance (a draw, undecided).
    const NONE: Self::Value;
    /// The largest value held as a code; a larger one is searched each time it is read.
    const LAST: u32;
    fn new(value: Self::Value) -> Self;
    fn get(&self) -> Self::Value;
    fn set(&self, value: Self::Value);
}

impl Slot for AtomicU16 {
    type Value = u16;
    /// A DTW of 65,534 plies.
    const UNKNOWN: u16 = u16::MAX - 1;
    const NONE: u16 = Score::DRAW.raw();
    /// No table comes near 32,764 plies.
    const LAST: u32 = 0x7FFC;
    fn new(value: u16) -> Self {
        AtomicU16::new(value)
    }
    #[inline]
    fn get(&self) -> u16 {
        self.load(Ordering::Relaxed)
    }
    fn set(&self, value: u16) {
        self.store(value, Ordering::Relaxed)
    }
}

impl Slot for AtomicU8 {
    type Value = u8;
    /// Not a rule code.
    const UNKNOWN: u8 = u8::MAX - 1;
    const NONE: u8 = u8::MAX;
    /// Rule codes are `2 * plies + win` within a count, at most 121
    /// (`kabe_probe::internal::table::encode_rule_block`).
    const LAST: u32 = 125;
    fn new(value: u8) -> Self {
        AtomicU8::new(value)
    }
    #[inline]
    fn get(&self) -> u8 {
        self.load(Ordering::Relaxed)
    }
    fn set(&self, value: u8) {
        self.store(value, Ordering::Relaxed)
    }
}

/// What a slot holds.
#[derive(Debug, PartialEq, Eq)]
enum Code<V> {
    /// The position's value.
    Value(V),
    /// A position to search.
    Unknown,
    /// A value decoded for a position not tested yet (`None`: one the format does not
    /// define).
    Unchecked(Option<V>),
}

impl<V: Copy + Eq + Into<u32> + TryFrom<u32>> Code<V> {
    /// Codes up to `LAST` and `NONE` are values known to be the position's; above
    /// `LAST` up to `2 * LAST + 1` unchecked ones, shifted by `LAST + 1`; then an
    /// unchecked `NONE` and an unchecked undefined value.
    fn checked<T: Slot<Value = V>>(value: V) -> Option<V> {
        (value.into() <= T::LAST || value == T::NONE).then_some(value)
    }

    fn unchecked<T: Slot<Value = V>>(value: Option<V>) -> V {
        let code = match value {
            None => 2 * T::LAST + 3,
            Some(v) if v == T::NONE => 2 * T::LAST + 2,
            Some(v) if v.into() <= T::LAST => v.into() + T::LAST + 1,
            Some(_) => return T::UNKNOWN,
        };
        V::try_from(code).ok().unwrap_or(T::UNKNOWN)
    }

    #[inline]
    fn read<T: Slot<Value = V>>(code: V) -> Code<V> {
        let raw: u32 = code.into();
        if code == T::NONE || raw <= T::LAST {
            Code::Value(code)
        } else if raw <= 2 * T::LAST + 1 {
            Code::Unchecked(V::try_from(raw - T::LAST - 1).ok())
        } else if raw == 2 * T::LAST + 2 {
            Code::Unchecked(Some(T::NONE))
        } else if raw == 2 * T::LAST + 3 {
            Code::Unchecked(None)
        } else {
            Code::Unknown
        }
    }
}

const _: () = assert!(2 * <AtomicU16 as Slot>::LAST + 3 < <AtomicU16 as Slot>::UNKNOWN as u32);
const _: () = assert!(2 * <AtomicU8 as Slot>::LAST + 3 < <AtomicU8 as Slot>::UNKNOWN as u32);

/// One table's values of one kind: its file, and its blocks as they are decoded.
struct Column<T> {
    file: TableFile,
    blocks: LazyBlocks<T>,
}

impl<T: Slot> Column<T> {
    fn new(file: TableFile, positions: u64) -> Column<T> {
        let per = file.header().block_positions as u64;
        Column { blocks: LazyBlocks::new(positions, per), file }
    }

    /// The value of `normalized`, at `at` in the table, its block decoded on first use
    /// if `allowance` has room for it (no allowance: a table counted whole): `entry`
    /// reads a value from a decompressed block, `search` finds one the file leaves out,
    /// which is then kept. `Ok(None)` where no room is left for the block.
    #[inline]
    fn value(
        &self,
        at: u64,
        normalized: &Position,
        (contexts, allowance): (&Decompressors, Option<&Allowance>),
        entry: impl Fn(&[u8], usize) -> Option<T::Value>,
        search: impl FnOnce() -> Result<T::Value, ProbeError>,
    ) -> Result<Option<T::Value>, ProbeError> {
        let Some(slot) = self.blocks.slot(at, allowance, |first, len| self.decode(first, len, contexts, entry))? else {
            return Ok(None);
        };
        Ok(Some(match Code::read::<T>(slot.get()) {
            Code::Value(value) => value,
            Code::Unchecked(value) if self.stores(normalized) => {
                let value = value.ok_or_else(|| undefined_value(&self.file, at))?;
                slot.set(value);
                value
            }
            Code::Unknown | Code::Unchecked(_) => {
                let value = search()?;
                if let Some(code) = Code::checked::<T>(value) {
                    slot.set(code);
                }
                value
            }
        }))
    }

    fn decode(
        &self,
        start: u64,
        len: u64,
        contexts: &Decompressors,
        entry: impl Fn(&[u8], usize) -> Option<T::Value>,
    ) -> Result<Box<[T]>, ProbeError> {
        let header = self.file.header();
        if header.by_search() {
            return Ok((0..len).map(|_| T::new(T::UNKNOWN)).collect());
        }
        let bytes = contexts.block(&self.file, (start / header.block_positions as u64) as u32)?;
        if header.flags.contains(TableFlags::CAPTURES_FREE) {
            return Ok((0..len as usize).map(|i| T::new(Code::unchecked::<T>(entry(&bytes, i)))).collect());
        }
        (0..len as usize)
            .map(|i| {
                let value = entry(&bytes, i).ok_or_else(|| undefined_value(&self.file, start + i as u64))?;
                Ok(T::new(Code::checked::<T>(value).unwrap_or(T::UNKNOWN)))
            })
            .collect()
    }

    /// Whether the file stores the value of `normalized` (not left out to be searched).
    fn stores(&self, normalized: &Position) -> bool {
        self.file.header().holds(normalized)
    }
}

fn undefined_value(file: &TableFile, at: u64) -> ProbeError {
    TableError::Corrupt { path: file.path().to_path_buf(), detail: format!("undefined value at index {at}") }.into()
}

/// One table held: its index, its DTW values and, where the rule set keeps one, its
/// rule values and the count they are kept within; whether it is counted whole or by
/// the blocks decoded, within the allowance.
struct Held {
    index: MaterialIndex,
    dtw: Column<AtomicU16>,
    rules: Option<(Column<AtomicU8>, Context)>,
    whole: bool,
}

impl Held {
    fn decoded_bytes(&self) -> u64 {
        self.dtw.blocks.made_bytes() + self.rules.as_ref().map_or(0, |(column, _)| column.blocks.made_bytes())
    }

    fn forget(&mut self) {
        self.dtw.blocks.forget();
        if let Some((column, _)) = &mut self.rules {
            column.blocks.forget();
        }
    }
}

/// Finished tables held in their working form for a build (module documentation).
pub struct WorkingSet {
    variant: Variant,
    /// The rule set whose rule tables are held ([`DrawRules::NONE`]: theory only).
    rules: DrawRules,
    /// [`Signature::key`] to a place in `held`; `u32::MAX` where none.
    slots: Box<[u32]>,
    held: Vec<Option<Held>>,
    contexts: Decompressors,
    /// What the tables counted by their blocks may take, and take.
    allowance: Allowance,
    /// The bytes of the tables counted whole.
    whole_bytes: u64,
}

impl WorkingSet {
    /// An empty set for `variant` that holds DTW values and the rule tables of `rules`
    /// ([`DrawRules::NONE`] for a theory build).
    pub fn new(variant: Variant, rules: DrawRules) -> WorkingSet {
        WorkingSet {
            variant,
            rules,
            slots: vec![u32::MAX; Signature::KEYS].into_boxed_slice(),
            held: Vec::new(),
            contexts: Decompressors::new(),
            allowance: Allowance::unlimited(),
            whole_bytes: 0,
        }
    }

    /// Arranges the held tables within `allowance` bytes: those of `order` that fit
    /// whole in that order, then any other held table, are counted whole, each as if
    /// every block of it were decoded; the others share the rest, each block counted as
    /// it is decoded, and let go of their blocks where those decoded already do not fit.
    /// Until arranged, a set counts every table by its blocks, without a limit.
    pub fn arrange(&mut self, order: &[Signature], allowance: u64) {
        let others = self.tables().into_iter().filter(|s| !order.contains(s));
        let arranged: Vec<Signature> = order.iter().copied().filter(|s| self.holds(*s)).chain(others).collect();
        let (mut whole, mut spent) = (0, *self.allowance.spent_mut());
        for &sig in &arranged {
            let full = self.table_bytes(sig);
            let held = self.get_mut(sig).expect("held");
            let fits = whole + full <= allowance;
            if fits != held.whole {
                let decoded = held.decoded_bytes();
                spent = if fits { spent - decoded } else { spent + decoded };
                held.whole = fits;
            }
            whole += if fits { full } else { 0 };
        }
        (self.whole_bytes, *self.allowance.spent_mut()) = (whole, spent);
        let limit = allowance - whole;
        self.allowance.set_limit(limit);
        for &sig in arranged.iter().rev() {
            if *self.allowance.spent_mut() <= limit {
                break;
            }
            let held = self.get_mut(sig).expect("held");
            if !held.whole {
                let decoded = held.decoded_bytes();
                held.forget();
                *self.allowance.spent_mut() -= decoded;
            }
        }
    }

    /// The game.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Bytes the held tables take: those counted whole in full, the others by the
    /// blocks decoded so far.
    pub fn bytes(&self) -> u64 {
        self.whole_bytes + self.allowance.spent()
    }

    /// The bytes the table of `sig` takes once every block of it is decoded.
    pub fn table_bytes(&self, sig: Signature) -> u64 {
        let positions = MaterialIndex::new(self.variant, sig).map_or(0, |i| i.len());
        positions * if self.rule_context(sig).is_some() { 3 } else { 2 }
    }

    fn get(&self, signature: Signature) -> Option<&Held> {
        let slot = *self.slots.get(signature.key()?)?;
        self.held.get(slot as usize)?.as_ref()
    }

    fn get_mut(&mut self, signature: Signature) -> Option<&mut Held> {
        let slot = *self.slots.get(signature.key()?)?;
        self.held.get_mut(slot as usize)?.as_mut()
    }

    /// The allowance a held table's blocks are counted against: none for one counted
    /// whole.
    fn counted(&self, held: &Held) -> Option<&Allowance> {
        (!held.whole).then_some(&self.allowance)
    }

    /// Whether the table of `sig` is held.
    pub fn holds(&self, sig: Signature) -> bool {
        self.get(sig).is_some()
    }

    /// The tables held.
    pub fn tables(&self) -> BTreeSet<Signature> {
        self.held.iter().flatten().map(|h| h.index.signature()).collect()
    }

    /// Lets go of the table of `sig`.
    pub fn release(&mut self, sig: Signature) {
        if let Some(key) = sig.key() {
            let slot = std::mem::replace(&mut self.slots[key], u32::MAX);
            if let Some(held) = self.held.get_mut(slot as usize).and_then(Option::take) {
                match held.whole {
                    true => self.whole_bytes -= self.table_bytes(sig),
                    false => self.allowance.give_back(held.decoded_bytes()),
                }
            }
        }
    }

    /// Whether the files of `sig` under `dir` that this set would hold (its DTW table
    /// and, where the rule set keeps one, its rule table) leave every position out, to
    /// be found through the colour flip's table ([`tables_read`]). A file that cannot be
    /// opened (not built yet) counts as leaving them out: its flip may be read.
    pub fn searched_whole(&self, dir: &Path, sig: Signature) -> bool {
        let variant = self.variant;
        let searched =
            |metric: Metric| open_for_build(dir, &variant, sig, metric).map_or(true, |file| file.header().by_search());
        searched(Metric::Dtw) || self.rule_context(sig).is_some() && searched(Metric::Rules(self.rules.set))
    }

    /// The count the rule table of `sig` is kept within, where this set holds one.
    fn rule_context(&self, sig: Signature) -> Option<Context> {
        self.rules.context(sig).filter(|_| self.rules.set != DrawRuleSet::None)
    }

    /// Holds the table of `sig` under `dir`: its DTW table and, where the rule set keeps
    /// one, its rule table. Their headers are checked now; their blocks are decoded as
    /// the build reaches them, counted by block until [`WorkingSet::arrange`]d.
    pub fn load(&mut self, dir: &Path, sig: Signature) -> Result<(), ProbeError> {
        if self.holds(sig) {
            return Ok(());
        }
        let variant = self.variant;
        let open = |metric: Metric| open_for_build(dir, &variant, sig, metric);
        let index = MaterialIndex::new(variant, sig).ok_or_else(|| not_a_table(dir, &variant, sig))?;
        let key = sig.key().ok_or_else(|| not_a_table(dir, &variant, sig))?;
        let dtw = Column::new(open(Metric::Dtw)?, index.len());
        let rules = match self.rule_context(sig) {
            Some(context) => Some((Column::new(open(Metric::Rules(self.rules.set))?, index.len()), context)),
            None => None,
        };
        self.slots[key] = self.held.len() as u32;
        self.held.push(Some(Held { index, dtw, rules, whole: false }));
        Ok(())
    }

    /// The set read with `fallback` for the tables it does not hold.
    pub fn view<'a>(&'a self, fallback: &'a Tablebase) -> Working<'a> {
        Working { set: self, fallback }
    }
}

/// The file a build reads the `metric` table of `sig` under `dir` from: the table's own,
/// or where that holds no values ([`TableFlags::BY_SEARCH`]) the copy of its values kept
/// aside when it was dropped ([`TableDir::dropped_path`]), if one is there bound to the
/// colour flip's file as it is now. A copy that is there and cannot be read is an error
/// naming it; a missing or unbound one leaves the positions to search.
fn open_for_build(dir: &Path, variant: &Variant, sig: Signature, metric: Metric) -> Result<TableFile, TableError> {
    let layout = TableDir::new(dir);
    let file = TableFile::open(&layout.path(variant, sig, metric), variant, sig, metric)?;
    if !file.header().by_search() {
        return Ok(file);
    }
    let flip = sig.flipped();
    let Ok(kept) = TableFile::open(&layout.path(variant, flip, metric), variant, flip, metric) else {
        return Ok(file);
    };
    let aside = layout.dropped_path(variant, sig, metric, kept.header().checksum);
    if !aside.exists() {
        return Ok(file);
    }
    let copy = TableFile::open(&aside, variant, sig, metric)?;
    if copy.header().by_search() {
        let detail = String::from("a copy kept aside holds no values");
        return Err(TableError::Corrupt { path: aside, detail });
    }
    Ok(copy)
}

fn not_a_table(dir: &Path, variant: &Variant, sig: Signature) -> ProbeError {
    ProbeError::NoTable {
        variant: variant.name,
        signature: sig,
        path: dir.join(file_name(variant.name, sig, Metric::Dtw)),
        rules: None,
    }
}

/// A [`WorkingSet`] as the solvers read it: held tables from memory, the others through
/// the files.
#[derive(Clone, Copy)]
pub struct Working<'a> {
    set: &'a WorkingSet,
    fallback: &'a Tablebase,
}

impl Working<'_> {
    /// The DTW of `normalized` (White to move) of held table `held`, searched and kept
    /// the first time where its file leaves it out.
    #[inline]
    fn held_dtw(&self, held: &Held, normalized: &Position) -> Result<Score, ProbeError> {
        self.held_dtw_at(held, held.index.index(normalized), normalized)
    }

    /// As [`Working::held_dtw`], `at` being the position's index.
    #[inline]
    fn held_dtw_at(&self, held: &Held, at: u64, normalized: &Position) -> Result<Score, ProbeError> {
        let shared = (&self.set.contexts, self.set.counted(held));
        let entry = |block: &[u8], i| decode_entry(held.dtw.file.header(), block, i).map(Score::raw);
        let search = || self.dtw_by_search(normalized).map(Score::raw);
        match held.dtw.value(at, normalized, shared, entry, search)? {
            Some(raw) => Ok(Score::from_raw(raw)),
            // No room for its block: a stored value through the files, a left-out one
            // searched here, where the tables it leads to may be held.
            None if held.dtw.stores(normalized) => self.fallback.probe_dtw(normalized),
            None => self.dtw_by_search(normalized),
        }
    }

    /// A left-out position's DTW: one ply of search ([`kabe_probe::internal::successors`]).
    fn dtw_by_search(&self, position: &Position) -> Result<Score, ProbeError> {
        let moves = position.legal_moves();
        if moves.is_empty() {
            return Ok(position.variant().score_at_end());
        }
        best_score(moves.iter().map(|mv| self.dtw(&position.play(mv))))
    }

    /// The rule value of `normalized` of held table `held`, searched and kept the first
    /// time where its file leaves it out.
    fn held_rule(
        &self,
        held: &Held,
        (column, context): &(Column<AtomicU8>, Context),
        normalized: &Position,
    ) -> Result<RuleScore, ProbeError> {
        let at = held.index.index(normalized);
        let shared = (&self.set.contexts, self.set.counted(held));
        let search = || self.rule_by_search(*context, normalized);
        let code = match column.value(at, normalized, shared, |block, i| block.get(i).copied(), search)? {
            Some(code) => code,
            None if column.stores(normalized) => return self.fallback.probe_counted(normalized, self.set.rules.set),
            None => self.rule_by_search(*context, normalized)?,
        };
        Ok(rule_of_code(code))
    }

    /// A left-out position's rule value, one ply of search, as its slot's code.
    fn rule_by_search(&self, context: Context, normalized: &Position) -> Result<u8, ProbeError> {
        let value = if normalized.is_drawn_by_material() {
            RuleScore::NONE
        } else {
            let moves = normalized.legal_moves();
            let children = moves.iter().map(|mv| (mv, normalized.play(mv)));
            rule_score_of_children(&AsOracle(self), &self.set.rules, context, normalized, children)?
        };
        Ok(rule_code(value))
    }
}

impl Finished for Working<'_> {
    type Error = ProbeError;

    #[inline]
    fn dtw(&self, position: &Position) -> Result<Score, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(settled);
        }
        let normalized = position.normalized();
        match self.set.get(Signature::of(&normalized)) {
            Some(held) => self.held_dtw(held, &normalized),
            None => self.fallback.probe_dtw(position),
        }
    }

    /// Every position ranked first and its slot's cache line fetched ahead, then read:
    /// the reads of a solver's successors are mostly cache misses over tables of
    /// hundreds of MB, and so they overlap.
    fn dtw_of(&self, positions: &[Position], out: &mut Vec<Score>) -> Result<(), ProbeError> {
        // A position of a held table, its index and its normalized form; `None`: settled
        // without a table, or read through the files.
        let locate = |position: &Position| {
            if position.settled_score().is_some() {
                return None;
            }
            let normalized = position.normalized();
            let held = self.set.get(Signature::of(&normalized))?;
            let at = held.index.index(&normalized);
            if let Some(slot) = held.dtw.blocks.made_slot(at) {
                prefetch(slot);
            }
            Some((held, at, normalized))
        };
        // A group at a time on the stack: a solver asks for a few dozen positions a call,
        // and a list on the heap for each call was a cost of its own.
        for group in positions.chunks(DTW_GROUP) {
            let mut located = [None; DTW_GROUP];
            for (slot, position) in located.iter_mut().zip(group) {
                *slot = locate(position);
            }
            for (position, located) in group.iter().zip(&located) {
                out.push(match located {
                    Some((held, at, normalized)) => self.held_dtw_at(held, *at, normalized)?,
                    None => self.dtw(position)?,
                });
            }
        }
        Ok(())
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(RuleScore::from_score(settled));
        }
        let normalized = position.normalized();
        match self.set.get(Signature::of(&normalized)).and_then(|h| Some((h, h.rules.as_ref()?))) {
            Some((held, rules)) => self.held_rule(held, rules, &normalized),
            None => self.fallback.probe_counted(position, self.set.rules.set),
        }
    }

    fn stored_results(
        &self,
        signature: Signature,
        first: u64,
        positions: &[Position],
        out: &mut Vec<Option<Wld>>,
    ) -> Result<(), ProbeError> {
        match self.set.get(signature) {
            Some(held) => {
                for (at, position) in (first..).zip(positions) {
                    out.push(Some(self.held_dtw_at(held, at, position)?.wld()));
                }
                Ok(())
            }
            None => self.fallback.probe_wld_stored_run(signature, first, positions, out),
        }
    }
}

/// Positions [`Working::dtw_of`] locates (their slots fetched ahead) before it reads them.
const DTW_GROUP: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(text: &str) -> Signature {
        let d: Vec<u32> = text.chars().map(|c| c.to_digit(10).expect("a digit")).collect();
        Signature::new(d[0] as _, d[1] as _, d[2] as _, d[3] as _)
    }

    /// Every value a code holds reads back as itself, checked or not; a value too
    /// large for a code is searched, never read as another.
    #[test]
    fn a_slot_code_reads_back_the_value_it_was_made_of() {
        fn round_trips<T: Slot>(values: &[T::Value], too_large: &[T::Value])
        where
            T::Value: std::fmt::Debug,
        {
            for &v in values {
                assert_eq!(Code::read::<T>(Code::unchecked::<T>(Some(v))), Code::Unchecked(Some(v)), "{v:?} unchecked");
                assert_eq!(Code::read::<T>(Code::checked::<T>(v).expect("a code")), Code::Value(v), "{v:?} checked");
            }
            assert_eq!(Code::read::<T>(Code::unchecked::<T>(None)), Code::Unchecked(None));
            assert_eq!(Code::read::<T>(T::UNKNOWN), Code::Unknown);
            for &v in too_large {
                assert_eq!(Code::read::<T>(Code::unchecked::<T>(Some(v))), Code::Unknown, "{v:?} unchecked");
                assert_eq!(Code::checked::<T>(v), None, "{v:?} checked");
            }
        }
        round_trips::<AtomicU16>(&[0, 1, 2, 77, 0x7FFB, 0x7FFC, Score::DRAW.raw()], &[0x7FFD, 0x8000, 0xFFFD]);
        round_trips::<AtomicU8>(&[0, 1, 100, 121, 125, u8::MAX], &[126, 200, 253]);
    }

    #[test]
    fn a_table_is_read_with_its_flip_only_where_its_file_leaves_every_position_out() {
        let variant = Variant::INTERNATIONAL;
        let pair = TablePair::of(sig("1122"));
        let set = |order: Vec<Signature>| order.into_iter().collect::<BTreeSet<_>>();
        let stored = set(tables_read(variant, &[pair], |_| false));
        assert!(stored.contains(&sig("2202")) && stored.contains(&sig("1113")), "{stored:?}");
        assert!(!stored.contains(&sig("0222")) && !stored.contains(&sig("1311")), "{stored:?}");
        assert!(stored.contains(&sig("2111")) && stored.contains(&sig("0211")), "captures: {stored:?}");
        assert!(stored.iter().all(|s| s.pieces() < 6 || *s == sig("2202") || *s == sig("1113")), "{stored:?}");
        let searched = set(tables_read(variant, &[pair], |s| s == sig("2202")));
        assert!(searched.contains(&sig("0222")) && !searched.contains(&sig("1311")), "{searched:?}");
        assert!(searched.is_superset(&stored));
        // Every table searched: both sides of every pair reached, each table once, those
        // the pair reads first (1311 only through 1113).
        let order = tables_read(variant, &[pair], |_| true);
        let every = set(order.clone());
        assert_eq!(every.len(), order.len());
        assert!(every.iter().all(|s| every.contains(&s.flipped())), "{every:?}");
        let at = |s: &str| order.iter().position(|t| *t == sig(s)).expect("read");
        assert!(at("1113") < at("1311") && at("2202") < at("0222"), "{order:?}");
    }
}
