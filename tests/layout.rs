//! The layout shows the architecture: inside every crate, dependencies run one way, between
//! top-level modules and between files (no module or file reaches, through others, one that
//! reaches it back); only `#[cfg(test)]` modules may use what they test from anywhere.

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
    let code = code_of(text);
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

/// A crate's source files as modules: the path of module names from the crate root
/// (`verify/check.rs` is `verify::check`, `verify/mod.rs` is `verify`) and the code that
/// counts (comments and `#[cfg(test)]` modules left out).
fn modules(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("under src");
        let mut module: Vec<String> =
            relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let last = module.pop().expect("a file name");
        match last.trim_end_matches(".rs") {
            "mod" => {}
            "lib" | "main" if module.is_empty() => {}
            name => module.push(name.to_string()),
        }
        out.insert(module, code_of(&std::fs::read_to_string(&file).expect("read")));
    }
    out
}

/// `text` without comments and without its `#[cfg(test)]` modules (a test module may
/// use what it tests, from anywhere).
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    let joined = lines.join("\n");
    let mut out = String::new();
    let mut rest = joined.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        if !(trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ") || trimmed.starts_with("pub(crate) mod ")) {
            rest = after;
            continue;
        }
        // Skip the module: to its `;` or past its matching closing brace.
        let body = &after[after.find(['{', ';']).unwrap_or(after.len())..];
        if let Some(after_semicolon) = body.strip_prefix(';') {
            rest = after_semicolon;
            continue;
        }
        let mut depth = 0usize;
        let mut end = body.len();
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

/// Every path `code` names from `crate::`, `super::` or `self::`, or from one of the
/// module's own `children` (`check::derive`), with `use` trees (`use super::{a, b::c}`)
/// spelled out, each as written (`["super", "b", "c"]`); those inside `pub use` and
/// `pub(crate) use` statements apart (re-exports, not uses).
fn paths_in(code: &str, children: &BTreeSet<String>) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let (mut used, mut exported) = (Vec::new(), Vec::new());
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let boundary =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
        let rooted = ["crate::", "super::", "self::"].iter().any(|s| code[i..].starts_with(*s));
        let child = children.iter().any(|c| code[i..].starts_with(&format!("{c}::")));
        if boundary && (rooted || child) {
            let statement_start = code[..i].rfind([';', '{', '}']).map_or(0, |s| s + 1);
            let statement = code[statement_start..i].trim();
            let export = statement.starts_with("pub use") || statement.starts_with("pub(crate) use");
            let prefix = if rooted { Vec::new() } else { vec!["self".to_string()] };
            let (paths, end) = read_tree(code, i, prefix);
            if export {
                exported.extend(paths)
            } else {
                used.extend(paths)
            }
            i = end.max(i + 1);
        } else {
            i += code[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    (used, exported)
}

/// Reads a path (and a `{...}` tree after it) starting at byte `at`, below `prefix`;
/// returns the full paths and where the path ends.
fn read_tree(code: &str, mut at: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    loop {
        let name: String = code[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        at += name.len();
        if !name.is_empty() {
            path.push(name);
        }
        let after = code[at..].trim_start();
        let skipped = code.len() - at - after.len();
        if after.starts_with("::{") {
            at += skipped + 3;
            let mut out = Vec::new();
            loop {
                let inner = code[at..].trim_start();
                at = code.len() - inner.len();
                if inner.starts_with('}') {
                    return (out, at + 1);
                }
                let (paths, end) = read_tree(code, at, path.clone());
                out.extend(paths);
                at = end;
                let next = code[at..].trim_start();
                at = code.len() - next.len();
                if next.starts_with(',') {
                    at += 1;
                } else if next.starts_with(" as ") || next.starts_with("as ") {
                    at += next.find([',', '}']).unwrap_or(next.len());
                }
            }
        }
        if after.starts_with("::") && after[2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            at += skipped + 2;
            continue;
        }
        return (vec![path], at);
    }
}

/// The child modules of `module`.
fn children_of(modules: &BTreeMap<Vec<String>, String>, module: &[String]) -> BTreeSet<String> {
    modules
        .keys()
        .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
        .map(|m| m[module.len()].clone())
        .collect()
}

/// The file `path` (as written in `module`'s file) lands in: each segment a module while
/// there is one, then an item of the last; an item a module re-exports (`pub use
/// child::Item`) lands in the file that defines it.
fn resolve(
    modules: &BTreeMap<Vec<String>, String>,
    module: &[String],
    path: &[String],
    depth: usize,
) -> Option<Vec<String>> {
    let mut at: Vec<String> = module.to_vec();
    let mut segments = path.iter().peekable();
    match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            at.clear();
            segments.next();
        }
        Some("self") => {
            segments.next();
        }
        _ => {}
    }
    while segments.peek().is_some_and(|s| *s == "super") {
        segments.next();
        at.pop();
    }
    let mut item = None;
    for seg in segments {
        let mut deeper = at.clone();
        deeper.push(seg.clone());
        if modules.contains_key(&deeper) {
            at = deeper;
        } else {
            item = Some(seg.clone());
            break;
        }
    }
    if let (Some(item), true) = (item, depth < 8) {
        let (_, exported) = paths_in(modules.get(&at)?, &children_of(modules, &at));
        for export in exported {
            if export.last() == Some(&item)
                && let Some(found) = resolve(modules, &at, &export, depth + 1)
            {
                return Some(found);
            }
        }
    }
    Some(at)
}

