//! From parsed tiles to the memory map: alias merging, views, conflicts and per-space totals (I2,
//! I6-I8).
//!
//! Lifetimes are lexical, first to last mention of a name, not a dataflow analysis: a name rebound in
//! both arms of an `if` covers the whole `if`, and a value live across a loop's back edge shows only
//! its text span.

use std::collections::{BTreeSet, HashMap};

use crate::backend;
use crate::dump::{self, Dump, ParsedFunction};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{BackendChoice, Block, FunctionMap, MemoryMap, SpaceUsage, Tile, space_rank};

/// Builds the memory map of `dump`, scaled by the capacities of `choice`; refuses a dump with nothing
/// to draw (I2).
pub fn build(dump: &Dump, choice: BackendChoice) -> Result<MemoryMap> {
    let file = dump.display_name();
    let parsed = dump::parse(&dump.text, &file)?;
    let chip = backend::by_name(&choice.name)?;
    let lines: Vec<&str> = dump.text.lines().collect();
    let functions: Vec<FunctionMap> = parsed
        .into_iter()
        .filter(|f| !f.tiles.is_empty())
        .map(|f| function_map(f, &lines, |space| chip.capacity(space)))
        .collect();
    refuse_if_nothing_to_draw(&functions, &file)?;
    Ok(MemoryMap { dump: dump.name.clone(), pass_name: dump::pass_name_of(&dump.name), backend: choice, functions })
}

fn refuse_if_nothing_to_draw(functions: &[FunctionMap], file: &str) -> Result<()> {
    if functions.is_empty() {
        return Err(Error::new(
            ErrorKind::Refused,
            format!(
                "{file}: no AIC/AIV/InCore function binds a tile with a MemRef, so there is nothing to draw. \
                 Use the dump after AllocateMemoryAddr (or a later one); earlier passes have no addresses. \
                 If the kernel was compiled with memory_planner=PTOAS, the compiler skips AllocateMemoryAddr \
                 and ptoas owns addressing: that is not a failure, compare end to end instead"
            ),
        ));
    }
    let unassigned: Vec<&str> = functions.iter().filter(|f| unassigned(f)).map(|f| f.name.as_str()).collect();
    if !unassigned.is_empty() {
        return Err(Error::new(
            ErrorKind::Refused,
            format!(
                "{file}: every MemRef in {} sits at offset 0 while two or more bases share a space, so \
                 addresses have not been assigned yet. Use the dump after AllocateMemoryAddr (or a later one)",
                unassigned.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Before address assignment every offset is 0, so distinct bases pile up at address 0. One base per
/// space at offset 0 is a real layout, so the tell is two or more bases there.
fn unassigned(f: &FunctionMap) -> bool {
    f.blocks.iter().all(|b| b.tile.offset == 0) && f.spaces.iter().any(|s| s.bases > 1)
}

fn function_map(f: ParsedFunction, lines: &[&str], capacity: impl Fn(&str) -> Option<i64>) -> FunctionMap {
    let blocks = merge_aliases(f.tiles);
    let spaces = summarize(&blocks, capacity);
    let source =
        (f.src_start..=f.src_end).map(|n| lines.get(n as usize - 1).copied().unwrap_or("").to_string()).collect();
    FunctionMap { name: f.name, ftype: f.ftype, src_start: f.src_start, src_end: f.src_end, source, spaces, blocks }
}

/// Folds tiles that share a slot over touching lifetimes into one block, then marks overlaps.
///
/// A phi/yield chain rebinds one buffer under a new name each iteration; drawn apart they would be a
/// stack of identical rectangles. Same slot over disjoint lifetimes is reuse, the point of the
/// picture, and stays apart.
pub fn merge_aliases(tiles: Vec<Tile>) -> Vec<Block> {
    let mut slots: HashMap<(String, String, i64, i64), Vec<Tile>> = HashMap::new();
    let mut order = Vec::new();
    for tile in tiles {
        let key = (tile.space.clone(), tile.base.clone(), tile.offset, tile.size);
        let members = slots.entry(key.clone()).or_default();
        if members.is_empty() {
            order.push(key);
        }
        members.push(tile);
    }
    let mut blocks = Vec::new();
    for key in order {
        let mut members = slots.remove(&key).unwrap_or_default();
        members.sort_by_key(|t| t.start);
        let mut members = members.into_iter();
        let Some(first) = members.next() else { continue };
        let mut run = Block { tile: first, aliases: Vec::new(), view: false, conflict: false };
        for tile in members {
            if tile.start <= run.tile.end {
                run.tile.end = run.tile.end.max(tile.end);
                run.aliases.push(tile.name);
            } else {
                blocks.push(std::mem::replace(
                    &mut run,
                    Block { tile, aliases: Vec::new(), view: false, conflict: false },
                ));
            }
        }
        blocks.push(run);
    }
    blocks.sort_by(|a, b| {
        (space_rank(&a.tile.space), a.tile.offset, a.tile.start).cmp(&(
            space_rank(&b.tile.space),
            b.tile.offset,
            b.tile.start,
        ))
    });
    mark_overlaps(&mut blocks);
    blocks
}

/// Two blocks that overlap in address and lifetime: on the same base the narrower is a view into the
/// other; on different bases both are a conflict (two live allocations share bytes).
fn mark_overlaps(blocks: &mut [Block]) {
    for i in 0..blocks.len() {
        for j in i + 1..blocks.len() {
            let (a, b) = (&blocks[i].tile, &blocks[j].tile);
            if a.space != b.space || b.offset >= a.stop() {
                break; // sorted by space, then offset: nothing later overlaps `a`
            }
            if a.start > b.end || b.start > a.end {
                continue;
            }
            if a.base == b.base {
                let narrower = if b.size <= a.size { j } else { i };
                blocks[narrower].view = true;
            } else {
                blocks[i].conflict = true;
                blocks[j].conflict = true;
            }
        }
    }
}

/// Per-space totals, in panel order.
fn summarize(blocks: &[Block], capacity: impl Fn(&str) -> Option<i64>) -> Vec<SpaceUsage> {
    let mut spaces: Vec<SpaceUsage> = Vec::new();
    let mut bases: Vec<BTreeSet<&str>> = Vec::new();
    for b in blocks {
        let i = match spaces.iter().position(|s| s.space == b.tile.space) {
            Some(i) => i,
            None => {
                spaces.push(SpaceUsage { space: b.tile.space.clone(), hwm: 0, limit: 0, tiles: 0, bases: 0 });
                bases.push(BTreeSet::new());
                spaces.len() - 1
            }
        };
        spaces[i].hwm = spaces[i].hwm.max(b.tile.stop());
        spaces[i].tiles += 1;
        bases[i].insert(&b.tile.base);
    }
    for (s, b) in spaces.iter_mut().zip(&bases) {
        s.bases = b.len();
        // A space the backend does not describe is scaled by its own high-water mark.
        s.limit = capacity(&s.space).filter(|&c| c > 0).unwrap_or(s.hwm);
    }
    spaces.sort_by(|a, b| space_rank(&a.space).cmp(&space_rank(&b.space)));
    spaces
}
