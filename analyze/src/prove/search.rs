//! The proof-number search: a node arena searched best first from the position after
//! one move, and the proof or disproof read off it (unchecked: `first_moves` has every
//! one replayed by the checker before it leaves the module).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Mutex;
use std::time::Instant;

use kabe_probe::rules::exact::Verdict;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Color, Counters, Move, PieceKind, Position, Variant, Wld};

use super::{BeyondTables, DisproofStep, DisproofTree, Outcome, ProofStep, ProofTree, ProveError, Refutation};

/// Proof and disproof numbers at or above this are infinite.
const INFINITE: u32 = u32::MAX / 4;

/// The verdicts of positions within the tables that the searches of one proof have
/// probed: the searches of the first moves, of their defences and of the duals meet the
/// same leaves again and again, and a probe costs a block lookup and decode (and for a
/// capture position a search) where a hit costs a hash. Shared by the searching threads,
/// in shards that each lock on their own; bounded, after which new leaves are probed
/// and not kept.
pub(super) struct LeafVerdicts {
    shards: Box<[Mutex<LeafShard>]>,
}

type LeafShard = HashMap<(Position, Counters), Verdict, BuildHasherDefault<LeafHasher>>;

/// Shards of [`LeafVerdicts`] (threads rarely meet on one).
const LEAF_SHARDS: usize = 64;
/// Verdicts a shard keeps (about 200 bytes each with the map's own: some 100 MiB in all).
const LEAF_SHARD_ENTRIES: usize = 8 << 10;

impl LeafVerdicts {
    pub(super) fn new() -> LeafVerdicts {
        LeafVerdicts { shards: (0..LEAF_SHARDS).map(|_| Mutex::new(LeafShard::default())).collect() }
    }

    /// The verdict of `position` with `counters`, probed once.
    fn probe(&self, tables: &Tablebase, position: &Position, counters: &Counters) -> Result<Verdict, ProbeError> {
        let key = (*position, *counters);
        let mut hasher = LeafHasher::default();
        key.hash(&mut hasher);
        // Not the top bits: the map's own slot tags are taken from those.
        let shard = &self.shards[(hasher.finish() >> 32) as usize % LEAF_SHARDS];
        if let Some(v) = shard.lock().map_or(None, |map| map.get(&key).copied()) {
            return Ok(v);
        }
        let verdict = tables.probe(position, counters)?;
        if let Ok(mut map) = shard.lock()
            && map.len() < LEAF_SHARD_ENTRIES
        {
            map.insert(key, verdict);
        }
        Ok(verdict)
    }
}

/// A multiply-rotate hash of a few words (a position's bitboards, its variant's fields,
/// its counts): the keys are the program's own, so no defence against chosen
/// collisions is needed, and SipHash cost more than the probe it saves.
#[derive(Default)]
pub(super) struct LeafHasher(u64);

impl Hasher for LeafHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// The search of one position: its rules, tables, budget and node arena.
struct Search<'a> {
    tables: &'a Tablebase,
    leaves: &'a LeafVerdicts,
    solver: Color,
    reach: u32,
    nodes: Vec<Node>,
    /// Each node's number its parent chooses by (its proof number below the solver's
    /// node, its disproof number below the defender's), beside the arena: the descent
    /// reads only these, sixteen children a cache line, where a node takes two lines.
    choice: Vec<u32>,
    limit: usize,
    deadline: Option<Instant>,
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    position: Position,
    counters: Counters,
    parent: u32,
    /// Children, in the order of the parent's legal moves: `first .. first + count`.
    first: u32,
    count: u16,
    expanded: bool,
    /// The move from the parent is irreversible (a man move or a capture): no earlier
    /// position can come back past it.
    irreversible: bool,
    /// A disproof that rests on a repetition cut, not on the rules or the tables.
    cut: bool,
    /// A leaf decided by the tables.
    table: bool,
    pn: u32,
    dn: u32,
    /// Proved: plies to the win along the proof.
    plies: u16,
}

impl Node {
    fn proved(&self) -> bool {
        self.pn == 0
    }
    fn disproved(&self) -> bool {
        self.dn == 0
    }
}

// The memory a budget allows for is what the nodes and their choice numbers take.
const _: () = assert!(2 * (std::mem::size_of::<Node>() + std::mem::size_of::<u32>()) <= super::Budget::NODE_BYTES);

/// How a new node starts.
struct Start {
    pn: u32,
    dn: u32,
    plies: u16,
    table: bool,
}

impl<'a> Search<'a> {
    fn new(
        (tables, leaves): (&'a Tablebase, &'a LeafVerdicts),
        variant: &Variant,
        solver: Color,
        limit: usize,
        deadline: Option<Instant>,
    ) -> Self {
        let reach = tables.max_pieces_of(variant);
        Search { tables, leaves, solver, reach, nodes: Vec::new(), choice: Vec::new(), limit, deadline }
    }

