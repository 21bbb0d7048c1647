//! A pair's own theoretical results, every position (capture positions too), two bits
//! each, as the theory pass leaves them for the rule pass.
//!
//! The rule pass leaves a position drawn in theory undecided without valuing its moves
//! ([`crate::finished::lookup::Finished::stored_results`]). The pair's compact files
//! leave capture positions out, and in the pairs of six pieces with kings on both sides
//! these are most positions (two thirds of 1212's): read from the files, each was valued
//! move by move, rule tables and all, to find it drawn. The theory pass has every value
//! in memory when it ends, so it writes them down beside the tables
//! (`<sig>.results.scratch`), the rule pass maps them, and the file goes once the rule
//! tables are written. Where the theory pass noted which positions have a capture to make
//! ([`crate::CaptureFlags`]), the file carries them too, a bit each, so that the rule
//! tables' writer need not find them again. A file that does not match the pair's DTW
//! file (another build's, cut short, damaged) is not used: the rule pass then reads the
//! compact files as before, slower and as right.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rayon::prelude::*;

use kabe_probe::{Position, RuleScore, Score, Signature, Variant, Wld};

use crate::files::NewFile;
use crate::finished::lookup::Finished;
use crate::finished::registry::{CaptureFlags, SolvedTable};
use crate::pair::TablePair;

const MAGIC: &[u8; 8] = b"KABERSLT";
/// 2: the capture flags after the results, where there are any.
const VERSION: u32 = 2;
const HEADER_LEN: usize = 64;
/// Positions encoded and written at a time, so that writing costs no second copy of a
/// table's values.
const WRITE_CHUNK: usize = 1 << 26;

/// The two-bit code of a result; 0 is no code, so that a hole reads as no value.
fn code(wld: Wld) -> u8 {
    match wld {
        Wld::Win => 1,
        Wld::Loss => 2,
        Wld::Draw => 3,
    }
}

fn result_of(code: u8) -> Option<Wld> {
    match code {
        1 => Some(Wld::Win),
        2 => Some(Wld::Loss),
        3 => Some(Wld::Draw),
        _ => None,
    }
}

/// Four results a byte, the first in the low bits.
fn encode(scores: &[Score]) -> Vec<u8> {
    scores
        .par_chunks(4)
        .map(|four| four.iter().enumerate().fold(0u8, |byte, (k, s)| byte | code(s.wld()) << (2 * k)))
        .collect()
}

/// What a results file belongs to: the table and the DTW file it was written beside.
struct Header {
    variant: String,
    signature: Signature,
    positions: u64,
    /// The header checksum of the table's DTW file when the results were written.
    dtw_checksum: u64,
    /// xxh3-64 of the body.
    body_checksum: u64,
    /// Bytes of capture flags after the results: none, or a bit a position.
    flag_bytes: u64,
}

impl Header {
    fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        let s = self.signature;
        b[12..16].copy_from_slice(&[s.white_men, s.white_kings, s.black_men, s.black_kings]);
        b[16..24].copy_from_slice(&self.positions.to_le_bytes());
        b[24..32].copy_from_slice(&self.dtw_checksum.to_le_bytes());
        b[32..40].copy_from_slice(&self.body_checksum.to_le_bytes());
        let name = self.variant.as_bytes();
        b[40..40 + name.len().min(16)].copy_from_slice(&name[..name.len().min(16)]);
        b[56..64].copy_from_slice(&self.flag_bytes.to_le_bytes());
        b
    }
}

/// The results file of `signature` under `dir`: `<dir>/<variant>/<sig>.results.scratch`.
pub fn results_path(dir: &Path, variant: &Variant, signature: Signature) -> PathBuf {
    dir.join(variant.name).join(format!("{signature}.results.scratch"))
}

