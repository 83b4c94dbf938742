//! The packer's second aim: at equal bytes, fewer cross-pipe handovers.
//!
//! A placement that reuses bytes hands them from one unit to the next; where the access that lets
//! them go and the write that takes them run on different pipes, the kernel syncs the two pipes
//! there. PyPTO's DSA planner weighs that as a penalty; here it only breaks ties: once the peak is
//! known, a pipe-aware placement is tried under that peak, and kept when it has fewer cross-pipe
//! handovers (`space.rs` counts them on the boxes, exactly, with `handover`).
//!
//! The placement goes through the units in order of their first instant. Each is put at the
//! candidate offset (0, the top of a unit or fixed block live with it, the first byte of bytes
//! some ended unit left) that fits under the peak, overlaps nothing live, and takes bytes from the
//! fewest units of another pipe, the lowest such offset on a tie. Candidates are bounded per unit,
//! and the whole is tried only on spaces of at most [`MAX_UNITS`] units, so it stays a small
//! share of the packer's time.

use std::collections::BTreeMap;
use std::time::Instant;

use super::{Block, occupies, round_up};
use crate::model::Pipe;

/// Spaces with more units than this keep the packer's placement as it is.
pub const MAX_UNITS: usize = 1000;
/// The most candidate offsets weighed for one unit.
const MAX_CANDIDATES: usize = 64;

/// A unit's pipes: of its first access (the write that takes bytes) and its last (the access
/// after which they may pass on).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ends {
    pub first: Option<Pipe>,
    pub last: Option<Pipe>,
}

/// Offsets for `blocks` (fixed ones keep theirs) with every top at most `peak`, taking bytes from
/// units of another pipe as little as the greedy order allows; `None` when it finds no such
/// placement, or `stop` comes first (the packer's own then stands).
pub fn pipe_aware(blocks: &[Block], ends: &[Ends], align: u64, peak: u64, stop: Option<Instant>) -> Option<Vec<u64>> {
    let align = align.max(1);
    let n = blocks.len();
    if n > MAX_UNITS || ends.len() != n {
        return None;
    }
    let size: Vec<u64> = blocks.iter().map(|b| round_up(b.size, align)).collect();
    let mut offsets: Vec<u64> = blocks.iter().map(|b| b.fixed.unwrap_or(0)).collect();
    let mut order: Vec<usize> = (0..n).filter(|&i| occupies(&blocks[i])).collect();
    order.sort_by_key(|&i| (blocks[i].lower, blocks[i].fixed.is_none(), std::cmp::Reverse(size[i]), i));
    // Units placed and still live, and the ends to come, in order of instant.
    let mut live: Vec<usize> = Vec::new();
    // Who left each byte last: first byte -> (one past the last, unit).
    let mut left: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    for &i in &order {
        if stop.is_some_and(|s| Instant::now() >= s) {
            return None;
        }
        let now = blocks[i].lower;
        // Units over by now leave their bytes, the earliest first so the latest is on top.
        let mut over: Vec<usize> = live.iter().copied().filter(|&j| blocks[j].upper <= now).collect();
        over.sort_by_key(|&j| (blocks[j].upper, size[j], j));
        for j in over {
            paint(&mut left, offsets[j], offsets[j] + size[j], j);
        }
        live.retain(|&j| blocks[j].upper > now);
        if blocks[i].fixed.is_none() {
            let taken: Vec<(u64, u64)> = live.iter().map(|&j| (offsets[j], offsets[j] + size[j])).collect();
            // Fixed units live later in this unit's life are obstacles too.
            let later: Vec<(u64, u64)> = order
                .iter()
                .filter(|&&j| blocks[j].fixed.is_some() && j != i && blocks[j].meets(&blocks[i]))
                .map(|&j| (offsets[j], offsets[j] + size[j]))
                .collect();
            let clear = |o: u64| {
                let t = o + size[i];
                t <= peak && taken.iter().chain(&later).all(|&(a, b)| b <= o || t <= a)
            };
            let mut candidates: Vec<u64> = vec![0];
            candidates.extend(taken.iter().chain(&later).map(|&(_, b)| round_up(b, align)));
            candidates.extend(left.keys().map(|&k| round_up(k, align)).take(MAX_CANDIDATES));
            candidates.sort_unstable();
            candidates.dedup();
            let best = candidates
                .into_iter()
                .filter(|&o| clear(o))
                .take(MAX_CANDIDATES)
                .min_by_key(|&o| (cross(&left, o, o + size[i], ends, ends[i].first), o))?;
            offsets[i] = best;
        }
        live.push(i);
    }
    Some(offsets)
}

/// Puts `unit` on `[a, b)` of the map of who left each byte.
fn paint(left: &mut BTreeMap<u64, (u64, usize)>, a: u64, b: u64, unit: usize) {
    for at in [a, b] {
        if let Some((&s, &(e, u))) = left.range(..at).next_back()
            && e > at
        {
            left.insert(s, (at, u));
            left.insert(at, (e, u));
        }
    }
    let inside: Vec<u64> = left.range(a..b).map(|(&s, _)| s).collect();
    for s in inside {
        left.remove(&s);
    }
    left.insert(a, (b, unit));
}

/// How many distinct units of a pipe other than `first` left bytes of `[a, b)` last.
fn cross(left: &BTreeMap<u64, (u64, usize)>, a: u64, b: u64, ends: &[Ends], first: Option<Pipe>) -> usize {
    let Some(first) = first else { return 0 };
    let from = left.range(..a).next_back().filter(|(_, (e, _))| *e > a).map(|(&s, _)| s).unwrap_or(a);
    let mut units: Vec<usize> = left
        .range(from..b)
        .filter(|(_, (_, u))| crate::model::crosses(ends[*u].last, Some(first)))
        .map(|(_, &(_, u))| u)
        .collect();
    units.sort_unstable();
    units.dedup();
    units.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_go_to_a_unit_of_the_same_pipe() {
        // Two units end (one last read on V, one on MTE3); a third, written on V, may take either's
        // bytes: it takes the V one's, though it lies higher.
        let blocks = [Block::new(0, 4, 64), Block::new(0, 4, 64), Block::new(5, 8, 64)];
        let ends = [
            Ends { first: Some(Pipe::Mte2), last: Some(Pipe::Mte3) },
            Ends { first: Some(Pipe::Mte2), last: Some(Pipe::V) },
            Ends { first: Some(Pipe::V), last: Some(Pipe::V) },
        ];
        let offsets = pipe_aware(&blocks, &ends, 32, 128, None).unwrap();
        assert_eq!(offsets[2], offsets[1]);
        assert_ne!(offsets[0], offsets[1]);
        // Under a peak of 64 no placement exists (the first two are live together).
        assert!(pipe_aware(&blocks, &ends, 32, 64, None).is_none());
        // Past its deadline it gives up.
        assert!(pipe_aware(&blocks, &ends, 32, 128, Some(Instant::now())).is_none());
    }
}
