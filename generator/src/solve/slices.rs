//! The theoretical solver one men placement at a time ([`crate::solve::components`]): a
//! component is the placement's king positions in both tables of the pair, joined only by
//! king moves; its man moves lead to components solved before it (men only move
//! forward), its captures and promotions to finished tables. Each component is solved by
//! the same ply-ordered pass as a whole pair ([`crate::solve::whole::solve_graph`]) in a working
//! state of its own size, and its values go to a [`PairStore`]: the working state no
//! longer grows with the pair, only with its largest component (king placements, both
//! tables).

use std::collections::HashMap;
use std::ops::Range;
#[cfg(test)]
use std::sync::atomic::AtomicU16;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use kabe_probe::internal::UncheckedPosition;
use kabe_probe::internal::{MaterialIndex, Unmoves};
#[cfg(test)]
use kabe_probe::Variant;
use kabe_probe::{Color, MoveList, Position, Score, Signature, SquareSets};
use rayon::prelude::*;

use crate::finished::lookup::Finished;
#[cfg(test)]
use crate::finished::registry::SolvedTable;
use crate::solve::components::{components, groups, part_positions, Parts};
#[cfg(test)]
use crate::solve::whole::pair_tables;
use crate::solve::whole::{final_score, never_paused, new_state, solve_graph, Exits, Graph, SliceError, Straight};

/// Where the values of a pair's solved components are kept, and read back by the
/// components solved after them.
pub(crate) trait PairStore: Sync {
    /// Why a value cannot be kept or read.
    type Error: Send;
    /// The score of position `index` of table `table` (its component solved before).
    fn get(&self, table: usize, index: u64) -> Result<Score, Self::Error>;
    /// Keeps the scores of consecutive positions from `first` on.
    fn put(&self, table: usize, first: u64, scores: &[Score]) -> Result<(), Self::Error>;
    /// Groups of components (by advancement, in solving order) already in the store from
    /// an interrupted run: the solve resumes after them.
    fn groups_done(&self) -> usize {
        0
    }
    /// Records that the first `groups` groups are in the store, durably.
    fn groups_stored(&self, _groups: usize) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Components solved side by side at most: each holds its own working state, so it is
    /// the memory budget's to say, not the thread count's (each component's pass uses
    /// every thread).
    fn components_at_once(&self) -> usize {
        usize::MAX
    }
}

/// A store in memory: two bytes per position of the pair (tests).
#[cfg(test)]
pub(crate) struct MemoryStore {
    values: Vec<Vec<AtomicU16>>,
}

#[cfg(test)]
impl MemoryStore {
    pub(crate) fn new(tables: &[MaterialIndex]) -> MemoryStore {
        MemoryStore { values: tables.iter().map(|t| new_state(t.len() as usize)).collect() }
    }

    fn into_scores(self) -> Vec<Vec<Score>> {
        self.values.into_iter().map(|v| v.into_iter().map(|a| Score::from_raw(a.into_inner())).collect()).collect()
    }
}

#[cfg(test)]
impl PairStore for MemoryStore {
    type Error = std::convert::Infallible;

    fn get(&self, table: usize, index: u64) -> Result<Score, Self::Error> {
        Ok(Score::from_raw(self.values[table][index as usize].load(Ordering::Acquire)))
    }

    fn put(&self, table: usize, first: u64, scores: &[Score]) -> Result<(), Self::Error> {
        for (slot, s) in self.values[table][first as usize..].iter().zip(scores) {
            slot.store(s.raw(), Ordering::Release);
        }
        Ok(())
    }
}

/// A store on disk: two bytes per position in one file per table, written a component at
/// a time and read back a men placement at a time through a cache of `cache_bytes`
/// ([`PlacementCache`]): a component's man moves lead to a few placements, each read
/// whole once. The memory it takes does not grow with the pair.
pub(crate) struct FileStore {
    files: Vec<std::fs::File>,
    kings: u64,
    cache: PlacementCache,
    /// The journal of groups stored, and what it must name to be this pair's.
    journal: std::path::PathBuf,
    key: String,
    resumed: usize,
    /// Components solved side by side at most ([`PairStore::components_at_once`]).
    at_once: usize,
}

