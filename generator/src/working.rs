//! The working form of finished tables during a build: every position of a table the
//! build reads (both sides to move, capture positions too) decoded once from its files
//! into one array in memory, so that a solver takes a successor's value with one
//! ranking and one memory read. The files leave positions out (a capture to make, the
//! whole colour flip of a pair kept on one side); the reader finds those by a search on
//! every probe, which a build would repeat millions of times for the same positions.
//! Here each is searched once, as the table is decoded.
//!
//! A [`WorkingSet`] holds whole pairs (a left-out side is searched from its flip) within
//! a byte allowance taken from the memory budget; [`Working`] reads it, and falls back to
//! the files ([`Tablebase`]) for a table it does not hold, so a set that does not fit is
//! slower, never wrong.

use std::collections::BTreeSet;
use std::path::Path;

use kabe_probe::rules::exact::Oracle;
use kabe_probe::rules::Context;
use kabe_probe::successors::{best_score, rule_score_of_children};
use kabe_probe::table::{decode_entry, file_name, Metric, TableError, TableFile};
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{DrawRules, MaterialIndex, MoveList, Position, RuleScore, Score, Signature, Variant, Wld};
use rayon::prelude::*;

use crate::lookup::{Finished, RuleInputs};
use crate::pair::TablePair;

/// The pairs whose tables `pairs` read (their captures and promotions, with the rule
/// tables of `rules`), and the pairs those read in turn: a pair is decoded by searching
/// the positions its files leave out, whose successors lie in its own inputs.
pub fn inputs_closure(variant: Variant, pairs: &[TablePair], rules: &DrawRules) -> BTreeSet<TablePair> {
    let inputs = |pair: &TablePair| -> Vec<TablePair> {
        pair.inputs(variant, rules).into_iter().map(|(sig, _)| TablePair::of(sig)).collect()
    };
    let mut reached: BTreeSet<TablePair> = BTreeSet::new();
    let mut open: Vec<TablePair> = pairs.iter().flat_map(inputs).collect();
    while let Some(pair) = open.pop() {
        if reached.insert(pair) {
            open.extend(inputs(&pair));
        }
    }
    reached
}

/// `pairs` in the order they are built (by pieces, then men: a pair's captures and
/// promotions lead to pairs before it), the order in which to decode them.
pub fn in_build_order(pairs: &BTreeSet<TablePair>) -> Vec<&TablePair> {
    let mut order: Vec<&TablePair> = pairs.iter().collect();
    order.sort_by_key(|p| (p.first().pieces(), p.first().men(), **p));
    order
}

/// Positions decoded at a time by one worker (a block of the files).
const CHUNK: u64 = 1 << 14;

/// The DTW values of one table: a byte a position where every distance fits (255 a
/// draw), else two.
enum Distances {
    Narrow(Box<[u8]>),
    Wide(Box<[u16]>),
}

impl Distances {
    #[inline]
    fn get(&self, index: u64) -> Score {
        match self {
            Distances::Narrow(v) => match v[index as usize] {
                u8::MAX => Score::DRAW,
                plies => Score::from_raw(plies as u16),
            },
            Distances::Wide(v) => Score::from_raw(v[index as usize]),
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Distances::Narrow(v) => v.len() as u64,
            Distances::Wide(v) => 2 * v.len() as u64,
        }
    }
}

/// One table held: its index, its DTW values and, where the rule set keeps one, its
/// rule values (the byte of the files: 255 undecided).
struct Held {
    index: MaterialIndex,
    distances: Distances,
    rules: Option<Box<[u8]>>,
}

impl Held {
    fn bytes(&self) -> u64 {
        self.distances.bytes() + self.rules.as_ref().map_or(0, |r| r.len() as u64)
    }
}

/// Finished tables held whole in memory for a build (module documentation).
pub struct WorkingSet {
    variant: Variant,
    /// The rule set whose rule tables are held ([`DrawRules::NONE`]: theory only).
    rules: DrawRules,
    /// [`Signature::key`] to a place in `held`; `u32::MAX` where none.
    slots: Box<[u32]>,
    held: Vec<Option<Held>>,
}

