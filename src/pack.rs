//! Dynamic storage allocation: where a set of blocks, each live over an interval of time with a
//! size, could have been placed, as low as possible, with a lower bound and a proof of optimality.
//!
//! The problem. Block `i` lives on the half-open interval `[lower, upper)` (MiniMalloc's convention:
//! a block that ends on line 5 and one that starts on line 5 are never live together, so they may
//! share bytes) and occupies `size` bytes rounded up to the alignment, at an offset that is a
//! multiple of the alignment; a block with a `fixed` offset (pinned, reserved) stays there. Two
//! blocks live at a common instant may not share a byte. The peak is the largest `offset + size`
//! (aligned size); the packer minimises it, or with a capacity stops as soon as the peak fits.
//!
//! The lower bound is the most aligned bytes live at once, or the top of a fixed block when that is
//! higher: no placement can do better. The packer first runs a handful of greedy placements (first
//! fit and best fit over several orders, microseconds each); one that reaches the lower bound is
//! proven optimal at once, which is the case of every PyPTO instance we have. Otherwise it searches
//! exactly, in the way MiniMalloc (Moffitt, ASPLOS 2023) showed works, written anew here:
//!
//! - canonical placements: every solution can be pushed down until each block sits at the lowest
//!   offset left free by the blocks below it (0, or the top of a block below, or of a fixed block);
//!   ordering the blocks by offset, the search places blocks in that order only, each at that
//!   lowest offset, with ties at one offset broken by a static rank;
//! - dominance: a block is not placed at or above the top that some unplaced block would have at
//!   its own lowest offset (that block would have to come first in the canonical order);
//! - inference: in every section of time (between two consecutive interval ends) the unplaced
//!   blocks' sizes must fit between the section's floor (the highest top placed in it, the search's
//!   current offset, the lowest offset any unplaced block of the section could take) and the
//!   capacity; an unplaced block whose lowest offset no longer fits fails the branch;
//! - a placed block that overlaps no unplaced block ends the search of its siblings when its
//!   subtree fails (its place changes nothing for the rest);
//! - restarts: three static orders tried in turn under a node limit that doubles, as MiniMalloc does,
//!   so one unlucky order does not stall the run.
//!
//! Minimising is a binary search on the capacity between the lower bound and the best placement
//! found, each probe that decision search; a probe that finds nothing proves its capacity too small.
//! The probes run in rounds of growing node budgets, the bound itself probed first in each (most
//! optimal peaks are the bound), so a deadline still leaves a good placement and no deadline ends
//! in a proof. Every peak of a canonical placement is a multiple of the greatest common divisor of
//! the sizes, the alignment and the fixed blocks' offsets and tops, so the search probes only those.
//!
//! This file holds the types, the bounds and the minimising loop; the instance the searches read
//! and the greedy placements are in `pack/instance.rs`, the exact search in `pack/search.rs`, so
//! each can be read without the other.

use std::time::{Duration, Instant};

use crate::error::{Detail, Error, ErrorKind, PackProblem, Result};

pub mod csv;
pub mod export;
pub mod handover;
mod instance;
mod reuse;
mod search;
pub mod space;

use instance::Instance;
use search::{Decision, Search};

/// One block to place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// First instant the block is live.
    pub lower: i64,
    /// First instant it is no longer live: the block is live on `[lower, upper)`.
    pub upper: i64,
    /// Its size in bytes (rounded up to the alignment when placed).
    pub size: u64,
    /// An offset it keeps (a pinned allocation, a reserved window); `None` for the packer to choose.
    pub fixed: Option<u64>,
}

impl Block {
    /// A block the packer places, live on `[lower, upper)`.
    pub fn new(lower: i64, upper: i64, size: u64) -> Self {
        Block { lower, upper, size, fixed: None }
    }

    /// A block that stays at `offset`.
    pub fn fixed(lower: i64, upper: i64, size: u64, offset: u64) -> Self {
        Block { lower, upper, size, fixed: Some(offset) }
    }

    /// Whether two blocks are ever live at once (touching intervals are not).
    pub fn meets(&self, other: &Block) -> bool {
        self.lower < other.upper && other.lower < self.upper && self.size > 0 && other.size > 0
    }
}

