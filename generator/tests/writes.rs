//! Writes that stay home: a build never writes through a link, over a FIFO or into
//! another game's folder, never replaces another game's table, opens nothing for writing
//! on a complete set, and a verification names what it did not see.

#![cfg(unix)]

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;

use kabe_generator::{
    build, build_rules_scope, build_scope, verify_with, BuildError, BuildLock, MemoryBudget, Scope, VerifyOptions,
};
use kabe_probe::table::TableError;
use kabe_probe::{DrawRuleSet, DrawRules, Variant};

fn temp_dir(name: &str) -> common::TempDir {
    common::temp_dir(&format!("writes-{name}"))
}

/// International 2-3 with its `fmjd` rule tables (the theory pass leaving its results
/// for the rule pass, as `kabe generate` runs them).
fn try_international(dir: &Path) -> Result<(), BuildError> {
    let v = Variant::INTERNATIONAL;
    let rules = DrawRules::new(DrawRuleSet::Fmjd, &v);
    let budget = MemoryBudget::new(1 << 30);
    build_scope(v, Scope::Pieces(3), dir, budget, rules, &|_| {})?;
    build_rules_scope(v, rules, Scope::Pieces(3), dir, budget, &|_| {})?;
    Ok(())
}

fn international(dir: &Path) {
    try_international(dir).expect("build");
}

#[test]
fn a_game_folder_that_is_another_games_is_refused_before_anything_is_written() {
    let dir = temp_dir("linked-folder");
    international(&dir);
    let before = common::table_files(&dir, "international");
    symlink("international", dir.join("russian")).expect("a link");
    let e = build(Variant::RUSSIAN, 3, &dir, &|_| {}).expect_err("the same folder");
    let said = e.to_string();
    assert!(said.contains("russian: the same directory as") && said.contains("international"), "{said}");
    assert!(!said.contains("delete"), "{said}");
    assert_eq!(common::table_files(&dir, "international"), before, "nothing of the other game touched");
    let options = VerifyOptions { ledger: true, ..VerifyOptions::default() };
    let e = verify_with(&dir, Variant::RUSSIAN, &options, &|_| {}).expect_err("no ledger into the other folder");
    assert!(e.to_string().contains("the same directory as"), "{e}");
}

#[test]
fn another_games_table_in_the_folder_is_named_and_left_as_it_is() {
    let dir = temp_dir("other-game");
    international(&dir);
    let theirs = dir.join("international/0201.dtw.kabe");
    let ours = dir.join("russian/0201.dtw.kabe");
    std::fs::create_dir_all(ours.parent().expect("a folder")).expect("the Russian folder");
    std::fs::copy(&theirs, &ours).expect("copied");
    let e = build(Variant::RUSSIAN, 3, &dir, &|_| {}).expect_err("another game's table");
    assert!(matches!(e, BuildError::Table(TableError::OtherGame { .. })), "{e:?}");
    assert!(e.to_string().contains("0201.dtw.kabe: a table of international draughts, not russian"), "{e}");
    assert_eq!(std::fs::read(&ours).expect("still there"), std::fs::read(&theirs).expect("the original"));
}

#[test]
fn a_link_at_a_temporary_name_is_refused_and_its_target_untouched() {
    let dir = temp_dir("planted");
    international(&dir);
    let victim = dir.join("victim");
    std::fs::write(&victim, b"precious").expect("written");
    for planted in ["0201.dtw.kabe.tmp", "0102.results.scratch-tmp", "0102.theory.checkpoint-tmp"] {
        for sig in ["0102", "0201"] {
            for kind in ["wld", "dtw", "fmjd"] {
                let _ = std::fs::remove_file(dir.join(format!("international/{sig}.{kind}.kabe")));
            }
        }
        let link = dir.join("international").join(planted);
        symlink(&victim, &link).expect("a link");
        let result = try_international(&dir);
        // The checkpoint is written only by a pass long enough to take one: the build
        // goes on without it, and the link is never followed.
        if planted.ends_with("checkpoint-tmp") {
            assert!(result.is_ok(), "{planted}: {result:?}");
        } else {
            let e = result.expect_err(planted);
            assert!(e.to_string().contains(&format!("{planted}: a symbolic link")), "{planted}: {e}");
        }
        assert_eq!(std::fs::read(&victim).expect("read"), b"precious", "{planted}");
        std::fs::remove_file(&link).expect("removed");
    }
}

#[test]
fn a_complete_set_is_only_read() {
    let dir = temp_dir("complete");
    international(&dir);
    let lock = kabe_generator::build_lock_path(&dir, &Variant::INTERNATIONAL);
    std::fs::remove_file(&lock).expect("the lock file");
    // A FIFO at the lock would hang a build that opened it: this one opens nothing.
    let status = std::process::Command::new("mkfifo").arg(&lock).status().expect("mkfifo");
    assert!(status.success());
    let before = common::table_files(&dir, "international");
    international(&dir);
    assert_eq!(common::table_files(&dir, "international"), before);
    // A set with work to do refuses the FIFO by name, at once.
    std::fs::remove_file(dir.join("international/0201.dtw.kabe")).expect("removed");
    let e = try_international(&dir).expect_err("a FIFO at the lock");
    assert!(e.to_string().contains(".international.build.lock: a FIFO"), "{e}");
}

#[test]
fn a_verification_names_what_it_did_not_see() {
    let dir = temp_dir("unfinished");
    international(&dir);
    let options = VerifyOptions::default();
    let report = verify_with(&dir, Variant::INTERNATIONAL, &options, &|_| {}).expect("verify");
    assert!(report.ok() && report.unfinished.is_empty(), "{:?}", report.unfinished);

    let held = BuildLock::exclusive(&dir, &Variant::INTERNATIONAL).expect("a build's lock");
    let report = verify_with(&dir, Variant::INTERNATIONAL, &options, &|_| {}).expect("verify");
    assert!(!report.ok() && report.unfinished.iter().any(|u| u.contains("a build is writing this set now")));
    drop(held);

    std::fs::write(dir.join("international/0102.theory.checkpoint"), b"").expect("a checkpoint");
    let report = verify_with(&dir, Variant::INTERNATIONAL, &options, &|_| {}).expect("verify");
    assert!(
        !report.ok() && report.unfinished.iter().any(|u| u.contains("0102.theory.checkpoint")),
        "{:?}",
        report.unfinished
    );
    std::fs::remove_file(dir.join("international/0102.theory.checkpoint")).expect("removed");

    // A pair with one side only, and a material the tables lead to with no tables.
    for kind in ["wld", "dtw", "fmjd"] {
        std::fs::remove_file(dir.join(format!("international/0201.{kind}.kabe"))).expect("removed");
    }
    let report = verify_with(&dir, Variant::INTERNATIONAL, &options, &|_| {}).expect("verify");
    assert!(!report.ok());
    assert!(
        report
            .unfinished
            .iter()
            .any(|u| u.contains("0201.dtw.kabe: missing: 0102 has tables, its colour flip 0201 none")),
        "{:?}",
        report.unfinished
    );
    for kind in ["wld", "dtw", "fmjd"] {
        std::fs::remove_file(dir.join(format!("international/0102.{kind}.kabe"))).expect("removed");
    }
    let report = verify_with(&dir, Variant::INTERNATIONAL, &options, &|_| {}).expect("verify");
    assert!(
        report.unfinished.iter().any(|u| u.contains("missing: moves of") && u.contains("lead to 0102")),
        "{:?}",
        report.unfinished
    );
}