    /// The value of a position seen for the first time.
    fn start(&self, position: &Position, counters: &Counters) -> Result<Start, ProveError> {
        let attack = position.turn() == self.solver;
        // Counted, not listed: most new nodes are never expanded.
        let moves = position.count_legal_moves();
        let proved = |plies: u16, table: bool| Start { pn: 0, dn: INFINITE, plies, table };
        let disproved = |table: bool| Start { pn: INFINITE, dn: 0, plies: 0, table };
        if moves == 0 {
            // The side to move has lost (no piece or no move).
            return Ok(if attack { disproved(false) } else { proved(0, false) });
        }
        if position.is_drawn_by_material() || matches!(counters.governing(position), Some((_, 0))) {
            return Ok(disproved(false));
        }
        if position.piece_count() <= self.reach {
            // A set may lack some tables of its largest size (a closure build): search on.
            let verdict = match self.leaves.probe(self.tables, position, counters) {
                Err(ProbeError::NoTable { .. } | ProbeError::TooManyPieces { .. }) => {
                    return Ok(self.open(position, moves))
                }
                other => other?,
            };
            let wins = match verdict.exact {
                Wld::Win => attack,
                Wld::Loss => !attack,
                Wld::Draw => false,
            };
            let plies = verdict.within.decided().map_or(0, |(_, p)| p);
            return Ok(if wins { proved(plies, true) } else { disproved(true) });
        }
        Ok(self.open(position, moves))
    }

    /// An undecided node's numbers, from its mobility.
    fn open(&self, position: &Position, moves: usize) -> Start {
        let n = moves as u32;
        if position.turn() == self.solver {
            Start { pn: 1, dn: n, plies: 0, table: false }
        } else {
            Start { pn: n, dn: 1, plies: 0, table: false }
        }
    }

    fn push(
        &mut self,
        position: Position,
        counters: Counters,
        parent: u32,
        irreversible: bool,
    ) -> Result<u32, ProveError> {
        let s = self.start(&position, &counters)?;
        let id = self.nodes.len() as u32;
        self.choice.push(if position.turn() == self.solver { s.dn } else { s.pn });
        self.nodes.push(Node {
            position,
            counters,
            parent,
            first: 0,
            count: 0,
            expanded: false,
            irreversible,
            cut: false,
            table: s.table,
            pn: s.pn,
            dn: s.dn,
            plies: s.plies,
        });
        Ok(id)
    }

    /// Whether `position` with `counters` stands earlier on the line through `parent`,
    /// as far back as no irreversible move was made.
    fn repeats(&self, position: &Position, counters: &Counters, parent: u32) -> bool {
        let mut at = parent;
        loop {
            let n = &self.nodes[at as usize];
            if n.position == *position && n.counters == *counters {
                return true;
            }
            if n.irreversible || at == 0 {
                return false;
            }
            at = n.parent;
        }
    }

    fn expand(&mut self, id: u32) -> Result<(), ProveError> {
        let (position, counters) = (self.nodes[id as usize].position, self.nodes[id as usize].counters);
        let first = self.nodes.len() as u32;
        let moves = position.legal_moves();
        for mv in moves.iter() {
            let child = position.play(mv);
            let after = counters.after(mv, &child);
            let irreversible = mv.is_capture() || mv.piece() == PieceKind::Man;
            let repeated = !irreversible && self.repeats(&child, &after, id);
            let c = self.push(child, after, id, irreversible)?;
            if repeated {
                let n = &mut self.nodes[c as usize];
                (n.pn, n.dn, n.cut, n.table) = (INFINITE, 0, true, false);
                self.choice[c as usize] = if n.position.turn() == self.solver { 0 } else { INFINITE };
            }
        }
        let node = &mut self.nodes[id as usize];
        node.first = first;
        node.count = moves.len() as u16;
        node.expanded = true;
        Ok(())
    }

