//! Finished tables as the solvers read them: one interface ([`lookup::Finished`] for
//! theoretical values, [`lookup::RuleInputs`] for rule values) and the places that
//! answer it: the working form decoded from the files during a build (`working`), the
//! probe library's reader, and tables held whole in memory (`registry`: tests and the
//! brute force).

pub mod lookup;
pub mod registry;
pub mod working;
