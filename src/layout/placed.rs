//! What the compiler placed in a lane besides its tiles, drawn over them: reserved windows
//! (hatched, named, down the function's lines), the unsafe band between a space's usable and
//! physical size, and the slots of declared multi-slot allocations (dividers, the run-time
//! selector, a pin for an author-declared allocation).

use super::insight::Host;
use super::scene::{Anchor, Line, Placed, Rect, Shape, Stroke, Text};
use super::style::{Color, Palette, WARNING};
use super::{RULES, SMALL, plan, text};
use crate::model::{Addresses, FunctionMap, MemoryMap, SpaceUsage};
use crate::units::fmt_bytes;

/// The placed marks of space `s` in a lane spanning `span` bytes, drawn at `host`'s scale.
pub(super) fn marks(
    f: &FunctionMap,
    s: &SpaceUsage,
    span: i64,
    host: &Host,
    color: Color,
    pal: &Palette,
) -> Vec<Placed> {
    let mut out = Vec::new();
    let (lane_x, lane_w) = host.lane;
    let top = host.body_top;
    let rows = (host.last_line - host.first_line + 1) as f64 * RULES.line_px;
    let min_box = plan::px_rules().min_box;
    for r in f.reserved.iter().filter(|r| r.space == s.space) {
        let Some(offset) = r.offset else { continue };
        let (x, w) = host.axis.place(offset, r.size, lane_w, min_box);
        let x = lane_x + x;
        let mut shapes = vec![Shape::Rect(Rect {
            x,
            y: top,
            w,
            h: rows,
            radius: 0.0,
            fill: Some(pal.wash(color)),
            stroke: Some(Stroke { color: pal.muted, width: 1.0, dash: Some((4.0, 2.0)) }),
        })];
        shapes.extend(super::insight::hatch_region(
            x,
            top,
            w,
            rows,
            Stroke { color: pal.muted, width: 0.75, dash: None },
        ));
        if let Some(name) = text::fit(&r.name, SMALL, w - 6.0) {
            shapes.push(Shape::Text(Text {
                x: x + 3.0,
                y: top + SMALL + 2.0,
                size: SMALL,
                color: pal.text,
                anchor: Anchor::Start,
                content: name,
            }));
        }
        out.push(Placed {
            class: "reserved",
            name: r.name.clone(),
            tooltip: format!(
                "{}: {} of {} reserved by system.reserve_buffer at {}..{} (line {}), for the whole function: \
                 counted in the high-water mark, no tile is placed there",
                r.name,
                fmt_bytes(r.size),
                r.space,
                fmt_bytes(offset),
                fmt_bytes(offset + r.size),
                r.line
            ),
            from: offset,
            to: offset + r.size,
            shapes,
        });
    }
    if let Some(physical) = s.physical.filter(|&p| p > s.limit && s.limit > 0) {
        let tooltip = format!(
            "{}: {} usable of {} physical. The top {} ({}..{}) is the unsafe band: the chip has those bytes, \
             but data kept there is corrupted, so a tile there is an overflow",
            s.space,
            fmt_bytes(s.limit),
            fmt_bytes(physical),
            fmt_bytes(physical - s.limit),
            fmt_bytes(s.limit),
            fmt_bytes(physical)
        );
        let stroke = Stroke { color: WARNING, width: 1.0, dash: None };
        let shapes = if span > s.limit {
            // The lane reaches past the usable size: the band is drawn where it is.
            let (x, w) = host.axis.place(s.limit, physical.min(span) - s.limit, lane_w, min_box);
            super::insight::hatch_region(lane_x + x, top, w, rows, stroke)
        } else {
            // The band is past the lane's end: a tab at the end of the byte axis says it is there.
            vec![Shape::Rect(Rect {
                x: lane_x + lane_w - 5.0,
                y: top - 14.0,
                w: 4.0,
                h: 12.0,
                radius: 1.0,
                fill: Some(WARNING),
                stroke: None,
            })]
        };
        out.push(Placed { class: "unsafe-band", name: s.space.clone(), tooltip, from: s.limit, to: physical, shapes });
    }
    for b in f.blocks.iter().filter(|b| b.tile.space == s.space) {
        let t = &b.tile;
        let (x, w) = host.axis.place(t.offset, t.size, lane_w, min_box);
        let x = lane_x + x;
        let y = top + (t.start - host.first_line) as f64 * RULES.line_px;
        let h = (t.end - t.start + 1) as f64 * RULES.line_px;
        if let Some(slots) = &t.slots {
            let mut shapes = Vec::new();
            let stroke = Stroke { color: pal.text, width: 1.0, dash: Some((2.0, 2.0)) };
            // The slot boundaries inside the box (all of them where the selector is a run-time one),
            // where they are at least 3 px apart: closer, they would only fill the box, and a
            // hostile allocation of 65 536 tiny slots would cost a line each.
            if slots.slot_size as f64 * host.axis.k >= 3.0 {
                for k in 1..slots.count as i64 {
                    let at = slots.alloc_offset + k * slots.slot_size;
                    if at <= t.offset || at >= t.stop() {
                        continue;
                    }
                    let lx = lane_x + host.axis.place(at, 0, lane_w, 0.0).0;
                    shapes.push(Shape::Line(Line { x1: lx, y1: y, x2: lx, y2: y + h, stroke }));
                }
            }
            let which = match slots.index {
                Some(k) => format!("slot {k} of {}", slots.count),
                None => format!("[{}] of {} slots", slots.selector, slots.count),
            };
            // Only whole: a cut selector would say a different one.
            if text::width(&which, SMALL) <= w - 6.0 && h >= 2.0 * SMALL + 4.0 {
                let label = which.clone();
                shapes.push(Shape::Text(Text {
                    x: x + 3.0,
                    y: y + h - 3.0,
                    size: SMALL,
                    color: pal.text,
                    anchor: Anchor::Start,
                    content: label,
                }));
            }
            out.push(Placed {
                class: "slots",
                name: t.name.clone(),
                tooltip: format!(
                    "{}: {} of the declared allocation {} ({} slots of {} at {}..{}){}",
                    t.name,
                    which,
                    t.base,
                    slots.count,
                    fmt_bytes(slots.slot_size),
                    fmt_bytes(slots.alloc_offset),
                    fmt_bytes(slots.alloc_offset + slots.alloc_size),
                    if slots.index.is_none() { ": the slot is chosen at run time, so all are drawn" } else { "" }
                ),
                from: slots.alloc_offset,
                to: slots.alloc_offset + slots.alloc_size,
                shapes,
            });
        }
        if t.pinned && w >= 8.0 && h >= 8.0 {
            out.push(Placed {
                class: "pinned",
                name: t.name.clone(),
                tooltip: format!(
                    "{}: in {}, an allocation the author declared (pinned): nothing else is packed into it",
                    t.name, t.base
                ),
                from: t.offset,
                to: t.stop(),
                shapes: vec![Shape::Rect(Rect {
                    x: x + w - 6.0,
                    y: y + 1.0,
                    w: 5.0,
                    h: 5.0,
                    radius: 2.5,
                    fill: Some(pal.text),
                    stroke: None,
                })],
            });
        }
    }
    out
}

