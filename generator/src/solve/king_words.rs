//! The theory and rule passes, bit-parallel over one king's square, of a pair of kings
//! only on the 10x10 board and of a pair with men where a side has one king.
//!
//! The ply-ordered pass ([`crate::solve::whole`]) pays, for every decided position, a
//! ranked unmove per parent. Here a position is one bit of a word: fix every piece but
//! one king (the *free* king: of the side with fewer kings where there are no men, else
//! of the side with one king), and the free king's squares are the 64 bits of a word in
//! the ghost-square layout (square `s` at bit `s + s / 10`, so the four diagonal steps
//! are shifts by 5 and 6 and the ghosts stop a ray at the edge). Such a fixed
//! arrangement is a *context*; a position with `k` kings on the free side is a bit of
//! `k` contexts, one per king taken as the free one, and every copy is solved alike
//! (each sees all the moves: the free king's as ray fills inside its word, the other
//! pieces' as word-to-word steps masked by the squares the free king would block). So
//! the free king's moves, its unmoves and "every move reaches a won position" are a few
//! shifts for all its squares at once, and the other pieces' moves are taken once for
//! up to 44 positions.
//!
//! A position has captures (every move leaves the pair) or quiet moves only. The
//! captures' positions are valued once from the finished tables as the whole-pair pass
//! values them and enter the propagation at their ply; the quiet ones are won at ply
//! `n + 1` when a move reaches a position lost at `n`, lost at `n + 1` when the last of
//! their moves reaches a position won at `n`, and drawn when never decided: the same
//! distances as the whole-pair pass, which the tests compare position by position. A
//! move that crowns a man leaves the pair too: a position whose every move crowns is
//! valued as a capture's; one that may crown beside other moves has its crowning valued
//! so, and is won at the crowning's ply if nothing won it sooner, never lost where the
//! crowning draws or wins, and lost no sooner than the crowning's loss.
//!
//! A rule table ([`crate::solve::rules`]) is the same propagation ([`Valuation`]): a
//! capture's position valued as a component of the rule pass values it (a capture ends
//! the count or carries it into the smaller material), either side deciding at any ply,
//! and nothing decided after the count's last ply; a position drawn in theory is never
//! decided, as under every count. There a man's move leaves the propagation as a
//! crowning does: it ends the count, or carries it on in a placement of the men one row
//! further on. So the placements are solved a level of advancement at a time, the most
//! advanced first, and a man's step is valued from the level before, for every square of
//! the free king at once ([`Valuation::MAN_MOVES_LEAVE`]).

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

use kabe_probe::internal::{BlackKingMoved, MaterialIndex, OneKingMoved, UncheckedPosition};
use kabe_probe::{Color, MoveList, Position, Score, Signature, Square, SquareSets, Variant};
use rayon::prelude::*;

use crate::finished::lookup::Finished;
use crate::finished::registry::SolvedTable;
use crate::solve::symmetry::KingSymmetry;
use crate::solve::whole::{into_tables, new_flags, new_state, ExitBuffers, Exits, Graph, Pair, PairPass};

/// Squares of the 10x10 board.
const SQUARES: usize = 50;
/// Ghost-layout steps: up-left, up-right, down-left, down-right.
const STEPS: [i32; 4] = [-6, -5, 5, 6];

/// The board in the ghost layout, and each square's rays.
struct Board {
    /// Ghost bit of each square.
    bit: [u8; SQUARES],
    /// Square of each ghost bit (`u8::MAX` for ghosts and bits past the board).
    square_of: [u8; 64],
    /// The ghost bits of real squares.
    valid: u64,
    /// The squares along each ray from a square, nearest first.
    ray: [[[u8; 9]; 4]; SQUARES],
    ray_len: [[u8; 4]; SQUARES],
    /// Ghost bits of the first `k + 1` squares of each ray.
    ray_prefix: [[[u64; 9]; 4]; SQUARES],
}

impl Board {
    fn new() -> Board {
        let mut bit = [0u8; SQUARES];
        let mut square_of = [u8::MAX; 64];
        let mut valid = 0u64;
        for s in 0..SQUARES {
            bit[s] = (s + s / 10) as u8;
            square_of[bit[s] as usize] = s as u8;
            valid |= 1 << bit[s];
        }
        let mut ray = [[[0u8; 9]; 4]; SQUARES];
        let mut ray_len = [[0u8; 4]; SQUARES];
        let mut ray_prefix = [[[0u64; 9]; 4]; SQUARES];
        for s in 0..SQUARES {
            for (d, &step) in STEPS.iter().enumerate() {
                let mut b = bit[s] as i32;
                let mut n = 0;
                let mut prefix = 0u64;
                loop {
                    b += step;
                    if !(0..64).contains(&b) || valid & (1 << b) == 0 {
                        break;
                    }
                    ray[s][d][n] = square_of[b as usize];
                    prefix |= 1 << b;
                    ray_prefix[s][d][n] = prefix;
                    n += 1;
                }
                ray_len[s][d] = n as u8;
            }
        }
        Board { bit, square_of, valid, ray, ray_len, ray_prefix }
    }

    /// The ghost bits of a set of squares (bit `s` for square `s`): each row pair of
    /// ten squares moved up by one ghost more than the last.
    #[inline]
    fn ghost(squares: u64) -> u64 {
        (0..5).fold(0, |g, k| g | (squares >> (10 * k) & 0x3FF) << (11 * k))
    }

    /// Squares from which a king slides to one of `targets` through `empty` (ghost bits).
    fn slides_to(&self, targets: u64, empty: u64) -> u64 {
        let mut from = 0;
        for &step in &STEPS {
            // Back along the step: a king that steps `step` from `x` lands on a target.
            let mut x = shift(targets, -step) & empty;
            while x != 0 {
                from |= x;
                x = shift(x, -step) & empty;
            }
        }
        from
    }
}

#[inline]
fn shift(x: u64, by: i32) -> u64 {
    if by >= 0 {
        x << by
    } else {
        x >> -by
    }
}

/// The set bits of a word, lowest first.
struct Bits(u64);

impl Iterator for Bits {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        (self.0 != 0).then(|| {
            let s = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            s
        })
    }
}

/// Binomial coefficients up to 50 choose 8.
struct Binomials([[u64; 9]; SQUARES + 1]);

impl Binomials {
    fn new() -> Binomials {
        let mut c = [[0u64; 9]; SQUARES + 1];
        for n in 0..=SQUARES {
            c[n][0] = 1;
            for k in 1..9 {
                c[n][k] = if n == 0 { 0 } else { c[n - 1][k - 1] + c[n - 1][k] };
            }
        }
        Binomials(c)
    }

    /// Colex rank of a set of squares among all 50.
    #[inline]
    fn rank(&self, squares: u64) -> u64 {
        Bits(squares).enumerate().map(|(i, s)| self.0[s as usize][i + 1]).sum()
    }

    /// The set of `k` squares of colex rank `rank`.
    fn unrank(&self, mut rank: u64, k: usize) -> u64 {
        let mut set = 0;
        let mut top = SQUARES;
        for i in (1..=k).rev() {
            let mut s = top - 1;
            while self.0[s][i] > rank {
                s -= 1;
            }
            rank -= self.0[s][i];
            set |= 1 << s;
            top = s;
        }
        set
    }
}

/// The pieces of a context: every piece but the free king, as sets of squares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Pieces {
    /// The free side's other kings, and the other side's kings.
    fixed: u64,
    other: u64,
    /// The free side's men (they move as White: up, to lower squares) and the other
    /// side's men.
    fixed_men: u64,
    other_men: u64,
}

impl Pieces {
    #[inline]
    fn occupied(&self) -> u64 {
        self.fixed | self.other | self.fixed_men | self.other_men
    }
}

/// The nodes of the positions of one context and side that differ in the free king's
/// square alone ([`Solver::free_king_nodes`]): the other pieces ranked once, each square
/// of the free king in constant time, where [`Solver::node`] ranks the whole position.
enum FreeKingNodes {
    /// The free side to move: the free king is one of White's.
    White { men_base: u64, ranks: OneKingMoved },
    /// The other side to move: the free king is one of Black's (the board rotated).
    Black { first: u64, moved: BlackKingMoved },
}

impl FreeKingNodes {
    /// The node with the free king on square `free` (of no other piece).
    #[inline]
    fn node(&self, free: u32) -> u64 {
        match self {
            FreeKingNodes::White { men_base, ranks } => men_base + ranks.king_rank(square(free)),
            FreeKingNodes::Black { first, moved } => first + moved.index(square(SQUARES as u32 - 1 - free)),
        }
    }
}

/// Square `index` of the 10x10 board.
#[inline]
fn square(index: u32) -> Square {
    Square::from_number(index + 1, SQUARES as u8).expect("a square of the board")
}

/// The squares a man of the free side may stand on are 5..50 (not its crowning row),
/// the other side's 0..45: each ranked among its 45 as a set shifted by this much.
const FREE_MEN_SHIFT: u32 = 5;
/// Squares a man may stand on.
const MAN_SQUARES: usize = 45;

