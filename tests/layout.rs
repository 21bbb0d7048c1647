//! The layout shows the architecture: inside every crate, dependencies between top-level
//! modules run one way (no module reaches, through others, a module that reaches it back).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: [&str; 8] =
    ["rules/src", "probe/src", "generator/src", "analyze/src", "server/src", "src", "capi/src", "python/src"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read source dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules `text` names as `crate::NAME`, outside comments and tests.
fn references(text: &str) -> BTreeSet<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let name: String =
            code[at + 7..].chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_').collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// The module graph of one crate: top-level module -> the modules it references.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("under src");
        let top = relative.components().next().expect("a component").as_os_str().to_string_lossy();
        let top = top.trim_end_matches(".rs").to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read");
        let refs = graph.entry(top.clone()).or_default();
        refs.extend(references(&text).into_iter().filter(|r| *r != top));
    }
    graph
}

/// A path of references from `from` back to `from`, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![from.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().expect("non-empty");
        for next in graph.get(last).into_iter().flatten() {
            if next == from {
                let mut cycle = path.clone();
                cycle.push(from.to_string());
                return Some(cycle);
            }
            if graph.contains_key(next) && seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cycles = Vec::new();
    for krate in CRATES {
        assert!(root.join(krate).is_dir(), "{krate} is not a source folder");
        let graph = graph(&root.join(krate));
        for module in graph.keys() {
            if let Some(cycle) = cycle_through(&graph, module) {
                cycles.push(format!("{krate}: {}", cycle.join(" -> ")));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycle_through(&graph, "a"), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    assert_eq!(cycle_through(&graph, "d"), None);
    assert_eq!(references("use crate::pair::TablePair;\n// crate::plan\nfn f() { crate::build::x() }"), {
        BTreeSet::from(["build".to_string(), "pair".to_string()])
    });
}

/// Each crate's integration tests are one binary (`tests/suites.rs`, `autotests = false`):
/// a test file that suites.rs does not name would be built and run by nothing, silently.
#[test]
fn every_integration_test_file_is_a_module_of_its_crates_suites() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for krate in [".", "rules", "probe", "generator", "analyze", "server", "capi"] {
        let tests = root.join(krate).join("tests");
        let Ok(entries) = std::fs::read_dir(&tests) else { continue };
        let manifest = std::fs::read_to_string(root.join(krate).join("Cargo.toml")).expect("Cargo.toml");
        let suites = std::fs::read_to_string(tests.join("suites.rs")).unwrap_or_default();
        for entry in entries {
            let path = entry.expect("entry").path();
            let name = path.file_name().expect("name").to_string_lossy().into_owned();
            if !name.ends_with(".rs") || name == "suites.rs" {
                continue;
            }
            if manifest.contains("autotests = false") {
                assert!(
                    suites.contains(&format!("#[path = \"{name}\"]")),
                    "{krate}/tests/{name} is not a module of {krate}/tests/suites.rs: it runs nowhere"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} test files found");
}
