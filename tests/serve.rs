//! `kabe serve` as a user runs it: the API answers what `kabe probe --json` answers, in
//! the shape its OpenAPI document describes; bad requests get 4xx JSON errors naming
//! what was wrong; malformed and hostile requests never bring it down.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// International, Russian and Turkish tables up to 3 pieces, in a folder of the test's own.
fn tables() -> common::TempDir {
    let dir = common::temp_dir("serve-tables");
    for variant in ["international", "russian", "turkish"] {
        let ok = Command::new(env!("CARGO_BIN_EXE_kabe"))
            .args(["generate", "--variant", variant, "--pieces", "3", "--tables"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("generate");
        assert!(ok.success());
    }
    dir
}

fn serve(dir: &Path) -> Server {
    serve_with(dir, &[])
}

fn serve_with(dir: &Path, options: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["serve", "--bind", "127.0.0.1:0", "--tables"])
        .arg(dir)
        .args(options)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("first line");
    let addr = line.split("http://").nth(1).expect("address in the first line").trim().trim_end_matches('/');
    Server { child, addr: addr.to_string() }
}

/// Sends raw bytes, returns (status, body); status 0 when the server closed without one.
fn raw(addr: &str, request: &[u8]) -> (u16, String) {
    send(addr, request, false)
}

/// As [`raw`]; with `end`, the client closes its side after the bytes, as a client that
/// sent a truncated request and went away.
fn send(addr: &str, request: &[u8], end: bool) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(std::time::Duration::from_secs(20))).expect("timeout");
    let _ = stream.write_all(request);
    if end {
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let text = String::from_utf8_lossy(&reply).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

fn get(addr: &str, path: &str) -> (u16, Value) {
    let (status, body) = raw(addr, format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes());
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}")))
}

fn query(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn probe_json(dir: &Path, variant: &str, fen: &str, counters: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["probe", "--json", "--variant", variant, fen, "--counters", counters, "--tables"])
        .arg(dir)
        .output()
        .expect("probe");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("probe JSON")
}

/// Checks `value` against a schema of the OpenAPI document: types (with null), enums,
/// required properties, properties and items, following `$ref`s.
fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().expect("ref");
        return conforms(doc, &doc["components"]["schemas"][name], value, at);
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        assert!(types.contains(&actual), "{at}: {actual} where the document says {types:?}");
    }
    if let (Some(allowed), Some(s)) = (schema.get("enum").and_then(Value::as_array), value.as_str()) {
        assert!(allowed.iter().any(|a| a == s), "{at}: '{s}' is not one of {allowed:?}");
    }
    if let Value::Object(map) = value {
        for required in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
            let key = required.as_str().expect("name");
            assert!(map.contains_key(key), "{at}: '{key}' missing");
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, v) in map {
            let described = properties.and_then(|p| p.get(key));
            assert!(described.is_some() || properties.is_none(), "{at}: '{key}' is not in the document");
            if let Some(s) = described {
                conforms(doc, s, v, &format!("{at}.{key}"));
            }
        }
    }
    if let (Some(items), Value::Array(values)) = (schema.get("items"), value) {
        for (i, v) in values.iter().enumerate() {
            conforms(doc, items, v, &format!("{at}[{i}]"));
        }
    }
}

fn response_schema(doc: &Value, path: &str, status: &str) -> Value {
    let response = &doc["paths"][path]["get"]["responses"][status];
    let response = match response.get("$ref").and_then(Value::as_str) {
        Some(r) => &doc["components"]["responses"][r.rsplit('/').next().expect("ref")],
        None => response,
    };
    response["content"]["application/json"]["schema"].clone()
}

