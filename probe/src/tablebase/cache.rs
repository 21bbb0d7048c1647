//! A bounded cache of decompressed blocks, shared by every thread of a [`super::Tablebase`].
//!
//! Sharded by key so that threads probing different blocks rarely meet on a lock; a hit
//! takes one shard's read lock and sets the entry's reference bit; eviction is CLOCK
//! (second chance) per shard, so a hit never needs the write lock. Decompression happens
//! outside any lock.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// A block: table number (high 32 bits) and block number.
pub(crate) type BlockKey = u64;

/// What the cache holds and did, for tuning and the benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// The bound on decompressed bytes held, set at open.
    pub capacity_bytes: usize,
    /// Decompressed bytes held now.
    pub used_bytes: usize,
    /// Blocks held now.
    pub blocks: usize,
    /// Probes that had to read and decompress their block. (Hits are not counted: a
    /// counter shared by all threads would cost more than the hit itself.)
    pub misses: u64,
}

/// Keys are already well mixed table and block numbers: one multiply is hash enough, and
/// SipHash would cost more than the rest of a cached probe.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = (key ^ (key >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

struct Entry {
    bytes: Arc<[u8]>,
    referenced: AtomicBool,
}

#[derive(Default)]
struct Shard {
    map: HashMap<BlockKey, Entry, BuildHasherDefault<KeyHasher>>,
    /// Keys in CLOCK order: the hand is the front.
    clock: VecDeque<BlockKey>,
    bytes: usize,
}

pub(crate) struct BlockCache {
    shards: Box<[RwLock<Shard>]>,
    shard_capacity: usize,
    capacity: usize,
    misses: AtomicU64,
}

const SHARDS: usize = 64;

fn shard_of(key: BlockKey) -> usize {
    ((key.wrapping_mul(0x9e37_79b9_7f4a_7c15)) >> 58) as usize % SHARDS
}

impl BlockCache {
    pub(crate) fn new(capacity: usize) -> BlockCache {
        BlockCache {
            shards: (0..SHARDS).map(|_| RwLock::new(Shard::default())).collect(),
            shard_capacity: capacity / SHARDS,
            capacity,
            misses: AtomicU64::new(0),
        }
    }

    /// Runs `f` on the cached block `key`, or returns `None` when it is not cached.
    #[inline]
    pub(crate) fn with<R>(&self, key: BlockKey, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        // A poisoned shard only means another thread panicked mid-insert; the map is
        // still consistent (insertions are single calls), so carry on with it.
        let shard = self.shards[shard_of(key)].read().unwrap_or_else(|e| e.into_inner());
        let entry = shard.map.get(&key)?;
        if !entry.referenced.load(Ordering::Relaxed) {
            entry.referenced.store(true, Ordering::Relaxed);
        }
        Some(f(&entry.bytes))
    }

    pub(crate) fn count_miss(&self) {
        self.misses.fetch_add(1, Ordering::Relaxed);
    }

    /// Stores a block read by the caller, evicting as needed. A block larger than a
    /// shard's share is not kept (the caller still uses its copy).
    pub(crate) fn insert(&self, key: BlockKey, bytes: Arc<[u8]>) {
        if bytes.len() > self.shard_capacity {
            return;
        }
        let mut shard = self.shards[shard_of(key)].write().unwrap_or_else(|e| e.into_inner());
        if shard.map.contains_key(&key) {
            return;
        }
        shard.bytes += bytes.len();
        shard.map.insert(key, Entry { bytes, referenced: AtomicBool::new(false) });
        shard.clock.push_back(key);
        while shard.bytes > self.shard_capacity {
            let Some(victim) = shard.clock.pop_front() else { break };
            let second_chance = shard.map.get(&victim).is_some_and(|e| e.referenced.swap(false, Ordering::Relaxed));
            if second_chance {
                shard.clock.push_back(victim);
            } else if let Some(e) = shard.map.remove(&victim) {
                shard.bytes -= e.bytes.len();
            }
        }
    }

    pub(crate) fn stats(&self) -> CacheStats {
        let mut stats = CacheStats {
            capacity_bytes: self.capacity,
            misses: self.misses.load(Ordering::Relaxed),
            ..CacheStats::default()
        };
        for shard in self.shards.iter() {
            let shard = shard.read().unwrap_or_else(|e| e.into_inner());
            stats.used_bytes += shard.bytes;
            stats.blocks += shard.map.len();
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_stays_within_its_bound_and_keeps_what_is_used() {
        let cache = BlockCache::new(SHARDS * 100);
        let block = |n: u8| -> Arc<[u8]> { vec![n; 30].into() };
        // Keys that land in one shard.
        let keys: Vec<BlockKey> = (0..10_000u64).filter(|k| shard_of(*k) == 0).take(8).collect();
        for (i, &k) in keys.iter().take(3).enumerate() {
            cache.insert(k, block(i as u8));
        }
        assert_eq!(cache.with(keys[0], |b| b[0]), Some(0));
        // A fourth block overflows the shard's 100 bytes: the unreferenced second goes.
        cache.insert(keys[3], block(3));
        assert_eq!(cache.with(keys[1], |b| b[0]), None);
        assert_eq!(cache.with(keys[0], |b| b[0]), Some(0));
        assert_eq!(cache.with(keys[3], |b| b[0]), Some(3));
        for &k in &keys[4..] {
            cache.insert(k, block(9));
        }
        let stats = cache.stats();
        assert!(stats.used_bytes <= SHARDS * 100 && stats.used_bytes == 30 * stats.blocks, "{stats:?}");
        // A block bigger than a shard's share is not kept.
        cache.insert(keys[0] + 1, vec![0u8; 101].into());
        assert_eq!(cache.with(keys[0] + 1, |b| b.len()), None);
    }
}
