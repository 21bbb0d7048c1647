//! Writing table files: blocks compressed in parallel, written under a temporary name,
//! flushed to disk and renamed, so a table either exists complete or not at all.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use kabe_probe::internal::table::{
    encode_dtw_block, encode_rule_block, encode_wld_block, file_name, Header, TableFlags, FORMAT_VERSION, HEADER_LEN,
};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::Metric;
use kabe_probe::{DrawRuleSet, RuleScore, Score};
use rayon::prelude::*;

use crate::files::NewFile;
use crate::finished::registry::SolvedTable;
use crate::solve::rules::RuleTable;

/// Positions per block: a DTW block is at most 32 KiB before compression.
pub const BLOCK_POSITIONS: u32 = 1 << 14;
/// Positions per WLD block: 4 KiB once expanded. 64K-position blocks are 14-18% smaller
/// but a cold probe decodes four times as much (docs/tables.md, "Compact files, chosen by
/// measurement"); readers take the block size from the header, so files of either size
/// read the same.
pub const WLD_BLOCK_POSITIONS: u32 = 1 << 14;
/// zstd level of the WLD run code (small: the best level costs little).
const WLD_ZSTD_LEVEL: i32 = 19;
/// zstd level of DTW and rule blocks: 0222's DTW (1.16 G positions) takes 17.0 s of one
/// thread at level 6 and 3.9 s at level 3 for 20% more bytes, a small part of a build
/// that takes hours (docs/benchmarks.md); higher levels cost more for 11-17% less.
const ZSTD_LEVEL: i32 = 6;

/// Writes the `metric` table of `table` under `dir`; returns its path.
pub fn write_table(dir: &Path, variant: &str, table: &SolvedTable, metric: Metric) -> std::io::Result<PathBuf> {
    write_file(dir.join(file_name(variant, table.index.signature(), metric)), &table_bytes(variant, table, metric)?)
}

/// Writes the `metrics` tables of `table` under `dir` (WLD and DTW), each block's capture
/// positions found once for all of them; returns the paths.
pub fn write_tables(
    dir: &Path,
    variant: &str,
    table: &SolvedTable,
    metrics: &[Metric],
) -> std::io::Result<Vec<PathBuf>> {
    let per = BLOCK_POSITIONS;
    debug_assert!(metrics.iter().all(|m| block_positions(*m) == per));
    let bits: Vec<u8> = metrics.iter().map(|m| entry_bits(*m, &table.scores)).collect::<std::io::Result<_>>()?;
    let blocks: Vec<Vec<Vec<u8>>> = table
        .scores
        .par_chunks(per as usize)
        .enumerate()
        .map_init(
            || {
                metrics
                    .iter()
                    .map(|m| {
                        let mut c = zstd::bulk::Compressor::new(zstd_level(*m))?;
                        c.include_checksum(true)?;
                        Ok(c)
                    })
                    .collect::<std::io::Result<Vec<_>>>()
            },
            |compressors, (b, chunk)| {
                let compressors = compressors.as_mut().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
                let captures = table_captures_in(table, b as u64 * per as u64, chunk.len());
                metrics
                    .iter()
                    .zip(&bits)
                    .zip(compressors.iter_mut())
                    .map(|((&metric, &entry_bits), c)| {
                        c.compress(&encode_entries(metric, entry_bits, chunk, &captures))
                    })
                    .collect::<std::io::Result<Vec<_>>>()
            },
        )
        .collect::<std::io::Result<_>>()?;
    // Each metric's blocks moved out, not copied: a 6-piece DTW file is hundreds of MB.
    let mut by_metric: Vec<Vec<Vec<u8>>> = metrics.iter().map(|_| Vec::with_capacity(blocks.len())).collect();
    for block in blocks {
        for (k, bytes) in block.into_iter().enumerate() {
            by_metric[k].push(bytes);
        }
    }
    let mut paths = Vec::new();
    for ((k, &metric), of_metric) in metrics.iter().enumerate().zip(by_metric) {
        let bytes = frame(variant, &table.index, Layout::stored(metric, bits[k], per), table.scores.len(), of_metric);
        paths.push(write_file(dir.join(file_name(variant, table.index.signature(), metric)), &bytes)?);
    }
    Ok(paths)
}

