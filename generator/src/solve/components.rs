//! A pair's positions split by the placement of the men: inside one placement only quiet
//! king moves keep the material and the men where they are, and men only move forward,
//! so the placements can be solved one after another, the most advanced first, each
//! reading those its man moves lead to. Both the rule solver (which must: a count runs
//! inside one placement) and the sliced theoretical solver (to bound its memory) work
//! this way.

use kabe_probe::internal::MaterialIndex;
use kabe_probe::{Color, PieceKind, Position};

/// One placement of the men, in one or both tables of the pair: 16 bytes, since a pair
/// without kings has a component for every position or two (125 million in 2040+4020;
/// at 40 bytes each, and a stable sort's scratch beside them, 3030's rule pass held
/// 5.2 GB of components for 0.33 GB of values).
#[derive(Clone, Copy)]
pub(crate) struct Component {
    /// The placement's men configuration in the pair's first table (bits 0..48) and its
    /// advancement (bits 48..64).
    first: u64,
    /// The colour flip's part where it is another: its table (bit 63), whether there is
    /// one (bit 62), its men configuration (bits 0..48).
    flip: u64,
}

/// The parts of a component ([`Component::parts`]): (table, men configuration), the
/// placement and its colour flip where that is another configuration.
#[derive(Clone, Copy)]
pub(crate) struct Parts {
    parts: [(usize, u64); 2],
    len: usize,
}

impl std::ops::Deref for Parts {
    type Target = [(usize, u64)];
    fn deref(&self) -> &[(usize, u64)] {
        &self.parts[..self.len]
    }
}

impl IntoIterator for Parts {
    type Item = (usize, u64);
    type IntoIter = std::iter::Take<std::array::IntoIter<(usize, u64), 2>>;
    fn into_iter(self) -> Self::IntoIter {
        self.parts.into_iter().take(self.len)
    }
}

const CONFIGURATION: u64 = (1 << 48) - 1;
const FLIP_TABLE: u64 = 1 << 63;
const HAS_FLIP: u64 = 1 << 62;

impl Component {
    fn new(m: u64, flip: Option<(usize, u64)>, advancement: u32) -> Component {
        assert!(m <= CONFIGURATION && advancement <= u16::MAX as u32, "men configuration {m} out of range");
        let flip = flip.map_or(0, |(t, mm)| HAS_FLIP | (t as u64) << 63 | mm);
        Component { first: m | (advancement as u64) << 48, flip }
    }

    pub(crate) fn parts(&self) -> Parts {
        let mut parts = [(0, self.first & CONFIGURATION), (0, 0)];
        let two = self.flip & HAS_FLIP != 0;
        if two {
            parts[1] = ((self.flip & FLIP_TABLE != 0) as usize, self.flip & CONFIGURATION);
        }
        Parts { parts, len: 1 + two as usize }
    }

    /// How far its men have advanced ([`advancement`]).
    pub(crate) fn advancement(&self) -> u32 {
        (self.first >> 48) as u32
    }
}

/// How far the men of a position have advanced, in rows, both sides together. Every
/// man move adds one; the colour flip keeps it.
fn advancement(position: &Position) -> u32 {
    let variant = position.variant();
    let rows = variant.board.width() as u32;
    let per_row = rows / 2;
    let row = |number: u32| (number - 1) / per_row;
    let white: u32 = position.squares_of(Color::White, PieceKind::Man).map(|s| rows - 1 - row(s.number())).sum();
    let black: u32 = position.squares_of(Color::Black, PieceKind::Man).map(|s| row(s.number())).sum();
    white + black
}

