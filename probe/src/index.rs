//! Position indexing: a bijection between the positions of one material signature
//! (white to move) and `0..len`.
//!
//! Layout: `index = men_rank * king_placements + king_rank`, so positions with the same
//! men lie next to each other. Men never stand on their own promotion row. White men are
//! first split by how many stand on the bottom row (squares no black man may use), which
//! fixes how many squares remain for the black men and makes the ranking dense: every
//! index in `0..len` is a position, with no holes. Sets of squares are ranked in the
//! combinatorial number system over the squares still available.

use std::fmt;

use kabe_rules::{Bits, Color, PieceKind, Position, Square, SquareSets, UncheckedPosition, Variant};

/// The material of one table, seen from the side to move ("white").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// Men of the side to move.
    pub white_men: u8,
    /// Kings of the side to move.
    pub white_kings: u8,
    /// Men of the other side.
    pub black_men: u8,
    /// Kings of the other side.
    pub black_kings: u8,
}

impl Signature {
    /// Material with the side to move as "white".
    pub fn new(white_men: u8, white_kings: u8, black_men: u8, black_kings: u8) -> Signature {
        Signature { white_men, white_kings, black_men, black_kings }
    }

    /// The signature of `position` from its side to move's point of view.
    pub fn of(position: &Position) -> Signature {
        let (me, you) = (position.turn(), position.turn().opposite());
        let count = |c: Color, kind: PieceKind| position.count(c, kind) as u8;
        Signature::new(
            count(me, PieceKind::Man),
            count(me, PieceKind::King),
            count(you, PieceKind::Man),
            count(you, PieceKind::King),
        )
    }

    /// The signature of a position given by its square sets, White to move.
    pub fn of_sets(sets: &SquareSets) -> Signature {
        let count = |squares: u64| squares.count_ones() as u8;
        Signature::new(count(sets.white_men), count(sets.white_kings), count(sets.black_men), count(sets.black_kings))
    }

    /// The same material with the sides exchanged.
    #[must_use]
    pub fn flipped(self) -> Signature {
        Signature::new(self.black_men, self.black_kings, self.white_men, self.white_kings)
    }

    /// Pieces on the board.
    pub fn pieces(self) -> u32 {
        (self.white_men + self.white_kings + self.black_men + self.black_kings) as u32
    }

    /// A dense key below [`Signature::KEYS`]: the four counts, where each is at most 15
    /// (every material a table can hold); what a reader indexes its tables by.
    #[inline]
    pub fn key(self) -> Option<usize> {
        let fits = [self.white_men, self.white_kings, self.black_men, self.black_kings].iter().all(|&n| n < 16);
        fits.then_some(
            (self.white_men as usize)
                | (self.white_kings as usize) << 4
                | (self.black_men as usize) << 8
                | (self.black_kings as usize) << 12,
        )
    }

    /// The number of keys [`Signature::key`] gives.
    pub const KEYS: usize = 1 << 16;

    /// Men on the board.
    pub fn men(self) -> u32 {
        (self.white_men + self.black_men) as u32
    }

    /// Every signature of `pieces` pieces in which both sides have a piece, in build
    /// order: by number of men (promotions turn a man into a king, so fewer men first).
    pub fn all_with(pieces: u32) -> Vec<Signature> {
        let mut out = Vec::new();
        for white in 1..pieces {
            let black = pieces - white;
            for wm in 0..=white {
                for bm in 0..=black {
                    out.push(Signature::new(wm as u8, (white - wm) as u8, bm as u8, (black - bm) as u8));
                }
            }
        }
        out.sort_by_key(|s| (s.men(), *s));
        out
    }
}

impl fmt::Display for Signature {
    /// `wm wk bm bk` as four digits, e.g. `2111`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}{}", self.white_men, self.white_kings, self.black_men, self.black_kings)
    }
}

/// A signature that is not four digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("signature '{0}': expected four digits, white men, white kings, black men, black kings (e.g. 1211)")]
pub struct SignatureError(pub String);

impl std::str::FromStr for Signature {
    type Err = SignatureError;