impl WorkingSet {
    /// An empty set for `variant` that holds DTW values and the rule tables of `rules`
    /// ([`DrawRules::NONE`] for a theory build).
    pub fn new(variant: Variant, rules: DrawRules) -> WorkingSet {
        WorkingSet { variant, rules, slots: vec![u32::MAX; Signature::KEYS].into_boxed_slice(), held: Vec::new() }
    }

    /// The game.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Bytes the held values take.
    pub fn bytes(&self) -> u64 {
        self.held.iter().flatten().map(Held::bytes).sum()
    }

    /// The bytes `pair` takes once held (a byte a position a kind; a table whose
    /// distances need two bytes takes more).
    pub fn pair_bytes(&self, pair: &TablePair) -> u64 {
        pair.iter()
            .map(|&sig| {
                let positions = MaterialIndex::new(self.variant, sig).map_or(0, |i| i.len());
                positions * if self.rules.context(sig).is_some() { 2 } else { 1 }
            })
            .sum()
    }

    fn get(&self, signature: Signature) -> Option<&Held> {
        let slot = *self.slots.get(signature.key()?)?;
        self.held.get(slot as usize)?.as_ref()
    }

    /// Whether every table of `pair` is held.
    pub fn holds(&self, pair: &TablePair) -> bool {
        pair.iter().all(|s| self.get(*s).is_some())
    }

    /// The pairs held.
    pub fn pairs(&self) -> BTreeSet<TablePair> {
        self.held.iter().flatten().map(|h| TablePair::of(h.index.signature())).collect()
    }

    /// Lets go of `pair`'s tables.
    pub fn release(&mut self, pair: &TablePair) {
        for sig in pair {
            if let Some(key) = sig.key() {
                let slot = std::mem::replace(&mut self.slots[key], u32::MAX);
                if let Some(held) = self.held.get_mut(slot as usize) {
                    *held = None;
                }
            }
        }
    }

    /// The set read with `fallback` for the tables it does not hold.
    pub fn view<'a>(&'a self, fallback: &'a Tablebase) -> Working<'a> {
        Working { set: self, fallback }
    }

    /// Decodes `pair`'s tables from the files under `dir`: its DTW tables, then its rule
    /// tables; in each kind a table that stores values before one found by search from
    /// it. Positions the files leave out are searched once, from the tables held (others
    /// through `fallback`).
    pub fn load(&mut self, dir: &Path, pair: &TablePair, fallback: &Tablebase) -> Result<(), ProbeError> {
        if self.holds(pair) {
            return Ok(());
        }
        let variant = self.variant;
        let open = |sig: Signature, metric: Metric| {
            let path = dir.join(file_name(variant.name, sig, metric));
            TableFile::open(&path, &variant, sig, metric)
        };
        let mut files: Vec<(MaterialIndex, TableFile)> = Vec::new();
        for &sig in pair {
            let index = MaterialIndex::new(variant, sig).ok_or_else(|| not_a_table(dir, &variant, sig))?;
            files.push((index, open(sig, Metric::Dtw)?));
        }
        files.sort_by_key(|(_, file)| file.header().by_search());
        let mut loaded: Vec<Held> = Vec::new();
        for (index, file) in files {
            let distances = self.view_with(fallback, &loaded).decode_distances(&index, &file)?;
            loaded.push(Held { index, distances, rules: None });
        }
        if self.rules.set != kabe_probe::DrawRuleSet::None {
            let metric = Metric::Rules(self.rules.set);
            let mut order: Vec<(usize, TableFile, Context)> = Vec::new();
            for (at, held) in loaded.iter().enumerate() {
                let sig = held.index.signature();
                if let Some(context) = self.rules.context(sig) {
                    order.push((at, open(sig, metric)?, context));
                }
            }
            order.sort_by_key(|(_, file, _)| file.header().by_search());
            for (at, file, context) in order {
                let values = self.view_with(fallback, &loaded).decode_rules(&loaded[at].index, &file, context)?;
                loaded[at].rules = Some(values);
            }
        }
        for held in loaded {
            let key = held.index.signature().key().ok_or_else(|| not_a_table(dir, &variant, held.index.signature()))?;
            self.slots[key] = self.held.len() as u32;
            self.held.push(Some(held));
        }
        Ok(())
    }

