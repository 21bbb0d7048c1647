//! Table files: resumable, bit-identical builds; every kind of bad file is an error that
//! names it; verification catches a wrong value even when the checksum is right.

use crate::common;

use std::fs;
use std::path::Path;

use kabe_generator::{
    build, build_rules, keep_one_side, pairs_too_large_to_hold, solve_all, table_bytes, table_path, verify,
    verify_with, write_rule_table, BuildSummary, DroppedFiles, RuleTable, SolvedTable, VerifyOptions,
};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{Metric, TableError, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, RuleScore, Score, Signature, Variant};
use proptest::prelude::*;

fn temp_dir(name: &str) -> common::TempDir {
    common::temp_dir(&format!("test-{name}"))
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::table_files(dir, "russian")
}

fn build_quietly(dir: &Path) -> BuildSummary {
    build(Variant::RUSSIAN, 3, dir, &|_| {}).expect("build")
}

#[test]
fn a_resumed_build_is_bit_identical() {
    let full = temp_dir("full");
    build_quietly(&full);
    let reference = files(&full);
    assert_eq!(reference.len(), 2 * 16, "WLD and DTW for 16 signatures");

    let resumed = temp_dir("resumed");
    fs::create_dir_all(resumed.join("russian")).expect("dir");
    // An interrupted run leaves complete tables and perhaps a temporary file.
    for (name, bytes) in &reference {
        if name.starts_with("01") || name.starts_with("10") {
            fs::write(resumed.join("russian").join(name), bytes).expect("copy");
        }
    }
    fs::write(resumed.join("russian").join("1010.dtw.kabe.tmp"), b"half a table").expect("tmp");
    build_quietly(&resumed);
    let mut after = files(&resumed);
    after.retain(|(n, _)| !n.ends_with(".tmp"));
    assert_eq!(after, reference);
}

#[test]
fn bad_files_are_errors_naming_the_file() {
    let dir = temp_dir("bad");
    build_quietly(&dir);
    let v = Variant::RUSSIAN;
    let sig = Signature::new(1, 0, 1, 0);
    let path = table_path(&dir, &v, sig, Metric::Dtw);
    let good = fs::read(&path).expect("read");
    let shown = path.display().to_string();
    let open = || TableFile::open(&path, &v, sig, Metric::Dtw).and_then(|t| t.verify_checksum().and(t.all_scores()));

    // Truncated.
    fs::write(&path, &good[..good.len() - 7]).expect("write");
    let e = open().expect_err("truncated");
    assert!(matches!(e, TableError::Corrupt { .. }) && e.to_string().starts_with(&shown), "{e}");
    // A flipped byte in a block.
    let mut flipped = good.clone();
    let at = flipped.len() - 3;
    flipped[at] ^= 0x40;
    fs::write(&path, &flipped).expect("write");
    let e = open().expect_err("flipped");
    assert!(e.to_string().starts_with(&shown) && e.to_string().contains("corrupt"), "{e}");
    // ... caught by the block's own checksum too, as a probe reading one block sees it.
    let blocks_only = TableFile::open(&path, &v, sig, Metric::Dtw).and_then(|t| t.all_scores());
    assert!(matches!(blocks_only, Err(TableError::Corrupt { .. })), "{blocks_only:?}");
    // Not a table.
    fs::write(&path, b"PDN is not a table").expect("write");
    assert!(matches!(open(), Err(TableError::NotATable { .. })));
    // Another format version.
    let mut newer = good.clone();
    newer[8] = 9;
    fs::write(&path, &newer).expect("write");
    assert!(matches!(open(), Err(TableError::Version { found: 9, .. })));
    // A table of format 2 (WLD files holding capture positions, no run code) is refused
    // with the way out, never misread.
    let mut older = good.clone();
    older[8..10].copy_from_slice(&2u16.to_le_bytes());
    fs::write(&path, &older).expect("write");
    let e = open().expect_err("format 2");
    assert!(matches!(e, TableError::Version { found: 2, .. }), "{e}");
    assert!(e.to_string().starts_with(&shown) && e.to_string().contains("rebuild the tables"), "{e}");
    // Missing.
    fs::remove_file(&path).expect("rm");
    assert!(matches!(open(), Err(TableError::Missing { .. })));
    // Foreign: another signature's table under this name, or another variant's.
    fs::copy(table_path(&dir, &v, Signature::new(0, 1, 1, 0), Metric::Dtw), &path).expect("copy");
    let e = open().expect_err("foreign");
    assert!(matches!(e, TableError::Foreign { .. }) && e.to_string().contains("0110"), "{e}");
    fs::write(&path, &good).expect("restore");
    let e = TableFile::open(&path, &Variant::KABE, sig, Metric::Dtw).expect_err("other variant");
    assert!(matches!(e, TableError::OtherGame { .. }), "{e:?}");
    assert!(e.to_string().contains("1010.dtw.kabe: a table of russian draughts, not kabe"), "{e}");
    assert!(TableFile::open(&path, &v, sig, Metric::Wld).is_err());
    // And the build never resumes from a damaged table: it names it and builds the pair
    // again, to the file it was.
    fs::write(&path, &flipped).expect("write");
    let named = std::sync::Mutex::new(Vec::new());
    build(v, 3, &dir, &|event| {
        if let kabe_generator::BuildEvent::Repairing { problem, .. } = event {
            named.lock().expect("named").push(problem.to_string());
        }
    })
    .expect("rebuilt");
    let named = named.into_inner().expect("named");
    assert!(named.len() == 1 && named[0].starts_with(&shown) && named[0].contains("corrupt"), "{named:?}");
    assert_eq!(fs::read(&path).expect("read"), good);
}

/// Writes `sig`'s Russian 2-3 DTW table again (checksum correct) with one decided
/// distance that it stores made two plies longer; the FEN of that position.
fn plant_wrong_distance(dir: &Path, sig: Signature) -> String {
    plant_wrong_distance_where(dir, Variant::RUSSIAN, sig, |_, _| true)
}

