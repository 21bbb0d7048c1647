//! Rule tables: for every position, the distance within the count its signature keeps
//! ([`Context`]), so that the exact verdict is known for every counter value
//! (`kabe_probe::rules::exact`).
//!
//! Inside one count only quiet king moves keep both the material and the men where they
//! are; every other move either ends the count (a reset, or leaving a material rule's
//! material: the position after it is valued afresh) or continues it in a position with
//! other men or material, solved before. So a pair's positions split into *components*,
//! one per placement of the men (with its colour flip), joined only by king moves. Men
//! only move forward, so components are solved from the most advanced men backwards
//! (components equally advanced in parallel), each by a ply-ordered retrograde pass like
//! the theoretical one, but with explicit win/loss: either side may make the deciding
//! move, so a distance has no parity. A component is solved in place, in the pair's own
//! two-byte value slots, and in parallel inside (chunks of 4,096 positions, atomic
//! minimum and compare-and-swap): a kings-only pair is one component of hundreds of
//! millions of positions, so its working state must be as compact as the theoretical
//! solver's. (The first rule solver kept a value, a move count, exits and queued node
//! numbers beside the pair's values, 48 bytes per position measured on 0501+0105, and
//! solved a component on one thread.)

use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;

use kabe_probe::internal::{MaterialIndex, OneKingMoved, Unmoves};
use kabe_probe::rules::exact::{exact_result, Oracle};
use kabe_probe::rules::Context;
use kabe_probe::SquareSets;
use kabe_probe::{Counters, DrawRules, MoveList, Position, RuleScore, Score, Signature, Square, Variant, Wld};
use rayon::prelude::*;

use crate::finished::lookup::Finished;
use crate::finished::registry::{MissingTable, Registry};
use crate::memory::prefetch;
use crate::solve::checkpoint::Checkpoint;
use crate::solve::components::{
    advancements, components, group_count, groups, levels, part_positions, scanned_by_advancement, Component,
};
use crate::solve::king_words::{self, Valuation};
use crate::solve::slices::FileStore;
use crate::solve::symmetry::KingSymmetry;
use crate::solve::whole::{
    atomic_array, count_down, lower_in_chunk, never_paused, pair_tables, take_tail, Graph, Pair, PairPass, SliceError,
    CANNOT_LOSE, EXIT_UNKNOWN, NOT_CANONICAL, PARENT_BATCH, PENDING, TAIL_RUN,
};

/// The rule values of every position (White to move) of one signature.
#[derive(Debug)]
pub struct RuleTable {
    /// The index of the signature.
    pub index: MaterialIndex,
    /// One value per index.
    pub values: Vec<RuleScore>,
}

/// The rule tables solved so far for one variant and rule set.
#[derive(Debug, Clone)]
pub struct RuleRegistry {
    rules: DrawRules,
    tables: HashMap<Signature, Arc<RuleTable>>,
}

impl RuleRegistry {
    /// No tables yet.
    pub fn new(rules: DrawRules) -> RuleRegistry {
        RuleRegistry { rules, tables: HashMap::new() }
    }

    /// The rule set.
    pub fn rules(&self) -> &DrawRules {
        &self.rules
    }

    /// Adds a solved table.
    pub fn insert(&mut self, table: RuleTable) {
        self.tables.insert(table.index.signature(), Arc::new(table));
    }

    /// The table of `signature`, if solved.
    pub fn table(&self, signature: Signature) -> Option<&Arc<RuleTable>> {
        self.tables.get(&signature)
    }
}

/// Values from solved tables in memory (tests and checks; a build reads the finished
/// tables through their files instead).
pub struct MemoryTables<'a> {
    /// Theoretical tables.
    pub theory: &'a Registry,
    /// Rule tables of other signatures.
    pub done: &'a RuleRegistry,
}

impl<'a> MemoryTables<'a> {
    /// Values from finished tables only.
    pub fn new(theory: &'a Registry, done: &'a RuleRegistry) -> MemoryTables<'a> {
        MemoryTables { theory, done }
    }
}

impl Finished for MemoryTables<'_> {
    type Error = MissingTable;

    fn dtw(&self, position: &Position) -> Result<Score, MissingTable> {
        self.theory.score(position).ok_or_else(|| MissingTable(Signature::of(position)))
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, MissingTable> {
        if let Some(settled) = position.settled_score() {
            return Ok(RuleScore::from_score(settled));
        }
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        let table = self.done.table(sig).ok_or(MissingTable(sig))?;
        Ok(table.values[table.index.index(&normalized) as usize])
    }
}

/// Finished tables, and the components of the pair solved so far.
struct PairOracle<'a, O, V> {
    finished: &'a O,
    pair: &'a PairValues<V>,
}

impl<O: Finished, V: RuleValues> Oracle for PairOracle<'_, O, V> {
    type Error = SliceError<O::Error, V::Error>;

    fn theoretical(&self, position: &Position) -> Result<Score, Self::Error> {
        self.finished.dtw(position).map_err(SliceError::Finished)
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, Self::Error> {
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        if let Some(t) = self.pair.tables.iter().position(|i| i.signature() == sig) {
            let raw = self.pair.values.get(t, self.pair.tables[t].index(&normalized)).map_err(SliceError::Store)?;
            return Ok(RuleScore::from_raw(raw));
        }
        self.finished.counted(position).map_err(SliceError::Finished)
    }
}

/// The pair being solved; a component reads the values of components solved before it.
struct PairValues<V> {
    tables: Vec<MaterialIndex>,
    values: V,
}

