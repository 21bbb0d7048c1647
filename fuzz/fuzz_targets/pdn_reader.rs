//! Arbitrary bytes as a PDN file, through the streaming reader and the strict replay
//! (under every variant guess, and forced to each supported variant). Both must return
//! errors, never panic or loop. Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run pdn_reader`
//! (seeds: `fuzz/seed.sh` copies `../shared/pdn` and `data/` into the corpus).
#![no_main]

use kabe_analyze::{replay, PdnReader};
use kabe_probe::Variant;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for game in PdnReader::new(data).take(64) {
        let Ok(game) = game else { break };
        let _ = game.players();
        let _ = replay("fuzz", &game, None);
        for variant in [Variant::INTERNATIONAL, Variant::RUSSIAN] {
            let _ = replay("fuzz", &game, Some(variant));
        }
    }
});
