//! A probe request as the front ends receive it (the CLI's arguments and `--stdin` lines,
//! the server's query, Python's arguments, C's counters): a game, a rule-set name, a FEN
//! and counters as text, read here once into the draw rules, the position and its
//! counters. An error names the field that is wrong, so each front end can map it to its
//! own form (an API error kind, a Python exception, a C status) with the same words.

use kabe_rules::notation::fen::guess_variant;

use crate::rules::CounterError;
use crate::{Counters, DrawRuleSet, DrawRules, FenError, Position, RuleSetError, UnknownVariant, Variant};

/// How a request names its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Game<'a> {
    /// By a name the caller typed (a path segment, an argument): an unknown name is an
    /// error.
    Named(&'a str),
    /// Already read (a typed flag, a C code, a position object).
    Known(Variant),
    /// Guessed from the FEN's squares (algebraic squares are an 8x8 game), with the
    /// tables' only variant, if any, where the FEN cannot tell.
    Guessed(Option<Variant>),
}

/// The longest FEN and counters a request may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Characters of FEN, surrounding blanks left out.
    pub fen: usize,
    /// Characters of counters, surrounding blanks left out.
    pub counters: usize,
}

impl Limits {
    /// No bound: a local caller's text (the FEN parser quotes a long text in part).
    pub const NONE: Limits = Limits { fen: usize::MAX, counters: usize::MAX };
    /// A request from the network: 50 pieces of 4 characters and more than enough
    /// separators; a counter of every article.
    pub const QUERY: Limits = Limits { fen: 512, counters: 64 };
}

/// What a front end was asked: the fields as given, before any is read.
#[derive(Clone, Copy, Debug)]
pub struct ProbeRequest<'a> {
    /// The game.
    pub game: Game<'a>,
    /// The draw-rule set's name; `None` or blank: the game's usual set.
    pub rules: Option<&'a str>,
    /// The position as PDN FEN; `None` or blank is [`RequestError::MissingFen`].
    pub fen: Option<&'a str>,
    /// The running counts as `ARTICLE=PLIES[,...]`; `None` or blank: they start now.
    pub counters: Option<&'a str>,
    /// Bounds on the texts.
    pub limits: Limits,
}

/// A request read: the rules, the position and its counters under them.
#[derive(Clone, Copy, Debug)]
pub struct Asked {
    /// The draw rules the counters belong to.
    pub rules: DrawRules,
    /// The position.
    pub position: Position,
    /// Its running counts.
    pub counters: Counters,
}

/// The field of a request an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The game.
    Variant,
    /// The draw-rule set.
    Rules,
    /// The position.
    Fen,
    /// The running counts.
    Counters,
}

impl Field {
    /// The field's name in every front end: `variant`, `rules`, `fen`, `counters`.
    pub fn name(self) -> &'static str {
        match self {
            Field::Variant => "variant",
            Field::Rules => "rules",
            Field::Fen => "fen",
            Field::Counters => "counters",
        }
    }
}

