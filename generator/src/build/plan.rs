//! The build as a graph of jobs, one per table pair, for a cluster scheduler: what each
//! job reads and writes, how large it is, what it is estimated to cost, and the
//! critical path through the graph. [`crate::build_pair_job`] runs one job.

use std::collections::HashMap;
use std::path::Path;

use kabe_probe::table::Metric;
use kabe_probe::{DrawRules, Signature, Variant};

use crate::build::budget::MemoryBudget;
use crate::build::one_side::SidesKept;
use crate::build::{
    held_input_bytes, pair_state_bytes_on, positions_of, rule_pair_bytes, scoped_steps, sliced_state_bytes, table_path,
    Scope,
};
use crate::pair::{TableId, TablePair};

/// One job of the graph: a signature and its colour flip, solved together.
#[derive(Clone, Debug)]
pub struct Job {
    /// The pair, the signature that names it first (`0301` for `0301+0103`).
    pub pair: TablePair,
    /// The tables the job writes: WLD, DTW and, where the rules keep one, the rule table
    /// of each signature of the pair.
    pub outputs: Vec<TableId>,
    /// The finished tables it reads: the DTW table (and rule table) of every material a
    /// capture or promotion of the pair leads to.
    pub inputs: Vec<TableId>,
    /// The jobs (indices into [`Plan::jobs`]) that write its inputs.
    pub depends_on: Vec<usize>,
    /// Positions of the pair.
    pub positions: u64,
    /// Positions of its rule tables (0 when the rules keep none for it).
    pub rule_positions: u64,
    /// The memory budget to give the job (`kabe generate --memory`): its working state,
    /// its inputs held decoded ([`held_input_bytes`]), block cache and reserve
    /// ([`MemoryBudget::covering`]); with a cap on a job's memory ([`Plan::new`]), at
    /// most the cap where the state fits it, and the cap itself for a pair solved in
    /// slices under it.
    pub memory: MemoryBudget,
    /// Whether the job solves its pair one men placement at a time: its whole state
    /// would take more than the cap.
    pub sliced: bool,
    /// Whether its memory holds all its inputs decoded beside its state, as the rates
    /// were measured; where not (a cap), it reads some through the block cache, and
    /// takes longer than [`Job::seconds`] says (1112+1211: 296 s within a budget that
    /// held none, 58 s holding them all).
    pub inputs_held: bool,
    /// Estimated wall time on [`Plan::threads`] threads, from [`Rates`].
    pub seconds: f64,
}

impl Job {
    /// `0301+0103`.
    pub fn name(&self) -> String {
        self.pair.to_string()
    }
}

/// Positions solved per second, measured on this project's 2-core AMD EPYC Zen 4 VM
/// (docs/benchmarks.md, "Six-piece pairs solved alone"; `examples/time_pair`, 2 threads,
/// alone): with men, 0321+2103's theory 1.39 M a thread (0510+1005 1.76 M), the rule
/// tables of 0321+2103, 0222+2202 and 0312+1203 1.1-1.4 M (0510+1005 1.3 M); kings only,
/// the seven-piece 0205+0502 built alone by symmetry on the same kind of VM (theory
/// 775.9 s, `fmjd` rule tables 618.3 s for 4.2 G positions on 2 threads: 2.7 M and 3.4 M
/// a thread) and 0304+0403's rule tables (861.8 s for 7.0 G: 4.05 M a thread), the rule
/// rate taken between the two (3.7 M: 0205's 8% under, 0304's 10% over); one king
/// against kings, solved bit-parallel, the seven-piece 0106+0601
/// (`kabe generate --closure 0106` alone: theory 232.8 s, `fmjd` 131.0 s for 1.4 G
/// positions: 3.0 M and 5.3 M a thread; 0105+0501 at six pieces runs 20% faster). Six-piece
/// pairs of kings run faster than that a position (0204+0402's theory and rule tables in
/// 91 s, not the 158 s these say).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Theory positions a second per thread, a pair with men.
    pub theory_per_thread: f64,
    /// Theory positions a second per thread, kings only (the most moves per position).
    pub kings_theory_per_thread: f64,
    /// Rule positions a second per thread, a pair with men (one component per men
    /// placement, solved in parallel).
    pub rules_per_thread: f64,
    /// Rule positions a second per thread, kings only (one component, the whole pair).
    pub kings_rules_per_thread: f64,
    /// Theory positions a second per thread, one king against kings (solved
    /// bit-parallel, `crate::solve::king_words`).
    pub words_theory_per_thread: f64,
    /// Rule positions a second per thread, one king against kings (bit-parallel too).
    pub words_rules_per_thread: f64,
    /// Theory positions a second per thread, a pair with men where a side has one king
    /// (bit-parallel over that king's square): `theory_per_thread` times 1.27, the ratio
    /// measured on 0411+1104 (theory 281.7 s by the plain pass, 222.3 s bit-parallel,
    /// 2-core Intel Xeon VM; 5-piece pairs gain 1.16x to 2.19x, docs/benchmarks.md).
    pub men_words_theory_per_thread: f64,
    /// Rule positions a second per thread, such a pair solved bit-parallel a level of
    /// the men at a time: `rules_per_thread` times 1.34, the ratio measured on
    /// 0411+1104's `fmjd` rule tables (303.3 s by components, 226.1 s bit-parallel,
    /// paired medians, 2-core Intel Xeon VM). A build takes that pass only where at most
    /// half the pair is drawn in theory, which the plan does not know: it counts the
    /// rate for every such pair (those mostly drawn ran 0.70-0.95 times as fast).
    pub men_words_rules_per_thread: f64,
    /// Seconds every job spends starting, checking its inputs and writing.
    pub overhead: f64,
    /// How a pair's build speeds up with threads beyond the two the rates were measured
    /// on: (threads, speed-up over 2 threads) points, read between them as straight
    /// lines, the efficiency of the last kept beyond it.
    pub scaling: &'static [(usize, f64)],
}

