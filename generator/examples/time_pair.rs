//! Times solving one pair (a signature and its colour flip) in memory, reading the
//! finished tables it needs from a table directory, without writing anything:
//! `cargo run --release -p kabe-generator --example time_pair -- DIR VARIANT SIG [ROUNDS] [RULES [rules-only]]`
//! (e.g. `tables international 2111 1 fmjd`). The theoretical pass is timed unless
//! `rules-only` is given; with a rule set named, its rule pass too, which reads which
//! positions are drawn in theory from the theory pass's results as a build does, or with
//! `rules-only` from the pair's own theoretical files in DIR (which must then be there). Prints
//! each round's times and positions/s. The tables read are decoded into their working
//! form first, as a build does (timed apart), every one counted whole as a build with
//! room for them all counts them. `KABE_PASS=plain` times the plain pass where a build
//! would solve the pair by symmetry (a pair of kings only), to compare the two on one
//! binary, `KABE_PASS=words` the pass bit-parallel over a king's square; `KABE_CHECK=fastest`
//! compares the theory's scores and the rule values with the default pass's, position by
//! position.
use kabe_generator::finished::results::{PairResults, WithResults};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{DrawRuleSet, DrawRules, Signature, Variant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: time_pair DIR VARIANT SIG [ROUNDS] [RULES [rules-only]]";
    let dir = args.get(1).expect(usage);
    let variant = Variant::by_name(args.get(2).expect(usage)).expect("a variant");
    let sig: Signature = args.get(3).expect(usage).parse().expect("a signature such as 2111");
    let rounds: usize = args.get(4).map_or(1, |r| r.parse().expect("rounds"));
    let rules: Option<DrawRuleSet> = args.get(5).map(|r| r.parse().expect("a rule set such as fmjd"));
    let theory = match args.get(6).map(String::as_str) {
        None => true,
        Some("rules-only") => false,
        Some(other) => panic!("{usage}: `{other}` is not `rules-only`"),
    };
    let mut builder = Tablebase::builder(dir).variants(&[variant]).cache_bytes(1 << 30);
    if let Some(set) = rules {
        builder = builder.rules(set);
    }
    let tb = builder.open().expect("open");
    let threads = rayon::current_num_threads();
    let pass = pass_from_env();
    let pair = kabe_generator::TablePair::of(sig);
    let decode = |rules: DrawRules| {
        let start = std::time::Instant::now();
        let mut working = kabe_generator::WorkingSet::new(variant, rules);
        let dir = std::path::Path::new(dir);
        let needed = kabe_generator::tables_read(variant, &[pair], |sig| working.searched_whole(dir, sig));
        for &input in &needed {
            working.load(dir, input).expect("an input table opened");
        }
        // As a build with room for them: every input counted whole.
        working.arrange(&needed, u64::MAX / 2);
        println!(
            "working form of {} tables ({:?}): up to {:.0} MB, opened in {:.1} s",
            needed.len(),
            rules.set,
            working.bytes() as f64 / 1e6,
            start.elapsed().as_secs_f64()
        );
        working
    };
    let theory_inputs = theory.then(|| decode(DrawRules::NONE));
    let rule_inputs = rules.map(|set| decode(DrawRules::new(set, &variant)));
    for round in 1..=rounds {
        // The theory's results, every position, which a build leaves for its rule pass.
        let mut results = None;
        if let Some(working) = &theory_inputs {
            let start = std::time::Instant::now();
            let tables = kabe_generator::solve_pair_by(&working.view(&tb), variant, sig, pass, &|_| {})
                .expect("the tables it reads");
            let secs = start.elapsed().as_secs_f64();
            let positions: u64 = tables.iter().map(|t| t.scores.len() as u64).sum();
            let draws = tables.iter().flat_map(|t| &t.scores).filter(|s| s.wld() == kabe_probe::Wld::Draw).count();
            println!(
                "round {round}: {} theory ({pass:?} pass), {positions} positions in {secs:.1} s, {:.2} M positions/s ({threads} threads), {:.1}% drawn",
                kabe_generator::TablePair::of(sig),
                positions as f64 / secs / 1e6,
                100.0 * draws as f64 / positions as f64,
            );
            if std::env::var("KABE_CHECK").as_deref() == Ok("fastest") {
                // The same pair by the default pass, compared position by position.
                let fastest = kabe_generator::solve_pair_by(
                    &working.view(&tb),
                    variant,
                    sig,
                    kabe_generator::PairPass::Fastest,
                    &|_| {},
                )
                .expect("the tables it reads");
                for (ours, theirs) in tables.iter().zip(&fastest) {
                    report_differences(ours.index.signature(), "scores", &ours.scores, &theirs.scores);
                }
            }
            results = Some(PairResults::of_solved(&tables));
        }
        if let Some(set) = rules {
            let rules = DrawRules::new(set, &variant);
            let start = std::time::Instant::now();
            let finished = rule_inputs.as_ref().expect("decoded").view(&tb);
            let from = if results.is_some() { "the theory's results" } else { "the pair's files" };
            let oracle = WithResults { finished: &finished, results: results.take() };
            let tables = kabe_generator::solve_rule_pair_by(&oracle, rules, variant, sig, pass, &|_| {})
                .expect("the tables it reads");
            let secs = start.elapsed().as_secs_f64();
            let positions: u64 = tables.iter().flatten().map(|t| t.values.len() as u64).sum();
            println!(
                "round {round}: {} {set:?} rules ({pass:?} pass), {positions} positions in {secs:.1} s, {:.2} M positions/s ({threads} threads), drawn in theory from {from}",
                kabe_generator::TablePair::of(sig),
                positions as f64 / secs / 1e6,
            );
            if std::env::var("KABE_CHECK").as_deref() == Ok("fastest") {
                // The same rule tables by the default pass, compared position by position
                // (drawn in theory read from the pair's files).
                let oracle = WithResults { finished: &finished, results: None };
                let fastest = kabe_generator::solve_rule_pair(&oracle, rules, variant, sig, &|_| {});
                let fastest = fastest.expect("the tables it reads");
                for (ours, theirs) in tables.iter().flatten().zip(fastest.iter().flatten()) {
                    report_differences(ours.index.signature(), "rule values", &ours.values, &theirs.values);
                }
            }
        }
    }
}

/// Prints how many of a table's values differ between the pass timed and the default one.
fn report_differences<T: PartialEq>(sig: Signature, what: &str, ours: &[T], theirs: &[T]) {
    let differ = ours.iter().zip(theirs).filter(|(a, b)| a != b).count();
    println!("{sig}: {differ} of {} {what} differ from the Fastest pass", ours.len());
}

/// The pass `KABE_PASS` names.
fn pass_from_env() -> kabe_generator::PairPass {
    match std::env::var("KABE_PASS").as_deref() {
        Ok("plain") => kabe_generator::PairPass::Plain,
        Ok("fastest") | Err(_) => kabe_generator::PairPass::Fastest,
        Ok("words") => kabe_generator::PairPass::KingWords,
        Ok(other) => panic!("KABE_PASS is `plain`, `fastest` or `words`, not `{other}`"),
    }
}
