//! Verification of a table directory through the table reader: every checksum, and every
//! stored value derived again from its successors by a one-ply search. It shares nothing
//! with the solver but move generation and the index.
//!
//! A one-ply check of exact distances is a complete proof: if some stored value were
//! wrong, the wrong one with the smallest true distance would disagree with its children.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use kabe_probe::table::{decode_entry, Metric, TableError, TableFile};
use kabe_probe::{MaterialIndex, Position, Score, Signature, Variant, Wld};
use rayon::prelude::*;

use crate::build::table_path;

/// A stored value that its successors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The table.
    pub signature: Signature,
    /// The position, as FEN.
    pub fen: String,
    /// What the DTW table says.
    pub stored: Score,
    /// What the WLD table says (for a position it holds no value for, what its captures
    /// give through the WLD tables).
    pub stored_wld: Wld,
    /// What its successors give.
    pub derived: Score,
}

/// What a verification found.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Table files whose checksum was checked.
    pub files: usize,
    /// Positions whose value was derived again.
    pub positions: u64,
    /// Files that are unusable, with the reason.
    pub bad_files: Vec<String>,
    /// Signatures with one of their two files (WLD, DTW) missing.
    pub incomplete: Vec<Signature>,
    /// The first disagreements found (at most `max_reported`), and how many in all.
    pub disagreements: Vec<Disagreement>,
    /// Disagreements in all.
    pub disagreement_count: u64,
}

impl VerifyReport {
    /// Whether everything checked out.
    pub fn ok(&self) -> bool {
        self.bad_files.is_empty() && self.incomplete.is_empty() && self.disagreement_count == 0
    }
}

/// The signatures with a table file of `variant` under `dir`, with the metrics present.
pub fn tables_in(dir: &Path, variant: &Variant) -> std::io::Result<BTreeMap<Signature, Vec<Metric>>> {
    let mut out: BTreeMap<Signature, Vec<Metric>> = BTreeMap::new();
    let folder = dir.join(variant.name);
    if !folder.exists() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(folder)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".kabe") else { continue };
        let Some((sig, metric)) = stem.split_once('.') else { continue };
        let metric = match metric {
            "wld" => Metric::Wld,
            "dtw" => Metric::Dtw,
            _ => continue,
        };
        let digits: Vec<u8> = sig.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
        if digits.len() == 4 && sig.len() == 4 {
            out.entry(Signature::new(digits[0], digits[1], digits[2], digits[3])).or_default().push(metric);
        }
    }
    Ok(out)
}

/// Tables read block by block through the table reader, through a cache written again on
/// purpose (not the probe library's cache, not `Registry::score`), so that verification
/// shares no code with the solver's lookups, and its memory stays bounded whatever the
/// size of the set.
struct Tables {
    dtw: BTreeMap<Signature, (MaterialIndex, TableFile)>,
    wld: BTreeMap<Signature, TableFile>,
}

/// Blocks a worker keeps at hand before asking the shared cache.
const WORKER_BLOCKS: usize = 256;
/// Bytes a decoded block may take at most (DTW: 16,384 positions of two bytes).
const MAX_BLOCK_BYTES: usize = 32 << 10;

/// Which block: signature, metric and block number in one word.
fn block_key(sig: Signature, metric: Metric, block: u32) -> u64 {
    let sig = (sig.white_men as u64) << 24
        | (sig.white_kings as u64) << 16
        | (sig.black_men as u64) << 8
        | sig.black_kings as u64;
    sig << 33 | ((metric == Metric::Wld) as u64) << 32 | block as u64
}

fn slot_of(key: u64, slots: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize % slots
}

type Block = (u64, Arc<Vec<u8>>);

/// Decoded blocks shared by the workers, direct-mapped, as many as the verifier's memory
/// allows: the children of a position lie all over the other table of its pair, so a
/// cache that holds a few MiB decodes a block for most lookups (kings-only 0501+0105
/// did not finish in 16 minutes that way).
struct SharedBlocks {
    slots: Vec<Mutex<Option<Block>>>,
}

impl SharedBlocks {
    fn new(bytes: usize) -> SharedBlocks {
        SharedBlocks { slots: (0..(bytes / MAX_BLOCK_BYTES).max(1)).map(|_| Mutex::new(None)).collect() }
    }
}

