//! Every answer a user reads, as data built once with a JSON and a text rendering: the
//! front ends (the CLI, the server, the Python package) print or send these, adding
//! only what is their own (the server's board and per-move detail).
//!
//! - `probe.rs`: a position's verdict, its moves best first and a line of best play.

mod probe;

pub use probe::{BestLine, ProbeAnswer};
