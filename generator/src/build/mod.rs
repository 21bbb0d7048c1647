//! Building a table directory: every signature up to N pieces in dependency order,
//! resuming from the complete tables already there.

//!
//! - `budget`: the memory a build may use, `plan`: the same build as a job graph for a
//!   cluster, `lock`: one build at a time in a table folder;
//! - this module: build order, batches within the budget, resumption and repair, one
//!   loop for the theoretical and the rule passes ([`build_scope`], [`build_rules_scope`])
//!   and one pair as a job ([`build_pair_job`]);
//! - `write`: table files out, whole or never; `one_side`: of each pair's two files of a
//!   kind the smaller kept.

pub mod budget;
mod error;
pub mod lock;
pub mod one_side;
pub mod plan;
pub mod plan_report;
pub mod slurm;
pub mod write;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kabe_probe::internal::table::TableDir;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{Metric, TableError, TableFile};
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{DrawRules, Signature, Variant};
use rayon::prelude::*;

use crate::build::budget::MemoryBudget;
pub use crate::build::error::BuildError;
use crate::build::write::{write_rule_table, write_tables};
use crate::finished::results::{remove_results, results_path, write_results, PairResults, WithResults};
use crate::finished::working::{tables_read, Working, WorkingSet};
use crate::pair::TablePair;
use crate::solve::checkpoint::{remove_checkpoint, Checkpoint, CheckpointEvent, PassStage, CHECKPOINT_EVERY};
use crate::solve::rules::{solve_rule_pair_on_disk, solve_rule_pair_resumable};
use crate::solve::slices::FileStore;
use crate::solve::whole::solve_pair_resumable;
use crate::solve::whole::PairPass;
use crate::solve::whole::SliceError;

/// What a build covered.
#[derive(Clone, Debug, Default)]
pub struct BuildSummary {
    /// Every signature of the set, built now or found complete.
    pub signatures: Vec<Signature>,
    /// Their positions.
    pub positions: u64,
}

/// What the build reports as it goes.
#[derive(Debug, Clone, Copy)]
pub enum BuildEvent<'a> {
    /// The build will cover this many positions in all.
    Planned {
        /// Every position of every table.
        positions: u64,
    },
    /// A pair of tables (a signature and its colour flip) starts.
    Started {
        /// The pair.
        pair: TablePair,
        /// Their positions together.
        positions: u64,
    },
    /// Work done on a pair: `units` more of its `2 * positions` (initialise, resolve).
    Progress {
        /// The pair.
        pair: TablePair,
        /// Units just done.
        units: u64,
    },
    /// A pair found on disk in part, or with a file that cannot be used, is built again
    /// (the files it writes replace the others).
    Repairing {
        /// The pair.
        pair: TablePair,
        /// The first file found missing or damaged, and what is wrong with it.
        problem: &'a TableError,
    },
    /// A pair was found complete on disk and loaded.
    Loaded {
        /// The pair.
        pair: TablePair,
        /// Their positions together.
        positions: u64,
    },
    /// A pass of a pair resumed from its checkpoint, or could not write one.
    Checkpoint {
        /// The pair.
        pair: TablePair,
        /// What happened.
        event: CheckpointEvent<'a>,
    },
    /// A pair was solved and written.
    Finished {
        /// The pair.
        pair: TablePair,
        /// Their positions together.
        positions: u64,
    },
}

/// The path of a table under `dir`.
pub fn table_path(dir: &Path, variant: &Variant, signature: Signature, metric: Metric) -> PathBuf {
    TableDir::new(dir).path(variant, signature, metric)
}

/// Builds (or completes) every table of 2 to `max_pieces` pieces of `variant` under `dir`,
/// WLD and DTW, within the default memory budget ([`MemoryBudget::default`]). Pairs whose
/// tables are all present are checked and kept, not rebuilt.
pub fn build(
    variant: Variant,
    max_pieces: u32,
    dir: &Path,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<BuildSummary, BuildError> {
    build_scope(variant, Scope::Pieces(max_pieces), dir, MemoryBudget::default(), DrawRules::NONE, on_event)
}

/// Which tables to build: every material up to a number of pieces, or only what one
/// material needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every signature of 2 to N pieces.
    Pieces(u32),
    /// One signature, with everything its positions can reach by captures and
    /// promotions, with the colour flips: 1 king against 3 reaches 1 against 2 and 1
    /// against 1, not 2 against 2 nor any table with men. A study of 5 pieces needs a few
    /// of the 2-5 tables, not all.
    Closure(Signature),
}

impl Scope {
    /// The largest number of pieces built.
    pub fn max_pieces(self) -> u32 {
        match self {
            Scope::Pieces(n) => n,
            Scope::Closure(sig) => sig.pieces(),
        }
    }

    /// Whether `sig` is built.
    pub fn contains(self, sig: Signature) -> bool {
        match self {
            Scope::Pieces(n) => sig.pieces() <= n,
            Scope::Closure(root) => reaches(root, sig) || reaches(root.flipped(), sig),
        }
    }
}

