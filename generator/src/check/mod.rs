//! Comparing the table-driven exact verdict with the brute force, everywhere.

//!
//! The brute force it compares with lives beside it and shares nothing with the table
//! path but move generation: `brute_rules` (every counter state of a material in memory)
//! and `brute_layers` (the same in bounded memory, one layer of material at a time).

pub mod brute_layers;
pub mod brute_rules;

use kabe_probe::internal::MaterialIndex;
use kabe_probe::rules::exact::{verdict, Oracle};
use kabe_probe::rules::MaterialCount;
use kabe_probe::{Counters, DrawRuleSet, DrawRules, Position, Signature, Variant};

use std::cell::RefCell;

use kabe_probe::{RuleScore, Score, Wld};

use crate::check::brute_layers::{LayerError, LayeredBrute};
use crate::check::brute_rules::{BruteForce, BruteRules, Clock};
use crate::finished::lookup::{AsOracle, Finished};

/// What one signature's comparison found.
#[derive(Debug, Clone, Default)]
pub struct RuleCheck {
    /// The signature.
    pub signature: Option<Signature>,
    /// Positions compared.
    pub positions: u64,
    /// (position, counters) states compared.
    pub states: u64,
    /// States where the two disagree.
    pub disagreements: u64,
    /// The first few: FEN, counters, table verdict, brute-force verdict.
    pub examples: Vec<String>,
}

/// The brute-force reading of a rule set, where it has one.
pub fn brute_rules(set: DrawRuleSet, variant: &Variant) -> Option<BruteRules> {
    match set {
        DrawRuleSet::Fmjd => Some(BruteRules::Fmjd { newer: true, art64_stands: false }),
        DrawRuleSet::Fmjd64Stands => Some(BruteRules::Fmjd { newer: true, art64_stands: true }),
        DrawRuleSet::Fmjd2000 => Some(BruteRules::Fmjd { newer: false, art64_stands: false }),
        DrawRuleSet::Ussr1953 | DrawRuleSet::Ussr1953CountEnds => Some(BruteRules::Ussr {
            kings: if variant.squares() == 50 { 4 } else { 3 },
            deadline_stands: set == DrawRuleSet::Ussr1953,
        }),
        DrawRuleSet::None => None,
    }
}

/// The same counts in the table path's terms.
fn counters_of(rules: &DrawRules, position: &Position, clock: Clock) -> Counters {
    let material = |article: &str, plies: u8| {
        let rule = rules.material.iter().position(|r| r.article == article).expect("the set has the article");
        Some(MaterialCount { rule, plies: plies as u16, strong: None })
    };
    let counters = match clock {
        Clock::KingsOnly(n) | Clock::Quiet(n) => Counters { set: rules.set, reset_plies: n as u16, material: None },
        Clock::Art63(n) => Counters { set: rules.set, reset_plies: 0, material: material("6.3", n) },
        Clock::Art64(n) => Counters { set: rules.set, reset_plies: 0, material: material("6.4", n) },
        // m moves of the strong side and as many of the other: the side to move now moved
        // first, which is what an even ply count means (the other order gives the same
        // plies left).
        Clock::StrongMoves(m, strong_to_move) => {
            let rule = rules.material.iter().position(|r| r.counts_strong_moves()).expect("the 1953 deadline");
            let strong = if strong_to_move { position.turn() } else { position.turn().opposite() };
            let count = MaterialCount { rule, plies: 2 * m as u16, strong: Some(strong) };
            Counters { set: rules.set, reset_plies: 0, material: Some(count) }
        }
    };
    // Every state the brute force holds is one the rules' own counters accept, but the
    // moment a strong-side deadline runs out (the game is drawn there, which both sides
    // of the comparison say; `Counters::new` refuses it as past its limit).
    debug_assert!(matches!(
        Counters::new(rules, position, counters.reset_plies, counters.material),
        Ok(_) | Err(kabe_probe::rules::CounterError::PastLimit { .. })
    ));
    counters
}

/// Compares every position of `signature` for every counter state. Runs the brute force
/// in `brute`, which keeps its values for the next signatures.
pub fn check_signature<O: Finished>(
    brute: &mut BruteForce,
    rules: &DrawRules,
    oracle: &O,
    variant: Variant,
    signature: Signature,
) -> Result<RuleCheck, O::Error> {
    let mut report = RuleCheck { signature: Some(signature), ..RuleCheck::default() };
    let Some(index) = MaterialIndex::new(variant, signature) else { return Ok(report) };
    for position in index.positions(0..index.len()) {
        report.positions += 1;
        for clock in brute.states_of(&position) {
            report.states += 1;
            let counters = counters_of(rules, &position, clock);
            let table = verdict(&AsOracle(oracle), &position, &counters)?.exact;
            let truth = brute.value(&position, clock);
            if table != truth {
                report.disagreements += 1;
                if report.examples.len() < 5 {
                    report.examples.push(format!(
                        "{} counters {} ({clock:?}): tables {table:?}, brute force {truth:?}",
                        position.fen(),
                        counters.describe(&variant)
                    ));
                }
            }
        }
    }
    brute.forget_moves();
    Ok(report)
}

