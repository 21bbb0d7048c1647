//! The brute force of [`crate::check::brute_rules`] in bounded memory.
//!
//! The same rules written from the seeds ([`BruteRules`]: its counter states, their
//! successors, when they expire) and the same position addressing, but solved layer by
//! layer instead of by memoised recursion. Within one material and its colour flip (a
//! *pair*: a quiet move hands the other side the move) every quiet move takes a counter
//! state to the next one (one more ply of 16b, 6.2, 6.3, 6.4, or one more move towards
//! the 1953 deadline), so the states can be ranked and solved from the last rank down,
//! keeping only the rank above in memory; captures and promotions lead to materials
//! solved before, of which only the states a capture or promotion can enter are kept
//! (every count but the reset counts beyond zero). Memory: the pair's moves (once, as
//! addresses), two ranks, and, for the pair being compared, two bits per state.
//!
//! FMJD 6.2 is reset by a man move inside the material, which breaks the ranking: the
//! layered solver takes FMJD materials of kings only (the proof at 5 pieces); the
//! memoised [`crate::BruteForce`] covers the rest.

use std::collections::HashMap;

use rayon::prelude::*;

use kabe_probe::{Color, PieceKind, Position, Setup, SetupPiece, Variant, Wld};

use crate::check::brute_rules::{
    address, binomial, clock_key, decode, encode, material, material_key, size, BruteRules, Clock, Material, UNKNOWN,
};

/// Why the layered solver cannot take a material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayerError {
    /// A quiet move leaves the ranking (FMJD 6.2 reset by a man move).
    #[error("material {0:?}: a quiet move resets the count inside the material (FMJD with men): use the memoised brute force")]
    ResetInside(Material),
    /// A capture or promotion enters a state the solver did not keep: a bug in what is
    /// kept, never a wrong answer.
    #[error("material {material:?}: state {clock:?} entered by a capture or promotion was not kept")]
    NotKept {
        /// The material entered.
        material: Material,
        /// The state.
        clock: Clock,
    },
}

/// Addresses per parallel work item (a multiple of 4: whole bytes of [`Packed`]).
const CHUNK: usize = 1 << 14;

/// Two bits per value (0 unknown, then loss, draw, win).
#[derive(Clone)]
struct Packed(Vec<u8>);

impl Packed {
    fn new(n: usize) -> Packed {
        Packed(vec![0; n.div_ceil(4)])
    }
    #[inline]
    fn get(&self, i: usize) -> u8 {
        (self.0[i / 4] >> (2 * (i % 4))) & 3
    }
    #[inline]
    fn set(&mut self, i: usize, v: u8) {
        let b = &mut self.0[i / 4];
        *b = (*b & !(3 << (2 * (i % 4)))) | (v << (2 * (i % 4)));
    }
    fn bytes(&self) -> usize {
        self.0.len()
    }
}

/// The rank of a counter state: a quiet move goes from rank r to rank r + 1.
fn rank(clock: Clock) -> usize {
    match clock {
        Clock::KingsOnly(n) | Clock::Art63(n) | Clock::Art64(n) | Clock::Quiet(n) => n as usize,
        // Strong moves made and whose turn: (m, weak to move) then (m, strong to move).
        Clock::StrongMoves(m, strong_to_move) => 2 * m as usize + usize::from(strong_to_move),
    }
}

/// Whether a capture or promotion can enter `clock` (the reset counts start at zero).
fn enterable(clock: Clock) -> bool {
    !matches!(clock, Clock::KingsOnly(n) | Clock::Quiet(n) if n > 0)
}

/// A move that leaves the pair, as the counts see it.
struct Exit {
    after: Material,
    address: u32,
    capture: bool,
    man_moved: bool,
    promotion: bool,
}

/// The moves of every position of one material of the pair.
struct Moves {
    /// Per address: whether it is a position (not a hole), as bits.
    valid: Vec<u64>,
    /// Per address: start of its moves in `quiet` and `exits`.
    quiet_start: Vec<u32>,
    exit_start: Vec<u32>,
    /// Addresses, in the pair's other material, of quiet moves' children.
    quiet: Vec<u32>,
    exits: Vec<Exit>,
}

