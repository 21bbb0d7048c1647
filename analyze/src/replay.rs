//! Strict replay of a PDN game: which game it is, where it starts, every move legal.

use kabe_probe::{Color, Move, MoveError, Position, Variant};

use crate::pdn::PdnGame;

/// A game replayed to its last move.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The variant played.
    pub variant: Variant,
    /// The position before the first move.
    pub start: Position,
    /// The moves, as the generator has them.
    pub moves: Vec<Move>,
    /// The position after the last move.
    pub end: Position,
    /// The variant was guessed from the squares (no GameType, no `--variant`): Czech and
    /// Pool draughts share Russian's board and notation, so reports say so.
    pub guessed: bool,
}

/// Why a game cannot be replayed. Displayed with the file, game number, players and,
/// for a move, its number, text and the legal moves.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: game {game} ({players}), line {line}: {problem}")]
pub struct ReplayError {
    /// The file.
    pub file: String,
    /// 1-based game number in the file.
    pub game: usize,
    /// "White - Black".
    pub players: String,
    /// Line of the problem.
    pub line: usize,
    /// What is wrong.
    pub problem: Problem,
}

/// What stops a replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// A GameType kabe does not play.
    #[error("GameType {0} is not a game kabe supports (20 international, 25 Russian); skipped")]
    UnsupportedGameType(String),
    /// No GameType and nothing that tells the game.
    #[error("no GameType tag and {0}; give --variant")]
    UnknownVariant(String),
    /// The FEN is not a position of the variant.
    #[error("FEN \"{fen}\": {reason}")]
    BadSetup {
        /// The FEN as written.
        fen: String,
        /// Why.
        reason: String,
    },
    /// A move that is not legal (or names several legal moves).
    #[error("move {number} {text}: {error}")]
    BadMove {
        /// "12." or "12...".
        number: String,
        /// The move as written.
        text: String,
        /// Illegal, ambiguous or malformed, with the legal moves.
        error: Box<MoveError>,
    },
}

/// The variant a GameType tag names (`20`, `25,W,8,8,A0,0`, ...).
fn variant_of_game_type(tag: &str) -> Result<Variant, Problem> {
    let number: String = tag.trim().chars().take_while(char::is_ascii_digit).collect();
    let number: u8 = number.parse().map_err(|_| Problem::UnsupportedGameType(tag.to_string()))?;
    Variant::ALL
        .into_iter()
        .find(|v| v.pdn_game_type == Some(number))
        .ok_or_else(|| Problem::UnsupportedGameType(tag.to_string()))
}

/// Guesses the variant of a game without GameType from its squares: algebraic squares
/// are the Russian game's notation; a numeric square above 32 means 10x10.
fn guess_variant(game: &PdnGame) -> Result<Variant, Problem> {
    let texts = game.moves.iter().map(|m| m.text.as_str());
    let algebraic = texts.clone().any(|t| t.chars().any(|c| c.is_ascii_alphabetic() && !"xX".contains(c)));
    if algebraic {
        return Ok(Variant::RUSSIAN);
    }
    let fen = game.tag("FEN").or(game.setup.as_deref()).unwrap_or("");
    let numbers = texts
        .chain(std::iter::once(fen))
        .flat_map(|t| t.split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse::<u32>().ok()).collect::<Vec<_>>());
    match numbers.max() {
        Some(n) if n > 32 => Ok(Variant::INTERNATIONAL),
        Some(_) => Err(Problem::UnknownVariant("numeric squares up to 32 (an 8x8 game, but which?)".into())),
        None => Err(Problem::UnknownVariant("no squares to tell the board by".into())),
    }
}

/// Replays `game` from `file`: the variant from `variant` if given, else its GameType,
/// else its squares; the start from its FEN (tag or `/FEN/` setup) or the variant's start.
pub fn replay(file: &str, game: &PdnGame, variant: Option<Variant>) -> Result<Replay, ReplayError> {
    let fail = |line: usize, problem: Problem| ReplayError {
        file: file.to_string(),
        game: game.number,
        players: game.players(),
        line,
        problem,
    };
    let (variant, guessed) = match (variant, game.tag("GameType")) {
        (Some(v), _) => (v, false),
        (None, Some(tag)) => (variant_of_game_type(tag).map_err(|p| fail(game.line, p))?, false),
        (None, None) => (guess_variant(game).map_err(|p| fail(game.line, p))?, true),
    };
    let replayed = replay_as(game, variant, &fail);
    match replayed {
        // A guess that meets an illegal move may be the wrong game (Czech and Pool draughts
        // share Russian's board and notation): say so rather than blame the move.
        Err(ReplayError { problem: Problem::BadMove { number, text, .. }, line, .. }) if guessed => Err(fail(
            line,
            Problem::UnknownVariant(format!(
                "its squares suggest {}, but move {number} {text} is illegal there (another 8x8 game?)",
                variant.name
            )),
        )),
        other => other.map(|r| Replay { guessed, ..r }),
    }
}