/// As [`plant_wrong_distance`], in `variant`'s 2-3 tables, at the first position that
/// `pick` (given the index and the position's index) takes.
fn plant_wrong_distance_where(
    dir: &Path,
    v: Variant,
    sig: Signature,
    pick: impl Fn(&MaterialIndex, u64) -> bool,
) -> String {
    let registry = solve_all(v, 3, |_| {});
    let table = registry.table(sig).expect("solved");
    let target = (0..table.scores.len())
        .find(|&i| {
            table.scores[i].plies().is_some_and(|p| p >= 3)
                && !table.index.position(i as u64).has_capture()
                && pick(&table.index, i as u64)
        })
        .expect("a decided position that holds its value");
    let mut scores = table.scores.clone();
    scores[target] = Score::from_raw(scores[target].raw() + 2);
    let index = MaterialIndex::new(v, sig).expect("index");
    let fen = index.position(target as u64).fen();
    let bad = SolvedTable { index, scores, captures: table.captures.clone() };
    fs::write(table_path(dir, &v, sig, Metric::Dtw), table_bytes(v.name, &bad, Metric::Dtw).expect("bytes"))
        .expect("write");
    fen
}

/// Whether the position at `at` of a table of kings is not the least index of its class:
/// its half turn (the colour flip with the colours swapped back) lies before it.
fn half_turn_lies_before(index: &MaterialIndex, at: u64) -> bool {
    let flipped = index.position(at).flipped().square_sets();
    let half_turn =
        kabe_probe::SquareSets { white_kings: flipped.black_kings, black_kings: flipped.white_kings, ..flipped };
    index.index_of_sets(&half_turn) < at
}

#[test]
fn verify_finds_a_wrong_value_behind_a_valid_checksum() {
    let dir = temp_dir("verify");
    let built = build_quietly(&dir);
    let report = verify(&dir, Variant::RUSSIAN, 10, &|_| {}).expect("verify");
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.files, 32);
    // Every position holds a stored value but those with a capture to make.
    let stored: u64 = built
        .signatures
        .iter()
        .map(|&s| {
            let index = MaterialIndex::new(Variant::RUSSIAN, s).expect("index");
            index.positions(0..index.len()).filter(|p| !p.has_capture()).count() as u64
        })
        .sum();
    assert_eq!(report.positions, stored);

    // Plant one wrong distance in a freshly written (checksum-correct) DTW table.
    let sig = Signature::new(1, 1, 0, 1);
    let fen = plant_wrong_distance(&dir, sig);
    let report = verify(&dir, Variant::RUSSIAN, 100, &|_| {}).expect("verify");
    assert!(!report.ok());
    assert!(report.bad_files.is_empty(), "{:?}", report.bad_files);
    assert!(report.disagreements.iter().any(|d| d.fen == fen && d.signature == sig), "{:?}", report.disagreements);
}

/// The pairs a memory cannot hold are named with three bytes a position of both members,
/// none where it can, and only those asked for.
#[test]
fn verify_names_the_pairs_too_large_to_hold() {
    let dir = temp_dir("verify-too-large");
    let v = Variant::RUSSIAN;
    build_quietly(&dir);
    let all = pairs_too_large_to_hold(&dir, v, None, 0).expect("read");
    let pair = |a: Signature| {
        let need = 3
            * (MaterialIndex::new(v, a).expect("index").len()
                + MaterialIndex::new(v, a.flipped()).expect("index").len());
        let (x, y) = if a <= a.flipped() { (a, a.flipped()) } else { (a.flipped(), a) };
        (format!("{x}+{y}"), need)
    };
    let kings = Signature::new(0, 2, 0, 1);
    assert!(all.contains(&pair(kings)), "{all:?}");
    assert_eq!(all.len(), 9, "the pairs of a 2-3 set of men and kings: {all:?}");
    let (_, need) = pair(kings);
    let one = pairs_too_large_to_hold(&dir, v, Some(&[kings, kings.flipped()]), need as usize - 1).expect("read");
    assert_eq!(one, vec![pair(kings)]);
    assert!(pairs_too_large_to_hold(&dir, v, Some(&[kings, kings.flipped()]), need as usize).expect("read").is_empty());
    assert!(pairs_too_large_to_hold(&dir, v, None, usize::MAX).expect("read").is_empty());
    // A pair with men that a slice of its placements fits is checked in slices: not named.
    let men = Signature::new(1, 1, 0, 1);
    let (_, need) = pair(men);
    let both = [men, men.flipped()];
    assert!(pairs_too_large_to_hold(&dir, v, Some(&both), need as usize / 2).expect("read").is_empty());
    assert_eq!(pairs_too_large_to_hold(&dir, v, Some(&both), 0).expect("read"), vec![pair(men)]);
}

#[test]
fn verify_resumes_from_its_ledger_and_derives_again_a_pair_whose_files_changed() {
    let dir = temp_dir("verify-ledger");
    let v = Variant::RUSSIAN;
    build_quietly(&dir);
    let options = VerifyOptions { ledger: true, ..VerifyOptions::default() };
    let first = verify_with(&dir, v, &options, &|_| {}).expect("verify");
    assert!(first.ok(), "{first:?}");
    assert!(first.pairs_derived > 5 && first.pairs_from_ledger == 0, "{first:?}");
    let again = verify_with(&dir, v, &options, &|_| {}).expect("verify");
    assert!(again.ok(), "{again:?}");
    assert_eq!((again.pairs_derived, again.pairs_from_ledger), (0, first.pairs_derived));
    assert_eq!(again.positions, 0);

    // A wrong distance planted in 1101 (checksum correct): its pair and the pairs whose
    // moves lead into it are derived again, the others are not, and the wrong pair stays
    // out of the ledger.
    let sig = Signature::new(1, 1, 0, 1);
    plant_wrong_distance(&dir, sig);
    for _ in 0..2 {
        let report = verify_with(&dir, v, &options, &|_| {}).expect("verify");
        assert!(report.disagreement_count > 0, "{report:?}");
        assert!(report.pairs_derived >= 1 && report.pairs_from_ledger >= 1, "{report:?}");
        assert!(report.pairs_derived < first.pairs_derived, "{report:?}");
    }
}

