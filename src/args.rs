//! What several commands read from their arguments: the table set, the variant, the
//! draw rules, signatures, the memory budget, the scope of a build.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::Args;
use kabe_generator::{MemoryBudget, Scope, SidesKept};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::request::RequestError;
use kabe_probe::{DrawRuleSet, DrawRules, Signature, Variant};

/// The table directory: `given` (`--tables`), else `$KABE_TABLES`, else
/// `$XDG_DATA_HOME/kabe/tables`, else `~/.local/share/kabe/tables`. A leading `~` is the
/// home folder (a quoted `--tables '~/t'` or `KABE_TABLES='~/t'` reaches kabe
/// unexpanded). An error names the path when it is there but not a directory, and says
/// what to set when there is no home folder to put the tables in.
pub fn table_dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let var = |name| std::env::var_os(name);
    let home = var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let dir = match given {
        Some(dir) => dir.to_path_buf(),
        None => default_dir_from(var("KABE_TABLES"), var("XDG_DATA_HOME"), home.clone()).ok_or_else(|| {
            anyhow::anyhow!(
                "no table directory: HOME is not set; give --tables DIR, or set KABE_TABLES or XDG_DATA_HOME"
            )
        })?,
    };
    let dir = expand_home(&dir, home.as_deref())?;
    match std::fs::metadata(&dir) {
        Ok(meta) if !meta.is_dir() => {
            anyhow::bail!(
                "{}: {}, not a directory (the table directory holds a folder per variant)",
                dir.display(),
                file_kind(&meta)
            )
        }
        _ => Ok(dir),
    }
}

/// What a path that is not a directory is, for messages.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        } else if t.is_socket() {
            return "a socket";
        } else if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if meta.is_file() {
        "a regular file"
    } else {
        "not a directory"
    }
}

/// `~` or `~/rest` as the home folder; any other path as it is.
fn expand_home(path: &Path, home: Option<&Path>) -> anyhow::Result<PathBuf> {
    let Ok(rest) = path.strip_prefix("~") else { return Ok(path.to_path_buf()) };
    match home {
        Some(home) => Ok(home.join(rest)),
        None => anyhow::bail!("{}: `~` stands for the home folder, and HOME is not set", path.display()),
    }
}

/// The default table directory from the three variables' values; `None` when none is
/// set. A variable set to nothing counts as unset, as the XDG base directory
/// specification says of its own: `KABE_TABLES=` must not make the tables land in the
/// working directory under a name no later run finds.
fn default_dir_from(
    kabe_tables: Option<OsString>,
    xdg_data_home: Option<OsString>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    let set = |value: Option<OsString>| value.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(kabe_tables) {
        return Some(dir);
    }
    Some(set(xdg_data_home).or_else(|| home.map(|h| h.join(".local/share")))?.join("kabe/tables"))
}

/// The variant and directory every table command works on.
#[derive(Args)]
pub struct TableSet {
    /// Variant: international, russian, kabe, ...
    #[arg(long, short, default_value = "international", value_parser = variant_value)]
    variant: Variant,
    /// Table directory (default: $KABE_TABLES, else the per-user data directory);
    /// `--dir` is the older name.
    #[arg(long = "tables", alias = "dir", value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl TableSet {
    pub fn resolve(&self) -> anyhow::Result<(Variant, PathBuf)> {
        Ok((self.variant, table_dir(self.dir.as_deref())?))
    }
}

/// The draw rules named by `--rules`, or the variant's usual set.
pub fn rules_arg(set: Option<DrawRuleSet>, variant: &Variant) -> anyhow::Result<DrawRules> {
    let rules =
        kabe_probe::request::read_rules(set.map(DrawRuleSet::name), variant).map_err(|e| request_error(e, ""))?;
    rules.check().map_err(anyhow::Error::msg)?;
    Ok(rules)
}

/// A probe request's error as the CLI says it: the reader's own words (the CLI names no
/// fields), `missing` for a FEN not given.
pub fn request_error(e: RequestError, missing: &str) -> anyhow::Error {
    match e {
        RequestError::MissingFen => anyhow::anyhow!("{missing}"),
        e => anyhow::Error::from_boxed(e.into_cause()),
    }
}

/// The most worker threads a command takes (`--threads`).
pub const MAX_THREADS: u64 = 256;

/// `--threads`, for the commands that work on every core.
#[derive(Args, Debug, Clone, Copy)]
pub struct Threads {
    /// Worker threads (default: one per core; at most 256).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_THREADS))]
    threads: Option<u64>,
}

impl Threads {
    /// Sizes the worker pool as asked (once, before any parallel work); a note where
    /// more threads than cores are asked for.
    pub fn apply(&self) -> anyhow::Result<()> {
        use anyhow::Context as _;
        let Some(threads) = self.threads else { return Ok(()) };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        if threads > cores {
            eprintln!("kabe: note: --threads {threads} on {cores} cores: the threads beyond the cores only wait");
        }
        rayon::ThreadPoolBuilder::new().num_threads(threads as usize).build_global().context("setting --threads")
    }
}

/// The memory budget when `--memory` is not given: three quarters of the machine's
/// memory (from /proc/meminfo), or the library's 4 GiB where that cannot be read.
pub fn default_memory() -> MemoryBudget {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines().find_map(|l| l.strip_prefix("MemTotal:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
    });
    total_kib.map_or_else(MemoryBudget::default, |kib| MemoryBudget::new(kib * 1024 / 4 * 3))
}

