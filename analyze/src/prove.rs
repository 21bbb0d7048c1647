//! Proof search beyond the tables: does the side to move win a position of any size?
//!
//! Proof-number search (Allis 1994) over the game tree, best first: the solver's nodes
//! need one winning move (OR), the defender's need every move answered (AND). A leaf is
//! decided by the rules (no move: the side to move has lost; a count run out: drawn) or,
//! once its material is within the tables, by their exact verdict under the draw rules
//! with the counts carried down the line, so the proof holds under the rules of the game.
//! Proof and disproof numbers start from mobility (a node with many moves is hard to
//! refute at an OR node and hard to prove at an AND node), which puts forced lines, the
//! stuff of compositions, first.
//!
//! Each first move is searched on its own, in parallel, within the same budget: that
//! gives the key, the cooks (a second winning first move) and, for every other first
//! move, a disproof or "no win found within N nodes". A proved line is exported as a
//! [`ProofTree`] and replayed by [`check_proof`], which shares nothing with the search:
//! every position's moves generated afresh, every defence present, every leaf a table
//! win or a position where the defender has no move.
//!
//! The search is a tree, not a graph: a position repeated on the current line with the
//! same counts is a repetition, never part of a proof; a disproof that rests on one is
//! reported as "no win found", never as "proved not a win".

use std::time::{Duration, Instant};

use kabe_probe::rules::exact::Verdict;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Color, Counters, Move, PieceKind, Position, Variant, Wld};
use rayon::prelude::*;
use serde_json::{json, Value};

/// Proof and disproof numbers at or above this are infinite.
const INFINITE: u32 = u32::MAX / 4;

/// How much one search may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Nodes each first move's search may create (bounds its memory: about 100 bytes a
    /// node).
    pub nodes: usize,
    /// Wall-clock time for the whole search, if bounded.
    pub time: Option<Duration>,
}

impl Budget {
    /// Bytes a node of a search may take: its own, and while the arena grows by
    /// doubling, room for its copy.
    pub const NODE_BYTES: usize = 2 * std::mem::size_of::<Node>();
    /// The longest time a search may be given, in seconds: 30 days.
    pub const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

    /// A budget of `nodes` a first move and `seconds` for the whole search, checked:
    /// at least one node, a time above 0 and at most [`Budget::MAX_SECONDS`], and
    /// nodes whose memory, for `at_once` searches side by side (one a thread), fits
    /// `memory` bytes, so that a search is refused before it starts rather than failing
    /// an allocation halfway.
    pub fn checked(nodes: usize, seconds: Option<f64>, memory: u64, at_once: usize) -> Result<Budget, BudgetError> {
        if nodes == 0 {
            return Err(BudgetError::NoNodes);
        }
        let time = match seconds {
            Some(t) if !(t > 0.0 && t <= Budget::MAX_SECONDS) => return Err(BudgetError::Time(t)),
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => None,
        };
        let per_node = Budget::NODE_BYTES as u128 * at_once.max(1) as u128;
        let bytes = nodes as u128 * per_node;
        if bytes > memory as u128 {
            let most = (memory as u128 / per_node) as u64;
            return Err(BudgetError::Memory { nodes, at_once: at_once.max(1), bytes, memory, most });
        }
        Ok(Budget { nodes, time })
    }
}

/// Why [`Budget::checked`] refuses a budget; each message starts with the parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BudgetError {
    /// No node to search.
    #[error("nodes 0: the search needs at least one node")]
    NoNodes,
    /// A time that is not a number of seconds in range.
    #[error("time {}: give a number of seconds above 0 and at most 2592000 (30 days)", number_text(*.0))]
    Time(f64),
    /// More nodes than the memory holds.
    #[error(
        "nodes {nodes}: {at_once} searches at once would take {:.1} GiB ({} bytes a node), more than the {:.1} GiB \
         allowed; give at most {most} nodes",
        *.bytes as f64 / GIB, Budget::NODE_BYTES, *.memory as f64 / GIB
    )]
    Memory {
        /// The nodes asked for.
        nodes: usize,
        /// Searches side by side.
        at_once: usize,
        /// Bytes they would take.
        bytes: u128,
        /// Bytes allowed.
        memory: u64,
        /// The most nodes that fit.
        most: u64,
    },
}

