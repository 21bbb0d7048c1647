//! The values of a table of kings only in which the side to move has every king but one
//! (`0k01`: k kings against a lone king), derived lane by lane from its colour flip's
//! values: [`LoneKingLanes`].
//!
//! Such a table is the side a one-side pair of kings leaves out, and deriving it was most
//! of that pair's check: each position's 50 to 70 successors ranked and read one by
//! one, all over the other table. Here the positions are taken a context at a time (the
//! side to move's kings, ranked) with the lone king's square as the lane: every quiet move
//! of a king leads, for all lanes at once, to one context of the other table, whose lanes
//! are read as one row of a transposed copy of its values and kept where better. A lane
//! on a move's path needs no masking: a lone king there, with the path going on beyond
//! it, can be taken, and a position with a capture to make takes the one value every
//! such position has (derived once, position by position); one with no move at all is
//! derived position by position too.
//!
//! The geometry (rays, captures) is this room's own, from the board's coordinates, and
//! is accepted only where it gives every king's reach and capture as the rules do; the
//! best of the successors is the one [`kabe_probe::internal::successors`] takes, encoded so
//! that a larger number is a better move for the side to move (see [`dtw_merit`] and
//! [`RuleMerits`]). A test compares every value with the position-by-position fill.

use kabe_probe::internal::table::{rule_code, rule_of_code};
use kabe_probe::internal::UncheckedPosition;
use kabe_probe::table::TableError;
use kabe_probe::{Color, KingRange, Position, RuleScore, Score, Signature, SquareSets, Variant, Wld};
use rayon::prelude::*;

/// Contexts a worker fills at a time.
const CONTEXTS_PER_TASK: usize = 256;

/// Most quiet moves of a side's kings: at most 17 squares for each king on 10x10 (two
/// diagonals through the centre), of at most 15 kings (a signature's digit).
const MAX_MOVES: usize = 15 * 17;

/// The fill of one `0k01` table from its flip's values, where it applies.
pub(super) struct LoneKingLanes {
    variant: Variant,
    squares: usize,
    kings: usize,
    /// Squares along each of a square's four diagonals, nearest first.
    rays: Vec<[Vec<u8>; 4]>,
    binomial: Vec<Vec<u64>>,
}

impl LoneKingLanes {
    /// For `sig` of `variant`, where its shape (kings only, a lone king on the other side)
    /// and the variant's geometry allow; `None` elsewhere, and the caller fills position
    /// by position.
    pub(super) fn new(variant: Variant, sig: Signature) -> Option<LoneKingLanes> {
        let shape =
            sig.white_men == 0 && sig.black_men == 0 && sig.black_kings == 1 && (1..=15).contains(&sig.white_kings);
        let flying = variant.king_moves == KingRange::Flying && variant.king_captures == KingRange::Flying;
        if !shape || !flying {
            return None;
        }
        let squares = variant.squares() as usize;
        let row_len = variant.board.row_len() as usize;
        let binomial = binomials(squares);
        // The parity of the rows' first dark square is taken from the rules themselves.
        [0, 1].into_iter().find_map(|parity| {
            let lanes = LoneKingLanes {
                variant,
                squares,
                kings: sig.white_kings as usize,
                rays: rays(squares, row_len, parity),
                binomial: binomial.clone(),
            };
            lanes.agrees_with_the_rules().then_some(lanes)
        })
    }

    /// Whether, for a king on every square and a lone opposing king on every other, this
    /// room's rays give the king's quiet moves and its capture as the move generator does,
    /// and the colour flip turns square `s` into `squares - 1 - s`; and a position of the
    /// material is neither settled nor drawn by it.
    fn agrees_with_the_rules(&self) -> bool {
        let n = self.squares;
        for king in 0..n {
            for lone in (0..n).filter(|&t| t != king) {
                let sets = SquareSets { white_men: 0, white_kings: 1 << king, black_men: 0, black_kings: 1 << lone };
                let position = Position::from_square_sets(self.variant, Color::White, &sets);
                let reach = position.king_step_squares(Color::White).fold(0, |all, (_, reach)| all | reach);
                let (mut mine, mut captures) = (0u64, false);
                for ray in &self.rays[king] {
                    for (i, &sq) in ray.iter().enumerate() {
                        if sq as usize == lone {
                            captures |= i + 1 < ray.len();
                            break;
                        }
                        mine |= 1 << sq;
                    }
                }
                let flip = kabe_probe::Square::from_number(king as u32 + 1, n as u8)
                    .map(|s| position.flipped_square(s).index() as usize);
                if reach != mine || captures != position.has_capture() || flip != Some(n - 1 - king) {
                    return false;
                }
            }
        }
        let kings = (1u64 << self.kings) - 1;
        let sets = SquareSets { white_men: 0, white_kings: kings, black_men: 0, black_kings: 1 << (n - 1) };
        let sample = Position::from_square_sets(self.variant, Color::White, &sets);
        sample.settled_score().is_none() && !sample.is_drawn_by_material()
    }

