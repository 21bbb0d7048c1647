//! A bounded cache of decompressed blocks, shared by every thread that reads tables
//! through a [`super::BlockReader`].
//!
//! A hit must not write to memory another core uses, or every probe pays for moving a
//! cache line between cores (with one lock per shard, two threads reached only 1.56x one
//! thread). So the map sits behind a "big reader" lock: one read lock per reader slot,
//! each on its own cache line, a thread always taking the slot its id hashes to; an
//! insert takes every slot's write lock. A hit then writes only its own slot's lock word
//! (and an entry's reference bit the first time it is used since the last sweep).
//! Eviction is CLOCK (second chance). Decompression happens outside any lock.

use std::cell::UnsafeCell;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// A block: which table (the high bits, as the reader numbers its tables) and block number
/// (the low 32 bits).
pub type BlockKey = u64;

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
struct Blocks {
    map: HashMap<BlockKey, Entry, BuildHasherDefault<KeyHasher>>,
    /// Keys in CLOCK order: the hand is the front.
    clock: VecDeque<BlockKey>,
    bytes: usize,
}

/// A read lock on its own cache line.
#[repr(align(128))]
#[derive(Default)]
struct ReaderSlot(RwLock<()>);

const READER_SLOTS: usize = 16;

/// Decompressed blocks, at most a bound of bytes of them, shared by threads.
pub struct BlockCache {
    slots: [ReaderSlot; READER_SLOTS],
    /// Read under any one slot's read lock; written only under all slots' write locks.
    blocks: UnsafeCell<Blocks>,
    capacity: usize,
    misses: AtomicU64,
}

// SAFETY: `blocks` is only read while some slot's read lock is held and only written
// while every slot's write lock is held (see `read` and `write`), so a writer excludes
// every reader and every other writer.
unsafe impl Sync for BlockCache {}

/// The reader slot of the calling thread.
fn reader_slot() -> usize {
    let mut hasher = KeyHasher::default();
    std::hash::Hash::hash(&std::thread::current().id(), &mut hasher);
    (hasher.finish() >> 32) as usize % READER_SLOTS
}

impl BlockCache {
    /// A cache holding at most `capacity` bytes of decompressed blocks.
    pub fn new(capacity: usize) -> BlockCache {
        BlockCache {
            slots: Default::default(),
            blocks: UnsafeCell::new(Blocks::default()),
            capacity,
            misses: AtomicU64::new(0),
        }
    }

    fn read<R>(&self, f: impl FnOnce(&Blocks) -> R) -> R {
        // A poisoned lock only means a thread panicked while holding it; the map is
        // changed by single calls, so it is still consistent.
        let _guard = self.slots[reader_slot()].0.read().unwrap_or_else(|e| e.into_inner());
        // SAFETY: a read lock is held, so no writer holds all write locks.
        f(unsafe { &*self.blocks.get() })
    }

    fn write<R>(&self, f: impl FnOnce(&mut Blocks) -> R) -> R {
        // Always in slot order, so two writers cannot deadlock.
        let _guards: Vec<_> = self.slots.iter().map(|s| s.0.write().unwrap_or_else(|e| e.into_inner())).collect();
        // SAFETY: every write lock is held: no reader, no other writer.
        f(unsafe { &mut *self.blocks.get() })
    }

    /// Runs `f` on the cached block `key`, or returns `None` when it is not cached.
    #[inline]
    pub fn with<R>(&self, key: BlockKey, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        self.with_entry(key, |bytes| f(bytes))
    }

    /// The cached block `key`, shared, or `None` when it is not cached: for a caller that
    /// reads many entries of one block in a row.
    #[inline]
    pub fn get(&self, key: BlockKey) -> Option<Arc<[u8]>> {
        self.with_entry(key, |bytes| bytes.clone())
    }

    #[inline]
    fn with_entry<R>(&self, key: BlockKey, f: impl FnOnce(&Arc<[u8]>) -> R) -> Option<R> {
        self.read(|blocks| {
            let entry = blocks.map.get(&key)?;
            if !entry.referenced.load(Ordering::Relaxed) {
                entry.referenced.store(true, Ordering::Relaxed);
            }
            Some(f(&entry.bytes))
        })
    }

    /// Counts a probe that had to read its block ([`CacheStats::misses`]).
    pub fn count_miss(&self) {
        self.misses.fetch_add(1, Ordering::Relaxed);
    }

    /// Stores a block read by the caller, evicting as needed. A block larger than the
    /// whole cache is not kept (the caller still uses its copy).
    pub fn insert(&self, key: BlockKey, bytes: Arc<[u8]>) {
        if bytes.len() > self.capacity {
            return;
        }
        self.write(|blocks| {
            if blocks.map.contains_key(&key) {
                return;
            }
            blocks.bytes += bytes.len();
            blocks.map.insert(key, Entry { bytes, referenced: AtomicBool::new(false) });
            blocks.clock.push_back(key);
            while blocks.bytes > self.capacity {
                let Some(victim) = blocks.clock.pop_front() else { break };
                let second_chance =
                    blocks.map.get(&victim).is_some_and(|e| e.referenced.swap(false, Ordering::Relaxed));
                if second_chance {
                    blocks.clock.push_back(victim);
                } else if let Some(e) = blocks.map.remove(&victim) {
                    blocks.bytes -= e.bytes.len();
                }
            }
        });
    }

    /// What the cache holds and did.
    pub fn stats(&self) -> CacheStats {
        self.read(|blocks| CacheStats {
            capacity_bytes: self.capacity,
            used_bytes: blocks.bytes,
            blocks: blocks.map.len(),
            misses: self.misses.load(Ordering::Relaxed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_stays_within_its_bound_and_keeps_what_is_used() {
        let cache = BlockCache::new(100);
        let block = |n: u8| -> Arc<[u8]> { vec![n; 30].into() };
        for k in 0..3 {
            cache.insert(k, block(k as u8));
        }
        assert_eq!(cache.with(0, |b| b[0]), Some(0));
        // A fourth block overflows the 100 bytes: the unreferenced second goes.
        cache.insert(3, block(3));
        assert_eq!(cache.with(1, |b| b[0]), None);
        assert_eq!(cache.with(0, |b| b[0]), Some(0));
        assert_eq!(cache.with(3, |b| b[0]), Some(3));
        for k in 4..20 {
            cache.insert(k, block(9));
        }
        let stats = cache.stats();
        assert!(stats.used_bytes <= 100 && stats.used_bytes == 30 * stats.blocks, "{stats:?}");
        // A block bigger than the cache is not kept.
        cache.insert(99, vec![0u8; 101].into());
        assert_eq!(cache.with(99, |b| b.len()), None);
    }

    #[test]
    fn threads_read_and_insert_together() {
        let cache = BlockCache::new(64 * 10);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let cache = &cache;
                s.spawn(move || {
                    for i in 0..2000u64 {
                        let key = (i * 7 + t) % 40;
                        match cache.with(key, |b| b[0]) {
                            Some(v) => assert_eq!(v as u64, key),
                            None => cache.insert(key, vec![key as u8; 64].into()),
                        }
                    }
                });
            }
        });
        assert!(cache.stats().used_bytes <= 640);
    }
}