/// (table, men placement).
type PlacementKey = (usize, u64);

/// The men placements read back, as many as its capacity, the least recently used given
/// up for a new one. Fully associative, so that the few placements the components being
/// solved read never push each other out (a direct-mapped cache of three placements
/// read 0114+1401's 19 MB placements again and again), and one thread reads a placement
/// while the others needing it wait, so that a miss never holds a copy per thread.
struct PlacementCache {
    held: RwLock<HashMap<PlacementKey, Arc<HeldPlacement>>>,
    capacity: usize,
    /// Counts misses; a placement's `used` is the count when it was last read.
    clock: AtomicU64,
}

struct HeldPlacement {
    scores: OnceLock<Vec<Score>>,
    /// Taken by the thread reading the placement from its file.
    reading: Mutex<()>,
    used: AtomicU64,
}

impl PlacementCache {
    fn new(capacity: usize) -> PlacementCache {
        PlacementCache { held: RwLock::new(HashMap::new()), capacity: capacity.max(1), clock: AtomicU64::new(0) }
    }

    /// The score at `offset` of placement `key`, read with `read` where it is not held.
    fn get(
        &self,
        key: PlacementKey,
        offset: usize,
        read: impl FnOnce() -> std::io::Result<Vec<Score>>,
    ) -> std::io::Result<Score> {
        let held = self.held.read().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = held.get(&key)
            && let Some(scores) = entry.scores.get()
        {
            let now = self.clock.load(Ordering::Relaxed);
            if entry.used.load(Ordering::Relaxed) != now {
                entry.used.store(now, Ordering::Relaxed);
            }
            return Ok(scores[offset]);
        }
        drop(held);
        let entry = self.entry(key);
        let _reading = entry.reading.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(scores) = entry.scores.get() {
            return Ok(scores[offset]);
        }
        let scores = read()?;
        let score = scores[offset];
        let _ = entry.scores.set(scores);
        Ok(score)
    }

    /// The entry of `key`, made (and the least recently used given up) where there is none.
    fn entry(&self, key: PlacementKey) -> Arc<HeldPlacement> {
        let mut held = self.held.write().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = held.get(&key) {
            return entry.clone();
        }
        if held.len() >= self.capacity {
            let oldest = held.iter().min_by_key(|(_, h)| h.used.load(Ordering::Relaxed)).map(|(k, _)| *k);
            if let Some(oldest) = oldest {
                held.remove(&oldest);
            }
        }
        let now = self.clock.fetch_add(1, Ordering::Relaxed) + 1;
        let entry =
            Arc::new(HeldPlacement { scores: OnceLock::new(), reading: Mutex::new(()), used: AtomicU64::new(now) });
        held.insert(key, entry.clone());
        entry
    }
}

