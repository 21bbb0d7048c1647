//! The board symmetries of positions of kings only, which the solver of such a pair uses
//! to solve one position of each class of four.
//!
//! A king moves and captures along the diagonals in every direction, so on a square
//! diagonal board three maps other than the identity take a position of kings to one of
//! the same value: the half turn, the reflection in the main diagonal and the reflection
//! in the other one (each keeps the dark squares dark and takes diagonals to diagonals;
//! with the identity they form a group of four in which every element is its own
//! inverse). Men break all three: a man moves forwards. The colour flip, which pairs a
//! signature with its flip, is the half turn with the colours swapped, so it commutes
//! with all of them.
//!
//! A class is solved at its *canonical* member, the image whose square sets are least
//! ([`KingSymmetry::canonical`]); the others copy its state when the pass is over.

use kabe_probe::{BoardSize, Signature, SquareSets, Variant};

/// The maps of a board: square index to square index, for the half turn and the two
/// reflections (the identity is left out).
#[derive(Clone, Debug)]
pub(crate) struct KingSymmetry {
    maps: [[u8; 64]; 3],
}

/// The images of a position under the group: the identity first, then the three maps.
pub(crate) type Images = [SquareSets; 4];

impl KingSymmetry {
    /// The symmetries of `signature`'s positions in `variant`, where they have any: a
    /// signature of kings only on a diagonal board.
    pub(crate) fn of(variant: &Variant, signature: Signature) -> Option<KingSymmetry> {
        let kings_only = signature.white_men == 0 && signature.black_men == 0;
        let diagonal = matches!(variant.board, BoardSize::Eight | BoardSize::Ten);
        (kings_only && diagonal).then(|| KingSymmetry::of_board(variant.board))
    }

    /// The maps of a diagonal board: its square `s` (numbered from the top left dark
    /// square in reading order, as the geometry numbers them) stands on row `s / half`,
    /// column `2 * (s % half)`, plus one on the even rows.
    fn of_board(board: BoardSize) -> KingSymmetry {
        let width = u32::from(board.width());
        let half = width / 2;
        let last = width - 1;
        let place = |s: u32| {
            let row = s / half;
            (row, 2 * (s % half) + u32::from(row.is_multiple_of(2)))
        };
        let square = |(row, col): (u32, u32)| {
            debug_assert_eq!((row + col) % 2, 1, "a dark square");
            (row * half + col / 2) as u8
        };
        let mut maps = [[0u8; 64]; 3];
        for s in 0..u32::from(board.squares()) {
            let (row, col) = place(s);
            maps[0][s as usize] = square((last - row, last - col));
            maps[1][s as usize] = square((col, row));
            maps[2][s as usize] = square((last - col, last - row));
        }
        KingSymmetry { maps }
    }

