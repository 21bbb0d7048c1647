//! The small tables committed with the crate (`tests/tables`: international and Russian
//! 2-3 pieces with their usual rule tables, one table of each pair keeping the values, as
//! `kabe generate --pieces 3` writes them): byte for byte the repository's manifests, and
//! probed here without the generator, every position of every material, both sides to
//! move (the dropped sides answered by search).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kabe_probe::internal::MaterialIndex;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Counters, Position, Signature, Variant, Wld};
use sha2::{Digest, Sha256};

fn tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables")
}

/// The manifest's SHA-256 of each file, by name.
fn manifest(variant: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../data/manifests/{variant}-2-4.txt"));
    let text = std::fs::read_to_string(&path).expect("the repository's manifest");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some((words.next()?.to_string(), words.next()?.to_string()))
        })
        .collect()
}

#[test]
fn the_committed_tables_are_the_manifests_files() {
    for variant in ["international", "russian"] {
        let listed = manifest(variant);
        let mut checked = 0;
        for entry in std::fs::read_dir(tables().join(variant)).expect("the committed tables") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().expect("a name").to_string_lossy().into_owned();
            let digest: String =
                Sha256::digest(std::fs::read(&path).expect("read")).iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(listed.get(&name), Some(&digest), "{variant}/{name}");
            checked += 1;
        }
        assert_eq!(checked, 48, "{variant}: the 16 materials of 2-3 pieces, three files each");
    }
}

#[test]
fn every_position_answers_from_the_committed_tables() {
    let tb = Tablebase::open(tables()).expect("open");
    for variant in [Variant::INTERNATIONAL, Variant::RUSSIAN] {
        assert_eq!(tb.max_pieces_of(&variant), 3);
        let rules = *tb.draw_rules(&variant).expect("open");
        let mut probed = 0u64;
        for pieces in 2..=3 {
            for sig in Signature::all_with(pieces) {
                let Some(index) = MaterialIndex::new(variant, sig) else { continue };
                for white in index.positions(0..index.len()).step_by(7) {
                    for p in [white, white.with_turn(white.turn().opposite())] {
                        let wld = tb.probe_wld(&p).unwrap_or_else(|e| panic!("{}: {e}", p.fen()));
                        let dtw = tb.probe_dtw(&p).unwrap_or_else(|e| panic!("{}: {e}", p.fen()));
                        assert_eq!(dtw.wld(), wld, "{}", p.fen());
                        let exact = tb.probe(&p, &Counters::fresh(&rules, &p)).expect("exact");
                        assert_eq!(exact.theoretical, dtw, "{}", p.fen());
                        probed += 1;
                    }
                }
            }
        }
        assert!(probed > 50_000, "{}: {probed}", variant.name);
    }
    // A capture wins outright; a king in the corner of the long diagonal, to move against
    // a king at its other end, must step onto it and is taken.
    let p = Position::from_fen(Variant::INTERNATIONAL, "W:W32:B27").expect("FEN");
    assert_eq!(tb.probe_wld(&p).expect("probe"), Wld::Win);
    let p = Position::from_fen(Variant::RUSSIAN, "W:WKa1:BKh8").expect("FEN");
    assert_eq!(tb.probe_wld(&p).expect("probe"), Wld::Loss);
}

/// A source of the engine's own (here: bytes in memory that count the reads made through
/// them) reads the same values as the file, through the same seam.
#[test]
fn a_table_reads_the_same_through_any_source() {
    use std::borrow::Cow;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    use kabe_probe::table::{MappedFile, Metric, PositionalFile, TableFile, TableSource};

    #[derive(Debug)]
    struct Counting {
        bytes: Vec<u8>,
        reads: Arc<AtomicU64>,
    }
    impl TableSource for Counting {
        fn len(&self) -> u64 {
            self.bytes.len() as u64
        }
        fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Cow<'_, [u8]>> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            self.bytes.read_at(offset, len)
        }
    }

    let variant = Variant::INTERNATIONAL;
    let sig = Signature::new(1, 1, 1, 0);
    let path = tables().join("international/1110.dtw.kabe");
    let file = TableFile::open(&path, &variant, sig, Metric::Dtw).expect("the file");
    let expected = file.all_scores().expect("scores");
    let bytes = std::fs::read(&path).expect("read");
    let reads = Arc::new(AtomicU64::new(0));
    let counting = Counting { bytes: bytes.clone(), reads: Arc::clone(&reads) };
    let own = TableFile::from_source("counted", counting, &variant, sig, Metric::Dtw).expect("from a source");
    own.verify_checksum().expect("the checksum holds");
    assert_eq!(own.all_scores().expect("scores"), expected);
    assert!(reads.load(Ordering::Relaxed) > 2, "every read went through the source");
    let positional = PositionalFile::open(&path).expect("a regular file");
    assert_eq!(positional.len(), bytes.len() as u64);
    let from_file = TableFile::from_source(&path, positional, &variant, sig, Metric::Dtw).expect("open");
    assert_eq!(from_file.all_scores().expect("scores"), expected);
    // SAFETY: the committed file is not changed while the test runs.
    let mapped = unsafe { MappedFile::open(&path) }.expect("mapped");
    let from_map = TableFile::from_source(&path, mapped, &variant, sig, Metric::Dtw).expect("open");
    assert_eq!(from_map.all_scores().expect("scores"), expected);
    // The header is checked whatever the source: another material is refused by name.
    let other = TableFile::from_source("counted-again", bytes, &variant, Signature::new(0, 1, 1, 1), Metric::Dtw);
    assert!(other.expect_err("another material").to_string().starts_with("counted-again: "));
}
