//! The one place that knows geometry: from a memory map and view options to a [`Scene`] in pixels.
//!
//! Every number about where things go lives here; back ends only draw the scene. The byte scale is
//! shared by all lanes of a card (D5): a lane is its span times one px/byte factor wide, in absolute
//! pixels, so a 512 KiB Mat lane is exactly eight times a 64 KiB Left lane and box widths compare
//! across spaces.

mod diff;
mod insight;
pub mod options;
pub mod plan;
mod scene;
pub mod style;
pub mod text;

pub use diff::diff_scene;
pub use options::{
    DEFAULT_SCALE, OPTIONS, OptionKind, OptionSpec, RULES, Range, Rules, SCALE, Theme, ViewOptions, WIDTH, XAxis, ZOOM,
    options_markdown, rules_json,
};
pub use scene::{Anchor, BlockShape, Card, Lane, Line, Profile, Rect, Scene, Shape, Stroke, Text};

use crate::model::{Block, FunctionMap, MemoryMap, SpaceUsage};
use crate::units::{fmt_bytes, fmt_num};
use plan::{BoxPlan, CardPlan, LabelPlan};
pub use plan::{Plan, place, px_per_byte, span};
use style::{CRITICAL, Color, GOOD, Palette, WARNING, palette, space_color};

/// Margin around the page and between cards.
const PAGE_PAD: f64 = 24.0;
const CARD_GAP: f64 = 16.0;
/// Inner left/right padding of a card.
const CARD_PAD: f64 = 12.0;
const TITLE_ROW: f64 = 44.0;
/// Gap between the title row and the column headers.
const PLOT_GAP: f64 = 12.0;
const COLUMN_HEADER: f64 = 40.0;
const FOOTER: f64 = 36.0;
const HEADER_HEIGHT: f64 = 134.0;
/// Text sizes: labels in boxes, small print, titles.
const LABEL: f64 = 11.0;
const SMALL: f64 = 10.0;

/// Lays out `map` as `view` asks. `view` should have been validated against `map`.
pub fn layout(map: &MemoryMap, view: &ViewOptions) -> Scene {
    let pal = palette(view.theme);
    let header = header(map, &pal);
    let chosen: Vec<(usize, &FunctionMap)> = map
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| view.functions.is_empty() || view.functions.contains(&f.name))
        .collect();
    // Cards share one width so the page reads as a column; lanes keep their own widths.
    let header_width = header.iter().map(right_edge).fold(0.0, f64::max) - PAGE_PAD;
    let inner = chosen.iter().map(|(_, f)| card_width(f, view, None)).fold(header_width, f64::max).ceil();
    let mut y = HEADER_HEIGHT + findings_height(map);
    let mut cards: Vec<Card> = Vec::new();
    for (index, f) in chosen {
        let card = card(f, index, view, &pal, Placement { x: PAGE_PAD, y, w: inner, factor: None });
        y = card.frame.y + card.frame.h + CARD_GAP;
        cards.push(card);
    }
    Scene {
        width: (inner + 2.0 * PAGE_PAD).ceil(),
        height: (y - CARD_GAP + PAGE_PAD).ceil(),
        background: pal.page,
        font_family: text::FONT_FAMILY,
        header,
        cards,
    }
}

/// The width a card needs: its lanes, or its title row, whichever is wider.
fn card_width(f: &FunctionMap, view: &ViewOptions, factor: Option<f64>) -> f64 {
    let (spans, own) = scale(f, view);
    let factor = factor.unwrap_or(own);
    let lanes: f64 = spans.iter().flatten().map(|&sp| sp as f64 * factor).sum();
    let profiles = insight::PROFILE_GAP + spans.iter().flatten().count() as f64 * (insight::PROFILE_W + 4.0);
    let summary = insight::summary(f).iter().map(|l| text::width(l, insight::SUMMARY_SIZE)).fold(0.0, f64::max);
    let title = 16.0 + text::width(&f.name, 15.0) + 10.0 + text::width(&f.ftype, SMALL) + 10.0 + 24.0;
    let pills: Vec<plan::Pill> = f.spaces.iter().map(plan::pill).collect();
    (2.0 * CARD_PAD + gutter_width(f.src_end) + lanes + profiles)
        .max(title + pills_width(&pills) + 12.0)
        .max(summary + 2.0 * CARD_PAD)
}

