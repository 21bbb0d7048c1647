//! A pair's positions split by the placement of the men: inside one placement only quiet
//! king moves keep the material and the men where they are, and men only move forward,
//! so the placements can be solved one after another, the most advanced first, each
//! reading those its man moves lead to. Both the rule solver (which must: a count runs
//! inside one placement) and the sliced theoretical solver (to bound its memory) work
//! this way.

use kabe_probe::{Color, MaterialIndex, PieceKind, Position};

/// One placement of the men, in one or both tables of the pair.
pub(crate) struct Component {
    /// (table, men configuration) parts: the placement, and its colour flip where that
    /// is another configuration. Held inline: a pair without kings has a component for
    /// every position or two (125 million in 2040+4020).
    parts: [(usize, u64); 2],
    two_parts: bool,
    pub(crate) advancement: u32,
}

impl Component {
    pub(crate) fn parts(&self) -> &[(usize, u64)] {
        &self.parts[..1 + self.two_parts as usize]
    }
}

/// How far the men of a position have advanced, in rows, both sides together. Every
/// man move adds one; the colour flip keeps it.
fn advancement(position: &Position) -> u32 {
    let variant = position.variant();
    let rows = variant.board.width() as u32;
    let per_row = rows / 2;
    let row = |number: u32| (number - 1) / per_row;
    let white: u32 = position.squares_of(Color::White, PieceKind::Man).map(|s| rows - 1 - row(s.number())).sum();
    let black: u32 = position.squares_of(Color::Black, PieceKind::Man).map(|s| row(s.number())).sum();
    white + black
}

/// The components of a pair's tables (one, or a signature and its flip), in men
/// configuration order.
pub(crate) fn components(tables: &[MaterialIndex]) -> Vec<Component> {
    let kings = tables[0].king_placements();
    let mut out = Vec::new();
    // Without kings a configuration is one position: stepped through, not unranked.
    let mut stepped = (kings == 1).then(|| tables[0].positions(0..tables[0].len()));
    for m in 0..tables[0].men_configurations() {
        let position = match stepped.as_mut().and_then(Iterator::next) {
            Some(position) => position,
            None => tables[0].position(m * kings),
        };
        // The colours exchanged, read as White to move: the same position from the
        // other side's point of view, which the flip's index takes.
        let flipped = position.flipped().with_turn(Color::White);
        let (t, mirror) = if tables.len() == 2 {
            (1, tables[1].index(&flipped) / kings)
        } else {
            (0, tables[0].index(&flipped) / kings)
        };
        let two_parts = match (t, mirror) {
            (0, mm) if mm < m => continue, // the same component, met first at `mm`
            (0, mm) => mm != m,
            _ => true,
        };
        out.push(Component { parts: [(0, m), (t, mirror)], two_parts, advancement: advancement(&position) });
    }
    out
}

/// The positions of a component's nodes `range` (node = part * `kings` + king placement),
/// a part at a time: `placements(part, kings)` gives a part's positions at those king
/// placements, consecutive indexes of one table, stepped from one to the next instead
/// of unranked each.
pub(crate) fn part_positions<'a, I: Iterator<Item = Position> + 'a>(
    kings: u64,
    range: std::ops::Range<u64>,
    placements: impl Fn(usize, std::ops::Range<u64>) -> I + 'a,
) -> impl Iterator<Item = Position> + 'a {
    let touched = if range.is_empty() { 0..0 } else { range.start / kings..(range.end - 1) / kings + 1 };
    touched.flat_map(move |part| {
        let first = range.start.max(part * kings) - part * kings;
        let end = range.end.min((part + 1) * kings) - part * kings;
        placements(part as usize, first..end)
    })
}
