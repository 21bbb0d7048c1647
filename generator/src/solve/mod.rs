//! The solvers: retrograde analysis of one table pair from the finished tables its
//! captures and promotions lead to.
//!
//! - `whole`: a pair solved in memory, two bytes of working state a position (the faster
//!   way, used whenever the pair fits the budget);
//! - `components` and `slices`: the same analysis one men placement at a time, each
//!   placement's king positions solved in memory and written out (pairs too large for the
//!   budget);
//! - `checkpoint`: a pair's working state written to disk now and then, so that a pass
//!   stopped in the middle goes on from there;
//! - `rules`: the rule tables, the distance within the count a signature keeps, from the
//!   pair's own theoretical values and the finished rule tables;
//! - `symmetry`: the board symmetries of kings-only positions, by which `whole` and
//!   `rules` solve such a pair at one position of each class of four.

pub(crate) mod checkpoint;
pub(crate) mod components;
pub mod rules;
pub(crate) mod slices;
pub(crate) mod symmetry;
pub mod whole;
