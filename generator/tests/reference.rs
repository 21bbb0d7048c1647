//! The solver against the generator's first one (tests/reference/queue_solver.rs: every
//! finished table in memory, six bytes of state per position, a bucket queue): a build
//! through the files under a small memory budget gives the same value for every
//! position. Large sets are compared by `benches/generate.sh`.

use crate::common;
#[path = "reference/queue_solver.rs"]
mod queue_solver;

use kabe_generator::{build_scope, keep_one_side, table_path, BuildError, DroppedFiles, MemoryBudget, Registry, Scope};
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{DrawRules, Signature, Variant};

fn reference(variant: Variant, max_pieces: u32) -> Registry {
    let mut registry = Registry::new(variant);
    for pieces in 2..=max_pieces {
        for sig in Signature::all_with(pieces) {
            if registry.table(sig).is_none() {
                for table in queue_solver::solve_pair(&registry, sig, &|_| {}) {
                    registry.insert(table);
                }
            }
        }
    }
    registry
}

/// Builds `variant` up to `max_pieces` and compares every value with the first solver's:
/// stored values as stored, the positions a file leaves out (a capture to make) through
/// the reader's search; then keeps one table of each pair and compares every `stride`-th
/// position through the reader again (the dropped tables are found by search).
fn compare(variant: Variant, max_pieces: u32, budget: MemoryBudget, stride: usize) -> u64 {
    let dir = common::temp_dir(&format!("reference-{}", variant.name));
    let built = build_scope(variant, Scope::Pieces(max_pieces), &dir, budget, DrawRules::NONE, &|_| {}).expect("build");
    let old = reference(variant, max_pieces);
    let tb = Tablebase::open(&dir).expect("open");
    let mut compared = 0;
    for &sig in &built.signatures {
        let table = old.table(sig).expect("reference solved it");
        let expected = &table.scores;
        for metric in [Metric::Dtw, Metric::Wld] {
            let file = TableFile::open(&table_path(&dir, &variant, sig, metric), &variant, sig, metric).expect("open");
            let got = file.all_scores().expect("read");
            assert_eq!(got.len(), expected.len(), "{sig}");
            for (i, (g, e)) in got.iter().zip(expected).enumerate() {
                let p = table.index.position(i as u64);
                let same = match metric {
                    _ if !file.header().holds(&p) => match metric {
                        Metric::Dtw => tb.probe_dtw(&p).expect("probe") == *e,
                        _ => tb.probe_wld(&p).expect("probe") == e.wld(),
                    },
                    Metric::Dtw => g == e,
                    _ => g.wld() == e.wld(),
                };
                assert!(same, "{} {sig} {metric:?} index {i}: {g} against {e}", variant.name);
            }
            compared += got.len() as u64;
        }
    }
    drop(tb);
    let kept = keep_one_side(&dir, variant, max_pieces, DroppedFiles::Replaced).expect("one side");
    assert!(kept.files > 0 && kept.bytes_saved > 0, "{kept:?}");
    let tb = Tablebase::open(&dir).expect("open");
    for &sig in &built.signatures {
        let table = old.table(sig).expect("reference solved it");
        for (i, e) in table.scores.iter().enumerate().step_by(stride) {
            let p = table.index.position(i as u64);
            assert_eq!(tb.probe_dtw(&p).expect("probe"), *e, "{} {sig} index {i}, one side kept", variant.name);
            assert_eq!(tb.probe_wld(&p).expect("probe"), e.wld(), "{} {sig} index {i}, one side kept", variant.name);
        }
    }
    compared
}

#[test]
fn russian_up_to_4_pieces_equals_the_first_solver() {
    assert!(compare(Variant::RUSSIAN, 4, MemoryBudget::new(256 << 20), 13) > 7_000_000);
}

#[test]
fn international_and_kabe_up_to_3_pieces_equal_the_first_solver() {
    assert!(compare(Variant::INTERNATIONAL, 3, MemoryBudget::new(256 << 20), 1) > 0);
    assert!(compare(Variant::KABE, 3, MemoryBudget::new(256 << 20), 1) > 0);
}

#[test]
fn a_pair_beyond_the_budget_is_an_error_naming_it_before_any_work() {
    let dir = common::temp_dir("budget");
    // 0401 and its flip: 21 M positions, 42 MB of state; 256 MiB leaves 32 MiB for pairs.
    let e = build_scope(
        Variant::INTERNATIONAL,
        Scope::Pieces(5),
        &dir,
        MemoryBudget::new(256 << 20),
        DrawRules::NONE,
        &|_| {},
    )
    .expect_err("too small a budget");
    assert!(matches!(e, BuildError::Memory { .. }), "{e}");
    assert!(e.to_string().contains("raise --memory"), "{e}");
    assert!(!dir.join("international").read_dir().is_ok_and(|mut d| d.next().is_some()), "no table was built");
}