/// Where a card goes: its top-left corner, its width, and a byte scale imposed from outside (a diff
/// shares one scale between its two sides) instead of the card's own.
#[derive(Debug, Clone, Copy)]
struct Placement {
    x: f64,
    y: f64,
    w: f64,
    factor: Option<f64>,
}

fn card(f: &FunctionMap, index: usize, view: &ViewOptions, pal: &Palette, at: Placement) -> Card {
    let plan = plan::card_plan(f, view);
    let (spans, own) = scale(f, view);
    let factor = at.factor.unwrap_or(own);
    let Placement { x, y, w, .. } = at;
    let lines = f.src_end - f.src_start + 1;
    let gutter = gutter_width(f.src_end);
    let plot_top = y + TITLE_ROW + PLOT_GAP;
    let body_top = plot_top + COLUMN_HEADER;
    let body_h = lines as f64 * RULES.line_px;

    let mut lanes = Vec::new();
    let mut lx = x + CARD_PAD + gutter;
    for (li, (s, sp)) in f.spaces.iter().zip(spans).enumerate() {
        let Some(sp) = sp else { continue };
        let width = sp as f64 * factor;
        let geometry = LaneGeometry { x: lx, y: plot_top, width, height: COLUMN_HEADER + body_h, body_top, factor };
        lanes.push(lane(f, &plan, li, s, sp, geometry, pal));
        lx += width;
    }
    let mut px = lx + insight::PROFILE_GAP;
    let mut profiles = Vec::new();
    for l in &lanes {
        if let Some(lp) = plan.lanes.iter().find(|p| p.space == l.space) {
            profiles.push(insight::profile(f, &lp.space, &lp.profile, px, (plot_top, body_top), pal));
            px += insight::PROFILE_W + 4.0;
        }
    }
    let mut decorations = vec![Shape::Rect(Rect {
        x,
        y,
        w,
        h: 0.0, // set below, once the height is known
        radius: 6.0,
        fill: Some(pal.card),
        stroke: Some(Stroke { color: pal.border, width: 1.0, dash: None }),
    })];
    decorations.extend(title_row(f, pal, x, y, w));
    decorations.extend(gutter_shapes(f, pal, x + CARD_PAD, gutter, plot_top, body_top));
    let footer_y = body_top + body_h;
    decorations.push(Shape::Text(Text {
        x: x + CARD_PAD,
        y: footer_y + 22.0,
        size: LABEL,
        color: pal.muted,
        anchor: Anchor::Start,
        content: format!(
            "{lines} lines · dump L{}–L{} · {} B per px · lifetimes are lexical (first to last mention)",
            f.src_start,
            f.src_end,
            fmt_num(1.0 / factor)
        ),
    }));
    let summary = &plan.summary;
    for (i, line) in summary.iter().enumerate() {
        let y = footer_y + 22.0 + (i + 1) as f64 * insight::SUMMARY_LINE;
        let color = if line.starts_with("fit") { pal.text } else { pal.muted };
        decorations.push(text_at(x + CARD_PAD, y, insight::SUMMARY_SIZE, color, line));
    }
    let h = footer_y + FOOTER + summary.len() as f64 * insight::SUMMARY_LINE - y;
    if let Some(Shape::Rect(frame)) = decorations.first_mut() {
        frame.h = h;
    }
    let frame = Rect { x, y, w, h, radius: 6.0, fill: Some(pal.card), stroke: None };
    let mut card = Card {
        function: f.name.clone(),
        index,
        px_per_byte: factor,
        frame,
        body_top,
        first_line: f.src_start,
        decorations,
        lanes,
        profiles,
    };
    place_pills(&mut card, &plan.pills, pal);
    card
}

/// Where a lane goes, and the card's factor.
struct LaneGeometry {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    body_top: f64,
    factor: f64,
}

/// The span of each space of `f` (`None` where hidden) and the card's one px/byte factor, computed
/// over the visible spans: hiding a space gives its width back to the others at one shared scale,
/// which is how hiding a tiny space keeps the `used` axis readable (reference guide, show/hide).
fn scale(f: &FunctionMap, view: &ViewOptions) -> (Vec<Option<i64>>, f64) {
    let visible = visible_spaces(f, view);
    let spans: Vec<Option<i64>> =
        f.spaces.iter().map(|s| visible.contains(&s.space.as_str()).then(|| span(s, view.x_axis))).collect();
    let shown: Vec<i64> = spans.iter().flatten().copied().collect();
    (spans, px_per_byte(&shown, view.width, view.zoom))
}

