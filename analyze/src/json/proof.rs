//! A proof search as users read it: the position's result, keys and cooks, every first
//! move with its outcome, main line and duals, the proof tree, and a published solution
//! checked against the proofs.

use serde_json::{json, Value};

use super::{color_word, count_json};
use crate::prove::{
    main_line, DisproofStep, DisproofTree, FirstMove, Outcome, PositionProof, ProofStep, ProofTree, Refutation,
    SolutionCheck,
};

/// A proof tree: `fen`, `plies`, and `move` with `next` (the solver's move), `defences`
/// (each defender move with the proof after it), `tables` (the leaf's exact verdict) or
/// `game_over`.
pub fn proof_tree_json(tree: &ProofTree) -> Value {
    let mut out = json!({ "fen": tree.position.fen(), "plies": tree.plies });
    match &tree.step {
        ProofStep::GameOver => out["game_over"] = json!(true),
        ProofStep::Table(v) => {
            out["tables"] = json!({
                "exact": v.exact.word(),
                "plies": v.within.decided().map(|(_, p)| p),
                "count": count_json(v.count),
            })
        }
        ProofStep::Move(mv, next) => {
            out["move"] = json!(tree.position.move_text(mv));
            out["next"] = proof_tree_json(next);
        }
        ProofStep::Replies(replies) => {
            out["defences"] = replies
                .iter()
                .map(|(mv, t)| json!({ "move": tree.position.move_text(mv), "proof": proof_tree_json(t) }))
                .collect();
        }
    }
    out
}

/// One first move: `move`, `nodes`, `outcome` (`win`, `not_win`, `unresolved`) and
/// what goes with it: a win's `plies`, `main_line`, `proof_positions` and `duals`; a
/// refutation; or the nodes searched without a win.
fn first_move_json(first: &FirstMove) -> Value {
    let mut out = json!({ "move": first.text, "nodes": first.nodes });
    match &first.outcome {
        Outcome::Win(tree) => {
            out["outcome"] = json!("win");
            out["plies"] = json!(tree.plies + 1);
            out["main_line"] = json!(std::iter::once(first.text.clone())
                .chain(main_line(tree).into_iter().map(|(m, _)| m))
                .collect::<Vec<_>>());
            out["proof_positions"] = json!(tree.size());
            out["duals"] = first
                .duals
                .iter()
                .map(|d| json!({"ply": d.ply, "played": d.played, "duals": d.duals, "unresolved": d.unresolved}))
                .collect();
        }
        Outcome::NotWin(r) => {
            out["outcome"] = json!("not_win");
            out["refutation"] = refutation_json(r);
            if let Some(d) = &first.defences {
                out["try"] = json!(d.is_try());
                out["forced"] = json!(d.forced());
                out["defences"] = json!({
                    "holding": d.holding.iter().map(refutation_json).collect::<Vec<_>>(),
                    "losing": d.losing,
                    "unresolved": d.unresolved,
                });
            }
        }
        Outcome::Unresolved { nodes, beyond } => {
            out["outcome"] = json!("unresolved");
            out["no_win_found_within_nodes"] = json!(nodes);
            out["beyond_tables"] =
                beyond.iter().map(|b| json!({ "material": b.material, "positions": b.positions })).collect::<Value>();
        }
    }
    out
}

/// A refutation: its `line` (defender first), how it `end`s, and the positions of its
/// disproof (replayed by the checker).
fn refutation_json(r: &Refutation) -> Value {
    json!({ "line": r.line, "end": r.end, "disproof_positions": r.disproof.size() })
}