#[test]
fn keeping_one_side_carries_the_ledger_over_for_the_values_do_not_change() {
    let dir = temp_dir("ledger-one-side");
    let v = Variant::RUSSIAN;
    build_quietly(&dir);
    let options = VerifyOptions { ledger: true, ..VerifyOptions::default() };
    let both = verify_with(&dir, v, &options, &|_| {}).expect("verify");
    assert!(both.ok() && both.pairs_derived > 5, "{both:?}");
    let kept = keep_one_side(&dir, v, 3, DroppedFiles::Replaced).expect("one side");
    assert!(kept.files > 0);
    let one = verify_with(&dir, v, &options, &|_| {}).expect("verify");
    assert!(one.ok(), "{one:?}");
    assert_eq!((one.pairs_derived, one.pairs_from_ledger), (0, both.pairs_derived));
    // Derived again without the ledger, the one-side set holds all the same.
    let again = verify(&dir, v, 10, &|_| {}).expect("verify");
    assert!(again.ok() && again.pairs_derived == both.pairs_derived, "{again:?}");
}

#[test]
fn a_one_side_set_verifies_alike_held_in_memory_or_not_and_a_planted_value_is_caught_both_ways() {
    let dir = temp_dir("one-side-verify");
    let v = Variant::RUSSIAN;
    build_quietly(&dir);
    keep_one_side(&dir, v, 3, DroppedFiles::Replaced).expect("one side");
    let resident = VerifyOptions::default();
    let streamed = VerifyOptions { resident_bytes: 0, ..VerifyOptions::default() };
    let held = verify_with(&dir, v, &resident, &|_| {}).expect("verify");
    let read = verify_with(&dir, v, &streamed, &|_| {}).expect("verify");
    assert!(held.ok() && read.ok(), "{held:?} {read:?}");
    assert!(held.files_by_search > 0);
    assert_eq!((held.positions, held.rule_positions), (read.positions, read.rule_positions));
    // Memory for a few pairs at a time: the pairs held are let go and held again as each
    // pair to derive needs them, with the same values.
    for resident_bytes in [40_000, 150_000, 600_000] {
        let options = VerifyOptions { resident_bytes, ..VerifyOptions::default() };
        let some = verify_with(&dir, v, &options, &|_| {}).expect("verify");
        assert!(some.ok(), "{resident_bytes}: {some:?}");
        assert_eq!((some.positions, some.rule_positions), (held.positions, held.rule_positions));
    }

    // One pair checked alone: the smaller pairs its moves lead to are not derived, but
    // held resident for its successors (or, with no memory for them, read through the
    // files), with the same values.
    let only = [Signature::new(1, 1, 0, 1), Signature::new(0, 1, 1, 1)];
    let alone = |options: &VerifyOptions| {
        let options = VerifyOptions { only: Some(&only), ..*options };
        verify_with(&dir, v, &options, &|_| {}).expect("verify")
    };
    let (held_alone, read_alone) = (alone(&resident), alone(&streamed));
    assert!(held_alone.ok() && read_alone.ok(), "{held_alone:?} {read_alone:?}");
    assert_eq!(held_alone.pairs_derived, 1);
    assert!(held_alone.positions > 0 && held_alone.positions < held.positions, "{held_alone:?}");
    assert_eq!((held_alone.positions, held_alone.rule_positions), (read_alone.positions, read_alone.rule_positions));
    // Room for part of its inputs' blocks: those that fit are kept, the rest read through
    // the files each time.
    for resident_bytes in [40_000, 150_000, 600_000] {
        let some = alone(&VerifyOptions { resident_bytes, ..VerifyOptions::default() });
        assert!(some.ok(), "alone, {resident_bytes}: {some:?}");
        assert_eq!((some.positions, some.rule_positions), (held_alone.positions, held_alone.rule_positions));
    }

    // A wrong distance planted in the stored DTW table of the pair 1101+0111.
    let stores = |s: Signature| {
        let path = table_path(&dir, &v, s, Metric::Dtw);
        !TableFile::open(&path, &v, s, Metric::Dtw).expect("open").header().by_search()
    };
    let sig = [Signature::new(1, 1, 0, 1), Signature::new(0, 1, 1, 1)].into_iter().find(|&s| stores(s)).expect("one");
    plant_wrong_distance(&dir, sig);
    for options in [resident, streamed] {
        let report = verify_with(&dir, v, &options, &|_| {}).expect("verify");
        assert!(report.bad_files.is_empty(), "{:?}", report.bad_files);
        assert!(report.disagreement_count > 0, "resident bytes {}: {report:?}", options.resident_bytes);
        let report = alone(&options);
        assert!(report.disagreement_count > 0, "alone, resident bytes {}: {report:?}", options.resident_bytes);
    }
}

