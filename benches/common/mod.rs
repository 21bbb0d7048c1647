//! What the benchmarks share: the international tables they probe.

use std::path::PathBuf;

use kabe_probe::tablebase::Tablebase;
use kabe_probe::{DrawRuleSet, DrawRules, Variant};

/// International tables up to `pieces` with `fmjd` rule tables: `$KABE_BENCH_TABLES`, else
/// `target/bench-tables/probe-international-4-v<format>`, built there on first run (about a minute).
pub fn international_tables(pieces: u32) -> PathBuf {
    let dir = std::env::var_os("KABE_BENCH_TABLES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/bench-tables/probe-international-4-v{}", kabe_probe::table::FORMAT_VERSION))
    });
    if Tablebase::open(&dir).map(|tb| tb.max_pieces_of(&Variant::INTERNATIONAL)).unwrap_or(0) < pieces {
        eprintln!("building international tables up to {pieces} pieces in {}", dir.display());
        kabe_generator::build(Variant::INTERNATIONAL, pieces, &dir, &|_| {}).expect("build");
        let rules = DrawRules::new(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
        kabe_generator::build_rules(Variant::INTERNATIONAL, rules, pieces, &dir, &|_| {}).expect("rule tables");
    }
    dir
}
