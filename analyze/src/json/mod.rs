//! The presentation layer: every JSON shape a user reads, defined once for every front
//! end. `kabe probe --json`, `kabe study --json`, `kabe analyze --format json`, the API of
//! `kabe serve` and the Python package's `to_dict`, `prove` and analysis records write
//! these shapes; a result's word is [`Wld::word`](kabe_probe::Wld::word) (in the rules
//! crate, where the C interface's messages and every text reach it too).
//!
//! - this file: a side's word, a count, a verdict, a move, a line of best play and how
//!   it ends;
//! - `study.rs`: the study checker's report;
//! - `proof.rs`: a proof search, its first moves and proof tree, and a checked published
//!   solution;
//! - `report.rs`: the games and summary of `kabe analyze --format json`
//!   (`analyze/JSON.md`).
//!
//! Each shape has a snapshot test beside it: a change of shape is a deliberate change of
//! what users read.

mod proof;
mod report;
mod study;

pub use proof::{disproof_tree_json, proof_json, proof_summary_json, proof_tree_json, solution_json};
pub use report::{game_json, summary_json};
pub use study::study_json;

use kabe_probe::rules::exact::{LineEnd, MoveVerdict, Verdict};
use kabe_probe::{Color, Position};
use serde_json::{json, Value};

/// `white` or `black`.
pub fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The count that governs a position: `{"article", "plies_left"}`, or null.
pub fn count_json(count: Option<(&str, u16)>) -> Value {
    count.map_or(Value::Null, |(article, left)| json!({"article": article, "plies_left": left}))
}

/// A verdict: exact result, theoretical result and distance, the governing count, the
/// distance within it, and whether the count is what decides.
pub fn verdict_json(v: &Verdict) -> Value {
    json!({
        "exact": v.exact.word(),
        "theoretical": v.theoretical.wld().word(),
        "theoretical_plies": v.theoretical.plies(),
        "count": count_json(v.count),
        "within_count_plies": v.within.decided().map(|(_, p)| p),
        "rule_decides": v.rule_decides(),
    })
}

/// A move of `position` with its exact result for the mover and the distances after it.
pub fn move_json(position: &Position, m: &MoveVerdict) -> Value {
    json!({
        "move": position.move_text(&m.mv),
        "exact": m.exact.word(),
        "theoretical_plies_after": m.child.theoretical.plies(),
        "within_count_plies_after": m.child.within.decided().map(|(_, p)| p),
    })
}

/// The moves of a line of best play from `start`: each move with its exact result for
/// the mover and the position and counts after it.
pub fn line_json(start: &Position, line: &[MoveVerdict]) -> Value {
    line.iter()
        .scan(*start, |before, next| {
            let m = json!({
                "move": before.move_text(&next.mv),
                "exact": next.exact.word(),
                "fen_after": next.position.fen(),
                "counters_after": next.counters.describe_at(&next.position),
            });
            *before = next.position;
            Some(m)
        })
        .collect()
}

/// How a line of best play of at most `max_plies` ends, in words: `game over`, `drawn by
/// ARTICLE`, or `draw (line cut after N plies)`.
pub fn line_end_text(end: LineEnd, max_plies: usize) -> String {
    match end {
        LineEnd::GameOver => "game over".to_string(),
        LineEnd::CountExpired(article) => format!("drawn by {article}"),
        LineEnd::Unbounded => format!("draw (line cut after {})", kabe_probe::notation::plies(max_plies as u64)),
    }
}

#[cfg(test)]
pub(crate) mod snapshot {
    use serde_json::Value;

    /// `value` written as compact JSON equals `expected`, with the difference shown.
    #[track_caller]
    pub fn assert_shape(value: &Value, expected: &str) {
        let expected: Value = serde_json::from_str(expected).expect("the expected snapshot is JSON");
        assert!(
            value == &expected,
            "the shape changed\nwritten:  {}\nexpected: {}",
            serde_json::to_string(value).expect("JSON"),
            serde_json::to_string(&expected).expect("JSON")
        );
    }
}

#[cfg(test)]
mod tests {
    use kabe_probe::rules::exact;
    use kabe_probe::{Counters, DrawRuleSet, DrawRules, RuleScore, Score, Variant, Wld};

    use super::snapshot::assert_shape;
    use super::*;

    fn position(fen: &str) -> Position {
        Position::from_fen(Variant::INTERNATIONAL, fen).expect("FEN")
    }

    /// Three kings against one with 2 plies left on FMJD 6.3: won in 3 in theory, drawn
    /// by the count.
    fn drawn_by_count() -> Verdict {
        Verdict { exact: Wld::Draw, theoretical: Score::win(3), count: Some(("6.3", 2)), within: RuleScore::win(3) }
    }

    #[test]
    fn the_words() {
        assert_eq!([Wld::Win, Wld::Draw, Wld::Loss].map(Wld::word), ["win", "draw", "loss"]);
        assert_eq!([Color::White, Color::Black].map(color_word), ["white", "black"]);
    }

    #[test]
    fn verdict_shape() {
        assert_shape(
            &verdict_json(&drawn_by_count()),
            r#"{"exact": "draw", "theoretical": "win", "theoretical_plies": 3,
                "count": {"article": "6.3", "plies_left": 2}, "within_count_plies": 3, "rule_decides": true}"#,
        );
        let drawn = Verdict { exact: Wld::Draw, theoretical: Score::DRAW, count: None, within: RuleScore::NONE };
        assert_shape(
            &verdict_json(&drawn),
            r#"{"exact": "draw", "theoretical": "draw", "theoretical_plies": null, "count": null,
                "within_count_plies": null, "rule_decides": false}"#,
        );
    }

    /// The one move of a man against a man, with the verdict after it.
    fn only_move(start: &Position) -> MoveVerdict {
        let rules = DrawRules::new(DrawRuleSet::usual_for(start.variant()), start.variant());
        let mv = start.legal_moves().iter().copied().next().expect("a move");
        let after = start.play(&mv);
        let counters = Counters::fresh(&rules, start).after(&mv, &after);
        let child = Verdict { exact: Wld::Loss, theoretical: Score::loss(0), count: None, within: RuleScore::loss(0) };
        exact::MoveVerdict { mv, position: after, counters, exact: Wld::Win, child }
    }

    #[test]
    fn move_shape() {
        let start = position("W:W32:B27");
        assert_shape(
            &move_json(&start, &only_move(&start)),
            r#"{"move": "32x21", "exact": "win", "theoretical_plies_after": 0, "within_count_plies_after": 0}"#,
        );
    }

    #[test]
    fn line_shape() {
        let start = position("W:W32:B27");
        assert_shape(
            &line_json(&start, &[only_move(&start)]),
            r#"[{"move": "32x21", "exact": "win", "fen_after": "B:W21:B", "counters_after": "6.2=0"}]"#,
        );
        assert_eq!(line_end_text(LineEnd::GameOver, 120), "game over");
        assert_eq!(line_end_text(LineEnd::CountExpired("6.3"), 120), "drawn by 6.3");
        assert_eq!(line_end_text(LineEnd::Unbounded, 120), "draw (line cut after 120 plies)");
    }
}
