//! A plan as a user reads it ([`PlanReport`]): every job with its size, estimate and
//! status against the tables on disk, the critical path and the step after the jobs, as
//! JSON (`kabe plan --json`, a Slurm submission's `plan.json`) and as text.

use std::fmt;
use std::path::Path;

use kabe_probe::Signature;
use serde_json::{json, Value};

use crate::build::one_side::SidesKept;
use crate::build::plan::Plan;
use crate::build::{table_path, Scope};
use crate::pair::TableId;

/// A plan with what is done of it: `done[i]` when job `i`'s tables are all on disk under
/// `dir` ([`Plan::is_done`]).
#[derive(Clone, Copy, Debug)]
pub struct PlanReport<'a> {
    /// The plan.
    pub plan: &'a Plan,
    /// What the last step keeps of each pair.
    pub kept: SidesKept,
    /// Which jobs are done.
    pub done: &'a [bool],
    /// The table directory.
    pub dir: &'a Path,
}

/// `seconds` as a person reads a duration: `12.5s`, `3m05s`, `4h10m`, `2.5d`.
pub fn duration_text(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=59 => format!("{seconds:.1}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        3600..=172_799 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{:.1}d", seconds / 86_400.0),
    }
}

/// `bytes` as whole mebibytes, rounded up, in the form `--memory` reads (`512M`).
pub(crate) fn mebibytes(bytes: u64) -> String {
    format!("{}M", bytes.div_ceil(1 << 20))
}

/// `path` quoted for a POSIX shell.
pub(crate) fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

impl PlanReport<'_> {
    /// `done`, `ready` (every job it depends on done) or `waiting`.
    pub fn status(&self, i: usize) -> &'static str {
        if self.done[i] {
            "done"
        } else if self.plan.jobs[i].depends_on.iter().all(|d| self.done[*d]) {
            "ready"
        } else {
            "waiting"
        }
    }

    /// The jobs over the memory cap even solved in slices, as `NAME (SIZE)`.
    pub fn over_cap(&self) -> Vec<String> {
        let jobs = &self.plan.jobs;
        self.plan
            .over_cap()
            .into_iter()
            .map(|i| format!("{} ({})", jobs[i].name(), mebibytes(jobs[i].memory.bytes)))
            .collect()
    }

    fn names(&self, jobs: &[usize]) -> Vec<String> {
        jobs.iter().map(|i| self.plan.jobs[*i].name()).collect()
    }

    fn file_names(&self, tables: &[TableId]) -> Vec<String> {
        tables.iter().map(|(s, m)| table_path(self.dir, &self.plan.variant, *s, *m).display().to_string()).collect()
    }

    fn job_json(&self, i: usize) -> Value {
        let (plan, job) = (self.plan, &self.plan.jobs[i]);
        json!({
            "name": job.name(),
            "signatures": job.pair.iter().map(Signature::to_string).collect::<Vec<_>>(),
            "positions": job.positions,
            "rule_positions": job.rule_positions,
            "memory_bytes": job.memory.bytes,
            "sliced": job.sliced,
            "inputs_held": job.inputs_held,
            "over_job_memory": plan.job_memory.is_some_and(|cap| job.memory.bytes > cap.bytes),
            "seconds": job.seconds,
            "depends_on": self.names(&job.depends_on),
            "inputs": self.file_names(&job.inputs),
            "outputs": self.file_names(&job.outputs),
            "status": self.status(i),
        })
    }

    /// The graph: every job with its tables, size, estimate and status, the critical
    /// paths, and the last step's command.
    pub fn to_json(&self) -> Value {
        let plan = self.plan;
        let (path, critical) = plan.critical_path();
        let (path_to_run, critical_to_run) = plan.critical_path_to_run(self.done);
        json!({
            "variant": plan.variant.name,
            "rules": plan.rules.set.name(),
            "dir": self.dir.display().to_string(),
            "threads_per_job": plan.threads,
            "job_memory_bytes": plan.job_memory.map(|m| m.bytes),
            "positions": plan.jobs.iter().map(|j| j.positions).sum::<u64>(),
            "seconds": plan.total_seconds(),
            "critical_path": { "jobs": self.names(&path), "seconds": critical },
            "seconds_to_run": plan.seconds_to_run(self.done),
            "critical_path_to_run": { "jobs": self.names(&path_to_run), "seconds": critical_to_run },
            "done": self.done.iter().filter(|d| **d).count(),
            "jobs": (0..plan.jobs.len()).map(|i| self.job_json(i)).collect::<Vec<_>>(),
            "last_step": format!("kabe {} --tables {}", plan.last_step_args(self.kept), shell_quote(self.dir)),
        })
    }

    /// The table of jobs: a header and one row each.
    fn jobs_text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = ("job", "positions", "rule positions", "memory", "est. time", "outputs", "status");
        let (a, b, c, d, e, g, h) = header;
        writeln!(f, "{a:<10} {b:>15} {c:>15} {d:>9} {e:>11} {g:>7}  {h:<8} needs the tables of")?;
        for (i, job) in self.plan.jobs.iter().enumerate() {
            let mark = match (job.sliced, job.inputs_held) {
                (true, _) => "*",
                (false, false) => "+",
                (false, true) => "",
            };
            let memory = format!("{}{mark}", mebibytes(job.memory.bytes));
            writeln!(
                f,
                "{:<10} {:>15} {:>15} {:>9} {:>11} {:>7}  {:<8} {}",
                job.name(),
                job.positions,
                job.rule_positions,
                memory,
                duration_text(job.seconds),
                job.outputs.len(),
                self.status(i),
                self.names(&job.depends_on).join(" ")
            )?;
        }
        Ok(())
    }

    /// The estimates: job time in all, the critical path and the wall time by nodes.
    fn estimates_text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plan = self.plan;
        let finished = self.done.iter().filter(|d| **d).count();
        // A resumed build is timed by what is left; with nothing done that is the whole build.
        let (path, critical) = plan.critical_path_to_run(self.done);
        let (total, left) = (plan.total_seconds(), plan.seconds_to_run(self.done));
        let of_what = if finished == 0 { "" } else { " of the jobs to run" };
        let to_run = if finished == 0 { String::new() } else { format!(", {} of it to run", duration_text(left)) };
        writeln!(
            f,
            "estimates on {} threads a job (rates measured on a 2-core AMD EPYC Zen 4 VM, thread scaling on a 16-core Xeon VM): {} of job time in all{to_run}",
            plan.threads,
            duration_text(total),
        )?;
        let (jobs, time) = (path.len(), duration_text(critical));
        writeln!(f, "critical path{of_what} ({jobs} jobs, {time}): {}", self.names(&path).join(" -> "))?;
        let nodes: Vec<String> = [1u32, 4, 16, 64]
            .iter()
            .map(|n| format!("{n}: {}", duration_text(critical.max(left / *n as f64))))
            .collect();
        write!(f, "wall time{of_what} at least, by nodes running one job each: {}", nodes.join(", "))
    }
}

