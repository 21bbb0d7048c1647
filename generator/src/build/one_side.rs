//! One table of each pair: a signature and its colour flip describe the same positions
//! with the other side to move, so a table of either can be found from the other's by a
//! one-ply search (the quiet moves of one lead into the other). After a set is built,
//! of each pair's two files of a kind (WLD, DTW, a rule set's) the smaller is kept and the
//! other replaced by one that holds no values ([`kabe_probe::table::TableFlags::BY_SEARCH`]),
//! as Kingsrow's larger tables and Scan's bitbases store one side to move.
//!
//! Done once a pair is whole: its WLD and DTW files and, for every rule set with tables
//! here whose counts the material keeps, its rule table. A pair still waiting for its
//! rule tables keeps both sides, which its own rule pass reads without a search.

use std::path::Path;

use kabe_probe::table::{Metric, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, MaterialIndex, Signature, Variant};

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

/// Keeps, of every pair of table files of `variant` under `dir` with `max_pieces` pieces
/// or fewer (WLD, DTW and every rule set's), the smaller, and writes the other as found
/// by search. Pairs already done are left as they are; a symmetric signature has one file.
pub fn keep_one_side(dir: &Path, variant: Variant, max_pieces: u32) -> Result<OneSide, BuildError> {
    let _lock = crate::BuildLock::exclusive(dir, &variant)?;
    let found =
        tables_in(dir, &variant).map_err(|source| BuildError::Write { path: dir.join(variant.name), source })?;
    let sets = crate::verify::rule_sets_of(&found);
    let mut done = OneSide::default();
    let ledger_error = |source| BuildError::Write { path: dir.join(variant.name).join(crate::LEDGER_NAME), source };
    // What the verifier found sound stays so: the values do not change.
    let holding = crate::verify::ledger_lines_holding(dir, variant).map_err(ledger_error)?;
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
            let open = |s: Signature| -> Result<TableFile, BuildError> {
                let file = TableFile::open(&table_path(dir, &variant, s, metric), &variant, s, metric)?;
                file.verify_checksum()?;
                Ok(file)
            };
            let (a, b) = (open(sig)?, open(flip)?);
            if a.header().by_search() || b.header().by_search() {
                continue;
            }
            let size = |s: Signature| std::fs::metadata(table_path(dir, &variant, s, metric)).map_or(0, |m| m.len());
            let drop = if size(sig) > size(flip) { sig } else { flip };
            let bytes = size(drop);
            let index = MaterialIndex::new(variant, drop).expect("a table's signature has an index");
            write_table_by_search(dir, variant.name, &index, metric)
                .map_err(|source| BuildError::Write { path: table_path(dir, &variant, drop, metric), source })?;
            done.files += 1;
            done.bytes_saved += bytes.saturating_sub(size(drop));
        }
    }
    crate::verify::carry_ledger(dir, variant, &holding).map_err(ledger_error)?;
    Ok(done)
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
