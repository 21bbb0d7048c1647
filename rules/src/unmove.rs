//! Unmove generation: the predecessors of a position, for retrograde analysis.
//!
//! The reverse search works on the geometry alone (it never asks the forward generator
//! which move leads to the position); only rule-level conditions are checked forward:
//! a quiet move needs a position without captures, a capture under the majority rule
//! must take the most pieces, and under the other precedence rules (Czech, Italian) or
//! where men may not take kings, a capture must be among the earlier position's moves. Property tests check it against the forward generator
//! both ways.

use crate::geometry::{Bits, Dir, Geometry, OFF};
use crate::movegen::{forward, promotion_bits, Move, MAX_CAPTURES};
use crate::position::Position;
use crate::variant::{
    CaptureChoice, CapturedPieces, Color, CrowningInCapture, KingLanding, KingRange, PieceKind, Square,
};

/// A position one move earlier, with the move that leads from it to the given position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Predecessor {
    /// The earlier position (the other side to move).
    pub position: Position,
    /// The move from `position` to the given position.
    pub mv: Move,
}

/// A quiet move taken back: what [`Position::for_each_quiet_predecessor`] hands over
/// beside the earlier position. Four bytes where a [`Move`] has room for a capture's
/// path: a solver's inner loop takes back billions of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietStep {
    /// Where the piece stood.
    pub from: Square,
    /// Where it went.
    pub to: Square,
    /// The piece as it stood (a man that crowned on `to` is a man).
    pub piece: PieceKind,
    /// Whether the step crowned the man.
    pub promotes: bool,
}

impl QuietStep {
    /// The move itself.
    pub fn mv(&self) -> Move {
        Move::quiet(self.from.0, self.to.0, self.piece, self.promotes)
    }
}

/// Which quiet moves [`Position::for_each_quiet_predecessor`] takes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmoves {
    /// Men's steps that crown nothing.
    pub men: bool,
    /// Kings' moves.
    pub kings: bool,
    /// Men's steps onto the promotion row (the king there un-crowned).
    pub crownings: bool,
}

impl Unmoves {
    /// Every quiet move.
    pub const ALL: Unmoves = Unmoves { men: true, kings: true, crownings: true };
    /// The moves that keep the material: a crowning changes it.
    pub const KEEPING_MATERIAL: Unmoves = Unmoves { men: true, kings: true, crownings: false };
    /// Kings' moves only: they keep the men where they are.
    pub const KINGS: Unmoves = Unmoves { men: false, kings: true, crownings: false };
}

/// How many pieces of the side to move an un-capture restores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Restore {
    /// Men restored.
    pub men: u32,
    /// Kings restored.
    pub kings: u32,
}

impl Position {
    /// Predecessors by quiet moves: a man one step back, a king back along a diagonal,
    /// a king on its promotion row un-crowned to a man one step back. Only positions
    /// without a capture for the mover count (capturing is compulsory).
    pub fn quiet_predecessors(&self) -> Vec<Predecessor> {
        let mut out = Vec::new();
        self.for_each_quiet_predecessor(Unmoves::ALL, |position, step| {
            out.push(Predecessor { position: *position, mv: step.mv() })
        });
        out
    }

