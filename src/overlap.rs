//! Which blocks overlap in address and lifetime, counted rather than enumerated.
//!
//! Two blocks overlap when their byte ranges (`[offset, offset + size)`) and their line ranges
//! (`[start, end]`) both intersect. A hostile dump of a few thousand tiles piled on one range has
//! millions of such pairs, so nothing here visits pairs: the analysis needs, per block, only whether
//! some other block overlaps it (a view, a conflict), and the findings need how many pairs there
//! are and the first few of them. Both come from counting.
//!
//! Of two rectangles, those that do *not* overlap lie wholly left, right, above or below; at most one
//! of left/right and one of above/below holds at once. So the blocks overlapping `q` are all of them,
//! minus those left of `q`, right of it, above it and below it, plus those in each of the four corners
//! (counted twice by the subtraction). Each term is a dominance count (points `(x, y)` with `x <= X`
//! and `y <= Y`), which a sweep over `x` with a Fenwick tree over `y` answers for every query at once:
//! O((points + queries) log) time and linear memory.

use crate::hashed::{HashMap, HashSet};
use crate::model::Block;

/// A block's byte range (half-open) and line range (closed), as signed numbers the counting negates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rect {
    x0: i64,
    x1: i64,
    y0: i64,
    y1: i64,
}

impl Rect {
    /// `None` for a block that overlaps nothing: no bytes, or (never from a dump) no lines.
    fn of(b: &Block) -> Option<Rect> {
        let t = &b.tile;
        // Lifetimes that only touch do not meet: that is reuse, not an overlap (`Tile::held_span`).
        let (y0, y1) = t.held_span();
        let r = Rect { x0: t.offset, x1: t.stop(), y0, y1 };
        (r.x1 > r.x0 && t.held() >= t.start).then_some(r)
    }

    /// The same, with closed line ranges: a range that only touches another meets it (the rule for
    /// views, as PyPTO's own tool marks them).
    fn closed(b: &Block) -> Option<Rect> {
        Rect::of(b).map(|r| Rect { y0: r.y0 - 1, ..r })
    }

    fn meets(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 <= o.y1 && o.y0 <= self.y1
    }
}

