//! An independent solver for the draw rules, to prove the rule tables.
//!
//! It shares nothing with the table path but the move generator: no `DrawRules`, no
//! `Counters`, no `MaterialIndex`, no retrograde pass. Each rule set's counting is written
//! out again from the seeds' text, the state of a game is (position, counts), and because
//! every count grows by one each ply unless an irreversible move resets it, the graph of
//! these states has no cycle: a plain memoised minimax over it gives the exact verdict of
//! every position for every counter value.
//!
//! Positions are addressed by ranking each piece group's squares over the whole board
//! (with unused holes), and only the side-to-move view is stored (the colour flip keeps
//! every count).

use std::rc::Rc;

use kabe_probe::{Color, PieceKind, Position, Variant, Wld};

/// The rule sets the brute force knows, written from the seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BruteRules {
    /// FMJD article 6; `newer` keeps the 6.3 count through removals (seeds/001).
    Fmjd {
        /// The newer text.
        newer: bool,
        /// The `fmjd-6.4-stands` reading: the 6.4 count also survives the lone king
        /// taking the king of king and man against king.
        art64_stands: bool,
    },
    /// USSR 1953: 30 moves without material change, `kings` kings against a lone king
    /// drawn after the strong side's 18th move.
    Ussr {
        /// 3 on the 8x8 board, 4 on the 10x10 board.
        kings: u8,
        /// The text's reading: the deadline stands until the lone king is taken, whatever
        /// the lone king takes first (`false`: `ussr1953-count-ends`).
        deadline_stands: bool,
    },
}

/// A state of the counts, in the brute force's own terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Clock {
    /// FMJD: plies in which only kings moved and nothing was captured.
    KingsOnly(u8),
    /// FMJD 6.3 running: plies since the material arose.
    Art63(u8),
    /// FMJD 6.4 running: plies since the material arose.
    Art64(u8),
    /// USSR: plies without a change of material.
    Quiet(u8),
    /// USSR: moves the strong side has made since kings against the lone king arose, and
    /// whether the strong side is to move (with a king against a king nothing else says
    /// whose deadline it is).
    StrongMoves(u8, bool),
}

/// (men, kings) of each side, side to move first.
pub(crate) type Material = [(u8, u8); 2];

pub(crate) fn material(position: &Position) -> Material {
    let me = position.turn();
    let count = |c: Color| (position.count(c, PieceKind::Man) as u8, position.count(c, PieceKind::King) as u8);
    [count(me), count(me.opposite())]
}

impl BruteRules {
    /// FMJD: which of 6.3 / 6.4 the material is.
    fn fmjd_article(m: Material) -> Option<u8> {
        for (strong, weak) in [(m[0], m[1]), (m[1], m[0])] {
            if weak != (0, 1) {
                continue;
            }
            match strong {
                (0, 3) | (1, 2) | (2, 1) => return Some(63),
                (0, 2) | (1, 1) | (0, 1) => return Some(64),
                _ => {}
            }
        }
        None
    }

    /// USSR: the strong side (0 = side to move) when it has the kings against a lone king.
    fn ussr_strong(kings: u8, m: Material) -> Option<usize> {
        if m[0] == (0, kings) && m[1] == (0, 1) {
            Some(0)
        } else if m[1] == (0, kings) && m[0] == (0, 1) {
            Some(1)
        } else {
            None
        }
    }

    /// The counts a game starting from a position of this material has.
    pub fn start(self, m: Material) -> Clock {
        match self {
            BruteRules::Fmjd { .. } => match BruteRules::fmjd_article(m) {
                Some(63) => Clock::Art63(0),
                Some(_) => Clock::Art64(0),
                None => Clock::KingsOnly(0),
            },
            BruteRules::Ussr { kings, .. } => match BruteRules::ussr_strong(kings, m) {
                Some(strong) => Clock::StrongMoves(0, strong == 0),
                None => Clock::Quiet(0),
            },
        }
    }

    /// USSR, deadline standing: which sides can be the strong one of a deadline carried
    /// into material `m` (after the lone king took kings): kings only, fewer than `kings`,
    /// against a lone king. `[side to move can be strong, the other can]`.
    fn ussr_carried(kings: u8, m: Material) -> [bool; 2] {
        let lone = (0, 1);
        let fewer = |s: (u8, u8)| s.0 == 0 && s.1 >= 1 && s.1 < kings;
        [m[1] == lone && fewer(m[0]), m[0] == lone && fewer(m[1])]
    }

