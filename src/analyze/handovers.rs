//! The price of the compiler's reuse: in each space, where bytes pass from one box to the next
//! (`pack::handover` finds the pairs), with the pipes of the access that lets them go and of the
//! write that takes them, and how many of those cross pipes.
//!
//! A view (a narrower box inside a wider one of its base, live with it) is no allocation of its
//! own: it neither takes nor hands on bytes, its tile does. A box's first access is its first op
//! call that touches memory (its writer, usually the op that binds it), its last the last such
//! call on any of its names; where it has none, its first or last named line stands in, with no
//! pipe.

use std::sync::Arc;

use crate::model::{Block, HANDOVERS_LISTED, Handover, Handovers, SpaceUsage};
use crate::pack::handover::{Held, handovers};

/// Finds every space's handovers among `blocks`, writes them to `spaces` (which must be the
/// summary of these blocks) and to each box they involve.
pub fn mark(blocks: &mut [Block], spaces: &mut [SpaceUsage]) {
    for s in spaces.iter_mut() {
        let mine: Vec<usize> = (0..blocks.len())
            .filter(|&i| {
                let b = &blocks[i];
                b.tile.space == s.space && !b.view && b.tile.size > 0 && b.tile.offset >= 0
            })
            .collect();
        let held: Vec<Held> = mine.iter().map(|&i| held_of(&blocks[i])).collect();
        // Each box's name once: its handovers share it.
        let names: Vec<Arc<str>> = mine.iter().map(|&i| Arc::from(blocks[i].tile.name.as_str())).collect();
        let mut list: Vec<Handover> = Vec::new();
        for (a, b) in handovers(&held) {
            let names = (names[a].clone(), names[b].clone());
            let (a, b) = (mine[a], mine[b]);
            let h = handover(&blocks[a], &blocks[b], names);
            blocks[a].handovers.gives.push(h.clone());
            blocks[b].handovers.takes.push(h.clone());
            list.push(h);
        }
        let cross_pipe = list.iter().filter(|h| h.cross_pipe()).count();
        let count = list.len();
        // Cross-pipe first (the syncs), then in the order of the lines that wait.
        list.sort_by(|a, b| (!a.cross_pipe(), a.line, &a.to, &a.from).cmp(&(!b.cross_pipe(), b.line, &b.to, &b.from)));
        list.truncate(HANDOVERS_LISTED);
        s.handovers = Some(Handovers { count, cross_pipe, left_off: count - list.len(), list });
    }
}

/// A box's bytes and held lines, as the sweep reads them.
pub fn held_of(b: &Block) -> Held {
    Held::of(&b.tile, b.tile.offset)
}

/// The handover from `a` to `b` (named `names`), with the lines and pipes of `a`'s last access and
/// `b`'s first.
pub fn handover(a: &Block, b: &Block, names: (Arc<str>, Arc<str>)) -> Handover {
    let last = a.tile.accesses.last.as_ref();
    let first = b.tile.accesses.first.as_ref();
    Handover {
        from: names.0,
        to: names.1,
        line: first.map_or(b.tile.start, |x| x.line),
        from_line: last.map_or(a.tile.end, |x| x.line),
        from_pipe: last.and_then(|x| x.pipe),
        to_pipe: first.and_then(|x| x.pipe),
    }
}
