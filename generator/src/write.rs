//! Writing table files: blocks compressed in parallel, written under a temporary name,
//! flushed to disk and renamed, so a table either exists complete or not at all.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use kabe_probe::table::{encode_block, file_name, Header, Metric, FORMAT_VERSION, HEADER_LEN};
use kabe_probe::Score;
use rayon::prelude::*;

use crate::registry::SolvedTable;

/// Positions per block: a DTW block is at most 32 KiB before compression.
pub const BLOCK_POSITIONS: u32 = 1 << 14;
/// zstd level. On 16 KiB blocks level 12 already runs the optimal parser; level 6 cost
/// 12% of generation time less for a few percent more bytes (README, "Speed").
const ZSTD_LEVEL: i32 = 6;

/// Writes the `metric` table of `table` under `dir`; returns its path.
pub fn write_table(dir: &Path, variant: &str, table: &SolvedTable, metric: Metric) -> std::io::Result<PathBuf> {
    let path = dir.join(file_name(variant, table.index.signature(), metric));
    let bytes = table_bytes(variant, table, metric)?;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension("kabe.tmp");
    let mut file = fs::File::create(&tmp)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&tmp, &path)?;
    Ok(path)
}

/// The complete file contents.
pub fn table_bytes(variant: &str, table: &SolvedTable, metric: Metric) -> std::io::Result<Vec<u8>> {
    let entry_bits = match metric {
        Metric::Wld => 2,
        Metric::Dtw if table.scores.iter().all(|s| s.plies().is_none_or(|p| p < u8::MAX as u16)) => 8,
        Metric::Dtw => 16,
    };
    let blocks: Vec<Vec<u8>> = table
        .scores
        .par_chunks(BLOCK_POSITIONS as usize)
        .map(|chunk: &[Score]| zstd::bulk::compress(&encode_block(metric, entry_bits, chunk), ZSTD_LEVEL))
        .collect::<std::io::Result<_>>()?;
    let mut header = Header {
        version: FORMAT_VERSION,
        metric,
        entry_bits,
        signature: table.index.signature(),
        variant: variant.to_string(),
        positions: table.scores.len() as u64,
        block_positions: BLOCK_POSITIONS,
        blocks: blocks.len() as u32,
        checksum: 0,
    };
    let mut body = Vec::new();
    let mut offset = (HEADER_LEN + 8 * (blocks.len() + 1)) as u64;
    for b in &blocks {
        body.extend_from_slice(&offset.to_le_bytes());
        offset += b.len() as u64;
    }
    body.extend_from_slice(&offset.to_le_bytes());
    for b in &blocks {
        body.extend_from_slice(b);
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&header.to_bytes()[..56]);
    hasher.update(&body);
    header.checksum = hasher.digest();
    let mut out = header.to_bytes().to_vec();
    out.extend_from_slice(&body);
    Ok(out)
}