/// Writes the rule table of `set` under `dir`; returns its path. `captures` says which
/// positions have a capture to make where the caller knows (the theory pass's results);
/// without it they are found from the positions.
pub fn write_rule_table(
    dir: &Path,
    variant: &str,
    table: &RuleTable,
    set: DrawRuleSet,
    captures: Option<&(dyn Fn(u64) -> bool + Sync)>,
) -> std::io::Result<PathBuf> {
    let metric = Metric::Rules(set);
    let blocks = compress(&table.values, BLOCK_POSITIONS, ZSTD_LEVEL, |b, chunk| {
        let captures = noted_captures_in(&table.index, captures, (b * BLOCK_POSITIONS as usize) as u64, chunk.len());
        encode_rule_block(chunk, |i| captures[i])
    })?;
    let bytes = frame(variant, &table.index, Layout::stored(metric, 8, BLOCK_POSITIONS), table.values.len(), blocks);
    write_file(dir.join(file_name(variant, table.index.signature(), metric)), &bytes)
}

/// Temporary name, flush, rename: the file exists complete or not at all.
fn write_file(path: PathBuf, bytes: &[u8]) -> std::io::Result<PathBuf> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut file = NewFile::create(&path, tmp_path(&path))?;
    file.write_all(bytes)?;
    file.commit()?;
    Ok(path)
}

/// Where the table file at `path` is written until whole: `0101.dtw.kabe.tmp`.
fn tmp_path(path: &Path) -> PathBuf {
    path.with_extension("kabe.tmp")
}

/// Each block a zstd frame with its content checksum, so that a damaged block is an
/// error when it is read, never a wrong value.
/// `encode` receives each block's number and values.
fn compress<T: Sync>(
    values: &[T],
    block_positions: u32,
    level: i32,
    encode: impl Fn(usize, &[T]) -> Vec<u8> + Sync,
) -> std::io::Result<Vec<Vec<u8>>> {
    values
        .par_chunks(block_positions as usize)
        .enumerate()
        .map_init(
            || {
                let mut c = zstd::bulk::Compressor::new(level)?;
                c.include_checksum(true)?;
                Ok::<_, std::io::Error>(c)
            },
            |c, (b, chunk)| {
                c.as_mut().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?.compress(&encode(b, chunk))
            },
        )
        .collect()
}

/// The complete file contents.
pub fn table_bytes(variant: &str, table: &SolvedTable, metric: Metric) -> std::io::Result<Vec<u8>> {
    let entry_bits = entry_bits(metric, &table.scores)?;
    let per = block_positions(metric);
    let blocks = compress(&table.scores, per, zstd_level(metric), |b, chunk: &[Score]| {
        encode_entries(metric, entry_bits, chunk, &table_captures_in(table, b as u64 * per as u64, chunk.len()))
    })?;
    Ok(frame(variant, &table.index, Layout::stored(metric, entry_bits, per), table.scores.len(), blocks))
}

/// Bits per entry: WLD 2, DTW 8 where every distance fits a byte, else 16.
fn entry_bits(metric: Metric, scores: &[Score]) -> std::io::Result<u8> {
    match metric {
        Metric::Wld => Ok(2),
        Metric::Dtw if scores.iter().all(|s| s.plies().is_none_or(|p| p < u8::MAX as u16)) => Ok(8),
        Metric::Dtw => Ok(16),
        // A distance within a count fits a byte (`encode_rule_block`).
        Metric::Rules(_) => Ok(8),
    }
}

fn block_positions(metric: Metric) -> u32 {
    if metric == Metric::Wld {
        WLD_BLOCK_POSITIONS
    } else {
        BLOCK_POSITIONS
    }
}

fn zstd_level(metric: Metric) -> i32 {
    if metric == Metric::Wld {
        WLD_ZSTD_LEVEL
    } else {
        ZSTD_LEVEL
    }
}

