//! `kabe plan` and `kabe generate --pair`: the jobs of the plan, run one by one in its
//! order, give the files of a whole `kabe generate`; a job refuses missing and corrupt
//! inputs by name; a Slurm submission leaves out what is done.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn temp_dir(name: &str) -> common::TempDir {
    common::temp_dir(&format!("plan-{name}"))
}

fn kabe(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kabe")).args(args).arg("--tables").arg(dir).output().expect("run kabe")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn plan(dir: &Path, variant: &str) -> serde_json::Value {
    let out = kabe(&["plan", "--variant", variant, "--pieces", "3", "--cpus", "1", "--json"], dir);
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).expect("plan JSON")
}

fn pair_job(variant: &str, sig: &str, dir: &Path) -> Output {
    kabe(&["generate", "--variant", variant, "--pair", sig, "--memory", "512M"], dir)
}

/// Runs every job of the plan of `variant` 2-3 in the plan's order, checks the files
/// equal a whole `kabe generate --both-sides`'s, then that the plan's last step (`kabe
/// generate` over the finished pairs, which keeps one table of each pair) gives a whole
/// `kabe generate`'s; returns the directory of the jobs' files.
fn jobs_in_order_give_a_whole_build(variant: &str) -> common::TempDir {
    let whole = temp_dir(&format!("whole-{variant}"));
    assert!(kabe(&["generate", "--variant", variant, "--pieces", "3", "--both-sides"], &whole).status.success());
    let dir = temp_dir(&format!("jobs-{variant}"));
    let graph = plan(&dir, variant);
    let jobs = graph["jobs"].as_array().expect("jobs");
    assert!(jobs.iter().all(|j| j["status"] == "ready" || j["status"] == "waiting"));
    assert_eq!(jobs[0]["status"], "ready");
    let mut outputs = 0;
    for (i, job) in jobs.iter().enumerate() {
        for dep in job["depends_on"].as_array().expect("deps") {
            assert!(jobs[..i].iter().any(|j| j["name"] == *dep), "{dep} comes after {}", job["name"]);
        }
        let out = pair_job(variant, job["signatures"][0].as_str().expect("sig"), &dir);
        assert!(out.status.success(), "{variant}: {}", text(&out));
        outputs += job["outputs"].as_array().expect("outputs").len();
    }
    assert!(!common::table_files(&whole, variant).is_empty());
    assert_eq!(common::table_files(&dir, variant), common::table_files(&whole, variant), "{variant}");
    assert_eq!(common::table_files(&dir, variant).len(), outputs, "{variant}: the plan names every file a job writes");
    assert!(plan(&dir, variant)["jobs"].as_array().expect("jobs").iter().all(|j| j["status"] == "done"));
    let last = &graph["last_step"];
    assert!(last.as_str().is_some_and(|s| s.contains("generate") && s.contains("--pieces 3")), "{graph}");
    let compact = temp_dir(&format!("compact-{variant}"));
    assert!(kabe(&["generate", "--variant", variant, "--pieces", "3"], &compact).status.success());
    assert!(kabe(&["generate", "--variant", variant, "--pieces", "3"], &dir).status.success());
    assert_eq!(common::table_files(&dir, variant), common::table_files(&compact, variant), "{variant}: one side kept");
    assert!(!dir.join(variant).join("dropped").exists(), "{variant}: the default last step keeps nothing aside");
    assert!(plan(&dir, variant)["jobs"].as_array().expect("jobs").iter().all(|j| j["status"] == "done"));
    dir
}

#[test]
fn the_jobs_of_the_plan_in_order_give_the_files_of_a_whole_build() {
    let dir = jobs_in_order_give_a_whole_build("russian");
    // Done already: exits at once and touches nothing.
    let before = fs::metadata(dir.join("russian/1101.dtw.kabe")).and_then(|m| m.modified()).expect("mtime");
    let out = pair_job("russian", "0111", &dir);
    assert!(out.status.success() && text(&out).contains("already complete"), "{}", text(&out));
    assert_eq!(fs::metadata(dir.join("russian/1101.dtw.kabe")).and_then(|m| m.modified()).expect("mtime"), before);
}