#[test]
fn the_api_answers_as_kabe_probe_does_in_the_documented_shape() {
    let dir = tables();
    let server = serve(&dir);
    let (status, doc) = get(&server.addr, "/api/openapi.json");
    assert_eq!(status, 200);
    assert_eq!(doc, serde_json::from_str::<Value>(kabe_server::OPENAPI_JSON).expect("document"));

    let (status, variants) = get(&server.addr, "/api/variants");
    assert_eq!(status, 200);
    conforms(&doc, &response_schema(&doc, "/api/variants", "200"), &variants, "variants");
    let names: Vec<&str> =
        variants["variants"].as_array().expect("list").iter().filter_map(|v| v["name"].as_str()).collect();
    assert_eq!(names, ["international", "russian", "turkish"]);

    let cases = [
        ("international", "W:WK46,K47:BK5", "6.4=6"),
        ("international", "W:WK46,K47:BK5", "6.4=9"),
        ("international", "B:W28,K47:B19", "6.2=0"),
        ("international", "W:W33:BK10,K4", ""),
        ("russian", "W:WKa1,Kc1:BKh8", "16b=58"),
        ("russian", "B:Wc3,e3:Bd6", ""),
        ("turkish", "W:Wd5,Ka1:Bh8", ""),
        ("turkish", "B:Wa2:Bb4,Kh1", ""),
    ];
    for (variant, fen, counters) in cases {
        let path = format!("/api/{variant}?fen={}&counters={}", query(fen), query(counters));
        let (status, answer) = get(&server.addr, &path);
        assert_eq!(status, 200, "{path}: {answer}");
        conforms(&doc, &response_schema(&doc, "/api/{variant}", "200"), &answer, &path);
        let probed = probe_json(&dir, variant, fen, if counters.is_empty() { "" } else { counters });
        for key in ["fen", "variant", "rules", "counters", "verdict", "best_moves"] {
            assert_eq!(answer[key], probed[key], "{path}: {key}");
        }
        let moves = answer["moves"].as_array().expect("moves");
        let probed_moves = probed["moves"].as_array().expect("moves");
        assert_eq!(moves.len(), probed_moves.len(), "{path}");
        for (m, p) in moves.iter().zip(probed_moves) {
            for key in ["move", "exact", "theoretical_plies_after", "within_count_plies_after"] {
                assert_eq!(m[key], p[key], "{path}: {} {key}", m["move"]);
            }
        }
        let line_path = format!("/api/{variant}/mainline?fen={}&counters={}", query(fen), query(counters));
        let (status, line) = get(&server.addr, &line_path);
        assert_eq!(status, 200, "{line_path}: {line}");
        conforms(&doc, &response_schema(&doc, "/api/{variant}/mainline", "200"), &line, &line_path);
        if !probed["line_end"].as_str().is_some_and(|end| end.starts_with("draw (line cut")) {
            let played: Vec<&Value> = line["moves"].as_array().expect("moves").iter().map(|m| &m["move"]).collect();
            let expected: Vec<&Value> = probed["line"].as_array().expect("line").iter().map(|m| &m["move"]).collect();
            assert_eq!(played, expected, "{line_path}");
            assert_eq!(&line["moves"], &probed["line"], "{line_path}: one shape for a line");
            assert_eq!(line["end"], probed["line_end"], "{line_path}");
        }
    }
}

#[test]
fn a_composition_beyond_the_tables_is_proved_as_kabe_study_proves_it() {
    let dir = tables();
    let server = serve(&dir);
    let doc: Value = serde_json::from_str(kabe_server::OPENAPI_JSON).expect("document");
    let fen = "W:W10,16,19,28,31,33,46:B7,8,12,17,26,37,42";
    let path = format!("/api/international/prove?fen={}&nodes=50000", query(fen));
    let (status, answer) = get(&server.addr, &path);
    assert_eq!(status, 200, "{answer}");
    conforms(&doc, &response_schema(&doc, "/api/{variant}/prove", "200"), &answer, &path);
    assert_eq!(answer["result"], "win");
    assert_eq!(answer["keys"], serde_json::json!(["46-41"]));
    assert_eq!(answer["tables_reach"], 3);
    let out = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(["study", fen, "--nodes", "50000", "--json", "--tables"])
        .arg(&dir)
        .output()
        .expect("study");
    let studied: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(answer["keys"], studied["keys"]);
    let outcomes = |v: &Value| -> Vec<Value> {
        v["moves"].as_array().expect("moves").iter().map(|m| m["outcome"].clone()).collect()
    };
    assert_eq!(outcomes(&answer), outcomes(&studied));
}

#[test]
fn a_table_truncated_or_removed_under_the_server_is_an_error_naming_it_never_a_crash() {
    let dir = tables();
    let mut server = serve(&dir);
    let (status, _) = get(&server.addr, "/api/international?fen=W:WK46,K47:BK5");
    assert_eq!(status, 200);
    // Both tables of the pair cut to their first 104 bytes (the header survives), and
    // the 1-king table removed: every read past the cut fails.
    let folder = dir.join("international");
    for name in ["0201.dtw.kabe", "0102.dtw.kabe", "0201.fmjd.kabe", "0102.fmjd.kabe"] {
        std::fs::OpenOptions::new().write(true).open(folder.join(name)).expect("open").set_len(104).expect("truncate");
    }
    std::fs::remove_file(folder.join("0101.dtw.kabe")).expect("remove");
    let mut errors = 0;
    for fen in ["W:WK1,K47:BK5", "W:WK36,K37:BK15", "B:WK46,K47:BK5", "W:WK3,K49:BK27", "B:WK10,K40:BK26"] {
        let (status, body) = get(&server.addr, &format!("/api/international?fen={}", query(fen)));
        assert!(status == 200 || status == 500, "{fen}: {status} {body}");
        if status == 500 {
            errors += 1;
            assert_eq!(body["error"], "table_error", "{body}");
            assert!(body["message"].as_str().expect("message").contains(".kabe"), "the file named: {body}");
        }
    }
    assert!(errors > 0, "the damaged tables were read");
    assert!(server.child.try_wait().expect("status").is_none(), "the server is still running");
    let (status, _) = get(&server.addr, "/api/variants");
    assert_eq!(status, 200);
}