/// A pair checked alone that reads a pair of kings against a lone king, stored on the
/// lone king's side only (Russian 0103+0301 reads 0102+0201), holds that pair in memory
/// first, its left-out side derived lane by lane: the check finds what it finds with the
/// pair's inputs read through the files, and a wrong value planted in the pair is caught.
#[test]
fn a_pair_alone_reading_kings_against_a_lone_king_verifies_alike_held_or_read() {
    let dir = temp_dir("lone-king-inputs");
    let v = Variant::RUSSIAN;
    build(v, 4, &dir, &|_| {}).expect("build");
    build_rules(v, DrawRules::new(DrawRuleSet::Ussr1953, &v), 4, &dir, &|_| {}).expect("rule tables");
    keep_one_side(&dir, v, 4, DroppedFiles::Replaced).expect("one side");
    let by_search = |s: Signature| {
        let path = table_path(&dir, &v, s, Metric::Dtw);
        TableFile::open(&path, &v, s, Metric::Dtw).expect("open").header().by_search()
    };
    let (lone, pair) = (Signature::new(0, 2, 0, 1), [Signature::new(0, 1, 0, 3), Signature::new(0, 3, 0, 1)]);
    assert!(by_search(lone) && !by_search(lone.flipped()), "the lone king's side of 0102+0201 stored");
    let alone = |resident_bytes: usize| {
        let options =
            VerifyOptions { only: Some(&pair), resident_bytes, max_reported: 100, ..VerifyOptions::default() };
        verify_with(&dir, v, &options, &|_| {}).expect("verify")
    };
    let (held, read) = (alone(VerifyOptions::default().resident_bytes), alone(0));
    assert!(held.ok() && read.ok(), "{held:?} {read:?}");
    assert!(held.positions > 0, "{held:?}");
    assert_eq!((held.positions, held.rule_positions), (read.positions, read.rule_positions));

    let stored = pair.into_iter().find(|&s| !by_search(s)).expect("one side stored");
    let registry = solve_all(v, 4, |_| {});
    let table = registry.table(stored).expect("solved");
    let target = (0..table.scores.len())
        .find(|&i| table.scores[i].plies().is_some_and(|p| p >= 3) && !table.index.position(i as u64).has_capture())
        .expect("a decided position that holds its value");
    let mut scores = table.scores.clone();
    scores[target] = Score::from_raw(scores[target].raw() + 2);
    let index = MaterialIndex::new(v, stored).expect("index");
    let bad = SolvedTable { index, scores, captures: table.captures.clone() };
    fs::write(table_path(&dir, &v, stored, Metric::Dtw), table_bytes(v.name, &bad, Metric::Dtw).expect("bytes"))
        .expect("write");
    for resident_bytes in [VerifyOptions::default().resident_bytes, 0] {
        let report = alone(resident_bytes);
        assert!(report.disagreement_count > 0, "resident bytes {resident_bytes}: {report:?}");
    }
}

/// Writes two plies more into `sig`'s `fmjd` rule table (international) at the first
/// position decided in two plies or more that `pick` takes (the last one, `from_end`),
/// its checksum made anew; returns its FEN.
fn plant_wrong_rule_value(
    dir: &Path,
    sig: Signature,
    from_end: bool,
    pick: impl Fn(&MaterialIndex, u64) -> bool,
) -> String {
    let (v, set) = (Variant::INTERNATIONAL, DrawRuleSet::Fmjd);
    let file =
        TableFile::open(&table_path(dir, &v, sig, Metric::Rules(set)), &v, sig, Metric::Rules(set)).expect("open");
    let mut values = file.all_rule_scores().expect("values");
    let index = MaterialIndex::new(v, sig).expect("index");
    let wanted = |&i: &usize| values[i].decided().is_some_and(|(_, p)| p >= 2) && pick(&index, i as u64);
    let target = match from_end {
        false => (0..values.len()).find(wanted),
        true => (0..values.len()).rev().find(wanted),
    }
    .expect("a decided value");
    let (wld, plies) = values[target].decided().expect("decided");
    values[target] = if wld == kabe_probe::Wld::Win { RuleScore::win(plies + 2) } else { RuleScore::loss(plies + 2) };
    let fen = index.position(target as u64).fen();
    write_rule_table(dir, "international", &RuleTable { index, values }, set, None).expect("write");
    fen
}

/// International 2-3 with its `fmjd` rule tables, as `kabe generate` builds it.
fn build_with_rules(name: &str) -> common::TempDir {
    let dir = temp_dir(name);
    let v = Variant::INTERNATIONAL;
    build(v, 3, &dir, &|_| {}).expect("build");
    build_rules(v, DrawRules::new(DrawRuleSet::Fmjd, &v), 3, &dir, &|_| {}).expect("rule tables");
    dir
}

#[test]
fn verify_reads_every_rule_table_and_names_a_damaged_one_once() {
    let v = Variant::INTERNATIONAL;
    let dir = build_with_rules("verify-rules");
    let report = verify(&dir, v, 10, &|_| {}).expect("verify");
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.files, 48);
    assert_eq!(report.files_by_kind.get("fmjd"), Some(&16));
    assert_eq!(report.rule_positions, report.positions, "every signature keeps an fmjd table at 2-3");

    let sig = Signature::new(0, 2, 0, 1);
    let path = table_path(&dir, &v, sig, Metric::Rules(DrawRuleSet::Fmjd));
    let good = fs::read(&path).expect("read");
    let shown = path.display().to_string();
    let damaged: [(&str, Option<Vec<u8>>); 4] = [
        ("empty", Some(Vec::new())),
        ("truncated", Some(good[..good.len() - 7].to_vec())),
        (
            "foreign",
            Some(fs::read(table_path(&dir, &v, sig.flipped(), Metric::Rules(DrawRuleSet::Fmjd))).expect("read")),
        ),
        ("missing", None),
    ];
    for (what, bytes) in damaged {
        match bytes {
            Some(b) => fs::write(&path, b).expect("write"),
            None => fs::remove_file(&path).expect("remove"),
        }
        let report = verify(&dir, v, 10, &|_| {}).expect("verify");
        assert!(!report.ok(), "{what}");
        assert_eq!(report.bad_files.len(), 1, "{what}: one finding, {:?}", report.bad_files);
        assert!(report.bad_files[0].contains(&shown), "{what}: {:?}", report.bad_files);
        assert_eq!(report.rule_disagreement_count + report.disagreement_count, 0, "{what}: healthy tables agree");
        fs::write(&path, &good).expect("restore");
    }
    assert!(verify(&dir, v, 10, &|_| {}).expect("verify").ok());
}

#[test]
fn verify_finds_a_wrong_rule_value_behind_a_valid_checksum() {
    let v = Variant::INTERNATIONAL;
    let dir = build_with_rules("verify-rule-value");
    // 6.4's king and man against king: a win decided within the count, its distance changed.
    let sig = Signature::new(1, 1, 0, 1);
    let set = DrawRuleSet::Fmjd;
    let fen = plant_wrong_rule_value(&dir, sig, false, |_, _| true);
    let report = verify(&dir, v, 100, &|_| {}).expect("verify");
    assert!(!report.ok());
    assert!(report.bad_files.is_empty(), "{:?}", report.bad_files);
    assert!(
        report.rule_disagreements.iter().any(|d| d.fen == fen && d.signature == sig && d.set == set),
        "{:?}",
        report.rule_disagreements
    );
}

