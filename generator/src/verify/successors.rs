//! Where a position and its successors lie in the tables: [`Placed`] (a signature and
//! an index), [`Tables::place`], the capture test a position's files share
//! ([`CaptureTest`]), and a position's successors made and placed once for every kind
//! of value derived from them ([`Successors`], with [`KingMovePlacer`] for quiet king
//! moves, placed by one rank each).
//!
//! Placing reads no value: it needs the tables (`tables`) and nothing above them. The
//! value the placed successors give ([`Successors::best_score`]) is read in `reader`,
//! beside the reads it recurses through.

use kabe_probe::table::TableFile;
use kabe_probe::{Color, DrawRuleSet, Move, MoveList, PieceKind, Position, Signature};

use crate::verify::sig_map::SigMap;
use crate::verify::tables::{Held, Tables};

/// Whether a position has a capture to make, tested at most once for all the files asked
/// whether they hold it (a file that leaves capture positions out asks; the DTW, WLD and
/// rule files of one position tested it three times).
pub(super) struct CaptureTest<'p> {
    pub(super) position: &'p Position,
    known: std::cell::OnceCell<bool>,
}

impl<'p> CaptureTest<'p> {
    pub(super) fn new(position: &'p Position) -> Self {
        CaptureTest { position, known: std::cell::OnceCell::new() }
    }

    /// Whether `file` holds a value of its own for the position ([`kabe_probe::internal::table::Header::holds`]).
    #[inline]
    pub(super) fn held_by(&self, file: &TableFile) -> bool {
        file.header().holds_with(|| *self.known.get_or_init(|| self.position.has_capture()))
    }

    /// Whether the position was found to have no capture (not tested here).
    #[inline]
    fn known_none(&self) -> bool {
        self.known.get() == Some(&false)
    }
}

/// Where a position lies in the tables: its signature (of the position with White to
/// move) and its index there.
#[derive(Clone, Copy, Debug)]
pub(super) struct Placed {
    pub(super) sig: Signature,
    pub(super) at: u64,
}

impl Tables {
    /// Where `position` lies: its signature and index, when its material has tables here
    /// and does not settle it.
    pub(super) fn place(&self, position: &Position) -> Option<Placed> {
        if position.settled_score().is_some() {
            return None;
        }
        let p = position.normalized();
        let sig = Signature::of(&p);
        Some(Placed { sig, at: self.index.get(&sig)?.index(&p) })
    }
}

/// A position's moves and its successors, each placed in the tables: what a value is
/// derived from. Kept from one position to the next to spare allocations.
#[derive(Default)]
pub(super) struct Successors {
    pub(super) moves: MoveList,
    pub(super) children: Vec<Position>,
    /// Where each successor lies ([`Tables::place`]).
    pub(super) placed: Vec<Option<Placed>>,
    /// Where the quiet king moves' positions lie, when they are read by index alone
    /// ([`Successors::place_king_steps`]): their table (resident), and their indices.
    /// `moves` and `children` then hold the other moves.
    pub(super) king_steps: Option<Signature>,
    pub(super) king_step_ats: Vec<u64>,
}

impl Successors {
    /// Makes every move of `capture`'s position and places each successor, fetching ahead
    /// the resident DTW slot (`theory`) and rule slot (of the rule set `rules`) to be
    /// read, so that the reads from memory overlap instead of waiting one after another.
    /// A position already found to have no capture is not searched for one again.
    pub(super) fn gather(&mut self, tables: &Tables, capture: &CaptureTest, theory: bool, rules: Option<DrawRuleSet>) {
        let position = capture.position;
        self.children.clear();
        self.placed.clear();
        self.king_steps = None;
        self.king_step_ats.clear();
        let resident_rules =
            rules.and_then(|set| tables.resident_rules.as_ref().filter(|(s, _)| *s == set)).map(|(_, r)| r);
        let king_steps = match capture.known_none() {
            true => position.quiet_moves_counting_king_steps(&mut self.moves),
            false => position.legal_moves_counting_king_steps(&mut self.moves),
        };
        // Quiet king moves are counted only where there is no capture.
        if king_steps > 0 && !self.place_king_steps(tables, position, theory, rules.map(|_| resident_rules)) {
            position.legal_quiet_moves_into(&mut self.moves);
        }
        // Made on the first quiet king move: the others are placed through it.
        let mut king_moves: Option<Option<KingMovePlacer>> = None;
        for mv in self.moves.iter() {
            let child = position.play(mv);
            let placed = if mv.piece() == PieceKind::King && !mv.is_capture() {
                king_moves
                    .get_or_insert_with(|| KingMovePlacer::new(tables, position, &child))
                    .as_mut()
                    .map(|p| p.place(mv, position))
            } else {
                tables.place(&child)
            };
            if let Some(Placed { sig, at }) = placed.filter(|_| theory) {
                // Resident (the pair itself) or held lazily (the tables its captures and
                // promotions lead to, whose reads were a quarter of 0303's check, perf).
                if let Some(slot) = tables.resident_dtw.get(&sig).and_then(|v| v.get(at)) {
                    crate::memory::prefetch(slot);
                } else if let Some(slot) = tables.lazy_dtw.get(&sig).and_then(|v| v.made_slot(at)) {
                    crate::memory::prefetch(slot);
                }
            }
            if let Some(Placed { sig, at }) = placed
                && let Some(slot) = resident_rules.and_then(|r| r.get(&sig)).and_then(|v| v.get(at))
            {
                crate::memory::prefetch(slot);
            }
            self.children.push(child);
            self.placed.push(placed);
        }
    }

