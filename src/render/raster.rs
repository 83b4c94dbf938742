//! The scene drawn straight onto pixels with tiny-skia: the shapes the SVG writer would write, as
//! the paths usvg would make of them, without the SVG text between (writing it, parsing it, and
//! shaping every text anew, which set up the font's whole substitution tables each time: a third
//! of a large PNG's work).
//!
//! Texts are shaped with the shaper usvg uses (harfrust, the bundled font set up once) and drawn
//! from the font's outlines (skrifa, each glyph read once), so ligatures and positions are the
//! SVG's. Coordinates go through the SVG's rounding to hundredths of a px, so the paths are the
//! ones the SVG describes.

use std::collections::HashMap;
use std::sync::OnceLock;

use resvg::tiny_skia::{self, FillRule, Paint, Path, PathBuilder, Transform};
use skrifa::MetadataProvider;
use skrifa::raw::TableProvider as _;

use super::svg::alike;
use crate::plan::style::Color;
use crate::plan::text::FONT;
use crate::scene::{Anchor, BlockShape, Card, Lane, Line, Rect, Scene, Shape, Stroke, Text};

/// One drawing operation of a scene, in painting order, with its path in the scene's px.
pub(crate) struct Op {
    path: Path,
    color: Color,
    /// `None` fills the path; a stroke outlines it.
    stroke: Option<tiny_skia::Stroke>,
}

impl Op {
    /// How far up and down it may draw, in px (its stroke included).
    pub(crate) fn span(&self) -> (f32, f32) {
        let b = self.path.bounds();
        let half = self.stroke.as_ref().map_or(0.0, |s| s.width);
        (b.top() - half, b.bottom() + half)
    }

    /// Draws it at `transform` (from the scene's px to the pixmap's pixels).
    pub(crate) fn draw(&self, transform: Transform, pixmap: &mut tiny_skia::PixmapMut) {
        let mut paint = Paint::default();
        paint.set_color_rgba8(self.color.0, self.color.1, self.color.2, 255);
        paint.anti_alias = true;
        match &self.stroke {
            None => pixmap.fill_path(&self.path, &paint, FillRule::Winding, transform, None),
            Some(stroke) => pixmap.stroke_path(&self.path, &paint, stroke, transform, None),
        }
    }
}

/// The scene's operations, in the order the SVG document paints them (after its background,
/// which the caller paints).
pub(crate) fn ops(scene: &Scene) -> Vec<Op> {
    let mut out = Ops { ops: Vec::new(), shaped: HashMap::new() };
    out.shapes(&scene.header);
    for card in &scene.cards {
        out.card(card);
    }
    out.ops
}

struct Ops<'a> {
    ops: Vec<Op>,
    /// Each distinct text shaped once: its glyphs and their positions in font units.
    shaped: HashMap<&'a str, Vec<Glyph>>,
}

impl<'a> Ops<'a> {
    fn card(&mut self, card: &'a Card) {
        self.shapes(&card.decorations);
        self.shapes(&card.keys);
        for lane in &card.lanes {
            self.lane(lane);
        }
        for p in &card.profiles {
            self.shapes(&p.shapes);
        }
    }

    fn lane(&mut self, lane: &'a Lane) {
        self.shapes(&lane.decorations);
        for block in &lane.blocks {
            self.block(block);
        }
        self.shapes(&lane.fits);
        if let Some(line) = &lane.hwm {
            self.line(line);
        }
        if let Some(inset) = &lane.inset {
            self.rect(&inset.frame);
        }
        if lane.capacity.is_some() {
            self.shapes(&lane.overflow);
        }
        for p in &lane.placed {
            self.shapes(&p.shapes);
        }
    }

    fn block(&mut self, b: &'a BlockShape) {
        self.rect(&b.rect);
        self.shapes(&b.marks);
        self.rect(&b.outline);
        if let Some(leader) = &b.leader {
            self.line(leader);
        }
        for t in &b.label {
            self.text(t);
        }
    }

