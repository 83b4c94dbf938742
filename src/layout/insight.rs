//! The marks that answer the guide's two questions: which tile is alive far longer than it is used
//! (use ticks and idle stretches inside the boxes), and what the headroom is (a live-bytes profile
//! beside the lanes, free ranges for a `--fit` query, and a summary under each card).

use super::plan::{CAPACITY, FIT, IDLE, Mark, MarkKind, MarkText, OVERFLOW, ProfilePlan, Tone, USE};
use super::scene::{Anchor, Line, Profile, Rect, Shape, Stroke, Text};
use super::style::{CRITICAL, Color, GOOD, Palette, space_color};
use super::{LABEL, RULES, SMALL, text};
use crate::model::{Block, FunctionMap, SpaceUsage};
use crate::units::fmt_bytes;

/// Width of one profile column, and the gap before the first (rules the page shares).
pub const PROFILE_W: f64 = RULES.profile_px;
pub const PROFILE_GAP: f64 = RULES.profile_gap;

/// The marks inside a box: a paler stretch where it sits idle (labelled where there is room, below
/// the box's own two label rows), and a use tick at each line that mentions it after it is bound.
pub fn box_marks(b: &Block) -> Vec<Mark> {
    let t = &b.tile;
    let mut out = Vec::new();
    if let Some(idle) = b.idle {
        let label_line = idle.from.max(t.start + 2);
        out.push(Mark {
            style: IDLE,
            bytes: None,
            lines: Some([idle.from, idle.to]),
            at: Vec::new(),
            text: (label_line <= idle.to)
                .then(|| MarkText { content: format!("idle {} lines", idle.lines), line: label_line }),
        });
    }
    let at: Vec<u32> = t.uses.iter().copied().filter(|&u| u >= t.start && u <= t.end).collect();
    if !at.is_empty() {
        out.push(Mark { style: USE, bytes: None, lines: None, at, text: None });
    }
    out
}

/// A space's live bytes per line (the union of the live boxes' ranges, computed by `analyze`), as
/// runs of equal values scaled to the peak: one bar per run keeps long functions small.
pub fn profile_plan(s: &SpaceUsage) -> ProfilePlan {
    let live = &s.profile;
    let room = PROFILE_W - 6.0;
    let mut bars = Vec::new();
    let mut i = 0;
    while i < live.len() {
        let mut j = i;
        while j + 1 < live.len() && live[j + 1] == live[i] {
            j += 1;
        }
        if live[i] > 0 && s.peak.bytes > 0 {
            // A hundredth of a pixel is finer than any screen, and keeps the page's copy short.
            let w = ((live[i] as f64 / s.peak.bytes as f64 * room).max(1.0) * 100.0).round() / 100.0;
            bars.push((i as u32, (j - i + 1) as u32, w));
        }
        i = j + 1;
    }
    ProfilePlan {
        peak: s.peak.bytes,
        peak_line: s.peak.line,
        head: [peak_head(s.peak.line), fmt_bytes(s.peak.bytes)],
        bars,
    }
}

/// The column's first line: `peak L49`, or `L1764` where that would run past the column (from
/// four-digit lines on) and into the next; the line alone, over the peak's mark, still reads as
/// the peak's.
fn peak_head(line: u32) -> String {
    let long = format!("peak L{line}");
    // The text starts 4 px in, and may use the 4 px gap to the next column.
    if text::width(&long, SMALL) <= PROFILE_W { long } else { format!("L{line}") }
}

/// The profile column of `plan` at `x`, as shapes.
pub fn profile(f: &FunctionMap, space: &str, plan: &ProfilePlan, x: f64, tops: (f64, f64), pal: &Palette) -> Profile {
    let (plot_top, body_top) = tops;
    let color = space_color(space, pal.theme);
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
        text_at(x + 4.0, plot_top + 18.0, SMALL, pal.text, &plan.head[0]),
        text_at(x + 4.0, plot_top + 33.0, SMALL, pal.muted, &plan.head[1]),
    ];
    let bar = pal.bar(color);
    for &(row, rows, w) in &plan.bars {
        shapes.push(Shape::Rect(Rect {
            x: x + 3.0,
            y: body_top + row as f64 * RULES.line_px,
            w,
            h: rows as f64 * RULES.line_px,
            radius: 0.0,
            fill: Some(bar),
            stroke: None,
        }));
    }
    let py = body_top + (plan.peak_line.max(f.src_start) - f.src_start) as f64 * RULES.line_px;
    shapes.push(Shape::Rect(Rect {
        x: x + 1.0,
        y: py,
        w: PROFILE_W - 2.0,
        h: RULES.line_px,
        radius: 0.0,
        fill: None,
        stroke: Some(Stroke { color: pal.text, width: 1.0, dash: None }),
    }));
    Profile { space: space.to_string(), x, width: PROFILE_W, peak_bytes: plan.peak, peak_line: plan.peak_line, shapes }
}

