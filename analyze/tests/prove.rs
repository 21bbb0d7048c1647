//! The proof search beyond the tables: published compositions proved down into the
//! 4-piece tables, proofs refused by the checker once damaged, and the search's verdicts
//! on 4-piece positions, searched with 3-piece tables only, against the 4-piece tables.

use crate::common;

use std::path::{Path, PathBuf};

use common::{shared_tables, tables_dir};
use kabe_analyze::prove::{
    check_disproof, check_proof, check_solution, main_line, prove, Budget, DisproofStep, DisproofTree, Outcome,
    PositionProof, ProofStep, ProofTree, ProveError,
};
use kabe_analyze::{replay, PdnReader, Replay};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Color, Counters, DrawRuleSet, DrawRules, Position, Signature, Variant, Wld};

fn compositions(file: &str) -> Vec<Replay> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/studies/compositions").join(file);
    let text = std::fs::read_to_string(&path).expect("bundled compositions");
    PdnReader::new(text.as_bytes()).filter_map(|g| replay(file, &g.expect("read"), None).ok()).collect()
}

fn international() -> (Tablebase, DrawRules) {
    let v = Variant::INTERNATIONAL;
    (Tablebase::open(tables_dir()).expect("open"), DrawRules::new(DrawRuleSet::Fmjd, &v))
}

fn search(tb: &Tablebase, rules: DrawRules, position: &Position, solver: Color, nodes: usize) -> PositionProof {
    let counters = Counters::fresh(&rules, position);
    prove(tb, position, &counters, solver, Budget { nodes, time: None }).expect("search")
}