    /// Four digits, as [`Signature`]'s `Display` writes them.
    fn from_str(text: &str) -> Result<Signature, SignatureError> {
        let digits: Vec<u8> = text.bytes().map(|b| b.wrapping_sub(b'0')).collect();
        if digits.len() != 4 || digits.iter().any(|d| *d > 9) {
            return Err(SignatureError(text.to_string()));
        }
        Ok(Signature::new(digits[0], digits[1], digits[2], digits[3]))
    }
}

/// Binomial coefficients up to 64 choose 64.
struct Binomial([[u64; 65]; 65]);

impl Binomial {
    const fn new() -> Binomial {
        let mut t = [[0u64; 65]; 65];
        let mut n = 0;
        while n <= 64 {
            t[n][0] = 1;
            let mut k = 1;
            while k <= n {
                t[n][k] = t[n - 1][k - 1].saturating_add(if k < n { t[n - 1][k] } else { 0 });
                k += 1;
            }
            n += 1;
        }
        Binomial(t)
    }

    #[inline(always)]
    fn get(&self, n: u32, k: u32) -> u64 {
        if k > n {
            0
        } else {
            self.0[n as usize][k as usize]
        }
    }
}

static C: Binomial = Binomial::new();

/// Rank of the set `chosen` (square masks) among the squares of `available`, in the
/// combinatorial number system (colex order).
#[inline]
fn rank_subset(chosen: u64, available: u64) -> u64 {
    let mut rank = 0;
    for (i, s) in Bits(chosen).enumerate() {
        let below = (available & ((1u64 << s) - 1)).count_ones();
        rank += C.get(below, i as u32 + 1);
    }
    rank
}

/// The places of `chosen`'s squares among `available`'s, lowest first, and how many.
fn compressed_places(chosen: u64, available: u64) -> ([u32; MAX_KINGS], usize) {
    let mut places = [0; MAX_KINGS];
    let mut n = 0;
    for s in Bits(chosen) {
        places[n] = (available & ((1u64 << s) - 1)).count_ones();
        n += 1;
    }
    (places, n)
}

/// The lowest `k` squares of `available` (the subset of rank 0).
#[inline]
fn lowest_squares(mut available: u64, k: u32) -> u64 {
    let mut chosen = 0;
    for _ in 0..k {
        let lowest = available & available.wrapping_neg();
        chosen |= lowest;
        available ^= lowest;
    }
    chosen
}

/// The set of `k` squares of `available` with rank `rank`.
#[inline]
fn unrank_subset(mut rank: u64, k: u32, available: u64) -> u64 {
    if k == 0 {
        return 0;
    }
    // Colex: with i squares left to choose, the highest of them is at the highest place
    // p with C(p, i) <= rank. The squares are walked down once, which mispredicts fewer
    // branches than a binary search and a select for each chosen square; the last
    // one's place is what is left of the rank (C(p, 1) = p).
    let mut chosen = 0;
    let mut rest = available;
    let mut place = available.count_ones();
    let mut i = k;
    while i > 1 {
        let square = 63 - rest.leading_zeros();
        rest ^= 1u64 << square;
        place -= 1;
        let c = C.get(place, i);
        if c <= rank {
            rank -= c;
            chosen |= 1u64 << square;
            i -= 1;
        }
    }
    chosen | 1u64 << select(rest, rank as u32)
}

/// The square of the `n`-th (0-based) set bit of `mask`.
#[inline]
fn select(mut mask: u64, mut n: u32) -> u32 {
    let mut base = 0;
    // Skip whole bytes, then clear the lowest bits within the last one.
    loop {
        let in_byte = (mask & 0xFF).count_ones();
        if n < in_byte {
            break;
        }
        n -= in_byte;
        mask >>= 8;
        base += 8;
    }
    for _ in 0..n {
        mask &= mask - 1;
    }
    base + mask.trailing_zeros()
}

/// The index of one signature for one variant.
#[derive(Clone, Debug)]
pub struct MaterialIndex {
    variant: Variant,
    signature: Signature,
    /// All squares, the top row (White's promotion row), the bottom row.
    all: u64,
    top: u64,
    bottom: u64,
    /// Men configurations before each split (white men on the bottom row: 0, 1, ...).
    split_offset: Vec<u64>,
    men_configurations: u64,
    king_placements: u64,
}

