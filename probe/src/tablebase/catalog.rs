//! What a table directory holds: found and header-checked once at open, mapped lazily.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::error::ProbeError;
use crate::index::{MaterialIndex, Signature};
use crate::rules::DrawRuleSet;
use crate::table::{Header, Metric, TableDir, TableError, TableFile, HEADER_LEN};
use crate::{Position, Variant};

/// One table file of the directory.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) id: u32,
    pub(crate) path: PathBuf,
    pub(crate) header: Header,
    pub(crate) index: MaterialIndex,
    file: OnceLock<TableFile>,
    /// Map the file instead of reading it ([`super::TablebaseBuilder::memory_map`]).
    mapped: bool,
}

impl Slot {
    /// Whether the file holds a value of its own for `position` (else the reader finds it
    /// by one ply of search: [`crate::internal::successors`]).
    #[inline]
    pub(crate) fn holds(&self, position: &Position) -> bool {
        self.header.holds(position)
    }

    /// The file, opened on first use.
    pub(crate) fn file(&self, variant: &Variant) -> Result<&TableFile, TableError> {
        if let Some(f) = self.file.get() {
            return Ok(f);
        }
        let (signature, metric) = (self.header.signature, self.header.metric);
        let file = if self.mapped {
            // SAFETY: `mapped` is set only by `TablebaseBuilder::memory_map`, whose caller
            // promised that no table file is changed in place while the tablebase is open.
            unsafe { TableFile::open_mapped(&self.path, variant, signature, metric)? }
        } else {
            TableFile::open(&self.path, variant, signature, metric)?
        };
        if file.header() != &self.header {
            return Err(TableError::Corrupt { path: self.path.clone(), detail: "file changed since open".into() });
        }
        // Two threads may both open it; the second copy is dropped.
        Ok(self.file.get_or_init(|| file))
    }
}

const KEYS: usize = Signature::KEYS;

/// Which of a signature's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Column {
    Wld,
    Dtw,
    Rules(DrawRuleSet),
}

impl Column {
    pub(crate) fn of(metric: Metric) -> Column {
        match metric {
            Metric::Wld => Column::Wld,
            Metric::Dtw => Column::Dtw,
            Metric::Rules(set) => Column::Rules(set),
        }
    }
}

fn empty_column() -> Box<[u32]> {
    vec![u32::MAX; KEYS].into_boxed_slice()
}

/// The tables of one variant.
#[derive(Debug)]
pub(crate) struct Catalog {
    pub(crate) slots: Vec<Slot>,
    /// Per signature key, the slot of its WLD and DTW table (`u32::MAX`: none).
    by_key: [Box<[u32]>; 2],
    /// The same for the rule tables of each rule set present.
    by_rules: Vec<(DrawRuleSet, Box<[u32]>)>,
    /// Every signature of up to this many pieces has its WLD and DTW tables.
    pub(crate) complete_pieces: u32,
    /// The most pieces of any table here.
    pub(crate) largest_pieces: u32,
    /// Files that cannot be used: the rest of the directory answers without them.
    pub(crate) unusable: Vec<Unusable>,
}

/// Reads a file's header without mapping the file; a FIFO, device, socket or folder
/// under a table's name is refused without being opened.
fn read_header(path: &Path) -> Result<Header, TableError> {
    let io = |e: std::io::Error| TableError::Io { path: path.to_path_buf(), error: e };
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    crate::table::open_regular(path)?.0.take(HEADER_LEN as u64).read_to_end(&mut bytes).map_err(io)?;
    Header::parse(&bytes, path)
}

/// The header of `path`, checked to be the `metric` table of `signature` in `variant`,
/// and the material's index.
fn checked_header(
    path: &Path,
    variant: &Variant,
    signature: Signature,
    metric: Metric,
) -> Result<(Header, MaterialIndex), TableError> {
    let header = read_header(path)?;
    if header.variant != variant.name || header.signature != signature || header.metric != metric {
        return Err(TableError::not_the_table(
            path,
            &header.variant,
            format!("{} {} {}", header.variant, header.signature, header.metric.name()),
            variant.name,
            format!("{} {signature} {}", variant.name, metric.name()),
        ));
    }
    let index = MaterialIndex::new(*variant, signature)
        .filter(|i| i.len() == header.positions)
        .ok_or_else(|| TableError::Corrupt { path: path.to_path_buf(), detail: "position count".into() })?;
    Ok((header, index))
}

/// A file of the directory that cannot be used, and why. Its material answers as if it
/// had no table of that kind, except that the error names this file and what is wrong.
#[derive(Debug)]
pub(crate) struct Unusable {
    pub(crate) signature: Signature,
    pub(crate) column: Column,
    pub(crate) error: TableError,
}

impl Catalog {
    fn empty() -> Catalog {
        Catalog {
            slots: Vec::new(),
            by_key: [empty_column(), empty_column()],
            by_rules: Vec::new(),
            complete_pieces: 0,
            largest_pieces: 0,
            unusable: Vec::new(),
        }
    }