    /// The quiet predecessors of the kinds `which` names, handed to `visit` one by one
    /// (what a retrograde solver's inner loop calls, without allocating).
    pub fn for_each_quiet_predecessor(&self, which: Unmoves, mut visit: impl FnMut(&Position, QuietStep)) {
        let geo = self.geo();
        let mover = self.turn.opposite();
        let own = self.side(mover);
        let empty = self.empty_squares();
        let backward = forward(geo, mover.opposite());
        let promo = promotion_bits(geo, mover);
        // The piece that moved is put back on each square it may have come from; the
        // mover must have had no capture there. An own piece only blocks the others'
        // captures: with the piece off the board, the squares that would block all of
        // them are found once; a square outside them leaves a capture, one inside leaves
        // only the piece's own captures to test.
        let without = |to: u8| {
            let mut q = self.with_turn(mover);
            *q.side_mut(mover) = own & !(1u64 << to);
            q.kings &= !(1u64 << to);
            q
        };
        // `king_jumps`: where a king put back would have a capture of its own (kings).
        let mut add = |base: &Position, blockers: Option<u64>, king_jumps: u64, from: u8, to: u8, was: PieceKind| {
            if blockers.is_some_and(|b| b & (1u64 << from) == 0) {
                return;
            }
            let mut q = *base;
            *q.side_mut(mover) |= 1u64 << from;
            let can_capture = match was {
                PieceKind::King => {
                    q.kings |= 1u64 << from;
                    king_jumps & (1u64 << from) != 0
                }
                PieceKind::Man => q.piece_can_capture(from, was),
            };
            if !can_capture {
                let promotes = was == PieceKind::Man && self.kings & (1u64 << to) != 0;
                let step = QuietStep {
                    from: Square(geo.square_of[from as usize]),
                    to: Square(geo.square_of[to as usize]),
                    piece: was,
                    promotes,
                };
                visit(&q, step);
            }
        };
        if which.men {
            for to in Bits(own & !self.kings) {
                let base = without(to);
                let blockers = base.capture_blockers();
                for &d in backward {
                    let from = geo.step(to, d);
                    if from != OFF && empty & (1 << from) != 0 {
                        add(&base, blockers, 0, from, to, PieceKind::Man);
                    }
                }
            }
        }
        let flying = self.variant.king_moves == KingRange::Flying;
        for to in Bits(own & self.kings) {
            let base = without(to);
            let jumps = base.king_jumps();
            let blockers = base.capture_blockers_of(jumps.kings);
            if which.kings {
                let king_jumps = jumps.from_empty;
                for d in Dir::ALL {
                    let mut from = geo.step(to, d);
                    while from != OFF && empty & (1 << from) != 0 {
                        add(&base, blockers, king_jumps, from, to, PieceKind::King);
                        if !flying {
                            break;
                        }
                        from = geo.step(from, d);
                    }
                }
            }
            if which.crownings && promo & (1 << to) != 0 {
                for &d in backward {
                    let from = geo.step(to, d);
                    // From off the row: a man on it would be a king (a sideways step
                    // along the row, on the orthogonal board, is no un-crowning).
                    if from != OFF && empty & (1 << from) != 0 && promo & (1 << from) == 0 {
                        add(&base, blockers, 0, from, to, PieceKind::Man);
                    }
                }
            }
        }
    }

    /// Predecessors by captures that took exactly `restore` pieces of the side to move.
    pub fn capture_predecessors(&self, restore: Restore) -> Vec<Predecessor> {
        let mut out = Vec::new();
        let total = restore.men + restore.kings;
        if total == 0 || total as usize > MAX_CAPTURES {
            return out;
        }
        let mover = self.turn.opposite();
        let geo = self.geo();
        for to in Bits(self.side(mover)) {
            let mut search = ReverseCapture {
                p: self,
                geo,
                mover,
                to,
                restore,
                passable: self.empty_squares() | (1 << to),
                promo: promotion_bits(geo, mover),
                at_once: self.variant.captured_pieces == CapturedPieces::RemovedAtOnce,
                landings: Vec::new(),
                last: None,
                out: &mut out,
            };
            let final_king = self.kings & (1 << to) != 0;
            search.arrive(to, if final_king { PieceKind::King } else { PieceKind::Man }, 0, 1 << to);
            if final_king && search.promo & (1 << to) != 0 {
                // A man that ended its capture on the far row and was crowned there.
                search.arrive(to, PieceKind::Man, 0, 1 << to);
            }
        }
        out
    }

    /// Every predecessor that restores at most `max_restored` captured pieces.
    pub fn predecessors(&self, max_restored: u32) -> Vec<Predecessor> {
        let mut out = self.quiet_predecessors();
        for total in 1..=max_restored {
            for kings in 0..=total {
                out.extend(self.capture_predecessors(Restore { men: total - kings, kings }));
            }
        }
        out
    }
}

struct ReverseCapture<'a> {
    p: &'a Position,
    geo: &'static Geometry,
    mover: Color,
    to: u8,
    restore: Restore,
    /// Squares the mover may cross: empty in the position, and its final square.
    passable: u64,
    promo: u64,
    /// Jumped pieces left at once (Turkish): the search is relaxed and every candidate
    /// checked against the forward generator.
    at_once: bool,
    /// Landing bits, last first.
    landings: Vec<u8>,
    /// The last capture: piece jumped, direction, kind of the capturing piece.
    last: Option<(u8, Dir, PieceKind)>,
    out: &'a mut Vec<Predecessor>,
}