/// One worker's blocks at hand, its decompression context, and the shared cache.
struct BlockCache<'a> {
    slots: Vec<Option<Block>>,
    shared: &'a SharedBlocks,
    context: zstd::bulk::Decompressor<'static>,
}

impl<'a> BlockCache<'a> {
    fn new(shared: &'a SharedBlocks) -> BlockCache<'a> {
        BlockCache {
            slots: vec![None; WORKER_BLOCKS],
            shared,
            context: zstd::bulk::Decompressor::new().expect("a zstd context"),
        }
    }

    fn block(&mut self, file: &TableFile, key: u64, block: u32) -> Result<Arc<Vec<u8>>, TableError> {
        let local = &mut self.slots[slot_of(key, WORKER_BLOCKS)];
        if let Some((k, bytes)) = local {
            if *k == key {
                return Ok(bytes.clone());
            }
        }
        let shared = &self.shared.slots[slot_of(key, self.shared.slots.len())];
        let found = match &*shared.lock().unwrap_or_else(|p| p.into_inner()) {
            Some((k, bytes)) if *k == key => Some(bytes.clone()),
            _ => None,
        };
        let bytes = match found {
            Some(bytes) => bytes,
            None => {
                let bytes = Arc::new(file.block_with(block, &mut self.context)?);
                *shared.lock().unwrap_or_else(|p| p.into_inner()) = Some((key, bytes.clone()));
                bytes
            }
        };
        *local = Some((key, bytes.clone()));
        Ok(bytes)
    }

    fn value(&mut self, sig: Signature, file: &TableFile, at: u64) -> Result<Option<Score>, TableError> {
        let header = file.header();
        let per = header.block_positions as u64;
        let block = (at / per) as u32;
        let bytes = self.block(file, block_key(sig, header.metric, block), block)?;
        let i = (at % per) as usize;
        if i >= header.positions_in_block(block) {
            return Ok(None);
        }
        decode_entry(header, &bytes, i).map(Some).ok_or_else(|| TableError::Corrupt {
            path: file.path().to_path_buf(),
            detail: format!("undefined value at index {at}"),
        })
    }
}

impl Tables {
    /// The stored DTW value of any position whose table is here (or whose material
    /// decides it: [`Position::settled_score`]); `Ok(None)` when its table is missing.
    fn score(&self, position: &Position, cache: &mut BlockCache) -> Result<Option<Score>, TableError> {
        if let Some(settled) = position.settled_score() {
            return Ok(Some(settled));
        }
        let p = position.normalized();
        let sig = Signature::of(&p);
        let Some((index, file)) = self.dtw.get(&sig) else { return Ok(None) };
        cache.value(sig, file, index.index(&p))
    }

