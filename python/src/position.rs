//! Positions and moves, and the reading of whatever the caller hands in as a position:
//! a `kabe.Position`, a FEN string, or a board of another library with a `fen`
//! attribute (py-draughts) or a `get_fen()` method (pydraughts), read by duck typing.

use kabe_probe::request::{read_variant, Game, Limits, ProbeRequest, RequestError};
use kabe_probe::{notation, Color, PieceKind, Signature, Variant};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{MoveError, PositionError};

/// A draughts position of one variant (immutable, hashable).
#[pyclass(module = "kabe._native", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub inner: kabe_probe::Position,
}

/// A legal move of the position it was generated or parsed in.
#[pyclass(module = "kabe._native", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Move {
    pub inner: kabe_probe::Move,
    /// Standard notation in its position (`32-28`, `23x32`, the full path where needed).
    text: String,
    variant: Variant,
}

impl Move {
    pub fn new(position: &kabe_probe::Position, mv: kabe_probe::Move) -> Move {
        Move { inner: mv, text: position.move_text(&mv), variant: *position.variant() }
    }
}

/// A variant by kabe's name or by the names other libraries give it.
pub fn variant_named(name: &str) -> PyResult<Variant> {
    read_variant(name).map_err(position_error)
}

/// A request's game or FEN that cannot be read, as `PositionError` (a FEN's error says
/// which game it was read as).
fn position_error(e: RequestError) -> PyErr {
    match e {
        RequestError::Fen { variant, source } => PositionError::new_err(format!("{source} (read as {})", variant.name)),
        e => PositionError::new_err(e.into_cause().to_string()),
    }
}

/// The position `fen` gives in `game`, read as every front end reads a probe request's.
fn parse_fen(game: Game<'_>, fen: &str) -> PyResult<kabe_probe::Position> {
    let request = ProbeRequest { game, rules: None, fen: Some(fen), counters: None, limits: Limits::NONE };
    request.position().map_err(position_error)
}

/// Reads `obj` as a position. `variant` (given by the caller) wins over the variant a
/// board says it plays, which wins over `default` (the tablebase's only variant).
pub fn position_arg(
    obj: &Bound<'_, PyAny>,
    variant: Option<&str>,
    default: Option<Variant>,
) -> PyResult<kabe_probe::Position> {
    let explicit = variant.map(variant_named).transpose()?;
    if let Ok(p) = obj.cast::<Position>() {
        let p = p.get().inner;
        if let Some(v) = explicit {
            if v.name != p.variant().name {
                return Err(PositionError::new_err(format!(
                    "a {} position given with variant '{}'",
                    p.variant().name,
                    v.name
                )));
            }
        }
        return Ok(p);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let fen: String = s.extract()?;
        return parse_fen(explicit.map_or(Game::Guessed(default), Game::Known), &fen);
    }
    // A board of another library: its FEN, and the variant it names.
    let fen_value = if obj.hasattr("fen")? {
        let f = obj.getattr("fen")?;
        if f.is_callable() {
            f.call0()?
        } else {
            f
        }
    } else if obj.hasattr("get_fen")? {
        obj.getattr("get_fen")?.call0()?
    } else {
        let type_name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string());
        return Err(PositionError::new_err(format!(
            "cannot read a position from a {type_name}: give a FEN string, a kabe.Position, or a board with a `fen` attribute"
        )));
    };
    let fen: String = fen_value.extract().map_err(|_| PositionError::new_err("the board's fen is not a string"))?;
    let board_variant = board_variant(obj)?;
    parse_fen(explicit.or(board_variant).map_or(Game::Guessed(default), Game::Known), &fen)
}

