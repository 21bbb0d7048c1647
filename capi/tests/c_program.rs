//! Compiles `tests/c/probe_test.c` with the system C compiler against the shared and the
//! static library and runs it on freshly built Russian tables.

use std::path::{Path, PathBuf};
use std::process::Command;

use kabe_probe::{DrawRuleSet, DrawRules, Variant};

/// `target/<profile>` of this test run, with `libkabe.so` and `libkabe.a` built in it:
/// a test build leaves them in deps/ only, so they are built here (cargo's lock is free
/// while tests run). The workspace's libraries and examples are the test build's selection
/// (`cargo nextest run --workspace`): the dependencies' features resolve as they did there
/// and nothing is compiled again (`-p kabe-capi` alone would compile kabe-rules and
/// kabe-probe anew).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe.ancestors().nth(2).expect("target/<profile>/deps/<test>").to_path_buf();
    let mut build = Command::new(env!("CARGO"));
    build.args(["build", "--quiet", "--workspace", "--lib", "--examples"]);
    if dir.ends_with("release") {
        build.arg("--release");
    }
    let status = build.status().expect("running cargo");
    assert!(status.success(), "cargo build of the C libraries failed");
    dir
}

fn compile(out: &Path, link: &[&str]) {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/probe_test.c"))
        .arg("-o")
        .arg(out)
        .args(link)
        .status()
        .unwrap_or_else(|e| panic!("running the C compiler {cc}: {e}"));
    assert!(status.success(), "{cc} failed on probe_test.c");
}

fn run(program: &Path, tables: &Path, libs: &Path) {
    let output = Command::new(program).arg(tables).env("LD_LIBRARY_PATH", libs).output().expect("run");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{}: {text}", program.display());
    assert!(text.contains("all checks passed"), "{text}");
}

#[test]
fn the_c_program_probes_through_the_shared_and_the_static_library() {
    let folder = tempfile::Builder::new().prefix("kabe-capi-").tempdir().expect("temp dir");
    let work = folder.path();
    let tables = work.join("tables");
    kabe_generator::build(Variant::RUSSIAN, 4, &tables, &|_| {}).expect("build");
    let rules = DrawRules::new(DrawRuleSet::Ussr1953, &Variant::RUSSIAN);
    kabe_generator::build_rules(Variant::RUSSIAN, rules, 4, &tables, &|_| {}).expect("rule tables");

    let libs = library_dir();
    assert!(libs.join("libkabe.so").exists(), "no libkabe.so in {}", libs.display());
    let shared = work.join("probe_test_shared");
    compile(&shared, &["-L", libs.to_str().expect("utf-8 path"), "-lkabe"]);
    run(&shared, &tables, &libs);

    let static_lib = libs.join("libkabe.a");
    let linked = work.join("probe_test_static");
    compile(&linked, &[static_lib.to_str().expect("utf-8 path"), "-lm", "-ldl"]);
    run(&linked, &tables, &libs);
}
