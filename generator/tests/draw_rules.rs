//! The rule tables against the independent brute force, every position and every
//! counter state, on the small material (`kabe check-rules` covers up to 4 pieces).

use kabe_generator::{
    brute_rules, check_pair_layered, check_signature, solve_all, solve_rules, with_deep_stack, AsOracle, BruteForce,
    LayeredBrute, MemoryTables, Registry,
};
use kabe_probe::rules::exact::verdict;
use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, Signature, Variant, Wld};

fn check(variant: Variant, set: DrawRuleSet, sigs: &[Signature], theory: &Registry) -> u64 {
    let rules = DrawRules::new(set, &variant);
    let done = solve_rules(theory, rules, sigs.iter().copied());
    let oracle = MemoryTables::new(theory, &done);
    let brute = brute_rules(set, &variant).expect("a counted rule set");
    with_deep_stack(|| {
        let mut brute = BruteForce::new(variant, brute);
        let mut states = 0;
        for &sig in sigs {
            let report = check_signature(&mut brute, &rules, &oracle, variant, sig).expect("tables present");
            assert_eq!(report.disagreements, 0, "{variant:?} {set} {sig}: {:#?}", report.examples);
            states += report.states;
        }
        states
    })
}

/// The same with the layered brute force; returns the states compared.
fn check_layered(variant: Variant, set: DrawRuleSet, sigs: &[Signature], theory: &Registry, move_budget: usize) -> u64 {
    let rules = DrawRules::new(set, &variant);
    let done = solve_rules(theory, rules, sigs.iter().copied());
    let oracle = MemoryTables::new(theory, &done);
    let mut brute = LayeredBrute::new(variant, brute_rules(set, &variant).expect("a counted rule set"))
        .with_move_budget(move_budget);
    let mut states = 0;
    for &sig in sigs {
        for report in check_pair_layered(&mut brute, &rules, &oracle, sig).expect("layered") {
            assert_eq!(report.disagreements, 0, "{variant:?} {set} {:?}: {:#?}", report.signature, report.examples);
            states += report.states;
        }
    }
    states
}

fn signatures(max_pieces: u32) -> Vec<Signature> {
    (2..=max_pieces).flat_map(Signature::all_with).collect()
}

/// The exact verdict of `fen` with `counters` under `set`, from tables built for `sigs`.
fn exact(variant: Variant, set: DrawRuleSet, sigs: &[Signature], theory: &Registry, fen: &str, counters: &str) -> Wld {
    let rules = DrawRules::new(set, &variant);
    let done = solve_rules(theory, rules, sigs.iter().copied());
    let oracle = MemoryTables::new(theory, &done);
    let position = Position::from_fen(variant, fen).expect("fen");
    let counters = Counters::parse(&rules, &position, counters).expect("counters");
    verdict(&AsOracle(&oracle), &position, &counters).expect("tables present").exact
}

#[test]
fn international_fmjd_and_its_readings_up_to_three_pieces() {
    let theory = solve_all(Variant::INTERNATIONAL, 3, |_| {});
    let sigs = signatures(3);
    let states = check(Variant::INTERNATIONAL, DrawRuleSet::Fmjd, &sigs, &theory);
    assert!(states > 1_000_000, "{states} states compared");
    check(Variant::INTERNATIONAL, DrawRuleSet::Fmjd2000, &sigs, &theory);
    check(Variant::INTERNATIONAL, DrawRuleSet::Fmjd64Stands, &sigs, &theory);
    // King and man against king, 8 plies of 6.4 gone: Black's king takes the king (1x12)
    // and wins the man in 3 plies. The default reading starts afresh after the capture
    // (man against king is no 6.4 ending); fmjd-6.4-stands keeps the 2 plies left.
    let (fen, counts) = ("B:WK7,11:BK1", "6.4=8");
    assert_eq!(exact(Variant::INTERNATIONAL, DrawRuleSet::Fmjd, &sigs, &theory, fen, counts), Wld::Win);
    assert_eq!(exact(Variant::INTERNATIONAL, DrawRuleSet::Fmjd64Stands, &sigs, &theory, fen, counts), Wld::Draw);
}

