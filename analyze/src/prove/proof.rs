//! What a proof search finds: a proof tree for a win, a refutation for a move that does
//! not win, every first move with its outcome and duals, and the main line of a proof.

use std::time::Duration;

use kabe_probe::rules::exact::Verdict;
use kabe_probe::{Color, Counters, Move, Position, Signature};

use super::Budget;

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
        /// The materials the search met that the tables in use do not decide, of at
        /// most one piece more than they reach, most met first: the tables that would
        /// turn its open positions into leaves.
        beyond: Vec<BeyondTables>,
    },
}

/// A material an unresolved search met and the tables did not decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeyondTables {
    /// The pair of tables that would hold it, as `kabe generate --closure` takes it
    /// (`1122+2211`; one signature where a material is its own colour flip).
    pub material: String,
    /// Positions of it among the search's nodes.
    pub positions: usize,
}

impl BeyondTables {
    /// The materials of `positions` not decided by tables reaching `reach` pieces, of at
    /// most `reach + 1` pieces, counted and ordered most met first (then by name), at
    /// most `most` of them.
    pub(crate) fn count<'p>(positions: impl Iterator<Item = &'p Position>, most: usize) -> Vec<BeyondTables> {
        // Counted by signature and named once each: an unresolved search has up to a
        // budget's worth of open nodes, and naming each cost more than the search's end.
        let mut counts = std::collections::BTreeMap::<(Signature, Signature), usize>::new();
        for p in positions {
            let s = Signature::of(p);
            let pair = if s <= s.flipped() { (s, s.flipped()) } else { (s.flipped(), s) };
            *counts.entry(pair).or_default() += 1;
        }
        let mut out: Vec<BeyondTables> = counts
            .into_iter()
            .map(|((a, b), positions)| {
                let material = if a == b { a.to_string() } else { format!("{a}+{b}") };
                BeyondTables { material, positions }
            })
            .collect();
        out.sort_by(|x, y| y.positions.cmp(&x.positions).then_with(|| x.material.cmp(&y.material)));
        out.truncate(most);
        out
    }

    /// `1122+2211 (1,234 positions), 1113+1311 (56 positions)`, or "none".
    pub fn list(beyond: &[BeyondTables]) -> String {
        if beyond.is_empty() {
            return "none".to_string();
        }
        let each: Vec<String> = beyond
            .iter()
            .map(|b| format!("{} ({} position{})", b.material, b.positions, if b.positions == 1 { "" } else { "s" }))
            .collect();
        each.join(", ")
    }
}

impl Outcome {
    /// Whether it is a proved win.
    pub fn is_win(&self) -> bool {
        matches!(self, Outcome::Win(_))
    }
}

/// A defence that holds: the line of moves (defender first) to where the solver is
/// seen not to win, and why, with the whole disproof behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refutation {
    /// The moves of the line, as written.
    pub line: Vec<String>,
    /// How the line ends.
    pub end: String,
    /// The proof that the solver does not win, replayed by [`check_disproof`]: every move
    /// of the solver answered, every leaf a table value that is no win for the solver, a
    /// count run out, or the solver without a move.
    ///
    /// [`check_disproof`]: super::check_disproof
    pub disproof: DisproofTree,
}

/// A proof that the solver does not win from `position`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisproofTree {
    /// The position.
    pub position: Position,
    /// The counts in it.
    pub counters: Counters,
    /// What follows.
    pub step: DisproofStep,
}

/// How a disproof goes on from its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DisproofStep {
    /// The solver to move has no move (or no piece): the game is lost for it.
    SolverHasNoMove,
    /// Drawn by the rules here: a count run out, or material that cannot win.
    Drawn,
    /// Within the tables: their exact verdict is no win for the solver.
    Table(Verdict),
    /// The defender to move: the move that holds.
    Defence(Move, Box<DisproofTree>),
    /// The solver to move: every legal move, each with the defence that holds after it.
    Answers(Vec<(Move, DisproofTree)>),
}

