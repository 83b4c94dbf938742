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

use std::collections::HashMap;
use std::sync::OnceLock;

use resvg::tiny_skia::{self, FillRule, Paint, Path, PathBuilder, Transform};
use skrifa::MetadataProvider;
use skrifa::raw::TableProvider as _;

use super::svg::alike;
use crate::plan::style::Color;
use crate::plan::text::FONT;
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
        Ops { ops: Vec::new(), texts: Vec::new(), scale, keys: Vec::new(), masks: HashMap::new() }
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
        let mut index: HashMap<&str, usize> = HashMap::new();
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
    let path = OUTLINES
        .with_borrow_mut(|outlines| outlines.entry(key.glyph).or_insert_with(|| outline(font(), key.glyph)).clone());
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

/// The boxes whose union `path` filled (`stroke` `None`) or stroked at `scale` covers, when it is
/// such a union: a rectangle filled; lines across or down, solid or dashed, and rectangles'
/// outlines (solid), stroked with square ends and corners, wider than a device pixel (thinner
/// ones tiny-skia draws as hairlines, otherwise). `None` for anything else.
fn boxes(
    path: &Path,
    stroke: Option<&tiny_skia::Stroke>,
    dash: Option<(f32, f32)>,
    scale: f32,
) -> Option<Vec<[f32; 4]>> {
    use tiny_skia::PathSegment::{Close, LineTo, MoveTo};
    // The path's contours, each its points and whether it is closed.
    let mut contours: Vec<(Vec<tiny_skia::Point>, bool)> = Vec::new();
    for seg in path.segments() {
        match seg {
            MoveTo(p) => contours.push((vec![p], false)),
            LineTo(p) => contours.last_mut()?.0.push(p),
            Close => contours.last_mut()?.1 = true,
            _ => return None,
        }
    }
    // A closed contour of four points around an axis-aligned rectangle, as `PathBuilder::from_rect`
    // makes it: left, top, right, bottom.
    let rect = |pts: &[tiny_skia::Point], closed: bool| -> Option<[f32; 4]> {
        let [a, b, c, d] = pts else { return None };
        let square = closed && a.y == b.y && b.x == c.x && c.y == d.y && d.x == a.x && a.x < b.x && a.y < d.y;
        square.then_some([a.x, a.y, b.x, d.y])
    };
    let Some(stroke) = stroke else {
        let [(pts, closed)] = contours.as_slice() else { return None };
        return rect(pts, *closed).map(|r| vec![r]);
    };
    let square = stroke.line_cap == tiny_skia::LineCap::Butt && stroke.line_join == tiny_skia::LineJoin::Miter;
    // Past 1 device pixel, as tiny-skia tells a stroke from a hairline.
    let wide = stroke.width * scale > 1.0;
    if !square || !wide || stroke.miter_limit < std::f32::consts::SQRT_2 {
        return None;
    }
    let r = stroke.width * 0.5;
    // The scale tiny-skia's stroker measures directions at.
    let res = (scale * scale + 0.0 * 0.0).sqrt();
    let mut out = Vec::new();
    for (pts, closed) in &contours {
        match (pts.as_slice(), closed, dash) {
            ([a, b], false, dash) if (a.x == b.x) != (a.y == b.y) => {
                // A line across or down: each dash (or the whole) a box of the stroke's width.
                let length = (b.x - a.x).abs() + (b.y - a.y).abs();
                let mut on = |from: f32, to: f32| {
                    let at = |d: f32| if d == 0.0 { *a } else { interpolate(*a, *b, d / length) };
                    let (p, q) = (at(from), at(to.min(length)));
                    let [x0, x1] = if p.x <= q.x { [p.x, q.x] } else { [q.x, p.x] };
                    let [y0, y1] = if p.y <= q.y { [p.y, q.y] } else { [q.y, p.y] };
                    let (dx, dy) = (q.x - p.x, q.y - p.y);
                    if dx != 0.0 {
                        let n = offset(dx, res, r);
                        out.push([x0, (y0 - n).min(y0 + n), x1, (y0 - n).max(y0 + n)]);
                    } else if dy != 0.0 {
                        let n = offset(dy, res, r);
                        out.push([(x0 - n).min(x0 + n), y0, (x0 - n).max(x0 + n), y1]);
                    }
                };
                match dash {
                    None => on(0.0, length),
                    Some((ink, gap)) => {
                        // What tiny-skia takes for a dash (else the path is drawn solid or not).
                        if stroke.dash.is_none() || !(ink > 0.0 && gap >= 0.0) || length / (ink + gap) > 100_000.0 {
                            return None;
                        }
                        let mut d = 0.0f32;
                        while d < length {
                            on(d, d + ink);
                            d += ink;
                            d += gap;
                        }
                    }
                }
            }
            (pts, true, None) => {
                let [left, top, right, bottom] = rect(pts, true)?;
                if !(right - left > 2.0 * r && bottom - top > 2.0 * r) {
                    return None;
                }
                out.push([left - r, top - r, right + r, top + r]);
                out.push([left - r, bottom - r, right + r, bottom + r]);
                out.push([left - r, top + r, left + r, bottom - r]);
                out.push([right - r, top + r, right + r, bottom - r]);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Half a stroke's width `r` across a line `delta` long (across or down), as tiny-skia's stroker
/// works it out (the direction made a unit vector in its arithmetic, then scaled): `r` but for
/// the last bit, which decides where an edge that falls just on one of its samples goes.
fn offset(delta: f32, res: f32, r: f32) -> f32 {
    let d = delta * res;
    let unit = d * (1.0 / ((d as f64) * (d as f64)).sqrt()) as f32;
    unit * r
}

/// The point a share `t` of the way from `a` to `b`, as tiny-skia measures along a line.
fn interpolate(a: tiny_skia::Point, b: tiny_skia::Point, t: f32) -> tiny_skia::Point {
    tiny_skia::Point::from_xy(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
}

/// Fills the union of `boxes` (the scene's px) at `transform` onto `pixmap`, with the pixels
/// tiny-skia's anti-aliased filling gives the same boxes as one path: each edge at the nearest
/// quarter of a pixel, a pixel's coverage added up over its four sub-rows as tiny-skia adds it
/// (its sums and their rounding), and the colour blended in by it with tiny-skia's arithmetic.
/// False when the pixmap is past what tiny-skia anti-aliases (it then draws without).
fn boxes_onto(boxes: &[[f32; 4]], color: Color, transform: Transform, pixmap: &mut tiny_skia::PixmapMut) -> bool {
    let (width, height) = (pixmap.width() as i32, pixmap.height() as i32);
    if width > 8191 || height > 8191 {
        return false;
    }
    // A coordinate at tiny-skia's sampling: in 64ths of a quarter pixel, truncated, then rounded
    // to a quarter.
    let quarter = |v: f32| ((v * 256.0) as i32 + 32) >> 6;
    let mut quads: Vec<[i32; 4]> = Vec::with_capacity(boxes.len());
    let (mut bl, mut bt, mut br, mut bb) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for b in boxes {
        let mut pts = [tiny_skia::Point::from_xy(b[0], b[1]), tiny_skia::Point::from_xy(b[2], b[3])];
        transform.map_points(&mut pts);
        let [p, q] = pts;
        if !(p.x.is_finite() && p.y.is_finite() && q.x.is_finite() && q.y.is_finite()) {
            return false;
        }
        (bl, bt, br, bb) = (bl.min(p.x), bt.min(p.y), br.max(q.x), bb.max(q.y));
        let l = quarter(p.x).max(0);
        let t = quarter(p.y).max(0);
        let r = quarter(q.x).min(width * 4);
        let b = quarter(q.y).min(height * 4);
        if l < r && t < b {
            quads.push([l, t, r, b]);
        }
    }
    // tiny-skia fills nothing of a path without width or height.
    let nearly_zero = 1.0 / 4096.0;
    if quads.is_empty() || br - bl <= nearly_zero || bb - bt <= nearly_zero {
        return true;
    }
    quads.sort_unstable_by_key(|q| q[1]);
    let qy0 = quads[0][1];
    let qy1 = quads.iter().map(|q| q[3]).max().unwrap_or(qy0);
    let stride = width as usize * 4;
    let data = pixmap.data_mut();
    let (mut lo, mut hi) = (0, 0);
    let mut spans: [Vec<(i32, i32)>; 4] = Default::default();
    let mut breaks: Vec<i32> = Vec::new();
    // The runs of coverage (first pixel, end, coverage) of the last row that each of its boxes
    // covers whole or not at all, and its boxes (`lo..hi`): the next row with the same boxes, each
    // covering it whole too, has the same runs (a box's inside, row after row).
    let mut runs: Vec<(i32, i32, u32)> = Vec::new();
    let mut cached: Option<(usize, usize)> = None;
    for iy in (qy0 >> 2)..((qy1 + 3) >> 2) {
        let (y0, y1) = (iy * 4, iy * 4 + 4);
        // The boxes on this row: sorted by their tops, those that end above it are skipped
        // from the front as they come.
        while lo < quads.len() && quads[lo][3] <= y0 {
            lo += 1;
        }
        while hi < quads.len() && quads[hi][1] < y1 {
            hi += 1;
        }
        let line = &mut data[iy as usize * stride..(iy as usize + 1) * stride];
        // Whether each box covers this row whole or not at all, and whether one starts or ends
        // on its top edge (the boxes covering it are then not those covering the row above).
        let (mut whole, mut edge) = (true, false);
        for q in &quads[lo..hi.max(lo)] {
            whole &= (q[1] <= y0 && y1 <= q[3]) || q[3] <= y0 || y1 <= q[1];
            edge |= q[1] == y0 || q[3] == y0;
        }
        if whole && !edge && cached == Some((lo, hi)) {
            for &(a, b, c) in &runs {
                fill(&mut line[a as usize * 4..b as usize * 4], c, color);
            }
            continue;
        }
        cached = whole.then_some((lo, hi));
        runs.clear();
        breaks.clear();
        for (s, spans) in spans.iter_mut().enumerate() {
            let y = y0 + s as i32;
            spans.clear();
            spans.extend(quads[lo..hi.max(lo)].iter().filter(|q| q[1] <= y && y < q[3]).map(|q| (q[0], q[2])));
            spans.sort_unstable();
            // Overlapping spans are one: inside any box, inside the path.
            let mut merged = 0;
            for k in 0..spans.len() {
                if merged > 0 && spans[k].0 <= spans[merged - 1].1 {
                    spans[merged - 1].1 = spans[merged - 1].1.max(spans[k].1);
                } else {
                    spans[merged] = spans[k];
                    merged += 1;
                }
            }
            spans.truncate(merged);
            // Where a pixel's coverage may change: a span's first and last pixel, each alone.
            for &(l, r) in spans.iter() {
                breaks.extend([l >> 2, (l >> 2) + 1, r >> 2, (r >> 2) + 1]);
            }
        }
        if breaks.is_empty() {
            continue;
        }
        breaks.sort_unstable();
        breaks.dedup();
        let mut next = [0usize; 4];
        for k in 0..breaks.len() - 1 {
            let (a, b) = (breaks[k], breaks[k + 1].min(width));
            if a >= b {
                continue;
            }
            // Every pixel from `a` to `b` has the coverage of the first.
            let c = coverage(a, &spans, &mut next);
            if c != 0 {
                fill(&mut line[a as usize * 4..b as usize * 4], c as u32, color);
                if whole {
                    runs.push((a, b, c as u32));
                }
            }
        }
    }
    true
}

/// The coverage tiny-skia's supersampling gives pixel `x` of a row from each sub-row's spans (in
/// quarter pixels, sorted, apart), adding them as it does: a span's part-covered first and last
/// pixel by its quarters (16 each), the pixels between by 64 (63 on a pixel's last sub-row, so
/// that four make 255), each sum past 255 brought back. `next` is, per sub-row, the first span
/// not left of the pixel asked before (pixels are asked left to right).
fn coverage(x: i32, spans: &[Vec<(i32, i32)>; 4], next: &mut [usize; 4]) -> u16 {
    let mut a = 0u16;
    for (s, spans) in spans.iter().enumerate() {
        let max = 64 - ((s as u16 + 1) >> 2);
        while next[s] < spans.len() && (spans[next[s]].1 >> 2) < x {
            next[s] += 1;
        }
        for &(l, r) in &spans[next[s]..] {
            let (first, last) = (l >> 2, r >> 2);
            if first > x {
                break;
            }
            if x > last {
                continue;
            }
            let (fb, fe) = ((l & 3) as u16, (r & 3) as u16);
            if first == last {
                // Within one pixel: its quarters, added as a first pixel is.
                let t = a + ((fe - fb) << 4);
                a = t - (t >> 8);
            } else if x == first && fb != 0 {
                let t = a + ((4 - fb) << 4);
                a = t - (t >> 8);
            } else if x == last {
                // A last pixel is added to as it is, without the check (its sum stays below 256).
                a = (a + (fe << 4)) & 0xFF;
            } else {
                let t = a + max;
                a = t - (t >> 8);
            }
        }
    }
    a
}

/// `color` blended into the RGBA pixels of `line` at coverage `c` (see [`blend`]).
fn fill(line: &mut [u8], c: u32, color: Color) {
    let rgba = [color.0, color.1, color.2, 255];
    if c >= 255 {
        for px in line.chunks_exact_mut(4) {
            px.copy_from_slice(&rgba);
        }
        return;
    }
    let src = rgba.map(u32::from);
    for px in line.chunks_exact_mut(4) {
        for (d, s) in px.iter_mut().zip(src) {
            *d = ((*d as u32 * (255 - c) + s * c + 255) >> 8) as u8;
        }
    }
}

/// `color` blended into RGBA `line` by each pixel's `coverage`, with tiny-skia's arithmetic:
/// `(d * (255 - c) + s * c + 255) / 256`, which leaves a pixel as it is at 0 and makes it the
/// colour at 255 (those runs are written straight, as tiny-skia does).
pub(crate) fn blend<T: Copy + Into<u32>>(line: &mut [u8], coverage: &[T], color: Color) {
    let rgba = [color.0, color.1, color.2, 255];
    let src = rgba.map(u32::from);
    let mut x = 0;
    while x < coverage.len() {
        let c: u32 = coverage[x].into();
        if c == 255 {
            let run = coverage[x..].iter().take_while(|&&c| c.into() == 255).count();
            for px in line[x * 4..(x + run) * 4].chunks_exact_mut(4) {
                px.copy_from_slice(&rgba);
            }
            x += run;
            continue;
        }
        if c != 0 {
            for (d, s) in line[x * 4..x * 4 + 4].iter_mut().zip(src) {
                *d = ((*d as u32 * (255 - c) + s * c + 255) >> 8) as u8;
            }
        }
        x += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator: the same cases every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// A coordinate as the scene gives them: hundredths of a px, in `0..max`.
        fn cents(&mut self, max: u64) -> f32 {
            (cents((self.next() % (max * 100)) as f64 / 100.0)) as f32
        }
    }

    /// A backdrop for `compare` that is not flat, so that blending shows.
    fn backdrop() -> tiny_skia::Pixmap {
        let mut backdrop = tiny_skia::Pixmap::new(90, 40).unwrap();
        for (i, px) in backdrop.data_mut().chunks_exact_mut(4).enumerate() {
            px.copy_from_slice(&[(i * 7 % 251) as u8, (i * 13 % 241) as u8, (i % 199) as u8, 255]);
        }
        backdrop
    }

    /// Boxes drawn as boxes and as tiny-skia draws their path, over the same pixels: how many
    /// pixels differ, and by how much at most.
    fn compare(op: &Op, scale: f32, top: f32, pixels: &[u8]) -> (usize, u8) {
        let (w, h) = (90, 40);
        let mut a = pixels.to_vec();
        let mut b = pixels.to_vec();
        let at = Transform::from_row(scale, 0.0, 0.0, scale, 0.0, 0.0 - top);
        op.draw(at, 0, &[], &mut tiny_skia::PixmapMut::from_bytes(&mut a, w, h).unwrap());
        let Op::Boxes { path, .. } = op else { panic!("not boxes") };
        path.draw(at, 0, &[], &mut tiny_skia::PixmapMut::from_bytes(&mut b, w, h).unwrap());
        let worst = a.iter().zip(&b).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        (a.chunks(4).zip(b.chunks(4)).filter(|(x, y)| x != y).count(), worst)
    }

    /// Boxes ending on a pixel's edge where others go on (outlines on whole pixels, two boxes), so
    /// the rows under them are not those above (a row's coverage is reused only when its boxes
    /// are the row above's, each covering it whole).
    #[test]
    fn boxes_ending_on_a_pixel_edge_are_the_pixels_tiny_skia_draws() {
        let backdrop = backdrop();
        let mut drawn = 0;
        for scale in [1.0f32, 2.0, 3.0] {
            for width in [1.0, 1.5, 2.0, 3.0] {
                for (x, y, w, h) in
                    [(1.0, 1.0, 20.0, 6.0), (3.0, 2.0, 7.0, 9.0), (2.0, 4.0, 25.0, 3.0), (5.0, 1.5, 9.0, 5.5)]
                {
                    let color = Color(200, 40, 90);
                    let mut ops = Ops::new(scale);
                    let stroke = Stroke { color, width, dash: None };
                    ops.rect(&Rect { x, y, w, h, radius: 0.0, fill: None, stroke: Some(stroke) });
                    for op in ops.ops.iter().filter(|op| matches!(op, Op::Boxes { .. })) {
                        let what = format!("{x},{y} {w}x{h} width {width} scale {scale}");
                        assert_eq!(compare(op, scale, 0.0, backdrop.data()), (0, 0), "{what}");
                        drawn += 1;
                    }
                }
            }
        }
        assert!(drawn >= 40, "{drawn}");
        // Two boxes from one top, the second ending first, in either order.
        for boxes in
            [[[1.0, 1.0, 10.0, 20.0], [20.0, 1.0, 30.0, 10.0]], [[20.0, 1.0, 30.0, 10.0], [1.0, 1.0, 10.0, 20.0]]]
        {
            let mut pb = PathBuilder::new();
            for b in boxes {
                pb.push_rect(tiny_skia::Rect::from_ltrb(b[0], b[1], b[2], b[3]).unwrap());
            }
            let color = Color(20, 140, 90);
            let path = Box::new(Op::Path { path: pb.finish().unwrap(), color, stroke: None });
            let op = Op::Boxes { boxes: boxes.to_vec(), color, path, band: None };
            assert_eq!(compare(&op, 1.0, 0.0, backdrop.data()), (0, 0), "{boxes:?}");
        }
    }

    /// A rounded rectangle's fill and outline, drawn in strips above, across and within the rows
    /// between its corners (there as boxes), are the pixels tiny-skia draws of their paths.
    #[test]
    fn rounded_frames_are_the_pixels_tiny_skia_draws() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let backdrop = backdrop();
        let (mut within, mut drawn) = (0, 0);
        for case in 0..600 {
            let scale = [1.0f32, 2.0, 3.0, 1.5, 2.5][case % 5];
            let (x, y) = (rng.cents(20) - 2.0, rng.cents(10) - 4.0);
            let (w, h) = (rng.cents(60) + 12.0, rng.cents(120) + 40.0);
            let radius = [6.0, 3.0, 0.5, 10.0][case % 4];
            let width = [1.0, 1.5, 2.0, 0.5][(rng.next() % 4) as usize];
            let color = Color((rng.next() % 256) as u8, 90, 200);
            let mut ops = Ops::new(scale);
            let stroke = Some(Stroke { color, width, dash: None });
            let frame = Rect { x: x as f64, y: y as f64, w: w as f64, h: h as f64, radius, fill: Some(color), stroke };
            ops.rect(&frame);
            for op in &ops.ops {
                let Op::Boxes { band: Some((first, last)), .. } = op else { continue };
                for top in [0.0, (first * scale).floor() - 8.0, (first * scale).ceil() + 1.0, (last * scale) - 30.0] {
                    let top = top.max(0.0).floor();
                    within += usize::from(x >= 1.0 && first * scale <= top - 1.0 && top + 41.0 <= last * scale);
                    let what = format!("case {case}: {x},{y} {w}x{h} r {radius} width {width} scale {scale} top {top}");
                    assert_eq!(compare(op, scale, top, backdrop.data()), (0, 0), "{what}");
                    drawn += 1;
                }
            }
        }
        assert!(drawn > 2000 && within > 500, "{drawn} strips, {within} within the band");
    }

    #[test]
    fn boxes_are_the_pixels_tiny_skia_draws_of_their_paths() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let backdrop = backdrop();
        let (mut kinds, mut solid_differ, mut dashed_differ, mut dashed_worst) = ([0; 4], 0, 0, 0);
        for case in 0..4000 {
            let scale = [1.0, 2.0, 3.0, 1.5, 2.5][case % 5];
            let top = [0.0, 13.0, 64.0][case / 5 % 3];
            let color = Color((rng.next() % 256) as u8, (rng.next() % 256) as u8, (rng.next() % 256) as u8);
            let (x, y, w, h) = (rng.cents(40) - 4.0, rng.cents(40) + top / scale - 6.0, rng.cents(30), rng.cents(20));
            let width = [1.0, 1.5, 2.0, 0.75, 3.0][(rng.next() % 5) as usize];
            let dash = [None, Some((3.0, 2.0)), Some((4.0, 3.0)), Some((0.5, 0.3))][(rng.next() % 4) as usize];
            let mut ops = Ops::new(scale);
            let kind = (rng.next() % 4) as usize;
            let stroke = Stroke { color, width, dash };
            match kind {
                0 => ops.rect(&Rect {
                    x: x as f64,
                    y: y as f64,
                    w: w as f64,
                    h: h as f64,
                    radius: 0.0,
                    fill: Some(color),
                    stroke: None,
                }),
                1 => ops.rect(&Rect {
                    x: x as f64,
                    y: y as f64,
                    w: w as f64,
                    h: h as f64,
                    radius: 0.0,
                    fill: None,
                    stroke: Some(Stroke { dash: None, ..stroke }),
                }),
                2 => ops.line(&Line { x1: x as f64, y1: y as f64, x2: (x + w) as f64, y2: y as f64, stroke }),
                _ => ops.line(&Line { x1: x as f64, y1: (y + h) as f64, x2: x as f64, y2: y as f64, stroke }),
            }
            for op in &ops.ops {
                if !matches!(op, Op::Boxes { .. }) {
                    continue;
                }
                kinds[kind] += 1;
                let (differ, worst) = compare(op, scale, top, backdrop.data());
                if dash.is_some() && kind >= 2 {
                    dashed_differ += differ;
                    dashed_worst = dashed_worst.max(worst);
                } else {
                    solid_differ += differ;
                    assert_eq!(
                        (differ, worst),
                        (0, 0),
                        "case {case}: kind {kind} at {x},{y} {w}x{h} width {width} scale {scale} top {top}"
                    );
                }
            }
        }
        // Every kind was drawn as boxes, many times.
        assert!(kinds.iter().all(|&n| n > 300), "{kinds:?}");
        assert_eq!(solid_differ, 0);
        eprintln!("dashed: {dashed_differ} pixels differ, by up to {dashed_worst}");
        assert!(dashed_differ == 0, "dashed lines: {dashed_differ} pixels differ, by up to {dashed_worst}");
    }

    #[test]
    fn outlines_stroked_once_are_the_pixels_tiny_skia_strokes() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let (w, h) = (100u32, 70u32);
        let mut backdrop = tiny_skia::Pixmap::new(w, h).unwrap();
        for (i, px) in backdrop.data_mut().chunks_exact_mut(4).enumerate() {
            px.copy_from_slice(&[(i * 7 % 251) as u8, (i * 13 % 241) as u8, (i % 199) as u8, 255]);
        }
        let (mut outlined, mut strokes) = (0, 0);
        for case in 0..1500 {
            let scale = [1.0, 2.0, 3.0, 1.5, 2.5, 0.75][case % 6];
            let top = [0.0, 13.0, 64.0][case / 6 % 3];
            let color = Color((rng.next() % 256) as u8, (rng.next() % 256) as u8, (rng.next() % 256) as u8);
            // A polyline of a few to many segments, or a rectangle's outline (not boxes when dashed).
            let mut pb = PathBuilder::new();
            let (x0, y0) = (rng.cents(40), rng.cents(40) + top / scale);
            pb.move_to(x0, y0);
            if case % 2 == 0 {
                for _ in 0..1 + rng.next() % 40 {
                    pb.line_to(rng.cents(45), rng.cents(45) + top / scale);
                }
            } else {
                let (rw, rh) = (rng.cents(30) + 1.0, rng.cents(30) + 1.0);
                pb.line_to(x0 + rw, y0);
                pb.line_to(x0 + rw, y0 + rh);
                pb.line_to(x0, y0 + rh);
                pb.close();
            }
            let path = pb.finish().unwrap();
            let width = [0.5, 0.75, 1.0, 1.5, 2.0][(rng.next() % 5) as usize];
            let lengths = [None, Some((3.0, 2.0)), Some((5.0, 3.0))][(rng.next() % 3) as usize];
            let dash = lengths.and_then(|(a, b)| tiny_skia::StrokeDash::new(vec![a, b], 0.0));
            let stroke = tiny_skia::Stroke { width, dash, ..tiny_skia::Stroke::default() };
            let mut ops = Ops::new(scale);
            ops.push(Op::Path { path: path.clone(), color, stroke: Some(stroke.clone()) }, lengths);
            let [op] = ops.ops.as_slice() else { panic!("one op") };
            match op {
                Op::Path { stroke: None, .. } => outlined += 1,
                Op::Path { stroke: Some(_), .. } => strokes += 1,
                _ => continue, // boxes, tested above
            }
            let at = Transform::from_row(scale, 0.0, 0.0, scale, 0.0, 0.0 - top);
            let (mut a, mut b) = (backdrop.data().to_vec(), backdrop.data().to_vec());
            op.draw(at, 0, &[], &mut tiny_skia::PixmapMut::from_bytes(&mut a, w, h).unwrap());
            let mut paint = Paint::default();
            paint.set_color_rgba8(color.0, color.1, color.2, 255);
            paint.anti_alias = true;
            tiny_skia::PixmapMut::from_bytes(&mut b, w, h).unwrap().stroke_path(&path, &paint, &stroke, at, None);
            let differ = a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p != q).count();
            assert_eq!(differ, 0, "case {case}: width {width} dash {lengths:?} scale {scale} top {top}");
        }
        // Both kinds came up: outlines made once, and hairlines left to tiny-skia.
        assert!(outlined > 500 && strokes > 100, "{outlined} outlined, {strokes} strokes");
    }
}