impl Moves {
    /// Whether address `a` has no move (lost for the side to move).
    fn is_lost(&self, a: usize) -> bool {
        self.quiet_start[a] == self.quiet_start[a + 1] && self.exit_start[a] == self.exit_start[a + 1]
    }

    fn bytes(&self) -> usize {
        self.valid.len() * 8
            + (self.quiet_start.len() + self.exit_start.len() + self.quiet.len()) * 4
            + self.exits.len() * std::mem::size_of::<Exit>()
    }
}

/// The White-to-move position at `address` of material `m`, or `None` for a hole.
fn position_at(variant: &Variant, m: Material, mut address: usize) -> Option<Position> {
    let n = variant.squares() as u64;
    let groups = [
        (Color::White, PieceKind::Man, m[0].0),
        (Color::White, PieceKind::King, m[0].1),
        (Color::Black, PieceKind::Man, m[1].0),
        (Color::Black, PieceKind::King, m[1].1),
    ];
    let mut ranks = [0u64; 4];
    for (g, &(_, _, k)) in groups.iter().enumerate().rev() {
        let span = binomial(n, k as u64) as usize;
        ranks[g] = (address % span) as u64;
        address /= span;
    }
    let mut setup = Setup { turn: Some(Color::White), pieces: Vec::new() };
    for (g, &(color, kind, k)) in groups.iter().enumerate() {
        // Combinatorial unranking: the largest square first.
        let mut rest = ranks[g];
        for i in (1..=k as u64).rev() {
            let mut s = i - 1;
            while binomial(s + 1, i) <= rest {
                s += 1;
            }
            rest -= binomial(s, i);
            setup.pieces.push(SetupPiece { color, kind, square: s as u32 + 1 });
        }
    }
    Position::from_setup(*variant, &setup).ok()
}

