//! Legal move generation for every variant, from one parameterised generator.
//!
//! Quiet moves of men are bitboard shifts. Captures are a depth-first search over
//! capture sequences in which captured pieces stay on the board (and block) until the
//! move ends, no piece is jumped twice, and the mover's origin square counts as empty.
//! The majority rule and the merging of duplicate captures live here only, so no
//! caller can forget them.

use std::ops::Deref;

use crate::geometry::{Bits, Dir, Geometry, OFF};
use crate::position::Position;
use crate::variant::{
    CaptureChoice, CapturedPieces, Color, CrowningInCapture, KingLanding, KingRange, PieceKind, Square, Variant,
};

/// The most pieces one capture can take: only squares off the board's edge can be
/// jumped, and a 10x10 board has 32 such dark squares.
pub const MAX_CAPTURES: usize = 32;

/// A legal move. A capture keeps the path it was found with, so it can be printed in
/// full; captures with the same origin, destination, captured pieces and crowning are
/// one move (the published perft convention).
#[derive(Clone, Copy, Debug)]
pub struct Move {
    from: u8,
    to: u8,
    piece: PieceKind,
    promotes: bool,
    path_len: u8,
    /// Bits (geometry layout) of the captured pieces.
    captured: u64,
    /// Landing square index after each capture; the last is `to`.
    path: [u8; MAX_CAPTURES],
}

impl Move {
    /// Origin square.
    pub fn from(&self) -> Square {
        Square(self.from)
    }

    /// Destination square.
    pub fn to(&self) -> Square {
        Square(self.to)
    }

    /// The kind of the moving piece before the move.
    pub fn piece(&self) -> PieceKind {
        self.piece
    }

    /// Whether the moving man is crowned by this move.
    pub fn promotes(&self) -> bool {
        self.promotes
    }

    /// Whether this move captures.
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// Number of pieces captured.
    pub fn captured_count(&self) -> u32 {
        self.captured.count_ones()
    }

    /// The squares of the captured pieces, in square order.
    pub fn captured_squares<'a>(&self, variant: &'a Variant) -> impl Iterator<Item = Square> + 'a + use<'a> {
        let geo = variant.board.geometry();
        Bits(self.captured).map(move |b| Square(geo.square_of[b as usize]))
    }

    /// The landing square after each capture, ending with the destination. Empty for a
    /// quiet move.
    pub fn landings(&self) -> impl Iterator<Item = Square> + '_ {
        self.path[..self.path_len as usize].iter().map(|&s| Square(s))
    }

    pub(crate) fn quiet(from: u8, to: u8, piece: PieceKind, promotes: bool) -> Move {
        Move { from, to, piece, promotes, path_len: 0, captured: 0, path: [0; MAX_CAPTURES] }
    }

    pub(crate) fn capture(from: u8, to: u8, piece: PieceKind, promotes: bool, captured: u64, landings: &[u8]) -> Move {
        let mut path = [0; MAX_CAPTURES];
        path[..landings.len()].copy_from_slice(landings);
        Move { from, to, piece, promotes, path_len: landings.len() as u8, captured, path }
    }

    /// Same origin, destination, captured set and crowning: the same move.
    pub(crate) fn same_outcome(&self, other: &Move) -> bool {
        self.from == other.from
            && self.to == other.to
            && self.captured == other.captured
            && self.promotes == other.promotes
    }
}

impl PartialEq for Move {
    fn eq(&self, other: &Move) -> bool {
        self.same_outcome(other) && self.piece == other.piece && self.path() == other.path()
    }
}

impl Eq for Move {}

impl std::hash::Hash for Move {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.from, self.to, self.captured, self.promotes, self.piece, self.path()).hash(state);
    }
}

impl Move {
    /// Landing squares as indices; bytes past `path_len` are stale and never compared.
    fn path(&self) -> &[u8] {
        &self.path[..self.path_len as usize]
    }
}

/// A reusable list of moves.
#[derive(Clone, Debug, Default)]
pub struct MoveList(Vec<Move>);

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList(Vec::with_capacity(64))
    }
}

impl Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.0
    }
}

impl IntoIterator for MoveList {
    type Item = Move;
    type IntoIter = std::vec::IntoIter<Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Directions in which `color`'s men move: towards the opponent (and on the orthogonal
/// board sideways).
pub(crate) fn forward(geo: &Geometry, color: Color) -> &'static [Dir] {
    geo.men_dirs[color as usize]
}

fn man_capture_dirs(variant: &Variant, color: Color) -> &'static [Dir] {
    if variant.men_capture_backward {
        &Dir::ALL
    } else {
        forward(variant.board.geometry(), color)
    }
}

