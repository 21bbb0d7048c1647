//! `kabe stats`' figures of the committed tables (international 2-3), counted by
//! verifying them and read back from the ledger, rendered as text and JSON against the
//! committed snapshot (`KABE_BLESS=1` rewrites it).

use std::path::Path;

use kabe_generator::{count_figures, FiguresOptions, StatsReport};
use kabe_probe::{DrawRuleSet, DrawRules, Variant};

use crate::common;

/// The committed international tables, copied: counting them writes the ledger.
fn copied_tables() -> common::TempDir {
    let dir = common::temp_dir("figures");
    let from = common::committed_tables().join("international");
    std::fs::create_dir(dir.join("international")).expect("a folder");
    for entry in std::fs::read_dir(&from).expect("the committed tables") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, dir.join("international").join(path.file_name().expect("a name"))).expect("copy");
    }
    dir
}

fn report(dir: &Path, rules: Option<&DrawRules>) -> String {
    let options = FiguresOptions { rules, only: None, cache_bytes: 16 << 20, resident_bytes: 64 << 20 };
    let variant = Variant::INTERNATIONAL;
    let figures = count_figures(dir, variant, &options, &|_| {}).expect("the tables verify");
    let again = count_figures(dir, variant, &options, &|_| {}).expect("from the ledger");
    assert_eq!(figures, again, "the ledger gives back what was counted");
    let report = StatsReport { variant, dir, rules, figures: &figures };
    let text = format!("{report}\n{}\n", serde_json::to_string_pretty(&report.to_json()).expect("JSON"));
    text.replace(&dir.display().to_string(), "<dir>")
}

#[test]
fn the_figures_of_the_committed_tables_are_their_snapshot() {
    let dir = copied_tables();
    let rules = DrawRules::new(DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
    let text = report(&dir, None) + &report(&dir, Some(&rules));
    common::assert_snapshot("stats.txt", &text);
}
