//! The plan of a map: everything any back end draws, decided once, before any factor is chosen.
//!
//! Zoom, the x axis and hidden spaces change pixels but nothing else, so the plan speaks in bytes
//! across and dump lines down, and in finished text: lanes with their span on both axes, the card's
//! px/byte factor for every set of visible lanes, boxes with their byte and line ranges, label
//! candidates and tooltip lines, marks, the live-bytes profile, pills and summary lines. The SVG
//! back end gets it through [`crate::layout`] (the plan placed by the scene at the view's factor); the HTML page embeds it
//! as JSON and its script places it at whatever factor the reader picks, with [`place`]'s rule and
//! the label rule of [`labels`] (written once in Rust, mirrored by the script, and held equal
//! by a test over cases Rust writes and by the browser test that compares every box with the SVG).
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
pub mod page;
mod picture;
mod placed;
pub mod style;
pub mod text;
pub mod width;
pub use crate::analyze::live::{at as live_figures, figures_at as live_at};
pub use axis::{Axis, Cut};
pub use marks::{summary, wrap};
pub use page::{Header, Page};
pub use picture::{Findings, Picture, PlacedMarks};
pub use placed::PLACED_STYLES;
pub use width::gutter_width;

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
    /// The two badges' widths in px at the small size: a drawer shows the first that fits.
    pub badge_w: [f64; 2],
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
    /// Its width in px at the small size, for centring it on its line.
    pub hwm_w: f64,
    /// Marks over the boxes: the high-water-mark rule, free ranges answering a fit query.
    pub marks: Vec<Mark>,
    /// The live-bytes column beside the lanes.
    pub profile: ProfilePlan,
    /// By axis, the lane's longest free stretch where it is drawn as a band of fixed width
    /// ([`Axis`]): the bytes either side keep the card's scale.
    #[serde(skip_serializing_if = "no_cuts")]
    pub cuts: [Option<Cut>; 2],
    /// The live list's figures by line: `[line, total, offset, size]` at each line where the live
    /// set changes (at most two a box), the union of the live boxes' bytes and the largest free
    /// range ([`live_at`]'s rule); a line's figures are the last entry's at or before it.
    pub live: Vec<[i64; 4]>,
    /// The lane's boxes (indices into [`CardPlan::boxes`]) in the order a line's live list names
    /// them: largest first, then by offset. The live list at a line is those of them live there.
    pub by_size: Vec<usize>,
    /// The lane's placed reserved windows (name, offset, size): live on every line, so in every
    /// line's live list after its boxes, marked reserved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<(String, i64, i64)>,
}

fn no_cuts(cuts: &[Option<Cut>; 2]) -> bool {
    cuts.iter().all(Option::is_none)
}

