//! The search of every first move, the entry of the module: each searched on its own, in
//! parallel; every proof and disproof replayed by the checker ([`check_proof`],
//! [`check_disproof`]) before it is returned; the duals along a key's main line; and, for
//! a first move proved not to win, every defence to it, which tells a try (one defence
//! alone refutes it) from a move that fails to several.

use std::time::Instant;

use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Color, Counters, Move, Position};
use rayon::prelude::*;

use super::check::{check_disproof, check_proof};
use super::search::{search_after, LeafVerdicts};
use super::{
    Budget, Defences, DisproofStep, DisproofTree, Dual, FirstMove, Outcome, PositionProof, ProofStep, ProofTree,
    ProveError, Refutation,
};

/// The share of the budget each alternative of a main-line move gets in the dual search.
const DUAL_BUDGET_SHARE: usize = 20;

/// The duals along the main line of `tree` (the position after the first move, ply 1),
/// each alternative searched within a share of `budget`.
fn main_line_duals(
    (tables, leaves): (&Tablebase, &LeafVerdicts),
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
                let (outcome, _) = search_move((tables, leaves), solver, here, &node.counters, mv, &share, deadline)?;
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

/// Searches every first move of `position` with `counters` under `rules` for a win of
/// `solver` (the side to move, whose first moves are then candidate keys, or the other
/// side, whose win must then follow every first move), in parallel, each within
/// `budget`; every proof and disproof found is replayed by the checker before it is
/// returned. Each first move of the solver proved not to win has its every defence
/// searched (within a share of `budget`), which names the tries.
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
    let leaves = LeafVerdicts::new();
    let tables = (tables, &leaves);
    let moves: Vec<Move> = position.legal_moves().iter().copied().collect();
    let results: Vec<Result<FirstMove, ProveError>> = moves
        .par_iter()
        .map(|mv| {
            let (outcome, nodes) = search_move(tables, solver, position, counters, mv, &budget, deadline)?;
            let duals = match &outcome {
                Outcome::Win(tree) => main_line_duals(tables, solver, tree, &budget, deadline)?,
                _ => Vec::new(),
            };
            let defences = match &outcome {
                Outcome::NotWin(refutation) if solver == position.turn() => {
                    let after = position.play(mv);
                    let counts = counters.after(mv, &after);
                    Some(defences_to(tables, solver, (&after, &counts), refutation, &budget, deadline)?)
                }
                _ => None,
            };
            Ok(FirstMove { mv: *mv, text: position.move_text(mv), outcome, nodes, duals, defences })
        })
        .collect();
    let moves = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(PositionProof { position: *position, solver, counters: *counters, moves, budget, elapsed: started.elapsed() })
}

/// Searches the position after `mv` (the other side to move) for a win of `solver`;
/// returns the outcome, its proof or disproof replayed by the checker, and the nodes
/// created.
pub(super) fn search_move(
    (tables, leaves): (&Tablebase, &LeafVerdicts),
    solver: Color,
    position: &Position,
    counters: &Counters,
    mv: &Move,
    budget: &Budget,
    deadline: Option<Instant>,
) -> Result<(Outcome, usize), ProveError> {
    let (outcome, nodes) = search_after((tables, leaves), solver, position, counters, mv, budget.nodes, deadline)?;
    match &outcome {
        Outcome::Win(tree) => check_proof(tables, solver, tree).map_err(ProveError::CheckerRefused)?,
        Outcome::NotWin(r) => check_disproof(tables, solver, &r.disproof).map_err(ProveError::CheckerRefused)?,
        Outcome::Unresolved { .. } => {}
    }
    Ok((outcome, nodes))
}

/// Every defence in `after` (the position after a first move of the solver proved not to
/// win, with its counts), `found` being the refutation the first move's search found:
/// each other defence searched within a share of `budget` for the solver's win.
fn defences_to(
    tables: (&Tablebase, &LeafVerdicts),
    solver: Color,
    (after, counters): (&Position, &Counters),
    found: &Refutation,
    budget: &Budget,
    deadline: Option<Instant>,
) -> Result<Defences, ProveError> {
    let share = Budget { nodes: (budget.nodes / DUAL_BUDGET_SHARE).max(1), time: None };
    let found_defence = found.line.first().map(String::as_str);
    let searched: Vec<Result<(Move, Option<Outcome>), ProveError>> = after
        .legal_moves()
        .iter()
        .copied()
        .collect::<Vec<Move>>()
        .par_iter()
        .map(|defence| {
            if Some(after.move_text(defence).as_str()) == found_defence {
                return Ok((*defence, None));
            }
            let (outcome, _) = search_move(tables, solver, after, counters, defence, &share, deadline)?;
            Ok((*defence, Some(outcome)))
        })
        .collect();
    let mut defences = Defences::default();
    for result in searched {
        let (defence, outcome) = result?;
        let text = after.move_text(&defence);
        match outcome {
            None => defences.holding.push(found.clone()),
            // The solver's win after a defence is the defender's loss: it does not hold.
            Some(Outcome::Win(_)) => defences.losing.push(text),
            Some(Outcome::NotWin(r)) => {
                // Rooted where the defence is made, as the first move's own refutation.
                let disproof = DisproofTree {
                    position: *after,
                    counters: *counters,
                    step: DisproofStep::Defence(defence, Box::new(r.disproof)),
                };
                let line = std::iter::once(text).chain(r.line).collect();
                defences.holding.push(Refutation { line, end: r.end, disproof });
            }
            Some(Outcome::Unresolved { .. }) => defences.unresolved.push(text),
        }
    }
    Ok(defences)
}