/// What the header says of a dump from before AllocateMemoryAddr: that its columns are bases, not
/// addresses, and which dump has the addresses.
pub(super) fn unassigned_note(map: &MemoryMap) -> Option<String> {
    (map.addresses == Addresses::Unassigned).then(|| {
        format!(
            "addresses not assigned yet: a bases view, one column per base in first-use order; the addresses are in {}",
            map.addresses_in.as_deref().unwrap_or("the dump after AllocateMemoryAddr")
        )
    })
}

/// The legend's entries for the placed marks the map has: a reserved window, the unsafe band,
/// declared slots; each a swatch and its words, drawn from its own origin.
pub(super) fn legend(map: &MemoryMap, pal: &Palette) -> Vec<Vec<Shape>> {
    let mut out = Vec::new();
    let swatch = |stroke: Stroke| {
        let frame = Rect { x: 0.5, y: 0.5, w: 16.0, h: 10.0, radius: 0.0, fill: None, stroke: Some(stroke) };
        let mut shapes = super::insight::hatch_region(0.5, 0.5, 16.0, 10.0, Stroke { width: 0.75, ..stroke });
        shapes.push(Shape::Rect(frame));
        shapes
    };
    let words = |x: f64, what: &str| {
        Shape::Text(Text {
            x,
            y: 9.5,
            size: super::LABEL,
            color: pal.muted,
            anchor: Anchor::Start,
            content: what.into(),
        })
    };
    if map.functions.iter().any(|f| f.reserved.iter().any(|r| r.offset.is_some())) {
        let mut item = swatch(Stroke { color: pal.muted, width: 1.0, dash: Some((4.0, 2.0)) });
        item.push(words(22.0, "reserved window (system.reserve_buffer), in the hwm"));
        out.push(item);
    }
    if map.functions.iter().flat_map(|f| &f.spaces).any(|s| s.physical.is_some()) {
        let mut item = swatch(Stroke { color: WARNING, width: 1.0, dash: None });
        item.push(words(22.0, "unsafe band: past the usable size, within the physical"));
        out.push(item);
    }
    if map.functions.iter().flat_map(|f| &f.blocks).any(|b| b.tile.slots.is_some()) {
        out.push(vec![
            Shape::Line(Line {
                x1: 4.5,
                y1: -1.0,
                x2: 4.5,
                y2: 12.0,
                stroke: Stroke { color: pal.text, width: 1.0, dash: Some((2.0, 2.0)) },
            }),
            words(12.0, "slot boundary of a declared allocation; a dot: pinned"),
        ]);
    }
    out
}
