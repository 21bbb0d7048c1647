//! Checkpoints of a pair solved in memory.
//!
//! A six-piece pair's pass runs for up to an hour on two cores, and a build stopped in it
//! (a signal, the end of a session) would solve the pair again from its first position.
//! So the pass's working state, two bytes a position, is written to disk now and then
//! ([`CHECKPOINT_EVERY`]), where it is consistent: between two plies of the theoretical
//! pass, between two groups of components of the rule pass. A run that finds the
//! checkpoint of the same pair and pass loads it and goes on from there; the values it
//! ends with are those of a run never stopped (tests in `whole` and `rules`).
//!
//! The file is written aside and renamed, so it is whole or absent. It names what it
//! holds (the layout of the state, the pair, the pass, the size of each table) and ends
//! with a checksum (xxh3) of those lines and its values: another pair's file, an older kabe's or a damaged one
//! is never loaded, the pass starts afresh and overwrites it. A checkpoint that cannot be
//! written (a full disk) costs only the resumption: it is reported
//! ([`CheckpointEvent::NotWritten`]) and the pass goes on without checkpoints.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::files::NewFile;

/// How long a pass runs between two checkpoints: a short pass writes none, a long one
/// loses at most this much when stopped. Writing the state of the largest 6-piece pair
/// (8.3 GB) takes under half a minute here, a few per cent of the interval.
pub(crate) const CHECKPOINT_EVERY: Duration = Duration::from_secs(600);

/// What the first line names: bumped whenever the meaning of a solver's state changes,
/// so that an older kabe's checkpoint is never taken for this one's.
const LAYOUT: &str = "kabe checkpoint 2";

/// Values read or written at a time.
const BATCH: usize = 1 << 20;

/// What a checkpoint tells the build.
#[derive(Debug, Clone, Copy)]
pub enum CheckpointEvent<'e> {
    /// The pass goes on from the checkpoint at `path`, written at `stage`.
    Resumed {
        /// The file.
        path: &'e Path,
        /// Where the pass stood.
        stage: PassStage,
    },
    /// A checkpoint was written at `stage`.
    Written {
        /// The file.
        path: &'e Path,
        /// Where the pass stands.
        stage: PassStage,
    },
    /// The checkpoint at `path` could not be written: the pass goes on without one.
    NotWritten {
        /// The file.
        path: &'e Path,
        /// Why.
        error: &'e std::io::Error,
    },
}

/// Where a pass stood when its checkpoint was written, as a log tells it (the file
/// records it as one number, whose meaning is the pass's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassStage {
    /// The theoretical pass, initialising: this many positions' moves counted.
    Initialised {
        /// Positions done, in the pass's order.
        positions: u64,
    },
    /// The theoretical pass, propagating: every position valued below this ply has passed
    /// its value on to its parents.
    Propagated {
        /// The first ply not yet passed on.
        ply: u16,
    },
    /// The rule pass: this many groups of components solved and stored.
    GroupsStored {
        /// Groups done, in the pass's order.
        groups: u64,
    },
    /// A number the pass does not record (a checkpoint it will not take).
    Unknown {
        /// The number recorded.
        code: u64,
    },
}

impl PassStage {
    /// The stage of a rule pass recorded as `code`: the groups of components stored.
    pub(crate) fn of_rules(code: u64) -> PassStage {
        PassStage::GroupsStored { groups: code }
    }
}

impl std::fmt::Display for PassStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PassStage::Initialised { positions } => write!(f, "initialising, {positions} positions done"),
            PassStage::Propagated { ply } => write!(f, "propagating, plies below {ply} done"),
            PassStage::GroupsStored { groups } => write!(f, "{groups} groups of components stored"),
            PassStage::Unknown { code } => write!(f, "stage {code}"),
        }
    }
}

/// A pass's checkpoint file (module documentation).
pub(crate) struct Checkpoint<'a> {
    path: PathBuf,
    /// What the state belongs to: the variant, the pair and the pass.
    owner: String,
    every: Duration,
    /// When the pass began or the last checkpoint was written.
    since: Mutex<Instant>,
    /// A write failed: no more are tried in this pass.
    failed: AtomicBool,
    /// How the pass's stage numbers read ([`crate::solve::whole::theory_pass_stage`], [`PassStage::of_rules`]).
    stage_of: fn(u64) -> PassStage,
    on_event: Box<dyn Fn(CheckpointEvent<'_>) + Sync + 'a>,
}