/// The arrangements of every piece but the free king: the free side's other kings, the
/// other side's kings, the free side's men and the other side's men, each a set of
/// squares, ranked as one mixed-radix number (the sets may meet: those contexts hold
/// nothing).
struct Contexts {
    /// The number of arrangements of each set, the first the most significant.
    radix: [u64; 4],
    count: u64,
    binomials: Binomials,
    /// The sets of each rank, unranked once (C(50, 6) of them at most: 127 MB).
    fixed_sets: Vec<u64>,
    other_sets: Vec<u64>,
    fixed_men_sets: Vec<u64>,
    other_men_sets: Vec<u64>,
}

impl Contexts {
    /// The number of arrangements of each set of a pair's shape.
    fn radix(shape: &Shape) -> [u64; 4] {
        let c = Binomials::new();
        [
            c.0[SQUARES][shape.free_kings - 1],
            c.0[SQUARES][shape.other_kings],
            c.0[MAN_SQUARES][shape.free_men],
            c.0[MAN_SQUARES][shape.other_men],
        ]
    }

    /// How many contexts there are.
    fn count(shape: &Shape) -> u64 {
        Self::radix(shape).iter().product()
    }

    fn new(shape: &Shape) -> Contexts {
        let binomials = Binomials::new();
        let radix = Self::radix(shape);
        let sets = |k: usize, shift: u32, n: u64| -> Vec<u64> {
            (0..n).into_par_iter().map(|r| binomials.unrank(r, k) << shift).collect()
        };
        Contexts {
            radix,
            count: radix.iter().product(),
            fixed_sets: sets(shape.free_kings - 1, 0, radix[0]),
            other_sets: sets(shape.other_kings, 0, radix[1]),
            fixed_men_sets: sets(shape.free_men, FREE_MEN_SHIFT, radix[2]),
            other_men_sets: sets(shape.other_men, 0, radix[3]),
            binomials,
        }
    }

    /// The advancement of each placement of the men (a context's rank modulo their
    /// number: the men are its least significant digits): the rows the free side's men
    /// have gone up and the other side's down, so that a man's step adds one.
    fn men_levels(&self) -> Vec<u8> {
        let [_, _, r2, r3] = self.radix;
        let rows = |men: u64, up: bool| -> u32 { Bits(men).map(|s| if up { 9 - s / 5 } else { s / 5 }).sum() };
        (0..r2 * r3)
            .map(|m| {
                let (fixed_men, other_men) =
                    (self.fixed_men_sets[(m / r3) as usize], self.other_men_sets[(m % r3) as usize]);
                (rows(fixed_men, true) + rows(other_men, false)) as u8
            })
            .collect()
    }

    #[inline]
    fn of(&self, p: &Pieces) -> usize {
        let b = &self.binomials;
        let [_, r1, r2, r3] = self.radix;
        (((b.rank(p.fixed) * r1 + b.rank(p.other)) * r2 + b.rank(p.fixed_men >> FREE_MEN_SHIFT)) * r3
            + b.rank(p.other_men)) as usize
    }

    /// The pieces of a context, `None` where two would share a square.
    #[inline]
    fn sets(&self, context: usize) -> Option<Pieces> {
        let [_, r1, r2, r3] = self.radix;
        let mut rest = context as u64;
        let other_men = self.other_men_sets[(rest % r3) as usize];
        rest /= r3;
        let fixed_men = self.fixed_men_sets[(rest % r2) as usize];
        rest /= r2;
        let other = self.other_sets[(rest % r1) as usize];
        let fixed = self.fixed_sets[(rest / r1) as usize];
        let p = Pieces { fixed, other, fixed_men, other_men };
        (p.occupied().count_ones()
            == fixed.count_ones() + other.count_ones() + fixed_men.count_ones() + other_men.count_ones())
        .then_some(p)
    }
}