/// Why a request cannot be read; the message starts with the field's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// No game has that name.
    #[error("variant '{name}': {source}")]
    Variant {
        /// The name given.
        name: String,
        /// Why it is no game.
        source: UnknownVariant,
    },
    /// The rule set is unknown or not written for the game.
    #[error("rules: {0}")]
    Rules(#[source] RuleSetError),
    /// No FEN, or a blank one.
    #[error("fen: none given")]
    MissingFen,
    /// A FEN longer than the limit.
    #[error("fen: {length} characters, at most {limit}")]
    FenTooLong {
        /// Its characters.
        length: usize,
        /// The most allowed.
        limit: usize,
    },
    /// A FEN that is not a position of the game.
    #[error("fen: {source}")]
    Fen {
        /// The game it was read as.
        variant: Variant,
        /// What is wrong with it.
        source: FenError,
    },
    /// Counters longer than the limit.
    #[error("counters: {length} characters, at most {limit}")]
    CountersTooLong {
        /// Their characters.
        length: usize,
        /// The most allowed.
        limit: usize,
    },
    /// Counters that cannot belong to the position under the rules.
    #[error("counters: {0}")]
    Counters(#[source] CounterError),
}

impl RequestError {
    /// The field that is wrong.
    pub fn field(&self) -> Field {
        match self {
            RequestError::Variant { .. } => Field::Variant,
            RequestError::Rules(_) => Field::Rules,
            RequestError::MissingFen | RequestError::FenTooLong { .. } | RequestError::Fen { .. } => Field::Fen,
            RequestError::CountersTooLong { .. } | RequestError::Counters(_) => Field::Counters,
        }
    }

    /// The error without the field's name: the reader's own error where one failed (what
    /// a front end that names no fields shows), else this one.
    pub fn into_cause(self) -> Box<dyn std::error::Error + Send + Sync> {
        match self {
            RequestError::Variant { source, .. } => Box::new(source),
            RequestError::Rules(e) => Box::new(e),
            RequestError::Fen { source, .. } => Box::new(source),
            RequestError::Counters(e) => Box::new(e),
            other => Box::new(other),
        }
    }
}

impl<'a> ProbeRequest<'a> {
    /// The request one line of text makes, `FEN` or `FEN<TAB>COUNTERS` (`kabe probe
    /// --stdin`), in `game` under the rules named `rules`.
    pub fn from_line(game: Game<'a>, rules: Option<&'a str>, line: &'a str, limits: Limits) -> ProbeRequest<'a> {
        let (fen, counters) = match line.split_once('\t') {
            Some((fen, counters)) => (fen, Some(counters)),
            None => (line, None),
        };
        ProbeRequest { game, rules, fen: Some(fen), counters, limits }
    }

    /// The game: named, known, or guessed from the FEN.
    ///
    /// # Errors
    /// [`RequestError::Variant`] when the name is no game.
    pub fn variant(&self) -> Result<Variant, RequestError> {
        match self.game {
            Game::Named(name) => read_variant(name),
            Game::Known(variant) => Ok(variant),
            Game::Guessed(default) => Ok(guess_variant(self.fen.unwrap_or_default().trim(), default)),
        }
    }

    /// The position alone, in the request's game (what a caller with counters of its own
    /// reads).
    ///
    /// # Errors
    /// [`RequestError::Variant`], or the FEN's error.
    pub fn position(&self) -> Result<Position, RequestError> {
        read_fen(self.variant()?, self.fen, self.limits)
    }

    /// The whole request read, field by field in the order variant, rules, FEN, counters.
    ///
    /// # Errors
    /// The first field that cannot be read, as [`RequestError`].
    pub fn read(&self) -> Result<Asked, RequestError> {
        let variant = self.variant()?;
        let rules = read_rules(self.rules, &variant)?;
        let position = read_fen(variant, self.fen, self.limits)?;
        let counters = read_counters(&rules, &position, self.counters, self.limits)?;
        Ok(Asked { rules, position, counters })
    }
}

/// The game named `name`, by kabe's name or an alias other programs use.
///
/// # Errors
/// [`RequestError::Variant`] when no game has the name.
pub fn read_variant(name: &str) -> Result<Variant, RequestError> {
    name.parse().map_err(|source| RequestError::Variant { name: name.to_string(), source })
}

/// The rules named `name` for `variant`, its usual set when `name` is `None` or blank.
///
/// # Errors
/// [`RequestError::Rules`] when no set has the name or the set is not the game's.
pub fn read_rules(name: Option<&str>, variant: &Variant) -> Result<DrawRules, RequestError> {
    let set = DrawRuleSet::for_game(name, variant).map_err(RequestError::Rules)?;
    Ok(DrawRules::new(set, variant))
}

/// The position `fen` gives in `variant`.
///
/// # Errors
/// [`RequestError::MissingFen`], [`RequestError::FenTooLong`] or [`RequestError::Fen`].
pub fn read_fen(variant: Variant, fen: Option<&str>, limits: Limits) -> Result<Position, RequestError> {
    let fen = fen.map(str::trim).filter(|f| !f.is_empty()).ok_or(RequestError::MissingFen)?;
    if fen.len() > limits.fen {
        return Err(RequestError::FenTooLong { length: fen.len(), limit: limits.fen });
    }
    Position::from_fen(variant, fen).map_err(|source| RequestError::Fen { variant, source })
}

/// The counters `text` gives for `position` under `rules`; fresh ones (the counts start
/// now) when it is `None` or blank.
///
/// # Errors
/// [`RequestError::CountersTooLong`] or [`RequestError::Counters`].
pub fn read_counters(
    rules: &DrawRules,
    position: &Position,
    text: Option<&str>,
    limits: Limits,
) -> Result<Counters, RequestError> {
    match text.map(str::trim).filter(|c| !c.is_empty()) {
        None => Ok(Counters::fresh(rules, position)),
        Some(text) if text.len() > limits.counters => {
            Err(RequestError::CountersTooLong { length: text.len(), limit: limits.counters })
        }
        Some(text) => Counters::parse(rules, position, text).map_err(RequestError::Counters),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request<'a>(game: Game<'a>, fen: &'a str) -> ProbeRequest<'a> {
        ProbeRequest { game, rules: None, fen: Some(fen), counters: None, limits: Limits::QUERY }
    }

    #[test]
    fn a_request_is_read_into_rules_position_and_counters() {
        let mut r = request(Game::Named("russian"), " W:WKa1,Kc1:BKh8 ");
        r.counters = Some("16b=58");
        let asked = r.read().expect("read");
        assert_eq!(asked.rules.set, DrawRuleSet::Ussr1953);
        assert_eq!(asked.position.fen(), "W:WKa1,Kc1:BKh8");
        assert_eq!(asked.counters.describe_at(&asked.position), "16b=58");
        let guessed = request(Game::Guessed(None), "W:WKa1:BKh8").read().expect("read");
        assert_eq!(guessed.position.variant().name, "russian");
        let fresh = request(Game::Known(Variant::INTERNATIONAL), "W:W32:B27").read().expect("read");
        assert_eq!(fresh.counters, Counters::fresh(&fresh.rules, &fresh.position));
    }

    #[test]
    fn each_error_names_its_field_and_limit() {
        let field = |r: ProbeRequest<'_>| r.read().map(|_| ()).map_err(|e| (e.field(), e.to_string()));
        let e = field(request(Game::Named("chess"), "W:W32:B27")).expect_err("no such game");
        assert_eq!(e.0, Field::Variant);
        assert!(e.1.starts_with("variant 'chess': unknown variant"), "{}", e.1);
        let mut r = request(Game::Named("russian"), "W:Wa1:Bh8");
        r.rules = Some("fmjd");
        assert_eq!(field(r).expect_err("not russian's").0, Field::Rules);
        assert_eq!(field(request(Game::Guessed(None), "  ")), Err((Field::Fen, "fen: none given".into())));
        let long = format!("W:W{}:B1", "1,".repeat(300));
        assert_eq!(
            field(request(Game::Guessed(None), &long)),
            Err((Field::Fen, "fen: 606 characters, at most 512".into()))
        );
        assert!(field(request(Game::Guessed(None), "W:W99:B1")).expect_err("off the board").1.starts_with("fen: FEN"));
        let mut r = request(Game::Guessed(None), "W:W31:B1");
        let many = "6.2=1,".repeat(20);
        r.counters = Some(&many);
        assert_eq!(field(r), Err((Field::Counters, "counters: 120 characters, at most 64".into())));
        r.counters = Some("junk");
        let e = r.read().expect_err("junk");
        assert_eq!(e.field(), Field::Counters);
        assert!(e.into_cause().to_string().starts_with("bad counters 'junk'"));
    }

    #[test]
    fn a_line_is_a_fen_and_counters_after_a_tab() {
        let read = |line| {
            let asked = ProbeRequest::from_line(Game::Guessed(None), None, line, Limits::NONE).read().expect("read");
            (asked.position.fen(), asked.counters.describe_at(&asked.position))
        };
        assert_eq!(read(" W:WK46,K47:BK5\t 6.4=3 "), ("W:WK46,K47:BK5".into(), "6.2=0,6.4=3".into()));
        assert_eq!(read("W:WK46,K47:BK5\t"), ("W:WK46,K47:BK5".into(), "6.2=0,6.4=0".into()));
        assert_eq!(read("W:WKa1:BKh8"), ("W:WKa1:BKh8".into(), "16b=0".into()));
    }
}