    /// Bytes the transposed copy of the flip's values takes: a row of lanes a context,
    /// two bytes a lane for DTW and one for rule values where `rules`.
    pub(super) fn transposed_bytes(&self, rules: bool) -> u64 {
        self.contexts() as u64 * self.squares as u64 * (2 + rules as u64)
    }

    fn contexts(&self) -> usize {
        self.binomial[self.squares][self.kings] as usize
    }

    /// The colex rank of a set of squares among all squares.
    #[inline]
    fn rank(&self, mut set: u64) -> usize {
        let mut rank = 0;
        let mut i = 1;
        while set != 0 {
            rank += self.binomial[set.trailing_zeros() as usize][i];
            set &= set - 1;
            i += 1;
        }
        rank as usize
    }

    /// The set of `kings` squares of colex rank `rank`.
    fn unrank(&self, mut rank: u64) -> u64 {
        let mut set = 0;
        for i in (1..=self.kings).rev() {
            let mut square = i - 1;
            while square + 1 < self.squares && self.binomial[square + 1][i] <= rank {
                square += 1;
            }
            rank -= self.binomial[square][i];
            set |= 1 << square;
        }
        set
    }

    /// The set rotated half a turn: what the colour flip does to squares.
    #[inline]
    fn rotated(&self, set: u64) -> u64 {
        set.reverse_bits() >> (64 - self.squares)
    }

    /// The flip's values transposed: row `r` holds, for the context of colex rank `r` of
    /// the flip's many kings, at lane `b` the merit of the position whose lone king stands
    /// where this table's lone king on `b` stands after the flip (0 where `b` is taken).
    /// `flip_dtw` and `flip_rules` are in the flip's index order: its lone king's square
    /// times the placements of the others, then their colex rank among the rest.
    fn transpose(&self, flip_dtw: &[u16], flip_rules: Option<(&[u8], &RuleMerits)>) -> Option<Transposed> {
        let (n, k) = (self.squares, self.kings);
        let placements = self.binomial[n - 1][k] as usize;
        if flip_dtw.len() != n * placements || flip_rules.is_some_and(|(r, _)| r.len() != flip_dtw.len()) {
            return None;
        }
        if flip_dtw.iter().any(|&raw| dtw_merit(raw).is_none()) {
            return None;
        }
        let mut dtw = crate::memory::huge_vec(self.contexts() * n, 0u16);
        let mut rules = flip_rules.map(|_| crate::memory::huge_vec(self.contexts() * n, 0u8));
        let rows_per_task = CONTEXTS_PER_TASK;
        let rule_chunks = rules.as_mut().map(|r| r.par_chunks_mut(rows_per_task * n));
        let fill = |task: usize, dtw_rows: &mut [u16], mut rule_rows: Option<&mut [u8]>| {
            let mut context = self.unrank((task * rows_per_task) as u64);
            for (row, dtw_row) in dtw_rows.chunks_mut(n).enumerate() {
                // The rank among the squares but `lone` of this context's squares: one
                // value for each gap between them (a gap below square 0 is never used).
                let mut gap_rank = [0usize; 16];
                let mut squares = [0usize; 16];
                for (i, square) in bits(context).enumerate() {
                    squares[i] = square;
                }
                for (gap, rank) in gap_rank.iter_mut().enumerate().take(k + 1) {
                    *rank = squares[..k]
                        .iter()
                        .enumerate()
                        .map(|(i, &s)| self.binomial[if i < gap { s } else { s.saturating_sub(1) }][i + 1] as usize)
                        .sum();
                }
                let mut gap = 0;
                for lone in 0..n {
                    if context >> lone & 1 == 1 {
                        gap += 1;
                        continue;
                    }
                    let at = lone * placements + gap_rank[gap];
                    dtw_row[n - 1 - lone] = dtw_merit(flip_dtw[at]).unwrap_or(0);
                    if let (Some(rows), Some((values, merits))) = (rule_rows.as_deref_mut(), flip_rules) {
                        rows[row * n + n - 1 - lone] = merits.of_code[values[at] as usize];
                    }
                }
                context = next_set(context);
            }
        };
        match rule_chunks {
            Some(chunks) => dtw
                .par_chunks_mut(rows_per_task * n)
                .zip(chunks)
                .enumerate()
                .for_each(|(task, (d, r))| fill(task, d, Some(r))),
            None => dtw.par_chunks_mut(rows_per_task * n).enumerate().for_each(|(task, d)| fill(task, d, None)),
        }
        Some(Transposed { dtw, rules })
    }