/// Outlines over the free ranges that answer a `--fit` query in this space, each saying what fits.
pub fn fit_plan(f: &FunctionMap, space: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    for a in f.fits.iter().filter(|a| a.space == space) {
        let (from, to) = (a.from.max(f.src_start), a.to.min(f.src_end));
        if from > to {
            continue;
        }
        for g in &a.ranges {
            out.push(Mark {
                style: FIT,
                bytes: Some([g.offset, g.size]),
                lines: Some([from, to]),
                at: Vec::new(),
                text: Some(MarkText { content: format!("fits {}", fmt_bytes(a.bytes)), line: from }),
            });
        }
    }
    out
}

/// Where tiles reach past their space's capacity: the capacity as a line down the lane, and each
/// such tile's bytes past it hatched over its lines (the `overflow` finding, drawn). A space the
/// backend gives no capacity (limit 0) has nothing to reach past.
pub fn overflow_plan(f: &FunctionMap, s: &SpaceUsage) -> Vec<Mark> {
    if s.limit <= 0 || s.hwm <= s.limit {
        return Vec::new();
    }
    let mut out = vec![Mark { style: CAPACITY, bytes: Some([s.limit, 0]), lines: None, at: Vec::new(), text: None }];
    for b in f.blocks.iter().filter(|b| b.tile.space == s.space && b.tile.stop() > s.limit) {
        let t = &b.tile;
        let from = t.offset.max(s.limit);
        out.push(Mark {
            style: OVERFLOW,
            bytes: Some([from, t.stop() - from]),
            lines: Some([t.start, t.end]),
            at: Vec::new(),
            text: None,
        });
    }
    out
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

/// A legend's sample of the overflow hatching, in `frame`.
pub fn hatch_swatch(frame: Rect, color: Color) -> Vec<Shape> {
    hatch(frame.x, frame.y, frame.w, frame.h, Stroke { color, width: 1.0, dash: None })
}

/// Where a mark is drawn: its lane (left edge and width), the box it sits in if any, the factor,
/// and the rows.
pub struct Host {
    /// Left edge and width of the lane.
    pub lane: (f64, f64),
    /// Left edge and width of the box the mark belongs to, if it belongs to one.
    pub block: Option<(f64, f64)>,
    /// Pixels per byte.
    pub factor: f64,
    /// Top of the first line's row, and that line.
    pub body_top: f64,
    /// The first line of the function.
    pub first_line: u32,
    /// The last line of the function.
    pub last_line: u32,
}

/// A mark of the plan as shapes at the host's factor: the one generic draw of the static picture.
pub fn mark_shapes(m: &Mark, host: &Host, color: Color, pal: &Palette) -> Vec<Shape> {
    let px = super::plan::px_rules();
    let (lane_x, lane_w) = host.lane;
    let row = |line: u32| host.body_top + (line.max(host.first_line) - host.first_line) as f64 * px.line;
    let (x, w) = match (m.bytes, host.block) {
        (Some([o, s]), _) => {
            let (x, w) = super::plan::place(o, s, host.factor, lane_w, px.min_box);
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
    };
    let [from, to] = m.lines.unwrap_or([host.first_line, host.last_line]);
    let (top, bottom) = (row(from), row(to) + px.line);
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
            let hx = (lane_x + at as f64 * host.factor).min(lane_x + lane_w - 0.5).max(lane_x + 0.5);
            let end = host.body_top + (host.last_line - host.first_line + 1) as f64 * px.line;
            // A status rule (the capacity) is solid and heavier than the space's own (the hwm).
            let stroke = if m.style.tone == Tone::Crit {
                Stroke { color: tone, width: 2.0, dash: None }
            } else {
                Stroke { color: tone, width: 1.0, dash: Some((4.0, 3.0)) }
            };
            out.push(Shape::Line(Line { x1: hx, y1: host.body_top, x2: hx, y2: end, stroke }));
        }
        MarkKind::Hatch => {
            out.extend(hatch(x, top, w, bottom - top, Stroke { color: tone, width: 1.0, dash: None }));
        }
    }
    if let Some(t) = &m.text
        && text::width(&t.content, px.small) + 2.0 * px.inset <= w
    {
        let color = if m.style.tone == Tone::Wash { pal.muted } else { tone };
        out.push(text_at(x + px.inset, row(t.line) + 12.0, px.small, color, &t.content));
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
        // The rest by name: the picture itself shades their idle stretches.
        let rest: Vec<&str> = idle[3..].iter().take(6).map(|b| b.tile.name.as_str()).collect();
        let more = if idle.len() > 9 { format!(" and {} more", idle.len() - 9) } else { String::new() };
        out.push(format!("idle also: {}{more} (shaded in their boxes)", rest.join(", ")));
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
    out.extend(f.spaces.iter().filter_map(holding));
    out
}

/// Tiles named in a space's "what holds it" line before `+N more`.
const HOLDING_SHOWN: usize = 4;

/// What holds a space at its peak, biggest first: `Vec peak 64 KB at L49: s__tile 64 KB, …`.
/// `None` for a space with nothing live.
pub fn holding(s: &SpaceUsage) -> Option<String> {
    let live = &s.peak.live;
    if s.peak.bytes <= 0 || live.is_empty() {
        return None;
    }
    let mut named: Vec<String> =
        live.iter().take(HOLDING_SHOWN).map(|t| format!("{} {}", t.name, fmt_bytes(t.size))).collect();
    if live.len() > HOLDING_SHOWN {
        named.push(format!("+{} more", live.len() - HOLDING_SHOWN));
    }
    Some(format!("{} peak {} at L{}: {}", s.space, fmt_bytes(s.peak.bytes), s.peak.line, named.join(", ")))
}

fn text_at(x: f64, y: f64, size: f64, color: Color, content: &str) -> Shape {
    Shape::Text(Text { x, y, size, color, anchor: Anchor::Start, content: content.to_string() })
}

/// Height of one summary line.
pub const SUMMARY_LINE: f64 = 16.0;
/// Label size of the summary, re-exported for the card footer.
pub const SUMMARY_SIZE: f64 = LABEL;

/// Every byte count a line's live list can show on the page, written as the map writes bytes (see
/// [`super::plan::Plan::words`]): box sizes, and per line and space the live total and the largest
/// free range. The page's script formats nothing itself.
pub fn live_words(map: &crate::model::MemoryMap, view: &super::ViewOptions) -> std::collections::BTreeMap<i64, String> {
    let drawn: Vec<&crate::model::FunctionMap> =
        map.functions.iter().filter(|f| view.functions.is_empty() || view.functions.contains(&f.name)).collect();
    let mut values: Vec<i64> = crate::par::map_ref(&drawn, |f| function_words(f)).into_iter().flatten().collect();
    values.sort_unstable();
    values.dedup();
    values.into_iter().map(|v| (v, fmt_bytes(v))).collect()
}

/// The byte counts of [`live_words`] for one function, unsorted.
fn function_words(f: &crate::model::FunctionMap) -> Vec<i64> {
    let mut values = Vec::new();
    for s in &f.spaces {
        let mut mine: Vec<&Block> = f.blocks.iter().filter(|b| b.tile.space == s.space).collect();
        values.extend(mine.iter().map(|b| b.tile.size));
        let capacity = super::plan::live_capacity(s);
        // A sweep down the lines: `live_at` sees only the blocks live there, so a long function
        // of short-lived tiles costs its lines plus its tiles, not their product. Between two
        // lines where a tile starts or ends the live set is the same, and so are its figures.
        mine.sort_by_key(|b| b.tile.start);
        let (mut next, mut live, mut changed) = (0, Vec::new(), true);
        for line in f.src_start..=f.src_end {
            while next < mine.len() && mine[next].tile.start <= line {
                live.push(mine[next]);
                next += 1;
                changed = true;
            }
            let before = live.len();
            live.retain(|b: &&Block| b.tile.end >= line);
            if changed || live.len() != before {
                // Each change costs the live set: thousands of tiles live at once over thousands of
                // lines is quadratic, so the run's deadline is read here (the page's next
                // checkpoint reports it; these words are then never used).
                if live.len() > 64 && crate::budget::expired() {
                    return values;
                }
                let (total, largest) = super::plan::live_at(&live, capacity, line);
                values.extend([total, largest.size]);
                changed = false;
            }
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_line_fits_its_column_whatever_its_digits() {
        assert_eq!(peak_head(49), "peak L49");
        assert_eq!(peak_head(571), "peak L571");
        assert_eq!(peak_head(1764), "L1764");
        assert_eq!(peak_head(43_681), "L43681");
        for line in [1, 999, 1000, 99_999, 9_999_999] {
            assert!(text::width(&peak_head(line), SMALL) <= PROFILE_W, "{line}");
        }
    }
}
