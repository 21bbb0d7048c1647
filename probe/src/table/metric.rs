//! What a table stores per position, and how a file names it (`wld`, `dtw`, a draw-rule
//! set's name) and its header numbers it.

use crate::rules::DrawRuleSet;

/// What a table stores per position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Win, draw or loss.
    Wld,
    /// Distance to the end of the game in plies (see [`Score`](crate::Score)).
    Dtw,
    /// Distances within the counts of a draw rule set ([`RuleScore`](crate::RuleScore)), one byte each.
    Rules(DrawRuleSet),
}

impl Metric {
    /// File-name part: `wld` or `dtw`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Wld => "wld",
            Metric::Dtw => "dtw",
            Metric::Rules(set) => set.name(),
        }
    }

    /// The metric a file-name part names (`wld`, `dtw` or a draw-rule set): the inverse
    /// of [`Metric::name`].
    pub fn named(name: &str) -> Option<Metric> {
        match name {
            "wld" => Some(Metric::Wld),
            "dtw" => Some(Metric::Dtw),
            other => other.parse::<DrawRuleSet>().ok().map(Metric::Rules),
        }
    }

    /// The number a file's header stores for the metric.
    pub(super) fn code(self) -> u8 {
        match self {
            Metric::Wld => 1,
            Metric::Dtw => 2,
            Metric::Rules(set) => set.table_code(),
        }
    }

    /// The metric a header's number stands for.
    pub(super) fn from_code(code: u8) -> Option<Metric> {
        match code {
            1 => Some(Metric::Wld),
            2 => Some(Metric::Dtw),
            c => DrawRuleSet::ALL.into_iter().find(|s| s.table_code() == c).map(Metric::Rules),
        }
    }
}
