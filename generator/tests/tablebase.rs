//! The probe library against the generator's memory (theoretical and rule tables solved
//! without files), on Russian tables up to 4 pieces of which one table of each pair is
//! found by search: values, capture resolution, the cache, errors, threads.

use crate::common;

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use kabe_generator::{
    build, build_rules, keep_one_side, solve_all, solve_rules, AsOracle, DroppedFiles, Finished, MemoryTables,
    Registry, RuleRegistry,
};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::rules::exact::verdict;
use kabe_probe::table::TableError;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, Signature, Variant, Wld};

fn temp_dir(name: &str) -> common::TempDir {
    common::temp_dir(&format!("tablebase-{name}"))
}

/// Builds the files (reading finished tables back through the files), keeps one table
/// of each pair, and returns the same tables solved in memory, to compare with.
fn build_into(dir: &Path, pieces: u32) -> (Registry, RuleRegistry) {
    build(Variant::RUSSIAN, pieces, dir, &|_| {}).expect("build");
    let rules = DrawRules::new(DrawRuleSet::Ussr1953, &Variant::RUSSIAN);
    build_rules(Variant::RUSSIAN, rules, pieces, dir, &|_| {}).expect("rule tables");
    let kept = keep_one_side(dir, Variant::RUSSIAN, pieces, DroppedFiles::Replaced).expect("one side");
    assert!(kept.files > 0, "{kept:?}");
    let theory = solve_all(Variant::RUSSIAN, pieces, |_| {});
    let rule_tables = solve_rules(&theory, rules, signatures(pieces));
    (theory, rule_tables)
}

type Tables = (common::TempDir, (Registry, RuleRegistry));

/// Russian tables up to 4 pieces, shared by the tests of this file that run at once, and
/// removed when the last of them lets go (a static would never be dropped; nextest runs
/// each test in a process of its own, so there each test builds and removes its set).
fn tables() -> Arc<Tables> {
    static TABLES: Mutex<Weak<Tables>> = Mutex::new(Weak::new());
    let mut shared = TABLES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(tables) = shared.upgrade() {
        return tables;
    }
    let dir = temp_dir("four");
    let solved = build_into(&dir, 4);
    let tables = Arc::new((dir, solved));
    *shared = Arc::downgrade(&tables);
    tables
}

fn signatures(pieces: u32) -> Vec<Signature> {
    (2..=pieces).flat_map(Signature::all_with).collect()
}

/// Every position of `sig`, each side to move.
fn positions(sig: Signature) -> impl Iterator<Item = Position> {
    let index = MaterialIndex::new(Variant::RUSSIAN, sig).expect("index");
    let all: Vec<Position> = index.positions(0..index.len()).collect();
    all.into_iter().flat_map(|p| [p, p.flipped()])
}

#[test]
fn every_value_matches_the_generator_solved_in_memory() {
    let tables = tables();
    let (dir, (registry, rule_tables)) = &*tables;
    let tb = Tablebase::builder(dir).cache_bytes(1 << 20).open().expect("open");
    assert_eq!(tb.max_pieces(), 4);
    assert_eq!(tb.max_pieces_of(&Variant::RUSSIAN), 4);
    assert_eq!(tb.max_pieces_of(&Variant::INTERNATIONAL), 0);
    let rules = *tb.draw_rules(&Variant::RUSSIAN).expect("russian open");
    let reader = MemoryTables::new(registry, rule_tables);
    let mut compared = 0u64;
    for sig in signatures(4) {
        let table = registry.table(sig).expect("solved");
        // Every position up to 3 pieces, every 7th of 4.
        let step = if sig.pieces() < 4 { 1 } else { 7 };
        for (i, p) in table.index.positions(0..table.index.len()).enumerate().step_by(step) {
            assert_eq!(tb.probe_wld(&p).expect("wld"), table.scores[i].wld(), "{}", p.fen());
            assert_eq!(tb.probe_dtw(&p).expect("dtw"), table.scores[i], "{}", p.fen());
            // The exact verdict with a count already running, against the tables in memory.
            let mut counters = Counters::fresh(&rules, &p);
            counters.reset_plies = 40;
            if let Some(m) = counters.material.as_mut() {
                m.plies = 16;
                counters.reset_plies = 16;
            }
            let counters = Counters::new(&rules, &p, counters.reset_plies, counters.material).expect("valid");
            let ours = tb.probe(&p, &counters).expect("probe");
            let theirs = verdict(&AsOracle(&reader), &p, &counters).expect("reader");
            assert_eq!(ours, theirs, "{} {}", p.fen(), counters.describe(p.variant()));
            compared += 1;
        }
    }
    assert!(compared > 400_000, "{compared}");
    let stats = tb.cache_stats();
    assert!(stats.used_bytes <= stats.capacity_bytes && stats.misses > 0, "{stats:?}");
}

