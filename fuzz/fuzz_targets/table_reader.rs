//! Arbitrary bytes as a table file, through the reader the probe library uses: header,
//! block index, checksum, every block and entry. It must return errors, never panic or
//! read out of bounds. Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run table_reader` (seeds:
//! `fuzz/seed.sh` copies small real tables into the corpus).
#![no_main]

use kabe_probe::table::TableFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(table) = TableFile::from_bytes("fuzz", data.to_vec()) {
        let _ = table.verify_checksum();
        let _ = table.all_scores();
        let _ = table.all_rule_scores();
        let last = table.header().positions.saturating_sub(1);
        let _ = table.score(last);
        let _ = table.rule_score(last);
        let _ = table.score(u64::MAX);
    }
});