/// Whether the positions of `from` (White to move) can come to those of `to` (White to
/// move) by moves of either side: neither side gains men (a man is only captured or
/// crowned) nor pieces (a crowned man stays a piece). Read with the colours exchanged,
/// that is the flips' relation too, so the tables a pair reaches are those its first
/// signature and its flip reach.
fn reaches(from: Signature, to: Signature) -> bool {
    let within =
        |men: u8, kings: u8, from_men: u8, from_kings: u8| men <= from_men && men + kings <= from_men + from_kings;
    within(to.white_men, to.white_kings, from.white_men, from.white_kings)
        && within(to.black_men, to.black_kings, from.black_men, from.black_kings)
}

/// As [`build`], for the signatures of `scope` only, within `budget`. The tables already
/// finished are read in their working form ([`WorkingSet`]); the pairs of one step (same
/// pieces and men) run in parallel as far as their working state fits the rest of the
/// budget together. `then_rules`: the rule tables [`build_rules_scope`] builds next
/// ([`DrawRules::NONE`]: none), for whose pairs the pass leaves every position's result
/// (`crate::finished::results`).
pub fn build_scope(
    variant: Variant,
    scope: Scope,
    dir: &Path,
    budget: MemoryBudget,
    then_rules: DrawRules,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<BuildSummary, BuildError> {
    run_pass(Pass::Theory { then_rules }, variant, scope, dir, budget, on_event)
}

/// One pass of a build: the theoretical tables (WLD and DTW) of every pair, or the rule
/// tables of one set for the pairs that keep one. Both passes run the same loop
/// ([`run_pass`]) and build a pair the same way ([`build_pair`]); they differ in what
/// they write and read.
#[derive(Clone, Copy)]
enum Pass {
    /// The theoretical tables, leaving their results for the rule pass of `then_rules`
    /// where it follows.
    Theory {
        then_rules: DrawRules,
    },
    Rules(DrawRules),
}

impl Pass {
    /// The rules under which the pass reads its inputs: none for theory.
    fn rules(self) -> DrawRules {
        match self {
            Pass::Theory { .. } => DrawRules::NONE,
            Pass::Rules(rules) => rules,
        }
    }

    /// The kinds of file the pass writes for each table.
    fn metrics(self) -> Vec<Metric> {
        match self {
            Pass::Theory { .. } => vec![Metric::Wld, Metric::Dtw],
            Pass::Rules(rules) => vec![Metric::Rules(rules.set)],
        }
    }

    /// Whether the pass writes tables for `pair` (a rule pass only where the material
    /// keeps a count, [`DrawRules::context`]).
    fn covers(self, pair: &TablePair) -> bool {
        match self {
            Pass::Theory { .. } => true,
            Pass::Rules(rules) => rules.context(pair[0]).is_some(),
        }
    }

    /// Whether the pass leaves `pair`'s results for a rule pass that follows.
    fn leaves_results(self, pair: &TablePair) -> bool {
        matches!(self, Pass::Theory { then_rules } if then_rules.context(pair[0]).is_some())
    }

    /// The name in a pair's slice files, so that one pass's files are never taken for
    /// the other's.
    fn slice_name(self) -> &'static str {
        match self {
            Pass::Theory { .. } => "theory",
            Pass::Rules(_) => "rules",
        }
    }
}

