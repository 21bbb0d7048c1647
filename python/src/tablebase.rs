//! The tablebase: opened once, probed from any number of Python threads. Every probe
//! reads its arguments with the GIL held, then releases it for the table work.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use kabe_analyze::prove::{prove, Budget, ProveError};
use kabe_probe::rules::exact;
use kabe_probe::tablebase::{ProbeError, Tablebase as Inner};
use kabe_probe::{DrawRuleSet, Variant, Wld};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::counters::Counters;
use crate::errors::{probe_error, CounterError, TableError};
use crate::json::to_python;
use crate::position::{position_arg, variant_named, Move, Position};

/// Endgame tables of one directory (see `kabe.open_tablebase`). The `get_*` twins of the
/// probes (None where a table is missing) are made once, for every probe, in
/// `kabe/__init__.py`.
#[pyclass(module = "kabe._native", frozen)]
pub struct Tablebase {
    /// `None` once closed.
    inner: RwLock<Option<Arc<Inner>>>,
    path: PathBuf,
    /// The only variant open, for FEN strings that do not say.
    single_variant: Option<Variant>,
}

fn wld_int(w: Wld) -> i8 {
    match w {
        Wld::Win => 1,
        Wld::Draw => 0,
        Wld::Loss => -1,
    }
}

/// The exact verdict of a position under the draw rules, with the rule-free value.
#[pyclass(module = "kabe._native", frozen)]
pub struct Verdict {
    inner: exact::Verdict,
}

/// A legal move with the verdict it leads to, for the side that makes it.
#[pyclass(module = "kabe._native", frozen)]
pub struct MoveVerdict {
    inner: exact::MoveVerdict,
    text: String,
    before: kabe_probe::Position,
    set: DrawRuleSet,
}

impl Tablebase {
    fn tables(&self) -> PyResult<Arc<Inner>> {
        let guard = self.inner.read().map_err(|_| TableError::new_err("the tablebase lock was poisoned"))?;
        guard
            .as_ref()
            .cloned()
            .ok_or_else(|| TableError::new_err(format!("the tablebase of {} is closed", self.path.display())))
    }

    fn position(&self, obj: &Bound<'_, PyAny>, variant: Option<&str>) -> PyResult<kabe_probe::Position> {
        position_arg(obj, variant, self.single_variant)
    }

    /// The position, its counters under the tablebase's rules, and the tables.
    fn with_counters(
        &self,
        obj: &Bound<'_, PyAny>,
        counters: Option<&Bound<'_, PyAny>>,
        variant: Option<&str>,
    ) -> PyResult<(Arc<Inner>, kabe_probe::Position, DrawRuleSet, kabe_probe::Counters)> {
        let tables = self.tables()?;
        let position = self.position(obj, variant)?;
        let rules = tables.draw_rules(position.variant()).ok_or_else(|| {
            probe_error(ProbeError::VariantNotOpen { variant: position.variant().name, open: open_variants(&tables) })
        })?;
        // Counters made under another rule set are probed under it: one tablebase answers
        // every set whose tables the directory holds.
        let given = counters.and_then(|c| c.cast::<Counters>().ok()).map(|c| c.get().set);
        let set = given.unwrap_or(rules.set);
        let counters = Counters::from_arg(counters, set, &position)?;
        Ok((tables, position, set, counters))
    }
}

/// A move list of the probe library (`best_moves`, `ranked_moves`).
type MoveLister =
    fn(&Inner, &kabe_probe::Position, &kabe_probe::Counters) -> Result<Vec<exact::MoveVerdict>, ProbeError>;

impl Tablebase {
    /// The moves `list` gives for `obj` with its counters, probed with the GIL released.
    fn moves_by(
        &self,
        py: Python<'_>,
        obj: &Bound<'_, PyAny>,
        counters: Option<&Bound<'_, PyAny>>,
        variant: Option<&str>,
        list: MoveLister,
    ) -> PyResult<Vec<MoveVerdict>> {
        let (tables, p, set, c) = self.with_counters(obj, counters, variant)?;
        let moves = py.detach(|| list(&tables, &p, &c)).map_err(probe_error)?;
        Ok(moves.into_iter().map(|m| MoveVerdict::new(&p, set, m)).collect())
    }
}

fn open_variants(tables: &Inner) -> String {
    Variant::ALL.iter().filter(|v| tables.draw_rules(v).is_some()).map(|v| v.name).collect::<Vec<_>>().join(", ")
}

