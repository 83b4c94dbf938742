//! The marks that answer the guide's two questions: which tile is alive far longer than it is used
//! (use ticks and idle stretches inside the boxes), and what the headroom is (a live-bytes profile
//! beside the lanes, free ranges for a `--fit` query, and a summary under each card).

use super::scene::{Anchor, Line, Profile, Rect, Shape, Stroke, Text};
use super::style::{Color, GOOD, Palette, space_color};
use super::{LABEL, RULES, SMALL, text};
use crate::model::{Block, FunctionMap, SpaceUsage};
use crate::units::fmt_bytes;

/// Width of one profile column, and the gap before the first (rules the page shares).
pub const PROFILE_W: f64 = RULES.profile_px;
pub const PROFILE_GAP: f64 = RULES.profile_gap;
/// Longest tick drawn at a use line, in from the box's right edge.
const TICK: f64 = 6.0;

/// A use tick at each line that mentions the block after it is bound, and a paler stretch where it
/// sits idle, labelled when there is room.
pub fn block_marks(b: &Block, rect: &Rect, first_line: u32, body_top: f64, color: Color, pal: &Palette) -> Vec<Shape> {
    let row = |line: u32| body_top + (line - first_line) as f64 * RULES.line_px;
    let mut out = Vec::new();
    if let Some(idle) = b.idle {
        let (top, bottom) = (row(idle.from), row(idle.to) + RULES.line_px);
        let inset = if rect.w > 4.0 { 1.0 } else { 0.0 };
        out.push(Shape::Rect(Rect {
            x: rect.x + inset,
            y: top,
            w: rect.w - 2.0 * inset,
            h: bottom - top,
            radius: 0.0,
            fill: Some(pal.wash(color)),
            stroke: None,
        }));
        let label = format!("idle {} lines", idle.lines);
        // Below the box's own label (its name and size take the first two rows), inside the stretch.
        let label_line = idle.from.max(b.tile.start + 2);
        if text::width(&label, SMALL) + 8.0 <= rect.w && label_line <= idle.to {
            out.push(Shape::Text(Text {
                x: rect.x + 4.0,
                y: row(label_line) + 12.0,
                size: SMALL,
                color: pal.muted,
                anchor: Anchor::Start,
                content: label,
            }));
        }
    }
    let tick = TICK.min(rect.w);
    for &u in b.tile.uses.iter().filter(|&&u| u >= b.tile.start && u <= b.tile.end) {
        let y = row(u) + RULES.line_px / 2.0;
        // At the right edge, clear of the label at the left.
        out.push(Shape::Line(Line {
            x1: rect.x + rect.w - tick,
            y1: y,
            x2: rect.x + rect.w,
            y2: y,
            stroke: Stroke { color, width: 2.0, dash: None },
        }));
    }
    out
}

pub fn profile(f: &FunctionMap, s: &SpaceUsage, x: f64, plot_top: f64, body_top: f64, pal: &Palette) -> Profile {
    let color = space_color(&s.space, pal.theme);
    let body_h = (f.src_end - f.src_start + 1) as f64 * RULES.line_px;
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
        text_at(x + 4.0, plot_top + 18.0, SMALL, pal.text, &format!("peak L{}", s.peak.line)),
        text_at(x + 4.0, plot_top + 33.0, SMALL, pal.muted, &fmt_bytes(s.peak.bytes)),
    ];
    let live = &s.profile;
    let room = PROFILE_W - 6.0;
    let bar = color.over(pal.card, 0.55);
    // One rect per run of equal values keeps long functions small.
    let mut i = 0;
    while i < live.len() {
        let mut j = i;
        while j + 1 < live.len() && live[j + 1] == live[i] {
            j += 1;
        }
        if live[i] > 0 && s.peak.bytes > 0 {
            shapes.push(Shape::Rect(Rect {
                x: x + 3.0,
                y: body_top + i as f64 * RULES.line_px,
                w: (live[i] as f64 / s.peak.bytes as f64 * room).max(1.0),
                h: (j - i + 1) as f64 * RULES.line_px,
                radius: 0.0,
                fill: Some(bar),
                stroke: None,
            }));
        }
        i = j + 1;
    }
    let py = body_top + (s.peak.line - f.src_start) as f64 * RULES.line_px;
    shapes.push(Shape::Rect(Rect {
        x: x + 1.0,
        y: py,
        w: PROFILE_W - 2.0,
        h: RULES.line_px,
        radius: 0.0,
        fill: None,
        stroke: Some(Stroke { color: pal.text, width: 1.0, dash: None }),
    }));
    Profile { space: s.space.clone(), x, width: PROFILE_W, peak_bytes: s.peak.bytes, peak_line: s.peak.line, shapes }
}

