//! `kabe plan`: the build as a job graph, its estimates and critical path, and a Slurm
//! submission of it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_generator::files::write_whole;
use kabe_generator::{table_path, Job, MemoryBudget, Plan, Rates, Scope, SidesKept};
use kabe_probe::Signature;
use serde_json::json;

use crate::args::{rules_arg, scope_arg, TableSet};
use crate::output::mebibytes;

/// Arguments of `kabe plan`.
#[derive(Args)]
pub struct PlanArgs {
    #[command(flatten)]
    tables: TableSet,
    /// Largest number of pieces.
    #[arg(long, short, default_value_t = 4)]
    pieces: u32,
    /// Plan one signature's closure instead (as `kabe generate --closure`).
    #[arg(long, conflicts_with = "pieces")]
    closure: Option<String>,
    /// Draw rules whose rule tables the jobs build (default: the variant's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// Threads (cores) per job: the estimates assume them, and the Slurm jobs ask for them.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1024))]
    cpus: u64,
    /// The most memory one job may ask for (a node's memory, e.g. 4G): a pair whose whole
    /// working state is larger is planned as a job that solves it one men placement at a
    /// time within this. Default: each job asks for what its whole pair needs.
    #[arg(long, value_name = "SIZE", value_parser = MemoryBudget::parse)]
    job_memory: Option<MemoryBudget>,
    /// Print the graph as JSON.
    #[arg(long)]
    json: bool,
    /// Write a Slurm submission into this directory: one batch script per job still to
    /// run, with its dependencies, and submit.sh.
    #[arg(long, value_name = "DIR")]
    slurm: Option<PathBuf>,
    /// The kabe binary the jobs run (default: this one).
    #[arg(long, value_name = "PATH")]
    kabe: Option<PathBuf>,
    #[command(flatten)]
    sides: crate::args::Sides,
}