    /// Scans `dir/<variant>/`, checking every table header (the rule tables of every set
    /// present); `next_id` numbers the slots across variants (cache keys).
    pub(crate) fn scan(dir: &Path, variant: &Variant, mapped: bool, next_id: &mut u32) -> Result<Catalog, ProbeError> {
        let layout = TableDir::new(dir);
        // A variant asked for with no folder yet in an existing directory has no tables:
        // its probes then name each missing file and the command that builds it.
        let error = |error| ProbeError::Directory { path: layout.folder(variant), error };
        if !dir.is_dir() {
            // Reading the folder says why: the directory missing, or not one.
            let why = fs::read_dir(layout.folder(variant)).err();
            return Err(error(why.unwrap_or_else(|| std::io::ErrorKind::NotFound.into())));
        }
        let names = layout.files(variant).map_err(error)?;
        let mut catalog = Catalog::empty();
        for (path, signature, metric) in names {
            let Some(k) = signature.key() else { continue };
            let column = Column::of(metric);
            let (header, index) = match checked_header(&path, variant, signature, metric) {
                Ok(found) => found,
                Err(error) => {
                    catalog.unusable.push(Unusable { signature, column, error });
                    continue;
                }
            };
            let pieces = signature.white_men + signature.white_kings + signature.black_men + signature.black_kings;
            catalog.largest_pieces = catalog.largest_pieces.max(pieces as u32);
            catalog.column_mut(column)[k] = catalog.slots.len() as u32;
            catalog.slots.push(Slot { id: *next_id, path, header, index, file: OnceLock::new(), mapped });
            *next_id += 1;
        }
        // A table found by search reads its colour flip's: that one must hold values.
        // Where it does not, the error names the flip, the file to rebuild.
        let mut cut = Vec::new();
        for slot in catalog.slots.iter().filter(|s| s.header.by_search()) {
            let (signature, metric) = (slot.header.signature, slot.header.metric);
            let column = Column::of(metric);
            let flip = signature.flipped();
            let flip_path = dir.join(crate::table::file_name(variant.name, flip, metric));
            let error = if flip == signature {
                TableError::Corrupt {
                    path: slot.path.clone(),
                    detail: "holds no values, and it is its own colour flip".into(),
                }
            } else if let Some(unusable) = catalog.unusable.iter().find(|u| u.signature == flip && u.column == column) {
                unusable.error.duplicate()
            } else {
                match catalog.slot(flip, column) {
                    None => TableError::FlipMissing { path: flip_path, reader: slot.path.clone() },
                    Some(f) if f.header.by_search() => TableError::values_nowhere(&slot.path, &f.path),
                    Some(_) => continue,
                }
            };
            cut.push(Unusable { signature, column, error });
        }
        for unusable in cut {
            if let Some(k) = unusable.signature.key() {
                catalog.column_mut(unusable.column)[k] = u32::MAX;
            }
            catalog.unusable.push(unusable);
        }
        catalog.complete_pieces = (2..=32u32)
            .take_while(|&n| {
                Signature::all_with(n).into_iter().all(|s| {
                    let k = s.key();
                    k.is_some_and(|k| catalog.by_key[0][k] != u32::MAX && catalog.by_key[1][k] != u32::MAX)
                })
            })
            .last()
            .unwrap_or(0);
        Ok(catalog)
    }

    /// The keys of `column`, added if new (a rule set's first table).
    fn column_mut(&mut self, column: Column) -> &mut [u32] {
        match column {
            Column::Wld => &mut self.by_key[0],
            Column::Dtw => &mut self.by_key[1],
            Column::Rules(set) => {
                let at = match self.by_rules.iter().position(|(s, _)| *s == set) {
                    Some(at) => at,
                    None => {
                        self.by_rules.push((set, empty_column()));
                        self.by_rules.len() - 1
                    }
                };
                &mut self.by_rules[at].1
            }
        }
    }

    /// Why `signature`'s table of `column` is not used, where a file of it is there.
    pub(crate) fn unusable(&self, signature: Signature, column: Column) -> Option<&TableError> {
        self.unusable.iter().find(|u| u.signature == signature && u.column == column).map(|u| &u.error)
    }

    /// The slot of `signature`'s table of `column`.
    #[inline]
    pub(crate) fn slot(&self, signature: Signature, column: Column) -> Option<&Slot> {
        let keys = match column {
            Column::Wld => &self.by_key[0],
            Column::Dtw => &self.by_key[1],
            Column::Rules(set) => &self.by_rules.iter().find(|(s, _)| *s == set)?.1,
        };
        let at = *keys.get(signature.key()?)?;
        self.slots.get(at as usize)
    }

    /// The rule sets with at least one rule table here.
    pub(crate) fn rule_sets(&self) -> impl Iterator<Item = DrawRuleSet> + '_ {
        self.by_rules.iter().map(|(s, _)| *s)
    }
}
