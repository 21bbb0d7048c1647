//! Compares the values of two table sets of one variant, file by file, whatever their
//! encodings (block sizes, codecs): `cargo run --release --example compare_sets -- DIR_A
//! DIR_B VARIANT`. DTW and rule tables hold every position and are compared entry by
//! entry; WLD files leave capture positions free, so they are proven by `kabe verify`
//! instead. Files only in one set are left out. Prints one line per file that differs and a total; exits 1 on a difference.
use std::path::Path;

use kabe_probe::internal::table::parse_file_name;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::Variant;

fn open(dir: &Path, variant: &Variant, name: &str) -> Option<TableFile> {
    let path = dir.join(variant.name).join(name);
    if !path.exists() {
        return None;
    }
    let (sig, metric) = parse_file_name(name)?;
    if metric == Metric::Wld {
        return None;
    }
    MaterialIndex::new(*variant, sig)?;
    Some(TableFile::open(&path, variant, sig, metric).unwrap_or_else(|e| panic!("{e}")))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, a, b, variant] = args.as_slice() else {
        eprintln!("usage: compare_sets DIR_A DIR_B VARIANT");
        std::process::exit(2);
    };
    let variant = Variant::by_name(variant).expect("a variant");
    let (a, b) = (Path::new(a), Path::new(b));
    let mut names: Vec<String> = std::fs::read_dir(a.join(variant.name))
        .expect("DIR_A/VARIANT")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".kabe"))
        .collect();
    names.sort();
    let (mut files, mut positions, mut differing_files) = (0, 0u64, 0);
    for name in &names {
        let (Some(x), Some(y)) = (open(a, &variant, name), open(b, &variant, name)) else { continue };
        let differ = if matches!(x.header().metric, Metric::Rules(_)) {
            let (u, v) = (x.all_rule_scores().expect("read"), y.all_rule_scores().expect("read"));
            positions += u.len() as u64;
            u.iter().zip(&v).filter(|(p, q)| p != q).count() + u.len().abs_diff(v.len())
        } else {
            let (u, v) = (x.all_scores().expect("read"), y.all_scores().expect("read"));
            positions += u.len() as u64;
            u.iter().zip(&v).filter(|(p, q)| p != q).count() + u.len().abs_diff(v.len())
        };
        files += 1;
        if differ > 0 {
            differing_files += 1;
            println!("{name}: {differ} values differ");
        }
    }
    println!("{files} DTW and rule files compared value by value ({positions} entries): {differing_files} differ");
    std::process::exit(i32::from(differing_files > 0));
}