/// One bit per position in every context: a word a context.
fn words(n: usize) -> Vec<AtomicU64> {
    (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect()
}

/// Everything one context's positions share: its pieces, and which squares the free
/// king may stand on.
#[derive(Clone, Copy)]
struct Context {
    index: usize,
    pieces: Pieces,
    /// Ghost bits the free king may stand on.
    empty: u64,
}

/// Which of a side's fixed pieces moves.
#[derive(Clone, Copy)]
enum Kind {
    King,
    Man,
}

/// Side to move: the free king's side, or the other.
const FREE_SIDE: usize = 0;
const OTHER_SIDE: usize = 1;

/// The directions a man of each side moves in: the free side's up (as White), the
/// other's down.
const FORWARD: [[usize; 2]; 2] = [[0, 1], [2, 3]];

/// Whether a man of `side` moving onto `square` is crowned.
#[inline]
fn crowns(side: usize, square: u8) -> bool {
    if side == FREE_SIDE {
        (square as usize) < 5
    } else {
        square as usize >= SQUARES - 5
    }
}

/// Per side to move, the contexts where a man's move may leave beside moves that stay
/// (a crowning, at least), sorted: of their positions whose move that leaves loses,
/// those lost at a ply already reached, which may now be lost by their other moves.
#[derive(Default)]
struct Matured {
    contexts: Vec<u32>,
    bits: Vec<AtomicU64>,
}

impl Matured {
    fn new(mut contexts: Vec<u32>) -> Matured {
        contexts.sort_unstable();
        contexts.dedup();
        let bits = contexts.iter().map(|_| AtomicU64::new(0)).collect();
        Matured { contexts, bits }
    }

    #[inline]
    fn get(&self, index: usize) -> u64 {
        self.contexts.binary_search(&(index as u32)).map_or(0, |i| self.bits[i].load(Relaxed))
    }

    fn set(&self, index: usize, bits: u64) {
        let i = self.contexts.binary_search(&(index as u32)).expect("a context with a man's move out that loses");
        self.bits[i].fetch_or(bits, Relaxed);
    }
}

struct Solver<'a, 'v, F, V> {
    /// What the pass finds: the theory, or the distances within a count.
    values: &'v V,
    board: Board,
    contexts: Contexts,
    pair: Pair<'a, F>,
    /// A bit a node: the positions with a capture to make, for the writer.
    captures_noted: Vec<AtomicU64>,
    /// The board's symmetries (kings only): a capture's position is valued once a class.
    symmetry: Option<KingSymmetry>,
    /// The table of the free side to move and of the other side to move, and their
    /// first node in the pair's state.
    table: [(MaterialIndex, u64); 2],
    /// Per side to move: positions not yet decided with quiet moves.
    undecided: [Vec<AtomicU64>; 2],
    /// Per side to move: positions known won so far.
    won: [Vec<AtomicU64>; 2],
    /// Parents gathered by a scatter, cleared again by the collect that follows it.
    scratch: Vec<AtomicU64>,
    /// Per side to move: positions with a man's move out that loses, once its ply is
    /// reached.
    matured: [Matured; 2],
    /// The level of advancement of the men solved now, `None` for all of them at once.
    level: Option<u8>,
    /// The level of each placement of the men ([`Contexts::men_levels`]) where they are
    /// solved level by level, else empty.
    men_levels: Vec<u8>,
}

/// A set of positions of one context.
type Word = (u32, u64);

impl<'a, F: Finished, V: Valuation<F>> Solver<'a, '_, F, V> {
    /// Whether context `index` is solved now: its men at the level solved now.
    #[inline]
    fn in_level(&self, index: usize) -> bool {
        self.level.is_none_or(|l| self.men_levels[index % self.men_levels.len()] == l)
    }

    fn context(&self, index: usize) -> Option<Context> {
        let pieces = self.contexts.sets(index)?;
        let empty = self.board.valid & !Board::ghost(pieces.occupied());
        Some(Context { index, pieces, empty })
    }

    /// The kings that move for `side`: the fixed kings of the free side, or the other
    /// side's kings.
    #[inline]
    fn movers(c: &Context, side: usize) -> u64 {
        if side == FREE_SIDE {
            c.pieces.fixed
        } else {
            c.pieces.other
        }
    }

    /// The men of `side`.
    #[inline]
    fn men(c: &Context, side: usize) -> u64 {
        if side == FREE_SIDE {
            c.pieces.fixed_men
        } else {
            c.pieces.other_men
        }
    }

    /// The context after a fixed piece of `side` moved from `from` to `to` (a man not
    /// crowned).
    #[inline]
    fn moved(&self, c: &Context, side: usize, kind: Kind, from: u32, to: u32) -> usize {
        let mut p = c.pieces;
        let set = match (side == FREE_SIDE, kind) {
            (true, Kind::King) => &mut p.fixed,
            (false, Kind::King) => &mut p.other,
            (true, Kind::Man) => &mut p.fixed_men,
            (false, Kind::Man) => &mut p.other_men,
        };
        *set ^= (1u64 << from) | (1u64 << to);
        self.contexts.of(&p)
    }

    /// The positions of a context where `side` has a capture to make.
    fn captures(&self, c: &Context, side: usize) -> u64 {
        let b = &self.board;
        let p = &c.pieces;
        let occupied = p.occupied();
        let (movers, men, enemies) = if side == FREE_SIDE {
            (p.fixed, p.fixed_men, p.other | p.other_men)
        } else {
            (p.other, p.other_men, p.fixed | p.fixed_men)
        };
        let mut capture = 0u64;
        for p in Bits(movers) {
            let p = p as usize;
            for d in 0..4 {
                let len = b.ray_len[p][d] as usize;
                let ray = &b.ray[p][d];
                let blocker = (0..len).find(|&i| occupied & (1 << ray[i]) != 0).unwrap_or(len);
                // Over a fixed enemy: the free king not on the way nor on the square after.
                if blocker + 1 < len && enemies & (1 << ray[blocker]) != 0 && occupied & (1 << ray[blocker + 1]) == 0 {
                    let way = if blocker == 0 { 0 } else { b.ray_prefix[p][d][blocker - 1] };
                    capture |= c.empty & !way & !(1 << b.bit[ray[blocker + 1] as usize]);
                }
                // Over the free king, an enemy of the other side, with an empty square after it.
                if side == OTHER_SIDE && blocker >= 2 {
                    capture |= b.ray_prefix[p][d][blocker - 2];
                }
            }
        }
        // A man's short jump, forward or back.
        for m in Bits(men) {
            let m = m as usize;
            for d in 0..4 {
                if b.ray_len[m][d] < 2 || occupied & (1 << b.ray[m][d][1]) != 0 {
                    continue;
                }
                let (over, to) = (b.ray[m][d][0], b.ray[m][d][1]);
                if enemies & (1 << over) != 0 {
                    capture |= !(1 << b.bit[to as usize]);
                } else if side == OTHER_SIDE && occupied & (1 << over) == 0 {
                    capture |= 1 << b.bit[over as usize];
                }
            }
        }
        if side == FREE_SIDE {
            // The free king over a fixed enemy: from any square of the ray behind it.
            for e in Bits(enemies) {
                let e = e as usize;
                for d in 0..4 {
                    if b.ray_len[e][d] == 0 || occupied & (1 << b.ray[e][d][0]) != 0 {
                        continue;
                    }
                    let back = d ^ 3; // the opposite direction
                    let len = b.ray_len[e][back] as usize;
                    let free = (0..len).take_while(|&i| occupied & (1 << b.ray[e][back][i]) == 0).count();
                    if free > 0 {
                        capture |= b.ray_prefix[e][back][free - 1];
                    }
                }
            }
        }
        capture & c.empty
    }

    /// The positions of a context where `side` has a quiet move that stays in the pair
    /// (whether or not a capture takes its place).
    fn has_moves(&self, c: &Context, side: usize) -> u64 {
        let b = &self.board;
        let occupied = c.pieces.occupied();
        let mut moves = 0u64;
        if side == FREE_SIDE {
            for &step in &STEPS {
                moves |= shift(c.empty, -step);
            }
        }
        for p in Bits(Self::movers(c, side)) {
            for d in 0..4 {
                let p = p as usize;
                if b.ray_len[p][d] > 0 && occupied & (1 << b.ray[p][d][0]) == 0 {
                    moves |= !(1u64 << b.bit[b.ray[p][d][0] as usize]);
                }
            }
        }
        if !V::MAN_MOVES_LEAVE {
            moves |= self.man_steps(c, side, |to| !crowns(side, to));
        }
        moves & c.empty
    }

    /// The positions of a context where `side` has a man's quiet step onto a square that
    /// `onto` accepts (whether or not a capture takes its place).
    #[inline]
    fn man_steps(&self, c: &Context, side: usize, onto: impl Fn(u8) -> bool) -> u64 {
        let b = &self.board;
        let occupied = c.pieces.occupied();
        let mut moves = 0u64;
        for m in Bits(Self::men(c, side)) {
            let m = m as usize;
            for d in FORWARD[side] {
                if b.ray_len[m][d] > 0 {
                    let to = b.ray[m][d][0];
                    if occupied & (1 << to) == 0 && onto(to) {
                        moves |= !(1u64 << b.bit[to as usize]);
                    }
                }
            }
        }
        moves & c.empty
    }

    /// The positions of a context where `side` has a man's quiet move that leaves the
    /// propagation (whether or not a capture takes its place): one that crowns, or any
    /// where [`Valuation::MAN_MOVES_LEAVE`].
    #[inline]
    fn man_exits(&self, c: &Context, side: usize) -> u64 {
        self.man_steps(c, side, |to| V::MAN_MOVES_LEAVE || crowns(side, to))
    }

    /// For each of `positions` (`side` to move, context `c`, each with a man's step that
    /// does not crown and stays in the pair: [`Valuation::MAN_MOVES_LEAVE`]), the best
    /// of those steps by the value of its child, read from `state` (a placement of the
    /// men one step more advanced, solved before): `(bit, raw)`, lowest bit first.
    fn man_steps_valued(&self, state: &[AtomicU16], c: &Context, side: usize, positions: u64) -> Vec<(u32, u16)> {
        let b = &self.board;
        let occupied = c.pieces.occupied();
        let mut best = [None::<u16>; 64];
        for m in Bits(Self::men(c, side)) {
            for d in FORWARD[side] {
                let m = m as usize;
                if b.ray_len[m][d] == 0 {
                    continue;
                }
                let to = b.ray[m][d][0];
                if occupied & (1 << to) != 0 || crowns(side, to) {
                    continue;
                }
                let mut child = c.pieces;
                *if side == FREE_SIDE { &mut child.fixed_men } else { &mut child.other_men } ^= (1 << m) | (1 << to);
                // The free king on the square it steps to stops it.
                let stepping = positions & !(1 << b.bit[to as usize]);
                if stepping == 0 {
                    continue;
                }
                let nodes = self.free_king_nodes(&child, 1 - side, m as u32);
                for bit in Bits(stepping) {
                    let node = nodes.node(b.square_of[bit as usize] as u32);
                    let raw = self.values.man_step(state[node as usize].load(Relaxed));
                    let slot = &mut best[bit as usize];
                    *slot = Some(slot.map_or(raw, |held| self.values.better(held, raw)));
                }
            }
        }
        Bits(positions).map(|bit| (bit, best[bit as usize].expect("a man's step"))).collect()
    }

    /// The node of the position of the pieces of a context, `p`, with the free king on
    /// square `free`.
    #[inline]
    fn node(&self, p: &Pieces, side: usize, free: u32) -> u64 {
        let (table, first) = &self.table[side];
        first + table.index_of_sets(&Self::sets(p, side, free))
    }

    /// Hands `visit` the node of each position of `bits` (ghost bits of the free king's
    /// squares, context `p`, `side` to move), lowest first.
    #[inline]
    fn for_each_node(&self, p: &Pieces, side: usize, bits: u64, mut visit: impl FnMut(u64)) {
        let square_of = |bit: u32| self.board.square_of[bit as usize] as u32;
        match bits.count_ones() {
            0 => {}
            1 => visit(self.node(p, side, square_of(bits.trailing_zeros()))),
            _ => {
                let nodes = self.free_king_nodes(p, side, square_of(bits.trailing_zeros()));
                Bits(bits).for_each(|bit| visit(nodes.node(square_of(bit))));
            }
        }
    }

    /// [`Solver::node`] for every square of the free king, the rest of the context `p`
    /// ranked once (`free`: a square of no piece, where the free king is put for it).
    fn free_king_nodes(&self, p: &Pieces, side: usize, free: u32) -> FreeKingNodes {
        let (table, first) = &self.table[side];
        let sets = Self::sets(p, side, free);
        let position = Position::from_square_sets(self.pair.variant(), Color::White, &sets);
        if side == FREE_SIDE {
            let index = table.index_of_sets(&sets);
            let mut ranks = OneKingMoved::EMPTY;
            table.one_king_moved_into(&position, square(free), &mut ranks);
            FreeKingNodes::White { men_base: first + index - index % table.king_placements(), ranks }
        } else {
            // The other side to move: the free king is Black's, on the rotated square.
            let mut moved = table.black_king_moved(&position);
            moved.moving(square(SQUARES as u32 - 1 - free));
            FreeKingNodes::Black { first: *first, moved }
        }
    }

    /// The position of the pieces of a context, `p`, with the free king on square
    /// `free`, as its table holds it (White to move).
    #[inline]
    fn sets(p: &Pieces, side: usize, free: u32) -> SquareSets {
        let free_kings = p.fixed | 1 << free;
        if side == FREE_SIDE {
            SquareSets { white_men: p.fixed_men, white_kings: free_kings, black_men: p.other_men, black_kings: p.other }
        } else {
            SquareSets {
                white_men: rotate(p.other_men),
                white_kings: rotate(p.other),
                black_men: rotate(p.fixed_men),
                black_kings: rotate(free_kings),
            }
        }
    }

    /// The positions of a word whose free king is the lowest king of its side: the
    /// copy of each position that writes its score.
    #[inline]
    fn writers(&self, c: &Context) -> u64 {
        match c.pieces.fixed {
            0 => u64::MAX,
            fixed => (1u64 << self.board.bit[fixed.trailing_zeros() as usize]) - 1,
        }
    }

    /// Whether the free king is the only piece of its side in a context.
    #[inline]
    fn free_king_alone(c: &Context) -> bool {
        c.pieces.fixed == 0 && c.pieces.fixed_men == 0
    }

    /// The positions of `side` to move with a quiet move into `children` (the other
    /// side to move, context `c`), added to `into` where they are undecided.
    fn parents(&self, c: &Context, children: u64, side: usize, into: &[AtomicU64], touched: &mut Vec<u32>) {
        let b = &self.board;
        let mut add = |index: usize, bits: u64| {
            let bits = bits & self.undecided[side][index].load(Relaxed);
            if bits != 0 && into[index].fetch_or(bits, Relaxed) == 0 {
                touched.push(index as u32);
            }
        };
        if side == FREE_SIDE {
            add(c.index, b.slides_to(children, c.empty));
        }
        let occupied = c.pieces.occupied();
        for to in Bits(Self::movers(c, side)) {
            let t = to as usize;
            for d in 0..4 {
                for i in 0..b.ray_len[t][d] as usize {
                    let from = b.ray[t][d][i];
                    if occupied & (1 << from) != 0 {
                        break;
                    }
                    // The free king on the way back, or on the square left, blocks it; where it
                    // blocks every child, it blocks every square further back too.
                    let unblocked = children & !b.ray_prefix[t][d][i];
                    if unblocked == 0 {
                        break;
                    }
                    add(self.moved(c, side, Kind::King, to, from as u32), unblocked);
                }
            }
        }
        if V::MAN_MOVES_LEAVE {
            return;
        }
        for to in Bits(Self::men(c, side)) {
            let t = to as usize;
            // Back against a forward step: the square it came from, empty, the free king
            // not on it.
            for d in FORWARD[side] {
                let back = d ^ 3;
                if b.ray_len[t][back] == 0 {
                    continue;
                }
                let from = b.ray[t][back][0];
                if occupied & (1 << from) == 0 {
                    add(self.moved(c, side, Kind::Man, to, from as u32), children & !b.ray_prefix[t][back][0]);
                }
            }
        }
    }

    /// Of `candidates` (undecided, `side` to move, context `c`), those whose every move
    /// reaches a position known won.
    fn all_moves_won(&self, c: &Context, candidates: u64, side: usize) -> u64 {
        let b = &self.board;
        let won = &self.won[1 - side];
        let mut left = candidates;
        if Self::men(c, side) != 0 {
            // A man's move that leaves (a crowning, at least): lost only once its own loss
            // is reached, never where it wins or draws.
            let leaving = self.man_exits(c, side) & left;
            if leaving != 0 {
                left &= !leaving | self.matured[side].get(c.index);
            }
        }
        if side == FREE_SIDE {
            let not_won = c.empty & !won[c.index].load(Relaxed);
            left &= !b.slides_to(not_won, c.empty);
        }
        let occupied = c.pieces.occupied();
        for from in Bits(Self::movers(c, side)) {
            let f = from as usize;
            for d in 0..4 {
                for i in 0..b.ray_len[f][d] as usize {
                    if left == 0 {
                        return 0;
                    }
                    let to = b.ray[f][d][i];
                    if occupied & (1 << to) != 0 {
                        break;
                    }
                    let child = won[self.moved(c, side, Kind::King, from, to as u32)].load(Relaxed);
                    left &= child | b.ray_prefix[f][d][i];
                }
            }
        }
        if V::MAN_MOVES_LEAVE {
            return left;
        }
        for from in Bits(Self::men(c, side)) {
            let f = from as usize;
            for d in FORWARD[side] {
                if left == 0 {
                    return 0;
                }
                if b.ray_len[f][d] == 0 {
                    continue;
                }
                let to = b.ray[f][d][0];
                if occupied & (1 << to) != 0 || crowns(side, to) {
                    continue;
                }
                let child = won[self.moved(c, side, Kind::Man, from, to as u32)].load(Relaxed);
                left &= child | b.ray_prefix[f][d][0];
            }
        }
        left
    }
}