/// Which of `len` positions from index `first` have a capture to make: they hold no
/// value of their own in any table ([`TableFlags::CAPTURES_FREE`]).
fn captures_in(index: &MaterialIndex, first: u64, len: usize) -> Vec<bool> {
    index.positions(first..first + len as u64).map(|p| p.has_capture()).collect()
}

/// [`captures_in`], read from `noted` (whether position `i` has a capture) where the
/// caller has it.
fn noted_captures_in(
    index: &MaterialIndex,
    noted: Option<&(dyn Fn(u64) -> bool + Sync)>,
    first: u64,
    len: usize,
) -> Vec<bool> {
    match noted {
        Some(noted) => (first..first + len as u64).map(noted).collect(),
        None => captures_in(index, first, len),
    }
}

/// [`captures_in`] of a solved table: from the flags its solver noted, where it did.
fn table_captures_in(table: &SolvedTable, first: u64, len: usize) -> Vec<bool> {
    let noted = table.captures.as_ref().map(|flags| move |i| flags.get(i));
    noted_captures_in(&table.index, noted.as_ref().map(|f| f as &(dyn Fn(u64) -> bool + Sync)), first, len)
}

/// Block `b`'s entries before compression.
fn encode_table_block(index: &MaterialIndex, metric: Metric, entry_bits: u8, b: u64, chunk: &[Score]) -> Vec<u8> {
    let captures = captures_in(index, b * block_positions(metric) as u64, chunk.len());
    encode_entries(metric, entry_bits, chunk, &captures)
}

/// A block's entries before compression, the positions flagged in `captures` left out.
fn encode_entries(metric: Metric, entry_bits: u8, chunk: &[Score], captures: &[bool]) -> Vec<u8> {
    let dont_care = |i: usize| captures[i];
    match metric {
        Metric::Wld => encode_wld_block(chunk, dont_care),
        // The values are rule values carried in scores' two bytes (a store keeps either).
        Metric::Rules(_) => {
            encode_rule_block(&chunk.iter().map(|s| RuleScore::from_raw(s.raw())).collect::<Vec<_>>(), dont_care)
        }
        Metric::Dtw => encode_dtw_block(entry_bits, chunk, dont_care),
    }
}

/// Writes the `metric` table of `index` whose scores `scores_of` reads a range at a
/// time, never holding them all (a pair solved in slices keeps its values on disk):
/// blocks are compressed a batch at a time and appended; the block index and the header,
/// whose checksum is hashed by reading the file back, go last; then the file is flushed
/// and renamed. The bytes equal [`table_bytes`]'s.
pub(crate) fn write_table_streamed(
    dir: &Path,
    variant: &str,
    index: &MaterialIndex,
    metric: Metric,
    scores_of: &(dyn Fn(std::ops::Range<u64>) -> std::io::Result<Vec<Score>> + Sync),
) -> std::io::Result<PathBuf> {
    use std::io::{Read, Seek, SeekFrom};
    const BATCH: u64 = 256;
    let positions = index.len();
    let per = block_positions(metric) as u64;
    let blocks = positions.div_ceil(per);
    let range_of = |b: u64| b * per..((b + 1) * per).min(positions);
    let mut bits = entry_bits(metric, &[])?;
    for batch in (0..blocks).step_by(BATCH as usize) {
        if metric != Metric::Dtw || bits != 8 {
            break; // no choice to make, or a distance already too long for a byte
        }
        let first = range_of(batch).start;
        let last = range_of((batch + BATCH).min(blocks) - 1).end;
        bits = entry_bits(metric, &scores_of(first..last)?)?;
    }
    let path = dir.join(file_name(variant, index.signature(), metric));
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut new_file = NewFile::create(&path, tmp_path(&path))?;
    let file = new_file.file();
    let index_at = HEADER_LEN as u64;
    let mut offset = index_at + 8 * (blocks + 1);
    file.set_len(offset)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut offsets = Vec::with_capacity(blocks as usize + 1);
    let mut out = std::io::BufWriter::new(&mut *file);
    for batch in (0..blocks).step_by(BATCH as usize) {
        let compressed: Vec<Vec<u8>> = (batch..(batch + BATCH).min(blocks))
            .into_par_iter()
            .map_init(
                || {
                    let mut c = zstd::bulk::Compressor::new(zstd_level(metric))?;
                    c.include_checksum(true)?;
                    Ok::<_, std::io::Error>(c)
                },
                |c, b| {
                    let c = c.as_mut().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
                    let scores = scores_of(range_of(b))?;
                    c.compress(&encode_table_block(index, metric, bits, b, &scores))
                },
            )
            .collect::<std::io::Result<_>>()?;
        for block in compressed {
            offsets.push(offset);
            offset += block.len() as u64;
            out.write_all(&block)?;
        }
    }
    offsets.push(offset);
    drop(out);
    let index_bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    file.seek(SeekFrom::Start(index_at))?;
    file.write_all(&index_bytes)?;
    let mut header = Header {
        version: FORMAT_VERSION,
        metric,
        entry_bits: bits,
        flags: TableFlags::CAPTURES_FREE,
        signature: index.signature(),
        variant: variant.to_string(),
        positions,
        block_positions: per as u32,
        blocks: blocks as u32,
        checksum: 0,
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&header.to_bytes()[..56]);
    file.seek(SeekFrom::Start(index_at))?;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    header.checksum = hasher.digest();
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header.to_bytes())?;
    new_file.commit()?;
    Ok(path)
}

