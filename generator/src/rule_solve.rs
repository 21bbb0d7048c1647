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
//! move, so a distance has no parity.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;

use kabe_probe::rules::exact::{verdict, Oracle};
use kabe_probe::rules::Context;
use kabe_probe::{
    Color, Counters, DrawRules, MaterialIndex, MoveList, PieceKind, Position, RuleScore, Score, Signature, Variant, Wld,
};
use rayon::prelude::*;

use crate::registry::Registry;

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

/// A table the values need is not there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no table for {0}")]
pub struct MissingTable(pub Signature);

/// Values from solved tables in memory (tests and checks; a build reads files through
/// [`crate::FileOracle`]).
pub struct MemoryOracle<'a> {
    /// Theoretical tables.
    pub theory: &'a Registry,
    /// Rule tables of other signatures.
    pub done: &'a RuleRegistry,
}

impl<'a> MemoryOracle<'a> {
    /// Values from finished tables only.
    pub fn new(theory: &'a Registry, done: &'a RuleRegistry) -> MemoryOracle<'a> {
        MemoryOracle { theory, done }
    }
}

impl Oracle for MemoryOracle<'_> {
    type Error = MissingTable;

    fn theoretical(&self, position: &Position) -> Result<Score, MissingTable> {
        self.theory.score(position).ok_or_else(|| MissingTable(Signature::of(position)))
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, MissingTable> {
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        if sig.white_men + sig.white_kings == 0 {
            return Ok(RuleScore::loss(0));
        }
        let table = self.done.table(sig).ok_or(MissingTable(sig))?;
        Ok(table.values[table.index.index(&normalized) as usize])
    }
}

/// Finished tables, and the components of the pair solved so far.
struct PairOracle<'a, O> {
    finished: &'a O,
    pair: &'a PairValues,
}

impl<O: Oracle> Oracle for PairOracle<'_, O> {
    type Error = O::Error;

    fn theoretical(&self, position: &Position) -> Result<Score, O::Error> {
        self.finished.theoretical(position)
    }

    fn counted(&self, position: &Position) -> Result<RuleScore, O::Error> {
        let normalized = position.normalized();
        let sig = Signature::of(&normalized);
        if let Some(t) = self.pair.tables.iter().position(|i| i.signature() == sig) {
            let raw = self.pair.values[t][self.pair.tables[t].index(&normalized) as usize].load(Ordering::Acquire);
            return Ok(RuleScore::from_raw(raw));
        }
        self.finished.counted(position)
    }
}

/// The pair being solved; a component reads the values of components solved before it.
struct PairValues {
    tables: Vec<MaterialIndex>,
    values: Vec<Vec<AtomicU16>>,
}

/// Bytes of working state per position of the component being solved: its value, move
/// count and exits, and its bucket entries (16 bytes each, often several per position).
/// Measured: the one component of kings-only 0501+0105 (190 M positions) peaked at
/// about 48 bytes per position.
pub const COMPONENT_BYTES_PER_POSITION: u64 = 56;

/// One placement of the men, in one or both tables of the pair.
struct Component {
    /// (table, men configuration) parts.
    parts: Vec<(usize, u64)>,
    advancement: u32,
}