/// A table of kings is derived once for each class of positions that the board's
/// symmetries make one: a wrong value at a member that is not derived, in the DTW table
/// or a rule table, is found all the same, held in memory or read through the files.
#[test]
fn verify_finds_a_wrong_value_at_a_member_of_a_class_of_kings_it_does_not_derive() {
    let v = Variant::INTERNATIONAL;
    let dir = build_with_rules("verify-king-class");
    let sig = Signature::new(0, 2, 0, 1);
    let fen = plant_wrong_distance_where(&dir, v, sig, half_turn_lies_before);
    let rule_fen = plant_wrong_rule_value(&dir, sig, false, half_turn_lies_before);
    for resident_bytes in [VerifyOptions::default().resident_bytes, 0] {
        let options = VerifyOptions { resident_bytes, max_reported: 100, ..VerifyOptions::default() };
        let report = verify_with(&dir, v, &options, &|_| {}).expect("verify");
        assert!(report.bad_files.is_empty(), "{:?}", report.bad_files);
        let theory: Vec<_> = report.disagreements.iter().map(|d| (d.signature, d.fen.as_str())).collect();
        assert_eq!(theory, [(sig, fen.as_str())], "resident bytes {resident_bytes}");
        let rules: Vec<_> = report.rule_disagreements.iter().map(|d| (d.signature, d.fen.as_str())).collect();
        assert_eq!(rules, [(sig, rule_fen.as_str())], "resident bytes {resident_bytes}");
    }
}

/// A pair with men too large for the memory given is checked a slice of its men's
/// placements at a time: the same values checked as with the pair held whole, both sides
/// stored or one, and a wrong distance and a wrong rule value planted in it caught alike.
#[test]
fn a_pair_too_large_to_hold_is_checked_in_slices_alike_and_a_planted_value_is_caught() {
    let v = Variant::INTERNATIONAL;
    let pair = [Signature::new(1, 1, 0, 1), Signature::new(0, 1, 1, 1)];
    // Three bytes a position held: half of it leaves room for a few placements at a time.
    let need: u64 = pair.iter().map(|&s| MaterialIndex::new(v, s).expect("index").len() * 3).sum();
    let (whole, sliced) = (VerifyOptions::default().resident_bytes, need as usize / 2);
    let check = |dir: &Path, resident_bytes: usize| {
        let options =
            VerifyOptions { only: Some(&pair), resident_bytes, max_reported: 100, ..VerifyOptions::default() };
        verify_with(dir, v, &options, &|_| {}).expect("verify")
    };

    let one_side = build_with_rules("verify-sliced-one-side");
    keep_one_side(&one_side, v, 3, DroppedFiles::Replaced).expect("one side");
    let (held, in_slices) = (check(&one_side, whole), check(&one_side, sliced));
    assert!(held.ok() && in_slices.ok(), "{held:?} {in_slices:?}");
    assert!(held.positions > 0 && held.rule_positions > 0, "{held:?}");
    assert_eq!((held.positions, held.rule_positions), (in_slices.positions, in_slices.rule_positions));

    let dir = build_with_rules("verify-sliced");
    let (held, in_slices) = (check(&dir, whole), check(&dir, sliced));
    assert!(held.ok() && in_slices.ok(), "{held:?} {in_slices:?}");
    assert_eq!((held.positions, held.rule_positions), (in_slices.positions, in_slices.rule_positions));
    let sig = pair[0];
    let fen = plant_wrong_distance_where(&dir, v, sig, |_, _| true);
    // Late in the table: in the last slice, after the others were checked and let go.
    let rule_fen = plant_wrong_rule_value(&dir, sig, true, |index, at| !index.position(at).has_capture());
    // Found at the planted positions (and at parents whose values derive from them), the
    // same in slices as whole.
    let found = |resident_bytes: usize| {
        let report = check(&dir, resident_bytes);
        assert!(report.bad_files.is_empty(), "{:?}", report.bad_files);
        let mut theory: Vec<_> = report.disagreements.iter().map(|d| (d.signature, d.fen.clone())).collect();
        let mut rules: Vec<_> = report.rule_disagreements.iter().map(|d| (d.signature, d.fen.clone())).collect();
        theory.sort();
        rules.sort();
        assert!(theory.contains(&(sig, fen.clone())), "resident bytes {resident_bytes}: {theory:?}");
        assert!(rules.contains(&(sig, rule_fen.clone())), "resident bytes {resident_bytes}: {rules:?}");
        (theory, rules)
    };
    assert_eq!(found(whole), found(sliced));
}

#[test]
fn a_fifo_or_a_directory_named_like_a_table_is_named_for_what_it_is() {
    let v = Variant::RUSSIAN;
    let dir = temp_dir("not-files");
    build_quietly(&dir);
    let sig = Signature::new(0, 1, 0, 1);
    let path = table_path(&dir, &v, sig, Metric::Dtw);
    fs::remove_file(&path).expect("remove");
    fs::create_dir(&path).expect("a directory in its place");
    let e = TableFile::open(&path, &v, sig, Metric::Dtw).expect_err("a directory");
    assert!(e.to_string().contains("a directory, not a table file"), "{e}");
    fs::remove_dir(&path).expect("remove");
    if std::process::Command::new("mkfifo").arg(&path).status().is_ok_and(|s| s.success()) {
        // Opening a FIFO for reading would wait for a writer: it must not be opened at all.
        let e = TableFile::open(&path, &v, sig, Metric::Dtw).expect_err("a FIFO");
        assert!(e.to_string().contains("a FIFO, not a table file"), "{e}");
        let report = verify(&dir, v, 10, &|_| {}).expect("verify");
        assert!(report.bad_files.iter().any(|b| b.contains("a FIFO")), "{:?}", report.bad_files);
    }
}

