//! The integration tests of the `kabe` binary, one module a file, built as one test binary:
//! one link of the workspace instead of one a file (the link was most of each file's
//! build).

mod common;

#[path = "ci.rs"]
mod ci;
#[path = "cli.rs"]
mod cli;
#[path = "docs.rs"]
mod docs;
#[path = "generate.rs"]
mod generate;
#[path = "layout.rs"]
mod layout;
#[path = "plan.rs"]
mod plan;
#[path = "serve.rs"]
mod serve;