/// Writes `table`'s results beside its tables, under a temporary name renamed into
/// place: `dtw_checksum` is the header checksum of the DTW file just written for it.
pub fn write_results(dir: &Path, variant: &Variant, table: &SolvedTable, dtw_checksum: u64) -> std::io::Result<()> {
    let path = results_path(dir, variant, table.index.signature());
    let mut new_file = NewFile::create(&path, path.with_extension("scratch-tmp"))?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut out = BufWriter::new(new_file.file());
    out.write_all(&[0u8; HEADER_LEN])?;
    for chunk in table.scores.chunks(WRITE_CHUNK) {
        let bytes = encode(chunk);
        hasher.update(&bytes);
        out.write_all(&bytes)?;
    }
    let flags = table.captures.as_ref().map(CaptureFlags::to_bytes).unwrap_or_default();
    hasher.update(&flags);
    out.write_all(&flags)?;
    let header = Header {
        variant: variant.name.to_string(),
        signature: table.index.signature(),
        positions: table.scores.len() as u64,
        dtw_checksum,
        body_checksum: hasher.digest(),
        flag_bytes: flags.len() as u64,
    };
    let file = out.into_inner().map_err(|e| e.into_error())?;
    std::io::Seek::seek(file, std::io::SeekFrom::Start(0))?;
    file.write_all(&header.to_bytes())?;
    new_file.commit()
}

/// Removes the results files of `pair` (and any left half written).
pub fn remove_results(dir: &Path, variant: &Variant, pair: &TablePair) {
    for &sig in pair {
        let path = results_path(dir, variant, sig);
        // Only regular files: a link or FIFO planted under these names is let be.
        let _ = crate::files::remove_own(&path.with_extension("scratch-tmp"));
        let _ = crate::files::remove_own(&path);
    }
}

enum Bytes {
    Owned(Vec<u8>),
    Mapped(Mmap),
}

impl Bytes {
    fn body(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => &m[HEADER_LEN..],
        }
    }
}

/// The results of the tables of one pair, each found with a shift and a mask.
pub struct PairResults {
    /// Each table's signature, its bytes and where in them its results end (and its
    /// capture flags, if any, begin).
    tables: Vec<(Signature, Bytes, usize)>,
}

impl PairResults {
    /// The results of tables solved in memory.
    pub fn of_solved(tables: &[SolvedTable]) -> PairResults {
        let of = |t: &SolvedTable| {
            let mut bytes = encode(&t.scores);
            let end = bytes.len();
            bytes.extend(t.captures.as_ref().map(CaptureFlags::to_bytes).unwrap_or_default());
            (t.index.signature(), Bytes::Owned(bytes), end)
        };
        PairResults { tables: tables.iter().map(of).collect() }
    }

