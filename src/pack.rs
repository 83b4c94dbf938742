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

use std::time::{Duration, Instant};

use crate::error::{Error, ErrorKind, Result};

pub mod csv;
pub mod export;
pub mod space;

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
        return Err(Error::new(
            ErrorKind::Refused,
            format!("block {i}: a size, offset or alignment above {MAX_BYTES} bytes is not packed"),
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

/// The instance as the search sees it: the free blocks with their sizes aligned and their lives
/// cut into sections, who meets whom, and the fixed blocks as obstacles.
struct Instance {
    /// The blocks as given (for their count and fixed offsets).
    count: usize,
    align: u64,
    /// Every canonical offset and peak is a multiple of it.
    step: u64,
    /// Index into the input of each free block the search places.
    free: Vec<usize>,
    /// Aligned size of each free block.
    size: Vec<u64>,
    /// Section range `[first, end)` of each free block.
    span: Vec<(u32, u32)>,
    /// Length of each free block's life, for the static orders.
    width: Vec<u64>,
    /// The free blocks each free block meets.
    meets: Vec<Vec<u32>>,
    /// The fixed blocks each free block meets, as `(offset, top)` sorted by offset.
    obstacles: Vec<Vec<(u64, u64)>>,
    /// The free blocks live in each section.
    sections: Vec<Vec<u32>>,
    /// Offsets of the fixed blocks, by input index (`None` for free ones).
    fixed: Vec<Option<u64>>,
}

impl Instance {
    fn new(blocks: &[Block], align: u64) -> Result<Self> {
        let free: Vec<usize> =
            (0..blocks.len()).filter(|&i| blocks[i].fixed.is_none() && occupies(&blocks[i])).collect();
        let fixed_live: Vec<usize> =
            (0..blocks.len()).filter(|&i| blocks[i].fixed.is_some() && occupies(&blocks[i])).collect();
        let mut step = align;
        // Times where a free block starts or ends: the sections lie between them.
        let mut times: Vec<i64> = free.iter().flat_map(|&i| [blocks[i].lower, blocks[i].upper]).collect();
        times.sort_unstable();
        times.dedup();
        let at = |t: i64| times.binary_search(&t).unwrap_or_else(|e| e) as u32;
        let size: Vec<u64> = free.iter().map(|&i| round_up(blocks[i].size, align)).collect();
        for &s in &size {
            step = gcd(step, s);
        }
        let span: Vec<(u32, u32)> = free.iter().map(|&i| (at(blocks[i].lower), at(blocks[i].upper))).collect();
        let width = free.iter().map(|&i| blocks[i].upper.abs_diff(blocks[i].lower)).collect();
        let memberships: usize = span.iter().map(|&(a, b)| (b - a) as usize).sum();
        if memberships > MAX_PAIRS {
            return Err(too_many_pairs());
        }
        let mut sections = vec![Vec::new(); times.len().saturating_sub(1)];
        for (k, &(a, b)) in span.iter().enumerate() {
            for s in a..b {
                sections[s as usize].push(k as u32);
            }
        }
        // Who meets whom: a sweep in order of start, keeping the blocks still live.
        let mut order: Vec<u32> = (0..free.len() as u32).collect();
        order.sort_unstable_by_key(|&k| span[k as usize].0);
        let mut meets = vec![Vec::new(); free.len()];
        let mut active: Vec<u32> = Vec::new();
        let mut pairs = 0usize;
        for &k in &order {
            let (a, _) = span[k as usize];
            active.retain(|&o| span[o as usize].1 > a);
            pairs += active.len();
            if pairs > MAX_PAIRS {
                return Err(too_many_pairs());
            }
            for &o in &active {
                meets[k as usize].push(o);
                meets[o as usize].push(k);
            }
            active.push(k);
        }
        // Fixed blocks: they may not overlap each other; each free block avoids those it meets.
        let mut obstacles = vec![Vec::new(); free.len()];
        for (x, &i) in fixed_live.iter().enumerate() {
            let bi = &blocks[i];
            let (oi, ti) = (bi.fixed.unwrap_or(0), bi.fixed.unwrap_or(0).saturating_add(round_up(bi.size, align)));
            step = gcd(gcd(step, oi), ti);
            for &j in &fixed_live[x + 1..] {
                let bj = &blocks[j];
                let (oj, tj) = (bj.fixed.unwrap_or(0), bj.fixed.unwrap_or(0).saturating_add(round_up(bj.size, align)));
                if bi.meets(bj) && oi < tj && oj < ti {
                    return Err(Error::new(
                        ErrorKind::Refused,
                        format!(
                            "blocks {i} and {j} both have fixed offsets, are live at once and share bytes \
                             ({oi}..{ti} and {oj}..{tj}): no placement exists; move one of them"
                        ),
                    ));
                }
            }
            for (k, &f) in free.iter().enumerate() {
                if blocks[f].meets(bi) {
                    pairs += 1;
                    if pairs > MAX_PAIRS {
                        return Err(too_many_pairs());
                    }
                    obstacles[k].push((oi, ti));
                }
            }
        }
        for o in &mut obstacles {
            o.sort_unstable();
        }
        let fixed = blocks.iter().map(|b| b.fixed).collect();
        Ok(Instance { count: blocks.len(), align, step, free, size, span, width, meets, obstacles, sections, fixed })
    }

    /// The lowest aligned offset at or above `from` where free block `k` overlaps no fixed block.
    fn clear_of_fixed(&self, k: usize, from: u64) -> u64 {
        let mut at = round_up(from, self.align);
        let size = self.size[k];
        // Fixed blocks may overlap each other when they are live at different times, so one pass
        // in order of offset can land inside one already passed: repeat until nothing moves.
        loop {
            let before = at;
            for &(o, t) in &self.obstacles[k] {
                if o < at + size && at < t {
                    at = round_up(t, self.align);
                }
            }
            if at == before {
                return at;
            }
        }
    }

    /// Every block's offset, from the free blocks' offsets (fixed blocks keep theirs; blocks never
    /// live or of no size take 0).
    fn offsets(&self, free_offsets: &[u64]) -> Vec<u64> {
        let mut out: Vec<u64> = self.fixed.iter().map(|f| f.unwrap_or(0)).collect();
        for (k, &i) in self.free.iter().enumerate() {
            out[i] = free_offsets[k];
        }
        debug_assert_eq!(out.len(), self.count);
        out
    }

    /// The best of a few greedy placements: first fit and best fit, each over several orders.
    fn greedy(&self) -> Vec<u64> {
        let n = self.free.len();
        let total = self.section_totals();
        let most: Vec<u64> = (0..n)
            .map(|k| {
                let (a, b) = self.span[k];
                (a..b).map(|s| total[s as usize]).max().unwrap_or(0)
            })
            .collect();
        let area = |k: usize| self.size[k] as u128 * self.width[k] as u128;
        let mut orders: Vec<Vec<usize>> = Vec::new();
        let base: Vec<usize> = (0..n).collect();
        let mut by = |key: &dyn Fn(&usize, &usize) -> std::cmp::Ordering| {
            let mut o = base.clone();
            o.sort_by(key);
            orders.push(o);
        };
        by(&|a, b| self.size[*b].cmp(&self.size[*a]).then(self.span[*a].cmp(&self.span[*b])));
        by(&|a, b| self.span[*a].0.cmp(&self.span[*b].0).then(self.size[*b].cmp(&self.size[*a])));
        by(&|a, b| area(*b).cmp(&area(*a)));
        by(&|a, b| most[*b].cmp(&most[*a]).then(self.size[*b].cmp(&self.size[*a])));
        by(&|a, b| self.width[*b].cmp(&self.width[*a]).then(self.size[*b].cmp(&self.size[*a])));
        let mut best: Option<(u64, Vec<u64>)> = None;
        for order in &orders {
            for best_fit in [false, true] {
                let offsets = self.place(order, best_fit);
                let top = (0..n).map(|k| offsets[k] + self.size[k]).max().unwrap_or(0);
                if best.as_ref().is_none_or(|(p, _)| top < *p) {
                    best = Some((top, offsets));
                }
            }
        }
        self.offsets(&best.map(|(_, o)| o).unwrap_or_default())
    }

    /// Free blocks' offsets placed one at a time in `order`: each at the lowest gap that holds it
    /// (first fit) or the tightest (best fit, the top when no gap below holds it).
    fn place(&self, order: &[usize], best_fit: bool) -> Vec<u64> {
        const NONE: u64 = u64::MAX;
        let mut off = vec![NONE; self.free.len()];
        let mut taken: Vec<(u64, u64)> = Vec::new();
        for &k in order {
            taken.clear();
            taken.extend(self.obstacles[k].iter().copied());
            for &o in &self.meets[k] {
                let o = o as usize;
                if off[o] != NONE {
                    taken.push((off[o], off[o] + self.size[o]));
                }
            }
            taken.sort_unstable();
            let size = self.size[k];
            let mut at = 0u64; // lowest aligned offset clear of everything below it so far
            let mut choice: Option<(u64, u64)> = None; // (gap size, offset)
            for &(o, t) in &taken {
                if o >= at + size {
                    let gap = o - at;
                    if !best_fit {
                        choice = Some((gap, at));
                        break;
                    }
                    if choice.is_none_or(|(g, _)| gap < g) {
                        choice = Some((gap, at));
                    }
                }
                at = at.max(round_up(t, self.align));
            }
            off[k] = match choice {
                Some((_, o)) => o,
                None => at,
            };
        }
        off
    }

    /// The sum of the free blocks' aligned sizes in each section.
    fn section_totals(&self) -> Vec<u64> {
        self.sections.iter().map(|m| m.iter().map(|&k| self.size[k as usize]).sum()).collect()
    }
}

fn too_many_pairs() -> Error {
    Error::new(
        ErrorKind::Refused,
        format!("more than {MAX_PAIRS} pairs of blocks are live at once: the instance is too large to pack"),
    )
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// What a decision search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    /// A placement within the capacity, in [`Search::best`].
    Fits,
    /// None exists: the search was exhaustive.
    DoesNotFit,
    /// The deadline came first.
    Stopped,
}

/// One node's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Found,
    Exhausted,
    /// Out of nodes under the current limit (try another order) or past the deadline.
    Aborted,
}

/// A stretch of sections and the blocks living in it, placed on their own: no unplaced block
/// outside it is live in it.
struct Part {
    first: u32,
    end: u32,
    blocks: Vec<u32>,
}

/// The static orders the search tries in turn.
const ORDERS: usize = 3;

/// Marks an unplaced block.
const UNPLACED: u64 = u64::MAX;

/// The exact search's state: one partial canonical placement, changed in place and undone.
struct Search<'a> {
    inst: &'a Instance,
    stop: Option<Instant>,
    capacity: u64,
    /// Each free block's offset, or [`UNPLACED`].
    off: Vec<u64>,
    /// Each unplaced block's lowest offset given the placed blocks and the fixed ones.
    low: Vec<u64>,
    /// Each block's place in the static order of its part (breaks ties at one offset).
    rank: Vec<u32>,
    /// Which of the [`ORDERS`] static orders ranks the blocks.
    order: usize,
    /// Each section's floor: nothing unplaced in it can go lower.
    floor: Vec<u64>,
    /// Each section's unplaced bytes.
    total: Vec<u64>,
    /// Undo logs: `(block, old low)` and `(section, old floor)`.
    low_log: Vec<(u32, u64)>,
    floor_log: Vec<(u32, u64)>,
    /// For each boundary between sections `s` and `s + 1`, the unplaced blocks live on both sides.
    cuts: Vec<u32>,
    /// The same before anything is placed.
    cuts_at_start: Vec<u32>,
    /// Sections touched by a placement (stamped, to visit each once).
    stamp: Vec<u64>,
    stamp_now: u64,
    touched: Vec<u32>,
    /// Candidate lists, one per depth, kept to avoid allocating at every node.
    pool: Vec<Vec<(u64, u32, u32)>>,
    /// Nodes visited in all, and left under the current limit.
    nodes: u64,
    left: u64,
    timed_out: bool,
    /// The last placement found within the capacity.
    best: Vec<u64>,
}

