//! The plan of a map: everything any back end draws, decided once, before any factor is chosen.
//!
//! Zoom, the x axis and hidden spaces change pixels but nothing else, so the plan speaks in bytes
//! across and dump lines down, and in finished text: lanes with their span on both axes, the card's
//! px/byte factor for every set of visible lanes, boxes with their byte and line ranges, label
//! candidates and tooltip lines, marks, the live-bytes profile, pills and summary lines. The SVG
//! back end gets it through [`crate::layout`] (the plan placed by the scene at the view's factor); the HTML page embeds it
//! as JSON, with the labels of every zoom step it offers ([`steps`]), and its script scales it to
//! the factor the reader picks with [`place`]'s rule (held to the SVG by the browser test that
//! compares every box).
//!
//! A new mark is a new [`MarkKind`] (or an existing one) made here, plus one generic draw per back
//! end; a new lane kind is a [`LanePlan`] with its own span.

use serde::Serialize;

mod axis;
pub mod diff;
pub mod labels;
mod marks;
pub mod options;
pub mod overview;
pub mod packed;
pub mod page;
mod parts;
mod picture;
mod placed;
pub mod rows;
mod scale;
pub mod steps;
pub mod style;
pub mod text;
pub mod width;
pub use crate::analyze::live::{at as live_figures, figures_at as live_at};
pub use axis::{Axis, Cut, KEY_PX, Stretch, WIDE_PX, wide_title};
pub use marks::{summary, wrap};
pub use page::{DataPayload, Header, Page};
pub use parts::*;
pub use picture::{Findings, Picture, PlacedMarks};
pub use placed::PLACED_STYLES;
pub use rows::{Fold, RowMap};
pub use scale::*;
pub use width::gutter_width;

use crate::deflate::{GzipPiece, gzip_pieces};
use crate::model::{Block, FunctionMap, SpaceUsage};
use crate::units::fmt_bytes;
pub use options::{
    DEFAULT_SCALE, RULES, Range, Rules, SCALE, ScaleMode, Theme, ViewOptions, WIDTH, XAxis, ZOOM, rules_json,
};

/// The pixel rules a drawer applies to the plan: one dump line's height, the narrowest box, and
/// what the label rule needs (the font is monospaced, so one advance per em measures any text).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PxRules {
    /// Height of one dump line.
    pub line: f64,
    /// A box (or a byte-ranged mark) is never narrower than this.
    pub min_box: f64,
    /// Advance of one character as a fraction of the font size (JetBrains Mono: 0.6).
    pub char_em: f64,
    /// Font size of a box's name.
    pub label: f64,
    /// Font size of small print: a box's detail line, mark texts.
    pub small: f64,
    /// Inset of texts from the left edge of their box or mark.
    pub inset: f64,
    /// Length of a use tick, in from the box's right edge.
    pub tick: f64,
    /// Width of a profile column.
    pub profile: f64,
    /// Width of a lane's cut band (its longest free stretch, not to scale), at every zoom.
    pub cut: f64,
    /// A gridline across the lanes every this many dump lines (at the lines it divides).
    pub grid: u32,
}

/// The rules of this build (the advance is read from the bundled font).
pub fn px_rules() -> PxRules {
    PxRules {
        line: RULES.line_px,
        min_box: RULES.min_box_px,
        char_em: text::advance_em(),
        label: 11.0,
        small: 10.0,
        inset: 4.0,
        tick: 6.0,
        profile: RULES.profile_px,
        cut: CUT_PX,
        grid: GRID_LINES,
    }
}

/// A gridline every this many dump lines.
pub const GRID_LINES: u32 = 5;

/// Width of a cut band: its two lines (`152 KB`, `free`) at the small size, with their insets.
const CUT_PX: f64 = 60.0;

/// The plan of every function `view` draws.
pub fn plan(map: &crate::model::MemoryMap, view: &ViewOptions) -> Plan {
    planned(map, view, &Planner::new(map, view))
}

