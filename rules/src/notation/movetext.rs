//! Move text: `32-28`, `28x19`, `47x38x24x13x36`; `c3-d4`, `e3:c5:e7` (also with `x`).

use crate::movegen::Move;
use crate::notation::{parse_square, square_name};
use crate::position::Position;
use crate::variant::{NotationStyle, Square, Variant};

/// A move text that is not a legal move of the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoveError {
    /// The text is not a move.
    #[error("malformed move \"{text}\": {reason}")]
    Malformed {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No legal move matches.
    #[error("illegal move \"{text}\" (legal moves: {})", list(.legal))]
    Illegal {
        /// The text given.
        text: String,
        /// The legal moves, in full notation.
        legal: Vec<String>,
    },
    /// Several legal moves match.
    #[error("ambiguous move \"{text}\" (candidates: {})", list(.candidates))]
    Ambiguous {
        /// The text given.
        text: String,
        /// The matching moves, with full paths.
        candidates: Vec<String>,
    },
}

fn list(moves: &[String]) -> String {
    if moves.is_empty() {
        "none".to_string()
    } else {
        moves.join(", ")
    }
}

fn capture_separator(variant: &Variant) -> char {
    match variant.notation {
        NotationStyle::Numeric => 'x',
        NotationStyle::Algebraic => ':',
    }
}

/// Writes `mv`; with `full_path`, a capture lists every landing square.
pub fn format(variant: &Variant, mv: &Move, full_path: bool) -> String {
    let name = |s: Square| square_name(variant, s);
    if !mv.is_capture() {
        return format!("{}-{}", name(mv.from()), name(mv.to()));
    }
    let sep = capture_separator(variant);
    let mut out = name(mv.from());
    if full_path {
        for s in mv.landings() {
            out.push(sep);
            out.push_str(&name(s));
        }
    } else {
        out.push(sep);
        out.push_str(&name(mv.to()));
    }
    out
}

impl Position {
    /// `mv` in standard notation: origin and destination, or the full path where another
    /// legal move has the same origin and destination.
    pub fn move_text(&self, mv: &Move) -> String {
        let ambiguous =
            mv.is_capture() && self.legal_moves().iter().any(|m| m.from() == mv.from() && m.to() == mv.to() && m != mv);
        format(&self.variant, mv, ambiguous)
    }

    /// Finds the legal move written as `text`.
    ///
    /// ```
    /// use kabe_rules::{Position, Variant};
    /// let p = Position::start(Variant::INTERNATIONAL);
    /// let mv = p.parse_move("32-28")?;
    /// assert_eq!(p.move_text(&mv), "32-28");
    /// assert!(p.parse_move("32-26").is_err());
    /// # Ok::<(), kabe_rules::MoveError>(())
    /// ```
    ///
    /// # Errors
    /// [`MoveError::Malformed`] when the text is not squares joined by `-`, `x` or `:`, or
    /// names a square off the board; [`MoveError::Illegal`], with the legal moves, when no
    /// legal move matches; [`MoveError::Ambiguous`], with the candidates, when several
    /// captures pass the squares given.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let squares = self.parse_squares(text)?;
        let legal = self.legal_moves();
        let (first, last) = (squares[0], squares[squares.len() - 1]);
        let middle = &squares[1..squares.len() - 1];
        let mut found: Vec<Move> = Vec::new();
        if legal.first().is_some_and(Move::is_capture) {
            let routes: Vec<(Move, Vec<Square>)> = self
                .capture_routes()
                .into_iter()
                .filter(|r| r.from() == first && r.to() == last)
                .map(|r| {
                    let landings = r.landings().collect();
                    (r, landings)
                })
                .collect();
            // A path written in full names exactly one route; fewer squares name every
            // route that passes them in order.
            let exact: Vec<&Move> =
                routes.iter().filter(|(_, l)| l[..l.len() - 1] == *middle).map(|(r, _)| r).collect();
            let matching: Vec<&Move> = if exact.is_empty() {
                routes.iter().filter(|(_, l)| is_subsequence(middle, &l[..l.len() - 1])).map(|(r, _)| r).collect()
            } else {
                exact
            };
            for route in matching {
                // Report the move as the generator merged it.
                if let Some(m) = legal.iter().find(|m| m.same_outcome(route))
                    && !found.contains(m)
                {
                    found.push(*m);
                }
            }
        } else if middle.is_empty() {
            found.extend(legal.iter().filter(|m| m.from() == first && m.to() == last));
        }
        match found.len() {
            1 => Ok(found[0]),
            0 => Err(MoveError::Illegal {
                text: text.to_string(),
                legal: legal.iter().map(|m| self.move_text(m)).collect(),
            }),
            _ => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: found.iter().map(|m| format(&self.variant, m, true)).collect(),
            }),
        }
    }

    fn parse_squares(&self, text: &str) -> Result<Vec<Square>, MoveError> {
        let malformed = |reason: String| MoveError::Malformed { text: text.to_string(), reason };
        let body = text.trim().trim_end_matches(['!', '?', '+', '#', '*']);
        let tokens: Vec<&str> = body.split(['-', 'x', 'X', ':', '×']).map(str::trim).collect();
        if tokens.len() < 2 {
            return Err(malformed("expected squares separated by '-', 'x' or ':'".to_string()));
        }
        tokens
            .iter()
            .map(|t| {
                let number = parse_square(&self.variant, t).map_err(|r| malformed(format!("\"{t}\": {r}")))?;
                Square::from_number(number, self.variant.squares()).ok_or_else(|| {
                    malformed(format!("square {number} is off the board (1-{})", self.variant.squares()))
                })
            })
            .collect()
    }
}

fn is_subsequence(needle: &[Square], hay: &[Square]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}
