//! FEN as in PDN 3.0: `W:W31,32,K40:B1,2`, with ranges (`W:W31-50:B1-20`), an optional
//! trailing `.`, algebraic squares (`W:Wa1,c1,Kd4:Bf8`), and lidraughts' `:H0:F1`
//! counters, which are read and ignored here.

use crate::notation::{kabe_number, parse_square, square_name};
use crate::position::{Position, Setup, SetupError, SetupPiece};
use crate::variant::{Color, NotationStyle, PieceKind, Square, Variant};

/// A FEN string that could not be read or does not give a legal position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FenError {
    /// The text is not FEN.
    #[error("malformed FEN \"{fen}\": {reason} at \"{token}\"")]
    Malformed {
        /// The FEN (its first 200 characters when longer).
        fen: String,
        /// The part that could not be read.
        token: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The text is FEN but not a legal position of the variant.
    #[error("FEN \"{fen}\": {error}")]
    Invalid {
        /// The FEN (its first 200 characters when longer).
        fen: String,
        /// What is wrong with the position.
        error: SetupError,
    },
}

/// Characters of a user's text quoted back in an error: enough to see it, bounded for any
/// input.
pub const QUOTED: usize = 200;

/// At most [`QUOTED`] characters of `text`, with the length said when cut: every front
/// end quotes input in its errors through this.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED) {
        Some((cut, _)) => format!("{}... ({} characters)", &text[..cut], text.chars().count()),
        None => text.to_string(),
    }
}

/// Reads a FEN into an unvalidated setup.
///
/// # Errors
/// [`FenError::Malformed`], naming the part, when the text is not FEN: no side to move, a
/// field that is not a piece list of W or B, a second list for one colour, a square that
/// cannot be read, a range that runs backwards or over more than 100 squares, or no piece
/// lists at all. Squares are not checked against the board here.
pub fn parse_setup(variant: &Variant, fen: &str) -> Result<Setup, FenError> {
    let malformed = |token: &str, reason| FenError::Malformed { fen: quoted(fen), token: quoted(token), reason };
    let mut text = fen.trim();
    if let Some(inner) = text.strip_prefix("[FEN").and_then(|t| t.strip_suffix(']')) {
        text = inner.trim();
    }
    text = text.trim_matches('"').trim();
    text = text.strip_suffix('.').unwrap_or(text).trim();
    let mut fields = text.split(':');
    let turn = match fields.next().map(str::trim) {
        Some("W" | "w") => Color::White,
        Some("B" | "b") => Color::Black,
        Some(other) => return Err(malformed(other, "side to move must be W or B")),
        None => return Err(malformed(text, "empty")),
    };
    let mut setup = Setup { turn: Some(turn), pieces: Vec::new() };
    let mut seen = [false; 2];
    for field in fields {
        let field = field.trim();
        let (head, list) = field.split_at(field.chars().next().map_or(0, char::len_utf8));
        let color = match head {
            "W" | "w" => Color::White,
            "B" | "b" => Color::Black,
            // lidraughts appends the half-move clock and the move number.
            "H" | "F" if list.trim().bytes().all(|b| b.is_ascii_digit()) => continue,
            _ => return Err(malformed(field, "expected a piece list starting with W or B")),
        };
        if std::mem::replace(&mut seen[color as usize], true) {
            return Err(malformed(field, "second piece list for the same colour"));
        }
        for token in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (kind, squares) = match token.strip_prefix(['K', 'k']) {
                Some(rest) => (PieceKind::King, rest),
                None => (PieceKind::Man, token),
            };
            if let (Some((a, b)), true) = (squares.split_once('-'), variant.mirrored_board) {
                // A range runs over the game's own numbers, which are not kabe's here.
                let number =
                    |t: &str| t.trim().parse::<u32>().map_err(|_| malformed(token, "a range needs square numbers"));
                let (lo, hi) = (number(a)?, number(b)?);
                if lo > hi || hi - lo > 100 {
                    return Err(malformed(token, "range runs backwards or is too long"));
                }
                setup.pieces.extend((lo..=hi).map(|n| SetupPiece { color, kind, square: kabe_number(variant, n) }));
                continue;
            }
            let (lo, hi) = match squares.split_once('-') {
                Some((a, b)) => (
                    parse_square(variant, a).map_err(|r| malformed(token, r))?,
                    parse_square(variant, b).map_err(|r| malformed(token, r))?,
                ),
                None => {
                    let s = parse_square(variant, squares).map_err(|r| malformed(token, r))?;
                    (s, s)
                }
            };
            if lo > hi {
                return Err(malformed(token, "range runs backwards"));
            }
            if hi - lo > 100 {
                return Err(malformed(token, "range too long"));
            }
            setup.pieces.extend((lo..=hi).map(|square| SetupPiece { color, kind, square }));
        }
    }
    if !seen[0] && !seen[1] {
        return Err(malformed(text, "no piece lists"));
    }
    Ok(setup)
}