#[test]
fn a_run_of_stored_values_is_what_each_position_stores() {
    let tables = tables();
    let (dir, _) = &*tables;
    // A small cache, so that runs cross blocks that must be read again.
    let tb = Tablebase::builder(dir).cache_bytes(1 << 16).open().expect("open");
    let mut compared = 0;
    for sig in signatures(4) {
        let index = MaterialIndex::new(Variant::RUSSIAN, sig).expect("index");
        let all: Vec<Position> = index.positions(0..index.len()).collect();
        // Runs of every length from 1 up, each starting where the last ended.
        let (mut first, mut length) = (0, 1);
        while first < all.len() {
            let run = &all[first..(first + length).min(all.len())];
            let mut stored = Vec::new();
            tb.probe_wld_stored_run(sig, first as u64, run, &mut stored).expect("run");
            let one_by_one: Vec<Option<Wld>> = run.iter().map(|p| tb.probe_wld_stored(p).expect("one")).collect();
            assert_eq!(stored, one_by_one, "{sig} from {first}");
            compared += run.len();
            first += length;
            length = length * 3 / 2 + 1;
        }
    }
    assert!(compared > 1_000_000, "{compared}");
}

#[test]
fn positions_beyond_the_tables_are_resolved_through_their_captures() {
    let tables = tables();
    let (dir, _) = &*tables;
    // Only the tables up to 3 pieces: 4-piece positions with a capture must be resolved.
    let small = temp_dir("three");
    build_into(&small, 3);
    let three = Tablebase::open(&small).expect("open");
    let four = Tablebase::open(dir).expect("open");
    let rules = *four.draw_rules(&Variant::RUSSIAN).expect("open");
    let (mut resolved, mut refused) = (0, 0);
    for sig in Signature::all_with(4) {
        for p in positions(sig).step_by(7) {
            let must_capture = p.legal_moves().first().is_some_and(|m| m.is_capture());
            match three.probe_wld(&p) {
                Ok(w) => {
                    assert!(must_capture, "{}", p.fen());
                    assert_eq!(w, four.probe_wld(&p).expect("four"), "{}", p.fen());
                    assert_eq!(three.probe_dtw(&p).expect("dtw"), four.probe_dtw(&p).expect("dtw"), "{}", p.fen());
                    let counters = Counters::fresh(&rules, &p);
                    let (a, b) = (three.probe(&p, &counters).expect("3"), four.probe(&p, &counters).expect("4"));
                    assert_eq!((a.exact, a.theoretical), (b.exact, b.theoretical), "{}", p.fen());
                    resolved += 1;
                }
                Err(ProbeError::TooManyPieces { signature, pieces, largest, .. }) => {
                    assert!(!must_capture, "{}", p.fen());
                    assert_eq!(signature, Signature::of(&p));
                    assert_eq!((pieces, largest), (4, 3), "{}", p.fen());
                    refused += 1;
                }
                Err(e) => panic!("{}: {e}", p.fen()),
            }
        }
    }
    assert!(resolved > 1000 && refused > 1000, "{resolved} resolved, {refused} refused");

    // Far beyond the tables the captures are not searched at all: bounded work for any
    // position (a capture chain of 24 pieces down to 3 would be a search without end).
    let far = Position::from_fen(
        Variant::RUSSIAN,
        "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3,d4:Bc5,a7,c7,e7,g7,b8,d8,f8,h8,d6,f6,h6",
    )
    .expect("fen");
    assert!(far.legal_moves().first().is_some_and(|m| m.is_capture()));
    assert!(far.piece_count() > 3 + kabe_probe::tablebase::CAPTURE_REACH);
    let e = three.probe_wld(&far).expect_err("beyond the tables");
    assert!(matches!(e, ProbeError::TooManyPieces { pieces: 25, largest: 3, .. }), "{e}");
    assert!(e.to_string().contains("kabe builds tables of up to 8 pieces"), "{e}");
}

