//! What the test suite leaves out, CI runs anyway: every `#[ignore]` test of the
//! workspace is named in scripts/test.sh, which runs it by name after the suite.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_string_lossy();
        if path.is_dir() && !matches!(name.as_ref(), "target" | ".git" | "fuzz" | "python") {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The names of the functions marked `#[ignore]` in `text`.
fn ignored_tests(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut marked = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[ignore") {
            marked = true;
        } else if marked && !line.starts_with("#[") && !line.starts_with("//") {
            let name = line.split("fn ").nth(1).and_then(|rest| rest.split('(').next());
            names.extend(name.map(str::to_string));
            marked = false;
        }
    }
    names
}

#[test]
fn every_ignored_test_is_run_by_name_in_scripts_test_sh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join("scripts/test.sh")).expect("scripts/test.sh");
    let mut files = Vec::new();
    rust_files(root, &mut files);
    assert!(files.len() > 50, "{} Rust files", files.len());
    let mut missing = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        for name in ignored_tests(&text) {
            // A test's full name has its module in front (a merged suite's file, or the
            // unit's module): the filter ends with the name.
            if !script.contains(&format!("--run-ignored only -E 'test(/(^|::){name}$/)'")) {
                missing.push(format!("{}: {name}", file.strip_prefix(root).unwrap_or(&file).display()));
            }
        }
    }
    assert!(missing.is_empty(), "ignored tests CI never runs:\n{}", missing.join("\n"));
}

#[test]
fn ignored_tests_are_found() {
    let text = "#[test]\n#[ignore]\nfn slow() {}\n\n#[test]\nfn quick() {}\n#[ignore = \"minutes\"]\n#[test]\n/// doc\npub fn slower() {}\n";
    assert_eq!(ignored_tests(text), ["slow", "slower"]);
}