#[pymethods]
impl Tablebase {
    /// Opens the tables under `path` (a directory with one folder per variant).
    #[new]
    #[pyo3(signature = (path, cache_bytes=64 << 20, rules=None, variants=None))]
    fn py_new(
        py: Python<'_>,
        path: PathBuf,
        cache_bytes: usize,
        rules: Option<Vec<String>>,
        variants: Option<Vec<String>>,
    ) -> PyResult<Tablebase> {
        if cache_bytes > kabe_probe::tablebase::MAX_CACHE_BYTES {
            return Err(PyValueError::new_err(format!(
                "cache_bytes {cache_bytes}: from 0 to {} (1 TiB)",
                kabe_probe::tablebase::MAX_CACHE_BYTES
            )));
        }
        let mut builder = Inner::builder(&path).cache_bytes(cache_bytes);
        let chosen: Option<Vec<Variant>> =
            variants.map(|names| names.iter().map(|n| variant_named(n)).collect()).transpose()?;
        if let Some(v) = &chosen {
            builder = builder.variants(v);
        }
        for name in rules.unwrap_or_default() {
            let set = name.parse::<DrawRuleSet>().map_err(|e| CounterError::new_err(e.to_string()))?;
            builder = builder.rules(set);
        }
        let inner = py.detach(|| builder.open()).map_err(probe_error)?;
        let open: Vec<Variant> = Variant::ALL.into_iter().filter(|v| inner.draw_rules(v).is_some()).collect();
        let single_variant = if open.len() == 1 { Some(open[0]) } else { None };
        Ok(Tablebase { inner: RwLock::new(Some(Arc::new(inner))), path, single_variant })
    }

    /// Win (1), draw (0) or loss (-1) for the side to move, ignoring the counted draw rules
    /// (as the published databases give it). Raises MissingTableError.
    ///
    ///     >>> tb = kabe.open_tablebase(TABLES)
    ///     >>> tb.probe_wld("W:WKa1,Kc1:BKh8"), tb.probe_wld("B:WKa1,Kc1:BKh8")
    ///     (1, -1)
    ///     >>> tb.probe_wld("W:W31,32,33,34,35:B1")
    ///     Traceback (most recent call last):
    ///     ...
    ///     kabe.MissingTableError: ...5010.wld.kabe is not in the table directory...
    #[pyo3(signature = (position, *, variant=None))]
    fn probe_wld(&self, py: Python<'_>, position: &Bound<'_, PyAny>, variant: Option<&str>) -> PyResult<i8> {
        let tables = self.tables()?;
        let p = self.position(position, variant)?;
        py.detach(|| tables.probe_wld(&p)).map(wld_int).map_err(probe_error)
    }

    /// The WLD value the table file stores, with no search: None where the file leaves
    /// the position out (its side to move must capture, or the table of its material is
    /// kept on the other side to move). An engine that searches anyway resolves those
    /// one ply further; probe_wld searches them itself. Raises MissingTableError.
    ///
    ///     >>> tb = kabe.open_tablebase(TABLES)
    ///     >>> tb.probe_wld_stored("W:WKa1,Kc1:BKh8") in (1, None)
    ///     True
    #[pyo3(signature = (position, *, variant=None))]
    fn probe_wld_stored(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        variant: Option<&str>,
    ) -> PyResult<Option<i8>> {
        let tables = self.tables()?;
        let p = self.position(position, variant)?;
        py.detach(|| tables.probe_wld_stored(&p)).map(|w| w.map(wld_int)).map_err(probe_error)
    }

    /// `(wld, plies)`: the rule-free result for the side to move (1, 0, -1) and the plies
    /// to the end of the game under perfect play (None for a draw).
    ///
    ///     >>> tb = kabe.open_tablebase(TABLES)
    ///     >>> tb.probe_dtw("W:WK46,K47,K48:BK5")
    ///     (1, 3)
    ///     >>> tb.probe_dtw("W:WK1:BK50")
    ///     (0, None)
    #[pyo3(signature = (position, *, variant=None))]
    fn probe_dtw(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        variant: Option<&str>,
    ) -> PyResult<(i8, Option<u16>)> {
        let tables = self.tables()?;
        let p = self.position(position, variant)?;
        let score = py.detach(|| tables.probe_dtw(&p)).map_err(probe_error)?;
        Ok((wld_int(score.wld()), score.plies()))
    }