#[test]
fn a_table_cut_after_it_was_opened_is_an_error_naming_it() {
    let v = Variant::RUSSIAN;
    let dir = temp_dir("cut");
    build_quietly(&dir);
    let sig = Signature::new(1, 0, 1, 0);
    let path = table_path(&dir, &v, sig, Metric::Dtw);
    let file = TableFile::open(&path, &v, sig, Metric::Dtw).expect("open");
    fs::OpenOptions::new().write(true).open(&path).expect("open").set_len(200).expect("cut");
    let e = file.all_scores().expect_err("the blocks are gone");
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
    assert!(e.to_string().contains("ends early"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Arbitrary bytes, or a real table with bytes changed, never make the reader panic.
    #[test]
    fn the_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..600), edits in prop::collection::vec((any::<u16>(), any::<u8>()), 0..8)) {
        let _ = TableFile::from_bytes("arbitrary", bytes).map(|t| (t.verify_checksum().is_ok(), t.all_scores().is_ok()));
        let registry = kabe_generator::solve_all(Variant::RUSSIAN, 2, |_| {});
        let table = registry.table(Signature::new(0, 1, 0, 1)).expect("solved");
        let mut real = table_bytes("russian", table, Metric::Dtw).expect("bytes");
        for (at, value) in edits {
            let i = at as usize % real.len();
            real[i] = value;
        }
        if let Ok(t) = TableFile::from_bytes("edited", real) {
            let _ = t.verify_checksum();
            let _ = t.all_scores();
            let _ = t.all_rule_scores();
            let _ = t.score(t.header().positions.saturating_sub(1));
        }
    }
}

/// Inputs on which the fuzzer (fuzz/fuzz_targets/table_reader.rs) once found a panic, run
/// through the same calls.
#[test]
fn fuzz_regressions_are_errors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    let mut seen = 0;
    for entry in fs::read_dir(&dir).expect("fuzz/regressions") {
        let path = entry.expect("entry").path();
        let bytes = fs::read(&path).expect("read");
        if let Ok(t) = TableFile::from_bytes(&path.display().to_string(), bytes) {
            let _ = t.verify_checksum();
            let _ = (t.all_scores(), t.all_rule_scores());
            let last = t.header().positions.saturating_sub(1);
            let _ = (t.score(last), t.rule_score(last), t.score(u64::MAX));
        }
        seen += 1;
    }
    assert!(seen > 0, "no regression inputs in {}", dir.display());
}

/// A build reads its finished tables in their working form, decoded once whatever the
/// files leave out: 4-piece tables built on a one-side (compact) set of 2-3 pieces, on
/// one whose dropped files were kept aside, and on a set that keeps both sides are byte
/// for byte the tables solved and written in memory, theory and rule tables alike.
#[test]
fn a_pair_built_on_a_compact_set_equals_one_built_on_both_sides_and_in_memory() {
    use kabe_generator::{build_rules_scope, build_scope, solve_rules, write_tables, MemoryBudget, Scope};
    let variant = Variant::RUSSIAN;
    let rules = DrawRules::new(DrawRuleSet::usual_for(&variant), &variant);
    let (both, compact, aside, reference) =
        (temp_dir("base-both"), temp_dir("base-compact"), temp_dir("base-aside"), temp_dir("base-memory"));
    for dir in [&both, &compact, &aside] {
        build_rules_base(variant, rules, dir, 3);
    }
    let kept = keep_one_side(&compact, variant, 3, DroppedFiles::Replaced).expect("compact");
    assert!(kept.files > 0, "the 2-3 set is compact");
    assert_eq!(keep_one_side(&aside, variant, 3, DroppedFiles::KeptAside).expect("kept aside"), kept);
    assert!(files(&aside) == files(&compact), "the tables themselves as in the compact set");
    let layout = kabe_probe::internal::table::TableDir::new(&aside);
    let copies = std::fs::read_dir(layout.dropped_folder(&variant)).expect("dropped files kept").count();
    let dropped_wld = files(&aside).iter().filter(|(name, bytes)| name.contains(".wld.") && bytes.len() == 72).count();
    assert!(dropped_wld > 0 && copies > 0, "{dropped_wld} WLD files dropped, {copies} copies");
    assert_eq!(copies, kept.files - dropped_wld, "a copy for each DTW and rule file dropped (builds read no WLD)");
    let scratch = |dir: &Path| {
        let names = std::fs::read_dir(dir.join(variant.name)).expect("tables").map(|e| e.expect("entry").file_name());
        names.filter(|n| n.to_string_lossy().ends_with(".results.scratch")).count()
    };
    for dir in [&both, &compact, &aside] {
        build_scope(variant, Scope::Pieces(4), dir, MemoryBudget::default(), rules, &|_| {}).expect("theory");
        // The theory pass leaves every position's result for the rule pass (which reads
        // them and not the files), and the rule pass removes them.
        assert!(scratch(dir) > 0, "no results left for the rule pass");
        build_rules_scope(variant, rules, Scope::Pieces(4), dir, MemoryBudget::default(), &|_| {}).expect("rules");
        assert_eq!(scratch(dir), 0, "results left after the rule pass");
    }
    let theory = solve_all(variant, 4, |_| {});
    let four: Vec<Signature> = Signature::all_with(4);
    let solved_rules = solve_rules(&theory, rules, (2..=4).flat_map(Signature::all_with));
    for &sig in &four {
        let table = theory.table(sig).expect("solved");
        write_tables(&reference, variant.name, table, &[Metric::Wld, Metric::Dtw]).expect("write");
        if let Some(table) = solved_rules.table(sig) {
            write_rule_table(&reference, variant.name, table, rules.set, None).expect("write rules");
        }
    }
    let four_pieces = |dir: &Path| {
        let mut out = files(dir);
        out.retain(|(name, _)| four.iter().any(|s| name.starts_with(&s.to_string())));
        out
    };
    let expected = four_pieces(&reference);
    assert!(expected.len() > 2 * four.len(), "WLD, DTW and some rule tables: {}", expected.len());
    assert!(four_pieces(&both) == expected, "built on both sides");
    assert!(four_pieces(&compact) == expected, "built on a compact set");
    assert!(four_pieces(&aside) == expected, "built on a compact set with its dropped files aside");
}