/// A disproof tree: `fen`, and `defence` with `next` (the defender's move that holds),
/// `answers` (each move of the solver with the disproof after it), `tables` (the leaf's
/// exact verdict), `solver_has_no_move` or `drawn`.
pub fn disproof_tree_json(tree: &DisproofTree) -> Value {
    let mut out = json!({ "fen": tree.position.fen() });
    match &tree.step {
        DisproofStep::SolverHasNoMove => out["solver_has_no_move"] = json!(true),
        DisproofStep::Drawn => out["drawn"] = json!(true),
        DisproofStep::Table(v) => {
            out["tables"] = json!({
                "exact": v.exact.word(),
                "plies": v.within.decided().map(|(_, p)| p),
                "count": count_json(v.count),
            })
        }
        DisproofStep::Defence(mv, next) => {
            out["defence"] = json!(tree.position.move_text(mv));
            out["next"] = disproof_tree_json(next);
        }
        DisproofStep::Answers(answers) => {
            out["answers"] = answers
                .iter()
                .map(|(mv, t)| json!({ "move": tree.position.move_text(mv), "disproof": disproof_tree_json(t) }))
                .collect();
        }
    }
    out
}

/// The search without its proof tree: `fen`, `solver`, `result` (`win`, `not_win`,
/// `unresolved`), `keys`, `cooks` (keys after the first), every first move with its
/// outcome, the budget and the time taken (the answer of `kabe serve`'s prove and of
/// each composition of `kabe study --pdn --json`).
pub fn proof_summary_json(p: &PositionProof) -> Value {
    let keys: Vec<&str> = p.keys().map(|m| m.text.as_str()).collect();
    let result = match p.wins() {
        Some(true) => "win",
        Some(false) => "not_win",
        None => "unresolved",
    };
    json!({
        "fen": p.position.fen(),
        "solver": color_word(p.solver),
        "result": result,
        "keys": keys,
        "cooks": keys.iter().skip(1).collect::<Vec<_>>(),
        "tries": p.tries().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        "moves": p.moves.iter().map(first_move_json).collect::<Vec<_>>(),
        "budget": { "nodes_per_move": p.budget.nodes, "time_s": p.budget.time.map(|t| t.as_secs_f64()) },
        "elapsed_s": p.elapsed.as_secs_f64(),
        "checked": true,
    })
}

/// The search with the first key's (or the longest defence's) whole `proof` tree: what
/// `kabe study --json` writes beyond the tables and the Python package's `prove` returns.
pub fn proof_json(p: &PositionProof) -> Value {
    let mut out = proof_summary_json(p);
    out["proof"] = p
        .keys()
        .next()
        .or(p.longest_defence())
        .and_then(|k| match &k.outcome {
            Outcome::Win(tree) => Some(json!({ "move": k.text, "next": proof_tree_json(tree) })),
            _ => None,
        })
        .unwrap_or(Value::Null);
    // Each try's whole disproof: the refutation a composer checks, move by move.
    out["try_disproofs"] = p
        .tries()
        .filter_map(|t| match &t.outcome {
            Outcome::NotWin(r) => Some(json!({ "move": t.text, "next": disproof_tree_json(&r.disproof) })),
            _ => None,
        })
        .collect();
    out
}

