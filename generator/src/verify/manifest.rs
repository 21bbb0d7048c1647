//! Reference checksums of a table set, as Syzygy publishes them: one line a file, its
//! SHA-256, size, positions and the win/draw/loss counts of its values, so that a set
//! built anywhere can be checked against the one built and verified here, file by file.
//!
//! ```text
//! # kabe manifest: international; file sha256 bytes positions wins draws losses
//! 0101.dtw.kabe 5f1c...e2 128 4900 0 4900 0
//! ```
//!
//! WLD and DTW files carry the theoretical counts of their material (side to move
//! first); a rule table the exact counts with a fresh count. A count not known when the
//! manifest was written is `-`. The digests are the check: equal digests, equal values.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use kabe_probe::table::{Metric, TableDir};
use kabe_probe::{Signature, Variant};
use sha2::{Digest, Sha256};

/// One file of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// The file's name in the variant's folder (`0101.dtw.kabe`).
    pub file: String,
    /// SHA-256 of its bytes, in hex.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
    /// The positions of its material.
    pub positions: u64,
    /// Wins, draws and losses for the side to move, where known.
    pub counts: Option<[u64; 3]>,
}

/// The files of one variant's set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The variant's name.
    pub variant: String,
    /// By file name.
    pub entries: Vec<ManifestEntry>,
}

/// A manifest that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: line {line}: {problem}")]
pub struct ManifestError {
    /// The manifest file.
    pub path: PathBuf,
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub problem: String,
}

/// How a set differs from its manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// A file the manifest lists is not in the set.
    Missing {
        /// Its name.
        file: String,
    },
    /// A file whose bytes differ.
    Differs {
        /// Its name.
        file: String,
        /// The manifest's digest.
        expected: String,
        /// The file's.
        found: String,
    },
    /// A table file of the set the manifest does not list (more pieces, other rules).
    NotListed {
        /// Its name.
        file: String,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::Missing { file } => write!(f, "{file}: missing"),
            Difference::Differs { file, expected, found } => {
                write!(f, "{file}: differs (sha256 {found}, the manifest says {expected})")
            }
            Difference::NotListed { file } => write!(f, "{file}: not in the manifest"),
        }
    }
}

const HEAD: &str = "# kabe manifest: ";

impl Manifest {
    /// The manifest as text: a head line, then a line a file in name order.
    pub fn to_text(&self) -> String {
        let mut text = format!("{HEAD}{}; file sha256 bytes positions wins draws losses\n", self.variant);
        let mut entries: Vec<&ManifestEntry> = self.entries.iter().collect();
        entries.sort_by(|a, b| a.file.cmp(&b.file));
        for e in entries {
            let counts = e.counts.map_or("- - -".to_string(), |[w, d, l]| format!("{w} {d} {l}"));
            text += &format!("{} {} {} {} {counts}\n", e.file, e.sha256, e.bytes, e.positions);
        }
        text
    }

    /// Reads a manifest written by [`Manifest::to_text`]; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
        let fail = |line: usize, problem: String| ManifestError { path: path.to_path_buf(), line, problem };
        let mut manifest = Manifest::default();
        for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
            if let Some(head) = line.strip_prefix(HEAD) {
                manifest.variant = head.split(';').next().unwrap_or("").trim().to_string();
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let [file, sha256, bytes, positions, w, d, l] = words[..] else {
                return Err(fail(
                    n,
                    format!("expected 7 words (file sha256 bytes positions wins draws losses), found {}", words.len()),
                ));
            };
            if !is_table_name(file) {
                return Err(fail(n, format!("{file:?} is not a table file's name (like 0101.dtw.kabe)")));
            }
            if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(fail(n, format!("{sha256:?} is not a SHA-256 in hex")));
            }
            let number = |w: &str| w.parse::<u64>().map_err(|_| fail(n, format!("{w:?} is not a count")));
            let counts = if [w, d, l] == ["-", "-", "-"] { None } else { Some([number(w)?, number(d)?, number(l)?]) };
            manifest.entries.push(ManifestEntry {
                file: file.to_string(),
                sha256: sha256.to_ascii_lowercase(),
                bytes: number(bytes)?,
                positions: number(positions)?,
                counts,
            });
        }
        if manifest.variant.is_empty() {
            return Err(fail(1, format!("no head line ({HEAD}VARIANT; ...): not a kabe manifest")));
        }
        Ok(manifest)
    }
}

