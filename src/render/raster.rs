//! The scene drawn straight onto pixels: the shapes the SVG writer would write, as the paths usvg
//! would make of them, without the SVG text between (writing it, parsing it, and shaping every
//! text anew, which set up the font's whole substitution tables each time: a third of a large
//! PNG's work).
//!
//! Texts are shaped with the shaper usvg uses (harfrust, the bundled font set up once) and drawn
//! from the font's outlines (skrifa, each glyph read once), so ligatures and positions are the
//! SVG's. Coordinates go through the SVG's rounding to hundredths of a px, so the paths are the
//! ones the SVG describes.
//!
//! Most of a picture is boxes and text, and tiny-skia's general path filling (edges built, sorted
//! and walked a quarter pixel at a time, every span through its blending pipeline) was most of
//! the PNG's time. So:
//!
//! - A path that is a union of axis-aligned boxes (a filled rectangle, a rectangle's outline, a
//!   line across or down, dashed or not) is filled by [`boxes_onto`], which works out, row by
//!   row, the coverage tiny-skia's anti-aliasing gives such a path (its quarter-pixel sampling,
//!   its sums and their rounding) and blends with its arithmetic: the same pixels, for a handful
//!   of spans a row. A test holds it to tiny-skia's own on thousands of random boxes.
//! - Each glyph is drawn once per size and sub-pixel offset (a 4096th of a pixel) into a coverage
//!   mask, by tiny-skia; a text adds its glyphs' masks up and blends the colour in once, as one
//!   path would. A glyph's edge may so round to the other side of one of tiny-skia's samples (a
//!   few pixels in a million, by a few levels of 255).

use resvg::tiny_skia::{self, FillRule, Paint, Path, PathBuilder, Transform};

use super::coverage::{blend, boxes, boxes_onto};
use super::glyphs::{font, glyph_outline, shape};
use super::svg::alike;
use crate::hashed::HashMap;
use crate::plan::style::Color;
use crate::scene::{Anchor, BlockShape, Card, Lane, Line, Rect, Scene, Shape, Stroke, Text};

/// One drawing operation of a scene, in painting order.
pub(crate) enum Op {
    /// A path in the scene's px: filled, or outlined with a stroke.
    Path { path: Path, color: Color, stroke: Option<tiny_skia::Stroke> },
    /// A text: its glyphs, each a coverage mask of the drawing's (see [`Drawing::masks`]) at a
    /// device pixel, drawn together as the one path of the SVG's text would be (their coverage
    /// added where two glyphs share a pixel, then blended once).
    Text { color: Color, glyphs: Vec<Placed> },
    /// A path that is a union of axis-aligned boxes (a rectangle, a rectangle's outline, straight
    /// lines across or down, dashed or not): the boxes in the scene's px, left, top, right,
    /// bottom, drawn with tiny-skia's anti-aliasing worked out for boxes (see [`boxes_onto`]),
    /// or the path itself where that does not hold.
    /// With `band` (top and bottom, in the scene's px), the boxes are the path only in the rows
    /// between: a rounded rectangle's sides, whose rows meet no corner (see [`Ops::rect`]); a strip
    /// within those rows is drawn as the boxes, any other as the path.
    Boxes { boxes: Vec<[f32; 4]>, color: Color, path: Box<Op>, band: Option<(f32, f32)> },
}

/// A glyph of a text: which mask, and the device pixel of the glyph's origin, rounded down (the
/// mask holds the rest, a fraction of a pixel).
pub(crate) struct Placed {
    mask: u32,
    x: i32,
    y: i32,
}

/// A glyph's coverage at one size and one sub-pixel offset, as tiny-skia's anti-aliasing gives
/// it; `left` and `top` place its first pixel from the glyph's origin (rounded down).
pub(crate) struct GlyphMask {
    left: i32,
    top: i32,
    width: usize,
    height: usize,
    coverage: Vec<u8>,
}

