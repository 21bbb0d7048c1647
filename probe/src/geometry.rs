//! Board geometry: the ghost-square bit layout that turns diagonal steps into shifts.
//!
//! Dark squares are numbered 0.. in reading order from the top-left dark square as seen
//! by White (square number 1 in notation). Square `s` lives at bit `s + s / width`: after
//! every two rows one unused "ghost" bit is inserted, so that each diagonal direction is
//! a constant shift (`half` or `half + 1`) and stepping off the left or right edge lands
//! on a ghost bit that is never part of the board. One layout serves 8x8 and 10x10.

/// The size of the board. Only the dark squares are played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardSize {
    /// 8x8, 32 playable squares (Russian draughts and the 8x8 family).
    Eight,
    /// 10x10, 50 playable squares (international draughts).
    Ten,
}

impl BoardSize {
    /// Files (and ranks) on the board: 8 or 10.
    pub const fn width(self) -> u8 {
        match self {
            BoardSize::Eight => 8,
            BoardSize::Ten => 10,
        }
    }

    /// Number of playable (dark) squares: 32 or 50.
    pub const fn squares(self) -> u8 {
        self.width() * self.width() / 2
    }

    pub(crate) const fn geometry(self) -> &'static Geometry {
        match self {
            BoardSize::Eight => &GEOMETRY_8,
            BoardSize::Ten => &GEOMETRY_10,
        }
    }
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
    /// A step in each direction as a left rotation: bits that wrap around land on ghost
    /// or unused high bits, which every board set leaves empty.
    pub rotation: [u32; 4],
    /// Bit of square index `s`.
    pub bit_of: [u8; 64],
    /// Square index of a bit, or [`OFF`] for ghosts and bits past the board.
    pub square_of: [u8; 64],
}

impl Geometry {
    const fn new(size: BoardSize) -> Geometry {
        let width = size.width() as u32;
        let half = width / 2;
        let squares = size.squares() as u32;
        let mut bit_of = [OFF; 64];
        let mut square_of = [OFF; 64];
        let mut mask = 0u64;
        let mut top_row = 0u64;
        let mut bottom_row = 0u64;
        let mut s = 0;
        while s < squares {
            let bit = s + s / width;
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
        let deltas: [i32; 4] = [-(half as i32) - 1, -(half as i32), half as i32, half as i32 + 1];
        let mut next = [[OFF; 64]; 4];
        let mut d = 0;
        while d < 4 {
            let mut b = 0;
            while b < 64 {
                if mask & (1 << b) != 0 {
                    let to = b as i32 + deltas[d];
                    if to >= 0 && to < 64 && mask & (1 << to) != 0 {
                        next[d][b] = to as u8;
                    }
                }
                b += 1;
            }
            d += 1;
        }
        let rotation = [64 - (half + 1), 64 - half, half, half + 1];
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
        Geometry { half, mask, top_row, bottom_row, next, ray, rotation, bit_of, square_of }
    }

    /// Shifts every bit of `bb` one step in `dir`, dropping bits that leave the board.
    #[inline(always)]
    pub(crate) fn shift(&self, bb: u64, dir: Dir) -> u64 {
        bb.rotate_left(self.rotation[dir as usize]) & self.mask
    }

    /// The first bit of `occupied` from `bit` along `dir`, or [`OFF`].
    #[inline(always)]
    pub(crate) fn first_along(&self, bit: u8, dir: Dir, occupied: u64) -> u8 {
        let blockers = self.ray[dir as usize][bit as usize] & occupied;
        if blockers == 0 {
            OFF
        } else {
            match dir {
                // North lies towards bit 0.
                Dir::NorthWest | Dir::NorthEast => 63 - blockers.leading_zeros() as u8,
                Dir::SouthWest | Dir::SouthEast => blockers.trailing_zeros() as u8,
            }
        }
    }

    /// The neighbouring bit of `bit` in `dir`, or [`OFF`].
    #[inline(always)]
    pub(crate) fn step(&self, bit: u8, dir: Dir) -> u8 {
        self.next[dir as usize][bit as usize]
    }
}

pub(crate) static GEOMETRY_8: Geometry = Geometry::new(BoardSize::Eight);
pub(crate) static GEOMETRY_10: Geometry = Geometry::new(BoardSize::Ten);

/// Iterates the set bits of a bitboard, lowest first.
#[derive(Clone, Copy)]
pub(crate) struct Bits(pub u64);

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
