//! The least time the solvers' design can take for a whole piece count: what every
//! position costs before any table is read or any value propagated, measured on samples
//! of every material, and the build time that alone comes to.
//!
//! `cargo run --release -p kabe-generator --example solver_floor -- VARIANT PIECES THREADS [DECIDED]`
//! (e.g. `international 6 2 data/manifests/international-2-6.txt`). For every signature of PIECES pieces it takes runs of
//! consecutive positions spread over the table (as a solver steps through a chunk) and
//! times on one thread, per position:
//!
//! - *stepping*: the position of the next index (`MaterialIndex::positions`);
//! - *moves*: its legal moves with the quiet king moves counted, as the theory pass's
//!   initialisation asks for every position;
//! - *unmoves*: the quiet predecessors of the position seen as a child (turned back), as
//!   the theory pass's propagation asks for every decided position, not ranked;
//! - *king unmoves*: the same for quiet king moves only, as the rule pass's propagation
//!   asks.
//!
//! It prints each material's figures, their means weighted by size, and the time on
//! THREADS threads, at perfect scaling, of two passes that do only these. The theory
//! pass steps to every position and generates its moves, and takes back the moves of the
//! decided ones (won or lost): DECIDED is a manifest (`kabe manifest`), whose WLD lines
//! give each table's wins and losses, or one share for every table (by default 1, all
//! decided); the rule pass
//! generates the moves of the decided positions only (a theoretical draw is drawn under
//! every count) and takes back their king moves. The verifier steps to every position
//! and generates its moves (it places the quiet king moves' successors by index, so
//! counting them is its floor too). No successor is ranked or read and nothing is
//! written, so real passes take longer.
use std::collections::HashMap;
use std::time::Instant;

use kabe_probe::internal::{MaterialIndex, Unmoves};
use kabe_probe::{MoveList, Signature, Variant};

/// Runs of consecutive positions per table, and positions per run.
const RUNS: u64 = 64;
const RUN: u64 = 256;
/// Each measurement is the least of `REPEATS` timings, each repeated until it has taken
/// `MIN_SECONDS`: a floor, so the timing least disturbed by the machine's other work.
const REPEATS: usize = 5;
const MIN_SECONDS: f64 = 0.01;

/// Nanoseconds a position of `work` over `n` positions.
fn per_position(n: usize, mut work: impl FnMut() -> usize) -> f64 {
    (0..REPEATS)
        .map(|_| {
            let mut rounds = 0u32;
            let start = Instant::now();
            while rounds == 0 || start.elapsed().as_secs_f64() < MIN_SECONDS {
                std::hint::black_box(work());
                rounds += 1;
            }
            start.elapsed().as_secs_f64() * 1e9 / (rounds as f64 * n as f64)
        })
        .fold(f64::INFINITY, f64::min)
}

