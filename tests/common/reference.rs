//! The reference a PNG is held to: resvg's drawing of the same picture's SVG, with the bundled font
//! only (so it does not depend on the machine's fonts). The crate draws its PNGs from the scene
//! itself (`render::raster`) and parses no SVG; resvg here is the independent second opinion.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

/// usvg options whose only font is the bundled one, for every generic family.
fn options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(pto_memory_map::plan::text::FONT.to_vec());
        let family = db.faces().next().and_then(|f| f.families.first().map(|(n, _)| n.clone())).unwrap_or_default();
        db.set_serif_family(family.clone());
        db.set_sans_serif_family(family.clone());
        db.set_monospace_family(family.clone());
        usvg::Options { font_family: family, fontdb: Arc::new(db), ..usvg::Options::default() }
    })
}

/// Parses an SVG document as resvg would draw it.
pub fn parse(svg: &str) -> Result<usvg::Tree, usvg::Error> {
    usvg::Tree::from_str(svg, options())
}

/// `svg` drawn whole by resvg at `scale` device pixels per px onto a picture of the PNG's size
/// (the SVG's size times the scale, rounded up): premultiplied RGBA, as tiny-skia keeps it.
pub fn draw(svg: &str, scale: f32) -> Picture {
    let tree = parse(svg).unwrap();
    let (w, h) = ((tree.size().width() * scale).ceil() as u32, (tree.size().height() * scale).ceil() as u32);
    let mut pixmap = tiny_skia::Pixmap::new(w, h).unwrap();
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    Picture { width: w, height: h, rgba: pixmap.take(), rgb: false, texts: Vec::new() }
}

/// A picture's pixels, RGBA a byte a channel, row by row.
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// Written without an alpha channel (a PNG's; an opaque one is written as RGB).
    pub rgb: bool,
    /// A PNG's text chunks, keyword and text.
    pub texts: Vec<(String, String)>,
}

impl Picture {
    /// The colour of the pixel at (`x`, `y`), in device pixels.
    pub fn at(&self, x: f64, y: f64) -> [u8; 3] {
        let i = ((y as u32 * self.width + x as u32) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }
}

/// A PNG decoded, RGB given an opaque alpha.
pub fn decode(bytes: &[u8]) -> Picture {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let rgb = info.color_type == png::ColorType::Rgb;
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        other => panic!("a PNG of colour type {other:?}"),
    };
    let texts = reader.info().utf8_text.iter().map(|t| (t.keyword.clone(), t.get_text().unwrap())).collect();
    Picture { width: info.width, height: info.height, rgba, rgb, texts }
}

/// How far two pictures of one size are apart.
#[derive(Debug, Clone, Copy)]
pub struct Apart {
    /// Pixels that differ in any channel.
    pub differ: usize,
    /// The largest difference of a channel, of 255.
    pub worst: u8,
    /// Where the first pixel that differs by `worst` is, in device pixels.
    pub at: (u32, u32),
    /// Pixels in the picture.
    pub pixels: usize,
}

impl std::fmt::Display for Apart {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let Apart { differ, worst, at: (x, y), pixels } = self;
        write!(f, "{differ} of {pixels} pixels differ, by up to {worst} (first at {x}, {y})")
    }
}

/// How far `a` is from `b` (of one size).
pub fn apart(a: &Picture, b: &Picture) -> Apart {
    assert_eq!((a.width, a.height), (b.width, b.height), "sizes differ");
    let mut out = Apart { differ: 0, worst: 0, at: (0, 0), pixels: (a.width * a.height) as usize };
    for (i, (p, q)) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)).enumerate() {
        let d = p.iter().zip(q).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        if d > 0 {
            out.differ += 1;
        }
        if d > out.worst {
            out.worst = d;
            out.at = (i as u32 % a.width, i as u32 / a.width);
        }
    }
    out
}

/// Whether a PNG drawn from a scene is resvg's drawing of the scene's SVG, as the map's own test
/// has always held it: boxes and lines are tiny-skia's exact pixels, glyphs come from one mask per
/// glyph, size and 4096th of a pixel (an edge may round to the other side of one of tiny-skia's
/// samples), so fewer than one pixel in 20 000 may differ, by at most 32 of 255. A glyph a quarter
/// of a pixel off differs by up to 64 on its stems; one missing or moved, or a shape of another
/// colour or a pixel off, by far more.
pub fn within_tolerance(a: Apart) -> bool {
    a.differ * 20_000 < a.pixels && a.worst <= 32
}