impl MaterialIndex {
    /// The index of `signature` in `variant`, or `None` when its positions are too many
    /// to count in 64 bits (far beyond any table: some 20 pieces on 10x10).
    pub fn new(variant: Variant, signature: Signature) -> Option<MaterialIndex> {
        let n = variant.squares() as u32;
        // Squares per row: the promotion rows are the first and last `half` squares.
        let half = variant.board.row_len() as u32;
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let top = (1u64 << half) - 1;
        let bottom = top << (n - half);
        let (wm, bm) = (signature.white_men as u32, signature.black_men as u32);
        let middle = n - 2 * half;
        let mut split_offset = Vec::new();
        let mut total = 0u64;
        for on_bottom in 0..=wm.min(half) {
            split_offset.push(total);
            let in_middle = wm - on_bottom;
            let split = C
                .get(half, on_bottom)
                .checked_mul(C.get(middle, in_middle))?
                .checked_mul(C.get(n - half - in_middle, bm))?;
            total = total.checked_add(split)?;
        }
        let free = n.saturating_sub(wm + bm);
        let (wk, bk) = (signature.white_kings as u32, signature.black_kings as u32);
        let king_placements = C.get(free, wk).checked_mul(C.get(free.saturating_sub(wk), bk))?;
        total.checked_mul(king_placements)?;
        if wm + wk + bm + bk > n {
            return None;
        }
        Some(MaterialIndex {
            variant,
            signature,
            all,
            top,
            bottom,
            split_offset,
            men_configurations: total,
            king_placements,
        })
    }

    /// The variant whose positions this indexes.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// The signature indexed.
    pub fn signature(&self) -> Signature {
        self.signature
    }

    /// Number of positions (white to move).
    pub fn len(&self) -> u64 {
        self.men_configurations * self.king_placements
    }

    /// Whether the signature has no position at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of distinct men configurations; each has [`MaterialIndex::king_placements`]
    /// consecutive indices.
    pub fn men_configurations(&self) -> u64 {
        self.men_configurations
    }

    /// King placements per men configuration.
    pub fn king_placements(&self) -> u64 {
        self.king_placements
    }

    /// The index of `position`, which must have White to move and this signature.
    pub fn index(&self, position: &Position) -> u64 {
        debug_assert_eq!(position.turn(), Color::White);
        debug_assert_eq!(Signature::of(position), self.signature);
        self.index_of_sets(&position.square_sets())
    }

    /// [`MaterialIndex::index`] of a position given by its square sets (White to move,
    /// this signature): for a caller that holds them already.
    #[inline]
    pub fn index_of_sets(&self, sets: &SquareSets) -> u64 {
        if self.men_configurations == 1 {
            // No men, or one way to place them: the king rank is the index.
            return self.king_rank_of(sets);
        }
        self.men_rank_of(sets) * self.king_placements + self.king_rank_of(sets)
    }

    /// What ranks the positions that differ from `position` (White to move, this
    /// signature) only in where one black king stands, one rank of a few kings each: the
    /// colour flips of a position's quiet king moves, which a verifier places by the
    /// million.
    pub fn black_king_moved(&self, position: &Position) -> BlackKingMoved {
        debug_assert_eq!(position.turn(), Color::White);
        debug_assert_eq!(Signature::of(position), self.signature);
        let sets = position.square_sets();
        let free = self.all & !sets.white_men & !sets.black_men;
        let bk_count = C.get(free.count_ones() - self.signature.white_kings as u32, self.signature.black_kings as u32);
        BlackKingMoved {
            base: self.men_rank_of(&sets) * self.king_placements + rank_subset(sets.white_kings, free) * bk_count,
            available: free & !sets.white_kings,
            black_kings: sets.black_kings,
            others: 0,
            moving: None,
            others_terms: [0; MAX_KINGS + 1],
        }
    }

