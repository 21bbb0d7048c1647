//! One table of each pair: a signature and its colour flip describe the same positions
//! with the other side to move, so a table of either can be found from the other's by a
//! one-ply search (the quiet moves of one lead into the other). After a set is built,
//! of each pair's two files of a kind (WLD, DTW, a rule set's) the smaller is kept and the
//! other replaced by one that holds no values ([`kabe_probe::internal::table::TableFlags::BY_SEARCH`]),
//! as Kingsrow's larger tables and Scan's bitbases store one side to move.
//!
//! Done once a pair is whole: its WLD and DTW files and, for every rule set with tables
//! here whose counts the material keeps, its rule table. A pair still waiting for its
//! rule tables keeps both sides, which its own rule pass reads without a search.
//!
//! A set that will be extended may keep the dropped files aside
//! ([`DroppedFiles::KeptAside`], [`kabe_probe::internal::table::TableDir::dropped_path`]): the
//! builds that extend it read them instead of searching every position of a dropped
//! side they reach (a fifth of Russian 1113+1311's theory pass on a compact 2-6 set).

use std::path::Path;

use kabe_probe::internal::table::TableDir;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, Signature, Variant};

use crate::build::write::write_table_by_search;
use crate::build::{table_path, BuildError};
use crate::verify::tables_in;

/// What keeping one side saved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OneSide {
    /// Files replaced by one found by search.
    pub files: usize,
    /// Bytes those files took.
    pub bytes_saved: u64,
}

/// What becomes of the file of each pair that [`keep_one_side`] drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DroppedFiles {
    /// Replaced: the set takes the least room on disk.
    Replaced,
    /// Replaced, its values kept in the table folder's `dropped` folder for the builds
    /// that extend the set (the disk a set with both sides takes).
    KeptAside,
}

/// What a set keeps of each pair's two tables of a kind: `kabe generate`'s default,
/// `--keep-dropped` or `--both-sides` (and the last step of `kabe plan`, which runs it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SidesKept {
    /// The smaller table kept, the other found by search.
    #[default]
    OneSide,
    /// As `OneSide`, the dropped DTW and rule tables kept aside for later builds to read.
    OneSideKeepingDropped,
    /// Both tables kept.
    BothSides,
}

impl SidesKept {
    /// What becomes of the dropped tables, when one side is kept.
    pub fn dropped(self) -> Option<DroppedFiles> {
        match self {
            SidesKept::OneSide => Some(DroppedFiles::Replaced),
            SidesKept::OneSideKeepingDropped => Some(DroppedFiles::KeptAside),
            SidesKept::BothSides => None,
        }
    }

    /// `kabe generate`'s option for this choice (none for the default).
    pub fn generate_flag(self) -> Option<&'static str> {
        match self {
            SidesKept::OneSide => None,
            SidesKept::OneSideKeepingDropped => Some("--keep-dropped"),
            SidesKept::BothSides => Some("--both-sides"),
        }
    }

    /// What the choice keeps, in words.
    pub fn describe(self) -> &'static str {
        match self {
            SidesKept::OneSide => "keeps one table of each pair",
            SidesKept::OneSideKeepingDropped => "keeps one table of each pair, the dropped ones aside",
            SidesKept::BothSides => "keeps both tables of each pair",
        }
    }
}

/// Keeps, of every pair of table files of `variant` under `dir` with `max_pieces` pieces
/// or fewer (WLD, DTW and every rule set's), the smaller, and writes the other as found
/// by search (its values kept aside or not, `dropped`). Pairs already done are left as
/// they are; a symmetric signature has one file.
pub fn keep_one_side(
    dir: &Path,
    variant: Variant,
    max_pieces: u32,
    dropped: DroppedFiles,
) -> Result<OneSide, BuildError> {
    // A set already kept to one side is only read: nothing is opened for writing (a set
    // on read-only media "builds" again without error).
    if files_to_drop(dir, variant, max_pieces)?.is_empty() {
        return Ok(OneSide::default());
    }
    let _lock = crate::BuildLock::exclusive(dir, &variant)?;
    let mut done = OneSide::default();
    let ledger_error = |source| BuildError::Write { path: dir.join(variant.name).join(crate::LEDGER_NAME), source };
    // What the verifier found sound stays so: the values do not change.
    let holding = crate::verify::ledger_lines_holding(dir, variant).map_err(ledger_error)?;
    for ToDrop { drop, metric, kept_checksum } in files_to_drop(dir, variant, max_pieces)? {
        let size = |s: Signature| std::fs::metadata(table_path(dir, &variant, s, metric)).map_or(0, |m| m.len());
        let bytes = size(drop);
        // Builds read DTW and rule tables, never WLD: no WLD copy is kept.
        if dropped == DroppedFiles::KeptAside && metric != Metric::Wld {
            keep_aside(dir, &variant, drop, metric, kept_checksum)?;
        }
        let index = MaterialIndex::new(variant, drop).expect("a table's signature has an index");
        write_table_by_search(dir, variant.name, &index, metric)
            .map_err(|source| BuildError::Write { path: table_path(dir, &variant, drop, metric), source })?;
        done.files += 1;
        done.bytes_saved += bytes.saturating_sub(size(drop));
    }
    crate::verify::carry_ledger(dir, variant, &holding).map_err(ledger_error)?;
    Ok(done)
}

