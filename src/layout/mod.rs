//! The one place that knows geometry: from a memory map and view options to a [`Scene`] in pixels.
//!
//! Every number about where things go lives here; back ends only draw the scene. The byte scale is
//! shared by all lanes of a card: a lane is its span times one px/byte factor wide, in absolute
//! pixels, so a 512 KiB Mat lane is exactly eight times a 64 KiB Left lane and box widths compare
//! across spaces.

mod diff;
mod insight;
pub mod labels;
pub mod options;
mod placed;
pub mod plan;
mod scene;
pub mod style;
pub mod text;

pub use diff::{FITTED as DIFF_FITTED, VIEWPORT as DIFF_VIEWPORT, diff_scene};
pub use options::{
    DEFAULT_SCALE, RULES, Range, Rules, SCALE, ScaleMode, Theme, ViewOptions, WIDTH, XAxis, ZOOM, rules_json,
};
pub(crate) use scene::ShiftDown;
pub use scene::{Anchor, BlockShape, Card, Inset, Lane, Line, Placed, Profile, Rect, Scene, Shape, Stroke, Text};

use crate::model::{Block, FunctionMap, MemoryMap, SpaceUsage};
use crate::units::{fmt_bytes, fmt_num};
pub use placed::unassigned_note;
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
/// Text sizes: labels in boxes, small print, titles.
const LABEL: f64 = 11.0;
/// Small print, the size most texts have (the SVG gives it once, for them to inherit).
pub const SMALL: f64 = 10.0;

/// Lays out `map` as `view` asks. `view` should have been validated against `map`.
pub fn layout(map: &MemoryMap, view: &ViewOptions) -> Scene {
    layout_planned(map, view, &plan::card_plans(map, view))
}

