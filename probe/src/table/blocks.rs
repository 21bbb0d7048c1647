//! The one way to a table's entries: [`BlockReader::entry_at`] finds an entry's block in
//! the shared [`BlockCache`], or reads and decompresses it with a pooled zstd context
//! ([`Decompressors`]) and keeps it, then decodes the entry with the decoder `format`
//! gives for its kind ([`decode_entry`](super::decode_entry),
//! [`decode_wld_entry`](super::decode_wld_entry),
//! [`decode_rule_entry`](super::decode_rule_entry)). The probe library and the verifier
//! read entries through it; a build's working form, which keeps every block it decodes
//! itself, reads whole blocks through [`Decompressors::block`].

use std::sync::{Arc, Mutex};

use super::cache::{BlockCache, BlockKey, CacheStats};
use super::format::{Header, TableError};
use super::reader::TableFile;

/// zstd decompression contexts for reuse by whichever thread reads a block next
/// (creating one costs more than decompressing a small block).
#[derive(Default)]
pub struct Decompressors(Mutex<Vec<zstd::bulk::Decompressor<'static>>>);

impl std::fmt::Debug for Decompressors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decompressors")
    }
}

impl Decompressors {
    /// An empty pool.
    pub fn new() -> Decompressors {
        Decompressors::default()
    }

    /// The decompressed bytes of block `b` of `file`, with a pooled context.
    ///
    /// # Errors
    /// As [`TableFile::block_with`]; [`TableError::Io`] also when no decompression context
    /// can be made.
    pub fn block(&self, file: &TableFile, b: u32) -> Result<Vec<u8>, TableError> {
        // A poisoned lock only means a thread panicked while holding it: the pool is a
        // list of independent contexts, still usable.
        let pooled = self.0.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut context = match pooled {
            Some(context) => context,
            None => zstd::bulk::Decompressor::new()
                .map_err(|error| TableError::Io { path: file.path().to_path_buf(), error })?,
        };
        let read = file.block_with(b, &mut context);
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(context);
        read
    }
}

/// Decompressed blocks of any number of tables, shared by threads: a bounded cache over
/// a pool of decompression contexts. The caller numbers its tables (`table`, the high
/// half of a [`BlockKey`]), one number a file.
pub struct BlockReader {
    cache: BlockCache,
    decompressors: Decompressors,
}

impl std::fmt::Debug for BlockReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockReader").field("cache", &self.cache.stats()).finish()
    }
}

impl BlockReader {
    /// A reader whose cache holds at most `capacity_bytes` of decompressed blocks.
    pub fn new(capacity_bytes: usize) -> BlockReader {
        BlockReader { cache: BlockCache::new(capacity_bytes), decompressors: Decompressors::new() }
    }

    /// Where entry `index` of the table numbered `table` (whose header is `header`) lies:
    /// its block's cache key, the block, and its place in the block.
    #[inline]
    pub fn key(table: u32, header: &Header, index: u64) -> (BlockKey, u32, usize) {
        let per = header.block_positions as u64;
        let block = (index / per) as u32;
        ((table as u64) << 32 | block as u64, block, (index % per) as usize)
    }

    /// [`BlockReader::key`] of an entry of `file`, or an error naming the file where
    /// `index` lies beyond it.
    #[inline]
    fn checked_key(table: u32, file: &TableFile, index: u64) -> Result<(BlockKey, u32, usize), TableError> {
        let header = file.header();
        if index >= header.positions {
            return Err(TableError::Corrupt {
                path: file.path().to_path_buf(),
                detail: format!("index {index} beyond {} positions", header.positions),
            });
        }
        Ok(BlockReader::key(table, header, index))
    }

    /// Block `block` of `file` (cached under `key`) read, decompressed and kept: a miss.
    fn read_block(&self, file: &TableFile, key: BlockKey, block: u32) -> Result<Arc<[u8]>, TableError> {
        self.cache.count_miss();
        let bytes: Arc<[u8]> = self.decompressors.block(file, block)?.into();
        self.cache.insert(key, bytes.clone());
        Ok(bytes)
    }

    /// Entry `index` of the table numbered `table` whose header is `header`, decoded by
    /// `decode` (the block's bytes and the entry's place in them), if its block is cached:
    /// `None` when it is not, `Some(None)` when `decode` finds no value there.
    #[inline]
    pub fn cached_entry_at<R>(
        &self,
        table: u32,
        header: &Header,
        index: u64,
        decode: impl FnOnce(&[u8], usize) -> Option<R>,
    ) -> Option<Option<R>> {
        let (key, _, at) = BlockReader::key(table, header, index);
        self.cache.with(key, |bytes| decode(bytes, at))
    }

