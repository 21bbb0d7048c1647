//! Turkish draughts: the orthogonal board, men stepping forward and sideways, flying
//! kings along rows and columns, pieces removed as they are jumped, no turning back.

use kabe_rules::{perft, perft_routes, Position, Variant};

fn moves(fen: &str, variant: Variant) -> Vec<String> {
    let p = Position::from_fen(variant, fen).expect("fen");
    let mut out: Vec<String> = p.legal_moves().iter().map(|m| p.move_text(m)).collect();
    out.sort();
    out
}

#[test]
fn perft_counts_every_route_as_kish_publishes() {
    let start = Position::start(Variant::TURKISH);
    let kish = [8, 64, 708, 7538, 85090, 931312, 10782382];
    for (depth, expected) in (1..).zip(kish) {
        assert_eq!(perft_routes(&start, depth), expected, "depth {depth}");
    }
    // One move per outcome: the same until depth 7, where routes to one outcome appear.
    assert_eq!(perft(&start, 6), 931312);
    assert_eq!(perft(&start, 7), 10782308);
}

#[test]
fn men_step_forward_and_sideways_and_kings_fly_orthogonally() {
    assert_eq!(moves("W:Wd4:Bh8", Variant::TURKISH), ["d4-c4", "d4-d5", "d4-e4"]);
    assert_eq!(moves("B:Wh1:Bd4", Variant::TURKISH), ["d4-c4", "d4-d3", "d4-e4"]);
    // A king stops at its own man; the pydraughts count differs exactly here.
    let king = moves("W:Wa2,Ka8:Bh8", Variant::TURKISH);
    assert!(king.contains(&"a8-a3".to_string()) && !king.contains(&"a8-a1".to_string()), "{king:?}");
    assert_eq!(king.len(), 5 + 6 + 2, "{king:?}"); // a7..a3, b8..g8 (h8 taken), a2-a3 a2-b2
}

#[test]
fn captured_pieces_leave_at_once_and_a_king_never_turns_straight_back() {
    // The king takes d5 and turns along row 7 to take c7: two pieces (majority rule).
    assert_eq!(moves("W:WKd1:Bd5,c7,Kh7", Variant::TURKISH), ["d1:a7", "d1:b7"]);
    // Removed at once: after d4xd6 the king may cross d5's square again going on west
    // and east, but never straight back down the d-file to take d2.
    let routes = Position::from_fen(Variant::TURKISH, "W:WKd4:Bd5,c7,d2,Kh1").expect("fen").capture_routes();
    assert!(routes.iter().all(|m| m.captured_count() == 2), "{routes:?}");
    // A man takes sideways and forward; the majority rule picks the longest.
    assert_eq!(moves("W:Wc3:Bd3,e4,e6,a8", Variant::TURKISH), ["c3:e7"]);
}

#[test]
fn a_man_reaching_the_last_row_mid_capture_follows_the_named_reading() {
    // White man b6 takes b7 landing on b8 (the last row), with c8 beside it: crowned at
    // once, it flies on over c8 to h8 and down over h2 (three pieces, the majority);
    // staying a man it takes c8 sideways and stops on d8; stopping, it takes one.
    let fen = "W:Wb6:Bb7,c8,h2";
    assert_eq!(moves(fen, Variant::TURKISH), ["b6:h1"]);
    assert_eq!(moves(fen, Variant::TURKISH_CROWN_AT_END), ["b6:d8"]);
    assert_eq!(moves(fen, Variant::TURKISH_CROWN_AND_STOP), ["b6:b8"]);
}

#[test]
fn one_piece_against_one_is_a_draw_as_soon_as_it_is_on_the_board() {
    use kabe_rules::{DrawnMaterial, Score, Wld};
    // A king against a man: the king could take it, but one piece each is a draw.
    let lone = Position::from_fen(Variant::TURKISH, "W:WKd1:Bd5").expect("fen");
    assert!(lone.is_drawn_by_material() && lone.is_over());
    assert_eq!(lone.result_if_over(), Some(Wld::Draw));
    assert_eq!(lone.settled_score(), Some(Score::DRAW));
    // The capture that leaves one piece each ends the game drawn.
    let before = Position::from_fen(Variant::TURKISH, "W:WKd1:Bd5,h7").expect("fen");
    assert!(!before.is_over() && before.settled_score().is_none());
    let after = before.play(&before.legal_moves().iter().next().expect("a capture").clone());
    assert_eq!(after.result_if_over(), Some(Wld::Draw), "{}", after.fen());
    // Only Turkish draws by material; a side without a piece has lost everywhere.
    let russian = Position::from_fen(Variant::RUSSIAN, "W:WKc3:Bf6").expect("fen");
    assert!(!russian.is_drawn_by_material() && russian.settled_score().is_none());
    assert_eq!(Variant::RUSSIAN.drawn_material, DrawnMaterial::Never);
    let gone = Position::from_fen(Variant::TURKISH, "B:Wd4,e4:B").expect("fen");
    assert_eq!(gone.settled_score(), Some(Score::loss(0)));
}