    /// `shapes` in order, a run of alike ones as one path, as the SVG writer groups them (a run's
    /// anti-aliased edges then blend once where its shapes touch, as in the SVG).
    fn shapes(&mut self, shapes: &'a [Shape]) {
        let mut rest = shapes;
        while let Some(first) = rest.first() {
            let run = rest.iter().take_while(|s| alike(first, s)).count().max(1);
            let (now, later) = rest.split_at(run);
            match first {
                Shape::Rect(r) if run == 1 => self.rect(r),
                Shape::Rect(r) => {
                    let mut pb = PathBuilder::new();
                    for s in now {
                        if let Shape::Rect(r) = s {
                            // The writer's `M x y h w v h h -w z`, resolved as usvg does.
                            let (x, y, w, h) = (cents(r.x), cents(r.y), cents(r.w), cents(r.h));
                            pb.move_to(x as f32, y as f32);
                            pb.line_to((x + w) as f32, y as f32);
                            pb.line_to((x + w) as f32, (y + h) as f32);
                            pb.line_to((x + w - w) as f32, (y + h) as f32);
                            pb.close();
                        }
                    }
                    if let (Some(path), Some(fill)) = (pb.finish(), r.fill) {
                        self.ops.push(Op { path, color: fill, stroke: None });
                    }
                }
                Shape::Line(l) if run == 1 => self.line(l),
                Shape::Line(l) => {
                    let mut pb = PathBuilder::new();
                    for s in now {
                        if let Shape::Line(l) = s {
                            pb.move_to(cents(l.x1) as f32, cents(l.y1) as f32);
                            pb.line_to(cents(l.x2) as f32, cents(l.y2) as f32);
                        }
                    }
                    self.stroked(pb.finish(), l.stroke);
                }
                Shape::Text(_) => {
                    for s in now {
                        if let Shape::Text(t) = s {
                            self.text(t);
                        }
                    }
                }
            }
            rest = later;
        }
    }

    fn rect(&mut self, r: &Rect) {
        let (x, y, w, h) = (cents(r.x) as f32, cents(r.y) as f32, cents(r.w) as f32, cents(r.h) as f32);
        // usvg skips a rect without area.
        if w <= 0.0 || h <= 0.0 {
            return;
        }
        let radius = (cents(r.radius) as f32).min(w / 2.0).min(h / 2.0);
        let path = if radius > 0.0 {
            rounded(x, y, w, h, radius)
        } else {
            tiny_skia::Rect::from_xywh(x, y, w, h).map(PathBuilder::from_rect)
        };
        if let (Some(path), Some(fill)) = (path.clone(), r.fill) {
            self.ops.push(Op { path, color: fill, stroke: None });
        }
        if let Some(stroke) = r.stroke {
            self.stroked(path, stroke);
        }
    }

    fn line(&mut self, l: &Line) {
        let mut pb = PathBuilder::new();
        pb.move_to(cents(l.x1) as f32, cents(l.y1) as f32);
        pb.line_to(cents(l.x2) as f32, cents(l.y2) as f32);
        self.stroked(pb.finish(), l.stroke);
    }

    fn stroked(&mut self, path: Option<Path>, s: Stroke) {
        let Some(path) = path else { return };
        let width = cents(s.width) as f32;
        if width <= 0.0 {
            return;
        }
        let dash = s.dash.and_then(|(a, b)| tiny_skia::StrokeDash::new(vec![cents(a) as f32, cents(b) as f32], 0.0));
        let stroke = tiny_skia::Stroke { width, dash, ..tiny_skia::Stroke::default() };
        self.ops.push(Op { path, color: s.color, stroke: Some(stroke) });
    }

    fn text(&mut self, t: &'a Text) {
        let font = font();
        let glyphs = self.shaped.entry(t.content.as_str()).or_insert_with(|| shape(font, &t.content));
        let size = cents(t.size) as f32;
        let sx = size / font.units_per_em;
        let advance: f32 = glyphs.iter().map(|g| g.advance as f32 * sx).sum();
        let x = cents(t.x) as f32 - if t.anchor == Anchor::End { advance } else { 0.0 };
        let y = cents(t.y) as f32;
        let mut pb = PathBuilder::new();
        let mut pen = 0.0f32;
        OUTLINES.with_borrow_mut(|outlines| {
            for g in glyphs.iter() {
                let outline = outlines.entry(g.id).or_insert_with(|| outline(font, g.id));
                if let Some(outline) = outline {
                    // The glyph's place, its size, and the font's y axis (up) turned to the page's.
                    let at = Transform::from_translate(x + pen, y)
                        .pre_scale(sx, sx)
                        .pre_translate(g.dx as f32, -(g.dy as f32))
                        .pre_scale(1.0, -1.0);
                    if let Some(p) = outline.clone().transform(at) {
                        pb.push_path(&p);
                    }
                }
                pen += g.advance as f32 * sx;
            }
        });
        if let Some(path) = pb.finish() {
            self.ops.push(Op { path, color: t.color, stroke: None });
        }
    }
}