/// A pass over the steps of `scope`, in order: a step whose pairs are all on disk is
/// kept; otherwise the tables its pairs read are held in their working form and its
/// pairs are built in batches that fit the budget.
fn run_pass(
    pass: Pass,
    variant: Variant,
    scope: Scope,
    dir: &Path,
    budget: MemoryBudget,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<BuildSummary, BuildError> {
    check_variant_folder(dir, &variant)?;
    let steps: Vec<Vec<TablePair>> = scoped_steps(scope)
        .into_iter()
        .map(|step| step.into_iter().filter(|pair| pass.covers(pair)).collect::<Vec<_>>())
        .filter(|step| !step.is_empty())
        .collect();
    let summary = summary(variant, &steps);
    // A set found complete is only read: no lock, nothing opened for writing (a set on
    // read-only media, or one another build reads, "builds" again at once).
    if steps
        .iter()
        .try_fold(true, |all, step| Ok::<_, BuildError>(all && all_complete(dir, &variant, step, &pass.metrics())?))?
    {
        on_event(BuildEvent::Planned { positions: summary.positions });
        for pair in steps.iter().flatten() {
            if let Pass::Rules(_) = pass {
                remove_results(dir, &variant, pair);
            }
            on_event(BuildEvent::Loaded { pair: *pair, positions: positions_of(variant, pair) });
        }
        return Ok(summary);
    }
    let _lock = crate::BuildLock::exclusive(dir, &variant)?;
    let cost = |pair: &TablePair| pair_state_bytes(variant, pair, budget).0;
    // Every pair must fit before any work starts, not after hours of it.
    for step in &steps {
        batches(step, cost, budget.pair_bytes(), budget)?;
    }
    on_event(BuildEvent::Planned { positions: summary.positions });
    let mut working = WorkingSet::new(variant, pass.rules());
    for (k, step) in steps.iter().enumerate() {
        if all_complete(dir, &variant, step, &pass.metrics())? {
            for pair in step {
                // Left by a theory pass that repaired a pair whose rule tables were whole.
                if let Pass::Rules(_) = pass {
                    remove_results(dir, &variant, pair);
                }
                on_event(BuildEvent::Loaded { pair: *pair, positions: positions_of(variant, pair) });
            }
            continue;
        }
        let finished = open_finished(dir, variant, pass, budget)?;
        let searched = |sig| working.searched_whole(dir, sig);
        let now = tables_read(variant, step, searched);
        let later: BTreeSet<Signature> = tables_read(variant, &steps[k + 1..].concat(), searched).into_iter().collect();
        let available = hold_inputs(&mut working, dir, (&now, &later), step, &cost, budget)?;
        let view = working.view(&finished);
        for batch in batches(step, cost, available, budget)? {
            batch.par_iter().try_for_each(|pair| build_pair(pass, &view, variant, dir, pair, budget, on_event))?;
        }
    }
    Ok(summary)
}

/// Refuses a table folder that is another game's ([`crate::files::check_variant_folder`]),
/// before anything is read or written.
fn check_variant_folder(dir: &Path, variant: &Variant) -> Result<(), BuildError> {
    crate::files::check_variant_folder(dir, variant)
        .map_err(|source| BuildError::Write { path: dir.join(variant.name), source })
}

/// Whether every pair of `step` is on disk, whole.
fn all_complete(dir: &Path, variant: &Variant, step: &[TablePair], metrics: &[Metric]) -> Result<bool, BuildError> {
    for pair in step {
        if !pair_complete(dir, variant, pair, metrics)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Holds in `working` the tables `now` a step reads, arranged in [`tables_read`]'s order
/// (those its pairs read first, then those these are searched through) within what the
/// budget leaves beside the step's largest pair ([`WorkingSet::arrange`]); lets go of
/// the tables no step reads any more (`later`: what the steps after it read), and of
/// those held for later steps where this step's tables would not fit whole beside them.
/// Returns the bytes left for the pairs' working state: the budget less what the held
/// tables may grow to.
fn hold_inputs(
    working: &mut WorkingSet,
    dir: &Path,
    (now, later): (&[Signature], &BTreeSet<Signature>),
    step: &[TablePair],
    cost: &impl Fn(&TablePair) -> u64,
    budget: MemoryBudget,
) -> Result<u64, BuildError> {
    for sig in working.tables() {
        if !now.contains(&sig) && !later.contains(&sig) {
            working.release(sig);
        }
    }
    let allowance = budget.pair_bytes().saturating_sub(step.iter().map(cost).max().unwrap_or(0));
    let new: u64 = now.iter().filter(|s| !working.holds(**s)).map(|s| working.table_bytes(*s)).sum();
    if working.bytes() + new > allowance {
        for held in working.tables().into_iter().filter(|s| !now.contains(s)) {
            working.release(held);
        }
    }
    for &sig in now {
        working.load(dir, sig)?;
    }
    working.arrange(now, allowance);
    let whole: u64 = working.tables().into_iter().map(|s| working.table_bytes(s)).sum();
    let most = allowance.min(whole);
    Ok(budget.pair_bytes().saturating_sub(most))
}

/// Bytes of the cache through which a pair solved in slices reads its solved men
/// placements back: what the `at_once` components solved side by side read
/// ([`placement_reads`]), so that none is read twice while they are solved.
fn slice_store_cache(variant: Variant, pair: &TablePair, at_once: u64) -> u64 {
    at_once * placement_reads(pair) * 2 * king_placements(variant, pair)
}

/// The most men placements one component reads back: a component has a part in each
/// table (the placement and its colour flip), and in each part a man of the side to move
/// steps to one of two squares, another placement of the other table.
fn placement_reads(pair: &TablePair) -> u64 {
    2 * pair[0].men() as u64
}

fn king_placements(variant: Variant, pair: &TablePair) -> u64 {
    MaterialIndex::new(variant, pair[0]).map_or(0, |i| i.king_placements())
}

/// Working state of a pair's solve (theory or rule tables alike), and whether it is
/// solved in slices: the whole pair in memory (two bytes and a bit per position,
/// [`crate::solve::whole::whole_state_bytes`], or the rule pass's [`rule_pair_bytes`]
/// where that is more) when that fits the budget, the faster way; else one men placement
/// at a time (`slices`).
pub(crate) fn pair_state_bytes(variant: Variant, pair: &TablePair, budget: MemoryBudget) -> (u64, bool) {
    pair_state_bytes_on(variant, pair, budget, rayon::current_num_threads())
}

/// [`pair_state_bytes`] on `threads` workers.
pub(crate) fn pair_state_bytes_on(
    variant: Variant,
    pair: &TablePair,
    budget: MemoryBudget,
    threads: usize,
) -> (u64, bool) {
    let mut whole =
        crate::solve::whole::whole_state_bytes(positions_of(variant, pair)).max(rule_pair_bytes(variant, pair));
    // Solved bit-parallel where that fits ([`by_words`]).
    if by_words(variant, pair, budget) {
        whole = whole.max(crate::solve::king_words::working_bytes(variant, pair[0]));
    }
    if whole <= budget.pair_bytes() {
        return (whole, false);
    }
    let at_once = components_at_once(variant, pair, budget, threads);
    match sliced_state_bytes(variant, pair, at_once) {
        Some(sliced) if sliced < whole => (sliced, true),
        _ => (whole, false),
    }
}

/// Whether a pair's theory and rule tables are solved bit-parallel
/// (`crate::solve::king_words`): one king against kings, where that pass's words fit the
/// budget beside the pair's scores; a pair with men where a side has one king, where
/// they fit beside the tables its theory reads as well (the pass holds about three bytes
/// a position where the plain one holds two: pushing those tables out to the block cache
/// would cost more than it saves).
pub(crate) fn by_words(variant: Variant, pair: &TablePair, budget: MemoryBudget) -> bool {
    use crate::solve::king_words::{pays_off, working_bytes};
    if !pays_off(&variant, pair[0]) {
        return false;
    }
    let words = working_bytes(variant, pair[0]);
    if pair[0].men() == 0 {
        return words <= budget.pair_bytes();
    }
    let theory_reads = pair.inputs(variant, &DrawRules::new(kabe_probe::DrawRuleSet::None, &variant));
    words + held_input_bytes(variant, &theory_reads) <= budget.pair_bytes()
}

/// How many men placements (components) of a pair solved in slices are solved side by
/// side: as many as there are `threads`, at most as many as the budget holds (each
/// placement's pass uses every thread, so fewer at once costs little time and more
/// threads need no more memory), at least one.
pub(crate) fn components_at_once(variant: Variant, pair: &TablePair, budget: MemoryBudget, threads: usize) -> u64 {
    let list = crate::solve::components::component_list_bytes(&pair_indexes(variant, pair));
    let fit = budget.pair_bytes().saturating_sub(list) / component_bytes(variant, pair).max(1);
    fit.clamp(1, threads.max(1) as u64)
}

/// Working bytes of one men placement of both tables of a pair: its state, its values
/// and the bytes written, six bytes a position.
fn placement_bytes(variant: Variant, pair: &TablePair) -> u64 {
    6 * king_placements(variant, pair) * pair.len() as u64
}

/// Working bytes of one component solved: its placements ([`placement_bytes`]) and those
/// it reads back ([`slice_store_cache`]).
fn component_bytes(variant: Variant, pair: &TablePair) -> u64 {
    placement_bytes(variant, pair) + slice_store_cache(variant, pair, 1)
}

/// Working state of a pair solved one men placement at a time, `at_once` placements side
/// by side ([`components_at_once`]), each holding one placement of both tables and those
/// it reads back ([`component_bytes`]), and the list of placements. `None` where the men
/// cannot be sliced: men that step sideways (Turkish) can come back, so their placements
/// have no order to solve them in.
pub(crate) fn sliced_state_bytes(variant: Variant, pair: &TablePair, at_once: u64) -> Option<u64> {
    if variant.board.is_orthogonal() {
        return None;
    }
    let list = crate::solve::components::component_list_bytes(&pair_indexes(variant, pair));
    Some(component_bytes(variant, pair) * at_once + list)
}

fn summary(variant: Variant, steps: &[Vec<TablePair>]) -> BuildSummary {
    let signatures: Vec<Signature> = steps.iter().flatten().flatten().copied().collect();
    let positions = signatures.iter().map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len())).sum();
    BuildSummary { signatures, positions }
}

/// Bytes of `inputs` held decoded in a build's working set (`WorkingSet::table_bytes`):
/// two a position for a DTW table, one for a rule table. A build holds them where its
/// budget leaves room beside the pair's state, and reads the rest through its block
/// cache, several times slower.
pub(crate) fn held_input_bytes(variant: Variant, inputs: &[crate::pair::TableId]) -> u64 {
    inputs
        .iter()
        .map(|&(sig, metric)| {
            let per = match metric {
                Metric::Dtw => 2,
                Metric::Rules(_) => 1,
                _ => 0,
            };
            per * positions_of(variant, &[sig])
        })
        .sum()
}

pub(crate) fn positions_of(variant: Variant, signatures: &[Signature]) -> u64 {
    signatures.iter().map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len())).sum()
}