impl DisproofTree {
    /// Positions in the disproof.
    pub fn size(&self) -> usize {
        1 + match &self.step {
            DisproofStep::Defence(_, next) => next.size(),
            DisproofStep::Answers(answers) => answers.iter().map(|(_, t)| t.size()).sum(),
            _ => 0,
        }
    }
}

/// For a first move of the solver proved not to win: every defence to it, each proved to
/// hold (a refutation), proved to lose, or neither within the search's share of the budget.
/// One refutation, every other defence proved to lose (at least one), make the first move
/// a *try*: the problem's false solution, which fails to that one defence alone. A move
/// that leaves the defender one legal move is refuted by a forced reply, no try.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Defences {
    /// Each defence that holds, with its refutation (its line starts with the defence).
    pub holding: Vec<Refutation>,
    /// Defences after which the solver wins (proved).
    pub losing: Vec<String>,
    /// Defences neither proved nor refuted within the budget.
    pub unresolved: Vec<String>,
}

impl Defences {
    /// Whether one defence alone refutes the first move (every other, one at least,
    /// proved to lose).
    pub fn is_try(&self) -> bool {
        self.holding.len() == 1 && self.unresolved.is_empty() && !self.losing.is_empty()
    }

    /// Whether the defender had one legal move, which refutes: a forced reply.
    pub fn forced(&self) -> bool {
        self.holding.len() == 1 && self.losing.is_empty() && self.unresolved.is_empty()
    }

    /// The defences that hold, as written.
    pub fn refuting(&self) -> Vec<&str> {
        self.holding.iter().filter_map(|r| r.line.first().map(String::as_str)).collect()
    }
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
                    let plies = v
                        .within
                        .decided()
                        .map_or(String::new(), |(_, p)| format!(" in {}", kabe_probe::notation::plies(p)));
                    let count = v.count.map_or(String::new(), |(a, left)| {
                        format!(", {a} with {} left", kabe_probe::notation::plies(left))
                    });
                    return format!(
                        "in the tables ({} pieces): {} for the side to move{plies}{count}",
                        at.position.piece_count(),
                        v.exact.word()
                    );
                }
            }
        }
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
    /// For a first move of the solver proved not to win: every defence to it, searched
    /// on its own (which refute it: one alone makes a try).
    pub defences: Option<Defences>,
}

impl FirstMove {
    /// Whether this first move is a try: proved not to win, refuted by one defence only.
    pub fn is_try(&self) -> bool {
        self.defences.as_ref().is_some_and(Defences::is_try)
    }
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

    /// The solver's first moves refuted by one defence alone: the problem's tries.
    pub fn tries(&self) -> impl Iterator<Item = &FirstMove> {
        self.moves.iter().filter(|m| self.solver_moves_first() && m.is_try())
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

#[cfg(test)]
mod tests {
    use super::*;
    use kabe_probe::Variant;

    /// Materials are named by their pair, whichever side is to move, counted together and
    /// listed most met first, then by name, at most as many as asked.
    #[test]
    fn materials_beyond_the_tables_are_named_by_their_pair_and_counted() {
        let white_to_move = Position::from_fen(Variant::INTERNATIONAL, "W:W28,K46:B19,23,K5").expect("fen");
        let black_to_move = Position::from_fen(Variant::INTERNATIONAL, "B:W28,K46:B19,23,K5").expect("fen");
        let kings = Position::from_fen(Variant::INTERNATIONAL, "W:WK46:BK5").expect("fen");
        let positions = [&white_to_move, &black_to_move, &kings, &white_to_move];
        let counted = BeyondTables::count(positions.into_iter(), 5);
        let names: Vec<(&str, usize)> = counted.iter().map(|b| (b.material.as_str(), b.positions)).collect();
        assert_eq!(names, [("1121+2111", 3), ("0101", 1)]);
        assert_eq!(BeyondTables::count(positions.into_iter(), 1).len(), 1);
        assert_eq!(BeyondTables::list(&counted), "1121+2111 (3 positions), 0101 (1 position)");
        assert_eq!(BeyondTables::list(&[]), "none");
    }
}