/// A set of squares turned half round (the colour flip's board).
#[inline]
fn rotate(squares: u64) -> u64 {
    squares.reverse_bits() >> (64 - SQUARES)
}

/// Whether the pass applies (theory and rule tables): a pair of kings only on the 10x10
/// board, or one with men where a side has one king (international rules).
pub(crate) fn applies(variant: &Variant, signature: Signature) -> bool {
    shape(variant, signature).is_some()
}

/// What the pass sees of a pair: the free side (the free king's) and the other.
#[derive(Clone, Copy, Debug)]
struct Shape {
    free_kings: usize,
    other_kings: usize,
    free_men: usize,
    other_men: usize,
}

impl Shape {
    /// The signature of the pair's table with the free side as White.
    fn free_to_move(&self) -> Signature {
        Signature::new(self.free_men as u8, self.free_kings as u8, self.other_men as u8, self.other_kings as u8)
    }
}

/// The shape of a pair the pass solves, `None` where it does not: the 10x10 board with
/// flying kings and kings on both sides where there are no men (the free side the one
/// with fewer, so that a position has the fewest copies), or with men under
/// international rules (men capture back and take kings) where a side has one king
/// (that side's king free: one copy a position).
fn shape(variant: &Variant, signature: Signature) -> Option<Shape> {
    use kabe_probe::KingRange;
    if variant.squares() as usize != SQUARES || variant.board.row_len() != 5 {
        return None;
    }
    let (wm, wk, bm, bk) = (
        signature.white_men as usize,
        signature.white_kings as usize,
        signature.black_men as usize,
        signature.black_kings as usize,
    );
    if wm == 0 && bm == 0 {
        return (wk > 0 && bk > 0).then(|| Shape {
            free_kings: wk.min(bk),
            other_kings: wk.max(bk),
            free_men: 0,
            other_men: 0,
        });
    }
    let international = variant.men_capture_backward
        && variant.men_capture_kings
        && variant.king_moves == KingRange::Flying
        && variant.king_captures == KingRange::Flying
        && !variant.mirrored_board;
    if !international || wm + wk == 0 || bm + bk == 0 {
        return None;
    }
    if wk == 1 {
        Some(Shape { free_kings: 1, other_kings: bk, free_men: wm, other_men: bm })
    } else if bk == 1 {
        Some(Shape { free_kings: 1, other_kings: wk, free_men: bm, other_men: wm })
    } else {
        None
    }
}

/// Bytes the pass holds for a pair ([`applies`] must hold): the pair's scores
/// and capture flags (as the whole-pair pass), five words a context (each side's
/// undecided and won positions, and the scratch of a scatter), the contexts' sets
/// unranked, and the words of the frontier and of the captures' positions waiting for
/// their ply (at most two a context and side, as measured: 0105+0501 and 0204+0402 hold
/// fewer).
pub(crate) fn working_bytes(variant: Variant, signature: Signature) -> u64 {
    let positions: u64 = crate::solve::whole::pair_tables(variant, signature).iter().map(MaterialIndex::len).sum();
    let Some(shape) = shape(&variant, signature) else { return 2 * positions };
    let contexts = Contexts::count(&shape);
    2 * positions
        + positions.div_ceil(64) * 8
        + 5 * 8 * contexts
        + 8 * Contexts::radix(&shape).iter().sum::<u64>()
        + 2 * 2 * std::mem::size_of::<Word>() as u64 * contexts
}

/// Whether a build solves the pair's theory this way (its rule tables: [`rules_pay_off`]):
/// one king against kings, where it is faster than the pass by symmetry; and a pair with
/// men where a side has one king, faster than the plain pass on every such pair
/// measured (docs/benchmarks.md). With two kings or more a side and no men, most
/// positions have a capture to make (70% of 0204+0402's classes), valued from the
/// finished tables as that pass values them, and each copy of such a position is then
/// ranked to find its value, which costs more than the propagation saves (0204+0402:
/// theory 0.73x, `fmjd` rules 0.83x).
pub(crate) fn pays_off(variant: &Variant, signature: Signature) -> bool {
    shape(variant, signature).is_some_and(|s| s.free_kings == 1)
}

/// Whether the rule tables of a pair solved this way ([`pays_off`]) are solved this way
/// too, given the share of the pair drawn in theory where it is known: a pair of kings
/// only, or one with men at most half drawn. The pass by components leaves a position
/// drawn in theory alone, where this one carries it through the propagation and values
/// its men's steps: `fmjd` rule tables alone, one run each, 2-core Intel Xeon VM,
/// 0113+1301 (22% drawn, its build 2.12x 6bd45c7), 0122+2201 (24%) 1.57x, 0411+1104
/// (33.5%) 1.34x, against 0311+1103 (72.6%) 0.76x, 1112+1211 (77.2%) 0.70x and 2111+1121
/// (78.5%) 0.95x; with a drawn crowning position no longer valued, 1112+1211 0.84x
/// (paired), 0311+1103 0.93x, 2111+1121 0.75x (one run each).
pub(crate) fn rules_pay_off(signature: Signature, drawn_share: Option<f64>) -> bool {
    signature.men() == 0 || drawn_share.is_some_and(|d| d <= 0.5)
}

