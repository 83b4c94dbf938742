//! What a space holds at each line, for the page's live list: the union of the live boxes' bytes and
//! the largest free range below the capacity, at every line where the live set changes.
//!
//! A sweep down the lines adds a box's range at its first line and removes it after its last, in a
//! segment tree over the distinct offsets whose nodes know how much of them is covered, and their
//! free runs (the free prefix, the free suffix and the longest run, first of the longest). Each
//! change costs O(log n); a space of n boxes has at most 2n changes: O(n log n) in all, however many
//! lines and however many boxes live at once. The rule is [`figures_at`]'s, which recomputes it for
//! one line (and the tests hold the two equal).

use crate::model::{Block, Gap};

/// One node's figures. A node whose elementary ranges a box covers whole is covered whatever its
/// children say; the children keep their own figures for when it is uncovered again.
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    /// Boxes covering the whole node.
    cover: u32,
    /// Covered bytes below it.
    covered: i64,
    /// Free bytes at its start and at its end, and its longest free run (offset, size).
    prefix: i64,
    suffix: i64,
    best: (i64, i64),
    /// Whether every byte of it that may be free is free (then `prefix` is its free length).
    open: bool,
}

struct Sweep {
    cuts: Vec<i64>,
    capacity: i64,
    nodes: Vec<Node>,
}

impl Sweep {
    fn new(mut cuts: Vec<i64>, capacity: i64) -> Sweep {
        cuts.extend([0, capacity.max(0)]);
        cuts.sort_unstable();
        cuts.dedup();
        let mut s = Sweep { nodes: vec![Node::default(); 4 * cuts.len().max(2)], cuts, capacity };
        if s.cuts.len() >= 2 {
            s.build(1, 0, s.cuts.len() - 1);
        }
        s
    }

    /// The figures of the elementary range `l..l + 1` with nothing on it: free where it lies in
    /// `[0, capacity)`, and otherwise neither free nor covered.
    fn leaf(&self, l: usize) -> Node {
        let (lo, hi) = (self.cuts[l], self.cuts[l + 1]);
        if lo >= 0 && hi <= self.capacity {
            Node { cover: 0, covered: 0, prefix: hi - lo, suffix: hi - lo, best: (lo, hi - lo), open: true }
        } else {
            Node { cover: 0, covered: 0, prefix: 0, suffix: 0, best: (0, 0), open: false }
        }
    }

    fn build(&mut self, node: usize, l: usize, r: usize) {
        if r - l == 1 {
            self.nodes[node] = self.leaf(l);
            return;
        }
        let mid = (l + r) / 2;
        self.build(node * 2, l, mid);
        self.build(node * 2 + 1, mid, r);
        self.pull(node, l, r);
    }

    /// Recomputes `node` (over `l..r`) from its cover and its children.
    fn pull(&mut self, node: usize, l: usize, r: usize) {
        let cover = self.nodes[node].cover;
        if cover > 0 {
            let whole = self.cuts[r] - self.cuts[l];
            self.nodes[node] = Node { cover, covered: whole, prefix: 0, suffix: 0, best: (0, 0), open: false };
            return;
        }
        if r - l == 1 {
            self.nodes[node] = self.leaf(l);
            return;
        }
        let mid = (l + r) / 2;
        let (a, b) = (self.nodes[node * 2], self.nodes[node * 2 + 1]);
        let across = (self.cuts[mid] - a.suffix, a.suffix + b.prefix);
        // The longest run, first of the longest: left, then across the middle, then right.
        let mut best = a.best;
        for c in [across, b.best] {
            if c.1 > best.1 {
                best = c;
            }
        }
        self.nodes[node] = Node {
            cover: 0,
            covered: a.covered + b.covered,
            prefix: if a.open { a.prefix + b.prefix } else { a.prefix },
            suffix: if b.open { b.suffix + a.suffix } else { b.suffix },
            best,
            open: a.open && b.open,
        };
    }

    /// Adds `delta` boxes over the elementary ranges `lo..hi` (indices into `cuts`).
    fn add(&mut self, lo: usize, hi: usize, delta: i32) {
        if self.cuts.len() >= 2 && lo < hi {
            self.update(1, 0, self.cuts.len() - 1, lo, hi, delta);
        }
    }

    fn update(&mut self, node: usize, l: usize, r: usize, lo: usize, hi: usize, delta: i32) {
        if hi <= l || r <= lo {
            return;
        }
        if lo <= l && r <= hi {
            let c = &mut self.nodes[node].cover;
            *c = c.saturating_add_signed(delta);
        } else {
            let mid = (l + r) / 2;
            self.update(node * 2, l, mid, lo, hi, delta);
            self.update(node * 2 + 1, mid, r, lo, hi, delta);
        }
        self.pull(node, l, r);
    }

    /// The union of what is on the tree, and its largest free range (`0, 0` when none).
    fn figures(&self) -> (i64, Gap) {
        let root = self.nodes[1];
        let (offset, size) = if root.best.1 > 0 { root.best } else { (0, 0) };
        (root.covered, Gap { offset, size })
    }
}