/// The plan of `map` with every card `planner` (made for the same `view`) plans. The cards and the
/// plan's words are found at once: the words are a pass over every function of their own, whose
/// sorting and formatting would otherwise hold the page a third of a millisecond on one core.
pub fn planned(map: &crate::model::MemoryMap, view: &ViewOptions, planner: &Planner) -> Plan {
    let (cards, words) =
        crate::par::both(planner.len() > 1, || planner.page_cards(0..planner.len()), || marks::live_words(map, view));
    let (cards, lines): (Vec<CardPlan>, Vec<Vec<u8>>) = cards.into_iter().map(|c| (c.plan, c.line)).unzip();
    let packed = crate::deflate::pack_all(std::iter::once(head_json(&words)).chain(lines));
    Plan { px: px_rules(), styles: &MARK_STYLES, cards, words, packed }
}

/// A card's plan for the page, and its line of the page's plan ([`PageLines`]) gzipped.
pub struct PageCard {
    /// The plan.
    pub plan: CardPlan,
    /// Its line of the page's plan: a line break, then its JSON.
    pub line: Vec<u8>,
}

/// The card plan of every function `view` draws, in order, planned on every core.
pub fn card_plans(map: &crate::model::MemoryMap, view: &ViewOptions) -> Vec<CardPlan> {
    let planner = Planner::new(map, view);
    planner.cards(0..planner.len())
}

/// Plans the cards of the functions `view` draws, a range at a time. The page plans each card
/// twice, once for its data and once for its picture, rather than hold the plans of a whole model's
/// dump at once (see [`PlanStream`]).
pub struct Planner<'a> {
    /// Each card's function and the width its lanes fill.
    jobs: Vec<(&'a FunctionMap, f64)>,
    view: ViewOptions,
}

impl<'a> Planner<'a> {
    /// The planner of the cards of `map` drawn as `view` asks.
    pub fn new(map: &'a crate::model::MemoryMap, view: &ViewOptions) -> Planner<'a> {
        // Each card's lanes fill the width the static picture gives them (see `panel_widths`).
        let jobs = map.functions.iter().filter(|f| view.draws(&f.name)).zip(width::panel_widths(map, view)).collect();
        Planner { jobs, view: view.clone() }
    }

    /// How many cards there are.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// The width each card's lanes fill, in order.
    pub fn panels(&self) -> Vec<f64> {
        self.jobs.iter().map(|&(_, width)| width).collect()
    }

    /// The plans of the cards `range` holds, planned on every core.
    pub fn cards(&self, range: std::ops::Range<usize>) -> Vec<CardPlan> {
        self.plan(range, Tips::Written)
    }

    /// [`Planner::cards`] for the page: with each lane's zoom steps ([`steps`]), and each card's
    /// line of the page's plan serialized where it was planned, on every core (deflated next, by
    /// `pack_runs`, also on every core, rather than on the page's plan thread alone).
    pub fn page_cards(&self, range: std::ops::Range<usize>) -> Vec<PageCard> {
        let jobs = self.jobs.get(range).unwrap_or_default();
        crate::par::map_ref_heavy_first(
            jobs,
            |(f, _)| f.blocks.len(),
            |&(f, width)| {
                let mut card = plan_card(f, &ViewOptions { width, ..self.view.clone() }, Tips::Written);
                card.steps = steps::card_steps(&card);
                steps::text_steps(&mut card);
                let mut line = b"\n".to_vec();
                // Writing to memory fails only on a map key that is not a string, which no plan has.
                let _ = serde_json::to_writer(&mut line, &card);
                PageCard { plan: card, line }
            },
        )
    }

    /// [`Planner::cards`] for pictures that show no tooltips (the page's static cards): the same
    /// plans, without the boxes' tooltip lines.
    pub fn pictures(&self, range: std::ops::Range<usize>) -> Vec<CardPlan> {
        self.plan(range, Tips::Left)
    }

    fn plan(&self, range: std::ops::Range<usize>, tips: Tips) -> Vec<CardPlan> {
        let jobs = self.jobs.get(range).unwrap_or_default();
        crate::par::map_ref_heavy_first(
            jobs,
            |(f, _)| f.blocks.len(),
            |&(f, width)| plan_card(f, &ViewOptions { width, ..self.view.clone() }, tips),
        )
    }
}

/// A [`Plan`] to serialize, whose cards are planned a batch at a time as they are written and
/// dropped after: the same JSON as the plan's, without holding every card's plan.
pub struct PlanStream<'a> {
    planner: &'a Planner<'a>,
    words: std::collections::BTreeMap<i64, String>,
}

