//! Every answer a user reads, as data built once with a JSON and a text rendering: the
//! front ends (the CLI, the server, the Python package) print or send these, adding
//! only what is their own (the server's board and per-move detail).
//!
//! - `moves.rs`: the legal moves of a position;
//! - `probe.rs`: a position's verdict, its moves best first and a line of best play;
//! - `study.rs`: a study checked within the tables, or proved by search beyond them;
//! - `collection.rs`: a file of compositions, each proved and its published solution
//!   followed, and their tally.

mod collection;
mod moves;
mod probe;
mod study;

pub use collection::{winner_of, Checked, Collection, Composition, Tally};
pub use moves::MoveList;
pub use probe::{BestLine, ProbeAnswer};
pub use study::{ProofAnswer, StudyAnswer};
