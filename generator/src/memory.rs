//! Large arrays that are read at random: asked for transparent huge pages (Linux,
//! `madvise` mode), since with 4 KiB pages nearly every touch of a multi-GiB array also
//! misses the TLB. The solvers' slots and the verifier's resident values live in them.
//! Tables read at a part of their positions are held in blocks made on demand within a
//! byte allowance ([`LazyBlocks`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;

/// Asks the CPU to bring `slot`'s cache line in; a hint, never a fault.
#[inline(always)]
pub(crate) fn prefetch<T>(slot: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and cannot fault; the address is
    // a live reference's.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((slot as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// `n` copies of `value`, in huge pages where the system offers them; filled in
/// parallel, so that the first touch of each page is spread over the workers.
pub(crate) fn huge_vec<T: Clone + Send + Sync>(n: usize, value: T) -> Vec<T> {
    huge_vec_with(n, || value.clone())
}

/// `n` values made by `make` (atomics, say, which do not clone), as [`huge_vec`].
pub(crate) fn huge_vec_with<T: Send>(n: usize, make: impl Fn() -> T + Sync + Send) -> Vec<T> {
    let mut values: Vec<T> = Vec::with_capacity(n);
    advise_huge_pages(values.as_mut_ptr().cast(), n * std::mem::size_of::<T>());
    values.par_extend((0..n).into_par_iter().map(|_| make()));
    values
}

/// Asks for huge pages on the whole 2 MiB pages of an allocation not yet touched.
#[cfg(target_os = "linux")]
pub(crate) fn advise_huge_pages(start: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    if len < 2 * HUGE {
        return;
    }
    let first = (start as usize).next_multiple_of(HUGE);
    let end = (start as usize + len) / HUGE * HUGE;
    if end > first {
        // SAFETY: advice on pages inside an allocation this function's caller owns; it
        // changes how they are backed, never their contents.
        unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn advise_huge_pages(_: *mut u8, _: usize) {}

/// A byte allowance that blocks made on demand ([`LazyBlocks`]) are counted against.
#[derive(Default)]
pub(crate) struct Allowance {
    limit: AtomicU64,
    spent: AtomicU64,
}

impl Allowance {
    /// No limit until one is set (the default is no room).
    pub(crate) fn unlimited() -> Allowance {
        Allowance { limit: AtomicU64::new(u64::MAX), spent: AtomicU64::new(0) }
    }

    /// Counts `bytes` more, if they fit the limit.
    fn take(&self, bytes: u64) -> bool {
        let limit = self.limit.load(Ordering::Relaxed);
        let more = |spent: u64| (spent + bytes <= limit).then_some(spent + bytes);
        self.spent.fetch_update(Ordering::Relaxed, Ordering::Relaxed, more).is_ok()
    }

    pub(crate) fn give_back(&self, bytes: u64) {
        self.spent.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// The bytes counted.
    pub(crate) fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    pub(crate) fn spent_mut(&mut self) -> &mut u64 {
        self.spent.get_mut()
    }

    pub(crate) fn set_limit(&mut self, limit: u64) {
        *self.limit.get_mut() = limit;
    }
}

/// `len` slots in blocks of `per`, each block made the first time a slot of it is asked
/// for: memory for the part of a large table that is read.
pub(crate) struct LazyBlocks<T> {
    blocks: Box<[OnceLock<Box<[T]>>]>,
    per: u64,
    /// `per`'s base-2 logarithm where it is a power of two (every table file kabe
    /// writes): a slot's block is then found by a shift, not a division, which on a
    /// solver's hottest path cost as much as the cache miss it is followed by.
    per_shift: Option<u32>,
    len: u64,
}

impl<T> LazyBlocks<T> {
    pub(crate) fn new(len: u64, per: u64) -> LazyBlocks<T> {
        let per_shift = per.is_power_of_two().then(|| per.trailing_zeros());
        LazyBlocks { blocks: (0..len.div_ceil(per)).map(|_| OnceLock::new()).collect(), per, per_shift, len }
    }

    /// Slot `at`'s block, and its place in it.
    #[inline(always)]
    fn split(&self, at: u64) -> (usize, usize) {
        match self.per_shift {
            Some(shift) => ((at >> shift) as usize, (at & (self.per - 1)) as usize),
            None => ((at / self.per) as usize, (at % self.per) as usize),
        }
    }

    /// Slot `at` (`None` past the end, or where its block is not made and `allowance` has
    /// no room for it; no allowance: every block counted in advance). `make(first, n)`
    /// makes the `n` slots of a block from slot `first`.
    #[inline]
    pub(crate) fn slot<E>(
        &self,
        at: u64,
        allowance: Option<&Allowance>,
        make: impl FnOnce(u64, u64) -> Result<Box<[T]>, E>,
    ) -> Result<Option<&T>, E> {
        let (b, i) = self.split(at);
        let Some(cell) = self.blocks.get(b) else { return Ok(None) };
        let block = match cell.get() {
            Some(block) => block,
            None => {
                let first = b as u64 * self.per;
                let n = self.per.min(self.len - first);
                let bytes = n * std::mem::size_of::<T>() as u64;
                let give_back = || allowance.inspect(|a| a.give_back(bytes));
                if !allowance.is_none_or(|a| a.take(bytes)) {
                    return Ok(None);
                }
                let made = make(first, n).inspect_err(|_| _ = give_back())?;
                // Two threads may make the same block; one is kept and counted.
                let mut ours = Some(made);
                let block = cell.get_or_init(|| ours.take().expect("not taken yet"));
                if ours.is_some() {
                    give_back();
                }
                block
            }
        };
        Ok(block.get(i))
    }

    /// Slot `at` where its block is made already (to fetch it ahead of a read).
    #[inline]
    pub(crate) fn made_slot(&self, at: u64) -> Option<&T> {
        let (b, i) = self.split(at);
        self.blocks.get(b)?.get()?.get(i)
    }

    /// The bytes of the blocks made.
    pub(crate) fn made_bytes(&self) -> u64 {
        self.blocks.iter().filter_map(OnceLock::get).map(|block| std::mem::size_of_val::<[T]>(block) as u64).sum()
    }

    /// Lets go of the blocks made.
    pub(crate) fn forget(&mut self) {
        self.blocks.iter_mut().for_each(|block| _ = block.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every slot is found in its own block at its own place, blocks of a power of two
    /// (found by a shift) or not (by a division), the last block short.
    #[test]
    fn a_slot_is_found_whatever_the_block_size() {
        for per in [1u64, 7, 16, 1000, 1 << 14] {
            let len = 3 * per + per / 2 + 1;
            let blocks = LazyBlocks::<u64>::new(len, per);
            for at in 0..len {
                let slot = blocks.slot(at, None, |first, n| Ok::<_, ()>((first..first + n).collect())).expect("made");
                assert_eq!(slot, Some(&at), "slot {at} of blocks of {per}");
                assert_eq!(blocks.made_slot(at), Some(&at), "made slot {at} of blocks of {per}");
            }
            assert_eq!(blocks.slot(len, None, |_, _| Err(())), Ok(None), "past the end, blocks of {per}");
        }
    }
}