/// The game a FEN is read as when nobody names one: Russian when its squares are written
/// with letters (the 8x8 convention, `W:Wc3:Bf6`) unless `default` is another 32-square
/// game, else `default`, else international. The one guess every front end makes.
///
/// ```
/// use kabe_rules::notation::fen::guess_variant;
/// use kabe_rules::Variant;
/// assert_eq!(guess_variant("W:Wc3:Bf6", None), Variant::RUSSIAN);
/// assert_eq!(guess_variant("B:W31:B20", None), Variant::INTERNATIONAL);
/// assert_eq!(guess_variant("W:Wc3:Bf6", Some(Variant::INTERNATIONAL)), Variant::RUSSIAN);
/// ```
pub fn guess_variant(fen: &str, default: Option<Variant>) -> Variant {
    // The side to move (`W`, `B`) comes before the first colon; squares after it.
    let squares = fen.split_once(':').map_or("", |(_, rest)| rest);
    if squares.chars().any(|c| matches!(c, 'a'..='h')) {
        return default.filter(|v| v.squares() == 32).unwrap_or(Variant::RUSSIAN);
    }
    default.unwrap_or(Variant::INTERNATIONAL)
}

/// Reads a FEN and validates it as a position of `variant`.
///
/// # Errors
/// [`FenError::Malformed`] when the text is not FEN (as [`parse_setup`]);
/// [`FenError::Invalid`], with the [`SetupError`], when it is FEN but not a position of
/// `variant`: a square off its board, a square used twice, or a man on its own
/// promotion row.
pub fn parse(variant: &Variant, fen: &str) -> Result<Position, FenError> {
    let setup = parse_setup(variant, fen)?;
    Position::from_setup(*variant, &setup).map_err(|error| FenError::Invalid { fen: quoted(fen), error })
}

/// Writes `position` as FEN in its variant's notation.
pub fn write(position: &Position) -> String {
    write_in(position, position.variant().notation)
}

/// Writes `position` as FEN with squares in `style`.
pub fn write_in(position: &Position, style: NotationStyle) -> String {
    let variant = Variant { notation: style, ..*position.variant() };
    let mut out = String::new();
    out.push(position.turn().letter());
    for color in [Color::White, Color::Black] {
        out.push(':');
        out.push(color.letter());
        let mut first = true;
        for s in 0..variant.squares() {
            if let Some((c, kind)) = position.piece_at(Square(s)) {
                if c != color {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                if kind == PieceKind::King {
                    out.push('K');
                }
                out.push_str(&square_name(&variant, Square(s)));
            }
        }
    }
    out
}

impl Position {
    /// The position as a PDN FEN string, e.g. `W:W31,32,K40:B1,2`.
    pub fn fen(&self) -> String {
        write(self)
    }

    /// Reads a FEN as a position of `variant`.
    ///
    /// ```
    /// use kabe_rules::{Position, Variant};
    /// let p = Position::from_fen(Variant::INTERNATIONAL, "W:W31-50:B1-20")?;
    /// assert_eq!(p, Position::start(Variant::INTERNATIONAL));
    /// # Ok::<(), kabe_rules::FenError>(())
    /// ```
    ///
    /// # Errors
    /// As [`parse`]: [`FenError::Malformed`] when the text is not FEN,
    /// [`FenError::Invalid`] when it is FEN but not a position of `variant`.
    pub fn from_fen(variant: Variant, fen: &str) -> Result<Position, FenError> {
        parse(&variant, fen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_kings_and_trailing_dot() {
        let v = Variant::INTERNATIONAL;
        let p = parse(&v, "B:W31-33,K40:BK1,2-3.").expect("valid");
        assert_eq!(p.fen(), "B:W31,32,33,K40:BK1,2,3");
        assert_eq!(parse(&v, "[FEN \"W:W31-50:B1-20\"]").expect("valid"), Position::start(v));
        assert!(parse(&v, "W:W31:B1:H0:F12").is_ok());
    }

    #[test]
    fn algebraic_on_eight_by_eight() {
        let v = Variant::RUSSIAN;
        let p = parse(&v, "W:Wa1,c1,Kd4:Bf8,h8").expect("valid");
        assert_eq!(p.fen(), "W:WKd4,a1,c1:Bf8,h8");
        let numeric = parse(&v, "W:W29,30,K18:B3,4").expect("valid");
        assert_eq!(numeric, p);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let v = Variant::INTERNATIONAL;
        let err = |fen: &str| parse(&v, fen).expect_err(fen).to_string();
        assert!(err("W:W3:B10").contains("white man on 3, its own promotion row"));
        assert!(err("W:W31:B47").contains("black man on 47"));
        assert!(err("W:W31,31:B1").contains("square 31 is used twice"));
        assert!(err("W:W51:B1").contains("square 51 is off the board"));
        assert!(err("X:W31:B1").contains("side to move"));
        assert!(err("W:W3x:B1").contains("at \"3x\""));
        assert!(err("W:W35-31:B1").contains("backwards"));
        assert!(err("W:W31:W32").contains("second piece list"));
        assert!(parse(&Variant::RUSSIAN, "W:Wa2:B1").expect_err("light").to_string().contains("light square"));
    }
}
