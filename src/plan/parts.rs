//! The parts of a plan, as every back end reads them: the plan of a page and of each card, its
//! lanes, boxes, label candidates, marks and their styles, the live-bytes profile and the pills.
//! Data only (with the small rules that belong to one part, such as the label fit): how a card is
//! planned is `mod.rs`, how bytes become pixels `scale.rs`.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;

use super::*;

/// The plan of every card of a page.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The pixel rules shared by every card.
    pub px: PxRules,
    /// The looks a mark can have ([`MARK_STYLES`]); each mark names one by its index.
    pub styles: &'static [MarkStyle],
    /// One plan per drawn function, in dump order.
    pub cards: Vec<CardPlan>,
    /// Byte counts as the map writes them (`24576` -> `24 KB`), for every figure a line's live list
    /// shows: each box's size, and at each line of each lane the live total and the largest free
    /// range. The rule the page applies to the boxes (written once in [`live_at`]): the boxes live
    /// at line `l` are those whose `lines` include `l`; their total is the union of their byte
    /// ranges; the free ranges are the gaps between them in `[0, capacity)` (the capacity is the
    /// space's limit, or its high-water mark where the backend gives none).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub words: std::collections::BTreeMap<i64, String>,
    /// Each card's line of the page's plan ([`PageLines::write_gzip`]), deflated on the core that
    /// planned the card.
    #[serde(skip)]
    pub packed: Vec<Option<GzipPiece>>,
}

/// The capacity a line's free ranges are measured in: the limit, or the hwm without one.
pub fn live_capacity(s: &SpaceUsage) -> i64 {
    if s.limit > 0 { s.limit } else { s.hwm }
}

/// Everything about one function's card that does not depend on the factor.
#[derive(Debug, Clone, Serialize)]
pub struct CardPlan {
    /// The function's name.
    pub function: String,
    /// Its first and last dump line: line `l` is row `l - first`.
    pub first: u32,
    /// The last dump line of the function.
    pub last: u32,
    /// Where each line is drawn: long runs of lines where nothing is live folded into a cut a row
    /// or two high ([`RowMap`]); carried as its folds.
    #[serde(rename = "folds", skip_serializing_if = "RowMap::is_flat")]
    pub rows: RowMap,
    /// Where its gridlines start: the y in px, from its first row's top, of the first line that
    /// [`GRID_LINES`] divides; one follows every `GRID_LINES` lines.
    pub grid: f64,
    /// One lane per space, in panel order, hidden or not.
    pub lanes: Vec<LanePlan>,
    /// The px/byte factor at zoom 1, by axis (`0` limit, `1` used), then by the set of visible lanes
    /// (bit `i` is `lanes[i]`; entry 0, no lane, is unused). Hiding gives width back to the others
    /// at one scale, and this table is that rule's every answer, so no drawer recomputes it.
    pub factors: [Vec<f64>; 2],
    /// Whether a lane narrower than the minimum at its card's factor is drawn as an inset at its own
    /// factor ([`is_inset`], [`inset_factor`]); false under `--scale-mode strict`, where the factors
    /// above grow instead.
    pub insets: bool,
    /// By axis then by set of visible lanes (as [`CardPlan::factors`]), the smallest zoom at which
    /// every visible lane is `RULES.min_lane_px` wide (to a thousandth, rounded up): fitting the
    /// map beside the source never zooms out past it.
    pub readable: [Vec<f64>; 2],
    /// The width its lanes fill at zoom 1 (the view's width, or more where the shared card width
    /// would leave a blank stretch beside them): what every factor above fills.
    pub panel: f64,
    /// The boxes in the function's block order (by panel, offset, first line); back ends draw a
    /// lane's views after the boxes they look into.
    pub boxes: Vec<BoxPlan>,
    /// Occupancy pills, one per space (drawn by Rust in every back end, so not in the page's copy).
    #[serde(skip)]
    pub pills: Vec<Pill>,
    /// Lines under the card: idle tiles and fit answers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    /// The inset lanes of each set of visible lanes, by axis then by mask (as [`CardPlan::factors`];
    /// only masks with an inset): each lane's index, its own factor at zoom 1, and its badge, whole
    /// and short ([`inset_badge`]). A drawer shows the whole badge where it fits, else the short one.
    #[serde(skip_serializing_if = "no_insets")]
    pub inset_lanes: [std::collections::BTreeMap<usize, Vec<InsetLane>>; 2],
    /// What the card's marks mean, in order: each a swatch's class and its words.
    pub legend: Vec<LegendEntry>,
    /// The function's type (`InCore`, `Orchestration`), for the title's badge.
    #[serde(skip)]
    pub ftype: String,
    /// The static picture's lanes at the view the card was planned for ([`width::scale`]): each
    /// lane's span and cut band, `None` where hidden.
    #[serde(skip)]
    pub(crate) drawn: Vec<Option<width::LaneSpan>>,
    /// The static picture's px/byte factor (zoom included) at that view.
    #[serde(skip)]
    pub(crate) factor: f64,
    /// The page's zoom steps of each lane, by axis ([`super::steps`]): where every label and the
    /// high-water mark's words go at each zoom the page offers. Planned for the page only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<[Option<super::steps::LaneSteps>; 2]>,
}