/// Where a pair's rule values are kept: in memory, where a component is solved in place,
/// or on disk ([`FileStore`]), where a component is solved in a state of its own size and
/// then written: a pair larger than the memory budget.
trait RuleValues: Sync {
    type Error: Send;
    /// The pair's value slots, when they are in memory.
    fn in_place(&self) -> Option<&[Vec<AtomicU16>]>;
    fn get(&self, table: usize, index: u64) -> Result<u16, Self::Error>;
    fn put(&self, table: usize, first: u64, values: &[u16]) -> Result<(), Self::Error>;
    /// As [`crate::solve::slices::PairStore::groups_done`].
    fn groups_done(&self) -> usize {
        0
    }
    /// As [`crate::solve::slices::PairStore::groups_stored`].
    fn groups_stored(&self, _groups: usize) -> Result<(), Self::Error> {
        Ok(())
    }
    /// As [`crate::solve::slices::PairStore::components_at_once`].
    fn components_at_once(&self) -> usize {
        usize::MAX
    }
}

/// A pair's values in memory, solved in place; with a checkpoint, written to it after a
/// group of components now and then (not after the last: the tables are written next),
/// and loaded from it where a run stopped before left one (`resumed` groups done).
struct InMemory<'c> {
    values: Vec<Vec<AtomicU16>>,
    checkpoint: Option<&'c Checkpoint<'c>>,
    resumed: usize,
    groups: usize,
}

impl InMemory<'_> {
    fn slots(&self) -> Vec<&[AtomicU16]> {
        self.values.iter().map(|v| &v[..]).collect()
    }
}

impl RuleValues for InMemory<'_> {
    type Error = std::convert::Infallible;

    fn in_place(&self) -> Option<&[Vec<AtomicU16>]> {
        Some(&self.values)
    }

    fn get(&self, table: usize, index: u64) -> Result<u16, Self::Error> {
        Ok(self.values[table][index as usize].load(Ordering::Acquire))
    }

    fn put(&self, table: usize, first: u64, values: &[u16]) -> Result<(), Self::Error> {
        for (slot, v) in self.values[table][first as usize..].iter().zip(values) {
            slot.store(*v, Ordering::Release);
        }
        Ok(())
    }

    fn groups_done(&self) -> usize {
        self.resumed
    }

    fn groups_stored(&self, groups: usize) -> Result<(), Self::Error> {
        if let Some(checkpoint) = self.checkpoint.filter(|_| groups < self.groups) {
            checkpoint.save_if_due(groups as u64, &self.slots());
        }
        Ok(())
    }
}

impl RuleValues for &FileStore {
    type Error = std::io::Error;

    fn in_place(&self) -> Option<&[Vec<AtomicU16>]> {
        None
    }

    fn get(&self, table: usize, index: u64) -> std::io::Result<u16> {
        self.get_raw(table, index)
    }

    fn put(&self, table: usize, first: u64, values: &[u16]) -> std::io::Result<()> {
        self.put_raw(table, first, values)
    }

    fn groups_done(&self) -> usize {
        self.resumed_groups()
    }

    fn groups_stored(&self, groups: usize) -> std::io::Result<()> {
        self.mark_groups(groups)
    }

    fn components_at_once(&self) -> usize {
        self.at_once()
    }
}