#[test]
fn bad_requests_get_a_4xx_json_error_naming_what_was_wrong() {
    let dir = tables();
    let server = serve(&dir);
    let doc: Value = serde_json::from_str(kabe_server::OPENAPI_JSON).expect("document");
    let long = "1".repeat(5000);
    let cases: Vec<(String, u16, &str, &str)> = vec![
        ("/api/international?fen=W:W99:B1".into(), 400, "bad_fen", "fen:"),
        ("/api/international?fen=".into(), 400, "missing_fen", "fen:"),
        ("/api/international".into(), 400, "missing_fen", "fen:"),
        (format!("/api/international?fen=W:W{long}:B1"), 400, "bad_fen", "characters"),
        ("/api/xiangqi?fen=W:W31:B1".into(), 404, "not_found", "xiangqi"),
        ("/api/kabe?fen=W:W31:B1".into(), 404, "not_found", "no kabe tables"),
        ("/api/international?fen=W:W31,32,33:B1,2".into(), 422, "too_many_pieces", "5 pieces"),
        ("/api/international?fen=W:W31:B1&rules=fide".into(), 400, "bad_rules", "fide"),
        ("/api/russian?fen=W:Wa1:Bh8&rules=fmjd".into(), 400, "bad_rules", "not written for russian"),
        ("/api/international?fen=W:WK46,K47:BK5&counters=6.4=99".into(), 400, "bad_counters", "past its limit"),
        ("/api/international?fen=W:W31:B1&counters=junk".into(), 400, "bad_counters", "counters:"),
        ("/api/international/mainline?fen=W:Wxx:B1".into(), 400, "bad_fen", "fen:"),
        ("/api/international/prove?fen=W:W31:B1&nodes=0".into(), 400, "bad_nodes", "nodes:"),
        ("/api/international/prove?fen=W:W31:B1&nodes=99999999999".into(), 400, "bad_nodes", "2000000"),
        ("/api/international/prove?fen=W:W46:B41,37,36".into(), 400, "no_moves", "no legal move"),
        ("/nothing/here".into(), 404, "not_found", "no such page"),
    ];
    for (path, status, kind, says) in cases {
        let (got, body) = get(&server.addr, &path);
        assert_eq!(got, status, "{path}: {body}");
        conforms(&doc, &doc["components"]["schemas"]["Error"], &body, &path);
        assert_eq!(body["error"], kind, "{path}: {body}");
        assert!(body["message"].as_str().expect("message").contains(says), "{path}: {body}");
    }
}