/// Bits of the row where `color`'s men are crowned.
pub(crate) fn promotion_bits(geo: &Geometry, color: Color) -> u64 {
    match color {
        Color::White => geo.top_row,
        Color::Black => geo.bottom_row,
    }
}

impl Position {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        // Sized for a capture position, what the tables' searches of left-out positions
        // list by the million: 16 moves (768 bytes) are served from glibc's per-thread
        // cache (up to 1,032 bytes); 64 took its general path (`_int_malloc`, `_int_free`:
        // 4.5% of a 6-piece pass) on every call.
        let mut list = MoveList(Vec::with_capacity(16));
        self.legal_moves_into(&mut list);
        list
    }

    /// All legal moves, written into `list` (cleared first) to reuse its allocation.
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.0.clear();
        self.captures_into(&mut list.0, true);
        if list.0.is_empty() {
            self.quiet_moves_into(&mut list.0);
        }
    }

    /// Every capture route, without merging routes that have the same outcome: what a
    /// move written with its full path is matched against.
    pub fn capture_routes(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.captures_into(&mut out, false);
        out
    }

    /// Number of legal moves, without building the list where it can be avoided.
    pub fn count_legal_moves(&self) -> usize {
        let capturers = self.capture_starters();
        if capturers == 0 {
            return self.count_quiet_moves();
        }
        // Sized as in `legal_moves`: served from glibc's per-thread cache.
        let mut captures = Vec::with_capacity(16);
        self.search_captures(capturers, &mut captures, true);
        captures.len()
    }

    /// [`Position::count_legal_moves`] with a scratch list, to spare an allocation.
    #[inline]
    pub(crate) fn count_legal_moves_using(&self, scratch: &mut MoveList) -> usize {
        let capturers = self.capture_starters();
        if capturers == 0 {
            return self.count_quiet_moves();
        }
        scratch.0.clear();
        self.search_captures(capturers, &mut scratch.0, true);
        scratch.0.len()
    }

    /// Whether the game is over: the side to move has no piece or no legal move, or the
    /// material on the board is a draw by the variant's rules.
    pub fn is_over(&self) -> bool {
        self.is_drawn_by_material() || !self.has_capture() && self.count_quiet_moves() == 0
    }

    /// Whether the pieces on the board draw the game by the variant's rules
    /// ([`crate::DrawnMaterial`]; Turkish: one piece each), whatever the moves.
    pub fn is_drawn_by_material(&self) -> bool {
        match self.variant.drawn_material {
            crate::DrawnMaterial::Never => false,
            crate::DrawnMaterial::OnePieceEach => self.white.count_ones() == 1 && self.black.count_ones() == 1,
        }
    }

    /// The score the material alone decides, before any move is looked at: a draw by
    /// material ([`Position::is_drawn_by_material`]), or the end of the game when the side
    /// to move has no piece. `None` when the moves decide.
    pub fn settled_score(&self) -> Option<crate::Score> {
        if self.is_drawn_by_material() {
            return Some(crate::Score::DRAW);
        }
        (self.side(self.turn) == 0).then(|| self.variant.score_at_end())
    }

    /// The result for the side to move when the game is over ([`Position::is_over`]):
    /// a draw by material, else a loss (in giveaway a win).
    pub fn result_if_over(&self) -> Option<crate::Wld> {
        if self.is_drawn_by_material() {
            return Some(crate::Wld::Draw);
        }
        self.is_over().then(|| self.variant().score_at_end().wld())
    }

    /// Whether the side to move has lost: the game is over and the variant's goal makes
    /// that a loss (in giveaway it is a win).
    pub fn is_lost(&self) -> bool {
        self.result_if_over() == Some(crate::Wld::Loss)
    }

    /// The position after `mv`, which must be a legal move of this position.
    #[must_use]
    pub fn play(&self, mv: &Move) -> Position {
        let geo = self.geo();
        let from = 1u64 << geo.bit_of[mv.from as usize];
        let to = 1u64 << geo.bit_of[mv.to as usize];
        let mut next = *self;
        let me = next.side_mut(self.turn);
        *me = (*me & !from) | to;
        *next.side_mut(self.turn.opposite()) &= !mv.captured;
        next.kings &= !mv.captured;
        if self.kings & from != 0 || mv.promotes {
            next.kings = (next.kings & !from) | to;
        }
        next.turn = self.turn.opposite();
        next
    }

    /// The most pieces any capture of the side to move takes (0 without a capture).
    pub fn max_capture_count(&self) -> u32 {
        let mut out = Vec::new();
        self.captures_into(&mut out, true);
        out.iter().map(Move::captured_count).max().unwrap_or(0)
    }

    /// Whether the side to move has a capture (and so must capture).
    pub fn has_capture(&self) -> bool {
        self.men_that_capture() != 0 || self.kings_that_capture() != 0
    }

    /// The pieces whose captures are legal: every piece that can capture, or only the
    /// kings where a king that can capture must (Czech).
    #[inline]
    fn capture_starters(&self) -> u64 {
        let kings = self.kings_that_capture();
        if kings != 0 && self.variant.capture_choice == CaptureChoice::KingFirst {
            return kings;
        }
        kings | self.men_that_capture()
    }

    /// The enemy pieces a man may jump: all of them, or only men (Italian).
    #[inline]
    fn man_targets(&self) -> u64 {
        let enemy = self.side(self.turn.opposite());
        if self.variant.men_capture_kings {
            enemy
        } else {
            enemy & !self.kings
        }
    }

    /// The side to move's men that can jump an enemy piece.
    #[inline]
    fn men_that_capture(&self) -> u64 {
        self.capturing_men(self.side(self.turn) & !self.kings)
    }

    /// Those of `men` (the side to move's) that can jump an enemy piece.
    #[inline]
    fn capturing_men(&self, men: u64) -> u64 {
        let geo = self.geo();
        let enemy = self.man_targets();
        let empty = self.empty_squares();
        let mut found = 0;
        for &d in man_capture_dirs(&self.variant, self.turn) {
            let back = d.opposite();
            found |= geo.shift(geo.shift(empty, back) & enemy, back) & men;
        }
        found
    }

    /// The side to move's kings that can capture.
    #[inline]
    fn kings_that_capture(&self) -> u64 {
        let mut found = 0;
        for king in Bits(self.side(self.turn) & self.kings) {
            if self.king_can_jump(king) {
                found |= 1 << king;
            }
        }
        found
    }

    /// Whether the side to move's king on `king` can jump an enemy piece.
    #[inline]
    fn king_can_jump(&self, king: u8) -> bool {
        let geo = self.geo();
        let enemy = self.side(self.turn.opposite());
        let empty = self.empty_squares();
        let flying = self.variant.king_captures == KingRange::Flying;
        let occupied = self.white | self.black;
        Dir::ALL.into_iter().any(|d| {
            let over = if flying { geo.first_along(king, d, occupied) } else { geo.step(king, d) };
            over != OFF && enemy & (1 << over) != 0 && {
                let land = geo.step(over, d);
                land != OFF && empty & (1 << land) != 0
            }
        })
    }

    /// Where the side to move can capture, the squares on which one more piece of its own
    /// would block every first jump it has (the squares passed over and the landing just
    /// beyond the jumped piece); `None` where it has no capture. An own piece only ever
    /// blocks, so after adding one on a square outside this set a capture remains.
    pub(crate) fn capture_blockers(&self) -> Option<u64> {
        self.capture_blockers_of(self.side(self.turn) & self.kings)
    }

    /// [`Position::capture_blockers`], looking at the kings among `kings` only: a
    /// caller that knows which of its kings can jump ([`Position::king_jumps`]) passes
    /// those.
    pub(crate) fn capture_blockers_of(&self, kings: u64) -> Option<u64> {
        let geo = self.geo();
        let empty = self.empty_squares();
        let mut found = false;
        let mut blockers = !0u64;
        let men = self.side(self.turn) & !self.kings;
        let man_targets = self.man_targets();
        for &d in man_capture_dirs(&self.variant, self.turn) {
            let back = d.opposite();
            let capturing = geo.shift(geo.shift(empty, back) & man_targets, back) & men;
            if capturing != 0 {
                found = true;
                // A man's jump is blocked only on its landing square.
                let landings = geo.shift(geo.shift(capturing, d), d);
                blockers &= if landings.count_ones() == 1 { landings } else { 0 };
            }
        }
        if found && blockers == 0 {
            return Some(0);
        }
        let enemy = self.side(self.turn.opposite());
        let occupied = self.white | self.black;
        let flying = self.variant.king_captures == KingRange::Flying;
        for king in Bits(kings & self.side(self.turn) & self.kings) {
            for d in Dir::ALL {
                let over = if flying { geo.first_along(king, d, occupied) } else { geo.step(king, d) };
                if over == OFF || enemy & (1 << over) == 0 {
                    continue;
                }
                let land = geo.step(over, d);
                if land == OFF || empty & (1 << land) == 0 {
                    continue;
                }
                found = true;
                let passed = geo.ray[d as usize][king as usize] & !geo.ray[d as usize][over as usize] & !(1 << over);
                blockers &= passed | 1 << land;
                if blockers == 0 {
                    return Some(0);
                }
            }
        }
        found.then_some(blockers)
    }

    /// Where kings of the side to move could jump an enemy piece, found from the enemy
    /// pieces (each with a free square beyond it, looking back along the ray to the first
    /// piece): the empty squares a king put there could jump from, and the side's kings
    /// that can jump now. What a retrograde solver tests many king squares against at
    /// once, rather than searching four rays from each.
    pub(crate) fn king_jumps(&self) -> KingJumps {
        let geo = self.geo();
        let empty = self.empty_squares();
        let own_kings = self.side(self.turn) & self.kings;
        let enemy = self.side(self.turn.opposite());
        let flying = self.variant.king_captures == KingRange::Flying;
        let mut jumps = KingJumps { from_empty: 0, kings: 0 };
        // For each direction at once: the enemy pieces with a free square beyond them,
        // then the squares behind them a king jumps from (a flying king: the free run
        // back to the first piece), then the piece that ends each run.
        for d in Dir::ALL {
            let back = d.opposite();
            let jumpable = enemy & geo.shift(empty, back);
            if jumpable == 0 {
                continue;
            }
            let mut behind = geo.shift(jumpable, back) & empty;
            if flying {
                behind = geo.run_along(behind, back, empty);
            }
            jumps.from_empty |= behind;
            let stops = if flying { geo.shift(behind | jumpable, back) } else { geo.shift(jumpable, back) };
            jumps.kings |= own_kings & stops;
        }
        jumps
    }

    /// Whether the side to move's piece on `bit`, of `kind`, can capture (the test
    /// [`Position::has_capture`] makes for every piece).
    #[inline]
    pub(crate) fn piece_can_capture(&self, bit: u8, kind: PieceKind) -> bool {
        match kind {
            PieceKind::Man => self.capturing_men(1 << bit) != 0,
            PieceKind::King => self.king_can_jump(bit),
        }
    }

    /// What a retrograde solver needs of the moves: every legal move but the quiet king
    /// moves, written into `list` (cleared first; in [`Position::legal_moves_into`]'s
    /// order), and the number of quiet king moves, counted only. A quiet king move keeps
    /// the material and the men where they are, so a solver only counts it; in king
    /// endgames building those moves is most of the work of listing the moves.
    pub fn legal_moves_counting_king_steps(&self, list: &mut MoveList) -> usize {
        list.0.clear();
        self.captures_into(&mut list.0, true);
        if !list.0.is_empty() {
            return 0;
        }
        self.man_steps_into(&mut list.0);
        self.count_king_steps()
    }

    /// [`Position::legal_moves_counting_king_steps`] of a position its caller knows to
    /// have no capture ([`Position::has_capture`] false, tested already): the capture
    /// search is not made a second time.
    pub fn quiet_moves_counting_king_steps(&self, list: &mut MoveList) -> usize {
        debug_assert!(!self.has_capture(), "{} has a capture", self.fen());
        list.0.clear();
        self.man_steps_into(&mut list.0);
        self.count_king_steps()
    }

    /// [`Position::legal_moves_into`] of a position its caller knows to have no capture:
    /// every quiet move, without searching for captures again.
    pub fn legal_quiet_moves_into(&self, list: &mut MoveList) {
        debug_assert!(!self.has_capture(), "{} has a capture", self.fen());
        list.0.clear();
        self.quiet_moves_into(&mut list.0);
    }

    fn count_quiet_moves(&self) -> usize {
        let geo = self.geo();
        let empty = self.empty_squares();
        let men = self.side(self.turn) & !self.kings;
        let mut count = 0;
        for &d in forward(geo, self.turn) {
            count += (geo.shift(men, d) & empty).count_ones() as usize;
        }
        count + self.count_king_steps()
    }

    /// For each king of `color`, its square and the squares its quiet moves reach (bit
    /// `i`: the square of index `i`, as [`crate::SquareSets`] holds them), whoever is to
    /// move: what a caller that places those moves' positions by index needs, without
    /// making the moves.
    pub fn king_step_squares(&self, color: Color) -> impl Iterator<Item = (Square, u64)> + '_ {
        let geo = self.geo();
        let occupied = self.white | self.black;
        Bits(self.side(color) & self.kings).map(move |king| {
            let reached = self.king_reach(king, occupied);
            (Square(geo.square_of[king as usize]), self.variant.board.squares_of_bits(reached))
        })
    }

    /// The number of quiet moves of the side to move's kings.
    #[inline]
    fn count_king_steps(&self) -> usize {
        let occupied = self.white | self.black;
        Bits(self.side(self.turn) & self.kings).map(|king| self.king_reach(king, occupied).count_ones() as usize).sum()
    }

    /// The empty squares (bits) a king on `king` reaches by a quiet move, `occupied`
    /// the squares taken: along each ray up to the first piece (one square, where kings
    /// do not fly).
    #[inline]
    fn king_reach(&self, king: u8, occupied: u64) -> u64 {
        let geo = self.geo();
        let flying = self.variant.king_moves == KingRange::Flying;
        let mut reached = 0u64;
        for d in Dir::ALL {
            if flying {
                let ray = geo.ray[d as usize][king as usize];
                let stop = geo.first_along(king, d, occupied);
                reached |= if stop == OFF { ray } else { ray & !(geo.ray[d as usize][stop as usize] | 1 << stop) };
            } else {
                let sq = geo.step(king, d);
                if sq != OFF && occupied & (1 << sq) == 0 {
                    reached |= 1 << sq;
                }
            }
        }
        reached
    }

    fn quiet_moves_into(&self, out: &mut Vec<Move>) {
        self.man_steps_into(out);
        self.king_steps_into(out);
    }

    fn man_steps_into(&self, out: &mut Vec<Move>) {
        let geo = self.geo();
        let empty = self.empty_squares();
        let men = self.side(self.turn) & !self.kings;
        let promo = promotion_bits(geo, self.turn);
        for &d in forward(geo, self.turn) {
            for to in Bits(geo.shift(men, d) & empty) {
                let from = geo.step(to, d.opposite());
                let promotes = promo & (1 << to) != 0;
                out.push(Move::quiet(
                    geo.square_of[from as usize],
                    geo.square_of[to as usize],
                    PieceKind::Man,
                    promotes,
                ));
            }
        }
    }

    fn king_steps_into(&self, out: &mut Vec<Move>) {
        let geo = self.geo();
        let empty = self.empty_squares();
        let flying = self.variant.king_moves == KingRange::Flying;
        for king in Bits(self.side(self.turn) & self.kings) {
            for d in Dir::ALL {
                let mut sq = geo.step(king, d);
                while sq != OFF && empty & (1 << sq) != 0 {
                    out.push(Move::quiet(
                        geo.square_of[king as usize],
                        geo.square_of[sq as usize],
                        PieceKind::King,
                        false,
                    ));
                    if !flying {
                        break;
                    }
                    sq = geo.step(sq, d);
                }
            }
        }
    }

    #[inline]
    fn captures_into(&self, out: &mut Vec<Move>, merge_same_outcome: bool) {
        // Only pieces with a first jump (and allowed to capture) start a search.
        let capturers = self.capture_starters();
        if capturers != 0 {
            self.search_captures(capturers, out, merge_same_outcome);
        }
    }

    /// Every capture of the pieces in `capturers` (bits), into `out`.
    #[inline(never)]
    fn search_captures(&self, capturers: u64, out: &mut Vec<Move>, merge_same_outcome: bool) {
        let geo = self.geo();
        let color = self.turn;
        let mut search = CaptureSearch {
            geo,
            variant: &self.variant,
            enemy: self.side(color.opposite()),
            man_targets: self.man_targets(),
            kings: self.kings,
            king_steps: 0,
            empty: 0,
            promotion_row: promotion_bits(geo, color),
            man_dirs: man_capture_dirs(&self.variant, color),
            removed_at_once: self.variant.captured_pieces == CapturedPieces::RemovedAtOnce,
            from: 0,
            piece: PieceKind::Man,
            crowned: false,
            path: [0; MAX_CAPTURES],
            depth: 0,
            out,
            best: 0,
            merge_same_outcome,
        };
        for from in Bits(capturers) {
            search.from = from;
            // The mover leaves its origin: it may pass over or land on it again.
            search.empty = self.empty_squares() | (1 << from);
            if self.kings & (1 << from) != 0 {
                search.piece = PieceKind::King;
                search.king(from, 0, None, None);
            } else {
                search.piece = PieceKind::Man;
                search.man(from, 0);
            }
        }
    }
}

