//! Times solving every table of a variant up to N pieces in memory: `cargo run --release --example time_solve -- VARIANT PIECES`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant = kabe_probe::Variant::by_name(&args[1]).expect("variant");
    let pieces: u32 = args[2].parse().expect("pieces");
    let start = std::time::Instant::now();
    let mut total = 0u64;
    let mut last = std::time::Instant::now();
    let registry = kabe_generator::solve_all(variant, pieces, |t| {
        total += t.scores.len() as u64;
        let now = std::time::Instant::now();
        eprintln!("{} {} positions {:.2}s", t.index.signature(), t.scores.len(), (now - last).as_secs_f64());
        last = now;
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} {} pieces: {total} positions in {secs:.1}s = {:.2} M pos/s",
        variant.name,
        pieces,
        total as f64 / secs / 1e6
    );
    drop(registry);
}