impl FileStore {
    /// Opens one file per table at `paths` and the journal at `journal`. Where the
    /// journal names `key` and these tables and every file has its full length, an
    /// interrupted solve left them: they are kept and [`PairStore::groups_done`] says how
    /// far it got. Otherwise the files are created afresh (truncated) and the journal
    /// removed.
    pub(crate) fn open(
        paths: &[std::path::PathBuf],
        tables: &[MaterialIndex],
        cache_bytes: usize,
        journal: &std::path::Path,
        key: &str,
    ) -> std::io::Result<FileStore> {
        let sizes: Vec<u64> = tables.iter().map(|t| 2 * t.len()).collect();
        let key = format!("kabe slice journal 1; {key}; bytes {sizes:?}");
        crate::files::ensure_replaceable(journal)?;
        let resumed = std::fs::read_to_string(journal)
            .ok()
            .and_then(|text| {
                let (named, groups) = text.split_once('\n')?;
                (named == key).then(|| groups.trim().parse::<usize>().ok())?
            })
            .filter(|_| paths.iter().zip(&sizes).all(|(p, &n)| std::fs::metadata(p).is_ok_and(|m| m.len() == n)));
        let mut files = Vec::new();
        for (path, &bytes) in paths.iter().zip(&sizes) {
            let fresh = resumed.is_none();
            let file = crate::files::open_own(
                path,
                std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(fresh),
            )?;
            file.set_len(bytes)?;
            files.push(file);
        }
        if resumed.is_none() {
            crate::files::remove_own(journal)?;
        }
        let kings = tables[0].king_placements();
        // As many placements as the bytes hold, one at least.
        let capacity = (cache_bytes as u64 / (2 * kings)).max(1) as usize;
        Ok(FileStore {
            files,
            kings,
            cache: PlacementCache::new(capacity),
            journal: journal.to_path_buf(),
            key,
            resumed: resumed.unwrap_or(0),
            at_once: usize::MAX,
        })
    }

    /// At most `n` components solved side by side (at least one), to stay within a memory
    /// budget whatever the number of threads.
    pub(crate) fn with_components_at_once(mut self, n: usize) -> FileStore {
        self.at_once = n.max(1);
        self
    }

    /// Components solved side by side at most.
    pub(crate) fn at_once(&self) -> usize {
        self.at_once
    }

    /// Groups stored by an interrupted run this store resumes.
    pub(crate) fn resumed_groups(&self) -> usize {
        self.resumed
    }

    /// The values of the first `groups` groups are written: makes them durable, then
    /// says so in the journal (written aside and renamed, so it is whole or absent).
    pub(crate) fn mark_groups(&self, groups: usize) -> std::io::Result<()> {
        for file in &self.files {
            file.sync_data()?;
        }
        let mut journal = crate::files::NewFile::create(&self.journal, self.journal.with_extension("journal-tmp"))?;
        std::io::Write::write_all(&mut journal, format!("{}\n{groups}\n", self.key).as_bytes())?;
        journal.commit()
    }

    /// Removes the journal (the pair's tables are written).
    pub(crate) fn finish(self) -> std::io::Result<()> {
        let journal = self.journal.clone();
        drop(self);
        crate::files::remove_own(&journal)
    }

    /// The scores of positions `range` of table `table`.
    pub(crate) fn scores(&self, table: usize, range: Range<u64>) -> std::io::Result<Vec<Score>> {
        Ok(self.raw(table, range)?.into_iter().map(Score::from_raw).collect())
    }

    /// The raw two-byte values of positions `range` of table `table` (a score or a rule
    /// value: the store keeps either).
    pub(crate) fn raw(&self, table: usize, range: Range<u64>) -> std::io::Result<Vec<u16>> {
        use std::os::unix::fs::FileExt;
        let mut bytes = vec![0u8; 2 * (range.end - range.start) as usize];
        self.files[table].read_exact_at(&mut bytes, 2 * range.start)?;
        Ok(bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect())
    }

    /// The raw value of one position, through the cache of placements.
    pub(crate) fn get_raw(&self, table: usize, index: u64) -> std::io::Result<u16> {
        self.get(table, index).map(Score::raw)
    }

    /// Keeps raw values of consecutive positions from `first` on.
    pub(crate) fn put_raw(&self, table: usize, first: u64, values: &[u16]) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.files[table].write_all_at(&bytes, 2 * first)
    }
}

impl PairStore for FileStore {
    type Error = std::io::Error;

    fn get(&self, table: usize, index: u64) -> std::io::Result<Score> {
        let placement = index / self.kings;
        let first = placement * self.kings;
        self.cache
            .get((table, placement), (index % self.kings) as usize, || self.scores(table, first..first + self.kings))
    }