impl<'a> Checkpoint<'a> {
    /// The checkpoint at `path` of the state of what `owner` names (the variant, the
    /// pair and the pass), written every `every`; `stage_of` reads the pass's stages for
    /// its events.
    pub(crate) fn new(
        path: PathBuf,
        owner: &str,
        every: Duration,
        stage_of: fn(u64) -> PassStage,
        on_event: impl Fn(CheckpointEvent<'_>) + Sync + 'a,
    ) -> Checkpoint<'a> {
        Checkpoint {
            path,
            owner: owner.to_string(),
            every,
            stage_of,
            since: Mutex::new(Instant::now()),
            failed: AtomicBool::new(false),
            on_event: Box::new(on_event),
        }
    }

    /// The first line of the file: what the state belongs to, and the size of its tables.
    fn key(&self, slots: &[&[AtomicU16]]) -> String {
        let sizes: Vec<usize> = slots.iter().map(|t| t.len()).collect();
        format!("{LAYOUT}; {}; slots {sizes:?}", self.owner)
    }

    /// Loads this pass's checkpoint into `slots` and returns the stage it was written
    /// at; `None`, every slot holding `fresh`, where there is none to take (absent,
    /// another's, damaged or unreadable: the pass starts afresh).
    pub(crate) fn load(&self, slots: &[&[AtomicU16]], fresh: u16) -> Option<u64> {
        let stage = self.read_into(slots).ok().flatten();
        match stage {
            Some(stage) => {
                (self.on_event)(CheckpointEvent::Resumed { path: &self.path, stage: (self.stage_of)(stage) })
            }
            None => {
                for table in slots {
                    table.par_iter().for_each(|s| s.store(fresh, Ordering::Relaxed));
                }
            }
        }
        stage
    }

    fn read_into(&self, slots: &[&[AtomicU16]]) -> std::io::Result<Option<u64>> {
        // A FIFO would block the read, a link would read another's file: refused by name.
        crate::files::ensure_replaceable(&self.path)?;
        let file = match std::fs::File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let values: u64 = slots.iter().map(|t| t.len() as u64).sum();
        let mut reader = BufReader::with_capacity(4 << 20, file);
        let expected = self.key(slots);
        let mut key = String::new();
        (&mut reader).take(expected.len() as u64 + 1).read_line(&mut key)?;
        if key.strip_suffix('\n') != Some(expected.as_str()) {
            return Ok(None);
        }
        let mut stage = String::new();
        (&mut reader).take(32).read_line(&mut stage)?;
        let Some(stage) = stage.strip_suffix('\n').and_then(|s| s.parse::<u64>().ok()) else { return Ok(None) };
        let header = header_lines(&expected, stage).len() as u64;
        if std::fs::metadata(&self.path)?.len() != header + 2 * values + 8 {
            return Ok(None);
        }
        let mut sum = xxhash_rust::xxh3::Xxh3::new();
        sum.update(header_lines(&expected, stage).as_bytes());
        let mut bytes = vec![0u8; 2 * BATCH];
        for table in slots {
            for part in table.chunks(BATCH) {
                let bytes = &mut bytes[..2 * part.len()];
                reader.read_exact(bytes)?;
                sum.update(bytes);
                for (slot, b) in part.iter().zip(bytes.chunks_exact(2)) {
                    slot.store(u16::from_le_bytes([b[0], b[1]]), Ordering::Relaxed);
                }
            }
        }
        let mut stored = [0u8; 8];
        reader.read_exact(&mut stored)?;
        Ok((u64::from_le_bytes(stored) == sum.digest()).then_some(stage))
    }

    /// Writes `slots` as the state at `stage` when [`Checkpoint::every`] has passed since
    /// the pass began or the last checkpoint; the caller holds every worker still.
    pub(crate) fn save_if_due(&self, stage: u64, slots: &[&[AtomicU16]]) {
        let mut since = self.since.lock().unwrap_or_else(|e| e.into_inner());
        if self.failed.load(Ordering::Relaxed) || since.elapsed() < self.every {
            return;
        }
        match self.write(stage, slots) {
            Ok(()) => {
                *since = Instant::now();
                (self.on_event)(CheckpointEvent::Written { path: &self.path, stage: (self.stage_of)(stage) });
            }
            Err(error) => {
                // What was written was removed with the unfinished file.
                self.failed.store(true, Ordering::Relaxed);
                (self.on_event)(CheckpointEvent::NotWritten { path: &self.path, error: &error });
            }
        }
    }

