#![allow(missing_docs)] // criterion_group! generates undocumented items

//! Probe library speed: cached WLD, DTW and exact probes (criterion), then the figures the
//! issue asks for, printed: single-probe latency median and p99, throughput with 1 and 2
//! threads, cold-block latency and the cache's memory.
//!
//! Tables: international up to 4 pieces with `fmjd` rule tables, built into
//! `target/bench-tables/probe-international-4` on first run (about a minute), or
//! `$KABE_BENCH_TABLES`. Run: `cargo bench --bench probe` (add `-- --quick` for a short
//! criterion pass); `benches/probe.sh` prints only the figures.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::Criterion;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Counters, Position, Variant};

mod common;

const PIECES: u32 = 4;
const SAMPLE: usize = 200_000;

fn tables() -> PathBuf {
    common::international_tables(PIECES)
}

fn criterion_benches(c: &mut Criterion, tb: &Tablebase, positions: &[Position]) {
    let rules = *tb.draw_rules(&Variant::INTERNATIONAL).expect("open");
    let counters: Vec<Counters> = positions.iter().map(|p| Counters::fresh(&rules, p)).collect();
    let mut group = c.benchmark_group("probe");
    let mut i = 0;
    group.bench_function("wld_cached", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(tb.probe_wld(black_box(&positions[i])).expect("probe"))
        })
    });
    group.bench_function("dtw_cached", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(tb.probe_dtw(black_box(&positions[i])).expect("probe"))
        })
    });
    group.bench_function("exact_cached", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(tb.probe(black_box(&positions[i]), &counters[i]).expect("probe"))
        })
    });
    group.finish();
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// Probes per second over `positions`, on `threads` threads each probing all of them.
fn throughput(tb: &Tablebase, positions: &[Position], threads: usize) -> f64 {
    let rounds = 10;
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                for r in 0..rounds {
                    // Each thread walks the sample from its own place.
                    let offset = (t * positions.len() / threads.max(1) + r * 7919) % positions.len();
                    for p in positions[offset..].iter().chain(&positions[..offset]) {
                        black_box(tb.probe_wld(p).expect("probe"));
                    }
                }
            });
        }
    });
    (threads * rounds * positions.len()) as f64 / start.elapsed().as_secs_f64()
}

fn sorted(mut times: Vec<f64>) -> Vec<f64> {
    times.sort_by(f64::total_cmp);
    times
}

/// The median cost of reading the timer, measured as a probe is: taken off each
/// single-probe time.
fn timer_cost() -> f64 {
    let overhead = (0..100_000).map(|_| {
        let t = Instant::now();
        black_box(());
        t.elapsed().as_nanos() as f64
    });
    percentile(&sorted(overhead.collect()), 0.5)
}

/// Nanoseconds of `probe` on each of `positions`, less `timer`, sorted.
fn single_probe_ns(positions: &[Position], timer: f64, probe: impl Fn(&Position)) -> Vec<f64> {
    let times = positions.iter().map(|p| {
        let t = Instant::now();
        probe(black_box(p));
        t.elapsed().as_nanos() as f64 - timer
    });
    sorted(times.collect())
}

/// Cold WLD probes, sorted: all of them, those with no capture to play, those with one.
struct Cold {
    all: Vec<f64>,
    quiet: Vec<f64>,
    capture: Vec<f64>,
}

/// Cold: a tablebase whose cache holds a few blocks, so that nearly every probe decodes
/// the blocks it reads (the file pages are in the OS cache; the zstd contexts made by a
/// warm-up). Capture positions apart: they probe what their captures reach. Read by
/// positional reads (the default) or memory-mapped.
fn cold_wld(dir: &PathBuf, positions: &[Position], mapped: bool) -> Cold {
    let builder = Tablebase::builder(dir).cache_bytes(64 << 10);
    // SAFETY: nothing writes the bench's tables while they are open.
    let builder = if mapped { unsafe { builder.memory_map() } } else { builder };
    let cold_tb = builder.open().expect("open");
    for p in &positions[..100] {
        black_box(cold_tb.probe_wld(p).expect("probe"));
    }
    let (mut all, mut quiet, mut capture) = (Vec::new(), Vec::new(), Vec::new());
    for p in &positions[100..20_100] {
        let t = Instant::now();
        black_box(cold_tb.probe_wld(p).expect("probe"));
        let ns = t.elapsed().as_nanos() as f64;
        all.push(ns);
        if p.has_capture() {
            capture.push(ns)
        } else {
            quiet.push(ns)
        }
    }
    Cold { all: sorted(all), quiet: sorted(quiet), capture: sorted(capture) }
}

/// Cold stored values alone (`probe_wld_stored`), sorted, on positions a table holds.
fn cold_stored(dir: &PathBuf, stored_positions: &[Position]) -> Vec<f64> {
    let cold_tb = Tablebase::builder(dir).cache_bytes(64 << 10).open().expect("open");
    for p in &stored_positions[..100] {
        black_box(cold_tb.probe_wld_stored(p).expect("probe"));
    }
    let times = stored_positions[100..stored_positions.len().min(20_100)].iter().map(|p| {
        let t = Instant::now();
        black_box(cold_tb.probe_wld_stored(p).expect("probe"));
        t.elapsed().as_nanos() as f64
    });
    sorted(times.collect())
}

/// Positions in the blocks [`decode_medians`] decodes.
const DECODED_BLOCK: usize = 16_384;

