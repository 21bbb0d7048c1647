//! The JSON of `kabe analyze --format json` (schema in `analyze/JSON.md`): a game with
//! every position in table range and the move played from it, and the summary.

use kabe_probe::{Position, Wld};
use serde_json::{json, Value};

use super::color_word;
use crate::analysis::{GameOutcome, Summary};
use crate::annotate::PositionNote;
use crate::pdn::PdnGame;
use crate::repetition::RepetitionEffect;
use crate::replay::move_number;

/// RESULT: a result for the side to move as `result`, the `winner`'s colour and `plies`.
fn result_json(position: &Position, result: Wld, plies: Option<u16>) -> Value {
    let winner = match result {
        Wld::Win => Some(position.turn()),
        Wld::Loss => Some(position.turn().opposite()),
        Wld::Draw => None,
    };
    json!({
        "result": result.word(),
        "winner": winner.map(color_word),
        "plies": plies,
    })
}

fn position_json(start: &Position, note: &PositionNote) -> Value {
    let counters: serde_json::Map<String, Value> = note
        .counters
        .describe(start.variant())
        .split(',')
        .filter_map(|p| p.split_once('='))
        .map(|(a, n)| (a.to_string(), json!(n.parse::<u16>().unwrap_or(0))))
        .collect();
    let rule = note.verdict.count.map(|(article, left)| {
        json!({
            "article": article,
            "plies_left": left,
            "runs_out_at": move_number(start, note.ply + usize::from(left)),
        })
    });
    let played = note.played.as_ref().map(|m| {
        json!({
            "move": m.text,
            "result": m.result.word(),
            "error": m.error.as_ref().map(|e| json!({
                "from": e.from.word(),
                "to": e.to.word(),
                "best": e.best,
                "best_win_plies": e.best_win_plies,
            })),
        })
    });
    json!({
        "ply": note.ply,
        "move_number": note.move_number,
        "to_move": color_word(note.position.turn()),
        "fen": note.position.fen(),
        "pieces": note.position.piece_count(),
        "counters": counters,
        "occurrences": note.occurrences,
        "exact": result_json(&note.position, note.exact, note.exact_plies()),
        "secured_in": note.secured_plies(),
        "theoretical": result_json(&note.position, note.verdict.theoretical.wld(), note.verdict.theoretical.plies()),
        "rule": rule,
        "rule_decides": note.verdict.rule_decides(),
        "repetition": note.repetition.map(|r| match r {
            RepetitionEffect::Draws => "draws",
            RepetitionEffect::Unresolved => "unresolved",
        }),
        "played": played,
    })
}

/// One game of the JSON report (`analyze/JSON.md`, GAME): also what the Python package's
/// `kabe.analyze` yields.
pub fn game_json(file: &str, game: &PdnGame, outcome: &GameOutcome) -> Value {
    let mut v = json!({
        "file": file,
        "game": game.number,
        "line": game.line,
        "white": game.tag("White"),
        "black": game.tag("Black"),
        "event": game.tag("Event"),
        "date": game.tag("Date"),
        "result": game.result,
        "plies": game.moves.len(),
        "skipped_text": game.errors.iter().map(|(line, text)| json!({"line": line, "text": text})).collect::<Vec<_>>(),
    });
    let fields = match outcome {
        GameOutcome::Failed(e) => json!({"status": "failed", "error": e.to_string()}),
        GameOutcome::Skipped(e) => json!({"status": "skipped", "error": e.to_string()}),
        GameOutcome::NoTables { replay } => json!({"status": "no_tables", "variant": replay.variant.name}),
        GameOutcome::Analysed { replay, annotation } => {
            json!({
                "status": "analysed",
                "variant": replay.variant.name,
                "variant_guessed": replay.guessed,
                "rules": annotation.rules.name(),
                "from_setup": annotation.from_setup,
                "positions": annotation.positions.iter().map(|n| position_json(&replay.start, n)).collect::<Vec<_>>(),
                "ended_by_rule": annotation.ended.map(|e| json!({
                    "ply": e.ply,
                    "move_number": move_number(&replay.start, e.ply),
                    "article": e.article,
                    "repetition": e.repetition,
                })),
                "missing_tables": annotation.missing.iter().map(ToString::to_string).collect::<Vec<_>>(),
            })
        }
    };
    if let (Value::Object(map), Value::Object(more)) = (&mut v, fields) {
        map.extend(more);
    }
    v
}

