//! A pair too large to hold resident, checked a slice at a time: a slice is some
//! placements of the men of the pair's first member and their colour flips in the other
//! (each placement with every placement of the kings), held resident as a whole pair
//! is, its positions checked, then let go. A quiet king move keeps the placement of the
//! men, so most successors of a slice's positions are in the slice; a man's move, a
//! capture or a promotion leads out of it, to values read through the files (and held
//! lazily where room is left). Which placements are held changes the speed, never a
//! value.

use std::collections::HashSet;

use kabe_probe::internal::MaterialIndex;
use kabe_probe::{Color, Signature};

use crate::verify::tables::{Placements, Tables, RESIDENT_BYTES_PER_POSITION};

/// One slice of a pair: for each member, the placements held and those checked.
pub(super) struct PairSlice {
    members: Vec<(Signature, Placements, Placements)>,
}

impl PairSlice {
    /// The placements of `sig` held in this slice.
    pub(super) fn held(&self, sig: Signature) -> &Placements {
        &self.members.iter().find(|(s, _, _)| *s == sig).expect("a member of the pair").1
    }

    /// The placements of `sig` checked in this slice (each placement of the pair is
    /// checked in one slice).
    pub(super) fn checked(&self, sig: Signature) -> &Placements {
        &self.members.iter().find(|(s, _, _)| *s == sig).expect("a member of the pair").2
    }

    /// Positions held, both members.
    pub(super) fn positions(&self) -> u64 {
        self.members.iter().map(|(_, held, _)| held.positions()).sum()
    }
}

/// The bytes a slice of a pair too large to hold may take of the verifier's
/// `resident_bytes`: the rest holds lazily the values its moves lead to out of the slice.
pub(super) fn slice_bytes(resident_bytes: usize) -> u64 {
    resident_bytes as u64 / 4 * 3
}

/// Whether a pair whose first member's index is `index` can be checked in slices
/// within `resident_bytes` ([`pair_slices`]): it has two placements of the men or more,
/// and a placement and its flip fit a slice.
pub(super) fn sliceable(index: &MaterialIndex, resident_bytes: usize) -> bool {
    index.men_configurations() >= 2
        && 2 * index.king_placements() * RESIDENT_BYTES_PER_POSITION <= slice_bytes(resident_bytes)
}

/// The slices `pair` is checked in within `resident_bytes` ([`slice_bytes`], three bytes
/// a position held), in order of the first member's placements; `None` where slices
/// cannot help ([`sliceable`]).
pub(super) fn pair_slices(tables: &Tables, pair: &[Signature], resident_bytes: usize) -> Option<Vec<PairSlice>> {
    let first = *pair.first()?;
    let other = *pair.get(1).unwrap_or(&first);
    let (index, other_index) = (tables.index.get(&first)?, tables.index.get(&other)?);
    let per = index.king_placements();
    let placements = index.men_configurations();
    if !sliceable(index, resident_bytes) || other_index.king_placements() != per {
        return None;
    }
    let limit = slice_bytes(resident_bytes) / (RESIDENT_BYTES_PER_POSITION * per);
    let mut slices = Vec::new();
    let (mut checked, mut flips) = (Vec::new(), Vec::new());
    // A table that is its own flip holds a placement once, checked or as another's flip.
    let mut held_once = HashSet::new();
    for m in 0..placements {
        let flip = flip_of(index, other_index, per, m);
        let grown = match first == other {
            true => {
                held_once.len()
                    + usize::from(!held_once.contains(&m))
                    + usize::from(flip != m && !held_once.contains(&flip))
            }
            false => 2 * (checked.len() + 1),
        };
        if grown as u64 > limit {
            slices.push(slice(first, other, per, placements, std::mem::take(&mut checked), std::mem::take(&mut flips)));
            held_once.clear();
        }
        if first == other {
            held_once.extend([m, flip]);
        }
        checked.push(m);
        flips.push(flip);
    }
    slices.push(slice(first, other, per, placements, checked, flips));
    Some(slices)
}

/// Placement `m` of `index` seen from the other side: the placement of its colour flip
/// in `other` (the flip's table).
fn flip_of(index: &MaterialIndex, other: &MaterialIndex, per: u64, m: u64) -> u64 {
    let flipped = index.position(m * per).flipped().with_turn(Color::White);
    other.index(&flipped) / per
}

/// The placements a table that is its own flip holds for the placements it checks:
/// both, once each, sorted.
fn held_of_one(checked: &[u64], flips: &[u64]) -> Vec<u64> {
    let mut held: Vec<u64> = checked.iter().chain(flips).copied().collect();
    held.sort_unstable();
    held.dedup();
    held
}

fn slice(first: Signature, other: Signature, per: u64, of_table: u64, checked: Vec<u64>, flips: Vec<u64>) -> PairSlice {
    let placements = |held: Vec<u64>| Placements { per, of_table, held };
    let members = if first == other {
        vec![(first, placements(held_of_one(&checked, &flips)), placements(checked))]
    } else {
        vec![
            (first, placements(checked.clone()), placements(checked)),
            (other, placements(flips.clone()), placements(flips)),
        ]
    };
    PairSlice { members }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;
    use crate::verify::report::VerifyReport;
    use kabe_probe::Variant;

    /// Each placement of a pair's men is checked in one slice, held there with its colour
    /// flip (where a king's move from it leads), and no slice holds more than its room:
    /// a pair of two tables, and a table that is its own flip.
    #[test]
    fn every_placement_is_checked_once_and_held_with_its_flip_within_the_room() {
        let variant = Variant::INTERNATIONAL;
        let dir = tempfile::tempdir().expect("a folder");
        build(variant, 3, dir.path(), &|_| {}).expect("build");
        let mut report = VerifyReport::default();
        let tables = crate::verify::open_set(dir.path(), variant, None, &mut report).expect("open");
        for pair in [vec![Signature::new(1, 1, 0, 1), Signature::new(0, 1, 1, 1)], vec![Signature::new(1, 0, 1, 0)]] {
            let resident_bytes = (tables.resident_need(&pair) / 3) as usize;
            let room = slice_bytes(resident_bytes);
            let slices = pair_slices(&tables, &pair, resident_bytes).expect("slices");
            assert!(slices.len() >= 3, "{pair:?}: {} slices", slices.len());
            let (first, other) = (pair[0], *pair.last().expect("a member"));
            let (index, other_index) = (&tables.index[&first], &tables.index[&other]);
            let per = index.king_placements();
            for &sig in &pair {
                let mut checked: Vec<u64> = slices.iter().flat_map(|s| s.checked(sig).held.clone()).collect();
                checked.sort_unstable();
                let all: Vec<u64> = (0..tables.index[&sig].men_configurations()).collect();
                assert_eq!(checked, all, "{sig}: each placement checked once");
            }
            for slice in &slices {
                assert!(slice.positions() * RESIDENT_BYTES_PER_POSITION <= room, "{pair:?}");
                for &m in &slice.checked(first).held {
                    assert!(slice.held(first).held.contains(&m), "{first}: {m} checked, not held");
                    let flip = flip_of(index, other_index, per, m);
                    assert!(slice.held(other).held.contains(&flip), "{other}: the flip of {m} not held");
                }
            }
        }
    }
}