    /// FMJD 6.4 standing: man against king carries a running 6.4 count.
    fn art64_carried(m: Material) -> bool {
        (m[0] == (0, 1) && m[1] == (1, 0)) || (m[1] == (0, 1) && m[0] == (1, 0))
    }

    /// Every counter state a position of this material can have.
    pub(crate) fn states(self, m: Material) -> Vec<Clock> {
        match self {
            BruteRules::Fmjd { newer, art64_stands } => {
                let mut out: Vec<Clock> = match BruteRules::fmjd_article(m) {
                    Some(63) => (0..=32).map(Clock::Art63).collect(),
                    Some(_) => (0..=10).map(Clock::Art64).collect(),
                    None => (0..=50).map(Clock::KingsOnly).collect(),
                };
                // The newer 6.3 count survives every capture: any material with a lone king
                // and at most three pieces against it may carry it.
                let lone_king = m[0] == (0, 1) || m[1] == (0, 1);
                let small = m[0].0 + m[0].1 <= 3 && m[1].0 + m[1].1 <= 3;
                if newer && lone_king && small && BruteRules::fmjd_article(m) != Some(63) {
                    out.extend((0..=32).map(Clock::Art63));
                }
                if art64_stands && BruteRules::art64_carried(m) {
                    out.extend((0..=10).map(Clock::Art64));
                }
                out
            }
            BruteRules::Ussr { kings, deadline_stands } => match BruteRules::ussr_strong(kings, m) {
                Some(strong) => (0..=18).map(|n| Clock::StrongMoves(n, strong == 0)).collect(),
                None => {
                    let mut out: Vec<Clock> = (0..=60).map(Clock::Quiet).collect();
                    if deadline_stands {
                        let carried = BruteRules::ussr_carried(kings, m);
                        for (side, can) in carried.into_iter().enumerate() {
                            if can {
                                out.extend((0..=18).map(|n| Clock::StrongMoves(n, side == 0)));
                            }
                        }
                    }
                    out
                }
            },
        }
    }

    /// Whether the counts have drawn the game (when the side to move can still move).
    pub(crate) fn expired(self, clock: Clock) -> bool {
        matches!(
            clock,
            Clock::KingsOnly(50) | Clock::Art63(32) | Clock::Art64(10) | Clock::Quiet(60) | Clock::StrongMoves(18, _)
        )
    }

    /// The counts after a move to a position of material `after` (side to move first: seen
    /// from the other side).
    pub(crate) fn next(self, clock: Clock, capture: bool, man_moved: bool, promotion: bool, after: Material) -> Clock {
        let material_changed = capture || promotion;
        match self {
            BruteRules::Fmjd { newer, art64_stands } => {
                let started = || match BruteRules::fmjd_article(after) {
                    Some(63) => Clock::Art63(0),
                    Some(_) => Clock::Art64(0),
                    None => Clock::KingsOnly(0),
                };
                match clock {
                    // 6.2: "only kings were moved and no capture was made".
                    Clock::KingsOnly(n) if !material_changed => {
                        Clock::KingsOnly(if capture || man_moved { 0 } else { n + 1 })
                    }
                    Clock::KingsOnly(_) => started(),
                    // 6.3 newer: "the original count stays in force" whatever is removed.
                    Clock::Art63(n) if newer => Clock::Art63(n + 1),
                    Clock::Art63(n) if !material_changed || BruteRules::fmjd_article(after) == Some(63) => {
                        Clock::Art63(n + 1)
                    }
                    Clock::Art64(n)
                        if !material_changed
                            || BruteRules::fmjd_article(after) == Some(64)
                            || (art64_stands && BruteRules::art64_carried(after)) =>
                    {
                        Clock::Art64(n + 1)
                    }
                    _ => started(),
                }
            }
            BruteRules::Ussr { kings, deadline_stands } => match clock {
                Clock::Quiet(n) if !material_changed => Clock::Quiet(n + 1),
                // The strong side's moves count; after the move the other side is to move.
                Clock::StrongMoves(m, strong_moves) if !material_changed => {
                    Clock::StrongMoves(if strong_moves { m + 1 } else { m }, !strong_moves)
                }
                // The lone king took a king: the deadline stands (the strong side, which
                // did not move, is to move next).
                Clock::StrongMoves(m, false) if deadline_stands && BruteRules::ussr_carried(kings, after)[0] => {
                    Clock::StrongMoves(m, true)
                }
                _ => match BruteRules::ussr_strong(kings, after) {
                    Some(strong) => Clock::StrongMoves(0, strong == 0),
                    None => Clock::Quiet(0),
                },
            },
        }
    }
}

