//! `kabe generate` killed part-way resumes to the same files as an uninterrupted build,
//! and `kabe verify` / `kabe stats` read what it wrote.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kabe-cli-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn table_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir.join("russian"))
        .expect("tables")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "kabe"))
        .map(|p| (p.file_name().expect("name").to_string_lossy().into_owned(), fs::read(&p).expect("read")))
        .collect();
    out.sort();
    out
}

fn generate(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kabe"));
    c.args(["generate", "--variant", "russian", "--pieces", "4", "--dir"]).arg(dir);
    c.stdout(Stdio::null()).stderr(Stdio::null());
    c
}

#[test]
fn a_killed_generate_resumes_to_the_same_files() {
    let reference = temp_dir("reference");
    assert!(generate(&reference).status().expect("run").success());
    let expected = table_files(&reference);

    let dir = temp_dir("killed");
    for delay_ms in [300, 900] {
        let mut child = generate(&dir).spawn().expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().expect("kill");
        child.wait().expect("wait");
    }
    assert!(table_files(&dir).len() < expected.len(), "the kills came too late to test anything");
    assert!(generate(&dir).status().expect("resume").success());
    assert_eq!(table_files(&dir), expected);

    let out = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["verify", "--variant", "russian", "--dir"])
        .arg(&dir)
        .output()
        .expect("verify");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains(" 0 disagreements, 0 bad files"));

    let out = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["stats", "--json", "--variant", "russian", "--dir"])
        .arg(&dir)
        .output()
        .expect("stats");
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let tables = stats["tables"].as_array().expect("tables");
    assert_eq!(tables.len(), expected.len() / 2);
    let kk = tables.iter().find(|t| t["signature"] == "0101").expect("king against king");
    let sum = ["wins", "draws", "losses"].iter().map(|k| kk[k].as_u64().expect("count")).sum::<u64>();
    assert_eq!(Some(sum), kk["positions"].as_u64());
}
