//! The tables the verifier reads and what it holds of them: the files of the set
//! ([`tables_in`], the [`Tables`] struct), and the bookkeeping of the values held in
//! memory beside them (resident or lazily: what is held, what it takes, what is let go).
//!
//! The bottom of the verifier's rooms: it reads no value itself. Placing a position in
//! these tables (`successors`), reading a value through a file's blocks (`reader`,
//! `rule_values`) and filling the values held (`resident`) are built on it, so that
//! every other room can name the tables without reaching back up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU8};

use kabe_probe::internal::table::TableDir;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, Signature, Variant};

use crate::memory::{Allowance, LazyBlocks};
use crate::verify::sig_map::SigMap;

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
/// pair's successors are all left out and each costs a search of its own. A pair with
/// men too large for that is held a slice of its men's placements at a time ([`Held`]).
#[derive(Default)]
pub(super) struct Tables {
    pub(super) index: SigMap<MaterialIndex>,
    pub(super) dtw: BTreeMap<Signature, TableFile>,
    pub(super) wld: BTreeMap<Signature, TableFile>,
    pub(super) rules: BTreeMap<DrawRuleSet, BTreeMap<Signature, TableFile>>,
    /// DTW values ([`Score::raw`](kabe_probe::Score::raw)) of every position of the resident signatures: the
    /// pair being checked, and the pairs checked before it that are kept (pairs are
    /// checked in build order, so their values serve the later pairs' successors as
    /// one memory read each, the files' blocks and searches not read again).
    pub(super) resident_dtw: SigMap<Held<u16>>,
    /// Rule values (the file's one-byte code) of every position of the resident
    /// signatures, for the set named.
    pub(super) resident_rules: Option<(DrawRuleSet, SigMap<Held<u8>>)>,
    /// The rule values of the pairs checked before, by rule set, while the set's pass
    /// is not running.
    pub(super) kept_rules: BTreeMap<DrawRuleSet, SigMap<Held<u8>>>,
    /// DTW values of the pairs read but not checked in this run (the inputs of a pair
    /// checked alone, or of one after pairs the ledger spares): a position's value is
    /// found the first time a successor asks for it, from its file or from its own
    /// successors where the file leaves it out, and kept ([`NOT_YET_DTW`] until then). A
    /// pair reads only part of its inputs: deriving every left-out position of each, as
    /// for a pair checked, cost a pair checked alone most of its time. The values are
    /// kept in blocks made as they are first asked for, within `lazy_room`; where it has
    /// no room, a value is found each time it is asked for.
    pub(super) lazy_dtw: SigMap<LazyBlocks<AtomicU16>>,
    /// Rule values of those pairs, by rule set, found the same way ([`NOT_YET_RULE`]).
    pub(super) lazy_rules: BTreeMap<DrawRuleSet, SigMap<LazyBlocks<AtomicU8>>>,
    /// The bytes the blocks of lazily held values may take ([`hold_inputs`](super::resident::hold_inputs)), and take.
    pub(super) lazy_room: Allowance,
}

/// The values held resident of one signature: every position's, or those of some
/// placements of its men (a slice of a pair too large to hold whole, [`Placements`]).
pub(super) struct Held<T> {
    values: Vec<T>,
    /// Where only some placements are held: the positions of one placement (its kings'
    /// placements), and each placement's slot among those held ([`NOT_HELD`] if none).
    slots: Option<(u64, Vec<u32>)>,
}

/// A placement of the men not held in a [`Held`] slice.
const NOT_HELD: u32 = u32::MAX;

impl<T> Held<T> {
    /// Every position's values, in index order.
    pub(super) fn whole(values: Vec<T>) -> Held<T> {
        Held { values, slots: None }
    }

    /// `values` of every position, or of the placements `held` in their order.
    pub(super) fn new(values: Vec<T>, held: Option<&Placements>) -> Held<T> {
        match held {
            None => Held::whole(values),
            Some(held) => Held::of_slice(values, held),
        }
    }

    /// The values of the placements `slice` holds of its signature, in its order.
    fn of_slice(values: Vec<T>, slice: &Placements) -> Held<T> {
        let mut slots = vec![NOT_HELD; slice.of_table as usize];
        for (slot, &m) in slice.held.iter().enumerate() {
            slots[m as usize] = slot as u32;
        }
        Held { values, slots: Some((slice.per, slots)) }
    }

    /// The value of position `at`: `None` past the table's end or outside the slice.
    #[inline]
    pub(super) fn get(&self, at: u64) -> Option<&T> {
        match &self.slots {
            None => self.values.get(at as usize),
            Some((per, slots)) => {
                let slot = *slots.get((at / per) as usize)?;
                if slot == NOT_HELD {
                    return None;
                }
                self.values.get((slot as u64 * per + at % per) as usize)
            }
        }
    }

    /// Every position's values, where all are held.
    pub(super) fn all(&self) -> Option<&[T]> {
        self.slots.is_none().then_some(self.values.as_slice())
    }