const GIB: f64 = (1u64 << 30) as f64;

/// A number as a user wrote it, short: 1e308, not 309 digits.
fn number_text(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e9 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The memory a search may take on this machine: three quarters of it (Linux's
/// `/proc/meminfo`), else 4 GiB.
pub fn usable_memory() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines().find_map(|l| l.strip_prefix("MemTotal:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
    });
    total_kib.map_or(4 << 30, |kib| kib * 1024 / 4 * 3)
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { nodes: 400_000, time: None }
    }
}

/// Why a search cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// A table within reach is missing or damaged.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// The budget allows no search.
    #[error("the search budget is zero: give --nodes and --time above 0")]
    ZeroBudget,
    /// The checker refused a proof the search found: a defect of kabe, never printed
    /// as proved.
    #[error("the proof checker refused a proof the search found (a defect of kabe): {0}")]
    CheckerRefused(ProofFault),
    /// The tablebase does not hold the position's variant.
    #[error("the tables in use hold no {0} tables")]
    VariantNotOpen(&'static str),
}

/// What the search found for one first move (or the whole position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The solver wins: a proof, replayed by [`check_proof`].
    Win(ProofTree),
    /// The solver does not win after this move: a defence that holds.
    NotWin(Refutation),
    /// Neither within the budget.
    Unresolved {
        /// Nodes searched.
        nodes: usize,
    },
}

impl Outcome {
    /// Whether it is a proved win.
    pub fn is_win(&self) -> bool {
        matches!(self, Outcome::Win(_))
    }
}

/// A defence that holds: the line of moves (defender first) to where the solver is
/// seen not to win, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refutation {
    /// The moves of the line, as written.
    pub line: Vec<String>,
    /// How the line ends.
    pub end: String,
}

/// A proof that the solver wins from `position`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofTree {
    /// The position.
    pub position: Position,
    /// The counts in it.
    pub counters: Counters,
    /// Plies to the win along this proof (an upper bound on the best play's), down to
    /// the table position and on to the end by the tables' distance.
    pub plies: u16,
    /// What follows.
    pub step: ProofStep,
}

/// How a proof goes on from its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProofStep {
    /// The defender has no move: the game is won.
    GameOver,
    /// Within the tables: their exact verdict is a win for the solver.
    Table(Verdict),
    /// The solver to move: the winning move.
    Move(Move, Box<ProofTree>),
    /// The defender to move: every legal move, each with its refutation.
    Replies(Vec<(Move, ProofTree)>),
}

impl ProofTree {
    /// Positions in the proof.
    pub fn size(&self) -> usize {
        1 + match &self.step {
            ProofStep::Move(_, next) => next.size(),
            ProofStep::Replies(replies) => replies.iter().map(|(_, t)| t.size()).sum(),
            _ => 0,
        }
    }
}

/// The search of one position: its rules, tables, budget and node arena.
struct Search<'a> {
    tables: &'a Tablebase,
    solver: Color,
    reach: u32,
    nodes: Vec<Node>,
    limit: usize,
    deadline: Option<Instant>,
}

#[derive(Clone, Debug)]
struct Node {
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

/// How a new node starts.
struct Start {
    pn: u32,
    dn: u32,
    plies: u16,
    table: bool,
}

impl<'a> Search<'a> {
    fn new(
        tables: &'a Tablebase,
        variant: &Variant,
        solver: Color,
        budget: &Budget,
        deadline: Option<Instant>,
    ) -> Self {
        let reach = tables.max_pieces_of(variant);
        Search { tables, solver, reach, nodes: Vec::new(), limit: budget.nodes, deadline }
    }