/// Dashed outlines over the free ranges that answer a `--fit` query in this lane.
pub fn fit_marks(f: &FunctionMap, space: &str, lane: (f64, f64), factor: f64, body_top: f64) -> Vec<Shape> {
    let (lane_x, lane_w) = lane;
    let mut out = Vec::new();
    for a in f.fits.iter().filter(|a| a.space == space) {
        let (from, to) = (a.from.max(f.src_start), a.to.min(f.src_end));
        if from > to {
            continue;
        }
        let y = body_top + (from - f.src_start) as f64 * RULES.line_px;
        let h = (to - from + 1) as f64 * RULES.line_px;
        for g in &a.ranges {
            let x = (lane_x + g.offset as f64 * factor).min(lane_x + lane_w - 2.0);
            let w = (g.size as f64 * factor).max(2.0).min(lane_x + lane_w - x);
            out.push(Shape::Rect(Rect {
                x: x + 1.0,
                y: y + 1.0,
                w: (w - 2.0).max(1.0),
                h: h - 2.0,
                radius: 2.0,
                fill: None,
                stroke: Some(Stroke { color: GOOD, width: 1.5, dash: Some((5.0, 3.0)) }),
            }));
            let label = format!("fits {}", fmt_bytes(a.bytes));
            if text::width(&label, SMALL) + 8.0 <= w {
                out.push(text_at(x + 4.0, y + 13.0, SMALL, GOOD, &label));
            }
        }
    }
    out
}

/// Lines under a card: idle tiles (longest first) and fit answers.
pub fn summary(f: &FunctionMap) -> Vec<String> {
    let mut out = Vec::new();
    let mut idle: Vec<&Block> = f.blocks.iter().filter(|b| b.idle.is_some()).collect();
    idle.sort_by_key(|b| std::cmp::Reverse(b.idle.map(|i| i.lines as i64 * b.tile.size.max(0))));
    for b in idle.iter().take(3) {
        let i = b.idle.unwrap_or(crate::model::Idle { lines: 0, from: 0, to: 0 });
        out.push(format!(
            "idle: {} holds {} for {} lines with no use (L{}–L{})",
            b.tile.name,
            fmt_bytes(b.tile.size),
            i.lines,
            i.from,
            i.to
        ));
    }
    if idle.len() > 3 {
        out.push(format!("idle: {} more tiles (see the JSON)", idle.len() - 3));
    }
    for a in &f.fits {
        let answer = if a.fits {
            let first = a.ranges[0];
            let more = if a.ranges.len() > 1 { format!(" (+{} more)", a.ranges.len() - 1) } else { String::new() };
            format!("yes, at [{}, {}){more}", first.offset, first.offset + first.size)
        } else {
            format!("no: the largest free range is {}", fmt_bytes(a.largest.size))
        };
        out.push(format!("fit {} {} over L{}–L{}: {answer}", a.space, fmt_bytes(a.bytes), a.from, a.to));
    }
    out
}

fn text_at(x: f64, y: f64, size: f64, color: Color, content: &str) -> Shape {
    Shape::Text(Text { x, y, size, color, anchor: Anchor::Start, content: content.to_string() })
}

/// Height of one summary line.
pub const SUMMARY_LINE: f64 = 16.0;
/// Label size of the summary, re-exported for the card footer.
pub const SUMMARY_SIZE: f64 = LABEL;
