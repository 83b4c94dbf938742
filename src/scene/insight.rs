//! The marks that answer the guide's two questions, drawn: use ticks and idle stretches inside the
//! boxes, the live-bytes profile beside the lanes, free ranges for a `--fit` query, hatching past a
//! capacity. What they are (scale-free) is planned in `plan::marks`; this module only places them.

use super::shapes::{Anchor, Line, Profile, Rect, Shape, Stroke, Text};
use crate::plan::RULES;
use crate::plan::style::{CRITICAL, Color, GOOD, Palette, WARNING, space_color};
use crate::plan::width::SMALL;
use crate::plan::{Mark, MarkKind, ProfilePlan, Tone};

/// Width of one profile column, and the gap before the first (rules the page shares).
pub const PROFILE_W: f64 = RULES.profile_px;
pub const PROFILE_GAP: f64 = RULES.profile_gap;

/// The profile column of `plan` at `x` on a card whose lines are drawn in `rows`, as shapes.
pub fn profile(
    rows: &crate::plan::RowMap,
    space: &str,
    plan: &ProfilePlan,
    x: f64,
    tops: (f64, f64),
    pal: &Palette,
) -> Profile {
    let (plot_top, body_top) = tops;
    let color = space_color(space, pal.theme);
    let first = rows.first();
    let y = |line: u32| body_top + rows.row(line) * RULES.line_px;
    let body_h = rows.rows() as f64 * RULES.line_px;
    let mut shapes = vec![
        Shape::Rect(Rect {
            x,
            y: plot_top,
            w: PROFILE_W,
            h: body_top - plot_top + body_h,
            radius: 0.0,
            fill: Some(pal.wash(color)),
            stroke: None,
        }),
        Shape::Rect(Rect { x, y: plot_top, w: PROFILE_W, h: 3.0, radius: 0.0, fill: Some(color), stroke: None }),
        text_at(x + 4.0, plot_top + 18.0, SMALL, pal.text, &plan.head[0]),
        text_at(x + 4.0, plot_top + 33.0, SMALL, pal.muted, &plan.head[1]),
    ];
    let bar = pal.bar(color);
    for &(row, n, w) in &plan.bars {
        let (top, bottom) = (y(first + row), y(first + row + n));
        shapes.push(Shape::Rect(Rect {
            x: x + 3.0,
            y: top,
            w,
            h: bottom - top,
            radius: 0.0,
            fill: Some(bar),
            stroke: None,
        }));
    }
    let (py, pz) = (y(plan.peak_line), y(plan.peak_line.max(first) + 1));
    shapes.push(Shape::Rect(Rect {
        x: x + 1.0,
        y: py,
        w: PROFILE_W - 2.0,
        h: pz - py,
        radius: 0.0,
        fill: None,
        stroke: Some(Stroke { color: pal.text, width: 1.0, dash: None }),
    }));
    Profile { space: space.to_string(), x, width: PROFILE_W, peak_bytes: plan.peak, peak_line: plan.peak_line, shapes }
}

/// Hatch spacing, in px: one diagonal every this many pixels along the edges.
const HATCH_STEP: f64 = 6.0;
/// Most diagonals one hatched region gets.
const MAX_HATCH_LINES: f64 = 2000.0;

/// Diagonals (bottom-left to top-right) every [`HATCH_STEP`] px, each clipped to the rectangle by
/// hand: plain lines render the same in every SVG reader and in resvg, which patterns may not.
fn hatch(x: f64, y: f64, w: f64, h: f64, stroke: Stroke) -> Vec<Shape> {
    let mut out = Vec::new();
    if !(w.is_finite() && h.is_finite()) || w <= 0.0 || h <= 0.0 {
        return out;
    }
    // A region wider or taller than any screen (a lane of a byte-sized scale) gets sparser hatching,
    // never more than this many lines.
    let step = HATCH_STEP.max((w + h) / MAX_HATCH_LINES);
    let mut d = step / 2.0;
    while d < w + h {
        // The diagonal u + v = d (u across from x, v down from y), inside [0, w] x [0, h].
        let (u1, u2) = ((d - h).max(0.0), d.min(w));
        out.push(Shape::Line(Line { x1: x + u1, y1: y + d - u1, x2: x + u2, y2: y + d - u2, stroke }));
        d += step;
    }
    out
}

/// A region hatched with `stroke` (a reserved window, the unsafe band).
pub(super) fn hatch_region(x: f64, y: f64, w: f64, h: f64, stroke: Stroke) -> Vec<Shape> {
    hatch(x, y, w, h, stroke)
}

/// A legend's sample of the overflow hatching, in `frame`.
pub fn hatch_swatch(frame: Rect, color: Color) -> Vec<Shape> {
    hatch(frame.x, frame.y, frame.w, frame.h, Stroke { color, width: 1.0, dash: None })
}

/// Where a mark is drawn: its lane (left edge and width), the box it sits in if any, the factor,
/// and the rows.
#[derive(Clone, Copy)]
pub struct Host<'a> {
    /// Left edge and width of the lane.
    pub lane: (f64, f64),
    /// Left edge and width of the box the mark belongs to, if it belongs to one.
    pub block: Option<(f64, f64)>,
    /// How bytes map to px across the lane.
    pub axis: &'a crate::plan::Axis,
    /// Top of the first line's row, and that line.
    pub body_top: f64,
    /// Where each line is drawn.
    pub rows: &'a crate::plan::RowMap,
    /// The first line of the function.
    pub first_line: u32,
    /// The last line of the function.
    pub last_line: u32,
}