/// A dropped file's values kept aside are read in its place only while they belong to
/// the colour flip's file as it is: a build then finds no table to search whole, for DTW
/// and rule tables alike; a copy bound to another flip file is left alone; a damaged copy
/// is an error naming it.
#[test]
fn a_dropped_file_kept_aside_is_read_only_while_it_belongs_to_its_flip() {
    use kabe_generator::WorkingSet;
    let v = Variant::RUSSIAN;
    let rules = DrawRules::new(DrawRuleSet::Ussr1953, &v);
    let dir = temp_dir("dropped-aside");
    build_rules_base(v, rules, &dir, 3);
    keep_one_side(&dir, v, 3, DroppedFiles::KeptAside).expect("kept aside");
    let layout = kabe_probe::internal::table::TableDir::new(&dir);
    let by_search = |sig| {
        TableFile::open(&table_path(&dir, &v, sig, Metric::Dtw), &v, sig, Metric::Dtw)
            .expect("open")
            .header()
            .by_search()
    };
    let dropped: Vec<Signature> =
        (2..=3).flat_map(Signature::all_with).filter(|&s| s.flipped() != s && by_search(s)).collect();
    assert!(!dropped.is_empty(), "some files dropped");
    let working = WorkingSet::new(v, rules);
    let ruled: Vec<Signature> = dropped.iter().copied().filter(|&s| rules.context(s).is_some()).collect();
    assert!(!ruled.is_empty(), "some rule tables dropped");
    for &sig in &dropped {
        assert!(!working.searched_whole(&dir, sig), "{sig}: its copies are read, nothing searched whole");
    }
    // Without its rule table's copy a signature with a count is searched whole again.
    let ruled_flip = ruled[0].flipped();
    let rule_metric = Metric::Rules(DrawRuleSet::Ussr1953);
    let flip_rules = TableFile::open(&table_path(&dir, &v, ruled_flip, rule_metric), &v, ruled_flip, rule_metric);
    let rule_copy = layout.dropped_path(&v, ruled[0], rule_metric, flip_rules.expect("flip's rules").header().checksum);
    let moved = rule_copy.with_extension("moved");
    std::fs::rename(&rule_copy, &moved).expect("move the rule copy");
    assert!(working.searched_whole(&dir, ruled[0]), "{}: its rule table's copy is read", ruled[0]);
    std::fs::rename(&moved, &rule_copy).expect("move it back");
    let sig = dropped[0];
    let flip = sig.flipped();
    let kept = TableFile::open(&table_path(&dir, &v, flip, Metric::Dtw), &v, flip, Metric::Dtw).expect("flip");
    let copy = layout.dropped_path(&v, sig, Metric::Dtw, kept.header().checksum);
    assert!(copy.exists(), "{} kept", copy.display());
    // Bound to another flip file: not read.
    let unbound = layout.dropped_path(&v, sig, Metric::Dtw, kept.header().checksum ^ 1);
    std::fs::rename(&copy, &unbound).expect("rename");
    assert!(working.searched_whole(&dir, sig), "{sig}: a copy of another flip file is read");
    std::fs::rename(&unbound, &copy).expect("rename back");
    // Damaged: an error that names it.
    std::fs::write(&copy, b"not a table").expect("damage");
    let mut working = WorkingSet::new(v, rules);
    let error = working.load(&dir, sig).expect_err("a damaged copy is read");
    assert!(error.to_string().contains(&copy.display().to_string()), "{error}");
}

fn build_rules_base(variant: Variant, rules: DrawRules, dir: &Path, pieces: u32) {
    build(variant, pieces, dir, &|_| {}).expect("build");
    build_rules(variant, rules, pieces, dir, &|_| {}).expect("rule tables");
}

/// Russian 2-3 pieces, theory and `ussr1953` rule tables, one table of each pair kept:
/// what `kabe generate` leaves.
fn build_compact(dir: &Path) {
    let v = Variant::RUSSIAN;
    build(v, 3, dir, &|_| {}).expect("build");
    build_rules(v, DrawRules::new(DrawRuleSet::Ussr1953, &v), 3, dir, &|_| {}).expect("rule tables");
    keep_one_side(dir, v, 3, DroppedFiles::Replaced).expect("one side");
}

