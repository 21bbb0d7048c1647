//! A directory of table files, opened as positions ask for them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::format::{file_name, Metric, TableError};
use super::reader::TableFile;
use crate::index::{MaterialIndex, Signature};
use crate::rules::exact::Oracle;
use crate::rules::{DrawRuleSet, DrawRules};
use crate::{Position, RuleScore, Score, Variant};

/// The tables of one variant and rule set under a directory. A table is read whole, its
/// checksum checked, the first time a position needs it, and kept decoded in memory: the
/// simple store for command-line work and checks (engines want the block cache of the
/// probe library instead).
#[derive(Debug)]
pub struct TableDir {
    dir: PathBuf,
    variant: Variant,
    rules: DrawRules,
    open: RwLock<HashMap<(Signature, Metric), Arc<Decoded>>>,
}

/// One table, decoded.
#[derive(Debug)]
struct Decoded {
    index: MaterialIndex,
    /// Raw entries: [`Score`] or [`RuleScore`] codes, by metric.
    values: Vec<u16>,
}

impl TableDir {
    /// Tables of `variant` under `dir`, with the rule tables of `rules`.
    pub fn new(dir: &Path, variant: Variant, rules: DrawRules) -> TableDir {
        TableDir { dir: dir.to_path_buf(), variant, rules, open: RwLock::new(HashMap::new()) }
    }

    /// The rule set.
    pub fn rules(&self) -> &DrawRules {
        &self.rules
    }

    /// The path of one table file.
    pub fn path(&self, signature: Signature, metric: Metric) -> PathBuf {
        self.dir.join(file_name(self.variant.name, signature, metric))
    }

    fn table(&self, signature: Signature, metric: Metric) -> Result<Arc<Decoded>, TableError> {
        if let Some(t) = self.open.read().unwrap_or_else(|e| e.into_inner()).get(&(signature, metric)) {
            return Ok(Arc::clone(t));
        }
        let path = self.path(signature, metric);
        // A missing file's error says how to build it, with this rule set's tables.
        let rules = Some(self.rules.set).filter(|s| *s != DrawRuleSet::None);
        let index =
            MaterialIndex::new(self.variant, signature).ok_or(TableError::Missing { path: path.clone(), rules })?;
        let file = TableFile::open(&path, &self.variant, signature, metric).map_err(|e| match e {
            TableError::Missing { path, .. } => TableError::Missing { path, rules },
            other => other,
        })?;
        file.verify_checksum()?;
        let values = match metric {
            Metric::Rules(_) => file.all_rule_scores()?.into_iter().map(RuleScore::raw).collect(),
            _ => file.all_scores()?.into_iter().map(Score::raw).collect(),
        };
        let table = Arc::new(Decoded { index, values });
        self.open.write().unwrap_or_else(|e| e.into_inner()).insert((signature, metric), Arc::clone(&table));
        Ok(table)
    }
}

impl Oracle for TableDir {
    type Error = TableError;

    fn theoretical(&self, position: &Position) -> Result<Score, TableError> {
        if let Some(settled) = position.settled_score() {
            return Ok(settled);
        }
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        let table = self.table(sig, Metric::Dtw)?;
        Ok(Score::from_raw(table.values[table.index.index(&normalized) as usize]))
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, TableError> {
        if let Some(settled) = position.settled_score() {
            return Ok(RuleScore::from_score(settled));
        }
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        let table = self.table(sig, Metric::Rules(self.rules.set))?;
        Ok(RuleScore::from_raw(table.values[table.index.index(&normalized) as usize]))
    }
}