/// Which glyph mask: the glyph, its size in device px per font unit (as bits), and the fraction
/// of a pixel its origin falls at, in 256ths each way.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct MaskKey {
    glyph: u32,
    scale: u32,
    x: u16,
    y: u16,
}

/// Sub-pixel steps of a glyph's origin: 256 a pixel, the precision tiny-skia gives edges when it
/// anti-aliases (a 64th of its quarter-pixel samples). A glyph's origin is moved by at most half
/// of one, so its mask is the glyph drawn where it is, but for the rounding of a point in a
/// hundred when an edge falls just on a sample.
const PHASES: f32 = 4096.0;

/// A scene ready to draw at one scale: its operations and the glyph masks its texts use.
pub(crate) struct Drawing {
    pub(crate) ops: Vec<Op>,
    pub(crate) masks: Vec<GlyphMask>,
}

impl Op {
    /// The device rows it may draw on at `scale` (its stroke included), top and bottom.
    pub(crate) fn rows(&self, scale: f32, masks: &[GlyphMask]) -> (f32, f32) {
        match self {
            Op::Boxes { path, .. } => path.rows(scale, masks),
            Op::Path { path, stroke, .. } => {
                let b = path.bounds();
                let half = stroke.as_ref().map_or(0.0, |s| s.width);
                ((b.top() - half) * scale, (b.bottom() + half) * scale)
            }
            Op::Text { glyphs, .. } => glyphs.iter().fold((f32::MAX, f32::MIN), |(top, bottom), g| {
                let m = &masks[g.mask as usize];
                let y = g.y + m.top;
                (top.min(y as f32), bottom.max((y + m.height as i32) as f32))
            }),
        }
    }

    /// Draws it at `transform` (from the scene's px to the pixmap's pixels; `top` is the picture's
    /// row that is the pixmap's first).
    pub(crate) fn draw(&self, transform: Transform, top: i32, masks: &[GlyphMask], pixmap: &mut tiny_skia::PixmapMut) {
        match self {
            Op::Path { path, color, stroke } => {
                let mut paint = Paint::default();
                paint.set_color_rgba8(color.0, color.1, color.2, 255);
                paint.anti_alias = true;
                match stroke {
                    None => pixmap.fill_path(path, &paint, FillRule::Winding, transform, None),
                    Some(stroke) => pixmap.stroke_path(path, &paint, stroke, transform, None),
                }
            }
            Op::Text { color, glyphs } => text_onto(*color, glyphs, top, masks, pixmap),
            Op::Boxes { boxes, color, path, band } => {
                // The pixmap's rows, a row of room each way, within the band, and the boxes within
                // its columns (a side cut by the pixmap's edge is the path's to draw).
                let within = band.is_none_or(|(first, last)| {
                    let inside = |b: &[f32; 4]| {
                        b[0] * transform.sx + transform.tx >= 0.0
                            && b[2] * transform.sx + transform.tx <= pixmap.width() as f32
                    };
                    first * transform.sy + transform.ty <= -1.0
                        && pixmap.height() as f32 + 1.0 <= last * transform.sy + transform.ty
                        && boxes.iter().all(inside)
                });
                if !(within && boxes_onto(boxes, *color, transform, pixmap)) {
                    path.draw(transform, top, masks, pixmap);
                }
            }
        }
    }
}

thread_local! {
    /// Each thread's coverage of the text it draws, kept across texts.
    static COVERAGE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A text's glyphs onto `pixmap` (whose first row is the picture's row `top`): their coverage
