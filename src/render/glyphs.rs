//! The bundled font for the raster: loaded once, texts shaped into glyphs (each distinct text
//! once per thread) and glyph outlines as paths. Apart from the drawing because it is the only part
//! that reads the font file.

use std::sync::OnceLock;

use resvg::tiny_skia::{Path, PathBuilder};
use skrifa::MetadataProvider;
use skrifa::raw::TableProvider as _;

use crate::hashed::HashMap;
use crate::plan::text::FONT;

/// A shaped glyph: its id, its advance and offsets in font units.
pub(super) struct Glyph {
    pub id: u32,
    pub advance: i32,
    pub dx: i32,
    pub dy: i32,
}

/// The bundled font, parsed and its shaping tables set up once for the process.
pub(super) struct Font {
    font: skrifa::FontRef<'static>,
    shaping: harfrust::ShaperData,
    pub units_per_em: f32,
}

pub(super) fn font() -> &'static Font {
    static FONT_DATA: OnceLock<Font> = OnceLock::new();
    FONT_DATA.get_or_init(|| {
        let font = skrifa::FontRef::new(FONT).expect("the bundled font parses");
        let units_per_em = font.head().map_or(1000, |h| h.units_per_em()) as f32;
        Font { shaping: harfrust::ShaperData::new(&font), font, units_per_em }
    })
}

thread_local! {
    /// Glyph outlines in font units, read once per thread.
    static OUTLINES: std::cell::RefCell<HashMap<u32, Option<Path>>> = std::cell::RefCell::new(HashMap::default());
}

/// The outline of glyph `id` in font units (none for a blank), read once per thread.
pub(super) fn glyph_outline(id: u32) -> Option<Path> {
    OUTLINES.with_borrow_mut(|outlines| outlines.entry(id).or_insert_with(|| outline(font(), id)).clone())
}

/// `text` shaped as usvg shapes it: left to right, the script and language guessed, the font's
/// default features (kerning, contextual alternates, ligatures).
pub(super) fn shape(font: &Font, text: &str) -> Vec<Glyph> {
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

pub(super) struct Pen(PathBuilder);

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