/// One inset lane of a set of visible lanes ([`CardPlan::inset_lanes`]).
#[derive(Debug, Clone, Serialize)]
pub struct InsetLane {
    /// Index of the lane in [`CardPlan::lanes`].
    pub lane: usize,
    /// Its own px/byte factor at zoom 1 (times the zoom when drawn).
    pub factor: f64,
    /// `x2.6, not to scale`, and `x2.6` for a lane too narrow for the whole.
    pub badge: [String; 2],
    /// The zoom from which each badge fits the page's lane head (its width less 8 px padding each
    /// side): the page shows the first whose zoom it has reached, else none.
    pub badge_z: [f64; 2],
}

fn no_insets(t: &[std::collections::BTreeMap<usize, Vec<InsetLane>>; 2]) -> bool {
    t.iter().all(|m| m.is_empty())
}

/// One entry of a card's legend: the swatch (`box`, `view`, `conflict`, `hwm`, `grid`, `cut`,
/// `capacity`, `past`) and what it means.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegendEntry {
    /// The swatch's kind.
    pub mark: &'static str,
    /// Its words.
    pub text: String,
}

/// The legend of a card with `lanes`: the marks every card has, then those these lanes have.
pub fn card_legend(lanes: &[LanePlan]) -> Vec<LegendEntry> {
    let entry = |mark: &'static str, text: &str| LegendEntry { mark, text: text.to_string() };
    let mut out = vec![
        entry("box", "tile live range"),
        entry("view", "view into the same base"),
        entry("conflict", "cross-base address + lifetime overlap"),
        entry("hwm", "high-water mark"),
        entry("grid", &format!("gridline every {GRID_LINES} lines")),
    ];
    if lanes.iter().any(|l| l.cuts.iter().any(Option::is_some)) {
        out.push(entry("cut", CUT_WORDS));
    }
    if lanes.iter().any(|l| l.wide.iter().any(|w| !w.is_empty())) {
        out.push(entry("wide", WIDE_WORDS));
    }
    if lanes.iter().any(|l| l.marks.iter().any(|m| m.style == CAPACITY)) {
        out.push(entry("capacity", "capacity"));
        out.push(entry("past", "bytes past the capacity"));
    }
    let has = |style: MarkStyle| lanes.iter().any(|l| l.marks.iter().any(|m| m.style == style));
    if has(RESERVED) {
        out.push(entry("reserved", "reserved window (system.reserve_buffer), in the hwm"));
    }
    if has(UNSAFE_BAND) {
        out.push(entry("unsafe", "unsafe band: past the usable size, within the physical"));
    }
    if has(SLOTS) || has(PINNED) {
        out.push(entry("slots", "declared allocation: its slots (dashed edges); a dot: pinned"));
    }
    out
}

/// What a cut band is, in the legends.
pub const CUT_WORDS: &str = "free bytes drawn at a fixed width, not to scale";

/// What the bracket under a widened stretch means, in the legends ([`super::KEY_PX`] is 19; a card
/// with no room for that draws them [`super::WIDE_PX`], 4, wide).
pub const WIDE_WORDS: &str = "boxes too thin for a key drawn 19 px wide (4 if crowded), not to scale";

