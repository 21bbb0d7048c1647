//! Holding values in memory for a pair's check: the pair's own values resident (every
//! position's, left-out ones derived once: [`hold_resident_dtw`],
//! [`hold_resident_rules`], [`hold_resident_together`]) and its inputs' values lazily
//! ([`hold_inputs`]), so that a successor is read by its index instead of searched.
//!
//! Which values are held changes the speed, never a value: this room fills what
//! `tables` keeps, deriving through a `worker`; `check` calls it before deriving a pair.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};

use kabe_probe::internal::table::{rule_code, BlockReader};
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::{TableError, TableFile};
use kabe_probe::{DrawRuleSet, DrawRules, Position, RuleScore, Score, Signature, Variant};
use rayon::prelude::*;

use crate::finished::working::tables_read;
use crate::pair::TablePair;
use crate::verify::lanes::{LoneKingLanes, RuleMerits};
use crate::verify::reader::Gap;
use crate::verify::report::Findings;
use crate::verify::slices::PairSlice;
use crate::verify::successors::CaptureTest;
use crate::verify::symmetry::KingClasses;
use crate::verify::tables::{Held, Placements, Tables};
use crate::verify::worker::{Worker, CHECK_CHUNK};

/// Before `pair` is derived: holds lazily ([`Tables::hold_lazily`]) the tables whose
/// values it reads ([`tables_read`]: the tables its captures and promotions lead to, and
/// those these are searched through) that are not held already: tables the ledger or
/// `--signature` spares from being derived, or that were let go for memory. Their values
/// are kept in blocks made as they are read, within what the budget leaves beside the
/// pair and the values kept resident; where the pair's inputs would not fit whole, the
/// tables held that `pair` does not read are let go first (`needed`: the bytes the pair's
/// own values take resident, whole or a slice at a time). Without that a successor in
/// a table kept on one side, or a capture to make, is found by a search of its own each
/// time it is met; held, it is found once and read by its index. Which tables are held
/// changes the speed, never a value.
pub(super) fn hold_inputs(
    tables: &mut Tables,
    variant: Variant,
    pair: &[Signature],
    needed: u64,
    resident_bytes: usize,
) {
    let Some(&first) = pair.first() else { return };
    let order = tables_read(variant, &[TablePair::of(first)], |sig| tables.searched_whole(sig));
    let budget = resident_bytes as u64;
    let missing: Vec<Signature> =
        order.iter().copied().filter(|s| tables.dtw.contains_key(s) && !tables.holds_dtw(s)).collect();
    let reached: BTreeSet<Signature> = order.into_iter().collect();
    if tables.resident_bytes() + needed + tables.resident_need(&missing) > budget {
        tables.keep_only(&reached);
    }
    tables.hold_lazily(variant, &missing);
    let room = budget.saturating_sub(tables.held_bytes() + needed);
    if tables.lazy_room.spent() > room {
        tables.forget_lazy_where(|_| true);
        tables.hold_lazily(variant, &reached.into_iter().collect::<Vec<_>>());
    }
    tables.lazy_room.set_limit(room);
}

