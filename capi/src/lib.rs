//! The C interface of kabe's probe library, in the style of Kingsrow's egdb driver: open a
//! table directory with options into an opaque handle, probe positions given as plain
//! bitboards, get integer status codes, close. Every call is thread-safe on one handle.
//!
//! The header `capi/include/kabe.h` is generated from this file by cbindgen (a test keeps
//! it current); `capi/README.md` is the reference of every function. Positions are bitboards in square-number order: bit `n - 1` is square `n`
//! of the variant's numeric notation (1-50 on 10x10, 1-32 on 8x8, as in PDN FEN).
//!
//! ```c
//! kabe_options options = kabe_default_options();
//! options.cache_bytes = 256u << 20;
//! kabe_tablebase *tb;
//! char error[512];
//! if (kabe_open("tables", &options, &tb, error, sizeof error) != KABE_OK) { puts(error); return 1; }
//! kabe_position p = { KABE_INTERNATIONAL, white, black, kings, KABE_WHITE };
//! int result;
//! if (kabe_probe_wld(tb, &p, &result) == KABE_OK && result == KABE_WIN) { ... }
//! kabe_close(tb);
//! ```

use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use kabe_probe::request::read_rules;
use kabe_probe::rules::MaterialCount;
use kabe_probe::table::TableError;
use kabe_probe::tablebase::{ProbeError, Tablebase};
use kabe_probe::{Color, Counters, DrawRuleSet, PieceKind, Position, Setup, SetupPiece, Variant, Wld};

/// Success.
pub const KABE_OK: c_int = 0;
/// A null pointer or an argument out of range (variant, side to move, buffer).
pub const KABE_ERR_ARGUMENT: c_int = -1;
/// The bitboards are not a position of the variant (overlapping sides, a king bit
/// without a piece, a square beyond the board, a man on its promotion row).
pub const KABE_ERR_POSITION: c_int = -2;
/// No table holds the position's material (and it has no capture leading into range).
pub const KABE_ERR_NO_TABLE: c_int = -3;
/// A table file is damaged or truncated.
pub const KABE_ERR_CORRUPT: c_int = -4;
/// A table file of another format version.
pub const KABE_ERR_VERSION: c_int = -5;
/// A table file of another variant, material or metric than its name says, or not a
/// kabe table at all.
pub const KABE_ERR_FOREIGN: c_int = -6;
/// The directory or a file cannot be read.
pub const KABE_ERR_IO: c_int = -7;
/// A cache-only probe whose block is not in the cache (not an error: probe later).
pub const KABE_NOT_CACHED: c_int = -8;
/// The handle was opened without this variant's tables.
pub const KABE_ERR_VARIANT: c_int = -9;
/// Counters that cannot belong to the position (unknown article, beyond the limit).
pub const KABE_ERR_COUNTERS: c_int = -10;
/// The move buffer is too small; `*count` says how many moves there are.
pub const KABE_ERR_BUFFER: c_int = -11;
/// A bug in kabe (a caught panic); please report it.
pub const KABE_ERR_INTERNAL: c_int = -12;
/// `kabe_probe_wld_stored`: the table leaves the position out (a capture to make, or
/// the colour flip's table holds the pair); not an error: search one ply further.
pub const KABE_NOT_STORED: c_int = -13;

/// The side to move wins.
pub const KABE_WIN: c_int = 1;
/// Neither side can force a win.
pub const KABE_DRAW: c_int = 0;
/// The side to move loses.
pub const KABE_LOSS: c_int = -1;