/// Spaces whose small span widens some chosen card to more than three panel widths: D5 grows the
/// whole factor until the narrowest lane is 72 px, so a 1 KiB Bias lane makes a 512 KiB Mat lane
/// 36 864 px wide. Naming them tells a user what to hide for a picture that fits a review.
pub fn widening_spaces<'a>(map: &'a MemoryMap, view: &ViewOptions) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for f in map.functions.iter().filter(|f| view.functions.is_empty() || view.functions.contains(&f.name)) {
        let (spans, _) = scale(f, view);
        let total: f64 = spans.iter().flatten().map(|&sp| sp as f64).sum();
        for (s, sp) in f.spaces.iter().zip(&spans) {
            // Alone, this lane's 72 px minimum would make the lanes `min * total / span` px wide.
            let wide = sp.is_some_and(|sp| RULES.min_lane_px * total / sp as f64 > 3.0 * view.width);
            if wide && spans.iter().flatten().count() > 1 && !out.contains(&s.space.as_str()) {
                out.push(&s.space);
            }
        }
    }
    out
}

/// Spaces drawn for `f`: all but the hidden ones, and never none (the last one stays, as in H3).
fn visible_spaces<'a>(f: &'a FunctionMap, view: &ViewOptions) -> Vec<&'a str> {
    let shown: Vec<&str> =
        f.spaces.iter().map(|s| s.space.as_str()).filter(|s| !view.hidden.iter().any(|h| h == s)).collect();
    if shown.is_empty() { f.spaces.iter().take(1).map(|s| s.space.as_str()).collect() } else { shown }
}

fn gutter_width(last_line: u32) -> f64 {
    let digits = last_line.max(1).ilog10() as f64 + 1.0;
    (digits.max(4.0) * text::advance_em() * SMALL + 20.0).ceil()
}

fn lane(
    f: &FunctionMap,
    plan: &CardPlan,
    li: usize,
    s: &SpaceUsage,
    span: i64,
    g: LaneGeometry,
    pal: &Palette,
) -> Lane {
    let LaneGeometry { x, y, width, height, body_top, factor } = g;
    let color = space_color(&s.space, pal.theme);
    let mut decorations = vec![
        Shape::Rect(Rect { x, y, w: width, h: height, radius: 0.0, fill: Some(pal.wash(color)), stroke: None }),
        Shape::Rect(Rect { x, y, w: width, h: 3.0, radius: 0.0, fill: Some(color), stroke: None }),
        Shape::Line(Line {
            x1: x + 0.5,
            y1: y,
            x2: x + 0.5,
            y2: y + height,
            stroke: Stroke { color: pal.border, width: 1.0, dash: None },
        }),
    ];
    let name_room = width - 22.0;
    decorations.push(Shape::Rect(Rect {
        x: x + 8.0,
        y: y + 11.0,
        w: 8.0,
        h: 8.0,
        radius: 1.5,
        fill: Some(color),
        stroke: None,
    }));
    if let Some(name) = text::fit(&s.space, 12.0, name_room) {
        decorations.push(text_at(x + 20.0, y + 19.0, 12.0, pal.text, &name));
    }
    decorations.push(text_at(x + 6.0, y + 34.0, SMALL, pal.muted, "0"));
    let end_label = fmt_bytes(span);
    if text::width(&end_label, SMALL) + text::width("0", SMALL) + 18.0 <= width {
        decorations.push(Shape::Text(Text {
            x: x + width - 6.0,
            y: y + 34.0,
            size: SMALL,
            color: pal.muted,
            anchor: Anchor::End,
            content: end_label,
        }));
    }
    for line in f.src_start..=f.src_end {
        if line % 5 == 0 {
            let gy = body_top + (line - f.src_start) as f64 * RULES.line_px + 0.5;
            decorations.push(Shape::Line(Line {
                x1: x + 1.0,
                y1: gy,
                x2: x + width,
                y2: gy,
                stroke: Stroke { color: pal.grid, width: 1.0, dash: None },
            }));
        }
    }
    let host = |block| insight::Host {
        lane: (x, width),
        block,
        factor,
        body_top,
        first_line: f.src_start,
        last_line: f.src_end,
    };
    let mut mine: Vec<&BoxPlan> = plan.boxes.iter().filter(|b| b.lane == li).collect();
    // Views are drawn over the blocks they look into.
    mine.sort_by_key(|b| b.view);
    let blocks = mine.into_iter().map(|bp| block(f, bp, &f.blocks[bp.index], &host(None), color, pal)).collect();
    let mut fits = Vec::new();
    let mut hwm = None;
    let mut overflow = Vec::new();
    for m in &plan.lanes[li].marks {
        let shapes = insight::mark_shapes(m, &host(None), color, pal);
        match (m.style.kind, shapes.first()) {
            _ if m.style == plan::CAPACITY || m.style == plan::OVERFLOW => overflow.extend(shapes),
            (plan::MarkKind::Rule, Some(Shape::Line(l))) => hwm = Some(l.clone()),
            _ => fits.extend(shapes),
        }
    }
    let capacity = (!overflow.is_empty()).then_some(s.limit);
    Lane { space: s.space.clone(), span, x, y, width, height, decorations, blocks, fits, hwm, overflow, capacity }
}

