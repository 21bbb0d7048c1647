//! `kabe generate` killed part-way resumes to the same files as an uninterrupted build,
//! and `kabe verify` / `kabe stats` read what it wrote.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

fn temp_dir(name: &str) -> common::TempDir {
    common::temp_dir(&format!("cli-{name}"))
}

fn table_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir.join("russian"))
        .expect("tables")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "kabe"))
        .map(|p| (p.file_name().expect("name").to_string_lossy().into_owned(), fs::read(&p).expect("read")))
        .collect();
    out.sort();
    out
}

fn generate(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kabe"));
    c.args(["generate", "--variant", "russian", "--pieces", "4", "--tables"]).arg(dir);
    c.stdout(Stdio::null()).stderr(Stdio::null());
    c
}

#[test]
fn a_killed_generate_resumes_to_the_same_files() {
    let reference = temp_dir("reference");
    assert!(generate(&reference).status().expect("run").success());
    let expected = table_files(&reference);

    let dir = temp_dir("killed");
    for delay_ms in [300, 900] {
        let mut child = generate(&dir).spawn().expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().expect("kill");
        child.wait().expect("wait");
    }
    assert!(table_files(&dir).len() < expected.len(), "the kills came too late to test anything");
    assert!(generate(&dir).status().expect("resume").success());
    assert_eq!(table_files(&dir), expected);

    let out = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["verify", "--variant", "russian", "--tables"])
        .arg(&dir)
        .output()
        .expect("verify");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains(" 0 disagreements, 0 bad files"));

    let out = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["stats", "--json", "--variant", "russian", "--tables"])
        .arg(&dir)
        .output()
        .expect("stats");
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let tables = stats["tables"].as_array().expect("tables");
    assert_eq!(tables.len(), expected.iter().filter(|(name, _)| name.ends_with(".dtw.kabe")).count());
    assert!(expected.iter().any(|(name, _)| name.ends_with(".ussr1953.kabe")), "rule tables built and resumed too");
    let kk = tables.iter().find(|t| t["signature"] == "0101").expect("king against king");
    let sum = ["wins", "draws", "losses"].iter().map(|k| kk[k].as_u64().expect("count")).sum::<u64>();
    assert_eq!(Some(sum), kk["positions"].as_u64());
}

