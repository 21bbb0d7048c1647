//! Reading a DTW value through the files: the block [`Reader`] each worker has (over the
//! block cache every worker shares), [`Gap`] (why a value could not be found), and the
//! DTW value of any position (held, stored, or derived from its successors where its
//! file leaves it out: [`Tables::score_placed`], [`derive()`], [`Successors::best_score`]).
//!
//! These call one another (a left-out position's value is searched through its
//! successors' values, some of them left out too), so they share one room; it sits on
//! `successors` (placing) and `tables`. Rule values are read on top of it, in
//! `rule_values`.

use std::sync::atomic::{AtomicU16, Ordering};

use kabe_probe::internal::successors;
use kabe_probe::internal::table::{decode_entry, BlockKey, BlockReader};
use kabe_probe::table::{Metric, TableError, TableFile};
use kabe_probe::{Position, Score, Signature};

use crate::verify::successors::{CaptureTest, Placed, Successors};
use crate::verify::tables::{Tables, NOT_YET_DTW};

/// The number a table goes by in the block reader: its signature and metric in one
/// word (the high half of a block's [`kabe_probe::internal::table::BlockKey`]).
fn table_number(sig: Signature, metric: Metric) -> u32 {
    let sig = (sig.white_men as u32 & 63) << 18
        | (sig.white_kings as u32 & 63) << 12
        | (sig.black_men as u32 & 63) << 6
        | sig.black_kings as u32 & 63;
    let metric = match metric {
        Metric::Dtw => 0,
        Metric::Wld => 1,
        Metric::Rules(set) => 2 + set.table_code() as u32,
    };
    sig << 8 | metric
}

/// One worker's way to the tables: the block reader every worker shares (its cache as
/// large as the verifier's memory allows: the children of a position lie all over the
/// other table of its pair), and spare successor lists.
pub(super) struct Reader<'a> {
    blocks: &'a BlockReader,
    /// The blocks read last, a few tables' (a position's DTW and rule values are read
    /// together), kept: a fill reads a stored table's entries in a row, and a lookup in
    /// the shared cache for each was a tenth of a one-king pair's check.
    /// A slot not filled yet holds no block under a key no block has.
    last: [(BlockKey, std::sync::Arc<[u8]>); LAST_BLOCKS],
    /// The slot of `last` to fill next.
    next_slot: usize,
    /// Successor lists of the searches below a left-out position, kept to spare their
    /// allocations (one per level of the search).
    spare: Vec<Successors>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(blocks: &'a BlockReader) -> Reader<'a> {
        let empty = (BlockKey::MAX, std::sync::Arc::from(&[][..]));
        Reader { blocks, last: std::array::from_fn(|_| empty.clone()), next_slot: 0, spare: Vec::new() }
    }

    /// The entry at `at` of `file`, read by `decode`; `Ok(None)` past the table's end.
    pub(super) fn entry<R>(
        &mut self,
        sig: Signature,
        file: &TableFile,
        at: u64,
        decode: impl Fn(&[u8], usize) -> Option<R>,
    ) -> Result<Option<R>, TableError> {
        let header = file.header();
        if at >= header.positions {
            return Ok(None);
        }
        let table = table_number(sig, header.metric);
        let (key, _, place) = BlockReader::key(table, header, at);
        let slot = match self.last.iter().position(|(last, _)| *last == key) {
            Some(slot) => slot,
            None => {
                let slot = self.next_slot;
                self.next_slot = (slot + 1) % LAST_BLOCKS;
                let (_, bytes, _) = self.blocks.block_at(table, file, at)?;
                self.last[slot] = (key, bytes);
                slot
            }
        };
        let bytes = &self.last[slot].1;
        decode(bytes, place).ok_or_else(|| TableError::undefined_value(file.path(), at)).map(Some)
    }

    pub(super) fn value(&mut self, sig: Signature, file: &TableFile, at: u64) -> Result<Option<Score>, TableError> {
        let header = file.header();
        self.entry(sig, file, at, |bytes, i| decode_entry(header, bytes, i))
    }
}

/// Blocks a [`Reader`] keeps at hand.
const LAST_BLOCKS: usize = 4;

/// Why a value could not be found while verifying.
pub(super) enum Gap {
    /// A successor's table is missing (or bad, and named as such already).
    Missing,
    /// A block could not be read.
    Bad(TableError),
}

impl Gap {
    pub(super) fn of<T>(found: Result<Option<T>, TableError>) -> Result<T, Gap> {
        found.map_err(Gap::Bad)?.ok_or(Gap::Missing)
    }

    pub(super) fn back<T>(found: Result<T, Gap>) -> Result<Option<T>, TableError> {
        match found {
            Ok(v) => Ok(Some(v)),
            Err(Gap::Missing) => Ok(None),
            Err(Gap::Bad(e)) => Err(e),
        }
    }
}

impl Tables {
    /// The DTW value of any position whose table is here (or whose material decides it:
    /// [`Position::settled_score`]): stored, or where the file leaves the position out,
    /// found from its successors; `Ok(None)` when a table is missing.
    pub(super) fn score(&self, position: &Position, cache: &mut Reader) -> Result<Option<Score>, TableError> {
        self.score_placed(position, self.place(position), cache)
    }

    /// As [`Tables::score`], `placed` being where [`Tables::place`] puts `position`.
    pub(super) fn score_placed(
        &self,
        position: &Position,
        placed: Option<Placed>,
        cache: &mut Reader,
    ) -> Result<Option<Score>, TableError> {
        let Some(Placed { sig, at }) = placed else {
            return Ok(position.settled_score());
        };
        // Resident, unless outside the slice of a pair held in slices.
        if let Some(&raw) = self.resident_dtw.get(&sig).and_then(|v| v.get(at)) {
            return Ok(Some(Score::from_raw(raw)));
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

impl Successors {
    /// The DTW value of a position not settled by its material, from its successors as
    /// [`Successors::gather`] found them; `Ok(None)` when a successor's table is missing.
    pub(super) fn best_score(
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
            .map(|&at| resident.and_then(|v| v.get(at)).map(|&raw| Score::from_raw(raw)).ok_or(Gap::Missing));
        Gap::back(successors::best_score(
            self.children
                .iter()
                .zip(self.placed.iter())
                .map(|(child, placed)| Gap::of(tables.score_placed(child, *placed, cache)))
                .chain(king_steps),
        ))
    }
}
