//! The position index is a bijection between a signature's positions (White to move)
//! and 0..len: exhaustively on small signatures, by property on large ones.

#[path = "../../rules/tests/common/mod.rs"]
mod common;

use kabe_probe::internal::{MaterialIndex, UncheckedPosition};
use kabe_probe::SquareSets;
use kabe_probe::{Color, PieceKind, Position, Setup, SetupPiece, Signature, Square, Variant};
use proptest::prelude::*;

/// Positions of `sig`, counted by brute force over ordered tuples of squares.
fn brute_force_count(variant: Variant, sig: Signature) -> u64 {
    let n = variant.squares() as u32;
    let kinds: Vec<(Color, PieceKind)> = std::iter::empty()
        .chain(std::iter::repeat_n((Color::White, PieceKind::Man), sig.white_men as usize))
        .chain(std::iter::repeat_n((Color::White, PieceKind::King), sig.white_kings as usize))
        .chain(std::iter::repeat_n((Color::Black, PieceKind::Man), sig.black_men as usize))
        .chain(std::iter::repeat_n((Color::Black, PieceKind::King), sig.black_kings as usize))
        .collect();
    fn go(variant: &Variant, kinds: &[(Color, PieceKind)], used: &mut Vec<u32>, n: u32) -> u64 {
        let Some(&(color, kind)) = kinds.get(used.len()) else { return 1 };
        let mut total = 0;
        for s in 0..n {
            let forbidden = kind == PieceKind::Man && variant.promotion_row(color).contains(&(s as u8));
            if used.contains(&s) || forbidden {
                continue;
            }
            used.push(s);
            total += go(variant, kinds, used, n);
            used.pop();
        }
        total
    }
    let ordered = go(&variant, &kinds, &mut Vec::new(), n);
    let fact = |k: u8| (1..=k as u64).product::<u64>();
    ordered / (fact(sig.white_men) * fact(sig.white_kings) * fact(sig.black_men) * fact(sig.black_kings))
}

fn check_exhaustively(variant: Variant, sig: Signature) {
    let index = MaterialIndex::new(variant, sig).expect("small");
    assert_eq!(index.len(), brute_force_count(variant, sig), "{} {sig}", variant.name);
    for i in 0..index.len() {
        let p = index.position(i);
        assert_eq!(p.turn(), Color::White);
        assert_eq!(Signature::of(&p), sig, "{} {sig} index {i}", variant.name);
        // Legal placement: the setup validates.
        assert_eq!(Position::from_setup(variant, &p.to_setup()), Ok(p), "{} {sig} index {i}", variant.name);
        assert_eq!(index.index(&p), i, "{} {sig} {}", variant.name, p.fen());
    }
}

#[test]
fn small_signatures_are_bijective_on_8x8() {
    for pieces in 2..=3 {
        for sig in Signature::all_with(pieces) {
            check_exhaustively(Variant::RUSSIAN, sig);
        }
    }
    check_exhaustively(Variant::RUSSIAN, Signature::new(2, 0, 2, 0));
    check_exhaustively(Variant::RUSSIAN, Signature::new(1, 1, 1, 1));
}

#[test]
fn small_signatures_are_bijective_on_10x10() {
    for sig in Signature::all_with(2) {
        check_exhaustively(Variant::INTERNATIONAL, sig);
    }
    for sig in
        [Signature::new(2, 0, 1, 0), Signature::new(1, 0, 2, 0), Signature::new(1, 1, 1, 0), Signature::new(0, 1, 2, 0)]
    {
        check_exhaustively(Variant::INTERNATIONAL, sig);
    }
}

#[test]
fn build_order_puts_promotions_first() {
    let sigs = Signature::all_with(3);
    assert_eq!(sigs.len(), 12);
    for (i, s) in sigs.iter().enumerate() {
        // A promotion (one man fewer, one king more) is built earlier.
        if s.white_men > 0 {
            let promoted = Signature::new(s.white_men - 1, s.white_kings + 1, s.black_men, s.black_kings);
            assert!(sigs[..i].contains(&promoted), "{s} before {promoted}");
        }
    }
}

