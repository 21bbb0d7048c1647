//! Retrograde analysis of one signature together with its colour flip, in two bytes of
//! working state per position.
//!
//! A quiet move hands the turn over without changing the material, so the positions of
//! a signature (White to move) and of its colour flip form one game graph; captures and
//! promotions leave it for finished tables, read through [`Finished`]. The pass:
//!
//! 1. **Initialise** every node from its moves. A move out of the pair to a lost child
//!    makes the node a win, provisionally at that distance; a drawn child means the node
//!    can never be lost; otherwise the node counts its moves inside the pair.
//! 2. **Propagate ply by ply.** Every node whose value is the current ply is final: a
//!    node lost in `n` lowers each parent's value to a win in `n + 1`; a node won in `n`
//!    lowers each parent's count of moves not yet known to lose, and a parent left with
//!    none is lost in `max(n + 1, its longest loss through a move out of the pair)`,
//!    kept beside the count in the same two bytes (or found again from the moves when
//!    it is too long for its seven bits). Plies
//!    are taken in increasing order, so the winner's shortest and the loser's longest
//!    way come out exact.
//! 3. Whatever is left unresolved is a draw.
//!
//! There is no queue: the value array is scanned for the current ply, and a per-chunk
//! minimum of pending values lets the scan skip chunks with nothing at this ply. Work
//! inside a ply is parallel; values are lowered with atomic minimum and counts with
//! compare-and-swap, so no lock is taken.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::Mutex;

use kabe_probe::internal::{LastMen, MaterialIndex, OneKingMoved, Unmoves};
use kabe_probe::{MoveList, PieceKind, Position, Score, Signature, Square, SquareSets, Variant, Wld};
use rayon::prelude::*;

use crate::finished::lookup::Finished;
use crate::finished::registry::{CaptureFlags, SolvedTable};
use crate::memory::prefetch;
use crate::solve::checkpoint::{Checkpoint, PassStage};
use crate::solve::symmetry::KingSymmetry;

/// Node state below this: a value (plies; final once the scan reaches it, a win may
/// still be lowered before). From it up: unresolved, `PENDING | exit_loss << 8 | moves`:
/// the low byte counts the moves inside the pair not yet known to lose (at most 8
/// kings of 17 moves each: below 255), the next 7 bits hold the longest loss through a
/// move out of the pair (`EXIT_UNKNOWN` when longer: found again from the moves).
pub(crate) const PENDING: u16 = 0x8000;
/// Exit loss field: too long to hold, look again.
pub(crate) const EXIT_UNKNOWN: u16 = 0x7F;
/// Unresolved, and some move leads to a draw: never lost (no position has 255 moves).
pub(crate) const CANNOT_LOSE: u16 = u16::MAX;
/// Chunk minimum when the chunk holds no pending value.
const NOTHING: u16 = u16::MAX;

/// A node a pass by symmetry leaves to its class's canonical member: pending, as no
/// node of its own ever is (it would have 255 moves), and never counted down.
pub(crate) const NOT_CANONICAL: u16 = PENDING | (EXIT_UNKNOWN - 1) << 8 | 0xFF;

/// Nodes per chunk: the unit of parallel work and of the scan's skip summary.
pub(crate) const CHUNK: usize = 4096;

/// Nodes per block, the finer unit the propagation's scan of a chunk skips by.
const BLOCK: usize = 64;
const _: () = assert!(CHUNK / BLOCK == 64, "a chunk's blocks are the bits of one word");

/// What the propagation knows of a chunk's blocks, so that a chunk with a node at the
/// current ply is scanned in the blocks that may hold one, not whole: a chunk's decided
/// values spread over every ply of the pass, and scanning every node of it at each ply
/// was 11% of the instructions of a five-piece theory pass (callgrind, Russian
/// 1121+2111).
struct ChunkBlocks {
    /// A bit a block: a node of it was lowered since the block was last scanned.
    lowered: AtomicU64,
    /// Each block's least decided value above the ply it was last scanned at
    /// ([`NOTHING`]: none), good while its bit in `lowered` is clear. Only the worker
    /// scanning the chunk touches these.
    later: [AtomicU16; CHUNK / BLOCK],
}

impl ChunkBlocks {
    /// Every block to be scanned.
    fn unknown() -> ChunkBlocks {
        ChunkBlocks { lowered: AtomicU64::new(u64::MAX), later: std::array::from_fn(|_| AtomicU16::new(NOTHING)) }
    }

    /// Notes that the node `node % CHUNK` of this chunk was lowered (after its slot was):
    /// read first, as [`lower_in_chunk`] reads its minimum.
    #[inline]
    fn note_lowered(&self, node: usize) {
        let bit = 1u64 << (node % CHUNK / BLOCK);
        if self.lowered.load(Ordering::SeqCst) & bit == 0 {
            self.lowered.fetch_or(bit, Ordering::SeqCst);
        }
    }
}

/// Parents gathered (their slots fetched ahead) before their values are lowered.
pub(crate) const PARENT_BATCH: usize = 32;

/// Bytes of working state per position while a pair is solved.
pub const STATE_BYTES_PER_POSITION: u64 = 2;

/// Bytes of working state while a pair of `positions` is solved whole: its state, a bit
/// for each position that notes a capture to make ([`CaptureFlags`]), and the
/// propagation's summary of each chunk's blocks ([`ChunkBlocks`]).
pub fn whole_state_bytes(positions: u64) -> u64 {
    positions * STATE_BYTES_PER_POSITION
        + positions.div_ceil(64) * 8
        + positions.div_ceil(CHUNK as u64) * std::mem::size_of::<ChunkBlocks>() as u64
}

