//! Generates the moves of 20,000 positions spread evenly over one table, as a solver does:
//! `move_sample SIG [listed|counted|none]` (`counted`, the default: quiet king moves
//! counted, as the solvers ask; `listed`: every move listed; `none`: only the sample is
//! made). Run it under `valgrind --tool=cachegrind --cache-sim=no` and subtract the
//! `none` run: an instruction count per position that does not move with the load of a
//! shared machine, where timings of one build against another differ by 30%.
use kabe_probe::internal::MaterialIndex;
use kabe_probe::{MoveList, Signature, Variant};

const SAMPLE: u64 = 20_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: move_sample SIG [listed|counted|none]";
    let signature: Signature = args.get(1).expect(usage).parse().expect("a signature such as 1122");
    let index = MaterialIndex::new(Variant::INTERNATIONAL, signature).expect("a table-sized signature");
    let step = (index.len() / SAMPLE).max(1);
    let sample: Vec<_> = (0..SAMPLE.min(index.len())).map(|i| index.position(i * step)).collect();
    let mut moves = MoveList::new();
    let mut total = 0;
    match args.get(2).map_or("counted", String::as_str) {
        "none" => {}
        "listed" => {
            for p in &sample {
                p.legal_moves_into(&mut moves);
                total += moves.len();
            }
        }
        "counted" => {
            for p in &sample {
                total += p.legal_moves_counting_king_steps(&mut moves) + moves.len();
            }
        }
        other => panic!("{usage}: `{other}`"),
    }
    println!("{signature}: {} positions, {total} moves", sample.len());
}
