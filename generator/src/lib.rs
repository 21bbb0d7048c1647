//! kabe-generator: retrograde analysis of draughts endgames.
//!
//! Tables are built in dependency order ([`Signature::all_with`]): a signature and its
//! colour flip together ([`solve_pair`]), after every table their captures and
//! promotions lead to, which are read in their working form (`finished::working`: decoded from
//! their files as the build reaches them, within the budget; [`finished::lookup`]) so that a
//! build's memory is a budget ([`MemoryBudget`]), whatever the number of pieces.
//!
//! The crate is laid out by pass, each folder with a head comment on what lives there,
//! over `pair` ([`TablePair`]: a signature and its colour flip, the unit of work, and the
//! tables it reads); dependencies run one way, from `build` down to `verify`, `solve`
//! and `finished`:
//!
//! - `build`: what to build and in which order, within a memory budget, resuming and
//!   repairing what is on disk; a pair as a cluster job; the files written;
//! - `solve`: the solvers (a pair whole in memory, one men placement at a time, the rule
//!   tables);
//! - [`finished`]: how a solver reads the finished tables it depends on (their working
//!   form during a build, the probe library's reader, tables held in memory);
//! - `verify`: every value of a set derived again from its successors, its statistics and
//!   its reference checksums;
//! - `check`: the draw-rule tables against an independent brute force;
//! - [`games`]: small games solved whole from their start (wolf and sheep).
//! - [`files`]: every file kabe writes is its own (never through a link, never over a
//!   device), every file a user names read within a bound;
//! - `memory`: the large arrays solvers and verifier read at random, in huge pages.

mod build;
mod check;
pub mod files;
pub mod finished;
pub mod games;
mod memory;
mod pair;
mod solve;
mod verify;

pub use build::budget::{parse_cache_bytes, MemoryBudget};
pub use build::lock::BuildLock;
pub use build::one_side::{keep_one_side, DroppedFiles, OneSide, SidesKept};
pub use build::plan::{Job, Plan, Rates};
pub use build::plan_report::{duration_text, PlanReport};
pub use build::slurm::{write_slurm, SlurmError};
pub use build::write::{
    table_bytes, write_rule_table, write_table, write_tables, BLOCK_POSITIONS, WLD_BLOCK_POSITIONS,
};
pub use build::{
    build, build_pair_job, build_rules, build_rules_scope, build_scope, table_path, BuildError, BuildEvent,
    BuildSummary, PairJob, Scope,
};
pub use check::brute_layers::{LayerError, LayeredBrute};
pub use check::brute_rules::{BruteForce, BruteRules, Clock};
pub use check::{brute_rules, check_pair_layered, check_signature, with_deep_stack, LayeredCheckError, RuleCheck};
pub use files::{build_running, lock_path as build_lock_path};
pub use finished::lookup::{AsOracle, Finished, TableFiles};
pub use finished::registry::MissingTable;
pub use finished::registry::{CaptureFlags, Registry, SolvedTable};
pub use finished::working::{tables_read, Working, WorkingSet};
pub use pair::{TableId, TablePair};
pub use solve::checkpoint::{CheckpointEvent, PassStage};
pub use solve::rules::{solve_rule_pair, solve_rule_pair_by, MemoryTables, RuleRegistry, RuleTable};
pub use solve::solve_pair_by;
pub use solve::whole::{solve_pair, PairPass, STATE_BYTES_PER_POSITION};
pub use verify::figures::{count_figures, Figures, FiguresError, FiguresEvent, FiguresOptions};
pub use verify::manifest::{
    check_manifest, manifest_of, sha256_file, Difference, Manifest, ManifestEntry, ManifestError,
};
pub use verify::statistics::{RuleStats, TableStats};
pub use verify::stats_report::StatsReport;
pub use verify::{
    pairs_too_large_to_hold, positions_to_verify, recorded_statistics, tables_in, verify, verify_with, Disagreement,
    RuleDisagreement, VerifyOptions, VerifyReport, LEDGER_NAME,
};

/// The rules crate the generator builds on, for callers that have no direct dependency.
pub use kabe_probe as probe;
use kabe_probe::{Signature, Variant};

/// Solves every table of 2 to `max_pieces` pieces in memory, calling `done` after each
/// (tests and checks on small sets; [`build`] writes files and keeps nothing).
pub fn solve_all(variant: Variant, max_pieces: u32, mut done: impl FnMut(&SolvedTable)) -> Registry {
    let mut registry = Registry::new(variant);
    for pieces in 2..=max_pieces {
        for sig in Signature::all_with(pieces) {
            if registry.table(sig).is_some() {
                continue;
            }
            let tables = solve_pair(&registry, variant, sig, &|_| {}).expect("smaller tables are solved first");
            for table in tables {
                done(&table);
                registry.insert(table);
            }
        }
    }
    registry
}

/// Solves in memory the rule tables of `rules` of `signatures` (in build order, with their
/// colour flips; those that keep no rule table are skipped) from the theoretical tables
/// `theory` (tests and checks).
pub fn solve_rules(
    theory: &Registry,
    rules: kabe_probe::DrawRules,
    signatures: impl IntoIterator<Item = Signature>,
) -> RuleRegistry {
    let mut done = RuleRegistry::new(rules);
    for sig in signatures {
        if done.table(sig).is_some() {
            continue;
        }
        let finished = MemoryTables::new(theory, &done);
        let solved = solve_rule_pair(&finished, rules, theory.variant(), sig, &|_| {}).expect("tables solved before");
        for table in solved.unwrap_or_default() {
            done.insert(table);
        }
    }
    done
}

/// Builds international and Russian tables up to 3 pieces, with each variant's own rule
/// tables, into `dir` (a second or so; files already there are kept): the small set the
/// probe library's examples and quick tests open.
pub fn build_small_tables(dir: &std::path::Path) -> Result<(), BuildError> {
    for variant in [Variant::INTERNATIONAL, Variant::RUSSIAN] {
        build(variant, 3, dir, &|_| {})?;
        let rules = kabe_probe::DrawRules::new(kabe_probe::DrawRuleSet::usual_for(&variant), &variant);
        build_rules(variant, rules, 3, dir, &|_| {})?;
    }
    Ok(())
}