/// Before `pair` is derived, holds resident each pair it reads ([`tables_read`]) of kings
/// against a lone king whose lone king's side stores its values and whose other side
/// leaves them out, where the room left beside `pair` and the values held takes both
/// sides and the lanes' copy: that side is then filled lane by lane ([`fill_by_lanes`]), in
/// a fraction of the time its positions, met one by one through `pair`'s captures, take
/// when held lazily (most of a one-king pair's check alone, 0105+0501's by 0104+0401).
/// `rules`: the one rule set whose values are held with the DTW values, if any.
pub(super) fn hold_lone_king_inputs(
    tables: &mut Tables,
    variant: Variant,
    rules: Option<&DrawRules>,
    pair: &[Signature],
    resident_bytes: usize,
    cache: &BlockReader,
    findings: &Findings,
) {
    let Some(&first) = pair.first() else { return };
    let read = tables_read(variant, &[TablePair::of(first)], |sig| tables.searched_whole(sig));
    for lone in read {
        let stored = lone.flipped();
        let by_search = tables.dtw.get(&lone).is_some_and(|f| f.header().by_search());
        if !by_search || pair.contains(&lone) || tables.resident_dtw.contains_key(&lone) {
            continue;
        }
        let Some(shape) = LoneKingLanes::new(variant, lone) else { continue };
        let inputs = [stored, lone];
        let room = (resident_bytes as u64).saturating_sub(tables.resident_bytes() + tables.resident_need(pair));
        let need = tables.resident_need(&inputs) + shape.transposed_bytes(rules.is_some());
        if need > room || tables.dtw.get(&stored).is_none_or(|f| f.header().by_search()) {
            continue;
        }
        tables.forget_lazy(&inputs);
        let lane_room = room - tables.resident_need(&inputs);
        let together =
            rules.is_some_and(|rules| hold_resident_together(tables, rules, &inputs, None, cache, findings, lane_room));
        if !together {
            hold_resident_dtw(tables, &inputs, None, cache, findings, lane_room);
        }
        // The values held lazily have that much less room.
        let room = (resident_bytes as u64).saturating_sub(tables.held_bytes() + tables.resident_need(pair));
        tables.lazy_room.set_limit(room);
    }
}