/// What [`Position::king_jumps`] finds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KingJumps {
    /// Empty squares from which a king of the side to move could jump.
    pub from_empty: u64,
    /// The side to move's kings that can jump.
    pub kings: u64,
}

struct CaptureSearch<'a> {
    geo: &'static Geometry,
    variant: &'a Variant,
    enemy: u64,
    /// The enemy pieces a man may jump.
    man_targets: u64,
    /// Kings of the position (for the Italian precedence).
    kings: u64,
    /// Bit `i`: the `i`-th piece jumped is a king (bits at and past `depth` are stale).
    king_steps: u32,
    /// Empty squares, the mover's origin included; captured pieces are not empty.
    empty: u64,
    promotion_row: u64,
    man_dirs: &'static [Dir],
    /// Jumped pieces leave at once (Turkish): their squares are free for the rest of the
    /// capture.
    removed_at_once: bool,
    from: u8,
    piece: PieceKind,
    /// A man crowned during this capture, going on as a king.
    crowned: bool,
    path: [u8; MAX_CAPTURES],
    depth: usize,
    out: &'a mut Vec<Move>,
    /// The best precedence key of the captures found so far (majority, Italian rules).
    best: u64,
    merge_same_outcome: bool,
}

impl CaptureSearch<'_> {
    /// The squares a piece may cross or land on, having jumped `captured`.
    #[inline(always)]
    fn free(&self, captured: u64) -> u64 {
        if self.removed_at_once {
            self.empty | captured
        } else {
            self.empty
        }
    }

    /// Extends a man's capture from `at`; returns whether any capture was possible.
    fn man(&mut self, at: u8, captured: u64) -> bool {
        let targets = self.man_targets & !captured;
        let free = self.free(captured);
        let from = 1u64 << at;
        let mut found = false;
        for &d in self.man_dirs {
            let over = self.geo.shift(from, d) & targets;
            let land_bit = self.geo.shift(over, d) & free;
            if land_bit == 0 {
                continue;
            }
            found = true;
            let land = land_bit.trailing_zeros() as u8;
            let captured = captured | over;
            self.push(land, over);
            if self.promotion_row & land_bit != 0 {
                match self.variant.crowning_in_capture {
                    CrowningInCapture::StaysMan => {
                        if !self.man(land, captured) {
                            self.leaf(land, captured, true);
                        }
                    }
                    CrowningInCapture::CrownAndContinue => {
                        self.crowned = true;
                        if !self.king(land, captured, Some(d), None) {
                            self.leaf(land, captured, true);
                        }
                        self.crowned = false;
                    }
                    CrowningInCapture::CrownAndStop => self.leaf(land, captured, true),
                }
            } else if !self.man(land, captured) {
                self.leaf(land, captured, false);
            }
            self.depth -= 1;
        }
        found
    }

    /// Extends a king's capture from `at`, having arrived moving in `came`; returns
    /// whether any capture was possible. `searched`: a direction whose captures from
    /// here were already found from an earlier landing square on the same ray (see
    /// below), only tested for.
    fn king(&mut self, at: u8, captured: u64, came: Option<Dir>, searched: Option<Dir>) -> bool {
        let mut found = false;
        // Squares from which a king captures along each direction, found when first
        // needed (see `goes_on` below).
        let mut jumps: [Option<u64>; 4] = [None; 4];
        for d in Dir::ALL {
            // Straight back lies the piece just jumped, which still blocks.
            if came == Some(d.opposite()) {
                continue;
            }
            let Some((over, landings)) = self.king_capture_in(at, captured, d) else {
                continue;
            };
            found = true;
            if searched == Some(d) {
                continue;
            }
            let before = captured;
            let captured = captured | (1 << over);
            let must_continue = self.variant.king_landing == KingLanding::MustContinue
                && self.variant.capture_choice != CaptureChoice::Majority
                && landings.into_iter().any(|l| self.king_can_capture(l, captured, d));
            // The landing squares from which the capture goes on; from the others it
            // ends there, without a search from each. Along `d` every landing meets the
            // same next piece, so one test answers for all of them. Across the ray, a
            // landing goes on where the first piece along a crossing ray is an enemy
            // with a free square behind it: the squares behind such enemies, found once
            // per direction for every direction of this square alike, so from the
            // pieces taken before this jump. (Unless captured pieces leave at once: then
            // `over` itself would unblock rays.) The piece just taken lies on this ray,
            // never on a crossing one through a landing, so it changes nothing there.
            let goes_on = if self.removed_at_once || self.king_capture_in(landings.nearest(), captured, d).is_some() {
                !0
            } else {
                let mut across = 0;
                for p in Dir::ALL {
                    if p != d && p != d.opposite() {
                        across |= *jumps[p as usize].get_or_insert_with(|| self.king_jumps_along(before, p));
                    }
                }
                across
            };
            for (i, land) in landings.into_iter().enumerate() {
                self.push(land, 1 << over);
                // Going on along `d`, every landing square meets the same next piece and
                // the same squares beyond it: the captures that way from the second
                // landing on repeat those from the first but for the square passed, the
                // same outcome, merged. Searched once (the first's path is the one kept).
                let searched = (self.merge_same_outcome && i > 0).then_some(d);
                let went_on = goes_on & (1 << land) != 0 && self.king(land, captured, Some(d), searched);
                if !went_on && !must_continue {
                    self.leaf(land, captured, self.crowned);
                }
                self.depth -= 1;
            }
        }
        found
    }

    /// The enemy piece a king on `at` can capture in direction `d`, with its landing squares.
    fn king_capture_in(&self, at: u8, captured: u64, d: Dir) -> Option<(u8, Landings)> {
        let flying = self.variant.king_captures == KingRange::Flying;
        let blocked = !self.free(captured);
        // The first square that is not free, found from the ray in one step.
        let over = if flying { self.geo.first_along(at, d, blocked) } else { self.geo.step(at, d) };
        if over == OFF || self.enemy & !captured & (1 << over) == 0 {
            return None;
        }
        let squares = if flying {
            // Every square beyond up to the next piece.
            let stop = self.geo.first_along(over, d, blocked);
            let beyond = self.geo.ray[d as usize][over as usize];
            if stop == OFF {
                beyond
            } else {
                beyond & !(self.geo.ray[d as usize][stop as usize] | 1 << stop)
            }
        } else {
            let land = self.geo.step(over, d);
            if land != OFF && blocked & (1 << land) == 0 {
                1 << land
            } else {
                0
            }
        };
        (squares != 0).then_some((over, Landings { squares, dir: d }))
    }

    /// The squares from which a king would capture along `p`, the pieces in `captured`
    /// taken (and still in the way): those along the ray back from an enemy piece still
    /// on the board, up to the first piece, where the square beyond that enemy is free.
    fn king_jumps_along(&self, captured: u64, p: Dir) -> u64 {
        let free = self.free(captured);
        let back = p.opposite();
        // The enemy pieces with a free square beyond, then the free squares behind them
        // (a flying king: the whole free run, by a fill along the ray).
        let jumpable = self.enemy & !captured & self.geo.shift(free, back);
        let next = self.geo.shift(jumpable, back) & free;
        if self.variant.king_captures == KingRange::Flying {
            self.geo.run_along(next, back, free)
        } else {
            next
        }
    }

    fn king_can_capture(&self, at: u8, captured: u64, came: Dir) -> bool {
        Dir::ALL.into_iter().filter(|&d| d != came.opposite()).any(|d| self.king_capture_in(at, captured, d).is_some())
    }

    /// Records a jump over the piece on `over` (a bit) landing on `land`.
    fn push(&mut self, land: u8, over: u64) {
        self.path[self.depth] = self.geo.square_of[land as usize];
        let step = 1u32 << self.depth;
        self.king_steps = if self.kings & over != 0 { self.king_steps | step } else { self.king_steps & !step };
        self.depth += 1;
    }

    /// The key a capture is ranked by where the rules rank captures (higher first).
    fn precedence(&self, captured: u64) -> Option<u64> {
        let count = captured.count_ones() as u64;
        match self.variant.capture_choice {
            CaptureChoice::Free | CaptureChoice::KingFirst => None,
            CaptureChoice::Majority => Some(count),
            CaptureChoice::Italian => {
                let by_king = (self.piece == PieceKind::King || self.crowned) as u64;
                let kings = (captured & self.kings).count_ones() as u64;
                // Reversed, the earliest king jumped is the highest bit: comparing the
                // numbers compares the king positions in jump order.
                let steps = (self.king_steps & ((1u64 << self.depth) - 1) as u32).reverse_bits() as u64;
                Some(count << 40 | by_king << 39 | kings << 32 | steps)
            }
        }
    }

    fn leaf(&mut self, to: u8, captured: u64, promotes: bool) {
        if let Some(key) = self.precedence(captured) {
            if key < self.best {
                return;
            }
            if key > self.best {
                self.out.clear();
                self.best = key;
            }
        }
        let mv = Move {
            from: self.geo.square_of[self.from as usize],
            to: self.geo.square_of[to as usize],
            piece: self.piece,
            promotes,
            path_len: self.depth as u8,
            captured,
            path: self.path,
        };
        if self.merge_same_outcome && self.out.iter().any(|m| m.same_outcome(&mv)) {
            return;
        }
        self.out.push(mv);
    }
}

