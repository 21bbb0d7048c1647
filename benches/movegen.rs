#![allow(missing_docs)] // criterion_group! generates undocumented items

//! Move generation benchmarks: legal move lists, counting, perft and unmoves on
//! positions typical of each use (opening, middle game, king endgames).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kabe_probe::internal::{perft, MaterialIndex};
use kabe_probe::{MoveList, Position, Signature, Variant};

const POSITIONS: [(&str, Variant, &str); 6] = [
    ("intl-start", Variant::INTERNATIONAL, "W:W31-50:B1-20"),
    ("intl-woldouby", Variant::INTERNATIONAL, "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26"),
    ("intl-kings", Variant::INTERNATIONAL, "B:WK5,K12,K38,K39,K45:BK3,K7,K24,K42,K49"),
    ("russian-start", Variant::RUSSIAN, "W:W21-32:B1-12"),
    ("russian-kings", Variant::RUSSIAN, "W:W18,K24,K25,K30:BK8,K14,K16,K26,K27,K32"),
    ("kabe-kings", Variant::KABE, "B:WK9,10,K24,K25,K26,K31:BK1,K4,K5,K12"),
];

fn positions() -> Vec<(&'static str, Position)> {
    POSITIONS.iter().map(|(name, v, fen)| (*name, Position::from_fen(*v, fen).expect("bench FEN"))).collect()
}

fn legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for (name, p) in positions() {
        group.bench_function(name, |b| b.iter(|| black_box(&p).legal_moves()));
    }
    group.finish();
}

fn count_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("count_legal_moves");
    for (name, p) in positions() {
        group.bench_function(name, |b| b.iter(|| black_box(&p).count_legal_moves()));
    }
    group.finish();
}

fn perft_small(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(20);
    let start = Position::start(Variant::INTERNATIONAL);
    group.bench_function("intl-start-d6", |b| b.iter(|| perft(black_box(&start), 6)));
    let russian = Position::start(Variant::RUSSIAN);
    group.bench_function("russian-start-d7", |b| b.iter(|| perft(black_box(&russian), 7)));
    group.finish();
}

fn unmoves(c: &mut Criterion) {
    let mut group = c.benchmark_group("predecessors");
    for (name, p) in positions().into_iter().filter(|(n, _)| n.contains("kings")) {
        group.bench_function(format!("{name}-quiet"), |b| b.iter(|| black_box(&p).quiet_predecessors()));
        group.bench_function(format!("{name}-restore-1"), |b| b.iter(|| black_box(&p).predecessors(1)));
    }
    group.finish();
}

/// What a 6-piece solver generates moves for: 4,096 positions spread evenly over a
/// table with kings on both sides (many of them capture positions).
fn six_piece_sample(sig: &str) -> Vec<Position> {
    let signature: Signature = sig.parse().expect("bench signature");
    let index = MaterialIndex::new(Variant::INTERNATIONAL, signature).expect("a table-sized signature");
    let step = index.len() / 4096;
    (0..4096).map(|i| index.position(i * step)).collect()
}

fn endgame_tables(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves_4096");
    for sig in ["1122", "0312", "0231"] {
        let sample = six_piece_sample(sig);
        let mut moves = MoveList::new();
        // What the solvers ask for: the quiet king moves counted, not listed.
        group.bench_function(format!("{sig}-king-steps-counted"), |b| {
            b.iter(|| {
                let mut n = 0;
                for p in &sample {
                    n += p.legal_moves_counting_king_steps(&mut moves) + moves.len();
                }
                n
            })
        });
        group.bench_function(sig, |b| {
            b.iter(|| {
                let mut n = 0;
                for p in &sample {
                    p.legal_moves_into(&mut moves);
                    n += moves.len();
                }
                n
            })
        });
    }
    group.finish();
}

criterion_group!(benches, legal_moves, count_moves, perft_small, unmoves, endgame_tables);
criterion_main!(benches);
