//! The solver against the generator's first one (tests/reference/queue_solver.rs: every
//! finished table in memory, six bytes of state per position, a bucket queue): a build
//! through the files under a small memory budget gives the same value for every
//! position. Large sets are compared by `benches/generate.sh`.

#[path = "reference/queue_solver.rs"]
mod queue_solver;

use std::path::PathBuf;

use kabe_generator::{build_scope, table_path, BuildError, MemoryBudget, Registry, Scope};
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Signature, Variant};

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

fn compare(variant: Variant, max_pieces: u32, budget: MemoryBudget) -> u64 {
    let dir: PathBuf = std::env::temp_dir().join(format!("kabe-reference-{}-{}", variant.name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let built = build_scope(variant, Scope::Pieces(max_pieces), &dir, budget, &|_| {}).expect("build");
    let old = reference(variant, max_pieces);
    let tb = Tablebase::open(&dir).expect("open");
    let mut compared = 0;
    for sig in built.signatures {
        let table = old.table(sig).expect("reference solved it");
        let expected = &table.scores;
        for metric in [Metric::Dtw, Metric::Wld] {
            let file = TableFile::open(&table_path(&dir, &variant, sig, metric), &variant, sig, metric).expect("open");
            let got = file.all_scores().expect("read");
            assert_eq!(got.len(), expected.len(), "{sig}");
            for (i, (g, e)) in got.iter().zip(expected).enumerate() {
                let same = match metric {
                    Metric::Dtw => g == e,
                    // A capture position holds no WLD value of its own: the probe resolves it.
                    _ => match table.index.position(i as u64) {
                        p if p.has_capture() => tb.probe_wld(&p).expect("probe") == e.wld(),
                        _ => g.wld() == e.wld(),
                    },
                };
                assert!(same, "{} {sig} {metric:?} index {i}: {g} against {e}", variant.name);
            }
            compared += got.len() as u64;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    compared
}

#[test]
fn russian_up_to_4_pieces_equals_the_first_solver() {
    assert!(compare(Variant::RUSSIAN, 4, MemoryBudget::new(256 << 20)) > 7_000_000);
}

#[test]
fn international_and_kabe_up_to_3_pieces_equal_the_first_solver() {
    assert!(compare(Variant::INTERNATIONAL, 3, MemoryBudget::new(256 << 20)) > 0);
    assert!(compare(Variant::KABE, 3, MemoryBudget::new(256 << 20)) > 0);
}

#[test]
fn a_pair_beyond_the_budget_is_an_error_naming_it_before_any_work() {
    let dir = std::env::temp_dir().join(format!("kabe-budget-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // 0401 and its flip: 21 M positions, 42 MB of state; 256 MiB leaves 32 MiB for pairs.
    let e = build_scope(Variant::INTERNATIONAL, Scope::Pieces(5), &dir, MemoryBudget::new(256 << 20), &|_| {})
        .expect_err("too small a budget");
    assert!(matches!(e, BuildError::Memory { .. }), "{e}");
    assert!(e.to_string().contains("raise --memory"), "{e}");
    assert!(!dir.join("international").read_dir().is_ok_and(|mut d| d.next().is_some()), "no table was built");
    let _ = std::fs::remove_dir_all(&dir);
}