/// Landing squares behind one captured piece: bits on one ray, in direction `dir` from
/// it; iterated nearest first. A mask, not a list: it is made and read in registers.
#[derive(Clone, Copy)]
struct Landings {
    squares: u64,
    dir: Dir,
}

impl Landings {
    /// The landing square next to the captured piece.
    #[inline]
    fn nearest(self) -> u8 {
        self.into_iter().next().expect("a capture has a landing square")
    }
}

impl IntoIterator for Landings {
    type Item = u8;
    type IntoIter = LandingsIter;
    #[inline]
    fn into_iter(self) -> LandingsIter {
        LandingsIter(self)
    }
}

/// [`Landings`] nearest first.
struct LandingsIter(Landings);

impl Iterator for LandingsIter {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        let Landings { squares, dir } = self.0;
        if squares == 0 {
            return None;
        }
        let bit = crate::geometry::nearest_along(dir, squares);
        self.0.squares &= !(1u64 << bit);
        Some(bit)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Color, PieceKind, Position, Setup, SetupPiece, Variant};

    /// Up to `most` pieces on distinct squares, about half kings, men off their
    /// promotion rows, from `seed` (splitmix64).
    fn random_position(variant: Variant, mut seed: u64, most: u64) -> Position {
        let mut next = |n: u64| {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        };
        let squares = variant.squares() as u64;
        let turn = if next(2) == 0 { Color::White } else { Color::Black };
        let mut setup = Setup { turn: Some(turn), pieces: Vec::new() };
        let mut used = vec![false; squares as usize];
        for i in 0..2 + next(most - 1) {
            let color = if i % 2 == 0 { Color::White } else { Color::Black };
            let kind = if next(2) == 0 { PieceKind::King } else { PieceKind::Man };
            let s = next(squares);
            if used[s as usize] || (kind == PieceKind::Man && variant.promotion_row(color).contains(&(s as u8))) {
                continue;
            }
            used[s as usize] = true;
            setup.pieces.push(SetupPiece { color, kind, square: s as u32 + 1 });
        }
        Position::from_setup(variant, &setup).expect("a legal placement")
    }

    /// `king_jumps` finds, for all squares at once, what `king_can_jump` finds for one
    /// king: checked square by square, with a king put on each empty square in turn.
    #[test]
    fn king_jumps_are_the_squares_a_king_could_jump_from() {
        for variant in Variant::ALL {
            for seed in 0..3_000 {
                let p = random_position(variant, seed, 16);
                let jumps = p.king_jumps();
                let geo = p.geo();
                let own = p.side(p.turn);
                assert_eq!(jumps.from_empty & !p.empty_squares(), 0, "{}: off the empty squares", p.fen());
                assert_eq!(jumps.kings & !(own & p.kings), 0, "{}: not a king of the side to move", p.fen());
                for bit in crate::geometry::Bits(geo.mask) {
                    let at = 1u64 << bit;
                    if p.empty_squares() & at != 0 {
                        let mut with_king = p;
                        *with_king.side_mut(p.turn) |= at;
                        with_king.kings |= at;
                        let can = with_king.king_can_jump(bit);
                        assert_eq!(jumps.from_empty & at != 0, can, "{}: square bit {bit}", p.fen());
                    } else if own & p.kings & at != 0 {
                        assert_eq!(jumps.kings & at != 0, p.king_can_jump(bit), "{}: king bit {bit}", p.fen());
                    } else {
                        assert_eq!((jumps.from_empty | jumps.kings) & at, 0, "{}: bit {bit}", p.fen());
                    }
                }
            }
        }
    }
    /// `king_step_squares` gives, king by king and for either side, the squares of that
    /// king's quiet moves as the move list has them.
    #[test]
    fn king_step_squares_are_the_quiet_king_moves() {
        for variant in Variant::ALL {
            for seed in 0..3_000 {
                let p = random_position(variant, seed, 16);
                for color in [Color::White, Color::Black] {
                    let side = p.with_turn(color);
                    let mut listed = Vec::new();
                    side.king_steps_into(&mut listed);
                    let mut kings = 0;
                    for (king, squares) in p.king_step_squares(color) {
                        kings += 1;
                        let expected = listed
                            .iter()
                            .filter(|mv| mv.from() == king)
                            .fold(0u64, |set, mv| set | 1 << mv.to().index());
                        assert_eq!(squares, expected, "{} {color:?}: king on {}", p.fen(), king.number());
                        assert!(listed.iter().all(|mv| mv.piece() == PieceKind::King));
                    }
                    assert_eq!(kings, (side.side(color) & side.kings).count_ones(), "{}", p.fen());
                }
            }
        }
    }
}
