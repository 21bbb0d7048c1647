//! `kabe analyze`: PDN games annotated with exact verdicts under the draw rules.

use std::collections::BTreeSet;
use std::fs::File;
use std::io;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use kabe_analyze::report::{report, Format};
use kabe_analyze::{replay, Analyzer, PdnReader, Reach, Summary};
use kabe_generator::Scope;
use kabe_probe::tablebase::Tablebase;
use kabe_probe::{DrawRuleSet, Variant};

use crate::args::{default_memory, rules_arg, table_dir};
use crate::commands::generate::build_with_progress;

/// Arguments of `kabe analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// PDN files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Report format: text, pdn (the games with the verdicts as comments) or json.
    #[arg(long, short, default_value = "text")]
    format: String,
    /// Draw rules (default: each game's usual set).
    #[arg(long, value_parser = crate::args::rule_set_value())]
    rules: Option<kabe_probe::DrawRuleSet>,
    /// Table directory (default: $KABE_TABLES, else the per-user data directory).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Read every game as this variant, whatever its tags say.
    #[arg(long, value_parser = crate::args::variant_value)]
    variant: Option<Variant>,
    /// Build the tables the games need first, up to --pieces (complete sets are kept).
    /// Without it, a variant with no tables at all gets the small set (4 pieces) built on
    /// first use.
    #[arg(long, conflicts_with = "no_generate")]
    generate: bool,
    /// Never build tables: analyse with what is there and name what is missing.
    #[arg(long)]
    no_generate: bool,
    /// Largest number of pieces probed (and built with --generate); default: as far as
    /// the tables are complete, 4 with --generate.
    #[arg(long)]
    pieces: Option<u32>,
}

/// Pieces of the table set built on first use: seconds to build, enough for the endings
/// of real games.
const SMALL_SET_PIECES: u32 = 4;

/// The variants the games of `files` are played in (for --generate).
fn variants_in(files: &[PathBuf], forced: Option<Variant>) -> anyhow::Result<BTreeSet<&'static str>> {
    let mut found = BTreeSet::new();
    for path in files {
        let name = path.display().to_string();
        // A file that cannot be read is named by the analysis itself; the others count.
        let Ok(input) = File::open(path) else { continue };
        for game in PdnReader::new(BufReader::new(input)) {
            let Ok(game) = game else { break };
            if let Ok(r) = replay(&name, &game, forced) {
                found.insert(r.variant.name);
            }
        }
    }
    Ok(found)
}

fn open_tables(dir: &Path, rules: Option<DrawRuleSet>) -> anyhow::Result<Tablebase> {
    let mut builder = Tablebase::builder(dir);
    if let Some(set) = rules {
        builder = builder.rules(set);
    }
    if !dir.exists() {
        // No tables yet: every game is reported without verdicts and the summary says so.
        builder = builder.variants(&[]);
    }
    builder.open().with_context(|| format!("opening the tables in {}", dir.display()))
}

pub fn analyze(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let format: Format = args.format.parse().map_err(anyhow::Error::msg)?;
    let dir = table_dir(args.tables.as_deref())?;
    let forced = args.variant;
    let rules = args.rules;
    if let Some(p) = args.pieces {
        anyhow::ensure!((2..=8).contains(&p), "--pieces must be 2 to 8");
    }
    if !args.no_generate {
        // Build what is asked (--generate), or the small set for a variant that has none.
        let present = if dir.exists() { open_tables(&dir, rules).ok() } else { None };
        let pieces = args.pieces.unwrap_or(SMALL_SET_PIECES);
        for name in variants_in(&args.files, forced)? {
            let variant: Variant = name.parse()?;
            let has_some = present.as_ref().is_some_and(|tb| tb.max_pieces_of(&variant) >= 2);
            if has_some && !args.generate {
                continue;
            }
            let set = rules.filter(|s| s.applies_to(&variant));
            let draw_rules = rules_arg(set, &variant)?;
            eprintln!(
                "building the {name} tables up to {pieces} pieces ({} rules) in {}",
                draw_rules.set,
                dir.display()
            );
            build_with_progress(variant, Scope::Pieces(pieces), &dir, draw_rules, default_memory())?;
        }
    }
    let tables = open_tables(&dir, rules)?;
    let reach = Reach { pieces: args.pieces };
    let analyzer = Analyzer::new(&tables, forced, reach);
    let stdout = io::stdout().lock();
    let mut out = report(format, Box::new(BufWriter::new(stdout)));
    let mut summary = Summary::default();
    for path in &args.files {
        analyzer.file(path, &mut summary, &mut |file, game, outcome| out.game(file, game, outcome))?;
    }
    out.finish(&summary).map_err(crate::output_error)?;
    drop(out);
    if format != Format::Text {
        // Keep machine-readable output clean; say what is missing on stderr.
        if !summary.missing.is_empty() || !summary.variants_without_tables.is_empty() {
            eprintln!("kabe: some positions had no tables; see the summary");
        }
    }
    for (file, error) in &summary.unreadable_files {
        eprintln!("kabe: error: {file}: {error}");
    }
    // 2: a file named could not be read (bad input), as for any command; 1: a game failed.
    Ok(if !summary.unreadable_files.is_empty() {
        ExitCode::from(2)
    } else if summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