impl<'a> PlanStream<'a> {
    /// The plan of `map` drawn as `view` asks, its cards from `planner` (made for the same).
    pub fn new(map: &crate::model::MemoryMap, view: &ViewOptions, planner: &'a Planner<'a>) -> PlanStream<'a> {
        PlanStream { planner, words: marks::live_words(map, view) }
    }
}

/// Cards planned this many at a time while a [`PlanStream`] is written.
const PLANS_AT_ONCE: usize = 64;

/// A plan as the page carries it: its head (the plan less its cards) as JSON on the first line,
/// then each card's JSON on a line of its own, in order, so that the page parses only the cards it
/// draws. JSON holds no raw newline, so the lines are the cards.
pub trait PageLines: Sync {
    /// Writes the plan so to `out`.
    fn write_lines(&self, out: &mut dyn std::io::Write) -> std::io::Result<()>;

    /// Writes the plan so to `out`, gzipped (one member).
    fn write_gzip(&self, out: &mut dyn std::io::Write) -> std::io::Result<()>;
}

/// The plan's first line, its [`Head`], as JSON.
fn head_json(words: &std::collections::BTreeMap<i64, String>) -> Vec<u8> {
    serde_json::to_vec(&head_line(words)).unwrap_or_default()
}

/// The head of [`PageLines`]: a [`Plan`] without its cards.
#[derive(Serialize)]
struct Head<'a> {
    px: PxRules,
    styles: &'static [MarkStyle],
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    words: &'a std::collections::BTreeMap<i64, String>,
}

/// The plan's first line, its [`Head`].
fn head_line(words: &std::collections::BTreeMap<i64, String>) -> Head<'_> {
    Head { px: px_rules(), styles: &MARK_STYLES, words }
}

/// The head of a plan with `words`, then each of `cards` on a line of its own (see [`PageLines`]).
fn write_lines<C: std::borrow::Borrow<CardPlan>>(
    words: &std::collections::BTreeMap<i64, String>,
    cards: impl Iterator<Item = C>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, &head_line(words))?;
    for card in cards {
        out.write_all(b"\n")?;
        serde_json::to_writer(&mut *out, card.borrow())?;
    }
    Ok(())
}

impl PageLines for Plan {
    fn write_lines(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_lines(&self.words, self.cards.iter(), out)
    }

    fn write_gzip(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        gzip_pieces(self.packed.iter().cloned(), out)
    }
}

impl PlanStream<'_> {
    /// Each batch of cards, planned (and packed) in turn.
    fn batches(&self) -> impl Iterator<Item = Vec<PageCard>> + '_ {
        let n = self.planner.len();
        (0..n).step_by(PLANS_AT_ONCE).map(move |from| self.planner.page_cards(from..(from + PLANS_AT_ONCE).min(n)))
    }
}

impl PageLines for PlanStream<'_> {
    fn write_lines(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_lines(&self.words, self.batches().flatten().map(|c| c.plan), out)
    }

    fn write_gzip(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let lines = self.batches().map(|batch| batch.into_iter().map(|c| c.line).collect());
        crate::deflate::gzip_batches(std::iter::once(vec![head_json(&self.words)]).chain(lines), out)
    }
}

/// The plan of one function's card.
pub fn card_plan(f: &FunctionMap, view: &ViewOptions) -> CardPlan {
    plan_card(f, view, Tips::Written)
}

/// Whether a plan's boxes carry their tooltip lines: a picture that shows none (the page's static
/// cards, whose script reads the tooltips from the plan it was sent) is planned without them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tips {
    Written,
    Left,
}