    /// Values held.
    pub(super) fn len(&self) -> usize {
        self.values.len()
    }
}

/// Some placements of the men of one signature (men configurations of its
/// [`MaterialIndex`]), each `per` positions long (one per placement of the kings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Placements {
    pub(super) per: u64,
    /// Placements of the signature in all.
    pub(super) of_table: u64,
    /// Those held, in the order their values are laid out.
    pub(super) held: Vec<u64>,
}

impl Placements {
    /// Positions held.
    pub(super) fn positions(&self) -> u64 {
        self.held.len() as u64 * self.per
    }

    /// The index ranges of the positions from `from` to `to` in the layout (each within
    /// one placement), with where each starts in the layout.
    pub(super) fn ranges(&self, from: u64, to: u64) -> impl Iterator<Item = (u64, std::ops::Range<u64>)> + '_ {
        let per = self.per;
        let mut at = from;
        std::iter::from_fn(move || {
            if at >= to {
                return None;
            }
            let (slot, offset) = (at / per, at % per);
            let end = to.min((slot + 1) * per);
            let first = self.held[slot as usize] * per + offset;
            let start = at;
            at = end;
            Some((start, first..first + (end - start)))
        })
    }
}

/// Positions in a block of lazily held values: 32 KiB of DTW values.
const LAZY_BLOCK: u64 = 1 << 14;

/// A lazily held DTW value not found yet: a DTW of 65,534 plies, which no table comes
/// near.
pub(super) const NOT_YET_DTW: u16 = u16::MAX - 1;
/// A lazily held rule value not found yet: no rule code
/// ([`rule_code`](kabe_probe::internal::table::rule_code): `2 * plies + win` within a count of at
/// most 64 plies, or 255).
pub(super) const NOT_YET_RULE: u8 = u8::MAX - 1;

impl Tables {
    /// Bytes of resident values, the pair being checked's and those kept.
    pub(super) fn resident_bytes(&self) -> u64 {
        self.held_bytes() + self.lazy_room.spent()
    }

    /// Bytes of resident values but those held lazily.
    pub(super) fn held_bytes(&self) -> u64 {
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
    pub(super) fn forget_lazy_where(&mut self, drop: impl Fn(&Signature) -> bool) {
        self.lazy_dtw.retain(|s| !drop(s));
        for values in self.lazy_rules.values_mut() {
            values.retain(|s| !drop(s));
        }
        let rules = self.lazy_rules.values().flat_map(|r| r.values()).map(LazyBlocks::made_bytes);
        *self.lazy_room.spent_mut() =
            self.lazy_dtw.values().map(LazyBlocks::made_bytes).sum::<u64>() + rules.sum::<u64>();
    }

    /// Whether `sig`'s DTW values are held, resident or lazily.
    pub(super) fn holds_dtw(&self, sig: &Signature) -> bool {
        self.resident_dtw.contains_key(sig) || self.lazy_dtw.contains_key(sig)
    }

    /// Bytes `members` take once held resident ([`RESIDENT_BYTES_PER_POSITION`]).
    pub(super) fn resident_need(&self, members: &[Signature]) -> u64 {
        members.iter().filter_map(|s| self.index.get(s)).map(MaterialIndex::len).sum::<u64>()
            * RESIDENT_BYTES_PER_POSITION
    }

    /// Whether a file of `sig` leaves every position out (its DTW table, or a rule table
    /// of any set): its values are found through its colour flip
    /// ([`tables_read`](crate::finished::working::tables_read)). A table without a DTW
    /// file counts as one: its flip may be read.
    pub(super) fn searched_whole(&self, sig: Signature) -> bool {
        let searched = |files: &BTreeMap<Signature, TableFile>| files.get(&sig).is_some_and(|f| f.header().by_search());
        !self.dtw.contains_key(&sig) || searched(&self.dtw) || self.rules.values().any(searched)
    }

    /// Lets go of the values kept of every signature but those of `keep`.
    pub(super) fn keep_only(&mut self, keep: &BTreeSet<Signature>) {
        self.resident_dtw.retain(|s| keep.contains(s));
        for values in self.kept_rules.values_mut() {
            values.retain(|s| keep.contains(s));
        }
        self.forget_lazy_where(|s| !keep.contains(s));
    }

    /// Lets go of the values kept from the pairs checked before.
    pub(super) fn forget_kept(&mut self) {
        self.resident_dtw.clear();
        self.kept_rules.clear();
        self.forget_all_lazy();
    }

    /// Holds the values of `pair` (not checked in this run) lazily: each position's found
    /// the first time it is asked for ([`Tables::lazy_dtw`]).
    pub(super) fn hold_lazily(&mut self, variant: Variant, pair: &[Signature]) {
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
    pub(super) fn forget_lazy(&mut self, pair: &[Signature]) {
        self.forget_lazy_where(|s| pair.contains(s));
    }
}

/// Bytes a resident pair takes a position: DTW (two) and one rule set (one).
pub(super) const RESIDENT_BYTES_PER_POSITION: u64 = 3;