/// A file [`keep_one_side`] drops: the `metric` table of `drop`, whose colour flip's file
/// (header checksum `kept_checksum`) keeps the pair's values.
struct ToDrop {
    drop: Signature,
    metric: Metric,
    kept_checksum: u64,
}

/// The files of whole pairs of `max_pieces` or fewer under `dir` that hold values on both
/// sides: of each such pair and kind, the larger file.
fn files_to_drop(dir: &Path, variant: Variant, max_pieces: u32) -> Result<Vec<ToDrop>, BuildError> {
    let found =
        tables_in(dir, &variant).map_err(|source| BuildError::Write { path: dir.join(variant.name), source })?;
    let sets = crate::verify::rule_sets_of(&found);
    let mut out = Vec::new();
    for (&sig, metrics) in &found {
        let flip = sig.flipped();
        if flip <= sig || sig.pieces() > max_pieces {
            continue;
        }
        let Some(flip_metrics) = found.get(&flip) else { continue };
        if !whole(&found, &sets, sig, variant) {
            continue;
        }
        for &metric in metrics.iter().filter(|m| flip_metrics.contains(m)) {
            let open = |s: Signature| TableFile::open(&table_path(dir, &variant, s, metric), &variant, s, metric);
            let (a, b) = (open(sig)?, open(flip)?);
            if a.header().by_search() || b.header().by_search() {
                continue;
            }
            a.verify_checksum()?;
            b.verify_checksum()?;
            let size = |s: Signature| std::fs::metadata(table_path(dir, &variant, s, metric)).map_or(0, |m| m.len());
            let (drop, kept) = if size(sig) > size(flip) { (sig, &b) } else { (flip, &a) };
            out.push(ToDrop { drop, metric, kept_checksum: kept.header().checksum });
        }
    }
    Ok(out)
}

/// Keeps the values of the `metric` table of `drop` under `dir` aside, bound to its
/// colour flip's file (checksum `kept`), before the file is replaced: a second name for
/// the same file (a copy where the file system has no links), so that the table's own
/// name never lacks a file. The pair's other copies of this kind go: those bound to an
/// earlier flip file, and the flip's own from a build that dropped the other side.
fn keep_aside(dir: &Path, variant: &Variant, drop: Signature, metric: Metric, kept: u64) -> Result<(), BuildError> {
    let layout = TableDir::new(dir);
    let folder = layout.dropped_folder(variant);
    let aside = layout.dropped_path(variant, drop, metric, kept);
    let error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BuildError::Write { path, source }
    };
    crate::files::own_folder(&folder).map_err(error(&folder))?;
    let of_this_pair = |name: &str| {
        [drop, drop.flipped()].iter().any(|sig| {
            let rest = name.strip_prefix(&format!("{sig}.{}.", metric.name()));
            let checksum = rest.and_then(|r| r.strip_suffix(".kabe").or_else(|| r.strip_suffix(".kabe.tmp")));
            checksum.is_some_and(|c| c.len() == 16 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        })
    };
    for entry in std::fs::read_dir(&folder).map_err(error(&folder))? {
        let path = entry.map_err(error(&folder))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if of_this_pair(name) && path != aside {
            std::fs::remove_file(&path).map_err(error(&path))?;
        }
    }
    let from = table_path(dir, variant, drop, metric);
    if aside.exists() {
        std::fs::remove_file(&aside).map_err(error(&aside))?;
    }
    if std::fs::hard_link(&from, &aside).is_err() {
        let copied = crate::files::NewFile::create(&aside, aside.with_extension("kabe.tmp")).and_then(|mut copy| {
            std::io::copy(&mut std::fs::File::open(&from)?, copy.file())?;
            copy.commit()
        });
        copied.map_err(error(&aside))?;
    }
    Ok(())
}

/// Whether both signatures of the pair of `sig` have their WLD and DTW files and, for
/// every rule set of `sets` (those with a table among `found`) whose counts they keep,
/// their rule table.
fn whole(
    found: &std::collections::BTreeMap<Signature, Vec<Metric>>,
    sets: &std::collections::BTreeSet<DrawRuleSet>,
    sig: Signature,
    variant: Variant,
) -> bool {
    [sig, sig.flipped()].iter().all(|s| {
        let Some(metrics) = found.get(s) else { return false };
        let ruled = sets.iter().filter(|set| DrawRules::new(**set, &variant).context(*s).is_some());
        [Metric::Wld, Metric::Dtw].iter().all(|m| metrics.contains(m))
            && ruled.into_iter().all(|set| metrics.contains(&Metric::Rules(*set)))
    })
}