/// [`layout`] from the card plans [`plan::card_plans`] made for the same `map` and `view`, so that a
/// back end that needs both (the page) plans each card once.
pub fn layout_planned(map: &MemoryMap, view: &ViewOptions, plans: &[CardPlan]) -> Scene {
    let panels: Vec<f64> = plans.iter().map(|p| p.panel).collect();
    let flow = Flow::new(map, view, &panels);
    let cards = flow.cards(0..flow.len(), plans);
    let height = (flow.next_y() - CARD_GAP + PAGE_PAD).ceil();
    Scene {
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
/// written as its cards are laid out, never holding them all. [`layout_planned`] takes them all at
/// once.
pub struct Flow<'a> {
    view: ViewOptions,
    pal: Palette,
    /// The cards' shared width.
    inner: f64,
    /// The page's header (over the cards).
    header: Vec<Shape>,
    /// For each card: its index in the map, its function and its lanes' width.
    jobs: Vec<(usize, &'a FunctionMap, f64)>,
    /// Where the next card starts.
    y: std::sync::Mutex<f64>,
}

impl<'a> Flow<'a> {
    /// Decides what every card shares (the width, the header above them) for `map` drawn as `view`
    /// asks, each card's lanes filling its `panels` width (see [`plan::Planner::panels`]).
    pub fn new(map: &'a MemoryMap, view: &ViewOptions, panels: &[f64]) -> Flow<'a> {
        let pal = palette(view.theme);
        let chosen: Vec<(usize, &FunctionMap)> =
            map.functions.iter().enumerate().filter(|(_, f)| view.draws(&f.name)).collect();
        // Cards share one width so the page reads as a column; lanes keep their own widths. The
        // header wraps to that width, so the picture is as wide as its cards (it follows `--width`).
        let sized = crate::par::map_ref(&chosen, |(_, f)| {
            let text = text_width(f);
            (text, card_width(f, view, None, text))
        });
        let inner = sized.iter().map(|&(_, w)| w).fold(RULES.width_min, f64::max).ceil();
        let (header, header_h) = header(map, view, &pal, inner);
        let header_width = header.iter().map(right_edge).fold(0.0, f64::max) - PAGE_PAD;
        let inner = inner.max(header_width).ceil();
        let jobs: Vec<_> = chosen.into_iter().zip(panels).map(|((index, f), &panel)| (index, f, panel)).collect();
        let widths =
            crate::par::map_ref(&jobs.iter().zip(&sized).collect::<Vec<_>>(), |&(&(_, f, width), &(text, _))| {
                card_width(f, &ViewOptions { width, ..view.clone() }, None, text)
            });
        let inner = widths.into_iter().fold(inner, f64::max).ceil();
        Flow { view: view.clone(), pal, inner, header, jobs, y: std::sync::Mutex::new(header_h) }
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
        let mut cards: Vec<Card> =
            crate::par::map_ref(&jobs, |&(at, plan)| self.card_apart(at, plan)).into_iter().flatten().collect();
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
        let &(index, f, panel) = self.jobs.get(at)?;
        let view = &ViewOptions { width: panel, ..self.view.clone() };
        Some(card(f, plan, index, view, &self.pal, Placement { x: PAGE_PAD, y: 0.0, w: self.inner, factor: None }))
    }

    /// Where the next card would start.
    fn next_y(&self) -> f64 {
        *self.y.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The width the lanes of each card `view` draws fill at zoom 1: `view.width`, plus what the card
/// would leave blank beside its lanes in the page's shared card width (a card with fewer or no inset
/// lanes, or fewer profile columns, than the widest), so no card has a blank stretch beside a short
/// row of lanes. A card whose wider lanes would then pass the shared width keeps `view.width`.
pub(crate) fn panel_widths(map: &MemoryMap, view: &ViewOptions) -> Vec<f64> {
    let chosen: Vec<&FunctionMap> = map.functions.iter().filter(|f| view.draws(&f.name)).collect();
    if view.scale_mode == ScaleMode::Strict {
        return chosen.iter().map(|_| view.width).collect(); // today's pictures, exactly
    }
    // Decided at zoom 1, on the limit axis, with every space shown: what the page's reader can
    // change (zoom, axis, hidden spaces) then changes the factor as it does in the static picture.
    let base = ViewOptions { zoom: 1.0, x_axis: XAxis::Limit, hidden: Vec::new(), ..view.clone() };
    let own: Vec<(&FunctionMap, f64, f64)> = crate::par::map_ref(&chosen, |f| {
        let text = text_width(f);
        (*f, text, card_width(f, &base, None, text))
    });
    let inner = own.iter().map(|&(_, _, w)| w).fold(RULES.width_min, f64::max).ceil();
    crate::par::map_ref(&own, |&(f, text, own)| {
        let spare = inner - own;
        let wider = ViewOptions { width: view.width + spare, ..base.clone() };
        if spare > 1.0 && card_width(f, &wider, None, text) <= inner { wider.width } else { view.width }
    })
}

/// The width a card needs: its lanes, or its `text` (see [`text_width`]), whichever is wider.
fn card_width(f: &FunctionMap, view: &ViewOptions, factor: Option<f64>, text: f64) -> f64 {
    let (spans, own) = scale(f, view);
    // A scale imposed from outside (a diff's) has no cuts: both sides' bytes line up.
    let spans: Vec<Option<LaneSpan>> =
        if factor.is_some() { spans.into_iter().map(|s| s.map(LaneSpan::whole)).collect() } else { spans };
    let factor = factor.unwrap_or(own);
    let lanes: f64 = spans.iter().flatten().map(|&sp| lane_scale(sp, factor, view).0).sum();
    let profiles = insight::PROFILE_GAP + spans.iter().flatten().count() as f64 * (insight::PROFILE_W + 4.0);
    (2.0 * CARD_PAD + gutter_width(f.src_end) + lanes + profiles).max(text)
}

/// The width a card's text needs, whatever the view: its title row with the widest pill, and its
/// summary lines. It formats every pill and line, so it is found once per card and handed to each
/// [`card_width`] tried (a page tries four per card).
fn text_width(f: &FunctionMap) -> f64 {
    let summary = plan::summary(f).iter().map(|l| text::width(l, insight::SUMMARY_SIZE)).fold(0.0, f64::max);
    // The pills wrap under the title (see `pill_rows`), so only the widest one must fit beside it.
    let widest = f.spaces.iter().map(|s| pill_width(&plan::pill(s))).fold(0.0, f64::max);
    (title_width(f) + widest + 12.0).max(summary + 2.0 * CARD_PAD)
}

/// Width of a card's title (name and type badge), with its margins.
fn title_width(f: &FunctionMap) -> f64 {
    16.0 + text::width(&f.name, 15.0) + 10.0 + text::width(&f.ftype, SMALL) + 10.0 + 24.0
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

fn card(f: &FunctionMap, plan: &CardPlan, index: usize, view: &ViewOptions, pal: &Palette, at: Placement) -> Card {
    let (spans, own) = scale(f, view);
    let spans: Vec<Option<LaneSpan>> =
        if at.factor.is_some() { spans.into_iter().map(|s| s.map(LaneSpan::whole)).collect() } else { spans };
    let factor = at.factor.unwrap_or(own);
    let Placement { x, y, w, .. } = at;
    let lines = f.src_end - f.src_start + 1;
    let gutter = gutter_width(f.src_end);
    let rows = pill_rows(&plan.pills, w, title_width(f));
    let extra = rows.last().map_or(0.0, |&r| r as f64 * PILL_ROW);
    let plot_top = y + TITLE_ROW + extra + PLOT_GAP;
    let body_top = plot_top + COLUMN_HEADER;
    let body_h = lines as f64 * RULES.line_px;

    let mut lanes = Vec::new();
    let mut lx = x + CARD_PAD + gutter;
    for (li, (s, sp)) in f.spaces.iter().zip(spans).enumerate() {
        let Some(sp) = sp else { continue };
        let (width, axis, inset) = lane_scale(sp, factor, view);
        let geometry = LaneGeometry { x: lx, y: plot_top, width, height: COLUMN_HEADER + body_h, body_top, axis };
        let mut drawn = lane(f, plan, li, s, sp.span, geometry, pal);
        if inset {
            mark_inset(&mut drawn, [plan::inset_badge(axis.k, factor), plan::inset_ratio(axis.k, factor)], pal);
        }
        lanes.push(drawn);
        lx += width;
    }
    let keyed = apply_keys(plan, &mut lanes, body_top, pal);
    let (key_shapes, keys_h) = key_list(&keyed, x + CARD_PAD, body_top + body_h, w - 2.0 * CARD_PAD, pal);
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
    decorations.extend(title_row(f, pal, x, y, w).into_iter().map(|shape| match shape {
        // The rule under the title goes under the pills' last row.
        Shape::Line(l) => Shape::Line(Line { y1: l.y1 + extra, y2: l.y2 + extra, ..l }),
        other => other,
    }));
    decorations.extend(gutter_shapes(f, pal, x + CARD_PAD, gutter, plot_top, body_top));
    let footer_y = body_top + body_h + keys_h;
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
        ink: pal.text,
        body_top,
        first_line: f.src_start,
        decorations,
        keys: key_shapes,
        lanes,
        profiles,
    };
    place_pills(&mut card, &plan.pills, &rows, pal);
    card
}

/// Labels every drawn box of every lane by the label rule ([`labels::place_lane`]): its name or
/// its key inside, else beside it with a leader. Returns the keyed boxes, in key order, for the key list.
fn apply_keys<'a>(plan: &'a CardPlan, lanes: &mut [Lane], body_top: f64, pal: &Palette) -> Vec<(String, &'a BoxPlan)> {
    let px = plan::px_rules();
    let rows = (plan.last - plan.first + 1) as usize;
    let mut keyed = Vec::new();
    for lane in lanes.iter_mut() {
        let (lx, lw) = (lane.x, lane.width);
        let items: Vec<labels::LabelBox> = lane
            .blocks
            .iter()
            .filter_map(|shape| {
                let bp = plan.boxes.get(shape.index)?;
                let r = &shape.rect;
                let rows = ((shape.start - plan.first) as usize, (shape.end.max(shape.start) - plan.first) as usize);
                Some(labels::LabelBox { x: r.x - lx, w: r.w, rows, label: &bp.label, key: bp.n })
            })
            .collect();
        if items.len() != lane.blocks.len() {
            continue; // a plan made for another map: leave the labels `block` drew
        }
        let band = lane.axis.cut.map(|(from, _)| (lane.axis.x(from), lane.axis.x(from) + lane.axis.px));
        let spots = labels::place_lane_around(&items, lw, rows, &px, band);
        for (shape, spot) in lane.blocks.iter_mut().zip(spots) {
            let bp = &plan.boxes[shape.index];
            let r = shape.rect.clone();
            shape.label = Vec::new();
            shape.leader = None;
            shape.key = None;
            let Some(spot) = spot else { continue };
            if spot.keyed() {
                shape.key = Some(bp.n);
                keyed.push((bp.n.to_string(), bp));
            }
            match spot {
                labels::Spot::Inside { fitted, row, .. } => {
                    let y = body_top + row as f64 * px.line;
                    shape.label = placed_label(&fitted, (r.x, y), &px, pal);
                }
                labels::Spot::Beside { text, x, row, leader, .. } => {
                    let y = body_top + row as f64 * px.line;
                    shape.label = vec![run(lx + x, y + 12.0, px.label, pal.text, &text)];
                    shape.leader = Some(Line {
                        x1: lx + leader[0],
                        y1: body_top + leader[1],
                        x2: lx + leader[2],
                        y2: body_top + leader[3],
                        stroke: Stroke { color: pal.muted, width: 1.0, dash: None },
                    });
                }
            }
        }
    }
    keyed.sort_by_key(|(_, bp)| bp.n);
    keyed
}

/// Size of the key's texts, and the height of one of its rows.
const KEY_SIZE: f64 = 10.0;
const KEY_ROW: f64 = 15.0;

/// The card's key under the map: each keyed box's key, then its full name (and aliases), size,
/// address range and lines, in as many columns as the card's width holds. Returns its shapes and
/// height (zero without keys).
fn key_list(keyed: &[(String, &BoxPlan)], x: f64, top: f64, width: f64, pal: &Palette) -> (Vec<Shape>, f64) {
    if keyed.is_empty() {
        return (Vec::new(), 0.0);
    }
    let head = "key: boxes too narrow for their names";
    let mut out = vec![text_at(x, top + 20.0, KEY_SIZE, pal.muted, head)];
    let key_w = keyed.iter().map(|(k, _)| text::width(k, KEY_SIZE)).fold(0.0, f64::max) + 6.0;
    let gap = 24.0;
    // Columns as wide as three entries in four need; a longer entry takes as many columns as it needs (the
    // whole width at most, where it is cut), so one long alias chain does not make every row one entry.
    let mut widths: Vec<f64> = keyed.iter().map(|(_, b)| key_w + text::width(&b.key, KEY_SIZE) + gap).collect();
    let mut sorted = widths.clone();
    sorted.sort_by(f64::total_cmp);
    let col = sorted[sorted.len() * 3 / 4].min(width + gap).max(key_w + gap + 1.0);
    let cols = (((width + gap) / col).floor() as usize).max(1);
    let (mut at, mut row) = (0usize, 0usize);
    for ((key, b), w) in keyed.iter().zip(widths.iter_mut()) {
        let span = ((*w / col).ceil() as usize).clamp(1, cols);
        if at > 0 && at + span > cols {
            at = 0;
            row += 1;
        }
        let cx = x + at as f64 * col;
        let cy = top + 20.0 + (row + 1) as f64 * KEY_ROW;
        out.push(Shape::Text(Text {
            x: cx + key_w - 6.0,
            y: cy,
            size: KEY_SIZE,
            color: pal.text,
            anchor: Anchor::End,
            content: key.clone(),
        }));
        if let Some(entry) = text::fit(&b.key, KEY_SIZE, span as f64 * col - key_w - gap / 2.0) {
            out.push(text_at(cx + key_w, cy, KEY_SIZE, pal.text, &entry));
        }
        at += span;
    }
    (out, 20.0 + (row + 1) as f64 * KEY_ROW + 6.0)
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

/// A drawn lane's span, and the stretch of it drawn as a cut band, if any.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LaneSpan {
    span: i64,
    cut: Option<(i64, i64)>,
}

impl LaneSpan {
    /// The same span without its cut.
    fn whole(self) -> LaneSpan {
        LaneSpan { cut: None, ..self }
    }

    /// Bytes drawn to scale, and the band's px.
    fn scaled(self) -> (i64, f64) {
        match self.cut {
            Some((from, to)) => ((self.span - (to - from)).max(1), plan::px_rules().cut),
            None => (self.span, 0.0),
        }
    }
}

/// The span of each space of `f` (`None` where hidden) and the card's one px/byte factor, computed
/// over the visible spans: hiding a space gives its width back to the others at one shared scale,
/// which is how hiding a tiny space keeps the `used` axis readable (reference guide, show/hide).
/// A mostly free lane's longest free stretch is a cut band (see [`plan::Axis`]), so its bytes in
/// use are drawn at the card's scale rather than as slivers.
fn scale(f: &FunctionMap, view: &ViewOptions) -> (Vec<Option<LaneSpan>>, f64) {
    let visible = visible_spaces(f, view);
    let spans: Vec<Option<LaneSpan>> = f
        .spaces
        .iter()
        .map(|s| {
            visible.contains(&s.space.as_str()).then(|| {
                let span = span(s, view.x_axis);
                LaneSpan { span, cut: plan::lane_cut(f, s, span, view.scale_mode, &plan::lane_marks(f, s)) }
            })
        })
        .collect();
    let shown: Vec<(i64, f64)> = spans.iter().flatten().map(|s| s.scaled()).collect();
    let room = plan::lane_room(view.width, gutter_width(f.src_end), shown.len());
    (spans, plan::lanes_factor(&shown, room, view.scale_mode) * view.zoom)
}

/// A lane's width and byte axis on a card whose main factor is `factor` (zoom included), and
/// whether it is an inset: a lane too narrow at the card's scale gets `RULES.inset_px` (the part to
/// scale times the zoom) at its own factor instead of widening every other lane.
fn lane_scale(sp: LaneSpan, factor: f64, view: &ViewOptions) -> (f64, plan::Axis, bool) {
    let (scaled, band) = sp.scaled();
    let inset = plan::is_inset(scaled, band, factor / view.zoom, view.scale_mode == ScaleMode::Insets);
    let k = if inset { plan::inset_factor(scaled, band) * view.zoom } else { factor };
    let axis = plan::Axis { k, cut: sp.cut, px: band };
    (axis.width(sp.span), axis, inset)
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

/// Spaces whose small span widens some chosen card to more than three panel widths: one byte scale grows the
/// whole factor until the narrowest lane is 72 px, so a 1 KiB Bias lane makes a 512 KiB Mat lane
/// 36 864 px wide. Naming them tells a user what to hide for a picture that fits a review.
pub fn widening_spaces<'a>(map: &'a MemoryMap, view: &ViewOptions) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    if view.scale_mode == ScaleMode::Insets {
        return out; // small lanes are insets: none widens the map
    }
    for f in map.functions.iter().filter(|f| view.draws(&f.name)) {
        let (spans, _) = scale(f, view);
        let total: f64 = spans.iter().flatten().map(|&sp| sp.span as f64).sum();
        for (s, sp) in f.spaces.iter().zip(&spans) {
            // Alone, this lane's 72 px minimum would make the lanes `min * total / span` px wide.
            let wide = sp.is_some_and(|sp| RULES.min_lane_px * total / sp.span as f64 > 3.0 * view.width);
            if wide && spans.iter().flatten().count() > 1 && !out.contains(&s.space.as_str()) {
                out.push(&s.space);
            }
        }
    }
    out
}

/// Spaces drawn for `f`: all but the hidden ones, and never none (the last one stays).
fn visible_spaces<'a>(f: &'a FunctionMap, view: &ViewOptions) -> Vec<&'a str> {
    let shown: Vec<&str> =
        f.spaces.iter().map(|s| s.space.as_str()).filter(|s| !view.hidden.iter().any(|h| h == s)).collect();
    if shown.is_empty() { f.spaces.iter().take(1).map(|s| s.space.as_str()).collect() } else { shown }
}

/// Width of the line-number column of a card whose last dump line is `last_line`.
pub fn gutter_width(last_line: u32) -> f64 {
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
    let LaneGeometry { x, y, width, height, body_top, axis } = g;
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
    for line in f.src_start..=f.src_end {
        if line % plan::GRID_LINES == 0 {
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
    // The plan's cut on this axis: the one whose bytes the lane's axis cuts.
    let cut = plan.lanes[li].cuts.iter().flatten().find(|c| axis.cut == Some((c.from, c.to)));
    if let Some(cut) = cut {
        decorations.extend(cut_band(cut, &axis, (x, body_top, height - (body_top - y)), pal));
    }
    let host = |block| insight::Host {
        lane: (x, width),
        block,
        axis,
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
    let placed = placed::marks(&plan.lanes[li].marks, &host(None), color, pal);
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

fn block(f: &FunctionMap, bp: &BoxPlan, b: &Block, host: &insight::Host, color: Color, pal: &Palette) -> BlockShape {
    let t = &b.tile;
    let px = plan::px_rules();
    let (lane_x, lane_w) = host.lane;
    let (x, w) = host.axis.place(t.offset, t.size, lane_w, px.min_box);
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
    8.0 + 8.0 + 6.0 + text::width(&p.text, LABEL) + pct_room(p) + 6.0 + text::width(&p.peak, LABEL) + 8.0
}

/// The room a pill's percentage takes with its gap: none when there is none (capacity unknown).
fn pct_room(p: &plan::Pill) -> f64 {
    if p.pct.is_empty() { 0.0 } else { 6.0 + text::width(&p.pct, LABEL) }
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
    out.extend((f.src_start..=f.src_end).filter(|line| line % plan::GRID_LINES == 0).map(|line| {
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

/// What the header counts: the functions `view` draws, their tiles in the spaces it shows, and the
/// findings about them (or about the whole dump) in those spaces.
fn drawn_findings<'a>(map: &'a MemoryMap, view: &ViewOptions) -> Vec<&'a crate::model::Finding> {
    map.findings
        .iter()
        .filter(|x| x.function.as_ref().is_none_or(|n| view.functions.is_empty() || view.functions.contains(n)))
        .filter(|x| {
            let drawn = |f: &FunctionMap| x.function.as_ref() == Some(&f.name);
            x.space.as_ref().is_none_or(|s| {
                // A space is left out where it is hidden and the card still shows another.
                let f = map.functions.iter().find(|f| drawn(f));
                f.is_none_or(|f| visible_spaces(f, view).contains(&s.as_str()))
            })
        })
        .collect()
}

fn header(map: &MemoryMap, view: &ViewOptions, pal: &Palette, width: f64) -> (Vec<Shape>, f64) {
    let x = PAGE_PAD;
    let drawn: Vec<&FunctionMap> =
        map.functions.iter().filter(|f| view.functions.is_empty() || view.functions.contains(&f.name)).collect();
    let tiles: usize = drawn
        .iter()
        .map(|f| {
            let shown = visible_spaces(f, view);
            f.blocks.iter().filter(|b| shown.contains(&b.tile.space.as_str())).count()
        })
        .sum();
    let findings = drawn_findings(map, view);
    let mut out = vec![
        text_at(x, PAGE_PAD + 10.0, SMALL, pal.muted, "PTO · MEMORY MAP"),
        text_at(x, PAGE_PAD + 36.0, 22.0, pal.text, &format!("Memory map — {}", map.pass_name)),
    ];
    let b = &map.backend;
    let capacities = format!("{} ({}){}", b.name, b.arch, if b.detected { "" } else { " assumed" });
    let chips = [
        ("dump", map.dump.clone()),
        ("compute functions", drawn_count(drawn.len(), map.functions.len())),
        ("tiles", tiles.to_string()),
        ("capacities", capacities),
    ];
    let mut items: Vec<Vec<Shape>> = Vec::new();
    for (label, value) in chips {
        let w = text::width(label, LABEL) + 6.0 + text::width(&value, LABEL) + 16.0;
        let warn = label == "capacities" && !b.detected;
        let vx = 8.0 + text::width(label, LABEL) + 6.0;
        items.push(vec![
            Shape::Rect(Rect {
                x: 0.0,
                y: 0.0,
                w,
                h: 22.0,
                radius: 3.0,
                fill: Some(pal.card),
                stroke: Some(Stroke { color: pal.border, width: 1.0, dash: None }),
            }),
            text_at(8.0, 15.0, LABEL, pal.muted, label),
            text_at(vx, 15.0, LABEL, if warn { WARNING } else { pal.text }, &value),
        ]);
    }
    if !map.has_layouts() {
        // The guide's edge case: a CONCISE dump leaves tile layouts unresolved.
        let note = "layouts not in this dump: re-dump with PassDumpLevel.EXPLICIT";
        items.push(vec![text_at(8.0, 15.0, LABEL, pal.muted, note)]);
    }
    if let Some(note) = placed::unassigned_note(map) {
        items.push(vec![text_at(8.0, 15.0, LABEL, WARNING, &note)]);
    }
    let (chips, bottom) = flow(items, x, PAGE_PAD + 48.0, width, 28.0, 6.0);
    out.extend(chips);
    let mut items = legend(pal);
    if drawn.iter().any(|f| has_cut(f, view)) {
        items.push(cut_swatch(pal));
    }
    items.extend(placed::legend(map, pal));
    let (legend, bottom) = flow(items, x, bottom + 6.0, width, 18.0, 18.0);
    out.extend(legend);
    let y = bottom + 16.0;
    let (rows, h) = findings_rows(&findings, pal, x, y, width);
    out.extend(rows);
    (out, y + h - 4.0)
}

/// Whether some lane of `f` drawn as `view` asks has a cut band.
fn has_cut(f: &FunctionMap, view: &ViewOptions) -> bool {
    scale(f, view).0.iter().flatten().any(|s| s.cut.is_some())
}

/// The legend's cut band: its swatch (the page's colour between thin edges) and its words.
fn cut_swatch(pal: &Palette) -> Vec<Shape> {
    let edge = |x: f64| {
        Shape::Line(Line {
            x1: x,
            y1: -1.0,
            x2: x,
            y2: 12.0,
            stroke: Stroke { color: pal.muted, width: 1.0, dash: None },
        })
    };
    vec![
        Shape::Rect(Rect { x: 0.5, y: 0.5, w: 16.0, h: 10.0, radius: 0.0, fill: Some(pal.page), stroke: None }),
        edge(0.5),
        edge(16.5),
        text_at(22.0, 9.5, LABEL, pal.muted, plan::CUT_WORDS),
    ]
}

/// `38`, or `1 of 38` where only some are drawn.
fn drawn_count(drawn: usize, all: usize) -> String {
    if drawn == all { all.to_string() } else { format!("{drawn} of {all}") }
}

/// `text` broken at spaces into lines at most `max` px wide at `size`; a word longer than a line is
/// broken too, so nothing is ever cut.
pub fn wrap(text: &str, size: f64, max: f64) -> Vec<String> {
    let per_line = ((max / (text::advance_em() * size)).floor() as usize).max(8);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used > 0 && used + 1 + word.len() > per_line {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > per_line {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..per_line).collect());
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.extend(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Lays `items` (each drawn from its own origin) left to right from `(x, y)`, starting a new row
/// `row` px lower when the next would pass `x + width`; returns the shapes and the bottom of the
/// last row. A header that wraps keeps the picture as wide as its cards (`--width`).
fn flow(items: Vec<Vec<Shape>>, x: f64, y: f64, width: f64, row: f64, gap: f64) -> (Vec<Shape>, f64) {
    let mut out = Vec::new();
    let (mut lx, mut ly) = (x, y);
    for item in items {
        let w = item.iter().map(right_edge).fold(0.0, f64::max);
        if lx > x && lx + w > x + width {
            lx = x;
            ly += row;
        }
        out.extend(item.into_iter().map(|s| shift(s, lx, ly)));
        lx += w + gap;
    }
    (out, ly + row)
}

/// `shape` moved by `(dx, dy)`.
fn shift(shape: Shape, dx: f64, dy: f64) -> Shape {
    match shape {
        Shape::Rect(r) => Shape::Rect(Rect { x: r.x + dx, y: r.y + dy, ..r }),
        Shape::Line(l) => Shape::Line(Line { x1: l.x1 + dx, x2: l.x2 + dx, y1: l.y1 + dy, y2: l.y2 + dy, ..l }),
        Shape::Text(t) => Shape::Text(Text { x: t.x + dx, y: t.y + dy, ..t }),
    }
}

/// Height of one findings row in the header.
const FINDINGS_ROW: f64 = 17.0;

/// The header's findings: their count by severity, then every error and warning, errors first,
/// each with its code, function, space, line and message, wrapped to the page's width (the first
/// screen says what is wrong before any card does). Returns the shapes and their height.
fn findings_rows(findings: &[&crate::model::Finding], pal: &Palette, x: f64, y: f64, width: f64) -> (Vec<Shape>, f64) {
    use crate::model::Severity;
    let owned: Vec<crate::model::Finding> = findings.iter().map(|f| (*f).clone()).collect();
    let (errors, warnings, _) = crate::findings::counts(&owned);
    let color = if errors > 0 {
        CRITICAL
    } else if warnings > 0 {
        WARNING
    } else {
        pal.muted
    };
    let counts = format!("findings: {}", crate::findings::counts_text(&owned));
    let mut out = vec![text_at(x, y, LABEL, color, &counts)];
    if findings.iter().any(|f| f.code == "overflow") {
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
    let mut listed: Vec<&&crate::model::Finding> =
        findings.iter().filter(|f| matches!(f.severity, Severity::Error | Severity::Warning)).collect();
    listed.sort_by_key(|f| f.severity);
    let mut row = 1usize;
    for f in listed {
        let at = f.line.map(|l| format!(" L{l}")).unwrap_or_default();
        let place = [f.function.as_deref(), f.space.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
        let place = format!("{place}{at}");
        let place = if place.trim().is_empty() { String::new() } else { format!(" · {}", place.trim()) };
        let text = format!("{} {}{place} · {}", f.severity.as_str(), f.code, f.message);
        let ink = if f.severity == Severity::Error { pal.text } else { pal.muted };
        for (i, line) in wrap(&text, LABEL, width - 12.0 - 24.0).into_iter().enumerate() {
            // A message's further lines are indented under its first.
            let indent = if i == 0 { 12.0 } else { 36.0 };
            out.push(text_at(x + indent, y + row as f64 * FINDINGS_ROW, LABEL, ink, &line));
            row += 1;
        }
    }
    (out, row as f64 * FINDINGS_ROW + 10.0)
}

/// The marks and what they mean, one item each, drawn from their own origin.
fn legend(pal: &Palette) -> Vec<Vec<Shape>> {
    let neutral = space_color("", pal.theme);
    let fill = Some(pal.fill(neutral));
    let boxes: [(Stroke, &str); 3] = [
        (Stroke { color: neutral, width: 1.0, dash: None }, "tile live range"),
        (Stroke { color: neutral, width: 1.0, dash: Some((3.0, 2.0)) }, "view into the same base"),
        (Stroke { color: CRITICAL, width: 2.0, dash: None }, "cross-base address + lifetime overlap"),
    ];
    let mut items: Vec<Vec<Shape>> = boxes
        .into_iter()
        .map(|(stroke, label)| {
            vec![
                Shape::Rect(Rect { x: 0.5, y: 0.5, w: 16.0, h: 10.0, radius: 2.0, fill, stroke: Some(stroke) }),
                text_at(22.0, 9.5, LABEL, pal.muted, label),
            ]
        })
        .collect();
    items.push(vec![
        Shape::Line(Line {
            x1: 4.5,
            y1: -1.0,
            x2: 4.5,
            y2: 12.0,
            stroke: Stroke { color: neutral, width: 1.0, dash: Some((4.0, 3.0)) },
        }),
        text_at(12.0, 9.5, LABEL, pal.muted, "high-water mark"),
    ]);
    items.push(vec![text_at(0.0, 9.5, LABEL, pal.muted, "+N: aliases merged into one box")]);
    items.push(vec![
        Shape::Line(Line {
            x1: 0.0,
            y1: 5.0,
            x2: 6.0,
            y2: 5.0,
            stroke: Stroke { color: neutral, width: 2.0, dash: None },
        }),
        text_at(10.0, 9.5, LABEL, pal.muted, "use"),
    ]);
    items.push(vec![
        Shape::Rect(Rect {
            x: 0.5,
            y: 0.5,
            w: 16.0,
            h: 10.0,
            radius: 2.0,
            fill: Some(pal.wash(neutral)),
            stroke: Some(Stroke { color: neutral, width: 1.0, dash: None }),
        }),
        text_at(22.0, 9.5, LABEL, pal.muted, "idle: no mention for 8+ lines, half the range"),
    ]);
    items.push(vec![
        Shape::Rect(Rect {
            x: 0.5,
            y: 0.5,
            w: 16.0,
            h: 10.0,
            radius: 0.0,
            fill: None,
            stroke: Some(Stroke { color: neutral, width: 1.5, dash: Some((5.0, 3.0)) }),
        }),
        text_at(22.0, 9.5, LABEL, pal.muted, "inset: a space too small for the card's scale, at its own"),
    ]);
    items
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