/// `kabe generate --pair 2111` (theory and `fmjd` rule tables, written) on a lent
/// 16-core Intel Xeon VM, 2026-11-27 (docs/benchmarks.md, "Threads"): 96.0 s on 2
/// threads, 24.9 s on 8, 14.6 s on 16.
pub const MEASURED_SCALING: &[(usize, f64)] = &[(2, 1.0), (8, 3.86), (16, 6.58)];

impl Rates {
    /// Threads' worth of the per-thread rates that `threads` workers give: the threads
    /// themselves up to 2, then what [`Rates::scaling`] measured.
    pub fn effective_threads(&self, threads: usize) -> f64 {
        let t = threads as f64;
        let Some(&(first, _)) = self.scaling.first() else { return t };
        if threads <= first {
            return t;
        }
        let speed_up = |(n, s): (usize, f64)| (n as f64, s * first as f64);
        for pair in self.scaling.windows(2) {
            let ((lo, lo_rate), (hi, hi_rate)) = (speed_up(pair[0]), speed_up(pair[1]));
            if t <= hi {
                return lo_rate + (hi_rate - lo_rate) * (t - lo) / (hi - lo);
            }
        }
        let (last, last_rate) = speed_up(*self.scaling.last().expect("not empty"));
        t * last_rate / last
    }
}

impl Default for Rates {
    fn default() -> Rates {
        Rates {
            theory_per_thread: 1.4e6,
            kings_theory_per_thread: 2.7e6,
            rules_per_thread: 1.3e6,
            kings_rules_per_thread: 3.7e6,
            words_theory_per_thread: 3.0e6,
            words_rules_per_thread: 5.3e6,
            men_words_theory_per_thread: 1.8e6,
            men_words_rules_per_thread: 1.74e6,
            overhead: 0.5,
            scaling: MEASURED_SCALING,
        }
    }
}

/// The job graph of a build.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The variant.
    pub variant: Variant,
    /// What the jobs build.
    pub scope: Scope,
    /// The draw rules whose tables the jobs build.
    pub rules: DrawRules,
    /// Threads each job runs on (the estimates assume them).
    pub threads: usize,
    /// The jobs in an order where every job comes after those it depends on.
    pub jobs: Vec<Job>,
    /// The most memory a job may ask for, if capped.
    pub job_memory: Option<MemoryBudget>,
}

impl Plan {
    /// The arguments of the step after every job: `kabe generate` over the finished
    /// pairs, which finds each complete and keeps the tables of each pair as `kept`
    /// says ([`crate::keep_one_side`]).
    pub fn last_step_args(&self, kept: SidesKept) -> String {
        let what = match self.scope {
            Scope::Pieces(n) => format!("--pieces {n}"),
            Scope::Closure(sig) => format!("--closure {sig}"),
        };
        let sides = kept.generate_flag().map_or(String::new(), |flag| format!(" {flag}"));
        format!("generate --variant {} --rules {} {what}{sides}", self.variant.name, self.rules.set.name())
    }

