//! Every answer of `kabe_analyze::present` (and the analysis report) rendered for fixed
//! positions on the suites' tables (international and Russian up to 4 pieces), as text
//! and JSON, against the committed snapshots in `tests/snapshots/`: a change of what
//! users read fails here until it is blessed (`KABE_BLESS=1`). Timings are set to zero
//! before rendering.

use std::time::Duration;

use kabe_analyze::present::{BestLine, Collection, Composition, MoveList, ProbeAnswer, ProofAnswer, StudyAnswer};
use kabe_analyze::prove::{prove, Budget};
use kabe_analyze::report::{report, Format};
use kabe_analyze::study::check_study;
use kabe_analyze::{replay, Analyzer, PdnReader, Reach, Summary};
use kabe_probe::request::{Asked, Game, Limits, ProbeRequest};
use kabe_probe::tablebase::Tablebase;
use kabe_probe::Variant;

use crate::common::tables_dir;
use crate::workspace::assert_snapshot;

fn tables() -> Tablebase {
    Tablebase::open(tables_dir()).expect("open")
}

/// The request as every front end reads it: the game guessed from the FEN.
fn asked(fen: &str, counters: Option<&str>) -> Asked {
    let request =
        ProbeRequest { game: Game::Guessed(None), rules: None, fen: Some(fen), counters, limits: Limits::NONE };
    request.read().expect("a position and counters")
}

/// The text, then the pretty JSON, of each answer.
fn both(text: impl std::fmt::Display, json: &serde_json::Value) -> String {
    format!("{text}\n{}\n\n", serde_json::to_string_pretty(json).expect("JSON"))
}

#[test]
fn probe_answers() {
    let tb = tables();
    let mut out = String::new();
    for (fen, counters) in [
        ("W:W28,K46:BK5", None),
        ("W:WK46,K47:BK5", Some("6.4=3")),
        ("W:WK46,K47,K48:BK5", Some("6.3=30")),
        ("B:W32:B", None),
        ("W:WKa1,Kc1:BKh8", Some("16b=58")),
    ] {
        let answer = ProbeAnswer::probe(&tb, &asked(fen, counters), Some(120)).expect("in the tables");
        out += &both(&answer, &answer.to_json());
    }
    let without_line = ProbeAnswer::probe(&tb, &asked("W:W32:B27", None), None).expect("in the tables");
    out += &both(&without_line, &without_line.to_json());
    assert_snapshot("probe.txt", &out);
}

#[test]
fn best_lines() {
    let tb = tables();
    let mut out = String::new();
    for (fen, counters, plies) in
        [("W:WK1:BK50", None, 300), ("W:WK1:BK50", None, 6), ("W:WKa1,Kc1,Ke1:BKh8", Some("16c=3"), 300)]
    {
        let line = BestLine::probe(&tb, &asked(fen, counters), plies).expect("in the tables");
        out += &both(&line, &line.to_json());
    }
    assert_snapshot("line.txt", &out);
}

#[test]
fn move_lists() {
    let mut out = String::new();
    for fen in ["W:W31-50:B1-20", "W:WK46:B41,37,19,8", "W:WK1,28:B23,19,9"] {
        let list = MoveList { position: asked(fen, None).position };
        out += &both(list, &list.to_json());
    }
    let russian = MoveList { position: asked("W:Wc3,e3,g3:Bd4,f6,h6,b4", None).position };
    out += &both(russian, &russian.to_json());
    assert_snapshot("moves.txt", &out);
}

#[test]
fn studies_within_the_tables() {
    let tb = tables();
    let mut out = String::new();
    for fen in ["W:W28,K46:BK5", "W:W27,K46:B9,K5", "W:WKa1,Kc1:BKh8"] {
        let a = asked(fen, None);
        let report = check_study(&tb, &a.position, &a.counters).expect("in the tables");
        let answer = StudyAnswer { report, rules: a.rules.set };
        out += &both(&answer, &answer.to_json());
    }
    assert_snapshot("study.txt", &out);
}

#[test]
fn proofs_beyond_the_tables() {
    let tb = tables();
    let mut out = String::new();
    for (fen, solver) in [("W:W27,28,K46:B9,K5", None), ("W:W28,K46:BK5", Some(kabe_probe::Color::Black))] {
        let a = asked(fen, None);
        let solver = solver.unwrap_or(a.position.turn());
        let budget = Budget { nodes: 20_000, time: None };
        let mut proof = prove(&tb, &a.position, &a.counters, solver, budget).expect("searched");
        proof.elapsed = Duration::ZERO;
        out += &format!(
            "{}\n",
            serde_json::to_string_pretty(&kabe_analyze::json::proof_summary_json(&proof)).expect("JSON")
        );
        let answer = ProofAnswer { proof, rules: a.rules.set, reach: tb.max_pieces_of(&Variant::INTERNATIONAL) };
        out += &both(&answer, &answer.to_json());
    }
    assert_snapshot("proof.txt", &out);
}