    /// Every DTW value of this table (and every rule value, with `flip_rules`: the flip's
    /// rule codes and the merits under this table's count), from the flip's values in
    /// its index order; `at_hand(worker, at, position)` derives the positions left to it
    /// (a capture to make, or no move), as the position-by-position fill does. `Ok(None)`
    /// where the lanes do not apply after all (a distance too long for their encoding) or
    /// `at_hand` found no value.
    #[allow(clippy::type_complexity)]
    pub(super) fn fill<W>(
        &self,
        flip_dtw: &[u16],
        flip_rules: Option<(&[u8], &RuleMerits)>,
        make_worker: impl Fn() -> W + Sync,
        at_hand: impl Fn(&mut W, u64, &Position) -> Result<Option<(u16, u8)>, TableError> + Sync,
    ) -> Result<Option<(Vec<u16>, Option<Vec<u8>>)>, TableError> {
        let Some(transposed) = self.transpose(flip_dtw, flip_rules) else { return Ok(None) };
        let (n, k) = (self.squares, self.kings);
        let lanes_per_context = n - k;
        let len = self.contexts() * lanes_per_context;
        let mut dtw = crate::memory::huge_vec(len, 0u16);
        let mut rules = flip_rules.map(|_| crate::memory::huge_vec(len, 0u8));
        let merits = flip_rules.map(|(_, m)| m);
        let chunk = CONTEXTS_PER_TASK * lanes_per_context;
        let Some(taken) = self.value_of_a_capture(&transposed, &make_worker, &at_hand)? else { return Ok(None) };
        let missing = std::sync::atomic::AtomicBool::new(false);
        let task = |worker: &mut W, t: usize, dtw_out: &mut [u16], mut rule_out: Option<&mut [u8]>| {
            let mut context = self.unrank((t * CONTEXTS_PER_TASK) as u64);
            let mut best = Best::new(n);
            for c in 0..dtw_out.len() / lanes_per_context {
                let captures = self.best_quiet_moves(context, &transposed, &mut best);
                for (j, lone) in (0..n).filter(|&b| context >> b & 1 == 0).enumerate() {
                    let offset = c * lanes_per_context + j;
                    let dtw_best = best.dtw[lone];
                    let value = if captures >> lone & 1 == 1 {
                        taken
                    } else if dtw_best == 0 {
                        let sets =
                            SquareSets { white_men: 0, white_kings: context, black_men: 0, black_kings: 1 << lone };
                        let position = Position::from_square_sets(self.variant, Color::White, &sets);
                        match at_hand(worker, (t * chunk + offset) as u64, &position)? {
                            Some(value) => value,
                            None => {
                                missing.store(true, std::sync::atomic::Ordering::Relaxed);
                                return Ok(());
                            }
                        }
                    } else {
                        let score = dtw_of_merit(dtw_best);
                        let rule = match merits {
                            Some(_) if score == Score::DRAW => rule_code(RuleScore::NONE),
                            Some(m) => rule_code(m.rule_of_merit(best.rules[lone])),
                            None => 0,
                        };
                        (score.raw(), rule)
                    };
                    dtw_out[offset] = value.0;
                    if let Some(out) = rule_out.as_deref_mut() {
                        out[offset] = value.1;
                    }
                }
                context = next_set(context);
            }
            Ok::<(), TableError>(())
        };
        match rules.as_mut() {
            Some(rules) => dtw
                .par_chunks_mut(chunk)
                .zip(rules.par_chunks_mut(chunk))
                .enumerate()
                .try_for_each_init(&make_worker, |w, (t, (d, r))| task(w, t, d, Some(r)))?,
            None => dtw
                .par_chunks_mut(chunk)
                .enumerate()
                .try_for_each_init(&make_worker, |w, (t, d)| task(w, t, d, None))?,
        }
        Ok((!missing.into_inner()).then_some((dtw, rules)))
    }

