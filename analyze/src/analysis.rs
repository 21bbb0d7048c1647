//! Files to annotated games: read, replay, annotate, one game at a time, with a summary
//! and the tables that were missing named once.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;

use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::Variant;

use crate::annotate::{annotate, AnnotateError, GameAnnotation, Reach};
use crate::pdn::{PdnGame, PdnReader};
use crate::replay::{replay, Problem, Replay, ReplayError};

/// What became of one game.
#[derive(Debug)]
pub enum GameOutcome {
    /// Replayed and annotated (possibly with no position in table range).
    Analysed {
        /// The replayed game.
        replay: Replay,
        /// What the tables say about it.
        annotation: GameAnnotation,
    },
    /// Replayed, but the tables have nothing for its variant.
    NoTables {
        /// The replayed game.
        replay: Replay,
    },
    /// Not replayed: the error names file, game, players and move.
    Failed(ReplayError),
    /// A game kabe does not play (its GameType names another game): skipped, not failed.
    Skipped(ReplayError),
}

/// Counts over everything analysed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub read: usize,
    /// Games replayed and annotated.
    pub analysed: usize,
    /// Games that could not be replayed.
    pub failed: usize,
    /// Games of a GameType kabe does not play.
    pub skipped: usize,
    /// The GameTypes skipped, as `(file, GameType)`, each named once.
    pub skipped_game_types: BTreeSet<(String, String)>,
    /// Positions annotated with a table verdict.
    pub positions: usize,
    /// Moves that changed the exact verdict.
    pub errors: usize,
    /// Games where a draw rule (count or repetition) ended the game before its last move.
    pub ended_by_rule: usize,
    /// Tables needed and not found, as `variant signature`, each named once.
    pub missing: BTreeSet<(String, String)>,
    /// Variants met for which no table is open at all.
    pub variants_without_tables: BTreeSet<String>,
    /// Files that could not be opened or read to their end, with why (`file: error`): the
    /// others were analysed all the same.
    pub unreadable_files: Vec<(String, String)>,
}

impl Summary {
    /// Counts one game's outcome (the analyzer does this for every game of a file).
    pub fn count(&mut self, outcome: &GameOutcome) {
        self.read += 1;
        match outcome {
            GameOutcome::Analysed { annotation, replay } => {
                self.analysed += 1;
                self.positions += annotation.positions.len();
                self.errors += annotation.errors().count();
                self.ended_by_rule += usize::from(annotation.ended.is_some());
                for s in &annotation.missing {
                    self.missing.insert((replay.variant.name.to_string(), s.to_string()));
                }
            }
            GameOutcome::NoTables { replay } => {
                self.analysed += 1;
                self.variants_without_tables.insert(replay.variant.name.to_string());
            }
            GameOutcome::Failed(_) => self.failed += 1,
            GameOutcome::Skipped(e) => {
                self.skipped += 1;
                if let Problem::UnsupportedGameType(t) = &e.problem {
                    self.skipped_game_types.insert((e.file.clone(), t.clone()));
                }
            }
        }
    }
}

/// Analyses games with one set of tables.
pub struct Analyzer<'a> {
    tables: &'a Tablebase,
    variant: Option<Variant>,
    reach: Reach,
}

impl<'a> Analyzer<'a> {
    /// An analyzer over `tables`; `variant` overrides what the games say (`--variant`).
    pub fn new(tables: &'a Tablebase, variant: Option<Variant>, reach: Reach) -> Analyzer<'a> {
        Analyzer { tables, variant, reach }
    }

    /// Replays and annotates one game read from `file`.
    pub fn game(&self, file: &str, game: &PdnGame) -> Result<GameOutcome, AnnotateError> {
        let replay = match replay(file, game, self.variant) {
            Ok(r) => r,
            Err(e) if matches!(e.problem, Problem::UnsupportedGameType(_) | Problem::TooLarge { .. }) => {
                return Ok(GameOutcome::Skipped(e))
            }
            Err(e) => return Ok(GameOutcome::Failed(e)),
        };
        if self.tables.draw_rules(&replay.variant).is_none() {
            return Ok(GameOutcome::NoTables { replay });
        }
        let texts: Vec<String> = game.moves.iter().map(|m| m.text.clone()).collect();
        match annotate(self.tables, &replay, &texts, self.reach) {
            Ok(annotation) => Ok(GameOutcome::Analysed { replay, annotation }),
            Err(AnnotateError::Probe(ProbeError::VariantNotOpen { .. })) => Ok(GameOutcome::NoTables { replay }),
            Err(e) => Err(e),
        }
    }

    /// Every game of the file at `path`, in order, handed to `each` with its outcome; the
    /// summary is updated as it goes. A file that cannot be opened or read to its end is
    /// named in the summary ([`Summary::unreadable_files`], after the games read from it)
    /// so that a batch goes on with the next file; a damaged table is an error (the
    /// analysis cannot be trusted).
    pub fn file(
        &self,
        path: &Path,
        summary: &mut Summary,
        each: &mut dyn FnMut(&str, &PdnGame, &GameOutcome) -> io::Result<()>,
    ) -> Result<(), AnalysisError> {
        let name = path.display().to_string();
        let input = match File::open(path) {
            Ok(input) => input,
            Err(e) => {
                summary.unreadable_files.push((name, e.to_string()));
                return Ok(());
            }
        };
        for game in PdnReader::new(BufReader::new(input)) {
            let game = match game {
                Ok(game) => game,
                Err(e) => {
                    summary.unreadable_files.push((name.clone(), e.to_string()));
                    return Ok(());
                }
            };
            let outcome =
                self.game(&name, &game).map_err(|source| AnalysisError::Tables { file: name.clone(), source })?;
            summary.count(&outcome);
            each(&name, &game, &outcome).map_err(AnalysisError::Output)?;
        }
        Ok(())
    }
}

/// Why an analysis stopped.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The tables failed (damaged file, read error).
    #[error("analysing {file}: {source}")]
    Tables {
        /// The PDN file being analysed.
        file: String,
        /// The error, naming the table file.
        source: AnnotateError,
    },
    /// The report could not be written.
    #[error("writing the report: {0}")]
    Output(io::Error),
}