/// The scope of `--pieces N` or `--closure SIG`.
pub fn scope_arg(variant: &Variant, pieces: u32, closure: Option<&str>) -> anyhow::Result<Scope> {
    anyhow::ensure!((2..=8).contains(&pieces), "--pieces must be 2 to 8");
    Ok(match closure {
        Some(sig) => {
            let sig = crate::args::signature_arg(sig)?;
            check_signature(variant, sig)?;
            Scope::Closure(sig)
        }
        None => Scope::Pieces(pieces),
    })
}

/// A signature with positions on the board, of at most 8 pieces.
pub fn check_signature(variant: &Variant, sig: Signature) -> anyhow::Result<()> {
    anyhow::ensure!(
        MaterialIndex::new(*variant, sig).is_some_and(|i| !i.is_empty())
            && sig.pieces() <= 8
            && sig.white_men + sig.white_kings > 0
            && sig.black_men + sig.black_kings > 0,
        "signature {sig} has no table in {} (no positions, a side without pieces, or more than 8 pieces)",
        variant.name
    );
    Ok(())
}

/// A signature written `wm wk bm bk`, e.g. `1211`.
pub fn signature_arg(text: &str) -> anyhow::Result<Signature> {
    Ok(text.trim().parse()?)
}

/// `--rules`' values, typed, from the one list of rule sets (clap prints them in the help).
pub fn rule_set_value() -> impl clap::builder::TypedValueParser<Value = DrawRuleSet> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(DrawRuleSet::ALL.map(DrawRuleSet::name))
        .try_map(|name| name.parse::<DrawRuleSet>())
}

/// `--variant`'s value: a game by its name or an alias (`kabe_probe::Variant::by_name`).
pub fn variant_value(name: &str) -> Result<Variant, String> {
    name.parse::<Variant>().map_err(|e| e.to_string())
}

/// `--solver`'s values: the side that should win.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// White (`w`).
    #[value(alias = "w")]
    White,
    /// Black (`b`).
    #[value(alias = "b")]
    Black,
}

impl Side {
    /// The colour.
    pub fn color(self) -> kabe_probe::Color {
        match self {
            Side::White => kabe_probe::Color::White,
            Side::Black => kabe_probe::Color::Black,
        }
    }
}

/// What a set keeps of each pair's two tables of a kind (`kabe generate`, and the last
/// step of `kabe plan`).
#[derive(Args, Debug, Clone, Copy)]
pub struct Sides {
    /// Keep both tables of every pair (a set that will be extended builds faster on
    /// them). By default, of each pair's two files of a kind the smaller is kept and the
    /// other holds no values: its positions are found by a one-ply search.
    #[arg(long)]
    both_sides: bool,
    /// Keep the values of each DTW and rule file dropped for one side in
    /// DIR/VARIANT/dropped, for the builds that extend the set to read instead of
    /// searching (the set itself stays as by default; pairs already one-side get none).
    #[arg(long, conflicts_with = "both_sides")]
    keep_dropped: bool,
}

impl Sides {
    /// The choice the options make.
    pub fn kept(&self) -> SidesKept {
        match (self.both_sides, self.keep_dropped) {
            (true, _) => SidesKept::BothSides,
            (false, true) => SidesKept::OneSideKeepingDropped,
            (false, false) => SidesKept::OneSide,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_directory_comes_from_the_first_variable_set_to_something() {
        let some = |s: &str| Some(OsString::from(s));
        let home = || Some(PathBuf::from("/h"));
        assert_eq!(default_dir_from(some("/t"), some("/x"), home()), Some(PathBuf::from("/t")));
        assert_eq!(default_dir_from(None, some("/x"), home()), Some(PathBuf::from("/x/kabe/tables")));
        assert_eq!(default_dir_from(some(""), some(""), home()), Some(PathBuf::from("/h/.local/share/kabe/tables")));
        assert_eq!(default_dir_from(some(""), None, None), None);
        assert_eq!(expand_home(Path::new("~/kt"), Some(Path::new("/h"))).expect("home"), PathBuf::from("/h/kt"));
        assert_eq!(expand_home(Path::new("~"), Some(Path::new("/h"))).expect("home"), PathBuf::from("/h"));
        assert_eq!(expand_home(Path::new("a/~"), None).expect("as it is"), PathBuf::from("a/~"));
        assert!(expand_home(Path::new("~/kt"), None).expect_err("no home").to_string().contains("HOME is not set"));
    }

    /// `SidesKept::generate_flag` spells the options `Sides` parses: `kabe plan` writes
    /// it into the last step's command line.
    #[test]
    fn each_choice_of_sides_parses_back_from_its_generate_flag() {
        #[derive(clap::Parser)]
        struct Command {
            #[command(flatten)]
            sides: Sides,
        }
        use clap::Parser;
        for kept in [SidesKept::OneSide, SidesKept::OneSideKeepingDropped, SidesKept::BothSides] {
            let args: Vec<&str> = std::iter::once("kabe").chain(kept.generate_flag()).collect();
            assert_eq!(Command::try_parse_from(&args).expect("parses").sides.kept(), kept, "{args:?}");
        }
    }
}