fn random_of(variant: Variant, sig: Signature, seed: u64) -> Position {
    let mut rng = common::Rng::new(seed);
    let n = variant.squares() as u32;
    let mut pieces = Vec::new();
    let mut used = vec![false; n as usize];
    let mut place = |color: Color, kind: PieceKind, rng: &mut common::Rng| loop {
        let s = rng.below(n as u64) as u32;
        if used[s as usize] || (kind == PieceKind::Man && variant.promotion_row(color).contains(&(s as u8))) {
            continue;
        }
        used[s as usize] = true;
        pieces.push(SetupPiece { color, kind, square: s + 1 });
        break;
    };
    for (count, color, kind) in [
        (sig.white_men, Color::White, PieceKind::Man),
        (sig.white_kings, Color::White, PieceKind::King),
        (sig.black_men, Color::Black, PieceKind::Man),
        (sig.black_kings, Color::Black, PieceKind::King),
    ] {
        for _ in 0..count {
            place(color, kind, &mut rng);
        }
    }
    Position::from_setup(variant, &Setup { turn: Some(Color::White), pieces }).expect("valid")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn large_signatures_round_trip(
        v in prop::sample::select(vec![Variant::INTERNATIONAL, Variant::RUSSIAN]),
        wm in 0u8..5, wk in 0u8..3, bm in 0u8..5, bk in 0u8..3, seed in any::<u64>(),
    ) {
        let sig = Signature::new(wm, wk, bm, bk.max(u8::from(bm == 0)));
        let index = MaterialIndex::new(v, sig).expect("small");
        let p = random_of(v, sig, seed);
        let i = index.index(&p);
        prop_assert!(i < index.len());
        prop_assert_eq!(index.position(i), p);
        // Neighbouring indices are other positions of the same material.
        for j in [i.saturating_sub(1), (i + 1).min(index.len() - 1)] {
            let q = index.position(j);
            prop_assert_eq!(index.index(&q), j);
        }
    }

    #[test]
    fn normalized_positions_index_by_their_own_signature(v in prop::sample::select(Variant::ALL.to_vec()), seed in any::<u64>()) {
        let p = common::random_position(v, seed).normalized();
        let sig = Signature::of(&p);
        prop_assume!(sig.pieces() > 0);
        match MaterialIndex::new(v, sig) {
            Some(index) => prop_assert_eq!(index.position(index.index(&p)), p),
            // Refused only when its positions cannot be counted in 64 bits: the count is
            // below squares! / (squares - n)! / (wm! wk! bm! bk!), which must then pass 2^64.
            None => prop_assert!(log2_placements_bound(v, sig) >= 64.0, "{} refused", sig),
        }
    }
}

/// log2 of an upper bound on the positions of `sig`: its pieces on distinct squares.
fn log2_placements_bound(v: Variant, sig: Signature) -> f64 {
    let log2_factorial = |k: u32| (2..=k).map(|i| (i as f64).log2()).sum::<f64>();
    let squares = v.squares() as u32;
    let counts = [sig.white_men, sig.white_kings, sig.black_men, sig.black_kings].map(u32::from);
    let n: u32 = counts.iter().sum();
    log2_factorial(squares) - log2_factorial(squares - n) - counts.iter().map(|&c| log2_factorial(c)).sum::<f64>()
}

/// `positions(range)` steps the kings from placement to placement; it must give exactly
/// what unranking each index gives, from any start, across men configurations.
fn check_positions_iterator(variant: Variant, sig: Signature, starts: &[u64], len: u64) {
    let index = MaterialIndex::new(variant, sig).expect("small");
    for &start in starts {
        let start = start.min(index.len());
        let end = (start + len).min(index.len());
        let stepped: Vec<Position> = index.positions(start..end).collect();
        let unranked: Vec<Position> = (start..end).map(|i| index.position(i)).collect();
        assert_eq!(stepped, unranked, "{} {sig} from {start}", variant.name);
        // The same men configuration's placements from its men unranked by the caller.
        let per = index.king_placements();
        let (men_rank, first) = (start / per, start % per);
        if men_rank >= index.men_configurations() {
            continue;
        }
        let last = (first + len).min(per);
        let placed: Vec<Position> = index.placements(men_rank, &index.men_of(men_rank), first..last).collect();
        let expected: Vec<Position> =
            (men_rank * per + first..men_rank * per + last).map(|i| index.position(i)).collect();
        assert_eq!(placed, expected, "{} {sig} placements of {men_rank} from {first}", variant.name);
    }
}