    fn put(&self, table: usize, first: u64, scores: &[Score]) -> std::io::Result<()> {
        self.put_raw(table, first, &scores.iter().map(|s| s.raw()).collect::<Vec<_>>())
    }

    fn groups_done(&self) -> usize {
        self.resumed_groups()
    }

    fn groups_stored(&self, groups: usize) -> std::io::Result<()> {
        self.mark_groups(groups)
    }

    fn components_at_once(&self) -> usize {
        self.at_once
    }
}

/// One component as a graph: local node = part * king placements + king rank.
struct ComponentGraph<'a, F, S> {
    tables: &'a [MaterialIndex],
    kings: u64,
    parts: Parts,
    finished: &'a F,
    store: &'a S,
}

impl<F: Finished, S: PairStore> ComponentGraph<'_, F, S> {
    /// The table of a position of the pair's material (White to move).
    fn table_of(&self, normalized: &Position) -> usize {
        let sig = Signature::of(normalized);
        self.tables.iter().position(|t| t.signature() == sig).expect("a quiet move keeps the material")
    }
}

impl<F: Finished, S: PairStore> Graph for ComponentGraph<'_, F, S> {
    type Error = SliceError<F::Error, S::Error>;

    fn len(&self) -> usize {
        (self.parts.len() as u64 * self.kings) as usize
    }

    fn tables(&self) -> &[MaterialIndex] {
        self.tables
    }

    fn locate(&self, node: u64) -> (usize, u64) {
        let (t, m) = self.parts[(node / self.kings) as usize];
        (t, m * self.kings + node % self.kings)
    }

    fn positions(&self, range: Range<u64>) -> Box<dyn Iterator<Item = Position> + '_> {
        let kings = self.kings;
        Box::new(part_positions(kings, range, move |part, placements| {
            let (t, m) = self.parts[part];
            self.tables[t].positions(m * kings + placements.start..m * kings + placements.end)
        }))
    }

    /// Quiet king moves stay in the component; a man move goes to a component solved
    /// before, read from the store; captures and promotions to finished tables.
    fn exits(&self, position: &Position, moves: &mut MoveList) -> Result<Exits, Self::Error> {
        let king_steps = position.legal_moves_counting_king_steps(moves);
        let mut e = Exits::default();
        e.internal_moves = king_steps as u16;
        for mv in moves.iter() {
            if mv.is_capture() || mv.promotes() {
                e.add(self.finished.dtw(&position.play(mv)).map_err(SliceError::Finished)?);
            } else {
                let child = position.play(mv).normalized();
                let t = self.table_of(&child);
                e.add(self.store.get(t, self.tables[t].index(&child)).map_err(SliceError::Store)?);
            }
        }
        Ok(e)
    }

    /// Positions one quiet king move earlier.
    fn for_each_parent(&self, node: &Position, mut visit: impl FnMut(u64)) {
        let child = node.flipped();
        child.for_each_quiet_predecessor(Unmoves::KINGS, |parent, _| visit(self.node_of(parent)))
    }

    /// A position of the component (a king move keeps the men).
    fn node_of(&self, position: &Position) -> u64 {
        let t = self.table_of(position);
        let index = self.tables[t].index(position);
        let part = self
            .parts
            .iter()
            .position(|&(pt, pm)| pt == t && index / self.kings == pm)
            .expect("a king move keeps the men: same component");
        part as u64 * self.kings + index % self.kings
    }

    fn node_of_sets(&self, sets: &SquareSets) -> u64 {
        self.node_of(&Position::from_square_sets(*self.tables[0].variant(), Color::White, sets))
    }
}

