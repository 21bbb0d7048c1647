//! The real files of `../shared/pdn/`: nothing panics, and every international and
//! Russian game in `succeed/` replays to its end unless its source has a move that is
//! not legal (each such game is listed below with the reason).

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use kabe_analyze::{replay, PdnReader, Problem};

fn shared_pdn() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/pdn")
}

fn files(folder: &str) -> Vec<PathBuf> {
    let dir = shared_pdn().join(folder);
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
                tally.unsupported += 1;
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

#[test]
fn international_and_russian_games_replay_to_their_end() {
    let mut report = Vec::new();
    let (mut replayed, mut failed) = (0, 0);
    for path in files("succeed") {
        let t = replay_all(&path);
        replayed += t.replayed;
        failed += t.failed.len();
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
    assert!(replayed > 500, "{replayed} replayed");
    assert_eq!(failed, 0, "{}", report.join("\n"));
}
