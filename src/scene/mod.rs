//! The one place that knows geometry: from the plan (a [`plan::Picture`] and its card plans) to a
//! [`Scene`] in pixels. It reads nothing of the model, so a picture shows only what the plan
//! decided, as the page (drawn from the same plan) does.
//!
//! Every number about where things go lives here; back ends only draw the scene. The byte scale is
//! shared by all lanes of a card: a lane is its span times one px/byte factor wide, in absolute
//! pixels, so a 512 KiB Mat lane is exactly eight times a 64 KiB Left lane and box widths compare
//! across spaces.

mod diff;
pub mod digest;
mod folds;
mod header;
mod insight;
mod keys;
mod placed;
mod shapes;

pub use diff::{FITTED as DIFF_FITTED, VIEWPORT as DIFF_VIEWPORT, diff_scene};
pub(crate) use shapes::ShiftDown;
pub use shapes::{
    Anchor, BlockShape, Card, Inset, Lane, Line, LineCut, Placed, Profile, Rect, Scene, Shape, Stroke, Text,
};

use crate::plan::style::{CRITICAL, Color, GOOD, Palette, WARNING, palette, space_color};
use crate::plan::width::{
    CARD_PAD, LABEL, LaneSpan, SMALL, gutter_width, lane_scales, pct_room, pill_width, title_width,
};
use crate::plan::{self, BoxPlan, CardPlan, LabelPlan, Picture, RULES, ViewOptions, labels, text};
use crate::units::{fmt_bytes, fmt_num};

/// Margin around the page and between cards.
const PAGE_PAD: f64 = 24.0;
const CARD_GAP: f64 = 16.0;
const TITLE_ROW: f64 = 44.0;
/// Gap between the title row and the column headers.
const PLOT_GAP: f64 = 12.0;
const COLUMN_HEADER: f64 = 40.0;
const FOOTER: f64 = 36.0;

/// The least size in px, width and height, of a scene of cards each `(rows, spaces)`: the rows its
/// dump lines are drawn in (folds folded) and the spaces it draws, at `zoom`. A card is at least its
/// title row, column header, rows and footer tall, and at least its padding, line-number column, and a lane (at least
/// `RULES.min_lane_px`, times the zoom under 1) and a live-bytes column per space wide; the page
/// pads the cards. The PNG asks it to find a whole dump past its pixel limit without laying every
/// card out.
pub fn least_size(cards: impl IntoIterator<Item = (u32, usize)>, zoom: f64) -> (f64, f64) {
    // A lane's width is its factor times its bytes, which rounding may leave a hair under the least.
    let lane = (RULES.min_lane_px - 1.0) * zoom.min(1.0);
    let (mut inner, mut height, mut count) = (RULES.width_min, 0.0, 0.0);
    for (rows, spaces) in cards {
        let columns = spaces as f64 * (lane + RULES.profile_px + 4.0);
        inner = f64::max(inner, 2.0 * CARD_PAD + gutter_width(0) + RULES.profile_gap + columns);
        height += TITLE_ROW + PLOT_GAP + COLUMN_HEADER + rows as f64 * RULES.line_px + FOOTER;
        count += 1.0;
    }
    let gaps = f64::max(count - 1.0, 0.0) * CARD_GAP;
    (inner + 2.0 * PAGE_PAD, height + gaps + PAGE_PAD)
}

/// Lays out the picture `picture` frames, from its card plans `plans` (one per card, in order, made
/// for the same map and view).
pub fn layout(picture: &Picture, plans: &[CardPlan]) -> Scene {
    let flow = Flow::new(picture);
    let cards = flow.cards(0..flow.len(), plans);
    let height = (flow.next_y() - CARD_GAP + PAGE_PAD).ceil();
    Scene {
        title: picture.header.title.clone(),
        width: (flow.inner + 2.0 * PAGE_PAD).ceil(),
        height,
        background: flow.pal.page,
        font_family: text::FONT_FAMILY,
        ink: flow.pal.text,
        header: flow.header,
        cards,
    }
}