#[test]
fn a_cached_only_probe_never_reads_and_the_cache_keeps_its_bound() {
    let tables = tables();
    let (dir, _) = &*tables;
    let tb = Tablebase::builder(dir).cache_bytes(64 * 4096).open().expect("open");
    let p = Position::from_fen(Variant::RUSSIAN, "W:WKa1,Kc1:BKh8").expect("fen");
    assert_eq!(tb.probe_wld_cached(&p).expect("cached"), None);
    assert_eq!(tb.cache_stats().misses, 0);
    let w = tb.probe_wld(&p).expect("probe");
    assert_eq!(tb.probe_wld_cached(&p).expect("cached"), Some(w));
    for sig in signatures(4) {
        for p in positions(sig).step_by(101) {
            tb.probe_wld(&p).expect("probe");
        }
    }
    let stats = tb.cache_stats();
    assert!(stats.used_bytes <= 64 * 4096 && stats.blocks > 10, "{stats:?}");
}

#[test]
fn threads_share_one_tablebase_and_agree_with_one_thread() {
    let tables = tables();
    let (dir, _) = &*tables;
    let tb = Tablebase::builder(dir).cache_bytes(1 << 16).open().expect("open");
    let all: Vec<Position> = signatures(4).into_iter().flat_map(|s| positions(s).step_by(97)).collect();
    let alone: Vec<Wld> = all.iter().map(|p| tb.probe_wld(p).expect("probe")).collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (tb, all, alone) = (&tb, &all, &alone);
            s.spawn(move || {
                for (i, p) in all.iter().enumerate().skip(t * 100) {
                    assert_eq!(tb.probe_wld(p).expect("probe"), alone[i]);
                }
            });
        }
    });
}

#[test]
fn bad_directories_and_files_are_errors_naming_them() {
    let dir = temp_dir("bad");
    build_into(&dir, 3);
    let file = |sig: &str, metric: &str| dir.join("russian").join(format!("{sig}.{metric}.kabe"));
    let p = Position::from_fen(Variant::RUSSIAN, "W:Wc3:Bf6").expect("fen");

    // Not a directory; a variant that is not open.
    let e = Tablebase::open(dir.join("nowhere")).expect_err("no dir");
    assert!(matches!(e, ProbeError::Directory { .. }) && e.to_string().contains("nowhere"), "{e}");
    let tb = Tablebase::open(&dir).expect("open");
    let intl = Position::from_fen(Variant::INTERNATIONAL, "W:W31:B20").expect("fen");
    assert!(matches!(tb.probe_wld(&intl), Err(ProbeError::VariantNotOpen { variant: "international", .. })));

    // A block damaged after open: the probe reports the file, never a value.
    let good = fs::read(file("1010", "wld")).expect("read");
    let mut bad = good.clone();
    let last = bad.len() - 6;
    bad[last] ^= 0x5a;
    fs::write(file("1010", "wld"), &bad).expect("write");
    let tb = Tablebase::open(&dir).expect("header intact");
    let e = tb.probe_wld(&p).expect_err("damaged");
    assert!(
        matches!(e, ProbeError::Table(TableError::Corrupt { .. })) && e.to_string().contains("1010.wld.kabe"),
        "{e}"
    );
    fs::write(file("1010", "wld"), &good).expect("restore");

    // Another version, or another material under this name: the file is set aside at
    // open (listed as unusable), its probes name it, and every other table answers.
    let other = Position::from_fen(Variant::RUSSIAN, "W:Wc3:Bf6,g7").expect("fen");
    let mut newer = good.clone();
    newer[8] = 7;
    fs::write(file("1010", "wld"), &newer).expect("write");
    let tb = Tablebase::open(&dir).expect("opens without the file");
    let e = tb.probe_wld(&p).expect_err("version");
    assert!(matches!(e, ProbeError::Table(TableError::Version { found: 7, .. })), "{e}");
    assert_eq!(tb.unusable_files().map(|e| e.path().to_path_buf()).collect::<Vec<_>>(), vec![file("1010", "wld")]);
    tb.probe_wld(&other).expect("another material answers");
    fs::copy(file("0110", "wld"), file("1010", "wld")).expect("copy");
    let e = Tablebase::open(&dir).expect("opens without the file").probe_wld(&p).expect_err("foreign");
    assert!(e.to_string().contains("1010.wld.kabe") && e.to_string().contains("0110"), "{e}");
    fs::write(file("1010", "wld"), &good).expect("restore");

    // A missing table is named with the file it would be.
    fs::remove_file(file("1010", "wld")).expect("rm");
    let tb = Tablebase::open(&dir).expect("open");
    let e = tb.probe_wld(&p).expect_err("missing");
    assert!(e.to_string().contains("1010") && e.to_string().contains("1010.wld.kabe"), "{e}");
    assert_eq!(tb.max_pieces(), 0);
    // Temporary files of an interrupted build are not tables.
    fs::write(dir.join("russian").join("1010.wld.kabe.tmp"), b"half").expect("tmp");
    Tablebase::open(&dir).expect("tmp files are skipped");
}

