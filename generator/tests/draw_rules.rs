//! The rule tables against the independent brute force, every position and every
//! counter state, on the small material (`kabe check-rules` covers up to 4 pieces).

use kabe_generator::{
    brute_rules, check_signature, solve_all, solve_rule_pair, with_deep_stack, BruteForce, MemoryOracle, Registry,
    RuleRegistry,
};
use kabe_probe::{DrawRuleSet, DrawRules, Signature, Variant};

fn rule_tables(theory: &Registry, rules: DrawRules, sigs: &[Signature]) -> RuleRegistry {
    let mut done = RuleRegistry::new(rules);
    for &sig in sigs {
        if done.table(sig).is_some() {
            continue;
        }
        let finished = MemoryOracle::new(theory, &done);
        let solved = solve_rule_pair(&finished, rules, theory.variant(), sig, &|_| {}).expect("tables solved before");
        for table in solved.unwrap_or_default() {
            done.insert(table);
        }
    }
    done
}

fn check(variant: Variant, set: DrawRuleSet, sigs: &[Signature], theory: &Registry) -> u64 {
    let rules = DrawRules::new(set, &variant);
    let done = rule_tables(theory, rules, sigs);
    let oracle = MemoryOracle::new(theory, &done);
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

fn signatures(max_pieces: u32) -> Vec<Signature> {
    (2..=max_pieces).flat_map(Signature::all_with).collect()
}

#[test]
fn international_fmjd_up_to_three_pieces() {
    let theory = solve_all(Variant::INTERNATIONAL, 3, |_| {});
    let sigs = signatures(3);
    let states = check(Variant::INTERNATIONAL, DrawRuleSet::Fmjd, &sigs, &theory);
    assert!(states > 1_000_000, "{states} states compared");
    check(Variant::INTERNATIONAL, DrawRuleSet::Fmjd2000, &sigs, &theory);
}

#[test]
fn russian_ussr1953_up_to_three_pieces_and_three_kings_against_one() {
    let theory = solve_all(Variant::RUSSIAN, 4, |_| {});
    let mut sigs = signatures(3);
    sigs.extend([Signature::new(0, 3, 0, 1), Signature::new(0, 1, 0, 3)]);
    let states = check(Variant::RUSSIAN, DrawRuleSet::Ussr1953, &sigs, &theory);
    assert!(states > 1_000_000, "{states} states compared");
}
