//! The rules that differ between variants, each on a position built to show it.

use kabe_rules::{PieceKind, Position, Square, Variant};

fn moves(variant: Variant, fen: &str) -> Vec<String> {
    let p = Position::from_fen(variant, fen).expect("test FEN");
    let mut v: Vec<String> =
        p.legal_moves().iter().map(|m| kabe_rules::notation::movetext::format(&variant, m, true)).collect();
    v.sort();
    v
}

fn piece_on(variant: Variant, fen_after: &Position, square: &str) -> Option<PieceKind> {
    let n = kabe_rules::notation::parse_square(&variant, square).expect("square");
    fen_after.piece_at(Square::from_number(n, variant.squares()).expect("on board")).map(|(_, k)| k)
}

#[test]
fn majority_counts_pieces_not_kings() {
    // 33x22 would take the king on 28; 33x24x13 takes two men and is the only legal move.
    assert_eq!(moves(Variant::INTERNATIONAL, "W:W33:BK28,29,19"), ["33x24x13"]);
}

#[test]
fn international_man_passing_the_far_row_stays_a_man() {
    // 13x2 lands on the far row, then 2x11 goes on: the man ends on 11 uncrowned.
    let p = Position::from_fen(Variant::INTERNATIONAL, "W:W13:B8,7,40").expect("fen");
    let mv = p.parse_move("13x2x11").expect("legal");
    assert!(!mv.promotes());
    assert_eq!(piece_on(Variant::INTERNATIONAL, &p.play(&mv), "11"), Some(PieceKind::Man));
    // Ending on the far row crowns.
    let p = Position::from_fen(Variant::INTERNATIONAL, "W:W13:B8,40").expect("fen");
    let mv = p.parse_move("13x2").expect("legal");
    assert!(mv.promotes());
}

#[test]
fn russian_man_crowned_mid_capture_goes_on_as_a_king() {
    // b6:d8 crowns; the new king then takes f6 at a distance, landing on g5 or h4.
    assert_eq!(moves(Variant::RUSSIAN, "W:Wb6:Bc7,f6"), ["b6:d8:g5", "b6:d8:h4"]);
    let p = Position::from_fen(Variant::RUSSIAN, "W:Wb6:Bc7,f6").expect("fen");
    let mv = p.parse_move("b6:h4").expect("legal");
    assert!(mv.promotes());
    assert_eq!(piece_on(Variant::RUSSIAN, &p.play(&mv), "h4"), Some(PieceKind::King));
}

#[test]
fn kabe_crowning_ends_the_capture() {
    assert_eq!(moves(Variant::KABE, "W:Wb6:Bc7,f6"), ["b6:d8"]);
}

#[test]
fn kabe_men_do_not_capture_backward() {
    assert_eq!(moves(Variant::RUSSIAN, "W:Wd4:Bc3,h8"), ["d4:b2"]);
    assert_eq!(moves(Variant::KABE, "W:Wd4:Bc3,h8"), ["d4-c5", "d4-e5"]);
}

#[test]
fn capturing_king_must_land_where_it_can_go_on() {
    // After a1xc3 only d4 lets the king go on (over e3); the literal 1953 reading also
    // allows stopping on e5, f6, g7 or h8.
    assert_eq!(moves(Variant::RUSSIAN, "W:WKa1:Bc3,e3"), ["a1:d4:f2", "a1:d4:g1"]);
    assert_eq!(
        moves(Variant::RUSSIAN_FREE_LANDING, "W:WKa1:Bc3,e3"),
        ["a1:d4:f2", "a1:d4:g1", "a1:e5", "a1:f6", "a1:g7", "a1:h8"]
    );
}

#[test]
fn short_king_capture_reading() {
    // Flying: the king on a1 takes c3 from a distance. Short: only adjacent pieces.
    assert_eq!(moves(Variant::KABE, "W:WKa1:Bc3,h8"), ["a1:d4", "a1:e5", "a1:f6", "a1:g7"]);
    assert!(!moves(Variant::KABE_SHORT_KING_CAPTURE, "W:WKa1:Bc3,h8").iter().any(|m| m.contains(':')));
    assert_eq!(moves(Variant::KABE_SHORT_KING_CAPTURE, "W:WKa1:Bb2,h8"), ["a1:c3"]);
}

#[test]
fn same_outcome_by_two_routes_is_one_move() {
    // The king on 2 can take 7, 8, 17, 18 round the "windmill" either way.
    let p = Position::from_fen(Variant::INTERNATIONAL, "W:WK2:B7,8,17,18").expect("fen");
    let legal = p.legal_moves();
    let routes = p.capture_routes();
    let full_circle = |m: &&kabe_rules::Move| m.captured_count() == 4 && m.to() == m.from();
    assert_eq!(legal.iter().filter(full_circle).count(), 1);
    assert!(routes.iter().filter(full_circle).count() >= 2);
}

#[test]
fn captured_pieces_block_until_the_move_ends() {
    // White king 46 takes 37 and 28 ... a captured piece still stands in the way, so the
    // king can never cross a square it jumped; every route ends with no piece jumped twice.
    let p = Position::from_fen(Variant::INTERNATIONAL, "W:WK46:B37,28,17,19,30,39").expect("fen");
    for route in p.capture_routes() {
        let captured: Vec<_> = route.captured_squares(p.variant()).collect();
        let landings: Vec<_> = route.landings().collect();
        assert_eq!(captured.len(), landings.len(), "one landing per capture");
        assert!(landings.iter().all(|l| !captured.contains(l)), "landed on a captured piece");
    }
}

#[test]
fn no_legal_move_is_a_loss() {
    let p = Position::from_fen(Variant::INTERNATIONAL, "B:W41,47:B36").expect("fen");
    assert!(p.is_lost());
    assert!(p.legal_moves().is_empty());
    assert!(Position::from_fen(Variant::INTERNATIONAL, "B:W41:B").expect("fen").is_lost());
}

#[test]
fn a_full_path_names_its_own_route_only() {
    // Two king captures from e1 end on a1: over d2 and b2 via c3, or round over f2, g5,
    // e5 and b2 (one of whose routes also lands on c3). "e1:c3:a1" is the first.
    let p = Position::from_fen(Variant::RUSSIAN, "W:WKd8,g7,Kh6,b4,Ke3,Ke1:BKe5,Kg5,b2,d2,Kf2").expect("fen");
    let short = p.parse_move("e1:c3:a1").expect("exact path");
    assert_eq!(short.captured_count(), 2);
    assert_eq!(p.parse_move("e1:h4:f6:d4:a1").expect("exact path").captured_count(), 4);
    assert_eq!(p.parse_move("e1:h4:a1").expect("partial path").captured_count(), 4);
    assert!(matches!(p.parse_move("e1:a1"), Err(kabe_rules::MoveError::Ambiguous { .. })));
}
