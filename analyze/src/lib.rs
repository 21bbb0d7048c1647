//! kabe-analyze: PDN reading, game replay and annotation (issue 7; the rules core it
//! builds on lives in `kabe-probe`). So far: the streaming PDN reader ([`pdn`]) and
//! strict replay ([`replay`]).

pub mod pdn;

pub use pdn::{MoveText, PdnGame, PdnReader};
pub mod replay;

pub use replay::{replay, Problem, Replay, ReplayError};
