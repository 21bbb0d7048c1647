//! The figures the published databases print for each table: wins, draws and losses for
//! the side to move, the longest win, and under a draw-rule set with a fresh count the
//! wins it keeps and those it turns into draws. `kabe verify` counts them while it holds
//! a pair (every value is at hand there) and records them in its ledger; `kabe stats`
//! reads them from there or counts them itself.

use kabe_probe::{DrawRuleSet, Score, Signature, Wld};

/// The theoretical figures of one table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Positions of the table, captures included.
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// The longest win: plies and the index of its position (the first in index order
    /// among equals).
    pub longest_win: Option<(u16, u64)>,
}

/// The figures of one table under a draw-rule set, every position with a fresh count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleStats {
    /// Theoretical wins the count leaves wins.
    pub wins_kept: u64,
    /// Theoretical wins the count turns into draws.
    pub wins_drawn_by_count: u64,
    /// Theoretical losses the count turns into draws.
    pub losses_saved_by_count: u64,
    /// The longest win within the count: plies to the move that decides it, and the
    /// index of its position.
    pub longest_win_within_count: Option<(u16, u64)>,
}

/// The longer of two longest wins, the first in index order among equals.
fn longer(a: Option<(u16, u64)>, b: Option<(u16, u64)>) -> Option<(u16, u64)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) { y } else { x }),
        (x, y) => x.or(y),
    }
}

impl TableStats {
    /// Counts the position at `index`, whose value is `score`.
    pub fn add(&mut self, index: u64, score: Score) {
        self.positions += 1;
        match score.wld() {
            Wld::Win => {
                self.wins += 1;
                self.longest_win = longer(self.longest_win, Some((score.plies().unwrap_or(0), index)));
            }
            Wld::Draw => self.draws += 1,
            Wld::Loss => self.losses += 1,
        }
    }

    /// The figures of two parts of a table together.
    #[must_use]
    pub fn merge(self, other: TableStats) -> TableStats {
        TableStats {
            positions: self.positions + other.positions,
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
            longest_win: longer(self.longest_win, other.longest_win),
        }
    }
}

impl RuleStats {
    /// Counts the position at `index`: its theoretical value, its exact verdict with a
    /// fresh count, and how many plies the count's win takes (when it is one).
    pub fn add(&mut self, index: u64, theoretical: Wld, exact: Wld, within_plies: u16) {
        match (theoretical, exact) {
            (Wld::Win, Wld::Win) => {
                self.wins_kept += 1;
                self.longest_win_within_count = longer(self.longest_win_within_count, Some((within_plies, index)));
            }
            (Wld::Win, _) => self.wins_drawn_by_count += 1,
            (Wld::Loss, Wld::Draw) => self.losses_saved_by_count += 1,
            _ => {}
        }
    }

    /// The figures of two parts of a table together.
    #[must_use]
    pub fn merge(self, other: RuleStats) -> RuleStats {
        RuleStats {
            wins_kept: self.wins_kept + other.wins_kept,
            wins_drawn_by_count: self.wins_drawn_by_count + other.wins_drawn_by_count,
            losses_saved_by_count: self.losses_saved_by_count + other.losses_saved_by_count,
            longest_win_within_count: longer(self.longest_win_within_count, other.longest_win_within_count),
        }
    }
}

/// The figures of the tables of one pair as a ledger line records them after the pair's
/// name and digest: ` SIG=positions,wins,draws,losses,plies,index` for each table and
/// ` SIG/SET=kept,drawn,saved,plies,index` for each rule table (`-` for no win).
pub fn to_ledger_words(theory: &[(Signature, TableStats)], rules: &[(Signature, DrawRuleSet, RuleStats)]) -> String {
    let longest = |l: Option<(u16, u64)>| l.map_or("-,-".to_string(), |(p, i)| format!("{p},{i}"));
    let mut out = String::new();
    for (sig, s) in theory {
        out += &format!(" {sig}={},{},{},{},{}", s.positions, s.wins, s.draws, s.losses, longest(s.longest_win));
    }
    for (sig, set, r) in rules {
        out += &format!(
            " {sig}/{}={},{},{},{}",
            set.name(),
            r.wins_kept,
            r.wins_drawn_by_count,
            r.losses_saved_by_count,
            longest(r.longest_win_within_count)
        );
    }
    out
}

/// The figures a ledger line records (the words after its name and digest), read back;
/// `None` for a word that is not one of [`to_ledger_words`]'s.
#[allow(clippy::type_complexity)]
pub fn from_ledger_words<'a>(
    words: impl Iterator<Item = &'a str>,
) -> Option<(Vec<(Signature, TableStats)>, Vec<(Signature, DrawRuleSet, RuleStats)>)> {
    let mut theory = Vec::new();
    let mut rules = Vec::new();
    for word in words {
        let (key, values) = word.split_once('=')?;
        let numbers: Vec<Option<u64>> = values.split(',').map(|v| v.parse().ok()).collect();
        let longest = |at: usize| -> Option<Option<(u16, u64)>> {
            match (values.split(',').nth(at)?, values.split(',').nth(at + 1)?) {
                ("-", "-") => Some(None),
                _ => Some(Some((u16::try_from((*numbers.get(at)?)?).ok()?, (*numbers.get(at + 1)?)?))),
            }
        };
        let n = |at: usize| numbers.get(at).copied().flatten();
        match key.split_once('/') {
            None => {
                let sig: Signature = key.parse().ok()?;
                if numbers.len() != 6 {
                    return None;
                }
                let stats =
                    TableStats { positions: n(0)?, wins: n(1)?, draws: n(2)?, losses: n(3)?, longest_win: longest(4)? };
                theory.push((sig, stats));
            }
            Some((sig, set)) => {
                let (sig, set): (Signature, DrawRuleSet) = (sig.parse().ok()?, set.parse().ok()?);
                if numbers.len() != 5 {
                    return None;
                }
                let stats = RuleStats {
                    wins_kept: n(0)?,
                    wins_drawn_by_count: n(1)?,
                    losses_saved_by_count: n(2)?,
                    longest_win_within_count: longest(3)?,
                };
                rules.push((sig, set, stats));
            }
        }
    }
    Some((theory, rules))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_words_read_back_to_the_same_figures() {
        let mut a = TableStats::default();
        a.add(7, Score::win(9));
        a.add(3, Score::win(9));
        a.add(4, Score::DRAW);
        a.add(5, Score::loss(2));
        assert_eq!((a.wins, a.draws, a.losses, a.longest_win), (2, 1, 1, Some((9, 3))));
        let b = TableStats { positions: 2, draws: 2, ..TableStats::default() };
        let mut r = RuleStats::default();
        r.add(1, Wld::Win, Wld::Win, 11);
        r.add(2, Wld::Win, Wld::Draw, 0);
        r.add(3, Wld::Loss, Wld::Draw, 0);
        let theory = vec![(Signature::new(0, 2, 0, 1), a), (Signature::new(0, 1, 0, 2), b)];
        let rules = vec![(Signature::new(0, 2, 0, 1), DrawRuleSet::Fmjd, r)];
        let words = to_ledger_words(&theory, &rules);
        assert_eq!(from_ledger_words(words.split_whitespace()), Some((theory, rules)));
        assert_eq!(from_ledger_words(["0201=1,2,3".to_string()].iter().map(|s| s.as_str())), None);
        assert_eq!(from_ledger_words(["0201=1,2,3,4,x,5"].into_iter()), None);
    }
}
