//! PDN analysis from Python: an iterator over a file's games, each the record `kabe
//! analyze --format json` writes for it (`analyze/JSON.md`), as plain dicts and lists.

use std::fs::File;
use std::io::BufReader;
use std::sync::Arc;

use kabe_analyze::json::{game_json, summary_json};
use kabe_analyze::{Analyzer, PdnReader, Reach, Summary};
use kabe_probe::tablebase::Tablebase as Inner;
use kabe_probe::Variant;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use serde_json::Value;

use crate::errors::TableError;
use crate::json::to_python;
use crate::position::variant_named;
use crate::tablebase::{shared, Tablebase};

/// The games of one PDN file, analysed one at a time as they are iterated.
#[pyclass(module = "kabe._native")]
pub struct Analysis {
    tables: Arc<Inner>,
    games: PdnReader<BufReader<File>>,
    file: String,
    variant: Option<Variant>,
    reach: Reach,
    summary: Summary,
}

#[pymethods]
impl Analysis {
    /// Analyses the PDN file at `path` with `tables`; `variant` overrides the games' tags,
    /// `pieces` limits the positions probed.
    #[new]
    #[pyo3(signature = (tables, path, variant=None, pieces=None))]
    fn py_new(
        tables: &Tablebase,
        path: std::path::PathBuf,
        variant: Option<&str>,
        pieces: Option<u32>,
    ) -> PyResult<Analysis> {
        let file = path.display().to_string();
        let input = File::open(&path).map_err(|e| PyOSError::new_err(format!("{file}: {e}")))?;
        Ok(Analysis {
            tables: shared(tables)?,
            games: PdnReader::new(BufReader::new(input)),
            file,
            variant: variant.map(variant_named).transpose()?,
            reach: Reach { pieces },
            summary: Summary::default(),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(mut slf: PyRefMut<'py, Self>, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let this = &mut *slf;
        let record = py.detach(|| -> PyResult<Option<Value>> {
            let Some(game) = this.games.next() else { return Ok(None) };
            let game = game.map_err(|e| PyOSError::new_err(format!("{}: {e}", this.file)))?;
            let analyzer = Analyzer::new(&this.tables, this.variant, this.reach);
            let outcome =
                analyzer.game(&this.file, &game).map_err(|e| TableError::new_err(format!("{}: {e}", this.file)))?;
            this.summary.count(&outcome);
            Ok(Some(game_json(&this.file, &game, &outcome)))
        })?;
        record.map(|v| to_python(py, &v)).transpose()
    }

    /// The counts so far (all of the file once iterated): `summary` of the JSON report.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &summary_json(&self.summary))
    }
}
