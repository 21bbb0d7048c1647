//! The classes of positions of kings only that the check derives once ([`KingClasses`]):
//! such a position has the value of its images under the half turn and the two
//! reflections in the long diagonals (on a square diagonal board each keeps the dark
//! squares dark and takes a diagonal to a diagonal, so every king move and capture to a
//! king move and capture; men move forwards and break all three).
//!
//! So the check derives from its successors the values of one member of each class, the
//! first in an order of its own (by the kings' squares, no ranking), and compares every
//! other member's stored values with what it derived. That is the same proof as
//! deriving each: if every stored value of a class equals the value its canonical
//! member derives, each member's stored value agrees with its own successors, which are
//! the images of the canonical member's.
//!
//! The maps are the verifier's own, made here from each square's row and column; the
//! solver's symmetry pass is not used, so a wrong map on either side shows as a
//! disagreement. Bad maps here could only make sound tables look unsound: a class whose
//! members truly differ in value would disagree.

use kabe_probe::internal::MaterialIndex;
use kabe_probe::{BoardSize, Position, Signature, SquareSets, Variant};

/// The three maps other than the identity, as square index to square index.
#[derive(Clone, Debug)]
pub(super) struct KingClasses {
    maps: [[u8; 64]; 3],
}

/// The indices of a canonical position's other class members, each once (a position
/// symmetric under a map is its own image there).
pub(super) struct Members {
    at: [u64; 3],
    len: usize,
}

impl Members {
    /// No other member: what a table without symmetry checks with each position.
    pub(super) const NONE: Members = Members { at: [0; 3], len: 0 };

    /// The other members' indices.
    pub(super) fn indices(&self) -> &[u64] {
        &self.at[..self.len]
    }
}

impl KingClasses {
    /// The classes of `signature`'s positions in `variant`: a signature of kings only on
    /// a square diagonal board (8x8 or 10x10); `None` for any other.
    pub(super) fn of(variant: &Variant, signature: Signature) -> Option<KingClasses> {
        let kings_only = signature.white_men == 0 && signature.black_men == 0;
        let width = match variant.board {
            BoardSize::Eight => 8u8,
            BoardSize::Ten => 10,
            _ => return None,
        };
        kings_only.then(|| KingClasses::of_width(width))
    }

    /// The maps of a `width`-wide board whose top left corner is light: the squares,
    /// counted from 0 in reading order, fill each row's dark squares left to right.
    fn of_width(width: u8) -> KingClasses {
        let per_row = width / 2;
        let coordinates = |square: u8| {
            let row = square / per_row;
            let column = 2 * (square % per_row) + (1 - row % 2);
            (row, column)
        };
        let square_at = |row: u8, column: u8| row * per_row + column / 2;
        let far = width - 1;
        let mut maps = [[0u8; 64]; 3];
        for square in 0..width * per_row {
            let (row, column) = coordinates(square);
            maps[0][usize::from(square)] = square_at(far - row, far - column);
            maps[1][usize::from(square)] = square_at(column, row);
            maps[2][usize::from(square)] = square_at(far - column, far - row);
        }
        KingClasses { maps }
    }