    /// Places the positions after `position`'s quiet king moves by index alone, without
    /// making the moves: they share their men and the other side's kings with it, and
    /// each differs from the others in where one king stands (normalized: White to
    /// move, the moved king Black's). Only where every value to be read of them is
    /// resident (`theory`: DTW; `rules`: the rule set's values, `Some(None)` when they
    /// are not resident): returns whether it placed them. Making each move, its
    /// position and its place took most of the verifier's time on positions with kings.
    fn place_king_steps(
        &mut self,
        tables: &Tables,
        position: &Position,
        theory: bool,
        rules: Option<Option<&SigMap<Held<u8>>>>,
    ) -> bool {
        let pivot = position.with_turn(position.turn().opposite()).normalized();
        if pivot.settled_score().is_some() {
            return false;
        }
        let sig = Signature::of(&pivot);
        let dtw = match theory {
            true => match tables.resident_dtw.get(&sig) {
                Some(values) => Some(values),
                None => return false,
            },
            false => None,
        };
        let rule_values = match rules {
            Some(resident) => match resident.and_then(|r| r.get(&sig)) {
                Some(values) => Some(values),
                None => return false,
            },
            None => None,
        };
        let Some(index) = tables.index.get(&sig) else { return false };
        let mut ranks = index.black_king_moved(&pivot);
        for (king, squares) in pivot.king_step_squares(Color::Black) {
            ranks.moving(king);
            for at in ranks.indices(squares) {
                if let Some(slot) = dtw.and_then(|v| v.get(at)) {
                    crate::memory::prefetch(slot);
                }
                if let Some(slot) = rule_values.and_then(|v| v.get(at)) {
                    crate::memory::prefetch(slot);
                }
                self.king_step_ats.push(at);
            }
        }
        // Held in slices: the steps' placement of the men (they share it) must be held.
        let unheld =
            |at: u64| dtw.is_some_and(|v| v.get(at).is_none()) || rule_values.is_some_and(|v| v.get(at).is_none());
        if self.king_step_ats.first().is_some_and(|&at| unheld(at)) {
            self.king_step_ats.clear();
            return false;
        }
        self.king_steps = Some(sig);
        true
    }
}

/// Places the successors of one position by its quiet king moves. They share their men
/// and the other side's kings with the position (normalized: White to move, the moved
/// king Black's), so each is placed by one rank of where the moved king stands, in a few
/// instructions where [`Tables::place`] ranks the whole position: most successors of
/// positions with kings are of this kind, and placing them was half the verifier's time.
#[derive(Clone, Copy)]
struct KingMovePlacer {
    sig: Signature,
    ranks: kabe_probe::internal::BlackKingMoved,
    /// The successors are normalized by their colour flip: squares are flipped too.
    flipped: bool,
}

impl KingMovePlacer {
    /// For the quiet king moves of `position`, `child` the position after one of them;
    /// `None` where [`Tables::place`] places none (material settled, or no table).
    fn new(tables: &Tables, position: &Position, child: &Position) -> Option<KingMovePlacer> {
        if child.settled_score().is_some() {
            return None;
        }
        // The position's pieces as its successors are normalized: the moved king is Black's.
        let pivot = position.with_turn(child.turn()).normalized();
        let sig = Signature::of(&pivot);
        let ranks = tables.index.get(&sig)?.black_king_moved(&pivot);
        Some(KingMovePlacer { sig, ranks, flipped: child.turn() == Color::Black })
    }

    /// Where the successor by `mv`, a quiet king move, lies ([`Tables::place`]).
    #[inline]
    fn place(&mut self, mv: &Move, position: &Position) -> Placed {
        let (from, to) = if self.flipped {
            (position.flipped_square(mv.from()), position.flipped_square(mv.to()))
        } else {
            (mv.from(), mv.to())
        };
        self.ranks.moving(from);
        Placed { sig: self.sig, at: self.ranks.index(to) }
    }
}
