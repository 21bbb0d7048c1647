//! Board geometry: bit layouts that turn steps into shifts.
//!
//! **Diagonal boards** (8x8, 10x10): dark squares are numbered 0.. in reading order from
//! the top-left dark square as seen by White (square number 1 in notation). Square `s`
//! lives at bit `s + s / width`: after every two rows one unused "ghost" bit is inserted,
//! so that each diagonal direction is a constant shift (`half` or `half + 1`) and stepping
//! off the left or right edge lands on a ghost bit that is never part of the board.
//!
//! **The orthogonal board** (Turkish draughts): all 64 squares, square `s` at bit `s`,
//! a8 first. North and south are shifts by 8, west and east by 1; a step is taken only
//! from the squares that have a neighbour that way (`can_step`), so nothing wraps from
//! one row's edge to the next row. The four [`Dir`] slots stand for north (NorthWest),
//! west (NorthEast), east (SouthWest) and south (SouthEast): each pair of opposites stays
//! opposite, and the first two still lead towards bit 0.

/// The size of the board. Only the dark squares are played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardSize {
    /// 8x8, 32 playable squares (Russian draughts and the 8x8 family).
    Eight,
    /// 10x10, 50 playable squares (international draughts).
    Ten,
    /// 8x8 with all 64 squares in play and orthogonal steps (Turkish draughts).
    EightOrthogonal,
}

impl BoardSize {
    /// Files (and ranks) on the board: 8 or 10.
    pub const fn width(self) -> u8 {
        match self {
            BoardSize::Eight | BoardSize::EightOrthogonal => 8,
            BoardSize::Ten => 10,
        }
    }

    /// Number of playable squares: 32, 50 (the dark squares) or 64.
    pub const fn squares(self) -> u8 {
        self.row_len() * self.width()
    }

    /// Playable squares in one row: 4, 5 or 8.
    pub const fn row_len(self) -> u8 {
        match self {
            BoardSize::Eight => 4,
            BoardSize::Ten => 5,
            BoardSize::EightOrthogonal => 8,
        }
    }

    /// Whether pieces step along rows and columns (every square in play).
    pub const fn is_orthogonal(self) -> bool {
        matches!(self, BoardSize::EightOrthogonal)
    }

    /// The rows each side's men fill at the start, counted from its own edge: the first
    /// row filled and how many.
    pub const fn start_rows(self) -> (u8, u8) {
        match self {
            BoardSize::Eight => (0, 3),
            BoardSize::Ten => (0, 4),
            // Turkish: the back row stays empty, men on the second and third rows.
            BoardSize::EightOrthogonal => (1, 2),
        }
    }

    pub(crate) const fn geometry(self) -> &'static Geometry {
        match self {
            BoardSize::Eight => &GEOMETRY_8,
            BoardSize::Ten => &GEOMETRY_10,
            BoardSize::EightOrthogonal => &GEOMETRY_ORTHOGONAL,
        }
    }

    /// The bitboard of a set of square indices (bit `s` for square `s`): what
    /// `Geometry::bit_of` gives square by square, as a few shifts without a branch.
    #[inline]
    pub(crate) const fn bits_of_squares(self, squares: u64) -> u64 {
        match self {
            BoardSize::Eight => spread::<8, 4>(squares),
            BoardSize::Ten => spread::<10, 5>(squares),
            BoardSize::EightOrthogonal => squares,
        }
    }

    /// The square indices of a bitboard's squares: the inverse of
    /// [`BoardSize::bits_of_squares`] (ghost bits are dropped).
    #[inline]
    pub(crate) const fn squares_of_bits(self, bits: u64) -> u64 {
        match self {
            BoardSize::Eight => gather::<8, 4>(bits),
            BoardSize::Ten => gather::<10, 5>(bits),
            BoardSize::EightOrthogonal => bits,
        }
    }
}

/// Squares to bits on a diagonal board: square `s` is at bit `s + s / WIDTH`, so each run
/// of `WIDTH` squares (two rows) moves up by one ghost bit for every run before it.
#[inline(always)]
const fn spread<const WIDTH: u32, const RUNS: u32>(squares: u64) -> u64 {
    restride::<WIDTH, RUNS>(squares, WIDTH, WIDTH + 1)
}

