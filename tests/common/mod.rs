//! What the integration tests share: a temporary folder that goes when the test does,
//! and the table files of a set read whole.

#![allow(dead_code)] // each suite uses what it needs

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::Path;

/// A folder under the system's temporary directory, removed with everything in it when
/// the value is dropped: at the end of the test, whether it passed or failed (a failing
/// assertion unwinds through the drop). Reads as the `Path` it is.
pub struct TempDir(tempfile::TempDir);

/// A fresh, empty folder named `kabe-{name}-` and a random suffix.
pub fn temp_dir(name: &str) -> TempDir {
    TempDir(tempfile::Builder::new().prefix(&format!("kabe-{name}-")).tempdir().expect("temp dir"))
}

impl Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<OsStr> for TempDir {
    fn as_ref(&self) -> &OsStr {
        self.0.path().as_os_str()
    }
}

/// Every file of a set's `variant` folder (not its subfolders), name and bytes, in name
/// order: two sets built another way compare equal file for file.
pub fn table_files(dir: &Path, variant: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join(variant))
        .expect("tables")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().expect("name").to_string_lossy().into_owned(), std::fs::read(&p).expect("read")))
        .collect();
    out.sort();
    out
}

/// `actual` equals the committed snapshot `tests/snapshots/{name}` of the crate under test;
/// with `KABE_BLESS=1` the snapshot is written instead (a deliberate change of what users
/// read).
#[track_caller]
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name);
    if std::env::var_os("KABE_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("snapshot folder");
        std::fs::write(&path, actual).expect("write the snapshot");
        return;
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (KABE_BLESS=1 writes it)", path.display()));
    if actual != expected {
        let line = actual.lines().zip(expected.lines()).position(|(a, e)| a != e);
        let line = line.unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
        let at = |text: &str| text.lines().nth(line).unwrap_or("(the end)").chars().take(2000).collect::<String>();
        panic!(
            "{name} changed at line {} (KABE_BLESS=1 rewrites it)\n--- written\n{}\n--- expected\n{}",
            line + 1,
            at(actual),
            at(&expected)
        );
    }
}

/// The small tables committed with the probe crate: international and Russian, 2-3
/// pieces, with their usual rule tables (found from any crate of the workspace).
pub fn committed_tables() -> std::path::PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = crate_dir.ancestors().map(|d| d.join("probe/tests/tables")).find(|d| d.is_dir());
    found.expect("the committed tables, probe/tests/tables")
}