fn replay_as(
    game: &PdnGame,
    variant: Variant,
    fail: &dyn Fn(usize, Problem) -> ReplayError,
) -> Result<Replay, ReplayError> {
    let start = match game.setup.as_deref().or(game.tag("FEN")) {
        Some(fen) => Position::from_fen(variant, fen)
            .map_err(|e| fail(game.line, Problem::BadSetup { fen: fen.to_string(), reason: e.to_string() }))?,
        None => Position::start(variant),
    };
    let mut position = start;
    let mut moves = Vec::with_capacity(game.moves.len());
    for (ply, text) in game.moves.iter().enumerate() {
        let mv = position.parse_move(&text.text).map_err(|error| {
            let first_black = usize::from(start.turn() == Color::Black);
            let number = (ply + first_black) / 2 + 1;
            let dots = if position.turn() == Color::White { "." } else { "..." };
            fail(
                text.line,
                Problem::BadMove { number: format!("{number}{dots}"), text: text.text.clone(), error: Box::new(error) },
            )
        })?;
        position = position.play(&mv);
        moves.push(mv);
    }
    Ok(Replay { variant, start, moves, end: position, guessed: false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdn::PdnReader;

    fn game(text: &str) -> PdnGame {
        PdnReader::new(text.as_bytes()).next().expect("a game").expect("read")
    }

    #[test]
    fn games_replay_from_their_tags_or_their_squares() {
        let g = game("[GameType \"20\"]\n1. 32-28 19-23 2. 28x19 14x23 *");
        let r = replay("t.pdn", &g, None).expect("legal");
        assert_eq!((r.variant.name, r.moves.len(), r.guessed), ("international", 4, false));
        let g = game("[FEN \"W:W29,30,31,32,25,26,27,28,21,22,23,24:B9,10,11,12,5,6,7,8,1,2,3,4.\"]\n1. c3-d4 d6-e5 *");
        let r = replay("t.pdn", &g, None).expect("legal");
        assert_eq!((r.variant.name, r.guessed), ("russian", true));
        assert!(!replay("t.pdn", &g, Some(Variant::RUSSIAN)).expect("legal").guessed);
        let g = game("1. 33-28 18-23 *");
        assert_eq!(replay("t.pdn", &g, None).expect("legal").variant.name, "international");
    }

    #[test]
    fn problems_name_file_game_players_move_and_legal_moves() {
        let g = game("[White \"A\"]\n[Black \"B\"]\n[GameType \"20\"]\n1. 32-28 19-23\n2. 28-22 *");
        let e = replay("games.pdn", &g, None).expect_err("illegal").to_string();
        assert!(e.starts_with("games.pdn: game 1 (A - B), line 5: move 2. 28-22: illegal move"), "{e}");
        assert!(e.contains("28x19"), "{e}");
        let g = game("[GameType \"21\"]\n1. 11-15 *");
        let e = replay("e.pdn", &g, None).expect_err("unsupported");
        assert!(matches!(e.problem, Problem::UnsupportedGameType(ref t) if t == "21"), "{e}");
        let g = game("1. 11-15 23-19 *");
        assert!(matches!(replay("e.pdn", &g, None).expect_err("?").problem, Problem::UnknownVariant(_)));
        let g = game("1. c3-d4 c3-d4 *");
        let e = replay("g.pdn", &g, None).expect_err("guessed wrong?").to_string();
        assert!(e.contains("suggest russian, but move 1... c3-d4 is illegal there"), "{e}");
        let g = game("[FEN \"?:W29,13,11:B22,4,2\"]\n*");
        let e = replay("f.pdn", &g, Some(Variant::RUSSIAN)).expect_err("bad FEN");
        assert!(matches!(e.problem, Problem::BadSetup { .. }), "{e}");
    }
}
