//! What holds bytes beyond the tiles drawn on them: a declared multi-slot allocation whole, and the
//! placed reserved windows. The analysis counts them in the peak and marks tiles on them; the
//! findings name the pairs.

use crate::model::{Block, FunctionMap, Reserved, Tile};

/// The whole of each declared multi-slot allocation among `blocks`, as a block named by its base,
/// live from the first to the last line of any tile in it: a slot nobody binds, or one a tile
/// takes only some iterations, still holds the allocation's bytes.
pub fn slot_allocations(blocks: &[&Block]) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    // Each allocation's index in `out`: a lookup per block, so many slotted tiles stay linear.
    let mut at: crate::hashed::HashMap<(&str, i64), usize> = crate::hashed::HashMap::default();
    for b in blocks {
        let Some(slots) = &b.tile.slots else { continue };
        let key = (b.tile.base.as_str(), slots.alloc_offset);
        match at.get(&key).map(|&i| &mut out[i]) {
            Some(a) => {
                a.tile.start = a.tile.start.min(b.tile.start);
                a.tile.end = a.tile.end.max(b.tile.end);
                a.tile.live_end = a.tile.held().max(b.tile.held());
                a.tile.size = a.tile.size.max(slots.alloc_size);
            }
            None => {
                let mut whole = (*b).clone();
                whole.tile.name = b.tile.base.clone();
                whole.tile.offset = slots.alloc_offset;
                whole.tile.size = slots.alloc_size;
                whole.aliases.clear();
                at.insert(key, out.len());
                out.push(whole);
            }
        }
    }
    out
}

/// The producer a reserved window's block carries.
pub(super) const RESERVE_OP: &str = "system.reserve_buffer";

/// The reserved windows of `space` that are placed, as blocks live over the whole function.
pub fn reserved_blocks(reserved: &[Reserved], space: &str, (from, to): (u32, u32)) -> Vec<Block> {
    reserved
        .iter()
        .filter(|r| r.space == space)
        .filter_map(|r| {
            let offset = r.offset?;
            let mut tile = Tile::plain(r.name.clone(), &r.space, &r.name, offset, r.size, from, to);
            tile.op = RESERVE_OP.into();
            Some(Block::of(tile))
        })
        .collect()
}

/// What holds bytes beyond the tiles drawn on them: each declared multi-slot allocation whole, live
/// over the lines of its tiles (a slot no tile binds is still the allocation's), and each placed
/// reserved window, over the whole function. A holder is a block named by its allocation's base
/// (or the window's name), with the line it is declared on where that is known.
pub fn holders(f: &FunctionMap) -> Vec<(Block, Option<u32>)> {
    holders_of(&f.blocks, &f.reserved, (f.src_start, f.src_end))
}

/// [`holders`] of a function's blocks, reserved windows and lines.
pub fn holders_of(
    blocks: &[Block],
    reserved: &[crate::model::Reserved],
    lines: (u32, u32),
) -> Vec<(Block, Option<u32>)> {
    let all: Vec<&Block> = blocks.iter().collect();
    let mut out: Vec<(Block, Option<u32>)> = slot_allocations(&all).into_iter().map(|b| (b, None)).collect();
    let mut spaces: Vec<&str> = reserved.iter().map(|r| r.space.as_str()).collect();
    spaces.sort_unstable();
    spaces.dedup();
    for space in spaces {
        let placed = reserved.iter().filter(|r| r.space == space && r.offset.is_some());
        let windows = reserved_blocks(reserved, space, lines);
        out.extend(windows.into_iter().zip(placed).map(|(b, r)| (b, Some(r.line))));
    }
    out
}

/// Each block of another base that shares bytes with a holder (of [`holders`]) while both are
/// live, where no tile of the holder's own base does (that pair is a conflict of its own): which
/// blocks are held, the first `most` pairs `(block, holder)` and how many there are. Counted, not
/// visited (see [`crate::overlap::held_overlaps`]): 40 000 windows over 40 000 tiles cost a few
/// sorts, not their 1.6 billion pairs.
pub fn held_overlaps(blocks: &[Block], holders: &[(Block, Option<u32>)], most: usize) -> crate::overlap::Held {
    let holders: Vec<&Block> = holders.iter().map(|(b, _)| b).collect();
    crate::overlap::held_overlaps(blocks, &holders, most)
}