/// The components of a pair's tables (one, or a signature and its flip) in the order
/// they are solved: the most advanced first, each advancement in men configuration
/// order.
pub(crate) fn components(tables: &[MaterialIndex]) -> Vec<Component> {
    let kings = tables[0].king_placements();
    let configurations = tables[0].men_configurations();
    // A table that is its own flip has a component for every configuration or two.
    let mut out = Vec::with_capacity(if tables.len() == 2 { configurations } else { configurations / 2 + 1 } as usize);
    // Without kings a configuration is one position: stepped through, not unranked.
    let mut stepped = (kings == 1).then(|| tables[0].positions(0..tables[0].len()));
    for m in 0..configurations {
        let position = match stepped.as_mut().and_then(Iterator::next) {
            Some(position) => position,
            None => tables[0].position(m * kings),
        };
        // The colours exchanged, read as White to move: the same position from the
        // other side's point of view, which the flip's index takes.
        let flipped = position.flipped().with_turn(Color::White);
        let (t, mirror) = if tables.len() == 2 {
            (1, tables[1].index(&flipped) / kings)
        } else {
            (0, tables[0].index(&flipped) / kings)
        };
        let flip = match (t, mirror) {
            (0, mm) if mm < m => continue, // the same component, met first at `mm`
            (0, mm) if mm == m => None,
            other => Some(other),
        };
        out.push(Component::new(m, flip, advancement(&position)));
    }
    // In place: a stable sort's scratch would take half as much again. The keys are
    // distinct (one configuration, one component), so the order is the stable one.
    use rayon::slice::ParallelSliceMut;
    out.par_sort_unstable_by_key(|c| (u16::MAX as u64 - (c.first >> 48)) << 48 | c.first & CONFIGURATION);
    out
}

/// The advancement ([`advancement`]) of every position of a table without kings, one
/// byte each: there a component is a position and its colour flip, which the rule
/// solver decides one position at a time, so a group of equal advancement is found by
/// scanning these bytes instead of listing components (16 bytes each, and a colour
/// flip ranked for each, on one thread: a third of 3030's rule pass).
pub(crate) fn advancements(table: &MaterialIndex) -> Vec<u8> {
    use rayon::prelude::*;
    const STEP: usize = 1 << 16;
    assert!(scanned_by_advancement(std::slice::from_ref(table)), "{}: not scanned by advancement", table.signature());
    let mut out = vec![0u8; table.len() as usize];
    out.par_chunks_mut(STEP).enumerate().for_each(|(c, bytes)| {
        let start = (c * STEP) as u64;
        let end = start + bytes.len() as u64;
        for (a, position) in bytes.iter_mut().zip(table.positions(start..end)) {
            *a = advancement(&position) as u8; // within a byte: `scanned_by_advancement`
        }
    });
    out
}

/// Whether the rule pass scans a pair's positions by their [`advancements`] rather than
/// list its components: a pair without kings, whose men cannot advance beyond a byte's
/// worth of rows (every board and material a table is built for).
pub(crate) fn scanned_by_advancement(tables: &[MaterialIndex]) -> bool {
    tables.first().is_some_and(|t| {
        let rows = t.variant().board.width() as u32;
        t.king_placements() == 1 && (rows - 1) * t.signature().men() <= u8::MAX as u32
    })
}

/// The advancements met in `advancements` (a table's [`advancements`] each), the
/// largest first: the groups a pair without kings is solved by.
pub(crate) fn levels(advancements: &[Vec<u8>]) -> Vec<u8> {
    use rayon::prelude::*;
    type Seen = [u64; 4];
    let union = |a: Seen, b: Seen| -> Seen { std::array::from_fn(|i| a[i] | b[i]) };
    let mark = |mut seen: Seen, &a: &u8| {
        seen[a as usize / 64] |= 1 << (a % 64);
        seen
    };
    let seen = advancements
        .iter()
        .map(|a| a.par_chunks(1 << 20).map(|c| c.iter().fold([0; 4], mark)).reduce(|| [0; 4], union))
        .fold([0; 4], union);
    (0..=255u8).rev().filter(|&l| seen[l as usize / 64] >> (l % 64) & 1 == 1).collect()
}

/// Bytes the list of a pair's components takes ([`components`]; `tables`: the pair's).
pub(crate) fn component_list_bytes(tables: &[MaterialIndex]) -> u64 {
    tables.first().map_or(0, |t| t.men_configurations() * std::mem::size_of::<Component>() as u64)
}