fn plan_card(f: &FunctionMap, view: &ViewOptions, tips: Tips) -> CardPlan {
    let wide = [XAxis::Limit, XAxis::Used].map(|x_axis| width::widened_lanes(f, view, x_axis));
    let shown_axis = usize::from(view.x_axis == XAxis::Used);
    let (drawn, factor) = width::scale_with(f, view, wide[shown_axis].clone());
    // One byte scale for the card's live-bytes columns, so that spaces compare at a glance: the
    // largest peak among the spaces drawn fills its column.
    let shown = f.spaces.iter().filter(|s| !view.hidden.contains(&s.space));
    let full = shown.map(|s| s.peak.bytes).max().unwrap_or(0);
    let mut lanes: Vec<LanePlan> = f.spaces.iter().map(|s| lane_plan(f, s, view.scale_mode, full)).collect();
    for (a, wide) in wide.into_iter().enumerate() {
        for (lane, wide) in lanes.iter_mut().zip(wide) {
            lane.wide[a] = wide;
        }
    }
    let factors = factors(f, &lanes, view.width, view.scale_mode);
    let inset_lanes = inset_table(&lanes, &factors, (view.width, f.src_end), view.scale_mode);
    let legend = card_legend(&lanes);
    let readable = readable_steps(&lanes, &factors, &inset_lanes);
    let over = marks::drawn_over(&f.blocks);
    let mut boxes: Vec<BoxPlan> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let lane = f.spaces.iter().position(|s| s.space == b.tile.space).unwrap_or(0);
            box_plan((i, lane), (b, &over[i]), tips)
        })
        .collect();
    number_in_reading_order(&mut boxes);
    mark_partners(f, &mut boxes);
    for (li, lane) in lanes.iter_mut().enumerate() {
        lane.by_size = (0..boxes.len()).filter(|&i| boxes[i].lane == li).collect();
        lane.by_size.sort_by_key(|&i| (std::cmp::Reverse(boxes[i].bytes[1]), boxes[i].bytes[0], i));
        lane.live = marks::live_list(&marks::lane_changes(f, &f.spaces[li]), &boxes, li, (f.src_start, f.src_end));
    }
    CardPlan {
        function: f.name.clone(),
        first: f.src_start,
        last: f.src_end,
        rows: RowMap::of(f),
        grid: f64::from(f.src_start.div_ceil(GRID_LINES) * GRID_LINES - f.src_start) * RULES.line_px,
        lanes,
        factors,
        readable,
        inset_lanes,
        legend,
        insets: view.scale_mode == ScaleMode::Insets,
        panel: view.width,
        boxes,
        pills: f.spaces.iter().map(pill).collect(),
        summary: marks::summary(f, view.width),
        ftype: f.ftype.clone(),
        drawn,
        factor,
        steps: Vec::new(),
    }
}

/// The stretch of space `s`'s lane spanning `span` bytes drawn as a cut band: none under `--scale-mode
/// strict`, whose one scale runs from end to end. `marks` are the lane's marks ([`LanePlan::marks`]).
pub fn lane_cut(f: &FunctionMap, s: &SpaceUsage, span: i64, mode: ScaleMode, marks: &[Mark]) -> Option<(i64, i64)> {
    if mode == ScaleMode::Strict {
        return None;
    }
    axis::cut_range(f, s, span, marks)
}

/// The stretches of space `s`'s lane (spanning `span` bytes) drawn at least `least` px wide where
/// their bytes are less at `k` px/byte (`axis::widened`): none under `Strict`, which draws every
/// byte to scale.
pub fn lane_widened(f: &FunctionMap, s: &SpaceUsage, span: i64, k: f64, least: f64, mode: ScaleMode) -> Vec<Stretch> {
    if mode == ScaleMode::Strict {
        return Vec::new();
    }
    let boxes = f.blocks.iter().filter(|b| b.tile.space == s.space).map(|b| (b.tile.offset, b.tile.size));
    axis::widened(boxes, span, k, least)
}

/// The marks of space `s`'s lane a cut must leave whole: fit answers, the high-water mark, the
/// capacity and what lies past it ([`LanePlan::marks`]).
pub fn lane_marks(f: &FunctionMap, s: &SpaceUsage) -> Vec<Mark> {
    let mut marks = marks::fit_plan(f, &s.space);
    marks.extend(marks::overflow_plan(f, s));
    marks
}

/// Gives each box the boxes of its handovers, found by name in its own space.
fn mark_partners(f: &FunctionMap, boxes: &mut [BoxPlan]) {
    let mut by_name: crate::hashed::HashMap<(&str, &str), usize> = crate::hashed::HashMap::default();
    for (i, b) in f.blocks.iter().enumerate() {
        by_name.entry((b.tile.space.as_str(), b.tile.name.as_str())).or_insert(i);
    }
    for (i, b) in f.blocks.iter().enumerate() {
        let h = &b.handovers;
        let names = h.takes.iter().map(|x| &*x.from).chain(h.gives.iter().map(|x| &*x.to));
        let mut partners: Vec<usize> =
            names.filter_map(|n| by_name.get(&(b.tile.space.as_str(), n)).copied()).filter(|&j| j != i).collect();
        partners.sort_unstable();
        partners.dedup();
        boxes[i].partners = partners;
    }
}

