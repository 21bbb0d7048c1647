//! End-to-end tests of the `kabe` binary: output, JSON, and one-line errors with a
//! non-zero exit code.

use crate::common;

use std::process::{Command, Output};

fn kabe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kabe")).args(args).output().expect("run kabe")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn perft_counts_the_start_position() {
    let o = kabe(&["perft", "--depth", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("perft international 5: 27117 nodes"), "{}", stdout(&o));
    let o = kabe(&["perft", "--variant", "russian", "--depth", "6"]);
    assert!(stdout(&o).contains("37986 nodes"), "{}", stdout(&o));
}

/// Linux has `/dev/full` (every write fails with "no space left"); elsewhere the test
/// does not build rather than pass without checking anything.
#[cfg(target_os = "linux")]
#[test]
fn write_errors_are_reported_with_a_non_zero_exit_never_a_panic() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full, which Linux has");
    let runs: [&[&str]; 4] = [
        &["perft", "--depth", "3"],
        &["moves", "W:W31:B1"],
        &["perft", "--depth", "3", "--divide"],
        &["study", "W:WK2,K5:B12,22,39", "--tables", "/nonexistent-kabe-tables"],
    ];
    for args in runs {
        let o = Command::new(env!("CARGO_BIN_EXE_kabe"))
            .args(args)
            .stdout(full.try_clone().expect("fd"))
            .output()
            .expect("run kabe");
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}: exit 0 with its output lost");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        if args[0] != "study" {
            assert!(err.contains("writing the output"), "{args:?}: {err}");
        }
    }
}

#[test]
fn a_huge_fen_is_quoted_in_part_and_once() {
    let squares: Vec<String> = (1..=20_000).map(|n| n.to_string()).collect();
    let fen = format!("W:W{}:B1", squares.join(","));
    for args in
        [vec!["moves", fen.as_str()], vec!["study", fen.as_str()], vec!["perft", "--depth", "1", "--fen", fen.as_str()]]
    {
        let o = kabe(&args);
        assert_eq!(o.status.code(), Some(2), "{}", &args[0]);
        let err = stderr(&o);
        assert!(err.len() < 1000, "{}: {} bytes of error", args[0], err.len());
        assert_eq!(err.matches("W:W1,2,3").count(), 1, "{}: {err}", args[0]);
    }
}

#[test]
fn perft_depth_is_bounded_with_a_clear_error() {
    for depth in ["100000", "4000000000"] {
        let o = kabe(&["perft", "--depth", depth]);
        assert_eq!(o.status.code(), Some(2), "{depth}");
        assert!(stderr(&o).contains("--depth"), "{}", stderr(&o));
    }
}

