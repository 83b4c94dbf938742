//! The packed view (`--packed`): beside each space's lane, the same boxes over the same lifetimes
//! where the packer placed them, on the same byte scale, so that what a better placement saves is
//! seen at once.
//!
//! The packed lane is a space of its own in a copy of the function (`Vec packed`), so every back
//! end draws it as it draws any lane, and the page's space buttons show and hide it: nothing is
//! drawn twice. Its boxes keep their names (a box is matched to its twin by name), its reserved
//! windows and pinned allocations stay where they are (the packer does not move them), and it
//! carries no findings (a packing has no conflicts) and no handovers (the compiler's are not the
//! packing's).

use std::borrow::Cow;

use crate::hashed::HashMap;
use crate::model::{FunctionMap, MemoryMap, SpaceUsage};

/// What a packed lane's space is called: the space's name and this.
pub const PACKED_SUFFIX: &str = " packed";

/// The space a lane's name stands for: `Vec` for `Vec packed`.
pub fn packed_of(space: &str) -> &str {
    space.strip_suffix(PACKED_SUFFIX).unwrap_or(space)
}

/// `map` with a packed lane after each space of each function the packer placed (the map itself,
/// not a copy, when it has no packing), and `hidden` with each hidden space's packed lane added.
pub fn with_packed_lanes<'a>(map: &'a MemoryMap, hidden: &[String]) -> (Cow<'a, MemoryMap>, Vec<String>) {
    if map.functions.iter().all(|f| f.spaces.iter().all(|s| s.packing.is_none())) {
        return (Cow::Borrowed(map), hidden.to_vec());
    }
    let mut out = map.clone();
    for f in &mut out.functions {
        add_lanes(f);
    }
    let lanes: Vec<String> = hidden
        .iter()
        .map(|h| format!("{h}{PACKED_SUFFIX}"))
        .filter(|lane| out.functions.iter().any(|f| f.spaces.iter().any(|s| &s.space == lane)))
        .collect();
    (Cow::Owned(out), hidden.iter().cloned().chain(lanes).collect())
}

fn add_lanes(f: &mut FunctionMap) {
    if f.spaces.iter().all(|s| s.packing.is_none()) {
        return;
    }
    let mut spaces = Vec::with_capacity(f.spaces.len() * 2);
    let mut blocks = Vec::with_capacity(f.blocks.len() * 2);
    for s in &f.spaces {
        spaces.push(s.clone());
        blocks.extend(f.blocks.iter().filter(|b| b.tile.space == s.space).cloned());
        let Some(p) = &s.packing else { continue };
        let name = format!("{}{PACKED_SUFFIX}", s.space);
        // Boxes by name, each name's offsets in the placement's order (boxes may share a name).
        let mut offsets: HashMap<&str, std::collections::VecDeque<i64>> = HashMap::default();
        for placed in &p.placement {
            offsets.entry(placed.name.as_str()).or_default().push_back(placed.offset);
        }
        let mut moved: Vec<_> = f
            .blocks
            .iter()
            .filter(|b| b.tile.space == s.space)
            .map(|b| {
                let mut b = b.clone();
                if let Some(offset) = offsets.get_mut(b.tile.name.as_str()).and_then(|q| q.pop_front()) {
                    b.tile.offset = offset;
                }
                b.tile.space = name.clone();
                b.conflict = false;
                // The compiler's handovers are not the packing's.
                b.handovers = Default::default();
                b
            })
            .collect();
        moved.sort_by_key(|b| (b.tile.offset, b.tile.start));
        let windows: Vec<_> = f
            .reserved
            .iter()
            .filter(|r| r.space == s.space)
            .map(|r| crate::model::Reserved { space: name.clone(), ..r.clone() })
            .collect();
        let busy = moved
            .iter()
            .map(|b| (b.tile.offset, b.tile.stop()))
            .chain(windows.iter().filter_map(|r| Some((r.offset?, r.offset? + r.size))));
        let largest_free = largest_gap(busy.collect(), s.limit);
        spaces.push(SpaceUsage {
            space: name.clone(),
            hwm: p.bytes,
            headroom: s.limit - p.bytes,
            largest_free,
            packing: None,
            handovers: None,
            ..s.clone()
        });
        blocks.extend(moved);
        f.reserved.extend(windows);
    }
    f.spaces = spaces;
    f.blocks = blocks;
}

/// The largest range of `[0, limit)` that none of the `busy` ranges (every box of the lane, over all
/// its lines, and the windows) touches: the packed lane's `largest_free`.
fn largest_gap(mut busy: Vec<(i64, i64)>, limit: i64) -> crate::model::Gap {
    busy.sort_unstable();
    let (mut best, mut at) = (crate::model::Gap::default(), 0);
    for (from, to) in busy.into_iter().chain([(limit, limit)]) {
        if from > at && from.min(limit) - at > best.size {
            best = crate::model::Gap { offset: at, size: from.min(limit) - at };
        }
        at = at.max(to);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_lane_is_the_spaces_own_name_with_the_suffix() {
        assert_eq!(packed_of("Vec packed"), "Vec");
        assert_eq!(packed_of("Vec"), "Vec");
    }

    #[test]
    fn the_largest_gap_is_between_or_above_the_busy_ranges() {
        let gap = |busy: Vec<(i64, i64)>, limit| {
            let g = largest_gap(busy, limit);
            (g.offset, g.size)
        };
        assert_eq!(gap(vec![(0, 10), (40, 50)], 60), (10, 30));
        assert_eq!(gap(vec![(0, 10), (5, 20)], 100), (20, 80));
        assert_eq!(gap(vec![], 64), (0, 64));
        assert_eq!(gap(vec![(0, 64)], 64), (0, 0));
    }
}
