//! kabe-analyze: PDN games in, exact verdicts out.
//!
//! - [`pdn`]: a streaming PDN reader, one game in memory at a time;
//! - [`replay`](mod@replay): strict replay of a game, errors naming file, game, players and move;
//! - [`annotate`](mod@annotate): every position within table range with its exact verdict under the
//!   game's draw rules (counts and repetition as played) and the moves that threw a
//!   result away; [`repetition`] is the repetition rule on top of the tables;
//! - [`analysis`]: files to annotated games with a summary; [`report`] writes them as
//!   text, PDN with comments, or JSON;
//! - [`study`]: the study checker (key move, main line, duals);
//! - [`prove`]: proof-number search from any position down into the tables, every proof
//!   replayed by an independent checker (compositions of any size);
//! - [`present`]: every answer a user reads as data, with its JSON and text (a move
//!   list, a probe, a line of best play, a study, a proof, a file of compositions);
//! - [`json`]: the presentation layer: every JSON shape a user reads (verdict, move,
//!   line, study, proof, report) and the words for a result, which every front end writes.
//!
//! Dependencies run one way: `pdn` <- `replay` <- `repetition` <- `annotate` <-
//! `analysis` <- `report`.

pub mod analysis;
pub mod annotate;
pub mod json;
pub mod pdn;
pub mod present;
pub mod prove;
pub mod repetition;
pub mod replay;
pub mod report;
pub mod study;

pub use analysis::{Analyzer, GameOutcome, Summary};
pub use annotate::{annotate, GameAnnotation, PositionNote, Reach};
pub use pdn::{MoveText, PdnGame, PdnReader};
pub use replay::{replay, Problem, Replay, ReplayError};