/// International draughts, 10x10 (FMJD).
pub const KABE_INTERNATIONAL: c_int = 0;
/// Russian draughts, 8x8.
pub const KABE_RUSSIAN: c_int = 1;
/// Russian draughts with free landing after a king's capture.
pub const KABE_RUSSIAN_FREE_LANDING: c_int = 2;
/// Kabe (the Estonian family game), 8x8.
pub const KABE_KABE: c_int = 3;
/// Kabe with short king captures.
pub const KABE_KABE_SHORT_KING_CAPTURE: c_int = 4;
/// English draughts (American checkers), 8x8.
pub const KABE_ENGLISH: c_int = 5;
/// Italian draughts, 8x8 (squares numbered as kabe's board, not mirrored: see docs/variants.md).
pub const KABE_ITALIAN: c_int = 6;
/// American pool checkers, 8x8.
pub const KABE_POOL: c_int = 7;
/// Brazilian draughts, 8x8.
pub const KABE_BRAZILIAN: c_int = 8;
/// Czech draughts, 8x8.
pub const KABE_CZECH: c_int = 9;
/// Giveaway on the family game's 8x8 board (the first without a piece or a move wins).
pub const KABE_GIVEAWAY: c_int = 10;
/// International draughts played to lose (antidraughts), 10x10.
pub const KABE_ANTIDRAUGHTS: c_int = 11;
/// Russian draughts played to lose (poddavki), 8x8.
pub const KABE_PODDAVKI: c_int = 12;
/// Turkish draughts (the orthogonal board).
pub const KABE_TURKISH: c_int = 13;
/// Turkish draughts, a man crowned mid-capture only where the capture ends.
pub const KABE_TURKISH_CROWN_AT_END: c_int = 14;
/// Turkish draughts, a man crowned mid-capture ends the move.
pub const KABE_TURKISH_CROWN_AND_STOP: c_int = 15;

/// White to move.
pub const KABE_WHITE: c_int = 0;
/// Black to move.
pub const KABE_BLACK: c_int = 1;

/// `kabe_counters.material_strong`: the side is read from the material.
pub const KABE_STRONG_FROM_MATERIAL: c_int = 0;
/// `kabe_counters.material_strong`: White had the kings.
pub const KABE_STRONG_WHITE: c_int = 1;
/// `kabe_counters.material_strong`: Black had the kings.
pub const KABE_STRONG_BLACK: c_int = 2;

/// An open table directory. Opaque; free it with `kabe_close`.
pub struct KabeTablebase {
    tb: Tablebase,
}

/// Options for `kabe_open`; start from `kabe_default_options()`.
#[repr(C)]
pub struct KabeOptions {
    /// Bytes of decompressed blocks to keep in memory, shared by all threads.
    pub cache_bytes: usize,
    /// The draw rules probes apply when the counters name none (`kabe_counters.rules`
    /// NULL, or no counters): "fmjd", "fmjd-2000", "fmjd-6.4-stands", "ussr1953",
    /// "ussr1953-count-ends", "none", for the variants the set is written for; NULL for
    /// each variant's own set.
    pub rules: *const c_char,
}

/// A position: bit `n - 1` of each board is square `n`.
#[repr(C)]
pub struct KabePosition {
    /// `KABE_INTERNATIONAL`, `KABE_RUSSIAN`, ...
    pub variant: c_int,
    /// White's pieces.
    pub white: u64,
    /// Black's pieces.
    pub black: u64,
    /// The kings among them.
    pub kings: u64,
    /// `KABE_WHITE` or `KABE_BLACK`.
    pub side_to_move: c_int,
}

/// The running counts of the draw rules, in plies.
#[repr(C)]
pub struct KabeCounters {
    /// Plies since the reset count (FMJD 6.2, USSR 16b) was last reset.
    pub reset_plies: u16,
    /// Plies since the material count's material arose.
    pub material_plies: u16,
    /// The material count's article ("6.3", "6.4", "16c", "31"), or NULL when none runs
    /// (one is started if the position's material has one).
    pub material_article: *const c_char,
    /// For the 1953 deadline (16c, 31), the side that had the kings when it began:
    /// `KABE_STRONG_WHITE` or `KABE_STRONG_BLACK`; `KABE_STRONG_FROM_MATERIAL` (0, what a
    /// zeroed struct holds) reads it from the position, which a king against a king cannot
    /// tell (`KABE_ERR_COUNTERS`).
    pub material_strong: c_int,
    /// The draw-rule set the counts belong to (`fmjd`, `fmjd-2000`, `fmjd-6.4-stands`,
    /// `ussr1953`, `ussr1953-count-ends`, `none`), or NULL (what a zeroed struct holds)
    /// for the set chosen at open. One handle answers under every set whose tables the
    /// directory holds; a set not written for the position's game is `KABE_ERR_COUNTERS`.
    pub rules: *const c_char,
}

/// The exact verdict of a position.
#[repr(C)]
pub struct KabeVerdict {
    /// `KABE_WIN`, `KABE_DRAW` or `KABE_LOSS` under the draw rules.
    pub exact: c_int,
    /// The same without the counted draw rules.
    pub theoretical: c_int,
    /// Plies to the end of the game with best play, ignoring the counts; -1 for a draw.
    pub theoretical_plies: c_int,
    /// Plies left on the count that governs the position; -1 when none does.
    pub plies_left: c_int,
    /// That count's article, NUL-terminated ("" when none).
    pub article: [c_char; 8],
}