    /// The jobs that build `scope` of `variant` with the rule tables of `rules`, each on
    /// `threads` threads. With `job_memory`, no job asks for more: a pair whose whole
    /// working state does not fit is solved in slices within it (a node's memory then
    /// bounds only the largest men placement, not the largest pair); a job that does not
    /// fit even so asks for what its slices need ([`Plan::over_cap`] names it).
    pub fn new(
        variant: Variant,
        scope: Scope,
        rules: DrawRules,
        threads: usize,
        rates: Rates,
        job_memory: Option<MemoryBudget>,
    ) -> Plan {
        let threads = threads.max(1);
        let mut jobs: Vec<Job> = Vec::new();
        let mut job_of: HashMap<Signature, usize> = HashMap::new();
        for pair in scoped_steps(scope).into_iter().flatten() {
            let inputs = pair.inputs(variant, &rules);
            let mut depends_on: Vec<usize> = inputs.iter().filter_map(|(sig, _)| job_of.get(sig).copied()).collect();
            depends_on.sort_unstable();
            depends_on.dedup();
            let index = jobs.len();
            for sig in &pair {
                job_of.insert(*sig, index);
            }
            jobs.push(job(variant, &rules, pair, inputs, depends_on, Sizing { threads, rates, job_memory }));
        }
        Plan { variant, scope, rules, threads, jobs, job_memory }
    }

    /// The jobs that need more memory than the cap, even solved in slices.
    pub fn over_cap(&self) -> Vec<usize> {
        let Some(cap) = self.job_memory else { return Vec::new() };
        (0..self.jobs.len()).filter(|&i| self.jobs[i].memory.bytes > cap.bytes).collect()
    }

    /// Whether every output of job `i` is on disk under `dir` (tables are written under a
    /// temporary name and renamed, so a file there was written whole).
    pub fn is_done(&self, dir: &Path, i: usize) -> bool {
        self.jobs[i].outputs.iter().all(|(sig, metric)| table_path(dir, &self.variant, *sig, *metric).exists())
    }

    /// The longest chain of dependent jobs by estimated time: the jobs, first to last,
    /// and their seconds together. No number of nodes builds the set faster.
    pub fn critical_path(&self) -> (Vec<usize>, f64) {
        self.critical_path_to_run(&vec![false; self.jobs.len()])
    }

    /// [`Plan::critical_path`] of the jobs not yet done (`done[i]` for job `i`, as
    /// [`Plan::is_done`] says): no number of nodes finishes a resumed build faster. A job
    /// done takes no time and is not on the path.
    pub fn critical_path_to_run(&self, done: &[bool]) -> (Vec<usize>, f64) {
        let mut finish = vec![0.0f64; self.jobs.len()];
        let mut before: Vec<Option<usize>> = vec![None; self.jobs.len()];
        for (i, job) in self.jobs.iter().enumerate() {
            if done[i] {
                continue;
            }
            let prior =
                job.depends_on.iter().copied().filter(|d| !done[*d]).max_by(|a, b| finish[*a].total_cmp(&finish[*b]));
            before[i] = prior;
            finish[i] = prior.map_or(0.0, |p| finish[p]) + job.seconds;
        }
        let Some(last) = (0..self.jobs.len()).filter(|i| !done[*i]).max_by(|a, b| finish[*a].total_cmp(&finish[*b]))
        else {
            return (Vec::new(), 0.0);
        };
        let mut path = vec![last];
        while let Some(p) = before[*path.last().expect("not empty")] {
            path.push(p);
        }
        path.reverse();
        (path, finish[last])
    }

    /// Estimated seconds of all jobs together, each on [`Plan::threads`] threads.
    pub fn total_seconds(&self) -> f64 {
        self.jobs.iter().map(|j| j.seconds).sum()
    }

    /// Estimated seconds of the jobs not yet done together (`done` as for
    /// [`Plan::critical_path_to_run`]).
    pub fn seconds_to_run(&self, done: &[bool]) -> f64 {
        self.jobs.iter().zip(done).filter(|(_, d)| !**d).map(|(j, _)| j.seconds).sum()
    }
}

/// What every job of a plan is sized for: its threads, the rates and the memory cap.
#[derive(Clone, Copy)]
struct Sizing {
    threads: usize,
    rates: Rates,
    job_memory: Option<MemoryBudget>,
}