/// A scene's cards, laid out a few at a time in page order: the page of a whole model's dump is
/// written as its cards are laid out, never holding them all. [`layout`] takes them all at once.
pub struct Flow {
    view: ViewOptions,
    pal: Palette,
    /// The cards' shared width.
    inner: f64,
    /// The page's header (over the cards).
    header: Vec<Shape>,
    /// For each card: its function's index in the map.
    jobs: Vec<usize>,
    /// Where the next card starts.
    y: std::sync::Mutex<f64>,
}

impl Flow {
    /// Decides what every card shares (the width, the header above them) for the picture `picture`
    /// frames.
    pub fn new(picture: &Picture) -> Flow {
        let view = &picture.view;
        let pal = palette(view.theme);
        // Cards share one width so the page reads as a column; lanes keep their own widths. The
        // header wraps to that width, so the picture is as wide as its cards (it follows `--width`).
        let inner = picture.width;
        let (header, header_h) = header::header(picture, &pal, inner);
        let header_width = header.iter().map(right_edge).fold(0.0, f64::max) - PAGE_PAD;
        let inner = inner.max(header_width).ceil();
        let inner = inner.max(picture.panel_width).ceil();
        Flow { view: view.clone(), pal, inner, header, jobs: picture.cards.clone(), y: std::sync::Mutex::new(header_h) }
    }

    /// How many cards there are.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// The cards `range` holds, from their `plans`, which must follow those taken before: each is
    /// laid out at the top of the page on its own core, then moved down under the one above.
    pub fn cards(&self, range: std::ops::Range<usize>, plans: &[CardPlan]) -> Vec<Card> {
        let jobs: Vec<_> = range.zip(plans).collect();
        let mut cards: Vec<Card> = crate::par::map_ref_heavy_first(
            &jobs,
            |(_, plan)| plan.boxes.len(),
            |&(at, plan)| self.card_apart(at, plan),
        )
        .into_iter()
        .flatten()
        .collect();
        let mut y = self.y.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for card in &mut cards {
            card.shift_down(*y);
            *y = card.frame.y + card.frame.h + CARD_GAP;
        }
        cards
    }

    /// The card `at` (in page order) from its `plan`, at the top of the page: the HTML page shows
    /// each card's picture apart, and small coordinates are fewer bytes (a card 600 cards down a
    /// page would have every `y` in seven digits). `None` past the last card.
    pub fn card_apart(&self, at: usize, plan: &CardPlan) -> Option<Card> {
        let &index = self.jobs.get(at)?;
        let view = &ViewOptions { width: plan.panel, ..self.view.clone() };
        Some(card(plan, index, view, &self.pal, Placement { x: PAGE_PAD, y: 0.0, w: self.inner, factor: None }))
    }

