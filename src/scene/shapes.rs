//! The scene: every shape of a map, in pixels, with the meaning each group carries. Back ends draw
//! it as it is.

use crate::plan::style::Color;

/// Horizontal anchor of a text run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at `x`.
    Start,
    /// The text ends at `x`.
    End,
}

/// An outline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stroke {
    /// Its colour.
    pub color: Color,
    /// Its width in px.
    pub width: f64,
    /// Dash and gap lengths, for dashed outlines.
    pub dash: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
/// A rectangle, filled or outlined or both.
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// Corner radius; 0 for square corners.
    pub radius: f64,
    /// Fill colour; `None` for an outline only.
    pub fill: Option<Color>,
    /// Outline; `None` for a fill only.
    pub stroke: Option<Stroke>,
}

#[derive(Debug, Clone, PartialEq)]
/// A straight line.
pub struct Line {
    /// Start x.
    pub x1: f64,
    /// Start y.
    pub y1: f64,
    /// End x.
    pub x2: f64,
    /// End y.
    pub y2: f64,
    /// How it is stroked.
    pub stroke: Stroke,
}

/// One run of text; `y` is the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    /// Anchor x (see `anchor`).
    pub x: f64,
    /// Baseline y.
    pub y: f64,
    /// Font size in px.
    pub size: f64,
    /// Colour.
    pub color: Color,
    /// Which end of the text `x` is.
    pub anchor: Anchor,
    /// The text, as written (back ends escape it).
    pub content: String,
}

/// A drawing primitive.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A rectangle.
    Rect(Rect),
    /// A line.
    Line(Line),
    /// A run of text.
    Text(Text),
}

/// A whole picture: a header, then one card per function, stacked.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The document's title (see [`crate::plan::Header::title`]).
    pub title: String,
    /// Width of the whole picture in px.
    pub width: f64,
    /// Its height in px.
    pub height: f64,
    /// The page colour behind everything.
    pub background: Color,
    /// The font family texts are drawn in (the bundled font first).
    pub font_family: &'static str,
    /// The colour of plain text (most texts have it; a writer may give it once, as a default).
    pub ink: Color,
    /// Title, chips and legend.
    pub header: Vec<Shape>,
    /// One card per drawn function, top to bottom.
    pub cards: Vec<Card>,
}

/// One compute function's map.
#[derive(Debug, Clone)]
pub struct Card {
    /// The function's name.
    pub function: String,
    /// Index of the function in the memory map.
    pub index: usize,
    /// The one byte scale of every lane of this card.
    pub px_per_byte: f64,
    /// Bounds of the card.
    pub frame: Rect,
    /// The colour of plain text, as [`Scene::ink`].
    pub ink: Color,
    /// Top of the first dump line's row, and the first line's number.
    pub body_top: f64,
    /// The first dump line of the function.
    pub first_line: u32,
    /// Frame, title row, pills, gutter, footer: everything that is not a lane.
    pub decorations: Vec<Shape>,
    /// The key list under the lanes: each keyed box's key, then its line.
    pub keys: Vec<Shape>,
    /// Its visible lanes, in panel order.
    pub lanes: Vec<Lane>,
    /// Live bytes per line of each visible space, beside the lanes.
    pub profiles: Vec<Profile>,
    /// Where each dump line is drawn (the plan's [`crate::plan::RowMap`]).
    pub rows: crate::plan::RowMap,
    /// The folds of the line axis, drawn over the gutter, the lanes and the live-bytes columns.
    pub cuts: Vec<LineCut>,
}

/// A fold of the line axis, drawn ([`crate::plan::Fold`]): a run of lines where nothing is live,
/// a row or two high across the card's plot, saying which lines it skips.
#[derive(Debug, Clone)]
pub struct LineCut {
    /// The first line it skips.
    pub from: u32,
    /// The last line it skips.
    pub to: u32,
    /// The rows it is drawn in.
    pub rows: u32,
    /// What it is, in a sentence.
    pub title: String,
    /// Its shapes: the cut (its first shape, a rect across the plot), its edges, its words.
    pub shapes: Vec<Shape>,
}

impl ShiftDown for LineCut {
    fn shift_down(&mut self, dy: f64) {
        self.shapes.shift_down(dy);
    }
}

/// The column of one memory space.
#[derive(Debug, Clone)]
pub struct Lane {
    /// The memory space.
    pub space: String,
    /// Bytes the lane spans: the capacity (or the high-water mark, x axis `used`).
    pub span: i64,
    /// Left edge.
    pub x: f64,
    /// Top edge (the column header's).
    pub y: f64,
    /// Width: its span times the card's factor (less a cut stretch, plus its band).
    pub width: f64,
    /// Height, header included.
    pub height: f64,
    /// Wash, divider, header accent and texts, gridlines.
    pub decorations: Vec<Shape>,
    /// Its boxes, views after the boxes they look into.
    pub blocks: Vec<BlockShape>,
    /// Free ranges that answer a `--fit` query, drawn over the boxes.
    pub fits: Vec<Shape>,
    /// The high-water-mark line, drawn over the boxes.
    pub hwm: Option<Line>,
    /// Its px/byte factor: the card's, or its own when it is an inset.
    pub factor: f64,
    /// How its bytes map to px: [`Lane::factor`], except a cut band where the lane is mostly free.
    pub axis: crate::plan::Axis,
    /// For an inset (a lane too small for the card's scale, drawn at its own), its badge and frame.
    pub inset: Option<Inset>,
    /// Where tiles reach past the capacity: the capacity line and the hatching past it.
    pub overflow: Vec<Shape>,
    /// The capacity those shapes mark, in bytes (`None` where nothing reaches past it).
    pub capacity: Option<i64>,
    /// What the compiler placed besides tiles (reserved windows, the unsafe band, slots), drawn
    /// over the boxes.
    pub placed: Vec<Placed>,
}

