//! The figures of a set as a user reads them ([`StatsReport`]): wins, draws, losses and
//! the longest win of every table, and under draw rules the wins the count keeps, as
//! JSON and as a table of text (`kabe stats`).

use std::fmt;
use std::path::Path;

use kabe_probe::{DrawRules, Variant};
use serde_json::{json, Value};

use crate::verify::figures::Figures;
use crate::verify::statistics::RuleStats;

/// The figures of a set's tables of one variant, under draw rules or in theory.
#[derive(Clone, Copy, Debug)]
pub struct StatsReport<'a> {
    /// The variant.
    pub variant: Variant,
    /// The table directory.
    pub dir: &'a Path,
    /// The rules the figures were counted under, besides the theory.
    pub rules: Option<&'a DrawRules>,
    /// Each material's figures.
    pub figures: &'a [Figures],
}

fn row_json(f: &Figures, rules: bool) -> Value {
    let t = &f.theory;
    let mut row = json!({
        "signature": f.signature.to_string(),
        "positions": f.positions,
        "wins": t.wins, "draws": t.draws, "losses": t.losses,
        "longest_win_plies": t.longest_win.map(|(p, _)| p),
        "longest_win_fen": f.longest_win_fen,
    });
    if let (true, Some(r)) = (rules, f.ruled) {
        row["rules"] = json!({
            "count": f.count,
            "wins_kept": r.wins_kept,
            "wins_drawn_by_count": r.wins_drawn_by_count,
            "losses_saved_by_count": r.losses_saved_by_count,
            "longest_win_within_count_plies": r.longest_win_within_count.map(|(p, _)| p),
            "longest_win_within_count_fen": f.longest_win_within_count_fen,
        });
    }
    row
}

impl StatsReport<'_> {
    /// `{variant, rules, tables}`, a row a material: `kabe stats --json`.
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self.figures.iter().map(|f| row_json(f, self.rules.is_some())).collect();
        json!({ "variant": self.variant.name, "rules": self.rules.map(|r| r.set.name()), "tables": rows })
    }

    /// The theoretical table: positions, wins, draws, losses and the longest win.
    fn theory_text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} tables in {} (side to move's material first)", self.variant.name, self.dir.display())?;
        let (a, b, c, d, e, g) = ("sig", "positions", "wins", "draws", "losses", "longest");
        write!(f, "\n{a:>6} {b:>12} {c:>12} {d:>12} {e:>12} {g:>8}  position")?;
        for r in self.figures {
            let t = &r.theory;
            let longest = t.longest_win.map_or("-".to_string(), |(p, _)| p.to_string());
            let fen = r.longest_win_fen.as_deref().unwrap_or("");
            let (sig, n) = (r.signature.to_string(), r.positions);
            write!(f, "\n{sig:>6} {n:>12} {:>12} {:>12} {:>12} {longest:>8}  {fen}", t.wins, t.draws, t.losses)?;
        }
        Ok(())
    }

    /// The table under the rules: wins, those the count keeps, draws and saves, and the
    /// longest win within the count.
    fn rules_text(&self, f: &mut fmt::Formatter<'_>, rules: &DrawRules) -> fmt::Result {
        let (variant, dir, set) = (self.variant.name, self.dir.display(), rules.set.name());
        write!(f, "{variant} tables in {dir} under the {set} rules, fresh counts (side to move's material first)")?;
        let (a, b, c, d, e, g) = ("sig", "wins", "still wins", "drawn", "saved", "longest");
        write!(f, "\n{a:>6} {b:>12} {c:>12} {d:>12} {e:>12} {g:>8}  position")?;
        for r in self.figures {
            let ruled = r.ruled.unwrap_or(RuleStats::default());
            let longest = ruled.longest_win_within_count.map_or("-".to_string(), |(p, _)| p.to_string());
            let fen = r.longest_win_within_count_fen.as_deref().unwrap_or("");
            let (sig, wins) = (r.signature.to_string(), r.theory.wins);
            let (kept, drawn, saved) = (ruled.wins_kept, ruled.wins_drawn_by_count, ruled.losses_saved_by_count);
            write!(f, "\n{sig:>6} {wins:>12} {kept:>12} {drawn:>12} {saved:>12} {longest:>8}  {fen}")?;
        }
        Ok(())
    }
}

/// The table of `kabe stats`: under the rules when they were asked for, else in theory.
impl fmt::Display for StatsReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rules {
            Some(rules) => self.rules_text(f, rules),
            None => self.theory_text(f),
        }
    }
}
