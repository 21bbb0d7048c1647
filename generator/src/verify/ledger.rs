//! The verification ledger ([`LEDGER_NAME`] beside the tables): one sealed line a pair
//! found sound, under a digest of the files it was checked against; read, opened (torn
//! lines dropped), appended to ([`KeptLedger`]), its recorded figures read back
//! ([`recorded_statistics`]), and carried over a change that keeps every value
//! ([`ledger_lines_holding`], [`carry_ledger`]).
//!
//! It opens the tables only to digest their files' checksums (`tables`), and says its
//! problems in the report (`report`): no value is read here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kabe_probe::internal::table::TableDir;
use kabe_probe::table::{Metric, TableFile};
use kabe_probe::{DrawRuleSet, Signature, Variant};

use crate::verify::report::VerifyReport;
use crate::verify::statistics::{RuleStats, TableStats};
use crate::verify::tables::{tables_in, Tables};

/// The verification ledger's file name, in a variant's table folder: one line a pair
/// found sound, `PAIR DIGEST`, the digest covering the checksums of the pair's files and
/// of every file its successors lie in (so that a pair is derived again when any table
/// it was checked against changes).
pub const LEDGER_NAME: &str = "verified.txt";

/// The digest a ledger line records for `pair`: FNV-1a over the signature, kind and
/// header checksum of every file of the pair and of the pairs its successors lie in.
pub(super) fn ledger_digest(tables: &Tables, pair: &[Signature]) -> u64 {
    let mut sigs: Vec<Signature> = pair
        .iter()
        .flat_map(|&s| crate::pair::successors(s))
        .chain(pair.iter().copied())
        .flat_map(|s| [s, s.flipped()])
        .collect();
    sigs.sort();
    sigs.dedup();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    for sig in sigs {
        let files = [("wld", tables.wld.get(&sig)), ("dtw", tables.dtw.get(&sig))]
            .into_iter()
            .chain(tables.rules.iter().map(|(set, files)| (set.name(), files.get(&sig))));
        for (kind, file) in files {
            if let Some(file) = file {
                eat(format!("{sig} {kind} {:016x}\n", file.header().checksum).as_bytes());
            }
        }
    }
    hash
}

/// A ledger line as written: `line` and its seal, ` #` and the FNV-1a digest of `line`
/// in hex, so that a torn (cut) or edited line is recognised and ignored.
fn sealed(line: &str) -> String {
    format!("{line} #{:016x}", fnv1a(line.as_bytes()))
}