fn block(f: &FunctionMap, bp: &BoxPlan, b: &Block, host: &insight::Host, color: Color, pal: &Palette) -> BlockShape {
    let t = &b.tile;
    let px = plan::px_rules();
    let (lane_x, lane_w) = host.lane;
    let (x, w) = plan::place(t.offset, t.size, host.factor, lane_w, px.min_box);
    let x = lane_x + x;
    let y = host.body_top + (t.start - f.src_start) as f64 * RULES.line_px;
    let h = (t.end - t.start + 1) as f64 * RULES.line_px;
    let rect = Rect { x, y, w, h, radius: 0.0, fill: Some(pal.fill(color)), stroke: None };
    let stroke = if b.conflict {
        Stroke { color: CRITICAL, width: 2.0, dash: None }
    } else {
        Stroke { color, width: 1.0, dash: b.view.then_some((3.0, 2.0)) }
    };
    let half = stroke.width / 2.0;
    let outline = Rect {
        x: x - half,
        y: y - half,
        w: w + stroke.width,
        h: h + stroke.width,
        radius: 0.0,
        fill: None,
        stroke: Some(stroke),
    };
    let in_box = insight::Host { block: Some((x, w)), ..*host };
    BlockShape {
        index: bp.index,
        name: t.name.clone(),
        space: t.space.clone(),
        base: t.base.clone(),
        offset: t.offset,
        size: t.size,
        start: t.start,
        end: t.end,
        aliases: b.aliases.clone(),
        view: b.view,
        conflict: b.conflict,
        marks: bp.marks.iter().flat_map(|m| insight::mark_shapes(m, &in_box, color, pal)).collect(),
        label: label(&bp.label, (x, y, w, h), &px, pal),
        tooltip: std::iter::once(t.name.clone()).chain(bp.tip.iter().cloned()).collect(),
        rect,
        outline,
    }
}

/// The label the rule picks for a box this size: the name and its `+N` badge on the first row,
/// the detail on the second.
fn label(label: &LabelPlan, (x, y, w, h): (f64, f64, f64, f64), px: &plan::PxRules, pal: &Palette) -> Vec<Text> {
    let fitted = plan::fit_label(label, w, h, px);
    let tx = x + px.inset;
    let mut out = Vec::new();
    let mut name_w = 0.0;
    if let Some(name) = &fitted.name {
        name_w = text::width(name, px.label) + 4.0;
        out.push(run(tx, y + 12.0, px.label, pal.text, name));
    }
    if let Some(badge) = &fitted.badge {
        out.push(run(tx + name_w, y + 12.0, px.label, pal.muted, badge));
    }
    if let Some(detail) = &fitted.detail {
        out.push(run(tx, y + 12.0 + px.line, px.small, pal.muted, detail));
    }
    out
}