#[test]
fn several_tablebases_side_by_side_with_other_rules() {
    let tables = tables();
    let (dir, _) = &*tables;
    let a = Tablebase::open(dir).expect("open");
    let b = Tablebase::builder(dir).rules(DrawRuleSet::Ussr1953).cache_bytes(1 << 12).open().expect("open");
    let p = Position::from_fen(Variant::RUSSIAN, "W:WKh8,Ke7,Kf6:BKa3").expect("fen");
    let rules = *a.draw_rules(&Variant::RUSSIAN).expect("open");
    let late = Counters::parse(&rules, &p, "16c=20").expect("counters");
    assert_eq!(a.probe(&p, &late).expect("probe").exact, Wld::Draw);
    assert_eq!(b.probe(&p, &Counters::fresh(&rules, &p)).expect("probe").exact, Wld::Win);
    let best = a.best_moves(&p, &Counters::fresh(&rules, &p)).expect("moves");
    assert!(!best.is_empty() && best.iter().all(|m| m.exact == Wld::Win));
    // The tables in memory see the same.
    let (_, (registry, rule_tables)) = &*tables;
    let reader = MemoryTables::new(registry, rule_tables);
    assert_eq!(reader.dtw(&p).expect("dtw"), a.probe_dtw(&p).expect("dtw"));
}

#[test]
fn one_tablebase_answers_under_the_rule_set_each_counters_carry() {
    let dir = temp_dir("two-sets");
    build(Variant::RUSSIAN, 3, &dir, &|_| {}).expect("build");
    let sets = [DrawRuleSet::Ussr1953, DrawRuleSet::Ussr1953CountEnds];
    for set in sets {
        build_rules(Variant::RUSSIAN, DrawRules::new(set, &Variant::RUSSIAN), 3, &dir, &|_| {}).expect("rules");
    }
    let tb = Tablebase::builder(&dir).cache_bytes(1 << 16).open().expect("open");
    assert_eq!(tb.rule_sets(&Variant::RUSSIAN), sets.to_vec());
    // Every position, under each set, with fresh counts and with counts part run, equals
    // that set's tables solved in memory.
    let theory = solve_all(Variant::RUSSIAN, 3, |_| {});
    let mut compared = 0;
    for set in sets {
        let rules = DrawRules::new(set, &Variant::RUSSIAN);
        let rule_tables = solve_rules(&theory, rules, signatures(3));
        let reader = MemoryTables::new(&theory, &rule_tables);
        for sig in signatures(3) {
            for p in positions(sig).step_by(7) {
                for text in ["", "16b=40", "16c=30"] {
                    let Ok(counters) = Counters::parse(&rules, &p, text) else { continue };
                    assert_eq!(counters.set, set);
                    let ours = tb.probe(&p, &counters);
                    let theirs = verdict(&AsOracle(&reader), &p, &counters);
                    match (ours, theirs) {
                        (Ok(a), Ok(b)) => assert_eq!(a, b, "{} {set} {text}", p.fen()),
                        (a, b) => assert_eq!(a.is_ok(), b.is_ok(), "{} {set} {text}: {a:?}", p.fen()),
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1000, "{compared}");
    // The two sets differ where the lone king takes a king under the 16c count: after
    // it the deadline stands (ussr1953) or ends (count-ends).
    let p = Position::from_fen(Variant::RUSSIAN, "B:WKc1,Kf4:BKh8").expect("fen");
    let standing = Counters::parse(&DrawRules::new(DrawRuleSet::Ussr1953, &Variant::RUSSIAN), &p, "16c=30:white");
    assert!(standing.is_ok(), "{standing:?}");
    // Counters of a set not written for the game, or assembled with an article the set
    // lacks, are a typed error, never a panic.
    let fmjd = Counters { set: DrawRuleSet::Fmjd, reset_plies: 0, material: None };
    assert!(matches!(tb.probe(&p, &fmjd), Err(ProbeError::Counters(_))), "fmjd counters on Russian");
    assert!(matches!(tb.best_moves(&p, &fmjd), Err(ProbeError::Counters(_))));
    let bogus = Counters {
        set: DrawRuleSet::Ussr1953,
        reset_plies: 0,
        material: Some(kabe_probe::rules::MaterialCount { rule: 7, plies: 3, strong: None }),
    };
    assert!(matches!(tb.probe(&p, &bogus), Err(ProbeError::Counters(_))), "an article the set lacks");
    assert_eq!(bogus.governing(&p), Some(("16b", 60)), "the unknown count is ignored, not indexed");
}