/// The tables finished so far, read through the files (opened afresh for each step, so
/// that it sees the step before).
fn open_finished(dir: &Path, variant: Variant, pass: Pass, budget: MemoryBudget) -> Result<Tablebase, BuildError> {
    std::fs::create_dir_all(dir.join(variant.name))
        .map_err(|source| BuildError::Write { path: dir.join(variant.name), source })?;
    let mut builder = Tablebase::builder(dir).variants(&[variant]).cache_bytes(budget.cache_bytes());
    if let Pass::Rules(rules) = pass {
        builder = builder.rules(rules.set);
    }
    Ok(builder.open()?)
}

/// The pairs of one step in batches whose working state fits `available` bytes of the
/// budget together; an error names a pair that does not fit alone.
fn batches(
    step: &[TablePair],
    cost: impl Fn(&TablePair) -> u64,
    available: u64,
    budget: MemoryBudget,
) -> Result<Vec<Vec<&TablePair>>, BuildError> {
    let mut out: Vec<(u64, Vec<&TablePair>)> = Vec::new();
    for pair in step {
        let needed = cost(pair);
        if needed > available {
            return Err(BuildError::Memory { pair: pair.to_string(), needed, available, budget: budget.bytes });
        }
        match out.iter_mut().find(|(used, _)| used + needed <= available) {
            Some((used, batch)) => {
                *used += needed;
                batch.push(pair);
            }
            None => out.push((needed, vec![pair])),
        }
    }
    Ok(out.into_iter().map(|(_, b)| b).collect())
}