/// The share of each table's positions won or lost, from the WLD lines of a manifest
/// (`SIG.wld.kabe sha256 bytes positions wins draws losses`).
fn decided_shares(manifest: &str) -> HashMap<Signature, f64> {
    let text = std::fs::read_to_string(manifest).unwrap_or_else(|e| panic!("{manifest}: {e}"));
    let mut shares = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some(signature) = fields.first().and_then(|f| f.strip_suffix(".wld.kabe")) else { continue };
        let figure = |i: usize| -> f64 {
            fields.get(i).and_then(|f| f.parse().ok()).unwrap_or_else(|| panic!("{manifest}: `{line}`"))
        };
        let signature: Signature = signature.parse().unwrap_or_else(|_| panic!("{manifest}: `{line}`"));
        shares.insert(signature, (figure(4) + figure(6)) / figure(3));
    }
    shares
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: solver_floor VARIANT PIECES THREADS [DECIDED]";
    let variant = Variant::by_name(args.get(1).expect(usage)).expect("a variant such as international");
    let pieces: u32 = args.get(2).expect(usage).parse().expect("a piece count");
    let threads: f64 = args.get(3).expect(usage).parse().expect("a thread count");
    let (share, shares) = match args.get(4) {
        None => (Some(1.0), HashMap::new()),
        Some(arg) => match arg.parse::<f64>() {
            Ok(share) => (Some(share), HashMap::new()),
            Err(_) => (None, decided_shares(arg)),
        },
    };
    let (mut positions, mut decided_positions, mut successors) = (0u64, 0.0f64, 0.0f64);
    // Nanoseconds summed over every position: stepping, moves, unmoves, king unmoves; and
    // the floors of the two passes.
    let mut totals = [0.0f64; 4];
    let (mut theory_ns, mut rules_ns) = (0.0f64, 0.0f64);
    println!("signature  positions        stepping ns  moves ns  unmoves ns  king unmoves ns");
    for signature in Signature::all_with(pieces) {
        let Some(index) = MaterialIndex::new(variant, signature).filter(|i| !i.is_empty()) else { continue };
        let len = index.len();
        let decided = share
            .or_else(|| shares.get(&signature).copied())
            .unwrap_or_else(|| panic!("{signature}: not in the manifest"));
        let runs = RUNS.min(len.div_ceil(RUN));
        let starts: Vec<u64> = (0..runs).map(|r| (len / runs * r).min(len.saturating_sub(RUN))).collect();
        let indices: Vec<u64> = starts.iter().flat_map(|&s| s..(s + RUN).min(len)).collect();
        let n = indices.len();
        let step = per_position(n, || {
            starts.iter().map(|&s| index.positions(s..(s + RUN).min(len)).map(std::hint::black_box).count()).sum()
        });
        let sample: Vec<_> = indices.iter().map(|&i| index.position(i)).collect();
        let mut list = MoveList::new();
        let moves =
            per_position(n, || sample.iter().map(|p| p.legal_moves_counting_king_steps(&mut list) + list.len()).sum());
        let moves_each: usize = sample.iter().map(|p| p.legal_moves_counting_king_steps(&mut list) + list.len()).sum();
        let children: Vec<_> = sample.iter().map(|p| p.flipped()).collect();
        let taken_back = |which: Unmoves| {
            per_position(n, || {
                let mut parents = 0;
                for child in &children {
                    child.for_each_quiet_predecessor(which, |_, _| parents += 1);
                }
                parents
            })
        };
        let costs = [step, moves, taken_back(Unmoves::KEEPING_MATERIAL), taken_back(Unmoves::KINGS)];
        println!(
            "{signature}  {len:>14}  {:>11.1}  {:>8.1}  {:>10.1}  {:>15.1}",
            costs[0], costs[1], costs[2], costs[3]
        );
        let [step, moves, unmoves, king_unmoves] = costs;
        let len = len as f64;
        theory_ns += len * (step + moves + decided * unmoves);
        rules_ns += len * decided * (step + moves + king_unmoves);
        positions += len as u64;
        successors += len * moves_each as f64 / n as f64;
        decided_positions += len * decided;
        for (total, cost) in totals.iter_mut().zip(costs) {
            *total += cost * len;
        }
    }
    let [stepping, moves, unmoves, king_unmoves] = totals.map(|t| t / positions as f64);
    println!(
        "{pieces} pieces of {}: {positions} positions (every table, both sides to move); per position: \
         stepping {stepping:.1} ns, moves {moves:.1} ns, unmoves {unmoves:.1} ns, king unmoves {king_unmoves:.1} ns",
        variant.name,
    );
    let (theory, rules) = (theory_ns / 1e9 / threads, rules_ns / 1e9 / threads);
    println!(
        "floor on {threads} threads ({:.3} of the positions decided): theory pass {theory:.0} s, \
         rule pass {rules:.0} s, both {:.0} s ({:.2} h)",
        decided_positions / positions as f64,
        theory + rules,
        (theory + rules) / 3600.0,
    );
    let verify = (stepping + moves) * positions as f64 / 1e9 / threads;
    println!(
        "floor of verification on {threads} threads: {verify:.0} s ({:.2} h); {:.1} moves a position to read the successors of",
        verify / 3600.0,
        successors / positions as f64
    );
}