/// The variant a board of another library says it plays, if it says.
fn board_variant(obj: &Bound<'_, PyAny>) -> PyResult<Option<Variant>> {
    for attr in ["VARIANT_NAME", "variant"] {
        if let Ok(value) = obj.getattr(attr) {
            if let Ok(name) = value.extract::<String>() {
                return variant_named(&name).map(Some);
            }
        }
    }
    Ok(None)
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

#[pymethods]
impl Position {
    /// A position from a PDN FEN (`W:W31-50:B1-20`, `[FEN "..."]` accepted).
    #[new]
    #[pyo3(signature = (fen, variant=None))]
    fn py_new(fen: &str, variant: Option<&str>) -> PyResult<Position> {
        Ok(Position { inner: parse_fen(variant.map_or(Game::Guessed(None), Game::Named), fen)? })
    }

    /// The start position of a variant.
    #[staticmethod]
    #[pyo3(signature = (variant="international"))]
    fn start(variant: &str) -> PyResult<Position> {
        Ok(Position { inner: kabe_probe::Position::start(variant_named(variant)?) })
    }

    /// The position as a PDN FEN.
    #[getter]
    fn fen(&self) -> String {
        self.inner.fen()
    }

    /// The variant's name (`international`, `russian`, ...).
    #[getter]
    fn variant(&self) -> &'static str {
        self.inner.variant().name
    }

    /// `"white"` or `"black"`.
    #[getter]
    fn turn(&self) -> &'static str {
        color_name(self.inner.turn())
    }

    /// Pieces on the board.
    #[getter]
    fn pieces(&self) -> u32 {
        self.inner.piece_count()
    }

    /// The material as four digits, white men, white kings, black men, black kings
    /// (`2011`), the way table files are named.
    #[getter]
    fn material(&self) -> String {
        let p = &self.inner;
        Signature::new(
            p.count(Color::White, PieceKind::Man) as u8,
            p.count(Color::White, PieceKind::King) as u8,
            p.count(Color::Black, PieceKind::Man) as u8,
            p.count(Color::Black, PieceKind::King) as u8,
        )
        .to_string()
    }

    /// The pieces as `{square: "w"|"W"|"b"|"B"}` (capitals are kings).
    fn pieces_by_square(&self) -> std::collections::BTreeMap<u32, &'static str> {
        let mut out = std::collections::BTreeMap::new();
        for color in [Color::White, Color::Black] {
            for kind in [PieceKind::Man, PieceKind::King] {
                let letter = match (color, kind) {
                    (Color::White, PieceKind::Man) => "w",
                    (Color::White, PieceKind::King) => "W",
                    (Color::Black, PieceKind::Man) => "b",
                    (Color::Black, PieceKind::King) => "B",
                };
                for s in self.inner.squares_of(color, kind) {
                    out.insert(s.number(), letter);
                }
            }
        }
        out
    }

    /// The legal moves (captures only, at their maximum where the variant says so).
    fn legal_moves(&self) -> Vec<Move> {
        self.inner.legal_moves().iter().map(|m| Move::new(&self.inner, *m)).collect()
    }

    /// The legal move written as `text` (`32-28`, `23x32`, a capture's full path).
    fn parse_move(&self, text: &str) -> PyResult<Move> {
        let mv = self.inner.parse_move(text).map_err(|e| MoveError::new_err(format!("{e} in {}", self.inner.fen())))?;
        Ok(Move::new(&self.inner, mv))
    }

    /// The position after `move` (a `Move` of this position, or its text).
    fn play(&self, r#move: &Bound<'_, PyAny>) -> PyResult<Position> {
        let mv = move_arg(&self.inner, r#move)?;
        Ok(Position { inner: self.inner.play(&mv) })
    }

    /// Whether the side to move has no move left (the game is lost for it).
    fn is_game_over(&self) -> bool {
        self.inner.is_lost()
    }

    fn __str__(&self) -> String {
        self.inner.fen()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}', variant='{}')", self.inner.fen(), self.inner.variant().name)
    }
}

/// A move given as a `Move` or as text, checked against `position`.
pub fn move_arg(position: &kabe_probe::Position, obj: &Bound<'_, PyAny>) -> PyResult<kabe_probe::Move> {
    move_arg_in(position, obj, "")
}

/// As [`move_arg`], the error message starting with `context` (e.g. "move 3 of the list: ").
pub fn move_arg_in(
    position: &kabe_probe::Position,
    obj: &Bound<'_, PyAny>,
    context: &str,
) -> PyResult<kabe_probe::Move> {
    if let Ok(m) = obj.cast::<Move>() {
        let m = m.get();
        if position.legal_moves().contains(&m.inner) {
            return Ok(m.inner);
        }
        return Err(MoveError::new_err(format!("{context}{} is not a legal move in {}", m.text, position.fen())));
    }
    let text: String = obj
        .extract()
        .map_err(|_| MoveError::new_err(format!("{context}a move is a kabe.Move or its text, e.g. '32-28'")))?;
    position.parse_move(&text).map_err(|e| MoveError::new_err(format!("{context}{e} in {}", position.fen())))
}

#[pymethods]
impl Move {
    /// Standard notation in its position.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// Every square the moving piece lands on (`23x32x41`).
    #[getter]
    fn full(&self) -> String {
        notation::movetext::format(&self.variant, &self.inner, true)
    }

    /// The square moved from (its number).
    #[getter(from_square)]
    fn origin(&self) -> u32 {
        self.inner.from().number()
    }

    /// The square moved to (its number).
    #[getter(to_square)]
    fn destination(&self) -> u32 {
        self.inner.to().number()
    }

    /// `"man"` or `"king"`: the piece that moves.
    #[getter]
    fn piece(&self) -> &'static str {
        if self.inner.piece() == PieceKind::King {
            "king"
        } else {
            "man"
        }
    }

    /// The squares of the pieces taken, in order.
    #[getter]
    fn captured(&self) -> Vec<u32> {
        self.inner.captured_squares(&self.variant).map(|s| s.number()).collect()
    }

    /// Whether the move takes pieces.
    #[getter]
    fn is_capture(&self) -> bool {
        self.inner.is_capture()
    }

    /// Whether a man is crowned.
    #[getter]
    fn promotes(&self) -> bool {
        self.inner.promotes()
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.text)
    }
}