/// Five compositions: a cooked one, one whose published solution fails, a sound one
/// solved as published, one whose moves cannot be replayed, and one whose solver is not
/// to move and does not win.
const COMPOSITIONS: &str = r#"[Event "Small"]
[Round "A1"]
[Result "1-0"]
[SetUp "1"]
[FEN "W:W28,K46:BK5"]

1. 28-22 5-10 2. 46x5 1-0

[Event "Five"]
[Result "1-0"]
[SetUp "1"]
[FEN "W:W27,28,K46:B9,K5"]

1. 28-22 1-0

[Event "Five, as solved"]
[Round "B2"]
[Result "1-0"]
[SetUp "1"]
[FEN "W:W27,28,K46:B9,K5"]

1. 27-22 1-0

[Event "Broken"]
[Result "1-0"]
[SetUp "1"]
[FEN "W:W28,K46:BK5"]

1. 28-99 1-0

[Event "Black to win"]
[Result "0-1"]
[SetUp "1"]
[FEN "W:W28,K46:BK5"]

1. 28-22 5-10 2. 46x5 0-1
"#;

#[test]
fn a_collection_of_compositions() {
    let tb = tables();
    let rules = kabe_probe::DrawRules::new(kabe_probe::DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
    let budget = Budget { nodes: 20_000, time: None };
    let mut collection = Collection::new("test.pdn");
    for game in PdnReader::new(COMPOSITIONS.as_bytes()) {
        let game = game.expect("a game");
        let mut composition = match replay("test.pdn", &game, None) {
            Err(e) => Composition::unreadable("test.pdn", &game, &e),
            Ok(replayed) => {
                Composition::check("test.pdn", &game, &replayed, &tb, &rules, None, budget).expect("checked")
            }
        };
        if let Ok(checked) = &mut composition.checked {
            checked.proof.elapsed = Duration::ZERO;
        }
        collection.add(composition);
    }
    assert_eq!(collection.compositions.len(), 5);
    assert_snapshot("collection.txt", &both(&collection, &collection.to_json()));
}

/// A composition whose published key is not the first key found: its cooks are the
/// other keys, in JSON as in the text.
#[test]
fn cooks_are_the_keys_other_than_the_published_one() {
    let tb = tables();
    let rules = kabe_probe::DrawRules::new(kabe_probe::DrawRuleSet::Fmjd, &Variant::INTERNATIONAL);
    let pdn = "[Result \"1-0\"]\n[SetUp \"1\"]\n[FEN \"W:W28,K46:BK5\"]\n\n1. 28-23 1-0\n";
    let game = PdnReader::new(pdn.as_bytes()).next().expect("a game").expect("read");
    let replayed = replay("test.pdn", &game, None).expect("replayed");
    let budget = Budget { nodes: 20_000, time: None };
    let composition = Composition::check("test.pdn", &game, &replayed, &tb, &rules, None, budget).expect("checked");
    let json = composition.to_json();
    assert_eq!(json["keys"], serde_json::json!(["28-22", "28-23", "46-32"]));
    assert_eq!(json["solution"]["published_key"], "28-23");
    assert_eq!(json["cooks"], serde_json::json!(["28-22", "46-32"]));
}

/// Two games in the tables: won as best play wins, and a win thrown away.
const GAMES: &str = r#"[Event "Best play"]
[White "A"]
[Black "B"]
[Result "1-0"]
[SetUp "1"]
[FEN "W:W28,K46:BK5"]

1. 28-22 5-10 2. 46x5 1-0

[Event "Thrown"]
[White "C"]
[Black "D"]
[Result "0-1"]
[SetUp "1"]
[FEN "W:W28,K46:BK5"]

1. 46-41 5x46 0-1
"#;

#[test]
fn analysis_reports() {
    let tb = tables();
    let analyzer = Analyzer::new(&tb, None, Reach { pieces: None });
    let mut out = String::new();
    for format in [Format::Text, Format::Pdn, Format::Json] {
        let mut bytes = Vec::new();
        let mut summary = Summary::default();
        {
            let mut written = report(format, Box::new(&mut bytes));
            for game in PdnReader::new(GAMES.as_bytes()) {
                let game = game.expect("a game");
                let outcome = analyzer.game("test.pdn", &game).expect("the tables are fine");
                summary.count(&outcome);
                written.game("test.pdn", &game, &outcome).expect("written");
            }
            written.finish(&summary).expect("written");
        }
        out += &format!("== {format:?}\n{}\n", String::from_utf8(bytes).expect("UTF-8"));
    }
    assert_snapshot("report.txt", &out);
}
