//! The capture rules of the 8x8 games that rank captures or restrict who may take what:
//! Czech (a king that can capture must), Italian (men never take kings; a king's capture
//! before a man's; most kings; the king met first). Squares in kabe's numbering: 29 = a1,
//! 25 = b2, 22 = c3, 23 = e3, 19 = f4, 16 = g5; the Italian board is mirrored, so the
//! same squares have other numbers there (a1 is its 32, e3 its 22).

use kabe_rules::{PieceKind, Position, Variant};

fn moves(variant: Variant, fen: &str) -> Vec<(u32, u32, PieceKind)> {
    let p = Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut out: Vec<_> = p
        .legal_moves()
        .iter()
        .map(|m| (variant.square_number(m.from()), variant.square_number(m.to()), m.piece()))
        .collect();
    out.sort_by_key(|&(f, t, _)| (f, t));
    out
}

#[test]
fn a_czech_king_that_can_capture_must() {
    // The king on a1 can take b2 (landing anywhere up the long diagonal); the man on e3
    // can take f4. Russian lets either capture; Czech only the king.
    let fen = "W:WK29,23:B25,19";
    let czech = moves(Variant::CZECH, fen);
    assert!(!czech.is_empty() && czech.iter().all(|m| m.2 == PieceKind::King), "{czech:?}");
    let russian = moves(Variant::RUSSIAN, fen);
    assert!(russian.iter().any(|m| m.2 == PieceKind::Man), "{russian:?}");
    assert_eq!(russian.len(), czech.len() + 1);
}

#[test]
fn an_italian_man_never_takes_a_king() {
    // English must take the king on f4; Italian may not, so the man just moves.
    assert_eq!(moves(Variant::ENGLISH, "W:W23:BK19"), vec![(23, 16, PieceKind::Man)]);
    assert_eq!(moves(Variant::ITALIAN, "W:W22:BK18"), vec![(22, 19, PieceKind::Man)]);
}

#[test]
fn italian_captures_are_ranked() {
    // One piece either way: the king's capture comes before the man's.
    assert_eq!(moves(Variant::ITALIAN, "W:WK32,22:B28,18"), vec![(32, 23, PieceKind::King)]);
    assert_eq!(moves(Variant::ENGLISH, "W:WK29,23:B25,19").len(), 2);
    // A king taking a king comes before a king taking a man (same count): the white king
    // on c3 may take the man on b4 or the king on d4 (Italian 23, 20, 19).
    assert_eq!(moves(Variant::ITALIAN, "W:WK23:B20,K19"), vec![(23, 14, PieceKind::King)]);
    assert_eq!(moves(Variant::ENGLISH, "W:WK22:B17,K18").len(), 2);
}