/// The steps of `scope`: pairs with a signature outside it are left out.
pub(crate) fn scoped_steps(scope: Scope) -> Vec<Vec<TablePair>> {
    build_steps(scope.max_pieces())
        .into_iter()
        .map(|step| step.into_iter().filter(|pair| pair.iter().any(|s| scope.contains(*s))).collect::<Vec<_>>())
        .filter(|step| !step.is_empty())
        .collect()
}

/// Steps of pairs: a step's pairs depend only on earlier steps.
fn build_steps(max_pieces: u32) -> Vec<Vec<TablePair>> {
    let mut steps: Vec<Vec<TablePair>> = Vec::new();
    let mut key = None;
    for pieces in 2..=max_pieces {
        for sig in Signature::all_with(pieces) {
            if sig.flipped() < sig {
                continue; // built with its flip
            }
            if key != Some((pieces, sig.men())) {
                steps.push(Vec::new());
                key = Some((pieces, sig.men()));
            }
            steps.last_mut().expect("pushed").push(TablePair::of(sig));
        }
    }
    steps
}

/// Builds one pair's tables of `pass`, unless they are on disk whole (a damaged or
/// partial pair is built again): in memory when its working state fits the budget, else
/// one men placement at a time ([`build_in_slices`]).
fn build_pair(
    pass: Pass,
    finished: &Working<'_>,
    variant: Variant,
    dir: &Path,
    pair: &TablePair,
    budget: MemoryBudget,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<(), BuildError> {
    let positions = positions_of(variant, pair);
    let metrics = pass.metrics();
    match pair_on_disk(dir, &variant, pair, &metrics) {
        PairOnDisk::Complete => {
            // A run stopped between writing the tables and removing the checkpoint.
            remove_checkpoint(&checkpoint_path(dir, variant, pair, pass));
            if let Pass::Rules(_) = pass {
                remove_results(dir, &variant, pair);
            }
            on_event(BuildEvent::Loaded { pair: *pair, positions });
            return Ok(());
        }
        PairOnDisk::Broken(problem) => on_event(BuildEvent::Repairing { pair: *pair, problem: &problem }),
        PairOnDisk::NotOurs(e) => return Err(e.into()),
        PairOnDisk::Absent => {}
    }
    on_event(BuildEvent::Started { pair: *pair, positions });
    let progress = |units| on_event(BuildEvent::Progress { pair: *pair, units });
    let sliced = pair_state_bytes(variant, pair, budget).1;
    match pass {
        // Solved one men placement at a time, a pair leaves no results: the rule pass
        // reads its files.
        Pass::Theory { .. } if sliced => build_in_slices(variant, dir, pair, budget, pass, |tables, store| {
            crate::solve::slices::solve_pair_sliced(finished, tables, store, &progress).map(|()| true)
        })?,
        Pass::Rules(rules) if sliced => build_in_slices(variant, dir, pair, budget, pass, |_, store| {
            let inputs = WithResults { finished, results: open_results(dir, variant, pair) };
            solve_rule_pair_on_disk(&inputs, rules, variant, pair[0], store, &progress)
        })?,
        Pass::Theory { .. } => {
            let checkpoint = pass_checkpoint(dir, variant, pair, pass, on_event);
            // Each table let go once written: the second is written beside the first's
            // memory given back.
            // It keeps no checkpoint: a run stopped inside it solves the pair again.
            let tables = if by_words(variant, pair, budget) {
                crate::solve::king_words::solve(finished, variant, pair[0], &progress)?
            } else {
                solve_pair_resumable(finished, variant, pair[0], &checkpoint, &progress)?
            };
            for table in tables {
                let sig = table.index.signature();
                let write_error =
                    |source| BuildError::Write { path: table_path(dir, &variant, sig, Metric::Dtw), source };
                write_tables(dir, variant.name, &table, &metrics).map_err(write_error)?;
                if pass.leaves_results(pair) {
                    write_results(dir, &variant, &table, dtw_checksum(dir, variant, sig)?)
                        .map_err(|source| BuildError::Write { path: results_path(dir, &variant, sig), source })?;
                }
            }
        }
        Pass::Rules(rules) => {
            let checkpoint = pass_checkpoint(dir, variant, pair, pass, on_event);
            let inputs = WithResults { finished, results: open_results(dir, variant, pair) };
            let drawn = inputs.results.as_ref().map(PairResults::drawn_share);
            let words = by_words(variant, pair, budget) && crate::solve::king_words::rules_pay_off(pair[0], drawn);
            let by = if words { PairPass::KingWords } else { PairPass::Fastest };
            let tables = solve_rule_pair_resumable(&inputs, rules, variant, pair[0], &checkpoint, by, &progress)?;
            for table in &tables.unwrap_or_default() {
                let captures = inputs.results.as_ref().and_then(|r| r.captures(table.index.signature()));
                let captures = captures.as_ref().map(|f| f as &(dyn Fn(u64) -> bool + Sync));
                write_rule_table(dir, variant.name, table, rules.set, captures).map_err(|source| {
                    BuildError::Write { path: table_path(dir, &variant, table.index.signature(), metrics[0]), source }
                })?;
            }
        }
    }
    if let Pass::Rules(_) = pass {
        remove_results(dir, &variant, pair);
    }
    // Also one an earlier run with a larger budget left, where this one solved in slices.
    remove_checkpoint(&checkpoint_path(dir, variant, pair, pass));
    on_event(BuildEvent::Finished { pair: *pair, positions });
    Ok(())
}

/// The results the theory pass left for `pair`, where they are whole and were written
/// beside its DTW files as they are now.
fn open_results(dir: &Path, variant: Variant, pair: &TablePair) -> Option<PairResults> {
    PairResults::open(dir, &variant, pair, |sig| dtw_checksum(dir, variant, sig).ok())
}

/// The header checksum of `sig`'s DTW file under `dir`: what a results file is tied to.
fn dtw_checksum(dir: &Path, variant: Variant, sig: Signature) -> Result<u64, TableError> {
    let file = TableFile::open(&table_path(dir, &variant, sig, Metric::Dtw), &variant, sig, Metric::Dtw)?;
    Ok(file.header().checksum)
}

/// The checkpoint of `pass` of a pair solved in memory ([`checkpoint_path`]), written
/// every [`CHECKPOINT_EVERY`] (`crate::solve::checkpoint`).
fn pass_checkpoint<'a>(
    dir: &Path,
    variant: Variant,
    pair: &'a TablePair,
    pass: Pass,
    on_event: &'a (dyn Fn(BuildEvent<'_>) + Sync),
) -> Checkpoint<'a> {
    let path = checkpoint_path(dir, variant, pair, pass);
    let owner = format!("{} {pair} {:?}", variant.name, pass.metrics());
    let report = move |event: CheckpointEvent<'_>| on_event(BuildEvent::Checkpoint { pair: *pair, event });
    let stage_of = match pass {
        Pass::Theory { .. } => crate::solve::whole::theory_pass_stage,
        Pass::Rules(_) => PassStage::of_rules,
    };
    Checkpoint::new(path, &owner, CHECKPOINT_EVERY, stage_of, report)
}