/// Solves `signature` and its colour flip one component at a time into `store`; the
/// components equally advanced run in parallel, at most
/// [`PairStore::components_at_once`] of them. `progress` as [`crate::solve_pair`].
pub(crate) fn solve_pair_sliced<F: Finished, S: PairStore>(
    finished: &F,
    tables: &[MaterialIndex],
    store: &S,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), SliceError<F::Error, S::Error>> {
    let kings = tables[0].king_placements();
    let order = components(tables);
    let resume = store.groups_done();
    let at_once = store.components_at_once().max(1);
    for (g, group) in groups(&order).enumerate().skip(resume) {
        for batch in group.chunks(at_once) {
            batch.par_iter().try_for_each(|component| {
                let graph = ComponentGraph { tables, kings, parts: component.parts(), finished, store };
                let state = new_state(graph.len());
                solve_graph(&graph, &state, None, &Straight, progress).map_err(never_paused)?;
                let scores: Vec<Score> = state.into_iter().map(|s| final_score(s.into_inner())).collect();
                for (part, (t, m)) in scores.chunks(kings as usize).zip(component.parts()) {
                    store.put(t, m * kings, part).map_err(SliceError::Store)?;
                }
                Ok(())
            })?;
        }
        store.groups_stored(g + 1).map_err(SliceError::Store)?;
    }
    Ok(())
}