/// A game graph the ply-ordered pass solves: nodes `0..len`; the moves inside it are
/// counted and their values propagated, the moves leaving it are valued once, from
/// finished tables or parts of the graph solved before.
pub(crate) trait Graph: Sync {
    /// Why a value cannot be read.
    type Error: Send;
    /// Number of nodes.
    fn len(&self) -> usize;
    /// The tables the nodes are positions of.
    fn tables(&self) -> &[MaterialIndex];
    /// The table of a node and its index there.
    fn locate(&self, node: u64) -> (usize, u64);
    /// The position of a node (the side to move is White).
    fn position(&self, node: u64) -> Position {
        let (t, index) = self.locate(node);
        self.tables()[t].position(index)
    }
    /// As [`Graph::position`], for nodes visited in increasing order: each table's men
    /// are unranked again only when they change.
    fn position_reusing(&self, node: u64, last: &mut [LastMen; 2]) -> Position {
        let (t, index) = self.locate(node);
        self.tables()[t].position_reusing(index, &mut last[t])
    }
    /// The positions of consecutive nodes.
    fn positions(&self, range: std::ops::Range<u64>) -> Box<dyn Iterator<Item = Position> + '_>;
    /// A node's moves: how many stay inside, and what the others give; `moves` is left
    /// holding the position's legal moves but the quiet king moves, which are only
    /// counted (none listed and none counted: the game is over).
    fn exits(&self, position: &Position, moves: &mut MoveList) -> Result<Exits, Self::Error>;
    /// [`Graph::exits`] of each of `positions`, appended to `out` with whether the
    /// position has no move at all; a graph may read the values of all their exits
    /// together (in `buffers`, reused from call to call).
    fn exits_of(
        &self,
        positions: &[Position],
        moves: &mut MoveList,
        _buffers: &mut ExitBuffers,
        out: &mut Vec<(Exits, bool)>,
    ) -> Result<(), Self::Error> {
        for position in positions {
            let e = self.exits(position, moves)?;
            out.push((e, moves.is_empty()));
        }
        Ok(())
    }
    /// Hands `visit` the nodes one move inside the graph earlier than `node`, a node's
    /// position. Solved by symmetry ([`Graph::symmetry`]): the canonical nodes, each as
    /// many times as it has moves into the node's class.
    fn for_each_parent(&self, node: &Position, visit: impl FnMut(u64));
    /// The board symmetries the graph is solved by, if any: only the canonical node of
    /// each class is initialised and propagated, the others copy it at the end.
    fn symmetry(&self) -> Option<&KingSymmetry> {
        None
    }
    /// The node of a position of the graph (White to move).
    fn node_of(&self, position: &Position) -> u64;
    /// [`Graph::node_of`] of a position given by its square sets.
    fn node_of_sets(&self, sets: &SquareSets) -> u64;
}

/// What [`Graph::exits_of`] gathers for a batch of positions: their exits' positions,
/// whose position each is, and their values. Kept by each worker from batch to batch:
/// allocating them afresh was 5% of a six-piece theory pass (perf, 1221+2112).
#[derive(Default)]
pub(crate) struct ExitBuffers {
    children: Vec<Position>,
    owners: Vec<usize>,
    scores: Vec<Score>,
}

/// The pair being solved whole: one or two tables, nodes numbered table after table.
pub(crate) struct Pair<'a, F> {
    pub(crate) tables: Vec<MaterialIndex>,
    finished: &'a F,
    /// A pair of kings only: solved one position of each class of images.
    symmetry: Option<KingSymmetry>,
}

impl<'a, F: Finished> Pair<'a, F> {
    pub(crate) fn new(finished: &'a F, variant: Variant, signature: Signature, pass: PairPass) -> Self {
        let symmetry = match pass {
            PairPass::Plain => None,
            PairPass::Fastest | PairPass::KingWords => KingSymmetry::of(&variant, signature),
        };
        Pair { tables: pair_tables(variant, signature), finished, symmetry }
    }

    /// The variant of the pair's tables.
    pub(crate) fn variant(&self) -> Variant {
        *self.tables[0].variant()
    }

    /// The table of a position (White to move) whose material is in the pair, and the
    /// node number of its index 0.
    fn table_of(&self, normalized: &Position) -> (&MaterialIndex, u64) {
        if Signature::of(normalized) == self.tables[0].signature() {
            (&self.tables[0], 0)
        } else {
            (&self.tables[1], self.tables[0].len())
        }
    }
}

/// The table of a signature, and of its colour flip where that is another signature.
pub(crate) fn pair_tables(variant: Variant, signature: Signature) -> Vec<MaterialIndex> {
    let mut tables = vec![MaterialIndex::new(variant, signature).expect("table-sized signature")];
    if signature.flipped() != signature {
        tables.push(MaterialIndex::new(variant, signature.flipped()).expect("table-sized signature"));
    }
    tables
}