fn key_tree(proof: &PositionProof) -> &ProofTree {
    match &proof.keys().next().expect("a key").outcome {
        Outcome::Win(tree) => tree,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_composition_is_proved_from_fourteen_pieces_down_into_the_tables() {
    let (tb, rules) = international();
    // M. Fedorov, FMJD contest 1998: W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42.
    let game = &compositions("Cat.B1.pdn")[0];
    assert_eq!(game.start.piece_count(), 14);
    let proof = search(&tb, rules, &game.start, Color::White, 400_000);
    assert_eq!(proof.wins(), Some(true));
    let keys: Vec<&str> = proof.keys().map(|k| k.text.as_str()).collect();
    assert_eq!(keys, ["46-41"], "one key");
    let tree = key_tree(&proof);
    check_proof(&tb, Color::White, tree).expect("the proof replays");
    let line: Vec<String> =
        std::iter::once("46-41".to_string()).chain(main_line(tree).into_iter().map(|(m, _)| m)).collect();
    let published: Vec<String> = game
        .moves
        .iter()
        .scan(game.start, |p, mv| {
            let text = p.move_text(mv);
            *p = p.play(mv);
            Some(text)
        })
        .collect();
    assert_eq!(line, published, "the main line is the published solution");
    let check = check_solution(&tb, &proof, &game.moves, Budget::default()).expect("check");
    assert!(check.holds(), "{check:?}");
    assert_eq!(check.plies_checked, game.moves.len());
    // Every other first move is refuted or stated as unresolved with its budget.
    for m in proof.moves.iter().filter(|m| m.text != "46-41") {
        match &m.outcome {
            Outcome::NotWin(r) => assert!(!r.line.is_empty(), "{}", m.text),
            Outcome::Unresolved { nodes, .. } => assert!(*nodes >= 400_000, "{}", m.text),
            Outcome::Win(_) => panic!("{} is no key", m.text),
        }
    }
}

#[test]
fn a_second_key_is_a_cook_with_its_line() {
    let (tb, rules) = international();
    // J.J. van Tol (Cat.B1, B39): 47-41 is published; 47-42 wins too.
    let game = compositions("Cat.B1.pdn")
        .into_iter()
        .find(|g| g.start.fen() == "W:W28,29,34,35,45,47:B7,17,18,19,25,37")
        .expect("B39");
    let proof = search(&tb, rules, &game.start, Color::White, 400_000);
    let mut keys: Vec<&str> = proof.keys().map(|k| k.text.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["47-41", "47-42"]);
    for key in proof.keys() {
        let Outcome::Win(tree) = &key.outcome else { unreachable!() };
        check_proof(&tb, Color::White, tree).expect("each cook's proof replays");
    }
}

#[test]
fn when_the_defender_moves_first_every_defence_is_refuted() {
    let (tb, rules) = international();
    let position = Position::from_fen(Variant::INTERNATIONAL, "B:W9,29,45,50:B10,15,35").expect("fen");
    let proof = search(&tb, rules, &position, Color::White, 100_000);
    assert!(!proof.solver_moves_first());
    assert_eq!(proof.wins(), Some(true));
    assert_eq!(proof.keys().count(), 0);
    assert!(proof.moves.iter().all(|m| m.outcome.is_win()));
    assert!(proof.longest_defence().is_some());
}

/// Leaves out one reply at the first defender's node with two or more.
fn drop_a_defence(tree: &mut ProofTree) -> bool {
    match &mut tree.step {
        ProofStep::Replies(r) if r.len() >= 2 => r.pop().is_some(),
        ProofStep::Replies(r) => r.iter_mut().any(|(_, t)| drop_a_defence(t)),
        ProofStep::Move(_, next) => drop_a_defence(next),
        _ => false,
    }
}

fn first_leaf(tree: &mut ProofTree) -> &mut ProofTree {
    let inner = match &tree.step {
        ProofStep::Move(..) => true,
        ProofStep::Replies(r) => !r.is_empty(),
        _ => false,
    };
    if !inner {
        return tree;
    }
    match &mut tree.step {
        ProofStep::Move(_, next) => first_leaf(next),
        ProofStep::Replies(r) => first_leaf(&mut r[0].1),
        _ => unreachable!("checked above"),
    }
}

#[test]
fn the_checker_refuses_a_damaged_proof() {
    let (tb, rules) = international();
    // J. Scheijen (Cat.D1, D52): the defender has choices along the way.
    let position = Position::from_fen(Variant::INTERNATIONAL, "W:W25,28,30,41,42,44:B9,12,14,19,29,36").expect("fen");
    let proof = search(&tb, rules, &position, Color::White, 400_000);
    let good = key_tree(&proof).clone();
    check_proof(&tb, Color::White, &good).expect("sound");

    // A defence left out.
    let mut cut = good.clone();
    assert!(drop_a_defence(&mut cut), "the proof has a choice of defences");
    assert!(check_proof(&tb, Color::White, &cut).is_err());
    // A leaf that is no win: the table leaf's position given to the other side.
    let mut leaf = good.clone();
    let l = first_leaf(&mut leaf);
    l.position = l.position.with_turn(l.position.turn().opposite());
    assert!(check_proof(&tb, Color::White, &leaf).is_err());
    // Other counts than the moves give.
    let mut counts = good.clone();
    first_leaf(&mut counts).counters.reset_plies += 7;
    assert!(check_proof(&tb, Color::White, &counts).is_err());
    // The proof claimed for the other side.
    assert!(check_proof(&tb, Color::Black, &good).is_err());
}

/// Leaves out one answer at the first solver's node with two or more moves.
fn drop_an_answer(tree: &mut DisproofTree) -> bool {
    match &mut tree.step {
        DisproofStep::Answers(a) if a.len() >= 2 => a.pop().is_some(),
        DisproofStep::Answers(a) => a.iter_mut().any(|(_, t)| drop_an_answer(t)),
        DisproofStep::Defence(_, next) => drop_an_answer(next),
        _ => false,
    }
}

/// Blonde (1819, Cat.D1 D27): 2-11 wins; 2-30 is the study's try, refuted only by 39-44;
/// every first move that does not win is disproved, each disproof and each defence's
/// replayed by the checker, which refuses one damaged.
#[test]
fn a_try_is_refuted_by_one_defence_alone_and_every_disproof_is_checked() {
    let (tb, rules) = international();
    let position = Position::from_fen(Variant::INTERNATIONAL, "W:WK2,K5:B12,22,39").expect("fen");
    let proof = search(&tb, rules, &position, Color::White, 400_000);
    assert_eq!(proof.keys().map(|k| k.text.as_str()).collect::<Vec<_>>(), ["2-11"]);
    let tries: Vec<&str> = proof.tries().map(|t| t.text.as_str()).collect();
    assert_eq!(tries, ["2-30"]);
    let the_try = proof.tries().next().expect("a try");
    let defences = the_try.defences.as_ref().expect("searched");
    assert_eq!(defences.refuting(), ["39-44"]);
    assert!(!defences.losing.is_empty() && defences.unresolved.is_empty(), "{defences:?}");
    let mut disproofs = 0;
    for m in proof.moves.iter().filter(|m| !m.outcome.is_win()) {
        let Outcome::NotWin(r) = &m.outcome else { panic!("{}: {:?}", m.text, m.outcome) };
        check_disproof(&tb, Color::White, &r.disproof).unwrap_or_else(|e| panic!("{}: {e}", m.text));
        for holding in &m.defences.as_ref().expect("searched").holding {
            check_disproof(&tb, Color::White, &holding.disproof).unwrap_or_else(|e| panic!("{}: {e}", m.text));
            disproofs += 1;
        }
    }
    assert!(disproofs >= proof.moves.len() - 1, "{disproofs}");

    let Outcome::NotWin(r) = &the_try.outcome else { panic!("the try is not a win") };
    let good = r.disproof.clone();
    // A move of the solver left unanswered.
    let mut cut = good.clone();
    assert!(drop_an_answer(&mut cut), "the disproof has a choice of moves for White");
    assert!(check_disproof(&tb, Color::White, &cut).is_err());
    // The disproof claimed for the other side.
    assert!(check_disproof(&tb, Color::Black, &good).is_err());
    // A defence that is not legal: the first one made in another position.
    let mut moved = good.clone();
    moved.position = position;
    assert!(check_disproof(&tb, Color::White, &moved).is_err());
}

#[test]
fn bad_budgets_and_positions_are_errors() {
    let (tb, rules) = international();
    let position =
        Position::from_fen(Variant::INTERNATIONAL, "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42").expect("fen");
    let counters = Counters::fresh(&rules, &position);
    let zero = prove(&tb, &position, &counters, Color::White, Budget { nodes: 0, time: None });
    assert!(matches!(zero, Err(ProveError::ZeroBudget)), "{zero:?}");
    let no_time = Budget { nodes: 10, time: Some(std::time::Duration::ZERO) };
    assert!(matches!(prove(&tb, &position, &counters, Color::White, no_time), Err(ProveError::ZeroBudget)));
    let russian = Position::from_fen(Variant::RUSSIAN, "W:Wa1,c3:Bh8").expect("fen");
    let only_international = Tablebase::builder(tables_dir()).variants(&[Variant::INTERNATIONAL]).open().expect("open");
    let other = prove(&only_international, &russian, &counters, Color::White, Budget::default());
    assert!(matches!(other, Err(ProveError::VariantNotOpen("russian"))), "{other:?}");
    // A tiny budget is stated, never a guess.
    let proof = search(&tb, rules, &position, Color::White, 3);
    assert_eq!(proof.wins(), None);
}

/// The Russian tables of at most 3 pieces, copied from the shared 4-piece set.
fn russian_three() -> PathBuf {
    shared_tables("prove-russian-3", |dir| {
        let from = tables_dir().join("russian");
        std::fs::create_dir_all(dir.join("russian")).expect("dir");
        for entry in std::fs::read_dir(&from).expect("tables") {
            let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
            let pieces: u32 = name.bytes().take(4).map(|b| (b - b'0') as u32).sum();
            if name.ends_with(".kabe") && pieces <= 3 {
                std::fs::copy(from.join(&name), dir.join("russian").join(&name)).expect("copy");
            }
        }
    })
}

#[test]
fn searched_with_three_piece_tables_the_proofs_agree_with_the_four_piece_tables() {
    let v = Variant::RUSSIAN;
    let rules = DrawRules::new(DrawRuleSet::Ussr1953, &v);
    let four = Tablebase::open(tables_dir()).expect("open");
    let three = Tablebase::open(russian_three()).expect("open");
    assert_eq!(three.max_pieces_of(&v), 3);
    let mut sigs = Vec::new();
    for wm in 0..=3u8 {
        for wk in 0..=3 - wm {
            for bm in 0..=3 - wm - wk {
                let bk = 4 - wm - wk - bm;
                if wm + wk > 0 && bm + bk > 0 {
                    sigs.push(Signature::new(wm, wk, bm, bk));
                }
            }
        }
    }
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let (mut proved, mut refuted, mut open, mut beyond_seen) = (0, 0, 0, 0);
    for round in 0..600 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let sig = sigs[round % sigs.len()];
        let index = MaterialIndex::new(v, sig).expect("index");
        let position = index.position(seed % index.len());
        if position.legal_moves().is_empty() {
            continue;
        }
        let counters = Counters::fresh(&rules, &position);
        let exact = four.probe(&position, &counters).expect("4-piece tables").exact;
        let solver = if round % 2 == 0 { Color::White } else { Color::Black };
        let proof = search(&three, rules, &position, solver, 3_000);
        let solver_result = if solver == position.turn() { exact } else { exact.for_opponent() };
        match proof.wins() {
            Some(true) => {
                proved += 1;
                assert_eq!(solver_result, Wld::Win, "{}: proved a win for {solver:?}", position.fen());
                for key in proof.keys() {
                    let child = position.play(&key.mv);
                    let after = counters.after(&key.mv, &child);
                    assert_eq!(
                        four.probe(&child, &after).expect("probe").exact,
                        Wld::Loss,
                        "{}: key {}",
                        position.fen(),
                        key.text
                    );
                }
            }
            Some(false) => {
                refuted += 1;
                assert_ne!(solver_result, Wld::Win, "{}: refuted a win for {solver:?}", position.fen());
            }
            None => {
                open += 1;
                for first in &proof.moves {
                    let Outcome::Unresolved { nodes, beyond } = &first.outcome else { continue };
                    // What the search still needs: 4-piece materials only, most met first,
                    // among them the material after a first move that takes nothing.
                    let at = format!("{} {}", position.fen(), first.text);
                    assert!(!beyond.is_empty(), "{at}");
                    assert!(beyond.windows(2).all(|w| w[0].positions >= w[1].positions), "{at}: {beyond:?}");
                    for b in beyond {
                        let pieces: u32 = b.material.bytes().take(4).map(|d| u32::from(d - b'0')).sum();
                        assert!(pieces == 4 && b.positions > 0 && b.positions <= *nodes, "{at}: {b:?}");
                    }
                    if !first.mv.is_capture() {
                        // Its root: the position after the move (a promotion changes the material).
                        let s = Signature::of(&position.play(&first.mv));
                        let (a, b) = if s <= s.flipped() { (s, s.flipped()) } else { (s.flipped(), s) };
                        let material = if a == b { a.to_string() } else { format!("{a}+{b}") };
                        assert!(beyond.iter().any(|x| x.material == material), "{at}: {material} in {beyond:?}");
                    }
                    beyond_seen += 1;
                }
            }
        }
    }
    assert!(proved >= 50 && refuted >= 50, "proved {proved}, refuted {refuted}, unresolved {open}");
    assert!(beyond_seen >= 10, "{beyond_seen} unresolved first moves");
}

#[test]
fn every_composition_of_a_collection_is_proved_or_stated_unresolved_never_refuted() {
    let (tb, rules) = international();
    let mut sound = 0;
    for game in compositions("Cat.D1.pdn") {
        let proof = search(&tb, rules, &game.start, Color::White, 200_000);
        assert_ne!(proof.wins(), Some(false), "{}: a published composition refuted", game.start.fen());
        if proof.wins() == Some(true) {
            sound += 1;
            let check = check_solution(&tb, &proof, &game.moves, Budget { nodes: 200_000, time: None }).expect("check");
            assert!(check.key_proved || !proof.solver_moves_first(), "{}: {check:?}", game.start.fen());
        }
    }
    assert!(sound >= 12, "{sound} proved");
}