fn job(
    variant: Variant,
    rules: &DrawRules,
    pair: TablePair,
    inputs: Vec<TableId>,
    depends_on: Vec<usize>,
    sizing: Sizing,
) -> Job {
    let Sizing { threads, rates, job_memory } = sizing;
    let positions = positions_of(variant, &pair);
    let ruled: Vec<Signature> = pair.iter().copied().filter(|s| rules.context(*s).is_some()).collect();
    let rule_positions = positions_of(variant, &ruled);
    let mut outputs = Vec::new();
    for sig in &pair {
        outputs.push((*sig, Metric::Wld));
        outputs.push((*sig, Metric::Dtw));
        if rules.context(*sig).is_some() {
            outputs.push((*sig, Metric::Rules(rules.set)));
        }
    }
    // Sized as the build sizes it (`pair_state_bytes`), whether or not it makes rule tables.
    let rule_bytes = rule_pair_bytes(variant, &pair);
    // Solved bit-parallel where the build would (`by_words`) and the job still holds all
    // its inputs beside it (the plan does not count on less); the rates below assume it.
    let words_bytes = crate::solve::king_words::working_bytes(variant, pair[0]);
    let by_words = match job_memory {
        Some(cap) => {
            let held = MemoryBudget::covering(words_bytes.max(rule_bytes) + held_input_bytes(variant, &inputs));
            crate::build::by_words(variant, &pair, cap) && held.bytes <= cap.bytes
        }
        None => crate::solve::king_words::pays_off(&variant, pair[0]),
    };
    let theory_bytes = crate::solve::whole::whole_state_bytes(positions).max(if by_words { words_bytes } else { 0 });
    let kings_only = pair[0].white_men == 0 && pair[0].black_men == 0;
    let t = rates.effective_threads(threads);
    let (theory_rate, rule_rate) = match (by_words, kings_only) {
        (true, true) => (rates.words_theory_per_thread * t, rates.words_rules_per_thread * t),
        (true, false) => (rates.men_words_theory_per_thread * t, rates.men_words_rules_per_thread * t),
        (false, true) => (rates.kings_theory_per_thread * t, rates.kings_rules_per_thread * t),
        (false, false) => (rates.theory_per_thread * t, rates.rules_per_thread * t),
    };
    let seconds = rates.overhead + positions as f64 / theory_rate + rule_positions as f64 / rule_rate;
    let whole = MemoryBudget::covering(theory_bytes.max(rule_bytes));
    let holding = MemoryBudget::covering(theory_bytes.max(rule_bytes) + held_input_bytes(variant, &inputs));
    let inputs_held = job_memory.is_none_or(|cap| holding.bytes <= cap.bytes);
    let (memory, sliced) = match job_memory {
        _ if inputs_held => (holding, false),
        Some(cap) if whole.bytes <= cap.bytes => (cap, false),
        Some(cap) => {
            // Within the cap the job slices its pair where its whole state does not fit
            // (as `kabe generate --pair` decides on `threads` workers); giving it the
            // whole cap also gives its block cache the most room.
            match pair_state_bytes_on(variant, &pair, cap, threads) {
                (state, slices) if state <= cap.pair_bytes() => (cap, slices),
                _ => {
                    // Over the cap even so: what its slices need one at a time (more at
                    // once where the memory allows), or the whole pair.
                    let state = sliced_state_bytes(variant, &pair, 1).map_or(whole, MemoryBudget::covering);
                    let memory = if state.bytes < whole.bytes { state } else { whole };
                    (memory, pair_state_bytes_on(variant, &pair, memory, threads).1)
                }
            }
        }
        None => (holding, false),
    };
    Job { pair, outputs, inputs, depends_on, positions, rule_positions, memory, sliced, inputs_held, seconds }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabe_probe::DrawRuleSet;
    use std::collections::BTreeSet;

    fn plan(pieces: u32) -> Plan {
        let variant = Variant::INTERNATIONAL;
        Plan::new(
            variant,
            Scope::Pieces(pieces),
            DrawRules::new(DrawRuleSet::Fmjd, &variant),
            2,
            Rates::default(),
            None,
        )
    }

    fn sig(text: &str) -> Signature {
        let d: Vec<u8> = text.bytes().map(|b| b - b'0').collect();
        Signature::new(d[0], d[1], d[2], d[3])
    }

    #[test]
    fn a_capture_or_a_promotion_leads_to_the_tables_a_job_reads() {
        let p = plan(4);
        let job = p.jobs.iter().find(|j| j.pair.contains(&sig("1201"))).expect("1201 in the plan");
        assert_eq!(&job.pair[..], &[sig("0112"), sig("1201")]);
        let read: BTreeSet<Signature> = job.inputs.iter().map(|(s, _)| *s).collect();
        // White 1201 crowns its man: black to move in 0103. White 0112 (one king) takes
        // a king, the man, or both: 0101, 1101, 0201, 1001.
        let expected: BTreeSet<Signature> = ["0103", "0101", "1101", "0201", "1001"].map(sig).into();
        assert_eq!(read, expected);
        assert!(!read.contains(&sig("1201")) && !read.contains(&sig("0112")), "a pair never reads itself");
        assert!(job.inputs.iter().all(|(_, m)| *m != Metric::Wld), "solvers read DTW, never WLD");
    }

    #[test]
    fn every_job_comes_after_the_jobs_it_reads_and_reads_only_tables_of_the_plan() {
        let p = plan(5);
        let written: HashMap<TableId, usize> =
            p.jobs.iter().enumerate().flat_map(|(i, j)| j.outputs.iter().map(move |t| (*t, i))).collect();
        for (i, job) in p.jobs.iter().enumerate() {
            for input in &job.inputs {
                let by =
                    written.get(input).unwrap_or_else(|| panic!("{} reads {input:?}, which no job writes", job.name()));
                assert!(*by < i && job.depends_on.contains(by), "{} reads {input:?} of a later job", job.name());
            }
        }
    }

    #[test]
    fn the_critical_path_is_a_chain_of_dependencies_and_no_shorter_than_any_job() {
        let p = plan(4);
        let (path, seconds) = p.critical_path();
        assert_eq!(path.first().map(|i| p.jobs[*i].name()), Some("0101".to_string()));
        for w in path.windows(2) {
            assert!(p.jobs[w[1]].depends_on.contains(&w[0]));
        }
        let sum: f64 = path.iter().map(|i| p.jobs[*i].seconds).sum();
        assert!((sum - seconds).abs() < 1e-9);
        assert!(p.jobs.iter().all(|j| j.seconds <= seconds));
        assert!(seconds < p.total_seconds());
    }

    /// A resumed build's path leaves the jobs done out and is still a chain of
    /// dependencies; with nothing done it is the whole build's, with everything done empty.
    #[test]
    fn the_critical_path_to_run_leaves_out_the_jobs_done() {
        let p = plan(4);
        let none = vec![false; p.jobs.len()];
        assert_eq!(p.critical_path_to_run(&none), p.critical_path());
        assert_eq!(p.seconds_to_run(&none), p.total_seconds());
        let done: Vec<bool> = p.jobs.iter().map(|j| j.pair[0].pieces() <= 3).collect();
        assert!(done.iter().any(|d| *d) && done.iter().any(|d| !*d));
        let (path, seconds) = p.critical_path_to_run(&done);
        assert!(!path.is_empty() && path.iter().all(|i| !done[*i]));
        for w in path.windows(2) {
            assert!(p.jobs[w[1]].depends_on.contains(&w[0]));
        }
        let sum: f64 = path.iter().map(|i| p.jobs[*i].seconds).sum();
        assert!((sum - seconds).abs() < 1e-9);
        assert!(seconds < p.critical_path().1);
        let left: f64 = p.jobs.iter().zip(&done).filter(|(_, d)| !**d).map(|(j, _)| j.seconds).sum();
        assert!((p.seconds_to_run(&done) - left).abs() < 1e-9 && left < p.total_seconds());
        let all = vec![true; p.jobs.len()];
        assert_eq!(p.critical_path_to_run(&all), (Vec::new(), 0.0));
        assert_eq!(p.seconds_to_run(&all), 0.0);
    }

    /// The measured speed-ups are the estimate's: exact at the thread counts measured,
    /// between them on the line, past them at the last efficiency, and never a thread
    /// worth more than one.
    #[test]
    fn estimates_follow_the_measured_thread_scaling() {
        let rates = Rates::default();
        for &(threads, speed_up) in MEASURED_SCALING {
            assert!((rates.effective_threads(threads) - 2.0 * speed_up).abs() < 1e-9, "{threads}");
        }
        assert_eq!(rates.effective_threads(1), 1.0);
        let mid = rates.effective_threads(12);
        assert!(mid > rates.effective_threads(8) && mid < rates.effective_threads(16));
        let last = rates.effective_threads(16) / 16.0;
        assert!((rates.effective_threads(64) / 64.0 - last).abs() < 1e-9);
        for threads in 1..=256 {
            let worth = rates.effective_threads(threads);
            assert!(worth <= threads as f64 + 1e-9 && worth >= rates.effective_threads(threads.saturating_sub(1)));
        }
        let at = |cpus| {
            let variant = Variant::INTERNATIONAL;
            let rules = DrawRules::new(DrawRuleSet::Fmjd, &variant);
            Plan::new(variant, Scope::Pieces(4), rules, cpus, Rates::default(), None).total_seconds()
        };
        let overhead = plan(4).jobs.len() as f64 * Rates::default().overhead;
        let ratio = (at(2) - overhead) / (at(16) - overhead);
        assert!((ratio - 6.58).abs() < 1e-6, "{ratio}");
    }

    #[test]
    fn a_job_budget_covers_its_working_state_and_its_inputs() {
        let (mut by_words, mut men_by_words) = (0, Vec::new());
        for job in plan(5).jobs {
            let inputs = held_input_bytes(Variant::INTERNATIONAL, &job.inputs);
            let needed = crate::solve::whole::whole_state_bytes(job.positions) + inputs;
            assert!(job.memory.pair_bytes() >= needed && !job.sliced && job.inputs_held, "{}", job.name());
            // One king against kings: room for the bit-parallel pass the rates assume.
            if crate::solve::king_words::pays_off(&Variant::INTERNATIONAL, job.pair[0]) {
                let words = crate::solve::king_words::working_bytes(Variant::INTERNATIONAL, job.pair[0]);
                assert!(job.memory.pair_bytes() >= words + inputs, "{}", job.name());
                if job.pair[0].men() == 0 {
                    by_words += 1;
                } else {
                    men_by_words.push(job.name());
                }
            }
        }
        assert_eq!(by_words, 4, "0101, 0102+0201, 0103+0301, 0104+0401");
        for named in ["0111+1101", "0113+1301", "1121+2111"] {
            assert!(men_by_words.iter().any(|n| n == named), "{named} not among {men_by_words:?}");
        }
    }

    /// Under a cap, the pairs too large for it are sized as the job will solve them: in
    /// slices, their state (as the job computes it on the plan's threads) within the
    /// budget given, which is the cap, or whole within it with some inputs read through
    /// the cache; the others as before.
    #[test]
    fn a_capped_plan_sizes_large_pairs_as_sliced_jobs_within_the_cap() {
        let cap = MemoryBudget::parse("256M").expect("size");
        for (variant, rules) in [(Variant::INTERNATIONAL, DrawRuleSet::Fmjd), (Variant::TURKISH, DrawRuleSet::None)] {
            let rules = DrawRules::new(rules, &variant);
            let capped = Plan::new(variant, Scope::Pieces(5), rules, 2, Rates::default(), Some(cap));
            let free = Plan::new(variant, Scope::Pieces(5), rules, 2, Rates::default(), None);
            let over = capped.over_cap();
            let (mut sliced, mut over_seen) = (0, 0);
            for (i, (job, unbounded)) in capped.jobs.iter().zip(&free.jobs).enumerate() {
                let at = format!("{} {}", variant.name, job.name());
                assert_eq!(job.name(), unbounded.name());
                // Whatever the job is given, its state as the job computes it fits.
                let (state, slices) = pair_state_bytes_on(variant, &job.pair, job.memory, 2);
                assert_eq!(slices, job.sliced, "{at}");
                assert!(state <= job.memory.pair_bytes(), "{at}: {state} bytes in {:?}", job.memory);
                if unbounded.memory.bytes <= cap.bytes {
                    assert!(job.memory == unbounded.memory && !job.sliced, "{at}");
                } else if job.memory.bytes <= cap.bytes {
                    // Sliced, or whole with some of its inputs read through the cache.
                    assert!(job.memory == cap && !job.inputs_held && !over.contains(&i), "{at}");
                    sliced += usize::from(job.sliced);
                } else {
                    assert!(over.contains(&i) && job.memory.bytes <= unbounded.memory.bytes, "{at}");
                    over_seen += 1;
                }
            }
            assert_eq!(over.len(), over_seen, "{}", variant.name);
            // Kings-only pairs have one men placement, the whole pair: over a small cap.
            assert!(over_seen > 0, "{}", variant.name);
            if variant.board.is_orthogonal() {
                assert_eq!(sliced, 0, "Turkish men step sideways: no slices");
            } else {
                assert!(sliced > 0, "{}", variant.name);
            }
        }
    }
}