/// Bits to squares on a diagonal board: [`spread`] undone (ghost bits dropped).
#[inline(always)]
const fn gather<const WIDTH: u32, const RUNS: u32>(bits: u64) -> u64 {
    restride::<WIDTH, RUNS>(bits, WIDTH + 1, WIDTH)
}

/// Moves run `k` of `WIDTH` bits from bit `k * from` to bit `k * to`, for each of `RUNS`.
#[inline(always)]
const fn restride<const WIDTH: u32, const RUNS: u32>(set: u64, from: u32, to: u32) -> u64 {
    let run = (1u64 << WIDTH) - 1;
    let mut moved = 0;
    let mut k = 0;
    while k < RUNS {
        moved |= ((set >> (k * from)) & run) << (k * to);
        k += 1;
    }
    moved
}

/// A diagonal direction, as seen by White (north = towards square 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Dir {
    NorthWest = 0,
    NorthEast = 1,
    SouthWest = 2,
    SouthEast = 3,
}

impl Dir {
    pub(crate) const ALL: [Dir; 4] = [Dir::NorthWest, Dir::NorthEast, Dir::SouthWest, Dir::SouthEast];
    pub(crate) const NORTH: [Dir; 2] = [Dir::NorthWest, Dir::NorthEast];
    pub(crate) const SOUTH: [Dir; 2] = [Dir::SouthWest, Dir::SouthEast];
    /// Orthogonal board: north, west and east (a White man's steps).
    pub(crate) const NORTH_AND_SIDEWAYS: [Dir; 3] = [Dir::NorthWest, Dir::NorthEast, Dir::SouthWest];
    /// Orthogonal board: south, west and east (a Black man's steps).
    pub(crate) const SOUTH_AND_SIDEWAYS: [Dir; 3] = [Dir::SouthEast, Dir::NorthEast, Dir::SouthWest];

    pub(crate) const fn opposite(self) -> Dir {
        match self {
            Dir::NorthWest => Dir::SouthEast,
            Dir::NorthEast => Dir::SouthWest,
            Dir::SouthWest => Dir::NorthEast,
            Dir::SouthEast => Dir::NorthWest,
        }
    }
}

/// Marks "off the board" in the neighbour table.
pub(crate) const OFF: u8 = u8::MAX;

