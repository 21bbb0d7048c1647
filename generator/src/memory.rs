//! Large arrays that are read at random: asked for transparent huge pages (Linux,
//! `madvise` mode), since with 4 KiB pages nearly every touch of a multi-GiB array also
//! misses the TLB. The solvers' slots and the verifier's resident values live in them.

use rayon::prelude::*;

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
