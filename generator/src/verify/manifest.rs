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
use std::io::{BufRead as _, Read};
use std::path::{Path, PathBuf};

use kabe_probe::internal::table::TableDir;
use kabe_probe::table::Metric;
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
#[error("{}{problem}", where_in(path, *line))]
pub struct ManifestError {
    /// The manifest file.
    pub path: PathBuf,
    /// The line (from 1); 0 for the manifest as a whole.
    pub line: usize,
    /// What is wrong with it.
    pub problem: String,
}

fn where_in(path: &Path, line: usize) -> String {
    if line == 0 {
        format!("{}: ", path.display())
    } else {
        format!("{}: line {line}: ", path.display())
    }
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
        /// The pair's two files of this kind both hold values here (a set built with
        /// `--both-sides`, or grown by `--pair` jobs), where the manifest's set keeps one.
        both_sides: bool,
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
            Difference::Differs { file, expected, found, both_sides } => {
                write!(f, "{file}: differs (sha256 {found}, the manifest says {expected})")?;
                if *both_sides {
                    let sig = file.split('.').next().unwrap_or(file);
                    write!(
                        f,
                        ": this set keeps both tables of the pair, the manifest one, the other found by search \
                         (`kabe generate --closure {sig}` on this set keeps one side, as the manifest has it)"
                    )?;
                }
                Ok(())
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
        Manifest::read_from(text.as_bytes(), path)
    }

    /// Reads the manifest at `path`, a file a user named: line by line, each line and the
    /// number of lines bounded ([`MAX_LINE`], [`MAX_LINES`]), stopping at a first line
    /// that is not a manifest's head (so that `/dev/zero` or a table file is refused at
    /// once, not read whole).
    pub fn read(path: &Path) -> Result<Manifest, ManifestError> {
        let file = crate::files::open_to_read(path).map_err(|e| {
            let said = e.to_string();
            let prefix = format!("{}: ", path.display());
            ManifestError::at(path, 0, said.strip_prefix(&prefix).unwrap_or(&said).to_string())
        })?;
        Manifest::read_from(std::io::BufReader::new(file), path)
    }

    /// As [`Manifest::read`], from `input`; `path` names it in errors. A manifest must
    /// list files, every one with its pair's: a signature's WLD and DTW files, and those of
    /// its colour flip (of every kind it lists); one that does not was cut short or edited.
    pub fn read_from(mut input: impl std::io::BufRead, path: &Path) -> Result<Manifest, ManifestError> {
        let fail = |line: usize, problem: String| ManifestError::at(path, line, problem);
        let mut manifest = Manifest::default();
        let mut buffer = Vec::new();
        for n in 1.. {
            buffer.clear();
            let read = (&mut input)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut buffer)
                .map_err(|e| fail(n, e.to_string()))?;
            if read == 0 {
                break;
            }
            if buffer.len() > MAX_LINE {
                return Err(fail(n, format!("longer than {MAX_LINE} bytes: not a manifest's line")));
            }
            if n > MAX_LINES {
                return Err(fail(n, format!("more than {MAX_LINES} lines: not a manifest")));
            }
            let Ok(line) = std::str::from_utf8(&buffer) else {
                return Err(fail(n, "not text (UTF-8): not a kabe manifest".into()));
            };
            let line = line.trim();
            if manifest.variant.is_empty() {
                match line.strip_prefix(HEAD) {
                    Some(head) => manifest.variant = head.split(';').next().unwrap_or("").trim().to_string(),
                    None if line.is_empty() => continue,
                    None => return Err(fail(n, format!("no head line ({HEAD}VARIANT; ...): not a kabe manifest"))),
                }
                if manifest.variant.is_empty() {
                    return Err(fail(n, "the head line names no game".into()));
                }
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            manifest.entries.push(entry_of(line).map_err(|problem| fail(n, problem))?);
        }
        if manifest.variant.is_empty() {
            return Err(fail(1, format!("empty: no head line ({HEAD}VARIANT; ...), not a kabe manifest")));
        }
        if manifest.entries.is_empty() {
            return Err(fail(1, "a head line and no files: a manifest cut short, or not written yet".into()));
        }
        manifest.check_pairs_whole().map_err(|problem| fail(0, problem))?;
        Ok(manifest)
    }

    /// Whether every listed signature comes with its pair's files (see [`Manifest::read_from`]).
    fn check_pairs_whole(&self) -> Result<(), String> {
        let mut kinds: BTreeMap<Signature, Vec<Metric>> = BTreeMap::new();
        for e in &self.entries {
            let (sig, metric) = kabe_probe::internal::table::parse_file_name(&e.file).expect("checked when read");
            kinds.entry(sig).or_default().push(metric);
        }
        for (sig, metrics) in &kinds {
            for needed in [Metric::Wld, Metric::Dtw] {
                if !metrics.contains(&needed) {
                    return Err(format!(
                        "lists {sig}'s files but not {sig}.{}.kabe: a manifest cut short or edited",
                        needed.name()
                    ));
                }
            }
            let flip = sig.flipped();
            for metric in metrics {
                if !kinds.get(&flip).is_some_and(|m| m.contains(metric)) {
                    return Err(format!(
                        "lists {sig}.{0}.kabe but not its colour flip's {flip}.{0}.kabe (a pair's files are listed \
                         together): a manifest cut short or edited",
                        metric.name()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The longest line [`Manifest::read`] takes (a file's line is about 100 bytes).
pub const MAX_LINE: usize = 4096;
/// The most lines [`Manifest::read`] takes: a manifest of every international table of
/// up to eight pieces has about 2,000.
pub const MAX_LINES: usize = 1_000_000;

/// A manifest's line for one file: `file sha256 bytes positions wins draws losses`.
fn entry_of(line: &str) -> Result<ManifestEntry, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [file, sha256, bytes, positions, w, d, l] = words[..] else {
        return Err(format!("expected 7 words (file sha256 bytes positions wins draws losses), found {}", words.len()));
    };
    if !is_table_name(file) {
        return Err(format!("{file:?} is not a table file's name (like 0101.dtw.kabe)"));
    }
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{sha256:?} is not a SHA-256 in hex"));
    }
    let number = |w: &str| w.parse::<u64>().map_err(|_| format!("{w:?} is not a count"));
    let counts = if [w, d, l] == ["-", "-", "-"] { None } else { Some([number(w)?, number(d)?, number(l)?]) };
    Ok(ManifestEntry {
        file: file.to_string(),
        sha256: sha256.to_ascii_lowercase(),
        bytes: number(bytes)?,
        positions: number(positions)?,
        counts,
    })
}

impl ManifestError {
    fn at(path: &Path, line: usize, problem: String) -> ManifestError {
        ManifestError { path: path.to_path_buf(), line, problem }
    }
}

/// `SSSS.metric.kabe`, as [`kabe_probe::internal::table::parse_file_name`] reads it: four digits
/// and a metric, so nothing that leaves the folder.
fn is_table_name(name: &str) -> bool {
    kabe_probe::internal::table::parse_file_name(name).is_some()
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
        let positions = kabe_probe::internal::MaterialIndex::new(variant, sig).map_or(0, |i| i.len());
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
            let both_sides = holds_both_sides(dir, &variant, file);
            differences.push(Difference::Differs {
                file: file.to_string(),
                expected: entry.sha256.clone(),
                found,
                both_sides,
            });
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

/// Whether the file `name` and its colour flip's of the same kind both hold values under
/// `dir` (a pair kept on both sides); a symmetric material has one file.
fn holds_both_sides(dir: &Path, variant: &Variant, name: &str) -> bool {
    let Some((sig, metric)) = kabe_probe::internal::table::parse_file_name(name) else { return false };
    let holds = |s: Signature| {
        kabe_probe::table::TableFile::open(&TableDir::new(dir).path(variant, s, metric), variant, s, metric)
            .is_ok_and(|t| !t.header().by_search())
    };
    sig.flipped() != sig && holds(sig) && holds(sig.flipped())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str) -> ManifestEntry {
        ManifestEntry {
            file: file.into(),
            sha256: "ab".repeat(32),
            bytes: 128,
            positions: 992,
            counts: Some([0, 992, 0]),
        }
    }

    #[test]
    fn a_manifest_reads_back_and_a_damaged_one_is_named_by_line() {
        let m = Manifest { variant: "russian".into(), entries: vec![entry("0101.dtw.kabe"), entry("0101.wld.kabe")] };
        let path = Path::new("m.txt");
        assert_eq!(Manifest::parse(&m.to_text(), path).expect("parse"), m);
        let cut = m.to_text().replace(" 0 992 0", " 0 992");
        let e = Manifest::parse(&cut, path).expect_err("six words");
        assert!(e.to_string().starts_with("m.txt: line 2: expected 7 words"), "{e}");
        assert!(Manifest::parse("0101.dtw.kabe x", path).is_err());
        let outside = m.to_text().replace("0101.dtw.kabe", "../0101.dtw.kabe");
        assert!(Manifest::parse(&outside, path).expect_err("a path").to_string().contains("not a table file's name"));
    }

    #[test]
    fn a_manifest_cut_short_or_not_a_manifest_is_refused_at_once() {
        let path = Path::new("m.txt");
        let pair = Manifest {
            variant: "international".into(),
            entries: ["0102.dtw.kabe", "0102.wld.kabe", "0201.dtw.kabe", "0201.wld.kabe"].map(entry).to_vec(),
        };
        assert_eq!(Manifest::parse(&pair.to_text(), path).expect("whole"), pair);
        let text = pair.to_text();
        let head_only = text.lines().next().expect("a head").to_string();
        let e = Manifest::parse(&head_only, path).expect_err("no files");
        assert!(e.to_string().contains("a head line and no files"), "{e}");
        let cut: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
        let e = Manifest::parse(&cut, path).expect_err("cut short");
        assert!(e.to_string().contains("0201.wld.kabe") && e.to_string().contains("cut short"), "{e}");
        let e = Manifest::parse(&text.replace("0102.wld.kabe", "0103.wld.kabe"), path).expect_err("edited");
        assert!(e.to_string().contains("cut short or edited"), "{e}");
        let e = Manifest::parse("", path).expect_err("empty");
        assert!(e.to_string().contains("empty"), "{e}");
        // An endless file is refused at its first line, not read whole.
        let endless = std::io::Read::take(std::io::repeat(0), 1 << 40);
        let e = Manifest::read_from(std::io::BufReader::new(endless), path).expect_err("endless zeros");
        assert!(e.to_string().starts_with("m.txt: line 1: longer than 4096 bytes"), "{e}");
        let lines = std::io::Read::take(std::io::repeat(b'\n'), 1 << 40);
        let e = Manifest::read_from(std::io::BufReader::new(lines), path).expect_err("endless empty lines");
        assert!(e.to_string().contains("more than 1000000 lines"), "{e}");
        let e = Manifest::read(Path::new("/dev/zero")).expect_err("a device");
        assert!(e.to_string().contains("/dev/zero: line 1: longer than"), "{e}");
    }
}