/// added up over the text's box, then the colour blended in by it, with tiny-skia's arithmetic
/// (so a glyph alone is the pixels tiny-skia draws of its outline there).
fn text_onto(color: Color, glyphs: &[Placed], top: i32, masks: &[GlyphMask], pixmap: &mut tiny_skia::PixmapMut) {
    let (width, height) = (pixmap.width() as i32, pixmap.height() as i32);
    // The text's box, in the pixmap's pixels, clipped to it.
    let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    for g in glyphs {
        let m = &masks[g.mask as usize];
        let (x, y) = (g.x + m.left, g.y + m.top - top);
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x + m.width as i32);
        y1 = y1.max(y + m.height as i32);
    }
    let (x0, y0, x1, y1) = (x0.max(0), y0.max(0), x1.min(width), y1.min(height));
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let (w, h) = ((x1 - x0) as usize, (y1 - y0) as usize);
    COVERAGE.with_borrow_mut(|cov| {
        cov.clear();
        cov.resize(w * h, 0);
        for g in glyphs {
            let m = &masks[g.mask as usize];
            let (x, y) = (g.x + m.left - x0, g.y + m.top - top - y0);
            // The mask's part inside the box.
            let (cx0, cy0) = ((-x).max(0), (-y).max(0));
            let (cx1, cy1) = ((w as i32 - x).min(m.width as i32), (h as i32 - y).min(m.height as i32));
            if cx0 >= cx1 || cy0 >= cy1 {
                continue;
            }
            for my in cy0..cy1 {
                let src = &m.coverage[my as usize * m.width + cx0 as usize..my as usize * m.width + cx1 as usize];
                let at = (y + my) as usize * w + (x + cx0) as usize;
                for (d, s) in cov[at..at + src.len()].iter_mut().zip(src) {
                    *d = d.saturating_add(*s);
                }
            }
        }
        let stride = width as usize * 4;
        let data = pixmap.data_mut();
        for row in 0..h {
            let line = &mut data[(y0 as usize + row) * stride + x0 as usize * 4..][..w * 4];
            blend(line, &cov[row * w..(row + 1) * w], color);
        }
    });
}

/// The scene's operations, in the order the SVG document paints them (after its background,
/// which the caller paints).
/// Texts become glyphs placed at `scale`; each distinct glyph mask is drawn once, on every core.
pub(crate) fn drawing(scene: &Scene, scale: f32) -> Drawing {
    let mut out = Ops::new(scale);
    out.shapes(&scene.header);
    for card in &scene.cards {
        out.card(card);
    }
    out.place_texts();
    let masks = crate::par::map_ref(&out.keys, glyph_mask);
    Drawing { ops: out.ops, masks }
}

struct Ops<'a> {
    ops: Vec<Op>,
    /// The texts met, each with its op's index: the op is placed once every text is met and each
    /// distinct one is shaped, on every core (shaping is two thirds of making the ops).
    texts: Vec<(usize, &'a Text)>,
    /// Device pixels per px.
    scale: f32,
    /// The glyph masks the texts use, each once, in the order first met.
    keys: Vec<MaskKey>,
    /// Where each is in `keys`.
    masks: HashMap<MaskKey, u32>,
}

