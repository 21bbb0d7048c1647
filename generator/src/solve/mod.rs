//! The solvers: retrograde analysis of one table pair from the finished tables its
//! captures and promotions lead to.
//!
//! - `whole`: a pair solved in memory, two bytes of working state a position (the faster
//!   way, used whenever the pair fits the budget);
//! - `components` and `slices`: the same analysis one men placement at a time, each
//!   placement's king positions solved in memory and written out (pairs too large for the
//!   budget);
//! - `checkpoint`: a pair's working state written to disk now and then, so that a pass
//!   stopped in the middle goes on from there;
//! - `rules`: the rule tables, the distance within the count a signature keeps, from the
//!   pair's own theoretical values and the finished rule tables;
//! - `symmetry`: the board symmetries of kings-only positions, by which `whole` and
//!   `rules` solve such a pair at one position of each class of four;
//! - `king_words`: bit-parallel over one king's square on the 10x10 board, where that is
//!   faster: one king against kings, and a pair with men where a side has one king
//!   (theory and rule tables both).

use kabe_probe::{Signature, Variant};

use crate::finished::lookup::Finished;
use crate::finished::registry::SolvedTable;
use crate::solve::whole::PairPass;

pub(crate) mod checkpoint;
pub(crate) mod components;
pub(crate) mod king_words;
pub mod rules;
pub(crate) mod slices;
pub(crate) mod symmetry;
pub mod whole;

/// The theory of a pair (a signature and its colour flip) in memory, by the pass asked
/// for: [`PairPass::KingWords`] where [`king_words::applies`], else the
/// whole-pair pass.
///
/// # Errors
/// A finished table the pair's captures or promotions lead to cannot be read.
pub fn solve_pair_by<F: Finished>(
    finished: &F,
    variant: Variant,
    signature: Signature,
    pass: PairPass,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SolvedTable>, F::Error> {
    if pass == PairPass::KingWords && king_words::applies(&variant, signature) {
        return king_words::solve(finished, variant, signature, progress);
    }
    whole::solve_whole_pair_by(finished, variant, signature, pass, progress)
}