/// The line without its seal when the seal holds.
fn unsealed(line: &str) -> Option<&str> {
    let (body, seal) = line.rsplit_once(" #")?;
    (seal.len() == 16 && u64::from_str_radix(seal, 16).ok()? == fnv1a(body.as_bytes())).then_some(body)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| (hash ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// The verification ledger as read.
#[derive(Debug, Default)]
struct Ledger {
    /// Its sound lines by their first two words (`PAIR DIGEST`), with the rest (the pair's
    /// statistics, see [`crate::verify::statistics::to_ledger_words`]).
    lines: std::collections::HashMap<String, String>,
    /// The numbers (from 1) of the lines whose seal does not hold: torn or edited, ignored.
    ignored: Vec<usize>,
}

/// Reads the ledger at `path`; none when there is no ledger.
fn read_ledger(path: &Path) -> std::io::Result<Ledger> {
    let key_and_rest = |line: &str| {
        let mut words = line.splitn(3, ' ');
        let key = format!("{} {}", words.next()?, words.next()?);
        Some((key, words.next().unwrap_or("").to_string()))
    };
    // A FIFO or device under the ledger's name would block or never end: not opened. A
    // link to a ledger is read (a set of links to another set's files, as
    // scripts/stats-doc.sh makes, reads that set's ledger); it is never written through.
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
    {
        return Err(crate::files::named(
            path,
            std::io::Error::other(format!("{}, not a ledger", crate::files::kind_of(&meta))),
        ));
    }
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ledger::default()),
        Err(e) => return Err(std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    };
    let mut ledger = Ledger::default();
    for (n, line) in text.lines().enumerate() {
        match unsealed(line).and_then(key_and_rest) {
            Some((key, rest)) => {
                ledger.lines.insert(key, rest);
            }
            None if line.trim().is_empty() => {}
            None => ledger.ignored.push(n + 1),
        }
    }
    Ok(ledger)
}

/// The ledger at `path` for a verification: its sound lines. Lines whose seal does not
/// hold are numbered in `report` and the ledger is written again without them; a ledger
/// that cannot be read or written is said in `report` (the verification goes on without
/// it).
fn open_ledger(path: &Path, report: &mut VerifyReport) -> std::collections::HashMap<String, String> {
    let found = match read_ledger(path) {
        Ok(found) => found,
        Err(e) => {
            report.ledger_problem = Some(e.to_string());
            return Default::default();
        }
    };
    if !found.ignored.is_empty() {
        let mut keys: Vec<(&String, &String)> = found.lines.iter().collect();
        keys.sort();
        let line =
            |(key, rest): (&String, &String)| if rest.is_empty() { key.clone() } else { format!("{key} {rest}") };
        let text: String = keys.into_iter().map(|k| sealed(&line(k)) + "\n").collect();
        if let Err(e) = crate::files::write_whole(path, text.as_bytes()) {
            report.ledger_problem = Some(e.to_string());
        }
        report.ledger_ignored_lines = found.ignored;
    }
    found.lines
}

/// Appends `line`, sealed, to the ledger at `path`. On a failure (a full disk) the file
/// is cut back to what it held, so that no torn or empty ledger is left behind.
fn append_to_ledger(path: &Path, line: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let named = |e: std::io::Error| crate::files::named(path, e);
    let mut file = crate::files::open_own(path, std::fs::OpenOptions::new().create(true).append(true).read(true))?;
    let before = file.metadata().map_err(named)?.len();
    // A last line that lost its line end (torn, or an editor's doing) keeps its own line.
    let mut last = [b'\n'];
    if before > 0 {
        use std::io::{Seek, SeekFrom};
        file.seek(SeekFrom::End(-1)).and_then(|_| std::io::Read::read_exact(&mut file, &mut last)).map_err(named)?;
    }
    let end = if last[0] == b'\n' { "" } else { "\n" };
    let written = writeln!(file, "{end}{}", sealed(line)).and_then(|()| file.sync_data());
    if let Err(e) = written {
        if before == 0 {
            let _ = std::fs::remove_file(path);
        } else {
            let _ = file.set_len(before);
        }
        return Err(named(e));
    }
    Ok(())
}

/// The ledger as one verification keeps it: the lines it holds, read once, and the file
/// each pair found sound is appended to while it can be written.
pub(super) struct KeptLedger {
    path: PathBuf,
    recorded: std::collections::HashMap<String, String>,
    writing: bool,
}

impl KeptLedger {
    /// The ledger beside the tables of `variant` under `dir` when it is `kept`
    /// ([`open_ledger`]), else one that records nothing and is never written.
    pub(super) fn open(dir: &Path, variant: Variant, kept: bool, report: &mut VerifyReport) -> KeptLedger {
        let path = dir.join(variant.name).join(LEDGER_NAME);
        let recorded = if kept { open_ledger(&path, report) } else { Default::default() };
        let writing = kept && report.ledger_problem.is_none();
        KeptLedger { path, recorded, writing }
    }

    /// Whether the ledger records `line` (`PAIR DIGEST`): the pair verified against the
    /// same files.
    pub(super) fn records(&self, line: &str) -> bool {
        self.recorded.contains_key(line)
    }

    /// Appends `line` and `words` after it ([`append_to_ledger`]) while the ledger can be
    /// written; the first failure is said in `report`, and nothing more is written.
    pub(super) fn append(&mut self, line: &str, words: &str, report: &mut VerifyReport) {
        if self.writing
            && let Err(e) = append_to_ledger(&self.path, &format!("{line}{words}"))
        {
            report.ledger_problem = Some(e.to_string());
            self.writing = false;
        }
    }
}

/// What [`recorded_statistics`] found in the ledger.
#[derive(Debug, Default)]
pub struct RecordedStatistics {
    /// By signature, the theoretical figures and those of each rule set, for the pairs
    /// whose files (and those they lead to) are the ones the ledger's line verified.
    #[allow(clippy::type_complexity)]
    pub by_signature: BTreeMap<Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>)>,
    /// The ledger's lines (numbered from 1) whose seal does not hold, torn or edited:
    /// their figures are not used.
    pub ignored_lines: Vec<usize>,
}