fn title_row(f: &FunctionMap, pal: &Palette, x: f64, y: f64, w: f64) -> Vec<Shape> {
    let name_x = x + 16.0;
    let badge_x = name_x + text::width(&f.name, 15.0) + 10.0;
    let badge_w = text::width(&f.ftype, SMALL) + 10.0;
    vec![
        text_at(name_x, y + 27.0, 15.0, pal.text, &f.name),
        Shape::Rect(Rect {
            x: badge_x,
            y: y + 13.0,
            w: badge_w,
            h: 18.0,
            radius: 3.0,
            fill: None,
            stroke: Some(Stroke { color: pal.border, width: 1.0, dash: None }),
        }),
        text_at(badge_x + 5.0, y + 26.0, SMALL, pal.muted, &f.ftype),
        Shape::Line(Line {
            x1: x,
            y1: y + TITLE_ROW + 0.5,
            x2: x + w,
            y2: y + TITLE_ROW + 0.5,
            stroke: Stroke { color: pal.border, width: 1.0, dash: None },
        }),
    ]
}

fn pill_width(p: &plan::Pill) -> f64 {
    8.0 + 8.0
        + 6.0
        + text::width(&p.text, LABEL)
        + 6.0
        + text::width(&p.pct, LABEL)
        + 6.0
        + text::width(&p.peak, LABEL)
        + 8.0
}

fn pills_width(pills: &[plan::Pill]) -> f64 {
    pills.iter().map(|p| pill_width(p) + 6.0).sum()
}

/// Pills sit right-aligned in the title row, so they are placed once the card's width is known.
fn place_pills(card: &mut Card, pills: &[plan::Pill], pal: &Palette) {
    let mut right = card.frame.x + card.frame.w - 12.0;
    let y = card.frame.y + 10.0;
    for p in pills.iter().rev() {
        let w = pill_width(p);
        let px = right - w;
        let level = match p.level {
            "crit" => CRITICAL,
            "warn" => WARNING,
            _ => GOOD,
        };
        let border = if level == CRITICAL { CRITICAL } else { pal.border };
        card.decorations.push(Shape::Rect(Rect {
            x: px,
            y,
            w,
            h: 24.0,
            radius: 4.0,
            fill: Some(pal.card),
            stroke: Some(Stroke { color: border, width: 1.0, dash: None }),
        }));
        let color = space_color(&p.space, pal.theme);
        card.decorations.push(Shape::Rect(Rect {
            x: px + 8.0,
            y: y + 8.0,
            w: 8.0,
            h: 8.0,
            radius: 1.5,
            fill: Some(color),
            stroke: None,
        }));
        card.decorations.push(text_at(px + 22.0, y + 16.0, LABEL, pal.text, &p.text));
        let pct_x = px + 22.0 + text::width(&p.text, LABEL) + 6.0;
        card.decorations.push(text_at(pct_x, y + 16.0, LABEL, level, &p.pct));
        let peak_x = pct_x + text::width(&p.pct, LABEL) + 6.0;
        card.decorations.push(text_at(peak_x, y + 16.0, LABEL, pal.muted, &p.peak));
        right = px - 6.0;
    }
}

fn gutter_shapes(f: &FunctionMap, pal: &Palette, x: f64, width: f64, plot_top: f64, body_top: f64) -> Vec<Shape> {
    let mut out = vec![text_at(x + 6.0, plot_top + 19.0, SMALL, pal.muted, "LINE")];
    let row = |line: u32| body_top + (line - f.src_start) as f64 * RULES.line_px;
    // Numbers first, then gridlines: alike shapes in a row let the SVG writer share their style.
    out.extend((f.src_start..=f.src_end).map(|line| {
        Shape::Text(Text {
            x: x + width - 10.0,
            y: row(line) + 12.0,
            size: SMALL,
            color: pal.muted,
            anchor: Anchor::End,
            content: line.to_string(),
        })
    }));
    out.extend((f.src_start..=f.src_end).filter(|line| line % 5 == 0).map(|line| {
        Shape::Line(Line {
            x1: x,
            y1: row(line) + 0.5,
            x2: x + width,
            y2: row(line) + 0.5,
            stroke: Stroke { color: pal.grid, width: 1.0, dash: None },
        })
    }));
    out
}

