//! Strict replay of a PDN game: which game it is, where it starts, every move legal.

use kabe_probe::{Move, MoveError, Position, Variant};

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
    /// The variant was guessed (no GameType, no `--variant`): the first of the games its
    /// tags and squares suggest in which every move is legal. 8x8 games share boards
    /// and notations, so reports say so.
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
    #[error("GameType {tag}{name} is not a game kabe plays (20, 21, 22, 23, 25, 26, 29, 30); skipped", tag = .0, name = game_type_name(.0).map(|n| format!(" ({n})")).unwrap_or_default())]
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
    /// The game's text is larger than [`crate::pdn::MAX_GAME_BYTES`].
    #[error("{bytes} bytes of text, more than the {} MiB a game may have (not a game?); skipped", crate::pdn::MAX_GAME_BYTES >> 20)]
    TooLarge {
        /// Bytes read for it.
        bytes: u64,
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

/// The name the PDN standard gives a GameType number, for messages.
pub fn game_type_name(tag: &str) -> Option<&'static str> {
    let number: String = tag.trim().chars().take_while(char::is_ascii_digit).collect();
    Some(match number.parse::<u8>().ok()? {
        20 => "international",
        21 => "English",
        22 => "Italian",
        23 => "American pool",
        24 => "Spanish",
        25 => "Russian",
        26 => "Brazilian",
        27 => "Canadian",
        28 => "Portuguese",
        29 => "Czech",
        30 => "Turkish",
        31 => "Thai",
        40 => "Frisian",
        41 => "Spantsiretti",
        _ => return None,
    })
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

/// The games a game without GameType may be, most likely first: Italian tags name the
/// Italian game; algebraic squares are the notation of Russian, Brazilian and Czech
/// draughts; numbers above 32 mean 10x10; numbers up to 32 are English (the usual
/// numeric 8x8 game), else Italian or Pool, else (without a setup) a short
/// international game.
fn candidates(game: &PdnGame) -> Result<Vec<Variant>, Problem> {
    let italian_tags = ["Bianco", "Nero", "Risultato"].iter().any(|t| game.tag(t).is_some());
    let texts = game.moves.iter().map(|m| m.text.as_str());
    let algebraic = texts.clone().any(|t| t.chars().any(|c| c.is_ascii_alphabetic() && !"xX".contains(c)));
    if algebraic {
        return Ok(vec![Variant::RUSSIAN, Variant::BRAZILIAN, Variant::CZECH]);
    }
    let fen = game.tag("FEN").or(game.setup.as_deref()).unwrap_or("");
    let numbers = texts
        .chain(std::iter::once(fen))
        .flat_map(|t| t.split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse::<u32>().ok()).collect::<Vec<_>>());
    match numbers.max() {
        Some(n) if n > 32 => Ok(vec![Variant::INTERNATIONAL]),
        Some(_) if italian_tags => Ok(vec![Variant::ITALIAN, Variant::ENGLISH]),
        // A setup with squares up to 32 is an 8x8 problem; a bare short game may be 10x10.
        Some(_) if !fen.is_empty() => Ok(vec![Variant::ENGLISH, Variant::ITALIAN, Variant::POOL]),
        Some(_) => Ok(vec![Variant::ENGLISH, Variant::ITALIAN, Variant::POOL, Variant::INTERNATIONAL]),
        None => Err(Problem::UnknownVariant("no squares to tell the board by".into())),
    }
}