/// For each query, how many points `(x, y)` have `x <= X` and `y <= Y`.
fn dominance(points: &[(i64, i64)], queries: &[(i64, i64)]) -> Vec<u64> {
    let mut ys: Vec<i64> = points.iter().map(|p| p.1).collect();
    ys.sort_unstable();
    ys.dedup();
    let mut by_x: Vec<(i64, i64)> = points.to_vec();
    by_x.sort_unstable();
    let mut order: Vec<usize> = (0..queries.len()).collect();
    order.sort_unstable_by_key(|&q| queries[q].0);
    let mut tree = vec![0u64; ys.len() + 1];
    let mut out = vec![0u64; queries.len()];
    let mut next = 0;
    for q in order {
        let (qx, qy) = queries[q];
        while next < by_x.len() && by_x[next].0 <= qx {
            let mut i = ys.partition_point(|&y| y < by_x[next].1) + 1;
            while i < tree.len() {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
            next += 1;
        }
        let (mut i, mut sum) = (ys.partition_point(|&y| y <= qy), 0);
        while i > 0 {
            sum += tree[i];
            i -= i & i.wrapping_neg();
        }
        out[q] = sum;
    }
    out
}

/// For each query, how many of `points` overlap it (a query among the points counts itself).
fn overlapping(points: &[Rect], queries: &[Rect]) -> Vec<u64> {
    // Most groups (a base, a small space) hold a handful of blocks: asking every pair is cheaper
    // there than eight sweeps with their sorts (the decode case's analysis spent 4 % of a page in
    // them). The sweep keeps the large groups, where pairs would be quadratic.
    if points.len() * queries.len() <= PAIRS_AT_MOST {
        return queries.iter().map(|q| points.iter().filter(|p| p.meets(q)).count() as u64).collect();
    }
    swept(points, queries)
}

/// Up to how many (point, query) pairs [`overlapping`] asks one by one.
const PAIRS_AT_MOST: usize = 256;

/// [`overlapping`] by sweeps: O((points + queries) log) whatever the overlaps.
fn swept(points: &[Rect], queries: &[Rect]) -> Vec<u64> {
    if points.is_empty() || queries.is_empty() {
        return vec![0; queries.len()];
    }
    // (point's corner, query's corner, sign): left of q is `p.x1 <= q.x0`, right `q.x1 <= p.x0`,
    // above `p.y1 < q.y0`, below `q.y1 < p.y0`; negating turns each `>=` into a `<=`.
    type Corner = fn(&Rect) -> (i64, i64);
    let terms: [(Corner, Corner, bool); 8] = [
        (|p| (p.x1, 0), |q| (q.x0, 0), false),
        (|p| (-p.x0, 0), |q| (-q.x1, 0), false),
        (|p| (p.y1, 0), |q| (q.y0 - 1, 0), false),
        (|p| (-p.y0, 0), |q| (-q.y1 - 1, 0), false),
        (|p| (p.x1, p.y1), |q| (q.x0, q.y0 - 1), true),
        (|p| (p.x1, -p.y0), |q| (q.x0, -q.y1 - 1), true),
        (|p| (-p.x0, p.y1), |q| (-q.x1, q.y0 - 1), true),
        (|p| (-p.x0, -p.y0), |q| (-q.x1, -q.y1 - 1), true),
    ];
    // Signed: a corner's blocks are subtracted twice before they are added back.
    let mut out = vec![points.len() as i64; queries.len()];
    for (point, query, add) in terms {
        let p: Vec<(i64, i64)> = points.iter().map(point).collect();
        let q: Vec<(i64, i64)> = queries.iter().map(query).collect();
        for (o, n) in out.iter_mut().zip(dominance(&p, &q)) {
            *o += if add { n as i64 } else { -(n as i64) };
        }
    }
    out.into_iter().map(|n| n.max(0) as u64).collect()
}

/// What the analysis marks on each block, and how many conflicting pairs there are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overlaps {
    /// Overlaps a wider block of the same base (of two equally wide, the later is the view).
    pub view: Vec<bool>,
    /// How many blocks of other bases in its space overlap it.
    pub conflicts: Vec<u64>,
}