    /// The DTW and rule values of every position with a capture to make: each capture
    /// takes the lone king, the last piece of its side, so every such position has the
    /// same successors' values and so the same value, derived by `at_hand` at the first
    /// of them. `Ok(None)` where `at_hand` finds none; `(0, 0)` where no position has a
    /// capture (never used).
    fn value_of_a_capture<W>(
        &self,
        transposed: &Transposed,
        make_worker: impl Fn() -> W,
        at_hand: impl Fn(&mut W, u64, &Position) -> Result<Option<(u16, u8)>, TableError>,
    ) -> Result<Option<(u16, u8)>, TableError> {
        let mut best = Best::new(self.squares);
        let mut context = self.unrank(0);
        for c in 0..self.contexts() {
            let captures = self.best_quiet_moves(context, transposed, &mut best);
            if captures != 0 {
                let lone = captures.trailing_zeros() as usize;
                let j = (0..lone).filter(|&b| context >> b & 1 == 0).count();
                let sets = SquareSets { white_men: 0, white_kings: context, black_men: 0, black_kings: 1 << lone };
                let position = Position::from_square_sets(self.variant, Color::White, &sets);
                let at = (c * (self.squares - self.kings) + j) as u64;
                return at_hand(&mut make_worker(), at, &position);
            }
            context = next_set(context);
        }
        Ok(Some((0, 0)))
    }

    /// Takes into `best` (cleared first), lane by lane, the best merit of the quiet moves
    /// of the kings `context` against a lone king on each lane; returns the lanes where
    /// that king can be captured (captures are compulsory: those lanes' moves are others).
    #[inline]
    fn best_quiet_moves(&self, context: u64, transposed: &Transposed, best: &mut Best) -> u64 {
        let n = self.squares;
        best.clear();
        let mut captures = 0u64;
        // Every move's row first, each fetched ahead, then taken: the rows lie all over
        // the copy, and their reads overlap instead of waiting one after another.
        let mut rows = [0usize; MAX_MOVES];
        let mut moves = 0;
        for king in bits(context) {
            for ray in &self.rays[king] {
                for (i, &sq) in ray.iter().enumerate() {
                    if context >> sq & 1 == 1 {
                        break;
                    }
                    if ray.get(i + 1).is_some_and(|&beyond| context >> beyond & 1 == 0) {
                        captures |= 1 << sq;
                    }
                    let row = self.rank(self.rotated(context ^ (1 << king) ^ (1 << sq)));
                    crate::memory::prefetch(&transposed.dtw[row * n]);
                    crate::memory::prefetch(&transposed.dtw[row * n + n - 1]);
                    if let Some(rules) = &transposed.rules {
                        crate::memory::prefetch(&rules[row * n]);
                    }
                    rows[moves] = row;
                    moves += 1;
                }
            }
        }
        // A lone king on a path with the path going on beyond it can be taken: its lane's
        // moves are captures, so the moves past it need no masking.
        for &row in &rows[..moves] {
            let rules = transposed.rules.as_ref().map(|r| &r[row * n..(row + 1) * n]);
            best.take(&transposed.dtw[row * n..(row + 1) * n], rules);
        }
        captures
    }
}

/// The flip's values transposed ([`LoneKingLanes::transpose`]).
struct Transposed {
    dtw: Vec<u16>,
    rules: Option<Vec<u8>>,
}

/// The best merit so far of each lane of one context.
struct Best {
    dtw: Vec<u16>,
    rules: Vec<u8>,
}

impl Best {
    fn new(lanes: usize) -> Best {
        Best { dtw: vec![0; lanes], rules: vec![0; lanes] }
    }

    fn clear(&mut self) {
        self.dtw.fill(0);
        self.rules.fill(0);
    }

    /// Keeps, lane by lane, the better of what is kept and a move's row.
    #[inline]
    fn take(&mut self, dtw: &[u16], rules: Option<&[u8]>) {
        for (kept, &row) in self.dtw.iter_mut().zip(dtw) {
            *kept = (*kept).max(row);
        }
        if let Some(rules) = rules {
            for (kept, &row) in self.rules.iter_mut().zip(rules) {
                *kept = (*kept).max(row);
            }
        }
    }
}

