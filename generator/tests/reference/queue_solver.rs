//! The generator's first solver (until the memory budget), kept as the reference the
//! new one is compared with: every finished table in memory, six bytes of state per
//! position and a bucket queue of node numbers.
//!
//! Retrograde analysis of one signature together with its colour flip.
//!
//! A quiet move hands the turn over without changing the material, so the positions of
//! a signature (White to move) and of its colour flip form one game graph; captures and
//! promotions leave it for tables solved before. The pass:
//!
//! 1. **Initialise** every node from its moves: moves that leave the pair are looked up
//!    (a child lost in `d` gives a win in `d + 1`; children won give the loss distance if
//!    every move turns out to lose; a drawn child means the node can never be lost);
//!    moves inside the pair are counted.
//! 2. **Propagate ply by ply** from a bucket queue: a node resolved as lost in `n` makes
//!    every unresolved parent a win in `n + 1`; a node resolved as won lowers each
//!    parent's count of moves not yet known to lose, and a parent left with none (and no
//!    drawn or winning way out) is lost in the longest of its distances plus one. Plies
//!    are taken in increasing order, so the winner's shortest and the loser's longest way
//!    come out exactly. Work inside a ply is parallel: nodes are claimed by
//!    compare-and-swap and counters lowered atomically.
//! 3. Whatever is left unresolved is a draw.

use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};

use kabe_probe::internal::MaterialIndex;
use kabe_probe::{MoveList, Position, Score, Signature, Wld};
use rayon::prelude::*;

use kabe_generator::{Registry, SolvedTable};

const UNKNOWN: u16 = u16::MAX;
/// Node flag: some move leads to a drawn position outside the pair.
const DRAW_EXIT: u8 = 1;
/// Node flag: some move outside the pair wins.
const WIN_EXIT: u8 = 2;

/// Nodes handed to one worker at a time.
const CHUNK: usize = 4096;

/// The pair being solved: one or two tables, nodes numbered table after table.
struct Pair {
    tables: Vec<MaterialIndex>,
}

impl Pair {
    fn len(&self) -> u64 {
        self.tables.iter().map(MaterialIndex::len).sum()
    }

    fn position(&self, node: u64) -> Position {
        let first = self.tables[0].len();
        if node < first {
            self.tables[0].position(node)
        } else {
            self.tables[1].position(node - first)
        }
    }

    /// The positions of consecutive nodes.
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

    /// The node of a position (White to move) whose material is in the pair.
    fn node(&self, normalized: &Position) -> u64 {
        let sig = Signature::of(normalized);
        if sig == self.tables[0].signature() {
            self.tables[0].index(normalized)
        } else {
            self.tables[0].len() + self.tables[1].index(normalized)
        }
    }

    /// Parents inside the pair: positions one quiet, non-crowning move earlier.
    fn parents(&self, node: u64) -> impl Iterator<Item = u64> + '_ {
        // The node is the mover's child seen from the other side: turn it back.
        let child = self.position(node).flipped();
        child.quiet_predecessors().into_iter().filter(|p| !p.mv.promotes()).map(move |p| self.node(&p.position))
    }
}

/// What a node's moves showed at initialisation.
struct Node {
    internal_moves: u8,
    flags: u8,
    /// Shortest win through a move leaving the pair.
    best_exit_win: u16,
    /// Longest loss through moves leaving the pair.
    longest_exit_loss: u16,
}