    fn view_with<'a>(&'a self, fallback: &'a Tablebase, loading: &'a [Held]) -> Loader<'a> {
        Loader { working: Working { set: self, fallback }, loading }
    }
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

impl Finished for Working<'_> {
    type Error = ProbeError;

    #[inline]
    fn dtw(&self, position: &Position) -> Result<Score, ProbeError> {
        self.theoretical(position)
    }
}

impl Oracle for Working<'_> {
    type Error = ProbeError;

    #[inline]
    fn theoretical(&self, position: &Position) -> Result<Score, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(settled);
        }
        let normalized = position.normalized();
        match self.set.get(Signature::of(&normalized)) {
            Some(held) => Ok(held.distances.get(held.index.index(&normalized))),
            None => self.fallback.probe_dtw(position),
        }
    }

    #[inline]
    fn counted(&self, position: &Position) -> Result<RuleScore, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(RuleScore::from_score(settled));
        }
        let normalized = position.normalized();
        match self.set.get(Signature::of(&normalized)).and_then(|h| Some((h, h.rules.as_ref()?))) {
            Some((held, rules)) => Ok(rule_score(rules[held.index.index(&normalized) as usize])),
            None => self.fallback.probe_counted(position, self.set.rules.set),
        }
    }
}

impl RuleInputs for Working<'_> {
    fn stored_results(
        &self,
        signature: Signature,
        first: u64,
        positions: &[Position],
        out: &mut Vec<Option<Wld>>,
    ) -> Result<(), ProbeError> {
        match self.set.get(signature) {
            Some(held) => {
                out.extend((first..first + positions.len() as u64).map(|i| Some(held.distances.get(i).wld())));
                Ok(())
            }
            None => self.fallback.probe_wld_stored_run(signature, first, positions, out),
        }
    }
}

#[inline]
fn rule_score(code: u8) -> RuleScore {
    match code {
        u8::MAX => RuleScore::NONE,
        code => RuleScore::from_raw(code as u16),
    }
}

/// What decoding a pair reads: the set, and the tables of the pair decoded already
/// (a left-out side's quiet moves lead into its flip).
struct Loader<'a> {
    working: Working<'a>,
    loading: &'a [Held],
}

/// A chunk could not be decoded: the files failed, or a distance does not fit a byte.
enum ChunkError {
    Probe(ProbeError),
    TooLong,
}

impl From<ProbeError> for ChunkError {
    fn from(e: ProbeError) -> ChunkError {
        ChunkError::Probe(e)
    }
}

impl From<TableError> for ChunkError {
    fn from(e: TableError) -> ChunkError {
        ChunkError::Probe(e.into())
    }
}