/// The blocks of each space, by index; a space's order is the blocks' order.
fn by_key<'a>(blocks: &'a [Block], key: impl Fn(&'a Block) -> (&'a str, &'a str)) -> Vec<Vec<usize>> {
    let mut at: HashMap<(&str, &str), usize> = HashMap::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if Rect::of(b).is_none() {
            continue;
        }
        let g = *at.entry(key(b)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

/// How many blocks of another base overlap each block, in O(n log n): those of any base in its space,
/// less those of its own base. `only` restricts the work to blocks already known to conflict (the
/// others count 0).
pub fn conflict_counts(blocks: &[Block], only: impl Fn(&Block) -> bool) -> Vec<u64> {
    let rect = |i: &usize| Rect::of(&blocks[*i]).unwrap_or(Rect { x0: 0, x1: 0, y0: 0, y1: 0 });
    let mut out = vec![0u64; blocks.len()];
    let chosen = |g: Vec<usize>| -> Vec<usize> { g.into_iter().filter(|&i| only(&blocks[i])).collect() };
    for space in by_key(blocks, |b| (b.tile.space.as_str(), "")).into_iter().map(chosen) {
        let rects: Vec<Rect> = space.iter().map(rect).collect();
        for (&i, n) in space.iter().zip(overlapping(&rects, &rects)) {
            out[i] = n;
        }
        if crate::budget::expired() {
            return out;
        }
    }
    for base in by_key(blocks, |b| (b.tile.space.as_str(), b.tile.base.as_str())).into_iter().map(chosen) {
        let rects: Vec<Rect> = base.iter().map(rect).collect();
        for (&i, n) in base.iter().zip(overlapping(&rects, &rects)) {
            out[i] -= n;
        }
    }
    out
}

/// Views and conflict counts of `blocks`. A block is a view when a block of its base that overlaps
/// it is wider, or as wide and earlier: within each base, the blocks in that order (widest first),
/// each asking how many before it overlap it. Those "before" questions are answered a half at a time
/// (the first half's blocks against the second's, then each half within itself): O(n log² n).
pub fn overlaps(blocks: &[Block]) -> Overlaps {
    let conflicts = conflict_counts(blocks, |_| true);
    let mut view = vec![false; blocks.len()];
    for mut base in by_key(blocks, |b| (b.tile.space.as_str(), b.tile.base.as_str())) {
        if base.len() < 2 {
            continue;
        }
        base.sort_by_key(|&i| (std::cmp::Reverse(blocks[i].tile.size), i));
        let rects: Vec<Rect> =
            base.iter().map(|&i| Rect::closed(&blocks[i]).unwrap_or(Rect { x0: 0, x1: 0, y0: 0, y1: 0 })).collect();
        let mut earlier = vec![0u64; rects.len()];
        halves(&rects, &mut earlier);
        for (&i, n) in base.iter().zip(earlier) {
            view[i] = n > 0;
        }
        if crate::budget::expired() {
            break;
        }
    }
    Overlaps { view, conflicts }
}

/// Adds to `earlier[k]` how many of `rects[..k]` overlap `rects[k]`.
fn halves(rects: &[Rect], earlier: &mut [u64]) {
    if rects.len() < 2 {
        return;
    }
    let mid = rects.len() / 2;
    for (e, n) in earlier[mid..].iter_mut().zip(overlapping(&rects[..mid], &rects[mid..])) {
        *e += n;
    }
    let (left, right) = earlier.split_at_mut(mid);
    halves(&rects[..mid], left);
    halves(&rects[mid..], right);
}

/// What a function's holders (its declared allocations and reserved windows) hold against its
/// blocks: a block is *held* when it shares bytes, while both are live, with a holder of another
/// base, and no block of that holder's base is on those bytes then (that would be a conflict of
/// two blocks, reported as such).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Held {
    /// Per block: held by some holder.
    pub held: Vec<bool>,
    /// Up to `most` pairs `(block, holder)`, holder by holder, each holder's blocks in order.
    pub first: Vec<(usize, usize)>,
    /// How many pairs there are in all (`first` among them).
    pub pairs: u64,
    /// Blocks that overlap both a holder and a block of a holder's base, and were left unchecked
    /// against each holder because that would take more than [`HELD_WORK`] steps. Each of them
    /// is a conflict with another block already (see [`overlaps`]), so nothing goes unmarked.
    pub unchecked: usize,
}

/// Most steps spent checking, pair by pair, the blocks that counting alone cannot settle.
pub const HELD_WORK: usize = 1 << 24;

/// The holders' hold on `blocks` (see [`Held`]), near-linear: the pairs are counted, not visited.
///
/// For a block `i` of base `b`, the holders that overlap it are counted as `overlapping` counts
/// (those of every base in its space, less those of `b`): `A(i)`. When no block of another base
/// that has holders overlaps `i` (counted the same way: `D(i) = 0`), none of those holders is
/// excused by a block of its own base, so `i` is held by exactly `A(i)` of them. When `D(i) > 0`,
/// `i` is already a conflict of two blocks; it is checked holder by holder, within [`HELD_WORK`].
/// Listing the first pairs visits only holders that hold something.
pub fn held_overlaps(blocks: &[Block], holders: &[&Block], most: usize) -> Held {
    let mut out = Held { held: vec![false; blocks.len()], ..Held::default() };
    if holders.is_empty() {
        return out;
    }
    let none = Rect { x0: 0, x1: 0, y0: 0, y1: 0 };
    let rect = |b: &Block| Rect::of(b).unwrap_or(none);
    // Block and holder indices by space, then by base within the space.
    let mut spaces: HashMap<&str, (Vec<usize>, Vec<usize>)> = HashMap::default();
    for (i, b) in blocks.iter().enumerate() {
        if Rect::of(b).is_some() {
            spaces.entry(b.tile.space.as_str()).or_default().0.push(i);
        }
    }
    for (h, b) in holders.iter().enumerate() {
        if Rect::of(b).is_some() {
            spaces.entry(b.tile.space.as_str()).or_default().1.push(h);
        }
    }
    // Per block: A(i) and D(i); per holder: the fast-held blocks of other bases over it.
    let mut a = vec![0u64; blocks.len()];
    let mut d = vec![0u64; blocks.len()];
    let mut names: Vec<&str> = spaces.keys().copied().collect();
    names.sort_unstable();
    let mut slow: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut holds = vec![false; holders.len()];
    for space in names {
        let (mine, theirs) = &spaces[space];
        if mine.is_empty() || theirs.is_empty() {
            continue;
        }
        let block_rects: Vec<Rect> = mine.iter().map(|&i| rect(&blocks[i])).collect();
        let holder_rects: Vec<Rect> = theirs.iter().map(|&h| rect(holders[h])).collect();
        for (&i, n) in mine.iter().zip(overlapping(&holder_rects, &block_rects)) {
            a[i] = n;
        }
        let mut by_base: HashMap<&str, (Vec<usize>, Vec<usize>)> = HashMap::default();
        for &i in mine {
            by_base.entry(blocks[i].tile.base.as_str()).or_default().0.push(i);
        }
        for &h in theirs {
            by_base.entry(holders[h].tile.base.as_str()).or_default().1.push(h);
        }
        // Blocks of bases that have holders: those that can excuse a holder.
        let owning: Vec<usize> = by_base
            .values()
            .filter(|(own, held_by)| !own.is_empty() && !held_by.is_empty())
            .flat_map(|g| g.0.clone())
            .collect();
        let owning_rects: Vec<Rect> = owning.iter().map(|&i| rect(&blocks[i])).collect();
        for (&i, n) in mine.iter().zip(overlapping(&owning_rects, &block_rects)) {
            d[i] = n;
        }
        for (own, held_by) in by_base.values() {
            if own.is_empty() || held_by.is_empty() {
                continue;
            }
            let own_rects: Vec<Rect> = own.iter().map(|&i| rect(&blocks[i])).collect();
            let held_rects: Vec<Rect> = held_by.iter().map(|&h| rect(holders[h])).collect();
            // Less what the block's own base holds, and less its own base's blocks (itself too).
            for (&i, n) in own.iter().zip(overlapping(&held_rects, &own_rects)) {
                a[i] -= n;
            }
            for (&i, n) in own.iter().zip(overlapping(&own_rects, &own_rects)) {
                d[i] -= n;
            }
        }
        // Settled by counting.
        let mut fast: Vec<usize> = Vec::new();
        let mut unsettled: Vec<usize> = Vec::new();
        for &i in mine {
            if a[i] == 0 {
                continue;
            }
            if d[i] == 0 {
                out.held[i] = true;
                out.pairs += a[i];
                fast.push(i);
            } else {
                unsettled.push(i);
            }
        }
        if !fast.is_empty() {
            let fast_rects: Vec<Rect> = fast.iter().map(|&i| rect(&blocks[i])).collect();
            // Less, for each holder, the fast blocks of its own base.
            let mut own_over: HashMap<usize, u64> = HashMap::default();
            for (own, held_by) in by_base.values() {
                let own_fast: Vec<Rect> =
                    own.iter().filter(|&&i| a[i] > 0 && d[i] == 0).map(|&i| rect(&blocks[i])).collect();
                if own_fast.is_empty() || held_by.is_empty() {
                    continue;
                }
                let held_rects: Vec<Rect> = held_by.iter().map(|&h| rect(holders[h])).collect();
                for (&h, n) in held_by.iter().zip(overlapping(&own_fast, &held_rects)) {
                    own_over.insert(h, n);
                }
            }
            for (&h, n) in theirs.iter().zip(overlapping(&fast_rects, &holder_rects)) {
                holds[h] |= n > own_over.get(&h).copied().unwrap_or(0);
            }
        }
        // The rest, holder by holder, when affordable.
        let own_of = |base: &str| by_base.get(base).map_or(&[][..], |g| g.0.as_slice());
        let cost: usize = theirs.iter().map(|&h| 1 + own_of(&holders[h].tile.base).len()).sum();
        if unsettled.len().saturating_mul(cost) > HELD_WORK {
            out.unchecked += unsettled.len();
            continue;
        }
        for i in unsettled {
            let r = rect(&blocks[i]);
            let mut by: Vec<usize> = Vec::new();
            for &h in theirs {
                let ht = &holders[h].tile;
                if ht.base == blocks[i].tile.base || !rect(holders[h]).meets(&r) {
                    continue;
                }
                if !own_of(&ht.base).iter().any(|&j| rect(&blocks[j]).meets(&r)) {
                    by.push(h);
                }
            }
            if !by.is_empty() {
                out.held[i] = true;
                out.pairs += by.len() as u64;
                for &h in &by {
                    holds[h] = true;
                }
                slow.push((i, by));
            }
            if crate::budget::expired() {
                break;
            }
        }
    }
    // The first pairs, holder by holder: only holders that hold something are visited, and each
    // such visit lists at least one pair.
    let slow_by: HashMap<usize, &Vec<usize>> = slow.iter().map(|(i, by)| (*i, by)).collect();
    'holders: for (h, &holder) in holders.iter().enumerate() {
        if !holds[h] {
            continue;
        }
        let hr = rect(holder);
        for (i, b) in blocks.iter().enumerate() {
            if out.first.len() >= most {
                break 'holders;
            }
            if !out.held[i] || b.tile.space != holder.tile.space || b.tile.base == holder.tile.base {
                continue;
            }
            let pair = match slow_by.get(&i) {
                Some(by) => by.contains(&h),
                None => d[i] == 0 && rect(b).meets(&hr),
            };
            if pair {
                out.first.push((i, h));
            }
        }
    }
    out
}

