//! Handovers of one placement: which box takes bytes that which box held last, found by one sweep
//! over time with a map of the space's bytes, so a placement of n boxes costs O(n log n) however its
//! boxes overlap. The analysis reports the compiler's placement's handovers, and the packer counts
//! a candidate placement's cross-pipe ones to prefer the fewer at equal bytes.
//!
//! The sweep keeps, for every byte, who holds it now or held it last. When a box begins, the bytes
//! it takes that were left by a box now over are handovers from that box; it then holds the whole
//! range. When a box ends, its range is left by it. A box begun while another still holds some of
//! its bytes (a conflict) takes nothing from that one; what it takes is only what was left. Each
//! event replaces the entries of its range with one, so the map never holds more than three entries
//! per box and the work over all events is O(n log n).

use std::collections::BTreeMap;

/// One box as the sweep reads it: bytes `[offset, stop)`, and its lifetime on the doubled line
/// axis as a closed range `[from, to]` (see `Tile::held_span`: a box begun on the line another is
/// last read on does not meet it, so it may take its bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// The first byte.
    pub offset: i64,
    /// One past the last byte.
    pub stop: i64,
    /// The first instant held (twice the first line, plus one).
    pub from: i64,
    /// The last instant held.
    pub to: i64,
}

impl Held {
    /// Tile `t` as the sweep reads it, placed at `offset` (its own, or a packing's).
    pub fn of(t: &crate::model::Tile, offset: i64) -> Held {
        let (from, to) = t.held_span();
        Held { offset, stop: offset + t.size, from, to }
    }
}

#[derive(Debug, Clone, Copy)]
enum Owner {
    /// Held by a box still live (which, it does not matter: nothing is taken from it).
    Holds,
    /// Left by this box, over now.
    Left(usize),
}

/// Who holds or last held each byte: runs `start -> (stop, owner)`, disjoint.
#[derive(Default)]
struct Bytes(BTreeMap<i64, (i64, Owner)>);

impl Bytes {
    /// Cuts the run across `at`, if one does, in two at `at`.
    fn split(&mut self, at: i64) {
        if let Some((&start, &(stop, owner))) = self.0.range(..at).next_back()
            && stop > at
        {
            self.0.insert(start, (at, owner));
            self.0.insert(at, (stop, owner));
        }
    }

    /// Puts `owner` on `[a, b)`, calling `seen` with each owner it replaces.
    fn put(&mut self, a: i64, b: i64, owner: Owner, mut seen: impl FnMut(Owner)) {
        self.split(a);
        self.split(b);
        let starts: Vec<i64> = self.0.range(a..b).map(|(&s, _)| s).collect();
        for s in starts {
            if let Some((_, o)) = self.0.remove(&s) {
                seen(o);
            }
        }
        self.0.insert(a, (b, owner));
    }
}

/// Every handover of `boxes`: `(from, to)` where box `to` takes bytes box `from` held last, each
/// pair once, in the order the boxes that take them begin. Boxes with no bytes are left out.
pub fn handovers(boxes: &[Held]) -> Vec<(usize, usize)> {
    // Events: (instant, 0 begins / 1 ends, size, index). A box that begins on the instant another
    // ends still meets it, so beginnings go first; of the ends on one instant the widest goes last,
    // so a tile and a view inside it ending together leave the bytes to the tile.
    let mut events: Vec<(i64, u8, i64, usize)> = Vec::with_capacity(2 * boxes.len());
    for (i, b) in boxes.iter().enumerate() {
        if b.stop > b.offset {
            events.push((b.from, 0, 0, i));
            events.push((b.to, 1, b.stop - b.offset, i));
        }
    }
    events.sort_unstable();
    let mut bytes = Bytes::default();
    let mut out = Vec::new();
    let mut from: Vec<usize> = Vec::new();
    for (_, kind, _, i) in events {
        let b = boxes[i];
        if kind == 0 {
            from.clear();
            bytes.put(b.offset, b.stop, Owner::Holds, |o| {
                if let Owner::Left(j) = o {
                    from.push(j);
                }
            });
            from.sort_unstable();
            from.dedup();
            out.extend(from.iter().map(|&j| (j, i)));
        } else {
            bytes.put(b.offset, b.stop, Owner::Left(i), |_| {});
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box over bytes `[offset, stop)` held on lines `start..=end` (doubled as `held_span` does).
    fn held(offset: i64, stop: i64, start: i64, end: i64) -> Held {
        let from = 2 * start + 1;
        Held { offset, stop, from, to: (2 * end).max(from) }
    }

    /// Every handover by brute force, for boxes no two of which hold a byte at once: `to` takes a
    /// byte from the box over it that ended last before `to` began.
    fn brute(boxes: &[Held]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (t, b) in boxes.iter().enumerate() {
            let mut from = Vec::new();
            for byte in b.offset..b.stop {
                let last = (0..boxes.len())
                    .filter(|&k| boxes[k].offset <= byte && byte < boxes[k].stop && boxes[k].to < b.from)
                    .max_by_key(|&k| boxes[k].to);
                from.extend(last);
            }
            from.sort_unstable();
            from.dedup();
            out.extend(from.into_iter().map(|k| (k, t)));
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn bytes_pass_to_the_next_box_only() {
        // a then b on the same bytes, then c on them: a -> b, b -> c, never a -> c.
        let boxes = [held(0, 64, 1, 3), held(0, 64, 4, 6), held(0, 64, 8, 9)];
        assert_eq!(handovers(&boxes), vec![(0, 1), (1, 2)]);
        // Begun on a's last line: b still takes a's bytes (touching lifetimes share).
        let boxes = [held(0, 64, 1, 3), held(0, 64, 3, 6)];
        assert_eq!(handovers(&boxes), vec![(0, 1)]);
        // Live together (a conflict): nothing passes.
        let boxes = [held(0, 64, 1, 4), held(32, 96, 3, 6)];
        assert!(handovers(&boxes).is_empty());
    }

    #[test]
    fn a_wide_box_takes_from_every_box_below_it() {
        let boxes = [held(0, 32, 1, 2), held(32, 64, 1, 3), held(128, 160, 1, 2), held(0, 96, 5, 7)];
        assert_eq!(handovers(&boxes), vec![(0, 3), (1, 3)]);
    }

    #[test]
    fn the_sweep_agrees_with_brute_force() {
        // Small random placements, no two boxes on one byte at once (a valid placement).
        let mut seed = 0x9e37_79b9_u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as i64
        };
        for _ in 0..300 {
            let n = 1 + next(9) as usize;
            let mut boxes: Vec<Held> = Vec::new();
            for _ in 0..4 * n {
                let offset = 8 * next(8);
                let stop = offset + 8 * (1 + next(4));
                let start = next(12);
                let b = held(offset, stop, start, start + next(5));
                let meets = |o: &Held| o.offset < b.stop && b.offset < o.stop && o.from <= b.to && b.from <= o.to;
                if boxes.len() < n && !boxes.iter().any(meets) {
                    boxes.push(b);
                }
            }
            let mut got = handovers(&boxes);
            got.sort_unstable();
            assert_eq!(got, brute(&boxes), "{boxes:?}");
        }
    }
}
