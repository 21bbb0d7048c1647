//! Measures candidate encodings of every table kind (WLD, DTW, rule tables) on a built
//! set, to choose the file format by measurement:
//! `cargo run --release -p kabe-generator --example table_codecs -- DIR VARIANT [RULES]`
//! (RULES: the rule set whose tables to measure, default `fmjd`).
//!
//! Each candidate is measured two ways: every table of the set stored ("both sides"),
//! and only one table of each pair of a signature and its colour flip ("one side"), the
//! smaller of the two, the other found by a one-ply search. "Don't care" positions (a
//! capture to make; for the half-distance DTW, draws too) take the value before them,
//! so that they extend its run.
use std::collections::BTreeMap;
use std::time::Instant;

use kabe_probe::internal::table::runs;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::{DrawRuleSet, RuleScore, Score, Signature, Variant, Wld};
use rayon::prelude::*;

/// One table's values, as the candidates read them.
struct Values {
    scores: Vec<Score>,
    rules: Option<Vec<RuleScore>>,
    capture: Vec<bool>,
}

#[derive(Clone, Copy)]
enum Kind {
    Wld,
    Dtw,
    Rules,
}

/// A candidate: which values, with which positions left free, in which byte layout,
/// compressed how.
struct Codec {
    name: &'static str,
    kind: Kind,
    /// The entries, `None` where the position's value is not stored.
    entries: fn(&Values, usize) -> Option<u16>,
    layout: Layout,
    level: i32,
    block: usize,
    /// A permutation of the index: men placements fastest instead of kings.
    men_fastest: bool,
}

#[derive(Clone, Copy)]
enum Layout {
    Runs,
    Bytes,
    /// One byte an entry when every entry fits, else two.
    Bytes8or16,
}

fn wld_code(w: Wld) -> u16 {
    match w {
        Wld::Loss => 0,
        Wld::Draw => 1,
        Wld::Win => 2,
    }
}

fn wld_no_capture(v: &Values, i: usize) -> Option<u16> {
    (!v.capture[i]).then(|| wld_code(v.scores[i].wld()))
}
fn dtw_no_capture(v: &Values, i: usize) -> Option<u16> {
    (!v.capture[i]).then(|| v.scores[i].plies().unwrap_or(u16::MAX))
}
/// Half the distance, no parity (the WLD file says win or loss), draws not stored.
fn dtw_half(v: &Values, i: usize) -> Option<u16> {
    if v.capture[i] {
        return None;
    }
    v.scores[i].plies().map(|p| p / 2)
}
fn rules_no_capture(v: &Values, i: usize) -> Option<u16> {
    if v.capture[i] {
        return None;
    }
    v.rules.as_ref().map(|r| r[i].raw().min(255))
}
/// A rule value equal to the DTW (no count ends on the way) is the code 254: the reader
/// reads the DTW instead.
fn rules_unless_dtw(v: &Values, i: usize) -> Option<u16> {
    if v.capture[i] {
        return None;
    }
    let r = v.rules.as_ref()?[i];
    Some(if r == RuleScore::from_score(v.scores[i]) { 254 } else { r.raw().min(255) })
}
/// Rule values where the count decides otherwise than the theory (the rest: not stored,
/// the DTW answers), half distances.
fn rules_half_unless_dtw(v: &Values, i: usize) -> Option<u16> {
    if v.capture[i] {
        return None;
    }
    let r = v.rules.as_ref()?[i];
    if r == RuleScore::from_score(v.scores[i]) {
        return Some(254);
    }
    Some(r.decided().map_or(255, |(_, p)| p / 2))
}

fn layout_bytes(layout: Layout, values: &[u16]) -> Vec<u8> {
    match layout {
        Layout::Runs => runs::encode(&values.iter().map(|&v| v as u8).collect::<Vec<_>>()),
        Layout::Bytes => values.iter().map(|&v| v.min(255) as u8).collect(),
        Layout::Bytes8or16 => {
            if values.iter().all(|&v| v < 255 || v == u16::MAX) {
                values.iter().map(|&v| v.min(255) as u8).collect()
            } else {
                values.iter().flat_map(|v| v.to_le_bytes()).collect()
            }
        }
    }
}

