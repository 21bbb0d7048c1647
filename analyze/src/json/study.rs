//! The study checker's report: the verdict, the key moves, the main line with its duals,
//! how the line ends, and whether the study is sound.

use serde_json::{json, Value};

use super::verdict_json;
use crate::study::{LineEnd, StudyReport};

/// The report as JSON: `fen`, `verdict` (the shape of [`verdict_json`]), `keys`,
/// `main_line` (each move with its number, who plays it, its `duals`, its result and
/// plies), `end`, `sound`, `faults`.
pub fn study_json(report: &StudyReport) -> Value {
    json!({
        "fen": report.position.fen(),
        "verdict": verdict_json(&report.verdict),
        "keys": report.keys,
        "main_line": report.line.iter().map(|m| json!({
            "number": m.number,
            "move": m.text,
            "solver": m.solver,
            "duals": m.duals,
            "result": m.result.word(),
            "plies": m.plies,
        })).collect::<Vec<_>>(),
        "end": match &report.end {
            LineEnd::GameOver => json!({"kind": "game_over"}),
            LineEnd::CountExpired(article) => json!({"kind": "count_expired", "article": article}),
            LineEnd::Cut(plies) => json!({"kind": "cut", "plies": plies}),
        },
        "sound": report.is_sound(),
        "faults": report.faults,
    })
}

#[cfg(test)]
mod tests {
    use kabe_probe::rules::exact::Verdict;
    use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, RuleScore, Score, Variant, Wld};

    use super::*;
    use crate::json::snapshot::assert_shape;
    use crate::study::LineMove;

    #[test]
    fn study_shape() {
        let position = Position::from_fen(Variant::INTERNATIONAL, "W:W32:B27").expect("FEN");
        let rules = DrawRules::new(DrawRuleSet::usual_for(position.variant()), position.variant());
        let report = StudyReport {
            position,
            counters: Counters::fresh(&rules, &position),
            verdict: Verdict { exact: Wld::Win, theoretical: Score::win(1), count: None, within: RuleScore::win(1) },
            keys: vec!["32x21".into()],
            line: vec![LineMove {
                number: "1.".into(),
                text: "32x21".into(),
                solver: true,
                duals: Vec::new(),
                result: Wld::Win,
                plies: Some(1),
            }],
            end: LineEnd::GameOver,
            faults: Vec::new(),
        };
        assert_shape(
            &study_json(&report),
            r#"{"fen": "W:W32:B27",
                "verdict": {"exact": "win", "theoretical": "win", "theoretical_plies": 1, "count": null,
                            "within_count_plies": 1, "rule_decides": false},
                "keys": ["32x21"],
                "main_line": [{"number": "1.", "move": "32x21", "solver": true, "duals": [], "result": "win",
                               "plies": 1}],
                "end": {"kind": "game_over"}, "sound": true, "faults": []}"#,
        );
        let cut = StudyReport { end: LineEnd::Cut(40), faults: vec!["2 key moves: a, b".into()], ..report.clone() };
        let json = study_json(&cut);
        assert_shape(&json["end"], r#"{"kind": "cut", "plies": 40}"#);
        assert_eq!((json["sound"].clone(), json["faults"].clone()), (json!(false), json!(["2 key moves: a, b"])));
        let expired = StudyReport { end: LineEnd::CountExpired("6.3"), ..report };
        assert_shape(&study_json(&expired)["end"], r#"{"kind": "count_expired", "article": "6.3"}"#);
    }
}
