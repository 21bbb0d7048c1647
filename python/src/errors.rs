//! The package's exceptions, and the library's errors mapped onto them.
//!
//! `MissingTableError` is a `KeyError`, as python-chess's is, so `except KeyError` code
//! written for chess tablebases works unchanged; bad input is a `ValueError`; a table
//! file that is damaged, foreign or of another version is an `OSError` naming the file.

use kabe_probe::tablebase::ProbeError;
use pyo3::exceptions::{PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    kabe,
    MissingTableError,
    PyKeyError,
    "No table holds the position's material (or its variant is not open): the message names the file and how to build it."
);
pyo3::create_exception!(
    kabe,
    PositionError,
    PyValueError,
    "A FEN, board or variant that kabe cannot read; the message says what and where."
);
pyo3::create_exception!(kabe, MoveError, PyValueError, "A move that is not legal (or not unique) in the position.");
pyo3::create_exception!(
    kabe,
    CounterError,
    PyValueError,
    "Draw-rule counters that cannot belong to the position, or an unknown rule set."
);
pyo3::create_exception!(
    kabe,
    TableError,
    PyOSError,
    "A table file or directory that cannot be used: missing, damaged, foreign or of another format version."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MissingTableError", py.get_type::<MissingTableError>())?;
    m.add("PositionError", py.get_type::<PositionError>())?;
    m.add("MoveError", py.get_type::<MoveError>())?;
    m.add("CounterError", py.get_type::<CounterError>())?;
    m.add("TableError", py.get_type::<TableError>())?;
    Ok(())
}

/// A probe's failure as the Python exception a caller can catch by kind.
pub fn probe_error(e: ProbeError) -> PyErr {
    match e {
        ProbeError::NoTable { .. } | ProbeError::TooManyPieces { .. } | ProbeError::VariantNotOpen { .. } => {
            MissingTableError::new_err(e.to_string())
        }
        ProbeError::Table(_) | ProbeError::Directory { .. } => TableError::new_err(e.to_string()),
        ProbeError::NotCached => MissingTableError::new_err(e.to_string()),
        ProbeError::Counters(_) => CounterError::new_err(e.to_string()),
        // A case newer than this list (the error enums are open to growth): the general
        // table error, with the message.
        _ => TableError::new_err(e.to_string()),
    }
}