/// Bytes of one table under `codec` (8 bytes of block index a block) and decode time.
fn table_bytes(codec: &Codec, index: &MaterialIndex, v: &Values) -> Option<(u64, f64)> {
    if matches!(codec.kind, Kind::Rules) && v.rules.is_none() {
        return None;
    }
    let n = v.scores.len();
    let order: Box<dyn Iterator<Item = usize>> = if codec.men_fastest {
        let kings = index.king_placements() as usize;
        let men = index.men_configurations() as usize;
        Box::new((0..kings).flat_map(move |k| (0..men).map(move |m| m * kings + k)))
    } else {
        Box::new(0..n)
    };
    let mut last = 0u16;
    let mut filled = Vec::with_capacity(n);
    for i in order {
        if let Some(e) = (codec.entries)(v, i) {
            last = e;
        }
        filled.push(last);
    }
    let sizes: Vec<(u64, f64)> = filled
        .par_chunks(codec.block)
        .map(|chunk| {
            let raw = layout_bytes(codec.layout, chunk);
            if codec.level == 0 {
                return (raw.len() as u64 + 8, 0.0);
            }
            let mut z = zstd::bulk::Compressor::new(codec.level).expect("zstd");
            z.include_checksum(true).expect("zstd");
            let packed = z.compress(&raw).expect("compress");
            let start = Instant::now();
            let back = zstd::bulk::decompress(&packed, raw.len()).expect("decompress");
            let ns = start.elapsed().as_nanos() as f64;
            assert_eq!(back, raw);
            (packed.len() as u64 + 8, ns)
        })
        .collect();
    Some((sizes.iter().map(|s| s.0).sum(), sizes.iter().map(|s| s.1).sum()))
}

/// The codecs compared: the format's own and the alternatives measured.
fn codecs(block: usize) -> Vec<Codec> {
    let codec =
        |name, kind, entries, layout, level| Codec { name, kind, entries, layout, level, block, men_fastest: false };
    let entries = |f: fn(&Values, usize) -> Option<u16>| f;
    let mut codecs = vec![
        codec("WLD runs, zstd 19 (formats 3, 4)", Kind::Wld, entries(wld_no_capture), Layout::Runs, 19),
        codec("DTW bytes, zstd 6 (format 4)", Kind::Dtw, entries(dtw_no_capture), Layout::Bytes8or16, 6),
        codec("DTW bytes, zstd 19", Kind::Dtw, entries(dtw_no_capture), Layout::Bytes8or16, 19),
        codec("DTW half distance, draws free, zstd 6", Kind::Dtw, entries(dtw_half), Layout::Bytes8or16, 6),
        codec("DTW half distance, draws free, zstd 19", Kind::Dtw, entries(dtw_half), Layout::Bytes8or16, 19),
        codec("rules bytes, zstd 6 (format 4)", Kind::Rules, entries(rules_no_capture), Layout::Bytes, 6),
        codec("rules bytes, zstd 19", Kind::Rules, entries(rules_no_capture), Layout::Bytes, 19),
        codec("rules, 254 = the DTW's, zstd 19", Kind::Rules, entries(rules_unless_dtw), Layout::Bytes, 19),
        codec("rules half, 254 = the DTW's, zstd 19", Kind::Rules, entries(rules_half_unless_dtw), Layout::Bytes, 19),
    ];
    codecs.push(Codec {
        name: "WLD runs, zstd 19, men fastest",
        kind: Kind::Wld,
        entries: wld_no_capture,
        layout: Layout::Runs,
        level: 19,
        block,
        men_fastest: true,
    });
    codecs.push(Codec {
        name: "WLD runs, zstd 19, 64K blocks",
        kind: Kind::Wld,
        entries: wld_no_capture,
        layout: Layout::Runs,
        level: 19,
        block: 1 << 16,
        men_fastest: false,
    });
    codecs
}