/// The import graph of one crate's files: module -> the modules whose files it uses (not
/// counting re-exports, `mod` lines and the crate root's file).
fn file_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let mut graph = BTreeMap::new();
    for (module, code) in &modules {
        if module.is_empty() {
            continue; // lib.rs / main.rs: the crate's wiring
        }
        let (used, _) = paths_in(code, &children_of(&modules, module));
        let refs: BTreeSet<String> = used
            .iter()
            .filter_map(|p| resolve(&modules, module, p, 0))
            .filter(|target| target != module && !target.is_empty())
            .map(|target| target.join("::"))
            .collect();
        graph.insert(module.join("::"), refs);
    }
    graph
}

#[test]
fn no_file_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cycles = BTreeSet::new();
    for krate in CRATES {
        let graph = file_graph(&root.join(krate));
        for module in graph.keys() {
            if let Some(cycle) = cycle_through(&graph, module) {
                let mut members: Vec<String> = cycle[..cycle.len() - 1].to_vec();
                members.sort();
                cycles.insert(format!("{krate}: {} (e.g. {})", members.join(", "), cycle.join(" -> ")));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles between files:\n{}", cycles.into_iter().collect::<Vec<_>>().join("\n"));
}

#[test]
fn the_file_graph_follows_super_children_and_re_exports() {
    let dir = tempfile::tempdir().expect("a folder");
    let src = dir.path();
    std::fs::create_dir_all(src.join("prove")).expect("a folder");
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).expect("written");
    write("lib.rs", "mod prove;\n");
    // mod.rs re-exports (no edge of its own); a uses b through the re-export, b uses a's
    // item by its path, c uses a child-relative path: a <-> b is a cycle, c is not in it.
    write("prove/mod.rs", "mod a;\nmod b;\nmod c;\npub use b::Found;\npub use a::{check, Other as Renamed};\n");
    write("prove/a.rs", "use super::Found;\npub fn check() {}\npub struct Other;\n");
    write(
        "prove/b.rs",
        "pub struct Found;\nfn f() { super::a::check() }\n#[cfg(test)]\nmod tests { use crate::prove::c::X; }\n",
    );
    write("prove/c.rs", "// super::a::check\npub struct X;\nfn g() { crate::prove::check() }\n");
    let graph = file_graph(src);
    assert_eq!(graph["prove::a"], BTreeSet::from(["prove::b".to_string()]));
    assert_eq!(graph["prove::b"], BTreeSet::from(["prove::a".to_string()]), "the test module's use is left out");
    assert_eq!(graph["prove::c"], BTreeSet::from(["prove::a".to_string()]), "the comment is left out");
    assert!(graph["prove"].is_empty(), "re-exports are no uses");
    assert!(cycle_through(&graph, "prove::a").is_some());
    assert!(cycle_through(&graph, "prove::c").is_none());
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