impl<'a> Search<'a> {
    fn new(inst: &'a Instance, stop: Option<Instant>) -> Self {
        let n = inst.free.len();
        let s = inst.sections.len();
        Search {
            inst,
            stop,
            capacity: 0,
            off: vec![UNPLACED; n],
            low: vec![0; n],
            rank: vec![0; n],
            order: 0,
            floor: vec![0; s],
            total: vec![0; s],
            low_log: Vec::new(),
            floor_log: Vec::new(),
            cuts: Vec::new(),
            cuts_at_start: {
                let mut cuts = vec![0u32; s.saturating_sub(1)];
                for &(a, b) in &inst.span {
                    for c in a..b.saturating_sub(1) {
                        cuts[c as usize] += 1;
                    }
                }
                cuts
            },
            stamp: vec![0; s],
            stamp_now: 0,
            touched: Vec::new(),
            pool: Vec::new(),
            nodes: 0,
            left: 0,
            timed_out: false,
            best: Vec::new(),
        }
    }

    /// Whether a placement of peak at most `capacity` exists: tries three static orders in turn,
    /// each under a node limit that doubles every round, until one settles it, the deadline
    /// comes, or (with a `budget`) a round ends past that many nodes.
    fn decide(&mut self, capacity: u64, budget: Option<u64>) -> Decision {
        let inst = self.inst;
        let n = inst.free.len();
        self.capacity = capacity;
        let totals = inst.section_totals();
        let mut limit = (n as u64).max(16);
        let start = self.nodes;
        loop {
            if budget.is_some_and(|b| self.nodes - start >= b) {
                // Out of budget between rounds (never mid-round: a round's answer is complete).
                return Decision::Stopped;
            }
            limit = limit.saturating_mul(2);
            for order in 0..ORDERS {
                self.order = order;
                self.reset(&totals);
                self.left = limit;
                if self.fails_at_once() {
                    return Decision::DoesNotFit;
                }
                let root = Part { first: 0, end: inst.sections.len() as u32, blocks: (0..n as u32).collect() };
                // The instance may fall apart in time from the start: no block crosses some instants.
                let cuts: Vec<u32> = (1..root.end).filter(|&s| self.cuts[s as usize - 1] == 0).collect();
                match self.split(&root, &cuts) {
                    Outcome::Found => return Decision::Fits,
                    Outcome::Exhausted => return Decision::DoesNotFit,
                    Outcome::Aborted if self.timed_out => return Decision::Stopped,
                    Outcome::Aborted => {}
                }
            }
        }
    }