/// What the ledger beside the tables of `variant` under `dir` records of each table's
/// statistics, for the pairs whose files (and those they lead to) are the ones it
/// verified; lines whose seal does not hold are left out and numbered.
pub fn recorded_statistics(dir: &Path, variant: Variant) -> std::io::Result<RecordedStatistics> {
    let recorded = read_ledger(&dir.join(variant.name).join(LEDGER_NAME))?;
    let mut out = RecordedStatistics { ignored_lines: recorded.ignored, ..RecordedStatistics::default() };
    if recorded.lines.is_empty() {
        return Ok(out);
    }
    let tables = open_tables(dir, variant)?;
    for (name, pair) in pairs_of(&tables) {
        let key = format!("{name} {:016x}", ledger_digest(&tables, &pair));
        let Some(words) = recorded.lines.get(&key) else { continue };
        let Some((theory, rules)) = crate::verify::statistics::from_ledger_words(words.split_whitespace()) else {
            continue;
        };
        out.by_signature.extend(figures_by_signature(&pair, theory, &rules));
    }
    Ok(out)
}

/// The figures of the tables of `pair`, as a pair's check counts them, by signature.
#[allow(clippy::type_complexity)]
pub(super) fn figures_by_signature<'a>(
    pair: &'a [Signature],
    theory: Vec<(Signature, TableStats)>,
    rules: &'a [(Signature, DrawRuleSet, RuleStats)],
) -> impl Iterator<Item = (Signature, (TableStats, Vec<(DrawRuleSet, RuleStats)>))> + 'a {
    theory.into_iter().filter(|(s, _)| pair.contains(s)).map(move |(sig, stats)| {
        let of_sig = rules.iter().filter(|(s, _, _)| *s == sig).map(|(_, set, r)| (*set, *r)).collect();
        (sig, (stats, of_sig))
    })
}

/// The tables of `variant` under `dir`, opened (their checksums are not read here).
fn open_tables(dir: &Path, variant: Variant) -> std::io::Result<Tables> {
    let mut tables = Tables::default();
    for (sig, metrics) in tables_in(dir, &variant)? {
        for metric in metrics {
            let Ok(file) = TableFile::open(&TableDir::new(dir).path(&variant, sig, metric), &variant, sig, metric)
            else {
                continue;
            };
            match metric {
                Metric::Dtw => tables.dtw.insert(sig, file),
                Metric::Wld => tables.wld.insert(sig, file),
                Metric::Rules(set) => tables.rules.entry(set).or_default().insert(sig, file),
            };
        }
    }
    Ok(tables)
}

/// The pairs of `tables` (one signature, or a signature and its flip) with their names.
fn pairs_of(tables: &Tables) -> Vec<(String, Vec<Signature>)> {
    let pairs: std::collections::BTreeSet<crate::TablePair> =
        tables.dtw.keys().map(|s| crate::TablePair::of(*s)).collect();
    pairs.into_iter().map(|pair| (pair.to_string(), pair.to_vec())).collect()
}

/// The ledger lines that hold for the files under `dir` now, by pair name: what
/// [`carry_ledger`] writes again once the files have changed without changing a value.
pub(crate) fn ledger_lines_holding(dir: &Path, variant: Variant) -> std::io::Result<BTreeMap<String, String>> {
    let recorded = read_ledger(&dir.join(variant.name).join(LEDGER_NAME))?.lines;
    let mut out = BTreeMap::new();
    if recorded.is_empty() {
        return Ok(out);
    }
    let tables = open_tables(dir, variant)?;
    for (name, pair) in pairs_of(&tables) {
        if let Some(words) = recorded.get(&format!("{name} {:016x}", ledger_digest(&tables, &pair))) {
            out.insert(name, words.clone());
        }
    }
    Ok(out)
}

/// Writes the ledger again with `holding` (from [`ledger_lines_holding`] before the
/// change) under the digests of the files now: for a change that keeps every value, as
/// keeping one side of each pair does (a file left to search gives by a one-ply search
/// exactly the values the verifier checked it held).
pub(crate) fn carry_ledger(dir: &Path, variant: Variant, holding: &BTreeMap<String, String>) -> std::io::Result<()> {
    if holding.is_empty() {
        return Ok(());
    }
    let tables = open_tables(dir, variant)?;
    let mut text = String::new();
    for (name, pair) in pairs_of(&tables) {
        if let Some(words) = holding.get(&name) {
            let space = if words.is_empty() { "" } else { " " };
            text += &sealed(&format!("{name} {:016x}{space}{words}", ledger_digest(&tables, &pair)));
            text.push('\n');
        }
    }
    crate::files::write_whole(&dir.join(variant.name).join(LEDGER_NAME), text.as_bytes())
}