    fn map(&self, g: usize, squares: u64) -> u64 {
        let mut image = 0;
        let mut rest = squares;
        while rest != 0 {
            image |= 1u64 << self.maps[g][rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        image
    }

    /// The four images of a position of kings (its square sets).
    pub(crate) fn images(&self, sets: &SquareSets) -> Images {
        let image = |g: usize| SquareSets {
            white_men: 0,
            white_kings: self.map(g, sets.white_kings),
            black_men: 0,
            black_kings: self.map(g, sets.black_kings),
        };
        [*sets, image(0), image(1), image(2)]
    }

    /// The images of the position whose images are `images` with White's king on the
    /// square of index `to` moved back to `from`.
    #[inline]
    pub(crate) fn king_moved_back(&self, images: &Images, to: u8, from: u8) -> Images {
        let mut moved = *images;
        moved[0].white_kings ^= 1 << to | 1 << from;
        for g in 0..3 {
            moved[g + 1].white_kings ^= 1 << self.maps[g][to as usize] | 1 << self.maps[g][from as usize];
        }
        moved
    }

    /// The canonical member of a class given its images: the least by White's kings,
    /// then Black's.
    pub(crate) fn canonical(images: &Images) -> SquareSets {
        KingSymmetry::canonical_and_moves(images, 0).0
    }

    /// Whether a position (its square sets) is its class's canonical member.
    pub(crate) fn is_canonical(&self, sets: &SquareSets) -> bool {
        let least = key(sets);
        (0..3).all(|g| key_of(self.map(g, sets.white_kings), self.map(g, sets.black_kings)) >= least)
    }

    /// The images of a position's colour flip (the half turn with the colours swapped),
    /// from the position's own: the maps commute with the flip, so image `g` of the flip
    /// is the flip of image `g` after the half turn, another of the four.
    #[inline]
    pub(crate) fn flipped_images(images: &Images) -> Images {
        let swap = |s: &SquareSets| SquareSets { white_kings: s.black_kings, black_kings: s.white_kings, ..*s };
        // With the half turn r: e r = r, r r = e, t r = a, a r = t.
        [swap(&images[1]), swap(&images[0]), swap(&images[3]), swap(&images[2])]
    }

    /// The canonical member of a class given its images, and how many moves a
    /// canonical parent makes into a node's class where `images` are one of the node's
    /// predecessors' images: of the elements of `distinct` (from
    /// [`KingSymmetry::distinct_images`] of the node), those that take the predecessor
    /// to the canonical member, each a move to another member of the node's class.
    #[inline]
    pub(crate) fn canonical_and_moves(images: &Images, distinct: u8) -> (SquareSets, u32) {
        let keys = [key(&images[0]), key(&images[1]), key(&images[2]), key(&images[3])];
        let least = keys[0].min(keys[1]).min(keys[2].min(keys[3]));
        let (mut at, mut moves) = (0, 0);
        for (g, &k) in keys.iter().enumerate().rev() {
            if k == least {
                at = g;
                moves += u32::from(distinct >> g & 1);
            }
        }
        (images[at], moves)
    }

    /// Of the group's elements, one from each coset of the stabiliser of a position
    /// whose images are `images` (bit `g`: element `g` of [`Images`]): the elements that
    /// take it to its distinct images.
    pub(crate) fn distinct_images(images: &Images) -> u8 {
        let mut chosen = 0u8;
        for g in 0..4 {
            if (0..g).all(|h| chosen & 1 << h == 0 || images[h] != images[g]) {
                chosen |= 1 << g;
            }
        }
        chosen
    }
}

/// The order of canonical members: White's kings, then Black's.
#[inline]
fn key(sets: &SquareSets) -> u128 {
    key_of(sets.white_kings, sets.black_kings)
}

#[inline]
fn key_of(white_kings: u64, black_kings: u64) -> u128 {
    u128::from(white_kings) << 64 | u128::from(black_kings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabe_probe::internal::UncheckedPosition;
    use kabe_probe::{Color, Position};

    /// Each map is a bijection of the board that keeps what kings can do: a position
    /// and its images have as many moves, and captures alike (every one of a few
    /// thousand positions of a few kings, both boards).
    #[test]
    fn the_maps_keep_the_moves_of_kings() {
        for variant in [Variant::INTERNATIONAL, Variant::RUSSIAN] {
            let sym = KingSymmetry::of(&variant, Signature::new(0, 2, 0, 2)).expect("kings only");
            let n = variant.board.squares() as usize;
            for g in 0..3 {
                let mut seen = 0u64;
                for s in 0..n {
                    seen |= 1 << sym.maps[g][s];
                    assert_eq!(sym.maps[g][sym.maps[g][s] as usize] as usize, s, "an involution");
                }
                assert_eq!(seen.count_ones() as usize, n, "{}: map {g} is onto", variant.name);
            }
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut captures = 0;
            for _ in 0..3000 {
                let mut squares = 0u64;
                while squares.count_ones() < 5 {
                    squares |= 1 << (next() % n as u64);
                }
                let white = squares & squares.wrapping_neg();
                let white = white | (squares & !white) & (squares & !white).wrapping_neg();
                let sets = SquareSets { white_men: 0, white_kings: white, black_men: 0, black_kings: squares & !white };
                let moves = |s: &SquareSets| {
                    let p = Position::from_square_sets(variant, Color::White, s);
                    let list = p.legal_moves();
                    (list.len(), list.first().is_some_and(|m| m.is_capture()))
                };
                let here = moves(&sets);
                captures += here.1 as u32;
                for image in &sym.images(&sets)[1..] {
                    assert_eq!(moves(image), here, "{}", variant.name);
                }
            }
            assert!(captures > 100, "captures among the samples");
        }
    }

    /// The pairs of kings only of `pieces` pieces (in build order), and every table up
    /// to them: those of fewer pieces all, those of `pieces` the kings-only ones (they
    /// lead to kings only).
    fn kings_only_pairs(variant: Variant, pieces: u32) -> (crate::Registry, Vec<Signature>) {
        let mut registry = crate::solve_all(variant, pieces - 1, |_| {});
        let mut pairs = Vec::new();
        for sig in Signature::all_with(pieces) {
            if registry.table(sig).is_none() && KingSymmetry::of(&variant, sig).is_some() {
                crate::solve_pair(&registry, variant, sig, &|_| {})
                    .expect("solved")
                    .into_iter()
                    .for_each(|t| registry.insert(t));
                pairs.push(sig);
            }
        }
        (registry, pairs)
    }

    const CASES: [(Variant, kabe_probe::DrawRuleSet, u32); 2] = [
        (Variant::RUSSIAN, kabe_probe::DrawRuleSet::Ussr1953, 5),
        (Variant::INTERNATIONAL, kabe_probe::DrawRuleSet::Fmjd, 4),
    ];

    /// Every pair of kings only solved by symmetry gives the plain pass's scores and
    /// capture flags, position for position (Russian 5 pieces, international 4; and,
    /// through `kings_only_pairs`, every smaller pair of kings as the tables below them).
    #[test]
    fn pairs_of_kings_solved_by_symmetry_are_solved_as_without() {
        use crate::solve::whole::{solve_whole_pair_by as solve_pair_by, PairPass};
        for (variant, _, pieces) in CASES {
            let (registry, pairs) = kings_only_pairs(variant, pieces);
            assert!(pairs.len() >= 2, "{}: {} pairs", variant.name, pairs.len());
            for sig in pairs {
                let plain = solve_pair_by(&registry, variant, sig, PairPass::Plain, &|_| {}).expect("solved");
                let fast = solve_pair_by(&registry, variant, sig, PairPass::Fastest, &|_| {}).expect("solved");
                for (p, f) in plain.iter().zip(&fast) {
                    let differ = p.scores.iter().zip(&f.scores).position(|(a, b)| a != b);
                    assert_eq!(differ, None, "{} {}", variant.name, p.index.signature());
                    assert!(p.captures.is_some());
                    assert_eq!(p.captures, f.captures, "{} {}", variant.name, p.index.signature());
                }
            }
        }
    }

    /// The same for the rule pass: every rule table of those pairs solved by symmetry
    /// equals the plain pass's (Russian under the USSR 1953 counts, international under
    /// the FMJD counts), from the same tables below.
    #[test]
    fn rule_tables_of_kings_solved_by_symmetry_are_solved_as_without() {
        use crate::solve::rules::{solve_rule_pair_by, MemoryTables};
        use crate::solve::whole::PairPass;
        use kabe_probe::DrawRules;
        let mut total = 0;
        for (variant, set, pieces) in CASES {
            let rules = DrawRules::new(set, &variant);
            let (theory, pairs) = kings_only_pairs(variant, pieces);
            let done = crate::solve_rules(&theory, rules, (2..pieces).flat_map(Signature::all_with));
            let finished = MemoryTables::new(&theory, &done);
            let mut compared = 0;
            for sig in pairs.into_iter().filter(|&s| rules.context(s).is_some()) {
                let solve = |pass| solve_rule_pair_by(&finished, rules, variant, sig, pass, &|_| {});
                let plain = solve(PairPass::Plain).expect("solved").expect("a table");
                let fast = solve(PairPass::Fastest).expect("solved").expect("a table");
                for (p, f) in plain.iter().zip(&fast) {
                    let differ = p.values.iter().zip(&f.values).position(|(a, b)| a != b);
                    assert_eq!(differ, None, "{} {}", variant.name, p.index.signature());
                }
                compared += 1;
            }
            assert!(compared >= 1, "{}: no pair with a rule table", variant.name);
            total += compared;
        }
        assert!(total >= 3, "{total} pairs compared");
    }

    /// The images of a colour flip found from the position's equal those found afresh.
    #[test]
    fn a_flip_s_images_follow_from_the_position_s() {
        for variant in [Variant::INTERNATIONAL, Variant::RUSSIAN] {
            let sym = KingSymmetry::of(&variant, Signature::new(0, 2, 0, 3)).expect("kings only");
            let n = variant.board.squares() as u64;
            for s in 0..n * n {
                let sets =
                    SquareSets { white_men: 0, white_kings: 1 << (s % n), black_men: 0, black_kings: 1 << (s / n) | 1 };
                let flip = Position::from_square_sets(variant, Color::White, &sets).flipped().square_sets();
                assert_eq!(KingSymmetry::flipped_images(&sym.images(&sets)), sym.images(&flip), "{}", variant.name);
            }
        }
    }

    #[test]
    fn men_have_no_symmetry() {
        assert!(KingSymmetry::of(&Variant::INTERNATIONAL, Signature::new(1, 2, 0, 2)).is_none());
        assert!(KingSymmetry::of(&Variant::INTERNATIONAL, Signature::new(0, 2, 0, 3)).is_some());
    }
}
