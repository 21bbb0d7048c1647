//! One module a subcommand, named after it: its arguments (clap) and what it runs. What
//! several commands read from their arguments lives in `crate::args`.

pub mod analyze;
pub mod check_rules;
pub mod generate;
pub mod info;
pub mod manifest;
pub mod moves;
pub mod perft;
pub mod plan;
pub mod probe;
pub mod serve;
pub mod solve;
pub mod stats;
pub mod study;
pub mod verify;