/// Everything derived from the board size, computed at compile time.
#[derive(Debug)]
pub(crate) struct Geometry {
    /// Squares per row (4 or 5).
    pub half: u32,
    /// All bits that are real squares.
    pub mask: u64,
    /// The row nearest square 1: White's promotion row.
    pub top_row: u64,
    /// The row furthest from square 1: Black's promotion row.
    pub bottom_row: u64,
    /// Neighbouring bit in each direction, or [`OFF`].
    pub next: [[u8; 64]; 4],
    /// Every square beyond a bit in each direction, to the edge.
    pub ray: [[u64; 64]; 4],
    /// A step in each direction as a left rotation, taken from `can_step` squares only.
    pub rotation: [u32; 4],
    /// The squares that have a neighbour in each direction.
    pub can_step: [u64; 4],
    /// The directions a man of each colour (White, Black) steps in: forward, and on the
    /// orthogonal board sideways too.
    pub men_dirs: [&'static [Dir]; 2],
    /// Bit of square index `s`.
    pub bit_of: [u8; 64],
    /// Square index of a bit, or [`OFF`] for ghosts and bits past the board.
    pub square_of: [u8; 64],
}

impl Geometry {
    const fn new(size: BoardSize) -> Geometry {
        let width = size.width() as u32;
        let half = size.row_len() as u32;
        let squares = size.squares() as u32;
        let orthogonal = size.is_orthogonal();
        let mut bit_of = [OFF; 64];
        let mut square_of = [OFF; 64];
        let mut mask = 0u64;
        let mut top_row = 0u64;
        let mut bottom_row = 0u64;
        let mut s = 0;
        while s < squares {
            let bit = if orthogonal { s } else { s + s / width };
            bit_of[s as usize] = bit as u8;
            square_of[bit as usize] = s as u8;
            mask |= 1 << bit;
            if s < half {
                top_row |= 1 << bit;
            }
            if s >= squares - half {
                bottom_row |= 1 << bit;
            }
            s += 1;
        }
        let deltas: [i32; 4] = if orthogonal {
            [-8, -1, 1, 8]
        } else {
            [-(half as i32) - 1, -(half as i32), half as i32, half as i32 + 1]
        };
        let mut next = [[OFF; 64]; 4];
        let mut can_step = [0u64; 4];
        let mut d = 0;
        while d < 4 {
            let mut b = 0;
            while b < 64 {
                if mask & (1 << b) != 0 {
                    let to = b as i32 + deltas[d];
                    // Orthogonal west and east steps stay in their row.
                    let same_row = !orthogonal || deltas[d].abs() != 1 || to / 8 == b as i32 / 8;
                    if to >= 0 && to < 64 && mask & (1 << to) != 0 && same_row {
                        next[d][b] = to as u8;
                        can_step[d] |= 1 << b;
                    }
                }
                b += 1;
            }
            d += 1;
        }
        let rotation = if orthogonal { [64 - 8, 64 - 1, 1, 8] } else { [64 - (half + 1), 64 - half, half, half + 1] };
        let men_dirs: [&'static [Dir]; 2] =
            if orthogonal { [&Dir::NORTH_AND_SIDEWAYS, &Dir::SOUTH_AND_SIDEWAYS] } else { [&Dir::NORTH, &Dir::SOUTH] };
        let mut ray = [[0u64; 64]; 4];
        let mut d = 0;
        while d < 4 {
            let mut b = 0;
            while b < 64 {
                let mut at = next[d][b];
                while at != OFF {
                    ray[d][b] |= 1 << at;
                    at = next[d][at as usize];
                }
                b += 1;
            }
            d += 1;
        }
        Geometry { half, mask, top_row, bottom_row, next, ray, rotation, can_step, men_dirs, bit_of, square_of }
    }

    /// Shifts every bit of `bb` (squares of the board) one step in `dir`, dropping bits
    /// that would leave the board.
    #[inline(always)]
    pub(crate) fn shift(&self, bb: u64, dir: Dir) -> u64 {
        (bb & self.can_step[dir as usize]).rotate_left(self.rotation[dir as usize])
    }

    /// The squares reached from `start` by stepping along `dir` over squares of
    /// `through` only, `start` included: a flying piece's free runs, all at once.
    #[inline(always)]
    pub(crate) fn run_along(&self, start: u64, dir: Dir, through: u64) -> u64 {
        let mut run = start;
        loop {
            let next = self.shift(run, dir) & through & !run;
            if next == 0 {
                return run;
            }
            run |= next;
        }
    }

    /// The first bit of `occupied` from `bit` along `dir`, or [`OFF`].
    #[inline(always)]
    pub(crate) fn first_along(&self, bit: u8, dir: Dir, occupied: u64) -> u8 {
        let blockers = self.ray[dir as usize][bit as usize] & occupied;
        if blockers == 0 {
            OFF
        } else {
            nearest_along(dir, blockers)
        }
    }

    /// The neighbouring bit of `bit` in `dir`, or [`OFF`].
    #[inline(always)]
    pub(crate) fn step(&self, bit: u8, dir: Dir) -> u8 {
        self.next[dir as usize][bit as usize]
    }
}

/// Of `bits` (not empty), lying on one ray in `dir`, the bit met first going along it.
#[inline(always)]
pub(crate) fn nearest_along(dir: Dir, bits: u64) -> u8 {
    match dir {
        // North lies towards bit 0.
        Dir::NorthWest | Dir::NorthEast => 63 - bits.leading_zeros() as u8,
        Dir::SouthWest | Dir::SouthEast => bits.trailing_zeros() as u8,
    }
}

pub(crate) static GEOMETRY_8: Geometry = Geometry::new(BoardSize::Eight);
pub(crate) static GEOMETRY_10: Geometry = Geometry::new(BoardSize::Ten);
pub(crate) static GEOMETRY_ORTHOGONAL: Geometry = Geometry::new(BoardSize::EightOrthogonal);

/// Iterates the set bits of a bitboard (or of a [`crate::SquareSets`] mask), lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Bits(pub u64);

impl Iterator for Bits {
    type Item = u8;
    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_by_ten_neighbours_match_the_numbering() {
        let g = BoardSize::Ten.geometry();
        let bit = |n: u8| g.bit_of[(n - 1) as usize];
        let num = |b: u8| g.square_of[b as usize] + 1;
        // Square 28 (row 6, seen from White) touches 22, 23, 32, 33.
        assert_eq!(num(g.step(bit(28), Dir::NorthWest)), 22);
        assert_eq!(num(g.step(bit(28), Dir::NorthEast)), 23);
        assert_eq!(num(g.step(bit(28), Dir::SouthWest)), 32);
        assert_eq!(num(g.step(bit(28), Dir::SouthEast)), 33);
        // Edges: 6 and 46 on the left, 5, 15, 45 on the right.
        assert_eq!(g.step(bit(6), Dir::NorthWest), OFF);
        assert_eq!(g.step(bit(6), Dir::SouthWest), OFF);
        assert_eq!(g.step(bit(15), Dir::SouthEast), OFF);
        assert_eq!(g.step(bit(5), Dir::NorthEast), OFF);
        assert_eq!(g.step(bit(46), Dir::SouthWest), OFF);
        assert_eq!(num(g.step(bit(46), Dir::NorthEast)), 41);
        assert_eq!(g.mask.count_ones(), 50);
    }

