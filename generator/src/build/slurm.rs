//! A plan as a Slurm submission ([`write_slurm`]): one batch script per job still to run,
//! each after the jobs whose tables it reads, a last script that finds every pair
//! complete, and `submit.sh`, which checks the partition's nodes and submits them. Every
//! file is written through [`crate::files`]: new and exclusive, no link followed.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use crate::build::one_side::SidesKept;
use crate::build::plan::{Job, Plan};
use crate::build::plan_report::{duration_text, shell_quote, PlanReport};
use crate::files::{own_folder, remove_own, write_whole};

/// Why a submission could not be written; each case names the path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SlurmError {
    /// The table directory could not be made or resolved.
    #[error("{what} {}: {source}", path.display())]
    Path {
        /// `creating`, `resolving`, `reading`.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// The kabe binary the jobs run is not there.
    #[error("finding the kabe binary {}: {source}", path.display())]
    Binary {
        /// The path given.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// A folder or script could not be made (the message names it).
    #[error(transparent)]
    Write(#[from] io::Error),
}

fn at(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SlurmError {
    let path = path.to_path_buf();
    move |source| SlurmError::Path { what, path, source }
}

/// A name Slurm and the shell both take: the pair's first signature.
fn job_id(job: &Job) -> String {
    job.pair[0].to_string()
}

/// Writes into `out` one batch script per job of `plan` not `done`, the last step's
/// script (keeping `kept`), `submit.sh` and `plan.json`, the jobs running `kabe` on the
/// tables in `dir`; returns the jobs written.
///
/// # Errors
/// [`SlurmError`], naming the path: `dir` cannot be made, `kabe` is not there, a file
/// or folder of `out` cannot be written (a link or a non-folder where kabe keeps its
/// own is refused).
pub fn write_slurm(
    plan: &Plan,
    kept: SidesKept,
    done: &[bool],
    dir: &Path,
    out: &Path,
    kabe: &Path,
) -> Result<usize, SlurmError> {
    std::fs::create_dir_all(dir).map_err(at("creating", dir))?;
    let dir = dir.canonicalize().map_err(at("resolving", dir))?;
    let kabe = kabe.canonicalize().map_err(|source| SlurmError::Binary { path: kabe.to_path_buf(), source })?;
    let out = prepare_out(out)?;
    let mut written = 0;
    for (i, job) in plan.jobs.iter().enumerate() {
        if !done[i] {
            let script = batch_script(plan, job, &dir, &out, &kabe);
            write_whole(&out.join("jobs").join(format!("{}.sbatch", job_id(job))), script.as_bytes())?;
            written += 1;
        }
    }
    write_whole(&out.join("jobs").join("last.sbatch"), last_script(plan, kept, &dir, &out, &kabe).as_bytes())?;
    write_whole(&out.join("submit.sh"), submit_script(plan, done).as_bytes())?;
    let report = PlanReport { plan, kept, done, dir: &dir };
    write_whole(&out.join("plan.json"), report.to_json().to_string().as_bytes())?;
    Ok(written)
}

/// `submit.sh`: the node check, then each job not done submitted after the jobs it
/// waits on, and the last step after them all; job ids go to `submitted.txt`.
fn submit_script(plan: &Plan, done: &[bool]) -> String {
    let mut submit = String::from(
        "#!/usr/bin/env bash\n\
         # Submits the kabe build below to Slurm, each job after the jobs whose tables it reads.\n\
         # Arguments go to every sbatch call: bash submit.sh --partition=long --account=proj --time=4:00:00\n\
         # Job ids and pairs go to submitted.txt, for squeue, scancel and scripts/slurm/wait.sh.\n\
         set -euo pipefail\n\
         cd \"$(dirname \"$0\")\"\n",
    );
    submit.push_str(&node_check(plan, done));
    submit.push_str(
        ": >submitted.txt\n\
         submit() { local id; id=$(sbatch --parsable \"$@\"); echo \"${id%%;*}\"; }\n",
    );
    let waits_on = |jobs: &mut dyn Iterator<Item = &Job>| {
        let ids: Vec<String> = jobs.map(|j| format!("$j{}", job_id(j))).collect();
        if ids.is_empty() {
            String::new()
        } else {
            format!(" --dependency=afterok:{}", ids.join(":"))
        }
    };
    for (i, job) in plan.jobs.iter().enumerate().filter(|(i, _)| !done[*i]) {
        let name = job_id(job);
        let dependency = waits_on(&mut job.depends_on.iter().filter(|d| !done[**d]).map(|d| &plan.jobs[*d]));
        let _ = writeln!(submit, "j{name}=$(submit{dependency} \"$@\" jobs/{name}.sbatch)");
        let _ = writeln!(submit, "echo \"$j{name} {}\" | tee -a submitted.txt", plan.jobs[i].name());
    }
    let dependency = waits_on(&mut plan.jobs.iter().enumerate().filter(|(i, _)| !done[*i]).map(|(_, j)| j));
    let _ = writeln!(submit, "jlast=$(submit{dependency} \"$@\" jobs/last.sbatch)");
    let _ = writeln!(submit, "echo \"$jlast last\" | tee -a submitted.txt");
    submit
}

/// Makes `out`'s `jobs` and `logs` folders, with no batch script of an earlier plan left
/// in `jobs`; returns `out` resolved.
fn prepare_out(out: &Path) -> Result<PathBuf, SlurmError> {
    // Folders of kabe's own making: a link planted at `jobs` would send the scripts
    // elsewhere, so anything but a folder there is refused by name.
    for sub in ["jobs", "logs"] {
        own_folder(&out.join(sub))?;
    }
    let out = out.canonicalize().map_err(at("resolving", out))?;
    // Scripts of an earlier plan written here would be submitted by nothing, but mislead.
    let jobs = out.join("jobs");
    for entry in std::fs::read_dir(&jobs).map_err(at("reading", &jobs))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "sbatch") {
            remove_own(&path)?;
        }
    }
    Ok(out)
}

/// The batch script that runs last, after every job: it finds every pair complete and
/// keeps its tables as `kept` says.
fn last_script(plan: &Plan, kept: SidesKept, dir: &Path, out: &Path, kabe: &Path) -> String {
    format!(
        "#!/usr/bin/env bash\n\
         #SBATCH --job-name=kabe-{variant}-last\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --mem=1024M\n\
         #SBATCH --output={logs}/%x-%j.out\n\
         #SBATCH --kill-on-invalid-dep=yes\n\
         # Checks every pair is complete and {kept}.\n\
         set -euo pipefail\n\
         exec {kabe} {args} --tables {dir} --memory 768M\n",
        variant = plan.variant.name,
        cpus = plan.threads,
        logs = out.join("logs").display(),
        kabe = shell_quote(kabe),
        args = plan.last_step_args(kept),
        kept = kept.describe(),
        dir = shell_quote(dir),
    )
}

/// The shell that `submit.sh` runs before any job goes in: a job asking more CPUs or
/// memory than any node of the partition has would pend for ever (reason
/// PartitionConfig) with no word why.
fn node_check(plan: &Plan, done: &[bool]) -> String {
    let most_mem = plan
        .jobs
        .iter()
        .enumerate()
        .filter(|(i, _)| !done[*i])
        .map(|(_, j)| (j.memory.bytes + j.memory.bytes / 4).div_ceil(1 << 20))
        .max()
        .unwrap_or(0);
    format!(
        "need_cpus={cpus}\n\
         need_mem={most_mem}\n\
         partition=\n\
         prev=\n\
         for a in \"$@\"; do\n  \
           case \"$prev\" in -p|--partition) partition=$a ;; esac\n  \
           case \"$a\" in --partition=*) partition=${{a#--partition=}} ;; esac\n  \
           prev=$a\n\
         done\n\
         nodes=$(sinfo -h -N ${{partition:+-p \"$partition\"}} -o '%c %m' 2>/dev/null || true)\n\
         if [ -n \"$nodes\" ]; then\n  \
           max_cpus=$(echo \"$nodes\" | awk '{{print $1+0}}' | sort -n | tail -n 1)\n  \
           max_mem=$(echo \"$nodes\" | awk '{{print $2+0}}' | sort -n | tail -n 1)\n  \
           where=${{partition:-the default partition}}\n  \
           if [ \"$max_cpus\" -lt \"$need_cpus\" ]; then\n    \
             echo \"submit.sh: each job asks $need_cpus CPUs, and the largest node of $where has $max_cpus: \\\n\
         plan again with kabe plan --cpus $max_cpus (nothing submitted)\" >&2\n    \
             exit 2\n  \
           fi\n  \
           if [ \"$max_mem\" -lt \"$need_mem\" ]; then\n    \
             echo \"submit.sh: a job asks ${{need_mem}}M of memory, and the largest node of $where has ${{max_mem}}M: \\\n\
         plan again with kabe plan --job-memory ${{max_mem}}M (nothing submitted)\" >&2\n    \
             exit 2\n  \
           fi\n\
         fi\n",
        cpus = plan.threads,
    )
}

/// One job: the pair's `kabe generate --pair`, with the memory and cores of the plan.
/// `--mem` is the job's budget and a quarter more: the budget bounds what kabe
/// allocates, the scheduler may also count mapped table pages.
fn batch_script(plan: &Plan, job: &Job, dir: &Path, out: &Path, kabe: &Path) -> String {
    let mem = (job.memory.bytes + job.memory.bytes / 4).div_ceil(1 << 20);
    format!(
        "#!/usr/bin/env bash\n\
         #SBATCH --job-name=kabe-{variant}-{name}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --mem={mem}M\n\
         #SBATCH --output={logs}/%x-%j.out\n\
         #SBATCH --kill-on-invalid-dep=yes\n\
         # {pair}: {positions} positions, {rule_positions} rule positions, estimated {time} on {cpus} cores.\n\
         set -euo pipefail\n\
         exec {kabe} generate --pair {name} --variant {variant} --rules {rules} --tables {dir} \\\n    \
         --memory {budget}M --threads \"${{SLURM_CPUS_PER_TASK:-{cpus}}}\"\n",
        variant = plan.variant.name,
        name = job_id(job),
        pair = job.name(),
        cpus = plan.threads,
        logs = out.join("logs").display(),
        positions = job.positions,
        rule_positions = job.rule_positions,
        time = duration_text(job.seconds),
        kabe = shell_quote(kabe),
        rules = plan.rules.set.name(),
        dir = shell_quote(dir),
        budget = job.memory.bytes >> 20,
    )
}