/// Bytes the rule pass takes to order a pair's positions: a byte a position without
/// kings ([`advancements`]), else the list of components.
pub(crate) fn rule_order_bytes(tables: &[MaterialIndex]) -> u64 {
    if scanned_by_advancement(tables) {
        tables.iter().map(MaterialIndex::len).sum()
    } else {
        component_list_bytes(tables)
    }
}

/// The groups a pair's tables are solved by ([`groups`], [`levels`]).
pub(crate) fn group_count(tables: &[MaterialIndex]) -> usize {
    if scanned_by_advancement(tables) {
        levels(&tables.iter().map(advancements).collect::<Vec<_>>()).len()
    } else {
        groups(&components(tables)).count()
    }
}

/// The components of `components` (as [`components`] orders them) a group of equal
/// advancement at a time: the groups are solved one after another, a group's
/// components in parallel.
pub(crate) fn groups(components: &[Component]) -> impl Iterator<Item = &[Component]> {
    components.chunk_by(|a, b| a.advancement() == b.advancement())
}

/// The positions of a component's nodes `range` (node = part * `kings` + king placement),
/// a part at a time: `placements(part, kings)` gives a part's positions at those king
/// placements, consecutive indexes of one table, stepped from one to the next instead
/// of unranked each.
pub(crate) fn part_positions<'a, I: Iterator<Item = Position> + 'a>(
    kings: u64,
    range: std::ops::Range<u64>,
    placements: impl Fn(usize, std::ops::Range<u64>) -> I + 'a,
) -> impl Iterator<Item = Position> + 'a {
    let touched = if range.is_empty() { 0..0 } else { range.start / kings..(range.end - 1) / kings + 1 };
    touched.flat_map(move |part| {
        let first = range.start.max(part * kings) - part * kings;
        let end = range.end.min((part + 1) * kings) - part * kings;
        placements(part as usize, first..end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabe_probe::{Signature, Variant};

    fn index(variant: Variant, sig: [u8; 4]) -> MaterialIndex {
        MaterialIndex::new(variant, Signature::new(sig[0], sig[1], sig[2], sig[3])).expect("a table")
    }

    /// A pair without kings is scanned by its advancement bytes; one with kings lists
    /// its components. (More advancement than a byte holds would take 29 men on the
    /// international board, whose table has no 64-bit index.)
    #[test]
    fn pairs_without_kings_are_scanned_by_advancement_within_a_byte() {
        let v = Variant::INTERNATIONAL;
        assert!(scanned_by_advancement(&[index(v, [3, 0, 3, 0])]));
        assert!(scanned_by_advancement(&[index(v, [2, 0, 1, 0]), index(v, [1, 0, 2, 0])]));
        assert!(!scanned_by_advancement(&[index(v, [1, 1, 1, 1])]));
    }

    /// The advancement groups of a pair without kings are those of its components, and
    /// the components come most advanced first, each group in men configuration order.
    #[test]
    fn advancement_levels_are_the_component_groups() {
        let v = Variant::RUSSIAN;
        for pair in [vec![index(v, [2, 0, 2, 0])], vec![index(v, [3, 0, 1, 0]), index(v, [1, 0, 3, 0])]] {
            let listed = components(&pair);
            let levels = levels(&pair.iter().map(advancements).collect::<Vec<_>>());
            let groups: Vec<u8> = groups(&listed).map(|g| g[0].advancement() as u8).collect();
            assert_eq!(levels, groups);
            assert!(listed.windows(2).all(|w| {
                let (a, b) = (w[0].advancement(), w[1].advancement());
                a > b || a == b && w[0].parts()[0].1 < w[1].parts()[0].1
            }));
            let parts: u64 = listed.iter().map(|c| c.parts().len() as u64).sum();
            assert_eq!(parts, pair.iter().map(MaterialIndex::len).sum::<u64>(), "every position in one component");
        }
    }
}