/// A mark of the plan as shapes at the host's factor: the one generic draw of the static picture.
pub fn mark_shapes(m: &Mark, host: &Host, color: Color, pal: &Palette) -> Vec<Shape> {
    let px = crate::plan::px_rules();
    let (lane_x, lane_w) = host.lane;
    let row = |line: u32| host.body_top + host.rows.row(line) * px.line;
    let (x, w) = match (m.bytes, host.block) {
        (Some([o, s]), _) => {
            let (x, w) = host.axis.place(o, s, lane_w, px.min_box);
            (lane_x + x, w)
        }
        (None, Some(b)) => b,
        (None, None) => (lane_x, lane_w),
    };
    let tone = match m.style.tone {
        Tone::Space => color,
        Tone::Wash => pal.wash(color),
        Tone::Good => GOOD,
        Tone::Crit => CRITICAL,
        Tone::Muted => pal.muted,
        Tone::Warn => WARNING,
        Tone::Ink => pal.text,
    };
    let [from, to] = m.lines.unwrap_or([host.first_line, host.last_line]);
    let (top, bottom) = (row(from), row(to.max(from) + 1));
    let mut out = Vec::new();
    match m.style.kind {
        MarkKind::Band => {
            let inset = if w > 4.0 { 1.0 } else { 0.0 };
            out.push(Shape::Rect(Rect {
                x: x + inset,
                y: top,
                w: w - 2.0 * inset,
                h: bottom - top,
                radius: 0.0,
                fill: Some(tone),
                stroke: None,
            }));
        }
        MarkKind::Outline => out.push(Shape::Rect(Rect {
            x: x + 1.0,
            y: top + 1.0,
            w: (w - 2.0).max(1.0),
            h: bottom - top - 2.0,
            radius: 2.0,
            fill: None,
            stroke: Some(Stroke { color: tone, width: 1.5, dash: Some((5.0, 3.0)) }),
        })),
        MarkKind::Ticks => {
            let tick = px.tick.min(w);
            out.extend(m.at.iter().map(|&u| {
                let y = row(u) + px.line / 2.0;
                Shape::Line(Line {
                    x1: x + w - tick,
                    y1: y,
                    x2: x + w,
                    y2: y,
                    stroke: Stroke { color: tone, width: 2.0, dash: None },
                })
            }));
        }
        MarkKind::Rule => {
            let at = m.bytes.map_or(0, |b| b[0]);
            let hx = (lane_x + host.axis.x(at)).min(lane_x + lane_w - 0.5).max(lane_x + 0.5);
            // A status rule (the capacity) is solid and heavier than the space's own (the hwm).
            let stroke = if m.style.tone == Tone::Crit {
                Stroke { color: tone, width: 2.0, dash: None }
            } else {
                Stroke { color: tone, width: 1.0, dash: Some((4.0, 3.0)) }
            };
            // Down the whole lane, or over its own lines where it has them (a slot edge in its box).
            out.push(Shape::Line(Line { x1: hx, y1: top, x2: hx, y2: bottom, stroke }));
        }
        MarkKind::Hatch => {
            out.extend(hatch(x, top, w, bottom - top, Stroke { color: tone, width: 1.0, dash: None }));
        }
        MarkKind::Window => {
            out.push(Shape::Rect(Rect {
                x,
                y: top,
                w,
                h: bottom - top,
                radius: 0.0,
                fill: None,
                stroke: Some(Stroke { color: tone, width: 1.0, dash: Some((4.0, 2.0)) }),
            }));
            out.extend(hatch(x, top, w, bottom - top, Stroke { color: tone, width: 0.75, dash: None }));
        }
        MarkKind::Note => {}
        MarkKind::Dot => out.push(Shape::Rect(Rect {
            x: x + w - 6.0,
            y: top + 1.0,
            w: 5.0,
            h: 5.0,
            radius: 2.5,
            fill: Some(tone),
            stroke: None,
        })),
    }
    if let Some(t) = m.text.as_ref().filter(|t| t.pill) {
        // Its own width, inside the lane: starting at the mark, moved left where it would pass
        // the lane's end, never left of the lane.
        let tx = lane_x + crate::plan::steps::pill_left(t, x - lane_x, lane_w);
        let top = row(t.line) + 2.0;
        out.push(Shape::Rect(Rect {
            x: tx - 3.0,
            y: top,
            w: t.w + 6.0,
            h: 13.0,
            radius: 3.0,
            fill: Some(pal.card),
            stroke: Some(Stroke { color: tone, width: 0.75, dash: None }),
        }));
        out.push(text_at(tx, row(t.line) + 12.0, px.small, pal.text, &t.content));
    } else if let Some(t) = m.text.as_ref().filter(|t| t.fits(w)) {
        let color = if m.style.tone == Tone::Wash { pal.muted } else { tone };
        out.push(text_at(x + px.inset, row(t.line) + 12.0, px.small, color, &t.content));
    }
    out
}

fn text_at(x: f64, y: f64, size: f64, color: Color, content: &str) -> Shape {
    Shape::Text(Text { x, y, size, color, anchor: Anchor::Start, content: content.to_string() })
}

/// Height of one summary line.
pub const SUMMARY_LINE: f64 = 16.0;
/// Label size of the summary, re-exported for the card footer.
pub use crate::plan::width::SUMMARY_SIZE;