impl<F: Finished> Graph for Pair<'_, F> {
    type Error = F::Error;

    fn len(&self) -> usize {
        self.tables.iter().map(MaterialIndex::len).sum::<u64>() as usize
    }

    fn tables(&self) -> &[MaterialIndex] {
        &self.tables
    }

    fn locate(&self, node: u64) -> (usize, u64) {
        let first = self.tables[0].len();
        if node < first {
            (0, node)
        } else {
            (1, node - first)
        }
    }

    fn positions(&self, range: std::ops::Range<u64>) -> Box<dyn Iterator<Item = Position> + '_> {
        let first = self.tables[0].len();
        if range.end <= first {
            Box::new(self.tables[0].positions(range))
        } else if range.start >= first {
            Box::new(self.tables[1].positions(range.start - first..range.end - first))
        } else {
            Box::new(self.tables[0].positions(range.start..first).chain(self.tables[1].positions(0..range.end - first)))
        }
    }

    fn exits(&self, position: &Position, moves: &mut MoveList) -> Result<Exits, F::Error> {
        let mut out = Vec::with_capacity(1);
        self.exits_of(std::slice::from_ref(position), moves, &mut ExitBuffers::default(), &mut out)?;
        Ok(out.pop().expect("one position, one entry").0)
    }

    /// Quiet moves that crown no man stay in the pair; captures and promotions leave it.
    /// The exits' positions of all of `positions` are valued in one call
    /// ([`Finished::dtw_of`]), so that their reads overlap.
    fn exits_of(
        &self,
        positions: &[Position],
        moves: &mut MoveList,
        buffers: &mut ExitBuffers,
        out: &mut Vec<(Exits, bool)>,
    ) -> Result<(), F::Error> {
        let first = out.len();
        let ExitBuffers { children, owners, scores } = buffers;
        children.clear();
        owners.clear();
        for (i, position) in positions.iter().enumerate() {
            let king_steps = position.legal_moves_counting_king_steps(moves);
            let capture = moves.first().is_some_and(|mv| mv.is_capture());
            let mut e = Exits { internal_moves: king_steps as u16, capture, ..Exits::default() };
            for mv in moves.iter() {
                if !mv.is_capture() && !mv.promotes() {
                    e.internal_moves += 1;
                } else {
                    children.push(position.play(mv));
                    owners.push(first + i);
                }
            }
            out.push((e, moves.is_empty()));
        }
        scores.clear();
        self.finished.dtw_of(children, scores)?;
        for (&owner, &score) in owners.iter().zip(scores.iter()) {
            out[owner].0.add(score);
        }
        Ok(())
    }

    /// Positions one quiet, non-crowning move earlier.
    fn for_each_parent(&self, node: &Position, mut visit: impl FnMut(u64)) {
        // The node is the mover's child seen from the other side: turn it back.
        let child = node.flipped();
        if let Some(symmetry) = &self.symmetry {
            // The maps commute with the colour flip: the node's images and its child's
            // are taken by the same elements.
            let node_images = symmetry.images(&node.square_sets());
            let distinct = KingSymmetry::distinct_images(&node_images);
            // A parent is the child with one White king moved back: its images are the
            // child's with that king's image moved; its table is the child's material.
            let child_images = KingSymmetry::flipped_images(&node_images);
            let (table, first) = self.table_of(&child.with_turn(kabe_probe::Color::White));
            child.for_each_quiet_predecessor(Unmoves::KEEPING_MATERIAL, |_, step| {
                let images = symmetry.king_moved_back(&child_images, step.to.index(), step.from.index());
                let (canonical, moves) = KingSymmetry::canonical_and_moves(&images, distinct);
                if moves > 0 {
                    let node = first + table.index_of_sets(&canonical);
                    (0..moves).for_each(|_| visit(node));
                }
            });
            return;
        }
        // A king's moves keep the men: once one such parent's index is known, the others
        // differ from it in the king placement alone, and the parents one king's moves
        // lead to differ in that king's square alone.
        let mut kings_moved: Option<(&MaterialIndex, u64)> = None;
        let (mut ranks_for, mut ranks): (Option<Square>, OneKingMoved) = (None, OneKingMoved::EMPTY);
        child.for_each_quiet_predecessor(Unmoves::KEEPING_MATERIAL, |parent, step| {
            if step.piece == PieceKind::King {
                let (table, men_base) = *kings_moved.get_or_insert_with(|| {
                    let (table, first) = self.table_of(parent);
                    let index = table.index(parent);
                    (table, first + index - index % table.king_placements())
                });
                if ranks_for != Some(step.to) {
                    table.one_king_moved_into(parent, step.from, &mut ranks);
                    ranks_for = Some(step.to);
                }
                visit(men_base + ranks.king_rank(step.from));
            } else {
                let (table, first) = self.table_of(parent);
                visit(first + table.index(parent));
            }
        });
    }

    fn symmetry(&self) -> Option<&KingSymmetry> {
        self.symmetry.as_ref()
    }

    fn node_of(&self, position: &Position) -> u64 {
        let (table, first) = self.table_of(position);
        first + table.index(position)
    }

    fn node_of_sets(&self, sets: &SquareSets) -> u64 {
        let signature = Signature::of_sets(sets);
        let (table, first) = if self.tables[0].signature() == signature {
            (&self.tables[0], 0)
        } else {
            (&self.tables[1], self.tables[0].len())
        };
        first + table.index_of_sets(sets)
    }
}

/// Which pass solves a pair whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairPass {
    /// Every position initialised and propagated.
    Plain,
    /// A pair of kings only by its board symmetries ([`KingSymmetry`]), a quarter of
    /// the positions solved; any other pair as [`PairPass::Plain`].
    Fastest,
    /// A pair of kings only on the 10x10 board bit-parallel over one king's square
    /// ([`crate::solve::king_words`]); any other pair as [`PairPass::Fastest`].
    KingWords,
}

/// What a node's moves out of the graph give.
#[derive(Default)]
pub(crate) struct Exits {
    pub(crate) internal_moves: u16,
    /// The moves are captures (the graph notes it where it knows).
    pub(crate) capture: bool,
    draw: bool,
    /// Shortest win through an exit.
    best_win: Option<u16>,
    /// Longest loss through exits.
    longest_loss: u16,
}

