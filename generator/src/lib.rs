//! kabe-generator: retrograde analysis of draughts endgames.
//!
//! Tables are built in dependency order ([`Signature::all_with`]): a signature and its
//! colour flip together ([`solve_pair`]), after every table their captures and
//! promotions lead to, which are read in their working form (`working`: decoded from
//! their files as the build reaches them, within the budget; [`lookup`]) so that a
//! build's memory is a budget ([`MemoryBudget`]), whatever the number of pieces.
//!
//! - `pair` ([`TablePair`]): a signature and its colour flip, and the tables a pair reads;
//! - `solve`, `slices`, `components`, `rule_solve`: the solvers (a whole pair in two bytes
//!   a position, one men placement at a time on disk, the rule tables);
//! - `build`: build order, batches within the budget, resumption, one pair as a job
//!   ([`build_pair_job`]); `plan`: the same build as a job graph for a cluster ([`Plan`]);
//! - `write` and `verify`: the table files out, and every value of them re-derived;
//!   `one_side`: of each pair's two files of a kind the smaller kept, the other found by search;
//! - [`lookup`], `working`, `registry`: what a solver reads finished tables through; their
//!   working form during a build; tables held whole in memory (tests, brute force);
//! - `brute_rules`, `brute_layers`, `check_rules`: independent brute force for the draw
//!   rules; [`wolf_sheep`]: a small game solved whole.

mod brute_layers;
mod brute_rules;
mod budget;
mod build;
mod check_rules;
mod components;
mod lock;
pub mod lookup;
mod manifest;
mod one_side;
mod pair;
mod plan;
mod registry;
mod rule_solve;
mod slices;
mod solve;
mod statistics;
mod verify;
pub mod wolf_sheep;
mod working;
mod write;

pub use brute_layers::{LayerError, LayeredBrute};
pub use brute_rules::{BruteForce, BruteRules, Clock};
pub use budget::{parse_cache_bytes, MemoryBudget};
pub use build::{
    build, build_pair_job, build_rules, build_rules_scope, build_scope, table_path, BuildError, BuildEvent,
    BuildSummary, PairJob, Scope,
};
pub use check_rules::{
    brute_rules, check_pair_layered, check_signature, with_deep_stack, LayeredCheckError, RuleCheck,
};
pub use lock::BuildLock;
pub use lookup::{FileOracle, Finished, RuleInputs};
pub use manifest::{check_manifest, manifest_of, sha256_file, Difference, Manifest, ManifestEntry, ManifestError};
pub use one_side::{keep_one_side, OneSide};
pub use pair::{TableId, TablePair};
pub use plan::{Job, Plan, Rates};
pub use registry::MissingTable;
pub use registry::{Registry, SolvedTable};
pub use rule_solve::{solve_rule_pair, MemoryOracle, RuleRegistry, RuleTable};
pub use solve::{solve_pair, STATE_BYTES_PER_POSITION};
pub use statistics::{RuleStats, TableStats};
pub use verify::{
    positions_to_verify, recorded_statistics, tables_in, verify, verify_with, Disagreement, RuleDisagreement,
    VerifyOptions, VerifyReport, LEDGER_NAME,
};
pub use working::{in_build_order, inputs_closure, Working, WorkingSet};
pub use write::{table_bytes, write_rule_table, write_table, write_tables, BLOCK_POSITIONS, WLD_BLOCK_POSITIONS};

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
        let finished = MemoryOracle::new(theory, &done);
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