fn header(map: &MemoryMap, pal: &Palette) -> Vec<Shape> {
    let x = PAGE_PAD;
    let mut out = vec![
        text_at(x, PAGE_PAD + 10.0, SMALL, pal.muted, "PTO · MEMORY MAP"),
        text_at(x, PAGE_PAD + 36.0, 22.0, pal.text, &format!("Memory map — {}", map.pass_name)),
    ];
    let b = &map.backend;
    let capacities = format!("{} ({}){}", b.name, b.arch, if b.detected { "" } else { " assumed" });
    let chips = [
        ("dump", map.dump.clone()),
        ("compute functions", map.functions.len().to_string()),
        ("tiles", map.block_count().to_string()),
        ("capacities", capacities),
    ];
    let mut cx = x;
    let cy = PAGE_PAD + 48.0;
    for (label, value) in chips {
        let w = text::width(label, LABEL) + 6.0 + text::width(&value, LABEL) + 16.0;
        out.push(Shape::Rect(Rect {
            x: cx,
            y: cy,
            w,
            h: 22.0,
            radius: 3.0,
            fill: Some(pal.card),
            stroke: Some(Stroke { color: pal.border, width: 1.0, dash: None }),
        }));
        out.push(text_at(cx + 8.0, cy + 15.0, LABEL, pal.muted, label));
        let warn = label == "capacities" && !b.detected;
        let vx = cx + 8.0 + text::width(label, LABEL) + 6.0;
        out.push(text_at(vx, cy + 15.0, LABEL, if warn { WARNING } else { pal.text }, &value));
        cx += w + 6.0;
    }
    if !map.has_layouts() {
        // The guide's edge case: a CONCISE dump leaves tile layouts unresolved.
        let note = "layouts not in this dump: re-dump with PassDumpLevel.EXPLICIT";
        out.push(text_at(cx + 8.0, cy + 15.0, LABEL, pal.muted, note));
    }
    out.extend(legend(pal, x, PAGE_PAD + 82.0));
    out.extend(findings_rows(map, pal, x, HEADER_HEIGHT + 4.0));
    out
}

/// Errors the header names one by one before `+N more errors`.
const HEADER_ERRORS: usize = 3;
/// Height of one findings row in the header.
const FINDINGS_ROW: f64 = 17.0;
/// Widest an error row of the header is drawn, in px.
const HEADER_ROW_MAX: f64 = 900.0;