    /// The men part of an index (`index / king_placements()`).
    #[inline]
    fn men_rank_of(&self, sets: &SquareSets) -> u64 {
        let middle = self.all & !self.top & !self.bottom;
        let white_bottom = sets.white_men & self.bottom;
        let white_middle = sets.white_men & middle;
        let split = white_bottom.count_ones() as usize;
        let in_middle = self.signature.white_men as u32 - split as u32;
        let black_available = (self.all & !self.bottom) & !white_middle;
        let black_rank = rank_subset(sets.black_men, black_available);
        let black_count = C.get(black_available.count_ones(), self.signature.black_men as u32);
        let white_rank = rank_subset(white_bottom, self.bottom) * C.get(middle.count_ones(), in_middle)
            + rank_subset(white_middle, middle);
        self.split_offset[split] + white_rank * black_count + black_rank
    }

    /// The king placement part of `position`'s index (`index % king_placements()`): all
    /// a caller needs whose positions share their men (a king's moves), once it knows
    /// the index of one of them.
    pub fn king_rank(&self, position: &Position) -> u64 {
        debug_assert_eq!(position.turn(), Color::White);
        debug_assert_eq!(Signature::of(position), self.signature);
        self.king_rank_of(&position.square_sets())
    }

    /// For positions that differ only in where one white king stands (a king's moves
    /// taken back, in a retrograde solver), what ranks each in constant time:
    /// `position` is one of them, its white king on `square` the one that moves.
    pub fn one_king_moved(&self, position: &Position, square: Square) -> OneKingMoved {
        let mut ranks = OneKingMoved::EMPTY;
        self.one_king_moved_into(position, square, &mut ranks);
        ranks
    }

    /// [`MaterialIndex::one_king_moved`] into `ranks`, which a solver's inner loop keeps
    /// from one position to the next rather than moving 200 bytes each time.
    pub fn one_king_moved_into(&self, position: &Position, square: Square, ranks: &mut OneKingMoved) {
        let sets = position.square_sets();
        let moving = 1u64 << square.index();
        debug_assert!(sets.white_kings & moving != 0, "{}: no white king on {}", position.fen(), square.number());
        let free = self.all & !sets.white_men & !sets.black_men;
        let others = sets.white_kings & !moving;
        ranks.free = free;
        ranks.others = others;
        ranks.black_kings = sets.black_kings;
        ranks.bk_count =
            C.get(free.count_ones() - self.signature.white_kings as u32, self.signature.black_kings as u32);
        // The other white kings, l-th lowest at compressed place p: C(p, l + 1) below the
        // moving king, C(p, l + 2) above it (it takes a place below them).
        let places = compressed_places(others, free);
        let places = &places.0[..places.1];
        for j in 0..=places.len() {
            let below: u64 = places[..j].iter().enumerate().map(|(l, &p)| C.get(p, l as u32 + 1)).sum();
            let above: u64 = places[j..].iter().enumerate().map(|(l, &p)| C.get(p, (j + l) as u32 + 2)).sum();
            ranks.white_others[j] = below + above;
        }
        // The black kings among the squares free of men and the other white kings: a black
        // king above the moving king loses one place to it.
        let black_free = free & !others;
        let places = compressed_places(sets.black_kings, black_free);
        let places = &places.0[..places.1];
        for m in 0..=places.len() {
            let below: u64 = places[..m].iter().enumerate().map(|(i, &q)| C.get(q, i as u32 + 1)).sum();
            let above: u64 =
                places[m..].iter().enumerate().map(|(i, &q)| C.get(q.saturating_sub(1), (m + i) as u32 + 1)).sum();
            ranks.black[m] = below + above;
        }
    }

    #[inline]
    fn king_rank_of(&self, sets: &SquareSets) -> u64 {
        let free = self.all & !sets.white_men & !sets.black_men;
        let bk_count = C.get(free.count_ones() - self.signature.white_kings as u32, self.signature.black_kings as u32);
        rank_subset(sets.white_kings, free) * bk_count + rank_subset(sets.black_kings, free & !sets.white_kings)
    }