/// The summary of the JSON report (`analyze/JSON.md`, SUMMARY).
pub fn summary_json(s: &Summary) -> Value {
    json!({
        "read": s.read,
        "analysed": s.analysed,
        "failed": s.failed,
        "skipped": s.skipped,
        "positions": s.positions,
        "errors": s.errors,
        "ended_by_rule": s.ended_by_rule,
        "missing_tables": s.missing.iter().map(|(v, sig)| format!("{v} {sig}")).collect::<Vec<_>>(),
        "variants_without_tables": s.variants_without_tables,
        "unreadable_files": s.unreadable_files.iter().map(|(file, error)| json!({"file": file, "error": error})).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use kabe_probe::rules::exact::Verdict;
    use kabe_probe::{Counters, DrawRuleSet, DrawRules, RuleScore, Score, Variant};

    use super::*;
    use crate::annotate::{GameAnnotation, MoveError, PlayedMove};
    use crate::json::snapshot::assert_shape;
    use crate::pdn::PdnReader;
    use crate::replay::replay;

    const GAME: &str = "[White \"A\"]\n[Black \"B\"]\n[GameType \"20\"]\n[FEN \"W:W32:B3\"]\n\n1. 32-28 2-0\n";

    fn game() -> PdnGame {
        PdnReader::new(GAME.as_bytes()).next().expect("a game").expect("read")
    }

    /// The game's one position, where White threw the win away with 32-28.
    fn analysed(game: &PdnGame) -> GameOutcome {
        let replay = replay("g.pdn", game, None).expect("replayed");
        let start = replay.start;
        let rules = DrawRules::new(DrawRuleSet::usual_for(start.variant()), start.variant());
        let mv = replay.moves[0];
        let note = PositionNote {
            ply: 0,
            move_number: "1.".into(),
            position: start,
            counters: Counters::fresh(&rules, &start),
            occurrences: 1,
            verdict: Verdict { exact: Wld::Win, theoretical: Score::win(1), count: None, within: RuleScore::win(1) },
            exact: Wld::Win,
            repetition: None,
            played: Some(PlayedMove {
                text: "32-28".into(),
                mv,
                result: Wld::Draw,
                error: Some(MoveError {
                    from: Wld::Win,
                    to: Wld::Draw,
                    best: "32-27".into(),
                    best_result: Wld::Win,
                    best_win_plies: Some(1),
                }),
            }),
        };
        let annotation = GameAnnotation {
            variant: Variant::INTERNATIONAL,
            rules: DrawRuleSet::usual_for(&Variant::INTERNATIONAL),
            from_setup: true,
            positions: vec![note],
            ended: None,
            missing: Vec::new(),
        };
        GameOutcome::Analysed { replay, annotation }
    }

    #[test]
    fn game_shape() {
        let game = game();
        assert_shape(
            &game_json("g.pdn", &game, &analysed(&game)),
            r#"{"file": "g.pdn", "game": 1, "line": 1, "white": "A", "black": "B", "event": null, "date": null,
                "result": "2-0", "plies": 1, "skipped_text": [],
                "status": "analysed", "variant": "international", "variant_guessed": false, "rules": "fmjd",
                "from_setup": true, "ended_by_rule": null, "missing_tables": [],
                "positions": [{
                  "ply": 0, "move_number": "1.", "to_move": "white", "fen": "W:W32:B3", "pieces": 2,
                  "counters": {"6.2": 0}, "occurrences": 1,
                  "exact": {"result": "win", "winner": "white", "plies": 1}, "secured_in": 1,
                  "theoretical": {"result": "win", "winner": "white", "plies": 1},
                  "rule": null, "rule_decides": false, "repetition": null,
                  "played": {"move": "32-28", "result": "draw",
                             "error": {"from": "win", "to": "draw", "best": "32-27", "best_win_plies": 1}}
                }]}"#,
        );
        let replayed = replay("g.pdn", &game, None).expect("replayed");
        let no_tables = game_json("g.pdn", &game, &GameOutcome::NoTables { replay: replayed });
        assert_shape(&json!([no_tables["status"], no_tables["variant"]]), r#"["no_tables", "international"]"#);
    }

    #[test]
    fn summary_shape() {
        let mut summary = Summary { read: 3, analysed: 2, failed: 1, positions: 9, errors: 1, ..Summary::default() };
        summary.missing.insert(("international".into(), "0111".into()));
        summary.variants_without_tables.insert("russian".into());
        summary.unreadable_files.push(("gone.pdn".into(), "No such file or directory (os error 2)".into()));
        assert_shape(
            &summary_json(&summary),
            r#"{"read": 3, "analysed": 2, "failed": 1, "skipped": 0, "positions": 9, "errors": 1,
                "ended_by_rule": 0, "missing_tables": ["international 0111"], "variants_without_tables": ["russian"],
                "unreadable_files": [{"file": "gone.pdn", "error": "No such file or directory (os error 2)"}]}"#,
        );
    }
}