#[test]
fn study_refuses_a_zero_budget_and_a_position_without_moves() {
    let o = kabe(&["study", "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42", "--nodes", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--nodes 0"), "{}", stderr(&o));
    let o = kabe(&["study", "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42", "--time", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--time"), "{}", stderr(&o));
    let o = kabe(&["study", "W:W46:B41,37,36"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no legal move"), "{}", stderr(&o));
    let o = kabe(&["study", "W:W10,16:B7", "--solver", "red"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid value 'red' for '--solver"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn perft_divide_sums_to_the_total() {
    let o = kabe(&["perft", "--depth", "3", "--divide"]);
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 10, "{out}");
    assert!(rows[9].ends_with("total 658") || rows[9] == "total 658", "{out}");
    assert!(rows.iter().any(|r| r.starts_with("32-28 ")), "{out}");
}

#[test]
fn perft_vectors_pass_and_a_wrong_count_fails() {
    let dir = common::temp_dir("cli-vectors");
    let good = dir.join("good.perft");
    std::fs::write(&good, "id s\nvariant russian\nfen W:W21-32:B1-12\nperft 3 302\n").expect("write");
    let o = kabe(&["perft", "--vectors", good.to_str().expect("utf8")]);
    assert!(o.status.success(), "{}", stdout(&o));
    let bad = dir.join("bad.perft");
    std::fs::write(&bad, "id s\nvariant russian\nfen W:W21-32:B1-12\nperft 3 303\n").expect("write");
    let o = kabe(&["perft", "--vectors", bad.to_str().expect("utf8")]);
    assert!(!o.status.success());
    assert!(stdout(&o).contains("FAIL russian s depth 3: 302 expected 303"), "{}", stdout(&o));
}

#[test]
fn moves_lists_standard_notation_with_full_paths_where_ambiguous() {
    let o = kabe(&["moves", "--variant", "russian", "W:WKd8,g7,Kh6,b4,Ke3,Ke1:BKe5,Kg5,b2,d2,Kf2"]);
    let out = stdout(&o);
    assert!(out.lines().any(|l| l == "e1:c3:a1"), "{out}");
    assert!(out.lines().any(|l| l == "e1:h4:f6:d4:a1"), "{out}");
    assert!(out.lines().any(|l| l == "d8:h4"), "{out}");
    let o = kabe(&["moves", "W:W31-50:B1-20"]);
    assert_eq!(stdout(&o).lines().count(), 9);
}

#[test]
fn moves_json_describes_each_move() {
    let o = kabe(&["moves", "--json", "W:W33:BK28,29,19"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let moves = v["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["move"], "33x13");
    assert_eq!(moves[0]["captured"], serde_json::json!([19, 29]));
    assert_eq!(moves[0]["fen_after"], "B:W13:BK28");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    for (args, needle) in [
        (vec!["moves", "W:W3:B1"], "white man on 3, its own promotion row"),
        (vec!["moves", "W:W31,31:B1"], "square 31 is used twice"),
        (vec!["moves", "W:W77:B1"], "square 77 is off the board"),
        (vec!["moves", "Q:W31:B1"], "side to move must be W or B"),
        (vec!["perft", "--variant", "chess", "--depth", "1"], "unknown variant 'chess'"),
        (vec!["perft", "--vectors", "/nonexistent.perft"], "/nonexistent.perft: No such file or directory"),
    ] {
        let o = kabe(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn solve_wolf_and_sheep_gives_every_start_and_a_best_line() {
    let o = kabe(&["solve", "wolf-and-sheep", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let starts = v["starts"].as_array().expect("starts");
    assert_eq!(starts.len(), 56, "28 squares, either side first");
    // The classical result: the sheep win from every start.
    assert!(starts.iter().all(|s| s["winner"] == "sheep"), "{v}");
    for s in starts {
        assert_eq!(s["line"].as_array().expect("line").len() as u64, s["plies"].as_u64().expect("plies"));
    }
    let o = kabe(&["solve", "wolf-and-sheep", "--wolf", "d8", "--first", "sheep"]);
    let out = stdout(&o);
    assert!(out.contains("wolf d8  sheep first: the sheep win in 43 plies"), "{out}");
    assert!(out.contains("best line: a1-b2 d8-c7"), "{out}");
    let o = kabe(&["solve", "wolf-and-sheep", "--wolf", "c1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--wolf c1"), "{}", stderr(&o));
}

/// Numbers past what a flag can mean are refused at once, naming the flag and its
/// range, with exit code 2: never a panic, an abort on an allocation, or a run that
/// starts thousands of threads.
#[test]
fn numeric_flags_out_of_range_are_refused_by_name() {
    let study = "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42";
    for (args, needle) in [
        (vec!["study", study, "--time", "1e308"], "--time 1e308"),
        (vec!["study", study, "--time", "1e20"], "at most 2592000"),
        (vec!["study", study, "--time", "NaN"], "--time NaN"),
        (vec!["study", study, "--nodes", "18446744073709551615"], "give at most"),
        (vec!["generate", "--pieces", "2", "--threads", "5000"], "--threads"),
        (vec!["generate", "--pieces", "2", "--threads", "0"], "--threads"),
        (vec!["verify", "--threads", "5000"], "--threads"),
        (vec!["verify", "--threads", "0"], "--threads"),
        (vec!["serve", "--header-timeout", "18446744073709551615"], "--header-timeout"),
        (vec!["serve", "--concurrency", "18446744073709551615"], "--concurrency"),
        (vec!["serve", "--max-connections", "18446744073709551615"], "--max-connections"),
    ] {
        let o = kabe(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn analysis_memory_is_bounded_whatever_the_file() {
    // Under a 400 MB address-space limit: one game of 10 MB of one-letter words (once
    // 788 MB), 30 MB of junk lines (once 2.6 GB for 200 MB), 20 MB of random bytes.
    let dir = common::temp_dir("analyze-memory");
    std::fs::create_dir_all(dir.join("tables")).expect("dir");
    let mut words = b"[GameType \"20\"]\n\n".to_vec();
    while words.len() < 10 << 20 {
        words.extend_from_slice(b"a b c d e f g h i j k l m n o p q r s t\n");
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let junk: Vec<u8> =
        (0..30 << 20).map(|i| if i % 81 == 80 { b'\n' } else { b"abc xyz[]{}()-19 "[next() as usize % 17] }).collect();
    let random: Vec<u8> = (0..20 << 20).map(|_| next() as u8).collect();
    for (name, bytes) in [("words", words), ("junk", junk), ("random", random)] {
        let file = dir.join(format!("{name}.pdn"));
        std::fs::write(&file, bytes).expect("write");
        let o = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 400000 && exec \"$0\" analyze --tables \"$1\" --no-generate \"$2\"")
            .arg(env!("CARGO_BIN_EXE_kabe"))
            .arg(dir.join("tables"))
            .arg(&file)
            .output()
            .expect("run kabe");
        // Exit 1 says games failed (junk is not a game); a crash or an abort has no code
        // or another one.
        assert!(matches!(o.status.code(), Some(0 | 1)), "{name}: {:?} {}", o.status, stderr(&o));
        assert!(stdout(&o).contains("games read"), "{name}: {}", stdout(&o));
        if name == "words" {
            assert!(stdout(&o).contains("more than the 1 MiB a game may have"), "{}", stdout(&o));
        }
    }
}

#[test]
fn a_table_directory_that_is_a_file_or_needs_a_missing_home_is_named() {
    let dir = common::temp_dir("table-dir");
    let file = dir.join("not-a-folder");
    std::fs::write(&file, "x").expect("write");
    let pdn = dir.join("g.pdn");
    std::fs::write(&pdn, "[GameType \"20\"]\n1. 32-28 *\n").expect("write");
    let (f, p) = (file.to_str().expect("utf-8"), pdn.to_str().expect("utf-8"));
    let runs: [&[&str]; 6] = [
        &["probe", "--tables", f, "W:W31:B20"],
        &["analyze", "--tables", f, "--no-generate", p],
        &["stats", "--tables", f],
        &["verify", "--tables", f],
        &["generate", "--tables", f, "--pieces", "2"],
        &["study", "--tables", f, "W:WK2,K5:B12,22,39"],
    ];
    for args in runs {
        let o = kabe(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("not-a-folder: a regular file, not a directory"), "{args:?}: {}", stderr(&o));
    }
    // `~` in a quoted --tables or KABE_TABLES is the home folder; without HOME, the error
    // says what to set instead of building into `./kabe/tables` or a folder named `~`.
    let home = dir.join("home");
    let o = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["generate", "--pieces", "2", "--threads", "1"])
        .env("HOME", &home)
        .env("KABE_TABLES", "~/kt")
        .current_dir(&dir)
        .output()
        .expect("run kabe");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(home.join("kt/international/0101.dtw.kabe").exists() && !dir.join("~").exists());
    let o = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["probe", "W:W31:B20"])
        .env_remove("HOME")
        .env_remove("KABE_TABLES")
        .env_remove("XDG_DATA_HOME")
        .current_dir(&dir)
        .output()
        .expect("run kabe");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("HOME is not set; give --tables DIR"), "{}", stderr(&o));
}

/// Every numeric flag of every command, in a context where an accepted value finishes at
/// once (an empty table directory, two pieces, one node), driven with extreme values:
/// each is refused at parse time with exit code 2 and a message naming the flag, or
/// taken, and never a panic, a signal or a hang.
#[test]
fn every_numeric_flag_takes_extreme_values_without_a_panic_or_a_hang() {
    let dir = common::temp_dir("flags");
    let empty = |name: &str| {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).expect("dir");
        d.to_str().expect("utf-8").to_string()
    };
    let pdn = dir.join("g.pdn");
    std::fs::write(&pdn, "[GameType \"20\"]\n1. 32-28 *\n").expect("write");
    let pdn = pdn.to_str().expect("utf-8").to_string();
    let study = "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42";
    // (flag, the command around it; `V` is the value) and whether the absurd values
    // must be refused (a cap that only filters, like --max-nodes, may be as large as it likes).
    let flags: Vec<(&str, Vec<String>, bool)> = vec![
        ("--threads", vec!["generate", "--pieces", "2", "--tables", &empty("g1"), "--threads", "V"], true),
        ("--memory", vec!["generate", "--pieces", "2", "--tables", &empty("g2"), "--memory", "V"], true),
        ("--pieces", vec!["generate", "--tables", &empty("g3"), "--pieces", "V"], true),
        ("--cpus", vec!["plan", "--pieces", "3", "--tables", &empty("p1"), "--cpus", "V"], true),
        ("--job-memory", vec!["plan", "--pieces", "3", "--tables", &empty("p2"), "--job-memory", "V"], true),
        ("--pieces", vec!["plan", "--tables", &empty("p3"), "--pieces", "V"], true),
        ("--depth", vec!["perft", "--depth", "V"], true),
        ("--max-nodes", vec!["perft", "--vectors", "/nonexistent.perft", "--max-nodes", "V"], false),
        ("--nodes", vec!["study", study, "--tables", &empty("s1"), "--time", "1", "--nodes", "V"], true),
        ("--time", vec!["study", study, "--tables", &empty("s2"), "--nodes", "1", "--time", "V"], true),
        ("--concurrency", vec!["serve", "--tables", &empty("v1"), "--concurrency", "V"], true),
        ("--max-connections", vec!["serve", "--tables", &empty("v2"), "--max-connections", "V"], true),
        ("--header-timeout", vec!["serve", "--tables", &empty("v3"), "--header-timeout", "V"], true),
        ("--cache", vec!["serve", "--tables", &empty("v4"), "--cache", "V"], true),
        ("--show", vec!["verify", "--tables", &empty("r1"), "--show", "V"], true),
        ("--memory", vec!["verify", "--tables", &empty("r2"), "--memory", "V"], true),
        ("--pieces", vec!["analyze", "--tables", &empty("a1"), "--no-generate", &pdn, "--pieces", "V"], true),
        ("--pieces", vec!["check-rules", "--tables", &empty("c1"), "--pieces", "V"], true),
        (
            "--move-budget",
            vec!["check-rules", "--tables", &empty("c2"), "--pieces", "2", "--layered", "--move-budget", "V"],
            true,
        ),
        ("--pieces", vec!["info", "--pieces", "V"], true),
    ]
    .into_iter()
    .map(|(flag, args, bounded)| (flag, args.into_iter().map(String::from).collect(), bounded))
    .collect();
    let absurd = ["-1", "18446744073709551615", "18446744073709551616", "1e308", "inf", "NaN", "1e30T", "x", ""];
    let plausible = ["0", "1", "2"];
    for (flag, args, bounded) in &flags {
        for value in absurd.iter().chain(&plausible) {
            let args: Vec<&str> = args.iter().map(|a| if a == "V" { value } else { a.as_str() }).collect();
            let o =
                Command::new("timeout").arg("60").arg(env!("CARGO_BIN_EXE_kabe")).args(&args).output().expect("run");
            let err = stderr(&o);
            assert_ne!(o.status.code(), Some(124), "{args:?}: hung");
            assert!(matches!(o.status.code(), Some(0..=2)), "{args:?}: {:?} {err}", o.status);
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            let refused_at_parse = err.contains("invalid value") || err.contains("must be");
            if refused_at_parse {
                assert!(err.contains(flag), "{args:?}: the message does not name {flag}: {err}");
            }
            if *bounded && absurd.contains(value) {
                assert_eq!(o.status.code(), Some(2), "{args:?}: {value} taken: {err}");
                assert!(err.contains(flag) || err.contains(value), "{args:?}: {err}");
            }
        }
    }
}

/// Every answer of `kabe probe` on the committed tables, as text, JSON and `--stdin`
/// lines (errors included), byte for byte as committed.
#[test]
fn probe_answers_are_their_snapshots() {
    let tables = common::committed_tables();
    let tables = tables.to_str().expect("a UTF-8 path");
    let cases: [(&str, &[&str]); 8] = [
        ("kings", &["W:WK46,K47:BK5"]),
        ("kings-count", &["W:WK46,K47:BK5", "--counters", "6.4=3"]),
        ("man-and-king", &["W:W28,K46:BK5"]),
        ("men", &["W:W32:B27"]),
        ("draw", &["W:WK1:BK50"]),
        ("russian", &["-v", "russian", "W:WKa1,Kc1:BKh8"]),
        ("russian-count", &["-v", "russian", "W:WKa1,Kc1:BKh8", "--counters", "16b=58"]),
        ("no-moves", &["B:W32:B"]),
    ];
    let mut errors = String::new();
    for (name, args) in cases {
        for json in [false, true] {
            let mut all = vec!["probe", "--tables", tables];
            all.extend(args);
            if json {
                all.push("--json");
            }
            let out = kabe(&all);
            assert!(out.status.success(), "{name}: {}", stderr(&out));
            common::assert_snapshot(&format!("probe/{name}.{}", if json { "json" } else { "txt" }), &stdout(&out));
        }
    }
    for args in [
        &["W:W99:B1"][..],
        &["W:WK46,K47:BK5", "--counters", "6.9=1"],
        &["W:WK46,K47:BK5", "--counters", "junk"],
        &["W:WK46,K47,K48:BK5"],
        &["-v", "russian", "W:WKa1:BKh8", "--rules", "fmjd"],
        &[""],
    ] {
        let mut all = vec!["probe", "--tables", tables];
        all.extend(args);
        let out = kabe(&all);
        let said = stderr(&out).replace(tables, "<tables>");
        errors += &format!("{args:?}: exit {:?}: {said}", out.status.code());
    }
    common::assert_snapshot("probe/errors.txt", &errors);
    let mut input = b"W:WK46,K47:BK5\t6.4=3\n\n  W:W32:B27  \njunk\nW:WK46,K47:BK5\t6.9=1\n".to_vec();
    input.extend(b"W:WK1:BK50\t\r\n\xff\xfe\nB:W32:B\n");
    input.extend(std::iter::repeat_n(b'x', 70_000));
    input.extend(b"\nW:WK46,K47:BK5\t6.4=3");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["probe", "--stdin", "--tables", tables])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("kabe probe --stdin");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let out = child.wait_with_output().expect("output");
    writer.join().expect("writer").expect("written");
    assert_eq!(out.status.code(), Some(1), "some lines fail");
    common::assert_snapshot("probe/stdin.jsonl", &stdout(&out));
}
