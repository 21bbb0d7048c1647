//! Reading table files: memory-mapped, header and block index parsed once at open,
//! every inconsistency an error naming the file.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::format::{decode_entry, decode_rule_entry, Header, Metric, TableError, HEADER_LEN};
use crate::index::{MaterialIndex, Signature};
use crate::{RuleScore, Score, Variant};

/// One open table file.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    header: Header,
    offsets: Vec<u64>,
    bytes: Bytes,
}

#[derive(Debug)]
enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

impl TableFile {
    /// Opens `path`, which must hold the `metric` table of `signature` in `variant`.
    pub fn open(path: &Path, variant: &Variant, signature: Signature, metric: Metric) -> Result<TableFile, TableError> {
        let file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => TableError::Missing { path: path.to_path_buf(), rules: None },
            _ => TableError::Io { path: path.to_path_buf(), source: e },
        })?;
        // SAFETY: table files are build outputs that are only ever replaced by rename,
        // never written in place, so the mapped bytes do not change under us.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| TableError::Io { path: path.to_path_buf(), source: e })?;
        let table = TableFile::from_parts(path.to_path_buf(), Bytes::Mapped(map))?;
        table.expect(variant.name, signature, metric)?;
        let positions = MaterialIndex::new(*variant, signature).map_or(0, |i| i.len());
        if table.header.positions != positions {
            return Err(TableError::Corrupt {
                path: path.to_path_buf(),
                detail: format!("{} positions, the signature has {positions}", table.header.positions),
            });
        }
        Ok(table)
    }

    /// Reads a table from bytes in memory (`name` is used in errors). Checks the header
    /// and block index, not the checksum (see [`TableFile::verify_checksum`]).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<TableFile, TableError> {
        TableFile::from_parts(PathBuf::from(name), Bytes::Owned(bytes))
    }

    fn from_parts(path: PathBuf, bytes: Bytes) -> Result<TableFile, TableError> {
        let header = Header::parse(&bytes, &path)?;
        let corrupt = |detail: String| TableError::Corrupt { path: path.clone(), detail };
        let index_len = (header.blocks as usize + 1) * 8;
        let index = bytes.get(HEADER_LEN..HEADER_LEN + index_len).ok_or_else(|| {
            corrupt(format!("truncated: {} bytes, block index needs {}", bytes.len(), HEADER_LEN + index_len))
        })?;
        let offsets: Vec<u64> =
            index.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        let body_start = (HEADER_LEN + index_len) as u64;
        if offsets[0] != body_start || offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(corrupt("block offsets out of order".into()));
        }
        let end = *offsets.last().expect("at least one offset");
        if end != bytes.len() as u64 {
            return Err(corrupt(format!("length {} bytes, block index says {end}", bytes.len())));
        }
        Ok(TableFile { path, header, offsets, bytes })
    }

    fn expect(&self, variant: &str, signature: Signature, metric: Metric) -> Result<(), TableError> {
        let h = &self.header;
        if h.variant != variant || h.signature != signature || h.metric != metric {
            return Err(TableError::Foreign {
                path: self.path.clone(),
                found: format!("{} {} {}", h.variant, h.signature, h.metric.name()),
                expected: format!("{variant} {signature} {}", metric.name()),
            });
        }
        Ok(())
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks the checksum over the header and the whole body.
    pub fn verify_checksum(&self) -> Result<(), TableError> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&self.bytes[..56]);
        hasher.update(&self.bytes[HEADER_LEN..]);
        let found = hasher.digest();
        if found != self.header.checksum {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("checksum {found:016x}, header says {:016x}", self.header.checksum),
            });
        }
        Ok(())
    }

    /// The decompressed bytes of block `b`.
    pub fn block(&self, b: u32) -> Result<Vec<u8>, TableError> {
        let mut context =
            zstd::bulk::Decompressor::new().map_err(|e| TableError::Io { path: self.path.clone(), source: e })?;
        self.block_with(b, &mut context)
    }

    /// As [`TableFile::block`], reusing a decompression context (creating one costs more
    /// than decompressing a small block).
    pub fn block_with(&self, b: u32, context: &mut zstd::bulk::Decompressor<'_>) -> Result<Vec<u8>, TableError> {
        let corrupt = |detail: String| TableError::Corrupt { path: self.path.clone(), detail };
        if b >= self.header.blocks {
            return Err(corrupt(format!("block {b} of {}", self.header.blocks)));
        }
        let frame = &self.bytes[self.offsets[b as usize] as usize..self.offsets[b as usize + 1] as usize];
        // Byte 4 of a zstd frame is its descriptor; bit 2 says a content checksum follows,
        // which the decoder then checks.
        if frame.get(4).is_none_or(|d| d & 0b100 == 0) {
            return Err(corrupt(format!("block {b} has no checksum")));
        }
        let expected = self.header.block_bytes(b);
        if self.header.metric == Metric::Wld {
            // Runs: at most one byte per position before zstd.
            let positions = self.header.positions_in_block(b);
            let code = context.decompress(frame, positions.max(16)).map_err(|e| corrupt(format!("block {b}: {e}")))?;
            return super::runs::decode_packed(&code, positions).map_err(|e| corrupt(format!("block {b}: {e}")));
        }
        let data = context.decompress(frame, expected).map_err(|e| corrupt(format!("block {b}: {e}")))?;
        if data.len() != expected {
            return Err(corrupt(format!("block {b} holds {} bytes, expected {expected}", data.len())));
        }
        Ok(data)
    }

    /// The scores of block `b`.
    pub fn block_scores(&self, b: u32) -> Result<Vec<Score>, TableError> {
        let data = self.block(b)?;
        (0..self.header.positions_in_block(b))
            .map(|i| {
                decode_entry(&self.header, &data, i).ok_or_else(|| TableError::Corrupt {
                    path: self.path.clone(),
                    detail: format!("undefined value in block {b}"),
                })
            })
            .collect()
    }

    /// The score of position `index` (decompresses its block; no cache yet).
    pub fn score(&self, index: u64) -> Result<Score, TableError> {
        if index >= self.header.positions {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("index {index} beyond {} positions", self.header.positions),
            });
        }
        let per = self.header.block_positions as u64;
        let b = (index / per) as u32;
        let data = self.block(b)?;
        decode_entry(&self.header, &data, (index % per) as usize).ok_or_else(|| TableError::Corrupt {
            path: self.path.clone(),
            detail: format!("undefined value at index {index}"),
        })
    }

    /// Every score, in index order.
    pub fn all_scores(&self) -> Result<Vec<Score>, TableError> {
        let mut out = Vec::new();
        for b in 0..self.header.blocks {
            out.extend(self.block_scores(b)?);
        }
        Ok(out)
    }

    /// The rule value at `index` of a rule table.
    pub fn rule_score(&self, index: u64) -> Result<RuleScore, TableError> {
        if !matches!(self.header.metric, Metric::Rules(_)) || index >= self.header.positions {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("no rule value at index {index} of a {} table", self.header.metric.name()),
            });
        }
        let per = self.header.block_positions as u64;
        let data = self.block((index / per) as u32)?;
        decode_rule_entry(&data, (index % per) as usize).ok_or_else(|| self.short_block(index))
    }

    fn short_block(&self, index: u64) -> TableError {
        TableError::Corrupt { path: self.path.clone(), detail: format!("no entry for index {index}") }
    }

    /// Every rule value of a rule table, in index order.
    pub fn all_rule_scores(&self) -> Result<Vec<RuleScore>, TableError> {
        if !matches!(self.header.metric, Metric::Rules(_)) {
            return Err(TableError::Corrupt {
                path: self.path.clone(),
                detail: format!("no rule values in a {} table", self.header.metric.name()),
            });
        }
        let mut out = Vec::new();
        for b in 0..self.header.blocks {
            let data = self.block(b)?;
            let start = b as u64 * self.header.block_positions as u64;
            for i in 0..self.header.positions_in_block(b) {
                out.push(decode_rule_entry(&data, i).ok_or_else(|| self.short_block(start + i as u64))?);
            }
        }
        Ok(out)
    }
}