#[test]
fn the_positions_iterator_equals_unranking_every_index() {
    for pieces in 2..=4 {
        for sig in Signature::all_with(pieces) {
            let whole = MaterialIndex::new(Variant::RUSSIAN, sig).expect("small").len();
            check_positions_iterator(Variant::RUSSIAN, sig, &[0, 1, 17, whole / 3, whole - 5], 40_000);
        }
    }
    for sig in [
        Signature::new(0, 3, 0, 2),
        Signature::new(1, 2, 1, 1),
        Signature::new(2, 1, 0, 3),
        Signature::new(0, 1, 0, 4),
        Signature::new(3, 0, 2, 0),
    ] {
        let whole = MaterialIndex::new(Variant::INTERNATIONAL, sig).expect("small").len();
        check_positions_iterator(Variant::INTERNATIONAL, sig, &[0, 3, 12_345, whole / 2, whole - 1_000], 60_000);
    }
}

/// Every white king put on every free square: the constant-time rank of
/// `MaterialIndex::one_king_moved` equals the index's own.
#[test]
fn one_king_moved_ranks_as_the_index_does() {
    let mut checked = 0u64;
    for (variant, sig) in [
        (Variant::INTERNATIONAL, Signature::new(0, 3, 0, 2)),
        (Variant::INTERNATIONAL, Signature::new(1, 2, 1, 1)),
        (Variant::INTERNATIONAL, Signature::new(0, 5, 1, 0)),
        (Variant::INTERNATIONAL, Signature::new(0, 1, 0, 4)),
        (Variant::INTERNATIONAL, Signature::new(1, 1, 0, 1)),
        (Variant::RUSSIAN, Signature::new(0, 2, 1, 2)),
        (Variant::RUSSIAN, Signature::new(2, 2, 0, 1)),
    ] {
        let index = MaterialIndex::new(variant, sig).expect("small");
        let step = (index.len() / 300).max(1);
        for i in (0..index.len()).step_by(step as usize) {
            let position = index.position(i);
            let sets = position.square_sets();
            let empty = (0..variant.squares())
                .filter(|&s| (sets.white_men | sets.white_kings | sets.black_men | sets.black_kings) & 1u64 << s == 0);
            let empty: Vec<u8> = empty.collect();
            for king in (0..variant.squares()).filter(|&s| sets.white_kings & 1u64 << s != 0) {
                let ranks = index.one_king_moved(&position, square(variant, king));
                for &to in &empty {
                    let moved = SquareSets { white_kings: sets.white_kings & !(1u64 << king) | 1u64 << to, ..sets };
                    let other = Position::from_square_sets(variant, Color::White, &moved);
                    assert_eq!(
                        ranks.king_rank(square(variant, to)),
                        index.index(&other) % index.king_placements(),
                        "{} with the king of {} on {}",
                        position.fen(),
                        king + 1,
                        to + 1
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100_000, "only {checked} placements checked");
}

#[test]
fn black_king_moved_indexes_as_the_index_does() {
    let mut checked = 0u64;
    for (variant, sig) in [
        (Variant::INTERNATIONAL, Signature::new(0, 2, 0, 3)),
        (Variant::INTERNATIONAL, Signature::new(1, 1, 1, 2)),
        (Variant::INTERNATIONAL, Signature::new(2, 0, 1, 1)),
        (Variant::INTERNATIONAL, Signature::new(0, 4, 0, 1)),
        (Variant::RUSSIAN, Signature::new(1, 2, 0, 2)),
        (Variant::RUSSIAN, Signature::new(2, 1, 1, 1)),
    ] {
        let index = MaterialIndex::new(variant, sig).expect("small");
        let step = (index.len() / 300).max(1);
        for i in (0..index.len()).step_by(step as usize) {
            let position = index.position(i);
            let sets = position.square_sets();
            let taken = sets.white_men | sets.white_kings | sets.black_men | sets.black_kings;
            let mut ranks = index.black_king_moved(&position);
            for king in (0..variant.squares()).filter(|&s| sets.black_kings & 1u64 << s != 0) {
                ranks.moving(square(variant, king));
                for to in (0..variant.squares()).filter(|&s| taken & 1u64 << s == 0) {
                    let moved = SquareSets { black_kings: sets.black_kings & !(1u64 << king) | 1u64 << to, ..sets };
                    let other = Position::from_square_sets(variant, Color::White, &moved);
                    assert_eq!(
                        ranks.index(square(variant, to)),
                        index.index(&other),
                        "{} with the black king of {} on {}",
                        position.fen(),
                        king + 1,
                        to + 1
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100_000, "only {checked} placements checked");
}

fn square(variant: Variant, index: u8) -> Square {
    Square::from_number(index as u32 + 1, variant.squares()).expect("on the board")
}
