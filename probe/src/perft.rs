//! Perft: the number of move sequences of a given length, the standard proof of a
//! move generator. Captures with the same outcome count once.

use crate::movegen::{Move, MoveList};
use crate::position::Position;

/// Number of leaf nodes of the move tree `depth` plies deep.
///
/// ```
/// use kabe_probe::{perft, Position, Variant};
/// assert_eq!(perft(&Position::start(Variant::INTERNATIONAL), 3), 658);
/// ```
pub fn perft(position: &Position, depth: u32) -> u64 {
    let mut lists = vec![MoveList::new(); depth as usize];
    perft_with(position, depth, &mut lists)
}

fn perft_with(position: &Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    match depth {
        0 => 1,
        1 => position.count_legal_moves() as u64,
        _ => {
            let (list, rest) = lists.split_first_mut().expect("one list per ply");
            position.legal_moves_into(list);
            list.iter().map(|mv| perft_with(&position.play(mv), depth - 1, rest)).sum()
        }
    }
}

/// Perft below each legal move ("divide"), for finding where two generators differ.
pub fn perft_divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    position.legal_moves().into_iter().map(|mv| (mv, perft(&position.play(&mv), depth - 1))).collect()
}