/// How to pack.
#[derive(Debug, Clone, Copy)]
pub struct PackOptions {
    /// Offsets are multiples of it and sizes are rounded up to it (at least 1).
    pub align: u64,
    /// Stop as soon as the peak is at most this many bytes (a decision, MiniMalloc's question);
    /// `None` minimises the peak.
    pub capacity: Option<u64>,
    /// Give up the exact search after this long and return the best placement found; `None` runs
    /// until the placement is proven optimal (or, with a capacity, found to fit or not).
    pub deadline: Option<Duration>,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions { align: 1, capacity: None, deadline: None }
    }
}

/// A placement and what is known of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packing {
    /// Each block's offset, in the order given.
    pub offsets: Vec<u64>,
    /// The largest `offset + aligned size`.
    pub peak: u64,
    /// No placement has a lower peak (see [`lower_bound`]).
    pub lower_bound: u64,
    /// Whether no placement has a lower peak than `peak`.
    pub proven_optimal: bool,
    /// With a capacity: `Some(true)` when the placement fits, `Some(false)` when it is proven that
    /// none does, `None` when the deadline came first. Without a capacity: `None`.
    pub fits: Option<bool>,
    /// Time spent.
    pub elapsed: Duration,
    /// Nodes the exact search visited (0 when a greedy placement was proven optimal).
    pub nodes: u64,
}

/// Blocks beyond which the exact search is not tried (its recursion is as deep as the blocks):
/// the greedy placements and the lower bound still are.
pub const MAX_SEARCH_BLOCKS: usize = 4096;

/// Nodes per block the minimising search's first probe, at the lower bound, may spend (A, the
/// hardest of MiniMalloc's challenge set at its bound, takes 760 a block); each probe above the
/// bound gets a tenth (D at 1 MiB takes 55 a block), and every round doubles both.
const FIRST_BUDGET_PER_BLOCK: u64 = 1000;

/// Pairs of blocks live at once (and pairs of a block and a section of time it spans) beyond
/// which an instance is refused: their lists are the packer's memory, and an input of a million
/// blocks all live at once would ask for 10^12 of them.
pub const MAX_PAIRS: usize = 20_000_000;

/// Whether a block takes any bytes at any time: one never live (`lower >= upper`) or of no size
/// takes offset 0 (or its fixed one), meets nothing and counts for no peak.
fn occupies(b: &Block) -> bool {
    b.lower < b.upper && b.size > 0
}

/// `size` rounded up to a multiple of `align`.
fn round_up(size: u64, align: u64) -> u64 {
    if align == 1 {
        return size; // the common case, without a division
    }
    size.div_ceil(align).saturating_mul(align)
}

/// The most aligned bytes live at once, or the highest top of a fixed block if higher: no
/// placement of `blocks` has a lower peak.
pub fn lower_bound(blocks: &[Block], align: u64) -> u64 {
    let align = align.max(1);
    let mut events: Vec<(i64, bool, u64)> = Vec::with_capacity(blocks.len() * 2);
    let mut top = 0u64;
    for b in blocks.iter().filter(|b| occupies(b)) {
        let size = round_up(b.size, align);
        events.push((b.lower, true, size));
        events.push((b.upper, false, size));
        if let Some(at) = b.fixed {
            top = top.max(at.saturating_add(size));
        }
    }
    // At one instant, ends come before starts (`false < true`): intervals are half-open.
    events.sort_unstable();
    let (mut live, mut most) = (0u64, 0u64);
    for (_, start, size) in events {
        if start {
            live = live.saturating_add(size);
            most = most.max(live);
        } else {
            live -= size;
        }
    }
    most.max(top)
}

/// The peak of `offsets` for `blocks`: the largest `offset + aligned size` (0 for no blocks).
pub fn peak(blocks: &[Block], offsets: &[u64], align: u64) -> u64 {
    blocks
        .iter()
        .zip(offsets)
        .filter(|(b, _)| occupies(b))
        .map(|(b, &o)| o.saturating_add(round_up(b.size, align.max(1))))
        .max()
        .unwrap_or(0)
}

/// Largest size, fixed offset or alignment the packer takes (1 TiB: no on-chip memory is that
/// large, and sums over the blocks live at once, which [`MAX_PAIRS`] bounds, stay inside 64 bits).
pub const MAX_BYTES: u64 = 1 << 40;

