//! Building a table directory: every signature up to N pieces in dependency order,
//! resuming from the complete tables already there.

use std::path::{Path, PathBuf};

use kabe_probe::table::{file_name, Metric, TableError, TableFile};
use kabe_probe::{DrawRules, MaterialIndex, Signature, Variant};
use rayon::prelude::*;

use crate::registry::{Registry, SolvedTable};
use crate::rule_solve::{solve_rule_pair, RuleRegistry, RuleTable};
use crate::solve::solve_pair;
use crate::write::{write_rule_table, write_table};

/// Why a build stopped.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A table file could not be written.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// A table already there is damaged (delete it to rebuild it).
    #[error(transparent)]
    Table(#[from] TableError),
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
        /// The signatures.
        signatures: &'a [Signature],
        /// Their positions together.
        positions: u64,
    },
    /// Work done on a pair: `units` more of its `2 * positions` (initialise, resolve).
    Progress {
        /// The signatures.
        signatures: &'a [Signature],
        /// Units just done.
        units: u64,
    },
    /// A pair was found complete on disk and loaded.
    Loaded {
        /// The signatures.
        signatures: &'a [Signature],
        /// Their positions together.
        positions: u64,
    },
    /// A pair was solved and written.
    Finished {
        /// The signatures.
        signatures: &'a [Signature],
        /// Their positions together.
        positions: u64,
    },
}

/// The path of a table under `dir`.
pub fn table_path(dir: &Path, variant: &Variant, signature: Signature, metric: Metric) -> PathBuf {
    dir.join(file_name(variant.name, signature, metric))
}

/// Builds (or completes) every table of 2 to `max_pieces` pieces of `variant` under `dir`,
/// WLD and DTW. Pairs whose tables are all present are loaded, not rebuilt; pairs of one
/// step (same pieces and men) are built in parallel.
pub fn build(
    variant: Variant,
    max_pieces: u32,
    dir: &Path,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<Registry, BuildError> {
    build_scope(variant, Scope::Pieces(max_pieces), dir, on_event)
}

/// Which tables to build: every material up to a number of pieces, or only what one
/// material needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every signature of 2 to N pieces.
    Pieces(u32),
    /// One signature, with everything its positions can reach: every signature with
    /// fewer pieces (captures) and those of as many pieces that promotions lead to, with
    /// the colour flips. A study of 5 pieces needs a few of the 5-piece tables, not all.
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
            Scope::Closure(root) => {
                let promoted_from = |r: Signature| {
                    sig.white_men + sig.white_kings == r.white_men + r.white_kings
                        && sig.black_men + sig.black_kings == r.black_men + r.black_kings
                        && sig.white_men <= r.white_men
                        && sig.black_men <= r.black_men
                };
                sig.pieces() < root.pieces() || promoted_from(root) || promoted_from(root.flipped())
            }
        }
    }
}

/// As [`build`], for the signatures of `scope` only.
pub fn build_scope(
    variant: Variant,
    scope: Scope,
    dir: &Path,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<Registry, BuildError> {
    let mut registry = Registry::new(variant);
    let steps = scoped_steps(scope);
    let planned =
        steps.iter().flatten().flatten().map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len())).sum();
    on_event(BuildEvent::Planned { positions: planned });
    for step in steps {
        let solved: Vec<Result<Vec<SolvedTable>, BuildError>> =
            step.par_iter().map(|pair| build_pair(&registry, dir, pair, on_event)).collect();
        for tables in solved {
            for table in tables? {
                registry.insert(table);
            }
        }
    }
    Ok(registry)
}

/// The steps of `scope`: pairs with a signature outside it are left out.
fn scoped_steps(scope: Scope) -> Vec<Vec<Vec<Signature>>> {
    build_steps(scope.max_pieces())
        .into_iter()
        .map(|step| step.into_iter().filter(|pair| pair.iter().any(|s| scope.contains(*s))).collect::<Vec<_>>())
        .filter(|step| !step.is_empty())
        .collect()
}

/// Steps of pairs: a step's pairs depend only on earlier steps.
fn build_steps(max_pieces: u32) -> Vec<Vec<Vec<Signature>>> {
    let mut steps: Vec<Vec<Vec<Signature>>> = Vec::new();
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
            let mut pair = vec![sig];
            if sig.flipped() != sig {
                pair.push(sig.flipped());
            }
            steps.last_mut().expect("pushed").push(pair);
        }
    }
    steps
}

