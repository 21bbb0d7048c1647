//! Measures candidate encodings of the WLD tables on a built set, to choose the file
//! format by measurement: `cargo run --release --example wld_codecs -- DIR VARIANT [NAME]`
//! (NAME: only the codecs whose name contains it).
//! Positions whose side to move must capture are "don't care" in the compact codecs:
//! they take the value of the position before them (extending its run).
use std::time::Instant;

use kabe_probe::table::{runs, Metric, TableFile};
use kabe_probe::{MaterialIndex, Variant, Wld};
use rayon::prelude::*;

fn code(w: Wld) -> u8 {
    match w {
        Wld::Loss => 0,
        Wld::Draw => 1,
        Wld::Win => 2,
    }
}

fn packed(values: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; values.len().div_ceil(4)];
    for (i, v) in values.iter().enumerate() {
        out[i / 4] |= v << (2 * (i % 4));
    }
    out
}

struct Codec {
    name: &'static str,
    block: usize,
    dont_care: bool,
    encode: fn(&[u8]) -> Vec<u8>,
    level: i32,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let variant = Variant::by_name(&args[2]).expect("variant");
    let codecs = [
        Codec {
            name: "2-bit packed, zstd 6, 16K (format 2)",
            block: 1 << 14,
            dont_care: false,
            encode: packed,
            level: 6,
        },
        Codec { name: "2-bit packed, zstd 19, 16K", block: 1 << 14, dont_care: false, encode: packed, level: 19 },
        Codec {
            name: "don't care, 2-bit packed, zstd 19, 16K",
            block: 1 << 14,
            dont_care: true,
            encode: packed,
            level: 19,
        },
        Codec {
            name: "don't care, 2-bit packed, zstd 19, 64K",
            block: 1 << 16,
            dont_care: true,
            encode: packed,
            level: 19,
        },
        Codec {
            name: "don't care, byte each, zstd 19, 16K",
            block: 1 << 14,
            dont_care: true,
            encode: |v| v.to_vec(),
            level: 19,
        },
        Codec {
            name: "don't care, byte each, zstd 19, 64K",
            block: 1 << 16,
            dont_care: true,
            encode: |v| v.to_vec(),
            level: 19,
        },
        Codec {
            name: "don't care, runs, zstd 19, 16K",
            block: 1 << 14,
            dont_care: true,
            encode: runs::encode,
            level: 19,
        },
        Codec {
            name: "don't care, runs, zstd 19, 64K",
            block: 1 << 16,
            dont_care: true,
            encode: runs::encode,
            level: 19,
        },
        Codec {
            name: "don't care, runs, no zstd, 64K",
            block: 1 << 16,
            dont_care: true,
            encode: runs::encode,
            level: 0,
        },
    ];
    let codecs: Vec<Codec> =
        codecs.into_iter().filter(|c| args.get(3).is_none_or(|only| c.name.contains(only.as_str()))).collect();
    let mut totals = vec![0u64; codecs.len()];
    let mut decode_ns = vec![0f64; codecs.len()];
    let (mut positions, mut captures) = (0u64, 0u64);
    let sigs = kabe_generator::tables_in(&dir, &variant).expect("dir");
    for sig in sigs.keys() {
        let path = kabe_generator::table_path(&dir, &variant, *sig, Metric::Dtw);
        let file = TableFile::open(&path, &variant, *sig, Metric::Dtw).expect("open");
        let values: Vec<u8> = file.all_scores().expect("read").into_iter().map(|s| code(s.wld())).collect();
        let index = MaterialIndex::new(variant, *sig).expect("index");
        let n = values.len() as u64;
        let capture: Vec<bool> = (0..n.div_ceil(1 << 14))
            .into_par_iter()
            .flat_map_iter(|c| {
                let range = c << 14..((c + 1) << 14).min(n);
                index.positions(range).map(|p| p.has_capture()).collect::<Vec<_>>()
            })
            .collect();
        positions += values.len() as u64;
        captures += capture.iter().filter(|&&c| c).count() as u64;
        let mut filled = values.clone();
        let mut last = 1u8;
        for (v, &c) in filled.iter_mut().zip(&capture) {
            if c {
                *v = last;
            } else {
                last = *v;
            }
        }
        for (k, c) in codecs.iter().enumerate() {
            let source = if c.dont_care { &filled } else { &values };
            let sizes: Vec<(u64, f64)> = source
                .par_chunks(c.block)
                .map(|chunk| {
                    let raw = (c.encode)(chunk);
                    if c.level == 0 {
                        return (raw.len() as u64 + 8, 0.0);
                    }
                    let mut z = zstd::bulk::Compressor::new(c.level).expect("zstd");
                    z.include_checksum(true).expect("zstd");
                    let packed = z.compress(&raw).expect("compress");
                    let start = Instant::now();
                    let back = zstd::bulk::decompress(&packed, raw.len()).expect("decompress");
                    let ns = start.elapsed().as_nanos() as f64;
                    assert_eq!(back, raw);
                    (packed.len() as u64 + 8, ns)
                })
                .collect();
            totals[k] += sizes.iter().map(|s| s.0).sum::<u64>();
            decode_ns[k] += sizes.iter().map(|s| s.1).sum::<f64>();
        }
    }
    println!(
        "{} WLD tables in {}: {positions} positions, {captures} with a capture ({:.1}%)",
        variant.name,
        dir.display(),
        100.0 * captures as f64 / positions as f64
    );
    for (k, c) in codecs.iter().enumerate() {
        let blocks = positions.div_ceil(c.block as u64);
        println!(
            "{:44} {:>12} bytes  {:.3} bits/position  decode {:.1} us/block",
            c.name,
            totals[k],
            totals[k] as f64 * 8.0 / positions as f64,
            decode_ns[k] / blocks as f64 / 1000.0
        );
    }
}