impl<'a> Ops<'a> {
    fn new(scale: f32) -> Ops<'a> {
        Ops { ops: Vec::new(), texts: Vec::new(), scale, keys: Vec::new(), masks: HashMap::default() }
    }

    fn card(&mut self, card: &'a Card) {
        self.shapes(&card.decorations);
        self.shapes(&card.keys);
        for lane in &card.lanes {
            self.lane(lane);
        }
        for p in &card.profiles {
            self.shapes(&p.shapes);
        }
        for cut in &card.cuts {
            self.shapes(&cut.shapes);
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
                        self.ops.push(Op::Path { path, color: fill, stroke: None });
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
        if radius > 0.0 {
            return self.rounded_rect(r, (x, y, w, h), radius);
        }
        let path = tiny_skia::Rect::from_xywh(x, y, w, h).map(PathBuilder::from_rect);
        if let (Some(path), Some(fill)) = (path.clone(), r.fill) {
            self.push(Op::Path { path, color: fill, stroke: None }, None);
        }
        if let Some(stroke) = r.stroke {
            self.stroked(path, stroke);
        }
    }

    /// A rectangle with rounded corners (a card's frame): its fill and its outline, each as boxes
    /// in the rows between its corners, whose only edges there are its sides' (as a rectangle's
    /// or two lines'), and as its path elsewhere. A card's frame is as tall as the card, and tiny-skia
    /// fills each of its rows across the whole width.
    fn rounded_rect(&mut self, r: &Rect, (x, y, w, h): (f32, f32, f32, f32), radius: f32) {
        let Some(path) = rounded(x, y, w, h, radius) else { return };
        let band = Some((y + radius, y + h - radius));
        if let Some(fill) = r.fill {
            let boxes = vec![[x, y, x + w, y + h]];
            let path = Box::new(Op::Path { path: path.clone(), color: fill, stroke: None });
            self.ops.push(Op::Boxes { boxes, color: fill, path, band });
        }
        let Some(s) = r.stroke else { return };
        let half = cents(s.width) as f32 / 2.0;
        let plain = s.dash.is_none() && half > 0.0;
        self.stroked(Some(path), s);
        // Outlined (not a hairline), the stroke's sides are two boxes along the rectangle's sides.
        if plain && matches!(self.ops.last(), Some(Op::Path { stroke: None, .. })) {
            let Some(Op::Path { path, color, .. }) = self.ops.pop() else { return };
            let (top, bottom) = (y - half, y + h + half);
            let boxes = vec![[x - half, top, x + half, bottom], [x + w - half, top, x + w + half, bottom]];
            let path = Box::new(Op::Path { path, color, stroke: None });
            self.ops.push(Op::Boxes { boxes, color, path, band });
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
        let lengths = s.dash.map(|(a, b)| (cents(a) as f32, cents(b) as f32));
        let dash = lengths.and_then(|(a, b)| tiny_skia::StrokeDash::new(vec![a, b], 0.0));
        let stroke = tiny_skia::Stroke { width, dash, ..tiny_skia::Stroke::default() };
        self.push(Op::Path { path, color: s.color, stroke: Some(stroke) }, lengths);
    }

    /// Adds `op` (its stroke's dash and gap lengths, if dashed), as boxes when its path is boxes.
    fn push(&mut self, op: Op, dash: Option<(f32, f32)>) {
        let boxes = match &op {
            Op::Path { path, stroke, .. } => boxes(path, stroke.as_ref(), dash, self.scale),
            _ => None,
        };
        match (boxes, op) {
            (Some(boxes), Op::Path { path, color, stroke }) => {
                self.ops.push(Op::Boxes { boxes, color, path: Box::new(Op::Path { path, color, stroke }), band: None })
            }
            (None, Op::Path { path, color, stroke: Some(stroke) }) => self.ops.push(self.outlined(path, color, stroke)),
            (_, op) => self.ops.push(op),
        }
    }

    /// A stroked path as the fill of its outline, dashed and stroked here once rather than by
    /// tiny-skia in every strip it reaches: a live-bytes column's 900-segment edge or a lane's
    /// dashed 2 700 px frame was dashed and stroked again for each of a hundred strips. tiny-skia's
    /// `stroke_path` is exactly this (dash, stroke at the transform's resolution scale, fill with
    /// the winding rule) but for a hairline (at most a device pixel wide), which stays a stroke.
    fn outlined(&self, path: Path, color: Color, stroke: tiny_skia::Stroke) -> Op {
        let hairline = stroke.width * self.scale <= 1.0;
        let res = tiny_skia::PathStroker::compute_resolution_scale(&Transform::from_scale(self.scale, self.scale));
        let dashed = match &stroke.dash {
            Some(dash) if !hairline => path.dash(dash, res),
            _ => None,
        };
        let outline = if hairline { None } else { dashed.as_ref().unwrap_or(&path).stroke(&stroke, res) };
        match outline {
            Some(outline) if stroke.dash.is_none() || dashed.is_some() => {
                Op::Path { path: outline, color, stroke: None }
            }
            _ => Op::Path { path, color, stroke: Some(stroke) },
        }
    }

    fn text(&mut self, t: &'a Text) {
        self.texts.push((self.ops.len(), t));
        self.ops.push(Op::Text { color: t.color, glyphs: Vec::new() });
    }

    /// Each distinct text shaped once, on every core, then every text's glyphs placed at `scale`
    /// in the order met (so the masks are numbered as they are first met).
    fn place_texts(&mut self) {
        let font = font();
        let mut index: HashMap<&str, usize> = HashMap::default();
        let mut distinct: Vec<&str> = Vec::new();
        for (_, t) in &self.texts {
            index.entry(t.content.as_str()).or_insert_with(|| {
                distinct.push(t.content.as_str());
                distinct.len() - 1
            });
        }
        let shaped = crate::par::map_ref(&distinct, |text| shape(font, text));
        for &(at, t) in &std::mem::take(&mut self.texts) {
            let glyphs = &shaped[index[t.content.as_str()]];
            let size = cents(t.size) as f32;
            let sx = size / font.units_per_em;
            let advance: f32 = glyphs.iter().map(|g| g.advance as f32 * sx).sum();
            let x = cents(t.x) as f32 - if t.anchor == Anchor::End { advance } else { 0.0 };
            let y = cents(t.y) as f32;
            // Device pixels per font unit.
            let k = sx * self.scale;
            let mut placed = Vec::with_capacity(glyphs.len());
            let mut pen = 0.0f32;
            for g in glyphs.iter() {
                // The glyph's origin in device pixels, split into a whole pixel and a phase.
                let (ox, oy) = ((x + pen + g.dx as f32 * sx) * self.scale, (y - g.dy as f32 * sx) * self.scale);
                pen += g.advance as f32 * sx;
                if !(ox.is_finite() && oy.is_finite()) || ox.abs() > 1e7 || oy.abs() > 1e7 {
                    continue;
                }
                let (px, fx) = phase(ox);
                let (py, fy) = phase(oy);
                let key = MaskKey { glyph: g.id, scale: k.to_bits(), x: fx, y: fy };
                let next = self.keys.len() as u32;
                let mask = *self.masks.entry(key).or_insert(next);
                if mask == next {
                    self.keys.push(key);
                }
                placed.push(Placed { mask, x: px, y: py });
            }
            // A text without a glyph keeps its op, which draws nothing.
            self.ops[at] = Op::Text { color: t.color, glyphs: placed };
        }
    }
}

/// `v` split into a whole pixel (rounded down) and the rest in 256ths (rounded to the nearest).
fn phase(v: f32) -> (i32, u16) {
    let whole = v.floor();
    let steps = ((v - whole) * PHASES).round();
    if steps >= PHASES { (whole as i32 + 1, 0) } else { (whole as i32, steps as u16) }
}

/// A glyph drawn by tiny-skia at its size and phase, as coverage.
fn glyph_mask(key: &MaskKey) -> GlyphMask {
    let empty = GlyphMask { left: 0, top: 0, width: 0, height: 0, coverage: Vec::new() };
    let k = f32::from_bits(key.scale);
    let at = Transform::from_row(k, 0.0, 0.0, -k, key.x as f32 / PHASES, key.y as f32 / PHASES);
    let path = glyph_outline(key.glyph);
    let Some(path) = path.and_then(|p| p.transform(at)) else { return empty };
    let b = path.bounds();
    // A pixel of room each way: anti-aliasing reaches the pixels an edge falls in.
    let (left, top) = (b.left().floor() as i32 - 1, b.top().floor() as i32 - 1);
    let (right, bottom) = (b.right().ceil() as i32 + 1, b.bottom().ceil() as i32 + 1);
    let (width, height) = ((right - left).max(0) as u32, (bottom - top).max(0) as u32);
    let Some(mut mask) = tiny_skia::Mask::new(width, height) else { return empty };
    mask.fill_path(&path, FillRule::Winding, true, Transform::from_translate(-left as f32, -top as f32));
    GlyphMask { left, top, width: width as usize, height: height as usize, coverage: mask.take() }
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

#[cfg(test)]
#[path = "raster_tests.rs"]
mod tests;