/// A move with the exact result it leads to.
#[repr(C)]
pub struct KabeMove {
    /// Square number moved from.
    pub from: u8,
    /// Square number moved to.
    pub to: u8,
    /// The captured pieces (bit `n - 1` for square `n`).
    pub captured: u64,
    /// `KABE_WIN`, `KABE_DRAW` or `KABE_LOSS` for the side making the move.
    pub exact: c_int,
}

fn status_of(e: &ProbeError) -> c_int {
    match e {
        ProbeError::Table(TableError::Missing { .. } | TableError::FlipMissing { .. })
        | ProbeError::NoTable { .. }
        | ProbeError::TooManyPieces { .. } => KABE_ERR_NO_TABLE,
        ProbeError::Table(TableError::Corrupt { .. }) => KABE_ERR_CORRUPT,
        ProbeError::Table(TableError::Version { .. }) => KABE_ERR_VERSION,
        ProbeError::Table(TableError::Foreign { .. } | TableError::OtherGame { .. } | TableError::NotATable { .. }) => {
            KABE_ERR_FOREIGN
        }
        ProbeError::Table(TableError::Io { .. }) | ProbeError::Directory { .. } => KABE_ERR_IO,
        ProbeError::VariantNotOpen { .. } => KABE_ERR_VARIANT,
        ProbeError::NotCached => KABE_NOT_CACHED,
        ProbeError::Counters(_) => KABE_ERR_COUNTERS,
        // A case newer than this list (the error enums are open to growth): the most
        // general code, a table or directory that cannot be read; the message says more.
        _ => KABE_ERR_IO,
    }
}

fn wld_code(w: Wld) -> c_int {
    match w {
        Wld::Win => KABE_WIN,
        Wld::Draw => KABE_DRAW,
        Wld::Loss => KABE_LOSS,
    }
}

/// Runs `f`, turning a panic into `KABE_ERR_INTERNAL`: no unwinding crosses into C.
fn guarded(f: impl FnOnce() -> Result<(), c_int>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => KABE_OK,
        Ok(Err(code)) => code,
        Err(_) => KABE_ERR_INTERNAL,
    }
}

/// Copies `text` into a caller's buffer, NUL-terminated and cut to fit.
///
/// # Safety
/// `buf` is null or valid for `len` bytes.
unsafe fn write_text(text: &str, buf: *mut c_char, len: usize) {
    if buf.is_null() || len == 0 {
        return;
    }
    let n = text.len().min(len - 1);
    // SAFETY: the caller gives `len` writable bytes; n + 1 <= len.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, n);
        *buf.add(n) = 0;
    }
}

/// # Safety
/// `text` is null or a NUL-terminated string.
unsafe fn optional_str<'a>(text: *const c_char) -> Result<Option<&'a str>, c_int> {
    if text.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller passes a NUL-terminated string.
    let text = unsafe { CStr::from_ptr(text) };
    text.to_str().map(Some).map_err(|_| KABE_ERR_ARGUMENT)
}

/// The position the bitboards describe.
fn position_of(p: &KabePosition) -> Result<Position, c_int> {
    let variant = usize::try_from(p.variant).ok().and_then(|i| Variant::ALL.get(i)).ok_or(KABE_ERR_ARGUMENT)?;
    let turn = match p.side_to_move {
        KABE_WHITE => Color::White,
        KABE_BLACK => Color::Black,
        _ => return Err(KABE_ERR_ARGUMENT),
    };
    if p.white & p.black != 0 || p.kings & !(p.white | p.black) != 0 {
        return Err(KABE_ERR_POSITION);
    }
    let mut setup = Setup { turn: Some(turn), pieces: Vec::new() };
    for (color, board) in [(Color::White, p.white), (Color::Black, p.black)] {
        let mut bits = board;
        while bits != 0 {
            let square = bits.trailing_zeros();
            bits &= bits - 1;
            let kind = if p.kings >> square & 1 == 1 { PieceKind::King } else { PieceKind::Man };
            setup.pieces.push(SetupPiece { color, kind, square: square + 1 });
        }
    }
    Position::from_setup(*variant, &setup).map_err(|_| KABE_ERR_POSITION)
}

