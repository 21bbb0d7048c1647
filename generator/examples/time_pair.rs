//! Times solving one pair (a signature and its colour flip) in memory, reading the
//! finished tables it needs from a table directory, without writing anything:
//! `cargo run --release -p kabe-generator --example time_pair -- DIR VARIANT SIG [ROUNDS]`
//! (e.g. `tables international 2111`). Prints each round's time and positions/s.
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Signature, Variant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: time_pair DIR VARIANT SIG [ROUNDS]";
    let dir = args.get(1).expect(usage);
    let variant = Variant::by_name(args.get(2).expect(usage)).expect("a variant");
    let digits: Vec<u8> = args.get(3).expect(usage).bytes().map(|b| b - b'0').collect();
    let sig = Signature::new(digits[0], digits[1], digits[2], digits[3]);
    let rounds: usize = args.get(4).map_or(1, |r| r.parse().expect("rounds"));
    let tb = Tablebase::builder(dir).variants(&[variant]).cache_bytes(1 << 30).open().expect("open");
    for round in 1..=rounds {
        let start = std::time::Instant::now();
        let tables = kabe_generator::solve_pair(&tb, variant, sig, &|_| {}).expect("the tables it reads");
        let secs = start.elapsed().as_secs_f64();
        let positions: u64 = tables.iter().map(|t| t.scores.len() as u64).sum();
        println!(
            "round {round}: {}+{} {positions} positions in {secs:.1} s, {:.2} M positions/s ({} threads)",
            sig,
            sig.flipped(),
            positions as f64 / secs / 1e6,
            rayon::current_num_threads()
        );
    }
}
