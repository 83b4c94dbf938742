//! The packing of one space of a map: the same boxes over the same lifetimes, placed by the packer
//! instead of the compiler, for `spaces[].packing` and the `could-pack` note.
//!
//! What moves together is a unit: the boxes of one base whose bytes overlap (a tile with its views
//! and aliases), moved by one offset so their layout inside the unit is kept. A unit with a pinned
//! box, a slotted allocation or a reserved window stays where the compiler put it.
//!
//! Lifetimes. A box holds its bytes over lines `[start, live_end]`, the compiler's lifetime (see
//! `held`). On the line where one box is read for the last time and another is written, the
//! compiler may let them share bytes (PyPTO's `LifetimesOverlap`: touching lifetimes share) unless
//! the op may not write over its input; the dump does not name those ops, so the packer lets a
//! unit share on its first line only where the compiler shared there. Where that reading is still
//! stricter than the compiler was, the compiler's own placement (always a valid packing of what it
//! placed) is kept: a packing is never above the high-water mark.

use std::time::Duration;

use super::handover::{Held, handovers};
use super::reuse::{Ends, pipe_aware};
use super::{Block as Item, PackOptions};
use crate::model::{Block, Placed, SpacePacking, Tile};

/// The lines a box holds its bytes over, inclusive: the compiler's lifetime, to `live_end`.
fn held(t: &Tile) -> (u32, u32) {
    (t.start, t.held())
}

/// The least saving, in bytes and as a share of the high-water mark, that the `could-pack` note
/// reports: below it the difference is alignment and noise, not a placement worth changing.
pub const COULD_PACK_BYTES: i64 = 1024;
/// See [`COULD_PACK_BYTES`].
pub const COULD_PACK_SHARE: f64 = 0.05;

/// Whether a space placed up to `hwm` by the compiler, which packs into `packing`, is worth the
/// `could-pack` note: at least [`COULD_PACK_BYTES`] and [`COULD_PACK_SHARE`] of the hwm saved.
pub fn could_pack(hwm: i64, packing: &SpacePacking) -> bool {
    let saved = hwm - packing.bytes;
    saved >= COULD_PACK_BYTES && saved as f64 >= COULD_PACK_SHARE * hwm as f64
}

/// Whether the compiler's place for a box is kept: pinned, a slotted allocation, a reserved window.
fn stays(b: &Block) -> bool {
    b.tile.pinned || b.tile.slots.is_some() || b.tile.op == "system.reserve_buffer"
}

/// A unit: offset, stop, first and last line held, whether it stays.
type Unit = (i64, i64, u32, u32, bool);

/// What moves together and over which half lines: one [`Item`] per unit.
struct Units<'a> {
    /// The boxes with bytes at a placed offset.
    boxes: Vec<&'a Block>,
    /// The unit of each box.
    unit_of: Vec<usize>,
    /// Per unit: offset, stop, first and last line held, whether it stays.
    units: Vec<Unit>,
    /// Per unit: the packer's block.
    items: Vec<Item>,
}