    /// Writes the checkpoint under a temporary name (`.checkpoint-tmp`) renamed over it.
    fn write(&self, stage: u64, slots: &[&[AtomicU16]]) -> std::io::Result<()> {
        let mut new_file = NewFile::create(&self.path, self.path.with_extension("checkpoint-tmp"))?;
        let mut out = BufWriter::with_capacity(4 << 20, new_file.file());
        let header = header_lines(&self.key(slots), stage);
        out.write_all(header.as_bytes())?;
        let mut sum = xxhash_rust::xxh3::Xxh3::new();
        sum.update(header.as_bytes());
        let mut bytes = Vec::with_capacity(2 * BATCH);
        for table in slots {
            for part in table.chunks(BATCH) {
                bytes.clear();
                bytes.extend(part.iter().flat_map(|s| s.load(Ordering::Relaxed).to_le_bytes()));
                sum.update(&bytes);
                out.write_all(&bytes)?;
            }
        }
        out.write_all(&sum.digest().to_le_bytes())?;
        out.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        new_file.commit()
    }
}

/// The two lines a checkpoint starts with: what it belongs to, and its stage.
fn header_lines(key: &str, stage: u64) -> String {
    format!("{key}\n{stage}\n")
}

/// Removes the checkpoint at `path` and a half-written one beside it, where there are
/// any. A failure is let be: a checkpoint left behind is a state of that very pass, and
/// is taken again only by the same pass of the same pair.
pub(crate) fn remove_checkpoint(path: &Path) {
    for file in [path.to_path_buf(), path.with_extension("checkpoint-tmp")] {
        let _ = crate::files::remove_own(&file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::rules::{solve_rule_pair, solve_rule_pair_resumable, MemoryTables};
    use crate::solve::whole::{solve_pair_pausing_every, theory_pass_stage, PairPass, Stage, CHUNK};
    use kabe_probe::{DrawRuleSet, DrawRules, Signature, Variant};

    fn slots(values: &[u16]) -> Vec<AtomicU16> {
        values.iter().map(|&v| AtomicU16::new(v)).collect()
    }

    fn read(slots: &[AtomicU16]) -> Vec<u16> {
        slots.iter().map(|s| s.load(Ordering::Relaxed)).collect()
    }

    /// A log names where a pass stood in its own terms, not as the number the file holds.
    #[test]
    fn a_stage_reads_as_the_pass_it_belongs_to() {
        let read = |stage: PassStage| stage.to_string();
        assert_eq!(read(theory_pass_stage(Stage::Propagated(48).code())), "propagating, plies below 48 done");
        assert_eq!(
            read(theory_pass_stage(Stage::Initialised(3).code())),
            format!("initialising, {} positions done", 3 * CHUNK)
        );
        assert_eq!(read(PassStage::of_rules(7)), "7 groups of components stored");
        assert_eq!(read(theory_pass_stage(u64::MAX)), format!("stage {}", u64::MAX));
    }

    #[test]
    fn a_checkpoint_is_loaded_only_by_its_own_pass_and_only_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("0101.theory.checkpoint");
        let quiet = |e: CheckpointEvent| assert!(!matches!(e, CheckpointEvent::NotWritten { .. }), "{e:?}");
        let (a, b) = (slots(&[1, 2, 3, 0x8001, u16::MAX]), slots(&[7, 8, 9]));
        let saving =
            Checkpoint::new(path.clone(), "international 0101 theory", Duration::ZERO, theory_pass_stage, quiet);
        saving.save_if_due(12, &[&a, &b]);
        assert!(!dir.path().join("0101.theory.checkpoint-tmp").exists());

        let (x, y) = (slots(&[0; 5]), slots(&[0; 3]));
        let same = Checkpoint::new(path.clone(), "international 0101 theory", Duration::ZERO, theory_pass_stage, quiet);
        assert_eq!(same.load(&[&x, &y], 0xFFFF), Some(12));
        assert_eq!((read(&x), read(&y)), (read(&a), read(&b)));

        // Another pair's pass, or tables of other sizes: not this state.
        for (other, sizes) in [
            Checkpoint::new(path.clone(), "international 0101 rules", Duration::ZERO, PassStage::of_rules, quiet),
            Checkpoint::new(path.clone(), "international 0101 theory", Duration::ZERO, theory_pass_stage, quiet),
        ]
        .iter()
        .zip([[5, 3], [4, 4]])
        {
            let (x, y) = (slots(&vec![0; sizes[0]]), slots(&vec![0; sizes[1]]));
            assert_eq!(other.load(&[&x, &y], 0xFFFF), None);
            assert!(read(&x).iter().chain(&read(&y)).all(|&v| v == 0xFFFF), "left fresh");
        }

        // One value changed on disk, or the file cut short: refused.
        let whole = std::fs::read(&path).expect("read");
        let mut changed = whole.clone();
        let at = changed.len() - 12;
        changed[at] ^= 1;
        for broken in [changed, whole[..whole.len() - 3].to_vec()] {
            std::fs::write(&path, broken).expect("write");
            let (x, y) = (slots(&[0; 5]), slots(&[0; 3]));
            assert_eq!(same.load(&[&x, &y], 0xFFFF), None);
            assert!(read(&x).iter().chain(&read(&y)).all(|&v| v == 0xFFFF), "left fresh");
        }
        std::fs::write(path.with_extension("checkpoint-tmp"), b"half written").expect("write");
        remove_checkpoint(&path);
        assert!(!path.exists() && !path.with_extension("checkpoint-tmp").exists());
        remove_checkpoint(&path); // nothing there: nothing to do
    }

    #[test]
    fn checkpoints_wait_for_their_interval_and_a_failed_write_is_reported_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("0101.theory.checkpoint");
        let quiet = |e: CheckpointEvent| panic!("{e:?}");
        let a = slots(&[1, 2]);
        let later = Checkpoint::new(path.clone(), "p", Duration::from_secs(3600), PassStage::of_rules, quiet);
        later.save_if_due(1, &[&a]);
        assert!(!path.exists(), "not due yet");

        let failures = std::sync::atomic::AtomicUsize::new(0);
        let count = |e: CheckpointEvent| {
            assert!(matches!(e, CheckpointEvent::NotWritten { path, .. } if path.ends_with("0101.theory.checkpoint")));
            failures.fetch_add(1, Ordering::Relaxed);
        };
        let nowhere = dir.path().join("missing-folder").join("0101.theory.checkpoint");
        let failing = Checkpoint::new(nowhere, "p", Duration::ZERO, PassStage::of_rules, count);
        failing.save_if_due(1, &[&a]);
        failing.save_if_due(2, &[&a]);
        assert_eq!(failures.load(Ordering::Relaxed), 1);
    }

    /// Runs `solve` with a checkpoint written at every chance, stopped (a panic, as a
    /// kill would stop it) once `stop` checkpoints are written; then runs it again to the
    /// end from the checkpoint left. Returns the stage it resumed at.
    fn stopped_then_resumed<T>(
        path: &Path,
        stop: usize,
        stage_of: fn(u64) -> PassStage,
        solve: impl Fn(&Checkpoint) -> T,
    ) -> (T, Option<PassStage>) {
        let written = std::sync::atomic::AtomicUsize::new(0);
        let stopping = |e: CheckpointEvent| {
            if let CheckpointEvent::Written { .. } = e
                && written.fetch_add(1, Ordering::Relaxed) + 1 == stop
            {
                panic!("stopped after {stop} checkpoints");
            }
        };
        let first = Checkpoint::new(path.to_path_buf(), "test", Duration::ZERO, stage_of, stopping);
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| solve(&first)));
        assert!(stopped.is_err(), "the pass wrote fewer than {stop} checkpoints");
        let resumed = Mutex::new(None);
        let noting = |e: CheckpointEvent| {
            if let CheckpointEvent::Resumed { stage, .. } = e {
                *resumed.lock().expect("not poisoned") = Some(stage);
            }
        };
        let again = Checkpoint::new(path.to_path_buf(), "test", Duration::ZERO, stage_of, noting);
        let out = solve(&again);
        remove_checkpoint(path);
        drop(again);
        (out, resumed.into_inner().expect("not poisoned"))
    }

    /// A theoretical pass stopped after a checkpoint and run again from it gives the
    /// values of a pass never stopped: three Russian pairs of 4 pieces with men and
    /// kings, stopped inside the initialisation and between plies.
    #[test]
    fn a_theoretical_pass_resumed_from_a_checkpoint_ends_as_one_never_stopped() {
        let variant = Variant::RUSSIAN;
        let mut registry = crate::solve_all(variant, 3, |_| {});
        let folder = tempfile::tempdir().expect("temp dir");
        let path = folder.path().join("pair.theory.checkpoint");
        let mut compared = 0;
        let mut kinds = (false, false);
        for sig in Signature::all_with(4) {
            if registry.table(sig).is_some() {
                continue;
            }
            let whole = crate::solve_pair(&registry, variant, sig, &|_| {}).expect("smaller tables solved");
            if sig.men() >= 1 && sig.men() < 4 && compared < 3 {
                // Stopped in the initialisation, and in the propagation.
                for stop in [1, 2, 5, 40] {
                    let (resumed, stage) = stopped_then_resumed(&path, stop, theory_pass_stage, |checkpoint| {
                        // Segments of 4 chunks: stages inside the initialisation.
                        solve_pair_pausing_every(&registry, variant, sig, checkpoint, 4 * 4096, &|_| {})
                            .expect("solved")
                    });
                    match stage {
                        Some(PassStage::Initialised { .. }) => kinds.0 = true,
                        Some(PassStage::Propagated { .. }) => kinds.1 = true,
                        other => panic!("{sig}: resumed at {other:?}"),
                    }
                    for (w, r) in whole.iter().zip(&resumed) {
                        let first_difference = w.scores.iter().zip(&r.scores).position(|(a, b)| a != b);
                        assert_eq!(first_difference, None, "{sig} stopped after {stop} checkpoints");
                    }
                }
                compared += 1;
            }
            whole.into_iter().for_each(|t| registry.insert(t));
        }
        assert_eq!(compared, 3);
        assert_eq!(kinds, (true, true), "resumed inside the initialisation, and between plies");
    }

    /// The same for the rule pass (USSR 1953 counts), stopped between groups of
    /// components, and between the advancements of a pair without kings (solved a
    /// position at a time).
    #[test]
    fn a_rule_pass_resumed_from_a_checkpoint_ends_as_one_never_stopped() {
        let variant = Variant::RUSSIAN;
        let rules = DrawRules::new(DrawRuleSet::Ussr1953, &variant);
        let theory = crate::solve_all(variant, 4, |_| {});
        let folder = tempfile::tempdir().expect("temp dir");
        let path = folder.path().join("pair.ussr1953.checkpoint");
        let order: Vec<Signature> = (2..=4).flat_map(Signature::all_with).collect();
        let done = crate::solve_rules(&theory, rules, order.iter().copied().filter(|s| s.pieces() < 4));
        let mut done = done;
        let mut compared = 0;
        let mut kingless = 0;
        for &sig in order.iter().filter(|s| s.pieces() == 4) {
            if done.table(sig).is_some() || rules.context(sig).is_none() {
                continue;
            }
            let finished = MemoryTables::new(&theory, &done);
            let whole = solve_rule_pair(&finished, rules, variant, sig, &|_| {}).expect("solved").expect("a table");
            let without_kings = sig.white_kings + sig.black_kings == 0;
            if sig.men() >= 2 && (compared < 3 || without_kings && kingless == 0) {
                kingless += without_kings as usize;
                for stop in [1, 3] {
                    let (resumed, stage) = stopped_then_resumed(&path, stop, PassStage::of_rules, |checkpoint| {
                        solve_rule_pair_resumable(
                            &finished,
                            rules,
                            variant,
                            sig,
                            checkpoint,
                            PairPass::Fastest,
                            &|_| {},
                        )
                        .expect("solved")
                        .expect("a table")
                    });
                    assert_eq!(
                        stage,
                        Some(PassStage::GroupsStored { groups: stop as u64 }),
                        "{sig}: resumed after its groups stored"
                    );
                    for (w, r) in whole.iter().zip(&resumed) {
                        assert!(w.values == r.values, "{sig} stopped after {stop} checkpoints");
                    }
                }
                compared += 1;
            }
            whole.into_iter().for_each(|t| done.insert(t));
        }
        assert!(compared >= 3 && kingless >= 1, "{compared} pairs compared, {kingless} without kings");
    }
}