/// Solves the rule table(s) of `signature` and its colour flip, or returns `Ok(None)`
/// when the rule set keeps no table for this material. `finished` must answer for every
/// theoretical table up to this size and every rule table the pair's moves lead to.
/// `progress` receives two units per position solved (as the theoretical solver).
pub fn solve_rule_pair<O>(
    finished: &O,
    rules: DrawRules,
    variant: Variant,
    signature: Signature,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RuleTable>>, O::Error>
where
    O: Finished,
    O::Error: Send,
{
    solve_in_memory(finished, rules, variant, signature, None, PairPass::Fastest, progress)
}

/// [`solve_rule_pair`] by the pass `pass`.
pub fn solve_rule_pair_by<O>(
    finished: &O,
    rules: DrawRules,
    variant: Variant,
    signature: Signature,
    pass: PairPass,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RuleTable>>, O::Error>
where
    O: Finished,
    O::Error: Send,
{
    solve_in_memory(finished, rules, variant, signature, None, pass, progress)
}

/// As [`solve_rule_pair_by`], the values written to `checkpoint` after a group of
/// components now and then, and taken up again from it where a run stopped before left
/// one (the bit-parallel pass keeps none: a run stopped inside it starts the pair again).
pub(crate) fn solve_rule_pair_resumable<O>(
    finished: &O,
    rules: DrawRules,
    variant: Variant,
    signature: Signature,
    checkpoint: &Checkpoint<'_>,
    pass: PairPass,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RuleTable>>, O::Error>
where
    O: Finished,
    O::Error: Send,
{
    solve_in_memory(finished, rules, variant, signature, Some(checkpoint), pass, progress)
}

fn solve_in_memory<O>(
    finished: &O,
    rules: DrawRules,
    variant: Variant,
    signature: Signature,
    checkpoint: Option<&Checkpoint<'_>>,
    pass: PairPass,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RuleTable>>, O::Error>
where
    O: Finished,
    O::Error: Send,
{
    if rules.context(signature).is_none() {
        return Ok(None);
    }
    if pass == PairPass::KingWords && king_words::applies(&variant, signature) {
        return solve_by_words(finished, rules, variant, signature, progress).map(Some);
    }
    let symmetry = match pass {
        PairPass::Plain => None,
        PairPass::Fastest | PairPass::KingWords => KingSymmetry::of(&variant, signature),
    };
    let tables = pair_tables(variant, signature);
    // Counted only where a checkpoint needs them (its last group is not saved, and a
    // stage beyond it is refused).
    let groups = checkpoint.map_or(0, |_| group_count(&tables));
    let values = tables.iter().map(|t| atomic_array(t.len() as usize, RuleScore::NONE.raw())).collect();
    let mut values = InMemory { values, checkpoint, resumed: 0, groups };
    if let Some(checkpoint) = checkpoint {
        // A stage beyond the last group is no state of this pass: it would skip them all.
        match checkpoint.load(&values.slots(), RuleScore::NONE.raw()).map(|g| g as usize) {
            Some(done) if done <= groups => values.resumed = done,
            Some(_) => values
                .slots()
                .iter()
                .for_each(|t| t.par_iter().for_each(|s| s.store(RuleScore::NONE.raw(), Ordering::Relaxed))),
            None => {}
        }
    }
    let pair = PairValues { tables, values };
    solve_components(finished, rules, &pair, symmetry, progress).map_err(never_paused)?;
    let PairValues { tables, values: InMemory { values, .. } } = pair;
    Ok(Some(
        tables
            .into_iter()
            .zip(values)
            .map(|(index, v)| RuleTable {
                index,
                values: v.into_iter().map(|a| RuleScore::from_raw(a.into_inner())).collect(),
            })
            .collect(),
    ))
}

/// The rule tables of a pair of kings only, bit-parallel over one king's square
/// ([`king_words`]): the same propagation as its theory pass, with explicit wins and
/// losses at any ply up to the count's last, a capture's position valued as a component
/// values it ([`ComponentSolver::first_state`]: a capture ends the count) where it is
/// not drawn in theory, and a man's move valued as a component's exit is (it ends the
/// count, or carries it to a placement of the men solved before).
fn solve_by_words<O>(
    finished: &O,
    rules: DrawRules,
    variant: Variant,
    signature: Signature,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<RuleTable>, O::Error>
where
    O: Finished,
    O::Error: Send,
{
    let context = rules.context(signature).expect("checked by the caller");
    let tables = pair_tables(variant, signature);
    let state = atomic_array(tables.iter().map(MaterialIndex::len).sum::<u64>() as usize, RuleScore::NONE.raw());
    let firsts = tables.iter().scan(0, |first, t| Some(std::mem::replace(first, *first + t.len()))).collect();
    let pair = PairValues { tables, values: WordsState { state: &state, firsts } };
    let oracle = PairOracle { finished, pair: &pair };
    let cap = context.max_plies(&rules);
    let solver = ComponentSolver { rules, context, cap, pair: &pair, oracle: &oracle, symmetry: None };
    let counted = Counted { solver: &solver, finished, step_ends: context.ends_by_man_step(&rules) };
    let solved = king_words::solve_with(finished, variant, signature, &counted, &state, progress)?;
    drop(pair);
    // Split table by table in place, as the theory's scores are (`whole::into_tables`).
    let mut all: Vec<RuleScore> = state.into_iter().map(|a| RuleScore::from_raw(a.into_inner())).collect();
    let mut tables = solved.tables;
    let mut out = Vec::with_capacity(tables.len());
    while let Some(index) = tables.pop() {
        let at = all.len() - index.len() as usize;
        let values = if tables.is_empty() { std::mem::take(&mut all) } else { take_tail(&mut all, at, TAIL_RUN) };
        out.push(RuleTable { index, values });
    }
    out.reverse();
    Ok(out)
}

/// The values of a pair solved bit-parallel ([`solve_by_words`]), its tables' slots one
/// after the other: a [`ComponentSolver`] values a capture's position or a man's move
/// through them, and a man's move reads a placement of the men solved before.
struct WordsState<'s> {
    state: &'s [AtomicU16],
    /// The slot of each table's first position.
    firsts: Vec<u64>,
}

impl RuleValues for WordsState<'_> {
    type Error = std::convert::Infallible;

    fn in_place(&self) -> Option<&[Vec<AtomicU16>]> {
        None
    }

    fn get(&self, table: usize, index: u64) -> Result<u16, Self::Error> {
        Ok(self.state[(self.firsts[table] + index) as usize].load(Ordering::Relaxed))
    }

    fn put(&self, _table: usize, _first: u64, _values: &[u16]) -> Result<(), Self::Error> {
        unreachable!("the bit-parallel pass writes its own values")
    }
}

/// Distances within a count for the bit-parallel pass ([`solve_by_words`]).
struct Counted<'s, 'a, O> {
    solver: &'s ComponentSolver<'a, O, WordsState<'a>>,
    finished: &'a O,
    /// Whether a man's step that neither captures nor crowns ends the count.
    step_ends: bool,
}

impl<O: Finished> Counted<'_, '_, O> {
    /// Appends to `out` the raw value of each of `positions` (nodes `nodes` of `pair`):
    /// undecided where the pair's own theory has it drawn (drawn under every count),
    /// else `value`'s.
    fn unless_drawn(
        &self,
        pair: &Pair<'_, O>,
        positions: &[Position],
        nodes: &[u64],
        out: &mut Vec<u16>,
        mut value: impl FnMut(&Position, &mut MoveList) -> Result<u16, O::Error>,
    ) -> Result<(), O::Error> {
        let mut moves = MoveList::new();
        let mut stored = Vec::with_capacity(1);
        for (position, &node) in positions.iter().zip(nodes) {
            let (t, index) = pair.locate(node);
            stored.clear();
            self.finished.stored_results(
                pair.tables[t].signature(),
                index,
                std::slice::from_ref(position),
                &mut stored,
            )?;
            out.push(match stored.first() {
                Some(Some(Wld::Draw)) => RuleScore::NONE.raw(),
                _ => value(position, &mut moves)?,
            });
        }
        Ok(())
    }
}

impl<O: Finished> Valuation<O> for Counted<'_, '_, O>
where
    O::Error: Send,
{
    fn captures(
        &self,
        pair: &Pair<'_, O>,
        positions: &[Position],
        nodes: &[u64],
        out: &mut Vec<u16>,
    ) -> Result<(), O::Error> {
        self.unless_drawn(pair, positions, nodes, out, |position, moves| {
            let raw = self.solver.first_state(position, moves).map_err(never_paused)?;
            debug_assert!(raw < PENDING || raw == CANNOT_LOSE, "{}: a capture's position pending", position.fen());
            Ok(raw)
        })
    }

    const MAN_MOVES_LEAVE: bool = true;

    /// The best of a position's men's moves (every move but its quiet king moves), as a
    /// component values its exits; none where the position is drawn in theory (most of a
    /// pair mostly drawn: its crownings were 18% of 1112+1211's pass, all valued).
    fn man_exits(
        &self,
        pair: &Pair<'_, O>,
        positions: &[Position],
        nodes: &[u64],
        out: &mut Vec<u16>,
    ) -> Result<(), O::Error> {
        self.unless_drawn(pair, positions, nodes, out, |position, moves| {
            let e = self.solver.exits(position, moves).map_err(never_paused)?;
            // Its exits alone: its quiet king moves join in the propagation.
            Ok(self.solver.state_of(&Exits { internal: 0, ..e }))
        })
    }

    /// As [`ComponentSolver::exits`] values the step, and [`ComponentSolver::first_state`]
    /// a position with that move alone.
    fn man_step(&self, child: u16) -> u16 {
        let cap = self.solver.cap;
        let child = RuleScore::from_raw(child).capped(cap).decided();
        // A step that ends the count values its child afresh, a whole count ahead of it:
        // won or lost within it, decided by the step.
        let child = if self.step_ends { child.map(|(wld, _)| (wld, 0)) } else { child };
        match child {
            Some((Wld::Loss, d)) if d < cap => RuleScore::win(d + 1).raw(),
            Some((Wld::Win, d)) if d < cap => RuleScore::loss(d + 1).raw(),
            _ => RuleScore::NONE.raw(),
        }
    }

    /// A win before anything else, the quickest first; then undecided; then a loss, the
    /// longest first.
    fn better(&self, a: u16, b: u16) -> u16 {
        let rank = |raw| match RuleScore::from_raw(raw).decided() {
            Some((Wld::Win, plies)) => (2, u16::MAX - plies),
            None => (1, 0),
            Some((_, plies)) => (0, plies),
        };
        if rank(a) >= rank(b) {
            a
        } else {
            b
        }
    }

    fn decided(&self, ply: u16, won: bool) -> u16 {
        if won { RuleScore::win(ply) } else { RuleScore::loss(ply) }.raw()
    }

    fn ply_of(&self, raw: u16) -> Option<(u16, bool)> {
        RuleScore::from_raw(raw).decided().map(|(wld, plies)| (plies, wld == Wld::Win))
    }

    fn last_ply(&self) -> u16 {
        self.solver.cap
    }
}

/// As [`solve_rule_pair`], the values kept in `store` (one file per table of the pair,
/// from [`crate::solve::slices::FileStore::open`]): a component at a time in a working state
/// of its own size. Returns whether the rule set keeps a table for this material.
pub(crate) fn solve_rule_pair_on_disk<O>(
    finished: &O,
    rules: DrawRules,
    variant: Variant,
    signature: Signature,
    store: &FileStore,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<bool, SliceError<O::Error, std::io::Error>>
where
    O: Finished,
    O::Error: Send,
{
    if rules.context(signature).is_none() {
        return Ok(false);
    }
    let pair = PairValues { tables: pair_tables(variant, signature), values: store };
    solve_components(finished, rules, &pair, None, progress)?;
    Ok(true)
}

fn solve_components<O, V>(
    finished: &O,
    rules: DrawRules,
    pair: &PairValues<V>,
    symmetry: Option<KingSymmetry>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(), SliceError<O::Error, V::Error>>
where
    O: Finished,
    O::Error: Send,
    V: RuleValues,
{
    let context = rules.context(pair.tables[0].signature()).expect("checked by the caller");
    let oracle = PairOracle { finished, pair };
    let solver = ComponentSolver { rules, context, cap: context.max_plies(&rules), pair, oracle: &oracle, symmetry };
    let resume = pair.values.groups_done();
    let kings = pair.tables[0].king_placements();
    if scanned_by_advancement(&pair.tables) {
        let advancements: Vec<Vec<u8>> = pair.tables.iter().map(advancements).collect();
        let levels = levels(&advancements);
        // The levels done are the most advanced: those down to the last one stored.
        let resumed: u64 = match resume.min(levels.len()).checked_sub(1) {
            Some(last) => {
                advancements.iter().map(|a| a.par_iter().filter(|&&x| x >= levels[last]).count() as u64).sum()
            }
            None => 0,
        };
        progress(2 * resumed);
        for (g, &level) in levels.iter().enumerate().skip(resume) {
            solver.solve_kingless(&advancements, level, progress)?;
            pair.values.groups_stored(g + 1).map_err(SliceError::Store)?;
        }
        return Ok(());
    }
    let components = components(&pair.tables);
    let resumed_nodes: u64 = groups(&components).take(resume).flatten().map(|c| c.parts().len() as u64 * kings).sum();
    progress(2 * resumed_nodes);
    let at_once = pair.values.components_at_once().max(1);
    for (g, group) in groups(&components).enumerate().skip(resume) {
        for batch in group.chunks(at_once) {
            batch.par_iter().try_for_each(|c| solver.solve(c, progress).map(drop))?;
        }
        pair.values.groups_stored(g + 1).map_err(SliceError::Store)?;
    }
    Ok(())
}

struct ComponentSolver<'a, O, V> {
    rules: DrawRules,
    context: Context,
    cap: u16,
    pair: &'a PairValues<V>,
    oracle: &'a PairOracle<'a, O, V>,
    /// A pair of kings only, solved in memory: one position of each class of images
    /// solved, the others copy it ([`crate::solve::symmetry`]).
    symmetry: Option<KingSymmetry>,
}

/// The nodes of one component, numbered part after part (a part: one men placement of
/// one table, its king placements in index order), and where each node's state lives:
/// the pair's own value slots, or `own` where the pair's values are not in memory.
struct Nodes<'a, V> {
    pair: &'a PairValues<V>,
    component: &'a Component,
    /// King placements a part.
    kings: usize,
    n: usize,
    own: Vec<AtomicU16>,
    /// The men of each part, unranked once: a node's position only places its kings.
    men: Vec<SquareSets>,
    /// The lowest decided state waiting in each chunk of [`CHUNK`] nodes.
    chunk_min: Vec<AtomicU16>,
}

impl<'a, V: RuleValues> Nodes<'a, V> {
    fn new(pair: &'a PairValues<V>, component: &'a Component) -> Nodes<'a, V> {
        let kings = pair.tables[0].king_placements() as usize;
        let n = component.parts().len() * kings;
        let own = match pair.values.in_place() {
            Some(_) => Vec::new(),
            None => (0..n).map(|_| AtomicU16::new(RuleScore::NONE.raw())).collect(),
        };
        let men = component.parts().iter().map(|&(t, m)| pair.tables[t].men_of(m)).collect();
        let chunk_min = (0..n.div_ceil(CHUNK)).map(|_| AtomicU16::new(NOTHING)).collect();
        Nodes { pair, component, kings, n, own, men, chunk_min }
    }

    /// The slots of part `part`'s nodes, in order.
    #[inline]
    fn part_slots(&self, part: usize) -> &[AtomicU16] {
        match self.pair.values.in_place() {
            Some(values) => {
                let (t, m) = self.component.parts()[part];
                &values[t][m as usize * self.kings..(m as usize + 1) * self.kings]
            }
            None => &self.own[part * self.kings..(part + 1) * self.kings],
        }
    }

    /// The slots of nodes `range`, in order, a part at a time: a scan over every node
    /// finds each slot without dividing its node number by the part's size (the sweep
    /// of a component's undecided nodes, doing so, was 4% of 1212's rule pass, perf).
    fn slots_in(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = &AtomicU16> + '_ {
        let kings = self.kings;
        let touched = if range.is_empty() { 0..0 } else { range.start / kings..(range.end - 1) / kings + 1 };
        touched.flat_map(move |part| {
            let first = range.start.max(part * kings) - part * kings;
            let end = range.end.min((part + 1) * kings) - part * kings;
            self.part_slots(part)[first..end].iter()
        })
    }

    /// The slot of node `local`.
    #[inline]
    fn slot(&self, local: usize) -> &AtomicU16 {
        &self.part_slots(local / self.kings)[local % self.kings]
    }

    #[inline]
    fn position_of(&self, local: usize) -> Position {
        let part = local / self.kings;
        self.pair.tables[self.component.parts()[part].0].place_kings(&self.men[part], (local % self.kings) as u64)
    }

    /// The positions of nodes `range`, a part at a time from its men unranked once.
    fn positions_in(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = Position> + '_ {
        part_positions(self.kings as u64, range.start as u64..range.end as u64, move |part, placements| {
            let (t, m) = self.component.parts()[part];
            self.pair.tables[t].placements(m, &self.men[part], placements)
        })
    }

    fn chunk_range(&self, c: usize) -> std::ops::Range<usize> {
        c * CHUNK..((c + 1) * CHUNK).min(self.n)
    }
}

/// A node's moves: how many stay inside the component (quiet king moves), and what
/// those leaving it give.
#[derive(Default, Clone, Copy)]
struct Exits {
    internal: u16,
    /// Some move leaves for a position that is not lost within the cap: never lost.
    cannot_lose: bool,
    /// Shortest win through an exit.
    win: Option<u16>,
    /// Longest loss through exits.
    loss: u16,
}

/// Why a component cannot be solved: a finished table or the pair's store failed.
type PairError<O, V> = SliceError<<O as Finished>::Error, <V as RuleValues>::Error>;

/// Node state while a component is solved, in the pair's own value slots (two bytes):
/// below `PENDING` a [`RuleScore`] (final once the scan reaches its ply; a win may still
/// be lowered before); from it up, unresolved: `PENDING | exit_loss << 8 | moves`, the
/// low byte counting quiet king moves not yet known to lose, the next 7 bits the longest
/// loss through a move leaving the component (`EXIT_UNKNOWN`: longer, look again); the
/// theoretical solver's constants (`crate::solve::whole`). `CANNOT_LOSE` (never lost within the
/// cap) is also [`RuleScore::NONE`], so a node left unresolved is already its final
/// value.
const _: () = assert!(CANNOT_LOSE == RuleScore::NONE.raw());
/// Chunk minimum with no value pending.
const NOTHING: u16 = u16::MAX;
/// Nodes per chunk: the unit of parallel work and of the scan's skip summary.
const CHUNK: usize = 4096;
/// Positions scanned per parallel task in a pair without kings.
const KINGLESS_SPAN: usize = 1 << 16;

impl<O: Finished, V: RuleValues> ComponentSolver<'_, O, V>
where
    O::Error: Send,
{
    /// Solves one component in place: its values are the pair's value slots, two bytes
    /// per position and no other state but a minimum per chunk of 4,096 nodes. Plies
    /// are taken in order as in the theoretical solver ([`crate::solve::whole`]); a component
    /// reads only components solved before it, through its exits. Returns its number of
    /// positions; `progress` gets one unit per node initialised and one per node resolved
    /// or left undecided.
    fn solve(&self, component: &Component, progress: &(dyn Fn(u64) + Sync)) -> Result<u64, PairError<O, V>> {
        let nodes = Nodes::new(self.pair, component);
        // 1. Initialise every node from its moves.
        self.initialise(&nodes, progress)?;
        // 2. Propagate ply by ply: a loss in `ply` makes its parents wins in `ply + 1`,
        // a win takes one move off each parent's count.
        let mut resolved_total = 0u64;
        loop {
            let next = nodes.chunk_min.par_iter().map(|m| m.load(Ordering::Acquire)).min().unwrap_or(NOTHING);
            if next == NOTHING {
                break;
            }
            resolved_total += self.propagate(&nodes, next >> 1, progress)?;
        }
        if let Some(symmetry) = &self.symmetry {
            self.copy_canonical(symmetry, &nodes);
        }
        // 3. Nodes left pending are undecided within the cap.
        (0..nodes.chunk_min.len()).into_par_iter().for_each(|c| {
            for slot in nodes.slots_in(nodes.chunk_range(c)) {
                if slot.load(Ordering::Relaxed) >= PENDING {
                    slot.store(RuleScore::NONE.raw(), Ordering::Relaxed);
                }
            }
        });
        progress(nodes.n as u64 - resolved_total);
        if self.pair.values.in_place().is_none() {
            for (part, (t, m)) in nodes.own.chunks(nodes.kings).zip(component.parts()) {
                let raw: Vec<u16> = part.iter().map(|a| a.load(Ordering::Relaxed)).collect();
                self.pair.values.put(t, m * nodes.kings as u64, &raw).map_err(SliceError::Store)?;
            }
        }
        Ok(nodes.n as u64)
    }

    /// Each node a pass by symmetry left to its class's canonical member takes that
    /// member's state.
    fn copy_canonical(&self, symmetry: &KingSymmetry, nodes: &Nodes<'_, V>) {
        (0..nodes.chunk_min.len()).into_par_iter().for_each(|c| {
            let range = nodes.chunk_range(c);
            for (slot, position) in nodes.slots_in(range.clone()).zip(nodes.positions_in(range)) {
                if slot.load(Ordering::Relaxed) == NOT_CANONICAL {
                    let canonical = KingSymmetry::canonical(&symmetry.images(&position.square_sets()));
                    let from = self.local_of_sets(nodes, &canonical);
                    slot.store(nodes.slot(from).load(Ordering::Relaxed), Ordering::Relaxed);
                }
            }
        });
    }

    /// Solves the positions of a pair without kings whose men have advanced `level`
    /// (`advancements`: each table's, [`advancements`]). Without a quiet king move
    /// nothing joins a component's positions (one, or two with the colour flip): each is
    /// decided by its exits alone, and a group is a flat parallel loop over positions,
    /// with none of a component's solver state (125 million components of one or two
    /// positions in 2040+4020, each with its own state and nested parallel loops, were
    /// most of that pair's rule pass).
    fn solve_kingless(
        &self,
        advancements: &[Vec<u8>],
        level: u8,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(), PairError<O, V>> {
        let scratch = || (MoveList::new(), Vec::with_capacity(1));
        let spans: Vec<(usize, usize)> = advancements
            .iter()
            .enumerate()
            .flat_map(|(t, a)| (0..a.len().div_ceil(KINGLESS_SPAN)).map(move |c| (t, c)))
            .collect();
        spans.par_iter().try_for_each_init(scratch, |(moves, stored), &(t, c)| {
            let table = &self.pair.tables[t];
            let span = &advancements[t][c * KINGLESS_SPAN..((c + 1) * KINGLESS_SPAN).min(advancements[t].len())];
            let mut positions = 0u64;
            for (i, _) in span.iter().enumerate().filter(|&(_, &a)| a == level) {
                let m = (c * KINGLESS_SPAN + i) as u64;
                let position = table.position(m);
                stored.clear();
                self.oracle
                    .finished
                    .stored_results(table.signature(), m, std::slice::from_ref(&position), stored)
                    .map_err(SliceError::Finished)?;
                let state = match stored[0] {
                    Some(Wld::Draw) => CANNOT_LOSE,
                    _ => self.first_state(&position, moves)?,
                };
                debug_assert!(state < PENDING || state == CANNOT_LOSE, "{}: pending without kings", position.fen());
                self.pair.values.put(t, m, &[state]).map_err(SliceError::Store)?;
                positions += 1;
            }
            // One unit initialised and one resolved a position, as a component's solve.
            progress(2 * positions);
            Ok(())
        })
    }

    /// Every node's first state from its moves: drawn in theory, won or lost through an
    /// exit, or pending with its quiet king moves counted.
    fn initialise(&self, nodes: &Nodes<'_, V>, progress: &(dyn Fn(u64) + Sync)) -> Result<(), PairError<O, V>> {
        let (kings, component) = (nodes.kings, nodes.component);
        let scratch = || (MoveList::new(), Vec::with_capacity(CHUNK), Vec::with_capacity(CHUNK));
        nodes.chunk_min.par_iter().enumerate().try_for_each_init(scratch, |(moves, positions, stored), (c, min)| {
            let mut lowest = NOTHING;
            let range = nodes.chunk_range(c);
            positions.clear();
            positions.extend(nodes.positions_in(range.clone()));
            // The theoretical results, a part (consecutive indices of one table) at a time.
            stored.clear();
            let mut local = range.start;
            while local < range.end {
                let part = local / kings;
                let end = range.end.min((part + 1) * kings);
                let (t, m) = component.parts()[part];
                let first = m * kings as u64 + (local - part * kings) as u64;
                let run = &positions[local - range.start..end - range.start];
                let table = self.pair.tables[t].signature();
                self.oracle.finished.stored_results(table, first, run, stored).map_err(SliceError::Finished)?;
                local = end;
            }
            for ((slot, position), result) in nodes.slots_in(range.clone()).zip(positions.iter()).zip(stored.iter()) {
                let state = match result {
                    Some(Wld::Draw) => CANNOT_LOSE,
                    _ if self.symmetry.as_ref().is_some_and(|s| !s.is_canonical(&position.square_sets())) => {
                        NOT_CANONICAL
                    }
                    _ => self.first_state(position, moves)?,
                };
                if state < PENDING {
                    lowest = lowest.min(state);
                }
                slot.store(state, Ordering::Relaxed);
            }
            min.store(lowest, Ordering::Release);
            progress(range.len() as u64);
            Ok::<_, PairError<O, V>>(())
        })
    }

    /// The first state of a node not drawn in theory, from its exits and its count of
    /// quiet king moves.
    fn first_state(&self, position: &Position, moves: &mut MoveList) -> Result<u16, PairError<O, V>> {
        let e = self.exits(position, moves)?;
        assert!(e.internal < 255, "{}: more than 254 king moves", position.fen());
        Ok(self.state_of(&e))
    }

    /// The first state of a node whose moves are `e`: decided through its exits where
    /// they decide it, else pending with its quiet king moves counted.
    fn state_of(&self, e: &Exits) -> u16 {
        match e.win.filter(|&w| w <= self.cap) {
            Some(w) => RuleScore::win(w).raw(),
            None if e.cannot_lose || e.loss > self.cap => CANNOT_LOSE,
            None if e.internal == 0 => RuleScore::loss(e.loss).raw(),
            None => PENDING | e.loss.min(EXIT_UNKNOWN) << 8 | e.internal,
        }
    }

    /// One ply of propagation: every node decided in `ply` passes its value to its
    /// parents. Returns the nodes resolved.
    fn propagate(
        &self,
        nodes: &Nodes<'_, V>,
        ply: u16,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<u64, PairError<O, V>> {
        let lower = |(local, slot): (usize, &AtomicU16), state: u16| {
            lower_in_chunk(slot, &nodes.chunk_min[local / CHUNK], state)
        };
        nodes
            .chunk_min
            .par_iter()
            .enumerate()
            .map_init(MoveList::new, |moves, (c, min)| {
                if min.load(Ordering::Acquire) >> 1 > ply {
                    return Ok(0);
                }
                min.swap(NOTHING, Ordering::AcqRel);
                let mut later = NOTHING;
                let mut resolved = 0u64;
                // The parents' slots lie all over the pair's values: gathered a batch
                // at a time with their cache lines fetched ahead (as in the
                // theoretical solver), so that the misses overlap.
                let mut batch: Vec<(usize, &AtomicU16)> = Vec::with_capacity(PARENT_BATCH + 64);
                let mut batch_won = false;
                let apply = |batch: &mut Vec<(usize, &AtomicU16)>, won: bool, moves: &mut MoveList| {
                    let mut failure = None;
                    for &(p, slot) in batch.iter() {
                        if !won {
                            lower((p, slot), RuleScore::win(ply + 1).raw());
                        } else if failure.is_none() {
                            failure = self
                                .count_won_child(slot, || nodes.position_of(p), ply, moves, |s| lower((p, slot), s))
                                .err();
                        }
                    }
                    batch.clear();
                    failure.map_or(Ok(()), Err)
                };
                for (local, slot) in nodes.chunk_range(c).zip(nodes.slots_in(nodes.chunk_range(c))) {
                    let state = slot.load(Ordering::Acquire);
                    if state >= PENDING || state >> 1 < ply {
                        continue;
                    }
                    if state >> 1 > ply {
                        later = later.min(state);
                        continue;
                    }
                    resolved += 1;
                    let won = state & 1 == 1;
                    if ply >= self.cap {
                        continue; // parents would be decided after the cap
                    }
                    // A batch holds the parents of wins only or of losses only.
                    if batch_won != won {
                        apply(&mut batch, batch_won, moves)?;
                        batch_won = won;
                    }
                    self.parents_into(nodes, local, &mut batch);
                    if batch.len() >= PARENT_BATCH {
                        apply(&mut batch, batch_won, moves)?;
                    }
                }
                apply(&mut batch, batch_won, moves)?;
                min.fetch_min(later, Ordering::AcqRel);
                progress(resolved);
                Ok(resolved)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))
    }

    /// Pushes onto `batch` the nodes of the quiet king moves into node `local` (its
    /// parents, in the component: they share its men) with their slots, fetched ahead.
    fn parents_into<'n>(&self, nodes: &'n Nodes<'_, V>, local: usize, batch: &mut Vec<(usize, &'n AtomicU16)>) {
        let kings = nodes.kings;
        let turned_back = nodes.position_of(local).flipped();
        if let Some(symmetry) = &self.symmetry {
            // As the theoretical pass by symmetry: each canonical parent as many times
            // as it has moves into the node's class; the parents' part found once.
            let node_images = symmetry.images(&nodes.position_of(local).square_sets());
            let distinct = KingSymmetry::distinct_images(&node_images);
            let child_images = KingSymmetry::flipped_images(&node_images);
            let part = self.local_of_sets(nodes, &child_images[0]) / kings;
            let (table, slots) = (&self.pair.tables[nodes.component.parts()[part].0], nodes.part_slots(part));
            turned_back.for_each_quiet_predecessor(Unmoves::KINGS, |_, step| {
                let images = symmetry.king_moved_back(&child_images, step.to.index(), step.from.index());
                let (canonical, moves) = KingSymmetry::canonical_and_moves(&images, distinct);
                if moves > 0 {
                    // Kings only: the index is the king rank, the part's own.
                    let rank = table.index_of_sets(&canonical) as usize;
                    debug_assert!(rank < kings, "no men: the index is the king rank");
                    let slot = &slots[rank];
                    prefetch(slot);
                    (0..moves).for_each(|_| batch.push((part * kings + rank, slot)));
                }
            });
            return;
        }
        // The parents share their men: one part, found once.
        let mut part_base: Option<(usize, usize, &[AtomicU16])> = None;
        let (mut ranks_for, mut ranks): (Option<Square>, OneKingMoved) = (None, OneKingMoved::EMPTY);
        turned_back.for_each_quiet_predecessor(Unmoves::KINGS, |parent, step| {
            // The mover is White.
            let (t, base, slots) = *part_base.get_or_insert_with(|| {
                let p = self.local_of(nodes, parent);
                (nodes.component.parts()[p / kings].0, p - p % kings, nodes.part_slots(p / kings))
            });
            let (from, to) = (step.from, step.to);
            if ranks_for != Some(to) {
                self.pair.tables[t].one_king_moved_into(parent, from, &mut ranks);
                ranks_for = Some(to);
            }
            let rank = ranks.king_rank(from) as usize;
            prefetch(&slots[rank]);
            batch.push((base + rank, &slots[rank]));
        });
    }

    /// The node of a position of the component (normalized, White to move).
    fn local_of(&self, nodes: &Nodes<'_, V>, normalized: &Position) -> usize {
        self.local_of_sets(nodes, &normalized.square_sets())
    }

    /// [`ComponentSolver::local_of`] of a position given by its square sets.
    fn local_of_sets(&self, nodes: &Nodes<'_, V>, sets: &SquareSets) -> usize {
        let kings = nodes.kings;
        let sig = Signature::of_sets(sets);
        let t = self.pair.tables.iter().position(|t| t.signature() == sig).expect("a quiet move keeps the material");
        let index = self.pair.tables[t].index_of_sets(sets);
        let part = nodes
            .component
            .parts()
            .iter()
            .position(|&(pt, pm)| pt == t && index / kings as u64 == pm)
            .expect("a king move keeps the men: same component");
        part * kings + (index % kings as u64) as usize
    }

    /// One more of the parent's king moves is known to lose (its child won in `ply`);
    /// when none is left, the parent is lost.
    fn count_won_child(
        &self,
        slot: &AtomicU16,
        parent: impl FnOnce() -> Position,
        ply: u16,
        moves: &mut MoveList,
        lower: impl Fn(u16),
    ) -> Result<(), PairError<O, V>> {
        let Some(exit_field) = count_down(slot) else { return Ok(()) };
        let exit_loss = match exit_field {
            EXIT_UNKNOWN => self.exits(&parent(), moves)?.loss,
            held => held,
        };
        let loss = (ply + 1).max(exit_loss);
        if loss <= self.cap {
            lower(RuleScore::loss(loss).raw());
        } else {
            slot.store(CANNOT_LOSE, Ordering::Release);
        }
        Ok(())
    }

    /// What the node's moves give: quiet king moves are counted, every other move is
    /// valued (afresh when it ends the count).
    fn exits(&self, position: &Position, moves: &mut MoveList) -> Result<Exits, PairError<O, V>> {
        let king_steps = position.legal_moves_counting_king_steps(moves);
        let mut e = Exits { internal: king_steps as u16, ..Exits::default() };
        for mv in moves.iter() {
            let child = position.play(mv);
            let child_value = if self.context.ends_with(&self.rules, mv, &child) {
                let fresh = Counters::fresh(&self.rules, &child);
                match exact_result(self.oracle, &child, &fresh)? {
                    Wld::Win => Some((Wld::Win, 0)),
                    Wld::Loss => Some((Wld::Loss, 0)),
                    Wld::Draw => None,
                }
            } else {
                self.oracle.counted(&child)?.capped(self.cap).decided()
            };
            match child_value {
                Some((Wld::Loss, d)) => {
                    e.cannot_lose = true;
                    e.win = Some(e.win.map_or(d + 1, |w| w.min(d + 1)));
                    if e.win == Some(1) {
                        // No win is quicker and the node is decided by it: the other
                        // moves need not be valued.
                        break;
                    }
                }
                Some((_, d)) => e.loss = e.loss.max(d + 1),
                None => e.cannot_lose = true,
            }
        }
        Ok(e)
    }
}