/// One space's column.
#[derive(Debug, Clone, Serialize)]
pub struct LanePlan {
    /// The memory space.
    pub space: String,
    /// Its capacity in bytes (`0` where unknown): what a capacity rule is drawn at.
    #[serde(skip)]
    pub limit: i64,
    /// Bytes the lane spans, by axis: capacity (or high-water mark if higher), and high-water mark.
    pub span: [i64; 2],
    /// The text at the lane's right end, by axis.
    pub ends: [String; 2],
    /// The high-water mark, as the lane head says it.
    pub hwm: String,
    /// Its width in px at the small size, for centring it on its line (the plan centres it for the
    /// page: [`super::steps::hwm_left`]).
    #[serde(skip)]
    pub hwm_w: f64,
    /// Marks over the boxes: the high-water-mark rule, free ranges answering a fit query.
    pub marks: Vec<Mark>,
    /// The live-bytes column beside the lanes.
    pub profile: ProfilePlan,
    /// By axis, the lane's longest free stretch where it is drawn as a band of fixed width
    /// ([`Axis`]): the bytes either side keep the card's scale.
    #[serde(skip_serializing_if = "no_cuts")]
    pub cuts: [Option<Cut>; 2],
    /// By axis, the stretches drawn wider than their bytes ([`Axis`]), sorted: each
    /// `[from, to, title, least px]` in the page's plan.
    #[serde(skip_serializing_if = "no_wide", serialize_with = "wide_with_titles")]
    pub wide: [Arc<[Stretch]>; 2],
    /// The live list by line: `[line, total, offset, size, box...]` at each line where the live
    /// figures (the union of the live boxes' bytes and the largest free range: [`live_at`]'s rule)
    /// or the live boxes change (at most two a box); a line's figures are the last entry's at or
    /// before it, its boxes those named an odd number of times up to it (`marks::live_list`).
    pub live: Vec<Vec<i64>>,
    /// The lane's boxes (indices into [`CardPlan::boxes`]) in the order a line's live list names
    /// them: largest first, then by offset.
    pub by_size: Vec<usize>,
    /// The lane's placed reserved windows (name, offset, size): live on every line, so in every
    /// line's live list after its boxes, marked reserved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<(String, i64, i64)>,
}

fn no_cuts(cuts: &[Option<Cut>; 2]) -> bool {
    cuts.iter().all(Option::is_none)
}

fn no_wide(wide: &[Arc<[Stretch]>; 2]) -> bool {
    wide.iter().all(|w| w.is_empty())
}

fn wide_with_titles<S: serde::Serializer>(wide: &[Arc<[Stretch]>; 2], out: S) -> Result<S::Ok, S::Error> {
    let titled = |w: &Arc<[Stretch]>| -> Vec<(i64, i64, String, f64)> {
        w.iter().map(|s| (s.0, s.1, super::wide_title(s), s.2)).collect()
    };
    serde::Serialize::serialize(&[titled(&wide[0]), titled(&wide[1])], out)
}

impl LanePlan {
    /// The lane's axis on axis `axis` (`0` limit, `1` used) at `k` px/byte.
    pub fn axis(&self, axis: usize, k: f64) -> Axis {
        let cut = self.cuts[axis].as_ref().map(|c| (c.from, c.to));
        Axis::new(k, cut, if cut.is_some() { CUT_PX } else { 0.0 }, self.wide[axis].clone())
    }
}

/// One box: a tile (or a chain of aliases) over its bytes and lines.
#[derive(Debug, Clone, Serialize)]
pub struct BoxPlan {
    /// Index of the block in its function (and of the box in the map JSON): its place in
    /// [`CardPlan::boxes`], so the page's copy leaves it out.
    #[serde(skip)]
    pub index: usize,
    /// Index of its lane in [`CardPlan::lanes`].
    pub lane: usize,
    /// The base it is carved from.
    pub base: String,
    /// Further names merged into this box (a phi/yield chain); search and pinning find them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Offset and size, in bytes.
    pub bytes: [i64; 2],
    /// First and last dump line.
    pub lines: [u32; 2],
    /// A view into a wider tile of the same base: drawn dashed.
    #[serde(skip_serializing_if = "is_false")]
    pub view: bool,
    /// Overlaps another base while both live: drawn in the critical colour.
    #[serde(skip_serializing_if = "is_false")]
    pub conflict: bool,
    /// What the label rule chooses from.
    pub label: LabelPlan,
    /// Tooltip lines under the name (the label's `name`).
    pub tip: Vec<String>,
    /// Marks inside the box: the idle stretch, use ticks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<Mark>,
    /// Its key: its number in the card's reading order (by first line, then offset), from 1. The
    /// same in every picture at every zoom; a box shows it where its whole name does not fit.
    pub n: usize,
    /// Its line in the card's key, for when its whole name does not fit in it (see
    /// [`labels`]): full name and aliases, size, address range, lines.
    pub key: String,
    /// The boxes of its handovers (whose bytes it takes, who takes its bytes), as indices into
    /// [`CardPlan::boxes`]: the page marks them while the box is hovered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partners: Vec<usize>,
}