/// Where `pass` of `pair` keeps its checkpoint: `1113.theory.checkpoint`,
/// `1113.fmjd.checkpoint` beside the tables.
fn checkpoint_path(dir: &Path, variant: Variant, pair: &TablePair, pass: Pass) -> PathBuf {
    let what = match pass {
        Pass::Theory { .. } => "theory",
        Pass::Rules(rules) => rules.set.name(),
    };
    dir.join(variant.name).join(format!("{}.{what}.checkpoint", pair[0]))
}

/// A pair too large for the budget, solved one men placement at a time into files of two
/// bytes per position (`<sig>.<name>.slices.tmp` beside the tables, removed afterwards)
/// by `solve`, which says whether there is a table to write; the `metrics` tables are
/// then written from those files block by block.
fn build_in_slices(
    variant: Variant,
    dir: &Path,
    pair: &TablePair,
    budget: MemoryBudget,
    pass: Pass,
    solve: impl FnOnce(&[MaterialIndex], &FileStore) -> Result<bool, SliceError<ProbeError, std::io::Error>>,
) -> Result<(), BuildError> {
    let (name, metrics) = (pass.slice_name(), pass.metrics());
    let tables = crate::solve::whole::pair_tables(variant, pair[0]);
    let paths: Vec<PathBuf> =
        tables.iter().map(|t| dir.join(variant.name).join(format!("{}.{name}.slices.tmp", t.signature()))).collect();
    let store_error = |source| BuildError::Write { path: paths[0].clone(), source };
    // The journal lets an interrupted pair resume after its last stored group of men
    // placements; it names what it belongs to, so another pair's or rule set's files
    // are never taken for this one's.
    let journal = dir.join(variant.name).join(format!("{}.{name}.slices.journal", tables[0].signature()));
    let key = format!(
        "{} {} {metrics:?}",
        variant.name,
        tables.iter().map(|t| t.signature().to_string()).collect::<Vec<_>>().join("+")
    );
    let at_once = components_at_once(variant, pair, budget, rayon::current_num_threads());
    let cache = slice_store_cache(variant, pair, at_once);
    let store = FileStore::open(&paths, &tables, cache as usize, &journal, &key)
        .map_err(store_error)?
        .with_components_at_once(at_once as usize);
    let solved = solve(&tables, &store).map_err(|e| match e {
        SliceError::Finished(e) => BuildError::Lookup(e),
        SliceError::Store(source) => store_error(source),
    })?;
    for (t, index) in tables.iter().enumerate().filter(|_| solved) {
        for &metric in &metrics {
            crate::build::write::write_table_streamed(dir, variant.name, index, metric, &|r| store.scores(t, r))
                .map_err(|source| BuildError::Write {
                    path: table_path(dir, &variant, index.signature(), metric),
                    source,
                })?;
        }
    }
    store.finish().map_err(|source| BuildError::Write { path: journal.clone(), source })?;
    for path in &paths {
        std::fs::remove_file(path).map_err(|source| BuildError::Write { path: path.clone(), source })?;
    }
    Ok(())
}

