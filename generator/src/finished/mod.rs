//! Finished tables as the solvers read them: one interface ([`lookup::Finished`]:
//! theoretical values, rule values and a pair's stored results) and the places that
//! answer it: the working form decoded from the files during a build (`working`), the
//! probe library's reader, and tables held whole in memory (`registry`: tests and the
//! brute force); and the pair's own theoretical results, which the theory pass leaves
//! for the rule pass (`results`).

pub mod lookup;
pub mod registry;
pub mod results;
pub mod working;