#[test]
fn malformed_and_hostile_requests_do_not_bring_the_server_down() {
    let dir = tables();
    let server = serve(&dir);
    // (request, complete): a complete request gets an answer; a broken one may be dropped.
    let junk: Vec<(Vec<u8>, bool)> = vec![
        ((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect(), false),
        (b"GET /api/international?fen=%ZZ%00%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(), true),
        (
            format!(
                "GET /api/international?fen={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "9".repeat(200_000)
            )
            .into_bytes(),
            true,
        ),
        (
            b"POST /api/international HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\nxx"
                .to_vec(),
            true,
        ),
        (b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(), true),
        (b"\r\n\r\n\r\n".to_vec(), false),
        (b"GET / HTTP/1.1\r\n".to_vec(), false),
    ];
    for (request, complete) in &junk {
        let (status, _) = send(&server.addr, request, !complete);
        let shown = String::from_utf8_lossy(&request[..request.len().min(40)]).into_owned();
        if *complete {
            assert!((400..500).contains(&status), "status {status} for {shown:?}");
        } else {
            assert!(status == 0 || (400..500).contains(&status), "status {status} for {shown:?}");
        }
        let (status, body) = get(&server.addr, "/api/international?fen=W:WK46,K47:BK5");
        assert_eq!(status, 200, "the server stopped answering: {body}");
    }
    let (status, body) = raw(&server.addr, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
    assert!(body.contains("<title>kabe explorer</title>"));
}

#[test]
fn idle_connections_are_closed_and_capped() {
    use std::time::{Duration, Instant};
    let dir = tables();
    let mut server = serve_with(&dir, &["--max-connections", "3", "--header-timeout", "2"]);
    // Three clients that start a request and never finish its headers hold every slot.
    let idle: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.addr).expect("connect");
            stream.write_all(b"GET /api/variants HTTP/1.1\r\nHost: x\r\n").expect("write");
            stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // A fourth connection is over the cap: closed without an answer.
    let (status, _) = raw(&server.addr, b"GET /api/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 0, "a connection over the cap was served");
    // The idle ones are closed once the header timeout passes, without an answer.
    let started = Instant::now();
    for mut stream in idle {
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        let text = String::from_utf8_lossy(&reply);
        assert!(!text.contains("200 OK"), "an incomplete request was answered: {text}");
    }
    assert!(started.elapsed() < Duration::from_secs(15), "idle connections held for {:?}", started.elapsed());
    // Their slots are free again.
    let (status, body) = get(&server.addr, "/api/variants");
    assert_eq!(status, 200, "{body}");
    assert!(server.child.try_wait().expect("status").is_none(), "the server is still running");
}

#[test]
fn sigterm_lets_the_request_in_flight_finish_then_the_server_exits() {
    use std::time::{Duration, Instant};
    let dir = tables();
    let mut server = serve(&dir);
    // A proof search of the start position runs for seconds (to its node budget).
    let start = "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:\
                 B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20";
    let addr = server.addr.clone();
    let request = format!("GET /api/international/prove?fen={start}&nodes=2000000 HTTP/1.1\r\nHost: x\r\n\r\n");
    let in_flight = std::thread::spawn(move || {
        let asked = Instant::now();
        let (status, body) = raw(&addr, request.as_bytes());
        (status, body, asked.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    let kill = Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let (status, body, took) = in_flight.join().expect("client");
    assert_eq!(status, 200, "the request in flight was cut off: {body}");
    assert!(body.contains("\"elapsed_s\""), "{body}");
    let exit = loop {
        if let Some(exit) = server.child.try_wait().expect("wait") {
            break exit;
        }
        assert!(signalled.elapsed() < Duration::from_secs(20), "still running 20 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?} (the request took {took:?})");
}

/// The API's answers and errors on the committed tables, byte for byte as committed:
/// positions, lines, and every kind of bad request.
#[test]
fn the_api_answers_are_their_snapshots() {
    let server = serve(&common::committed_tables());
    let long = "1,".repeat(300);
    let paths = [
        "/api/international?fen=W:WK46,K47:BK5".to_string(),
        format!("/api/international?fen={}&counters={}", query("W:WK46,K47:BK5"), query("6.4=3")),
        "/api/international?fen=W:W28,K46:BK5".into(),
        "/api/international?fen=W:W32:B27".into(),
        "/api/international?fen=B:W32:B".into(),
        "/api/russian?fen=W:WKa1,Kc1:BKh8&counters=16b%3D58".into(),
        "/api/russian?fen=W:WKa1,Kc1:BKh8&rules=none".into(),
        "/api/international/mainline?fen=W:W28,K46:BK5".into(),
        "/api/international/mainline?fen=W:WK1:BK50".into(),
        "/api/russian/mainline?fen=W:WKa1,Kc1:BKh8&counters=16b%3D58".into(),
        "/api/international?fen=W:W99:B1".into(),
        "/api/international?fen=%20".into(),
        "/api/international".into(),
        format!("/api/international?fen=W:W{long}:B1"),
        "/api/international?fen=W:W31:B1&rules=fide".into(),
        "/api/russian?fen=W:Wa1:Bh8&rules=fmjd".into(),
        "/api/international?fen=W:WK46,K47:BK5&counters=6.4=99".into(),
        format!("/api/international?fen=W:W31:B1&counters={}", "6.2=1,".repeat(20)),
        "/api/international?fen=W:W31:B1&counters=junk".into(),
        "/api/nosuchgame?fen=W:W31:B1".into(),
        "/api/turkish?fen=W:W31:B1".into(),
        "/api/international?fen=W:W31,32,33:B1,2".into(),
    ];
    let mut answers = String::new();
    for path in paths {
        let (status, body) =
            raw(&server.addr, format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes());
        answers += &format!("GET {path}\n{status} {body}\n\n");
    }
    common::assert_snapshot("serve/answers.txt", &answers);
}