    /// The results files of every table of `pair` under `dir`, where each is whole and
    /// written for the DTW file now beside it (`dtw_checksum(sig)`: that file's header
    /// checksum, `None` where it cannot be read); `None` where any is not.
    pub fn open(
        dir: &Path,
        variant: &Variant,
        pair: &TablePair,
        dtw_checksum: impl Fn(Signature) -> Option<u64>,
    ) -> Option<PairResults> {
        let tables = pair
            .iter()
            .map(|&sig| {
                let positions = kabe_probe::internal::MaterialIndex::new(*variant, sig)?.len();
                let bytes =
                    open_checked(&results_path(dir, variant, sig), variant, sig, positions, dtw_checksum(sig)?)?;
                Some((sig, bytes, positions.div_ceil(4) as usize))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(PairResults { tables })
    }

    /// The results of `signature`'s table, four a byte; `None` where the pair has no
    /// such table.
    fn table(&self, signature: Signature) -> Option<&[u8]> {
        self.tables.iter().find(|(s, ..)| *s == signature).map(|(_, bytes, end)| &bytes.body()[..*end])
    }

    /// The share of the pair's positions drawn in theory.
    pub fn drawn_share(&self) -> f64 {
        // Four two-bit codes a byte: a draw has both bits, a position any (0 is a hole).
        let count = |bytes: &[u8]| -> (u64, u64) {
            bytes
                .par_chunks(1 << 16)
                .map(|chunk| {
                    chunk.iter().fold((0, 0), |(drawn, valued), &b| {
                        (
                            drawn + u64::from((b & b >> 1 & 0x55).count_ones()),
                            valued + u64::from(((b | b >> 1) & 0x55).count_ones()),
                        )
                    })
                })
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        };
        let (drawn, valued) = self
            .tables
            .iter()
            .map(|(_, bytes, end)| count(&bytes.body()[..*end]))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        drawn as f64 / valued.max(1) as f64
    }

    /// Whether each position of `signature`'s table has a capture to make, where the
    /// theory pass noted it: what the rule tables' writer leaves out.
    pub fn captures(&self, signature: Signature) -> Option<impl Fn(u64) -> bool + Sync + '_> {
        let (_, bytes, end) = self.tables.iter().find(|(s, ..)| *s == signature)?;
        let flags = &bytes.body()[*end..];
        (!flags.is_empty()).then_some(move |i: u64| flags[(i / 8) as usize] >> (i % 8) & 1 != 0)
    }
}

/// The result of position `index` of a table's results (`None` past their end).
#[inline]
fn result_at(body: &[u8], index: u64) -> Option<Wld> {
    result_of(body.get((index / 4) as usize)? >> (2 * (index % 4)) & 3)
}

/// A results file mapped, where its header names `signature` of `variant` with
/// `positions` and `dtw_checksum`, its length fits and its body's checksum holds.
fn open_checked(path: &Path, variant: &Variant, sig: Signature, positions: u64, dtw_checksum: u64) -> Option<Bytes> {
    // Only a regular file of this build's own: not a link to someone else's file.
    if !std::fs::symlink_metadata(path).ok()?.file_type().is_file() {
        return None;
    }
    let file = File::open(path).ok()?;
    // SAFETY: results files are written under a temporary name and renamed into place,
    // never changed in place; the build that maps one is the only writer of its pair.
    let map = unsafe { Mmap::map(&file) }.ok()?;
    let flag_bytes = u64::from_le_bytes(map.get(56..64)?.try_into().ok()?);
    if flag_bytes != 0 && flag_bytes != positions.div_ceil(8) {
        return None;
    }
    let expected = Header {
        variant: variant.name.to_string(),
        signature: sig,
        positions,
        dtw_checksum,
        body_checksum: xxhash_rust::xxh3::xxh3_64(map.get(HEADER_LEN..)?),
        flag_bytes,
    };
    let whole = map.len() as u64 == HEADER_LEN as u64 + positions.div_ceil(4) + flag_bytes;
    (whole && map[..HEADER_LEN] == expected.to_bytes()).then_some(Bytes::Mapped(map))
}

/// Finished tables, and the pair's own results where they are at hand: what a rule pass
/// reads when the theory pass left its results.
pub struct WithResults<'a, O> {
    /// The finished tables.
    pub finished: &'a O,
    /// The pair's own theoretical results, every position.
    pub results: Option<PairResults>,
}