/// One placed mark: a group of shapes with what it is, for the back ends' classes and tooltips.
#[derive(Debug, Clone)]
pub struct Placed {
    /// `reserved`, `unsafe-band`, `slots` or `pinned`.
    pub class: &'static str,
    /// The window, space or tile it is about.
    pub name: String,
    /// What it is, in words.
    pub tooltip: String,
    /// The first byte it marks.
    pub from: i64,
    /// One past the last byte it marks.
    pub to: i64,
    /// Its shapes.
    pub shapes: Vec<Shape>,
}

impl ShiftDown for Placed {
    fn shift_down(&mut self, dy: f64) {
        self.shapes.shift_down(dy);
    }
}

/// How an inset lane is set apart: a badge saying its scale, and a dashed frame over its boxes.
#[derive(Debug, Clone)]
pub struct Inset {
    /// `x36, not to scale`.
    pub badge: String,
    /// Drawn over the boxes, so no box hides it.
    pub frame: Rect,
}

/// One drawn box, with the facts the back ends expose to scripts and tooltips.
#[derive(Debug, Clone)]
pub struct BlockShape {
    /// Index of the block in its function's `blocks`.
    pub index: usize,
    /// The first name of the box.
    pub name: String,
    /// Its memory space.
    pub space: String,
    /// The base it is carved from.
    pub base: String,
    /// Offset in bytes.
    pub offset: i64,
    /// Size in bytes.
    pub size: i64,
    /// First dump line.
    pub start: u32,
    /// Last dump line.
    pub end: u32,
    /// Further names merged into it.
    pub aliases: Vec<String>,
    /// A view into a wider tile of the same base.
    pub view: bool,
    /// Overlaps another base while both live.
    pub conflict: bool,
    /// The box itself: exactly its bytes wide (at least the minimum), filled.
    pub rect: Rect,
    /// The outline, drawn outside `rect` so the box never loses width to it.
    pub outline: Rect,
    /// Use ticks and the idle stretch, drawn between the fill and the outline.
    pub marks: Vec<Shape>,
    /// Its label texts, as the label rule fitted them: inside the box, or beside it.
    pub label: Vec<Text>,
    /// For a label beside the box, the line from the box's edge to it.
    pub leader: Option<Line>,
    /// Its key, where the label shows the key rather than the name (the card's key list names it).
    pub key: Option<usize>,
    /// Tooltip lines.
    pub tooltip: Vec<String>,
}

/// One narrow column of a space's live bytes per line, scaled to its peak, with the peak row marked.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The memory space.
    pub space: String,
    /// Left edge.
    pub x: f64,
    /// Width.
    pub width: f64,
    /// Most bytes live at once.
    pub peak_bytes: i64,
    /// The first line where they are.
    pub peak_line: u32,
    /// Wash, head texts, bars and the peak row.
    pub shapes: Vec<Shape>,
}

/// Moving a laid-out part down the page. Cards are laid out at the top, each on its own core, and
/// then moved to where the cards above them end.
pub(crate) trait ShiftDown {
    /// Adds `dy` to every vertical coordinate.
    fn shift_down(&mut self, dy: f64);
}

impl ShiftDown for Rect {
    fn shift_down(&mut self, dy: f64) {
        self.y += dy;
    }
}

impl ShiftDown for Line {
    fn shift_down(&mut self, dy: f64) {
        self.y1 += dy;
        self.y2 += dy;
    }
}

impl ShiftDown for Text {
    fn shift_down(&mut self, dy: f64) {
        self.y += dy;
    }
}

impl ShiftDown for Shape {
    fn shift_down(&mut self, dy: f64) {
        match self {
            Shape::Rect(r) => r.shift_down(dy),
            Shape::Line(l) => l.shift_down(dy),
            Shape::Text(t) => t.shift_down(dy),
        }
    }
}

impl<T: ShiftDown> ShiftDown for Vec<T> {
    fn shift_down(&mut self, dy: f64) {
        self.iter_mut().for_each(|item| item.shift_down(dy));
    }
}

impl<T: ShiftDown> ShiftDown for Option<T> {
    fn shift_down(&mut self, dy: f64) {
        if let Some(item) = self {
            item.shift_down(dy);
        }
    }
}

impl ShiftDown for BlockShape {
    fn shift_down(&mut self, dy: f64) {
        self.rect.shift_down(dy);
        self.outline.shift_down(dy);
        self.marks.shift_down(dy);
        self.label.shift_down(dy);
        self.leader.shift_down(dy);
    }
}

impl ShiftDown for Inset {
    fn shift_down(&mut self, dy: f64) {
        self.frame.shift_down(dy);
    }
}

impl ShiftDown for Lane {
    fn shift_down(&mut self, dy: f64) {
        self.y += dy;
        self.decorations.shift_down(dy);
        self.blocks.shift_down(dy);
        self.fits.shift_down(dy);
        self.hwm.shift_down(dy);
        self.inset.shift_down(dy);
        self.overflow.shift_down(dy);
        self.placed.shift_down(dy);
    }
}

impl ShiftDown for Profile {
    fn shift_down(&mut self, dy: f64) {
        self.shapes.shift_down(dy);
    }
}

impl ShiftDown for Card {
    fn shift_down(&mut self, dy: f64) {
        self.frame.shift_down(dy);
        self.body_top += dy;
        self.decorations.shift_down(dy);
        self.keys.shift_down(dy);
        self.lanes.shift_down(dy);
        self.profiles.shift_down(dy);
        self.cuts.shift_down(dy);
    }
}
