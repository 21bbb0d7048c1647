//! Solved tables held in memory, looked up by position.

use std::collections::HashMap;
use std::sync::Arc;

use kabe_probe::internal::MaterialIndex;
use kabe_probe::{Position, Score, Signature, Variant};

/// A table the values need is not there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no table for {0}")]
pub struct MissingTable(pub Signature);

/// The scores of every position (White to move) of one signature.
#[derive(Debug)]
pub struct SolvedTable {
    /// The index of the signature.
    pub index: MaterialIndex,
    /// One score per index.
    pub scores: Vec<Score>,
    /// Which positions have a capture to make, where the solver noted them as it valued
    /// their moves (`None`: a writer finds them again from the positions).
    pub captures: Option<CaptureFlags>,
}

/// One bit per position of a table, set where the side to move has a capture to make:
/// the positions the compact files leave out. The whole-pair solver finds them as it
/// lists every position's moves, so that the writer does not test every position again
/// (8% of an international 2-5 build, perf).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureFlags {
    words: Vec<u64>,
    len: u64,
}

impl CaptureFlags {
    /// Flags of `len` positions, position `i` in bit `i % 64` of word `i / 64`.
    pub(crate) fn from_words(words: Vec<u64>, len: u64) -> CaptureFlags {
        debug_assert_eq!(words.len() as u64, len.div_ceil(64));
        CaptureFlags { words, len }
    }

    /// Flags found by testing every position of `index`.
    pub fn of_positions(index: &MaterialIndex) -> CaptureFlags {
        let mut words = vec![0u64; index.len().div_ceil(64) as usize];
        for (i, position) in index.positions(0..index.len()).enumerate() {
            words[i / 64] |= (position.has_capture() as u64) << (i % 64);
        }
        CaptureFlags { words, len: index.len() }
    }

    /// The flags eight a byte, position `i` in bit `i % 8` of byte `i / 8`.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut bytes: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.truncate(self.len.div_ceil(8) as usize);
        bytes
    }

    /// Positions flagged.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether position `i` has a capture to make.
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.len);
        self.words[(i / 64) as usize] >> (i % 64) & 1 != 0
    }

    /// The flags from position `at` on, taken off these (which keep the first `at`).
    pub(crate) fn split_off(&mut self, at: u64) -> CaptureFlags {
        assert!(at <= self.len);
        let (first, shift) = ((at / 64) as usize, at % 64);
        let rest_len = self.len - at;
        let words = (0..rest_len.div_ceil(64) as usize)
            .map(|k| {
                let low = self.words[first + k] >> shift;
                let high = match (shift, self.words.get(first + k + 1)) {
                    (0, _) | (_, None) => 0,
                    (_, Some(next)) => next << (64 - shift),
                };
                low | high
            })
            .collect::<Vec<u64>>();
        let mut rest = CaptureFlags { words, len: rest_len };
        rest.clear_past_end();
        self.words.truncate(at.div_ceil(64) as usize);
        self.words.shrink_to_fit();
        self.len = at;
        self.clear_past_end();
        rest
    }

    /// Clears the bits of the last word past the last position, so that equal flags are
    /// equal words.
    fn clear_past_end(&mut self) {
        if let (Some(last), tail @ 1..) = (self.words.last_mut(), self.len % 64) {
            *last &= (1u64 << tail) - 1;
        }
    }
}

/// Every table solved so far for one variant.
#[derive(Debug, Clone)]
pub struct Registry {
    variant: Variant,
    tables: HashMap<Signature, Arc<SolvedTable>>,
}

impl Registry {
    /// No tables yet.
    pub fn new(variant: Variant) -> Registry {
        Registry { variant, tables: HashMap::new() }
    }

    /// The variant of the tables.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Adds a solved table.
    pub fn insert(&mut self, table: SolvedTable) {
        self.tables.insert(table.index.signature(), Arc::new(table));
    }

    /// The table of `signature`, if solved.
    pub fn table(&self, signature: Signature) -> Option<&Arc<SolvedTable>> {
        self.tables.get(&signature)
    }

    /// Signatures solved, in no particular order.
    pub fn signatures(&self) -> impl Iterator<Item = Signature> + '_ {
        self.tables.keys().copied()
    }

    /// The score of any position whose material is solved (or whose material decides it:
    /// [`Position::settled_score`]). `None` when its table is missing.
    pub fn score(&self, position: &Position) -> Option<Score> {
        if let Some(settled) = position.settled_score() {
            return Some(settled);
        }
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        let table = self.tables.get(&sig)?;
        Some(table.scores[table.index.index(&normalized) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags split at any point read back as the positions' own, on both sides, the
    /// bits past either end clear.
    #[test]
    fn capture_flags_split_anywhere_keep_every_position_s_flag() {
        let len = 300u64;
        let flag = |i: u64| (i * 7 + i / 5).is_multiple_of(3);
        let words = (0..len.div_ceil(64))
            .map(|w| (0..64).filter(|b| w * 64 + b < len && flag(w * 64 + b)).fold(0u64, |m, b| m | 1 << b))
            .collect();
        let whole = CaptureFlags::from_words(words, len);
        for at in [0, 1, 63, 64, 65, 127, 128, 200, 299, 300] {
            let mut first = whole.clone();
            let rest = first.split_off(at);
            assert_eq!((first.len(), rest.len()), (at, len - at));
            assert!((0..at).all(|i| first.get(i) == flag(i)), "first part, split at {at}");
            assert!((0..len - at).all(|i| rest.get(i) == flag(at + i)), "rest, split at {at}");
            for part in [&first, &rest] {
                let tail = part.len % 64;
                if tail != 0 {
                    assert_eq!(part.words.last().copied().unwrap_or(0) >> tail, 0, "bits past the end, split at {at}");
                }
            }
        }
    }

    /// The solver notes exactly the positions that have a capture to make, in every table
    /// of both sides, on both boards, and the files written from its flags are those
    /// written by testing every position.
    #[test]
    fn the_solver_flags_exactly_the_positions_with_a_capture() {
        for (variant, pieces) in [(Variant::INTERNATIONAL, 3), (Variant::RUSSIAN, 4)] {
            let (mut flagged, mut positions) = (0, 0);
            crate::solve_all(variant, pieces, |table| {
                let expected = CaptureFlags::of_positions(&table.index);
                assert_eq!(table.captures.as_ref(), Some(&expected), "{} {}", variant.name, table.index.signature());
                let unflagged =
                    SolvedTable { index: table.index.clone(), scores: table.scores.clone(), captures: None };
                for metric in [kabe_probe::table::Metric::Wld, kabe_probe::table::Metric::Dtw] {
                    let bytes =
                        |t: &SolvedTable| crate::build::write::table_bytes(variant.name, t, metric).expect("bytes");
                    assert!(
                        bytes(table) == bytes(&unflagged),
                        "{} {} {metric:?}",
                        variant.name,
                        table.index.signature()
                    );
                }
                flagged += (0..expected.len()).filter(|&i| expected.get(i)).count();
                positions += table.index.len();
            });
            // Not a vacuous match: captures are a good part of these positions.
            assert!(flagged as u64 * 10 > positions, "{}: {flagged} of {positions} flagged", variant.name);
        }
    }
}