    /// The position (White to move) with index `index < len()`.
    pub fn position(&self, index: u64) -> Position {
        let men = self.men_of(index / self.king_placements);
        self.place_kings(&men, index % self.king_placements)
    }

    /// As [`MaterialIndex::position`], the men unranked again only when `last` holds
    /// another configuration: what a scan that visits scattered indices in increasing
    /// order uses (the positions a solver resolves at one ply).
    #[inline]
    pub fn position_reusing(&self, index: u64, last: &mut LastMen) -> Position {
        let rank = index / self.king_placements;
        if last.rank != rank {
            last.men = self.men_of(rank);
            last.rank = rank;
        }
        self.place_kings(&last.men, index % self.king_placements)
    }

    /// The positions with indices `range`, in order: the men are unranked once per
    /// configuration, and the kings stepped from one placement to the next rather than
    /// unranked (what a solver's scan, a writer and the verifier iterate over).
    pub fn positions(&self, range: std::ops::Range<u64>) -> Positions<'_> {
        Positions { index: self, next: range.start, end: range.end, stepper: None, primed: false }
    }

    /// The positions of men configuration `men_rank`, whose men `men` the caller has
    /// unranked already ([`MaterialIndex::men_of`]), at the king placements `kings`.
    pub fn placements(&self, men_rank: u64, men: &SquareSets, kings: std::ops::Range<u64>) -> Positions<'_> {
        let first = men_rank * self.king_placements;
        let (next, end) = (first + kings.start, first + kings.end.min(self.king_placements));
        let stepper = (next < end).then(|| Stepper::with_men(self, men_rank, *men, kings.start));
        Positions { index: self, next, end, primed: stepper.is_some(), stepper }
    }

    /// The men of configuration `men_rank` (kings left empty): with
    /// [`MaterialIndex::place_kings`], what a caller that visits many positions of few
    /// men configurations unranks once per configuration.
    pub fn men_of(&self, men_rank: u64) -> SquareSets {
        debug_assert!(men_rank < self.men_configurations);
        let sig = self.signature;
        let (wm, bm) = (sig.white_men as u32, sig.black_men as u32);
        let split = self.split_offset.partition_point(|&o| o <= men_rank) - 1;
        let rest = men_rank - self.split_offset[split];
        let middle = self.all & !self.top & !self.bottom;
        let in_middle = wm - split as u32;
        let black_count = C.get((self.all & !self.bottom).count_ones() - in_middle, bm);
        let (white_rank, black_rank) = (rest / black_count, rest % black_count);
        let middle_count = C.get(middle.count_ones(), in_middle);
        let white_bottom = unrank_subset(white_rank / middle_count, split as u32, self.bottom);
        let white_middle = unrank_subset(white_rank % middle_count, in_middle, middle);
        let white_men = white_bottom | white_middle;
        let black_men = unrank_subset(black_rank, bm, (self.all & !self.bottom) & !white_middle);
        SquareSets { white_men, white_kings: 0, black_men, black_kings: 0 }
    }

    /// The position (White to move) of `men` (from [`MaterialIndex::men_of`]) with king
    /// placement `king_rank < king_placements()`.
    pub fn place_kings(&self, men: &SquareSets, king_rank: u64) -> Position {
        let (wk, bk) = (self.signature.white_kings as u32, self.signature.black_kings as u32);
        let free = self.all & !men.white_men & !men.black_men;
        let bk_count = C.get(free.count_ones() - wk, bk);
        let white_kings = unrank_subset(king_rank / bk_count, wk, free);
        let black_kings = unrank_subset(king_rank % bk_count, bk, free & !white_kings);
        let sets = SquareSets { white_men: men.white_men, white_kings, black_men: men.black_men, black_kings };
        Position::from_square_sets(self.variant, Color::White, &sets)
    }
}

/// The men configuration [`MaterialIndex::position_reusing`] unranked last.
#[derive(Clone, Copy, Debug)]
pub struct LastMen {
    rank: u64,
    men: SquareSets,
}

impl LastMen {
    /// No configuration yet.
    pub const NONE: LastMen =
        LastMen { rank: u64::MAX, men: SquareSets { white_men: 0, white_kings: 0, black_men: 0, black_kings: 0 } };
}