/// `SSSS.metric.kabe`, as [`kabe_probe::table::parse_file_name`] reads it: four digits
/// and a metric, so nothing that leaves the folder.
fn is_table_name(name: &str) -> bool {
    kabe_probe::table::parse_file_name(name).is_some()
}

/// SHA-256 of the file at `path`, in hex. A FIFO or device is refused without being
/// opened.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let named = |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    if !std::fs::metadata(path).map_err(named)?.is_file() {
        return Err(named(std::io::Error::other("not a regular file")));
    }
    let mut file = std::fs::File::open(path).map_err(named)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buffer).map_err(named)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The entries of every table file of `variant` under `dir` (of the signatures `only`
/// names, when given), with the counts `counts` gives for a file's material and kind
/// (`None`: not known).
pub fn manifest_of(
    dir: &Path,
    variant: Variant,
    only: Option<&[Signature]>,
    counts: &dyn Fn(Signature, Metric) -> Option<[u64; 3]>,
) -> std::io::Result<Manifest> {
    let mut manifest = Manifest { variant: variant.name.to_string(), entries: Vec::new() };
    for (sig, metrics) in crate::tables_in(dir, &variant)? {
        if only.is_some_and(|o| !o.contains(&sig)) {
            continue;
        }
        let positions = kabe_probe::MaterialIndex::new(variant, sig).map_or(0, |i| i.len());
        for metric in metrics {
            let path = TableDir::new(dir).path(&variant, sig, metric);
            let bytes = std::fs::metadata(&path)?.len();
            manifest.entries.push(ManifestEntry {
                file: format!("{sig}.{}.kabe", metric.name()),
                sha256: sha256_file(&path)?,
                bytes,
                positions,
                counts: counts(sig, metric),
            });
        }
    }
    manifest.entries.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(manifest)
}

/// How the set of `variant` under `dir` differs from `manifest`: every file it lists
/// missing or with other bytes, and every table file there it does not list.
pub fn check_manifest(dir: &Path, variant: Variant, manifest: &Manifest) -> std::io::Result<Vec<Difference>> {
    let folder = dir.join(variant.name);
    let mut listed: BTreeMap<&str, &ManifestEntry> = BTreeMap::new();
    for e in &manifest.entries {
        listed.insert(&e.file, e);
    }
    let mut differences = Vec::new();
    for (file, entry) in &listed {
        let path = folder.join(file);
        if !path.exists() {
            differences.push(Difference::Missing { file: file.to_string() });
            continue;
        }
        // A file that cannot be read (a FIFO or folder under its name) differs.
        let found = sha256_file(&path).unwrap_or_else(|e| format!("unreadable ({e})"));
        if found != entry.sha256 {
            differences.push(Difference::Differs { file: file.to_string(), expected: entry.sha256.clone(), found });
        }
    }
    for (sig, metrics) in crate::tables_in(dir, &variant)? {
        for metric in metrics {
            let name = TableDir::new(dir).path(&variant, sig, metric);
            let name = name.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !listed.contains_key(name.as_str()) {
                differences.push(Difference::NotListed { file: name });
            }
        }
    }
    Ok(differences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_and_a_damaged_one_is_named_by_line() {
        let m = Manifest {
            variant: "russian".into(),
            entries: vec![ManifestEntry {
                file: "0101.dtw.kabe".into(),
                sha256: "ab".repeat(32),
                bytes: 128,
                positions: 992,
                counts: Some([0, 992, 0]),
            }],
        };
        let path = Path::new("m.txt");
        assert_eq!(Manifest::parse(&m.to_text(), path).expect("parse"), m);
        let cut = m.to_text().replace(" 0 992 0", " 0 992");
        let e = Manifest::parse(&cut, path).expect_err("six words");
        assert!(e.to_string().starts_with("m.txt: line 2: expected 7 words"), "{e}");
        assert!(Manifest::parse("0101.dtw.kabe x", path).is_err());
        let outside = m.to_text().replace("0101.dtw.kabe", "../0101.dtw.kabe");
        assert!(Manifest::parse(&outside, path).expect_err("a path").to_string().contains("not a table file's name"));
    }
}
