//! The instance as the packer's searches see it (free blocks with aligned sizes, their lives cut
//! into sections, who meets whom, the fixed blocks as obstacles) and the greedy placements over it
//! (first and best fit over several orders). Apart from the exact search, which reads this and
//! runs only when no greedy placement is proven optimal.

use super::{Block, MAX_PAIRS, occupies, round_up};
use crate::error::{Detail, Error, ErrorKind, PackProblem, Result};

/// The instance as the search sees it: the free blocks with their sizes aligned and their lives
/// cut into sections, who meets whom, and the fixed blocks as obstacles.
pub(super) struct Instance {
    /// The blocks as given (for their count and fixed offsets).
    pub(super) count: usize,
    pub(super) align: u64,
    /// Every canonical offset and peak is a multiple of it.
    pub(super) step: u64,
    /// Index into the input of each free block the search places.
    pub(super) free: Vec<usize>,
    /// Aligned size of each free block.
    pub(super) size: Vec<u64>,
    /// Section range `[first, end)` of each free block.
    pub(super) span: Vec<(u32, u32)>,
    /// Length of each free block's life, for the static orders.
    pub(super) width: Vec<u64>,
    /// The free blocks each free block meets.
    pub(super) meets: Vec<Vec<u32>>,
    /// The fixed blocks each free block meets, as `(offset, top)` sorted by offset.
    pub(super) obstacles: Vec<Vec<(u64, u64)>>,
    /// The free blocks live in each section.
    pub(super) sections: Vec<Vec<u32>>,
    /// Offsets of the fixed blocks, by input index (`None` for free ones).
    pub(super) fixed: Vec<Option<u64>>,
}

impl Instance {
    pub(super) fn new(blocks: &[Block], align: u64) -> Result<Self> {
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
                    let overlap = PackProblem::FixedOverlap { blocks: (i, j), first: (oi, ti), second: (oj, tj) };
                    return Err(Error::of(ErrorKind::Refused, Detail::Pack(overlap)));
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
    pub(super) fn clear_of_fixed(&self, k: usize, from: u64) -> u64 {
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
    pub(super) fn offsets(&self, free_offsets: &[u64]) -> Vec<u64> {
        let mut out: Vec<u64> = self.fixed.iter().map(|f| f.unwrap_or(0)).collect();
        for (k, &i) in self.free.iter().enumerate() {
            out[i] = free_offsets[k];
        }
        debug_assert_eq!(out.len(), self.count);
        out
    }

    /// The best of a few greedy placements: first fit and best fit, each over several orders.
    pub(super) fn greedy(&self) -> Vec<u64> {
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
    pub(super) fn place(&self, order: &[usize], best_fit: bool) -> Vec<u64> {
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
    pub(super) fn section_totals(&self) -> Vec<u64> {
        self.sections.iter().map(|m| m.iter().map(|&k| self.size[k as usize]).sum()).collect()
    }
}

pub(super) fn too_many_pairs() -> Error {
    Error::of(ErrorKind::Refused, Detail::Pack(PackProblem::TooManyPairs { max: MAX_PAIRS }))
}

pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