/// The orthogonal board and its draw by material go through the same job graph: Turkish
/// pairs are solved whole (men step sideways, so no slices), and the rule-free tables
/// (draw rules `none`) are the files a whole build writes.
#[test]
fn turkish_jobs_of_the_plan_give_the_files_of_a_whole_build() {
    jobs_in_order_give_a_whole_build("turkish");
}

#[test]
fn a_job_refuses_missing_and_corrupt_inputs_by_name_and_writes_nothing() {
    let dir = temp_dir("inputs");
    let out = pair_job("russian", "1101", &dir);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out);
    assert!(err.contains("0111+1101 needs tables that are not built yet"), "{err}");
    assert!(err.contains("russian/0101.dtw.kabe") && err.contains("russian/0101.ussr1953.kabe"), "{err}");
    assert!(!dir.join("russian/1101.dtw.kabe").exists());

    for sig in ["0101", "0110", "1010", "0102"] {
        assert!(pair_job("russian", sig, &dir).status.success());
    }
    let input = dir.join("russian/0101.dtw.kabe");
    let mut bytes = fs::read(&input).expect("read");
    let middle = bytes.len() / 2 + 8;
    bytes[middle] ^= 0x10;
    fs::write(&input, bytes).expect("write");
    let out = pair_job("russian", "0111", &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains(&input.display().to_string()), "{}", text(&out));
    assert!(!dir.join("russian/0111.dtw.kabe").exists() && !dir.join("russian/1101.wld.kabe").exists());

    let out = pair_job("russian", "5555", &dir);
    assert!(text(&out).contains("signature 5555 has no table"), "{}", text(&out));
}

