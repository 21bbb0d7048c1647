//! Random positions for property tests: reached by random play, or placed at random
//! with kings (endgames), from a seed so that failures reproduce.

#![allow(dead_code)]

use kabe_rules::{Color, PieceKind, Position, Setup, SetupPiece, Variant};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A position reached by up to `max_plies` random moves from the start.
pub fn random_play(variant: Variant, seed: u64, max_plies: u32) -> Position {
    let mut rng = Rng::new(seed);
    let mut p = Position::start(variant);
    let plies = rng.below(max_plies as u64 + 1);
    for _ in 0..plies {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        p = p.play(&moves[rng.below(moves.len() as u64) as usize]);
    }
    p
}

/// A random legal placement of at most `max_pieces` pieces, about half of them kings.
pub fn random_endgame(variant: Variant, seed: u64, max_pieces: u32) -> Position {
    let mut rng = Rng::new(seed);
    let n = variant.squares() as u32;
    let count = 2 + rng.below(max_pieces.max(2) as u64 - 1) as u32;
    let mut used = vec![false; n as usize];
    let mut setup = Setup { turn: Some(if rng.below(2) == 0 { Color::White } else { Color::Black }), pieces: vec![] };
    for i in 0..count {
        let color = if i % 2 == 0 { Color::White } else { Color::Black };
        let kind = if rng.below(2) == 0 { PieceKind::King } else { PieceKind::Man };
        for _ in 0..100 {
            let s = rng.below(n as u64) as u32;
            let promo = variant.promotion_row(color);
            if used[s as usize] || (kind == PieceKind::Man && promo.contains(&(s as u8))) {
                continue;
            }
            used[s as usize] = true;
            setup.pieces.push(SetupPiece { color, kind, square: s + 1 });
            break;
        }
    }
    Position::from_setup(variant, &setup).expect("placement respects the rules")
}

/// Either kind of random position, weighted toward endgames with kings.
pub fn random_position(variant: Variant, seed: u64) -> Position {
    match seed % 4 {
        0 => random_play(variant, seed, 120),
        1 => random_endgame(variant, seed, 6),
        _ => random_endgame(variant, seed, 12),
    }
}
