//! What a verification finds: the report ([`VerifyReport`], with [`Disagreement`] and
//! [`RuleDisagreement`], re-exported from `verify`), and [`Findings`], what the workers
//! gather into it while they check.
//!
//! The filling of the memory (`resident`), the counting and the check all say what they
//! find here, and the ledger says its problems in the report: so the report has a room
//! of its own below them all, needing only `statistics`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use kabe_probe::table::TableError;
use kabe_probe::{DrawRuleSet, RuleScore, Score, Signature, Wld};

use crate::verify::statistics::{RuleStats, TableStats};

/// A stored value that its successors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The table.
    pub signature: Signature,
    /// The position, as FEN.
    pub fen: String,
    /// What the DTW table says.
    pub stored: Score,
    /// What the WLD table says (for a position it holds no value for, what its captures
    /// give through the WLD tables).
    pub stored_wld: Wld,
    /// What its successors give.
    pub derived: Score,
}

/// A stored rule-table value that its successors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleDisagreement {
    /// The draw-rule set of the table.
    pub set: DrawRuleSet,
    /// The table.
    pub signature: Signature,
    /// The position, as FEN.
    pub fen: String,
    /// What the rule table says.
    pub stored: RuleScore,
    /// What its successors give.
    pub derived: RuleScore,
}

/// What a verification found.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Table files whose checksum was checked.
    pub files: usize,
    /// Those files by kind (`wld`, `dtw`, or a draw-rule set's name).
    pub files_by_kind: BTreeMap<String, usize>,
    /// Files that hold no values: their positions are found by search through their
    /// colour flip's table.
    pub files_by_search: usize,
    /// Stored DTW and WLD values derived again (one per position holding either).
    pub positions: u64,
    /// Stored rule-table values derived again (one per table and position).
    pub rule_positions: u64,
    /// Pairs checked now.
    pub pairs_derived: usize,
    /// Pairs the ledger records as verified against the same files, not derived again.
    pub pairs_from_ledger: usize,
    /// Files that are unusable or missing, with the reason: one line each.
    pub bad_files: Vec<String>,
    /// Signatures with one of their two files (WLD, DTW) missing.
    pub incomplete: Vec<Signature>,
    /// What shows the set unfinished, one line each: a build writing it now, files a
    /// pass stopped in the middle left, a pair with one side's tables, a material the
    /// tables lead to with none. The values there were derived; these were not seen.
    pub unfinished: Vec<String>,
    /// The first disagreements found (at most `max_reported`), and how many in all.
    pub disagreements: Vec<Disagreement>,
    /// Disagreements in all.
    pub disagreement_count: u64,
    /// The first rule-table disagreements found (at most `max_reported`).
    pub rule_disagreements: Vec<RuleDisagreement>,
    /// Rule-table disagreements in all.
    pub rule_disagreement_count: u64,
    /// Positions not derived again because a successor's table is bad or missing (the
    /// table itself is named once in `bad_files`).
    pub unverified: u64,
    /// The ledger's lines (numbered from 1) whose seal did not hold, torn or edited: their
    /// pairs were derived again and the ledger written without them.
    pub ledger_ignored_lines: Vec<usize>,
    /// Why the ledger could not be read or written (an unwritable folder, a full disk):
    /// the verification went on without it.
    pub ledger_problem: Option<String>,
    /// The figures of the tables of the pairs derived now and found sound, by signature
    /// (theoretical, and under each rule set present), where the pair was held in memory;
    /// the ledger records the same.
    #[allow(clippy::type_complexity)]
    pub statistics: BTreeMap<Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>)>,
}

impl VerifyReport {
    /// Whether everything checked out.
    pub fn ok(&self) -> bool {
        self.bad_files.is_empty()
            && self.incomplete.is_empty()
            && self.unfinished.is_empty()
            && self.disagreement_count == 0
            && self.rule_disagreement_count == 0
            && self.unverified == 0
    }
}

/// What the checks find, gathered from every worker: bad files, disagreements (the
/// first `max_reported` of each kind in detail) and counts.
pub(super) struct Findings {
    disagreements: Mutex<Vec<Disagreement>>,
    rule_disagreements: Mutex<Vec<RuleDisagreement>>,
    bad: Mutex<Vec<String>>,
    count: AtomicU64,
    rule_count: AtomicU64,
    pub(super) checked: AtomicU64,
    pub(super) rule_checked: AtomicU64,
    pub(super) unverified: AtomicU64,
    max_reported: usize,
}

impl Findings {
    pub(super) fn new(max_reported: usize) -> Findings {
        Findings {
            disagreements: Mutex::default(),
            rule_disagreements: Mutex::default(),
            bad: Mutex::default(),
            count: AtomicU64::new(0),
            rule_count: AtomicU64::new(0),
            checked: AtomicU64::new(0),
            rule_checked: AtomicU64::new(0),
            unverified: AtomicU64::new(0),
            max_reported,
        }
    }

    pub(super) fn bad(&self, e: TableError) {
        self.bad.lock().unwrap_or_else(|p| p.into_inner()).push(e.to_string());
    }

    pub(super) fn disagreement(&self, d: Disagreement) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut found = self.disagreements.lock().unwrap_or_else(|p| p.into_inner());
        if found.len() < self.max_reported {
            found.push(d);
        }
    }

    pub(super) fn rule_disagreement(&self, d: RuleDisagreement) {
        self.rule_count.fetch_add(1, Ordering::Relaxed);
        let mut found = self.rule_disagreements.lock().unwrap_or_else(|p| p.into_inner());
        if found.len() < self.max_reported {
            found.push(d);
        }
    }

    /// Everything found so far that makes a pair unsound: disagreements, positions left
    /// unverified, and bad files.
    pub(super) fn so_far(&self) -> (u64, usize) {
        let counted = self.count.load(Ordering::Relaxed)
            + self.rule_count.load(Ordering::Relaxed)
            + self.unverified.load(Ordering::Relaxed);
        (counted, self.bad.lock().unwrap_or_else(|p| p.into_inner()).len())
    }

    pub(super) fn into_report(self, report: &mut VerifyReport) {
        fn taken<T>(found: Mutex<Vec<T>>) -> Vec<T> {
            found.into_inner().unwrap_or_else(|p| p.into_inner())
        }
        report.positions = self.checked.into_inner();
        report.rule_positions = self.rule_checked.into_inner();
        let mut bad = taken(self.bad);
        bad.sort();
        bad.dedup();
        report.bad_files.extend(bad);
        report.disagreements = taken(self.disagreements);
        report.disagreement_count = self.count.into_inner();
        report.rule_disagreements = taken(self.rule_disagreements);
        report.rule_disagreement_count = self.rule_count.into_inner();
        report.unverified = self.unverified.into_inner();
    }
}
