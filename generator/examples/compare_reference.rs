//! Compares a table set built by `kabe generate` with the generator's first solver
//! (tests/reference/queue_solver.rs: every finished table in memory, a bucket queue),
//! for every position: `cargo run --release --example compare_reference -- DIR VARIANT
//! PIECES`. DTW entry by entry; WLD where a position holds its value, and through the
//! probe library's capture resolution where it does not (capture positions). The
//! reference keeps every table in memory (two bytes per position of the whole set), so
//! this is the benchmark's check of the large sets; the tests compare the small ones.
//! Prints one line per table and a total; exits 1 on a difference.

#[path = "../tests/reference/queue_solver.rs"]
mod queue_solver;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use kabe_generator::{table_path, Registry};
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Signature, Variant};
use rayon::prelude::*;

/// Positions of one table compared per rayon task.
const CHUNK: usize = 1 << 16;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, variant, pieces] = args.as_slice() else {
        eprintln!("usage: compare_reference DIR VARIANT PIECES");
        std::process::exit(2);
    };
    let variant = Variant::by_name(variant).unwrap_or_else(|| {
        eprintln!("unknown variant '{variant}'");
        std::process::exit(2)
    });
    let pieces: u32 = pieces.parse().expect("PIECES is a number");
    let dir = Path::new(dir);
    let tb = Tablebase::open(dir).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let start = Instant::now();
    let mut registry = Registry::new(variant);
    let (mut compared, mut differ) = (0u64, 0u64);
    for n in 2..=pieces {
        for sig in Signature::all_with(n) {
            if registry.table(sig).is_some() {
                continue;
            }
            let solved = queue_solver::solve_pair(&registry, sig, &|_| {});
            for table in solved {
                let (c, d) = compare_table(dir, &variant, &tb, &table);
                println!(
                    "{} {}: {c} values compared, {d} differ ({:.0} s)",
                    variant.name,
                    table.index.signature(),
                    start.elapsed().as_secs_f64()
                );
                compared += c;
                differ += d;
                registry.insert(table);
            }
        }
    }
    println!(
        "{} 2-{pieces}: {compared} values (DTW and WLD) compared with the first solver, {differ} differ, {:.0} s",
        variant.name,
        start.elapsed().as_secs_f64()
    );
    if differ > 0 {
        std::process::exit(1);
    }
}

/// Compares one solved table with its DTW and WLD files: (values compared, differences).
fn compare_table(dir: &Path, variant: &Variant, tb: &Tablebase, table: &kabe_generator::SolvedTable) -> (u64, u64) {
    let sig = table.index.signature();
    let expected = &table.scores;
    let mut compared = 0;
    let differ = AtomicU64::new(0);
    for metric in [Metric::Dtw, Metric::Wld] {
        let path = table_path(dir, variant, sig, metric);
        let file = TableFile::open(&path, variant, sig, metric).unwrap_or_else(|e| panic!("{e}"));
        let got = file.all_scores().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.len(), expected.len(), "{}: length", path.display());
        got.par_chunks(CHUNK).zip(expected.par_chunks(CHUNK)).enumerate().for_each(|(c, (got, expected))| {
            for (k, (g, e)) in got.iter().zip(expected).enumerate() {
                let i = (c * CHUNK + k) as u64;
                let same = match metric {
                    Metric::Dtw => g == e,
                    // A capture position holds no WLD value of its own: the probe resolves it.
                    _ => match table.index.position(i) {
                        p if p.has_capture() => tb.probe_wld(&p).ok() == Some(e.wld()),
                        _ => g.wld() == e.wld(),
                    },
                };
                if !same && differ.fetch_add(1, Ordering::Relaxed) < 10 {
                    eprintln!("{} index {i}: {g} in the file, {e} from the first solver", path.display());
                }
            }
        });
        compared += got.len() as u64;
    }
    (compared, differ.into_inner())
}