/// Whether every file of the pair is on disk, whole (checksums checked): then it is kept.
fn pair_complete(dir: &Path, variant: &Variant, pair: &TablePair, metrics: &[Metric]) -> Result<bool, BuildError> {
    match pair_on_disk(dir, variant, pair, metrics) {
        PairOnDisk::Complete => Ok(true),
        PairOnDisk::NotOurs(e) => Err(e.into()),
        PairOnDisk::Absent | PairOnDisk::Broken(_) => Ok(false),
    }
}

/// What is on disk of a pair's `metrics` files.
enum PairOnDisk {
    /// Every file, whole.
    Complete,
    /// None of them: a pair not built yet.
    Absent,
    /// Some are missing or damaged (the first such file's error): the pair is built again.
    Broken(TableError),
    /// A file under one of its names is another game's table: left alone, the build stops.
    NotOurs(TableError),
}

fn pair_on_disk(dir: &Path, variant: &Variant, pair: &TablePair, metrics: &[Metric]) -> PairOnDisk {
    let files: Vec<(Signature, Metric, PathBuf)> = pair
        .iter()
        .flat_map(|&sig| metrics.iter().map(move |&metric| (sig, metric, table_path(dir, variant, sig, metric))))
        .collect();
    if files.iter().all(|(_, _, path)| !path.exists()) {
        return PairOnDisk::Absent;
    }
    // Another game's table under any of the names stops the build before one is written.
    for (sig, metric, path) in &files {
        if let Err(e @ TableError::OtherGame { .. }) = TableFile::open(path, variant, *sig, *metric) {
            return PairOnDisk::NotOurs(e);
        }
    }
    for (sig, metric, path) in &files {
        if !path.exists() {
            // Named as the file its colour flip reads its values through, where it is.
            let flip = table_path(dir, variant, sig.flipped(), *metric);
            let read_through =
                TableFile::open(&flip, variant, sig.flipped(), *metric).is_ok_and(|f| f.header().by_search());
            return PairOnDisk::Broken(if read_through {
                TableError::FlipMissing { path: path.clone(), reader: flip }
            } else {
                TableError::Missing { path: path.clone(), rules: None }
            });
        }
        match TableFile::open(path, variant, *sig, *metric).and_then(|t| t.verify_checksum().map(|()| t)) {
            Ok(file) if file.header().by_search() => {
                // Found by search through its colour flip's file, which must hold values.
                let flip = table_path(dir, variant, sig.flipped(), *metric);
                let flip_holds = sig.flipped() != *sig
                    && TableFile::open(&flip, variant, sig.flipped(), *metric).is_ok_and(|f| !f.header().by_search());
                if !flip_holds {
                    return PairOnDisk::Broken(TableError::values_nowhere(path, &flip));
                }
            }
            Ok(_) => {}
            Err(e) => return PairOnDisk::Broken(e),
        }
    }
    PairOnDisk::Complete
}

/// What [`build_pair_job`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairJob {
    /// Every output was on disk, whole: nothing to do.
    AlreadyComplete,
    /// The pair was solved (what was missing of it) and written.
    Built,
}