pub fn plan(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    let (variant, dir) = args.tables.resolve()?;
    let rules = rules_arg(args.rules, &variant)?;
    let scope = scope_arg(&variant, args.pieces, args.closure.as_deref())?;
    let plan = Plan::new(variant, scope, rules, args.cpus as usize, Rates::default(), args.job_memory);
    let done: Vec<bool> = (0..plan.jobs.len()).map(|i| plan.is_done(&dir, i)).collect();
    let over: Vec<String> = plan
        .over_cap()
        .into_iter()
        .map(|i| format!("{} ({})", plan.jobs[i].name(), mebibytes(plan.jobs[i].memory.bytes)))
        .collect();
    if let Some(out) = &args.slurm {
        anyhow::ensure!(
            over.is_empty(),
            "{} jobs need more than --job-memory even solved in slices: {}; raise it or give --cpus fewer \
             threads (each slice worker holds one men placement)",
            over.len(),
            over.join(", ")
        );
        let kabe = match &args.kabe {
            Some(path) => path.clone(),
            None => std::env::current_exe().context("finding this kabe binary")?,
        };
        let written = write_slurm(&plan, args.sides.kept(), &done, &dir, out, &kabe)?;
        outln!(
            "{}: {written} jobs to run ({} already done in {}); submit with: bash {}/submit.sh [sbatch options]",
            out.display(),
            plan.jobs.len() - written,
            dir.display(),
            out.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.json {
        outln!("{}", plan_json(&plan, args.sides.kept(), &done, &dir))?;
    } else {
        print_plan(&plan, args.sides.kept(), &done, scope)?;
        if !over.is_empty() {
            outln!("over --job-memory even solved in slices: {}", over.join(", "))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn status(plan: &Plan, done: &[bool], i: usize) -> &'static str {
    if done[i] {
        "done"
    } else if plan.jobs[i].depends_on.iter().all(|d| done[*d]) {
        "ready"
    } else {
        "waiting"
    }
}

fn file_names(plan: &Plan, dir: &Path, tables: &[kabe_generator::TableId]) -> Vec<String> {
    tables.iter().map(|(s, m)| table_path(dir, &plan.variant, *s, *m).display().to_string()).collect()
}

fn plan_json(plan: &Plan, kept: SidesKept, done: &[bool], dir: &Path) -> serde_json::Value {
    let (path, critical) = plan.critical_path();
    let (path_to_run, critical_to_run) = plan.critical_path_to_run(done);
    let jobs: Vec<serde_json::Value> = plan
        .jobs
        .iter()
        .enumerate()
        .map(|(i, job)| {
            json!({
                "name": job.name(),
                "signatures": job.pair.iter().map(Signature::to_string).collect::<Vec<_>>(),
                "positions": job.positions,
                "rule_positions": job.rule_positions,
                "memory_bytes": job.memory.bytes,
                "sliced": job.sliced,
                "over_job_memory": plan.job_memory.is_some_and(|cap| job.memory.bytes > cap.bytes),
                "seconds": job.seconds,
                "depends_on": job.depends_on.iter().map(|d| plan.jobs[*d].name()).collect::<Vec<_>>(),
                "inputs": file_names(plan, dir, &job.inputs),
                "outputs": file_names(plan, dir, &job.outputs),
                "status": status(plan, done, i),
            })
        })
        .collect();
    json!({
        "variant": plan.variant.name,
        "rules": plan.rules.set.name(),
        "dir": dir.display().to_string(),
        "threads_per_job": plan.threads,
        "job_memory_bytes": plan.job_memory.map(|m| m.bytes),
        "positions": plan.jobs.iter().map(|j| j.positions).sum::<u64>(),
        "seconds": plan.total_seconds(),
        "critical_path": { "jobs": path.iter().map(|i| plan.jobs[*i].name()).collect::<Vec<_>>(), "seconds": critical },
        "seconds_to_run": plan.seconds_to_run(done),
        "critical_path_to_run": {
            "jobs": path_to_run.iter().map(|i| plan.jobs[*i].name()).collect::<Vec<_>>(),
            "seconds": critical_to_run
        },
        "done": done.iter().filter(|d| **d).count(),
        "jobs": jobs,
        "last_step": format!("kabe {} --tables {}", plan.last_step_args(kept), shell_quote(dir)),
    })
}

fn print_plan(plan: &Plan, kept: SidesKept, done: &[bool], scope: Scope) -> anyhow::Result<()> {
    let what = match scope {
        Scope::Pieces(n) => format!("up to {n} pieces"),
        Scope::Closure(sig) => format!("the closure of {sig}"),
    };
    let positions: u64 = plan.jobs.iter().map(|j| j.positions).sum();
    let finished = done.iter().filter(|d| **d).count();
    outln!(
        "{} {what}, {} rule tables: {} jobs (one per pair), {} positions; {finished} done, {} to run",
        plan.variant.name,
        plan.rules.set.name(),
        plan.jobs.len(),
        positions,
        plan.jobs.len() - finished
    )?;
    outln!(
        "{:<10} {:>15} {:>15} {:>9} {:>11} {:>7}  {:<8} needs the tables of",
        "job",
        "positions",
        "rule positions",
        "memory",
        "est. time",
        "outputs",
        "status"
    )?;
    for (i, job) in plan.jobs.iter().enumerate() {
        outln!(
            "{:<10} {:>15} {:>15} {:>9} {:>11} {:>7}  {:<8} {}",
            job.name(),
            job.positions,
            job.rule_positions,
            format!("{}{}", mebibytes(job.memory.bytes), if job.sliced { "*" } else { "" }),
            duration(job.seconds),
            job.outputs.len(),
            status(plan, done, i),
            job.depends_on.iter().map(|d| plan.jobs[*d].name()).collect::<Vec<_>>().join(" ")
        )?;
    }
    if plan.jobs.iter().any(|j| j.sliced) {
        outln!("*: solved one men placement at a time within --job-memory")?;
    }
    outln!("last, after every job: kabe {} --tables DIR ({})", plan.last_step_args(kept), kept.describe())?;
    // A resumed build is timed by what is left; with nothing done that is the whole build.
    let (path, critical) = plan.critical_path_to_run(done);
    let (total, left) = (plan.total_seconds(), plan.seconds_to_run(done));
    let of_what = if finished == 0 { "" } else { " of the jobs to run" };
    outln!(
        "estimates on {} threads a job (rates measured on a 2-core AMD EPYC Zen 4 VM, thread scaling on a 16-core Xeon VM): {} of job time in all{}",
        plan.threads,
        duration(total),
        if finished == 0 { String::new() } else { format!(", {} of it to run", duration(left)) }
    )?;
    outln!(
        "critical path{of_what} ({} jobs, {}): {}",
        path.len(),
        duration(critical),
        path.iter().map(|i| plan.jobs[*i].name()).collect::<Vec<_>>().join(" -> ")
    )?;
    let nodes: Vec<String> =
        [1u32, 4, 16, 64].iter().map(|n| format!("{n}: {}", duration(critical.max(left / *n as f64)))).collect();
    outln!("wall time{of_what} at least, by nodes running one job each: {}", nodes.join(", "))?;
    Ok(())
}

fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=59 => format!("{seconds:.1}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        3600..=172_799 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{:.1}d", seconds / 86_400.0),
    }
}

/// A name Slurm and the shell both take: the pair's first signature.
fn job_id(job: &Job) -> String {
    job.pair[0].to_string()
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// Writes one batch script per job not done and `submit.sh`; returns the jobs written.
fn write_slurm(
    plan: &Plan,
    kept: SidesKept,
    done: &[bool],
    dir: &Path,
    out: &Path,
    kabe: &Path,
) -> anyhow::Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let dir = dir.canonicalize().with_context(|| format!("resolving {}", dir.display()))?;
    let kabe = kabe.canonicalize().with_context(|| format!("finding the kabe binary {}", kabe.display()))?;
    let out = prepare_out(out)?;
    let mut submit = String::from(
        "#!/usr/bin/env bash\n\
         # Submits the kabe build below to Slurm, each job after the jobs whose tables it reads.\n\
         # Arguments go to every sbatch call: bash submit.sh --partition=long --account=proj --time=4:00:00\n\
         # Job ids and pairs go to submitted.txt, for squeue, scancel and scripts/slurm/wait.sh.\n\
         set -euo pipefail\n\
         cd \"$(dirname \"$0\")\"\n\
         : >submitted.txt\n\
         submit() { local id; id=$(sbatch --parsable \"$@\"); echo \"${id%%;*}\"; }\n",
    );
    let mut written = 0;
    for (i, job) in plan.jobs.iter().enumerate() {
        if done[i] {
            continue;
        }
        let name = job_id(job);
        write_whole(
            &out.join("jobs").join(format!("{name}.sbatch")),
            batch_script(plan, job, &dir, &out, &kabe).as_bytes(),
        )?;
        let deps: Vec<String> =
            job.depends_on.iter().filter(|d| !done[**d]).map(|d| format!("$j{}", job_id(&plan.jobs[*d]))).collect();
        let dependency =
            if deps.is_empty() { String::new() } else { format!(" --dependency=afterok:{}", deps.join(":")) };
        let _ = writeln!(submit, "j{name}=$(submit{dependency} \"$@\" jobs/{name}.sbatch)");
        let _ = writeln!(submit, "echo \"$j{name} {}\" | tee -a submitted.txt", job.name());
        written += 1;
    }
    write_whole(&out.join("jobs").join("last.sbatch"), last_script(plan, kept, &dir, &out, &kabe).as_bytes())?;
    let all: Vec<String> =
        plan.jobs.iter().enumerate().filter(|(i, _)| !done[*i]).map(|(_, j)| format!("$j{}", job_id(j))).collect();
    let dependency = if all.is_empty() { String::new() } else { format!(" --dependency=afterok:{}", all.join(":")) };
    let _ = writeln!(submit, "jlast=$(submit{dependency} \"$@\" jobs/last.sbatch)");
    let _ = writeln!(submit, "echo \"$jlast last\" | tee -a submitted.txt");
    if let Some(at) = submit.find(": >submitted.txt") {
        submit.insert_str(at, &node_check(plan, done));
    }
    let submit_path = out.join("submit.sh");
    write_whole(&submit_path, submit.as_bytes())?;
    write_whole(&out.join("plan.json"), plan_json(plan, kept, done, &dir).to_string().as_bytes())?;
    Ok(written)
}

/// Makes `out`'s `jobs` and `logs` folders, with no batch script of an earlier plan left
/// in `jobs`; returns `out` resolved.
fn prepare_out(out: &Path) -> anyhow::Result<PathBuf> {
    // Folders of kabe's own making: a link planted at `jobs` would send the scripts
    // elsewhere, so anything but a folder there is refused by name.
    for sub in ["jobs", "logs"] {
        kabe_generator::files::own_folder(&out.join(sub))?;
    }
    let out = out.canonicalize().with_context(|| format!("resolving {}", out.display()))?;
    // Scripts of an earlier plan written here would be submitted by nothing, but mislead.
    for entry in
        std::fs::read_dir(out.join("jobs")).with_context(|| format!("reading {}", out.join("jobs").display()))?
    {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "sbatch") {
            kabe_generator::files::remove_own(&path)?;
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
        time = duration(job.seconds),
        kabe = shell_quote(kabe),
        rules = plan.rules.set.name(),
        dir = shell_quote(dir),
        budget = job.memory.bytes >> 20,
    )
}
