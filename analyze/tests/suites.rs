//! The integration tests of analysis, one module a file, built as one test binary:
//! one link of the workspace instead of one a file (the link was most of each file's
//! build).

mod common;
// The workspace's snapshot and temporary-folder helpers, shared with the root crate's tests.
#[path = "../../tests/common/mod.rs"]
mod workspace;

#[path = "analysis.rs"]
mod analysis;
#[path = "pdn_corpus.rs"]
mod pdn_corpus;
#[path = "present.rs"]
mod present;
#[path = "prove.rs"]
mod prove;