/// What the plan builds, its jobs, the last step and the estimates: `kabe plan`.
impl fmt::Display for PlanReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plan = self.plan;
        let what = match plan.scope {
            Scope::Pieces(n) => format!("up to {n} pieces"),
            Scope::Closure(sig) => format!("the closure of {sig}"),
        };
        let positions: u64 = plan.jobs.iter().map(|j| j.positions).sum();
        let (jobs, finished) = (plan.jobs.len(), self.done.iter().filter(|d| **d).count());
        let (variant, rules, to_run) = (plan.variant.name, plan.rules.set.name(), jobs - finished);
        writeln!(
            f,
            "{variant} {what}, {rules} rule tables: {jobs} jobs (one per pair), {positions} positions; {finished} done, {to_run} to run"
        )?;
        self.jobs_text(f)?;
        if plan.jobs.iter().any(|j| j.sliced) {
            writeln!(f, "*: solved one men placement at a time within --job-memory")?;
        }
        if plan.jobs.iter().any(|j| !j.sliced && !j.inputs_held) {
            writeln!(
                f,
                "+: its inputs do not all fit beside its state within --job-memory: read through the cache, slower than estimated"
            )?;
        }
        writeln!(
            f,
            "last, after every job: kabe {} --tables DIR ({})",
            plan.last_step_args(self.kept),
            self.kept.describe()
        )?;
        self.estimates_text(f)?;
        let over = self.over_cap();
        if !over.is_empty() {
            write!(f, "\nover --job-memory even solved in slices: {}", over.join(", "))?;
        }
        Ok(())
    }
}