/// # Safety
/// `tb` is null or a handle from `kabe_open` not yet closed; `position` is null or valid
/// for reads of a `KabePosition`.
unsafe fn handle_and_position<'a>(
    tb: *const KabeTablebase,
    position: *const KabePosition,
) -> Result<(&'a Tablebase, Position), c_int> {
    // SAFETY: the caller passes a handle from kabe_open (or null) and a valid position.
    let (tb, position) = unsafe { (tb.as_ref(), position.as_ref()) };
    let (Some(tb), Some(position)) = (tb, position) else { return Err(KABE_ERR_ARGUMENT) };
    Ok((&tb.tb, position_of(position)?))
}

/// # Safety
/// `counters` is null or valid for reads of a `KabeCounters`, and its `rules` and
/// `material_article` are each null or NUL-terminated.
unsafe fn counters_of(tb: &Tablebase, position: &Position, counters: *const KabeCounters) -> Result<Counters, c_int> {
    let default = *tb.draw_rules(position.variant()).ok_or(KABE_ERR_VARIANT)?;
    // SAFETY: `counters` is null or valid for reads of a `KabeCounters`, as this function's
    // contract says.
    let Some(c) = (unsafe { counters.as_ref() }) else { return Ok(Counters::fresh(&default, position)) };
    // SAFETY: `c.rules` is null or NUL-terminated, as this function's contract says of the
    // counters' strings.
    // A rule-set name is read as every front end reads a probe request's (a blank one, as
    // NULL, is the set chosen at open).
    let rules = match unsafe { optional_str(c.rules) }?.filter(|name| !name.trim().is_empty()) {
        None => default,
        Some(name) => read_rules(Some(name), position.variant()).map_err(|_| KABE_ERR_COUNTERS)?,
    };
    let rules = &rules;
    // SAFETY: `c.material_article` is null or NUL-terminated, as this function's contract
    // says of the counters' strings.
    let article = unsafe { optional_str(c.material_article) }?;
    let material = match article {
        None => None,
        Some(name) => {
            let rule = rules.material.iter().position(|r| r.article == name).ok_or(KABE_ERR_COUNTERS)?;
            let strong = match c.material_strong {
                KABE_STRONG_FROM_MATERIAL => None,
                KABE_STRONG_WHITE => Some(Color::White),
                KABE_STRONG_BLACK => Some(Color::Black),
                _ => return Err(KABE_ERR_COUNTERS),
            };
            Some(MaterialCount { rule, plies: c.material_plies, strong })
        }
    };
    Counters::new(rules, position, c.reset_plies, material).map_err(|_| KABE_ERR_COUNTERS)
}

/// The default options: a 64 MiB cache and each variant's own draw rules.
#[unsafe(no_mangle)]
pub extern "C" fn kabe_default_options() -> KabeOptions {
    KabeOptions { cache_bytes: kabe_probe::tablebase::DEFAULT_CACHE_BYTES, rules: std::ptr::null() }
}

