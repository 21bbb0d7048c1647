//! Why a build stopped: every case names the file or the pair.

use std::path::{Path, PathBuf};

use kabe_probe::table::TableError;
use kabe_probe::tablebase::ProbeError;

/// Why a build stopped.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A table file could not be written.
    #[error("{}", write_message(path, source))]
    Write {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// A table already there is damaged (delete it to rebuild it).
    #[error(transparent)]
    Table(#[from] TableError),
    /// A finished table the pair needs could not be read.
    #[error("reading a finished table: {0}")]
    Lookup(#[from] ProbeError),
    /// A job of one pair was started before the tables it reads were built.
    #[error("{pair} needs tables that are not built yet (build them first, or submit the plan's jobs in order): {}",
        .files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "))]
    MissingInputs {
        /// The pair, as `1201+0112`.
        pair: String,
        /// The files missing.
        files: Vec<PathBuf>,
    },
    /// Another build writes into the same table folder.
    #[error(
        "another kabe build is writing these tables ({path} is locked): wait for it to end, or build into another \
         --tables"
    )]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// One pair needs more working memory than the budget leaves.
    #[error(
        "{pair} needs {:.2} GiB of working state, more than the {:.2} GiB the memory budget of {:.2} GiB leaves \
         beside the block cache: raise --memory",
        *.needed as f64 / GIB, *.available as f64 / GIB, *.budget as f64 / GIB
    )]
    Memory {
        /// The pair, as `2211+1122`.
        pair: String,
        /// Bytes it needs.
        needed: u64,
        /// Bytes the budget leaves for pairs.
        available: u64,
        /// The whole budget.
        budget: u64,
    },
}

const GIB: f64 = (1u64 << 30) as f64;

/// "writing PATH: what went wrong", or the error alone where it names the path itself.
fn write_message(path: &Path, source: &std::io::Error) -> String {
    let said = source.to_string();
    if said.starts_with(&path.display().to_string()) {
        said
    } else {
        format!("writing {}: {said}", path.display())
    }
}
