//! The scene: every shape of a map, in pixels, with the meaning each group carries. Back ends draw
//! it as it is.

use super::style::Color;

/// Horizontal anchor of a text run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    End,
}

/// An outline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stroke {
    pub color: Color,
    pub width: f64,
    /// Dash and gap lengths, for dashed outlines.
    pub dash: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub radius: f64,
    pub fill: Option<Color>,
    pub stroke: Option<Stroke>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    pub stroke: Stroke,
}

/// One run of text; `y` is the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub x: f64,
    pub y: f64,
    pub size: f64,
    pub color: Color,
    pub anchor: Anchor,
    pub content: String,
}

/// A drawing primitive.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Rect(Rect),
    Line(Line),
    Text(Text),
}

/// A whole picture: a header, then one card per function, stacked.
#[derive(Debug, Clone)]
pub struct Scene {
    pub width: f64,
    pub height: f64,
    pub background: Color,
    pub font_family: &'static str,
    /// Title, chips and legend.
    pub header: Vec<Shape>,
    pub cards: Vec<Card>,
}

/// One compute function's map.
#[derive(Debug, Clone)]
pub struct Card {
    pub function: String,
    /// Index of the function in the memory map.
    pub index: usize,
    /// The one byte scale of every lane of this card (D5).
    pub px_per_byte: f64,
    /// Bounds of the card.
    pub frame: Rect,
    /// Top of the first dump line's row, and the first line's number.
    pub body_top: f64,
    pub first_line: u32,
    /// Frame, title row, pills, gutter, footer: everything that is not a lane.
    pub decorations: Vec<Shape>,
    pub lanes: Vec<Lane>,
    /// Live bytes per line of each visible space, beside the lanes.
    pub profiles: Vec<Profile>,
}

/// The column of one memory space.
#[derive(Debug, Clone)]
pub struct Lane {
    pub space: String,
    /// Bytes the lane spans: the capacity (or the high-water mark, x axis `used`).
    pub span: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// Wash, divider, header accent and texts, gridlines.
    pub decorations: Vec<Shape>,
    pub blocks: Vec<BlockShape>,
    /// Free ranges that answer a `--fit` query, drawn over the boxes.
    pub fits: Vec<Shape>,
    /// The high-water-mark line, drawn over the boxes.
    pub hwm: Option<Line>,
    /// Its px/byte factor: the card's, or its own when it is an inset.
    pub factor: f64,
    /// For an inset (a lane too small for the card's scale, drawn at its own), its badge and frame.
    pub inset: Option<Inset>,
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
    pub name: String,
    pub space: String,
    pub base: String,
    pub offset: i64,
    pub size: i64,
    pub start: u32,
    pub end: u32,
    pub aliases: Vec<String>,
    pub view: bool,
    pub conflict: bool,
    /// The box itself: exactly its bytes wide (at least the minimum), filled.
    pub rect: Rect,
    /// The outline, drawn outside `rect` so the box never loses width to it.
    pub outline: Rect,
    /// Use ticks and the idle stretch, drawn between the fill and the outline.
    pub marks: Vec<Shape>,
    pub label: Vec<Text>,
    /// Tooltip lines (H7).
    pub tooltip: Vec<String>,
}

/// One narrow column of a space's live bytes per line, scaled to its peak, with the peak row marked.
#[derive(Debug, Clone)]
pub struct Profile {
    pub space: String,
    pub x: f64,
    pub width: f64,
    pub peak_bytes: i64,
    pub peak_line: u32,
    pub shapes: Vec<Shape>,
}