#[test]
fn russian_ussr1953_and_its_old_reading_up_to_three_pieces_and_three_kings_against_one() {
    let theory = solve_all(Variant::RUSSIAN, 4, |_| {});
    let mut sigs = signatures(3);
    sigs.extend([Signature::new(0, 3, 0, 1), Signature::new(0, 1, 0, 3)]);
    let states = check(Variant::RUSSIAN, DrawRuleSet::Ussr1953, &sigs, &theory);
    assert!(states > 1_000_000, "{states} states compared");
    check(Variant::RUSSIAN, DrawRuleSet::Ussr1953CountEnds, &sigs, &theory);
    // The arbiter case: 16 plies of §16c gone, 19 left. Giving up a king and taking
    // the lone king after it wins only if the capture ended the deadline (the old reading);
    // as written, the deadline stands and the 21-ply win does not fit.
    let (fen, counts) = ("W:WKa1,Kd2,Kf6:BKc5", "16c=16");
    assert_eq!(exact(Variant::RUSSIAN, DrawRuleSet::Ussr1953, &sigs, &theory, fen, counts), Wld::Draw);
    assert_eq!(exact(Variant::RUSSIAN, DrawRuleSet::Ussr1953CountEnds, &sigs, &theory, fen, counts), Wld::Win);
    // After the lone king took two of the kings, king against king: the deadline is
    // still White's (`:white`), and 30 plies of it leave 5.
    let rules = DrawRules::new(DrawRuleSet::Ussr1953, &Variant::RUSSIAN);
    let kk = Position::from_fen(Variant::RUSSIAN, "W:WKc1:BKh8").expect("fen");
    assert!(Counters::parse(&rules, &kk, "16c=30").is_err(), "whose deadline: the material cannot tell");
    let c = Counters::parse(&rules, &kk, "16c=30:white").expect("named");
    assert_eq!(c.governing(&kk), Some(("16c", 5)));
    assert_eq!(c.describe_at(&kk), "16b=0,16c=30:white");
}

#[test]
fn the_layered_brute_force_agrees_with_the_tables_in_bounded_memory() {
    let theory = solve_all(Variant::RUSSIAN, 4, |_| {});
    let mut sigs = signatures(3);
    sigs.extend([Signature::new(0, 3, 0, 1), Signature::new(0, 2, 1, 0)]);
    // Every pair once (the solver answers for a signature and its colour flip).
    let mut pairs: Vec<Signature> = Vec::new();
    for s in &sigs {
        if !pairs.contains(s) && !pairs.contains(&s.flipped()) {
            pairs.push(*s);
        }
    }
    let states = check_layered(Variant::RUSSIAN, DrawRuleSet::Ussr1953, &pairs, &theory, usize::MAX);
    assert!(states > 1_000_000, "{states} states compared");
    // No moves kept: made again for every rank, the same states compared.
    assert_eq!(check_layered(Variant::RUSSIAN, DrawRuleSet::Ussr1953, &pairs, &theory, 0), states);
    check_layered(Variant::RUSSIAN, DrawRuleSet::Ussr1953CountEnds, &pairs, &theory, 1 << 20);
    // FMJD, kings only: the materials it takes.
    let theory = solve_all(Variant::INTERNATIONAL, 3, |_| {});
    let kings = [Signature::new(0, 1, 0, 1), Signature::new(0, 2, 0, 1)];
    let states = check_layered(Variant::INTERNATIONAL, DrawRuleSet::Fmjd, &kings, &theory, usize::MAX);
    assert!(states > 100_000, "{states} states compared");
    check_layered(Variant::INTERNATIONAL, DrawRuleSet::Fmjd64Stands, &kings, &theory, 0);
    // A man under FMJD resets 6.2 inside its material: refused, never solved wrongly.
    let rules = DrawRules::new(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
    let done = solve_rules(&theory, rules, signatures(3));
    let oracle = MemoryTables::new(&theory, &done);
    let mut brute = LayeredBrute::new(
        Variant::INTERNATIONAL,
        brute_rules(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL).expect("fmjd"),
    );
    assert!(check_pair_layered(&mut brute, &rules, &oracle, Signature::new(1, 0, 0, 1)).is_err());
}