#[test]
fn a_slurm_submission_leaves_out_the_jobs_done_and_waits_on_the_rest() {
    let dir = temp_dir("slurm");
    for sig in ["0101", "0110"] {
        assert!(pair_job("russian", sig, &dir).status.success());
    }
    let sub = dir.join("submission");
    let out = kabe(
        &["plan", "--variant", "russian", "--pieces", "3", "--cpus", "3", "--slurm", sub.to_str().expect("utf-8")],
        &dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let submit = fs::read_to_string(sub.join("submit.sh")).expect("submit.sh");
    assert!(!submit.contains("jobs/0101.sbatch") && !submit.contains("jobs/0110.sbatch"), "{submit}");
    // 1010 reads only the done 0110+1001: no dependency. 0111+1101 waits on 0102+0201.
    assert!(submit.contains("j1010=$(submit \"$@\" jobs/1010.sbatch)"), "{submit}");
    assert!(submit.contains("j0111=$(submit --dependency=afterok:$j0102 \"$@\" jobs/0111.sbatch)"), "{submit}");
    let job = fs::read_to_string(sub.join("jobs/0111.sbatch")).expect("job script");
    for line in ["#SBATCH --cpus-per-task=3", "#SBATCH --mem=320M", "#SBATCH --kill-on-invalid-dep=yes"] {
        assert!(job.contains(line), "{line} missing from {job}");
    }
    assert!(job.contains("generate --pair 0111 --variant russian --rules ussr1953"), "{job}");
    assert!(!sub.join("jobs/0101.sbatch").exists());
    // The estimates of what is left leave the done jobs out, in the JSON and the text.
    let graph = plan(&dir, "russian");
    let to_run = graph["critical_path_to_run"]["jobs"].as_array().expect("path to run");
    assert!(!to_run.is_empty() && to_run.iter().all(|j| j != "0101" && j != "0110+1001"), "{graph}");
    assert_eq!(graph["critical_path"]["jobs"][0], "0101", "{graph}");
    let (all, left) = (graph["seconds"].as_f64().expect("seconds"), graph["seconds_to_run"].as_f64().expect("left"));
    assert!(left > 0.0 && left < all, "{graph}");
    let out = kabe(&["plan", "--variant", "russian", "--pieces", "3", "--cpus", "1"], &dir);
    let shown = text(&out);
    assert!(out.status.success() && shown.contains("of it to run"), "{shown}");
    assert!(shown.contains(&format!("critical path of the jobs to run ({} jobs", to_run.len())), "{shown}");
}

/// `kabe plan --keep-dropped` (or `--both-sides`) hands its choice to the last step, in
/// the JSON, the text and the Slurm script alike; the JSON's command, run as written on
/// pairs built on both sides, keeps one table of each pair and the dropped ones aside.
#[test]
fn the_last_step_keeps_the_sides_the_plan_was_asked_to_keep() {
    let dir = temp_dir("last-step");
    let plan_with = |option: &str| {
        let out = kabe(&["plan", "--variant", "russian", "--pieces", "3", "--cpus", "1", "--json", option], &dir);
        assert!(out.status.success(), "{}", text(&out));
        let graph: serde_json::Value = serde_json::from_slice(&out.stdout).expect("plan JSON");
        graph["last_step"].as_str().expect("last step").to_string()
    };
    let both = plan_with("--both-sides");
    assert!(both.contains(" --both-sides "), "{both}");
    let last = plan_with("--keep-dropped");
    let default = plan(&dir, "russian")["last_step"].to_string();
    assert!(last.contains(" --keep-dropped "), "{last}");
    assert!(!default.contains("--keep") && !default.contains("--both"), "{default}");
    let out = kabe(&["plan", "--variant", "russian", "--pieces", "3", "--keep-dropped"], &dir);
    let printed = text(&out);
    assert!(
        printed.contains("--keep-dropped --tables DIR (keeps one table of each pair, the dropped ones aside)"),
        "{printed}"
    );
    let out = kabe(&["plan", "--variant", "russian", "--pieces", "3", "--keep-dropped", "--both-sides"], &dir);
    assert!(!out.status.success() && text(&out).contains("cannot be used with"), "{}", text(&out));
    // `kabe generate` takes the same two options: they conflict there too, and a one-pair
    // job takes neither (what is kept is the last step's choice).
    let refused: [&[&str]; 3] = [
        &["--pieces", "3", "--keep-dropped", "--both-sides"],
        &["--pair", "0201", "--keep-dropped"],
        &["--pair", "0201", "--both-sides"],
    ];
    for options in refused {
        let out = kabe(&[&["generate", "--variant", "russian"], options].concat(), &dir);
        assert!(!out.status.success() && text(&out).contains("cannot be used with"), "{options:?}: {}", text(&out));
    }

    let sub = dir.join("submission");
    for option in ["--keep-dropped", "--both-sides"] {
        let out = kabe(
            &["plan", "--variant", "russian", "--pieces", "3", option, "--slurm", sub.to_str().expect("utf-8")],
            &dir,
        );
        assert!(out.status.success(), "{}", text(&out));
        let script = fs::read_to_string(sub.join("jobs/last.sbatch")).expect("last.sbatch");
        assert!(script.contains(&format!("--pieces 3 {option} --tables")), "{script}");
    }

    assert!(kabe(&["generate", "--variant", "russian", "--pieces", "3", "--both-sides"], &dir).status.success());
    // As written: `kabe ARGS --tables DIR`, the directory quoted for a shell.
    let args: Vec<&str> = last.strip_prefix("kabe ").expect("a kabe command").split(" --tables ").collect();
    let out = Command::new(env!("CARGO_BIN_EXE_kabe"))
        .args(args[0].split_whitespace())
        .arg("--tables")
        .arg(args[1].trim_matches('\''))
        .output()
        .expect("run kabe");
    assert!(out.status.success(), "{}", text(&out));
    let compact = temp_dir("last-step-compact");
    assert!(kabe(&["generate", "--variant", "russian", "--pieces", "3"], &compact).status.success());
    assert_eq!(common::table_files(&dir, "russian"), common::table_files(&compact, "russian"), "one side kept");
    let aside = fs::read_dir(dir.join("russian/dropped")).expect("the dropped tables kept aside").count();
    assert!(aside > 0, "nothing kept aside");
}
