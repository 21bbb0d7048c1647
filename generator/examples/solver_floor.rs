//! The least time the solvers' design can take for a whole piece count: what every
//! position costs before any table is read or any value propagated, measured on samples
//! of every material, and the build time that alone comes to.
//!
//! `cargo run --release -p kabe-generator --example solver_floor -- VARIANT PIECES THREADS [DECIDED]`
//! (e.g. `international 6 2 0.538`). For every signature of PIECES pieces it takes runs of
//! consecutive positions spread over the table (as a solver steps through a chunk) and
//! times on one thread, per position:
//!
//! - *stepping*: the position of the next index (`MaterialIndex::positions`);
//! - *moves*: its legal moves with the quiet king moves counted, as the theory pass's
//!   initialisation asks for every position;
//! - *unmoves*: the quiet predecessors of the position seen as a child (turned back), as
//!   the propagation asks for every decided position, not ranked.
//!
//! It prints each material's figures, their means weighted by size, and the time on
//! THREADS threads, at perfect scaling, of one theory pass that does only these: every
//! position stepped to and its moves generated, and the share DECIDED of them (the
//! positions won or lost; by default all) taken back. No successor is ranked or read
//! and nothing is written, so a real pass takes longer; the rule pass comes on top.
use std::time::Instant;

use kabe_probe::{MaterialIndex, MoveList, Signature, Unmoves, Variant};

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: solver_floor VARIANT PIECES THREADS [DECIDED]";
    let variant = Variant::by_name(args.get(1).expect(usage)).expect("a variant such as international");
    let pieces: u32 = args.get(2).expect(usage).parse().expect("a piece count");
    let threads: f64 = args.get(3).expect(usage).parse().expect("a thread count");
    let decided: f64 = args.get(4).map_or(1.0, |d| d.parse().expect("a fraction such as 0.538"));
    let (mut positions, mut stepping, mut moves_ns, mut unmoves_ns) = (0u64, 0.0, 0.0, 0.0);
    println!("signature  positions        stepping ns  moves ns  unmoves ns");
    for signature in Signature::all_with(pieces) {
        let Some(index) = MaterialIndex::new(variant, signature).filter(|i| !i.is_empty()) else { continue };
        let len = index.len();
        let runs = RUNS.min(len.div_ceil(RUN));
        let starts: Vec<u64> = (0..runs).map(|r| (len / runs * r).min(len.saturating_sub(RUN))).collect();
        let indices: Vec<u64> = starts.iter().flat_map(|&s| s..(s + RUN).min(len)).collect();
        let step = per_position(indices.len(), || {
            starts.iter().map(|&s| index.positions(s..(s + RUN).min(len)).map(std::hint::black_box).count()).sum()
        });
        let sample: Vec<_> = indices.iter().map(|&i| index.position(i)).collect();
        let mut list = MoveList::new();
        let moves = per_position(sample.len(), || {
            sample.iter().map(|p| p.legal_moves_counting_king_steps(&mut list) + list.len()).sum()
        });
        let children: Vec<_> = sample.iter().map(|p| p.flipped()).collect();
        let unmoves = per_position(children.len(), || {
            let mut parents = 0;
            for child in &children {
                child.for_each_quiet_predecessor(Unmoves::KEEPING_MATERIAL, |_, _| parents += 1);
            }
            parents
        });
        println!("{signature}  {len:>14}  {step:>11.1}  {moves:>8.1}  {unmoves:>10.1}");
        positions += len;
        stepping += step * len as f64;
        moves_ns += moves * len as f64;
        unmoves_ns += unmoves * len as f64;
    }
    let mean = |total: f64| total / positions as f64;
    let seconds = (stepping + moves_ns + decided * unmoves_ns) / 1e9 / threads;
    println!(
        "{pieces} pieces of {}: {positions} positions (every table, both sides to move); per position: stepping {:.1} ns, \
         moves {:.1} ns, unmoves {:.1} ns",
        variant.name,
        mean(stepping),
        mean(moves_ns),
        mean(unmoves_ns)
    );
    println!(
        "floor of one theory pass ({decided} of the positions taken back) on {threads} \
         threads: {:.0} s ({:.2} h)",
        seconds,
        seconds / 3600.0,
    );
}