#[test]
fn a_lost_empty_or_damaged_file_is_named_the_rest_answers_and_a_build_makes_the_set_whole_again() {
    use kabe_probe::tablebase::Tablebase;
    use kabe_probe::Position;
    let v = Variant::RUSSIAN;
    let clean = temp_dir("repair-clean");
    build_compact(&clean);
    let reference = files(&clean);
    // A pair of which one side is found by search: 0201 holds the values, 0102 reads them.
    let (holder, reader) = (Signature::new(0, 2, 0, 1), Signature::new(0, 1, 0, 2));
    let by_search = |sig, metric| {
        TableFile::open(&table_path(&clean, &v, sig, metric), &v, sig, metric).expect("open").header().by_search()
    };
    let (holder, reader) = if by_search(reader, Metric::Dtw) { (holder, reader) } else { (reader, holder) };
    assert!(by_search(reader, Metric::Dtw) && !by_search(holder, Metric::Dtw));
    let rules = Metric::Rules(DrawRuleSet::Ussr1953);
    let positions = |sig: Signature| {
        let index = MaterialIndex::new(v, sig).expect("index");
        let all: Vec<Position> = index.positions(0..index.len()).step_by(97).collect();
        all
    };
    let elsewhere = Position::from_fen(v, "W:Wc3:Bf6,g7").expect("fen");
    type Damage = fn(&Path);
    let remove: Damage = |p| fs::remove_file(p).expect("rm");
    let empty: Damage = |p| fs::write(p, b"").expect("empty");
    let flip_a_byte: Damage = |p| {
        let mut bytes = fs::read(p).expect("read");
        let at = bytes.len() - 9;
        bytes[at] ^= 0x24;
        fs::write(p, bytes).expect("write");
    };
    let cases: [(&str, Signature, Metric, Damage, Signature); 7] = [
        // (what, the file damaged, how, the material whose probes must name it)
        ("the holder's DTW file removed", holder, Metric::Dtw, remove, reader),
        ("the reader's DTW file removed", reader, Metric::Dtw, remove, reader),
        ("the holder's WLD file emptied", holder, Metric::Wld, empty, holder),
        ("the reader's WLD file emptied", reader, Metric::Wld, empty, reader),
        ("the holder's DTW file with a byte flipped", holder, Metric::Dtw, flip_a_byte, holder),
        ("the holder's rule table removed", holder, rules, remove, reader),
        ("the reader's rule table emptied", reader, rules, empty, reader),
    ];
    for (what, sig, metric, damage, probed) in cases {
        let dir = temp_dir("repair");
        build_compact(&dir);
        let path = table_path(&dir, &v, sig, metric);
        damage(&path);
        let name = path.file_name().expect("name").to_string_lossy().into_owned();
        let tb = Tablebase::builder(&dir).rules(DrawRuleSet::Ussr1953).open().expect(what);
        tb.probe_wld(&elsewhere).unwrap_or_else(|e| panic!("{what}: another material: {e}"));
        let mut named = 0;
        for p in positions(probed).into_iter().flat_map(|p| [p, p.flipped()]) {
            let probe = match metric {
                Metric::Wld => tb.probe_wld(&p).err(),
                Metric::Dtw => tb.probe_dtw(&p).err(),
                Metric::Rules(_) => {
                    tb.probe(&p, &kabe_probe::Counters::fresh(tb.draw_rules(&v).expect("open"), &p)).err()
                }
            };
            if let Some(e) = probe {
                assert!(e.to_string().contains(&name), "{what}: {p:?}: {e} does not name {name}");
                named += 1;
            }
        }
        assert!(named > 0, "{what}: no probe of {probed} needed {name}");
        build_compact(&dir);
        assert_eq!(files(&dir), reference, "{what}: the set rebuilt differs from a clean build");
    }
}

#[test]
fn a_second_build_into_the_same_folder_is_refused_while_the_first_holds_it() {
    use kabe_generator::{build_pair_job, BuildError, BuildLock, MemoryBudget};
    let v = Variant::RUSSIAN;
    let dir = temp_dir("locked");
    let held = BuildLock::exclusive(&dir, &v).expect("the first build's lock");
    let e = build(v, 2, &dir, &|_| {}).expect_err("a second build");
    assert!(matches!(e, BuildError::Locked { .. }) && e.to_string().contains(".russian.build.lock"), "{e}");
    let rules = DrawRules::new(DrawRuleSet::Ussr1953, &v);
    let job = build_pair_job(v, Signature::new(0, 1, 0, 1), rules, &dir, MemoryBudget::new(1 << 30), &|_| {});
    assert!(matches!(job, Err(BuildError::Locked { .. })), "{job:?}");
    // Another variant's build in the same directory is not held up.
    build(Variant::INTERNATIONAL, 2, &dir, &|_| {}).expect("another variant");
    drop(held);
    // The jobs of a cluster build share the folder with each other, not with a build.
    let one = BuildLock::shared(&dir, &v).expect("a job");
    let two = BuildLock::shared(&dir, &v).expect("a second job");
    assert!(matches!(build(v, 2, &dir, &|_| {}), Err(BuildError::Locked { .. })));
    drop((one, two));
    build(v, 2, &dir, &|_| {}).expect("once the others are done");
}

/// A working set whose allowance is spent reads the rest of its tables through the files
/// and by search: every value of a compact 2-3 set, theory and rule tables, is the one a
/// set that decodes every block reads and the probe library's, and the decoded blocks
/// stay within the allowance.
#[test]
fn a_working_set_out_of_room_reads_the_same_values_within_its_allowance() {
    use kabe_generator::Finished;
    use kabe_generator::WorkingSet;
    use kabe_probe::tablebase::Tablebase;
    let variant = Variant::RUSSIAN;
    let rules = DrawRules::new(DrawRuleSet::Ussr1953, &variant);
    let dir = temp_dir("working-allowance");
    build_compact(&dir);
    let files = Tablebase::builder(&dir).variants(&[variant]).rules(rules.set).open().expect("open");
    let tables: Vec<Signature> = (2..=3).flat_map(Signature::all_with).collect();
    let (mut whole, mut tight) = (WorkingSet::new(variant, rules), WorkingSet::new(variant, rules));
    for &sig in &tables {
        whole.load(&dir, sig).expect("held");
        tight.load(&dir, sig).expect("held");
    }
    let allowance = tables.iter().map(|s| tight.table_bytes(*s)).sum::<u64>() / 2;
    tight.arrange(&tables, allowance);
    let (all, part) = (whole.view(&files), tight.view(&files));
    let mut read = 0;
    for &sig in &tables {
        let index = MaterialIndex::new(variant, sig).expect("index");
        for position in index.positions(0..index.len()) {
            let expected = files.probe_dtw(&position).expect("probe");
            assert_eq!(all.dtw(&position).expect("whole"), expected, "{position:?}");
            assert_eq!(part.dtw(&position).expect("tight"), expected, "{position:?}");
            let counted = files.probe_counted(&position, rules.set).expect("probe counted");
            assert_eq!(all.counted(&position).expect("whole"), counted, "{position:?}");
            assert_eq!(part.counted(&position).expect("tight"), counted, "{position:?}");
            read += 1;
        }
    }
    assert!(read > 10_000, "{read} positions");
    assert!(tight.bytes() > 0 && tight.bytes() <= allowance, "{} of {allowance}", tight.bytes());
    assert!(whole.bytes() > allowance, "the tight set ran out of room: {} > {allowance}", whole.bytes());
}