impl Loader<'_> {
    fn held(&self, signature: Signature) -> Option<&Held> {
        self.loading.iter().find(|h| h.index.signature() == signature).or_else(|| self.working.set.get(signature))
    }

    fn dtw(&self, position: &Position) -> Result<Score, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(settled);
        }
        let normalized = position.normalized();
        match self.held(Signature::of(&normalized)) {
            Some(held) => Ok(held.distances.get(held.index.index(&normalized))),
            None => self.working.fallback.probe_dtw(position),
        }
    }

    /// A left-out position's DTW: one ply of search ([`kabe_probe::successors`]).
    fn dtw_by_search(&self, position: &Position, moves: &mut MoveList) -> Result<Score, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(settled);
        }
        position.legal_moves_into(moves);
        if moves.is_empty() {
            return Ok(position.variant().score_at_end());
        }
        best_score(moves.iter().map(|mv| self.dtw(&position.play(mv))))
    }

    /// Every DTW value of `file`'s table, the left-out ones searched.
    fn decode_distances(&self, index: &MaterialIndex, file: &TableFile) -> Result<Distances, ProbeError> {
        let narrow = self.decode(index, file, |s: Score| match s.plies() {
            None => Ok(u8::MAX),
            Some(p) if p < u8::MAX as u16 => Ok(p as u8),
            Some(_) => Err(ChunkError::TooLong),
        });
        match narrow {
            Ok(values) => Ok(Distances::Narrow(values)),
            Err(ChunkError::Probe(e)) => Err(e),
            Err(ChunkError::TooLong) => match self.decode(index, file, |s: Score| Ok(s.raw())) {
                Ok(values) => Ok(Distances::Wide(values)),
                Err(ChunkError::Probe(e)) => Err(e),
                Err(ChunkError::TooLong) => unreachable!("two bytes hold every distance"),
            },
        }
    }

    fn decode<T: Copy + Default + Send + Sync>(
        &self,
        index: &MaterialIndex,
        file: &TableFile,
        encode: impl Fn(Score) -> Result<T, ChunkError> + Sync,
    ) -> Result<Box<[T]>, ChunkError> {
        let header = file.header();
        self.fill(index, file, |position, block, i, moves| {
            let score = match block {
                Some(block) if header.holds(position) => decode_entry(header, block, i).ok_or_else(|| {
                    TableError::Corrupt { path: file.path().to_path_buf(), detail: "undefined DTW value".into() }
                })?,
                _ => self.dtw_by_search(position, moves)?,
            };
            encode(score)
        })
    }

    /// Every rule value of `file`'s table (of count `context`), the left-out ones searched.
    fn decode_rules(&self, index: &MaterialIndex, file: &TableFile, context: Context) -> Result<Box<[u8]>, ProbeError> {
        let header = file.header();
        let rules = &self.working.set.rules;
        let decoded = self.fill(index, file, |position, block, i, moves| {
            if let Some(block) = block.filter(|_| header.holds(position)) {
                return block.get(i).copied().ok_or_else(|| {
                    ChunkError::from(TableError::Corrupt {
                        path: file.path().to_path_buf(),
                        detail: "short rule block".into(),
                    })
                });
            }
            let value = if position.is_drawn_by_material() {
                RuleScore::NONE
            } else {
                position.legal_moves_into(moves);
                rule_score_of_children(self, rules, context, position, moves.iter().map(|mv| (mv, position.play(mv))))?
            };
            Ok(u8::try_from(value.raw()).unwrap_or(u8::MAX))
        });
        decoded.map_err(|e| match e {
            ChunkError::Probe(e) => e,
            ChunkError::TooLong => unreachable!("rule values are bytes"),
        })
    }

    /// The values of every position of `index`, a block at a time in parallel: `value`
    /// gets the position, its decompressed block (`None` in a table found by search) and
    /// its place in the block.
    fn fill<T: Copy + Default + Send + Sync>(
        &self,
        index: &MaterialIndex,
        file: &TableFile,
        value: impl Fn(&Position, Option<&[u8]>, usize, &mut MoveList) -> Result<T, ChunkError> + Sync,
    ) -> Result<Box<[T]>, ChunkError> {
        let header = file.header();
        let per = if header.by_search() { CHUNK } else { header.block_positions as u64 };
        let mut out = vec![T::default(); index.len() as usize].into_boxed_slice();
        let scratch = || (zstd::bulk::Decompressor::new().ok(), MoveList::new());
        out.par_chunks_mut(per as usize).enumerate().try_for_each_init(scratch, |(context, moves), (c, chunk)| {
            let start = c as u64 * per;
            let block = if header.by_search() {
                None
            } else {
                let context = context.as_mut().ok_or_else(|| TableError::Io {
                    path: file.path().to_path_buf(),
                    error: std::io::Error::other("no zstd decompression context"),
                })?;
                Some(file.block_with(c as u32, context)?)
            };
            let positions = index.positions(start..start + chunk.len() as u64);
            for (i, (slot, position)) in chunk.iter_mut().zip(positions).enumerate() {
                *slot = value(&position, block.as_deref(), i, moves)?;
            }
            Ok::<(), ChunkError>(())
        })?;
        Ok(out)
    }
}

impl Oracle for Loader<'_> {
    type Error = ProbeError;

    fn theoretical(&self, position: &Position) -> Result<Score, ProbeError> {
        self.dtw(position)
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, ProbeError> {
        if let Some(settled) = position.settled_score() {
            return Ok(RuleScore::from_score(settled));
        }
        let normalized = position.normalized();
        match self.held(Signature::of(&normalized)).and_then(|h| Some((h, h.rules.as_ref()?))) {
            Some((held, rules)) => Ok(rule_score(rules[held.index.index(&normalized) as usize])),
            None => self.working.fallback.probe_counted(position, self.working.set.rules.set),
        }
    }
}