    /// The WLD value the WLD tables give: stored, or for a position with a capture to
    /// make (which holds no value of its own there) the best of its captures, resolved
    /// the same way.
    fn wld(&self, position: &Position, cache: &mut BlockCache) -> Result<Option<Wld>, TableError> {
        if let Some(settled) = position.settled_score() {
            return Ok(Some(settled.wld()));
        }
        let p = position.normalized();
        let sig = Signature::of(&p);
        if !p.has_capture() {
            let (Some((index, _)), Some(file)) = (self.dtw.get(&sig), self.wld.get(&sig)) else { return Ok(None) };
            return Ok(cache.value(sig, file, index.index(&p))?.map(Score::wld));
        }
        let mut best = Wld::Loss;
        for mv in p.legal_moves().iter() {
            let Some(child) = self.wld(&p.play(mv), cache)? else { return Ok(None) };
            best = best.max(child.for_opponent());
        }
        Ok(Some(best))
    }
}

/// Verifies every table of `variant` under `dir`; reports at most `max_reported`
/// disagreements in detail. `progress` receives positions checked. Every DTW value is
/// derived from its successors; every WLD value equals that derived value's, including
/// those of positions with a capture to make, which the WLD file does not hold: they are
/// resolved through their captures from the WLD values of the positions after them.
pub fn verify(
    dir: &Path,
    variant: Variant,
    max_reported: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<VerifyReport> {
    verify_only(dir, variant, None, DEFAULT_CACHE_BYTES, max_reported, progress)
}

/// The shared block cache of [`verify`].
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// As [`verify`], deriving the values of the signatures in `only` (every signature when
/// `None`; every file's checksum is checked either way), with a shared cache of decoded
/// blocks of `cache_bytes` (each worker keeps up to 8 MiB more). A build that adds a few
/// tables to a large set verifies the new ones without going over the old.
pub fn verify_only(
    dir: &Path,
    variant: Variant,
    only: Option<&[Signature]>,
    cache_bytes: usize,
    max_reported: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<VerifyReport> {
    let mut report = VerifyReport::default();
    let mut tables = Tables { dtw: BTreeMap::new(), wld: BTreeMap::new() };
    for (sig, metrics) in tables_in(dir, &variant)? {
        if metrics.len() < 2 {
            report.incomplete.push(sig);
        }
        for metric in metrics {
            let path: PathBuf = table_path(dir, &variant, sig, metric);
            report.files += 1;
            match TableFile::open(&path, &variant, sig, metric).and_then(|t| t.verify_checksum().map(|()| t)) {
                Ok(file) if metric == Metric::Dtw => {
                    let index = MaterialIndex::new(variant, sig).expect("opened, so table-sized");
                    tables.dtw.insert(sig, (index, file));
                }
                Ok(file) => {
                    tables.wld.insert(sig, file);
                }
                Err(e) => report.bad_files.push(e.to_string()),
            }
        }
    }
    let found = Mutex::new(Vec::new());
    let bad = Mutex::new(Vec::new());
    let count = AtomicU64::new(0);
    let shared = SharedBlocks::new(cache_bytes);
    let note_bad = |e: TableError| bad.lock().expect("no panics while held").push(e.to_string());
    for (sig, (index, dtw)) in &tables.dtw {
        if !tables.wld.contains_key(sig) || only.is_some_and(|o| !o.contains(sig)) {
            continue;
        }
        // One block of the DTW table at a time, its positions checked in parallel.
        (0..dtw.header().blocks).into_par_iter().for_each_init(
            || BlockCache::new(&shared),
            |cache, b| {
                let stored = match dtw.block_scores(b) {
                    Ok(d) => d,
                    Err(e) => return note_bad(e),
                };
                let first = b as u64 * dtw.header().block_positions as u64;
                for (i, &stored) in stored.iter().enumerate() {
                    let position = index.position(first + i as u64);
                    let checked =
                        derive(&tables, &position, cache).and_then(|d| Ok((d, tables.wld(&position, cache)?)));
                    let (derived, stored_wld) = match checked {
                        Ok((d, Some(w))) => (d, w),
                        Ok((_, None)) => (None, Wld::Draw),
                        Err(e) => return note_bad(e),
                    };
                    if Some(stored) != derived || stored_wld != stored.wld() {
                        count.fetch_add(1, Ordering::Relaxed);
                        let mut f = found.lock().expect("no panics while held");
                        if f.len() < max_reported {
                            f.push(Disagreement {
                                signature: *sig,
                                fen: position.fen(),
                                stored,
                                stored_wld,
                                derived: derived.unwrap_or(Score::DRAW),
                            });
                        }
                    }
                }
                progress(stored.len() as u64);
            },
        );
        report.positions += index.len();
    }
    let mut bad = bad.into_inner().expect("no panics while held");
    bad.sort();
    bad.dedup();
    report.bad_files.extend(bad);
    report.disagreements = found.into_inner().expect("no panics while held");
    report.disagreement_count = count.into_inner();
    Ok(report)
}

/// The value the successors give, or `None` when a successor's table is missing.
fn derive(tables: &Tables, position: &Position, cache: &mut BlockCache) -> Result<Option<Score>, TableError> {
    if position.is_drawn_by_material() {
        return Ok(Some(Score::DRAW));
    }
    let moves = position.legal_moves();
    if moves.is_empty() {
        return Ok(Some(position.variant().score_at_end()));
    }
    let mut best_win: Option<u16> = None;
    let mut longest_loss = 0u16;
    let mut all_win = true;
    for mv in moves.iter() {
        let Some(child) = tables.score(&position.play(mv), cache)? else { return Ok(None) };
        match child.wld() {
            Wld::Loss => best_win = Some(best_win.map_or(child.raw() + 1, |b| b.min(child.raw() + 1))),
            Wld::Win => longest_loss = longest_loss.max(child.raw() + 1),
            Wld::Draw => all_win = false,
        }
    }
    Ok(Some(match best_win {
        Some(d) => Score::win(d),
        None if all_win => Score::loss(longest_loss),
        None => Score::DRAW,
    }))
}