    fn reset(&mut self, totals: &[u64]) {
        self.off.fill(UNPLACED);
        self.floor.fill(0);
        self.total.copy_from_slice(totals);
        self.low_log.clear();
        self.floor_log.clear();
        self.cuts.clone_from(&self.cuts_at_start);
        for k in 0..self.inst.free.len() {
            self.low[k] = self.inst.clear_of_fixed(k, 0);
        }
    }

    /// Whether the empty placement already fails the capacity.
    fn fails_at_once(&mut self) -> bool {
        let inst = self.inst;
        if (0..inst.free.len()).any(|k| self.low[k] + inst.size[k] > self.capacity) {
            return true;
        }
        // A section's floor starts at the lowest offset any of its blocks can take (above 0 only
        // when fixed blocks push them all up).
        for (s, members) in inst.sections.iter().enumerate() {
            self.floor[s] = members.iter().map(|&k| self.low[k as usize]).min().unwrap_or(0);
        }
        (0..inst.sections.len()).any(|s| self.floor[s] + self.total[s] > self.capacity)
    }

    /// Solves the parts of `part` between the boundaries `cuts` (no unplaced block crosses them,
    /// so each part is placed on its own, in its own canonical order) one after the other: the
    /// first part that cannot be placed fails them all, without trying the others' alternatives.
    fn split(&mut self, part: &Part, cuts: &[u32]) -> Outcome {
        self.record();
        let mut from = part.first;
        for end in cuts.iter().copied().chain([part.end]) {
            let inst = self.inst;
            let blocks: Vec<u32> = part
                .blocks
                .iter()
                .copied()
                .filter(|&k| {
                    self.off[k as usize] == UNPLACED
                        && inst.span[k as usize].0 >= from
                        && inst.span[k as usize].1 <= end
                })
                .collect();
            if !blocks.is_empty() {
                let saved: Vec<u32> = blocks.iter().map(|&k| self.rank[k as usize]).collect();
                self.rank_part(&blocks);
                let sub = Part { first: from, end, blocks };
                let result = self.node(&sub, 0, 0);
                // The enclosing part's search goes on with its own ranks.
                for (&k, &r) in sub.blocks.iter().zip(&saved) {
                    self.rank[k as usize] = r;
                }
                if result != Outcome::Found {
                    return result;
                }
            }
            from = end;
        }
        Outcome::Found
    }