/// An oracle that remembers the last position's values: the layered check asks for every
/// counter state of one position in a row.
struct LastPosition<'a, O> {
    inner: &'a O,
    theoretical: RefCell<Option<(Position, Score)>>,
    counted: RefCell<Option<(Position, RuleScore)>>,
}

/// The value remembered in `slot` for `position`, or `probe`'s, then remembered.
fn remembered<T: Copy, E>(
    slot: &RefCell<Option<(Position, T)>>,
    position: &Position,
    probe: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    if let Some((p, v)) = *slot.borrow()
        && p == *position
    {
        return Ok(v);
    }
    let v = probe()?;
    *slot.borrow_mut() = Some((*position, v));
    Ok(v)
}

impl<O: Finished> Oracle for LastPosition<'_, O> {
    type Error = O::Error;
    fn theoretical(&self, position: &Position) -> Result<Score, O::Error> {
        remembered(&self.theoretical, position, || self.inner.dtw(position))
    }
    fn counted(&self, position: &Position) -> Result<RuleScore, O::Error> {
        remembered(&self.counted, position, || self.inner.counted(position))
    }
}

/// Why a layered comparison stopped.
#[derive(Debug, thiserror::Error)]
pub enum LayeredCheckError<E> {
    /// The tables could not answer.
    #[error("{0}")]
    Tables(E),
    /// The layered solver cannot take the material.
    #[error(transparent)]
    Layers(#[from] LayerError),
}

/// Compares every position and counter state of `signature` and of its colour flip (one
/// pair of the layered brute force, which keeps what later pairs need).
pub fn check_pair_layered<O>(
    brute: &mut LayeredBrute,
    rules: &DrawRules,
    oracle: &O,
    signature: Signature,
) -> Result<Vec<RuleCheck>, LayeredCheckError<O::Error>>
where
    O: Finished,
{
    use rayon::prelude::*;
    let m = [(signature.white_men, signature.white_kings), (signature.black_men, signature.black_kings)];
    let pair = brute.solve(m)?;
    let mut reports = Vec::new();
    for (which, &mat) in pair.materials().iter().enumerate() {
        let sig = Signature::new(mat[0].0, mat[0].1, mat[1].0, mat[1].1);
        let parts: Vec<RuleCheck> = (0..pair.chunks(which))
            .into_par_iter()
            .map(|chunk| -> Result<RuleCheck, O::Error> {
                // Every counter state of one position in a row: one probe of each kind.
                let memo = LastPosition { inner: oracle, theoretical: RefCell::new(None), counted: RefCell::new(None) };
                let mut report = RuleCheck::default();
                let mut failure = None;
                pair.for_each_in(which, chunk, &mut |position, row| {
                    if failure.is_some() {
                        return;
                    }
                    report.positions += 1;
                    for &(clock, truth) in row {
                        report.states += 1;
                        let counters = counters_of(rules, position, clock);
                        let table: Wld = match verdict(&memo, position, &counters) {
                            Ok(v) => v.exact,
                            Err(e) => {
                                failure = Some(e);
                                return;
                            }
                        };
                        if table != truth {
                            report.disagreements += 1;
                            if report.examples.len() < 5 {
                                report.examples.push(format!(
                                    "{} counters {} ({clock:?}): tables {table:?}, brute force {truth:?}",
                                    position.fen(),
                                    counters.describe_at(position)
                                ));
                            }
                        }
                    }
                });
                failure.map_or(Ok(report), Err)
            })
            .collect::<Result<_, _>>()
            .map_err(LayeredCheckError::Tables)?;
        let mut report = RuleCheck { signature: Some(sig), ..RuleCheck::default() };
        for part in parts {
            report.positions += part.positions;
            report.states += part.states;
            report.disagreements += part.disagreements;
            report.examples.extend(part.examples.into_iter().take(5usize.saturating_sub(report.examples.len())));
        }
        reports.push(report);
    }
    Ok(reports)
}

/// Runs `f` on a thread with a stack deep enough for the brute force's recursion (one
/// frame per ply of the longest game the counts allow).
pub fn with_deep_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, f)
            .expect("spawning the brute-force thread")
            .join()
            .expect("the brute-force thread panicked")
    })
}