/// The materials a move of the side to move in `m` can lead to, other than the flip.
fn children(m: Material) -> Vec<Material> {
    let [(xm, xk), (ym, yk)] = m;
    let mut out = Vec::new();
    let promoted = (xm > 0).then(|| (xm - 1, xk + 1));
    for a in 0..=ym {
        for b in 0..=yk {
            let taken = a + b > 0;
            let them = (ym - a, yk - b);
            if them == (0, 0) {
                continue;
            }
            if taken {
                out.push([them, (xm, xk)]);
            }
            if let Some(p) = promoted {
                out.push([them, p]);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The layered brute force: finished materials keep their enterable states.
pub struct LayeredBrute {
    variant: Variant,
    rules: BruteRules,
    kept: HashMap<usize, HashMap<usize, Packed>>,
    kept_bytes: usize,
    /// Bytes a pair's moves may take; beyond, they are made again for every rank.
    move_budget: usize,
    /// The most bytes held at once by the solver's own structures.
    pub peak_bytes: usize,
}

/// What [`PairValues::for_each`] calls: a position and the value of each counter state.
pub type PositionVisit<'a> = dyn FnMut(&Position, &[(Clock, Wld)]) + 'a;

/// Every state of one pair, handed to the caller position by position.
pub struct PairValues<'a> {
    variant: Variant,
    mats: Vec<Material>,
    states: Vec<Vec<Clock>>,
    values: Vec<HashMap<usize, Packed>>,
    _solver: std::marker::PhantomData<&'a ()>,
}

// The values are read by several threads at once.
const _: fn() = || {
    fn sync<T: Sync>() {}
    sync::<PairValues<'static>>();
};

impl PairValues<'_> {
    /// The materials of the pair (side to move first).
    pub fn materials(&self) -> &[Material] {
        &self.mats
    }

    /// Parts [`PairValues::for_each_in`] splits material `which` into (for threads).
    pub fn chunks(&self, which: usize) -> usize {
        size(&self.variant, self.mats[which]).div_ceil(CHUNK)
    }

    /// Calls `each(position, states and values)` for every position of chunk `chunk` of
    /// material `which`.
    pub fn for_each_in(&self, which: usize, chunk: usize, each: &mut PositionVisit<'_>) {
        let m = self.mats[which];
        let n = size(&self.variant, m);
        let mut row = Vec::with_capacity(self.states[which].len());
        let columns: Vec<(Clock, &Packed)> =
            self.states[which].iter().map(|&c| (c, &self.values[which][&clock_key(c)])).collect();
        for a in chunk * CHUNK..(chunk * CHUNK + CHUNK).min(n) {
            let Some(position) = position_at(&self.variant, m, a) else { continue };
            row.clear();
            row.extend(columns.iter().map(|(c, values)| (*c, decode(values.get(a)))));
            each(&position, &row);
        }
    }
}

impl LayeredBrute {
    /// A solver for `variant` under `rules`.
    pub fn new(variant: Variant, rules: BruteRules) -> LayeredBrute {
        LayeredBrute { variant, rules, kept: HashMap::new(), kept_bytes: 0, move_budget: usize::MAX, peak_bytes: 0 }
    }

    /// Keeps a pair's moves only when they take at most `bytes` (default: always); a
    /// larger pair makes them again for every rank of counter states, trading time for
    /// memory (10x10 kings have about 30 moves each).
    #[must_use]
    pub fn with_move_budget(mut self, bytes: usize) -> LayeredBrute {
        self.move_budget = bytes;
        self
    }

    /// Solves the pair of `m` (and every material below it first) and returns every
    /// state's value of both materials.
    pub fn solve(&mut self, m: Material) -> Result<PairValues<'_>, LayerError> {
        let (mats, states, values) = self.solve_pair(m, true)?;
        Ok(PairValues { variant: self.variant, mats, states, values, _solver: std::marker::PhantomData })
    }

    fn ensure(&mut self, m: Material) -> Result<(), LayerError> {
        if self.kept.contains_key(&material_key(m)) {
            return Ok(());
        }
        self.solve_pair(m, false).map(|_| ())
    }

    #[allow(clippy::type_complexity)]
    fn solve_pair(
        &mut self,
        m: Material,
        keep_all: bool,
    ) -> Result<(Vec<Material>, Vec<Vec<Clock>>, Vec<HashMap<usize, Packed>>), LayerError> {
        let flip = [m[1], m[0]];
        let mats: Vec<Material> = if flip == m { vec![m] } else { vec![m, flip] };
        for &x in &mats {
            for c in children(x) {
                if !mats.contains(&c) {
                    self.ensure(c)?;
                }
            }
        }
        let other = |i: usize| if mats.len() == 1 { 0 } else { 1 - i };
        // The pair's moves are kept when they fit the budget, else made again each rank.
        let mut moves: Vec<Moves> = Vec::new();
        for (i, &x) in mats.iter().enumerate() {
            match self.moves(
                x,
                mats[other(i)],
                self.move_budget.saturating_sub(moves.iter().map(Moves::bytes).sum()),
            )? {
                Some(m) => moves.push(m),
                None => {
                    moves.clear();
                    break;
                }
            }
        }
        let kept_moves = moves.len() == mats.len();
        let states: Vec<Vec<Clock>> = mats.iter().map(|&x| self.rules.states(x)).collect();
        let top = states.iter().flatten().map(|&c| rank(c)).max().unwrap_or(0);
        let mut all: Vec<HashMap<usize, Packed>> = vec![HashMap::new(); mats.len()];
        let mut above: Vec<HashMap<usize, Packed>> = vec![HashMap::new(); mats.len()];
        let moves_bytes: usize = moves.iter().map(Moves::bytes).sum();
        for r in (0..=top).rev() {
            let mut here: Vec<HashMap<usize, Packed>> = vec![HashMap::new(); mats.len()];
            for (i, &x) in mats.iter().enumerate() {
                for &c in states[i].iter().filter(|&&c| rank(c) == r) {
                    let values = self.layer(x, mats[other(i)], c, kept_moves.then(|| &moves[i]), &above[other(i)])?;
                    here[i].insert(clock_key(c), values);
                }
            }
            let layer_bytes =
                |l: &Vec<HashMap<usize, Packed>>| l.iter().flat_map(|h| h.values()).map(Packed::bytes).sum::<usize>();
            let all_bytes = layer_bytes(&all);
            self.peak_bytes = self
                .peak_bytes
                .max(moves_bytes + layer_bytes(&here) + layer_bytes(&above) + all_bytes + self.kept_bytes);
            for (i, layer) in here.iter().enumerate() {
                for (&key, values) in layer {
                    let clock = states[i].iter().copied().find(|&c| clock_key(c) == key).expect("a state of the pair");
                    if keep_all || enterable(clock) {
                        all[i].insert(key, values.clone());
                    }
                }
            }
            above = here;
        }
        drop(moves);
        for (i, &x) in mats.iter().enumerate() {
            let kept: HashMap<usize, Packed> = all[i]
                .iter()
                .filter(|&(&key, _)| states[i].iter().any(|&c| clock_key(c) == key && enterable(c)))
                .map(|(&k, v)| (k, v.clone()))
                .collect();
            self.kept_bytes += kept.values().map(Packed::bytes).sum::<usize>();
            self.kept.insert(material_key(x), kept);
        }
        Ok((mats, states, all))
    }

    /// The moves of every position of `x` (quiet children are addresses in `flip`), or
    /// `None` when they take more than `budget` bytes.
    fn moves(&self, x: Material, flip: Material, budget: usize) -> Result<Option<Moves>, LayerError> {
        let n = size(&self.variant, x);
        // Chunks in parallel, then joined (a chunk is a multiple of 64 addresses); a
        // batch of chunks at a time, so that an over-budget pair stops early.
        let chunks = n.div_ceil(CHUNK);
        let mut parts: Vec<Moves> = Vec::with_capacity(chunks);
        let mut bytes = 0usize;
        for batch in (0..chunks).collect::<Vec<_>>().chunks(64) {
            let made: Vec<Moves> = batch
                .par_iter()
                .map(|&chunk| self.moves_of(x, flip, chunk * CHUNK, (chunk * CHUNK + CHUNK).min(n)))
                .collect::<Result<_, _>>()?;
            bytes += made.iter().map(Moves::bytes).sum::<usize>();
            if bytes > budget {
                return Ok(None);
            }
            parts.extend(made);
        }
        let mut out = Moves {
            valid: Vec::with_capacity(n.div_ceil(64)),
            quiet_start: Vec::with_capacity(n + 1),
            exit_start: Vec::with_capacity(n + 1),
            quiet: Vec::new(),
            exits: Vec::new(),
        };
        for part in parts {
            let (q, e) = (out.quiet.len() as u32, out.exits.len() as u32);
            out.valid.extend(part.valid);
            out.quiet_start.extend(part.quiet_start[..part.quiet_start.len() - 1].iter().map(|s| s + q));
            out.exit_start.extend(part.exit_start[..part.exit_start.len() - 1].iter().map(|s| s + e));
            out.quiet.extend(part.quiet);
            out.exits.extend(part.exits);
        }
        out.quiet_start.push(out.quiet.len() as u32);
        out.exit_start.push(out.exits.len() as u32);
        Ok(Some(out))
    }

    /// The moves of addresses `lo..hi` of `x`, with starts relative to the chunk.
    fn moves_of(&self, x: Material, flip: Material, lo: usize, hi: usize) -> Result<Moves, LayerError> {
        let mut out = Moves {
            valid: vec![0; (hi - lo).div_ceil(64)],
            quiet_start: Vec::with_capacity(hi - lo + 1),
            exit_start: Vec::with_capacity(hi - lo + 1),
            quiet: Vec::new(),
            exits: Vec::new(),
        };
        for a in lo..hi {
            out.quiet_start.push(out.quiet.len() as u32);
            out.exit_start.push(out.exits.len() as u32);
            let Some(position) = position_at(&self.variant, x, a) else { continue };
            out.valid[(a - lo) / 64] |= 1 << ((a - lo) % 64);
            for mv in position.legal_moves().iter() {
                let child = position.play(mv);
                let after = material(&child);
                let capture = mv.is_capture();
                let promotion = mv.promotes();
                let man_moved = mv.piece() == PieceKind::Man;
                if !capture && !promotion {
                    debug_assert_eq!(after, flip);
                    if man_moved && matches!(self.rules, BruteRules::Fmjd { .. }) {
                        return Err(LayerError::ResetInside(x));
                    }
                    out.quiet.push(address(&self.variant, &child) as u32);
                } else {
                    let address = if after[0] == (0, 0) { 0 } else { address(&self.variant, &child) as u32 };
                    out.exits.push(Exit { after, address, capture, man_moved, promotion });
                }
            }
        }
        out.quiet_start.push(out.quiet.len() as u32);
        out.exit_start.push(out.exits.len() as u32);
        Ok(out)
    }

    /// The values of state `c` of material `x`, from the rank above (in `flip`) and the
    /// kept states of the materials below.
    fn layer(
        &self,
        x: Material,
        flip: Material,
        c: Clock,
        moves: Option<&Moves>,
        above: &HashMap<usize, Packed>,
    ) -> Result<Packed, LayerError> {
        let n = size(&self.variant, x);
        let quiet_next = self.rules.next(c, false, false, false, flip);
        let quiet_values = above.get(&clock_key(quiet_next));
        let expired = self.rules.expired(c);
        // Chunks of addresses (a multiple of 4: whole bytes) in parallel.
        let parts: Vec<Vec<u8>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|chunk| -> Result<Vec<u8>, LayerError> {
                let (lo, hi) = (chunk * CHUNK, (chunk * CHUNK + CHUNK).min(n));
                // Kept moves are indexed by address; moves made again for this rank by
                // the address within the chunk.
                let made;
                let (moves, base) = match moves {
                    Some(m) => (m, 0),
                    None => {
                        made = self.moves_of(x, flip, lo, hi)?;
                        (&made, lo)
                    }
                };
                let mut part = Packed::new(hi - lo);
                for a in lo..hi {
                    let i = a - base;
                    if moves.valid[i / 64] >> (i % 64) & 1 == 0 {
                        continue;
                    }
                    let value = if expired && !moves.is_lost(i) {
                        Wld::Draw
                    } else {
                        self.value_at(i, c, flip, quiet_next, quiet_values, moves)?
                    };
                    part.set(a - lo, encode(value));
                }
                Ok(part.0)
            })
            .collect::<Result<_, _>>()?;
        Ok(Packed(parts.concat()))
    }

    /// The value of the position whose moves are entry `a` of `moves` in state `c` (not
    /// expired, or lost on the spot).
    fn value_at(
        &self,
        a: usize,
        c: Clock,
        flip: Material,
        quiet_next: Clock,
        quiet_values: Option<&Packed>,
        moves: &Moves,
    ) -> Result<Wld, LayerError> {
        let quiet = &moves.quiet[moves.quiet_start[a] as usize..moves.quiet_start[a + 1] as usize];
        let exits = &moves.exits[moves.exit_start[a] as usize..moves.exit_start[a + 1] as usize];
        let mut best = Wld::Loss;
        if !quiet.is_empty() {
            let values = quiet_values.ok_or(LayerError::NotKept { material: flip, clock: quiet_next })?;
            for &child in quiet {
                let v = values.get(child as usize);
                if v == UNKNOWN {
                    return Err(LayerError::NotKept { material: flip, clock: quiet_next });
                }
                best = best.max(theirs(decode(v)));
            }
        }
        for e in exits {
            if best == Wld::Win {
                break;
            }
            if e.after[0] == (0, 0) {
                return Ok(Wld::Win);
            }
            let next = self.rules.next(c, e.capture, e.man_moved, e.promotion, e.after);
            let kept = self
                .kept
                .get(&material_key(e.after))
                .and_then(|k| k.get(&clock_key(next)))
                .ok_or(LayerError::NotKept { material: e.after, clock: next })?;
            let v = kept.get(e.address as usize);
            if v == UNKNOWN {
                return Err(LayerError::NotKept { material: e.after, clock: next });
            }
            best = best.max(theirs(decode(v)));
        }
        Ok(best)
    }
}

fn theirs(w: Wld) -> Wld {
    match w {
        Wld::Win => Wld::Loss,
        Wld::Loss => Wld::Win,
        Wld::Draw => Wld::Draw,
    }
}
