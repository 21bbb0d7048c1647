//! The integration tests of the generator, one module a file, built as one test binary:
//! one link of the workspace instead of one a file (the link was most of each file's
//! build).

// The workspace's one temporary-folder helper, shared with the root crate's tests.
#[path = "../../tests/common/mod.rs"]
mod common;

#[path = "brute_force.rs"]
mod brute_force;
#[path = "draw_rules.rs"]
mod draw_rules;
#[path = "figures.rs"]
mod figures;
#[path = "reference.rs"]
mod reference;
#[path = "tablebase.rs"]
mod tablebase;
#[path = "tables.rs"]
mod tables;
#[path = "writes.rs"]
mod writes;
