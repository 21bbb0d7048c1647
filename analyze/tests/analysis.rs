//! Annotation, reports and the study checker on real tables (international and Russian
//! up to 4 pieces, built once into the target directory and reused).

use crate::common;

use std::path::{Path, PathBuf};

use common::{shared_tables, tables_dir};

use kabe_analyze::annotate::annotate;
use kabe_analyze::repetition::RepetitionEffect;
use kabe_analyze::report::{report, Format};
use kabe_analyze::study::check_study;
use kabe_analyze::{replay, Analyzer, GameOutcome, PdnGame, PdnReader, Reach, Summary};
use kabe_generator::build;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Color, Counters, Position, Signature, Variant, Wld};

fn tables() -> Tablebase {
    Tablebase::open(tables_dir()).expect("open")
}

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("data").join(path)
}

fn read_games(text: &str) -> Vec<PdnGame> {
    PdnReader::new(text.as_bytes()).map(|g| g.expect("read")).collect()
}

/// Analyses one PDN text; returns the outcomes.
fn analyse_text(tb: &Tablebase, text: &str) -> Vec<GameOutcome> {
    let analyzer = Analyzer::new(tb, None, Reach { pieces: None });
    read_games(text).iter().map(|g| analyzer.game("test.pdn", g).expect("tables fine")).collect()
}

fn analysed(outcome: &GameOutcome) -> (&kabe_analyze::Replay, &kabe_analyze::GameAnnotation) {
    match outcome {
        GameOutcome::Analysed { replay, annotation } => (replay, annotation),
        other => panic!("not analysed: {other:?}"),
    }
}

#[test]
fn bundled_games_reach_the_tables_and_end_as_their_results_say() {
    let tb = tables();
    for file in ["games/international.pdn", "games/russian.pdn", "studies/problems.pdn", "studies/studies.pdn"] {
        let path = data(file);
        let analyzer = Analyzer::new(&tb, None, Reach { pieces: None });
        let mut summary = Summary::default();
        let mut games = 0;
        analyzer
            .file(&path, &mut summary, &mut |_, game, outcome| {
                games += 1;
                let (replay, annotation) = analysed(outcome);
                assert!(annotation.missing.is_empty(), "{file} game {}: missing {:?}", game.number, annotation.missing);
                if file.starts_with("studies/") {
                    // A published solution throws nothing away.
                    assert_eq!(annotation.errors().count(), 0, "{file} game {}", game.number);
                }
                if annotation.ended.is_some_and(|e| e.repetition) {
                    return Ok(()); // drawn by repetition before the tables
                }
                let last = annotation
                    .positions
                    .last()
                    .unwrap_or_else(|| panic!("{file} game {}: no table position", game.number));
                // The last position of the game is in the tables, and its verdict is the result
                // the players agreed (these games were played out or resigned correctly).
                assert_eq!(last.ply, replay.moves.len(), "{file} game {}", game.number);
                let winner = match last.exact {
                    Wld::Win => Some(last.position.turn()),
                    Wld::Loss => Some(last.position.turn().opposite()),
                    Wld::Draw => None,
                };
                let expected = match game.result.as_deref() {
                    Some("2-0" | "1-0") => Some(Color::White),
                    Some("0-2" | "0-1") => Some(Color::Black),
                    _ => None,
                };
                assert_eq!(
                    winner,
                    expected,
                    "{file} game {} ({}): last position {}",
                    game.number,
                    game.players(),
                    last.position.fen()
                );
                Ok(())
            })
            .expect("analyse");
        assert_eq!((summary.read, summary.failed, games), (summary.analysed, 0, summary.read), "{file}");
        assert!(summary.positions >= 3 * summary.read, "{file}: {summary:?}");
    }
}

/// A position of `signature` (side to move `turn`) that satisfies `want`, scanning the
/// index in order.
fn find(variant: Variant, signature: Signature, want: impl Fn(&Position) -> bool) -> Position {
    let index = MaterialIndex::new(variant, signature).expect("index");
    let found = index.positions(0..index.len()).find(|p| want(p));
    found.expect("such a position exists")
}