/// Most kings of one side a table holds (a signature's digit).
const MAX_KINGS: usize = 9;

/// The indices of positions that differ in one black king's square
/// ([`MaterialIndex::black_king_moved`]).
#[derive(Clone, Copy, Debug)]
pub struct BlackKingMoved {
    /// The index less its black kings' part.
    base: u64,
    /// The squares the black kings are ranked among: free of men and white kings.
    available: u64,
    black_kings: u64,
    /// The black kings that stay while the one on `moving` moves ([`BlackKingMoved::moving`]).
    others: u64,
    moving: Option<Square>,
    /// By how many of the others lie below the moving king: their terms of the rank.
    others_terms: [u64; MAX_KINGS + 1],
}

impl BlackKingMoved {
    /// Makes the black king on `from` the one that moves: the ranks of the others' terms
    /// are summed once for all its moves (nothing to do where it already is).
    #[inline]
    pub fn moving(&mut self, from: Square) {
        if self.moving == Some(from) {
            return;
        }
        debug_assert!(self.black_kings & 1u64 << from.index() != 0, "no black king on {}", from.number());
        self.moving = Some(from);
        self.others = self.black_kings & !(1u64 << from.index());
        // The other kings, l-th lowest at compressed place p: C(p, l + 1) below the moving
        // king, C(p, l + 2) above it (it takes a place below them).
        let (places, n) = compressed_places(self.others, self.available);
        let places = &places[..n];
        for j in 0..=n {
            let below: u64 = places[..j].iter().enumerate().map(|(l, &p)| C.get(p, l as u32 + 1)).sum();
            let above: u64 = places[j..].iter().enumerate().map(|(l, &p)| C.get(p, (j + l) as u32 + 2)).sum();
            self.others_terms[j] = below + above;
        }
    }

    /// The index with the moving black king ([`BlackKingMoved::moving`]) on `to`, a
    /// square of no other piece.
    #[inline]
    pub fn index(&self, to: Square) -> u64 {
        debug_assert!(self.moving.is_some(), "no moving king chosen");
        debug_assert!(self.available & !self.others & 1u64 << to.index() != 0, "{} is taken", to.number());
        self.index_of_bit(to.index() as u32)
    }

    /// [`BlackKingMoved::index`] for each square of `squares` (bit `i`: the square of
    /// index `i`, none taken), lowest first.
    #[inline]
    pub fn indices(&self, squares: u64) -> impl Iterator<Item = u64> + '_ {
        debug_assert!(self.moving.is_some(), "no moving king chosen");
        debug_assert!(squares & !(self.available & !self.others) == 0, "a square is taken");
        Bits(squares).map(|bit| self.index_of_bit(bit as u32))
    }

    #[inline]
    fn index_of_bit(&self, bit: u32) -> u64 {
        let below = (1u64 << bit) - 1;
        let j = (self.others & below).count_ones() as usize;
        self.base + self.others_terms[j] + C.get((self.available & below).count_ones(), j as u32 + 1)
    }
}

/// The king ranks of positions that differ in one white king's square
/// ([`MaterialIndex::one_king_moved`]).
#[derive(Clone, Debug)]
pub struct OneKingMoved {
    free: u64,
    /// The white kings that stay.
    others: u64,
    black_kings: u64,
    bk_count: u64,
    /// By how many other white kings lie below the moving one: their terms of the rank.
    white_others: [u64; MAX_KINGS + 1],
    /// By how many black kings lie below the moving one: their terms.
    black: [u64; MAX_KINGS + 1],
}

impl OneKingMoved {
    /// Ranks of no position yet: what [`MaterialIndex::one_king_moved_into`] fills.
    pub const EMPTY: OneKingMoved = OneKingMoved {
        free: 0,
        others: 0,
        black_kings: 0,
        bk_count: 0,
        white_others: [0; MAX_KINGS + 1],
        black: [0; MAX_KINGS + 1],
    };

