//! The layout of a table directory, in one place: `<dir>/<variant>/<sig>.<metric>.kabe`,
//! one file a table. The probe library's catalog, the generator's builds and writer, the
//! verifier and the manifest name, parse and list table files through [`TableDir`] and
//! [`parse_file_name`] alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::{Signature, Variant};

use super::Metric;

/// The file name of a table, relative to the table directory: `russian/1011.dtw.kabe`.
pub fn file_name(variant: &str, signature: Signature, metric: Metric) -> PathBuf {
    PathBuf::from(variant).join(format!("{signature}.{}.kabe", metric.name()))
}

/// `1010.dtw.kabe` → its signature and metric; `None` for any other name (temporary
/// files of an interrupted build, foreign files, an unknown rule set).
pub fn parse_file_name(name: &str) -> Option<(Signature, Metric)> {
    let (signature, metric) = name.strip_suffix(".kabe")?.split_once('.')?;
    let digits: Vec<u8> = signature.bytes().map(|b| b.wrapping_sub(b'0')).collect();
    if digits.len() != 4 || digits.iter().any(|&d| d > 9) {
        return None;
    }
    Some((Signature::new(digits[0], digits[1], digits[2], digits[3]), Metric::named(metric)?))
}

/// A table directory: a folder per variant, a file per table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDir {
    root: PathBuf,
}

impl TableDir {
    /// The table directory at `root`.
    pub fn new(root: impl Into<PathBuf>) -> TableDir {
        TableDir { root: root.into() }
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder of `variant`'s tables.
    pub fn folder(&self, variant: &Variant) -> PathBuf {
        self.root.join(variant.name)
    }

    /// The file of one table.
    pub fn path(&self, variant: &Variant, signature: Signature, metric: Metric) -> PathBuf {
        self.root.join(file_name(variant.name, signature, metric))
    }

    /// Where a build keeps the values of a table it dropped (wrote as found by search,
    /// `kabe generate --keep-dropped`), for the builds that extend the set to read instead
    /// of searching: `<dir>/<variant>/dropped/<sig>.<metric>.<kept>.kabe`, `kept` being
    /// the checksum of the colour flip's file that was kept. A flip's file written again
    /// with other values has another checksum, so a copy from before is never read with
    /// it. The folder is not a table folder: [`TableDir::files`] does not list it.
    pub fn dropped_path(&self, variant: &Variant, signature: Signature, metric: Metric, kept: u64) -> PathBuf {
        self.dropped_folder(variant).join(format!("{signature}.{}.{kept:016x}.kabe", metric.name()))
    }

    /// The folder of [`TableDir::dropped_path`].
    pub fn dropped_folder(&self, variant: &Variant) -> PathBuf {
        self.folder(variant).join("dropped")
    }

    /// The table files of `variant` here, by path: every name [`parse_file_name`] reads
    /// (whatever the file holds). No folder for the variant is no tables; an unreadable
    /// one is an error naming it.
    ///
    /// # Errors
    /// The I/O error, with the folder named in its message, when the variant's folder
    /// exists but it (or an entry in it) cannot be read.
    pub fn files(&self, variant: &Variant) -> std::io::Result<Vec<(PathBuf, Signature, Metric)>> {
        let folder = self.folder(variant);
        let named = |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", folder.display()));
        let entries = match std::fs::read_dir(&folder) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            other => other.map_err(named)?,
        };
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.map_err(named)?;
            let Some((signature, metric)) = entry.file_name().to_str().and_then(parse_file_name) else { continue };
            files.push((entry.path(), signature, metric));
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(files)
    }

    /// The signatures with a table file of `variant` here, with the metrics present.
    ///
    /// # Errors
    /// As [`TableDir::files`]: the folder exists but cannot be read.
    pub fn tables(&self, variant: &Variant) -> std::io::Result<BTreeMap<Signature, Vec<Metric>>> {
        let mut out: BTreeMap<Signature, Vec<Metric>> = BTreeMap::new();
        for (_, signature, metric) in self.files(variant)? {
            out.entry(signature).or_default().push(metric);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DrawRuleSet;

    #[test]
    fn file_names_are_read_back_and_nothing_else_is_a_table() {
        let sig = Signature::new(1, 0, 2, 1);
        for metric in [Metric::Wld, Metric::Dtw, Metric::Rules(DrawRuleSet::Fmjd)] {
            let name = file_name("russian", sig, metric);
            let name = name.file_name().and_then(|n| n.to_str()).expect("a name");
            assert_eq!(parse_file_name(name), Some((sig, metric)));
        }
        for foreign in ["10x1.dtw.kabe", "1021.lzma.kabe", "1021.dtw.kabe.tmp", "1021.dtw", "102.dtw.kabe", ""] {
            assert_eq!(parse_file_name(foreign), None, "{foreign}");
        }
    }

    #[test]
    fn a_missing_variant_folder_has_no_tables() {
        let dir = TableDir::new("/nonexistent/kabe-layout-test");
        assert!(dir.files(&Variant::RUSSIAN).expect("no folder is no tables").is_empty());
    }
}
