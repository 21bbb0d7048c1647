//! The integration tests of analysis, one module a file, built as one test binary:
//! one link of the workspace instead of one a file (the link was most of each file's
//! build).

mod common;

#[path = "analysis.rs"]
mod analysis;
#[path = "pdn_corpus.rs"]
mod pdn_corpus;
#[path = "prove.rs"]
mod prove;
