//! The budget of a proof search: nodes a first move, time for the whole search, checked
//! against the memory the searches side by side would take.

use std::time::Duration;

/// How much one search may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Nodes each first move's search may create (bounds its memory: about 100 bytes a
    /// node).
    pub nodes: usize,
    /// Wall-clock time for the whole search, if bounded.
    pub time: Option<Duration>,
}

impl Budget {
    /// Bytes a node of a search may take: its own, and while the arena grows by
    /// doubling, room for its copy (the search asserts at compile time that its nodes fit).
    pub const NODE_BYTES: usize = 232;
    /// The longest time a search may be given, in seconds: 30 days.
    pub const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

    /// A budget of `nodes` a first move and `seconds` for the whole search, checked:
    /// at least one node, a time above 0 and at most [`Budget::MAX_SECONDS`], and
    /// nodes whose memory, for `at_once` searches side by side (one a thread), fits
    /// `memory` bytes, so that a search is refused before it starts rather than failing
    /// an allocation halfway.
    pub fn checked(nodes: usize, seconds: Option<f64>, memory: u64, at_once: usize) -> Result<Budget, BudgetError> {
        if nodes == 0 {
            return Err(BudgetError::NoNodes);
        }
        let time = match seconds {
            Some(t) if !(t > 0.0 && t <= Budget::MAX_SECONDS) => return Err(BudgetError::Time(t)),
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => None,
        };
        let per_node = Budget::NODE_BYTES as u128 * at_once.max(1) as u128;
        let bytes = nodes as u128 * per_node;
        if bytes > memory as u128 {
            let most = (memory as u128 / per_node) as u64;
            return Err(BudgetError::Memory { nodes, at_once: at_once.max(1), bytes, memory, most });
        }
        Ok(Budget { nodes, time })
    }
}

/// Why [`Budget::checked`] refuses a budget; each message starts with the parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BudgetError {
    /// No node to search.
    #[error("nodes 0: the search needs at least one node")]
    NoNodes,
    /// A time that is not a number of seconds in range.
    #[error("time {}: give a number of seconds above 0 and at most 2592000 (30 days)", number_text(*.0))]
    Time(f64),
    /// More nodes than the memory holds.
    #[error(
        "nodes {nodes}: {at_once} searches at once would take {:.1} GiB ({} bytes a node), more than the {:.1} GiB \
         allowed; give at most {most} nodes",
        *.bytes as f64 / GIB, Budget::NODE_BYTES, *.memory as f64 / GIB
    )]
    Memory {
        /// The nodes asked for.
        nodes: usize,
        /// Searches side by side.
        at_once: usize,
        /// Bytes they would take.
        bytes: u128,
        /// Bytes allowed.
        memory: u64,
        /// The most nodes that fit.
        most: u64,
    },
}

const GIB: f64 = (1u64 << 30) as f64;

/// A number as a user wrote it, short: 1e308, not 309 digits.
fn number_text(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e9 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The memory a search may take on this machine: three quarters of it (Linux's
/// `/proc/meminfo`), else 4 GiB.
pub fn usable_memory() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines().find_map(|l| l.strip_prefix("MemTotal:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
    });
    total_kib.map_or(4 << 30, |kib| kib * 1024 / 4 * 3)
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { nodes: 400_000, time: None }
    }
}