/// Opens the tables under `dir` (folders per variant: `dir/international/...`), reading
/// every header. On success `*out` is the handle; on failure `*out` is NULL and a message
/// naming the file or folder is written to `error` (if not NULL, at most `error_len`
/// bytes). See capi/README.md for every function's arguments, returns and errors.
///
/// # Safety
/// `dir` is null or a NUL-terminated path; `options` is null (defaults) or valid for reads
/// of a `kabe_options` whose `rules` is null or NUL-terminated; `out` is null or valid for
/// writes of a pointer; `error` is null or valid for writes of `error_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_open(
    dir: *const c_char,
    options: *const KabeOptions,
    out: *mut *mut KabeTablebase,
    error: *mut c_char,
    error_len: usize,
) -> c_int {
    guarded(|| {
        // SAFETY: `error` is null or valid for writes of `error_len` bytes, as kabe_open's
        // contract says.
        let fail = |code: c_int, text: &str| unsafe {
            write_text(text, error, error_len);
            code
        };
        if out.is_null() {
            return Err(fail(KABE_ERR_ARGUMENT, "out is NULL"));
        }
        // SAFETY: out is valid (checked non-null above); a failure leaves it NULL.
        unsafe { *out = std::ptr::null_mut() };
        // SAFETY: `dir` is null (refused) or NUL-terminated, as kabe_open's contract says.
        let dir = unsafe { optional_str(dir) }.ok().flatten().ok_or_else(|| fail(KABE_ERR_ARGUMENT, "bad dir"))?;
        let defaults = kabe_default_options();
        // SAFETY: `options` is null (the defaults) or valid for reads of a `KabeOptions`, as
        // kabe_open's contract says.
        let options = unsafe { options.as_ref() }.unwrap_or(&defaults);
        if options.cache_bytes > kabe_probe::tablebase::MAX_CACHE_BYTES {
            let most = kabe_probe::tablebase::MAX_CACHE_BYTES;
            return Err(fail(
                KABE_ERR_ARGUMENT,
                &format!("cache_bytes {}: from 0 to {most} (1 TiB)", options.cache_bytes),
            ));
        }
        let mut builder = Tablebase::builder(Path::new(dir)).cache_bytes(options.cache_bytes);
        // SAFETY: `options.rules` is null or NUL-terminated, as kabe_open's contract says of
        // the options (KabeOptions::rules).
        if let Some(name) = unsafe { optional_str(options.rules) }.map_err(|c| fail(c, "rules is not UTF-8"))? {
            let set: DrawRuleSet = name.parse().map_err(|e| fail(KABE_ERR_ARGUMENT, &format!("{e}")))?;
            builder = builder.rules(set);
        }
        let tb = builder.open().map_err(|e| fail(status_of(&e), &e.to_string()))?;
        // SAFETY: out is valid (checked non-null above).
        unsafe { *out = Box::into_raw(Box::new(KabeTablebase { tb })) };
        Ok(())
    })
}

/// Frees a handle from `kabe_open` (NULL is ignored). No probe may be running on it.
///
/// # Safety
/// `tb` is null or a handle from `kabe_open` not yet closed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_close(tb: *mut KabeTablebase) {
    if !tb.is_null() {
        // SAFETY: the handle came from Box::into_raw in kabe_open.
        drop(unsafe { Box::from_raw(tb) });
    }
}

/// The largest number of pieces up to which `variant`'s tables are complete (0: none),
/// or a negative status.
///
/// # Safety
/// `tb` is null or a handle from `kabe_open` not yet closed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_max_pieces(tb: *const KabeTablebase, variant: c_int) -> c_int {
    // SAFETY: `tb` is null or a live handle from kabe_open, as kabe_max_pieces's contract says.
    let Some(tb) = (unsafe { tb.as_ref() }) else { return KABE_ERR_ARGUMENT };
    let Some(v) = usize::try_from(variant).ok().and_then(|i| Variant::ALL.get(i)) else { return KABE_ERR_ARGUMENT };
    tb.tb.max_pieces_of(v) as c_int
}

/// The one body of the `kabe_probe_wld*` functions: the handle and position read,
/// `probe` asked, its answer written to `*result` as `KABE_WIN`, `KABE_DRAW` or
/// `KABE_LOSS`, a failure returned as its status.
///
/// # Safety
/// As each `kabe_probe_wld*` documents: `tb` is null or a handle from `kabe_open` not yet
/// closed, `position` null or valid for reads of a `KabePosition`, `result` null or valid
/// for writes of a `c_int`.
unsafe fn probe_wld_into(
    tb: *const KabeTablebase,
    position: *const KabePosition,
    result: *mut c_int,
    probe: impl FnOnce(&Tablebase, &Position) -> Result<Wld, c_int>,
) -> c_int {
    guarded(|| {
        // SAFETY: `tb` and `position` are null or valid, as this function's contract says.
        let (tb, p) = unsafe { handle_and_position(tb, position) }?;
        let w = probe(tb, &p)?;
        // SAFETY: `result` is null (refused here) or valid for writes, as this function's
        // contract says.
        unsafe { result.as_mut() }.map(|r| *r = wld_code(w)).ok_or(KABE_ERR_ARGUMENT)
    })
}

/// Win, draw or loss for the side to move, ignoring the counted draw rules, into
/// `*result` (`KABE_WIN`, `KABE_DRAW`, `KABE_LOSS`).
///
/// # Safety
/// `tb` is null or a handle from `kabe_open` not yet closed; `position` is null or valid
/// for reads of a `kabe_position`; `result` is null or valid for writes of an `int`
/// (null is `KABE_ERR_ARGUMENT`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_probe_wld(
    tb: *const KabeTablebase,
    position: *const KabePosition,
    result: *mut c_int,
) -> c_int {
    // SAFETY: the caller's promise above is the helper's contract.
    unsafe { probe_wld_into(tb, position, result, |tb, p| tb.probe_wld(p).map_err(|e| status_of(&e))) }
}