    /// Entry `index` of `file` (numbered `table`), decoded by `decode`: from the cache,
    /// or read, decompressed and kept.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the file when `index` is beyond the table or
    /// `decode` finds no value at it; when the block is not cached, the errors of
    /// [`Decompressors::block`].
    #[inline]
    pub fn entry_at<R>(
        &self,
        table: u32,
        file: &TableFile,
        index: u64,
        decode: impl Fn(&[u8], usize) -> Option<R>,
    ) -> Result<R, TableError> {
        let (key, block, at) = BlockReader::checked_key(table, file, index)?;
        let found = match self.cache.with(key, |bytes| decode(bytes, at)) {
            Some(found) => found,
            None => decode(&self.read_block(file, key, block)?, at),
        };
        found.ok_or_else(|| TableError::undefined_value(file.path(), index))
    }

    /// The decompressed block of `file` (numbered `table`) that holds entry `index`, shared,
    /// with its key and the entry's place in it: from the cache, or read, decompressed
    /// and kept. For a caller that reads the entries of one block in a row and keeps it
    /// meanwhile, rather than looking it up for each.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the file when `index` is beyond the table; when the
    /// block is not cached, the errors of [`Decompressors::block`].
    pub fn block_at(
        &self,
        table: u32,
        file: &TableFile,
        index: u64,
    ) -> Result<(BlockKey, Arc<[u8]>, usize), TableError> {
        let (key, block, at) = BlockReader::checked_key(table, file, index)?;
        let bytes = match self.cache.get(key) {
            Some(bytes) => bytes,
            None => self.read_block(file, key, block)?,
        };
        Ok((key, bytes, at))
    }

    /// What the cache holds and did.
    pub fn stats(&self) -> CacheStats {
        self.cache.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Signature;
    use crate::table::{decode_entry, decode_rule_entry, decode_wld_entry, Metric};
    use crate::{Position, Variant};

    fn metric_name(metric: Metric) -> &'static str {
        if metric == Metric::Dtw {
            "dtw"
        } else {
            "wld"
        }
    }

    fn committed(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tables/international").join(name)
    }

    #[test]
    fn every_entry_read_through_the_cache_is_the_files_own() {
        let variant = Variant::INTERNATIONAL;
        let open = |name: &str, metric| {
            let sig: Signature = name.parse().expect("a signature");
            let file = committed(&format!("{name}.{}.kabe", metric_name(metric)));
            TableFile::open(&file, &variant, sig, metric).expect("a committed table")
        };
        // Of the pair 0102+0201, the table that stores its values.
        let sig_name = if open("0102", Metric::Dtw).header().by_search() { "0201" } else { "0102" };
        let sig: Signature = sig_name.parse().expect("a signature");
        let (dtw, wld) = (open(sig_name, Metric::Dtw), open(sig_name, Metric::Wld));
        assert!(!dtw.header().by_search() && !wld.header().by_search());
        // A cache of one block at most: entries alternate between misses and hits.
        let reader = BlockReader::new(1 << 14);
        let whole = dtw.all_scores().expect("the DTW values");
        for (index, &score) in whole.iter().enumerate().step_by(7) {
            let read = reader.entry_at(1, &dtw, index as u64, |b, i| decode_entry(dtw.header(), b, i));
            assert_eq!(read.expect("an entry"), score, "{sig_name} DTW at {index}");
            let cached = reader.cached_entry_at(1, dtw.header(), index as u64, |b, i| decode_entry(dtw.header(), b, i));
            assert_eq!(cached, Some(Some(score)));
            let w = reader.entry_at(2, &wld, index as u64, decode_wld_entry).expect("a WLD entry");
            let index_of = crate::index::MaterialIndex::new(variant, sig).expect("an index");
            let position: Position = index_of.position(index as u64);
            if wld.header().holds(&position) {
                assert_eq!(w, score.wld(), "{sig_name} WLD at {index}");
            }
        }
        assert!(reader.stats().misses > 0);
        let beyond = reader.entry_at(1, &dtw, dtw.header().positions, |b, i| decode_entry(dtw.header(), b, i));
        assert!(beyond.is_err_and(|e| e.to_string().contains(&format!("{sig_name}.dtw.kabe"))));
        // A rule decoder on a DTW block: an entry it cannot read is an error naming the file.
        let wrong = reader.entry_at(3, &dtw, 0, |b, i| decode_rule_entry(&b[b.len()..], i));
        assert!(wrong.is_err_and(|e| e.to_string().contains("undefined value at index 0")));
    }
}