/// Packs `blocks` (see the module's words). Errors: fixed blocks that overlap each other (no
/// placement exists), a size, offset or alignment past [`MAX_BYTES`], or an instance past
/// [`MAX_PAIRS`].
pub fn pack(blocks: &[Block], options: &PackOptions) -> Result<Packing> {
    let started = Instant::now();
    let align = options.align.max(1);
    if let Some(i) = blocks
        .iter()
        .position(|b| b.size > MAX_BYTES || b.fixed.is_some_and(|f| f > MAX_BYTES))
        .or((align > MAX_BYTES).then_some(0))
    {
        return Err(Error::of(
            ErrorKind::Refused,
            Detail::Pack(PackProblem::BlockTooLarge { block: i, max: MAX_BYTES }),
        ));
    }
    // A deadline too far to represent is no deadline.
    let stop = options.deadline.and_then(|d| started.checked_add(d));
    let inst = Instance::new(blocks, align)?;
    let lower_bound = lower_bound(blocks, align);
    let mut offsets = inst.greedy();
    let mut best = peak(blocks, &offsets, align);
    let mut nodes = 0;
    let finish = |offsets: Vec<u64>, peak: u64, proven: bool, fits: Option<bool>, nodes: u64| Packing {
        offsets,
        peak,
        lower_bound,
        proven_optimal: proven || peak == lower_bound,
        fits,
        elapsed: started.elapsed(),
        nodes,
    };
    if let Some(capacity) = options.capacity {
        if best <= capacity {
            return Ok(finish(offsets, best, false, Some(true), 0));
        }
        if capacity < lower_bound {
            return Ok(finish(offsets, best, false, Some(false), 0));
        }
        if inst.free.len() > MAX_SEARCH_BLOCKS {
            return Ok(finish(offsets, best, false, None, 0));
        }
        let mut search = Search::new(&inst, stop);
        let found = search.decide(capacity, None);
        nodes = search.nodes;
        return Ok(match found {
            Decision::Fits => {
                let offsets = inst.offsets(&search.best);
                let p = peak(blocks, &offsets, align);
                finish(offsets, p, false, Some(true), nodes)
            }
            Decision::DoesNotFit => finish(offsets, best, false, Some(false), nodes),
            Decision::Stopped => finish(offsets, best, false, None, nodes),
        });
    }
    if best == lower_bound || inst.free.len() > MAX_SEARCH_BLOCKS {
        return Ok(finish(offsets, best, false, None, 0));
    }
    // Binary search for the least feasible peak, in multiples of the step every canonical peak
    // is, in rounds: each probe may spend a budget of nodes, and a probe that runs out counts as
    // "too small" for this round only; the next round doubles the budget and starts again from
    // the least peak not refuted. Each round probes the bound itself first: most instances'
    // optimum is their bound (MiniMalloc's challenge set but D and J), and a decision there is
    // much quicker than the probes above it (C: 4 ms against 4 s). So a deadline leaves the best
    // placement the rounds found, and without one the search ends with a proof.
    let step = inst.step;
    let mut lo = lower_bound.div_ceil(step); // least peak not yet refuted, in steps
    let mut hi = best.div_ceil(step); // best known, in steps: no peak lies strictly between
    let mut search = Search::new(&inst, stop);
    let mut budget = FIRST_BUDGET_PER_BLOCK * inst.free.len() as u64;
    'rounds: while lo < hi {
        let mut soft = lo; // least peak not refuted in this round
        let mut first = true;
        while soft < hi {
            let mid = if first { soft } else { soft + (hi - soft) / 2 };
            first = false;
            let nodes = if mid == lo { budget } else { budget / 10 };
            match search.decide(mid * step, Some(nodes)) {
                Decision::Fits => {
                    offsets = inst.offsets(&search.best);
                    best = peak(blocks, &offsets, align);
                    hi = best.div_ceil(step);
                }
                Decision::DoesNotFit => {
                    lo = lo.max(mid + 1);
                    soft = mid + 1;
                }
                Decision::Stopped if search.timed_out => break 'rounds,
                Decision::Stopped => soft = mid + 1,
            }
        }
        budget = budget.saturating_mul(2);
    }
    let proven = lo >= hi;
    nodes += search.nodes;
    Ok(finish(offsets, best, proven, None, nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lower_bound_is_the_most_bytes_live_at_once() {
        // Touching intervals are not live together: [0,2) and [2,4) never are.
        let blocks = [Block::new(0, 2, 10), Block::new(2, 4, 10), Block::new(1, 3, 5)];
        assert_eq!(lower_bound(&blocks, 1), 15);
        // Aligned to 8: 16 + 8.
        assert_eq!(lower_bound(&blocks, 8), 24);
        // A fixed block high up raises it.
        assert_eq!(lower_bound(&[Block::fixed(0, 1, 4, 100)], 1), 104);
    }
}
