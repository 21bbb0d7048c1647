//! The memory a build may use: a budget, not a consequence of the piece count.

/// Peak memory a build may use, in bytes. Part of it is the block cache through which
/// finished tables are read; the rest holds the working state of the pairs being solved
/// (the solver's two bytes per position), and a pair that does not fit is an error
/// before any work on it, never a run that swaps or is killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    /// The whole budget.
    pub bytes: u64,
}

/// Bytes kept aside for everything that is neither cache nor pair state: the program,
/// thread stacks, mapped table headers, compressed blocks waiting to be written.
const RESERVE: u64 = 192 << 20;

/// The largest budget taken: 1024 TiB, past any machine's memory.
const MAX_BYTES: u64 = 1 << 50;

/// The largest block cache taken ([`kabe_probe::tablebase::MAX_CACHE_BYTES`]).
const MAX_CACHE_BYTES: u64 = kabe_probe::tablebase::MAX_CACHE_BYTES as u64;

/// `4G`, `512M`, `1.5GiB`, `2048MB` or a plain number of bytes (K, M, G and T are powers
/// of 1024), as a number of bytes; an error quotes the text.
fn parse_size(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: f64 =
        number.parse().map_err(|_| format!("memory size {text:?}: expected a number and a unit, e.g. 4G"))?;
    let shift = match unit.trim().to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("memory size {text:?}: unknown unit {unit:?} (K, M, G or T)")),
    };
    Ok(number * (1u64 << shift) as f64)
}

/// A block cache's size (`kabe serve --cache`): as [`MemoryBudget::parse`] reads it,
/// from 0 to [`MAX_CACHE_BYTES`].
pub fn parse_cache_bytes(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text)?;
    if !bytes.is_finite() || bytes > MAX_CACHE_BYTES as f64 {
        return Err(format!("cache size {text:?}: from 0 to 1T"));
    }
    Ok(bytes as u64)
}

impl MemoryBudget {
    /// A budget of `bytes`.
    pub const fn new(bytes: u64) -> MemoryBudget {
        MemoryBudget { bytes }
    }

    /// Parses `4G`, `512M`, `1.5GiB`, `2048MB` or a plain number of bytes; K, M, G and T
    /// are powers of 1024.
    pub fn parse(text: &str) -> Result<MemoryBudget, String> {
        let bytes = parse_size(text)?;
        if bytes.is_nan() || bytes < (256u64 << 20) as f64 || !bytes.is_finite() {
            return Err(format!("memory size {text:?}: a build needs at least 256M"));
        }
        if bytes > MAX_BYTES as f64 {
            return Err(format!("memory size {text:?}: at most 1024T"));
        }
        Ok(MemoryBudget::new(bytes as u64))
    }

    /// The block cache for reading finished tables: an eighth of the budget, 32 MiB to
    /// 1 GiB (a larger cache barely helps: a pair's lookups go to few blocks at a time).
    pub fn cache_bytes(self) -> usize {
        (self.bytes / 8).clamp(32 << 20, 1 << 30) as usize
    }

    /// The smallest budget (in whole MiB, at least 256 MiB) whose [`pair_bytes`]
    /// hold `working_bytes`: what one job of a cluster build asks for.
    ///
    /// [`pair_bytes`]: MemoryBudget::pair_bytes
    pub fn covering(working_bytes: u64) -> MemoryBudget {
        const MIB: u64 = 1 << 20;
        // The cache takes at least 32 MiB; at most a thousand steps of a MiB from there.
        let mut bytes = (256 * MIB).max((working_bytes + RESERVE + 32 * MIB).div_ceil(MIB) * MIB);
        while MemoryBudget::new(bytes).pair_bytes() < working_bytes {
            bytes += MIB;
        }
        MemoryBudget::new(bytes)
    }

    /// What is left for the working state of the pairs solved at once.
    pub fn pair_bytes(self) -> u64 {
        self.bytes.saturating_sub(self.cache_bytes() as u64 + RESERVE)
    }
}

impl Default for MemoryBudget {
    /// 4 GiB: enough for every table up to 5 pieces of international draughts and up
    /// to 6 of Russian. The command line's default is set from the machine instead.
    fn default() -> MemoryBudget {
        MemoryBudget::new(4 << 30)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units_and_bad_ones_are_named() {
        assert_eq!(MemoryBudget::parse("4G").map(|b| b.bytes), Ok(4 << 30));
        assert_eq!(MemoryBudget::parse("1.5GiB").map(|b| b.bytes), Ok(3 << 29));
        assert_eq!(MemoryBudget::parse("512MB").map(|b| b.bytes), Ok(512 << 20));
        assert_eq!(MemoryBudget::parse("1073741824").map(|b| b.bytes), Ok(1 << 30));
        assert!(MemoryBudget::parse("4X").expect_err("bad unit").contains("unknown unit"));
        assert!(MemoryBudget::parse("lots").expect_err("no number").contains("expected a number"));
        assert!(MemoryBudget::parse("10M").expect_err("too small").contains("at least 256M"));
    }

    #[test]
    fn the_cache_takes_an_eighth_within_bounds_and_pairs_the_rest() {
        let b = MemoryBudget::new(4 << 30);
        assert_eq!(b.cache_bytes(), 512 << 20);
        assert_eq!(b.pair_bytes(), (4 << 30) - (512 << 20) - RESERVE);
        assert_eq!(MemoryBudget::new(64 << 30).cache_bytes(), 1 << 30);
    }

    #[test]
    fn a_covering_budget_holds_the_state_and_is_not_much_larger() {
        for working in [0, 1 << 20, 300 << 20, 5 << 30, 40 << 30] {
            let b = MemoryBudget::covering(working);
            assert!(b.pair_bytes() >= working && b.bytes.is_multiple_of(1 << 20) && b.bytes >= 256 << 20);
            assert!(MemoryBudget::parse(&format!("{}M", b.bytes >> 20)) == Ok(b));
            if working > 1 << 30 {
                assert!(MemoryBudget::new(b.bytes - (1 << 20)).pair_bytes() < working, "{working}: {b:?}");
            }
        }
    }
}