    /// The exact verdict under the draw rules for `counters` (None: the counts start now).
    ///
    /// Three kings against one win in 3 plies, but with 30 plies of FMJD 6.3's 32 gone
    /// the count runs out first:
    ///
    ///     >>> tb = kabe.open_tablebase(TABLES)
    ///     >>> tb.probe("W:WK46,K47,K48:BK5")
    ///     Verdict(exact='win', theoretical='win' in 3, count=('6.3', 32))
    ///     >>> tb.probe("W:WK46,K47,K48:BK5", {"6.3": 30}).exact
    ///     'draw'
    #[pyo3(signature = (position, counters=None, *, variant=None))]
    fn probe(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        counters: Option<&Bound<'_, PyAny>>,
        variant: Option<&str>,
    ) -> PyResult<Verdict> {
        let (tables, p, _, c) = self.with_counters(position, counters, variant)?;
        let inner = py.detach(|| tables.probe(&p, &c)).map_err(probe_error)?;
        Ok(Verdict { inner })
    }

    /// The moves that keep the exact verdict, best first.
    ///
    ///     >>> tb = kabe.open_tablebase(TABLES)
    ///     >>> [m.text for m in tb.best_moves("W:W32:B27")]
    ///     ['32x21']
    #[pyo3(signature = (position, counters=None, *, variant=None))]
    fn best_moves(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        counters: Option<&Bound<'_, PyAny>>,
        variant: Option<&str>,
    ) -> PyResult<Vec<MoveVerdict>> {
        self.moves_by(py, position, counters, variant, Inner::best_moves)
    }

    /// Every legal move with its verdict, best first.
    #[pyo3(signature = (position, counters=None, *, variant=None))]
    fn ranked_moves(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        counters: Option<&Bound<'_, PyAny>>,
        variant: Option<&str>,
    ) -> PyResult<Vec<MoveVerdict>> {
        self.moves_by(py, position, counters, variant, Inner::ranked_moves)
    }

    /// Proves by search whether `solver` (default: the side to move) wins `position`, of
    /// any size, down into the tables: each first move searched within `nodes` (and
    /// `time` seconds for the whole search), every proof replayed by the checker. The
    /// result is the record `kabe study --json` writes beyond the tables: `result`
    /// (`win`, `not_win`, `unresolved`), `keys`, `cooks`, every first move with its
    /// outcome, main line and duals, and the first key's `proof` tree.
    #[pyo3(signature = (position, counters=None, *, variant=None, solver=None, nodes=None, time=None))]
    #[allow(clippy::too_many_arguments)]
    fn prove<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        counters: Option<&Bound<'py, PyAny>>,
        variant: Option<&str>,
        solver: Option<&str>,
        nodes: Option<usize>,
        time: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (tables, p, _, c) = self.with_counters(position, counters, variant)?;
        let solver = match solver.map(|s| s.trim().to_ascii_lowercase()) {
            None => p.turn(),
            Some(s) if s == "white" => kabe_probe::Color::White,
            Some(s) if s == "black" => kabe_probe::Color::Black,
            Some(s) => return Err(PyValueError::new_err(format!("solver {s:?}: give 'white' or 'black'"))),
        };
        let nodes = nodes.unwrap_or(Budget::default().nodes);
        let at_once = std::thread::available_parallelism().map_or(1, |n| n.get());
        let budget = Budget::checked(nodes, time, kabe_analyze::prove::usable_memory(), at_once)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        if p.legal_moves().is_empty() {
            return Err(PyValueError::new_err(format!("{}: the side to move has no legal move", p.fen())));
        }
        let proof = py.detach(|| prove(&tables, &p, &c, solver, budget)).map_err(|e| match e {
            ProveError::Probe(e) => probe_error(e),
            other => PyValueError::new_err(other.to_string()),
        })?;
        to_python(py, &kabe_analyze::json::proof_json(&proof))
    }

    /// Fresh counters for `position` under the rules this tablebase applies to it.
    #[pyo3(signature = (position, counts=None, *, variant=None))]
    fn counters(
        &self,
        position: &Bound<'_, PyAny>,
        counts: Option<&Bound<'_, PyAny>>,
        variant: Option<&str>,
    ) -> PyResult<Counters> {
        let (_, p, set, c) = self.with_counters(position, counts, variant)?;
        Ok(Counters { set, position: p, inner: c })
    }

    /// The largest number of pieces up to which every material of `variant` (or of some
    /// open variant) has its tables.
    #[pyo3(signature = (variant=None))]
    fn max_pieces(&self, variant: Option<&str>) -> PyResult<u32> {
        let tables = self.tables()?;
        Ok(match variant {
            Some(v) => tables.max_pieces_of(&variant_named(v)?),
            None => tables.max_pieces(),
        })
    }

    /// The rule set probe() applies to `variant`, or None when the variant is not open.
    fn rules(&self, variant: &str) -> PyResult<Option<&'static str>> {
        let v = variant_named(variant)?;
        Ok(self.tables()?.draw_rules(&v).map(|r| r.set.name()))
    }

    /// The variants with tables in the directory.
    #[getter]
    fn variants(&self) -> PyResult<Vec<&'static str>> {
        let tables = self.tables()?;
        Ok(Variant::ALL.iter().filter(|v| tables.draw_rules(v).is_some()).map(|v| v.name).collect())
    }

    /// The table directory.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Block cache figures: capacity, bytes and blocks held, misses (blocks read).
    fn cache_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.tables()?.cache_stats();
        let d = PyDict::new(py);
        d.set_item("capacity_bytes", s.capacity_bytes)?;
        d.set_item("used_bytes", s.used_bytes)?;
        d.set_item("blocks", s.blocks)?;
        d.set_item("misses", s.misses)?;
        Ok(d)
    }

    /// Releases the files and the cache; later probes raise TableError. Probes running
    /// in other threads finish first (they hold their own reference).
    fn close(&self) -> PyResult<()> {
        let mut guard = self.inner.write().map_err(|_| TableError::new_err("the tablebase lock was poisoned"))?;
        *guard = None;
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!("Tablebase('{}')", self.path.display())
    }
}