    /// Where the next card would start.
    fn next_y(&self) -> f64 {
        *self.y.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Height of each row of pills past the title row.
const PILL_ROW: f64 = 30.0;

/// The row of each pill on a card `w` px wide: in order, the title row right of the name while they
/// fit, then rows of their own under it. Every row is right-aligned.
fn pill_rows(pills: &[plan::Pill], w: f64, title_w: f64) -> Vec<usize> {
    let (mut row, mut used) = (0usize, 0.0);
    let room = |row: usize| if row == 0 { w - title_w - 12.0 } else { w - 2.0 * CARD_PAD };
    pills
        .iter()
        .map(|p| {
            let need = pill_width(p) + 6.0;
            if used + need > room(row) + 6.0 && (used > 0.0 || row == 0) {
                row += 1;
                used = 0.0;
            }
            used += need;
            row
        })
        .collect()
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

fn card(plan: &CardPlan, index: usize, view: &ViewOptions, pal: &Palette, at: Placement) -> Card {
    let (spans, own) = (plan.drawn.clone(), plan.factor);
    let spans: Vec<Option<LaneSpan>> =
        if at.factor.is_some() { spans.into_iter().map(|s| s.map(LaneSpan::whole)).collect() } else { spans };
    let factor = at.factor.unwrap_or(own);
    let Placement { x, y, w, .. } = at;
    let lines = plan.last - plan.first + 1;
    let line_rows = &plan.rows;
    let gutter = gutter_width(plan.last);
    let rows = pill_rows(&plan.pills, w, title_width(&plan.function, &plan.ftype));
    let extra = rows.last().map_or(0.0, |&r| r as f64 * PILL_ROW);
    let plot_top = y + TITLE_ROW + extra + PLOT_GAP;
    let body_top = plot_top + COLUMN_HEADER;
    let body_h = line_rows.rows() as f64 * RULES.line_px;

    let mut lanes = Vec::new();
    let mut lx = x + CARD_PAD + gutter;
    let scales = lane_scales(&spans, factor, view, plan.last);
    for (li, (sp, scale)) in spans.into_iter().zip(scales).enumerate() {
        let (Some(sp), Some((width, axis, inset))) = (sp, scale) else { continue };
        let k = axis.k;
        let geometry = LaneGeometry { x: lx, y: plot_top, width, height: COLUMN_HEADER + body_h, body_top, axis };
        let mut drawn = lane(plan, li, sp.span, geometry, pal);
        if inset {
            mark_inset(&mut drawn, [plan::inset_badge(k, factor), plan::inset_ratio(k, factor)], pal);
        }
        lanes.push(drawn);
        lx += width;
    }
    let keyed = keys::apply_keys(plan, &mut lanes, body_top, pal);
    let (key_shapes, keys_h) = keys::key_list(&keyed, x + CARD_PAD, body_top + body_h, w - 2.0 * CARD_PAD, pal);
    let mut px = lx + insight::PROFILE_GAP;
    let mut profiles = Vec::new();
    for l in &lanes {
        if let Some(lp) = plan.lanes.iter().find(|p| p.space == l.space) {
            profiles.push(insight::profile(line_rows, &lp.space, &lp.profile, px, (plot_top, body_top), pal));
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
    decorations.extend(title_row(plan, pal, x, y, w).into_iter().map(|shape| match shape {
        // The rule under the title goes under the pills' last row.
        Shape::Line(l) => Shape::Line(Line { y1: l.y1 + extra, y2: l.y2 + extra, ..l }),
        other => other,
    }));
    decorations.extend(gutter_shapes(plan, pal, x + CARD_PAD, gutter, plot_top, body_top));
    let plot = (x + CARD_PAD, px - 4.0 - (x + CARD_PAD));
    let cuts = line_rows.folds().iter().map(|f| folds::line_cut(f, plot, body_top, pal)).collect();
    let footer_y = body_top + body_h + keys_h;
    decorations.push(Shape::Text(Text {
        x: x + CARD_PAD,
        y: footer_y + 22.0,
        size: LABEL,
        color: pal.muted,
        anchor: Anchor::Start,
        content: format!(
            "{lines} lines{} · dump L{}–L{} · {} B per px · held as the compiler holds it (first mention to a loop's end)",
            folds::folded_words(line_rows),
            plan.first,
            plan.last,
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
        function: plan.function.clone(),
        index,
        px_per_byte: factor,
        frame,
        ink: pal.text,
        body_top,
        first_line: plan.first,
        decorations,
        keys: key_shapes,
        lanes,
        profiles,
        rows: line_rows.clone(),
        cuts,
    };
    place_pills(&mut card, &plan.pills, &rows, pal);
    card
}

/// Where a lane goes, and the card's factor.
struct LaneGeometry {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    body_top: f64,
    axis: plan::Axis,
}

/// A lane's cut band: its free stretch, drawn a fixed width whatever its bytes, in the page's
/// colour between two thin edges, with its size and `free` in its first two rows (the label rule
/// keeps every box's label off them). `(x, top, h)`: the lane's left edge, and the body's top and
/// height.
fn cut_band(cut: &plan::Cut, axis: &plan::Axis, (x, top, h): (f64, f64, f64), pal: &Palette) -> Vec<Shape> {
    let px = plan::px_rules();
    let (bx, bw) = (x + axis.x(cut.from), px.cut);
    let edge = |ex: f64| {
        Shape::Line(Line {
            x1: ex,
            y1: top,
            x2: ex,
            y2: top + h,
            stroke: Stroke { color: pal.muted, width: 1.0, dash: None },
        })
    };
    let mut out = vec![
        Shape::Rect(Rect { x: bx, y: top, w: bw, h, radius: 0.0, fill: Some(pal.page), stroke: None }),
        edge(bx + 0.5),
        edge(bx + bw - 0.5),
    ];
    for (i, word) in cut.words.iter().enumerate() {
        out.push(text_at(bx + 3.0, top + 12.0 + i as f64 * px.line, px.small, pal.muted, word));
    }
    out
}

/// The notes on a lane's byte axis under its stretches drawn wider than their bytes ([`plan::Axis`]):
/// a small bracket across each, at the foot of the lane's head, in the muted colour (a note on the
/// drawing, not a finding), with its bytes in a tooltip. `(x, body_top)`: the lane's left edge and
/// the top of its body. None where the scale already draws a stretch wide enough.
fn widened_marks(space: &str, axis: &plan::Axis, (x, body_top): (f64, f64), pal: &Palette) -> Vec<Placed> {
    let stroke = Stroke { color: pal.muted, width: 1.0, dash: None };
    let line = |x1: f64, y1: f64, x2: f64, y2: f64| Shape::Line(Line { x1, y1, x2, y2, stroke });
    axis.distorted()
        .map(|(stretch, sx, sw)| {
            let (from, to, _) = stretch;
            let (a, z) = (x + sx + 0.5, x + sx + sw - 0.5);
            let (top, foot) = (body_top - 5.0, body_top - 1.5);
            Placed {
                class: "widened",
                name: space.to_string(),
                tooltip: plan::wide_title(&stretch),
                from,
                to,
                shapes: vec![line(a, top, a, foot), line(a, foot, z, foot), line(z, foot, z, top)],
            }
        })
        .collect()
}

/// Sets an inset lane apart: a dashed frame in its space's colour, and its scale in words in place
/// of the axis row (its end is written after its name).
fn mark_inset(lane: &mut Lane, badges: [String; 2], pal: &Palette) {
    let color = space_color(&lane.space, pal.theme);
    let (x, y, w, h) = (lane.x, lane.y, lane.width, lane.height);
    // The axis row ("0" and the end) gives way to the badge; the end moves up beside the name.
    lane.decorations.retain(|d| !matches!(d, Shape::Text(t) if (t.y - (y + 34.0)).abs() < 0.01));
    let frame = Rect {
        x: x + 1.0,
        y: y + 1.0,
        w: (w - 2.0).max(1.0),
        h: (h - 2.0).max(1.0),
        radius: 0.0,
        fill: None,
        stroke: Some(Stroke { color, width: 1.5, dash: Some((5.0, 3.0)) }),
    };
    let end = fmt_bytes(lane.span);
    let name_w = 20.0 + text::width(&lane.space, 12.0) + 6.0;
    if name_w + text::width(&end, SMALL) + 6.0 <= w {
        lane.decorations.push(Shape::Text(Text {
            x: x + w - 6.0,
            y: y + 19.0,
            size: SMALL,
            color: pal.muted,
            anchor: Anchor::End,
            content: end,
        }));
    }
    // Whole where it fits, else its ratio alone: never a cut badge, which would say another scale.
    if let Some(b) = badges.iter().find(|b| text::width(b, SMALL) <= w - 10.0) {
        lane.decorations.push(text_at(x + 5.0, y + 34.0, SMALL, WARNING, b));
    }
    let [badge, _] = badges;
    lane.inset = Some(Inset { badge, frame });
}

fn lane(plan: &CardPlan, li: usize, span: i64, g: LaneGeometry, pal: &Palette) -> Lane {
    let LaneGeometry { x, y, width, height, body_top, axis } = g;
    let s = &plan.lanes[li];
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
    if let Some(name) = text::fit(&s.space, 12.0, name_room.min(width - 22.0)) {
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
    for line in plan.first..=plan.last {
        if line % plan::GRID_LINES == 0 && !plan.rows.folded(line) {
            let gy = body_top + plan.rows.row(line) * RULES.line_px + 0.5;
            decorations.push(Shape::Line(Line {
                x1: x + 1.0,
                y1: gy,
                x2: x + width,
                y2: gy,
                stroke: Stroke { color: pal.grid, width: 1.0, dash: None },
            }));
        }
    }
    // The plan's cut on this axis: the one whose bytes the lane's axis cuts.
    let cut = plan.lanes[li].cuts.iter().flatten().find(|c| axis.cut == Some((c.from, c.to)));
    if let Some(cut) = cut {
        decorations.extend(cut_band(cut, &axis, (x, body_top, height - (body_top - y)), pal));
    }
    let host = |block| insight::Host {
        lane: (x, width),
        block,
        axis: &axis,
        body_top,
        rows: &plan.rows,
        first_line: plan.first,
        last_line: plan.last,
    };
    let mut mine: Vec<&BoxPlan> = plan.boxes.iter().filter(|b| b.lane == li).collect();
    // Views are drawn over the blocks they look into.
    mine.sort_by_key(|b| b.view);
    let blocks = mine.into_iter().map(|bp| block(plan, bp, &host(None), color, pal)).collect();
    let mut fits = Vec::new();
    let mut hwm = None;
    let mut overflow = Vec::new();
    for m in &plan.lanes[li].marks {
        if placed::is_placed(m) {
            continue;
        }
        let shapes = insight::mark_shapes(m, &host(None), color, pal);
        match (m.style.kind, shapes.first()) {
            _ if m.style == plan::CAPACITY || m.style == plan::OVERFLOW => overflow.extend(shapes),
            (plan::MarkKind::Rule, Some(Shape::Line(l))) => hwm = Some(l.clone()),
            _ => fits.extend(shapes),
        }
    }
    let capacity = (!overflow.is_empty()).then_some(s.limit);
    let mut placed = placed::marks(&plan.lanes[li].marks, &host(None), color, pal);
    placed.extend(widened_marks(&s.space, &axis, (x, body_top), pal));
    Lane {
        space: s.space.clone(),
        span,
        x,
        y,
        width,
        height,
        decorations,
        blocks,
        fits,
        hwm,
        factor: axis.k,
        axis,
        inset: None,
        overflow,
        capacity,
        placed,
    }
}

fn block(plan: &CardPlan, bp: &BoxPlan, host: &insight::Host, color: Color, pal: &Palette) -> BlockShape {
    let px = plan::px_rules();
    let (lane_x, lane_w) = host.lane;
    let ([offset, size], [start, end]) = (bp.bytes, bp.lines);
    let (x, w) = host.axis.place(offset, size, lane_w, px.min_box);
    let x = lane_x + x;
    let y = host.body_top + plan.rows.row(start) * RULES.line_px;
    let h = (plan.rows.row(end.max(start) + 1) - plan.rows.row(start)) * RULES.line_px;
    let rect = Rect { x, y, w, h, radius: 0.0, fill: Some(pal.fill(color)), stroke: None };
    let stroke = if bp.conflict {
        Stroke { color: CRITICAL, width: 2.0, dash: None }
    } else {
        Stroke { color, width: 1.0, dash: bp.view.then_some((3.0, 2.0)) }
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
        name: bp.label.name.clone(),
        space: plan.lanes[bp.lane].space.clone(),
        base: bp.base.clone(),
        offset,
        size,
        start,
        end,
        aliases: bp.aliases.clone(),
        view: bp.view,
        conflict: bp.conflict,
        marks: bp.marks.iter().flat_map(|m| insight::mark_shapes(m, &in_box, color, pal)).collect(),
        label: label(&bp.label, (x, y, w, h), &px, pal),
        tooltip: std::iter::once(bp.label.name.clone()).chain(bp.tip.iter().cloned()).collect(),
        rect,
        outline,
        leader: None,
        key: None,
    }
}

/// The label the rule picks for a box this size: the name and its `+N` badge on the first row,
/// the detail on the second.
fn label(label: &LabelPlan, (x, y, w, h): (f64, f64, f64, f64), px: &plan::PxRules, pal: &Palette) -> Vec<Text> {
    placed_label(&plan::fit_label(label, w, h, px), (x, y), px, pal)
}

/// A fitted label's texts in a box whose top-left corner is `(x, y)`.
fn placed_label(fitted: &plan::FittedLabel, (x, y): (f64, f64), px: &plan::PxRules, pal: &Palette) -> Vec<Text> {
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

fn title_row(plan: &CardPlan, pal: &Palette, x: f64, y: f64, w: f64) -> Vec<Shape> {
    let name_x = x + 16.0;
    let badge_x = name_x + text::width(&plan.function, 15.0) + 10.0;
    let badge_w = text::width(&plan.ftype, SMALL) + 10.0;
    vec![
        text_at(name_x, y + 27.0, 15.0, pal.text, &plan.function),
        Shape::Rect(Rect {
            x: badge_x,
            y: y + 13.0,
            w: badge_w,
            h: 18.0,
            radius: 3.0,
            fill: None,
            stroke: Some(Stroke { color: pal.border, width: 1.0, dash: None }),
        }),
        text_at(badge_x + 5.0, y + 26.0, SMALL, pal.muted, &plan.ftype),
        Shape::Line(Line {
            x1: x,
            y1: y + TITLE_ROW + 0.5,
            x2: x + w,
            y2: y + TITLE_ROW + 0.5,
            stroke: Stroke { color: pal.border, width: 1.0, dash: None },
        }),
    ]
}

/// Pills sit right-aligned in the title row and the rows under it (`rows`, one per pill), so they
/// are placed once the card's width is known.
fn place_pills(card: &mut Card, pills: &[plan::Pill], rows: &[usize], pal: &Palette) {
    let mut right = card.frame.x + card.frame.w - 12.0;
    let mut row = rows.last().copied().unwrap_or(0);
    for (p, &r) in pills.iter().zip(rows).rev() {
        if r != row {
            row = r;
            right = card.frame.x + card.frame.w - 12.0;
        }
        let y = card.frame.y + 10.0 + r as f64 * PILL_ROW;
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
        if !p.pct.is_empty() {
            card.decorations.push(text_at(pct_x, y + 16.0, LABEL, level, &p.pct));
        }
        let peak_x = pct_x - 6.0 + pct_room(p) + 6.0;
        card.decorations.push(text_at(peak_x, y + 16.0, LABEL, pal.muted, &p.peak));
        right = px - 6.0;
    }
}

fn gutter_shapes(plan: &CardPlan, pal: &Palette, x: f64, width: f64, plot_top: f64, body_top: f64) -> Vec<Shape> {
    let mut out = vec![text_at(x + 6.0, plot_top + 19.0, SMALL, pal.muted, "LINE")];
    let row = |line: u32| body_top + plan.rows.row(line) * RULES.line_px;
    // Numbers first, then gridlines: alike shapes in a row let the SVG writer share their style. A
    // folded line has neither: its fold says which lines it skips.
    let drawn = || (plan.first..=plan.last).filter(|&line| !plan.rows.folded(line));
    out.extend(drawn().map(|line| {
        Shape::Text(Text {
            x: x + width - 10.0,
            y: row(line) + 12.0,
            size: SMALL,
            color: pal.muted,
            anchor: Anchor::End,
            content: line.to_string(),
        })
    }));
    out.extend(drawn().filter(|line| line % plan::GRID_LINES == 0).map(|line| {
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
    use crate::plan::px_per_byte;

    #[test]
    fn the_factor_fills_the_panel_then_grows_for_the_narrowest_lane() {
        let f = px_per_byte(&[524_288, 65_536], 1180.0, 1.0);
        assert!((f * (524_288.0 + 65_536.0) - 1180.0).abs() < 1e-6);
        let f = px_per_byte(&[524_288, 1_024], 1180.0, 1.0);
        assert!((f * 1024.0 - 72.0).abs() < 1e-9, "the Bias lane is held at 72 px");
        assert!((px_per_byte(&[1000], 1000.0, 2.0) - 2.0).abs() < 1e-12);
    }
}