fn pdn_from(position: &Position, moves: &[String]) -> String {
    let game_type = position.variant().pdn_game_type.expect("a PDN game");
    let mut text = format!("[GameType \"{game_type}\"]\n[FEN \"{}\"]\n\n", position.fen());
    let black_first = position.turn() == Color::Black;
    for (ply, mv) in moves.iter().enumerate() {
        let n = (ply + usize::from(black_first)) / 2 + 1;
        if (ply + usize::from(black_first)) % 2 == 0 {
            text.push_str(&format!("{n}. "));
        } else if ply == 0 {
            text.push_str(&format!("{n}... "));
        }
        text.push_str(mv);
        text.push(' ');
    }
    text.push_str("*\n");
    text
}

#[test]
fn a_thrown_win_is_flagged_with_the_best_alternative() {
    let tb = tables();
    let rules = *tb.draw_rules(&Variant::RUSSIAN).expect("open");
    // Two kings and a man against a king, a win with a move that only draws.
    let position = find(Variant::RUSSIAN, Signature::new(1, 2, 0, 1), |p| {
        let counters = Counters::fresh(&rules, p);
        p.turn() == Color::White
            && !p.has_capture()
            && tb.probe(p, &counters).is_ok_and(|v| v.exact == Wld::Win)
            && p.legal_moves().iter().any(|m| {
                let child = p.play(m);
                tb.probe(&child, &counters.after(m, &child)).is_ok_and(|v| v.exact == Wld::Draw)
            })
    });
    let counters = Counters::fresh(&rules, &position);
    let drawing = position
        .legal_moves()
        .iter()
        .copied()
        .find(|m| {
            let child = position.play(m);
            tb.probe(&child, &counters.after(m, &child)).is_ok_and(|v| v.exact == Wld::Draw)
        })
        .expect("found above");
    let text = pdn_from(&position, &[position.move_text(&drawing)]);
    let outcomes = analyse_text(&tb, &text);
    let (_, annotation) = analysed(&outcomes[0]);
    let first = &annotation.positions[0];
    assert_eq!(first.exact, Wld::Win);
    let played = first.played.as_ref().expect("a move");
    let error = played.error.as_ref().expect("flagged");
    assert_eq!((error.from, error.to, played.result), (Wld::Win, Wld::Draw, Wld::Draw));
    let best = &tb.best_moves(&position, &counters).expect("probe")[0];
    assert_eq!(error.best, position.move_text(&best.mv));
    assert_eq!(error.best_win_plies, best.child.theoretical.plies().map(|p| p + 1));
    assert_eq!(annotation.errors().count(), 1);
    // The best move itself is not flagged.
    let outcomes = analyse_text(&tb, &pdn_from(&position, &[position.move_text(&best.mv)]));
    assert_eq!(analysed(&outcomes[0]).1.errors().count(), 0);
}