impl ReverseCapture<'_> {
    /// Undoes the capture that landed on `at`, made by a piece of kind `kind`. `restored`
    /// holds the pieces jumped by later captures, `crossed` the squares later captures
    /// crossed or landed on (a piece jumped earlier could not have stood there).
    fn arrive(&mut self, at: u8, kind: PieceKind, restored: u64, crossed: u64) {
        let (long, dirs): (bool, &[Dir]) = match kind {
            PieceKind::King => (self.p.variant.king_captures == KingRange::Flying, &Dir::ALL),
            PieceKind::Man if self.p.variant.men_capture_backward => (false, &Dir::ALL),
            PieceKind::Man => (false, forward(self.geo, self.mover)),
        };
        let geo = self.geo;
        for &d in dirs {
            let back = d.opposite();
            let free = self.passable & !restored;
            let mut over = geo.step(at, back);
            let mut between = 0u64;
            while over != OFF && free & (1 << over) != 0 {
                let ob = 1u64 << over;
                // Pieces removed at once (Turkish) free their squares: a piece jumped
                // earlier may stand where the capture later passed or ended.
                if self.at_once || (over != self.to && crossed & ob == 0) {
                    let mut from = geo.step(over, back);
                    let mut approach = 0u64;
                    while from != OFF && free & !ob & (1 << from) != 0 {
                        let now_crossed = crossed | between | approach | (1 << at) | (1 << from);
                        self.landings.push(at);
                        let outer = self.last.is_none();
                        if outer {
                            self.last = Some((over, d, kind));
                        }
                        self.step_back(from, kind, restored | ob, now_crossed);
                        if outer {
                            self.last = None;
                        }
                        self.landings.pop();
                        if !long {
                            break;
                        }
                        approach |= 1 << from;
                        from = geo.step(from, back);
                    }
                }
                if !long {
                    break;
                }
                between |= ob;
                over = geo.step(over, back);
            }
        }
    }

    /// The capture before has been undone; the piece stood on `at` with `kind`.
    fn step_back(&mut self, at: u8, kind: PieceKind, restored: u64, crossed: u64) {
        let n = restored.count_ones();
        let target = self.restore.men + self.restore.kings;
        if n == target {
            self.finish(at, kind, restored);
            return;
        }
        let on_promo = self.promo & (1 << at) != 0;
        let crowning = self.p.variant.crowning_in_capture;
        // `at` was a landing in the middle of the capture: a man there must not have been
        // crowned (or stopped) by it.
        if !(kind == PieceKind::Man && on_promo && crowning != CrowningInCapture::StaysMan) {
            self.arrive(at, kind, restored, crossed);
        }
        if kind == PieceKind::King && on_promo && crowning == CrowningInCapture::CrownAndContinue {
            // A man crowned on landing here, going on as a king.
            self.arrive(at, PieceKind::Man, restored, crossed);
        }
    }

    fn finish(&mut self, from: u8, kind: PieceKind, restored: u64) {
        if kind == PieceKind::Man && self.promo & (1 << from) != 0 {
            return;
        }
        let Some((last_over, last_dir, last_kind)) = self.last else { return };
        if !self.at_once && self.ends_too_early(last_over, last_dir, last_kind, restored) {
            return;
        }
        self.record(from, kind, restored);
    }

    /// Whether the capture could have gone on from `to` (or a flying king had to land
    /// elsewhere to go on): then it did not end there.
    fn ends_too_early(&self, last_over: u8, last_dir: Dir, last_kind: PieceKind, restored: u64) -> bool {
        let p = self.p;
        let enemy = p.side(self.mover.opposite());
        let empty_at_end = p.empty_squares() & !restored;
        // The capture must end on `to`: no further capture from there.
        let to_on_promo = self.promo & (1 << self.to) != 0;
        let checked_as = match (last_kind, p.variant.crowning_in_capture) {
            (PieceKind::King, _) => Some(PieceKind::King),
            (PieceKind::Man, CrowningInCapture::StaysMan) => Some(PieceKind::Man),
            (PieceKind::Man, CrowningInCapture::CrownAndContinue) if to_on_promo => Some(PieceKind::King),
            (PieceKind::Man, CrowningInCapture::CrownAndStop) if to_on_promo => None,
            (PieceKind::Man, _) => Some(PieceKind::Man),
        };
        if let Some(k) = checked_as
            && self.can_capture(self.to, k, enemy, empty_at_end)
        {
            return true;
        }
        // A flying king must have landed where it could go on, if it could anywhere.
        if last_kind == PieceKind::King
            && p.variant.king_captures == KingRange::Flying
            && p.variant.king_landing == KingLanding::MustContinue
            && p.variant.capture_choice != CaptureChoice::Majority
        {
            let empty_then = (p.empty_squares() | (1 << self.to)) & !restored;
            let mut l = self.geo.step(last_over, last_dir);
            while l != OFF && empty_then & (1 << l) != 0 {
                if l != self.to && self.can_capture(l, PieceKind::King, enemy, empty_then) {
                    return true;
                }
                l = self.geo.step(l, last_dir);
            }
        }
        false
    }

    /// Records the predecessors of a capture from `from` that took `restored`, for every
    /// way the restored pieces may have been kings.
    fn record(&mut self, from: u8, kind: PieceKind, restored: u64) {
        let p = self.p;
        let mut mv_path = [0u8; MAX_CAPTURES];
        for (i, &b) in self.landings.iter().rev().enumerate() {
            mv_path[i] = self.geo.square_of[b as usize];
        }
        let final_king = p.kings & (1 << self.to) != 0;
        let promotes = kind == PieceKind::Man && final_king;
        let mv = Move::capture(
            self.geo.square_of[from as usize],
            self.geo.square_of[self.to as usize],
            kind,
            promotes,
            restored,
            &mv_path[..self.landings.len()],
        );
        // Every way of choosing which restored pieces were kings.
        let squares: Vec<u8> = Bits(restored).collect();
        let victim = self.mover.opposite();
        let victim_promo = promotion_bits(self.geo, victim);
        for king_mask in 0u64..(1 << squares.len()) {
            if king_mask.count_ones() != self.restore.kings {
                continue;
            }
            let mut kings_restored = 0u64;
            for (i, &s) in squares.iter().enumerate() {
                if king_mask & (1 << i) != 0 {
                    kings_restored |= 1 << s;
                }
            }
            if (restored & !kings_restored) & victim_promo != 0 {
                continue;
            }
            let mut q = p.with_turn(self.mover);
            let (fb, tb) = (1u64 << from, 1u64 << self.to);
            *q.side_mut(self.mover) = (p.side(self.mover) & !tb) | fb;
            *q.side_mut(victim) |= restored;
            q.kings = (q.kings & !tb) | kings_restored;
            if kind == PieceKind::King {
                q.kings |= fb;
            }
            let allowed = match p.variant.capture_choice {
                _ if !p.variant.men_capture_kings || self.at_once => {
                    q.legal_moves().iter().any(|m| m.same_outcome(&mv))
                }
                CaptureChoice::Free => true,
                CaptureChoice::Majority => q.max_capture_count() == restored.count_ones(),
                CaptureChoice::KingFirst | CaptureChoice::Italian => {
                    q.legal_moves().iter().any(|m| m.same_outcome(&mv))
                }
            };
            if !allowed {
                continue;
            }
            let pred = Predecessor { position: q, mv };
            if !self.out.contains(&pred) {
                self.out.push(pred);
            }
        }
    }

    /// Whether a piece of `kind` on `at` could capture one of `enemy` (an independent,
    /// one-step check; the forward generator is not used here on purpose).
    fn can_capture(&self, at: u8, kind: PieceKind, enemy: u64, empty: u64) -> bool {
        let geo = self.geo;
        let enemy =
            if kind == PieceKind::Man && !self.p.variant.men_capture_kings { enemy & !self.p.kings } else { enemy };
        let (long, dirs): (bool, &[Dir]) = match kind {
            PieceKind::King => (self.p.variant.king_captures == KingRange::Flying, &Dir::ALL),
            PieceKind::Man if self.p.variant.men_capture_backward => (false, &Dir::ALL),
            PieceKind::Man => (false, forward(self.geo, self.mover)),
        };
        dirs.iter().any(|&d| {
            let mut sq = geo.step(at, d);
            while long && sq != OFF && empty & (1 << sq) != 0 {
                sq = geo.step(sq, d);
            }
            if sq == OFF || enemy & (1 << sq) == 0 {
                return false;
            }
            let land = geo.step(sq, d);
            land != OFF && empty & (1 << land) != 0
        })
    }
}