/// Replays `game` from `file`: the variant from `variant` if given, else its `Variant`
/// tag where that names a kabe variant, else its GameType,
/// else the first game its tags and squares suggest that replays it; the start from its
/// FEN (tag or `/FEN/` setup) or the variant's start.
pub fn replay(file: &str, game: &PdnGame, variant: Option<Variant>) -> Result<Replay, ReplayError> {
    let fail = |line: usize, problem: Problem| ReplayError {
        file: file.to_string(),
        game: game.number,
        players: game.players(),
        line,
        problem,
    };
    if game.oversized {
        return Err(fail(game.line, Problem::TooLarge { bytes: game.bytes }));
    }
    // A `Variant` tag naming a game kabe plays ("Antidraughts" beside GameType 20) says
    // more than the GameType, which has no number for a board played to lose.
    let tagged = game.tag("Variant").and_then(Variant::by_name);
    let candidates = match (variant.or(tagged), game.tag("GameType")) {
        (Some(v), _) => return replay_as(game, v, &fail),
        (None, Some(tag)) => return replay_as(game, variant_of_game_type(tag).map_err(|p| fail(game.line, p))?, &fail),
        (None, None) => candidates(game).map_err(|p| fail(game.line, p))?,
    };
    let mut first_error = None;
    for &variant in &candidates {
        match replay_as(game, variant, &fail) {
            Ok(r) => return Ok(Replay { guessed: true, ..r }),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let tried: Vec<&str> = candidates.iter().map(|v| v.name).collect();
    Err(match first_error.expect("at least one candidate") {
        // The game may be another 8x8 game again: say so rather than blame the move.
        ReplayError { problem: Problem::BadMove { number, text, .. }, line, .. } => fail(
            line,
            Problem::UnknownVariant(format!(
                "its squares suggest {}, but move {number} {text} is illegal there (tried {})",
                tried[0],
                tried.join(", ")
            )),
        ),
        other => other,
    })
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
            let number = move_number(&start, ply);
            fail(text.line, Problem::BadMove { number, text: text.text.clone(), error: Box::new(error) })
        })?;
        position = position.play(&mv);
        moves.push(mv);
    }
    Ok(Replay { variant, start, moves, end: position, guessed: false })
}

/// The move number of the position after `ply` plies from `start`: `12.` or `12...`.
pub fn move_number(start: &Position, ply: usize) -> String {
    let (number, opens) = move_number_of(start, ply);
    format!("{number}{}", if opens { "." } else { "..." })
}

/// The move number of ply `ply` from `start`, and whether that ply opens the number: the
/// side that moves first in the variant (White, or Black in English and Pool checkers)
/// opens each number, as the games' own books write them.
pub fn move_number_of(start: &Position, ply: usize) -> (usize, bool) {
    let second_first = usize::from(start.turn() != start.variant().first_to_move);
    ((ply + second_first) / 2 + 1, (ply + second_first).is_multiple_of(2))
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
        let g = game("[GameType \"20\"]\n[Variant \"Antidraughts\"]\n1. 32-28 19-23 *");
        assert_eq!(replay("t.pdn", &g, None).expect("legal").variant.name, "antidraughts");
    }

    #[test]
    fn problems_name_file_game_players_move_and_legal_moves() {
        let g = game("[White \"A\"]\n[Black \"B\"]\n[GameType \"20\"]\n1. 32-28 19-23\n2. 28-22 *");
        let e = replay("games.pdn", &g, None).expect_err("illegal").to_string();
        assert!(e.starts_with("games.pdn: game 1 (A - B), line 5: move 2. 28-22: illegal move"), "{e}");
        assert!(e.contains("28x19"), "{e}");
        let g = game("[GameType \"40\"]\n1. 32-28 *");
        let e = replay("t.pdn", &g, None).expect_err("unsupported");
        assert!(matches!(e.problem, Problem::UnsupportedGameType(ref t) if t == "40"), "{e}");
        assert!(e.to_string().contains("GameType 40 (Frisian) is not a game kabe plays"), "{e}");
        let g = game("[GameType \"30\"]\n1. a3-a4 b6-b5 *");
        assert_eq!(replay("t.pdn", &g, None).expect("Turkish").variant.name, "turkish");
        let g = game("1. 11-15 23-19 *");
        let r = replay("e.pdn", &g, None).expect("English");
        assert_eq!((r.variant.name, r.guessed), ("english", true));
        let g = game("[GameType \"21\"]\n1. 11-15 23-19 *");
        assert_eq!(replay("e.pdn", &g, None).expect("English").variant.name, "english");
        let g = game("[Bianco \"A\"]\n1. 21-17 12-15 *");
        assert_eq!(replay("i.pdn", &g, None).expect("Italian").variant.name, "italian");
        let g = game("1. c3-d4 c3-d4 *");
        let e = replay("g.pdn", &g, None).expect_err("guessed wrong?").to_string();
        assert!(
            e.contains("suggest russian, but move 1... c3-d4 is illegal there (tried russian, brazilian, czech"),
            "{e}"
        );
        let g = game("[FEN \"?:W29,13,11:B22,4,2\"]\n*");
        let e = replay("f.pdn", &g, Some(Variant::RUSSIAN)).expect_err("bad FEN");
        assert!(matches!(e.problem, Problem::BadSetup { .. }), "{e}");
    }
}