fn build_pair(
    registry: &Registry,
    dir: &Path,
    pair: &[Signature],
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<Vec<SolvedTable>, BuildError> {
    let variant = registry.variant();
    if let Some(tables) = load_pair(dir, &variant, pair)? {
        let positions = tables.iter().map(|t| t.scores.len() as u64).sum();
        on_event(BuildEvent::Loaded { signatures: pair, positions });
        return Ok(tables);
    }
    let positions = pair.iter().map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len())).sum();
    on_event(BuildEvent::Started { signatures: pair, positions });
    let tables = solve_pair(registry, pair[0], &|units| on_event(BuildEvent::Progress { signatures: pair, units }));
    for table in &tables {
        for metric in [Metric::Wld, Metric::Dtw] {
            write_table(dir, variant.name, table, metric).map_err(|source| BuildError::Write {
                path: table_path(dir, &variant, table.index.signature(), metric),
                source,
            })?;
        }
    }
    on_event(BuildEvent::Finished { signatures: pair, positions });
    Ok(tables)
}

/// The pair's tables when every file of it is on disk (checksums checked); `None` when
/// any is missing, so the pair is rebuilt.
fn load_pair(dir: &Path, variant: &Variant, pair: &[Signature]) -> Result<Option<Vec<SolvedTable>>, BuildError> {
    let all_there =
        pair.iter().all(|s| [Metric::Wld, Metric::Dtw].iter().all(|m| table_path(dir, variant, *s, *m).exists()));
    if !all_there {
        return Ok(None);
    }
    let mut tables = Vec::new();
    for &sig in pair {
        let wld = TableFile::open(&table_path(dir, variant, sig, Metric::Wld), variant, sig, Metric::Wld)?;
        wld.verify_checksum()?;
        let dtw = TableFile::open(&table_path(dir, variant, sig, Metric::Dtw), variant, sig, Metric::Dtw)?;
        dtw.verify_checksum()?;
        let index = MaterialIndex::new(*variant, sig).expect("table-sized signature");
        tables.push(SolvedTable { index, scores: dtw.all_scores()? });
    }
    Ok(Some(tables))
}

/// Builds (or completes) the rule tables of `rules` for every signature of 2 to
/// `max_pieces` pieces that keeps one ([`DrawRules::context`]), after the theoretical
/// tables in `theory`. Complete files on disk are loaded, not rebuilt.
pub fn build_rules(
    theory: &Registry,
    rules: DrawRules,
    max_pieces: u32,
    dir: &Path,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<RuleRegistry, BuildError> {
    build_rules_scope(theory, rules, Scope::Pieces(max_pieces), dir, on_event)
}

/// As [`build_rules`], for the signatures of `scope` only (built by [`build_scope`]).
pub fn build_rules_scope(
    theory: &Registry,
    rules: DrawRules,
    scope: Scope,
    dir: &Path,
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<RuleRegistry, BuildError> {
    let variant = theory.variant();
    let mut registry = RuleRegistry::new(rules);
    let steps: Vec<Vec<Vec<Signature>>> = scoped_steps(scope)
        .into_iter()
        .map(|step| step.into_iter().filter(|pair| rules.context(pair[0]).is_some()).collect())
        .collect();
    let planned =
        steps.iter().flatten().flatten().map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len())).sum();
    on_event(BuildEvent::Planned { positions: planned });
    for step in steps {
        let solved: Vec<Result<Vec<RuleTable>, BuildError>> =
            step.par_iter().map(|pair| build_rule_pair(theory, &registry, dir, pair, on_event)).collect();
        for tables in solved {
            for table in tables? {
                registry.insert(table);
            }
        }
    }
    Ok(registry)
}

fn build_rule_pair(
    theory: &Registry,
    done: &RuleRegistry,
    dir: &Path,
    pair: &[Signature],
    on_event: &(dyn Fn(BuildEvent<'_>) + Sync),
) -> Result<Vec<RuleTable>, BuildError> {
    let variant = theory.variant();
    let metric = Metric::Rules(done.rules().set);
    let positions = pair.iter().map(|s| MaterialIndex::new(variant, *s).map_or(0, |i| i.len())).sum();
    if pair.iter().all(|s| table_path(dir, &variant, *s, metric).exists()) {
        let mut tables = Vec::new();
        for &sig in pair {
            let file = TableFile::open(&table_path(dir, &variant, sig, metric), &variant, sig, metric)?;
            file.verify_checksum()?;
            let index = MaterialIndex::new(variant, sig).expect("table-sized signature");
            tables.push(RuleTable { index, values: file.all_rule_scores()? });
        }
        on_event(BuildEvent::Loaded { signatures: pair, positions });
        return Ok(tables);
    }
    on_event(BuildEvent::Started { signatures: pair, positions });
    let progress = |units| on_event(BuildEvent::Progress { signatures: pair, units });
    let tables = solve_rule_pair(theory, done, pair[0], &progress).unwrap_or_default();
    for table in &tables {
        write_rule_table(dir, variant.name, table, done.rules().set).map_err(|source| BuildError::Write {
            path: table_path(dir, &variant, table.index.signature(), metric),
            source,
        })?;
    }
    on_event(BuildEvent::Finished { signatures: pair, positions });
    Ok(tables)
}