/// At each line of `lines` where the live set of `blocks` changes (and at its first line), the
/// live total and the largest free range below `capacity`: `[line, total, offset, size]`, one entry
/// per change of figures. A line's figures are those of the last entry at or before it.
pub fn changes(blocks: &[&Block], capacity: i64, (from, to): (u32, u32)) -> Vec<[i64; 4]> {
    // A box with no bytes holds nothing, and one outside the lines is never live.
    let ranges: Vec<(i64, i64, u32, u32)> = blocks
        .iter()
        .map(|b| (b.tile.offset, b.tile.stop(), b.tile.start.max(from), b.tile.held().min(to)))
        .filter(|&(lo, hi, start, end)| hi > lo && start <= end)
        .collect();
    let mut sweep = Sweep::new(ranges.iter().flat_map(|&(lo, hi, ..)| [lo, hi]).collect(), capacity);
    let slot = |x: i64| sweep.cuts.partition_point(|&c| c < x);
    let mut events: Vec<(u32, i32, usize, usize)> = ranges
        .iter()
        .flat_map(|&(lo, hi, start, end)| {
            [(start, 1, slot(lo), slot(hi)), (end.saturating_add(1), -1, slot(lo), slot(hi))]
        })
        .filter(|e| e.0 <= to)
        .collect();
    events.sort_unstable_by_key(|e| e.0);
    let mut out: Vec<[i64; 4]> = Vec::new();
    let mut note = |line: u32, sweep: &Sweep| {
        let (total, gap) = sweep.figures();
        let entry = [line as i64, total, gap.offset, gap.size];
        if out.last().is_none_or(|last| last[1..] != entry[1..]) {
            out.push(entry);
        }
    };
    let mut next = 0;
    // The first line, with whatever starts there.
    while next < events.len() && events[next].0 <= from {
        let (_, delta, lo, hi) = events[next];
        sweep.add(lo, hi, delta);
        next += 1;
    }
    note(from, &sweep);
    while next < events.len() {
        let line = events[next].0;
        while next < events.len() && events[next].0 == line {
            let (_, delta, lo, hi) = events[next];
            sweep.add(lo, hi, delta);
            next += 1;
        }
        note(line, &sweep);
    }
    out
}

/// The figures of `line` among `changes` (the last entry at or before it).
pub fn at(changes: &[[i64; 4]], line: u32) -> (i64, Gap) {
    let k = changes.partition_point(|c| c[0] <= line as i64);
    changes.get(k.wrapping_sub(1)).map_or((0, Gap::default()), |c| (c[1], Gap { offset: c[2], size: c[3] }))
}

/// The live figures at `line` in one space, recomputed for that line alone (the rule [`changes`]
/// keeps by a sweep): the union of the live blocks' bytes and the largest free range below
/// `capacity` (the first of the largest).
pub fn figures_at(blocks: &[&Block], capacity: i64, line: u32) -> (i64, Gap) {
    let live: Vec<&Block> = blocks.iter().copied().filter(|b| b.tile.start <= line && line <= b.tile.held()).collect();
    let mut ranges: Vec<(i64, i64)> = live.iter().map(|b| (b.tile.offset, b.tile.stop())).collect();
    let total = super::union_length(&mut ranges);
    let gaps = super::free_ranges(&live, capacity, (line, line));
    let largest = gaps.iter().copied().fold(Gap::default(), |best, g| if g.size > best.size { g } else { best });
    (total, largest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(offset: i64, size: i64, start: u32, end: u32) -> Block {
        Block::sample(String::new(), "Vec", "", offset, size, start, end)
    }

    #[test]
    fn the_changes_say_what_the_rule_says_at_every_line() {
        let mut seed = 11u64;
        let mut below = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for round in 0..400 {
            let n = below(14) as usize;
            // Boxes past the capacity, of no bytes, outside the lines, over each other.
            let blocks: Vec<Block> = (0..n)
                .map(|_| {
                    let start = 1 + below(20) as u32;
                    block(below(12) as i64 * 8, [0, 8, 16, 24, 40][below(5) as usize], start, start + below(8) as u32)
                })
                .collect();
            let mine: Vec<&Block> = blocks.iter().collect();
            let capacity = [0, 32, 64, 100][below(4) as usize];
            let (from, to) = (1 + below(4) as u32, 18 + below(8) as u32);
            let changes = changes(&mine, capacity, (from, to));
            assert!(changes.len() <= 2 * n + 1, "round {round}: {} changes for {n} boxes", changes.len());
            for line in from..=to {
                assert_eq!(at(&changes, line), figures_at(&mine, capacity, line), "round {round} L{line}");
            }
        }
    }

    #[test]
    fn two_thousand_piled_boxes_cost_their_changes_not_lines_times_boxes() {
        let blocks: Vec<Block> = (0..2000).map(|i| block(i * 2, 16384, 1 + i as u32, 240_000)).collect();
        let mine: Vec<&Block> = blocks.iter().collect();
        let started = std::time::Instant::now();
        let changes = changes(&mine, 196_608, (1, 240_000));
        assert_eq!(changes.len(), 2000);
        assert_eq!(
            at(&changes, 239_999),
            (16384 + 2 * 1999, Gap { offset: 16384 + 2 * 1999, size: 196_608 - 16384 - 3998 })
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }
}