#[test]
fn the_6_3_count_turns_a_slow_win_into_a_draw_and_ends_the_game() {
    let tb = tables();
    let rules = *tb.draw_rules(&Variant::INTERNATIONAL).expect("open");
    // King and two men against king (FMJD 6.3: drawn after 16 moves each), a long win.
    // White plays the slowest moves that keep the theoretical win, Black the best defence,
    // no position a third time, until the count ends the game.
    let start = find(Variant::INTERNATIONAL, Signature::new(2, 1, 0, 1), |p| {
        p.turn() == Color::White
            && tb
                .probe(p, &Counters::fresh(&rules, p))
                .is_ok_and(|v| v.exact == Wld::Win && v.theoretical.plies() >= Some(21))
    });
    let (mut position, mut counters) = (start, Counters::fresh(&rules, &start));
    let mut seen = std::collections::HashMap::from([(position, 1)]);
    let mut texts = Vec::new();
    while counters.governing(&position).is_some_and(|(_, left)| left > 0) && !position.is_lost() {
        let pick = if position.turn() == Color::White {
            let mut slow: Vec<_> = position
                .legal_moves()
                .iter()
                .map(|m| {
                    let child = position.play(m);
                    let after = counters.after(m, &child);
                    (*m, child, after, tb.probe(&child, &after).expect("probe"))
                })
                .filter(|(_, child, _, _)| seen.get(child).copied().unwrap_or(0) < 2)
                .collect();
            // Theoretical wins last, the slowest of them at the very end.
            slow.sort_by_key(|(_, _, _, v)| (v.theoretical.wld() == Wld::Loss, v.theoretical.plies()));
            slow.last().map(|(m, child, after, _)| (*m, *child, *after))
        } else {
            let best = tb.best_moves(&position, &counters).expect("probe");
            let fresh = best.iter().find(|b| seen.get(&b.position).copied().unwrap_or(0) < 2);
            fresh.map(|b| (b.mv, b.position, b.counters))
        };
        let Some((m, child, after)) = pick else { panic!("no move at {} after {texts:?}", position.fen()) };
        texts.push(position.move_text(&m));
        *seen.entry(child).or_insert(0) += 1;
        (position, counters) = (child, after);
    }
    let outcomes = analyse_text(&tb, &pdn_from(&start, &texts));
    let (replay, annotation) = analysed(&outcomes[0]);
    assert_eq!(replay.moves.len(), 32, "{texts:?}");
    // Once the count decides, the position is drawn though White wins in theory.
    let decided: Vec<_> = annotation.positions.iter().filter(|n| n.verdict.rule_decides()).collect();
    assert!(!decided.is_empty());
    for n in &decided {
        let theory_for_white = if n.position.turn() == Color::White { Wld::Win } else { Wld::Loss };
        assert_eq!(
            (n.exact, n.verdict.theoretical.wld(), n.verdict.count.map(|c| c.0)),
            (Wld::Draw, theory_for_white, Some("6.3"))
        );
    }
    // The one move that let the win slip is White's, flagged win to draw, and the best
    // move there still wins within the count.
    let thrown: Vec<_> = annotation.errors().collect();
    assert_eq!(thrown.len(), 1, "{texts:?}");
    let error = thrown[0].played.as_ref().and_then(|m| m.error.as_ref()).expect("error");
    assert_eq!((thrown[0].position.turn(), error.from, error.to), (Color::White, Wld::Win, Wld::Draw));
    let best = &tb.best_moves(&thrown[0].position, &thrown[0].counters).expect("probe")[0];
    assert_eq!((error.best.as_str(), best.exact), (thrown[0].position.move_text(&best.mv).as_str(), Wld::Win));
    // The count ran out after 32 plies: drawn by 6.3, with the moves after it unanalysed.
    let end = annotation.ended.expect("ended by the count");
    assert_eq!((end.article, end.ply, end.repetition), ("6.3", 32, false));
}

#[test]
fn a_third_repetition_draws_and_the_move_allowing_it_is_flagged() {
    let tb = tables();
    let rules = *tb.draw_rules(&Variant::INTERNATIONAL).expect("open");
    // Q: three kings against one, White to move and winning for long enough; White shuffles
    // a king out and back, Black too, three times round.
    let cycle = |q: &Position| -> Option<[kabe_probe::Move; 4]> {
        let a = *q.legal_moves().iter().find(|m| !m.is_capture())?;
        let p1 = q.play(&a);
        let b = *p1.legal_moves().iter().find(|m| !m.is_capture())?;
        let p2 = p1.play(&b);
        let back_a = *p2.legal_moves().iter().find(|m| !m.is_capture() && m.from() == a.to() && m.to() == a.from())?;
        let p3 = p2.play(&back_a);
        let back_b = *p3.legal_moves().iter().find(|m| !m.is_capture() && m.from() == b.to() && m.to() == b.from())?;
        (p3.play(&back_b) == *q).then_some([a, b, back_a, back_b])
    };
    let q = find(Variant::INTERNATIONAL, Signature::new(0, 3, 0, 1), |p| {
        if p.turn() != Color::White || p.has_capture() {
            return false;
        }
        let Some(moves) = cycle(p) else { return false };
        // White still wins (under the counts) at every position of two rounds.
        let (mut here, mut counters) = (*p, Counters::fresh(&rules, p));
        for m in moves.iter().chain(moves.iter()) {
            let Ok(v) = tb.probe(&here, &counters) else { return false };
            let white_wins = (v.exact == Wld::Win) == (here.turn() == Color::White) && v.exact != Wld::Draw;
            if !white_wins || here.has_capture() {
                return false;
            }
            let next = here.play(m);
            counters = counters.after(m, &next);
            here = next;
        }
        true
    });
    let moves = cycle(&q).expect("found");
    let texts: Vec<String> = {
        let mut here = q;
        let mut out = Vec::new();
        for m in moves.iter().chain(moves.iter()) {
            out.push(here.move_text(m));
            here = here.play(m);
        }
        out
    };
    let outcomes = analyse_text(&tb, &pdn_from(&q, &texts));
    let (_, annotation) = analysed(&outcomes[0]);
    // Q stands for the third time after 8 plies: drawn by 6.1.
    let end = annotation.ended.expect("repetition");
    assert_eq!((end.article, end.ply, end.repetition), ("6.1", 8, true));
    // At ply 7 Black, lost by the tables, draws by going back to Q a third time.
    let seventh = annotation.positions.iter().find(|n| n.ply == 7).expect("annotated");
    assert_eq!(
        (seventh.verdict.exact, seventh.exact, seventh.repetition),
        (Wld::Loss, Wld::Draw, Some(RepetitionEffect::Draws))
    );
    assert_eq!(seventh.occurrences, 2);
    // White's move at ply 6 allowed it: flagged win to draw, with a move that keeps the win.
    let sixth = annotation.positions.iter().find(|n| n.ply == 6).expect("annotated");
    let error = sixth.played.as_ref().and_then(|m| m.error.as_ref()).expect("flagged");
    assert_eq!((error.from, error.to), (Wld::Win, Wld::Draw));
    assert_ne!(error.best, texts[6]);
    // Nothing before ply 6 is flagged: every earlier position could still be left.
    assert!(annotation.positions.iter().filter(|n| n.ply < 6).all(|n| n.exact == n.verdict.exact));
}