/// The label's candidates; [`fit_label`] picks among them for a box's width and height.
#[derive(Debug, Clone, Serialize)]
pub struct LabelPlan {
    /// The box's whole name: shown whole or not at all (its key stands in for it).
    pub name: String,
    /// `+N` aliases merged into the box, or empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub badge: String,
    /// Second-line candidates, longest first: the first that fits is drawn.
    pub details: Vec<String>,
    /// What each candidate takes across, measured here once with the bundled font, for the label
    /// rule ([`super::labels`]). The page is sent the rule's answers ([`super::steps`]), not these.
    #[serde(skip)]
    pub w: LabelWidths,
}

/// Widths in px at scale 1 (the font sizes of [`PxRules`]) of a label's candidates, in the order
/// the label rule tries them inside a box: the name with its badge, then the key; beside a box,
/// the name alone, then the key. Rounded to a thousandth of a px, the values every drawer uses.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LabelWidths {
    /// The name, the gap and the badge (the name alone where there is no badge).
    pub full: f64,
    /// The name alone.
    pub name: f64,
    /// The box's key (its number), set when the boxes are numbered.
    pub key: f64,
    /// Each of `details` at the small size.
    pub details: Vec<f64>,
}

/// Width of `text` at `size` px, as the plan states it.
pub(super) fn measured(text: &str, size: f64) -> f64 {
    (text::width(text, size) * 1000.0).round() / 1000.0
}

impl LabelPlan {
    /// A label of `name`, its `badge` (or empty) and its `details`, measured.
    pub fn new(name: String, badge: String, details: Vec<String>) -> LabelPlan {
        let px = px_rules();
        let name_w = measured(&name, px.label);
        let full = if badge.is_empty() {
            name_w
        } else {
            ((name_w + 4.0 + measured(&badge, px.label)) * 1000.0).round() / 1000.0
        };
        let w = LabelWidths {
            full,
            name: name_w,
            key: 0.0,
            details: details.iter().map(|d| measured(d, px.small)).collect(),
        };
        LabelPlan { name, badge, details, w }
    }

    /// Sets the key's width for key `n`.
    pub fn set_key(&mut self, n: usize) {
        self.w.key = measured(&n.to_string(), px_rules().label);
    }
}

/// What a label shows in a box of a given size.
///
/// Borrowed from the [`LabelPlan`] it is fitted from: the page's zoom steps fit every box's label
/// at every step, and copied strings were a third of that work.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct FittedLabel<'a> {
    /// The whole name, or the key where the label rule keyed the box.
    pub name: Option<Cow<'a, str>>,
    /// The alias badge.
    pub badge: Option<&'a str>,
    /// The detail line.
    pub detail: Option<&'a str>,
}

/// The label rule inside a box `w` x `h` px, on the plan's widths alone: the name with its badge
/// where both fit, else nothing (the key or a place beside the box is the caller's next choice: a
/// name is never cut); on a box two lines high or more, the first detail that fits. What does not
/// fit is left out; the tooltip still has it all.
pub fn fit_label<'a>(label: &'a LabelPlan, w: f64, h: f64, px: &PxRules) -> FittedLabel<'a> {
    // A box's width comes from sums over the axis, so a text exactly as wide as the room may
    // measure it a rounding error short (two 19 px stretches make 37.99999999999977 px at some
    // factors); a millionth of a px keeps the fit the same at every factor.
    let room = w - 2.0 * px.inset + FIT_SLACK;
    let whole = label.w.full <= room;
    let detail = if h >= 2.0 * px.line {
        label.w.details.iter().position(|&d| d <= room).map(|i| label.details[i].as_str())
    } else {
        None
    };
    FittedLabel {
        name: whole.then_some(Cow::Borrowed(label.name.as_str())),
        badge: (whole && !label.badge.is_empty()).then_some(label.badge.as_str()),
        detail,
    }
}

/// The rounding a fit forgives, in px ([`fit_label`]).
pub(crate) const FIT_SLACK: f64 = 1e-6;