    /// Recomputes a node's numbers from its children.
    fn update(&mut self, id: u32) {
        let node = &self.nodes[id as usize];
        let children = &self.nodes[node.first as usize..(node.first + node.count as u32) as usize];
        let attack = node.position.turn() == self.solver;
        let (mut pn, mut dn);
        let mut plies = 0u16;
        let cut;
        if attack {
            pn = INFINITE;
            dn = 0u32;
            let mut best = u16::MAX;
            for c in children {
                pn = pn.min(c.pn);
                dn = dn.saturating_add(c.dn).min(INFINITE);
                if c.proved() {
                    best = best.min(c.plies.saturating_add(1));
                }
            }
            if pn == 0 {
                plies = best;
            }
            cut = dn == 0 && children.iter().any(|c| c.cut);
        } else {
            pn = 0u32;
            dn = INFINITE;
            for c in children {
                pn = pn.saturating_add(c.pn).min(INFINITE);
                dn = dn.min(c.dn);
                plies = plies.max(c.plies.saturating_add(1));
            }
            cut = dn == 0 && children.iter().all(|c| !c.disproved() || c.cut);
        }
        let node = &mut self.nodes[id as usize];
        (node.pn, node.dn, node.plies, node.cut) = (pn, dn, plies, cut);
        self.choice[id as usize] = if attack { dn } else { pn };
    }

    /// Searches from the root (node 0) until it is decided or the budget is spent.
    fn run(&mut self) -> Result<(), ProveError> {
        let mut since_clock = 0u32;
        // Where the next descent starts: the node whose numbers the last update left as
        // they were, so the most-proving path above it is unchanged (Allis's current node;
        // a descent from the root each time walked the same path again).
        let mut from = 0u32;
        while !self.nodes[0].proved() && !self.nodes[0].disproved() && self.nodes.len() < self.limit {
            since_clock += 1;
            if since_clock == 256 {
                since_clock = 0;
                if self.deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
            }
            // The most-proving node: least proof number at OR, least disproof at AND.
            let mut at = from;
            while self.nodes[at as usize].expanded {
                let n = &self.nodes[at as usize];
                let range = n.first..n.first + n.count as u32;
                at = range.min_by_key(|&c| self.choice[c as usize]).expect("an expanded open node has children");
            }
            self.expand(at)?;
            let mut id = at;
            loop {
                let n = &self.nodes[id as usize];
                let before = (n.pn, n.dn, n.plies, n.cut);
                self.update(id);
                let n = &self.nodes[id as usize];
                // Unchanged numbers leave the ancestors as they were.
                if id == 0 || (id != at && (n.pn, n.dn, n.plies, n.cut) == before) {
                    break;
                }
                id = n.parent;
            }
            from = id;
        }
        Ok(())
    }

    /// The proof below a proved node.
    fn proof(&self, id: u32) -> Result<ProofTree, ProveError> {
        let n = &self.nodes[id as usize];
        let step = if !n.expanded {
            if n.table {
                ProofStep::Table(self.leaves.probe(self.tables, &n.position, &n.counters)?)
            } else {
                ProofStep::GameOver
            }
        } else {
            let moves = n.position.legal_moves();
            let children = n.first..n.first + n.count as u32;
            if n.position.turn() == self.solver {
                let (i, c) = children
                    .enumerate()
                    .filter(|&(_, c)| self.nodes[c as usize].proved())
                    .min_by_key(|&(_, c)| self.nodes[c as usize].plies)
                    .expect("a proved OR node has a proved child");
                ProofStep::Move(moves[i], Box::new(self.proof(c)?))
            } else {
                let mut replies = Vec::with_capacity(n.count as usize);
                for (i, c) in children.enumerate() {
                    replies.push((moves[i], self.proof(c)?));
                }
                ProofStep::Replies(replies)
            }
        };
        Ok(ProofTree { position: n.position, counters: n.counters, plies: n.plies, step })
    }

    /// The disproof below a disproved node that rests on no repetition cut: at the
    /// defender's nodes a disproved child that is not cut (one is, or the node would be
    /// cut), at the solver's every child (none is cut, or the node would be).
    fn disproof(&self, id: u32) -> Result<DisproofTree, ProveError> {
        let n = &self.nodes[id as usize];
        let step = if !n.expanded {
            if n.legal_moves_empty() {
                DisproofStep::SolverHasNoMove
            } else if n.table {
                DisproofStep::Table(self.leaves.probe(self.tables, &n.position, &n.counters)?)
            } else {
                DisproofStep::Drawn
            }
        } else {
            let moves = n.position.legal_moves();
            let children = n.first..n.first + n.count as u32;
            if n.position.turn() == self.solver {
                let mut answers = Vec::with_capacity(n.count as usize);
                for (i, c) in children.enumerate() {
                    answers.push((moves[i], self.disproof(c)?));
                }
                DisproofStep::Answers(answers)
            } else {
                let (i, c) = children
                    .enumerate()
                    .find(|&(_, c)| self.nodes[c as usize].disproved() && !self.nodes[c as usize].cut)
                    .expect("a disproved defender's node without a cut has such a child");
                DisproofStep::Defence(moves[i], Box::new(self.disproof(c)?))
            }
        };
        Ok(DisproofTree { position: n.position, counters: n.counters, step })
    }