/// The header's findings: their count by severity, then the first errors, each with its code,
/// function, space, line and message (the first screen says what is wrong before any card does).
fn findings_rows(map: &MemoryMap, pal: &Palette, x: f64, y: f64) -> Vec<Shape> {
    let (errors, warnings, _) = crate::findings::counts(&map.findings);
    let color = if errors > 0 {
        CRITICAL
    } else if warnings > 0 {
        WARNING
    } else {
        pal.muted
    };
    let counts = format!("findings: {}", crate::findings::counts_text(&map.findings));
    let mut out = vec![text_at(x, y, LABEL, color, &counts)];
    if map.findings.iter().any(|f| f.code == "overflow") {
        // What the overflow marks are, beside the count that says there is one.
        let lx = x + text::width(&counts, LABEL) + 24.0;
        let red = Stroke { color: CRITICAL, width: 2.0, dash: None };
        out.push(Shape::Line(Line { x1: lx, y1: y - 10.0, x2: lx, y2: y + 2.0, stroke: red }));
        out.push(text_at(lx + 8.0, y, LABEL, pal.muted, "capacity"));
        let hx = lx + 8.0 + text::width("capacity", LABEL) + 18.0;
        let frame = Rect { x: hx, y: y - 9.0, w: 16.0, h: 10.0, radius: 0.0, fill: None, stroke: None };
        out.extend(insight::hatch_swatch(frame, CRITICAL));
        out.push(text_at(hx + 22.0, y, LABEL, pal.muted, "bytes past the capacity"));
    }
    let listed = map.findings.iter().filter(|f| f.severity == crate::model::Severity::Error);
    for (i, f) in listed.clone().take(HEADER_ERRORS).enumerate() {
        let at = f.line.map(|l| format!(" L{l}")).unwrap_or_default();
        let place = [f.function.as_deref(), f.space.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
        let row = format!("error {} · {place}{at} · {}", f.code, f.message);
        // Cut to a width no card is narrower than, so a long message never widens the page.
        let row = text::fit(&row, LABEL, HEADER_ROW_MAX).unwrap_or_default();
        out.push(text_at(x + 12.0, y + (i + 1) as f64 * FINDINGS_ROW, LABEL, pal.text, &row));
    }
    if errors > HEADER_ERRORS {
        let more = format!("+{} more errors (the JSON's findings, or -f txt)", errors - HEADER_ERRORS);
        out.push(text_at(x + 12.0, y + (HEADER_ERRORS + 1) as f64 * FINDINGS_ROW, LABEL, pal.muted, &more));
    }
    out
}

/// The height the header's findings rows add below the legend.
fn findings_height(map: &MemoryMap) -> f64 {
    let (errors, _, _) = crate::findings::counts(&map.findings);
    let rows = 1 + errors.min(HEADER_ERRORS) + usize::from(errors > HEADER_ERRORS);
    rows as f64 * FINDINGS_ROW + 10.0
}

/// The marks and what they mean (D8).
fn legend(pal: &Palette, x: f64, y: f64) -> Vec<Shape> {
    let neutral = space_color("", pal.theme);
    let fill = Some(pal.fill(neutral));
    let items: [(Option<Stroke>, &str); 3] = [
        (Some(Stroke { color: neutral, width: 1.0, dash: None }), "tile live range"),
        (Some(Stroke { color: neutral, width: 1.0, dash: Some((3.0, 2.0)) }), "view into the same base"),
        (Some(Stroke { color: CRITICAL, width: 2.0, dash: None }), "cross-base address + lifetime overlap"),
    ];
    let mut out = Vec::new();
    let mut lx = x;
    for (stroke, label) in items {
        out.push(Shape::Rect(Rect { x: lx + 0.5, y: y + 0.5, w: 16.0, h: 10.0, radius: 2.0, fill, stroke }));
        out.push(text_at(lx + 22.0, y + 9.5, LABEL, pal.muted, label));
        lx += 22.0 + text::width(label, LABEL) + 18.0;
    }
    out.push(Shape::Line(Line {
        x1: lx + 4.5,
        y1: y - 1.0,
        x2: lx + 4.5,
        y2: y + 12.0,
        stroke: Stroke { color: neutral, width: 1.0, dash: Some((4.0, 3.0)) },
    }));
    out.push(text_at(lx + 12.0, y + 9.5, LABEL, pal.muted, "high-water mark"));
    lx += 12.0 + text::width("high-water mark", LABEL) + 18.0;
    out.push(text_at(lx, y + 9.5, LABEL, pal.muted, "+N: aliases merged into one box"));
    lx += text::width("+N: aliases merged into one box", LABEL) + 18.0;
    out.push(Shape::Line(Line {
        x1: lx,
        y1: y + 5.0,
        x2: lx + 6.0,
        y2: y + 5.0,
        stroke: Stroke { color: neutral, width: 2.0, dash: None },
    }));
    out.push(text_at(lx + 10.0, y + 9.5, LABEL, pal.muted, "use"));
    lx += 10.0 + text::width("use", LABEL) + 18.0;
    out.push(Shape::Rect(Rect {
        x: lx + 0.5,
        y: y + 0.5,
        w: 16.0,
        h: 10.0,
        radius: 2.0,
        fill: Some(pal.wash(neutral)),
        stroke: Some(Stroke { color: neutral, width: 1.0, dash: None }),
    }));
    out.push(text_at(lx + 22.0, y + 9.5, LABEL, pal.muted, "idle: no mention for 8+ lines, half the range"));
    out
}

fn text_at(x: f64, y: f64, size: f64, color: Color, content: &str) -> Shape {
    Shape::Text(run(x, y, size, color, content))
}

fn run(x: f64, y: f64, size: f64, color: Color, content: &str) -> Text {
    Text { x, y, size, color, anchor: Anchor::Start, content: content.to_string() }
}

fn right_edge(shape: &Shape) -> f64 {
    match shape {
        Shape::Rect(r) => r.x + r.w,
        Shape::Line(l) => l.x1.max(l.x2),
        Shape::Text(t) if t.anchor == Anchor::Start => t.x + text::width(&t.content, t.size),
        Shape::Text(t) => t.x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_fills_the_panel_then_grows_for_the_narrowest_lane() {
        let f = px_per_byte(&[524_288, 65_536], 1180.0, 1.0);
        assert!((f * (524_288.0 + 65_536.0) - 1180.0).abs() < 1e-6);
        let f = px_per_byte(&[524_288, 1_024], 1180.0, 1.0);
        assert!((f * 1024.0 - 72.0).abs() < 1e-9, "the Bias lane is held at 72 px");
        assert!((px_per_byte(&[1000], 1000.0, 2.0) - 2.0).abs() < 1e-12);
    }
}