/// A successor's DTW (its side to move's) as a merit for the side that moved there: a
/// loss of the successor, quicker better, above a draw, above a win of the successor,
/// slower better; 0 is no move. `None` for a distance too long to encode.
#[inline]
fn dtw_merit(raw: u16) -> Option<u16> {
    match Score::from_raw(raw).wld() {
        Wld::Draw => Some(0x8000),
        Wld::Loss => (raw <= 0x7FFE).then(|| 0xFFFF - raw),
        Wld::Win => (raw < 0x7FFF).then_some(raw + 1),
    }
}

/// The DTW of a position whose best move has merit `merit` (not 0): the quickest win
/// through a lost successor, else a draw, else the slowest loss.
#[inline]
fn dtw_of_merit(merit: u16) -> Score {
    match merit {
        0x8001.. => Score::win(0xFFFF - merit + 1),
        0x8000 => Score::DRAW,
        loss => Score::loss(loss),
    }
}

/// Rule values as merits under one count (its longest limit `cap`): a successor lost
/// within the count, quicker better, above one undecided (or beyond the count), above
/// one won within it, slower better.
pub(super) struct RuleMerits {
    cap: u16,
    /// The merit of each rule code.
    of_code: [u8; 256],
}

impl RuleMerits {
    /// For a count of at most `cap` plies; `None` where it is too long to encode.
    pub(super) fn new(cap: u16) -> Option<RuleMerits> {
        if cap > 126 {
            return None;
        }
        let mut of_code = [0u8; 256];
        for (code, merit) in of_code.iter_mut().enumerate() {
            *merit = match rule_of_code(code as u8).decided().filter(|&(_, plies)| plies <= cap) {
                None => 128,
                Some((Wld::Loss, plies)) => 255 - plies as u8,
                Some((_, plies)) => plies as u8 + 1,
            };
        }
        Some(RuleMerits { cap, of_code })
    }

    /// The rule value of a position whose best move has merit `merit` (not 0), as
    /// [`kabe_probe::internal::successors`] takes it: the quickest win within the count,
    /// else the slowest loss within it where every move loses, else undecided.
    fn rule_of_merit(&self, merit: u8) -> RuleScore {
        let within = |plies: u16| plies <= self.cap;
        match merit {
            129.. => Some(256 - merit as u16).filter(|&w| within(w)).map_or(RuleScore::NONE, RuleScore::win),
            128 => RuleScore::NONE,
            loss => Some(loss as u16).filter(|&l| within(l)).map_or(RuleScore::NONE, RuleScore::loss),
        }
    }
}

/// The next set of as many squares in colex order.
#[inline]
fn next_set(set: u64) -> u64 {
    // Wrapping: past the last set (none is asked for) the result is of no use, not a fault.
    let t = set | (set - 1);
    let above = t.wrapping_add(1);
    above | ((!t & above).wrapping_sub(1) >> (set.trailing_zeros() + 1))
}

/// The squares of a set, lowest first.
fn bits(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let square = set.trailing_zeros() as usize;
            set &= set - 1;
            square
        })
    })
}

/// Binomial coefficients `C(a, b)` for `a <= squares`, `b <= 16`.
fn binomials(squares: usize) -> Vec<Vec<u64>> {
    let mut c = vec![vec![0u64; 17]; squares + 1];
    for a in 0..=squares {
        c[a][0] = 1;
        for b in 1..=16.min(a) {
            c[a][b] = c[a - 1][b - 1] + if b < a { c[a - 1][b] } else { 0 };
        }
    }
    c
}

/// Each square's four diagonals, nearest square first, on a board of `squares` dark
/// squares, `row_len` a row, the first row's first dark square in column `1 - parity`.
fn rays(squares: usize, row_len: usize, parity: usize) -> Vec<[Vec<u8>; 4]> {
    let width = 2 * row_len as i32;
    let rows = (squares / row_len) as i32;
    let column = |s: usize| 2 * (s % row_len) as i32 + ((s / row_len + parity + 1) % 2) as i32;
    let at = |row: i32, col: i32| -> Option<u8> {
        if !(0..rows).contains(&row)
            || !(0..width).contains(&col)
            || (col - ((row as usize + parity + 1) % 2) as i32) % 2 != 0
        {
            return None;
        }
        Some((row as usize * row_len + (col as usize) / 2) as u8)
    };
    (0..squares)
        .map(|s| {
            let (row, col) = ((s / row_len) as i32, column(s));
            [(-1, -1), (-1, 1), (1, -1), (1, 1)]
                .map(|(dr, dc)| (1..).map_while(|i| at(row + i * dr, col + i * dc)).collect())
        })
        .collect()
}