/// What the pass finds for each position: its theoretical score, or its distance within
/// a count (a rule table). The propagation is the same: a position is won at ply `n + 1`
/// when a move reaches a position lost at `n`, lost at `n + 1` when the last of its moves
/// reaches a position won at `n`. They differ in the value of a position with a capture
/// to make (every move leaves the pair), in how a decision is written, and in the last
/// ply a position is decided at.
pub(crate) trait Valuation<F: Finished>: Sync {
    /// Appends to `out` the raw value of each of `positions` (of the pair, White to move,
    /// each with a capture to make), whose nodes in the pair are `nodes`.
    fn captures(
        &self,
        pair: &Pair<'_, F>,
        positions: &[Position],
        nodes: &[u64],
        out: &mut Vec<u16>,
    ) -> Result<(), F::Error>;
    /// Whether every man's move leaves the propagation, as a crowning does: in a rule
    /// table a man's move ends the count or carries it to another placement of the men,
    /// one more advanced and so solved before ([`solve_with`] solves the placements
    /// level by level), while in theory a man's step stays in the pair.
    const MAN_MOVES_LEAVE: bool;
    /// Appends to `out` the raw value of each of `positions` (of the pair, White to move,
    /// no capture to make, a man of the side to move free to make a move that leaves:
    /// [`Valuation::MAN_MOVES_LEAVE`]), whose nodes in the pair are `nodes`: the best of
    /// those moves, or of all its moves where every one leaves.
    fn man_exits(
        &self,
        pair: &Pair<'_, F>,
        positions: &[Position],
        nodes: &[u64],
        out: &mut Vec<u16>,
    ) -> Result<(), F::Error>;
    /// The raw value, for the position before it, of a man's step that stays in the
    /// pair ([`Valuation::MAN_MOVES_LEAVE`]) to a position whose raw value is `child`.
    fn man_step(&self, child: u16) -> u16;
    /// The better of two raw values of moves for the side that makes them.
    fn better(&self, a: u16, b: u16) -> u16;
    /// The raw value of a position decided at `ply`, won or lost.
    fn decided(&self, ply: u16, won: bool) -> u16;
    /// The ply a raw value is decided at and whether it is a win; `None` where it is not
    /// decided.
    fn ply_of(&self, raw: u16) -> Option<(u16, bool)>;
    /// The last ply at which a position is decided.
    fn last_ply(&self) -> u16;
}

/// The theoretical scores: a capture's position valued from its moves as the whole-pair
/// pass values it.
struct Theory;

impl<F: Finished> Valuation<F> for Theory {
    fn captures(
        &self,
        pair: &Pair<'_, F>,
        positions: &[Position],
        _nodes: &[u64],
        out: &mut Vec<u16>,
    ) -> Result<(), F::Error> {
        exit_scores(pair, positions, out, |e, no_move| {
            debug_assert!(e.capture && !no_move && e.internal_moves == 0);
        })
    }

    const MAN_MOVES_LEAVE: bool = false;

    fn man_exits(
        &self,
        pair: &Pair<'_, F>,
        positions: &[Position],
        _nodes: &[u64],
        out: &mut Vec<u16>,
    ) -> Result<(), F::Error> {
        exit_scores(pair, positions, out, |e, _| debug_assert!(!e.capture))
    }

    fn man_step(&self, _child: u16) -> u16 {
        unreachable!("in theory a man's step stays in the propagation")
    }

    fn better(&self, _a: u16, _b: u16) -> u16 {
        unreachable!("in theory a man's step stays in the propagation")
    }

    fn decided(&self, ply: u16, won: bool) -> u16 {
        if won { Score::win(ply) } else { Score::loss(ply) }.raw()
    }

    fn ply_of(&self, raw: u16) -> Option<(u16, bool)> {
        Score::from_raw(raw).plies().map(|p| (p, p % 2 == 1))
    }

    fn last_ply(&self) -> u16 {
        Score::MAX_PLIES
    }
}