    #[test]
    fn square_sets_and_bitboards_convert_as_bit_of_and_square_of_say() {
        for size in [BoardSize::Eight, BoardSize::Ten, BoardSize::EightOrthogonal] {
            let g = size.geometry();
            let squares = size.squares() as u32;
            let by_table =
                |set: u64| (0..squares).filter(|s| set >> s & 1 != 0).fold(0u64, |m, s| m | 1 << g.bit_of[s as usize]);
            let all = if squares == 64 { u64::MAX } else { (1u64 << squares) - 1 };
            assert_eq!(size.bits_of_squares(all), g.mask, "{size:?}");
            assert_eq!(size.squares_of_bits(g.mask), all, "{size:?}");
            assert_eq!(size.squares_of_bits(!g.mask), 0, "{size:?}: ghost bits are no squares");
            for s in 0..squares {
                assert_eq!(size.bits_of_squares(1 << s), 1 << g.bit_of[s as usize], "{size:?} square {s}");
                assert_eq!(size.squares_of_bits(1 << g.bit_of[s as usize]), 1 << s, "{size:?} square {s}");
            }
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..1000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let set = state & all;
                assert_eq!(size.bits_of_squares(set), by_table(set), "{size:?} {set:#x}");
                assert_eq!(size.squares_of_bits(size.bits_of_squares(set)), set, "{size:?} {set:#x}");
            }
        }
    }

    #[test]
    fn orthogonal_steps_stay_in_their_row_and_column() {
        let g = BoardSize::EightOrthogonal.geometry();
        assert_eq!(g.mask, u64::MAX);
        for s in 0..64u8 {
            let (r, c) = (s as i32 / 8, s as i32 % 8);
            for (d, (dr, dc)) in Dir::ALL.iter().zip([(-1, 0), (0, -1), (0, 1), (1, 0)]) {
                let to = g.step(s, *d);
                let on_board = (0..8).contains(&(r + dr)) && (0..8).contains(&(c + dc));
                assert_eq!(to != OFF, on_board, "square {s} {d:?}");
                if on_board {
                    assert_eq!(to as i32, (r + dr) * 8 + c + dc);
                }
                assert_eq!(g.shift(1 << s, *d), if on_board { 1 << to } else { 0 }, "square {s} {d:?}");
            }
        }
    }

    #[test]
    fn every_step_is_a_real_diagonal_neighbour() {
        for size in [BoardSize::Eight, BoardSize::Ten] {
            let g = size.geometry();
            let w = size.width() as i32;
            let coords = |s: u8| {
                let row = s as i32 / (w / 2);
                let col = 2 * (s as i32 % (w / 2)) + if row % 2 == 0 { 1 } else { 0 };
                (row, col)
            };
            for s in 0..size.squares() {
                let (r, c) = coords(s);
                for (d, (dr, dc)) in Dir::ALL.iter().zip([(-1, -1), (-1, 1), (1, -1), (1, 1)]) {
                    let to = g.step(g.bit_of[s as usize], *d);
                    let on_board = (0..w).contains(&(r + dr)) && (0..w).contains(&(c + dc));
                    assert_eq!(to != OFF, on_board, "{size:?} square {s} {d:?}");
                    if to != OFF {
                        assert_eq!(coords(g.square_of[to as usize]), (r + dr, c + dc));
                    }
                }
            }
        }
    }
}
