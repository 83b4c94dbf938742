//! The exact search (after MiniMalloc, written anew): canonical placements, dominance, section
//! inference, hatless pruning, dynamic decomposition and restarts over three static orders, as the
//! module's words in `pack.rs` describe. Apart from the greedy placements because it is the hard
//! part and runs only when they are not proven optimal.

use std::time::Instant;

use super::instance::Instance;

/// What a decision search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decision {
    /// A placement within the capacity, in [`Search::best`].
    Fits,
    /// None exists: the search was exhaustive.
    DoesNotFit,
    /// The deadline came first.
    Stopped,
}

/// One node's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Found,
    Exhausted,
    /// Out of nodes under the current limit (try another order) or past the deadline.
    Aborted,
}

/// A stretch of sections and the blocks living in it, placed on their own: no unplaced block
/// outside it is live in it.
pub(super) struct Part {
    pub(super) first: u32,
    pub(super) end: u32,
    pub(super) blocks: Vec<u32>,
}

/// The static orders the search tries in turn.
pub(super) const ORDERS: usize = 3;

/// Marks an unplaced block.
pub(super) const UNPLACED: u64 = u64::MAX;

/// The exact search's state: one partial canonical placement, changed in place and undone.
pub(super) struct Search<'a> {
    pub(super) inst: &'a Instance,
    pub(super) stop: Option<Instant>,
    pub(super) capacity: u64,
    /// Each free block's offset, or [`UNPLACED`].
    pub(super) off: Vec<u64>,
    /// Each unplaced block's lowest offset given the placed blocks and the fixed ones.
    pub(super) low: Vec<u64>,
    /// Each block's place in the static order of its part (breaks ties at one offset).
    pub(super) rank: Vec<u32>,
    /// Which of the [`ORDERS`] static orders ranks the blocks.
    pub(super) order: usize,
    /// Each section's floor: nothing unplaced in it can go lower.
    pub(super) floor: Vec<u64>,
    /// Each section's unplaced bytes.
    pub(super) total: Vec<u64>,
    /// Undo logs: `(block, old low)` and `(section, old floor)`.
    pub(super) low_log: Vec<(u32, u64)>,
    pub(super) floor_log: Vec<(u32, u64)>,
    /// For each boundary between sections `s` and `s + 1`, the unplaced blocks live on both sides.
    pub(super) cuts: Vec<u32>,
    /// The same before anything is placed.
    pub(super) cuts_at_start: Vec<u32>,
    /// Sections touched by a placement (stamped, to visit each once).
    pub(super) stamp: Vec<u64>,
    pub(super) stamp_now: u64,
    pub(super) touched: Vec<u32>,
    /// Candidate lists, one per depth, kept to avoid allocating at every node.
    pub(super) pool: Vec<Vec<(u64, u32, u32)>>,
    /// Nodes visited in all, and left under the current limit.
    pub(super) nodes: u64,
    pub(super) left: u64,
    pub(super) timed_out: bool,
    /// The last placement found within the capacity.
    pub(super) best: Vec<u64>,
}

impl<'a> Search<'a> {
    pub(super) fn new(inst: &'a Instance, stop: Option<Instant>) -> Self {
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
    pub(super) fn decide(&mut self, capacity: u64, budget: Option<u64>) -> Decision {
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

    pub(super) fn reset(&mut self, totals: &[u64]) {
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
    pub(super) fn fails_at_once(&mut self) -> bool {
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
    pub(super) fn split(&mut self, part: &Part, cuts: &[u32]) -> Outcome {
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
    pub(super) fn rank_part(&mut self, blocks: &[u32]) {
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
    pub(super) fn record(&mut self) {
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
    pub(super) fn node(&mut self, part: &Part, last: u64, last_rank: u32) -> Outcome {
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
    pub(super) fn put(&mut self, k: usize, at: u64, part: &Part, most: u64) -> (bool, bool) {
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

    pub(super) fn take_back(&mut self, k: usize, low_mark: usize, floor_mark: usize) {
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
