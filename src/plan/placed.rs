//! What the compiler placed in a lane besides its tiles, as marks of the plan: reserved windows
//! (hatched, named, down the function's lines), the unsafe band between a space's usable and
//! physical size, and the slots of declared multi-slot allocations (their outline, the slot or the
//! run-time selector, the edges between slots, a dot for an author-declared allocation). Being
//! marks, every back end draws them with its one generic draw, so the SVG, the PNG and the page
//! show the same thing; each carries its tooltip.

use super::{Mark, MarkStyle, MarkText, MarkTip, PINNED, RESERVED, SLOT_EDGE, SLOTS, UNSAFE_BAND};
use crate::model::{FunctionMap, SpaceUsage};
use crate::units::fmt_bytes;

/// The styles of these marks: a back end that groups them (the SVG's `<g class=…>` with its
/// tooltip) knows them by these.
pub const PLACED_STYLES: [MarkStyle; 5] = [RESERVED, UNSAFE_BAND, SLOTS, SLOT_EDGE, PINNED];

/// Most slot edges drawn in one box: past this the edges would only fill it (and a hostile
/// allocation of 65 536 tiny slots would cost a mark each); the outline and the tooltip still
/// say how many slots there are.
const MOST_EDGES: u32 = 32;

/// The placed marks of space `s` of function `f`.
pub fn lane_marks(f: &FunctionMap, s: &SpaceUsage) -> Vec<Mark> {
    let mut out = Vec::new();
    for r in f.reserved.iter().filter(|r| r.space == s.space) {
        let Some(offset) = r.offset else { continue };
        out.push(Mark {
            style: RESERVED,
            bytes: Some([offset, r.size]),
            lines: None,
            at: Vec::new(),
            text: Some(MarkText::pill(format!("{} · {}", r.name, fmt_bytes(r.size)), f.src_start)),
            tip: Some(MarkTip {
                name: r.name.clone(),
                text: format!(
                    "{}: {} of {} reserved by system.reserve_buffer at {}..{} (line {}), for the whole \
                     function: counted in the high-water mark, no tile is placed there",
                    r.name,
                    fmt_bytes(r.size),
                    r.space,
                    fmt_bytes(offset),
                    fmt_bytes(offset + r.size),
                    r.line
                ),
                range: [offset, offset + r.size],
            }),
        });
    }
    if let Some(physical) = s.physical.filter(|&p| p > s.limit && s.limit > 0) {
        // Where tiles reach past the usable size the lane spans past it (on either axis), and the
        // band is drawn where it is; otherwise the lane ends at the usable size, and the band is a
        // narrow strip at its end that says it is there.
        let bytes = if s.hwm > s.limit { [s.limit, physical.min(s.hwm) - s.limit] } else { [s.limit, 0] };
        out.push(Mark {
            style: UNSAFE_BAND,
            bytes: Some(bytes),
            lines: None,
            at: Vec::new(),
            text: None,
            tip: Some(MarkTip {
                name: s.space.clone(),
                text: format!(
                    "{}: {} usable of {} physical. The top {} ({}..{}) is the unsafe band: the chip has \
                     those bytes, but data kept there is corrupted, so a tile there is an overflow",
                    s.space,
                    fmt_bytes(s.limit),
                    fmt_bytes(physical),
                    fmt_bytes(physical - s.limit),
                    fmt_bytes(s.limit),
                    fmt_bytes(physical)
                ),
                range: [s.limit, physical],
            }),
        });
    }
    for b in f.blocks.iter().filter(|b| b.tile.space == s.space) {
        let t = &b.tile;
        if let Some(slots) = &t.slots {
            let which = match slots.index {
                Some(k) => format!("slot {k} of {}", slots.count),
                None => format!("[{}] of {} slots", slots.selector, slots.count),
            };
            let (from, to) = (slots.alloc_offset, slots.alloc_offset.saturating_add(slots.alloc_size));
            out.push(Mark {
                style: SLOTS,
                bytes: Some([from, slots.alloc_size]),
                lines: Some([t.start, t.held()]),
                at: Vec::new(),
                // On the box's third row or below: the first two are its label's.
                text: (t.held() >= t.start + 2).then(|| MarkText::new(which.clone(), t.held())),
                tip: Some(MarkTip {
                    name: t.name.clone(),
                    text: format!(
                        "{}: {} of the declared allocation {} ({} slots of {} at {}..{}){}",
                        t.name,
                        which,
                        t.base,
                        slots.count,
                        fmt_bytes(slots.slot_size),
                        fmt_bytes(from),
                        fmt_bytes(to),
                        if slots.index.is_none() {
                            ": the slot is chosen at run time, so all are drawn"
                        } else {
                            ": the other slots are the allocation's too"
                        }
                    ),
                    range: [from, to],
                }),
            });
            // The edges between slots inside the box (all of them where the slot is chosen at run time).
            if slots.count <= MOST_EDGES && slots.slot_size > 0 {
                for k in 1..slots.count as i64 {
                    let at = slots.alloc_offset + k * slots.slot_size;
                    if at > t.offset && at < t.stop() {
                        out.push(Mark {
                            style: SLOT_EDGE,
                            bytes: Some([at, 0]),
                            lines: Some([t.start, t.held()]),
                            at: Vec::new(),
                            text: None,
                            tip: None,
                        });
                    }
                }
            }
        }
        if t.pinned {
            out.push(Mark {
                style: PINNED,
                bytes: Some([t.offset, t.size]),
                lines: Some([t.start, t.start]),
                at: Vec::new(),
                text: None,
                tip: Some(MarkTip {
                    name: t.name.clone(),
                    text: format!(
                        "{}: in {}, an allocation the author declared (pinned): nothing else is packed into it",
                        t.name, t.base
                    ),
                    range: [t.offset, t.stop()],
                }),
            });
        }
    }
    out
}
