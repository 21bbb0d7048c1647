//! `kabe._native`: the extension module behind the Python package `kabe`.
//!
//! Thin bindings over the probe library (`kabe-probe`) and the PDN analyzer
//! (`kabe-analyze`): positions and moves, the draw rules' counters, a thread-safe
//! tablebase whose probes release the GIL, and PDN analysis yielding the records of
//! `kabe analyze --format json`. The Python-facing docs live in `kabe/__init__.pyi`.

mod analysis;
mod counters;
mod errors;
mod json;
mod position;
mod tablebase;

use pyo3::prelude::*;

/// The extension module; `kabe/__init__.py` re-exports it.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<position::Position>()?;
    m.add_class::<position::Move>()?;
    m.add_class::<counters::Counters>()?;
    m.add_class::<tablebase::Tablebase>()?;
    m.add_class::<tablebase::Verdict>()?;
    m.add_class::<tablebase::MoveVerdict>()?;
    m.add_class::<analysis::Analysis>()?;
    m.add("VARIANTS", kabe_probe::Variant::ALL.iter().map(|v| v.name).collect::<Vec<_>>())?;
    m.add("RULE_SETS", kabe_probe::DrawRuleSet::ALL.iter().map(|s| s.name()).collect::<Vec<_>>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