/// How a file's entries are laid out: the header fields besides material and size.
struct Layout {
    metric: Metric,
    entry_bits: u8,
    flags: TableFlags,
    block_positions: u32,
}

impl Layout {
    /// A table that stores its values, capture positions left out.
    fn stored(metric: Metric, entry_bits: u8, block_positions: u32) -> Layout {
        Layout { metric, entry_bits, flags: TableFlags::CAPTURES_FREE, block_positions }
    }
}

/// Header, block index and blocks.
fn frame(variant: &str, index: &MaterialIndex, layout: Layout, positions: usize, blocks: Vec<Vec<u8>>) -> Vec<u8> {
    let Layout { metric, entry_bits, flags, block_positions } = layout;
    let mut header = Header {
        version: FORMAT_VERSION,
        metric,
        entry_bits,
        flags,
        signature: index.signature(),
        variant: variant.to_string(),
        positions: positions as u64,
        block_positions,
        blocks: blocks.len() as u32,
        checksum: 0,
    };
    // The file built once, not a body and then a copy of it; the header, whose checksum
    // covers what follows it, filled in last.
    let mut out = vec![0u8; HEADER_LEN];
    out.reserve(8 * (blocks.len() + 1) + blocks.iter().map(Vec::len).sum::<usize>());
    let mut offset = (HEADER_LEN + 8 * (blocks.len() + 1)) as u64;
    for b in &blocks {
        out.extend_from_slice(&offset.to_le_bytes());
        offset += b.len() as u64;
    }
    out.extend_from_slice(&offset.to_le_bytes());
    for b in blocks {
        out.extend_from_slice(&b);
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&header.to_bytes()[..56]);
    hasher.update(&out[HEADER_LEN..]);
    header.checksum = hasher.digest();
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes());
    out
}

/// Replaces the `metric` table of `index` under `dir` by one that holds no values
/// ([`TableFlags::BY_SEARCH`]): its positions are found by a one-ply search through its
/// colour flip's table, which must be stored. Returns the path.
pub fn write_table_by_search(
    dir: &Path,
    variant: &str,
    index: &MaterialIndex,
    metric: Metric,
) -> std::io::Result<PathBuf> {
    let layout =
        Layout { metric, entry_bits: 0, flags: TableFlags::BY_SEARCH, block_positions: block_positions(metric) };
    let bytes = frame(variant, index, layout, index.len() as usize, Vec::new());
    write_file(dir.join(file_name(variant, index.signature(), metric)), &bytes)
}