#[test]
fn verify_counts_rule_tables_by_kind_and_fails_on_an_emptied_one() {
    let dir = temp_dir("verify-rules");
    let d = dir.to_str().expect("utf-8 path");
    let built = kabe(&["generate", "--variant", "international", "--pieces", "3", "--tables", d]);
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let stats = || kabe(&["stats", "--variant", "international", "--tables", d, "--rules", "fmjd", "--json"]).stdout;
    let reader = counted_through_the_reader(&dir);
    let out = kabe(&["verify", "--variant", "international", "--tables", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // Of each pair's two files of a kind one holds the values, the other is found by search.
    assert!(text.contains("48 files (16 dtw, 16 fmjd, 16 wld; 21 found by search)"), "{text}");
    assert!(text.contains("309776 rule-table values; 0 disagreements, 0 bad files"), "{text}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"), "{}", String::from_utf8_lossy(&out.stderr));
    // A second run finds every pair in the ledger, verified against the same files.
    let out = kabe(&["verify", "--variant", "international", "--tables", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("; 0 pairs derived again (9 more pairs recorded in "), "{text}");
    // The statistics verify counted and recorded are those the reader counts.
    let ledger_path = dir.join("international").join("verified.txt");
    let ledger = fs::read_to_string(&ledger_path).expect("ledger");
    assert!(ledger.lines().all(|l| l.contains("/fmjd=") || l.starts_with("0101 ")), "{ledger}");
    let recorded = stats();
    assert_eq!(figures_of(&recorded), reader);
    // Without the ledger, stats verifies the pairs to count them, and records them.
    fs::remove_file(&ledger_path).expect("rm");
    let out = kabe(&["stats", "--variant", "international", "--tables", d, "--rules", "fmjd", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&recorded));
    assert_eq!(fs::read_to_string(&ledger_path).expect("ledger written again").lines().count(), ledger.lines().count());
    let expected = recorded;
    // A line edited (one figure changed) or torn (cut short, as by a crash mid-write) is
    // not believed: stats warns, naming the line, and derives that pair again.
    let edit = |line: &str| -> String {
        let words: Vec<String> = line
            .split(' ')
            .map(|w| match w.strip_prefix("0201=") {
                Some(rest) => {
                    let figures: Vec<&str> = rest.split(',').collect();
                    format!("0201={},424242,{}", figures[0], figures[2..].join(","))
                }
                None => w.to_string(),
            })
            .collect();
        words.join(" ")
    };
    let tear = |line: &str| -> String { line[..line.len() * 2 / 3].to_string() };
    for (how, change) in [("edited", &edit as &dyn Fn(&str) -> String), ("torn", &tear)] {
        let mut changed_at = 0;
        let changed: String = ledger
            .lines()
            .enumerate()
            .map(|(n, line)| {
                if line.contains("0201=") {
                    changed_at = n + 1;
                    change(line) + "\n"
                } else {
                    line.to_string() + "\n"
                }
            })
            .collect();
        assert!(changed_at > 0 && changed != ledger, "{how}");
        fs::write(&ledger_path, &changed).expect("write");
        let out = kabe(&["stats", "--variant", "international", "--tables", d, "--rules", "fmjd", "--json"]);
        let warning = String::from_utf8_lossy(&out.stderr);
        assert!(warning.contains(&format!("line {changed_at} torn or edited")), "{how}: {warning}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&expected), "{how}");
    }
    // Stats wrote the ledger again without the bad line, as verify does.
    let out = kabe(&["verify", "--variant", "international", "--tables", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("; 0 pairs derived again (9 more pairs recorded in "), "{text}");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = kabe(&["stats", "--variant", "international", "--tables", d, "--rules", "fmjd", "--json"]);
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, expected);

    // A ledger that cannot be written (here a folder in its place): verify says so and
    // verifies all the same.
    fs::remove_file(&ledger_path).expect("rm");
    fs::create_dir(&ledger_path).expect("a folder in its place");
    let out = kabe(&["verify", "--variant", "international", "--tables", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("0 disagreements, 0 bad files"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("verified without the ledger"), "{:?}", out.stderr);
    // Stats too: one warning, and the same figures.
    let out = kabe(&["stats", "--variant", "international", "--tables", d, "--rules", "fmjd", "--json"]);
    let warning = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && warning.lines().count() == 1, "{warning}");
    assert!(warning.contains("counted without the ledger"), "{warning}");
    assert_eq!(out.stdout, expected);
    fs::remove_dir(&ledger_path).expect("rm");

    let table = dir.join("international").join("0201.fmjd.kabe");
    fs::File::create(&table).expect("truncate");
    let out = kabe(&["verify", "--variant", "international", "--tables", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    let bad: Vec<&str> = text.lines().filter(|l| l.starts_with("bad file:")).collect();
    assert_eq!(bad.len(), 1, "{text}");
    assert!(bad[0].contains("0201.fmjd.kabe"), "{text}");
    assert!(text.contains(" 1 bad files"), "{text}");
    // Stats gives no figures for a set that does not verify, and names the file.
    let out = kabe(&["stats", "--variant", "international", "--tables", d, "--rules", "fmjd", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty(), "{err}");
    assert!(err.contains("do not verify") && err.contains("0201.fmjd.kabe"), "{err}");
}

/// Each table's positions, wins, draws, losses and longest win (plies), and under
/// `fmjd` with a fresh count the wins kept, the wins drawn by the count, the losses it
/// saves and the longest win within the count: as `kabe stats --json` prints them.
type TableFigures = (String, [u64; 5], [u64; 4]);

/// [`TableFigures`] of every table under `dir`, counted position by position through
/// the probe library: not the verifier, which `kabe stats` takes its figures from.
fn counted_through_the_reader(dir: &Path) -> Vec<TableFigures> {
    use kabe_probe::internal::MaterialIndex;
    use kabe_probe::{Counters, DrawRuleSet, DrawRules, Variant, Wld};
    let variant = Variant::INTERNATIONAL;
    let tables = kabe_probe::tablebase::Tablebase::builder(dir)
        .variants(&[variant])
        .rules(DrawRuleSet::Fmjd)
        .open()
        .expect("open the tables");
    let rules = DrawRules::new(DrawRuleSet::Fmjd, &variant);
    let signatures = kabe_generator::tables_in(dir, &variant).expect("read the folder");
    let mut out = Vec::new();
    for &sig in signatures.keys() {
        let index = MaterialIndex::new(variant, sig).expect("a table's material");
        let (mut theory, mut ruled) = ([0u64; 5], [0u64; 4]);
        for position in index.positions(0..index.len()) {
            let verdict = tables.probe(&position, &Counters::fresh(&rules, &position)).expect("probe");
            let theoretical = verdict.theoretical;
            theory[0] += 1;
            match theoretical.wld() {
                Wld::Win => {
                    theory[1] += 1;
                    theory[4] = theory[4].max(u64::from(theoretical.plies().expect("a win's plies")));
                }
                Wld::Draw => theory[2] += 1,
                Wld::Loss => theory[3] += 1,
            }
            match (theoretical.wld(), verdict.exact) {
                (Wld::Win, Wld::Win) => {
                    ruled[0] += 1;
                    let plies = verdict.within.decided().map_or(0, |(_, p)| p);
                    ruled[3] = ruled[3].max(u64::from(plies));
                }
                (Wld::Win, _) => ruled[1] += 1,
                (Wld::Loss, Wld::Draw) => ruled[2] += 1,
                _ => {}
            }
        }
        out.push((sig.to_string(), theory, ruled));
    }
    out
}

/// [`TableFigures`] as `kabe stats --rules fmjd --json` printed them.
fn figures_of(json: &[u8]) -> Vec<TableFigures> {
    let stats: serde_json::Value = serde_json::from_slice(json).expect("stats JSON");
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    stats["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            let r = &t["rules"];
            (
                t["signature"].as_str().expect("a signature").to_string(),
                [n(&t["positions"]), n(&t["wins"]), n(&t["draws"]), n(&t["losses"]), n(&t["longest_win_plies"])],
                [
                    n(&r["wins_kept"]),
                    n(&r["wins_drawn_by_count"]),
                    n(&r["losses_saved_by_count"]),
                    n(&r["longest_win_within_count_plies"]),
                ],
            )
        })
        .collect()
}

/// `kabe probe --stdin` on Russian tables in `dir` fed `input` (written from a thread, so
/// a large input cannot block on a full pipe): its output and its JSON lines.
fn probe_stdin(dir: &str, input: Vec<u8>) -> (std::process::Output, Vec<serde_json::Value>) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["probe", "--stdin", "-v", "russian", "--tables", dir])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run kabe");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer").expect("write");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    (out, lines)
}

fn kabe(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kabe")).args(args).output().expect("run kabe")
}

#[test]
fn probe_gives_the_exact_verdict_and_names_the_count() {
    let dir = temp_dir("probe");
    assert!(generate(&dir).status().expect("run").success());
    let dir = dir.to_str().expect("utf-8 path");
    let probe = |counters: &str| {
        let out =
            kabe(&["probe", "W:WKh8,Ke7,Kf6:BKa3", "-v", "russian", "--tables", dir, "--counters", counters, "--json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("json")
    };
    // Three kings against one: a theoretical win in 21 plies (the longest of 0301).
    let fresh = probe("");
    assert_eq!(fresh["verdict"]["exact"], "win");
    assert_eq!(fresh["verdict"]["theoretical"], "win");
    assert_eq!(fresh["line_end"], "game over");
    // After 20 plies of the 16c count the strong side (to move, so it moved first) has
    // 15 plies left: too few, a draw by 16c.
    let late = probe("16c=20");
    assert_eq!(late["verdict"]["exact"], "draw");
    assert_eq!(late["verdict"]["theoretical"], "win");
    assert_eq!(late["verdict"]["rule_decides"], true);
    assert_eq!(late["verdict"]["count"]["article"], "16c");
    assert_eq!(late["verdict"]["count"]["plies_left"], 15);
    assert_eq!(late["line_end"], "drawn by 16c");

    for (bad, says) in [
        (vec!["--counters", "16c=40"], "past its limit"),
        (vec!["--counters", "6.3=2"], "no article '6.3'"),
        (vec!["--counters", "16b"], "bad counters"),
    ] {
        let mut args = vec!["probe", "W:WKh8,Ke7,Kf6:BKa3", "-v", "russian", "--tables", dir];
        args.extend(bad);
        let out = kabe(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.starts_with("kabe: error:") && err.contains(says) && err.lines().count() == 1, "{err}");
    }
    let out = kabe(&["probe", "W:WKh8,Ke7:BKa3,Kz9", "-v", "russian", "--tables", dir]);
    assert_eq!(out.status.code(), Some(2));
    // One material: a set without `kabe verify`'s ledger is verified to count it.
    let out =
        kabe(&["stats", "-v", "russian", "--tables", dir, "--rules", "ussr1953", "--signature", "0301", "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let rows = stats["tables"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let three_kings = &rows[0];
    assert_eq!(three_kings["signature"], "0301");
    assert_eq!(three_kings["rules"]["wins_kept"], three_kings["wins"]);
}

#[test]
fn probe_stdin_answers_line_by_line_and_missing_tables_name_the_command() {
    let dir = temp_dir("probe-stdin");
    assert!(generate(&dir).status().expect("run").success());
    let dir = dir.to_str().expect("utf-8 path");
    let one = |counters: &str| {
        let out =
            kabe(&["probe", "W:WKh8,Ke7,Kf6:BKa3", "-v", "russian", "--tables", dir, "--counters", counters, "--json"]);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("json")
    };
    let input = "W:WKh8,Ke7,Kf6:BKa3\t16c=20\nW:Wz9:Ba1\n\nW:WKh8,Ke7,Kf6:BKa3\nW:WKh8,Ke7,Kf6:BKa3\t16c=99\n";
    let (out, lines) = probe_stdin(dir, input.as_bytes().to_vec());
    assert_eq!(out.status.code(), Some(1), "a bad line makes the exit code 1");
    assert_eq!(lines.len(), 4, "blank lines are skipped, bad ones answered");
    assert_eq!(lines[0], one("16c=20"), "the fields of --json");
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].as_str().expect("error").contains("z9"), "{}", lines[1]);
    assert_eq!(lines[2], one(""));
    assert_eq!(lines[3]["line"], 5);
    assert!(lines[3]["error"].as_str().expect("error").contains("past its limit"), "{}", lines[3]);

    // A line that is not UTF-8, and one of 10 MB: each answered with a short error, and the
    // good line after them still answered.
    let mut input: Vec<u8> = b"\xff\xfe W:WKh8\n".to_vec();
    input.extend(std::iter::repeat_n(b'W', 10 << 20));
    input.extend(b"\nW:WKh8,Ke7,Kf6:BKa3\n");
    let (out, lines) = probe_stdin(dir, input);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.len() < 8 << 10,
        "errors quote a few hundred characters, not the input: {} bytes",
        out.stdout.len()
    );
    assert_eq!(lines.len(), 3);
    assert!(lines[0]["error"].as_str().expect("error").contains("not UTF-8"), "{}", lines[0]);
    assert!(lines[1]["error"].as_str().expect("error").contains("longer than"), "{}", lines[1]);
    assert_eq!(lines[2], one(""));

    // Beyond the tables: the error names the file and the command that builds it.
    let out = kabe(&["probe", "W:Wc3,e3,g3:Bf6,h6", "-v", "russian", "--tables", dir]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let expected = format!(
        "3020.dtw.kabe is not in the table directory; build it with `kabe generate --variant russian --closure 3020 --rules ussr1953 --tables {dir}`"
    );
    assert!(err.contains(&expected), "{err}");
    // A rule table of another rule set on the 100-square board says --rules.
    let out = kabe(&["probe", "W:WK46,K47,K48,K49:BK5", "--rules", "ussr1953", "--tables", dir]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kabe generate --variant international --closure 0401 --rules ussr1953 --tables"), "{err}");
    // A side without pieces: no table, no build command that would refuse.
    // `--dir`, the older name of `--tables`, still works.
    let out = kabe(&["probe", "B:W:BK5", "--dir", dir]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("kabe generate"), "{err}");
}

#[test]
fn a_fifo_named_like_a_table_is_named_never_opened_nor_replaced() {
    let dir = temp_dir("fifo");
    let d = dir.to_str().expect("utf-8 path");
    let built = kabe(&["generate", "--variant", "russian", "--pieces", "3", "--tables", d, "--threads", "1"]);
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let before = table_files(&dir);
    let fifo = dir.join("russian").join("0110.dtw.kabe");
    fs::remove_file(&fifo).expect("rm");
    // mkfifo, like `timeout` below, is coreutils: without it the test fails, never passes
    // having checked nothing.
    let made = Command::new("mkfifo").arg(&fifo).status().expect("running mkfifo (coreutils)");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let pdn = dir.join("g.pdn");
    fs::write(&pdn, "[GameType \"25\"]\n[FEN \"W:WKc3:Bf6\"]\n1. c3-d4 *\n").expect("pdn");
    // Each command under `timeout`: opening the FIFO to read would wait for a writer.
    let run = |args: &[&str]| {
        let o = Command::new("timeout").arg("60").arg(env!("CARGO_BIN_EXE_kabe")).args(args).output().expect("run");
        assert_ne!(o.status.code(), Some(124), "{args:?} hung on the FIFO");
        (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned(), o.status)
    };
    let (_, err, _) = run(&["probe", "-v", "russian", "--tables", d, "W:WKa1:Bh8"]);
    assert!(err.contains("0110.dtw.kabe: a FIFO, not a table file"), "{err}");
    let (out, err, status) = run(&["probe", "-v", "russian", "--tables", d, "W:WKa1,Kc1:BKh8"]);
    assert!(status.success() && out.contains("win"), "another material answers: {out} {err}");
    let (out, _, _) = run(&["analyze", "--tables", d, "--no-generate", pdn.to_str().expect("utf-8")]);
    assert!(out.contains("games read"), "{out}");
    let (out, err, _) = run(&["stats", "-v", "russian", "--tables", d]);
    assert!(err.contains("a FIFO") || out.contains("a FIFO"), "{out} {err}");
    // Not kabe's to remove: the build names it and stops (as for a folder there).
    let (_, err, status) = run(&["generate", "-v", "russian", "--pieces", "3", "--tables", d, "--threads", "1"]);
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("0110.dtw.kabe: a FIFO where kabe keeps a file of its own"), "{err}");
    fs::remove_file(&fifo).expect("rm");
    let (_, err, status) = run(&["generate", "-v", "russian", "--pieces", "3", "--tables", d, "--threads", "1"]);
    assert!(status.success() && err.contains("rebuilding 0110+1001: "), "{err}");
    assert_eq!(table_files(&dir), before);
}

#[test]
fn a_set_built_on_one_thread_or_two_matches_the_manifest_in_the_repository() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/manifests/russian-2-4.txt");
    let m = manifest.to_str().expect("utf-8");
    for threads in ["1", "2"] {
        let dir = temp_dir(&format!("manifest-{threads}"));
        let d = dir.to_str().expect("utf-8 path");
        let built = kabe(&["generate", "--variant", "russian", "--pieces", "4", "--tables", d, "--threads", threads]);
        assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
        let checked = kabe(&["manifest", "--variant", "russian", "--tables", d, "--check", m]);
        let text = String::from_utf8_lossy(&checked.stdout);
        assert!(checked.status.success(), "{threads} threads: {text}");
        assert!(text.contains("121 files listed, 121 as listed, 0 missing or different, 0 not listed"), "{text}");
        // One file changed and one lost are named, and the check fails.
        let file = dir.join("russian").join("0110.dtw.kabe");
        let mut bytes = fs::read(&file).expect("read");
        let last = bytes.len() - 3;
        bytes[last] ^= 1;
        fs::write(&file, bytes).expect("write");
        fs::remove_file(dir.join("russian").join("0201.wld.kabe")).expect("rm");
        let checked = kabe(&["manifest", "--variant", "russian", "--tables", d, "--check", m]);
        let text = String::from_utf8_lossy(&checked.stdout);
        assert_eq!(checked.status.code(), Some(1), "{text}");
        assert!(
            text.contains("russian/0110.dtw.kabe: differs") && text.contains("russian/0201.wld.kabe: missing"),
            "{text}"
        );
    }
}

/// Three-piece international tables, built in a fresh directory, for the statistics page.
fn three_piece_tables(name: &str) -> common::TempDir {
    let dir = temp_dir(name);
    let tables = dir.to_str().expect("a UTF-8 path");
    let o = kabe(&["generate", "--variant", "international", "--pieces", "3", "--tables", tables]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

/// `scripts/stats-doc.sh` over `tables`. LISTED: the manifests whose files alone are read;
/// KEEP: an earlier page whose rows stand for the listed pairs it has.
fn stats_page(tables: &Path, listed: &str, keep: &str) -> std::process::Output {
    Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/stats-doc.sh"))
        .arg("international")
        .arg(tables)
        .env("KABE", env!("CARGO_BIN_EXE_kabe"))
        .env("LISTED", listed)
        .env("KEEP", keep)
        .output()
        .expect("run scripts/stats-doc.sh")
}

/// The page's text, which must have been written.
fn stats_page_text(tables: &Path, listed: &str) -> String {
    let o = stats_page(tables, listed, "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("UTF-8")
}

/// `kabe stats --json` over `tables`, with `extra` arguments.
fn stats_json(tables: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["stats", "--variant", "international", "--tables", tables.to_str().expect("UTF-8"), "--json"];
    args.extend_from_slice(extra);
    let o = kabe(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("stats JSON")
}

/// `scripts/stats-doc.sh` writes each material's counts as `kabe stats --json` gives them,
/// and names a size of which only some pairs are built (a set still growing) as such,
/// reading only the files its manifest lists.
#[test]
fn the_statistics_page_follows_kabe_stats_and_names_a_size_built_in_part() {
    let dir = three_piece_tables("stats-page");
    let stats = stats_json(&dir, &[]);
    let of = |sig: &str| stats["tables"].as_array().expect("tables").iter().find(|t| t["signature"] == sig).cloned();
    let (white, black) = (of("0102").expect("1K v 2K"), of("0201").expect("2K v 1K"));
    let counts = |t: &serde_json::Value| {
        let n = |k: &str| thousands(t[k].as_u64().expect("a count"));
        format!("{} / {} / {}", n("wins"), n("draws"), n("losses"))
    };
    let positions = thousands(white["positions"].as_u64().expect("positions"));
    let row = format!("| 1K v 2K | {positions} | {} | {} |", counts(&white), counts(&black));

    let whole = stats_page_text(&dir, "");
    assert!(whole.starts_with("# International draughts: statistics of the endgame tables, 2-3 pieces\n"), "{whole}");
    assert!(whole.contains(&row), "no `{row}` in\n{whole}");
    assert!(whole.contains("## 3 pieces\n"), "{whole}");

    // A set still growing: its manifest lists every pair but 1M v 2M (1020 and its flip
    // 2010), whose files are there but not to be read.
    let manifest = dir.join("listed.txt");
    let o = kabe(&["manifest", "--variant", "international", "--tables", dir.to_str().expect("UTF-8")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let listed: String = String::from_utf8(o.stdout)
        .expect("UTF-8")
        .lines()
        .filter(|line| !line.starts_with("1020.") && !line.starts_with("2010."))
        .map(|line| format!("{line}\n"))
        .collect();
    fs::write(&manifest, listed).expect("write the manifest");
    let part = stats_page_text(&dir, manifest.to_str().expect("a UTF-8 path"));
    assert!(
        part.starts_with(
            "# International draughts: statistics of the endgame tables, 2 pieces, 5 of the 6 pairs of 3\n"
        ),
        "{part}"
    );
    assert!(part.contains("## 3 pieces (5 of 6 pairs)\n"), "{part}");
    assert!(part.contains(&row), "no `{row}` in\n{part}");
    assert!(!part.contains("| 1M v 2M |"), "a pair not built is listed:\n{part}");
    assert!(whole.contains("| 1M v 2M |"), "{whole}");
}

/// `kabe stats --signature` gives the figures of those tables only, as the whole set's
/// statistics give them; a signature with no table is an error naming it.
#[test]
fn kabe_stats_signature_gives_the_tables_named_and_refuses_one_not_built() {
    let dir = three_piece_tables("stats-signature");
    let stats = stats_json(&dir, &[]);
    let white = stats["tables"].as_array().expect("tables").iter().find(|t| t["signature"] == "0102").cloned();
    let only = stats_json(&dir, &["--signature", "0102,0201"]);
    let signatures: Vec<&str> = only["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["signature"].as_str().expect("a signature"))
        .collect();
    assert_eq!(signatures, ["0102", "0201"]);
    assert_eq!(Some(&only["tables"][0]), white.as_ref());
    let tables = dir.to_str().expect("UTF-8");
    let o = kabe(&["stats", "--variant", "international", "--tables", tables, "--signature", "0103"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--signature 0103: no international table of it"), "{err}");
}

/// On a new machine every pair is listed but one (1M v 2M, read by no other table) is not
/// on disk: its row comes from the earlier page. Without that page, without its row there,
/// or with a row that disagrees with the manifest, the page is refused, naming what is wrong.
#[test]
fn the_statistics_page_keeps_a_row_only_where_the_manifest_agrees_with_it() {
    let dir = three_piece_tables("stats-keep");
    let whole = stats_page_text(&dir, "");
    let every = dir.join("every.txt");
    let tables = dir.to_str().expect("UTF-8");
    let o = kabe(&[
        "manifest",
        "--variant",
        "international",
        "--tables",
        tables,
        "--output",
        every.to_str().expect("UTF-8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let earlier = dir.join("earlier.md");
    fs::write(&earlier, &whole).expect("write the earlier page");
    for name in ["1020.wld.kabe", "1020.dtw.kabe", "1020.fmjd.kabe", "2010.wld.kabe", "2010.dtw.kabe", "2010.fmjd.kabe"]
    {
        let file = dir.join("international").join(name);
        if file.exists() {
            fs::remove_file(file).expect("remove a file of 1M v 2M");
        }
    }
    let listed = every.to_str().expect("UTF-8");
    let keep = earlier.to_str().expect("UTF-8");
    let o = stats_page(&dir, listed, keep);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8(o.stdout).expect("UTF-8"), whole, "the page with a kept row differs");
    let refused = |keep: &str, expected: &[&str]| {
        let o = stats_page(&dir, listed, keep);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && expected.iter().all(|e| err.contains(e)), "{err}");
    };
    refused("", &["/international/1020.", "but missing"]);
    let without_row: String =
        whole.lines().filter(|l| !l.starts_with("| 1M v 2M |")).map(|l| format!("{l}\n")).collect();
    fs::write(&earlier, without_row).expect("write the earlier page");
    refused(keep, &["has no row of it"]);
    let edited = whole.replacen("| 1M v 2M | ", "| 1M v 2M | 1", 1);
    assert_ne!(edited, whole);
    fs::write(&earlier, edited).expect("write the earlier page");
    refused(keep, &["the row of 1M v 2M disagrees with the manifests"]);
}

/// `n` with its thousands separated by commas, as the statistics page writes counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
