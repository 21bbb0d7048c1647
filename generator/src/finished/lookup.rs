//! What a solver reads finished tables through ([`Finished`]), and the places that
//! answer it: tables held in memory ([`Registry`], for tests and the brute force checks),
//! the probe library's reader ([`TableFiles`]) and, in a build, their working form
//! (`crate::finished::working`), which falls back to the reader for what the memory
//! budget cannot hold.

use kabe_probe::rules::exact::Oracle;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{DrawRuleSet, Position, RuleScore, Score, Signature, Wld};

use crate::finished::registry::{MissingTable, Registry};

/// Finished tables as a solver reads them: theoretical values, the rule values of one
/// rule set, and a pair's own stored results. Every reader of finished tables in a build
/// or a check answers it; the exact-verdict code reads one through [`AsOracle`].
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

    /// The rule value of `position` (either side to move) under the rule set these
    /// tables are read for; its rule table must be finished.
    fn counted(&self, position: &Position) -> Result<RuleScore, Self::Error>;

    /// The stored theoretical results of consecutive positions of a table of the pair
    /// being solved: `positions[i]` (White to move, of `signature`) has index
    /// `first + i`. Appends one result a position to `out`: `None` where it is not at
    /// hand without a search. A position drawn in theory is drawn under every count (a
    /// count only ever turns wins into draws), so a rule pass leaves it undecided without
    /// looking at its moves; in the balanced materials that is most positions.
    fn stored_results(
        &self,
        signature: Signature,
        first: u64,
        positions: &[Position],
        out: &mut Vec<Option<Wld>>,
    ) -> Result<(), Self::Error> {
        let _ = (signature, first);
        for position in positions {
            out.push(Some(self.dtw(position)?.wld()));
        }
        Ok(())
    }
}

/// Finished tables read as the exact-verdict code's oracle.
pub struct AsOracle<'a, F>(pub &'a F);

impl<F: Finished> Oracle for AsOracle<'_, F> {
    type Error = F::Error;

    #[inline]
    fn theoretical(&self, position: &Position) -> Result<Score, F::Error> {
        self.0.dtw(position)
    }

    #[inline]
    fn counted(&self, position: &Position) -> Result<RuleScore, F::Error> {
        self.0.counted(position)
    }
}

/// Theoretical tables held in memory: no rule tables.
impl Finished for Registry {
    type Error = MissingTable;

    fn dtw(&self, position: &Position) -> Result<Score, MissingTable> {
        self.score(position).ok_or_else(|| MissingTable(Signature::of(&position.normalized())))
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, MissingTable> {
        Err(MissingTable(Signature::of(&position.normalized())))
    }
}

/// The table files of a directory, through the probe library's reader, with the rule
/// tables of one rule set ([`DrawRuleSet::None`] for theory only).
pub struct TableFiles<'a>(pub &'a Tablebase, pub DrawRuleSet);

impl Finished for TableFiles<'_> {
    type Error = ProbeError;

    fn dtw(&self, position: &Position) -> Result<Score, ProbeError> {
        self.0.probe_dtw(position)
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, ProbeError> {
        self.0.probe_counted(position, self.1)
    }

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