    /// A defence that holds below a disproved node (none rests on a repetition cut):
    /// its main line, and the whole disproof.
    fn refutation(&self, id: u32) -> Result<Refutation, ProveError> {
        let (line, end) = self.refutation_line(id);
        Ok(Refutation { line, end, disproof: self.disproof(id)? })
    }

    /// The main line of a disproof: the solver's first move at each of its nodes, the
    /// defence that holds at the defender's, and how it ends.
    fn refutation_line(&self, id: u32) -> (Vec<String>, String) {
        let mut line = Vec::new();
        let mut at = id;
        loop {
            let n = &self.nodes[at as usize];
            if !n.expanded {
                let end = if n.legal_moves_empty() {
                    "the solver has no move".to_string()
                } else if n.table {
                    "within the tables: not a win for the solver".to_string()
                } else if n.position.is_drawn_by_material() {
                    "drawn by material".to_string()
                } else {
                    match n.counters.governing(&n.position) {
                        Some((article, 0)) => format!("drawn by the count of {article}"),
                        _ => "not a win".to_string(),
                    }
                };
                return (line, end);
            }
            let moves = n.position.legal_moves();
            let attack = n.position.turn() == self.solver;
            // At the solver's nodes every move fails: follow the first; at the defender's,
            // a disproved reply.
            let (i, c) = (n.first..n.first + n.count as u32)
                .enumerate()
                .find(|&(_, c)| self.nodes[c as usize].disproved() && (attack || !self.nodes[c as usize].cut))
                .expect("a disproved node has a disproved child");
            line.push(n.position.move_text(&moves[i]));
            at = c;
        }
    }
}

impl Search<'_> {
    /// The materials of the open positions (no table value, no end by the rules, no
    /// repetition) of at most one piece beyond the tables' reach: what an unresolved
    /// search still needs.
    fn beyond_tables(&self) -> Vec<BeyondTables> {
        let open = self.nodes.iter().filter(|n| {
            !n.table
                && !n.cut
                && n.position.piece_count() <= self.reach + 1
                && !n.position.is_drawn_by_material()
                && !matches!(n.counters.governing(&n.position), Some((_, 0)))
                && n.position.count_legal_moves() > 0
        });
        BeyondTables::count(open.map(|n| &n.position), MATERIALS_REPORTED)
    }
}

/// Materials an unresolved search names ([`Search::beyond_tables`]).
const MATERIALS_REPORTED: usize = 5;

impl Node {
    fn legal_moves_empty(&self) -> bool {
        self.position.legal_moves().is_empty()
    }
}

/// Searches the position after `mv` (the other side to move) for a win of `solver`,
/// creating at most `nodes` nodes; returns the outcome, unchecked, and the nodes created.
pub(super) fn search_after(
    (tables, leaves): (&Tablebase, &LeafVerdicts),
    solver: Color,
    position: &Position,
    counters: &Counters,
    mv: &Move,
    nodes: usize,
    deadline: Option<Instant>,
) -> Result<(Outcome, usize), ProveError> {
    let child = position.play(mv);
    let after = counters.after(mv, &child);
    let mut search = Search::new((tables, leaves), position.variant(), solver, nodes, deadline);
    // The thread's arena of the last search, its pages already touched: a new search
    // per first move and per defence made allocating and growing it a tenth of the work.
    (search.nodes, search.choice) = ARENA.with(|a| std::mem::take(&mut *a.borrow_mut()));
    search.nodes.clear();
    search.choice.clear();
    let found = search_from(&mut search, child, after);
    if search.nodes.capacity() <= KEPT_ARENA_NODES {
        let kept = (std::mem::take(&mut search.nodes), std::mem::take(&mut search.choice));
        ARENA.with(|a| *a.borrow_mut() = kept);
    }
    found
}

thread_local! {
    /// Each worker thread's node arena and its choice numbers, kept between its searches.
    static ARENA: std::cell::RefCell<(Vec<Node>, Vec<u32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The largest arena a thread keeps between searches (about 110 MiB).
const KEPT_ARENA_NODES: usize = 1 << 20;

/// Runs `search` from the position `child` with `after` and reads the outcome off it.
fn search_from(search: &mut Search<'_>, child: Position, after: Counters) -> Result<(Outcome, usize), ProveError> {
    search.push(child, after, 0, true)?;
    search.run()?;
    let root = &search.nodes[0];
    let outcome = if root.proved() {
        Outcome::Win(search.proof(0)?)
    } else if root.disproved() && !root.cut {
        Outcome::NotWin(search.refutation(0)?)
    } else {
        Outcome::Unresolved { nodes: search.nodes.len(), beyond: search.beyond_tables() }
    };
    Ok((outcome, search.nodes.len()))
}
