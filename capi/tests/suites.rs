//! The integration tests of the C ABI, one module a file, built as one test binary:
//! one link of the workspace instead of one a file (the link was most of each file's
//! build).

#[path = "c_program.rs"]
mod c_program;
#[path = "header.rs"]
mod header;