#[test]
fn pdn_output_reads_back_to_the_same_games() {
    let tb = tables();
    // The player's comments, variations, NAGs and marks come back as written.
    let folder = tempfile::Builder::new().prefix("kabe-annotated-").tempdir().expect("temp dir");
    let annotated = folder.path().join("annotated.pdn");
    std::fs::write(
        &annotated,
        "[Event \"annotated\"]\n[GameType \"20\"]\n{Before the first move} 1. 32-28 {a comment\nover two lines} \
         19-23! (18-23 38-32 (37-32? 23-29!) ; a line comment\n12-18) 2. 28x19 $14 14x23?! 3. 33-29 ; at the end\n2-0\n",
    )
    .expect("write");
    for file in [
        "games/international.pdn",
        "games/russian.pdn",
        "games/russian-rules.pdn",
        "studies/problems.pdn",
        "studies/studies.pdn",
        annotated.to_str().expect("utf-8"),
    ] {
        let original = std::fs::read_to_string(data(file)).expect("read");
        let games = read_games(&original);
        let analyzer = Analyzer::new(&tb, None, Reach { pieces: None });
        let mut out = Vec::new();
        {
            let mut pdn = report(Format::Pdn, Box::new(&mut out));
            let mut summary = Summary::default();
            analyzer.file(&data(file), &mut summary, &mut |f, g, o| pdn.game(f, g, o)).expect("analyse");
            pdn.finish(&summary).expect("write");
        }
        let written = String::from_utf8(out).expect("utf-8");
        assert!(written.contains("{kabe:"), "{file}: no annotation written");
        let again = read_games(&written);
        assert_eq!(again.len(), games.len(), "{file}");
        for (a, b) in games.iter().zip(&again) {
            assert_eq!(a.tags, b.tags, "{file} game {}", a.number);
            assert_eq!(a.setup, b.setup);
            assert_eq!(a.result, b.result);
            let texts = |g: &PdnGame| g.moves.iter().map(|m| m.text.clone()).collect::<Vec<_>>();
            assert_eq!(texts(a), texts(b), "{file} game {}", a.number);
            assert!(b.errors.is_empty(), "{:?}", b.errors);
            // What the game said besides its moves comes first, then kabe's comments.
            let own = |pieces: &[String], n: usize| pieces[..n.min(pieces.len())].to_vec();
            assert_eq!(a.preamble, own(&b.preamble, a.preamble.len()), "{file} game {}", a.number);
            for (m, n) in a.moves.iter().zip(&b.moves) {
                assert_eq!(m.after, own(&n.after, m.after.len()), "{file} game {} move {}", a.number, m.text);
                assert!(m.marks.is_empty() || m.marks == n.marks, "{file} game {} move {}", a.number, m.text);
            }
        }
    }
    let again = read_games(&std::fs::read_to_string(&annotated).expect("read"));
    let pieces: Vec<&String> = again[0].preamble.iter().chain(again[0].moves.iter().flat_map(|m| &m.after)).collect();
    assert_eq!(
        pieces,
        [
            "{Before the first move}",
            "{a comment over two lines}",
            "(18-23 38-32 (37-32? 23-29!) {a line comment} 12-18)",
            "$14",
            "{at the end}"
        ]
    );
    std::fs::remove_file(&annotated).ok();
}

