//! Small games solved whole from their start position, not as endgame tables: every
//! position reachable from the start, valued by retrograde analysis in memory.

pub mod wolf_sheep;
