//! Proof search beyond the tables: does the side to move win a position of any size?
//!
//! Proof-number search (Allis 1994) over the game tree, best first: the solver's nodes
//! need one winning move (OR), the defender's need every move answered (AND). A leaf is
//! decided by the rules (no move: the side to move has lost; a count run out: drawn) or,
//! once its material is within the tables, by their exact verdict under the draw rules
//! with the counts carried down the line, so the proof holds under the rules of the game.
//! Proof and disproof numbers start from mobility (a node with many moves is hard to
//! refute at an OR node and hard to prove at an AND node), which puts forced lines, the
//! stuff of compositions, first.
//!
//! Each first move is searched on its own, in parallel, within the same budget: that
//! gives the key, the cooks (a second winning first move) and, for every other first
//! move, a disproof or "no win found within N nodes". A proved line is exported as a
//! [`ProofTree`] and replayed by [`check_proof`], which shares nothing with the search:
//! every position's moves generated afresh, every defence present, every leaf a table
//! win or a position where the defender has no move. A disproof is a [`DisproofTree`]
//! replayed by [`check_disproof`] the same way: every move of the solver answered, every
//! leaf no win for the solver. For a first move proved not to win, every defence to it is
//! searched on its own: one alone that holds makes the move a *try* ([`Defences`]).
//!
//! The search is a tree, not a graph: a position repeated on the current line with the
//! same counts is a repetition, never part of a proof; a disproof that rests on one is
//! reported as "no win found", never as "proved not a win".
//!
//! The parts live apart, each importing only those after it: `first_moves` is the entry
//! [`prove`] (every first move searched, every proof checked, duals and defences);
//! `solution` checks a published solution through the proofs; `search` is the
//! proof-number search itself; `check` is the independent checker of proofs and
//! disproofs; `proof` holds what a search finds (the proof and disproof trees,
//! refutations, first moves and the main line); [`budget`](self::Budget) bounds a search.
//! The JSON of all of it is [`crate::json`]'s.

mod budget;
mod check;
mod first_moves;
mod proof;
mod search;
mod solution;

pub use budget::{usable_memory, Budget, BudgetError};
pub use check::{check_disproof, check_proof, ProofFault};
pub use first_moves::prove;
pub use proof::{
    main_line, BeyondTables, Defences, DisproofStep, DisproofTree, Dual, FirstMove, Outcome, PositionProof, ProofStep,
    ProofTree, Refutation,
};
pub use solution::{check_solution, SolutionCheck};

use kabe_probe::tablebase::ProbeError;

/// Why a search cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// A table within reach is missing or damaged.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The budget allows no search.
    #[error("the search budget is zero: give --nodes and --time above 0")]
    ZeroBudget,
    /// The checker refused a proof the search found: a defect of kabe, never printed
    /// as proved.
    #[error("the proof checker refused a proof the search found (a defect of kabe): {0}")]
    CheckerRefused(ProofFault),
    /// The tablebase does not hold the position's variant.
    #[error("the tables in use hold no {0} tables")]
    VariantNotOpen(&'static str),
}
