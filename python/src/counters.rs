//! The running counts of the draw rules at one position of a game.

use kabe_probe::request::{read_counters, read_rules, Limits};
use kabe_probe::{DrawRuleSet, DrawRules, Variant};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::errors::CounterError;
use crate::position::{move_arg, move_arg_in, position_arg, Position};

/// The draw rules' counts at one position, under one rule set (immutable).
#[pyclass(module = "kabe._native", frozen, from_py_object)]
#[derive(Clone)]
pub struct Counters {
    pub set: DrawRuleSet,
    pub position: kabe_probe::Position,
    pub inner: kabe_probe::Counters,
}

/// The rule set named `name`, or the variant's usual one; checked against the board.
pub fn rule_set(name: Option<&str>, variant: &Variant) -> PyResult<DrawRuleSet> {
    let rules = read_rules(name, variant).map_err(|e| CounterError::new_err(e.into_cause().to_string()))?;
    Ok(rules.set)
}

impl Counters {
    pub fn draw_rules(&self) -> DrawRules {
        DrawRules::new(self.set, self.position.variant())
    }

    /// Counters for `position` under `set`, from `obj`: `None` (they start now), a
    /// `Counters` of this position and set, `"6.2=14"`, or `{"6.2": 14}`.
    pub fn from_arg(
        obj: Option<&Bound<'_, PyAny>>,
        set: DrawRuleSet,
        position: &kabe_probe::Position,
    ) -> PyResult<kabe_probe::Counters> {
        let rules = DrawRules::new(set, position.variant());
        let Some(obj) = obj.filter(|o| !o.is_none()) else {
            return Ok(kabe_probe::Counters::fresh(&rules, position));
        };
        if let Ok(c) = obj.cast::<Counters>() {
            let c = c.get();
            if c.set != set {
                return Err(CounterError::new_err(format!(
                    "counters kept under the {} rules, probed under {}",
                    c.set.name(),
                    set.name()
                )));
            }
            if c.position != *position {
                return Err(CounterError::new_err(format!(
                    "counters of {} used for {}",
                    c.position.fen(),
                    position.fen()
                )));
            }
            return Ok(c.inner);
        }
        let text = if let Ok(s) = obj.cast::<PyString>() {
            s.extract::<String>()?
        } else if let Ok(d) = obj.cast::<PyDict>() {
            let mut parts = Vec::new();
            for (k, v) in d.iter() {
                let plies: u16 = v.extract().map_err(|_| {
                    CounterError::new_err(format!("count {k}: plies must be a whole number from 0 to 65535, not {v}"))
                })?;
                parts.push(format!("{k}={plies}"));
            }
            parts.join(",")
        } else {
            return Err(CounterError::new_err(
                "counters are a kabe.Counters, a string such as '6.2=14', or a dict such as {'6.2': 14}",
            ));
        };
        read_counters(&rules, position, Some(&text), Limits::NONE)
            .map_err(|e| CounterError::new_err(format!("{} (position {})", e.into_cause(), position.fen())))
    }
}

#[pymethods]
impl Counters {
    /// Counters for `position` (a FEN, `Position` or board): `counts` as `"6.2=14"` or
    /// `{"6.2": 14}`, counts not given start now; `rules` defaults to the variant's usual set.
    #[new]
    #[pyo3(signature = (position, counts=None, rules=None, variant=None))]
    fn py_new(
        position: &Bound<'_, PyAny>,
        counts: Option<&Bound<'_, PyAny>>,
        rules: Option<&str>,
        variant: Option<&str>,
    ) -> PyResult<Counters> {
        let position = position_arg(position, variant, None)?;
        let set = rule_set(rules, position.variant())?;
        let inner = Counters::from_arg(counts, set, &position)?;
        Ok(Counters { set, position, inner })
    }

    /// Replays `moves` (texts or `Move`s) from `start` and returns the counters at the
    /// end, the position reached being `.position`: counts start at `start`.
    ///
    ///     >>> c = kabe.Counters.from_moves("W:WK46,K47,K48:BK3", ["46-41", "3-8", "41-46"])
    ///     >>> c.as_dict(), c.position.fen
    ///     ({'6.2': 3, '6.3': 3}, 'B:WK46,K47,K48:BK8')
    #[staticmethod]
    #[pyo3(signature = (start, moves, rules=None, variant=None))]
    fn from_moves(
        start: &Bound<'_, PyAny>,
        moves: &Bound<'_, PyAny>,
        rules: Option<&str>,
        variant: Option<&str>,
    ) -> PyResult<Counters> {
        let mut position = position_arg(start, variant, None)?;
        let set = rule_set(rules, position.variant())?;
        let draw_rules = DrawRules::new(set, position.variant());
        let mut counters = kabe_probe::Counters::fresh(&draw_rules, &position);
        for (n, item) in moves.try_iter()?.enumerate() {
            let item = item?;
            let mv = move_arg_in(&position, &item, &format!("move {} of the list: ", n + 1))?;
            let after = position.play(&mv);
            counters = counters.after(&mv, &after);
            position = after;
        }
        Ok(Counters { set, position, inner: counters })
    }

    /// The counters after `move` is played.
    fn after(&self, r#move: &Bound<'_, PyAny>) -> PyResult<Counters> {
        let mv = move_arg(&self.position, r#move)?;
        let after = self.position.play(&mv);
        Ok(Counters { set: self.set, position: after, inner: self.inner.after(&mv, &after) })
    }

    /// The position these counters belong to.
    #[getter]
    fn position(&self) -> Position {
        Position { inner: self.position }
    }

    /// The rule set's name (`fmjd`, `fmjd-2000`, `ussr1953`, `none`).
    #[getter]
    fn rules(&self) -> &'static str {
        self.set.name()
    }

    /// The running counts in plies by article, e.g. `{"6.2": 4, "6.4": 3}`.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (article, plies) in self.to_pairs() {
            d.set_item(article, plies)?;
        }
        Ok(d)
    }

    /// The count that governs the position and its plies left, e.g. `("6.3", 30)`, or None.
    fn governing(&self) -> Option<(&'static str, u16)> {
        self.inner.governing(&self.position)
    }

    fn __str__(&self) -> String {
        self.inner.describe_at(&self.position)
    }

    fn __repr__(&self) -> String {
        format!(
            "Counters('{}', '{}', rules='{}')",
            self.position.fen(),
            self.inner.describe(self.position.variant()),
            self.set.name()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Counters>().is_ok_and(|o| {
            let o = o.get();
            o.set == self.set && o.position == self.position && o.inner == self.inner
        })
    }
}

impl Counters {
    fn to_pairs(&self) -> Vec<(String, u16)> {
        self.inner
            .describe(self.position.variant())
            .split(',')
            .filter_map(|p| p.split_once('='))
            .filter_map(|(a, n)| n.parse().ok().map(|n| (a.to_string(), n)))
            .collect()
    }
}
