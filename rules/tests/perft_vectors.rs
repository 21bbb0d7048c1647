//! Streams the perft data files under data/perft and checks every count that is cheap
//! enough for a test run; `kabe perft --vectors FILE` runs the deep ones.

use kabe_rules::{parse_perft_vectors, perft};

const MAX_NODES: u64 = 2_000_000;

fn check_file(name: &str) {
    let path = format!("{}/../data/perft/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let vectors = parse_perft_vectors(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(!vectors.is_empty(), "{path} holds no vectors");
    let mut checked = 0;
    for v in &vectors {
        for &(depth, expected) in v.counts.iter().filter(|(_, n)| *n <= MAX_NODES) {
            assert_eq!(perft(&v.position, depth), expected, "{path}: {} depth {depth} ({})", v.id, v.position.fen());
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn international_vectors() {
    check_file("international.perft");
}

#[test]
fn russian_vectors() {
    check_file("russian.perft");
}

#[test]
fn kabe_vectors() {
    check_file("kabe.perft");
}

#[test]
fn english_vectors_are_the_published_counts() {
    check_file("english.perft");
}

#[test]
fn turkish_vectors() {
    check_file("turkish.perft");
}

#[test]
fn other_8x8_vectors() {
    check_file("other8x8.perft");
}

#[test]
fn malformed_vector_files_are_errors_naming_the_line() {
    let err = parse_perft_vectors("id x\nvariant international\nfen W:W31:B1\nperft 1\n").expect_err("bad");
    assert!(err.starts_with("line 4:"), "{err}");
    let err = parse_perft_vectors("id x\nvariant chess\n").expect_err("bad");
    assert!(err.contains("unknown variant"), "{err}");
}
