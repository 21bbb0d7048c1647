//! A published solution followed through a search's proofs ([`check_solution`]): its key
//! must be proved, each solver's move must keep the win (a move the proof does not take
//! is searched), each defence is compared with the longest.

use kabe_probe::tablebase::Tablebase;
use kabe_probe::{Color, Move, Wld};

use super::first_moves::search_move;
use super::search::LeafVerdicts;
use super::{Budget, Outcome, PositionProof, ProofStep, ProofTree, ProveError};

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
    let mut check = SolutionCheck::default();
    let Some(first) = moves.first() else { return Ok(check) };
    if proof.solver_moves_first() {
        check.published_key = Some(start.move_text(first));
    }
    let Some(mut tree) = key_proof(proof, first, &mut check) else { return Ok(check) };
    check.key_proved = proof.wins() == Some(true);
    if !check.key_proved {
        check.faults.push("not every first move of the defender is proved to lose".to_string());
    }
    check.plies_checked = 1;
    let leaves = LeafVerdicts::new();
    let step = Step { tables, leaves: &leaves, solver: proof.solver, budget: &budget };
    for (ply, mv) in moves.iter().enumerate().skip(1) {
        let here = &tree.position;
        let at = format!("{} {}", crate::replay::move_number(start, ply), here.move_text(mv));
        if !here.legal_moves().iter().any(|m| m == mv) {
            check.faults.push(format!("{at}: not a legal move"));
            break;
        }
        let Some(next) = step.follow(&tree, mv, &at, &mut check)? else { break };
        check.plies_checked = ply + 1;
        tree = next;
    }
    Ok(check)
}

/// The proof after the published first move, or the fault that it has none.
fn key_proof(proof: &PositionProof, first: &Move, check: &mut SolutionCheck) -> Option<ProofTree> {
    let start = &proof.position;
    let at = format!("{} {}", crate::replay::move_number(start, 0), start.move_text(first));
    let fault = match proof.moves.iter().find(|m| m.mv == *first).map(|k| &k.outcome) {
        Some(Outcome::Win(t)) => return Some(t.clone()),
        Some(Outcome::NotWin(r)) => format!("{at}: not a win ({}; {})", r.line.join(" "), r.end),
        Some(Outcome::Unresolved { nodes, .. }) => format!("{at}: no win found within {nodes} nodes"),
        None => format!("{at}: not a legal move"),
    };
    check.faults.push(fault);
    None
}

/// What following a published move needs: the tables, the solver and the budget of a
/// search for a move the proof does not take.
struct Step<'a> {
    tables: &'a Tablebase,
    leaves: &'a LeafVerdicts,
    solver: Color,
    budget: &'a Budget,
}

impl Step<'_> {
    /// The proof after the published legal move `mv` (numbered `at`) from `tree`'s
    /// position, with a fault or remark noted in `check`; `None` where the win is lost
    /// or not confirmed.
    fn follow(
        &self,
        tree: &ProofTree,
        mv: &Move,
        at: &str,
        check: &mut SolutionCheck,
    ) -> Result<Option<ProofTree>, ProveError> {
        let (here, counters) = (&tree.position, &tree.counters);
        Ok(match &tree.step {
            ProofStep::Move(m, next) if m == mv => Some((**next).clone()),
            ProofStep::Move(m, _) => {
                let (outcome, nodes) =
                    search_move((self.tables, self.leaves), self.solver, here, counters, mv, self.budget, None)?;
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
                        "{at}: falls sooner than {} (the proof: {} against {longest})",
                        best.unwrap_or_default(),
                        kabe_probe::notation::plies(t.plies)
                    ));
                }
                Some(t.clone())
            }
            ProofStep::Table(_) | ProofStep::GameOver => {
                // Inside the tables: their exact verdict after the move decides.
                let child = here.play(mv);
                let after = counters.after(mv, &child);
                let v = self.tables.probe(&child, &after)?;
                let solver_result = if child.turn() == self.solver { v.exact } else { v.exact.for_opponent() };
                if solver_result != Wld::Win {
                    let side = if here.turn() == self.solver { "throws the win away" } else { "escapes" };
                    check.faults.push(format!("{at}: {side} (the tables: {} for the solver)", solver_result.word()));
                    None
                } else {
                    let plies = v.within.decided().map_or(0, |(_, p)| p);
                    Some(ProofTree { position: child, counters: after, plies, step: ProofStep::Table(v) })
                }
            }
        })
    }
}
