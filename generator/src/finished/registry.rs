//! Solved tables held in memory, looked up by position.

use std::collections::HashMap;
use std::sync::Arc;

use kabe_probe::{MaterialIndex, Position, Score, Signature, Variant};

/// A table the values need is not there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no table for {0}")]
pub struct MissingTable(pub Signature);

/// The scores of every position (White to move) of one signature.
#[derive(Debug)]
pub struct SolvedTable {
    /// The index of the signature.
    pub index: MaterialIndex,
    /// One score per index.
    pub scores: Vec<Score>,
}

/// Every table solved so far for one variant.
#[derive(Debug, Clone)]
pub struct Registry {
    variant: Variant,
    tables: HashMap<Signature, Arc<SolvedTable>>,
}

impl Registry {
    /// No tables yet.
    pub fn new(variant: Variant) -> Registry {
        Registry { variant, tables: HashMap::new() }
    }

    /// The variant of the tables.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Adds a solved table.
    pub fn insert(&mut self, table: SolvedTable) {
        self.tables.insert(table.index.signature(), Arc::new(table));
    }

    /// The table of `signature`, if solved.
    pub fn table(&self, signature: Signature) -> Option<&Arc<SolvedTable>> {
        self.tables.get(&signature)
    }

    /// Signatures solved, in no particular order.
    pub fn signatures(&self) -> impl Iterator<Item = Signature> + '_ {
        self.tables.keys().copied()
    }

    /// The score of any position whose material is solved (or whose material decides it:
    /// [`Position::settled_score`]). `None` when its table is missing.
    pub fn score(&self, position: &Position) -> Option<Score> {
        if let Some(settled) = position.settled_score() {
            return Some(settled);
        }
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        let table = self.tables.get(&sig)?;
        Some(table.scores[table.index.index(&normalized) as usize])
    }
}