    /// Ranks `blocks` (the unplaced blocks of a part) in the current static order, MiniMalloc's:
    /// by life, area and the most unplaced bytes in any of the block's sections, largest first, in
    /// one of three orders of precedence; ties by index.
    fn rank_part(&mut self, blocks: &[u32]) {
        let inst = self.inst;
        let most = |k: usize| {
            let (a, b) = inst.span[k];
            (a..b).map(|s| self.total[s as usize]).max().unwrap_or(0) as u128
        };
        let mut keyed: Vec<((u128, u128, u128), u32)> = blocks
            .iter()
            .map(|&k| {
                let k = k as usize;
                let (w, a, t) = (inst.width[k] as u128, inst.size[k] as u128 * inst.width[k] as u128, most(k));
                let key = match self.order {
                    0 => (w, a, t),
                    1 => (t, a, w),
                    _ => (t, w, a),
                };
                (key, k as u32)
            })
            .collect();
        keyed.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        for (r, &(_, k)) in keyed.iter().enumerate() {
            self.rank[k as usize] = r as u32;
        }
    }

    /// Copies the placed blocks' offsets into the answer: at a leaf, every block of its part is
    /// placed, and the blocks placed above it are part of any answer found below.
    fn record(&mut self) {
        if self.best.len() != self.off.len() {
            self.best = vec![UNPLACED; self.off.len()];
        }
        for (b, &o) in self.best.iter_mut().zip(&self.off) {
            if o != UNPLACED {
                *b = o;
            }
        }
    }