    fn image_of(&self, map: usize, squares: u64) -> u64 {
        let mut image = 0;
        let mut rest = squares;
        while rest != 0 {
            image |= 1 << self.maps[map][rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        image
    }

    /// The image of a position of kings only (its square sets `sets`) under map `map`.
    fn image_sets(&self, map: usize, sets: &SquareSets) -> SquareSets {
        SquareSets {
            white_men: 0,
            white_kings: self.image_of(map, sets.white_kings),
            black_men: 0,
            black_kings: self.image_of(map, sets.black_kings),
        }
    }

    /// The images of `position` (kings only) under the three maps.
    #[cfg(test)]
    fn images(&self, position: &Position) -> [SquareSets; 3] {
        let sets = position.square_sets();
        std::array::from_fn(|map| self.image_sets(map, &sets))
    }

    /// Where a position of kings only (its square sets) stands in the order that picks
    /// each class's canonical member: by its white kings' squares as a number, then its
    /// black kings'. Any total order of positions would do; this one needs no ranking,
    /// so that the three positions in four that are not canonical cost two lookups a king.
    fn order_key(sets: &SquareSets) -> (u64, u64) {
        (sets.white_kings, sets.black_kings)
    }

    /// Whether `position` is its class's canonical member: no image comes before it.
    pub(super) fn is_canonical(&self, position: &Position) -> bool {
        let sets = position.square_sets();
        let own = Self::order_key(&sets);
        (0..3).all(|map| Self::order_key(&self.image_sets(map, &sets)) >= own)
    }

    /// The other members of the class of `position` (index `at` of `index`) when it is
    /// the class's canonical member; `None` when another member is, which derives the
    /// class.
    pub(super) fn members_if_canonical(&self, index: &MaterialIndex, at: u64, position: &Position) -> Option<Members> {
        let sets = position.square_sets();
        let images: [SquareSets; 3] = std::array::from_fn(|map| self.image_sets(map, &sets));
        if images.iter().any(|image| Self::order_key(image) < Self::order_key(&sets)) {
            return None;
        }
        let mut members = Members::NONE;
        for image in images {
            if image == sets {
                continue;
            }
            let image_at = index.index_of_sets(&image);
            if image_at != at && !members.indices().contains(&image_at) {
                members.at[members.len] = image_at;
                members.len += 1;
            }
        }
        Some(members)
    }

    /// The index of the canonical member of the class of `position` (index `at`).
    pub(super) fn canonical_index(&self, index: &MaterialIndex, at: u64, position: &Position) -> u64 {
        let sets = position.square_sets();
        let least = (0..3).map(|map| self.image_sets(map, &sets)).min_by_key(Self::order_key);
        match least {
            Some(image) if Self::order_key(&image) < Self::order_key(&sets) => index.index_of_sets(&image),
            _ => at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabe_probe::{Move, MoveList};

    /// A move's squares, mapped.
    fn mapped_move(variant: &Variant, classes: &KingClasses, map: usize, mv: &Move) -> (u8, u8, u64) {
        let m = |s: kabe_probe::Square| classes.maps[map][usize::from(s.index())];
        let captured = mv.captured_squares(variant).fold(0u64, |acc, s| acc | 1 << m(s));
        (m(mv.from()), m(mv.to()), captured)
    }

    /// Every legal move of a random position of kings, mapped, is a legal move of its
    /// image, and the image has no other: what makes a class's values one.
    #[test]
    fn the_maps_take_the_moves_of_kings_to_the_moves_of_the_image() {
        use kabe_probe::internal::UncheckedPosition;
        for variant in Variant::ALL {
            let Some(classes) = KingClasses::of(&variant, Signature::new(0, 3, 0, 3)) else { continue };
            let squares = u32::from(variant.squares());
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = |bound: u32| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed % u64::from(bound)) as u8
            };
            for _ in 0..2000 {
                let mut sets = SquareSets::default();
                let mut taken = 0u64;
                for (i, count) in [next(4) + 1, next(4) + 1].into_iter().enumerate() {
                    for _ in 0..count {
                        let square = loop {
                            let s = next(squares);
                            if taken & 1 << s == 0 {
                                break s;
                            }
                        };
                        taken |= 1 << square;
                        if i == 0 {
                            sets.white_kings |= 1 << square
                        } else {
                            sets.black_kings |= 1 << square
                        }
                    }
                }
                let position = Position::from_square_sets(variant, kabe_probe::Color::White, &sets);
                let mut moves = MoveList::new();
                position.legal_moves_into(&mut moves);
                let mut own: Vec<_> = moves.iter().collect();
                for (map, image_sets) in classes.images(&position).iter().enumerate() {
                    let image = Position::from_square_sets(variant, kabe_probe::Color::White, image_sets);
                    let mut image_moves = MoveList::new();
                    image.legal_moves_into(&mut image_moves);
                    let mut mapped: Vec<_> = own.iter().map(|mv| mapped_move(&variant, &classes, map, mv)).collect();
                    let mut theirs: Vec<_> = image_moves
                        .iter()
                        .map(|mv| (mv.from().index(), mv.to().index(), captured(&variant, mv)))
                        .collect();
                    mapped.sort_unstable();
                    theirs.sort_unstable();
                    assert_eq!(mapped, theirs, "map {map} of {}", position.fen());
                }
                own.clear();
            }
        }
    }

    fn captured(variant: &Variant, mv: &Move) -> u64 {
        mv.captured_squares(variant).fold(0u64, |acc, s| acc | 1 << s.index())
    }

    /// Each map is its own inverse and none is the identity: the four form a group.
    #[test]
    fn each_map_undoes_itself() {
        for width in [8, 10] {
            let classes = KingClasses::of_width(width);
            for map in 0..3 {
                let squares = width * width / 2;
                assert!((0..squares).all(|s| classes.maps[map][usize::from(classes.maps[map][usize::from(s)])] == s));
                assert!((0..squares).any(|s| classes.maps[map][usize::from(s)] != s));
            }
        }
    }

    /// Each class of a small table of kings has exactly one canonical member, whose
    /// members are the class's other indices, and which every member names.
    #[test]
    fn each_class_has_one_canonical_member_that_every_member_names() {
        for variant in [Variant::INTERNATIONAL, Variant::RUSSIAN] {
            let signature = Signature::new(0, 2, 0, 1);
            let index = MaterialIndex::new(variant, signature).expect("a table of kings");
            let classes = KingClasses::of(&variant, signature).expect("kings only have classes");
            let mut derived_by = vec![u64::MAX; index.len() as usize];
            for (at, position) in (0..index.len()).zip(index.positions(0..index.len())) {
                if let Some(members) = classes.members_if_canonical(&index, at, &position) {
                    assert!(classes.is_canonical(&position));
                    for &member in members.indices().iter().chain([&at]) {
                        assert_eq!(derived_by[member as usize], u64::MAX, "{} in two classes", position.fen());
                        derived_by[member as usize] = at;
                    }
                }
            }
            for (at, position) in (0..index.len()).zip(index.positions(0..index.len())) {
                assert_ne!(derived_by[at as usize], u64::MAX, "{} in no class", position.fen());
                assert_eq!(
                    classes.canonical_index(&index, at, &position),
                    derived_by[at as usize],
                    "{}",
                    position.fen()
                );
            }
        }
    }

    #[test]
    fn men_and_other_boards_have_no_classes() {
        assert!(KingClasses::of(&Variant::INTERNATIONAL, Signature::new(1, 1, 0, 2)).is_none());
        assert!(KingClasses::of(&Variant::INTERNATIONAL, Signature::new(0, 1, 0, 2)).is_some());
    }
}
