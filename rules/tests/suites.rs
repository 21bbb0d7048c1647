//! The integration tests of the rules, one module a file, built as one test binary:
//! one link of the workspace instead of one a file (the link was most of each file's
//! build).

mod common;

#[path = "capture_rules.rs"]
mod capture_rules;
#[path = "perft_vectors.rs"]
mod perft_vectors;
#[path = "properties.rs"]
mod properties;
#[path = "rules.rs"]
mod rules;
#[path = "turkish.rs"]
mod turkish;