    /// Places, below this node, every unplaced block of `part`, in canonical order after the block
    /// last placed at offset `last` with rank `last_rank` (tie break).
    fn node(&mut self, part: &Part, last: u64, last_rank: u32) -> Outcome {
        self.nodes += 1;
        if self.left == 0 {
            return Outcome::Aborted;
        }
        self.left -= 1;
        if self.nodes.is_multiple_of(256)
            && let Some(stop) = self.stop
            && Instant::now() >= stop
        {
            self.timed_out = true;
            return Outcome::Aborted;
        }
        let inst = self.inst;
        let mut cands = self.pool.pop().unwrap_or_default();
        cands.clear();
        let mut min_top = u64::MAX;
        let mut any = false;
        for &k in &part.blocks {
            let k = k as usize;
            if self.off[k] == UNPLACED {
                any = true;
                min_top = min_top.min(self.low[k] + inst.size[k]);
                // Not canonical: it would have come before the block last placed.
                if (self.low[k], self.rank[k]) >= (last, last_rank) {
                    cands.push((self.low[k], self.rank[k], k as u32));
                }
            }
        }
        if !any {
            self.record();
            self.pool.push(cands);
            return Outcome::Found;
        }
        // Dominated: at or above `min_top` an unplaced block fits wholly below.
        cands.retain(|c| c.0 < min_top);
        cands.sort_unstable();
        let most = self.total[part.first as usize..part.end as usize].iter().copied().max().unwrap_or(0);
        let mut outcome = Outcome::Exhausted;
        for &(at, rank, k) in &cands {
            let k = k as usize;
            let (low_mark, floor_mark) = (self.low_log.len(), self.floor_log.len());
            let (feasible, hat) = self.put(k, at, part, most);
            let result = if feasible {
                // Boundaries that no unplaced block crosses any more: the part falls apart there.
                let (a, b) = inst.span[k];
                let mut cuts = Vec::new();
                for c in a..b.saturating_sub(1) {
                    self.cuts[c as usize] -= 1;
                    if self.cuts[c as usize] == 0 && c >= part.first && c + 1 < part.end {
                        cuts.push(c + 1);
                    }
                }
                let result = if cuts.is_empty() { self.node(part, at, rank) } else { self.split(part, &cuts) };
                for c in a..b.saturating_sub(1) {
                    self.cuts[c as usize] += 1;
                }
                result
            } else {
                Outcome::Exhausted
            };
            self.take_back(k, low_mark, floor_mark);
            if result != Outcome::Exhausted {
                outcome = result;
                break;
            }
            if !hat {
                break; // nothing unplaced meets it: any sibling's solution holds it where it is
            }
        }
        self.pool.push(cands);
        outcome
    }

