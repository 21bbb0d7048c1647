//! The retrograde solver against a brute-force one that shares nothing with it but move
//! generation: it enumerates placements itself, keeps both sides to move (no colour
//! flip, no index) and runs synchronous value iteration, in which round r settles exactly
//! the positions whose distance is r.

use std::collections::HashMap;

use kabe_generator::{solve_all, Registry};
use kabe_probe::{Color, DrawnMaterial, Goal, PieceKind, Position, Score, Setup, SetupPiece, Signature, Variant, Wld};

/// Every position with up to `max_pieces` pieces, at least one per side, either side to move.
fn all_positions(variant: Variant, max_pieces: u32) -> Vec<Position> {
    let n = variant.squares() as u32;
    let mut out = Vec::new();
    fn go(variant: Variant, n: u32, from: u32, left: u32, pieces: &mut Vec<SetupPiece>, out: &mut Vec<Position>) {
        let has = |c: Color| pieces.iter().any(|p| p.color == c);
        if has(Color::White) && has(Color::Black) {
            for turn in [Color::White, Color::Black] {
                if let Ok(p) = Position::from_setup(variant, &Setup { turn: Some(turn), pieces: pieces.clone() }) {
                    out.push(p);
                }
            }
        }
        if left == 0 {
            return;
        }
        for s in from..n {
            for color in [Color::White, Color::Black] {
                for kind in [PieceKind::Man, PieceKind::King] {
                    pieces.push(SetupPiece { color, kind, square: s + 1 });
                    go(variant, n, s + 1, left - 1, pieces, out);
                    pieces.pop();
                }
            }
        }
    }
    go(variant, n, 0, max_pieces, &mut Vec::new(), &mut out);
    out
}

fn brute_force(variant: Variant, max_pieces: u32) -> HashMap<Position, Score> {
    let positions = all_positions(variant, max_pieces);
    let children: Vec<Vec<Position>> =
        positions.iter().map(|p| p.legal_moves().iter().map(|m| p.play(m)).collect()).collect();
    // A side with no piece or no move on its turn has lost, or in giveaway won (counted
    // as its winning turn: a win in 1).
    let end = if variant.goal == Goal::Giveaway { Score::win(1) } else { Score::loss(0) };
    // Turkish: one piece against one is a draw as soon as it is on the board.
    let pieces = |p: &Position, c: Color| p.count(c, PieceKind::Man) + p.count(c, PieceKind::King);
    let drawn = |p: &Position| {
        variant.drawn_material == DrawnMaterial::OnePieceEach
            && pieces(p, Color::White) == 1
            && pieces(p, Color::Black) == 1
    };
    let mut known: HashMap<Position, Score> = positions
        .iter()
        .zip(&children)
        .filter_map(|(p, kids)| match () {
            _ if drawn(p) => Some((*p, Score::DRAW)),
            _ if kids.is_empty() => Some((*p, end)),
            _ => None,
        })
        .collect();
    let value = |known: &HashMap<Position, Score>, c: &Position| -> Option<Score> {
        if drawn(c) {
            return Some(Score::DRAW);
        }
        if pieces(c, c.turn()) == 0 {
            return Some(end);
        }
        known.get(c).copied()
    };
    // Round r looks again only at the parents of what round r - 1 settled: a position
    // none of whose children changed gives the same answer as the round before.
    let index: HashMap<Position, usize> = positions.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); positions.len()];
    for (i, kids) in children.iter().enumerate() {
        for c in kids {
            if let Some(&k) = index.get(c) {
                parents[k].push(i);
            }
        }
    }
    let mut candidates: Vec<usize> = (0..positions.len()).collect();
    loop {
        let mut settled = Vec::new();
        for &i in &candidates {
            let (p, kids) = (&positions[i], &children[i]);
            if known.contains_key(p) {
                continue;
            }
            let scores: Vec<Option<Score>> = kids.iter().map(|c| value(&known, c)).collect();
            let best_win = scores.iter().flatten().filter(|s| s.wld() == Wld::Loss).map(|s| s.raw()).min();
            if let Some(d) = best_win {
                settled.push((*p, Score::win(d + 1)));
            } else if scores.iter().all(|s| s.is_some_and(|s| s.wld() == Wld::Win)) {
                let longest = scores.iter().flatten().map(|s| s.raw() + 1).max().unwrap_or(0);
                settled.push((*p, Score::loss(longest)));
            }
        }
        if settled.is_empty() {
            break;
        }
        candidates = settled.iter().flat_map(|(p, _)| parents[index[p]].iter().copied()).collect();
        candidates.sort_unstable();
        candidates.dedup();
        known.extend(settled);
    }
    for p in positions {
        known.entry(p).or_insert(Score::DRAW);
    }
    known
}

fn compare(variant: Variant, max_pieces: u32) {
    let registry: Registry = solve_all(variant, max_pieces, |_| {});
    let truth = brute_force(variant, max_pieces);
    let mut checked = 0;
    for (p, expected) in &truth {
        let got = registry.score(p).expect("solved");
        assert_eq!(got, *expected, "{} {} ({})", variant.name, p.fen(), Signature::of(&p.normalized()));
        checked += 1;
    }
    // Every stored position was compared: each placement once per side to move.
    let stored: u64 = registry.signatures().map(|s| registry.table(s).expect("listed").scores.len() as u64).sum();
    assert_eq!(checked as u64, 2 * stored);
}

#[test]
fn russian_up_to_three_pieces() {
    compare(Variant::RUSSIAN, 3);
}

#[test]
fn kabe_up_to_three_pieces() {
    compare(Variant::KABE, 3);
}

#[test]
fn international_up_to_three_pieces() {
    compare(Variant::INTERNATIONAL, 3);
}

#[test]
fn giveaway_up_to_three_pieces() {
    compare(Variant::GIVEAWAY, 3);
}

#[test]
fn poddavki_up_to_three_pieces() {
    compare(Variant::PODDAVKI, 3);
}

#[test]
fn antidraughts_up_to_two_pieces() {
    // The 10x10 moves are proven at 3 pieces above; the giveaway goal on 8x8.
    compare(Variant::ANTIDRAUGHTS, 2);
}

#[test]
fn turkish_up_to_two_pieces() {
    // Every two-piece Turkish position is drawn by material; without that rule the
    // orthogonal board is exercised: men stepping sideways, cycles of men moves in a pair.
    compare(Variant::TURKISH, 2);
    compare(Variant { drawn_material: DrawnMaterial::Never, ..Variant::TURKISH }, 2);
}

#[test]
fn turkish_up_to_three_pieces() {
    compare(Variant::TURKISH, 3);
}
