//! What a solver reads finished tables through ([`Finished`], [`RuleInputs`]), and the
//! places that answer it: tables held in memory ([`Registry`], for tests and the brute
//! force checks), the probe library's reader ([`Tablebase`], [`FileOracle`]) and, in a
//! build, their working form (`crate::finished::working`), which falls back to the reader for
//! what the memory budget cannot hold.

use kabe_probe::rules::exact::Oracle;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{DrawRuleSet, Position, RuleScore, Score, Signature, Wld};

use crate::finished::registry::{MissingTable, Registry};

/// Theoretical values of finished tables.
pub trait Finished: Sync {
    /// Why a value cannot be read.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The DTW value of `position` (either side to move); its table must be finished.
    fn dtw(&self, position: &Position) -> Result<Score, Self::Error>;

    /// The DTW values of `positions`, in order, appended to `out`: [`Finished::dtw`] of
    /// each, where an implementation may overlap their memory reads.
    fn dtw_of(&self, positions: &[Position], out: &mut Vec<Score>) -> Result<(), Self::Error> {
        for position in positions {
            out.push(self.dtw(position)?);
        }
        Ok(())
    }
}

impl Finished for Registry {
    type Error = MissingTable;

    fn dtw(&self, position: &Position) -> Result<Score, MissingTable> {
        self.score(position).ok_or_else(|| MissingTable(Signature::of(&position.normalized())))
    }
}

impl Finished for Tablebase {
    type Error = ProbeError;

    fn dtw(&self, position: &Position) -> Result<Score, ProbeError> {
        self.probe_dtw(position)
    }
}

/// A tablebase read as the exact-verdict code's oracle: theoretical values and the rule
/// tables of one rule set.
pub struct FileOracle<'a>(pub &'a Tablebase, pub DrawRuleSet);

impl Oracle for FileOracle<'_> {
    type Error = ProbeError;

    fn theoretical(&self, position: &Position) -> Result<Score, ProbeError> {
        self.0.probe_dtw(position)
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, ProbeError> {
        self.0.probe_counted(position, self.1)
    }
}

/// What a rule pass reads: the values of finished tables ([`Oracle`]) and the pair's own
/// theoretical results. A position drawn in theory is drawn under every count (a count
/// only ever turns wins into draws), so the pass leaves it undecided without looking at
/// its moves; in the balanced materials that is most positions.
pub trait RuleInputs: Oracle {
    /// The stored theoretical results of consecutive positions of a table of the pair
    /// being solved: `positions[i]` (White to move, of `signature`) has index
    /// `first + i`. Appends one result a position to `out`: `None` where it is not at
    /// hand without a search.
    fn stored_results(
        &self,
        signature: Signature,
        first: u64,
        positions: &[Position],
        out: &mut Vec<Option<Wld>>,
    ) -> Result<(), Self::Error>;
}

impl RuleInputs for FileOracle<'_> {
    fn stored_results(
        &self,
        signature: Signature,
        first: u64,
        positions: &[Position],
        out: &mut Vec<Option<Wld>>,
    ) -> Result<(), ProbeError> {
        self.0.probe_wld_stored_run(signature, first, positions, out)
    }
}