fn units<'a>(boxes: &[&'a Block]) -> Option<Units<'a>> {
    let boxes: Vec<&'a Block> = boxes.iter().copied().filter(|b| b.tile.size > 0 && b.tile.offset >= 0).collect();
    if boxes.is_empty() {
        return None;
    }
    // Units: per base, the boxes whose byte ranges overlap, by a sweep in order of offset.
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| {
        (&boxes[a].tile.base, boxes[a].tile.offset).cmp(&(&boxes[b].tile.base, boxes[b].tile.offset))
    });
    let mut unit_of = vec![0usize; boxes.len()];
    let mut units: Vec<Unit> = Vec::new();
    let mut last_base: Option<&str> = None;
    for &i in &order {
        let t = &boxes[i].tile;
        let (first, last) = held(t);
        let joins = last_base == Some(t.base.as_str()) && units.last().is_some_and(|u| t.offset < u.1);
        last_base = Some(t.base.as_str());
        if joins && let Some(u) = units.last_mut() {
            u.1 = u.1.max(t.stop());
            u.2 = u.2.min(first);
            u.3 = u.3.max(last);
            u.4 |= stays(boxes[i]);
        } else {
            units.push((t.offset, t.stop(), first, last, stays(boxes[i])));
        }
        unit_of[i] = units.len() - 1;
    }
    // A unit written on the line where another is read for the last time may take its bytes only
    // where the compiler let it there (it placed them on overlapping bytes): PyPTO forbids some ops
    // to write over their inputs (a widening cast, a row reduction, ...) and the dump does not say
    // which op is which. In half lines a unit holds `[2 first, 2 last + 1)`, or from `2 first + 1`
    // where the compiler shared on its first line, which then only touches the other.
    let mut ending: crate::hashed::HashMap<u32, Vec<usize>> = crate::hashed::HashMap::default();
    for (k, u) in units.iter().enumerate() {
        ending.entry(u.3).or_default().push(k);
    }
    let shared_at_start = |k: usize| {
        let u = &units[k];
        ending.get(&u.2).is_some_and(|v| v.iter().any(|&j| j != k && units[j].0 < u.1 && u.0 < units[j].1))
    };
    let items: Vec<Item> = units
        .iter()
        .enumerate()
        .map(|(k, &(offset, stop, first, last, fixed))| {
            let lower = 2 * first as i64 + i64::from(shared_at_start(k));
            let upper = (2 * last as i64 + 1).max(lower + 1);
            let size = (stop - offset) as u64;
            if fixed { Item::fixed(lower, upper, size, offset as u64) } else { Item::new(lower, upper, size) }
        })
        .collect();
    Some(Units { boxes, unit_of, units, items })
}

/// The packer's instance of one space's `boxes`, as `pack` reads it: a row per unit, named by its
/// first box, over half lines (`[2 first, 2 last + 1)`, so a line's last read and its write can
/// meet), the units that stay pinned at the compiler's offset. `None` when nothing has bytes.
pub fn instance(boxes: &[&Block]) -> Option<super::csv::Instance> {
    let u = units(boxes)?;
    let mut ids: Vec<String> = vec![String::new(); u.units.len()];
    for (i, b) in u.boxes.iter().enumerate() {
        let id = &mut ids[u.unit_of[i]];
        if id.is_empty() {
            id.clone_from(&b.tile.name);
        }
    }
    // A comma or newline in a name would break the row; two units may not share an id either.
    let mut seen = crate::hashed::HashSet::default();
    for (k, id) in ids.iter_mut().enumerate() {
        *id = id.replace([',', '\n', '\r'], "_");
        if !seen.insert(id.clone()) {
            *id = format!("{id}#{k}");
            seen.insert(id.clone());
        }
    }
    Some(super::csv::Instance { ids, blocks: u.items })
}

/// The cross-pipe handovers of `boxes` when each unit is at its offset in `unit_offsets`.
fn cross_pipe(boxes: &[&Block], unit_of: &[usize], units: &[Unit], unit_offsets: &[i64]) -> usize {
    // Views move with their tile and take nothing of their own (as `analyze::handovers` counts).
    let mine: Vec<usize> = (0..boxes.len()).filter(|&i| !boxes[i].view).collect();
    let held: Vec<Held> = mine
        .iter()
        .map(|&i| {
            let (t, u) = (&boxes[i].tile, unit_of[i]);
            Held::of(t, unit_offsets[u] + (t.offset - units[u].0))
        })
        .collect();
    handovers(&held)
        .into_iter()
        .filter(|&(a, b)| {
            let last = boxes[mine[a]].tile.accesses.last.as_ref().and_then(|x| x.pipe);
            let first = boxes[mine[b]].tile.accesses.first.as_ref().and_then(|x| x.pipe);
            crate::model::crosses(last, first)
        })
        .count()
}