/// Solves `signature` and its colour flip; every table they lead to must be in
/// `registry`. Returns one table, or two when the flip is another signature.
/// `progress` receives units of work done: one per node initialised, one per node
/// taken from the queue (about `2 * positions` in all).
pub fn solve_pair(registry: &Registry, signature: Signature, progress: &(dyn Fn(u64) + Sync)) -> Vec<SolvedTable> {
    let variant = registry.variant();
    let mut tables = vec![MaterialIndex::new(variant, signature).expect("table-sized signature")];
    if signature.flipped() != signature {
        tables.push(MaterialIndex::new(variant, signature.flipped()).expect("table-sized signature"));
    }
    let pair = Pair { tables };
    let n = pair.len() as usize;

    let scores: Vec<AtomicU16> = (0..n).map(|_| AtomicU16::new(UNKNOWN)).collect();
    let remaining: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let mut flags = vec![0u8; n];
    let mut longest_exit_loss = vec![0u16; n];

    // 1. Initialise, collecting the first resolutions as (ply, node).
    let mut queue = BucketQueue::default();
    let seeds: Vec<Vec<(u16, u64)>> = flags
        .par_chunks_mut(CHUNK)
        .zip(longest_exit_loss.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(chunk, (flags, longest))| {
            let mut seeds = Vec::new();
            let mut moves = MoveList::new();
            let first = (chunk * CHUNK) as u64;
            let positions = pair.positions(first..first + flags.len() as u64);
            for (i, ((flag, longest), position)) in flags.iter_mut().zip(longest.iter_mut()).zip(positions).enumerate()
            {
                let node = first + i as u64;
                let info = initial(registry, &position, &mut moves);
                *flag = info.flags;
                *longest = info.longest_exit_loss;
                remaining[node as usize].store(info.internal_moves, Ordering::Relaxed);
                if info.flags & WIN_EXIT != 0 {
                    seeds.push((info.best_exit_win, node));
                } else if info.internal_moves == 0 && info.flags & DRAW_EXIT == 0 {
                    seeds.push((info.longest_exit_loss, node));
                }
            }
            progress(flags.len() as u64);
            seeds
        })
        .collect();
    for s in seeds {
        queue.extend(s);
    }

    // 2. Propagate ply by ply.
    let mut ply = 0u16;
    while let Some(bucket) = queue.take(ply) {
        let pushes: Vec<Vec<(u16, u64)>> = bucket
            .par_chunks(CHUNK)
            .map(|nodes| {
                let mut pushes = Vec::new();
                let mut resolved = 0;
                for &node in nodes {
                    if scores[node as usize]
                        .compare_exchange(UNKNOWN, ply, Ordering::AcqRel, Ordering::Acquire)
                        .is_err()
                    {
                        continue;
                    }
                    resolved += 1;
                    let lost = ply.is_multiple_of(2);
                    for parent in pair.parents(node) {
                        let p = parent as usize;
                        if lost {
                            if scores[p].load(Ordering::Acquire) == UNKNOWN {
                                pushes.push((ply + 1, parent));
                            }
                        } else if remaining[p].fetch_sub(1, Ordering::AcqRel) == 1
                            && flags[p] & (DRAW_EXIT | WIN_EXIT) == 0
                        {
                            pushes.push(((ply + 1).max(longest_exit_loss[p]), parent));
                        }
                    }
                }
                progress(resolved);
                pushes
            })
            .collect();
        for p in pushes {
            queue.extend(p);
        }
        ply += 1;
    }

    // 3. Split the scores back into tables; unresolved nodes are draws.
    let mut all: Vec<Score> = scores.into_iter().map(|s| Score::from_raw(s.into_inner())).collect();
    let mut out = Vec::new();
    for index in pair.tables {
        let rest = all.split_off(index.len() as usize);
        out.push(SolvedTable { index, scores: all, captures: None });
        all = rest;
    }
    out
}

fn initial(registry: &Registry, position: &Position, moves: &mut MoveList) -> Node {
    let mut node = Node { internal_moves: 0, flags: 0, best_exit_win: u16::MAX, longest_exit_loss: 0 };
    position.legal_moves_into(moves);
    if moves.is_empty() {
        // No move: lost now.
        node.longest_exit_loss = 0;
        return node;
    }
    for mv in moves.iter() {
        if !mv.is_capture() && !mv.promotes() {
            node.internal_moves += 1;
            continue;
        }
        let child = position.play(mv);
        let score = registry.score(&child).expect("tables this one leads to are solved first");
        match score.wld() {
            Wld::Loss => {
                node.flags |= WIN_EXIT;
                node.best_exit_win = node.best_exit_win.min(score.parent().raw());
            }
            Wld::Win => node.longest_exit_loss = node.longest_exit_loss.max(score.parent().raw()),
            Wld::Draw => node.flags |= DRAW_EXIT,
        }
    }
    node
}

/// Nodes waiting for their ply.
#[derive(Default)]
struct BucketQueue {
    buckets: Vec<Vec<u64>>,
    pending: usize,
}

impl BucketQueue {
    fn extend(&mut self, items: Vec<(u16, u64)>) {
        for (ply, node) in items {
            let ply = ply as usize;
            if self.buckets.len() <= ply {
                self.buckets.resize_with(ply + 1, Vec::new);
            }
            self.buckets[ply].push(node);
            self.pending += 1;
        }
    }

    /// The nodes for `ply`, or `None` once nothing is pending at or after it.
    fn take(&mut self, ply: u16) -> Option<Vec<u64>> {
        if self.pending == 0 {
            return None;
        }
        let bucket = self.buckets.get_mut(ply as usize).map(std::mem::take).unwrap_or_default();
        self.pending -= bucket.len();
        Some(bucket)
    }
}