/// A published solution checked: `published_key`, `key_proved`, `holds`, `faults`,
/// `remarks`, `plies_checked`.
pub fn solution_json(check: &SolutionCheck) -> Value {
    json!({
        "published_key": check.published_key,
        "key_proved": check.key_proved,
        "holds": check.holds(),
        "faults": check.faults,
        "remarks": check.remarks,
        "plies_checked": check.plies_checked,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use kabe_probe::rules::exact::Verdict;
    use kabe_probe::{Color, Counters, DrawRuleSet, DrawRules, Position, RuleScore, Score, Variant, Wld};

    use super::*;
    use crate::json::snapshot::assert_shape;
    use crate::prove::{Budget, Defences, Dual, Refutation};

    /// White's 32-28 against a man on 23: the capture 23x32 is Black's only defence, and
    /// the tables call the rest a win.
    fn proof() -> PositionProof {
        let position = Position::from_fen(Variant::INTERNATIONAL, "W:W32,38:B23").expect("FEN");
        let rules = DrawRules::new(DrawRuleSet::usual_for(position.variant()), position.variant());
        let counters = Counters::fresh(&rules, &position);
        let moves: Vec<_> = position.legal_moves().iter().copied().collect();
        let key = moves.iter().copied().find(|m| position.move_text(m) == "32-28").expect("32-28");
        let after = position.play(&key);
        let after_counters = counters.after(&key, &after);
        let tables = Verdict { exact: Wld::Loss, theoretical: Score::loss(4), count: None, within: RuleScore::loss(4) };
        let tree = ProofTree { position: after, counters: after_counters, plies: 4, step: ProofStep::Table(tables) };
        let first = |mv, outcome, duals| FirstMove {
            mv,
            text: position.move_text(&mv),
            outcome,
            nodes: 7,
            duals,
            defences: None,
        };
        let mut found = vec![first(
            key,
            Outcome::Win(tree),
            vec![Dual { ply: 2, played: "38-33".into(), duals: vec!["38-32".into()], unresolved: Vec::new() }],
        )];
        for mv in moves.iter().copied().filter(|m| *m != key) {
            let mut first = first(mv, Outcome::Unresolved { nodes: 7, beyond: Vec::new() }, Vec::new());
            if position.move_text(&mv) == "32-27" {
                // The shape only: no checker runs here, and the end is made up.
                let after = position.play(&mv);
                let defence = after.legal_moves()[0];
                let played = after.play(&defence);
                let end = DisproofTree { position: played, counters, step: DisproofStep::Drawn };
                let disproof =
                    DisproofTree { position: after, counters, step: DisproofStep::Defence(defence, Box::new(end)) };
                let refutation = Refutation { line: vec!["23-28".into()], end: "drawn by material".into(), disproof };
                let defences =
                    Defences { holding: vec![refutation.clone()], losing: vec!["23-29".into()], unresolved: vec![] };
                first.defences = Some(defences);
                first.outcome = Outcome::NotWin(refutation);
            }
            found.push(first);
        }
        found.sort_by_key(|m| m.text.clone());
        PositionProof {
            position,
            solver: Color::White,
            counters,
            moves: found,
            budget: Budget { nodes: 7, time: Some(Duration::from_secs(2)) },
            elapsed: Duration::from_millis(250),
        }
    }

    #[test]
    fn proof_shape() {
        assert_shape(
            &proof_json(&proof()),
            r#"{"fen": "W:W32,38:B23", "solver": "white", "result": "win", "keys": ["32-28"], "cooks": [],
                "tries": ["32-27"],
                "moves": [
                  {"move": "32-27", "nodes": 7, "outcome": "not_win",
                   "refutation": {"line": ["23-28"], "end": "drawn by material", "disproof_positions": 2},
                   "try": true, "forced": false,
                   "defences": {"holding": [{"line": ["23-28"], "end": "drawn by material", "disproof_positions": 2}],
                                "losing": ["23-29"], "unresolved": []}},
                  {"move": "32-28", "nodes": 7, "outcome": "win", "plies": 5, "main_line": ["32-28"],
                   "proof_positions": 1,
                   "duals": [{"ply": 2, "played": "38-33", "duals": ["38-32"], "unresolved": []}]},
                  {"move": "38-33", "nodes": 7, "outcome": "unresolved", "no_win_found_within_nodes": 7,
                   "beyond_tables": []}
                ],
                "budget": {"nodes_per_move": 7, "time_s": 2.0}, "elapsed_s": 0.25, "checked": true,
                "proof": {"move": "32-28", "next": {"fen": "B:W28,38:B23", "plies": 4,
                          "tables": {"exact": "loss", "plies": 4, "count": null}}},
                "try_disproofs": [{"move": "32-27", "next": {"fen": "B:W27,38:B23", "defence": "23-28",
                                   "next": {"fen": "W:W27,38:B28", "drawn": true}}}]}"#,
        );
        let summary = proof_summary_json(&proof());
        assert!(summary.get("proof").is_none(), "{summary}");
    }

    #[test]
    fn solution_shape() {
        let check = SolutionCheck {
            published_key: Some("32-28".into()),
            key_proved: true,
            faults: Vec::new(),
            remarks: vec!["2. 38-33: wins too (the proof plays 38-32)".into()],
            plies_checked: 3,
        };
        assert_shape(
            &solution_json(&check),
            r#"{"published_key": "32-28", "key_proved": true, "holds": true, "faults": [],
                "remarks": ["2. 38-33: wins too (the proof plays 38-32)"], "plies_checked": 3}"#,
        );
    }
}
