//! The PNG: the SVG document, parsed by usvg and drawn by resvg with the bundled font. There is no
//! second drawing path, so the PNG and the SVG cannot disagree.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

use crate::error::{Detail, Error, ErrorKind, Result};
use crate::layout::text::FONT;

/// The most pixels one PNG may have (about 256 MiB of RGBA): past it the picture is refused before
/// anything is allocated.
pub const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// Facts written into the PNG's text chunks; no timestamps, so equal input gives equal bytes.
pub struct Metadata<'a> {
    /// The dump's file name.
    pub dump: &'a str,
    /// The pass the dump was written after.
    pub pass_name: &'a str,
    /// The backend whose capacities scale the map.
    pub backend: &'a str,
}

/// Rasterizes `svg` at `scale` device pixels per px and encodes it as PNG.
pub fn render(svg: &str, scale: f64, meta: &Metadata) -> Result<Vec<u8>> {
    crate::layout::SCALE.check("scale", scale)?;
    let tree = parse(svg)?;
    crate::budget::checkpoint()?;
    let size = tree.size();
    let (w, h) = ((size.width() as f64 * scale).ceil() as u64, (size.height() as f64 * scale).ceil() as u64);
    if w * h > MAX_PIXELS || w == 0 || h == 0 {
        // What would make it smaller depends on the view; the caller that knows it adds the advice.
        return Err(Error::with_detail(
            ErrorKind::TooLarge,
            format!(
                "the picture would be {w} x {h} px ({:.0} Mpx), over the {:.0} Mpx limit",
                (w * h) as f64 / 1e6,
                MAX_PIXELS as f64 / 1e6
            ),
            Detail::PictureTooLarge {
                width: w,
                height: h,
                max_pixels: MAX_PIXELS,
                widening: Vec::new(),
                functions: Vec::new(),
                advice: Vec::new(),
            },
        ));
    }
    let pixmap = rasterize(&tree, w as u32, h as u32, scale as f32)?;
    crate::budget::checkpoint()?;
    encode(&pixmap, meta)
}

/// usvg options with only the bundled font, so output does not depend on the machine's fonts.
fn options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        let family = db.faces().next().and_then(|f| f.families.first().map(|(n, _)| n.clone())).unwrap_or_default();
        // Every generic family maps to the bundled face; an unknown family falls back to serif.
        db.set_serif_family(family.clone());
        db.set_sans_serif_family(family.clone());
        db.set_monospace_family(family.clone());
        usvg::Options { font_family: family, fontdb: Arc::new(db), ..usvg::Options::default() }
    })
}

/// Parses an SVG document with the bundled font.
pub fn parse(svg: &str) -> Result<usvg::Tree> {
    usvg::Tree::from_str(svg, options())
        .map_err(|e| Error::new(ErrorKind::Io, format!("internal error: the SVG did not parse: {e}")))
}

/// Draws a parsed tree onto a new pixmap.
pub fn rasterize(tree: &usvg::Tree, w: u32, h: u32, scale: f32) -> Result<tiny_skia::Pixmap> {
    let mut pixmap = tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| Error::new(ErrorKind::TooLarge, format!("cannot allocate a {w} x {h} px picture")))?;
    resvg::render(tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    Ok(pixmap)
}

/// Encodes RGBA with text chunks naming the tool, the dump, the pass and the backend.
pub fn encode(pixmap: &tiny_skia::Pixmap, meta: &Metadata) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let fail = |e: png::EncodingError| Error::new(ErrorKind::Io, format!("cannot encode the PNG: {e}"));
    {
        let mut enc = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let software = format!("pto-memory-map {}", env!("CARGO_PKG_VERSION"));
        for (key, value) in [
            ("Software", software.as_str()),
            ("Source", meta.dump),
            ("Pass", meta.pass_name),
            ("Backend", meta.backend),
        ] {
            enc.add_itxt_chunk(key.to_string(), value.to_string()).map_err(fail)?;
        }
        let mut writer = enc.write_header().map_err(fail)?;
        writer.write_image_data(&straight_alpha(pixmap.data())).map_err(fail)?;
        writer.finish().map_err(fail)?;
    }
    Ok(out)
}

/// Whether every pixel of RGBA `data` is opaque. A block's alphas are ANDed together, which the
/// compiler turns into vector instructions whatever it inlines around it (a test per pixel that
/// stopped at the first translucent one took 4% of a large PNG's time in one build and 10% in the
/// next: such a PNG has some 20 million pixels); the first translucent block stops it.
fn opaque(data: &[u8]) -> bool {
    data.chunks(16 * 1024).all(|block| block.chunks_exact(4).fold(0xFF, |alpha, px| alpha & px[3]) == 0xFF)
}

/// tiny-skia keeps premultiplied alpha; PNG wants it straight. The page background is opaque, so
/// usually every pixel is, and the pixels go out as they are, without a copy.
fn straight_alpha(data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if opaque(data) {
        return std::borrow::Cow::Borrowed(data);
    }
    let mut out = data.to_vec();
    for px in out.chunks_exact_mut(4) {
        let a = px[3] as u32;
        if a != 0 && a != 255 {
            for c in &mut px[..3] {
                *c = ((*c as u32 * 255 + a / 2) / a).min(255) as u8;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opaque_pixels_go_out_as_they_are_and_translucent_ones_straight() {
        let mut data = [10u8, 20, 30, 255].repeat(10_000); // past one block
        assert!(opaque(&data));
        assert!(matches!(straight_alpha(&data), std::borrow::Cow::Borrowed(_)));
        // One translucent pixel in the last block: premultiplied (5, 10, 15) at alpha 128.
        let last = data.len() - 4;
        data[last..].copy_from_slice(&[5, 10, 15, 128]);
        assert!(!opaque(&data));
        let straight = straight_alpha(&data);
        assert!(matches!(straight, std::borrow::Cow::Owned(_)));
        assert_eq!(&straight[last..], &[10, 20, 30, 128]);
        assert_eq!(&straight[..4], &[10, 20, 30, 255]);
    }
}