/// How far the men of a position have advanced, in rows, both sides together. Every
/// man move adds one; the colour flip keeps it.
fn advancement(position: &Position) -> u32 {
    let variant = position.variant();
    let rows = variant.board.width() as u32;
    let per_row = rows / 2;
    let row = |number: u32| (number - 1) / per_row;
    let white: u32 = position.squares_of(Color::White, PieceKind::Man).map(|s| rows - 1 - row(s.number())).sum();
    let black: u32 = position.squares_of(Color::Black, PieceKind::Man).map(|s| row(s.number())).sum();
    white + black
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
    O: Oracle + Sync,
    O::Error: Send,
{
    let Some(context) = rules.context(signature) else { return Ok(None) };
    let mut tables = vec![MaterialIndex::new(variant, signature).expect("table-sized signature")];
    if signature.flipped() != signature {
        tables.push(MaterialIndex::new(variant, signature.flipped()).expect("table-sized signature"));
    }
    let values = tables.iter().map(|t| (0..t.len()).map(|_| AtomicU16::new(RuleScore::NONE.raw())).collect()).collect();
    let pair = PairValues { tables, values };

    let mut components = components(&pair.tables);
    components.sort_by_key(|c| std::cmp::Reverse(c.advancement));
    let oracle = PairOracle { finished, pair: &pair };
    let solver = ComponentSolver { rules, context, cap: context.max_plies(&rules), pair: &pair, oracle: &oracle };
    for group in components.chunk_by(|a, b| a.advancement == b.advancement) {
        group.par_iter().try_for_each(|c| solver.solve(c).map(|n| progress(2 * n)))?;
    }

    let PairValues { tables, values } = pair;
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

fn components(tables: &[MaterialIndex]) -> Vec<Component> {
    let kings = tables[0].king_placements();
    let mut out = Vec::new();
    for m in 0..tables[0].men_configurations() {
        let position = tables[0].position(m * kings);
        let flipped = position.flipped();
        let (t, mirror) = if tables.len() == 2 {
            (1, tables[1].index(&flipped) / kings)
        } else {
            (0, tables[0].index(&flipped) / kings)
        };
        let parts = match (t, mirror) {
            (0, mm) if mm < m => continue, // the same component, met first at `mm`
            (0, mm) if mm == m => vec![(0, m)],
            _ => vec![(0, m), (t, mirror)],
        };
        out.push(Component { parts, advancement: advancement(&position) });
    }
    out
}

struct ComponentSolver<'a, O> {
    rules: DrawRules,
    context: Context,
    cap: u16,
    pair: &'a PairValues,
    oracle: &'a PairOracle<'a, O>,
}

/// A node's moves that lead out of the component.
#[derive(Default, Clone, Copy)]
struct Exits {
    /// Some move wins (or cannot lose within the cap): never lost.
    cannot_lose: bool,
    /// Shortest win through an exit.
    win: Option<u16>,
    /// Longest loss through exits.
    loss: u16,
}

impl<O: Oracle> ComponentSolver<'_, O> {
    /// Solves one component; returns its number of positions.
    fn solve(&self, component: &Component) -> Result<u64, O::Error> {
        let kings = self.pair.tables[0].king_placements();
        let n = component.parts.len() * kings as usize;
        let global = |local: usize| {
            let (t, m) = component.parts[local / kings as usize];
            (t, m * kings + (local % kings as usize) as u64)
        };
        let local_of = |t: usize, index: u64| {
            let part = component.parts.iter().position(|&(pt, pm)| pt == t && index / kings == pm)?;
            Some(part * kings as usize + (index % kings) as usize)
        };

        let mut value = vec![RuleScore::NONE; n];
        let mut remaining = vec![0u16; n];
        let mut exits = vec![Exits::default(); n];
        let mut buckets: Vec<Vec<(usize, Wld)>> = vec![Vec::new(); self.cap as usize + 1];
        let mut moves = MoveList::new();
        for local in 0..n {
            let (t, index) = global(local);
            let position = self.pair.tables[t].position(index);
            position.legal_moves_into(&mut moves);
            let mut e = Exits::default();
            for mv in moves.iter() {
                if !mv.is_capture() && mv.piece() == PieceKind::King {
                    remaining[local] += 1;
                    continue;
                }
                let child = position.play(mv);
                let child_value = if self.context.ends_with(&self.rules, mv, &child) {
                    let fresh = Counters::fresh(&self.rules, &child);
                    let v = verdict(&self.rules, self.oracle, &child, &fresh)?;
                    match v.exact {
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
                    }
                    Some((_, d)) => e.loss = e.loss.max(d + 1),
                    None => e.cannot_lose = true,
                }
            }
            exits[local] = e;
            if let Some(w) = e.win.filter(|&w| w <= self.cap) {
                buckets[w as usize].push((local, Wld::Win));
            } else if moves.is_empty() {
                buckets[0].push((local, Wld::Loss));
            } else if remaining[local] == 0 && !e.cannot_lose && e.loss <= self.cap {
                buckets[e.loss as usize].push((local, Wld::Loss));
            }
        }

        for ply in 0..=self.cap {
            let bucket = std::mem::take(&mut buckets[ply as usize]);
            for (node, outcome) in bucket {
                if value[node] != RuleScore::NONE {
                    continue;
                }
                value[node] = if outcome == Wld::Win { RuleScore::win(ply) } else { RuleScore::loss(ply) };
                let (t, index) = global(node);
                let turned_back = self.pair.tables[t].position(index).flipped();
                for parent in turned_back.quiet_predecessors() {
                    if parent.mv.piece() != PieceKind::King {
                        continue;
                    }
                    let normalized = parent.position; // the mover is White
                    let pt = self.table_of(&normalized);
                    let p = local_of(pt, self.pair.tables[pt].index(&normalized))
                        .expect("a king move keeps the men: same component");
                    if value[p] != RuleScore::NONE || ply >= self.cap {
                        continue;
                    }
                    if outcome == Wld::Loss {
                        buckets[ply as usize + 1].push((p, Wld::Win));
                    } else {
                        remaining[p] -= 1;
                        let e = exits[p];
                        if remaining[p] == 0 && !e.cannot_lose {
                            let loss = (ply + 1).max(e.loss);
                            if loss <= self.cap {
                                buckets[loss as usize].push((p, Wld::Loss));
                            }
                        }
                    }
                }
            }
        }

        for (local, v) in value.into_iter().enumerate() {
            let (t, index) = global(local);
            self.pair.values[t][index as usize].store(v.raw(), Ordering::Release);
        }
        Ok(n as u64)
    }

    fn table_of(&self, normalized: &Position) -> usize {
        let sig = Signature::of(normalized);
        self.pair.tables.iter().position(|t| t.signature() == sig).expect("a quiet move keeps the material")
    }
}