/// What a mark is, which decides how every back end draws it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkKind {
    /// A filled stretch across its host (box, or its byte range), over its lines.
    Band,
    /// A dashed outline over its byte range and lines.
    Outline,
    /// A short stroke at the host's right edge, at each line of `at`.
    Ticks,
    /// A vertical dashed line at `bytes[0]`, down the whole lane.
    Rule,
    /// Diagonal hatching over its byte range and lines (bytes past the capacity).
    Hatch,
    /// Bytes set aside, not free: hatched and framed dashed over its byte range and lines (a
    /// reserved window, the unsafe band).
    Window,
    /// Nothing but its text, over its byte range and lines (what a box's slots are).
    Note,
    /// A small dot at the top right of its byte range, on its first line (a pinned allocation).
    Dot,
}

/// The colour a mark takes: its space's colour, its space's wash, or a status colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    /// The space's colour.
    Space,
    /// The space's pale wash.
    Wash,
    /// The "fits" green.
    Good,
    /// The critical red: what is wrong (bytes past the capacity).
    Crit,
    /// The muted grey of secondary text: what the compiler set aside.
    Muted,
    /// The warning amber: bytes the chip has but corrupts.
    Warn,
    /// The text colour: marks about a box's own structure (its slots, its pin).
    Ink,
}

/// What a mark means and how it looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MarkStyle {
    /// What it is to a reader: `idle`, `use`, `hwm`, `fit` (the SVG's group class, the page's CSS class).
    pub class: &'static str,
    /// How it is drawn.
    pub kind: MarkKind,
    /// Its colour.
    pub tone: Tone,
}

/// A stretch of a box's lines with no mention of it.
pub const IDLE: MarkStyle = MarkStyle { class: "idle", kind: MarkKind::Band, tone: Tone::Wash };
/// The lines after a box's last read over which the compiler still holds its bytes (a loop reads
/// them again on its next iteration).
pub const HELD: MarkStyle = MarkStyle { class: "held", kind: MarkKind::Band, tone: Tone::Wash };
/// The lines that use a box.
pub const USE: MarkStyle = MarkStyle { class: "use", kind: MarkKind::Ticks, tone: Tone::Space };
/// The high-water mark of a lane.
pub const HWM: MarkStyle = MarkStyle { class: "hwm", kind: MarkKind::Rule, tone: Tone::Space };
/// A free range answering a fit query.
pub const FIT: MarkStyle = MarkStyle { class: "fit", kind: MarkKind::Outline, tone: Tone::Good };
/// The capacity of a lane its tiles reach past: a solid line in the critical colour.
pub const CAPACITY: MarkStyle = MarkStyle { class: "capacity", kind: MarkKind::Rule, tone: Tone::Crit };
/// The bytes of a tile past its space's capacity: hatched in the critical colour.
pub const OVERFLOW: MarkStyle = MarkStyle { class: "overflow", kind: MarkKind::Hatch, tone: Tone::Crit };
/// A window `system.reserve_buffer` keeps for the whole function.
pub const RESERVED: MarkStyle = MarkStyle { class: "reserved", kind: MarkKind::Window, tone: Tone::Muted };
/// The bytes between a space's usable and physical size.
pub const UNSAFE_BAND: MarkStyle = MarkStyle { class: "unsafe-band", kind: MarkKind::Window, tone: Tone::Warn };
/// A declared multi-slot allocation over the lines of a tile in it: its outline and which slot.
pub const SLOTS: MarkStyle = MarkStyle { class: "slots", kind: MarkKind::Outline, tone: Tone::Ink };
/// A boundary between two slots inside a box whose slot is chosen at run time.
pub const SLOT_EDGE: MarkStyle = MarkStyle { class: "slot-edge", kind: MarkKind::Rule, tone: Tone::Ink };
/// A tile in an allocation its author declared (`pinned=True`).
pub const PINNED: MarkStyle = MarkStyle { class: "pinned", kind: MarkKind::Dot, tone: Tone::Ink };
/// Every mark style; a new mark adds its style here (the page's copy names styles by index here).
pub const MARK_STYLES: [MarkStyle; 12] =
    [IDLE, USE, HWM, FIT, CAPACITY, OVERFLOW, RESERVED, UNSAFE_BAND, SLOTS, SLOT_EDGE, PINNED, HELD];