/// As [`crate::solve_pair`], one component at a time, the values kept in memory: the
/// same tables (tested), for the tests of the sliced pass.
#[cfg(test)]
pub(crate) fn solve_pair_in_slices<F: Finished>(
    finished: &F,
    variant: Variant,
    signature: Signature,
) -> Result<Vec<SolvedTable>, F::Error> {
    let tables = pair_tables(variant, signature);
    let store = MemoryStore::new(&tables);
    solve_pair_sliced(finished, &tables, &store, &|_| {}).map_err(|e| match e {
        SliceError::Finished(e) => e,
        SliceError::Store(never) => match never {},
    })?;
    Ok(tables
        .into_iter()
        .zip(store.into_scores())
        .map(|(index, scores)| SolvedTable { index, scores, captures: None })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::write::write_table_streamed;
    use crate::{solve_all, solve_pair, table_bytes};
    use kabe_probe::table::Metric;

    /// Every pair with men of 4 pieces (Russian) and 3 (international, kabe): the same
    /// scores as the whole-pair solver.
    #[test]
    fn slices_give_the_whole_pair_values() {
        for (variant, pieces) in [(Variant::RUSSIAN, 4), (Variant::INTERNATIONAL, 3), (Variant::KABE, 3)] {
            let mut registry = solve_all(variant, pieces - 1, |_| {});
            let mut compared = 0;
            // In build order: a promotion leads to a table of the same size built before.
            for sig in Signature::all_with(pieces) {
                if registry.table(sig).is_some() {
                    continue;
                }
                let whole = solve_pair(&registry, variant, sig, &|_| {}).expect("smaller tables solved");
                let sliced = solve_pair_in_slices(&registry, variant, sig).expect("smaller tables solved");
                for (w, s) in whole.iter().zip(&sliced) {
                    assert_eq!(w.index.signature(), s.index.signature());
                    let first_difference = w.scores.iter().zip(&s.scores).position(|(a, b)| a != b);
                    assert_eq!(first_difference, None, "{} {}", variant.name, w.index.signature());
                }
                compared += 1;
                whole.into_iter().for_each(|t| registry.insert(t));
            }
            assert!(compared > 3, "{}: only {compared} pairs", variant.name);
        }
    }

    /// The cache of placements holds what its bytes allow, one placement at least,
    /// however large the placements.
    #[test]
    fn a_store_s_cache_stays_within_its_bytes() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let variant = Variant::INTERNATIONAL;
        for (sig, cache) in [("0114", 64 << 20), ("0114", 1), ("1111", 64 << 20)] {
            let tables = pair_tables(variant, sig.parse().expect("a signature"));
            let paths: Vec<_> =
                tables.iter().map(|t| folder.path().join(format!("{}.slices", t.signature()))).collect();
            let store = FileStore::open(&paths, &tables, cache, &folder.path().join("journal"), "test").expect("files");
            let placement = 2 * tables[0].king_placements();
            let held = store.cache.capacity as u64 * placement;
            assert!(held <= (cache as u64).max(placement), "{sig}: {held} bytes for a cache of {cache}");
            assert!(held + placement > cache as u64, "{sig}: as many as fit");
        }
    }

    /// The cache reads a placement once while it is held, whichever placements the
    /// components read in turn (as many as it holds), gives up the least recently used,
    /// and reads a placement once however many threads want it at the same moment.
    #[test]
    fn the_placement_cache_reads_each_placement_once_while_it_holds_it() {
        let reads = AtomicU64::new(0);
        let read = |key: PlacementKey| {
            reads.fetch_add(1, Ordering::Relaxed);
            Ok(vec![Score::from_raw(key.1 as u16); 4])
        };
        let cache = PlacementCache::new(3);
        let get = |key: PlacementKey, offset: usize| cache.get(key, offset, || read(key)).expect("no error").raw();
        let (a, b, c, d) = ((0, 7), (1, 7), (0, 8), (1, 9));
        for key in [a, b, c, b, c] {
            assert_eq!(get(key, 0), key.1 as u16);
        }
        assert_eq!(reads.load(Ordering::Relaxed), 3);
        // b and c used since a: a fourth gives up a.
        get(d, 0);
        assert_eq!(reads.load(Ordering::Relaxed), 4);
        // Three placements read in turn, many times: no read again.
        for round in 0..100 {
            for key in [b, c, d] {
                assert_eq!(get(key, round % 4), key.1 as u16);
            }
        }
        assert_eq!(reads.load(Ordering::Relaxed), 4);
        get(a, 0);
        assert_eq!(reads.load(Ordering::Relaxed), 5);
        // Sixteen threads at once on a placement not held: one read.
        let before = reads.load(Ordering::Relaxed);
        std::thread::scope(|scope| {
            for _ in 0..16 {
                scope.spawn(|| cache.get((1, 20), 1, || read((1, 20))).expect("no error"));
            }
        });
        assert_eq!(reads.load(Ordering::Relaxed), before + 1);
        // A failed read leaves nothing behind: the next asks again.
        let failed = cache.get((0, 30), 0, || Err(std::io::Error::other("disk gone")));
        assert!(failed.is_err());
        assert_eq!(cache.get((0, 30), 0, || read((0, 30))).expect("read again").raw(), 30);
    }

    /// Through files, with a cache of a few placements, the components one at a time or
    /// side by side: the same scores again.
    #[test]
    fn a_store_on_disk_gives_the_same_values() {
        let variant = Variant::RUSSIAN;
        let mut registry = solve_all(variant, 3, |_| {});
        let folder = tempfile::tempdir().expect("a temporary folder"); // removed pass or fail
        let dir = folder.path().to_path_buf();
        let chosen = [Signature::new(2, 0, 1, 1), Signature::new(1, 1, 1, 1), Signature::new(2, 0, 2, 0)];
        for sig in Signature::all_with(4) {
            if registry.table(sig).is_some() {
                continue;
            }
            let whole = solve_pair(&registry, variant, sig, &|_| {}).expect("smaller tables solved");
            if !chosen.contains(&sig) {
                whole.into_iter().for_each(|t| registry.insert(t));
                continue;
            }
            let tables = pair_tables(variant, sig);
            for at_once in [1, usize::MAX] {
                let paths: Vec<_> =
                    tables.iter().map(|t| dir.join(format!("{}.{at_once}.slices", t.signature()))).collect();
                let journal = dir.join(format!("{sig}.{at_once}.journal"));
                let store = FileStore::open(&paths, &tables, 1, &journal, "test")
                    .expect("store files")
                    .with_components_at_once(at_once);
                if let Err(e) = solve_pair_sliced(&registry, &tables, &store, &|_| {}) {
                    panic!("{sig}: {e:?}");
                }
                for (t, w) in whole.iter().enumerate() {
                    assert_eq!(store.scores(t, 0..w.index.len()).expect("read back"), w.scores, "{sig} {at_once}");
                }
            }
            let paths: Vec<_> = tables.iter().map(|t| dir.join(format!("{}.slices", t.signature()))).collect();
            let journal = dir.join(format!("{sig}.journal"));
            let store = FileStore::open(&paths, &tables, 1, &journal, "test").expect("store files");
            if let Err(e) = solve_pair_sliced(&registry, &tables, &store, &|_| {}) {
                panic!("{sig}: {e:?}");
            }
            for (t, w) in whole.iter().enumerate() {
                assert_eq!(store.scores(t, 0..w.index.len()).expect("read back"), w.scores, "{sig}");
                for metric in [Metric::Wld, Metric::Dtw] {
                    let path = write_table_streamed(&dir, variant.name, &w.index, metric, &|r| store.scores(t, r))
                        .expect("streamed");
                    let streamed = std::fs::read(path).expect("written");
                    assert_eq!(streamed, table_bytes(variant.name, w, metric).expect("bytes"), "{sig} {metric:?}");
                }
            }
            whole.into_iter().for_each(|t| registry.insert(t));
        }
    }

    /// A store that stops the solve (as a kill would) once `after` groups are stored,
    /// and counts the positions written through it.
    struct Interrupting<'a> {
        inner: &'a FileStore,
        after: Option<usize>,
        written: AtomicU64,
    }

    impl PairStore for Interrupting<'_> {
        type Error = std::io::Error;
        fn get(&self, table: usize, index: u64) -> std::io::Result<Score> {
            self.inner.get(table, index)
        }
        fn put(&self, table: usize, first: u64, scores: &[Score]) -> std::io::Result<()> {
            self.written.fetch_add(scores.len() as u64, Ordering::Relaxed);
            self.inner.put(table, first, scores)
        }
        fn groups_done(&self) -> usize {
            self.inner.groups_done()
        }
        fn groups_stored(&self, groups: usize) -> std::io::Result<()> {
            self.inner.groups_stored(groups)?;
            match self.after {
                Some(after) if groups == after => Err(std::io::Error::other("interrupted")),
                _ => Ok(()),
            }
        }
    }

    /// A sliced solve stopped after some groups of men placements resumes from its
    /// journal: the groups stored are not solved again, and the values equal the whole
    /// pair's. A journal of another key is not taken for this pair's.
    #[test]
    fn an_interrupted_sliced_solve_resumes_after_its_last_stored_group() {
        let variant = Variant::RUSSIAN;
        let mut registry = solve_all(variant, 3, |_| {});
        let folder = tempfile::tempdir().expect("a temporary folder"); // removed pass or fail
        let dir = folder.path().to_path_buf();
        let chosen = Signature::new(1, 1, 1, 1);
        for sig in Signature::all_with(4) {
            if registry.table(sig).is_some() {
                continue;
            }
            let whole = solve_pair(&registry, variant, sig, &|_| {}).expect("smaller tables solved");
            if sig != chosen {
                whole.into_iter().for_each(|t| registry.insert(t));
                continue;
            }
            let tables = pair_tables(variant, sig);
            let total: u64 = tables.iter().map(|t| t.len()).sum();
            let groups = groups(&components(&tables)).count();
            assert!(groups > 2, "{groups} groups");
            let paths: Vec<_> = tables.iter().map(|t| dir.join(format!("{}.slices", t.signature()))).collect();
            let journal = dir.join("pair.journal");
            let after = groups / 2;
            let first = FileStore::open(&paths, &tables, 1, &journal, "1111").expect("store files");
            assert_eq!(first.resumed_groups(), 0);
            let stopping = Interrupting { inner: &first, after: Some(after), written: AtomicU64::new(0) };
            assert!(solve_pair_sliced(&registry, &tables, &stopping, &|_| {}).is_err(), "interrupted");
            let written_first = stopping.written.load(Ordering::Relaxed);
            drop(first);

            let resumed = FileStore::open(&paths, &tables, 1, &journal, "1111").expect("store files");
            assert_eq!(resumed.resumed_groups(), after);
            let counting = Interrupting { inner: &resumed, after: None, written: AtomicU64::new(0) };
            solve_pair_sliced(&registry, &tables, &counting, &|_| {}).expect("resumed");
            let written_after = counting.written.load(Ordering::Relaxed);
            assert_eq!(written_first + written_after, total, "each position solved once over the two runs");
            assert!(written_first > 0 && written_after > 0);
            for (t, w) in whole.iter().enumerate() {
                assert_eq!(resumed.scores(t, 0..w.index.len()).expect("read back"), w.scores, "{sig}");
            }
            drop(resumed);
            let foreign = FileStore::open(&paths, &tables, 1, &journal, "another pair").expect("store");
            assert_eq!(foreign.resumed_groups(), 0, "a journal of another key is not taken");
            assert!(!journal.exists(), "and it is removed with the files it described");
            foreign.finish().expect("finished");
            break;
        }
    }

    /// A budget too small for the larger pairs of Russian 2-4 solves them in slices, on
    /// disk, theory and rule tables; every file equals a build with room to spare, and no
    /// store file is left.
    #[test]
    fn a_build_over_budget_solves_in_slices_with_the_same_files() {
        use crate::build::{build_rules_scope, build_scope, pair_state_bytes, Scope};
        use crate::MemoryBudget;
        let variant = Variant::RUSSIAN;
        let folder = tempfile::tempdir().expect("a temporary folder"); // removed pass or fail
        let root = folder.path().to_path_buf();
        let (roomy, tight) = (root.join("roomy"), root.join("tight"));
        // What the budget leaves for pairs: 1.2 MB, above every kings-only pair (one
        // placement: it cannot be sliced), below 1111's 1.36 MB.
        let budget = MemoryBudget::new((192 << 20) + (32 << 20) + 1_200_000);
        let sliced: Vec<Signature> = Signature::all_with(4)
            .into_iter()
            .filter(|s| *s <= s.flipped() && pair_state_bytes(variant, &crate::pair::TablePair::of(*s), budget).1)
            .collect();
        assert!(sliced.contains(&Signature::new(1, 1, 1, 1)), "sliced: {sliced:?}");
        let rules = kabe_probe::DrawRules::new(kabe_probe::DrawRuleSet::usual_for(&variant), &variant);
        assert!(sliced.iter().any(|s| rules.context(*s).is_some()), "no sliced pair keeps rule tables: {sliced:?}");
        for (dir, budget) in [(&roomy, MemoryBudget::default()), (&tight, budget)] {
            build_scope(variant, Scope::Pieces(4), dir, budget, rules, &|_| {}).expect("theory");
            build_rules_scope(variant, rules, Scope::Pieces(4), dir, budget, &|_| {}).expect("rule tables");
        }
        let mut files = 0;
        for entry in std::fs::read_dir(roomy.join(variant.name)).expect("tables") {
            let name = entry.expect("entry").file_name();
            let a = std::fs::read(roomy.join(variant.name).join(&name)).expect("roomy file");
            let b = std::fs::read(tight.join(variant.name).join(&name)).expect("tight file");
            assert!(a == b, "{name:?} differs");
            files += 1;
        }
        let left: Vec<_> = std::fs::read_dir(tight.join(variant.name))
            .expect("tables")
            .filter_map(|e| e.ok())
            .filter(|e| !e.file_name().to_string_lossy().ends_with(".kabe"))
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
        let rule_files = std::fs::read_dir(tight.join(variant.name))
            .expect("tables")
            .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().contains(rules.set.name())))
            .count();
        assert!(files > 30 && rule_files > 10, "{files} files, {rule_files} rule tables");
    }
}