/// The Rust tablebase behind a Python one, for the analyzer.
pub fn shared(tb: &Tablebase) -> PyResult<Arc<Inner>> {
    tb.tables()
}

#[pymethods]
impl Verdict {
    /// `"win"`, `"draw"` or `"loss"` for the side to move, under the draw rules.
    #[getter]
    fn exact(&self) -> &'static str {
        self.inner.exact.word()
    }

    /// The rule-free result (as the published databases give it).
    #[getter]
    fn theoretical(&self) -> &'static str {
        self.inner.theoretical.wld().word()
    }

    /// Plies to the end of the game in theory (None for a draw).
    #[getter]
    fn theoretical_plies(&self) -> Option<u16> {
        self.inner.theoretical.plies()
    }

    /// The count that governs the position, `(article, plies_left)`, or None.
    #[getter]
    fn count(&self) -> Option<(&'static str, u16)> {
        self.inner.count
    }

    /// Plies to the move that decides the result within that count: the end of the
    /// game, or a capture or promotion that starts a fresh count in a position still won.
    #[getter]
    fn within_count_plies(&self) -> Option<u16> {
        self.inner.within.decided().map(|(_, p)| p)
    }

    /// Whether the count turns the theoretical result into another.
    #[getter]
    fn rule_decides(&self) -> bool {
        self.inner.rule_decides()
    }

    /// The fields of `kabe probe --json`'s `verdict`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &kabe_analyze::json::verdict_json(&self.inner))
    }

    fn __repr__(&self) -> String {
        let count = match self.inner.count {
            Some((a, left)) => format!(", count=('{a}', {left})"),
            None => String::new(),
        };
        let plies = self.theoretical_plies().map_or(String::new(), |p| format!(" in {p}"));
        format!("Verdict(exact='{}', theoretical='{}'{plies}{count})", self.exact(), self.theoretical())
    }
}

impl MoveVerdict {
    fn new(before: &kabe_probe::Position, set: DrawRuleSet, inner: exact::MoveVerdict) -> MoveVerdict {
        MoveVerdict { text: before.move_text(&inner.mv), inner, before: *before, set }
    }
}

#[pymethods]
impl MoveVerdict {
    /// The move.
    #[getter]
    fn r#move(&self) -> Move {
        Move::new(&self.before, self.inner.mv)
    }

    /// The move in standard notation.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// `"win"`, `"draw"` or `"loss"` for the side making the move.
    #[getter]
    fn exact(&self) -> &'static str {
        self.inner.exact.word()
    }

    /// The position after the move.
    #[getter]
    fn position(&self) -> Position {
        Position { inner: self.inner.position }
    }

    /// The counters after the move.
    #[getter]
    fn counters(&self) -> Counters {
        Counters { set: self.set, position: self.inner.position, inner: self.inner.counters }
    }

    /// The verdict of the position after the move (for the opponent, who moves next).
    #[getter]
    fn verdict(&self) -> Verdict {
        Verdict { inner: self.inner.child }
    }

    /// The fields of one of `kabe probe --json`'s `moves`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &kabe_analyze::json::move_json(&self.before, &self.inner))
    }

    fn __repr__(&self) -> String {
        format!("MoveVerdict('{}', exact='{}')", self.text, self.exact())
    }
}
