//! What the benchmarks share: the international tables they probe.

use std::path::PathBuf;

use kabe_probe::internal::MaterialIndex;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{DrawRuleSet, DrawRules, Position, Signature, Variant};

/// International tables up to `pieces` with `fmjd` rule tables, one table of each pair: `$KABE_BENCH_TABLES`, else
/// `target/bench-tables/probe-international-4-v<format>-wld<block>`, built there on first
/// run (about a minute).
pub fn international_tables(pieces: u32) -> PathBuf {
    let dir = std::env::var_os("KABE_BENCH_TABLES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
            "target/bench-tables/probe-international-4-v{}-wld{}",
            kabe_probe::internal::table::FORMAT_VERSION,
            kabe_generator::WLD_BLOCK_POSITIONS
        ))
    });
    if Tablebase::open(&dir).map(|tb| tb.max_pieces_of(&Variant::INTERNATIONAL)).unwrap_or(0) < pieces {
        eprintln!("building international tables up to {pieces} pieces in {}", dir.display());
        kabe_generator::build(Variant::INTERNATIONAL, pieces, &dir, &|_| {}).expect("build");
        let rules = DrawRules::new(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
        kabe_generator::build_rules(Variant::INTERNATIONAL, rules, pieces, &dir, &|_| {}).expect("rule tables");
        // As `kabe generate` leaves a set: one table of each pair, the other found by search.
        kabe_generator::keep_one_side(&dir, Variant::INTERNATIONAL, pieces, kabe_generator::DroppedFiles::Replaced)
            .expect("one side");
    }
    dir
}

/// `n` random international positions of 2 to `pieces` pieces, uniform over all
/// positions, either side to move (xorshift from `seed`: reproducible).
#[allow(dead_code)] // not every benchmark that shares this module samples positions
pub fn random_positions(n: usize, pieces: u32, seed: u64) -> Vec<Position> {
    let indexes: Vec<MaterialIndex> = (2..=pieces)
        .flat_map(Signature::all_with)
        .filter_map(|s| MaterialIndex::new(Variant::INTERNATIONAL, s))
        .collect();
    let weights: Vec<u64> = indexes.iter().map(MaterialIndex::len).collect();
    let total: u64 = weights.iter().sum();
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|_| {
            // Uniform over all positions: pick by size.
            let (mut r, mut at) = (next() % total, 0);
            while r >= weights[at] {
                r -= weights[at];
                at += 1;
            }
            let p = indexes[at].position(next() % weights[at]);
            if next() % 2 == 0 {
                p
            } else {
                p.flipped()
            }
        })
        .collect()
}