/// The run decoder alone on the worst block of 16K positions (every run one position)
/// and the best (one run), medians in microseconds: the cold probe's p99 is set by blocks
/// of short runs.
fn decode_medians() -> (f64, f64) {
    let block = DECODED_BLOCK;
    let worst: Vec<u8> = (0..block).map(|i| (i % 3) as u8).collect();
    let decode_us = |values: &[u8]| {
        let code = kabe_probe::internal::table::runs::encode(values);
        let times = (0..2_000).map(|_| {
            let t = Instant::now();
            black_box(kabe_probe::internal::table::runs::decode_packed(black_box(&code), block).expect("decodes"));
            t.elapsed().as_nanos() as f64 / 1e3
        });
        percentile(&sorted(times.collect()), 0.5)
    };
    (decode_us(&worst), decode_us(&vec![1u8; block]))
}

fn figures(dir: &PathBuf, positions: &[Position]) {
    // A tablebase holding only the WLD blocks the sample needs, as an engine probing WLD has.
    let tb = &Tablebase::builder(dir).cache_bytes(256 << 20).open().expect("open");
    for p in positions {
        tb.probe_wld(p).expect("probe");
    }
    let timer = timer_cost();
    let ns = single_probe_ns(positions, timer, |p| {
        black_box(tb.probe_wld(p).expect("probe"));
    });
    // The same positions' stored values alone (`probe_wld_stored`: no search; the
    // positions a table leaves out answer `None` at once).
    let stored_positions: Vec<Position> =
        positions.iter().filter(|p| tb.probe_wld_stored(p).expect("probe").is_some()).copied().collect();
    let stored_ns = single_probe_ns(&stored_positions, timer, |p| {
        black_box(tb.probe_wld_stored(p).expect("probe"));
    });
    // Interleaved trials, medians: this machine is a VM whose neighbours come and go.
    let (ones, twos): (Vec<f64>, Vec<f64>) =
        (0..7).map(|_| (throughput(tb, positions, 1), throughput(tb, positions, 2))).unzip();
    let (one, two) = (percentile(&sorted(ones), 0.5), percentile(&sorted(twos), 0.5));
    let stats = tb.cache_stats();
    let cold_stored = cold_stored(dir, &stored_positions);
    let mapped_cold = cold_wld(dir, positions, true).all;
    let Cold { all: cold, quiet: cold_quiet, capture: cold_capture } = cold_wld(dir, positions, false);
    let (decode_worst, decode_best) = decode_medians();
    let block = DECODED_BLOCK;

    println!();
    println!("== probe figures: international, {} random positions of 2-{PIECES} pieces ==", positions.len());
    println!("machine: {} cores", std::thread::available_parallelism().map(std::num::NonZeroUsize::get).unwrap_or(1));
    println!(
        "cached WLD probe (probe_wld, any position: a left-out one by search): median {:.0} ns, p99 {:.0} ns (timer cost {timer:.0} ns taken off)",
        percentile(&ns, 0.5),
        percentile(&ns, 0.99)
    );
    println!(
        "cached stored WLD value (probe_wld_stored, the {} of {} positions a table holds): median {:.0} ns, p99 {:.0} ns",
        stored_positions.len(),
        positions.len(),
        percentile(&stored_ns, 0.5),
        percentile(&stored_ns, 0.99)
    );
    println!("throughput 1 thread:  {:.2} M probes/s (median of 7 trials)", one / 1e6);
    println!("throughput 2 threads: {:.2} M probes/s ({:.2}x)", two / 1e6, two / one);
    println!(
        "cold WLD probe (cache of 64 KiB: nearly every block decoded; file in the OS page cache): median {:.1} us, p99 {:.1} us over {} probes",
        percentile(&cold, 0.5) / 1e3,
        percentile(&cold, 0.99) / 1e3,
        cold.len()
    );
    println!(
        "  a stored value alone (probe_wld_stored): median {:.1} us, p99 {:.1} us over {} probes",
        percentile(&cold_stored, 0.5) / 1e3,
        percentile(&cold_stored, 0.99) / 1e3,
        cold_stored.len()
    );
    println!(
        "  the same, memory-mapped (opt-in): median {:.1} us, p99 {:.1} us",
        percentile(&mapped_cold, 0.5) / 1e3,
        percentile(&mapped_cold, 0.99) / 1e3
    );
    println!(
        "  of which no capture: median {:.1} us, p99 {:.1} us ({}); a capture to play: median {:.1} us, p99 {:.1} us ({})",
        percentile(&cold_quiet, 0.5) / 1e3,
        percentile(&cold_quiet, 0.99) / 1e3,
        cold_quiet.len(),
        percentile(&cold_capture, 0.5) / 1e3,
        percentile(&cold_capture, 0.99) / 1e3,
        cold_capture.len()
    );
    println!(
        "run decoding of a {block}-position block: every run one position {decode_worst:.1} us, one run {decode_best:.2} us (medians)"
    );
    println!(
        "cache: {} blocks, {:.1} MiB used of {:.0} MiB",
        stats.blocks,
        stats.used_bytes as f64 / (1 << 20) as f64,
        stats.capacity_bytes as f64 / (1 << 20) as f64
    );
}

fn main() {
    let dir = tables();
    let positions = common::random_positions(SAMPLE, PIECES, 0x2545_f491_4f6c_dd1d);
    if std::env::args().all(|a| a != "--figures-only") {
        let tb = Tablebase::builder(&dir).cache_bytes(256 << 20).open().expect("open");
        // Warm the cache: every block the sample touches, for each metric.
        let rules = *tb.draw_rules(&Variant::INTERNATIONAL).expect("open");
        for p in &positions {
            tb.probe_wld(p).expect("probe");
            tb.probe(p, &Counters::fresh(&rules, p)).expect("probe");
        }
        let mut c = Criterion::default().configure_from_args().warm_up_time(Duration::from_millis(500));
        criterion_benches(&mut c, &tb, &positions);
        c.final_summary();
    }
    figures(&dir, &positions);
}