/// Gives each box its key: top to bottom (first line), then left to right (offset, then lane).
fn number_in_reading_order(boxes: &mut [BoxPlan]) {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by_key(|&i| (boxes[i].lines[0], boxes[i].lane, boxes[i].bytes[0], i));
    for (n, i) in order.into_iter().enumerate() {
        boxes[i].n = n + 1;
        boxes[i].label.set_key(n + 1);
    }
}

fn lane_plan(f: &FunctionMap, s: &SpaceUsage, mode: ScaleMode, full: i64) -> LanePlan {
    let span = [span(s, XAxis::Limit), span(s, XAxis::Used)];
    let mut marks = marks::fit_plan(f, &s.space);
    marks.push(Mark { style: HWM, bytes: Some([s.hwm, 0]), lines: None, at: Vec::new(), text: None, tip: None });
    marks.extend(marks::overflow_plan(f, s));
    marks.extend(placed::lane_marks(f, s));
    let cuts = [0, 1].map(|a| lane_cut(f, s, span[a], mode, &marks).map(|r| axis::cut(r, CUT_PX)));
    LanePlan {
        cuts,
        wide: [std::sync::Arc::from([]), std::sync::Arc::from([])], // once the card's factors are known
        space: s.space.clone(),
        limit: s.limit,
        span,
        ends: [fmt_bytes(span[0]), fmt_bytes(span[1])],
        hwm: format!("hwm {}", fmt_bytes(s.hwm)),
        hwm_w: measured(&format!("hwm {}", fmt_bytes(s.hwm)), px_rules().small),
        marks,
        profile: marks::profile_plan(s, full),
        live: Vec::new(),    // filled once the card's boxes are planned
        by_size: Vec::new(), // likewise
        windows: f
            .reserved
            .iter()
            .filter(|r| r.space == s.space)
            .filter_map(|r| Some((r.name.clone(), r.offset?, r.size)))
            .collect(),
    }
}

/// The plan of box `index` of `lane`, drawn from block `b`, under the boxes drawn `over` it.
fn box_plan((index, lane): (usize, usize), (b, over): (&Block, &[&Block]), tips: Tips) -> BoxPlan {
    let t = &b.tile;
    // Written four times a box (two details, the key, the tooltip): formatted once.
    let size = fmt_bytes(t.size);
    BoxPlan {
        index,
        lane,
        base: t.base.clone(),
        aliases: b.aliases.clone(),
        bytes: [t.offset, t.size],
        lines: [t.start, t.held()],
        view: b.view,
        conflict: b.conflict,
        label: LabelPlan::new(
            t.name.clone(),
            if b.aliases.is_empty() { String::new() } else { format!("+{}", b.aliases.len()) },
            // The address range is dropped before the size is cut: a whole number reads better.
            vec![format!("{size} · [{}, {})", t.offset, t.stop()), size.clone()],
        ),
        tip: if tips == Tips::Written { tooltip(b, &size) } else { Vec::new() },
        marks: marks::box_marks(b, over),
        n: 0, // numbered once every box is planned
        key: key_entry(b, &size),
        partners: Vec::new(), // found once every box is planned
    }
}

/// `t__tile (+t__tile_1, t__tile_2) · 8 KB · [0, 8192) · L12–L30`: a box's line in the card's key;
/// `size` is its size as written.
fn key_entry(b: &Block, size: &str) -> String {
    let t = &b.tile;
    // Three aliases say which chain it is; the rest are counted (the tooltip lists them all).
    let aliases = match b.aliases.len() {
        0 => String::new(),
        1..=3 => format!(" (+{})", b.aliases.join(", ")),
        n => format!(" (+{}, {} more)", b.aliases[..3].join(", "), n - 3),
    };
    let held = if t.held() > t.end { format!(", held to L{}", t.held()) } else { String::new() };
    format!("{}{aliases} · {size} · [{}, {}) · L{}–L{}{held}", t.name, t.offset, t.stop(), t.start, t.end)
}

/// `held to line 79 by the loop at line 62`: why a box goes on past its last read.
pub fn held_words(t: &crate::model::Tile) -> Option<String> {
    (t.held() > t.end).then(|| match t.held_by {
        Some(header) => format!("held to line {} by the loop at line {header}", t.held()),
        None => format!("held to line {} for a read of the loop's or branch's result", t.held()),
    })
}