/// As `kabe_probe_wld`, but never reads a file: `KABE_NOT_CACHED` when the block is not
/// in memory. For deep in a search.
///
/// # Safety
/// As `kabe_probe_wld`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_probe_wld_cached(
    tb: *const KabeTablebase,
    position: *const KabePosition,
    result: *mut c_int,
) -> c_int {
    // SAFETY: the caller's promise (as kabe_probe_wld's) is the helper's contract.
    unsafe {
        probe_wld_into(tb, position, result, |tb, p| {
            tb.probe_wld_cached(p).map_err(|e| status_of(&e))?.ok_or(KABE_NOT_CACHED)
        })
    }
}

/// The WLD value the position's table stores, one lookup and no search:
/// `KABE_NOT_STORED` for a position the table leaves out (a capture to make, or a table
/// whose colour flip holds the pair), which `kabe_probe_wld` resolves by a one-ply
/// search. For an engine's search, which looks one ply further anyway.
///
/// # Safety
/// As `kabe_probe_wld`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_probe_wld_stored(
    tb: *const KabeTablebase,
    position: *const KabePosition,
    result: *mut c_int,
) -> c_int {
    // SAFETY: the caller's promise (as kabe_probe_wld's) is the helper's contract.
    unsafe {
        probe_wld_into(tb, position, result, |tb, p| {
            tb.probe_wld_stored(p).map_err(|e| status_of(&e))?.ok_or(KABE_NOT_STORED)
        })
    }
}

/// The exact verdict under the draw rules of `counters` (their `rules`, else the set
/// chosen at open), with their running counts (NULL: counts start now, under the set
/// chosen at open).
///
/// # Safety
/// `tb` is null or a handle from `kabe_open` not yet closed; `position` is null or valid
/// for reads of a `kabe_position`; `counters` is null or valid for reads of a
/// `kabe_counters` whose strings are null or NUL-terminated; `verdict` is null or valid
/// for writes of a `kabe_verdict` (a null handle, position or verdict is
/// `KABE_ERR_ARGUMENT`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_probe(
    tb: *const KabeTablebase,
    position: *const KabePosition,
    counters: *const KabeCounters,
    verdict: *mut KabeVerdict,
) -> c_int {
    guarded(|| {
        // SAFETY: `tb` and `position` are null or valid (a live handle; a readable
        // `kabe_position`), as kabe_probe's contract says.
        let (tb, p) = unsafe { handle_and_position(tb, position) }?;
        // SAFETY: `counters` is null or a readable `kabe_counters` whose strings are null or
        // NUL-terminated, as kabe_probe's contract says.
        let counters = unsafe { counters_of(tb, &p, counters) }?;
        let v = tb.probe(&p, &counters).map_err(|e| status_of(&e))?;
        let mut article = [0 as c_char; 8];
        if let Some((name, _)) = v.count {
            for (slot, byte) in article.iter_mut().zip(name.bytes().take(7)) {
                *slot = byte as c_char;
            }
        }
        let out = KabeVerdict {
            exact: wld_code(v.exact),
            theoretical: wld_code(v.theoretical.wld()),
            theoretical_plies: v.theoretical.plies().map_or(-1, c_int::from),
            plies_left: v.count.map_or(-1, |(_, left)| c_int::from(left)),
            article,
        };
        // SAFETY: `verdict` is null (refused) or valid for writes of a `kabe_verdict`, as
        // kabe_probe's contract says.
        unsafe { verdict.as_mut() }.map(|r| *r = out).ok_or(KABE_ERR_ARGUMENT)
    })
}

