//! The table directory the analyzer's test suites share: international and Russian up to
//! 4 pieces with their usual rule tables, built once into the target directory.

#![allow(dead_code)] // each suite uses what it needs

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kabe_generator::{build, build_rules};
use kabe_probe::{DrawRules, Variant};

/// A table directory shared by every test process (nextest runs each test in its own):
/// the first process to take the lock builds it under a private name and renames it into
/// place, the others wait for it. A lock left by a crashed build is ignored after 10 min.
pub fn shared_tables(name: &str, build_into: impl Fn(&Path)) -> PathBuf {
    struct Unlock(PathBuf);
    impl Drop for Unlock {
        fn drop(&mut self) {
            std::fs::remove_file(&self.0).ok();
        }
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    // Tables of another format version, or of rule readings since renumbered, left by an
    // older checkout are not reused.
    let codes: Vec<String> = kabe_probe::DrawRuleSet::ALL.iter().map(|s| s.table_code().to_string()).collect();
    let name = &format!("{name}-v{}-r{}", kabe_probe::internal::table::FORMAT_VERSION, codes.join("."));
    let dir = tmp.join(name);
    let lock = tmp.join(format!("{name}.lock"));
    loop {
        if dir.exists() {
            return dir;
        }
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&lock) {
            Ok(_) => {
                let _unlock = Unlock(lock.clone());
                let mine = tmp.join(format!("{name}.{}", std::process::id()));
                build_into(&mine);
                std::fs::rename(&mine, &dir).expect("moving the tables into place");
                return dir;
            }
            Err(_) => {
                let stale = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t.elapsed().is_ok_and(|age| age.as_secs() > 600));
                if stale {
                    std::fs::remove_file(&lock).ok();
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        }
    }
}

pub fn tables_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        shared_tables("analyze-tables-4", |dir| {
            for variant in [Variant::INTERNATIONAL, Variant::RUSSIAN] {
                build(variant, 4, dir, &|_| {}).expect("build");
                let rules = DrawRules::new(kabe_probe::DrawRuleSet::usual_for(&variant), &variant);
                build_rules(variant, rules, 4, dir, &|_| {}).expect("rules");
            }
        })
    })
}