/// `v` as the SVG writes it: rounded to hundredths.
fn cents(v: f64) -> f64 {
    let c = (v * 100.0).round();
    if c.is_finite() && c.abs() <= 1e15 { c / 100.0 } else { 0.0 }
}

/// A rectangle with round corners: quarter circles as cubic curves.
fn rounded(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<Path> {
    // The control points' distance that makes a cubic closest to a quarter circle.
    let k = r * 0.552_284_8;
    let (right, bottom) = (x + w, y + h);
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(right - r, y);
    pb.cubic_to(right - r + k, y, right, y + r - k, right, y + r);
    pb.line_to(right, bottom - r);
    pb.cubic_to(right, bottom - r + k, right - r + k, bottom, right - r, bottom);
    pb.line_to(x + r, bottom);
    pb.cubic_to(x + r - k, bottom, x, bottom - r + k, x, bottom - r);
    pb.line_to(x, y + r);
    pb.cubic_to(x, y + r - k, x + r - k, y, x + r, y);
    pb.close();
    pb.finish()
}

/// A shaped glyph: its id, its advance and offsets in font units.
struct Glyph {
    id: u32,
    advance: i32,
    dx: i32,
    dy: i32,
}

/// The bundled font, parsed and its shaping tables set up once for the process.
struct Font {
    font: skrifa::FontRef<'static>,
    shaping: harfrust::ShaperData,
    units_per_em: f32,
}

fn font() -> &'static Font {
    static FONT_DATA: OnceLock<Font> = OnceLock::new();
    FONT_DATA.get_or_init(|| {
        let font = skrifa::FontRef::new(FONT).expect("the bundled font parses");
        let units_per_em = font.head().map_or(1000, |h| h.units_per_em()) as f32;
        Font { shaping: harfrust::ShaperData::new(&font), font, units_per_em }
    })
}

thread_local! {
    /// Glyph outlines in font units, read once per thread.
    static OUTLINES: std::cell::RefCell<HashMap<u32, Option<Path>>> = std::cell::RefCell::new(HashMap::new());
}

/// `text` shaped as usvg shapes it: left to right, the script and language guessed, the font's
/// default features (kerning, contextual alternates, ligatures).
fn shape(font: &Font, text: &str) -> Vec<Glyph> {
    let shaper = font.shaping.shaper(&font.font).build();
    let mut buffer = harfrust::UnicodeBuffer::new();
    buffer.push_str(text);
    buffer.set_direction(harfrust::Direction::LeftToRight);
    buffer.guess_segment_properties();
    let out = shaper.shape(buffer, harfrust::ShapeOptions::new());
    out.glyph_infos()
        .iter()
        .zip(out.glyph_positions())
        .map(|(info, pos)| Glyph { id: info.glyph_id, advance: pos.x_advance, dx: pos.x_offset, dy: pos.y_offset })
        .collect()
}

/// A glyph's outline in font units (y up), unhinted, as usvg reads it.
fn outline(font: &Font, id: u32) -> Option<Path> {
    let glyph = font.font.outline_glyphs().get(skrifa::GlyphId::new(id))?;
    let mut pen = Pen(PathBuilder::new());
    let settings = skrifa::outline::DrawSettings::unhinted(
        skrifa::prelude::Size::unscaled(),
        skrifa::prelude::LocationRef::default(),
    );
    glyph.draw(settings, &mut pen).ok()?;
    pen.0.finish()
}

struct Pen(PathBuilder);

impl skrifa::outline::OutlinePen for Pen {
    fn move_to(&mut self, x: f32, y: f32) {
        self.0.move_to(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to(x, y);
    }
    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        self.0.quad_to(cx0, cy0, x, y);
    }
    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        self.0.cubic_to(cx0, cy0, cx1, cy1, x, y);
    }
    fn close(&mut self) {
        self.0.close();
    }
}