/// Values of one material: per address, one byte per counter state.
struct MaterialValues {
    states: usize,
    /// Slot of each counter state (by `clock_key`), `NO_SLOT` where it cannot occur.
    slot: Vec<u16>,
    values: Vec<u8>,
}

const NO_SLOT: u16 = u16::MAX;

pub(crate) fn clock_key(clock: Clock) -> usize {
    let (kind, n) = match clock {
        Clock::KingsOnly(n) => (0, n),
        Clock::Art63(n) => (1, n),
        Clock::Art64(n) => (2, n),
        Clock::Quiet(n) => (3, n),
        Clock::StrongMoves(n, false) => (4, n),
        Clock::StrongMoves(n, true) => (5, n),
    };
    kind * 64 + n as usize
}

/// One legal move, as the counts see it, with where it leads.
struct Edge {
    child: Position,
    after: Material,
    address: u32,
    capture: bool,
    man_moved: bool,
    promotion: bool,
}

/// The moves of every position met so far, per material and address. Most of the brute
/// force's work would otherwise be generating the same moves once per counter state.
type MoveCache = Vec<Option<Vec<Option<Rc<[Edge]>>>>>;

/// Materials are small (at most 7 of each kind per side): a dense key instead of a hash,
/// which the profile showed taking a third of the time.
pub(crate) fn material_key(m: Material) -> usize {
    assert!(m.iter().all(|&(men, kings)| men < 8 && kings < 8), "material {m:?} is beyond the brute force");
    (((m[0].0 as usize * 8) + m[0].1 as usize) * 8 + m[1].0 as usize) * 8 + m[1].1 as usize
}

pub(crate) const MATERIAL_KEYS: usize = 8 * 8 * 8 * 8;

pub(crate) const UNKNOWN: u8 = 0;

pub(crate) fn encode(w: Wld) -> u8 {
    match w {
        Wld::Loss => 1,
        Wld::Draw => 2,
        Wld::Win => 3,
    }
}

pub(crate) fn decode(v: u8) -> Wld {
    match v {
        1 => Wld::Loss,
        2 => Wld::Draw,
        _ => Wld::Win,
    }
}

/// Address of a position (side to move as White) within its material: each piece group's
/// squares ranked over the whole board, as the side to move sees it.
pub(crate) fn address(variant: &Variant, position: &Position) -> usize {
    let n = variant.squares() as u64;
    let me = position.turn();
    let mut address = 0u64;
    for (color, kind) in
        [(me, PieceKind::Man), (me, PieceKind::King), (me.opposite(), PieceKind::Man), (me.opposite(), PieceKind::King)]
    {
        // Squares as the side to move sees them: the other side's view turned round.
        let mut squares: Vec<u64> = position
            .squares_of(color, kind)
            .map(|s| if me == Color::White { s.index() as u64 } else { n - 1 - s.index() as u64 })
            .collect();
        squares.sort_unstable();
        let rank: u64 = squares.iter().enumerate().map(|(i, &s)| binomial(s, i as u64 + 1)).sum();
        address = address * binomial(n, squares.len() as u64) + rank;
    }
    address as usize
}

/// Addresses of material `m` (with holes: overlapping squares, men on their last row).
pub(crate) fn size(variant: &Variant, m: Material) -> usize {
    let n = variant.squares() as u64;
    [m[0].0, m[0].1, m[1].0, m[1].1].iter().map(|&k| binomial(n, k as u64)).product::<u64>() as usize
}

/// The brute-force solver: values are computed on demand and remembered.
pub struct BruteForce {
    variant: Variant,
    rules: BruteRules,
    materials: Vec<Option<MaterialValues>>,
    moves: MoveCache,
}