impl<O: Finished> Finished for WithResults<'_, O> {
    type Error = O::Error;

    #[inline]
    fn dtw(&self, position: &Position) -> Result<Score, O::Error> {
        self.finished.dtw(position)
    }

    fn dtw_of(&self, positions: &[Position], out: &mut Vec<Score>) -> Result<(), O::Error> {
        self.finished.dtw_of(positions, out)
    }

    #[inline]
    fn counted(&self, position: &Position) -> Result<RuleScore, O::Error> {
        self.finished.counted(position)
    }

    fn stored_results(
        &self,
        signature: Signature,
        first: u64,
        positions: &[Position],
        out: &mut Vec<Option<Wld>>,
    ) -> Result<(), O::Error> {
        match self.results.as_ref().and_then(|r| r.table(signature)) {
            Some(body) => out.extend((first..first + positions.len() as u64).map(|i| result_at(body, i))),
            None => return self.finished.stored_results(signature, first, positions, out),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabe_probe::internal::MaterialIndex;

    fn table(sig: Signature, flagged: bool) -> SolvedTable {
        let index = MaterialIndex::new(Variant::INTERNATIONAL, sig).expect("a table");
        let scores = (0..index.len())
            .map(|i| match i % 7 {
                0 => Score::win(1 + 2 * (i % 5) as u16),
                1 | 2 => Score::loss(2 * (i % 4) as u16),
                _ => Score::DRAW,
            })
            .collect();
        let captures = flagged.then(|| CaptureFlags::of_positions(&index));
        SolvedTable { index, scores, captures }
    }

    /// Every result and capture flag read back from a file is the one written (a table
    /// solved with its flags, the other without), and a file that belongs to another DTW
    /// file, was cut short or had a bit flipped is not used; the share drawn is counted
    /// from the codes alike (4 of each 7 positions; the last byte's holes not counted).
    #[test]
    fn results_read_back_only_from_a_whole_file_of_the_same_build() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let v = Variant::INTERNATIONAL;
        std::fs::create_dir_all(dir.path().join(v.name)).expect("the variant's folder");
        let (sig, flip) = (Signature::new(1, 0, 0, 1), Signature::new(0, 1, 1, 0));
        let tables = [table(sig, true), table(flip, false)];
        for t in &tables {
            write_results(dir.path(), &v, t, 42).expect("written");
        }
        let results = PairResults::open(dir.path(), &v, &TablePair::of(sig), |_| Some(42)).expect("both files whole");
        let in_memory = PairResults::of_solved(&tables);
        let scores = tables.iter().flat_map(|t| &t.scores);
        let drawn = scores.clone().filter(|s| s.wld() == Wld::Draw).count() as f64 / scores.count() as f64;
        assert!((drawn - 4.0 / 7.0).abs() < 0.01, "{drawn}");
        for share in [results.drawn_share(), in_memory.drawn_share()] {
            assert!((share - drawn).abs() < 1e-12, "{share} drawn, not {drawn}");
        }
        for t in &tables {
            let s = t.index.signature();
            for (i, score) in t.scores.iter().enumerate() {
                let read = |r: &PairResults| result_at(r.table(s).expect("the pair's table"), i as u64);
                assert_eq!(read(&results), Some(score.wld()), "{s} {i}");
                assert_eq!(read(&in_memory), Some(score.wld()), "{s} {i} in memory");
            }
            for r in [&results, &in_memory] {
                match (&t.captures, r.captures(s)) {
                    (Some(flags), Some(read)) => assert!((0..flags.len()).all(|i| read(i) == flags.get(i)), "{s}"),
                    (None, None) => {}
                    (written, read) => panic!("{s}: flags written {}, read {}", written.is_some(), read.is_some()),
                }
            }
        }
        assert!(tables[0].captures.as_ref().is_some_and(|f| (0..f.len()).any(|i| f.get(i))), "some flag set");
        assert!(results.table(Signature::new(1, 0, 1, 0)).is_none(), "not the pair's table");
        assert!(PairResults::open(dir.path(), &v, &TablePair::of(sig), |_| Some(43)).is_none(), "another DTW file");

        let path = results_path(dir.path(), &v, sig);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes[HEADER_LEN + 3] ^= 4;
        std::fs::write(&path, &bytes).expect("flipped");
        assert!(PairResults::open(dir.path(), &v, &TablePair::of(sig), |_| Some(42)).is_none(), "a bit flipped");
        bytes[HEADER_LEN + 3] ^= 4;
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).expect("a flag flipped");
        assert!(PairResults::open(dir.path(), &v, &TablePair::of(sig), |_| Some(42)).is_none(), "a flag flipped");
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes[..bytes.len() - 1]).expect("cut");
        assert!(PairResults::open(dir.path(), &v, &TablePair::of(sig), |_| Some(42)).is_none(), "cut short");

        remove_results(dir.path(), &v, &TablePair::of(sig));
        assert!(!path.exists() && !results_path(dir.path(), &v, flip).exists(), "removed");
    }
}