/// One job of a cluster build ([`crate::Plan`]): the pair of `signature` (with its
/// colour flip), its WLD and DTW tables and the rule tables of `rules`, reading the
/// tables it needs from `dir`. Refuses, naming the files, when an input is missing;
/// checks every input's checksum before any work, so that a damaged input is an error
/// naming it, not a wrong table.
pub fn build_pair_job(
    variant: Variant,
    signature: Signature,
    rules: DrawRules,
    dir: &Path,
    budget: MemoryBudget,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<PairJob, BuildError> {
    check_variant_folder(dir, &variant)?;
    let pair = TablePair::of(signature);
    let ruled = pair.iter().any(|s| rules.context(*s).is_some());
    let mut metrics = vec![Metric::Wld, Metric::Dtw];
    if ruled {
        metrics.push(Metric::Rules(rules.set));
    }
    // Checked before the lock is taken: a complete pair is only read.
    if pair_complete(dir, &variant, &pair, &metrics)? {
        return Ok(PairJob::AlreadyComplete);
    }
    let _lock = crate::BuildLock::shared(dir, &variant)?;
    let inputs = pair.inputs(variant, &rules);
    let missing: Vec<PathBuf> = inputs
        .iter()
        .map(|(sig, metric)| table_path(dir, &variant, *sig, *metric))
        .filter(|path| !path.exists())
        .collect();
    if !missing.is_empty() {
        return Err(BuildError::MissingInputs { pair: pair.to_string(), files: missing });
    }
    for (sig, metric) in &inputs {
        TableFile::open(&table_path(dir, &variant, *sig, *metric), &variant, *sig, *metric)?.verify_checksum()?;
    }
    let needed = pair_state_bytes(variant, &pair, budget).0;
    if needed > budget.pair_bytes() {
        return Err(BuildError::Memory {
            pair: pair.to_string(),
            needed,
            available: budget.pair_bytes(),
            budget: budget.bytes,
        });
    }
    let cost = |pair: &TablePair| pair_state_bytes(variant, pair, budget).0;
    // A pair without rule tables leaves no results ([`Pass::leaves_results`]).
    for pass in std::iter::once(Pass::Theory { then_rules: rules }).chain(ruled.then_some(Pass::Rules(rules))) {
        let finished = open_finished(dir, variant, pass, budget)?;
        let mut working = WorkingSet::new(variant, pass.rules());
        let inputs = tables_read(variant, &[pair], |sig| working.searched_whole(dir, sig));
        hold_inputs(&mut working, dir, (&inputs, &BTreeSet::new()), &[pair], &cost, budget)?;
        build_pair(pass, &working.view(&finished), variant, dir, &pair, budget, on_event)?;
    }
    Ok(PairJob::Built)
}

/// Builds (or completes) the rule tables of `rules` for every signature of 2 to
/// `max_pieces` pieces that keeps one ([`DrawRules::context`]), after the theoretical
/// tables (already under `dir`). Complete files on disk are kept, not rebuilt.
pub fn build_rules(
    variant: Variant,
    rules: DrawRules,
    max_pieces: u32,
    dir: &Path,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<BuildSummary, BuildError> {
    build_rules_scope(variant, rules, Scope::Pieces(max_pieces), dir, MemoryBudget::default(), on_event)
}

/// As [`build_rules`], for the signatures of `scope` only (built by [`build_scope`]),
/// within `budget`.
pub fn build_rules_scope(
    variant: Variant,
    rules: DrawRules,
    scope: Scope,
    dir: &Path,
    budget: MemoryBudget,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<BuildSummary, BuildError> {
    run_pass(Pass::Rules(rules), variant, scope, dir, budget, on_event)
}

/// Working state of a rule pair: two bytes per position for the pair's values, in
/// which its components are solved in place (`rule_solve`), and the order they are
/// solved in ([`crate::solve::components::rule_order_bytes`]).
pub(crate) fn rule_pair_bytes(variant: Variant, pair: &TablePair) -> u64 {
    2 * positions_of(variant, pair) + crate::solve::components::rule_order_bytes(&pair_indexes(variant, pair))
}

fn pair_indexes(variant: Variant, pair: &TablePair) -> Vec<MaterialIndex> {
    pair.iter().filter_map(|s| MaterialIndex::new(variant, *s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A pair solved in slices holds as many men placements at once as the budget allows,
    /// never more than there are threads: more threads need no more memory.
    #[test]
    fn the_placements_solved_at_once_are_the_budgets_not_the_threads() {
        let v = Variant::INTERNATIONAL;
        let pair = TablePair::of("0214".parse().expect("a signature"));
        let each = placement_bytes(v, &pair);
        let budget = |bytes: u64| MemoryBudget::new(bytes);
        let tight = budget(4 * each);
        let one = sliced_state_bytes(v, &pair, 1).expect("sliceable");
        assert!(one <= tight.pair_bytes(), "one placement fits the tight budget");
        for threads in [1, 2, 16, 64, 256] {
            let at_once = components_at_once(v, &pair, tight, threads);
            assert!((1..=threads as u64).contains(&at_once), "{threads}: {at_once}");
            let (state, sliced) = pair_state_bytes_on(v, &pair, tight, threads);
            assert!(sliced && state <= tight.pair_bytes(), "{threads}: {state} > {}", tight.pair_bytes());
        }
        assert!(components_at_once(v, &pair, tight, 256) < 4, "the budget, not the threads, bounds it");
        let roomy = budget(1 << 50);
        assert_eq!(components_at_once(v, &pair, roomy, 16), 16);
        assert_eq!(components_at_once(v, &pair, roomy, 2), 2);
    }

    /// The closure of a signature is what its moves lead to, move after move, from
    /// either side's turn: found here by following `successors` (a mover's captures
    /// and crowning, the result read from the other side) from the pair's two tables.
    #[test]
    fn a_closure_holds_every_table_its_moves_lead_to_and_no_other() {
        for root in ["0103", "1111", "1213", "2030", "0321"] {
            let root: Signature = root.parse().expect("a signature");
            let mut reached = BTreeSet::from([root, root.flipped()]);
            let mut frontier: Vec<Signature> = reached.iter().copied().collect();
            while let Some(sig) = frontier.pop() {
                for next in crate::pair::successors(sig) {
                    for table in [next, next.flipped()] {
                        if reached.insert(table) {
                            frontier.push(table);
                        }
                    }
                }
            }
            let scope = Scope::Closure(root);
            let built: BTreeSet<Signature> = build_steps(root.pieces())
                .into_iter()
                .flatten()
                .flat_map(|pair| pair.to_vec())
                .filter(|s| scope.contains(*s))
                .collect();
            assert_eq!(built, reached, "closure of {root}");
        }
        let kings = Scope::Closure("0103".parse().expect("a signature"));
        assert!(kings.contains("0101".parse().expect("a signature")));
        assert!(!kings.contains("0202".parse().expect("a signature")));
        assert!(!kings.contains("1010".parse().expect("a signature")));
    }
}
