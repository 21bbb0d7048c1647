//! Game analysis speed: games per second over every international game of
//! `data/pdn-corpus/succeed` (read, replayed, annotated against warm tables), printed.
//!
//! Tables: international up to 4 pieces with `fmjd` rule tables, shared with the probe
//! benchmark (`target/bench-tables/probe-international-4`, built on first run, about a
//! minute), or `$KABE_BENCH_TABLES`. PDN files: `$KABE_BENCH_PDN`, else
//! `data/pdn-corpus/succeed`. Run: `cargo bench --bench analyze`.

use std::path::PathBuf;
use std::time::Instant;

use kabe_analyze::{replay, Analyzer, GameOutcome, PdnReader, Reach};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::Variant;

mod common;

const PIECES: u32 = 4;
const ROUNDS: usize = 9;

fn tables() -> PathBuf {
    common::international_tables(PIECES)
}

/// The international games of the PDN files, as one PDN text per file.
fn international_files() -> Vec<(String, Vec<u8>)> {
    let dir = std::env::var_os("KABE_BENCH_PDN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/pdn-corpus/succeed"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pdn"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).expect("read");
            let name = path.display().to_string();
            let international = PdnReader::new(&bytes[..])
                .filter_map(Result::ok)
                .any(|g| replay(&name, &g, None).is_ok_and(|r| r.variant.name == Variant::INTERNATIONAL.name));
            international.then_some((name, bytes))
        })
        .collect()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // nothing for criterion-style listing
    }
    let dir = tables();
    let tb = Tablebase::open(&dir).expect("open");
    let files = international_files();
    let analyzer = Analyzer::new(&tb, None, Reach { pieces: None });
    // One round: read, replay and annotate every game of every file, from memory.
    let round = || {
        let (mut games, mut analysed, mut positions) = (0usize, 0usize, 0usize);
        for (name, bytes) in &files {
            for game in PdnReader::new(&bytes[..]) {
                let game = game.expect("read");
                games += 1;
                if let GameOutcome::Analysed { annotation, .. } = analyzer.game(name, &game).expect("tables") {
                    analysed += 1;
                    positions += annotation.positions.len();
                }
            }
        }
        (games, analysed, positions)
    };
    let (games, analysed, positions) = round(); // warms the tables' cache
    let mut seconds: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(round());
            t.elapsed().as_secs_f64()
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    let median = seconds[ROUNDS / 2];
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    println!(
        "analyze: {} international files ({:.1} MB), {games} games ({analysed} replayed), {positions} positions in the tables",
        files.len(),
        bytes as f64 / 1e6
    );
    println!(
        "analyze: median of {ROUNDS} rounds {:.1} ms: {:.0} games/s, {:.1} MB/s (one thread, tables warm; fastest {:.0} games/s)",
        median * 1e3,
        games as f64 / median,
        bytes as f64 / median / 1e6,
        games as f64 / seconds[0]
    );
}
