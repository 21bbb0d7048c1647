//! Property tests over random positions: notation round trips, colour symmetry, and
//! unmove generation checked against the forward generator both ways.

use crate::common;

use kabe_rules::notation::movetext::format;
use kabe_rules::{perft, Move, MoveError, MoveList, PieceKind, Position, Restore, Square, Variant};
use proptest::prelude::*;

fn same_outcome(a: &Move, b: &Move, v: &Variant) -> bool {
    a.from() == b.from()
        && a.to() == b.to()
        && a.promotes() == b.promotes()
        && a.captured_squares(v).eq(b.captured_squares(v))
}

fn variants() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn fen_round_trips(v in variants(), seed in any::<u64>()) {
        let p = common::random_position(v, seed);
        prop_assert_eq!(Position::from_fen(v, &p.fen()).expect("own FEN"), p);
        prop_assert_eq!(p.flipped().flipped(), p);
    }

    #[test]
    fn flipped_square_is_where_the_colour_flip_puts_a_piece(v in variants(), seed in any::<u64>()) {
        let p = common::random_position(v, seed);
        let flipped = p.flipped();
        for s in 0..v.squares() {
            let square = Square::from_number(s as u32 + 1, v.squares()).expect("on the board");
            let swapped = p.piece_at(square).map(|(color, kind)| (color.opposite(), kind));
            prop_assert_eq!(flipped.piece_at(p.flipped_square(square)), swapped, "square {} of {}", s + 1, p.fen());
        }
    }

    #[test]
    fn colour_flip_preserves_the_move_tree(v in variants(), seed in any::<u64>()) {
        let p = common::random_position(v, seed);
        prop_assert_eq!(perft(&p, 3), perft(&p.flipped(), 3), "{}", p.fen());
    }

    #[test]
    fn every_move_reads_back_from_its_text(v in variants(), seed in any::<u64>()) {
        let p = common::random_position(v, seed);
        let legal = p.legal_moves();
        for m in legal.iter() {
            let short = p.move_text(m);
            prop_assert_eq!(p.parse_move(&short), Ok(*m), "{} in {}", short, p.fen());
            let full = format(&v, m, true);
            prop_assert_eq!(p.parse_move(&full), Ok(*m), "{} in {}", full, p.fen());
        }
        // A short text shared by several moves is ambiguous, unless it is the full path
        // of one of them (a single capture): that one is meant, the others need their
        // landing squares written.
        for m in legal.iter().filter(|m| m.is_capture()) {
            let short = format(&v, m, false);
            let sharing: Vec<&Move> = legal.iter().filter(|o| o.from() == m.from() && o.to() == m.to()).collect();
            if sharing.len() > 1 {
                let exact = sharing.iter().find(|o| format(&v, o, true) == short);
                match exact {
                    Some(e) => prop_assert_eq!(p.parse_move(&short), Ok(**e), "{} in {}", short, p.fen()),
                    None => {
                        let ambiguous = matches!(p.parse_move(&short), Err(MoveError::Ambiguous { ref candidates, .. }) if candidates.len() == sharing.len());
                        prop_assert!(ambiguous, "{} in {}", short, p.fen());
                    }
                }
            }
        }
    }

    #[test]
    fn every_move_is_undone_by_an_unmove(v in variants(), seed in any::<u64>()) {
        let p = common::random_position(v, seed);
        let legal = p.legal_moves();
        // Turkish capture unmoves are a relaxed reverse search checked against the forward
        // generator (pieces leave at once, so a later jump may cross an earlier piece's
        // square): three pieces take seconds over the cases, four took 15 minutes on one
        // king's capture. The generator needs only quiet unmoves; three is the bound there.
        let most = if v.board.is_orthogonal() { 3 } else { 4 };
        for m in legal.iter().filter(|m| m.captured_count() <= most) {
            let next = p.play(m);
            let preds = if m.is_capture() {
                let kings = m.captured_squares(&v).filter(|s| p.piece_at(*s).map(|x| x.1) == Some(PieceKind::King)).count() as u32;
                next.capture_predecessors(Restore { men: m.captured_count() - kings, kings })
            } else {
                next.quiet_predecessors()
            };
            let found = preds.iter().any(|q| q.position == p && same_outcome(&q.mv, m, &v));
            prop_assert!(found, "{} from {} not undone from {}", p.move_text(m), p.fen(), next.fen());
        }
    }

    #[test]
    fn legal_captures_are_the_routes_with_one_route_per_outcome(v in variants(), seed in any::<u64>(), pieces in 2u32..12) {
        // The generator merges routes that only pass different squares (and searches a
        // king's way on along a ray from its first landing square only): what it gives
        // must be the full list of routes with each outcome's first route kept, in order.
        let p = if seed % 2 == 0 { common::random_endgame(v, seed, pieces) } else { common::random_position(v, seed) };
        let mut expected: Vec<Move> = Vec::new();
        for route in p.capture_routes() {
            if !expected.iter().any(|m| same_outcome(m, &route, &v)) {
                expected.push(route);
            }
        }
        let legal: Vec<Move> = p.legal_moves().iter().copied().filter(Move::is_capture).collect();
        prop_assert_eq!(legal, expected, "{}", p.fen());
    }

    #[test]
    fn the_solvers_move_list_is_the_legal_one_with_king_steps_counted(v in variants(), seed in any::<u64>()) {
        let p = common::random_position(v, seed);
        let legal = p.legal_moves();
        let quiet_king = |m: &Move| !m.is_capture() && m.piece() == PieceKind::King;
        let mut listed = MoveList::new();
        let king_steps = p.legal_moves_counting_king_steps(&mut listed);
        let expected: Vec<Move> = legal.iter().copied().filter(|m| !quiet_king(m)).collect();
        prop_assert_eq!(listed.to_vec(), expected, "{}", p.fen());
        prop_assert_eq!(king_steps, legal.iter().filter(|m| quiet_king(m)).count(), "{}", p.fen());
        prop_assert_eq!(p.count_legal_moves(), legal.len(), "{}", p.fen());
        // Where the caller knows there is no capture, the quiet lists are the same.
        if !p.has_capture() {
            let mut quiet = MoveList::new();
            prop_assert_eq!(p.quiet_moves_counting_king_steps(&mut quiet), king_steps, "{}", p.fen());
            prop_assert_eq!(quiet.to_vec(), listed.to_vec(), "{}", p.fen());
            p.legal_quiet_moves_into(&mut quiet);
            prop_assert_eq!(quiet.to_vec(), legal.to_vec(), "{}", p.fen());
        }
    }

    #[test]
    fn every_unmove_is_a_legal_move(v in variants(), seed in any::<u64>()) {
        let p = common::random_position(v, seed);
        for q in p.predecessors(2) {
            let legal = q.position.legal_moves();
            let m = legal.iter().find(|m| same_outcome(m, &q.mv, &v));
            prop_assert!(m.is_some(), "unmove {} of {} is not legal in {}", format(&v, &q.mv, true), p.fen(), q.position.fen());
            prop_assert_eq!(q.position.play(m.expect("checked")), p);
        }
    }
}