/// Up to `most` pairs `(i, j)`, `i < j`, of blocks in `space` on different bases that overlap, found
/// from the blocks `conflicts` says have any, in their order: each such block's partners are looked
/// up in one pass over the space. A block whose pass adds no new pair is in a pair already listed,
/// and `most` pairs hold at most `2 * most` blocks: so at most `3 * most` passes, whatever the count.
pub fn first_conflicts(blocks: &[Block], conflicts: &[u64], space: &str, most: usize) -> Vec<(usize, usize)> {
    let mine: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].tile.space == space).collect();
    let mut listed: Vec<(usize, usize)> = Vec::new();
    let mut seen: HashSet<(usize, usize)> = HashSet::default();
    for &i in mine.iter().filter(|&&i| conflicts.get(i).is_some_and(|&n| n > 0)) {
        let Some(a) = Rect::of(&blocks[i]) else { continue };
        if crate::budget::expired() {
            break;
        }
        for &j in &mine {
            if listed.len() >= most {
                return listed;
            }
            let pair = (i.min(j), i.max(j));
            if i == j || blocks[i].tile.base == blocks[j].tile.base || seen.contains(&pair) {
                continue;
            }
            if Rect::of(&blocks[j]).is_some_and(|b| a.meets(&b)) {
                seen.insert(pair);
                listed.push(pair);
            }
        }
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(space: &str, base: &str, offset: i64, size: i64, lines: (u32, u32)) -> Block {
        Block::sample(format!("{base}_{offset}_{}", lines.0), space, base, offset, size, lines.0, lines.1)
    }

    /// What every pair says, one pair at a time: the rule the counting must agree with.
    fn by_pairs(blocks: &[Block]) -> Overlaps {
        let n = blocks.len();
        let mut out = Overlaps { view: vec![false; n], conflicts: vec![0; n] };
        for (i, a) in blocks.iter().enumerate() {
            for (j, b) in blocks.iter().enumerate().skip(i + 1) {
                let (Some(ra), Some(rb)) = (Rect::of(a), Rect::of(b)) else { continue };
                let (Some(ca), Some(cb)) = (Rect::closed(a), Rect::closed(b)) else { continue };
                if a.tile.space != b.tile.space {
                    continue;
                }
                if a.tile.base == b.tile.base {
                    if ca.meets(&cb) {
                        let narrower = if b.tile.size <= a.tile.size { j } else { i };
                        out.view[narrower] = true;
                    }
                } else if ra.meets(&rb) {
                    out.conflicts[i] += 1;
                    out.conflicts[j] += 1;
                }
            }
        }
        out
    }

    /// A small deterministic generator: the tests need variety, not quality.
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn counting_agrees_with_every_pair_on_random_maps() {
        let mut r = Lcg(7);
        for round in 0..300 {
            let n = 1 + r.below(40) as usize;
            let blocks: Vec<Block> = (0..n)
                .map(|_| {
                    let space = ["Vec", "Mat"][r.below(2) as usize];
                    let base = format!("m{}", r.below(4));
                    let start = 1 + r.below(12) as u32;
                    // Sizes include 0 (an empty tile overlaps nothing) and many equal ones.
                    let size = [0, 4, 8, 8, 16, 32][r.below(6) as usize];
                    block(space, &base, r.below(8) as i64 * 4, size, (start, start + r.below(6) as u32))
                })
                .collect();
            assert_eq!(overlaps(&blocks), by_pairs(&blocks), "round {round}: {blocks:#?}");
        }
    }

    #[test]
    fn the_sweep_agrees_with_every_pair_on_small_groups_too() {
        // Small groups are counted pair by pair; the sweep must agree there as well.
        let mut r = Lcg(3);
        for round in 0..500 {
            let rect = |r: &mut Lcg| {
                let (x0, y0) = (r.below(10) as i64, r.below(10) as i64);
                Rect { x0, x1: x0 + 1 + r.below(4) as i64, y0, y1: y0 + r.below(3) as i64 }
            };
            let points: Vec<Rect> = (0..r.below(12)).map(|_| rect(&mut r)).collect();
            let queries: Vec<Rect> = (0..r.below(12)).map(|_| rect(&mut r)).collect();
            let pairs: Vec<u64> = queries.iter().map(|q| points.iter().filter(|p| p.meets(q)).count() as u64).collect();
            assert_eq!(swept(&points, &queries), pairs, "round {round}");
        }
    }

    #[test]
    fn thousands_of_piled_tiles_are_counted_without_their_pairs() {
        let n = 5000;
        let blocks: Vec<Block> =
            (0..n).map(|i| block("Vec", &format!("m{i}"), i as i64 * 2, 16384, (1 + i as u32, 1 + n as u32))).collect();
        let started = std::time::Instant::now();
        let o = overlaps(&blocks);
        assert!(o.conflicts.iter().all(|&c| c == n as u64 - 1));
        assert_eq!(o.conflicts.iter().sum::<u64>() / 2, 5000 * 4999 / 2);
        let listed = first_conflicts(&blocks, &o.conflicts, "Vec", 50);
        assert_eq!(listed.len(), 50);
        assert_eq!(listed[0], (0, 1));
        assert_eq!(listed[49], (0, 50));
        // 12.5 M pairs took seconds in a debug build; this is a few dozen sorts.
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }

    /// The holders' rule one pair at a time (as the findings once visited it): the reference.
    fn held_by_pairs(blocks: &[Block], holders: &[&Block]) -> (Vec<bool>, Vec<(usize, usize)>) {
        let (mut held, mut pairs) = (vec![false; blocks.len()], Vec::new());
        for (h, holder) in holders.iter().enumerate() {
            let Some(hr) = Rect::of(holder) else { continue };
            for (i, b) in blocks.iter().enumerate() {
                let Some(r) = Rect::of(b) else { continue };
                if b.tile.space != holder.tile.space || b.tile.base == holder.tile.base || !r.meets(&hr) {
                    continue;
                }
                let excused = blocks.iter().any(|o| {
                    o.tile.space == holder.tile.space
                        && o.tile.base == holder.tile.base
                        && Rect::of(o).is_some_and(|or| or.meets(&r))
                });
                if !excused {
                    held[i] = true;
                    pairs.push((i, h));
                }
            }
        }
        (held, pairs)
    }

    #[test]
    fn held_counting_agrees_with_every_pair_on_random_maps() {
        let mut r = Lcg(11);
        for round in 0..400 {
            let mut make = |n: usize, bases: u64| -> Vec<Block> {
                (0..n)
                    .map(|_| {
                        let space = ["Vec", "Mat"][r.below(2) as usize];
                        let base = format!("m{}", r.below(bases));
                        let start = 1 + r.below(12) as u32;
                        let size = [0, 4, 8, 8, 16, 32][r.below(6) as usize];
                        block(space, &base, r.below(8) as i64 * 4, size, (start, start + r.below(6) as u32))
                    })
                    .collect()
            };
            let blocks = make(1 + round % 30, 5);
            // Holders share bases with the blocks (declared allocations) or not (windows: m5, m6).
            let holders = make(1 + round % 7, 7);
            let refs: Vec<&Block> = holders.iter().collect();
            let (held, pairs) = held_by_pairs(&blocks, &refs);
            let got = held_overlaps(&blocks, &refs, 5);
            assert_eq!(got.held, held, "round {round}");
            assert_eq!(got.pairs, pairs.len() as u64, "round {round}");
            assert_eq!(got.first, pairs.iter().take(5).copied().collect::<Vec<_>>(), "round {round}");
            assert_eq!(got.unchecked, 0);
        }
    }

    #[test]
    fn forty_thousand_windows_over_forty_thousand_tiles_are_counted_not_visited() {
        // Every window over every tile: 1.6 billion pairs, which took 45 s and 4 GB one by one.
        let n = 40_000;
        let tiles: Vec<Block> = (0..n)
            .map(|i| block("Vec", &format!("m{i}"), (i % 64) as i64 * 16, 16, (1 + i as u32, 2 + i as u32)))
            .collect();
        let windows: Vec<Block> = (0..n).map(|i| block("Vec", &format!("w{i}"), 0, 1024, (1, n as u32 + 2))).collect();
        let refs: Vec<&Block> = windows.iter().collect();
        let started = std::time::Instant::now();
        let held = held_overlaps(&tiles, &refs, 50);
        let took = started.elapsed();
        assert!(held.held.iter().all(|&h| h));
        assert_eq!(held.pairs, (n as u64) * (n as u64));
        assert_eq!(held.first.len(), 50);
        assert_eq!(held.first[1], (1, 0), "the first window's tiles first, in order");
        assert!(took < std::time::Duration::from_secs(if cfg!(debug_assertions) { 20 } else { 5 }), "{took:?}");
    }

    #[test]
    fn sixty_four_thousand_piled_allocations_are_settled_within_the_work_bound() {
        // Each tile its own declared allocation, all on one range at once: every tile is excused
        // nowhere (other bases' tiles are on it), so each must be checked; past the work bound the
        // rest are left (each is a conflict of two tiles anyway), in bounded time.
        let n = 64_000;
        let tiles: Vec<Block> = (0..n)
            .map(|i| block("Vec", &format!("m{i}"), (i % 8) as i64 * 4, 64, (1 + i as u32, n as u32 + 1)))
            .collect();
        let allocations: Vec<Block> =
            (0..n).map(|i| block("Vec", &format!("m{i}"), 0, 128, (1 + i as u32, n as u32 + 1))).collect();
        let refs: Vec<&Block> = allocations.iter().collect();
        let started = std::time::Instant::now();
        let held = held_overlaps(&tiles, &refs, 50);
        let took = started.elapsed();
        assert_eq!(held.unchecked, n);
        assert!(took < std::time::Duration::from_secs(if cfg!(debug_assertions) { 20 } else { 5 }), "{took:?}");
        // The same pile of 200 is checked pair by pair, and agrees with the reference.
        let (tiles, allocations) = (&tiles[..200], &allocations[..200]);
        let refs: Vec<&Block> = allocations.iter().collect();
        let held = held_overlaps(tiles, &refs, 50);
        let (expected, pairs) = held_by_pairs(tiles, &refs);
        assert_eq!((held.held, held.pairs, held.unchecked), (expected, pairs.len() as u64, 0));
    }

    #[test]
    fn listing_stops_after_few_passes_when_each_block_has_one_partner() {
        // Pairs far apart: every conflicting block has one partner, found by its own pass.
        let blocks: Vec<Block> =
            (0..400).map(|i| block("Vec", &format!("m{i}"), (i / 2) as i64 * 64, 64, (1, 2))).collect();
        let o = overlaps(&blocks);
        assert!(o.conflicts.iter().all(|&c| c == 1));
        let listed = first_conflicts(&blocks, &o.conflicts, "Vec", 50);
        assert_eq!(listed, (0..50).map(|k| (2 * k, 2 * k + 1)).collect::<Vec<_>>());
        assert!(first_conflicts(&blocks, &o.conflicts, "Mat", 50).is_empty());
    }
}