impl Exits {
    /// The shortest win through an exit.
    pub(crate) fn best_win(&self) -> Option<u16> {
        self.best_win
    }

    /// Whether an exit leads to a draw.
    pub(crate) fn draw(&self) -> bool {
        self.draw
    }

    /// The longest loss through the exits.
    pub(crate) fn longest_loss(&self) -> u16 {
        self.longest_loss
    }

    /// A move leaving the graph for a position of this value (for the opponent).
    pub(crate) fn add(&mut self, score: Score) {
        match score.wld() {
            Wld::Loss => self.best_win = Some(self.best_win.map_or(score.raw() + 1, |w| w.min(score.raw() + 1))),
            Wld::Win => self.longest_loss = self.longest_loss.max(score.raw() + 1),
            Wld::Draw => self.draw = true,
        }
    }
}

/// The first error any worker met; workers stop taking new chunks once one is set.
struct FirstError<E>(Mutex<Option<E>>);

impl<E> FirstError<E> {
    fn set(&self, e: E) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
    }
    fn is_set(&self) -> bool {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }
    fn into_result(self) -> Result<(), E> {
        self.0.into_inner().unwrap_or_else(|p| p.into_inner()).map_or(Ok(()), Err)
    }
}

/// Solves `signature` and its colour flip; every table their captures and promotions
/// lead to must be finished in `finished`. Returns one table, or two when the flip is
/// another signature. `progress` receives units of work done: one per node initialised,
/// one per node resolved (about `2 * positions` in all).
pub fn solve_pair<F: Finished>(
    finished: &F,
    variant: Variant,
    signature: Signature,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SolvedTable>, F::Error> {
    solve_whole_pair_by(finished, variant, signature, PairPass::Fastest, progress)
}

/// [`solve_pair`] by the pass `pass`.
pub fn solve_whole_pair_by<F: Finished>(
    finished: &F,
    variant: Variant,
    signature: Signature,
    pass: PairPass,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SolvedTable>, F::Error> {
    let pair = Pair::new(finished, variant, signature, pass);
    let state = new_state(pair.len());
    let captures = new_flags(pair.len());
    let fresh = solve_graph(&pair, &state, Some(&captures), &Straight, progress).map_err(never_paused)?;
    Ok(into_tables(pair.tables, state, fresh.then_some(captures)))
}

/// As [`solve_pair`], the state written to `checkpoint` now and then (at a [`Stage`]),
/// and taken up again from it where a run stopped before left one.
pub(crate) fn solve_pair_resumable<F: Finished>(
    finished: &F,
    variant: Variant,
    signature: Signature,
    checkpoint: &Checkpoint<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SolvedTable>, F::Error> {
    solve_pair_pausing_every(finished, variant, signature, checkpoint, INIT_SEGMENT_NODES, progress)
}

/// As [`solve_pair_resumable`], the initialisation in segments of `segment_nodes`.
pub(crate) fn solve_pair_pausing_every<F: Finished>(
    finished: &F,
    variant: Variant,
    signature: Signature,
    checkpoint: &Checkpoint<'_>,
    segment_nodes: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SolvedTable>, F::Error> {
    let pair = Pair::new(finished, variant, signature, PairPass::Fastest);
    let by_symmetry = pair.symmetry.is_some();
    let state = new_state(pair.len());
    // A stage this pass never records is no state of it: every node is initialised
    // again. The passes by symmetry and without mark their stages apart.
    let resumed = checkpoint.load(&[&state], CANNOT_LOSE).and_then(|code| Stage::of_pass_code(code, by_symmetry));
    let pauses = Checkpointed { checkpoint, resumed, segment_nodes, by_symmetry };
    let captures = new_flags(pair.len());
    let fresh = solve_graph(&pair, &state, Some(&captures), &pauses, progress).map_err(never_paused)?;
    Ok(into_tables(pair.tables, state, fresh.then_some(captures)))
}

/// Capture flags for `n` nodes, none set: a bit a node, 64 a word.
pub(crate) fn new_flags(n: usize) -> Vec<AtomicU64> {
    (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()
}

/// The final scores of a pair's state, split into its tables, with the capture flags
/// where every node's were noted. In place: a node's state and its score are both two
/// bytes, and each table after the first is moved off the end of the pair's scores a run
/// at a time ([`take_tail`]), so the split never holds a second copy of them (4.2 GB for
/// 1122+2211, which took a 6-piece build past its memory budget).
pub(crate) fn into_tables(
    tables: Vec<MaterialIndex>,
    state: Vec<AtomicU16>,
    captures: Option<Vec<AtomicU64>>,
) -> Vec<SolvedTable> {
    let mut all: Vec<Score> = state.into_iter().map(|s| final_score(s.into_inner())).collect();
    let mut flags = captures.map(|words| {
        CaptureFlags::from_words(words.into_iter().map(AtomicU64::into_inner).collect(), all.len() as u64)
    });
    let mut out = Vec::with_capacity(tables.len());
    let mut tables = tables;
    while let Some(index) = tables.pop() {
        let at = all.len() - index.len() as usize;
        let (scores, captures) = if tables.is_empty() {
            all.shrink_to_fit();
            (std::mem::take(&mut all), flags.take())
        } else {
            (take_tail(&mut all, at, TAIL_RUN), flags.as_mut().map(|f| f.split_off(at as u64)))
        };
        out.push(SolvedTable { index, scores, captures });
    }
    out.reverse();
    out
}

/// Scores moved at a time by [`take_tail`]: 64 MiB.
pub(crate) const TAIL_RUN: usize = 1 << 25;

/// The scores of `all` from `at` on, taken off it `run` at a time from its end, each run
/// given back to the allocator as it is taken (a large vector shrinks in place): the
/// move costs one run beside the scores, not a copy of the tail.
pub(crate) fn take_tail<T: Copy>(all: &mut Vec<T>, at: usize, run: usize) -> Vec<T> {
    let mut runs = Vec::new();
    while all.len() > at {
        let start = at.max(all.len().saturating_sub(run.max(1)));
        runs.push(all[start..].to_vec());
        all.truncate(start);
        all.shrink_to_fit();
    }
    let mut tail = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    while let Some(run) = runs.pop() {
        tail.extend_from_slice(&run);
    }
    tail
}

/// Where a ply-ordered pass stands at a point where its state is consistent: where a
/// checkpoint is written and a pass goes on from one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// The nodes of the first this many chunks initialised (whole segments of
    /// [`Pauses::segment_nodes`]).
    Initialised(u32),
    /// Every node initialised, and every node valued below this ply has passed its value
    /// on to its parents.
    Propagated(u16),
}

/// The initialisation is taken in segments of this many nodes, one after the other, so
/// that a checkpoint can be written inside it (in a six-piece pair it is most of the
/// pass): a few seconds of work each, 1,024 chunks for the workers to share; a pair of
/// fewer nodes is one segment.
pub(crate) const INIT_SEGMENT_NODES: usize = 1 << 22;
const _: () = assert!(INIT_SEGMENT_NODES.is_multiple_of(CHUNK));
// A chunk's capture flags are whole words of their own.
const _: () = assert!(CHUNK.is_multiple_of(64));

/// The bit of [`Stage::code`] that tells propagation from initialisation.
const PROPAGATED: u64 = 1 << 32;
/// The bit of a checkpoint's stage that says the pass solved by symmetry: its state
/// holds only the canonical positions' values.
const BY_SYMMETRY: u64 = 1 << 33;

impl Stage {
    /// The stage as a checkpoint records it.
    pub(crate) fn code(self) -> u64 {
        match self {
            Stage::Initialised(chunks) => chunks.into(),
            Stage::Propagated(ply) => PROPAGATED | u64::from(ply),
        }
    }

    /// The stage of a pass by symmetry or not, as its checkpoint records it.
    fn pass_code(self, by_symmetry: bool) -> u64 {
        self.code() | if by_symmetry { BY_SYMMETRY } else { 0 }
    }

    /// The stage a checkpoint of a pass by symmetry or not records; `None` where it is
    /// none, or the other kind of pass's.
    fn of_pass_code(code: u64, by_symmetry: bool) -> Option<Stage> {
        if (code & BY_SYMMETRY != 0) != by_symmetry {
            return None;
        }
        Stage::of_code(code & !BY_SYMMETRY)
    }

    /// The stage a checkpoint records; `None` where the code is none.
    pub(crate) fn of_code(code: u64) -> Option<Stage> {
        if code & PROPAGATED != 0 {
            u16::try_from(code & !PROPAGATED).ok().map(Stage::Propagated)
        } else {
            u32::try_from(code).ok().map(Stage::Initialised)
        }
    }
}

/// The stage of a theoretical pass recorded as `code` ([`Stage::code`]), as a
/// checkpoint's log line says it.
pub(crate) fn theory_pass_stage(code: u64) -> PassStage {
    match Stage::of_code(code & !BY_SYMMETRY) {
        Some(Stage::Initialised(chunks)) => PassStage::Initialised { positions: u64::from(chunks) * CHUNK as u64 },
        Some(Stage::Propagated(ply)) => PassStage::Propagated { ply },
        None => PassStage::Unknown { code },
    }
}

/// What a ply-ordered pass does at each [`Stage`] it reaches, and where it starts.
pub(crate) trait Pauses {
    /// Why the pass stops there.
    type Error;
    /// Where a state loaded from a checkpoint goes on; `None`: the pass starts afresh.
    fn resumed_at(&self) -> Option<Stage>;
    /// Called at each stage, before the work after it.
    fn at(&self, stage: Stage, state: &[AtomicU16]) -> Result<(), Self::Error>;
    /// Nodes initialised between two stages of the initialisation (a multiple of the
    /// chunk), [`INIT_SEGMENT_NODES`] unless a test asks for more stages.
    fn segment_nodes(&self) -> usize {
        INIT_SEGMENT_NODES
    }
}

/// A pass from its start to its end, nothing done on the way.
pub(crate) struct Straight;

impl Pauses for Straight {
    type Error = Infallible;

    fn resumed_at(&self) -> Option<Stage> {
        None
    }

    fn at(&self, _: Stage, _: &[AtomicU16]) -> Result<(), Infallible> {
        Ok(())
    }
}

/// A pass that writes a checkpoint at a stage when one is due, resumed at `resumed`.
struct Checkpointed<'c> {
    checkpoint: &'c Checkpoint<'c>,
    resumed: Option<Stage>,
    segment_nodes: usize,
    by_symmetry: bool,
}

impl Pauses for Checkpointed<'_> {
    type Error = Infallible;

    fn resumed_at(&self) -> Option<Stage> {
        self.resumed
    }

    fn at(&self, stage: Stage, state: &[AtomicU16]) -> Result<(), Infallible> {
        self.checkpoint.save_if_due(stage.pass_code(self.by_symmetry), &[state]);
        Ok(())
    }

    fn segment_nodes(&self) -> usize {
        self.segment_nodes
    }
}

/// Why a component cannot be solved: a finished table or the store failed.
#[derive(Debug)]
pub(crate) enum SliceError<F, S> {
    /// Reading a finished table.
    Finished(F),
    /// Reading or writing the pair's store.
    Store(S),
}

/// The error of a pass that cannot be stopped on the way.
pub(crate) fn never_paused<E>(error: SliceError<E, Infallible>) -> E {
    match error {
        SliceError::Finished(e) => e,
        SliceError::Store(never) => match never {},
    }
}

/// Working state for `n` nodes.
pub(crate) fn new_state(n: usize) -> Vec<AtomicU16> {
    atomic_array(n, CANNOT_LOSE)
}

/// `n` slots holding `value`, in huge pages where the system offers them
/// ([`crate::memory`]): the solvers touch a pair's slots at random. Filled in parallel,
/// so that the first touch of each page is spread over the workers.
pub(crate) fn atomic_array(n: usize, value: u16) -> Vec<AtomicU16> {
    let mut slots: Vec<AtomicU16> = Vec::with_capacity(n);
    crate::memory::advise_huge_pages(slots.as_mut_ptr().cast(), n * std::mem::size_of::<AtomicU16>());
    slots.par_extend((0..n).into_par_iter().map(|_| AtomicU16::new(value)));
    slots
}

/// The score a node's state ends as: unresolved nodes are draws.
pub(crate) fn final_score(state: u16) -> Score {
    if state < PENDING {
        Score::from_raw(state)
    } else {
        Score::DRAW
    }
}

/// The ply-ordered pass over `graph`, in `state` (one slot per node, from
/// [`new_state`]); afterwards [`final_score`] reads each node's score.
/// `pauses` is told of each [`Stage`] the pass reaches (a checkpoint may be written
/// there), and says where a state loaded from a checkpoint goes on. Where `captures` is
/// given (a bit a node, none set), the nodes initialised whose moves are captures are
/// set there ([`Exits::capture`]). Returns whether every node was initialised by this
/// call (not taken up from a checkpoint), and so has its flag.
pub(crate) fn solve_graph<G: Graph, P: Pauses>(
    graph: &G,
    state: &[AtomicU16],
    captures: Option<&[AtomicU64]>,
    pauses: &P,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<bool, SliceError<G::Error, P::Error>> {
    let n = graph.len();
    let chunks = n.div_ceil(CHUNK);
    let chunk_min: Vec<AtomicU16> = (0..chunks).map(|_| AtomicU16::new(NOTHING)).collect();
    let per_segment = (pauses.segment_nodes() / CHUNK).max(1);
    let (first, ply) = match pauses.resumed_at() {
        None => (0, 0),
        Some(Stage::Initialised(done)) if done as usize <= chunks => (done as usize, 0),
        // No stage of this pass: every node is initialised again.
        Some(Stage::Initialised(_)) => (0, 0),
        Some(Stage::Propagated(ply)) => (chunks, ply),
    };
    if first > 0 {
        // The chunks' minima are not kept: every decided value from `ply` up waits.
        let loaded = (first * CHUNK).min(n);
        let resolved: u64 = state[..loaded]
            .par_chunks(CHUNK)
            .zip(chunk_min[..first].par_iter())
            .map(|(nodes, min)| {
                let (mut lowest, mut resolved) = (NOTHING, 0);
                for value in nodes.iter().map(|s| s.load(Ordering::Relaxed)) {
                    if value < ply {
                        resolved += 1;
                    } else if value < PENDING {
                        lowest = lowest.min(value);
                    }
                }
                min.store(lowest, Ordering::Relaxed);
                resolved
            })
            .sum();
        progress(loaded as u64 + resolved);
    }
    let mut start = first;
    while start < chunks {
        if start > 0 {
            let done = u32::try_from(start).expect("a table's chunks are counted in 32 bits");
            pauses.at(Stage::Initialised(done), state).map_err(SliceError::Store)?;
        }
        let end = (start + per_segment).min(chunks);
        initialise(graph, state, captures, &chunk_min, start..end, progress).map_err(SliceError::Finished)?;
        start = end;
    }
    propagate(graph, state, &chunk_min, ply, pauses, progress)?;
    if let Some(symmetry) = graph.symmetry() {
        copy_canonical(graph, symmetry, state, captures, progress);
    }
    Ok(first == 0)
}

/// Step 3 of a pass by symmetry: each node that is not its class's canonical member
/// takes that member's state and capture flag.
fn copy_canonical<G: Graph>(
    graph: &G,
    symmetry: &KingSymmetry,
    state: &[AtomicU16],
    captures: Option<&[AtomicU64]>,
    progress: &(dyn Fn(u64) + Sync),
) {
    let n = graph.len();
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
        let mut flags = [0u64; CHUNK / 64];
        let mut copied = 0;
        for (offset, position) in graph.positions(start as u64..end as u64).enumerate() {
            if state[start + offset].load(Ordering::Relaxed) != NOT_CANONICAL {
                continue;
            }
            let sets = position.square_sets();
            let canonical = KingSymmetry::canonical(&symmetry.images(&sets));
            let from = graph.node_of_sets(&canonical);
            state[start + offset].store(state[from as usize].load(Ordering::Relaxed), Ordering::Relaxed);
            if let Some(captures) = captures {
                let set = captures[from as usize / 64].load(Ordering::Relaxed) >> (from % 64) & 1;
                flags[offset / 64] |= set << (offset % 64);
            }
            copied += 1;
        }
        if let Some(captures) = captures {
            for (word, &bits) in captures[start / 64..].iter().zip(&flags[..(end - start).div_ceil(64)]) {
                word.fetch_or(bits, Ordering::Relaxed);
            }
        }
        progress(copied);
    });
}

/// Step 1: the first value of every node of `chunks` from its moves.
fn initialise<G: Graph>(
    graph: &G,
    state: &[AtomicU16],
    captures: Option<&[AtomicU64]>,
    chunk_min: &[AtomicU16],
    chunks: std::ops::Range<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), G::Error> {
    let failed = FirstError(Mutex::new(None));
    let nodes = &state[(chunks.start * CHUNK).min(state.len())..(chunks.end * CHUNK).min(state.len())];
    let scratch =
        || (MoveList::new(), Vec::with_capacity(EXITS_BATCH), ExitBuffers::default(), Vec::with_capacity(EXITS_BATCH));
    nodes.par_chunks(CHUNK).zip(chunk_min[chunks.clone()].par_iter()).enumerate().for_each_init(
        scratch,
        |(moves, positions, buffers, exits), (c, work)| {
            let (nodes, min) = work;
            if failed.is_set() {
                return;
            }
            let first = ((chunks.start + c) * CHUNK) as u64;
            let mut lowest = NOTHING;
            let mut all = graph.positions(first..first + nodes.len() as u64);
            // The chunk's capture flags: whole words, a chunk being a multiple of 64 nodes.
            let mut flags = [0u64; CHUNK / 64];
            for (b, slots) in nodes.chunks(EXITS_BATCH).enumerate() {
                positions.clear();
                // The nodes of the batch that are solved (by symmetry, the canonical
                // ones: the others wait, never lost, until they copy theirs).
                let mut solved = [0u8; EXITS_BATCH];
                let mut count = 0;
                for (k, position) in all.by_ref().take(slots.len()).enumerate() {
                    if graph.symmetry().is_none_or(|s| s.is_canonical(&position.square_sets())) {
                        positions.push(position);
                        solved[count] = k as u8;
                        count += 1;
                    } else {
                        slots[k].store(NOT_CANONICAL, Ordering::Relaxed);
                    }
                }
                exits.clear();
                if let Err(err) = graph.exits_of(positions, moves, buffers, exits) {
                    return failed.set(err);
                }
                for ((&k, position), &(ref e, no_move)) in solved.iter().zip(positions.iter()).zip(exits.iter()) {
                    let value = initial_state(position, e, no_move);
                    if value < PENDING {
                        lowest = lowest.min(value);
                    }
                    slots[k as usize].store(value, Ordering::Relaxed);
                    let node = b * EXITS_BATCH + k as usize;
                    flags[node / 64] |= (e.capture as u64) << (node % 64);
                }
            }
            if let Some(captures) = captures {
                let word = (first / 64) as usize;
                for (to, &bits) in captures[word..].iter().zip(&flags[..nodes.len().div_ceil(64)]) {
                    to.store(bits, Ordering::Relaxed);
                }
            }
            min.store(lowest, Ordering::Relaxed);
            progress(nodes.len() as u64);
        },
    );
    failed.into_result()
}

/// Positions whose exits are valued together ([`Graph::exits_of`]).
const EXITS_BATCH: usize = 16;

/// A node's first state from its exits (`no_move`: it has no move at all).
fn initial_state(position: &Position, e: &Exits, no_move: bool) -> u16 {
    match e.best_win {
        // A draw by material (Turkish: one piece each) is final; every node of
        // its pair has the same material, so none of them can change it.
        _ if position.is_drawn_by_material() => CANNOT_LOSE,
        // No move at all: the game is over (lost; in giveaway won).
        _ if no_move && e.internal_moves == 0 => position.variant().score_at_end().raw(),
        Some(w) => w,
        None if e.draw => CANNOT_LOSE,
        // Only moves out of the graph, all losing.
        None if e.internal_moves == 0 => e.longest_loss,
        None => {
            assert!(e.internal_moves < 255, "{}: more than 254 moves", position.fen());
            PENDING | e.longest_loss.min(EXIT_UNKNOWN) << 8 | e.internal_moves
        }
    }
}

/// Step 2: propagate ply by ply, from `ply` on.
fn propagate<G: Graph, P: Pauses>(
    graph: &G,
    state: &[AtomicU16],
    chunk_min: &[AtomicU16],
    mut ply: u16,
    pauses: &P,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), SliceError<G::Error, P::Error>> {
    let n = graph.len();
    let failed = FirstError(Mutex::new(None));
    let blocks: Vec<ChunkBlocks> = (0..chunk_min.len()).into_par_iter().map(|_| ChunkBlocks::unknown()).collect();
    let lower = |node: u64, value: u16| {
        let node = node as usize;
        lower_in_chunk_noting(&state[node], &chunk_min[node / CHUNK], value, || {
            blocks[node / CHUNK].note_lowered(node)
        });
    };
    loop {
        let next = chunk_min.par_iter().map(|m| m.load(Ordering::Acquire)).min().unwrap_or(NOTHING);
        if next == NOTHING {
            break;
        }
        ply = ply.max(next);
        pauses.at(Stage::Propagated(ply), state).map_err(SliceError::Store)?;
        let lost = ply.is_multiple_of(2);
        chunk_min.par_iter().enumerate().for_each_init(MoveList::new, |moves, (c, min)| {
            if min.load(Ordering::Acquire) > ply || failed.is_set() {
                return;
            }
            min.swap(NOTHING, Ordering::SeqCst);
            // Taken before any slot is read: a node lowered from here on marks its block
            // again, for the next ply.
            let chunk_blocks = &blocks[c];
            let lowered = chunk_blocks.lowered.swap(0, Ordering::SeqCst);
            let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            let mut later = NOTHING;
            let mut resolved = 0;
            let mut last_men = [LastMen::NONE; 2];
            // The parents' slots lie all over a state far larger than the CPU caches:
            // gathered a batch at a time with their cache lines fetched ahead, so that
            // the misses overlap instead of following one another.
            let mut batch: Vec<u64> = Vec::with_capacity(PARENT_BATCH + 64);
            let apply = |batch: &mut Vec<u64>, moves: &mut MoveList| -> Result<(), G::Error> {
                for &parent in batch.iter() {
                    if lost {
                        lower(parent, ply + 1);
                    } else {
                        count_won_child(graph, state, parent, ply, moves, &lower)?;
                    }
                }
                batch.clear();
                Ok(())
            };
            for (b, block_later) in chunk_blocks.later.iter().enumerate() {
                let block_start = start + b * BLOCK;
                if block_start >= end {
                    break;
                }
                let known = block_later.load(Ordering::Relaxed);
                if lowered & 1 << b == 0 && known > ply {
                    // Nothing lowered since its last scan, and nothing there at this ply.
                    later = later.min(known);
                    continue;
                }
                let mut in_block = NOTHING;
                for node in block_start..(block_start + BLOCK).min(end) {
                    let value = state[node].load(Ordering::Acquire);
                    if value != ply {
                        if value > ply && value < PENDING {
                            in_block = in_block.min(value);
                        }
                        continue;
                    }
                    resolved += 1;
                    graph.for_each_parent(&graph.position_reusing(node as u64, &mut last_men), |parent| {
                        prefetch(&state[parent as usize]);
                        batch.push(parent);
                    });
                    if batch.len() >= PARENT_BATCH
                        && let Err(e) = apply(&mut batch, moves)
                    {
                        failed.set(e);
                        return;
                    }
                }
                block_later.store(in_block, Ordering::Relaxed);
                later = later.min(in_block);
            }
            if let Err(e) = apply(&mut batch, moves) {
                failed.set(e);
                return;
            }
            min.fetch_min(later, Ordering::AcqRel);
            progress(resolved);
        });
        if failed.is_set() {
            break;
        }
        ply += 1;
    }
    failed.into_result().map_err(SliceError::Finished)
}

/// One more of `parent`'s moves inside the graph is known to lose (its child won in
/// `ply`); when none is left, the parent is lost.
fn count_won_child<G: Graph>(
    graph: &G,
    state: &[AtomicU16],
    parent: u64,
    ply: u16,
    moves: &mut MoveList,
    lower: &impl Fn(u64, u16),
) -> Result<(), G::Error> {
    let Some(exit_field) = count_down(&state[parent as usize]) else { return Ok(()) };
    let exit_loss = match exit_field {
        EXIT_UNKNOWN => graph.exits(&graph.position(parent), moves)?.longest_loss,
        held => held,
    };
    lower(parent, (ply + 1).max(exit_loss));
    Ok(())
}

/// Lowers a node's value to `value`, and its chunk's minimum with it. Read first: most
/// parents are lowered by many children, and a locked instruction on a line the other
/// cores use costs far more than a read. A node already as low leaves its chunk alone:
/// whoever lowered it lowered the chunk too.
#[inline]
pub(crate) fn lower_in_chunk(slot: &AtomicU16, chunk_min: &AtomicU16, value: u16) {
    lower_in_chunk_noting(slot, chunk_min, value, || ());
}

/// [`lower_in_chunk`], calling `note` once the slot is lowered and before the chunk's
/// minimum is read: a scan that empties the minimum and then its block bits either sees
/// the bit [`ChunkBlocks::note_lowered`] sets, or its emptied minimum is what this call
/// lowers, so the node is met at its ply either way.
#[inline]
fn lower_in_chunk_noting(slot: &AtomicU16, chunk_min: &AtomicU16, value: u16, note: impl FnOnce()) {
    if slot.load(Ordering::SeqCst) <= value {
        return;
    }
    slot.fetch_min(value, Ordering::SeqCst);
    note();
    if chunk_min.load(Ordering::SeqCst) > value {
        chunk_min.fetch_min(value, Ordering::SeqCst);
    }
}

/// Takes one move off a pending node's count (`PENDING | exit_loss << 8 | moves`).
/// Returns the exit-loss field when this call took the last move, so that exactly one
/// thread goes on to mark the node lost; `None` when moves are left or the node is not
/// pending (won, or never lost).
pub(crate) fn count_down(slot: &AtomicU16) -> Option<u16> {
    let mut current = slot.load(Ordering::Acquire);
    loop {
        if current < PENDING || current == CANNOT_LOSE {
            return None;
        }
        match slot.compare_exchange_weak(current, current - 1, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => break,
            Err(seen) => current = seen,
        }
    }
    ((current - 1) & 0xFF == 0).then_some((current >> 8) & EXIT_UNKNOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tail taken off a pair's scores run by run is the tail, in order, and what stays
    /// is the head, for every split point and run length, the runs not dividing either.
    #[test]
    fn a_tail_taken_run_by_run_is_the_tail_and_leaves_the_head() {
        let scores: Vec<Score> = (0..103u16).map(|k| Score::from_raw(k * 7 + 1)).collect();
        for at in [0, 1, 50, 102, 103] {
            for run in [1, 3, 10, 64, 1000] {
                let mut all = scores.clone();
                let tail = take_tail(&mut all, at, run);
                assert_eq!((all.as_slice(), tail.as_slice()), scores.split_at(at), "at {at}, runs of {run}");
                assert_eq!(all.capacity(), all.len(), "the head gives back what it held, at {at}, runs of {run}");
            }
        }
    }
}