/// One table's DTW and rule values (a set built with both sides) and which of its
/// positions have a capture.
fn side_values(dir: &std::path::Path, variant: Variant, set: DrawRuleSet, s: Signature) -> (MaterialIndex, Values) {
    let index = MaterialIndex::new(variant, s).expect("index");
    let file = TableFile::open(&kabe_generator::table_path(dir, &variant, s, Metric::Dtw), &variant, s, Metric::Dtw)
        .expect("DTW table");
    assert!(!file.header().by_search(), "{s}: found by search; build the set with --both-sides");
    let scores = file.all_scores().expect("read");
    let rule_path = kabe_generator::table_path(dir, &variant, s, Metric::Rules(set));
    let rules = rule_path.exists().then(|| {
        TableFile::open(&rule_path, &variant, s, Metric::Rules(set))
            .expect("rule table")
            .all_rule_scores()
            .expect("read")
    });
    let n = scores.len() as u64;
    let capture: Vec<bool> = (0..n.div_ceil(1 << 14))
        .into_par_iter()
        .flat_map_iter(|c| {
            let range = c << 14..((c + 1) << 14).min(n);
            index.positions(range).map(|p| p.has_capture()).collect::<Vec<_>>()
        })
        .collect();
    (index, Values { scores, rules, capture })
}

/// The processor's model name, for the figures' machine.
fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let variant = Variant::by_name(&args[2]).expect("variant");
    let set: DrawRuleSet = args.get(3).map_or("fmjd", String::as_str).parse().expect("rule set");
    let block = 1 << 14;
    let mut codecs = codecs(block);
    if let Some(only) = args.get(4) {
        codecs.retain(|c| c.name.contains(only.as_str()));
    }

    let sigs = kabe_generator::tables_in(&dir, &variant).expect("dir");
    let (mut positions, mut captures, mut ruled_positions) = (0u64, 0u64, 0u64);
    let mut both = vec![0u64; codecs.len()];
    let mut one = vec![0u64; codecs.len()];
    let mut decode_ns = vec![0f64; codecs.len()];
    let mut blocks = 0u64;
    let mut by_pieces: BTreeMap<u32, (u64, Vec<u64>)> = BTreeMap::new();
    for &sig in sigs.keys() {
        if sig.flipped() < sig {
            continue;
        }
        let pair: Vec<Signature> = if sig.flipped() == sig { vec![sig] } else { vec![sig, sig.flipped()] };
        let mut per_side: Vec<Vec<Option<(u64, f64)>>> = Vec::new();
        for &s in &pair {
            let (index, v) = side_values(&dir, variant, set, s);
            let n = v.scores.len() as u64;
            positions += n;
            blocks += n.div_ceil(block as u64);
            captures += v.capture.iter().filter(|&&c| c).count() as u64;
            if v.rules.is_some() {
                ruled_positions += n;
            }
            by_pieces.entry(s.pieces()).or_insert((0, vec![0; codecs.len()])).0 += n;
            per_side.push(codecs.iter().map(|c| table_bytes(c, &index, &v)).collect());
        }
        for k in 0..codecs.len() {
            let sides: Vec<u64> = per_side.iter().filter_map(|s| s[k].map(|x| x.0)).collect();
            both[k] += sides.iter().sum::<u64>();
            one[k] += sides.iter().min().copied().unwrap_or(0);
            decode_ns[k] += per_side.iter().filter_map(|s| s[k].map(|x| x.1)).sum::<f64>();
            by_pieces.get_mut(&sig.pieces()).expect("entry").1[k] += sides.iter().min().copied().unwrap_or(0);
        }
    }
    let cpu = cpu_name();
    println!(
        "{} tables in {}: {positions} positions ({ruled_positions} with {} rule tables), {captures} with a capture ({:.1}%); {cpu}",
        variant.name,
        dir.display(),
        set.name(),
        100.0 * captures as f64 / positions as f64
    );
    println!(
        "{:52} {:>12} {:>9} {:>12} {:>9} {:>9}",
        "codec", "both sides", "bits/pos", "one side", "bits/pos", "us/block"
    );
    for (k, c) in codecs.iter().enumerate() {
        println!(
            "{:52} {:>12} {:>9.3} {:>12} {:>9.3} {:>9.1}",
            c.name,
            both[k],
            both[k] as f64 * 8.0 / positions as f64,
            one[k],
            one[k] as f64 * 8.0 / positions as f64,
            decode_ns[k] / blocks as f64 / 1000.0
        );
    }
    println!("one side, bits/position by pieces:");
    for (pieces, (n, bytes)) in &by_pieces {
        let row: Vec<String> = bytes.iter().map(|b| format!("{:.3}", *b as f64 * 8.0 / *n as f64)).collect();
        println!("  {pieces}: {}", row.join(" "));
    }
}