pub(crate) fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

impl BruteForce {
    /// A solver for `variant` under `rules`.
    pub fn new(variant: Variant, rules: BruteRules) -> BruteForce {
        BruteForce {
            variant,
            rules,
            materials: std::iter::repeat_with(|| None).take(MATERIAL_KEYS).collect(),
            moves: std::iter::repeat_with(|| None).take(MATERIAL_KEYS).collect(),
        }
    }

    /// The counter states of positions of `position`'s material.
    pub fn states_of(&self, position: &Position) -> Vec<Clock> {
        self.rules.states(material(position))
    }

    /// Drops the remembered moves (the values stay): call between signatures to bound
    /// memory.
    pub fn forget_moves(&mut self) {
        self.moves.iter_mut().for_each(|m| *m = None);
    }

    /// Address of a position (side to move as White) within its material.
    fn address(&self, position: &Position) -> usize {
        address(&self.variant, position)
    }

    fn size(&self, m: Material) -> usize {
        size(&self.variant, m)
    }

    /// The legal moves of `position` (material `m`, at `address`), generated once.
    fn edges(&mut self, position: &Position, m: Material, address: usize) -> Rc<[Edge]> {
        let size = self.size(m);
        let key = material_key(m);
        let cached = self.moves[key].get_or_insert_with(|| vec![None; size]);
        if let Some(edges) = &cached[address] {
            return Rc::clone(edges);
        }
        let edges: Rc<[Edge]> = position
            .legal_moves()
            .iter()
            .map(|mv| {
                let child = position.play(mv);
                let after = material(&child);
                let address = if after[0] == (0, 0) { 0 } else { self.address(&child) as u32 };
                Edge {
                    child,
                    after,
                    address,
                    capture: mv.is_capture(),
                    man_moved: mv.piece() == PieceKind::Man,
                    promotion: mv.promotes(),
                }
            })
            .collect();
        if let Some(cached) = &mut self.moves[key] {
            cached[address] = Some(Rc::clone(&edges));
        }
        edges
    }

    /// The exact verdict for the side to move of `position` with counts `clock`.
    pub fn value(&mut self, position: &Position, clock: Clock) -> Wld {
        let m = material(position);
        if m[0] == (0, 0) {
            return Wld::Loss;
        }
        let address = self.address(position);
        self.value_at(position, m, address, clock)
    }

    fn value_at(&mut self, position: &Position, m: Material, address: usize, clock: Clock) -> Wld {
        if m[0] == (0, 0) {
            return Wld::Loss;
        }
        let key = material_key(m);
        if self.materials[key].is_none() {
            let states = self.rules.states(m);
            let mut slot = vec![NO_SLOT; 6 * 64];
            for (i, c) in states.iter().enumerate() {
                slot[clock_key(*c)] = i as u16;
            }
            let values = vec![UNKNOWN; self.size(m) * states.len()];
            self.materials[key] = Some(MaterialValues { states: states.len(), slot, values });
        }
        let Some(table) = &self.materials[key] else { unreachable!("inserted above") };
        let slot = table.slot[clock_key(clock)];
        assert!(slot != NO_SLOT, "counter state {clock:?} cannot occur in material {m:?}");
        let at = address * table.states + slot as usize;
        if table.values[at] != UNKNOWN {
            return decode(table.values[at]);
        }
        let edges = self.edges(position, m, address);
        let result = if edges.is_empty() {
            Wld::Loss
        } else if self.rules.expired(clock) {
            Wld::Draw
        } else {
            let mut best = Wld::Loss;
            for e in edges.iter() {
                let next = self.rules.next(clock, e.capture, e.man_moved, e.promotion, e.after);
                let theirs = self.value_at(&e.child, e.after, e.address as usize, next);
                let mine = match theirs {
                    Wld::Win => Wld::Loss,
                    Wld::Loss => Wld::Win,
                    Wld::Draw => Wld::Draw,
                };
                best = best.max(mine);
                if best == Wld::Win {
                    break;
                }
            }
            best
        };
        if let Some(table) = &mut self.materials[key] {
            table.values[at] = encode(result);
        }
        result
    }
}
