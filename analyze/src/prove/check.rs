//! The checker, which shares nothing with the search: a proof that the solver wins
//! ([`check_proof`]) and a proof that it does not ([`check_disproof`]) replayed move by
//! move, every position's moves generated afresh and every leaf probed again.

use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Color, Move, Wld};

use super::{DisproofStep, DisproofTree, ProofStep, ProofTree};

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
                return Err(fault(format!("the tables say {solver_result} for the solver")));
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

/// Replays a proof that `solver` does not win, sharing nothing with the search: every
/// position's moves are generated afresh, each step's position and counts recomputed,
/// every move of the solver must be answered by a legal defence, and every leaf must be
/// a position where the solver has no move, a draw by the rules (a count run out, or
/// material that cannot win), or a table verdict that is no win for the solver.
pub fn check_disproof(tables: &Tablebase, solver: Color, tree: &DisproofTree) -> Result<(), ProofFault> {
    let fault = |problem: String| ProofFault { fen: tree.position.fen(), problem };
    let here = &tree.position;
    let legal = here.legal_moves();
    let follows = |mv: &Move, next: &DisproofTree| -> Result<(), ProofFault> {
        let child = here.play(mv);
        if next.position != child {
            return Err(fault(format!("after {} the disproof has another position", here.move_text(mv))));
        }
        if next.counters != tree.counters.after(mv, &child) {
            return Err(fault(format!("after {} the disproof has other counts", here.move_text(mv))));
        }
        check_disproof(tables, solver, next)
    };
    let drawn_here = || here.is_drawn_by_material() || matches!(tree.counters.governing(here), Some((_, 0)));
    match &tree.step {
        DisproofStep::SolverHasNoMove => {
            if here.turn() != solver || !legal.is_empty() {
                return Err(fault("not a position where the solver has no move".into()));
            }
        }
        DisproofStep::Drawn => {
            if legal.is_empty() || !drawn_here() {
                return Err(fault("not drawn here by the rules (no count has run out, the material can win)".into()));
            }
        }
        DisproofStep::Table(_) => {
            let verdict = tables.probe(here, &tree.counters).map_err(|e| fault(e.to_string()))?;
            let solver_result = if here.turn() == solver { verdict.exact } else { verdict.exact.for_opponent() };
            if solver_result == Wld::Win {
                return Err(fault("the tables say the solver wins".into()));
            }
        }
        DisproofStep::Defence(mv, next) => {
            if here.turn() == solver {
                return Err(fault("a defence where the solver is to move".into()));
            }
            if drawn_here() {
                return Err(fault("drawn here by the rules: the disproof should end".into()));
            }
            if !legal.iter().any(|m| m == mv) {
                return Err(fault(format!("{} is not a legal move", here.move_text(mv))));
            }
            follows(mv, next)?;
        }
        DisproofStep::Answers(answers) => {
            if here.turn() != solver {
                return Err(fault("answers where the defender is to move".into()));
            }
            if drawn_here() {
                return Err(fault("drawn here by the rules: the disproof should end".into()));
            }
            if answers.len() != legal.len() {
                return Err(fault(format!("{} moves of the solver answered of {} legal", answers.len(), legal.len())));
            }
            for mv in legal.iter() {
                let answered: Vec<&DisproofTree> = answers.iter().filter(|(m, _)| m == mv).map(|(_, t)| t).collect();
                match answered.as_slice() {
                    [next] => follows(mv, next)?,
                    _ => return Err(fault(format!("the move {} is not answered once", here.move_text(mv)))),
                }
            }
        }
    }
    Ok(())
}