    /// The king rank ([`MaterialIndex::king_rank`]) with the moving king on `square`
    /// (free of every other piece).
    #[inline]
    pub fn king_rank(&self, square: Square) -> u64 {
        let below = (1u64 << square.index()) - 1;
        let j = (self.others & below).count_ones() as usize;
        let white = self.white_others[j] + C.get((self.free & below).count_ones(), j as u32 + 1);
        let m = (self.black_kings & below).count_ones() as usize;
        white * self.bk_count + self.black[m]
    }
}

/// Positions of consecutive indices ([`MaterialIndex::positions`]).
pub struct Positions<'a> {
    index: &'a MaterialIndex,
    next: u64,
    end: u64,
    /// The men and king placement of index `next - 1`, to step from; of index `next`
    /// where `primed`.
    stepper: Option<Stepper>,
    primed: bool,
}

/// Positions of consecutive indices stepped instead of unranked: one men configuration's
/// king placements in index order, the white kings' and the black kings' places as
/// sorted positions in their lists of free squares, stepped in colex order (the order of
/// [`rank_subset`]), black fastest; then the next men configuration, whose black men are
/// the next subset of their squares while the white men stay. Held inline, without
/// allocating: a table with few kings or none steps its men at nearly every position.
struct Stepper {
    men_rank: u64,
    men: SquareSets,
    /// Squares the black men stand among (below White's: the index ranks them there).
    black_men_squares: SquareList,
    black_men: Places,
    /// Squares free of men, as a set and ascending.
    free_set: u64,
    free: SquareList,
    /// Squares free of men and white kings, ascending.
    black_free: SquareList,
    white: Places,
    black: Places,
}

/// Squares in ascending order.
#[derive(Clone, Copy)]
struct SquareList {
    squares: [u8; 64],
    len: u8,
}

impl SquareList {
    #[inline]
    fn of(set: u64) -> SquareList {
        let mut list = SquareList { squares: [0; 64], len: 0 };
        for s in Bits(set) {
            list.squares[list.len as usize] = s;
            list.len += 1;
        }
        list
    }

    #[inline]
    fn get(&self, i: u8) -> u8 {
        self.squares[i as usize]
    }
}

/// Pieces as sorted places in a [`SquareList`].
#[derive(Clone, Copy)]
struct Places {
    at: [u8; 64],
    len: usize,
}

impl Places {
    /// The places of `chosen`'s squares among `available`'s.
    #[inline]
    fn of(chosen: u64, available: u64) -> Places {
        let mut places = Places { at: [0; 64], len: 0 };
        for s in Bits(chosen) {
            places.at[places.len] = (available & ((1u64 << s) - 1)).count_ones() as u8;
            places.len += 1;
        }
        places
    }

    #[inline]
    fn as_slice(&self) -> &[u8] {
        &self.at[..self.len]
    }

    /// The squares at these places of `list`.
    #[inline]
    fn squares(&self, list: &SquareList) -> u64 {
        self.as_slice().iter().fold(0u64, |m, &i| m | 1u64 << list.get(i))
    }
}

/// Steps `a` (sorted, below `n`) to the next subset in colex order; `false` after the
/// last, when it starts over at the first.
fn next_subset(a: &mut [u8], n: u8) -> bool {
    let k = a.len();
    for i in 0..k {
        let limit = if i + 1 < k { a[i + 1] } else { n };
        if a[i] + 1 < limit {
            a[i] += 1;
            for (j, slot) in a[..i].iter_mut().enumerate() {
                *slot = j as u8;
            }
            return true;
        }
    }
    for (j, slot) in a.iter_mut().enumerate() {
        *slot = j as u8;
    }
    false
}

impl Stepper {
    /// The stepper at king placement `king_rank` of men configuration `men_rank`.
    fn at(index: &MaterialIndex, men_rank: u64, king_rank: u64) -> Stepper {
        Stepper::with_men(index, men_rank, index.men_of(men_rank), king_rank)
    }