impl LanePlan {
    /// The lane's axis on axis `axis` (`0` limit, `1` used) at `k` px/byte.
    pub fn axis(&self, axis: usize, k: f64) -> Axis {
        let cut = self.cuts[axis].as_ref().map(|c| (c.from, c.to));
        Axis { k, cut, px: if cut.is_some() { CUT_PX } else { 0.0 } }
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
    /// What each candidate takes across, measured here once with the bundled font: every drawer,
    /// the page's script included, only compares these with the room a box leaves.
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
fn measured(text: &str, size: f64) -> f64 {
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
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct FittedLabel {
    /// The whole name, or the key where the label rule keyed the box.
    pub name: Option<String>,
    /// The alias badge.
    pub badge: Option<String>,
    /// The detail line.
    pub detail: Option<String>,
}

/// The label rule inside a box `w` x `h` px, on the plan's widths alone: the name with its badge
/// where both fit, else nothing (the key or a place beside the box is the caller's next choice: a
/// name is never cut); on a box two lines high or more, the first detail that fits. What does not
/// fit is left out; the tooltip still has it all.
pub fn fit_label(label: &LabelPlan, w: f64, h: f64, px: &PxRules) -> FittedLabel {
    let room = w - 2.0 * px.inset;
    let whole = label.w.full <= room;
    let detail = if h >= 2.0 * px.line {
        label.w.details.iter().position(|&d| d <= room).map(|i| label.details[i].clone())
    } else {
        None
    };
    FittedLabel {
        name: whole.then(|| label.name.clone()),
        badge: (whole && !label.badge.is_empty()).then(|| label.badge.clone()),
        detail,
    }
}

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
    /// Its width in px at the small size: a drawer shows it only where its host is this wide,
    /// unless it is a pill.
    pub w: f64,
    /// Drawn always, on a backing pill in the ink colour: where its host is narrower the pill
    /// reaches past it, kept inside the lane (a reserved window names itself and its size
    /// whatever its width, legible over its hatching).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pill: bool,
}

impl MarkText {
    /// `content` in the row of dump line `line`, measured.
    pub fn new(content: String, line: u32) -> MarkText {
        let w = measured(&content, px_rules().small);
        MarkText { content, line, w, pill: false }
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

/// Where a byte range lands in a lane `lane_w` px wide at `factor`: its left edge from the lane's
/// left, and its width. Never narrower than the minimum box; a range past either end of the lane
/// (a negative offset, say) is moved inside it rather than drawn outside.
pub fn place(offset: i64, size: i64, factor: f64, lane_w: f64, min_px: f64) -> (f64, f64) {
    let w = (size.max(0) as f64 * factor).max(min_px);
    let x = (offset as f64 * factor).clamp(0.0, (lane_w - w).max(0.0));
    (x, w)
}

/// Bytes a lane spans under `axis`; never less than what is allocated, so no box leaves its lane.
pub fn span(space: &SpaceUsage, axis: XAxis) -> i64 {
    match axis {
        XAxis::Limit => space.limit.max(space.hwm),
        XAxis::Used => space.hwm,
    }
    .max(1)
}

/// The px/byte factor of a card: fill `width` with the sum of spans, grow until the narrowest
/// lane reaches the minimum, then apply the zoom.
pub fn px_per_byte(spans: &[i64], width: f64, zoom: f64) -> f64 {
    let total: f64 = spans.iter().map(|&s| s as f64).sum();
    let narrowest = spans.iter().copied().min().unwrap_or(1).max(1) as f64;
    let fill = width / total.max(1.0);
    fill.max(RULES.min_lane_px / narrowest) * zoom
}

/// The card's main px/byte factor at zoom 1 for lanes spanning `spans` bytes. `Strict` is
/// [`px_per_byte`]: the whole factor grows until the narrowest lane is the minimum wide. `Insets`
/// keeps the factor that fills `width` with the lanes that can hold it: the lanes that would be
/// insets ([`is_inset`]: too narrow, and magnified enough by an inset) are set aside one by one
/// until none left is one at the fill of those left; a set-aside lane that is no inset at that fill
/// rejoins them (the factor then grows a little, as in `Strict`, never past that fill). The lanes
/// left out are exactly those with [`is_inset`] at the answer, so a drawer given only the factor
/// classifies every lane the same way.
///
/// The insets' own widths come out of `width` too, so that the lanes and the insets together fill
/// it: a card is as wide as `--width` asks, whatever its small spaces.
pub fn main_factor(spans: &[i64], width: f64, mode: ScaleMode) -> f64 {
    let lanes: Vec<(i64, f64)> = spans.iter().map(|&s| (s, 0.0)).collect();
    lanes_factor(&lanes, width, mode)
}

/// [`main_factor`] for lanes each drawn as `(bytes to scale, px of fixed width)`: a lane with a cut
/// band spans its bytes less the cut at the factor, plus the band. The bands of the lanes at the
/// card's factor come out of `width` too; an inset's band is inside the inset.
pub fn lanes_factor(lanes: &[(i64, f64)], width: f64, mode: ScaleMode) -> f64 {
    let spans: Vec<i64> = lanes.iter().map(|l| l.0).collect();
    let fixed: f64 = lanes.iter().map(|l| l.1).sum();
    if mode == ScaleMode::Strict || spans.len() < 2 {
        return px_per_byte(&spans, (width - fixed).max(RULES.min_lane_px), 1.0);
    }
    // Fewer px for the lanes makes more of them insets, never fewer: this settles within one pass
    // per lane. An inset takes at most an equal share of the room, so that on a card of many small
    // spaces the lanes at the card's scale are not squeezed to the minimum behind full-width insets
    // ([`inset_width`] then gives the insets what those lanes leave).
    let share = (width / spans.len() as f64).clamp(RULES.min_lane_px, RULES.inset_px);
    let mut room = (width - fixed).max(RULES.min_lane_px);
    for _ in 0..=spans.len() {
        let factor = fill_factor(lanes, room);
        let inset = |l: &&(i64, f64)| is_inset(l.0, l.1, factor, true);
        let insets = lanes.iter().filter(inset).count();
        let bands: f64 = lanes.iter().filter(|l| !inset(l)).map(|l| l.1).sum();
        let next = (width - insets as f64 * share - bands).max(RULES.min_lane_px);
        if (next - room).abs() < 1e-9 || insets == spans.len() {
            return factor;
        }
        room = next;
    }
    fill_factor(lanes, room)
}

/// The card's room for its lanes inside a panel `width` px wide: what the line-number gutter
/// (`gutter` px) and the live-bytes columns of `lanes` visible lanes leave, never less than one
/// lane. A card is then as wide as its panel, not its panel plus its columns.
pub fn lane_room(width: f64, gutter: f64, lanes: usize) -> f64 {
    (width - gutter - RULES.profile_gap - lanes as f64 * (RULES.profile_px + 4.0)).max(RULES.min_lane_px)
}

/// [`main_factor`]'s fill of `width` by the lanes (`(bytes to scale, band px)`) that can hold it:
/// the lanes that would be insets are set aside, most in need first, until the next one is no inset
/// at the fill of those left; then every lane that is no inset at that fill is at the card's scale,
/// and the factor grows (never past that fill) until none of them is one.
fn fill_factor(lanes: &[(i64, f64)], width: f64) -> f64 {
    let mut sorted: Vec<(i64, f64)> = lanes.iter().map(|&(s, band)| (s.max(1), band)).collect();
    sorted.sort_by(|a, b| inset_until(b.0, b.1).total_cmp(&inset_until(a.0, a.1)));
    // Summed as floats: a hostile dump's spans may add up past i64, and a factor needs no exact sum.
    let sum = |ls: &[(i64, f64)]| ls.iter().map(|&(s, _)| s as f64).sum::<f64>();
    let mut fill = width / sum(&sorted);
    for k in 0..sorted.len() {
        fill = width / sum(&sorted[k..]);
        if !is_inset(sorted[k].0, sorted[k].1, fill, true) {
            break;
        }
    }
    let main: Vec<(i64, f64)> = sorted.into_iter().filter(|&(s, band)| !is_inset(s, band, fill, true)).collect();
    if main.is_empty() {
        return fill;
    }
    main.iter().map(|&(s, band)| inset_until(s, band)).fold(width / sum(&main), f64::max).min(fill)
}

/// Whether a lane with `span` bytes to scale and a cut band `band` px wide (0 without one) is drawn
/// as an inset at a card whose main factor is `factor` px/byte at zoom 1: at that factor it would be
/// narrower than the minimum lane, its band included. A lane whose band already makes it that wide
/// is drawn at the card's scale: as an inset it would be magnified barely or not at all (`x1.3`, even
/// `x0.8`), which tells a reader nothing the card's scale does not.
pub fn is_inset(span: i64, band: f64, factor: f64, insets: bool) -> bool {
    insets && span.max(1) as f64 * factor + band < RULES.min_lane_px - 1e-6
}

/// The factor below which a lane (`span` bytes to scale, a band `band` px wide) is an inset.
fn inset_until(span: i64, band: f64) -> f64 {
    (RULES.min_lane_px - band) / span.max(1) as f64
}

/// The px/byte factor of an inset lane at zoom 1 with `span` bytes to scale and a cut band `band`
/// px wide (0 without one): it is `width` px wide ([`inset_width`]).
pub fn inset_factor(span: i64, band: f64, width: f64) -> f64 {
    (width - band).max(1.0) / span.max(1) as f64
}

/// How wide each inset is at zoom 1 on a card whose lanes (`(bytes to scale, band px)`) have the
/// main factor `factor` and `room` px between the line numbers and the live-bytes columns:
/// `RULES.inset_px`, or less where the lanes at the card's scale leave less, never under the
/// minimum lane. The lanes at the card's scale keep their width (none is under the minimum), so
/// narrower insets are what keeps a card of many small spaces inside its panel.
pub fn inset_width(lanes: &[(i64, f64)], room: f64, factor: f64, insets: bool) -> f64 {
    let small = lanes.iter().filter(|l| is_inset(l.0, l.1, factor, insets)).count();
    if small == 0 {
        return RULES.inset_px;
    }
    let main: f64 =
        lanes.iter().filter(|l| !is_inset(l.0, l.1, factor, insets)).map(|l| l.0.max(1) as f64 * factor + l.1).sum();
    ((room - main) / small as f64).clamp(RULES.min_lane_px, RULES.inset_px)
}

/// The badge of an inset: how much larger its scale is than the card's (`x36, not to scale`).
pub fn inset_badge(inset: f64, main: f64) -> String {
    format!("{}, not to scale", inset_ratio(inset, main))
}

/// The short badge of an inset, for a lane too narrow for [`inset_badge`]: `x36`.
pub fn inset_ratio(inset: f64, main: f64) -> String {
    let ratio = inset / main;
    if ratio >= 10.0 { format!("x{}", ratio.round()) } else { format!("x{:.1}", ratio) }
}

/// Lanes past this many get factors only for "all shown" and "one hidden" (a table of every subset
/// would be 2^n entries; real chips have at most eight spaces).
const MAX_SUBSET_LANES: usize = 10;

/// The factor at zoom 1 for every set of visible lanes, by axis.
fn factors(f: &FunctionMap, lanes: &[LanePlan], width: f64, mode: ScaleMode) -> [Vec<f64>; 2] {
    let n = lanes.len().min(MAX_SUBSET_LANES);
    let table = |axis: usize| -> Vec<f64> {
        (0..1usize << n)
            .map(|mask| {
                let (shown, room) = shown_lanes(lanes, axis, mask, (width, f.src_end));
                if shown.is_empty() { 0.0 } else { lanes_factor(&shown, room, mode) }
            })
            .collect()
    };
    [table(0), table(1)]
}

/// The lanes of set `mask` on axis `axis`, as [`lanes_factor`] takes them, and their room on a card
/// of panel `width` whose last dump line is `last` ([`lane_room`]).
fn shown_lanes(lanes: &[LanePlan], axis: usize, mask: usize, (width, last): (f64, u32)) -> (Vec<(i64, f64)>, f64) {
    let n = lanes.len().min(MAX_SUBSET_LANES);
    let shown: Vec<(i64, f64)> = lanes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < n && mask & (1 << i) != 0)
        .map(|(_, l)| scaled(l, axis))
        .collect();
    let room = lane_room(width, width::gutter_width(last), shown.len());
    (shown, room)
}

/// The inset lanes of every set of visible lanes at `factors` ([`CardPlan::inset_lanes`]) on a
/// card of `panel` (its width and last dump line, as [`shown_lanes`] takes them).
fn inset_table(
    lanes: &[LanePlan],
    factors: &[Vec<f64>; 2],
    panel: (f64, u32),
    mode: ScaleMode,
) -> [std::collections::BTreeMap<usize, Vec<InsetLane>>; 2] {
    [0, 1].map(|axis| {
        let mut out = std::collections::BTreeMap::new();
        for (mask, &main) in factors[axis].iter().enumerate().skip(1) {
            let (shown, room) = shown_lanes(lanes, axis, mask, panel);
            let inset_w = inset_width(&shown, room, main, mode == ScaleMode::Insets);
            let insets: Vec<InsetLane> = lanes
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < MAX_SUBSET_LANES && mask & (1 << i) != 0)
                .filter_map(|(i, l)| {
                    let (scaled, band) = scaled(l, axis);
                    is_inset(scaled, band, main, mode == ScaleMode::Insets).then(|| {
                        let own = inset_factor(scaled, band, inset_w);
                        let badge = [inset_badge(own, main), inset_ratio(own, main)];
                        let badge_w = [0, 1].map(|b| measured(&badge[b], px_rules().small));
                        InsetLane { lane: i, factor: own, badge, badge_w }
                    })
                })
                .collect();
            if !insets.is_empty() {
                out.insert(mask, insets);
            }
        }
        out
    })
}

/// A lane on axis `axis` as [`lanes_factor`] takes it: bytes to scale, and its band's px.
pub fn scaled(l: &LanePlan, axis: usize) -> (i64, f64) {
    match &l.cuts[axis] {
        Some(c) => ((l.span[axis] - c.size()).max(1), CUT_PX),
        None => (l.span[axis], 0.0),
    }
}

/// The bit set of the lanes `view` shows (never none: the last one stays).
pub fn visible_mask(f: &FunctionMap, view: &ViewOptions) -> usize {
    let mask = f
        .spaces
        .iter()
        .enumerate()
        .filter(|(_, s)| !view.hidden.iter().any(|h| h == &s.space))
        .fold(0usize, |m, (i, _)| m | 1 << i);
    if mask == 0 && !f.spaces.is_empty() { 1 } else { mask }
}

/// The plan of every function `view` draws.
pub fn plan(map: &crate::model::MemoryMap, view: &ViewOptions) -> Plan {
    planned(map, view, &Planner::new(map, view))
}

/// The plan of `map` with every card `planner` (made for the same `view`) plans. The cards and the
/// plan's words are found at once: the words are a pass over every function of their own, whose
/// sorting and formatting would otherwise hold the page a third of a millisecond on one core.
pub fn planned(map: &crate::model::MemoryMap, view: &ViewOptions, planner: &Planner) -> Plan {
    let (cards, words) =
        crate::par::both(planner.len() > 1, || planner.cards(0..planner.len()), || marks::live_words(map, view));
    Plan { px: px_rules(), styles: &MARK_STYLES, cards, words }
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

    /// [`Planner::cards`] for pictures that show no tooltips (the page's static cards): the same
    /// plans, without the boxes' tooltip lines.
    pub fn pictures(&self, range: std::ops::Range<usize>) -> Vec<CardPlan> {
        self.plan(range, Tips::Left)
    }

    fn plan(&self, range: std::ops::Range<usize>, tips: Tips) -> Vec<CardPlan> {
        let jobs = self.jobs.get(range).unwrap_or_default();
        crate::par::map_ref(jobs, |&(f, width)| plan_card(f, &ViewOptions { width, ..self.view.clone() }, tips))
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

impl Serialize for PlanStream<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut plan = s.serialize_struct("Plan", if self.words.is_empty() { 3 } else { 4 })?;
        plan.serialize_field("px", &px_rules())?;
        plan.serialize_field("styles", &MARK_STYLES)?;
        plan.serialize_field("cards", &Batches(self.planner))?;
        if !self.words.is_empty() {
            plan.serialize_field("words", &self.words)?;
        }
        plan.end()
    }
}

/// The cards of a [`PlanStream`], as a JSON array.
struct Batches<'a>(&'a Planner<'a>);

impl Serialize for Batches<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for from in (0..self.0.len()).step_by(PLANS_AT_ONCE) {
            for card in self.0.cards(from..(from + PLANS_AT_ONCE).min(self.0.len())) {
                seq.serialize_element(&card)?;
            }
        }
        seq.end()
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
    let (drawn, factor) = width::scale(f, view);
    let mut lanes: Vec<LanePlan> = f.spaces.iter().map(|s| lane_plan(f, s, view.scale_mode)).collect();
    let factors = factors(f, &lanes, view.width, view.scale_mode);
    let inset_lanes = inset_table(&lanes, &factors, (view.width, f.src_end), view.scale_mode);
    let legend = card_legend(&lanes);
    let mut boxes: Vec<BoxPlan> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| box_plan(i, f.spaces.iter().position(|s| s.space == b.tile.space).unwrap_or(0), b, tips))
        .collect();
    number_in_reading_order(&mut boxes);
    for (li, lane) in lanes.iter_mut().enumerate() {
        lane.by_size = (0..boxes.len()).filter(|&i| boxes[i].lane == li).collect();
        lane.by_size.sort_by_key(|&i| (std::cmp::Reverse(boxes[i].bytes[1]), boxes[i].bytes[0], i));
    }
    CardPlan {
        function: f.name.clone(),
        first: f.src_start,
        last: f.src_end,
        lanes,
        factors,
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

/// The marks of space `s`'s lane a cut must leave whole: fit answers, the high-water mark, the
/// capacity and what lies past it ([`LanePlan::marks`]).
pub fn lane_marks(f: &FunctionMap, s: &SpaceUsage) -> Vec<Mark> {
    let mut marks = marks::fit_plan(f, &s.space);
    marks.extend(marks::overflow_plan(f, s));
    marks
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

fn lane_plan(f: &FunctionMap, s: &SpaceUsage, mode: ScaleMode) -> LanePlan {
    let span = [span(s, XAxis::Limit), span(s, XAxis::Used)];
    let mut marks = marks::fit_plan(f, &s.space);
    marks.push(Mark { style: HWM, bytes: Some([s.hwm, 0]), lines: None, at: Vec::new(), text: None, tip: None });
    marks.extend(marks::overflow_plan(f, s));
    marks.extend(placed::lane_marks(f, s));
    let cuts = [0, 1].map(|a| lane_cut(f, s, span[a], mode, &marks).map(|r| axis::cut(r, CUT_PX)));
    LanePlan {
        cuts,
        space: s.space.clone(),
        limit: s.limit,
        span,
        ends: [fmt_bytes(span[0]), fmt_bytes(span[1])],
        hwm: format!("hwm {}", fmt_bytes(s.hwm)),
        hwm_w: measured(&format!("hwm {}", fmt_bytes(s.hwm)), px_rules().small),
        marks,
        profile: marks::profile_plan(s),
        live: marks::lane_changes(f, s),
        by_size: Vec::new(), // filled once the card's boxes are planned
        windows: f
            .reserved
            .iter()
            .filter(|r| r.space == s.space)
            .filter_map(|r| Some((r.name.clone(), r.offset?, r.size)))
            .collect(),
    }
}

fn box_plan(index: usize, lane: usize, b: &Block, tips: Tips) -> BoxPlan {
    let t = &b.tile;
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
            vec![format!("{} · [{}, {})", fmt_bytes(t.size), t.offset, t.stop()), fmt_bytes(t.size)],
        ),
        tip: if tips == Tips::Written { tooltip(b) } else { Vec::new() },
        marks: marks::box_marks(b),
        n: 0, // numbered once every box is planned
        key: key_entry(b),
    }
}

/// `t__tile (+t__tile_1, t__tile_2) · 8 KB · [0, 8192) · L12–L30`: a box's line in the card's key.
fn key_entry(b: &Block) -> String {
    let t = &b.tile;
    // Three aliases say which chain it is; the rest are counted (the tooltip lists them all).
    let aliases = match b.aliases.len() {
        0 => String::new(),
        1..=3 => format!(" (+{})", b.aliases.join(", ")),
        n => format!(" (+{}, {} more)", b.aliases[..3].join(", "), n - 3),
    };
    let held = if t.held() > t.end { format!(", held to L{}", t.held()) } else { String::new() };
    format!(
        "{}{aliases} · {} · [{}, {}) · L{}–L{}{held}",
        t.name,
        fmt_bytes(t.size),
        t.offset,
        t.stop(),
        t.start,
        t.end
    )
}

/// `held to line 79 by the loop at line 62`: why a box goes on past its last read.
pub fn held_words(t: &crate::model::Tile) -> Option<String> {
    (t.held() > t.end).then(|| match t.held_by {
        Some(header) => format!("held to line {} by the loop at line {header}", t.held()),
        None => format!("held to line {} for a read of the loop's or branch's result", t.held()),
    })
}

/// The tooltip under the name: space, shape and dtype, op, base, size, address range, lines,
/// aliases, marks.
fn tooltip(b: &Block) -> Vec<String> {
    let t = &b.tile;
    let shape = if t.shape.is_empty() {
        "shape ?".to_string()
    } else {
        format!("[{}]", t.shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
    };
    let mut lines = vec![
        format!("{} · {} {} · {}", t.space, shape, t.dtype, if t.op.is_empty() { "(no op)" } else { &t.op }),
        format!("base {} · {} ({} B)", t.base, fmt_bytes(t.size), t.size),
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
    if !t.layout.is_empty() {
        lines.push(format!("layout: {}", t.layout));
    }
    lines
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
        assert_eq!(wide.badge.as_deref(), Some("+2"));
        assert_eq!(wide.detail.as_deref(), Some("8 KB · [0, 8192)"));
        let narrow = fit_label(&label, 60.0, 17.0, &px);
        assert_eq!(narrow.detail, None, "one line high: no detail");
        assert_eq!(narrow.name, None, "a name is never cut");
        assert_eq!(narrow.badge, None, "no badge without its name");
        assert_eq!(fit_label(&label, 60.0, 34.0, &px).detail.as_deref(), Some("8 KB"));
    }
}