    /// The value of a position seen for the first time.
    fn start(&self, position: &Position, counters: &Counters) -> Result<Start, ProveError> {
        let attack = position.turn() == self.solver;
        let moves = position.legal_moves();
        let proved = |plies: u16, table: bool| Start { pn: 0, dn: INFINITE, plies, table };
        let disproved = |table: bool| Start { pn: INFINITE, dn: 0, plies: 0, table };
        if moves.is_empty() {
            // The side to move has lost (no piece or no move).
            return Ok(if attack { disproved(false) } else { proved(0, false) });
        }
        if position.is_drawn_by_material() || matches!(counters.governing(position), Some((_, 0))) {
            return Ok(disproved(false));
        }
        if position.piece_count() <= self.reach {
            // A set may lack some tables of its largest size (a closure build): search on.
            let verdict = match self.tables.probe(position, counters) {
                Err(ProbeError::NoTable { .. }) => return Ok(self.open(position, moves.len())),
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
        Ok(self.open(position, moves.len()))
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
    }

    /// Searches from the root (node 0) until it is decided or the budget is spent.
    fn run(&mut self) -> Result<(), ProveError> {
        let mut since_clock = 0u32;
        while !self.nodes[0].proved() && !self.nodes[0].disproved() && self.nodes.len() < self.limit {
            since_clock += 1;
            if since_clock == 256 {
                since_clock = 0;
                if self.deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
            }
            // The most-proving node: least proof number at OR, least disproof at AND.
            let mut at = 0u32;
            while self.nodes[at as usize].expanded {
                let n = &self.nodes[at as usize];
                let attack = n.position.turn() == self.solver;
                let range = n.first..n.first + n.count as u32;
                at = range
                    .min_by_key(|&c| if attack { self.nodes[c as usize].pn } else { self.nodes[c as usize].dn })
                    .expect("an expanded open node has children");
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
        }
        Ok(())
    }

    /// The proof below a proved node.
    fn proof(&self, id: u32) -> Result<ProofTree, ProveError> {
        let n = &self.nodes[id as usize];
        let step = if !n.expanded {
            if n.table {
                ProofStep::Table(self.tables.probe(&n.position, &n.counters)?)
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

    /// A defence that holds below a disproved node (none rests on a repetition cut).
    fn refutation(&self, id: u32) -> Refutation {
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
                return Refutation { line, end };
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

impl Node {
    fn legal_moves_empty(&self) -> bool {
        self.position.legal_moves().is_empty()
    }
}

/// One first move and what the search found after it.
#[derive(Clone, Debug)]
pub struct FirstMove {
    /// The move.
    pub mv: Move,
    /// As written.
    pub text: String,
    /// What follows it.
    pub outcome: Outcome,
    /// Nodes its search created.
    pub nodes: usize,
    /// For a winning move: the solver's other winning moves along its main line.
    pub duals: Vec<Dual>,
}

/// The solver's moves at one point of a main line that win as well as the proof's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dual {
    /// Plies from the searched position (0 is the first move).
    pub ply: usize,
    /// The proof's move there.
    pub played: String,
    /// Other moves proved to win there.
    pub duals: Vec<String>,
    /// Other moves neither proved nor refuted within the dual search's budget.
    pub unresolved: Vec<String>,
}

/// The share of the budget each alternative of a main-line move gets in the dual search.
const DUAL_BUDGET_SHARE: usize = 20;

/// The duals along the main line of `tree` (the position after the first move, ply 1),
/// each alternative searched within a share of `budget`.
fn main_line_duals(
    tables: &Tablebase,
    solver: Color,
    tree: &ProofTree,
    budget: &Budget,
    deadline: Option<Instant>,
) -> Result<Vec<Dual>, ProveError> {
    let share = Budget { nodes: (budget.nodes / DUAL_BUDGET_SHARE).max(1), time: None };
    let mut points = Vec::new();
    let (mut at, mut ply) = (tree, 1usize);
    loop {
        match &at.step {
            ProofStep::Move(mv, next) => {
                points.push((at, *mv, ply));
                at = next;
            }
            ProofStep::Replies(replies) => match replies.iter().max_by_key(|(_, t)| t.plies) {
                Some((_, t)) => at = t,
                None => break,
            },
            ProofStep::GameOver | ProofStep::Table(_) => break,
        }
        ply += 1;
    }
    let mut out = Vec::new();
    for (node, played, ply) in points {
        let here = &node.position;
        let others: Vec<Move> = here.legal_moves().iter().filter(|m| **m != played).copied().collect();
        if others.is_empty() {
            continue;
        }
        let found: Vec<Result<(String, Outcome), ProveError>> = others
            .par_iter()
            .map(|mv| {
                let (outcome, _) = search_move(tables, solver, here, &node.counters, mv, &share, deadline)?;
                Ok((here.move_text(mv), outcome))
            })
            .collect();
        let mut dual = Dual { ply, played: here.move_text(&played), duals: Vec::new(), unresolved: Vec::new() };
        for r in found {
            match r? {
                (text, Outcome::Win(_)) => dual.duals.push(text),
                (text, Outcome::Unresolved { .. }) => dual.unresolved.push(text),
                (_, Outcome::NotWin(_)) => {}
            }
        }
        if !dual.duals.is_empty() || !dual.unresolved.is_empty() {
            out.push(dual);
        }
    }
    Ok(out)
}

/// What the search found for a position: each first move, searched on its own.
#[derive(Clone, Debug)]
pub struct PositionProof {
    /// The position.
    pub position: Position,
    /// The side whose win is sought: the side to move (the first moves are its
    /// candidate keys), or the other side (every first move must then lose).
    pub solver: Color,
    /// Its counts.
    pub counters: Counters,
    /// Every legal first move, in the generator's order.
    pub moves: Vec<FirstMove>,
    /// The budget each first move had.
    pub budget: Budget,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
}

impl PositionProof {
    /// Whether the solver is the side to move (the first moves are its own).
    pub fn solver_moves_first(&self) -> bool {
        self.solver == self.position.turn()
    }

    /// The solver's first moves proved to win (none when the defender moves first).
    pub fn keys(&self) -> impl Iterator<Item = &FirstMove> {
        self.moves.iter().filter(|m| self.solver_moves_first() && m.outcome.is_win())
    }

    /// The result for the solver: `Some(true)` proved win, `Some(false)` proved not a
    /// win, `None` unresolved.
    pub fn wins(&self) -> Option<bool> {
        let decided = |f: fn(&Outcome) -> bool| self.moves.iter().filter(|m| f(&m.outcome)).count();
        let (won, refuted) = (decided(Outcome::is_win), decided(|o| matches!(o, Outcome::NotWin(_))));
        if self.solver_moves_first() {
            if won > 0 {
                Some(true)
            } else if refuted == self.moves.len() {
                Some(false)
            } else {
                None
            }
        } else if refuted > 0 {
            Some(false)
        } else if won == self.moves.len() {
            Some(true)
        } else {
            None
        }
    }

    /// When the defender moves first: the defence that holds out longest in the proofs.
    pub fn longest_defence(&self) -> Option<&FirstMove> {
        if self.solver_moves_first() {
            return None;
        }
        self.moves
            .iter()
            .filter_map(|m| {
                Some((
                    m,
                    match &m.outcome {
                        Outcome::Win(t) => t.plies,
                        _ => return None,
                    },
                ))
            })
            .max_by_key(|&(_, plies)| plies)
            .map(|(m, _)| m)
    }
}

/// Searches every first move of `position` with `counters` under `rules` for a win of
/// `solver` (the side to move, whose first moves are then candidate keys, or the other
/// side, whose win must then follow every first move), in parallel, each within
/// `budget`; every proof found is replayed by [`check_proof`] before it is returned.
pub fn prove(
    tables: &Tablebase,
    position: &Position,
    counters: &Counters,
    solver: Color,
    budget: Budget,
) -> Result<PositionProof, ProveError> {
    if budget.nodes == 0 || budget.time.is_some_and(|t| t.is_zero()) {
        return Err(ProveError::ZeroBudget);
    }
    if tables.draw_rules(position.variant()).is_none() {
        return Err(ProveError::VariantNotOpen(position.variant().name));
    }
    let started = Instant::now();
    let deadline = budget.time.map(|t| started + t);
    let moves: Vec<Move> = position.legal_moves().iter().copied().collect();
    let results: Vec<Result<FirstMove, ProveError>> = moves
        .par_iter()
        .map(|mv| {
            let (outcome, nodes) = search_move(tables, solver, position, counters, mv, &budget, deadline)?;
            let duals = match &outcome {
                Outcome::Win(tree) => main_line_duals(tables, solver, tree, &budget, deadline)?,
                _ => Vec::new(),
            };
            Ok(FirstMove { mv: *mv, text: position.move_text(mv), outcome, nodes, duals })
        })
        .collect();
    let moves = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(PositionProof { position: *position, solver, counters: *counters, moves, budget, elapsed: started.elapsed() })
}

/// Searches the position after `mv` (the defender to move) for a win of `solver`;
/// returns the outcome, a proof replayed by [`check_proof`], and the nodes created.
#[allow(clippy::too_many_arguments)]
fn search_move(
    tables: &Tablebase,
    solver: Color,
    position: &Position,
    counters: &Counters,
    mv: &Move,
    budget: &Budget,
    deadline: Option<Instant>,
) -> Result<(Outcome, usize), ProveError> {
    let child = position.play(mv);
    let after = counters.after(mv, &child);
    let mut search = Search::new(tables, position.variant(), solver, budget, deadline);
    search.push(child, after, 0, true)?;
    search.run()?;
    let root = &search.nodes[0];
    let outcome = if root.proved() {
        let tree = search.proof(0)?;
        check_proof(tables, solver, &tree).map_err(ProveError::CheckerRefused)?;
        Outcome::Win(tree)
    } else if root.disproved() && !root.cut {
        Outcome::NotWin(search.refutation(0))
    } else {
        Outcome::Unresolved { nodes: search.nodes.len() }
    };
    Ok((outcome, search.nodes.len()))
}

/// What checking a published solution found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolutionCheck {
    /// The published first move.
    pub published_key: Option<String>,
    /// Whether it is a proved key.
    pub key_proved: bool,
    /// Moves of the published line that throw the win away or that the search could not
    /// confirm: each with its number.
    pub faults: Vec<String>,
    /// Remarks that are no fault: a solver's move other than the proof's that wins too
    /// (a dual), a defence that falls sooner than the longest one.
    pub remarks: Vec<String>,
    /// Plies of the published line checked.
    pub plies_checked: usize,
}

impl SolutionCheck {
    /// Whether the published line holds: its key is proved and no move throws the win
    /// away.
    pub fn holds(&self) -> bool {
        self.key_proved && self.faults.is_empty()
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "published_key": self.published_key,
            "key_proved": self.key_proved,
            "holds": self.holds(),
            "faults": self.faults,
            "remarks": self.remarks,
            "plies_checked": self.plies_checked,
        })
    }
}

/// Checks the published solution `moves` of the position `proof` searched: its key must
/// be proved; every solver's move must keep the win (a move the proof does not take is
/// searched within `budget`; inside the tables, their verdict decides); every defender's
/// move is compared with the longest defence.
pub fn check_solution(
    tables: &Tablebase,
    proof: &PositionProof,
    moves: &[Move],
    budget: Budget,
) -> Result<SolutionCheck, ProveError> {
    let start = &proof.position;
    let solver = proof.solver;
    let mut check = SolutionCheck::default();
    let Some(first) = moves.first() else { return Ok(check) };
    if proof.solver_moves_first() {
        check.published_key = Some(start.move_text(first));
    }
    let number = |ply: usize| crate::replay::move_number(start, ply);
    let key = proof.moves.iter().find(|m| m.mv == *first);
    let mut tree: ProofTree = match key.map(|k| &k.outcome) {
        Some(Outcome::Win(t)) => t.clone(),
        Some(Outcome::NotWin(r)) => {
            check.faults.push(format!(
                "{} {}: not a win ({}; {})",
                number(0),
                start.move_text(first),
                r.line.join(" "),
                r.end
            ));
            return Ok(check);
        }
        Some(Outcome::Unresolved { nodes }) => {
            check.faults.push(format!("{} {}: no win found within {nodes} nodes", number(0), start.move_text(first)));
            return Ok(check);
        }
        None => {
            check.faults.push(format!("{} {}: not a legal move", number(0), start.move_text(first)));
            return Ok(check);
        }
    };
    check.key_proved = proof.wins() == Some(true);
    if !check.key_proved {
        check.faults.push("not every first move of the defender is proved to lose".to_string());
    }
    check.plies_checked = 1;
    let mut here = tree.position;
    let mut counters = tree.counters;
    for (ply, mv) in moves.iter().enumerate().skip(1) {
        let text = here.move_text(mv);
        let at = format!("{} {text}", number(ply));
        if !here.legal_moves().iter().any(|m| m == mv) {
            check.faults.push(format!("{at}: not a legal move"));
            break;
        }
        let child = here.play(mv);
        let after = counters.after(mv, &child);
        let next: Option<ProofTree> = match &tree.step {
            ProofStep::Move(m, next) if m == mv => Some((**next).clone()),
            ProofStep::Move(m, _) => {
                let (outcome, nodes) = search_move(tables, solver, &here, &counters, mv, &budget, None)?;
                match outcome {
                    Outcome::Win(t) => {
                        check.remarks.push(format!("{at}: wins too (the proof plays {})", here.move_text(m)));
                        Some(t)
                    }
                    Outcome::NotWin(r) => {
                        check.faults.push(format!("{at}: throws the win away ({}; {})", r.line.join(" "), r.end));
                        None
                    }
                    Outcome::Unresolved { .. } => {
                        check.faults.push(format!(
                            "{at}: no win found after it within {nodes} nodes (the proof plays {})",
                            here.move_text(m)
                        ));
                        None
                    }
                }
            }
            ProofStep::Replies(replies) => {
                let longest = replies.iter().map(|(_, t)| t.plies).max().unwrap_or(0);
                let (_, t) = replies.iter().find(|(m, _)| m == mv).expect("every legal defence is in a proof");
                if t.plies < longest {
                    let best = replies.iter().find(|(_, t)| t.plies == longest).map(|(m, _)| here.move_text(m));
                    check.remarks.push(format!(
                        "{at}: falls sooner than {} (the proof: {} plies against {longest})",
                        best.unwrap_or_default(),
                        t.plies
                    ));
                }
                Some(t.clone())
            }
            ProofStep::Table(_) | ProofStep::GameOver => {
                // Inside the tables: their exact verdict after the move decides.
                let v = tables.probe(&child, &after)?;
                let solver_result = if child.turn() == solver { v.exact } else { v.exact.for_opponent() };
                if solver_result != Wld::Win {
                    let side = if here.turn() == solver { "throws the win away" } else { "escapes" };
                    check.faults.push(format!("{at}: {side} (the tables: {} for the solver)", wld_word(solver_result)));
                    None
                } else {
                    let plies = v.within.decided().map_or(0, |(_, p)| p);
                    Some(ProofTree { position: child, counters: after, plies, step: ProofStep::Table(v) })
                }
            }
        };
        let Some(next) = next else { break };
        check.plies_checked = ply + 1;
        tree = next;
        here = child;
        counters = after;
    }
    Ok(check)
}

/// Why a proof does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{fen}: {problem}")]
pub struct ProofFault {
    /// Where.
    pub fen: String,
    /// What is wrong.
    pub problem: String,
}

/// Replays a proof that `solver` wins, sharing nothing with the search: every
/// position's moves are generated afresh, each step's position and counts recomputed,
/// every defender move must be answered, every leaf must be a table win for the solver
/// or a position where the defender has no move, and no count may run out on the way.
pub fn check_proof(tables: &Tablebase, solver: Color, tree: &ProofTree) -> Result<(), ProofFault> {
    let fault = |problem: String| ProofFault { fen: tree.position.fen(), problem };
    let here = &tree.position;
    let legal = here.legal_moves();
    let follows = |mv: &Move, next: &ProofTree| -> Result<(), ProofFault> {
        let child = here.play(mv);
        if next.position != child {
            return Err(fault(format!("after {} the proof has another position", here.move_text(mv))));
        }
        if next.counters != tree.counters.after(mv, &child) {
            return Err(fault(format!("after {} the proof has other counts", here.move_text(mv))));
        }
        check_proof(tables, solver, next)
    };
    let count_ran_out = || matches!(tree.counters.governing(here), Some((_, 0)));
    match &tree.step {
        ProofStep::GameOver => {
            if here.turn() == solver || !legal.is_empty() {
                return Err(fault("not a position where the defender has no move".into()));
            }
        }
        ProofStep::Table(_) => {
            let verdict = tables.probe(here, &tree.counters).map_err(|e| fault(e.to_string()))?;
            let solver_result = if here.turn() == solver { verdict.exact } else { verdict.exact.for_opponent() };
            if solver_result != Wld::Win {
                return Err(fault(format!("the tables say {solver_result:?} for the solver")));
            }
        }
        ProofStep::Move(mv, next) => {
            if here.turn() != solver {
                return Err(fault("a solver's move where the defender is to move".into()));
            }
            if count_ran_out() {
                return Err(fault("the count has run out: drawn".into()));
            }
            if !legal.iter().any(|m| m == mv) {
                return Err(fault(format!("{} is not a legal move", here.move_text(mv))));
            }
            follows(mv, next)?;
        }
        ProofStep::Replies(replies) => {
            if here.turn() == solver {
                return Err(fault("replies where the solver is to move".into()));
            }
            if count_ran_out() {
                return Err(fault("the count has run out: drawn".into()));
            }
            if replies.len() != legal.len() {
                return Err(fault(format!("{} replies answered of {} legal", replies.len(), legal.len())));
            }
            for mv in legal.iter() {
                let answered: Vec<&ProofTree> = replies.iter().filter(|(m, _)| m == mv).map(|(_, t)| t).collect();
                match answered.as_slice() {
                    [next] => follows(mv, next)?,
                    _ => return Err(fault(format!("the defence {} is not answered once", here.move_text(mv)))),
                }
            }
        }
    }
    Ok(())
}

/// The main line of a proof: each solver move, and the defence that holds out longest.
/// Each entry: the move, and for a defender's move, the other defences with the first
/// move of their refutation.
pub fn main_line(tree: &ProofTree) -> Vec<(String, Vec<(String, String)>)> {
    let mut line = Vec::new();
    let mut at = tree;
    loop {
        match &at.step {
            ProofStep::Move(mv, next) => {
                line.push((at.position.move_text(mv), Vec::new()));
                at = next;
            }
            ProofStep::Replies(replies) => {
                let Some((mv, longest)) = replies.iter().max_by_key(|(_, t)| t.plies) else { break };
                let others = replies
                    .iter()
                    .filter(|(m, _)| m != mv)
                    .map(|(m, t)| {
                        let answer = match &t.step {
                            ProofStep::Move(a, _) => t.position.move_text(a),
                            ProofStep::Table(_) => "tables".to_string(),
                            _ => String::new(),
                        };
                        (at.position.move_text(m), answer)
                    })
                    .collect();
                line.push((at.position.move_text(mv), others));
                at = longest;
            }
            ProofStep::GameOver | ProofStep::Table(_) => break,
        }
    }
    line
}

/// A word for a result.
fn wld_word(w: Wld) -> &'static str {
    match w {
        Wld::Win => "win",
        Wld::Draw => "draw",
        Wld::Loss => "loss",
    }
}

impl ProofTree {
    /// The proof as JSON: `fen`, `plies`, and `move` with `next` (the solver's move),
    /// `defences` (each defender move with the proof after it), `tables` (the leaf's
    /// exact verdict) or `game_over`.
    pub fn to_json(&self) -> Value {
        let mut out = json!({ "fen": self.position.fen(), "plies": self.plies });
        match &self.step {
            ProofStep::GameOver => out["game_over"] = json!(true),
            ProofStep::Table(v) => {
                out["tables"] = json!({
                    "exact": wld_word(v.exact),
                    "plies": v.within.decided().map(|(_, p)| p),
                    "count": v.count.map(|(a, left)| json!({"article": a, "plies_left": left})),
                })
            }
            ProofStep::Move(mv, next) => {
                out["move"] = json!(self.position.move_text(mv));
                out["next"] = next.to_json();
            }
            ProofStep::Replies(replies) => {
                out["defences"] = replies
                    .iter()
                    .map(|(mv, t)| json!({ "move": self.position.move_text(mv), "proof": t.to_json() }))
                    .collect();
            }
        }
        out
    }

    /// Where the proof's main line ends: `in the tables: ...` or `the defender has no move`.
    pub fn main_line_end(&self) -> String {
        let mut at = self;
        loop {
            match &at.step {
                ProofStep::Move(_, next) => at = next,
                ProofStep::Replies(replies) => match replies.iter().max_by_key(|(_, t)| t.plies) {
                    Some((_, t)) => at = t,
                    None => return "the defender has no move".into(),
                },
                ProofStep::GameOver => return "the defender has no move".into(),
                ProofStep::Table(v) => {
                    let plies = v.within.decided().map_or(String::new(), |(_, p)| format!(" in {p} plies"));
                    let count = v.count.map_or(String::new(), |(a, left)| format!(", {a} with {left} plies left"));
                    return format!(
                        "in the tables ({} pieces): {} for the side to move{plies}{count}",
                        at.position.piece_count(),
                        wld_word(v.exact)
                    );
                }
            }
        }
    }
}

impl FirstMove {
    /// The move's result as JSON.
    pub fn to_json(&self) -> Value {
        let mut out = json!({ "move": self.text, "nodes": self.nodes });
        match &self.outcome {
            Outcome::Win(tree) => {
                out["outcome"] = json!("win");
                out["plies"] = json!(tree.plies + 1);
                out["main_line"] = json!(std::iter::once(self.text.clone())
                    .chain(main_line(tree).into_iter().map(|(m, _)| m))
                    .collect::<Vec<_>>());
                out["proof_positions"] = json!(tree.size());
                out["duals"] = self
                    .duals
                    .iter()
                    .map(|d| json!({"ply": d.ply, "played": d.played, "duals": d.duals, "unresolved": d.unresolved}))
                    .collect();
            }
            Outcome::NotWin(r) => {
                out["outcome"] = json!("not_win");
                out["refutation"] = json!({ "line": r.line, "end": r.end });
            }
            Outcome::Unresolved { nodes } => {
                out["outcome"] = json!("unresolved");
                out["no_win_found_within_nodes"] = json!(nodes);
            }
        }
        out
    }
}

impl PositionProof {
    /// The search as JSON: `result` (`win`, `not_win`, `unresolved`), `keys`, `cooks`
    /// (keys after the first), every first move with its outcome, the budget, and the
    /// first key's whole `proof` tree.
    pub fn to_json(&self) -> Value {
        let keys: Vec<&str> = self.keys().map(|m| m.text.as_str()).collect();
        let result = match self.wins() {
            Some(true) => "win",
            Some(false) => "not_win",
            None => "unresolved",
        };
        let proof = self.keys().next().or(self.longest_defence()).and_then(|k| match &k.outcome {
            Outcome::Win(tree) => Some(json!({ "move": k.text, "next": tree.to_json() })),
            _ => None,
        });
        json!({
            "fen": self.position.fen(),
            "solver": if self.solver == Color::White { "white" } else { "black" },
            "result": result,
            "keys": keys,
            "cooks": keys.iter().skip(1).collect::<Vec<_>>(),
            "moves": self.moves.iter().map(FirstMove::to_json).collect::<Vec<_>>(),
            "budget": { "nodes_per_move": self.budget.nodes, "time_s": self.budget.time.map(|t| t.as_secs_f64()) },
            "elapsed_s": self.elapsed.as_secs_f64(),
            "checked": true,
            "proof": proof,
        })
    }
}