    /// As [`Stepper::at`], `men` being configuration `men_rank`'s.
    fn with_men(index: &MaterialIndex, men_rank: u64, men: SquareSets, king_rank: u64) -> Stepper {
        let placed = index.place_kings(&men, king_rank).square_sets();
        // As `MaterialIndex::men_of` ranks them: among the squares off the bottom row and
        // free of white men.
        let black_men_squares = index.all & !index.bottom & !men.white_men;
        let mut stepper = Stepper {
            men_rank,
            men,
            black_men_squares: SquareList::of(if index.signature.black_men > 0 { black_men_squares } else { 0 }),
            black_men: Places::of(men.black_men, black_men_squares),
            free_set: 0,
            free: SquareList::of(0),
            black_free: SquareList::of(0),
            white: Places::of(0, 0),
            black: Places::of(0, 0),
        };
        stepper.place_kings(index, placed.white_kings, placed.black_kings);
        stepper
    }

    /// Sets the kings of the men held to these squares.
    fn place_kings(&mut self, index: &MaterialIndex, white_kings: u64, black_kings: u64) {
        let free = index.all & !self.men.white_men & !self.men.black_men;
        let black_free = free & !white_kings;
        // A side without kings never reads its list: the lists of a table without kings
        // are not made at all.
        let (white, black) = (index.signature.white_kings > 0, index.signature.black_kings > 0);
        self.free_set = free;
        self.free = SquareList::of(if white { free } else { 0 });
        self.black_free = SquareList::of(if black { black_free } else { 0 });
        self.white = Places::of(white_kings, free);
        self.black = Places::of(black_kings, black_free);
    }

    /// The first king placement of the next men configuration, where only the black men
    /// change; `false` (and nothing changed) where the white men would.
    fn step_men(&mut self, index: &MaterialIndex) -> bool {
        let len = self.black_men.len;
        let mut next = self.black_men;
        if !next_subset(&mut next.at[..len], self.black_men_squares.len) {
            return false;
        }
        self.black_men = next;
        self.men.black_men = next.squares(&self.black_men_squares);
        self.men_rank += 1;
        // King placement 0: each side's kings on its lowest free squares.
        let free = index.all & !self.men.white_men & !self.men.black_men;
        let white_kings = lowest_squares(free, index.signature.white_kings as u32);
        let black_kings = lowest_squares(free & !white_kings, index.signature.black_kings as u32);
        self.place_kings(index, white_kings, black_kings);
        true
    }

    /// The next placement of the same men; `false` after the last.
    fn step(&mut self) -> bool {
        let black_len = self.black.len;
        if next_subset(&mut self.black.at[..black_len], self.black_free.len) {
            return true;
        }
        let white_len = self.white.len;
        let more = next_subset(&mut self.white.at[..white_len], self.free.len);
        if black_len > 0 {
            // Without black kings the list is never read: rebuilding it would cost more
            // than the rest of the step.
            self.black_free = SquareList::of(self.free_set & !self.white.squares(&self.free));
        }
        more
    }

    fn position(&self, variant: Variant) -> Position {
        let sets = SquareSets {
            white_men: self.men.white_men,
            white_kings: self.white.squares(&self.free),
            black_men: self.men.black_men,
            black_kings: self.black.squares(&self.black_free),
        };
        Position::from_square_sets(variant, Color::White, &sets)
    }
}

impl Iterator for Positions<'_> {
    type Item = Position;

    fn next(&mut self) -> Option<Position> {
        if self.next >= self.end {
            return None;
        }
        let index = self.next;
        self.next += 1;
        if std::mem::take(&mut self.primed) {
            return self.stepper.as_ref().map(|s| s.position(self.index.variant));
        }
        let per = self.index.king_placements;
        let (men_rank, king_rank) = (index / per, index % per);
        let stepped = match &mut self.stepper {
            Some(s) if s.men_rank == men_rank && king_rank > 0 => s.step(),
            Some(s) if s.men_rank + 1 == men_rank && king_rank == 0 => s.step_men(self.index),
            _ => false,
        };
        if !stepped {
            self.stepper = Some(Stepper::at(self.index, men_rank, king_rank));
        }
        self.stepper.as_ref().map(|s| s.position(self.index.variant))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end.saturating_sub(self.next)) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Positions<'_> {}