/// Each unit's pipes: of the first access of any of its boxes, and of the last.
fn unit_ends(boxes: &[&Block], unit_of: &[usize], count: usize) -> Vec<Ends> {
    let mut lines: Vec<(u32, u32)> = vec![(u32::MAX, 0); count];
    let mut ends = vec![Ends::default(); count];
    for (i, b) in boxes.iter().enumerate() {
        let (u, a) = (unit_of[i], &b.tile.accesses);
        if let Some(f) = a.first.as_ref().filter(|f| f.line < lines[u].0) {
            (lines[u].0, ends[u].first) = (f.line, f.pipe);
        }
        if let Some(l) = a.last.as_ref().filter(|l| l.line >= lines[u].1) {
            (lines[u].1, ends[u].last) = (l.line, l.pipe);
        }
    }
    ends
}

/// Packs `boxes` (one space's boxes, windows and whole slotted allocations) with offsets aligned
/// to `align`, giving the search at most `deadline`. `None` when there is nothing to pack (no box
/// with bytes at a non-negative offset) or the instance is refused (too large).
pub fn pack_space(boxes: &[&Block], align: u64, deadline: Duration) -> Option<SpacePacking> {
    let Units { boxes, unit_of, units, items } = units(boxes)?;
    let options = PackOptions { align: align.max(1), capacity: None, deadline: Some(deadline) };
    let started = std::time::Instant::now();
    let packed = super::pack(&items, &options).ok()?;
    let hwm = boxes.iter().map(|b| b.tile.stop()).max().unwrap_or(0);
    let mut unit_offsets: Vec<i64> = packed.offsets.iter().map(|&o| o as i64).collect();
    let mut bytes = packed.peak as i64;
    let mut proven = packed.proven_optimal;
    let compilers: Vec<i64> = units.iter().map(|u| u.0).collect();
    let valid_as_placed = !boxes.iter().any(|b| b.conflict);
    // The compiler's placement is a packing of what it placed unless two boxes conflict.
    if bytes > hwm && valid_as_placed {
        // Stricter than the compiler on some touching line: its own placement is the better one.
        unit_offsets.clone_from(&compilers);
        bytes = hwm;
        proven = hwm as u64 == packed.lower_bound;
    }
    // The second aim: at these bytes, the fewest cross-pipe handovers among the placement found,
    // a pipe-aware one under the same peak, and the compiler's where it is as low.
    let mut cross = cross_pipe(&boxes, &unit_of, &units, &unit_offsets);
    let ends = unit_ends(&boxes, &unit_of, units.len());
    // Within what is left of the space's deadline: none left, and the packer's placement stands.
    let stop = started.checked_add(deadline);
    let aware = pipe_aware(&items, &ends, options.align, bytes as u64, stop)
        .map(|o| o.into_iter().map(|x| x as i64).collect::<Vec<i64>>());
    let compiler = (valid_as_placed && hwm <= bytes).then_some(compilers);
    for other in [aware, compiler].into_iter().flatten() {
        let c = cross_pipe(&boxes, &unit_of, &units, &other);
        if c < cross {
            (cross, unit_offsets) = (c, other);
        }
    }
    let mut placement: Vec<Placed> = boxes
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let u = unit_of[i];
            Placed { name: b.tile.name.clone(), offset: unit_offsets[u] + (b.tile.offset - units[u].0) }
        })
        .collect();
    placement.sort_by(|a, b| a.offset.cmp(&b.offset).then_with(|| a.name.cmp(&b.name)));
    Some(SpacePacking {
        cross_pipe: cross,
        bytes,
        lower_bound: packed.lower_bound as i64,
        proven_optimal: proven,
        us: started.elapsed().as_micros() as u64,
        placement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str, base: &str, offset: i64, size: i64, start: u32, end: u32) -> Block {
        Block::sample(name.into(), "Vec", base, offset, size, start, end)
    }

    fn at(p: &SpacePacking, name: &str) -> i64 {
        p.placement.iter().find(|x| x.name == name).map(|x| x.offset).unwrap_or(-1)
    }

    #[test]
    fn a_compiler_gap_is_closed() {
        // The compiler put b above a although a is dead when b is written: b packs onto a's bytes.
        let a = sample("a", "m0", 0, 1024, 1, 3);
        let b = sample("b", "m1", 1024, 1024, 5, 8);
        let c = sample("c", "m2", 2048, 512, 2, 6);
        let p = pack_space(&[&a, &b, &c], 32, Duration::from_millis(50)).unwrap();
        assert_eq!((p.bytes, p.lower_bound, p.proven_optimal), (1536, 1536, true));
        assert_eq!(at(&p, "a"), at(&p, "b"));
    }

    #[test]
    fn views_move_with_their_tile_and_pinned_boxes_stay() {
        // v is a view 256 bytes into t (same base, overlapping bytes): it keeps that distance.
        let t = sample("t", "m0", 4096, 1024, 1, 9);
        let v = sample("v", "m0", 4096 + 256, 256, 3, 4);
        let mut pin = sample("pin", "m1", 8192, 512, 1, 9);
        pin.tile.pinned = true;
        let p = pack_space(&[&t, &v, &pin], 32, Duration::from_millis(50)).unwrap();
        assert_eq!(at(&p, "v") - at(&p, "t"), 256);
        assert_eq!(at(&p, "pin"), 8192);
        assert_eq!(at(&p, "t"), 0);
        assert_eq!(p.bytes, 8192 + 512);
        assert_eq!(p.placement.len(), 3);
    }

    #[test]
    fn touching_lines_share_where_the_compiler_shared_them() {
        // a's last line is b's first, and the compiler put b on a's bytes: they may share.
        let a = sample("a", "m0", 0, 512, 1, 4);
        let b = sample("b", "m1", 0, 512, 4, 7);
        let p = pack_space(&[&a, &b], 32, Duration::from_millis(50)).unwrap();
        assert_eq!(p.bytes, 512);
        // Placed apart by the compiler (its op may not write over its input): they stay apart.
        let b = sample("b", "m1", 512, 512, 4, 7);
        let p = pack_space(&[&a, &b], 32, Duration::from_millis(50)).unwrap();
        assert_eq!(p.bytes, 1024);
        // A box of one line, on b's first line, holds its bytes through that line.
        let c = sample("c", "m2", 1024, 512, 4, 4);
        let p = pack_space(&[&a, &b, &c], 32, Duration::from_millis(50)).unwrap();
        assert_eq!(p.bytes, 1536);
    }

    #[test]
    fn the_note_needs_a_kilobyte_and_five_percent() {
        let p = |bytes| SpacePacking {
            cross_pipe: 0,
            bytes,
            lower_bound: 0,
            proven_optimal: true,
            us: 0,
            placement: Vec::new(),
        };
        assert!(could_pack(40_000, &p(38_000))); // 2 000 B, 5 %
        assert!(!could_pack(40_000, &p(38_100))); // 1 900 B, 4.75 %
        assert!(!could_pack(10_000, &p(9_100))); // 9 %, but 900 B
        assert!(could_pack(10_000, &p(8_976)));
    }

    #[test]
    fn never_above_the_compilers_placement() {
        // The compiler shared bytes between a one-line box and one written on that line; the
        // packer's stricter reading cannot, so the compiler's placement is kept.
        let a = sample("a", "m0", 0, 512, 4, 4);
        let b = sample("b", "m1", 0, 512, 4, 6);
        let p = pack_space(&[&a, &b], 32, Duration::from_millis(50)).unwrap();
        assert_eq!(p.bytes, 512);
        assert_eq!((at(&p, "a"), at(&p, "b")), (0, 0));
    }
}
