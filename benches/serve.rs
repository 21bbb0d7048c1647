//! `kabe serve` under load, over loopback: start-up time, then requests per second and
//! latency percentiles of the API at 1 and 16 concurrent clients (keep-alive
//! connections, random 2-4 piece international positions, each request a full position:
//! verdict and every move's verdict), and of the best-line endpoint at 1 and 16.
//! Bounded: at most `REQUESTS` requests or `SECONDS` seconds per run.
//!
//! Run: `cargo bench --bench serve` (tables as the probe benchmark: built on first run).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

const REQUESTS: usize = 20_000;
const SECONDS: f64 = 10.0;

/// One keep-alive connection: sends a GET, reads one response (Content-Length framed).
struct Client {
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(addr: &str) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Client { reader: BufReader::new(stream) }
    }

    fn get(&mut self, path: &str) -> u16 {
        let request = format!("GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n");
        self.reader.get_mut().write_all(request.as_bytes()).expect("send");
        let mut status_line = String::new();
        self.reader.read_line(&mut status_line).expect("status");
        let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).expect("header");
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().expect("length");
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("body");
        status
    }
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'-' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn load(addr: &str, paths: &[String], clients: usize, label: &str) {
    let start = Instant::now();
    let per_client = REQUESTS / clients;
    let results: Vec<(Vec<Duration>, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                scope.spawn(move || {
                    let mut client = Client::connect(addr);
                    let (mut latencies, mut errors) = (Vec::with_capacity(per_client), 0);
                    for i in 0..per_client {
                        if start.elapsed().as_secs_f64() > SECONDS {
                            break;
                        }
                        let path = &paths[(c * per_client + i) % paths.len()];
                        let t = Instant::now();
                        if client.get(path) != 200 {
                            errors += 1;
                        }
                        latencies.push(t.elapsed());
                    }
                    (latencies, errors)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("client")).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let errors: usize = results.iter().map(|r| r.1).sum();
    let mut all: Vec<Duration> = results.into_iter().flat_map(|r| r.0).collect();
    all.sort();
    println!(
        "{label:<12} {clients:>3} clients: {:>6} requests in {seconds:>5.2} s = {:>8.0} requests/s; latency p50 {:>8.1?} p90 {:>8.1?} p99 {:>8.1?} max {:>8.1?}; {errors} errors",
        all.len(),
        all.len() as f64 / seconds,
        percentile(&all, 0.5),
        percentile(&all, 0.9),
        percentile(&all, 0.99),
        all[all.len() - 1],
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for a list; there is nothing to list.
    }
    let dir = common::international_tables(4);
    let kabe = env!("CARGO_BIN_EXE_kabe");
    let started = Instant::now();
    let mut server = Command::new(kabe)
        .args(["serve", "--bind", "127.0.0.1:0", "--tables"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("kabe serve");
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("stdout")).read_line(&mut line).expect("first line");
    let addr = line.split("http://").nth(1).expect("address").trim().trim_end_matches('/').to_string();
    // Ready means answering: the first request after the listening line.
    let mut first = Client::connect(&addr);
    assert_eq!(first.get("/api/variants"), 200);
    println!(
        "kabe serve on {} ({}): answering {:.0} ms after start",
        addr,
        dir.display(),
        started.elapsed().as_secs_f64() * 1e3
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("machine: {threads} threads; server and clients share it (loopback)");

    let sample = common::random_positions(4096, 4, 0x9e37_79b9_7f4a_7c15);
    let positions: Vec<String> =
        sample.iter().map(|p| format!("/api/international?fen={}", encode(&p.fen()))).collect();
    let lines: Vec<String> =
        sample[..512].iter().map(|p| format!("/api/international/mainline?fen={}", encode(&p.fen()))).collect();
    for clients in [1, 16] {
        load(&addr, &positions, clients, "position");
    }
    for clients in [1, 16] {
        load(&addr, &lines, clients, "best line");
    }
    let _ = server.kill();
    let _ = server.wait();
}
