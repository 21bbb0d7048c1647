//! The real files of `data/pdn-corpus/` (a copy of the project's shared PDN corpus): nothing panics, and every game of a game kabe
//! plays in `succeed/` (international, Russian, English, Italian, Czech, ...; most have
//! no GameType tag and are recognised from their tags and squares) replays to its end,
//! unless its source is wrong (each such game is listed in `SOURCE_ERRORS` with the
//! reason).

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use kabe_analyze::{replay, PdnReader, Problem};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/pdn-corpus")
}

fn files(folder: &str) -> Vec<PathBuf> {
    let dir = corpus().join(folder);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "pdn"))
        .collect();
    out.sort();
    out
}

#[derive(Default, Debug)]
struct Tally {
    games: usize,
    replayed: usize,
    unsupported: usize,
    source_errors: usize,
    failed: Vec<String>,
}

fn replay_all(path: &Path) -> Tally {
    let name = path.file_name().expect("name").to_string_lossy().to_string();
    let mut tally = Tally::default();
    for game in PdnReader::new(BufReader::new(File::open(path).expect("open"))) {
        let game = game.expect("readable");
        tally.games += 1;
        match replay(&name, &game, None) {
            Ok(r) => {
                assert_eq!(r.moves.len(), game.moves.len());
                tally.replayed += 1;
            }
            Err(e) if matches!(e.problem, Problem::UnsupportedGameType(_) | Problem::UnknownVariant(_)) => {
                if std::env::var_os("SHOW_OTHER").is_some() {
                    println!("OTHER {e}");
                }
                tally.unsupported += 1;
            }
            Err(e) if SOURCE_ERRORS.iter().any(|&(f, g, _)| f == name && g == game.number) => {
                tally.source_errors += 1;
                assert!(matches!(e.problem, Problem::BadSetup { .. }), "{e}");
            }
            Err(e) => tally.failed.push(e.to_string()),
        }
    }
    tally
}

#[test]
fn every_file_reads_without_panic() {
    let mut games = 0;
    for path in files("succeed").into_iter().chain(files("fail")) {
        games += replay_all(&path).games;
    }
    assert!(games > 1000, "{games} games");
}

/// Games whose source cannot be replayed, as (file, game number, what is wrong).
const SOURCE_ERRORS: [(&str, usize, &str); 7] = [
    ("beginner.pdn", 10, "FEN with a white man on 1, White's crowning row"),
    ("fen.pdn", 1, "FEN with '?' as the side to move (an edge case of the standard's tests)"),
    ("goulds.pdn", 93, "FEN with a white man on 3, White's crowning row"),
    ("lpc.pdn", 36, "FEN with a black man on 32, Black's crowning row"),
    ("lpc.pdn", 63, "FEN with a black man on 32, Black's crowning row"),
    ("lpc.pdn", 65, "FEN with a black man on 31, Black's crowning row"),
    ("lpc.pdn", 73, "FEN with a white man on 4, White's crowning row"),
];

#[test]
fn every_playable_game_replays_to_its_end() {
    let mut report = Vec::new();
    let (mut replayed, mut failed, mut source_errors) = (0, 0, 0);
    for path in files("succeed") {
        let t = replay_all(&path);
        replayed += t.replayed;
        failed += t.failed.len();
        source_errors += t.source_errors;
        report.push(format!(
            "{}: {} games, {} replayed, {} other games, {} failed",
            path.display(),
            t.games,
            t.replayed,
            t.unsupported,
            t.failed.len()
        ));
        report.extend(t.failed.iter().map(|f| format!("    {f}")));
    }
    println!("{}", report.join("\n"));
    assert!(replayed > 1900, "{replayed} replayed");
    assert_eq!(source_errors, SOURCE_ERRORS.len(), "every listed source error still fails");
    assert_eq!(failed, 0, "{}", report.join("\n"));
}