/// The tooltip under the name: space, shape and dtype, op, base, size, address range, lines,
/// aliases, marks; `size` is the size as written.
fn tooltip(b: &Block, size: &str) -> Vec<String> {
    let t = &b.tile;
    let shape = if t.shape.is_empty() {
        "shape ?".to_string()
    } else {
        format!("[{}]", t.shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
    };
    let mut lines = vec![
        format!("{} · {} {} · {}", t.space, shape, t.dtype, if t.op.is_empty() { "(no op)" } else { &t.op }),
        format!("base {} · {size} ({} B)", t.base, t.size),
        format!("address [{}, {})", t.offset, t.stop()),
        format!("lines {}–{} (named)", t.start, t.end),
    ];
    if let Some(held) = held_words(t) {
        lines.push(held);
    }
    if !b.aliases.is_empty() {
        lines.push(format!("aliases: {}", b.aliases.join(", ")));
    }
    if b.view {
        lines.push("view into a wider tile of the same base".into());
    }
    if b.conflict {
        lines.push("conflict: overlaps another base in address and lifetime".into());
    }
    if !t.uses.is_empty() {
        let shown: Vec<String> = t.uses.iter().take(12).map(|u| u.to_string()).collect();
        let more = if t.uses.len() > 12 { format!(" (+{} more)", t.uses.len() - 12) } else { String::new() };
        lines.push(format!("used on lines {}{more}", shown.join(", ")));
    }
    if let Some(i) = b.idle {
        lines.push(format!("idle: {} lines with no use (L{}–L{})", i.lines, i.from, i.to));
    }
    handover_lines("takes the bytes of", &b.handovers.takes, |h| &h.from, &mut lines);
    handover_lines("hands its bytes to", &b.handovers.gives, |h| &h.to, &mut lines);
    if !t.layout.is_empty() {
        lines.push(format!("layout: {}", t.layout));
    }
    lines
}

/// The most handovers a tooltip lists each way; the rest are counted.
const HANDOVERS_SHOWN: usize = 3;
/// The most bytes of another box's name a handover line quotes.
const PARTNER_NAME: usize = 64;

/// `takes the bytes of t__tile_1: V L60 → MTE2 L65, cross-pipe sync`: where a box's bytes come from
/// or go to, with the pipes of the access that lets them go and the write that takes them.
fn handover_lines(
    verb: &str,
    all: &[crate::model::Handover],
    other: impl Fn(&crate::model::Handover) -> &str,
    lines: &mut Vec<String>,
) {
    use crate::model::pipe_name;
    for h in all.iter().take(HANDOVERS_SHOWN) {
        let kind = match (h.cross_pipe(), h.from_pipe.is_some() && h.to_pipe.is_some()) {
            (true, _) => "cross-pipe sync",
            (false, true) => "same pipe",
            (false, false) => "pipe unknown",
        };
        let (from, to) = (pipe_name(h.from_pipe), pipe_name(h.to_pipe));
        // Another box's name, cut: its own tooltip has it whole, and a long name repeated in every
        // tooltip of the boxes that take its bytes would make the picture many times the dump.
        let name = other(h);
        let cut = crate::units::truncated(name, PARTNER_NAME);
        let name = if cut.len() < name.len() { format!("{cut}…") } else { cut.to_string() };
        lines.push(format!("{verb} {name}: {from} L{} → {to} L{}, {kind}", h.from_line, h.line));
    }
    if all.len() > HANDOVERS_SHOWN {
        lines.push(format!("{verb} {} more", all.len() - HANDOVERS_SHOWN));
    }
}

/// `Vec hwm 24 KB / 184 KB`, the occupancy and its level, `· peak 8 KB at L65`: the high-water mark
/// and the peak are different figures, so both are written. A space the backend does not describe
/// says `capacity unknown`, with no percentage and no alarm colour (its lane spans its high-water mark).
pub fn pill(s: &SpaceUsage) -> Pill {
    let (pct, level) = if !s.described {
        (String::new(), "unknown")
    } else if s.limit > 0 {
        let occupancy = s.occupancy();
        let level = if occupancy >= RULES.occupancy_crit {
            "crit"
        } else if occupancy >= RULES.occupancy_warn {
            "warn"
        } else {
            "good"
        };
        (format!("{:.1}%", occupancy * 100.0), level)
    } else {
        ("—".to_owned(), "good")
    };
    Pill {
        space: s.space.clone(),
        text: if s.described {
            format!("{} hwm {} / {}", s.space, fmt_bytes(s.hwm), fmt_bytes(s.limit))
        } else {
            format!("{} hwm {} / capacity unknown", s.space, fmt_bytes(s.hwm))
        },
        pct,
        level,
        peak: format!("· peak {} at L{}", fmt_bytes(s.peak.bytes), s.peak.line),
        title: if s.described {
            format!(
                "{}: high-water mark {} of {} bytes, {} tiles, {} bases; most live at once {} bytes at line {}",
                s.space, s.hwm, s.limit, s.tiles, s.bases, s.peak.bytes, s.peak.line
            )
        } else {
            format!(
                "{}: high-water mark {} bytes; the backend does not describe this space, so its capacity is \
                 unknown; {} tiles, {} bases; most live at once {} bytes at line {}",
                s.space, s.hwm, s.tiles, s.bases, s.peak.bytes, s.peak.line
            )
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_past_the_lane_is_moved_inside_it() {
        assert_eq!(place(0, 100, 1.0, 300.0, 2.0), (0.0, 100.0));
        assert_eq!(place(250, 100, 1.0, 300.0, 2.0), (200.0, 100.0));
        assert_eq!(place(-50, 100, 1.0, 300.0, 2.0), (0.0, 100.0));
        assert_eq!(place(10, 0, 1.0, 300.0, 2.0), (10.0, 2.0), "never narrower than the minimum");
    }

    #[test]
    fn a_pill_writes_hwm_and_peak_and_admits_an_unknown_capacity() {
        let mut s = SpaceUsage {
            packing: None,
            handovers: None,
            space: "Vec".into(),
            hwm: 24_576,
            limit: 188_416,
            physical: None,
            described: true,
            tiles: 2,
            bases: 2,
            peak: crate::model::Peak { bytes: 8_192, line: 65, live: Vec::new() },
            headroom: 0,
            largest_free: Default::default(),
            profile: Vec::new(),
        };
        let p = pill(&s);
        assert_eq!(format!("{} {} {}", p.text, p.pct, p.peak), "Vec hwm 24 KB / 184 KB 13.0% · peak 8 KB at L65");
        assert_eq!(p.level, "good");
        s.described = false;
        s.limit = s.hwm;
        let p = pill(&s);
        assert_eq!((p.text.as_str(), p.pct.as_str(), p.level), ("Vec hwm 24 KB / capacity unknown", "", "unknown"));
    }

    #[test]
    fn small_lanes_become_insets_and_the_others_fill_the_panel() {
        let spans = [524_288, 65_536, 65_536, 131_072, 1_024];
        let f = main_factor(&spans, 1180.0, ScaleMode::Insets);
        let main: f64 = spans[..4].iter().map(|&s| s as f64 * f).sum();
        let all = main + RULES.inset_px;
        assert!((all - 1180.0).abs() < 1e-6, "the four large lanes and the inset fill the panel: {all}");
        assert!(is_inset(1_024, 0.0, f, true) && !is_inset(65_536, 0.0, f, true));
        assert!(!is_inset(1_024, 0.0, f, false), "strict mode has no insets");
        assert!((main_factor(&spans, 1180.0, ScaleMode::Strict) * 1024.0 - 72.0).abs() < 1e-9);
        assert_eq!(inset_badge(inset_factor(1_024, 0.0, RULES.inset_px), f), "x87, not to scale");
        // The gutter and the live-bytes columns come out of the panel too.
        assert!(
            (lane_room(1180.0, 60.0, 5) - (1180.0 - 60.0 - RULES.profile_gap - 5.0 * (RULES.profile_px + 4.0))).abs()
                < 1e-9
        );
        assert_eq!(lane_room(100.0, 60.0, 5), RULES.min_lane_px, "never less than one lane");
    }

    #[test]
    fn a_lane_its_band_makes_wide_enough_is_no_inset() {
        // The demo's AIC card: Mat and Left cut to bands, Left's 16 KB in use would be ~35 px.
        let lanes = [(49_152, CUT_PX), (16_384, CUT_PX), (65_536, 0.0), (131_072, 0.0), (1_024, 0.0)];
        let f = lanes_factor(&lanes, 900.0, ScaleMode::Insets);
        let (left, band) = lanes[1];
        assert!(left as f64 * f + band >= RULES.min_lane_px, "Left at the card's scale, band included, is wide enough");
        assert!(
            inset_factor(left, band, RULES.inset_px) / f < 2.0,
            "its inset would magnify it {}x",
            inset_factor(left, band, RULES.inset_px) / f
        );
        assert!(!is_inset(left, band, f, true), "so it is drawn at the card's scale");
        assert!(
            is_inset(1_024, 0.0, f, true),
            "Bias stays an inset: {}",
            inset_ratio(inset_factor(1_024, 0.0, RULES.inset_px), f)
        );
        // A banded lane is an inset only where its inset magnifies it five times or more.
        let banded = |w: f64| is_inset((w / f) as i64, CUT_PX, f, true);
        assert!(banded(10.0) && inset_factor((10.0 / f) as i64, CUT_PX, RULES.inset_px) / f >= 5.0 && !banded(13.0));
        // Every lane at the card's scale is no inset at the answer and at least the minimum wide;
        // lanes and insets fit the room.
        let drawn: Vec<f64> =
            lanes.iter().filter(|l| !is_inset(l.0, l.1, f, true)).map(|l| l.0 as f64 * f + l.1).collect();
        assert!(drawn.iter().all(|&w| w >= RULES.min_lane_px - 1e-6), "{drawn:?}");
        let total: f64 = drawn.iter().sum::<f64>() + RULES.inset_px;
        assert!(total <= 900.0 + 1e-6, "lanes and the inset fit the room: {total}");
    }

    #[test]
    fn insets_narrow_so_that_many_small_spaces_fit_the_room() {
        // An Ascend950 cube card: Mat and Left cut to bands, two 4 KB scale spaces, Bias.
        let lanes = [
            (98_816, CUT_PX),
            (16_384, CUT_PX),
            (4_096, 0.0),
            (4_352, CUT_PX),
            (4_096, 0.0),
            (16_384, CUT_PX),
            (512, CUT_PX),
        ];
        let room = 700.0;
        let f = lanes_factor(&lanes, room, ScaleMode::Insets);
        let w = inset_width(&lanes, room, f, true);
        let small: Vec<&(i64, f64)> = lanes.iter().filter(|l| is_inset(l.0, l.1, f, true)).collect();
        let main: Vec<&(i64, f64)> = lanes.iter().filter(|l| !is_inset(l.0, l.1, f, true)).collect();
        assert!(small.len() >= 3, "{small:?}");
        assert!((RULES.min_lane_px..RULES.inset_px).contains(&w), "each inset narrows, never under a lane: {w}");
        let total = main.iter().map(|l| l.0 as f64 * f + l.1).sum::<f64>() + small.len() as f64 * w;
        assert!(total <= room + 1e-6, "lanes and insets fit the room: {total}");
        assert!(main.iter().all(|l| l.0 as f64 * f + l.1 >= RULES.min_lane_px - 1e-6));
        // With room to spare an inset keeps its whole width; strict mode has none to size.
        assert_eq!(
            inset_width(&lanes, 5_000.0, lanes_factor(&lanes, 5_000.0, ScaleMode::Insets), true),
            RULES.inset_px
        );
        assert_eq!(inset_width(&lanes, room, f, false), RULES.inset_px);
    }

    #[test]
    fn the_label_keeps_the_size_before_the_range() {
        let px = px_rules();
        let label = LabelPlan::new("t__tile_long".into(), "+2".into(), vec!["8 KB · [0, 8192)".into(), "8 KB".into()]);
        let wide = fit_label(&label, 200.0, 34.0, &px);
        assert_eq!(wide.name.as_deref(), Some("t__tile_long"));
        assert_eq!(wide.badge, Some("+2"));
        assert_eq!(wide.detail, Some("8 KB · [0, 8192)"));
        let narrow = fit_label(&label, 60.0, 17.0, &px);
        assert_eq!(narrow.detail, None, "one line high: no detail");
        assert_eq!(narrow.name, None, "a name is never cut");
        assert_eq!(narrow.badge, None, "no badge without its name");
        assert_eq!(fit_label(&label, 60.0, 34.0, &px).detail, Some("8 KB"));
    }
}