fn style_index<S: serde::Serializer>(style: &MarkStyle, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(MARK_STYLES.iter().position(|m| m == style).unwrap_or(0) as u64)
}

/// A mark over a box or a lane.
#[derive(Debug, Clone, Serialize)]
pub struct Mark {
    /// Its meaning and look (an index into [`Plan::styles`] in the page's copy).
    #[serde(serialize_with = "style_index")]
    pub style: MarkStyle,
    /// Byte range (offset, size) within the lane; absent, the mark spans its host box.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<[i64; 2]>,
    /// First and last line covered; absent, the host's (a box's lines, a lane's whole height).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    /// The lines of each tick ([`MarkKind::Ticks`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub at: Vec<u32>,
    /// A text drawn at the mark's left, on a line of its own, where it fits the mark's width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<MarkText>,
    /// What it is about, for a tooltip; absent, the mark says nothing beyond its look. A mark
    /// without one that follows a mark with one belongs to it (a slot edge to its allocation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tip: Option<MarkTip>,
}

/// What a mark is about: a name, a sentence, and the bytes it concerns.
#[derive(Debug, Clone, Serialize)]
pub struct MarkTip {
    /// The thing it marks: a window's name, a tile's, a space's.
    pub name: String,
    /// The tooltip.
    pub text: String,
    /// The bytes `[from, to)` it concerns (the whole unsafe band, where the mark is only a tab).
    pub range: [i64; 2],
}

/// A mark's words and the line they sit on.
#[derive(Debug, Clone, Serialize)]
pub struct MarkText {
    /// What it says.
    pub content: String,
    /// The dump line whose row it is drawn in.
    pub line: u32,
    /// Its width in px at the small size: a drawer shows it only where it fits its host
    /// ([`MarkText::fits`]), unless it is a pill. The page is sent the answers instead (`from`).
    #[serde(skip)]
    pub w: f64,
    /// Drawn always, on a backing pill in the ink colour: where its host is narrower the pill
    /// reaches past it, kept inside the lane (a reserved window names itself and its size
    /// whatever its width, legible over its hatching).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pill: bool,
    /// For the page, by x axis: the first of the lane's zoom steps ([`super::steps`]) at which it
    /// fits its host, `None` where it fits at none the page offers (set for the page only).
    #[serde(skip_serializing_if = "never")]
    pub from: [Option<i32>; 2],
}

fn never(from: &[Option<i32>; 2]) -> bool {
    from.iter().all(Option::is_none)
}

impl MarkText {
    /// `content` in the row of dump line `line`, measured.
    pub fn new(content: String, line: u32) -> MarkText {
        let w = measured(&content, px_rules().small);
        MarkText { content, line, w, pill: false, from: [None; 2] }
    }

    /// Whether it is drawn on a host `w` px wide: a pill always; else where it fits with its
    /// insets.
    pub fn fits(&self, w: f64) -> bool {
        self.pill || self.w + 2.0 * px_rules().inset <= w + FIT_SLACK
    }

    /// `content` on a pill (see [`MarkText::pill`]).
    pub fn pill(content: String, line: u32) -> MarkText {
        MarkText { pill: true, ..MarkText::new(content, line) }
    }
}

/// One space's live bytes per line, as bars already scaled to the column (the column's width does
/// not change with zoom or axis).
#[derive(Debug, Clone, Serialize)]
pub struct ProfilePlan {
    /// Most bytes live at once.
    pub peak: i64,
    /// The first line where they are.
    pub peak_line: u32,
    /// The column's head: `peak L<line>`, then the peak in bytes.
    pub head: [String; 2],
    /// Runs of equal live bytes: first row, rows, bar width in px.
    pub bars: Vec<(u32, u32, f64)>,
}

/// An occupancy pill: `Vec 24 KB/184 KB`, the percentage, its level, the peak line.
#[derive(Debug, Clone, Serialize)]
pub struct Pill {
    /// The space.
    pub space: String,
    /// `Vec hwm 24 KB / 184 KB`, or `Fix hwm 1 KB / capacity unknown`.
    pub text: String,
    /// `13.0%`; empty when the capacity is unknown.
    pub pct: String,
    /// `good`, `warn`, `crit`, or `unknown` (no capacity to compare with).
    pub level: &'static str,
    /// `· peak 8 KB at L49`.
    pub peak: String,
    /// The hover text: every figure in bytes.
    pub title: String,
}

fn is_false(b: &bool) -> bool {
    !*b
}
