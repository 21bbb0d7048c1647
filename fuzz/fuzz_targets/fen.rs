//! Arbitrary text as a FEN of every variant, and what follows a tab as its counters (as
//! `kabe probe --stdin` reads a line). Parsing must return a position or an error, never
//! panic; a position read must write back a FEN that reads as the same position, and its
//! counters under every rule set written for its game must parse or be refused cleanly.
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run fen` (seeds: `fuzz/seed.sh`).
#![no_main]

use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (fen, counters) = text.split_once('\t').unwrap_or((text, ""));
    for variant in Variant::ALL {
        let Ok(position) = Position::from_fen(variant, fen) else { continue };
        let again = Position::from_fen(variant, &position.fen()).expect("a written FEN reads back");
        assert_eq!(again, position, "{fen:?} wrote {:?}", position.fen());
        for set in DrawRuleSet::ALL.into_iter().filter(|s| s.applies_to(&variant)) {
            let rules = DrawRules::new(set, &variant);
            if let Ok(c) = Counters::parse(&rules, &position, counters) {
                let written = c.describe_at(&position);
                assert_eq!(Counters::parse(&rules, &position, &written).ok(), Some(c), "{written:?}");
            }
        }
    }
});