/// Holds the DTW and the `rules` values of `pair` resident in one pass over each member,
/// its successors made and placed once for both kinds, and keeps the rule values with
/// those kept before; `false` (nothing done) where the two kinds do not store the same
/// member (a left-out member's values are derived from the stored one's, which must be
/// held first for both).
pub(super) fn hold_resident_together(
    tables: &mut Tables,
    rules: &DrawRules,
    pair: &[Signature],
    slice: Option<&PairSlice>,
    cache: &BlockReader,
    findings: &Findings,
    lane_room: u64,
) -> bool {
    let Some(rule_files) = tables.rules.get(&rules.set) else { return false };
    let order = stored_first(pair, &tables.dtw);
    if order != stored_first(pair, rule_files) {
        return false;
    }
    tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
    for sig in order {
        let held = slice.map(|s| s.held(sig));
        match resident_together(tables, rules, sig, held, cache, lane_room) {
            Ok(Some((dtw, rule_values))) => {
                tables.resident_dtw.insert(sig, Held::new(dtw, held));
                if let (Some(values), Some((_, resident))) = (rule_values, tables.resident_rules.as_mut()) {
                    resident.insert(sig, Held::new(values, held));
                }
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
    if let Some((set, values)) = tables.resident_rules.take() {
        tables.kept_rules.insert(set, values);
    }
    true
}

/// A table's resident DTW values, and its rule values where it keeps a rule table.
type DtwAndRules = (Vec<u16>, Option<Vec<u8>>);

/// A rule set, the count of a table's material under it, and the table's rule file.
type RuleFile<'t> = (&'t DrawRules, kabe_probe::rules::Context, &'t TableFile);

/// Every DTW value of `sig` and, where it keeps a rule table, every rule value under
/// `rules`, as [`resident_dtw`] and [`resident_rules`] give them, in one pass: a
/// left-out position's successors are made and placed once for both (or lane by lane,
/// [`fill_by_lanes`], where `lane_room` allows).
fn resident_together(
    tables: &Tables,
    rules: &DrawRules,
    sig: Signature,
    held: Option<&Placements>,
    shared: &BlockReader,
    lane_room: u64,
) -> Result<Option<DtwAndRules>, TableError> {
    let rule_file = rules.context(sig).and_then(|context| Some((context, tables.rules[&rules.set].get(&sig)?)));
    let Some((context, rule_file)) = rule_file else {
        return Ok(resident_dtw(tables, sig, held, shared, lane_room)?.map(|dtw| (dtw, None)));
    };
    let asked = Some((rules, context, rule_file));
    if held.is_none()
        && left_out_whole(tables, sig, asked)
        && let Some(filled) = fill_by_lanes(tables, sig, asked, shared, lane_room)?
    {
        return Ok(Some(filled));
    }
    let dtw_file = &tables.dtw[&sig];
    let index = &tables.index[&sig];
    let len = held.map_or(index.len(), Placements::positions) as usize;
    let mut dtw = crate::memory::huge_vec(len, 0u16);
    let mut rule_values = crate::memory::huge_vec(len, 0u8);
    // A slice holds pairs with men, whose kings have no classes.
    let classes = KingClasses::of(index.variant(), sig).filter(|_| held.is_none());
    let mut marked = Marked::new(len);
    let missing = AtomicBool::new(false);
    dtw.par_chunks_mut(CHECK_CHUNK as usize)
        .zip(rule_values.par_chunks_mut(CHECK_CHUNK as usize))
        .zip(marked.par_chunks_mut())
        .enumerate()
        .try_for_each_init(
            || Worker::new(shared),
            |worker, (c, ((dtw_out, rule_out), marks))| {
                let start = c as u64 * CHECK_CHUNK;
                for (offset, at, position) in laid_out(index, held, start, dtw_out.len() as u64) {
                    let capture = CaptureTest::new(&position);
                    // Copied only where both values are derived: a stored one is read.
                    let derived = !capture.held_by(dtw_file) && !capture.held_by(rule_file);
                    if derived && classes.as_ref().is_some_and(|k| !k.is_canonical(&position)) {
                        Marked::mark(marks, offset);
                        continue;
                    }
                    let (score, gathered) = held_dtw(worker, tables, sig, dtw_file, at, &capture, Some(rules.set))?;
                    let Some(score) = score else {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    };
                    let drawn = score == Score::DRAW;
                    let rule =
                        held_rule(worker, tables, rules, context, sig, rule_file, at, &capture, drawn, gathered)?;
                    let Some(rule) = rule else {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    };
                    dtw_out[offset] = score.raw();
                    rule_out[offset] = rule_code(rule);
                }
                Ok::<(), TableError>(())
            },
        )?;
    if let Some(classes) = &classes {
        marked.copy_from_classes(classes, index, &mut dtw, Some(&mut rule_values));
    }
    Ok((!missing.into_inner()).then_some((dtw, Some(rule_values))))
}

/// Holds the DTW values of `pair` resident: the side that stores its values first, the
/// other side's found through it.
pub(super) fn hold_resident_dtw(
    tables: &mut Tables,
    pair: &[Signature],
    slice: Option<&PairSlice>,
    cache: &BlockReader,
    findings: &Findings,
    lane_room: u64,
) {
    for sig in stored_first(pair, &tables.dtw) {
        let held = slice.map(|s| s.held(sig));
        match resident_dtw(tables, sig, held, cache, lane_room) {
            Ok(Some(values)) => {
                tables.resident_dtw.insert(sig, Held::new(values, held));
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
}

/// Holds the rule values of `rules` of `pair` resident, beside those kept from the pairs
/// checked before.
pub(super) fn hold_resident_rules(
    tables: &mut Tables,
    rules: &DrawRules,
    pair: &[Signature],
    slice: Option<&PairSlice>,
    cache: &BlockReader,
    findings: &Findings,
) {
    tables.resident_rules = Some((rules.set, tables.kept_rules.remove(&rules.set).unwrap_or_default()));
    for sig in stored_first(pair, &tables.rules[&rules.set]) {
        let Some(context) = rules.context(sig) else { continue };
        let held = slice.map(|s| s.held(sig));
        match resident_rules(tables, rules, context, sig, held, cache) {
            Ok(Some(values)) => {
                if let Some((_, resident)) = tables.resident_rules.as_mut() {
                    resident.insert(sig, Held::new(values, held));
                }
            }
            Ok(None) => {}
            Err(e) => findings.bad(e),
        }
    }
}

/// The members of `pair` with a file among `files` that stores values, then those whose
/// file is found by search through them; members without a file are left out.
fn stored_first(pair: &[Signature], files: &BTreeMap<Signature, TableFile>) -> Vec<Signature> {
    let mut members: Vec<Signature> = pair.iter().copied().filter(|s| files.contains_key(s)).collect();
    members.sort_by_key(|s| files.get(s).is_some_and(|f| f.header().by_search()));
    members
}

/// The values of every position of `sig` in memory, `value` giving each (stored, or
/// derived where the file leaves the position out, as `stored` says); `Ok(None)` when
/// some value cannot be found (a table it leads to is missing: the positions are then
/// counted unverified by the check itself). Of a class of kings only its canonical
/// member's left-out value is derived; the other members copy it.
fn fill_resident<T: Copy + Default + Send + Sync>(
    tables: &Tables,
    sig: Signature,
    held: Option<&Placements>,
    shared: &BlockReader,
    stored: impl Fn(&CaptureTest) -> bool + Sync,
    value: impl Fn(&mut Worker, u64, &CaptureTest) -> Result<Option<T>, TableError> + Sync,
) -> Result<Option<Vec<T>>, TableError> {
    let index = &tables.index[&sig];
    let mut values = crate::memory::huge_vec(held.map_or(index.len(), Placements::positions) as usize, T::default());
    // A slice holds pairs with men, whose kings have no classes.
    let classes = KingClasses::of(index.variant(), sig).filter(|_| held.is_none());
    let mut marked = Marked::new(values.len());
    let missing = AtomicBool::new(false);
    values.par_chunks_mut(CHECK_CHUNK as usize).zip(marked.par_chunks_mut()).enumerate().try_for_each_init(
        || Worker::new(shared),
        |worker, (c, (out, marks))| {
            let start = c as u64 * CHECK_CHUNK;
            for (offset, at, position) in laid_out(index, held, start, out.len() as u64) {
                let capture = CaptureTest::new(&position);
                if !stored(&capture) && classes.as_ref().is_some_and(|k| !k.is_canonical(&position)) {
                    Marked::mark(marks, offset);
                    continue;
                }
                match value(worker, at, &capture)? {
                    Some(v) => out[offset] = v,
                    None => {
                        missing.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
            Ok::<(), TableError>(())
        },
    )?;
    if let Some(classes) = &classes {
        marked.copy_from_classes(classes, index, &mut values, None::<&mut Vec<u8>>);
    }
    Ok((!missing.into_inner()).then_some(values))
}

/// Every DTW value of `sig` ([`Score::raw`]), as [`fill_resident`] gives them (or
/// [`fill_by_lanes`], where `lane_room` allows).
fn resident_dtw(
    tables: &Tables,
    sig: Signature,
    held: Option<&Placements>,
    shared: &BlockReader,
    lane_room: u64,
) -> Result<Option<Vec<u16>>, TableError> {
    if held.is_none()
        && left_out_whole(tables, sig, None)
        && let Some((dtw, _)) = fill_by_lanes(tables, sig, None, shared, lane_room)?
    {
        return Ok(Some(dtw));
    }
    let file = &tables.dtw[&sig];
    fill_resident(
        tables,
        sig,
        held,
        shared,
        |capture| capture.held_by(file),
        |worker, at, capture| Ok(held_dtw(worker, tables, sig, file, at, capture, None)?.0.map(Score::raw)),
    )
}

/// Every rule value of `sig` under `rules` (the file's one-byte codes), as
/// [`fill_resident`] gives them.
fn resident_rules(
    tables: &Tables,
    rules: &DrawRules,
    context: kabe_probe::rules::Context,
    sig: Signature,
    held: Option<&Placements>,
    shared: &BlockReader,
) -> Result<Option<Vec<u8>>, TableError> {
    let file = &tables.rules[&rules.set][&sig];
    let drawn =
        |at: u64| tables.resident_dtw.get(&sig).and_then(|v| v.get(at)).is_some_and(|&v| v == Score::DRAW.raw());
    fill_resident(
        tables,
        sig,
        held,
        shared,
        |capture| capture.held_by(file),
        |worker, at, capture| {
            Ok(held_rule(worker, tables, rules, context, sig, file, at, capture, drawn(at), false)?.map(rule_code))
        },
    )
}

/// Whether the files of `sig` asked for (DTW, and the rule file of `rules` where given)
/// leave every position out: the side of its pair that [`fill_by_lanes`] fills.
fn left_out_whole(tables: &Tables, sig: Signature, rules: Option<RuleFile>) -> bool {
    tables.dtw[&sig].header().by_search() && rules.is_none_or(|(_, _, file)| file.header().by_search())
}

/// `sig`'s DTW values, and its rule values under `rules` (the count `Context` of its
/// rule file) where given, filled lane by lane ([`LoneKingLanes`]) from its colour flip's
/// resident values, where the lanes apply to its material and their transposed copy of
/// the flip's values fits in `room` bytes; `Ok(None)` elsewhere (the caller fills
/// position by position). The positions the lanes leave (a capture to make, or no move)
/// are derived as [`fill_resident`] derives them.
fn fill_by_lanes(
    tables: &Tables,
    sig: Signature,
    rules: Option<RuleFile>,
    shared: &BlockReader,
    room: u64,
) -> Result<Option<DtwAndRules>, TableError> {
    let dtw_file = &tables.dtw[&sig];
    let Some(lanes) = LoneKingLanes::new(*tables.index[&sig].variant(), sig) else { return Ok(None) };
    let flip = sig.flipped();
    let Some(flip_dtw) = tables.resident_dtw.get(&flip).and_then(Held::all) else { return Ok(None) };
    if lanes.transposed_bytes(rules.is_some()) > room {
        return Ok(None);
    }
    let flip_rules = match rules {
        None => None,
        Some((rules, context, _)) => {
            let values =
                tables.resident_rules.as_ref().filter(|(set, _)| *set == rules.set).and_then(|(_, r)| r.get(&flip));
            match (values.and_then(Held::all), RuleMerits::new(context.max_plies(rules))) {
                (Some(values), Some(merits)) => Some((values, merits)),
                _ => return Ok(None),
            }
        }
    };
    let at_hand = |worker: &mut Worker, at: u64, position: &Position| {
        let capture = CaptureTest::new(position);
        let set = rules.map(|(rules, _, _)| rules.set);
        let (score, gathered) = held_dtw(worker, tables, sig, dtw_file, at, &capture, set)?;
        let Some(score) = score else { return Ok(None) };
        let Some((rules, context, file)) = rules else { return Ok(Some((score.raw(), 0))) };
        let drawn = score == Score::DRAW;
        let rule = held_rule(worker, tables, rules, context, sig, file, at, &capture, drawn, gathered)?;
        Ok(rule.map(|rule| (score.raw(), rule_code(rule))))
    };
    let merits = flip_rules.as_ref().map(|(values, merits)| (*values, merits));
    lanes.fill(flip_dtw, merits, || Worker::new(shared), at_hand)
}

/// The positions a fill left to copy from their class's canonical member, one bit each,
/// a chunk's words apart from the others' so that each worker marks its own.
struct Marked {
    bits: Vec<u64>,
}

impl Marked {
    const WORDS_PER_CHUNK: usize = CHECK_CHUNK as usize / 64;
    /// Chunks whose copies are found at a time (their sources held meanwhile).
    const CHUNKS_AT_ONCE: usize = 256;

    fn new(positions: usize) -> Marked {
        Marked { bits: vec![0; positions.div_ceil(CHECK_CHUNK as usize) * Self::WORDS_PER_CHUNK] }
    }

    fn par_chunks_mut(&mut self) -> rayon::slice::ChunksMut<'_, u64> {
        self.bits.par_chunks_mut(Self::WORDS_PER_CHUNK)
    }

    fn mark(words: &mut [u64], offset: usize) {
        words[offset / 64] |= 1 << (offset % 64);
    }

    /// Copies into each marked position of `values` (and of `more`, filled alike) the
    /// value of its class's canonical member, which is never marked: a batch of chunks at
    /// a time, their sources found first, then written.
    fn copy_from_classes<T: Copy + Send + Sync, U: Copy + Send + Sync>(
        &self,
        classes: &KingClasses,
        index: &MaterialIndex,
        values: &mut [T],
        mut more: Option<&mut Vec<U>>,
    ) {
        let chunk = CHECK_CHUNK as usize;
        let chunks = values.len().div_ceil(chunk);
        for first in (0..chunks).step_by(Self::CHUNKS_AT_ONCE) {
            let batch = first..(first + Self::CHUNKS_AT_ONCE).min(chunks);
            let sources: Vec<Vec<(usize, usize)>> = batch
                .clone()
                .into_par_iter()
                .map(|c| {
                    let words = &self.bits[c * Self::WORDS_PER_CHUNK..(c + 1) * Self::WORDS_PER_CHUNK];
                    let mut found = Vec::new();
                    if words.iter().all(|&w| w == 0) {
                        return found;
                    }
                    // Stepped through in index order, not unranked one by one: most
                    // positions of a chunk are marked, and a step costs a fraction of an
                    // unranking.
                    let start = (c * chunk) as u64;
                    let range = start..(start + chunk as u64).min(index.len());
                    for (offset, (at, position)) in range.clone().zip(index.positions(range)).enumerate() {
                        if words[offset / 64] >> (offset % 64) & 1 != 0 {
                            found.push((offset, classes.canonical_index(index, at, &position) as usize));
                        }
                    }
                    found
                })
                .collect();
            copy_batch(values, batch.start, &sources);
            if let Some(more) = more.as_deref_mut() {
                copy_batch(more, batch.start, &sources);
            }
        }
    }
}

/// Writes into the chunks from `first_chunk` on, at each `(offset, source)` of
/// `sources` (one list a chunk), the value at `source`.
fn copy_batch<T: Copy + Send + Sync>(values: &mut [T], first_chunk: usize, sources: &[Vec<(usize, usize)>]) {
    let copied: Vec<Vec<T>> =
        sources.par_iter().map(|list| list.iter().map(|&(_, source)| values[source]).collect()).collect();
    values.par_chunks_mut(CHECK_CHUNK as usize).skip(first_chunk).zip(sources).zip(copied).for_each(
        |((out, list), copied)| {
            for (&(offset, _), value) in list.iter().zip(copied) {
                out[offset] = value;
            }
        },
    );
}

/// The positions of a fill's chunk, `len` values from `start` in its layout (every
/// position in index order, or the placements `held` in their order): each with its
/// offset in the chunk, its index and the position.
pub(super) fn laid_out<'a>(
    index: &'a MaterialIndex,
    held: Option<&'a Placements>,
    start: u64,
    len: u64,
) -> impl Iterator<Item = (usize, u64, Position)> + 'a {
    let ranges: Vec<(u64, std::ops::Range<u64>)> = match held {
        None => vec![(start, start..start + len)],
        Some(held) => held.ranges(start, start + len).collect(),
    };
    ranges.into_iter().flat_map(move |(laid, range)| {
        let first = (laid - start) as usize;
        range.clone().zip(index.positions(range)).enumerate().map(move |(i, (at, p))| (first + i, at, p))
    })
}

/// The DTW value of `position` (index `at` of `sig`) as the verifier holds it: stored,
/// settled by its material, or derived from its successors, and whether they were
/// gathered for that ([`Worker::gather`], for the rule values of `rules` too where given).
fn held_dtw(
    worker: &mut Worker,
    tables: &Tables,
    sig: Signature,
    file: &TableFile,
    at: u64,
    capture: &CaptureTest,
    rules: Option<DrawRuleSet>,
) -> Result<(Option<Score>, bool), TableError> {
    let position = capture.position;
    if capture.held_by(file) {
        return Ok((worker.cache.value(sig, file, at)?, false));
    }
    if let Some(settled) = position.settled_score() {
        return Ok((Some(settled), false));
    }
    worker.gather(tables, capture, true, rules);
    Ok((worker.derive(tables, position)?, true))
}

/// The rule value of `position` as the verifier holds it: stored, undecided where it is
/// drawn by its material or in theory (`drawn`: a count only turns wins into draws), or
/// derived from its successors (`gathered`: already gathered for this position).
#[allow(clippy::too_many_arguments)]
fn held_rule(
    worker: &mut Worker,
    tables: &Tables,
    rules: &DrawRules,
    context: kabe_probe::rules::Context,
    sig: Signature,
    file: &TableFile,
    at: u64,
    capture: &CaptureTest,
    drawn: bool,
    gathered: bool,
) -> Result<Option<RuleScore>, TableError> {
    let position = capture.position;
    if capture.held_by(file) {
        return worker.cache.rule_value(sig, file, at);
    }
    if position.is_drawn_by_material() || drawn {
        return Ok(Some(RuleScore::NONE));
    }
    if !gathered {
        worker.gather(tables, capture, false, Some(rules.set));
    }
    Gap::back(worker.derive_rule(tables, rules, context, position))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::report::VerifyReport;
    use crate::verify::sig_map::SigMap;
    use crate::{build, build_rules, keep_one_side, DroppedFiles};

    /// The lanes give every DTW and rule value of a table of kings against a lone king
    /// that the position-by-position fill gives (stored, or derived where left out), on
    /// both boards: their geometry, their transposed copy, the moves a lone king on the
    /// path stops, and the positions with a capture left to the fill.
    #[test]
    fn lanes_fill_a_table_of_kings_against_a_lone_king_as_position_by_position() {
        for (variant, pieces, set) in
            [(Variant::INTERNATIONAL, 3, DrawRuleSet::Fmjd), (Variant::RUSSIAN, 4, DrawRuleSet::Ussr1953)]
        {
            let dir = tempfile::tempdir().expect("a folder");
            build(variant, pieces, dir.path(), &|_| {}).expect("build");
            let rules = DrawRules::new(set, &variant);
            build_rules(variant, rules, pieces, dir.path(), &|_| {}).expect("rule tables");
            keep_one_side(dir.path(), variant, pieces, DroppedFiles::Replaced).expect("one side");
            let mut report = VerifyReport::default();
            let mut tables = crate::verify::open_set(dir.path(), variant, None, &mut report).expect("open");
            let cache = BlockReader::new(64 << 20);
            let lone: Vec<Signature> = tables
                .dtw
                .keys()
                .copied()
                .filter(|s| s.white_men == 0 && s.black_men == 0 && s.black_kings == 1 && s.white_kings >= 1)
                .collect();
            assert!(lone.len() >= pieces as usize - 1, "{variant:?}: {lone:?}");
            for sig in lone {
                tables.resident_rules = Some((set, SigMap::default()));
                let flip = sig.flipped();
                let hold = |tables: &mut Tables, s: Signature| {
                    let (dtw, rule_values) =
                        resident_together(tables, &rules, s, None, &cache, 0).expect("read").expect("all");
                    tables.resident_dtw.insert(s, Held::whole(dtw));
                    if let (Some(values), Some((_, resident))) = (rule_values, tables.resident_rules.as_mut()) {
                        resident.insert(s, Held::whole(values));
                    }
                };
                hold(&mut tables, flip);
                let expected = resident_together(&tables, &rules, sig, None, &cache, 0).expect("read").expect("all");
                let rule_file = rules.context(sig).map(|c| (&rules, c, &tables.rules[&set][&sig]));
                let lanes = fill_by_lanes(&tables, sig, rule_file, &cache, u64::MAX).expect("read").expect("lanes");
                assert_eq!(lanes.0, expected.0, "{variant:?} {sig}: DTW");
                assert_eq!(lanes.1, expected.1, "{variant:?} {sig}: rule values");
                assert!(lanes.1.is_some() == rule_file.is_some());
                // No room for the copy: the caller fills position by position.
                assert!(fill_by_lanes(&tables, sig, rule_file, &cache, 0).expect("read").is_none());
                tables.resident_dtw.clear();
            }
        }
    }
}