/// The theory of a pair bit-parallel ([`applies`] must hold).
pub(crate) fn solve<F: Finished>(
    finished: &F,
    variant: Variant,
    signature: Signature,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SolvedTable>, F::Error> {
    let positions = crate::solve::whole::pair_tables(variant, signature).iter().map(MaterialIndex::len).sum::<u64>();
    let state = new_state(positions as usize);
    let solved = solve_with(finished, variant, signature, &Theory, &state, progress)?;
    Ok(into_tables(solved.tables, state, Some(solved.captures)))
}

/// A pair solved by [`solve_with`].
pub(crate) struct Solved {
    /// The pair's tables.
    pub(crate) tables: Vec<MaterialIndex>,
    /// A bit a position: whether it has a capture to make.
    pub(crate) captures: Vec<AtomicU64>,
}

/// A pair solved bit-parallel for `values` ([`applies`] must hold) into `state`, one slot
/// a position of the pair's tables one after the other, every slot undecided. Where
/// [`Valuation::MAN_MOVES_LEAVE`], the placements of the men are solved a level of
/// advancement at a time, the most advanced first, so that `values` finds the value of
/// a man's move in `state`.
pub(crate) fn solve_with<F: Finished, V: Valuation<F>>(
    finished: &F,
    variant: Variant,
    signature: Signature,
    values: &V,
    state: &[AtomicU16],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Solved, F::Error> {
    let shape = shape(&variant, signature).expect("a pair the pass applies to");
    let pair = Pair::new(finished, variant, signature, PairPass::Plain);
    assert_eq!(state.len(), pair.len(), "{signature}: a slot a position");
    let table_of = |sig: Signature| {
        let t = pair.tables.iter().position(|t| t.signature() == sig).expect("a table of the pair");
        let first: u64 = pair.tables[..t].iter().map(MaterialIndex::len).sum();
        (pair.tables[t].clone(), first)
    };
    let table = [table_of(shape.free_to_move()), table_of(shape.free_to_move().flipped())];
    let contexts = Contexts::new(&shape);
    let n = contexts.count as usize;
    let levelled = V::MAN_MOVES_LEAVE && shape.free_men + shape.other_men > 0;
    let men_levels = if levelled { contexts.men_levels() } else { Vec::new() };
    let mut solver = Solver {
        values,
        board: Board::new(),
        contexts,
        table,
        captures_noted: new_flags(pair.len()),
        symmetry: KingSymmetry::of(&variant, signature),
        pair,
        undecided: [words(n), words(n)],
        won: [words(n), words(n)],
        scratch: words(n),
        matured: Default::default(),
        level: None,
        men_levels,
    };
    let mut levels: Vec<Option<u8>> = solver.men_levels.iter().copied().map(Some).collect();
    levels.sort_unstable_by(|a, b| b.cmp(a));
    levels.dedup();
    if levels.is_empty() {
        levels.push(None);
    }
    for level in levels {
        solver.level = level;
        let (frontier, injections, matured, positions) = solver.initialise(state)?;
        solver.matured = matured;
        progress(positions);
        let decided = solver.propagate(state, frontier, injections, progress);
        progress(positions.saturating_sub(decided));
    }
    let Solver { pair, captures_noted, .. } = solver;
    Ok(Solved { tables: pair.tables, captures: captures_noted })
}

/// Per side to move: positions lost and positions won at one ply.
#[derive(Default)]
struct Frontier {
    lost: [Vec<Word>; 2],
    won: [Vec<Word>; 2],
}

/// Contexts a worker takes at a time in the initialisation.
const CONTEXT_CHUNK: usize = 1 << 12;

/// Positions with a capture to make valued together: small enough that the buffers of
/// their moves' positions stay in the allocator's reach (a batch of a whole chunk's
/// positions, megabytes, was mapped and unmapped each time: page faults).
const EXITS_BATCH: usize = 256;

/// Words by the ply they are due at, per side to move: `[side][ply]`.
type ByPly = [Vec<Vec<Word>>; 2];

/// What joins the propagation at a given ply, besides the positions it decides itself.
#[derive(Default)]
struct Injections {
    /// The positions every move of which leaves the pair (captures, or crownings only),
    /// decided at their value's ply: `[side][ply][won]`.
    exits: [Vec<[Vec<Word>; 2]>; 2],
    /// Positions whose crowning wins: won at its ply if nothing won them sooner.
    man_exit_wins: ByPly,
    /// Positions whose crowning loses: from its ply on, lost once every other move loses.
    man_exit_losses: ByPly,
}

impl Injections {
    fn push(list: &mut Vec<Vec<Word>>, ply: u16, word: Word) {
        if list.len() <= ply as usize {
            list.resize_with(ply as usize + 1, Vec::new);
        }
        list[ply as usize].push(word);
    }

    fn extend(&mut self, other: Injections) {
        for side in 0..2 {
            let exits = &mut self.exits[side];
            if exits.len() < other.exits[side].len() {
                exits.resize_with(other.exits[side].len(), Default::default);
            }
            for (ply, kinds) in other.exits[side].iter().enumerate() {
                for (kind, words) in kinds.iter().enumerate() {
                    exits[ply][kind].extend(words.iter().copied());
                }
            }
            for (mine, theirs) in [
                (&mut self.man_exit_wins[side], &other.man_exit_wins[side]),
                (&mut self.man_exit_losses[side], &other.man_exit_losses[side]),
            ] {
                if mine.len() < theirs.len() {
                    mine.resize_with(theirs.len(), Vec::new);
                }
                for (ply, words) in theirs.iter().enumerate() {
                    mine[ply].extend(words.iter().copied());
                }
            }
        }
    }

    /// Whether anything is due after `ply`.
    fn pending_after(&self, ply: u16) -> bool {
        let after = |len: usize| len > ply as usize + 1;
        (0..2).any(|side| {
            after(self.exits[side].len())
                || after(self.man_exit_wins[side].len())
                || after(self.man_exit_losses[side].len())
        })
    }
}

/// A position where a man's move may leave beside moves that stay (a crowning, at
/// least), and the raw value of the best of the moves that leave.
struct ManExit {
    side: usize,
    index: u32,
    bit: u32,
    raw: u16,
}

impl<F: Finished, V: Valuation<F>> Solver<'_, '_, F, V> {
    /// Marks every quiet position of the level solved now undecided, values the
    /// positions whose moves leave the pair (written to `state` once each) and the men's
    /// moves out, and returns the positions lost at ply 0 (no move at all) with what
    /// joins the propagation later, and how many positions the level has (two progress
    /// units each).
    fn initialise(&self, state: &[AtomicU16]) -> Result<(Frontier, Injections, [Matured; 2], u64), F::Error> {
        let (man_exits, positions) = self.value_exits(state)?;
        let (frontier, mut injections) = self.exits_by_ply(state);
        let mut losing: [Vec<u32>; 2] = Default::default();
        for c in man_exits {
            let word = (c.index, 1u64 << c.bit);
            match self.values.ply_of(c.raw) {
                Some((ply, true)) => Injections::push(&mut injections.man_exit_wins[c.side], ply, word),
                Some((ply, false)) => {
                    Injections::push(&mut injections.man_exit_losses[c.side], ply, word);
                    losing[c.side].push(c.index);
                }
                None => {} // drawn: never lost, won only by another move
            }
        }
        let [free, other] = losing;
        Ok((frontier, injections, [Matured::new(free), Matured::new(other)], positions))
    }

    /// Marks every quiet position undecided and values the positions whose moves leave
    /// the pair: a capture's position, each class's canonical member from its moves (a
    /// lone king taken at once), and a position whose only moves are men's moves out.
    /// Returns the positions where a man's move may leave beside other moves, valued,
    /// and how many positions the level solved now has.
    fn value_exits(&self, state: &[AtomicU16]) -> Result<(Vec<ManExit>, u64), F::Error> {
        let n = self.contexts.count as usize;
        let chunks: Vec<(Vec<ManExit>, u64)> = (0..n.div_ceil(CONTEXT_CHUNK))
            .into_par_iter()
            .map(|chunk| {
                let mut in_level = 0u64;
                let mut mixed = Vec::new();
                let mut positions = Vec::new();
                let mut nodes = Vec::new();
                let mut values = Vec::new();
                let mut man_exit_positions = Vec::new();
                let mut man_exit_nodes = Vec::new();
                let mut man_exit_at = Vec::new();
                for index in chunk * CONTEXT_CHUNK..(n.min((chunk + 1) * CONTEXT_CHUNK)) {
                    let Some(c) = self.in_level(index).then(|| self.context(index)).flatten() else { continue };
                    in_level += 2 * u64::from(c.empty.count_ones());
                    let writers = self.writers(&c);
                    let empty = self.board.square_of[c.empty.trailing_zeros() as usize] as u32;
                    for side in [FREE_SIDE, OTHER_SIDE] {
                        // The context ranked for the first position that needs a node.
                        let mut context_nodes = None;
                        let mut node_of = |free: u32| {
                            context_nodes.get_or_insert_with(|| self.free_king_nodes(&c.pieces, side, empty)).node(free)
                        };
                        let capture = self.captures(&c, side);
                        for bit in Bits(capture & writers) {
                            let free = self.board.square_of[bit as usize] as u32;
                            let node = node_of(free);
                            self.captures_noted[node as usize / 64].fetch_or(1 << (node % 64), Relaxed);
                            if side == OTHER_SIDE && Self::free_king_alone(&c) {
                                // The free king is the only piece its side has: taken, the
                                // capturing side has won.
                                state[node as usize].store(self.values.decided(1, true), Relaxed);
                                continue;
                            }
                            let sets = Self::sets(&c.pieces, side, free);
                            if self.symmetry.as_ref().is_some_and(|s| !s.is_canonical(&sets)) {
                                continue; // copied from its class's canonical member below
                            }
                            positions.push(Position::from_square_sets(self.pair.variant(), Color::White, &sets));
                            nodes.push(node);
                            if positions.len() == EXITS_BATCH {
                                self.value_captures(state, &mut positions, &mut nodes, &mut values)?;
                            }
                        }
                        let quiet = self.has_moves(&c, side) & !capture;
                        self.undecided[side][index].store(quiet, Relaxed);
                        if Self::men(&c, side) != 0 {
                            let leaving = self.man_exits(&c, side) & !capture;
                            // A crowning leaves the pair: its position valued from its moves.
                            let by_moves = match V::MAN_MOVES_LEAVE {
                                true => self.man_steps(&c, side, |to| crowns(side, to)) & leaving,
                                false => leaving,
                            };
                            for (bit, raw) in self.man_steps_valued(state, &c, side, leaving & !by_moves) {
                                if quiet >> bit & 1 != 0 {
                                    mixed.push(ManExit { side, index: index as u32, bit, raw });
                                } else {
                                    // Every move a man's step: valued as a capture's position is.
                                    let node = node_of(self.board.square_of[bit as usize] as u32);
                                    state[node as usize].store(raw, Relaxed);
                                }
                            }
                            for bit in Bits(by_moves) {
                                let free = self.board.square_of[bit as usize] as u32;
                                let sets = Self::sets(&c.pieces, side, free);
                                man_exit_positions.push(Position::from_square_sets(
                                    self.pair.variant(),
                                    Color::White,
                                    &sets,
                                ));
                                man_exit_nodes.push(node_of(free));
                                man_exit_at.push((side, index as u32, bit, quiet >> bit & 1 != 0));
                            }
                        }
                    }
                }
                self.value_captures(state, &mut positions, &mut nodes, &mut values)?;
                self.values.man_exits(&self.pair, &man_exit_positions, &man_exit_nodes, &mut values)?;
                for ((&raw, &node), &(side, index, bit, other_moves)) in
                    values.iter().zip(&man_exit_nodes).zip(&man_exit_at)
                {
                    if other_moves {
                        mixed.push(ManExit { side, index, bit, raw });
                    } else {
                        // Every move leaves: valued as a capture's position is.
                        state[node as usize].store(raw, Relaxed);
                    }
                }
                Ok((mixed, in_level))
            })
            .collect::<Result<_, F::Error>>()?;
        // With every level at once, each copy of a position counted: the pair's size.
        let positions = match self.level {
            Some(_) => chunks.iter().map(|(_, n)| n).sum(),
            None => self.pair.len() as u64,
        };
        Ok((chunks.into_iter().flat_map(|(mixed, _)| mixed).collect(), positions))
    }

    /// Values `positions` (with a capture to make) into `state` at `nodes`, and empties
    /// both.
    fn value_captures(
        &self,
        state: &[AtomicU16],
        positions: &mut Vec<Position>,
        nodes: &mut Vec<u64>,
        values: &mut Vec<u16>,
    ) -> Result<(), F::Error> {
        values.clear();
        self.values.captures(&self.pair, positions, nodes, values)?;
        for (&raw, &node) in values.iter().zip(nodes.iter()) {
            state[node as usize].store(raw, Relaxed);
        }
        positions.clear();
        nodes.clear();
        values.clear();
        Ok(())
    }

    /// Every copy of the positions whose moves all leave the pair, by ply (each class's
    /// value written to its members' writer copies); and the positions without a move,
    /// lost at ply 0.
    fn exits_by_ply(&self, state: &[AtomicU16]) -> (Frontier, Injections) {
        let n = self.contexts.count as usize;
        let collected: Vec<(Frontier, Injections)> = (0..n.div_ceil(CONTEXT_CHUNK))
            .into_par_iter()
            .map(|chunk| {
                let mut lost_now: [Vec<Word>; 2] = Default::default();
                let mut injections = Injections::default();
                for index in chunk * CONTEXT_CHUNK..(n.min((chunk + 1) * CONTEXT_CHUNK)) {
                    let Some(c) = self.in_level(index).then(|| self.context(index)).flatten() else { continue };
                    for side in [FREE_SIDE, OTHER_SIDE] {
                        let capture = self.captures(&c, side);
                        let quiet = self.has_moves(&c, side);
                        let only_man_exits =
                            if Self::men(&c, side) == 0 { 0 } else { self.man_exits(&c, side) & !capture & !quiet };
                        let mut plies: Vec<(u16, u64)> = Vec::new();
                        let alone = side == OTHER_SIDE && Self::free_king_alone(&c);
                        if alone && capture != 0 {
                            plies.push((self.values.decided(1, true), capture));
                            // the lone king taken
                        }
                        let writers = self.writers(&c);
                        for bit in Bits(if alone { only_man_exits } else { capture | only_man_exits }) {
                            // Valued at its class's canonical member; a writer copy keeps it.
                            let sets = Self::sets(&c.pieces, side, self.board.square_of[bit as usize] as u32);
                            let (table, first) = &self.table[side];
                            let raw = match &self.symmetry {
                                Some(symmetry) => {
                                    let canonical = KingSymmetry::canonical(&symmetry.images(&sets));
                                    let raw = state[(first + table.index_of_sets(&canonical)) as usize].load(Relaxed);
                                    if writers >> bit & 1 != 0 && canonical != sets {
                                        state[(first + table.index_of_sets(&sets)) as usize].store(raw, Relaxed);
                                    }
                                    raw
                                }
                                None => state[(first + table.index_of_sets(&sets)) as usize].load(Relaxed),
                            };
                            if self.values.ply_of(raw).is_none() {
                                continue;
                            }
                            match plies.iter_mut().find(|(p, _)| *p == raw) {
                                Some((_, bits)) => *bits |= 1 << bit,
                                None => plies.push((raw, 1 << bit)),
                            }
                        }
                        for (raw, bits) in plies {
                            let (ply, won) = self.values.ply_of(raw).expect("decided");
                            let list = &mut injections.exits[side];
                            if list.len() <= ply as usize {
                                list.resize_with(ply as usize + 1, Default::default);
                            }
                            list[ply as usize][won as usize].push((index as u32, bits));
                        }
                        let none = c.empty & !capture & !quiet & !only_man_exits;
                        if none != 0 {
                            lost_now[side].push((index as u32, none));
                            let lost = self.values.decided(0, false);
                            self.for_each_node(&c.pieces, side, none & self.writers(&c), |node| {
                                state[node as usize].store(lost, Relaxed)
                            });
                        }
                    }
                }
                (Frontier { lost: lost_now, won: Default::default() }, injections)
            })
            .collect();
        let mut frontier = Frontier::default();
        let mut injections = Injections::default();
        for (f, more) in collected {
            for side in 0..2 {
                frontier.lost[side].extend(f.lost[side].iter().copied());
            }
            injections.extend(more);
        }
        (frontier, injections)
    }

    /// Ply after ply (returns how many positions it decided): the parents of the positions lost at this ply are won at the next,
    /// those of the positions won whose every move now reaches a win are lost at it.
    fn propagate(
        &self,
        state: &[AtomicU16],
        mut frontier: Frontier,
        mut injections: Injections,
        progress: &(dyn Fn(u64) + Sync),
    ) -> u64 {
        let mut ply: u16 = 0;
        let mut decided = 0;
        loop {
            for side in [FREE_SIDE, OTHER_SIDE] {
                // The positions whose moves all leave the pair, decided at this ply, join it.
                if let Some([lost, won]) = injections.exits[side].get_mut(ply as usize) {
                    frontier.lost[side].append(lost);
                    frontier.won[side].append(won);
                }
                // So do those a crowning wins at this ply, where nothing won them sooner.
                if let Some(words) = injections.man_exit_wins[side].get_mut(ply as usize) {
                    let (won, written) = self.decide(state, std::mem::take(words), side, ply, true);
                    progress(written);
                    decided += written;
                    frontier.won[side].extend(won);
                }
                for &(index, bits) in &frontier.won[side] {
                    self.won[side][index as usize].fetch_or(bits, Relaxed);
                }
            }
            let pending = injections.pending_after(ply);
            let idle = frontier.lost.iter().chain(&frontier.won).all(Vec::is_empty);
            if (idle && !pending) || ply >= self.values.last_ply() {
                break;
            }
            let mut next = Frontier::default();
            for side in [FREE_SIDE, OTHER_SIDE] {
                // Won at the next ply: a move reaches a position lost at this one.
                let touched = self.scatter(&frontier.lost[1 - side], side, &self.scratch);
                next.won[side] = self.collect(&touched, &self.scratch, side, |_, bits| bits);
                // Lost at the next ply: a move reaches a position won at this one and every
                // move a position won; or a crowning loses at the next ply and every other
                // move now reaches a position won (seeded first, so that no word is taken
                // twice).
                let mut touched = Vec::new();
                if let Some(words) = injections.man_exit_losses[side].get_mut(ply as usize + 1) {
                    for (index, bits) in std::mem::take(words) {
                        self.matured[side].set(index as usize, bits);
                        if self.scratch[index as usize].fetch_or(bits, Relaxed) == 0 {
                            touched.push(index);
                        }
                    }
                }
                touched.extend(self.scatter(&frontier.won[1 - side], side, &self.scratch));
                next.lost[side] =
                    self.collect(&touched, &self.scratch, side, |c, bits| self.all_moves_won(c, bits, side));
            }
            // In theory a win is an odd number of plies and a loss an even one, so one of
            // the two is empty; within a count either side may decide at any ply.
            for (side, won) in [(0, false), (0, true), (1, false), (1, true)] {
                let words = if won { &next.won[side] } else { &next.lost[side] };
                let written = self.write(state, words, side, ply + 1, won);
                progress(written);
                decided += written;
            }
            frontier = next;
            ply += 1;
        }
        decided
    }

    /// `words` (undecided, `side` to move) decided at `ply`: no longer undecided, their
    /// writer copies' values written; returns how many positions it wrote.
    fn write(&self, state: &[AtomicU16], words: &[Word], side: usize, ply: u16, won: bool) -> u64 {
        let raw = self.values.decided(ply, won);
        words
            .par_iter()
            .map(|&(index, bits)| {
                let c = self.context(index as usize).expect("a context with positions");
                self.undecided[side][index as usize].fetch_and(!bits, Relaxed);
                let writers = bits & self.writers(&c);
                self.for_each_node(&c.pieces, side, writers, |node| state[node as usize].store(raw, Relaxed));
                u64::from(writers.count_ones())
            })
            .sum()
    }

    /// Of `words`, the positions still undecided decided at `ply` ([`Solver::write`]).
    fn decide(&self, state: &[AtomicU16], words: Vec<Word>, side: usize, ply: u16, won: bool) -> (Vec<Word>, u64) {
        let left: Vec<Word> = words
            .into_iter()
            .filter_map(|(index, bits)| {
                let bits = bits & self.undecided[side][index as usize].load(Relaxed);
                (bits != 0).then_some((index, bits))
            })
            .collect();
        let written = self.write(state, &left, side, ply, won);
        (left, written)
    }

    /// The parents (`side` to move) of `children` added to `into`; returns the contexts
    /// it touched.
    fn scatter(&self, children: &[Word], side: usize, into: &[AtomicU64]) -> Vec<u32> {
        children
            .par_iter()
            .fold(Vec::new, |mut touched, &(index, bits)| {
                let c = self.context(index as usize).expect("a context with positions");
                self.parents(&c, bits, side, into, &mut touched);
                touched
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            })
    }

    /// The words of `touched` contexts in `from`, cleared, kept by `keep` where anything
    /// is left of them.
    fn collect(
        &self,
        touched: &[u32],
        from: &[AtomicU64],
        side: usize,
        keep: impl Fn(&Context, u64) -> u64 + Sync,
    ) -> Vec<Word> {
        touched
            .par_iter()
            .filter_map(|&index| {
                let bits = from[index as usize].swap(0, Relaxed) & self.undecided[side][index as usize].load(Relaxed);
                if bits == 0 {
                    return None;
                }
                let c = self.context(index as usize).expect("a context with positions");
                let kept = keep(&c, bits);
                (kept != 0).then_some((index, kept))
            })
            .collect()
    }
}

/// Appends to `out` the score of each position's moves out of the pair
/// ([`capture_score`]), each position's exits first shown to `check`.
fn exit_scores<F: Finished>(
    pair: &Pair<'_, F>,
    positions: &[Position],
    out: &mut Vec<u16>,
    check: impl Fn(&Exits, bool),
) -> Result<(), F::Error> {
    let mut exits: Vec<(Exits, bool)> = Vec::with_capacity(positions.len());
    pair.exits_of(positions, &mut MoveList::new(), &mut ExitBuffers::default(), &mut exits)?;
    for (e, no_move) in &exits {
        check(e, *no_move);
        out.push(capture_score(e).raw());
    }
    Ok(())
}

/// The score of a position's moves out of the pair: all its moves where every one
/// leaves it.
fn capture_score(e: &Exits) -> Score {
    match e.best_win() {
        Some(win) => Score::from_raw(win),
        None if e.draw() => Score::DRAW,
        None => Score::from_raw(e.longest_loss()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ghost layout's rays are the board's diagonals: a lone king's moves.
    #[test]
    fn the_rays_are_a_lone_king_s_moves() {
        let board = Board::new();
        let variant = Variant::INTERNATIONAL;
        for s in 0..SQUARES {
            // A black king in a far corner that no ray from `s` reaches, or none at all.
            let sets = SquareSets { white_men: 0, white_kings: 1 << s, black_men: 0, black_kings: 0 };
            let position = Position::from_square_sets(variant, Color::White, &sets);
            let mut targets: Vec<u8> = position.legal_moves().iter().map(|m| m.to().index()).collect();
            targets.sort_unstable();
            let mut ours: Vec<u8> =
                (0..4).flat_map(|d| board.ray[s][d][..board.ray_len[s][d] as usize].to_vec()).collect();
            ours.sort_unstable();
            assert_eq!(ours, targets, "square index {s}");
        }
    }

    #[test]
    fn the_ghost_layout_is_the_board_s() {
        let board = Board::new();
        for s in 0..SQUARES {
            assert_eq!(Board::ghost(1 << s), 1 << board.bit[s]);
        }
    }

    #[test]
    fn contexts_rank_and_unrank() {
        for shape in [
            Shape { free_kings: 2, other_kings: 3, free_men: 0, other_men: 0 },
            Shape { free_kings: 1, other_kings: 2, free_men: 2, other_men: 1 },
        ] {
            let contexts = Contexts::new(&shape);
            let mut held = 0;
            for index in (0..contexts.count as usize).step_by(997) {
                if let Some(pieces) = contexts.sets(index) {
                    assert_eq!(contexts.of(&pieces), index);
                    // No man on its own crowning row.
                    assert_eq!(pieces.fixed_men & 0x1F, 0);
                    assert_eq!(pieces.other_men >> (SQUARES - 5), 0);
                    held += 1;
                }
            }
            assert!(held > 0);
        }
    }

    /// Every pair of kings only up to five pieces solved bit-parallel gives the whole-pair
    /// pass's scores, position for position.
    #[test]
    fn pairs_of_kings_solved_by_words_are_solved_as_by_the_plain_pass() {
        use crate::solve::whole::solve_whole_pair_by as solve_pair_by;
        let variant = Variant::INTERNATIONAL;
        let mut registry = crate::solve_all(variant, 3, |_| {});
        let mut compared = Vec::new();
        for pieces in 4..=5 {
            for sig in Signature::all_with(pieces) {
                if registry.table(sig).is_some() || sig.men() > 0 || !applies(&variant, sig) {
                    continue;
                }
                let plain = solve_pair_by(&registry, variant, sig, PairPass::Plain, &|_| {}).expect("solved");
                let words = solve(&registry, variant, sig, &|_| {}).expect("solved");
                assert_solved_alike(&plain, &words);
                compared.push(sig.to_string());
                plain.into_iter().for_each(|t| registry.insert(t));
            }
        }
        assert_eq!(compared, ["0103", "0202", "0104", "0203"]);
    }

    /// The same tables, scores and capture flags position for position.
    fn assert_solved_alike(plain: &[SolvedTable], words: &[SolvedTable]) {
        assert_eq!(plain.len(), words.len());
        for (p, w) in plain.iter().zip(words) {
            assert_eq!(p.index.signature(), w.index.signature());
            let (pc, wc) = (p.captures.as_ref().expect("noted"), w.captures.as_ref().expect("noted"));
            let flags = (0..pc.len()).position(|i| pc.get(i) != wc.get(i));
            assert_eq!(flags, None, "{}: capture flags", p.index.signature());
            assert_same_values(&p.index.signature().to_string(), &p.index, &p.scores, &w.scores);
        }
    }

    /// Panics naming the first position where `plain` and `words` differ.
    fn assert_same_values<T: PartialEq + std::fmt::Display>(
        label: &str,
        index: &MaterialIndex,
        plain: &[T],
        words: &[T],
    ) {
        if let Some(i) = plain.iter().zip(words).position(|(a, b)| a != b) {
            panic!("{label}: index {i} {}: plain {} words {}", index.position(i as u64).fen(), plain[i], words[i]);
        }
    }

    /// Every pair with men to four pieces where a side has one king, solved bit-parallel
    /// over that king's square: the whole-pair pass's scores, position for position
    /// (men's steps and captures both ways, crownings that win, draw or lose beside
    /// other moves, positions whose only moves crown).
    #[test]
    fn pairs_with_men_solved_by_words_are_solved_as_by_the_plain_pass() {
        use crate::solve::whole::solve_whole_pair_by as solve_pair_by;
        let variant = Variant::INTERNATIONAL;
        let registry = crate::solve_all(variant, 4, |_| {});
        let mut compared: Vec<Signature> = Vec::new();
        for pieces in 2..=4 {
            for sig in Signature::all_with(pieces) {
                let men = sig.white_men + sig.black_men > 0;
                if !men || !applies(&variant, sig) || compared.contains(&sig.flipped()) {
                    continue;
                }
                let plain = solve_pair_by(&registry, variant, sig, PairPass::Plain, &|_| {}).expect("solved");
                let words = solve(&registry, variant, sig, &|_| {}).expect("solved");
                assert_solved_alike(&plain, &words);
                compared.push(sig);
            }
        }
        for named in ["1001", "1101", "2001", "1102", "2101", "1111"] {
            let found = compared.iter().any(|s| s.to_string() == named || s.flipped().to_string() == named);
            assert!(found, "{named} not among {compared:?}");
        }
    }

    /// Rule tables of every pair of kings only to 5 pieces, under each international
    /// rule set, solved by words: the plain pass's values, position for position (wins
    /// and losses at any ply, the count's last ply, captures that end the count or keep
    /// it).
    #[test]
    fn rule_tables_of_kings_solved_by_words_are_solved_as_by_the_plain_pass() {
        use crate::solve::rules::{solve_rule_pair_by, MemoryTables};
        use kabe_probe::{DrawRuleSet, DrawRules};
        let variant = Variant::INTERNATIONAL;
        let mut theory = crate::solve_all(variant, 3, |_| {});
        let kings: Vec<Signature> =
            (4..=5).flat_map(Signature::all_with).filter(|&s| s.men() == 0 && applies(&variant, s)).collect();
        for &sig in &kings {
            if theory.table(sig).is_none() {
                let tables = crate::solve_pair(&theory, variant, sig, &|_| {}).expect("solved");
                tables.into_iter().for_each(|t| theory.insert(t));
            }
        }
        let mut compared = Vec::new();
        for set in [DrawRuleSet::Fmjd, DrawRuleSet::Fmjd2000, DrawRuleSet::Fmjd64Stands] {
            let rules = DrawRules::new(set, &variant);
            let mut done = crate::solve_rules(&theory, rules, (2..=3).flat_map(Signature::all_with));
            for &sig in &kings {
                if done.table(sig).is_some() || rules.context(sig).is_none() {
                    continue;
                }
                let finished = MemoryTables::new(&theory, &done);
                let solve = |pass| solve_rule_pair_by(&finished, rules, variant, sig, pass, &|_| {});
                let plain = solve(PairPass::Plain).expect("solved").expect("a table");
                let words = solve(PairPass::KingWords).expect("solved").expect("a table");
                assert_eq!(plain.len(), words.len());
                for (p, w) in plain.iter().zip(&words) {
                    assert_eq!(p.index.signature(), w.index.signature());
                    let label = format!("{set:?} {}", p.index.signature());
                    assert_same_values(&label, &p.index, &p.values, &w.values);
                }
                compared.push(format!("{set:?} {sig}"));
                plain.into_iter().for_each(|t| done.insert(t));
            }
        }
        assert!(compared.len() >= 6, "{compared:?}");
    }

    /// Rule tables of every pair with men to four pieces where a side has one king, under
    /// each international rule set, solved by words a level of the men at a time: the
    /// plain pass's values, position for position (men's steps that end the count or
    /// carry it on, crownings, captures, beside king moves or alone).
    #[test]
    fn rule_tables_with_men_solved_by_words_are_solved_as_by_the_plain_pass() {
        use crate::solve::rules::{solve_rule_pair_by, MemoryTables};
        use kabe_probe::{DrawRuleSet, DrawRules};
        let variant = Variant::INTERNATIONAL;
        let signatures: Vec<Signature> = (2..=4).flat_map(Signature::all_with).collect();
        let theory = crate::solve_all(variant, 4, |_| {});
        let mut compared = Vec::new();
        for set in [DrawRuleSet::Fmjd, DrawRuleSet::Fmjd2000, DrawRuleSet::Fmjd64Stands] {
            let rules = DrawRules::new(set, &variant);
            let done = crate::solve_rules(&theory, rules, signatures.iter().copied());
            for &sig in &signatures {
                if sig.men() == 0 || !applies(&variant, sig) || rules.context(sig).is_none() {
                    continue;
                }
                if compared.contains(&format!("{set:?} {}", sig.flipped())) {
                    continue;
                }
                let finished = MemoryTables::new(&theory, &done);
                let words = solve_rule_pair_by(&finished, rules, variant, sig, PairPass::KingWords, &|_| {});
                let words = words.expect("solved").expect("a table");
                for w in &words {
                    let plain = done.table(w.index.signature()).expect("solved by components");
                    let label = format!("{set:?} {}", w.index.signature());
                    assert_same_values(&label, &w.index, &plain.values, &w.values);
                }
                compared.push(format!("{set:?} {sig}"));
            }
        }
        for named in ["Fmjd 1101", "Fmjd 1102", "Fmjd 1111", "Fmjd 1120", "Fmjd2000 2101", "Fmjd64Stands 1021"] {
            let found = compared.iter().any(|c| {
                let (set, sig) = c.split_once(' ').expect("set and signature");
                let named_sig: Signature = named.split_once(' ').expect("named").1.parse().expect("a signature");
                set == named.split_once(' ').expect("named").0
                    && (sig == named_sig.to_string() || sig == named_sig.flipped().to_string())
            });
            assert!(found, "{named} not among {compared:?}");
        }
    }
}
