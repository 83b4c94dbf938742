//! What the compiler placed in a lane besides its tiles, drawn over them: reserved windows
//! (hatched, named, down the function's lines), the unsafe band between a space's usable and
//! physical size, and the slots of declared multi-slot allocations (dividers, the run-time
//! selector, a pin for an author-declared allocation). What they are is planned in
//! `plan::placed`; here they are grouped, and the header and legend say what they mean.

use super::insight::Host;
use super::shapes::{Anchor, Line, Placed, Rect, Shape, Stroke, Text};
use crate::plan;
use crate::plan::style::{Color, Palette, WARNING};

/// The placed marks of a lane (`plan::PLACED_STYLES`), drawn by the generic draw at `host`'s scale
/// and grouped for the SVG: each mark with a tooltip opens a group, and the marks without one that
/// follow it (a slot edge after its allocation) join it.
///
/// The hatching of a lane's placed marks stops at [`LANE_HATCH_LINES`] diagonals: each region has
/// up to 2 000 of its own, so thousands of windows piled down a long function would otherwise make
/// their count the product of the two (40 000 windows: 80 million lines); past the bound a mark
/// keeps its frame, name and tooltip.
pub(super) fn marks(lane: &[plan::Mark], host: &Host, color: Color, pal: &Palette) -> Vec<Placed> {
    let mut out: Vec<Placed> = Vec::new();
    let mut hatched = 0usize;
    for m in lane.iter().filter(|m| is_placed(m)) {
        let mut shapes = super::insight::mark_shapes(m, host, color, pal);
        let lines = shapes.iter().filter(|s| matches!(s, Shape::Line(_))).count();
        if lines > 2 && hatched + lines > LANE_HATCH_LINES {
            shapes.retain(|s| !matches!(s, Shape::Line(_)));
            shapes.shrink_to_fit();
        } else {
            hatched += lines;
        }
        match (&m.tip, out.last_mut()) {
            (Some(tip), _) => out.push(Placed {
                class: m.style.class,
                name: tip.name.clone(),
                tooltip: tip.text.clone(),
                from: tip.range[0],
                to: tip.range[1],
                shapes,
            }),
            (None, Some(last)) => last.shapes.extend(shapes),
            (None, None) => {}
        }
    }
    out
}

/// Most hatching diagonals the placed marks of one lane get (see [`marks`]).
const LANE_HATCH_LINES: usize = 20_000;

/// Whether a lane mark is one of what the compiler placed (drawn in its own groups, over the boxes).
pub(super) fn is_placed(m: &plan::Mark) -> bool {
    plan::PLACED_STYLES.contains(&m.style)
}

/// The legend's entries for the placed marks the map `has`: a reserved window, the unsafe band,
/// declared slots; each a swatch and its words, drawn from its own origin.
pub(super) fn legend(has: plan::PlacedMarks, pal: &Palette) -> Vec<Vec<Shape>> {
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
            size: crate::plan::width::LABEL,
            color: pal.muted,
            anchor: Anchor::Start,
            content: what.into(),
        })
    };
    if has.reserved {
        let mut item = swatch(Stroke { color: pal.muted, width: 1.0, dash: Some((4.0, 2.0)) });
        item.push(words(22.0, "reserved window (system.reserve_buffer), in the hwm"));
        out.push(item);
    }
    if has.unsafe_band {
        let mut item = swatch(Stroke { color: WARNING, width: 1.0, dash: None });
        item.push(words(22.0, "unsafe band: past the usable size, within the physical"));
        out.push(item);
    }
    if has.slots {
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