    /// Places free block `k` at `at`, updating the others' lowest offsets and the sections'
    /// floors and totals; says whether the capacity can still be met and whether any unplaced
    /// block meets `k`.
    ///
    /// Only the sections whose floor or total changes are checked against the capacity (the
    /// others passed before); that every unplaced block of the part goes at `at` or above is
    /// checked against `most`, the part's largest section total before `k` was placed, and the
    /// sections one by one only when that is not enough.
    fn put(&mut self, k: usize, at: u64, part: &Part, most: u64) -> (bool, bool) {
        let inst = self.inst;
        let size = inst.size[k];
        let top = at + size;
        self.off[k] = at;
        let mut ok = true;
        let mut hat = false;
        self.stamp_now += 1;
        self.touched.clear();
        let (a, b) = inst.span[k];
        for s in a..b {
            let su = s as usize;
            self.total[su] -= size;
            if self.floor[su] < top {
                self.floor_log.push((s, self.floor[su]));
                self.floor[su] = top;
            }
            if self.total[su] > 0 && self.floor[su] + self.total[su] > self.capacity {
                ok = false;
            }
        }
        for &o in &inst.meets[k] {
            let o = o as usize;
            if self.off[o] != UNPLACED {
                continue;
            }
            hat = true;
            if self.low[o] >= top {
                continue;
            }
            self.low_log.push((o as u32, self.low[o]));
            self.low[o] = inst.clear_of_fixed(o, top);
            if self.low[o] + inst.size[o] > self.capacity {
                ok = false;
            }
            let (oa, ob) = inst.span[o];
            for s in oa..ob {
                if self.stamp[s as usize] != self.stamp_now {
                    self.stamp[s as usize] = self.stamp_now;
                    self.touched.push(s);
                }
            }
        }
        if !ok {
            return (false, hat);
        }
        // A section's floor is at least the lowest offset any of its unplaced blocks can take.
        for t in 0..self.touched.len() {
            let s = self.touched[t] as usize;
            // Stops at the first unplaced block that could go at the floor: most sections have one.
            let floor = self.floor[s];
            let mut least = u64::MAX;
            for &m in &inst.sections[s] {
                if self.off[m as usize] == UNPLACED {
                    least = least.min(self.low[m as usize]);
                    if least <= floor {
                        break;
                    }
                }
            }
            if least != u64::MAX && least > floor {
                self.floor_log.push((s as u32, self.floor[s]));
                self.floor[s] = least;
                if least + self.total[s] > self.capacity {
                    return (false, hat);
                }
            }
        }
        // Every unplaced block of the part goes at `at` or above.
        if at + most > self.capacity {
            for s in part.first as usize..part.end as usize {
                if at + self.total[s] > self.capacity {
                    return (false, hat);
                }
            }
        }
        (true, hat)
    }

    fn take_back(&mut self, k: usize, low_mark: usize, floor_mark: usize) {
        let inst = self.inst;
        while self.floor_log.len() > floor_mark {
            let (s, old) = self.floor_log.pop().unwrap_or_default();
            self.floor[s as usize] = old;
        }
        while self.low_log.len() > low_mark {
            let (o, old) = self.low_log.pop().unwrap_or_default();
            self.low[o as usize] = old;
        }
        let (a, b) = inst.span[k];
        for s in a..b {
            self.total[s as usize] += inst.size[k];
        }
        self.off[k] = UNPLACED;
    }
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