#[test]
fn json_output_follows_the_documented_schema() {
    let tb = tables();
    let analyzer = Analyzer::new(&tb, None, Reach { pieces: None });
    let mut out = Vec::new();
    let mut summary = Summary::default();
    {
        let mut json = report(Format::Json, Box::new(&mut out));
        for file in ["games/international.pdn", "games/russian.pdn"] {
            analyzer.file(&data(file), &mut summary, &mut |f, g, o| json.game(f, g, o)).expect("analyse");
        }
        json.finish(&summary).expect("write");
    }
    let doc: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
    assert_eq!(doc["schema"], "kabe-analysis/1");
    let games = doc["games"].as_array().expect("games");
    assert_eq!(games.len(), summary.read);
    assert_eq!(doc["summary"]["read"], summary.read);
    assert_eq!(doc["summary"]["positions"], summary.positions);
    let schema = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("JSON.md")).expect("schema doc");
    for game in games {
        for key in game.as_object().expect("object").keys() {
            assert!(schema.contains(&format!("`{key}`")), "game field {key} is not documented in analyze/JSON.md");
        }
        for position in game["positions"].as_array().into_iter().flatten() {
            for key in position.as_object().expect("object").keys() {
                assert!(schema.contains(&format!("`{key}`")), "position field {key} is not documented");
            }
            let exact = &position["exact"];
            assert!(["win", "draw", "loss"].contains(&exact["result"].as_str().expect("result")));
            assert!(position["fen"].as_str().is_some_and(|f| f.contains(':')));
        }
    }
}

#[test]
fn the_study_checker_finds_the_only_key_move_or_names_every_one() {
    let tb = tables();
    let rules = *tb.draw_rules(&Variant::RUSSIAN).expect("open");
    // A win with exactly one winning move, found through the probe of every move (not the
    // checker's own ranking).
    let winning = |p: &Position| -> Vec<String> {
        let counters = Counters::fresh(&rules, p);
        p.legal_moves()
            .iter()
            .filter(|m| {
                let child = p.play(m);
                tb.probe(&child, &counters.after(m, &child)).is_ok_and(|v| v.exact == Wld::Loss)
            })
            .map(|m| p.move_text(m))
            .collect()
    };
    let sound_candidate = find(Variant::RUSSIAN, Signature::new(1, 2, 0, 1), |p| {
        p.turn() == Color::White && p.legal_moves().len() > 3 && winning(p).len() == 1
    });
    let found = check_study(&tb, &sound_candidate, &Counters::fresh(&rules, &sound_candidate)).expect("check");
    assert_eq!(found.verdict.exact, Wld::Win);
    assert_eq!(found.keys, winning(&sound_candidate));
    assert_eq!(found.line[0].text, found.keys[0]);
    // Every solver move of the main line keeps the win, and duals are exactly the other
    // winning moves there.
    let mut here = sound_candidate;
    for m in &found.line {
        if m.solver {
            let mut all = winning(&here);
            all.retain(|t| *t != m.text);
            if std::ptr::eq(m, &found.line[0]) {
                assert!(all.is_empty());
            } else {
                let mut duals = m.duals.clone();
                duals.sort();
                all.sort();
                assert_eq!(duals, all, "at {}", m.number);
            }
        }
        here = here.play(&here.parse_move(&m.text).expect("legal"));
    }
    assert_eq!(found.is_sound(), found.line.iter().all(|m| m.duals.is_empty()));
    // Two kings against two men: many winning moves, so not sound, and every one named.
    let p = Position::from_fen(Variant::INTERNATIONAL, "W:WK2,K5:B12,22").expect("fen");
    let rules = *tb.draw_rules(&Variant::INTERNATIONAL).expect("open");
    let found = check_study(&tb, &p, &Counters::fresh(&rules, &p)).expect("check");
    assert!(!found.is_sound());
    assert!(found.keys.len() > 1 && found.faults[0].contains("key moves"), "{:?}", found.faults);
    // A draw study: the only move that holds the draw is the key; the line runs until the
    // count ends it (or is cut).
    let rules = *tb.draw_rules(&Variant::RUSSIAN).expect("open");
    let results = |p: &Position| -> Vec<(String, Wld)> {
        let counters = Counters::fresh(&rules, p);
        p.legal_moves()
            .iter()
            .map(|m| {
                let child = p.play(m);
                let v = tb.probe(&child, &counters.after(m, &child)).expect("probe");
                (p.move_text(m), v.exact)
            })
            .collect()
    };
    let draw_study = find(Variant::RUSSIAN, Signature::new(0, 1, 0, 2), |p| {
        let r = results(p);
        r.len() > 2 && r.iter().filter(|(_, w)| *w == Wld::Draw).count() == 1 && r.iter().all(|(_, w)| *w != Wld::Loss)
    });
    let found = check_study(&tb, &draw_study, &Counters::fresh(&rules, &draw_study)).expect("check");
    let holding: Vec<String> =
        results(&draw_study).into_iter().filter(|(_, w)| *w == Wld::Draw).map(|(m, _)| m).collect();
    assert_eq!((found.verdict.exact, &found.keys), (Wld::Draw, &holding));
    assert!(matches!(found.end, kabe_analyze::study::LineEnd::CountExpired(_) | kabe_analyze::study::LineEnd::Cut(_)));
    // A lost position is no study.
    let lost = Position::from_fen(Variant::RUSSIAN, "B:WKa1,Kc1:BKh8").expect("fen");
    let found = check_study(&tb, &lost, &Counters::fresh(tb.draw_rules(&Variant::RUSSIAN).expect("open"), &lost))
        .expect("check");
    assert!(!found.is_sound() && found.keys.is_empty());
}