/// The moves that keep the exact verdict, best first, into `moves` (room for
/// `capacity`); `*count` is set to their number. `KABE_ERR_BUFFER` when they do not fit.
///
/// # Safety
/// `tb`, `position` and `counters` as for `kabe_probe`; `moves` is null or valid for
/// writes of `capacity` `kabe_move` entries; `count` is null or valid for writes of a
/// `size_t` (a null handle, position or count is `KABE_ERR_ARGUMENT`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_best_moves(
    tb: *const KabeTablebase,
    position: *const KabePosition,
    counters: *const KabeCounters,
    moves: *mut KabeMove,
    capacity: usize,
    count: *mut usize,
) -> c_int {
    guarded(|| {
        // SAFETY: `tb` and `position` are null or valid (a live handle; a readable
        // `kabe_position`), as kabe_best_moves's contract says.
        let (tb, p) = unsafe { handle_and_position(tb, position) }?;
        // SAFETY: `counters` is null or a readable `kabe_counters` whose strings are null or
        // NUL-terminated, as kabe_best_moves's contract says.
        let counters = unsafe { counters_of(tb, &p, counters) }?;
        let best = tb.best_moves(&p, &counters).map_err(|e| status_of(&e))?;
        // SAFETY: `count` is null (refused) or valid for writes of a `size_t`, as
        // kabe_best_moves's contract says.
        let count = unsafe { count.as_mut() }.ok_or(KABE_ERR_ARGUMENT)?;
        *count = best.len();
        if best.len() > capacity {
            return Err(KABE_ERR_BUFFER);
        }
        if moves.is_null() && !best.is_empty() {
            return Err(KABE_ERR_ARGUMENT);
        }
        let variant = *p.variant();
        for (i, m) in best.iter().enumerate() {
            let captured = m.mv.captured_squares(&variant).fold(0u64, |bits, s| bits | 1u64 << (s.number() - 1));
            let entry = KabeMove {
                from: m.mv.from().number() as u8,
                to: m.mv.to().number() as u8,
                captured,
                exact: wld_code(m.exact),
            };
            // SAFETY: i < best.len() <= capacity.
            unsafe { moves.add(i).write(entry) };
        }
        Ok(())
    })
}

/// Writes what went wrong with a WLD probe of `position` (the file and material named)
/// into `buf`; returns the probe's status. For messages after a failed `kabe_probe_wld`.
///
/// # Safety
/// `tb` and `position` as for `kabe_probe_wld`; `buf` is null or valid for writes of `len`
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kabe_explain(
    tb: *const KabeTablebase,
    position: *const KabePosition,
    buf: *mut c_char,
    len: usize,
) -> c_int {
    // SAFETY: `tb` and `position` are null or valid (a live handle; a readable
    // `kabe_position`), as kabe_explain's contract says.
    guarded(|| match unsafe { handle_and_position(tb, position) } {
        Err(code) => {
            // SAFETY: `buf` is null or valid for writes of `len` bytes, as kabe_explain's contract says.
            unsafe { write_text(status_text(code).to_str().unwrap_or(""), buf, len) };
            Err(code)
        }
        Ok((tb, p)) => {
            let outcome = tb.probe_wld(&p);
            let text = match &outcome {
                Ok(w) => w.to_string(),
                Err(e) => e.to_string(),
            };
            // SAFETY: `buf` is null or valid for writes of `len` bytes, as kabe_explain's contract says.
            unsafe { write_text(&text, buf, len) };
            outcome.map(|_| ()).map_err(|e| status_of(&e))
        }
    })
}

/// The version of this library, `MAJOR.MINOR.PATCH`, static and NUL-terminated: the
/// table format a handle reads is the one of this version.
#[unsafe(no_mangle)]
pub extern "C" fn kabe_version() -> *const c_char {
    static VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => panic!("the package version has no NUL"),
    };
    VERSION.as_ptr()
}

/// A static, NUL-terminated description of a status code.
#[unsafe(no_mangle)]
pub extern "C" fn kabe_status_string(status: c_int) -> *const c_char {
    status_text(status).as_ptr()
}

fn status_text(status: c_int) -> &'static CStr {
    match status {
        KABE_OK => c"ok",
        KABE_ERR_ARGUMENT => c"bad argument",
        KABE_ERR_POSITION => c"not a position of the variant",
        KABE_ERR_NO_TABLE => c"no table for this material",
        KABE_ERR_CORRUPT => c"corrupt table file",
        KABE_ERR_VERSION => c"table file of another format version",
        KABE_ERR_FOREIGN => c"table file of another variant or material",
        KABE_ERR_IO => c"cannot read the table directory or file",
        KABE_NOT_CACHED => c"not in the cache",
        KABE_ERR_VARIANT => c"the handle has no tables of this variant",
        KABE_ERR_COUNTERS => c"counters impossible for the position",
        KABE_ERR_BUFFER => c"move buffer too small",
        KABE_ERR_INTERNAL => c"internal error",
        KABE_NOT_STORED => c"not stored: the table leaves the position out (search one ply further)",
        _ => c"unknown status",
    }
}