#[test]
fn games_without_their_tables_are_named_once_and_the_analysis_goes_on() {
    // Only 3-piece tables: 4-piece positions of the bundled games are missing, by name.
    let dir = shared_tables("analyze-tables-3", |dir| kabe_generator::build_small_tables(dir).expect("build"));
    let tb = Tablebase::open(&dir).expect("open");
    let analyzer = Analyzer::new(&tb, None, Reach { pieces: Some(4) });
    let mut summary = Summary::default();
    analyzer.file(&data("games/international.pdn"), &mut summary, &mut |_, _, _| Ok(())).expect("analyse");
    assert!(!summary.missing.is_empty());
    assert!(summary.missing.iter().all(|(v, sig)| v == "international" && sig.len() == 4));
    assert_eq!(summary.failed, 0);
    // A game that cannot be replayed is counted, and the next one is analysed.
    let text = "[GameType \"20\"]\n1. 32-28 28-22 *\n\n[GameType \"20\"]\n1. 32-28 19-23 *\n";
    let outcomes = analyse_text(&tb, text);
    assert!(matches!(outcomes[0], GameOutcome::Failed(_)));
    assert!(matches!(outcomes[1], GameOutcome::Analysed { .. }));
    let replayed = replay("t.pdn", &read_games(text)[1], None).expect("legal");
    let annotation = annotate(&tb, &replayed, &[], Reach { pieces: None }).expect("annotate");
    assert!(annotation.positions.is_empty());
}

#[test]
fn giveaway_games_are_won_by_giving_every_piece_away() {
    let dir =
        shared_tables("analyze-giveaway-3", |dir| build(Variant::GIVEAWAY, 3, dir, &|_| {}).map(drop).expect("build"));
    let tb = Tablebase::open(&dir).expect("open");
    // White's king gives itself up on g7 and wins; a1-b2 throws the win away. The
    // Variant tag names the game (GameType 20 alone would be international).
    let text = "[Variant \"giveaway\"]\n[FEN \"W:WKa1:Bf8,h8\"]\n1. a1-g7 f8xh6 1-0\n\n\
                [Variant \"giveaway\"]\n[FEN \"W:WKa1:Bf8,h8\"]\n1. a1-b2 *\n";
    let outcomes = analyse_text(&tb, text);
    let (replay, annotation) = analysed(&outcomes[0]);
    assert_eq!(replay.variant.name, "giveaway");
    assert_eq!(annotation.errors().count(), 0);
    let first = &annotation.positions[0];
    assert_eq!(first.exact, Wld::Win, "{first:?}");
    // After f8xh6 White has no piece left: the game is over, and White has won.
    let end = replay.moves.iter().fold(replay.start, |p, m| p.play(m));
    assert!(end.is_over() && !end.is_lost());
    assert_eq!(end.result_if_over(), Some(Wld::Win));
    let (_, annotation) = analysed(&outcomes[1]);
    let thrown: Vec<_> = annotation.errors().collect();
    let error = thrown[0].played.as_ref().and_then(|m| m.error.as_ref()).expect("flagged");
    assert_eq!((error.from, error.to, error.best.as_str()), (Wld::Win, Wld::Loss, "a1-g7"));
}
