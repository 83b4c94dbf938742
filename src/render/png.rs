//! The PNG: a scene (a map's, its digest's or a diff's) drawn with tiny-skia straight from its
//! shapes (see `render::raster`: the paths usvg makes of its SVG, the same pixels but for a few of
//! glyphs' edges; tests hold maps and diffs to resvg's drawing of their SVG). No SVG text is
//! parsed back: the PNG and the SVG are both written from the one scene.
//!
//! The picture is a stack of independent rows, so it is drawn and compressed in horizontal strips
//! of a fixed height, on every core: each strip draws only the shapes that reach into it, filters
//! its rows, and deflates them into a piece of the one zlib stream (a piece ends on a byte
//! boundary, so the pieces are joined as they are and the checksums combined). The strips do not
//! depend on the number of threads, so neither do the bytes; and no more than one strip per thread
//! is held as pixels, so a large picture costs its compressed size, not its RGBA buffer.

use resvg::tiny_skia;

use crate::error::{Detail, Error, ErrorKind, Result, Task};
use crate::scene::Scene;

/// The most pixels one PNG may have (about 256 MiB of RGBA): past it the picture is refused before
/// anything is drawn.
pub const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// Rows per strip. Fixed, so the bytes are the same on any number of threads. Small enough that
/// a strip's pixels stay in the cache while they are filtered and deflated, large enough that the
/// shapes crossing strip edges and each strip's start (a fresh compressor, a block flushed) are a
/// small share of the work.
const STRIP_ROWS: u32 = 64;

/// Rows drawn past each edge of a strip and dropped: tiny-skia's anti-aliasing gives the row next
/// to a clipped edge a little less coverage (a sixteenth) than the same row drawn unclipped, so
/// each kept row is drawn away from the strip's own edges, as the whole picture would draw it.
const OVERLAP: u32 = 2;

/// The compression level: the fastest that zlib's format offers. Flat colour compresses well at
/// any level; higher ones cost time for little (see the figures in `scripts/bench_png.py`).
const LEVEL: i32 = 1;

/// Facts written into the PNG's text chunks; no timestamps, so equal input gives equal bytes.
pub struct Metadata<'a> {
    /// The dump's file name.
    pub dump: &'a str,
    /// The pass the dump was written after.
    pub pass_name: &'a str,
    /// The backend whose capacities scale the map.
    pub backend: &'a str,
}

/// The size in device pixels of a picture `width` x `height` px drawn at `scale`, or the refusal of
/// one past [`MAX_PIXELS`]: callers ask before they make the picture (the scene's size is known
/// before any SVG text or pixel).
pub fn pixels(width: f64, height: f64, scale: f64) -> Result<(u32, u32)> {
    sized(width, height, scale, false)
}

/// [`pixels`] of a lower bound on the picture's size (a card is at least its lines tall): a refusal
/// says "at least".
pub fn pixels_at_least(width: f64, height: f64, scale: f64) -> Result<(u32, u32)> {
    sized(width, height, scale, true)
}

fn sized(width: f64, height: f64, scale: f64, at_least: bool) -> Result<(u32, u32)> {
    let (w, h) = ((width * scale).ceil(), (height * scale).ceil());
    let (w, h) = (if w.is_finite() { w.max(0.0) } else { f64::MAX }, if h.is_finite() { h.max(0.0) } else { f64::MAX });
    if w * h > MAX_PIXELS as f64 || w < 1.0 || h < 1.0 {
        // What would make it smaller depends on the view; the caller that knows it adds the advice.
        return Err(Error::of(
            ErrorKind::TooLarge,
            Detail::PictureTooLarge {
                width: w as u64,
                height: h as u64,
                max_pixels: MAX_PIXELS,
                at_least,
                widening: Vec::new(),
                functions: Vec::new(),
                advice: Vec::new(),
            },
        ));
    }
    Ok((w as u32, h as u32))
}

/// Whether a picture at least `least` (width, height) px at `scale` may be within [`MAX_PIXELS`].
pub fn fits_least(least: (f64, f64), scale: f64) -> bool {
    pixels_at_least(least.0, least.1, scale).is_ok()
}

/// Whether a picture `width` x `height` px at `scale` is within [`MAX_PIXELS`].
pub fn fits(width: f64, height: f64, scale: f64) -> bool {
    pixels(width, height, scale).is_ok()
}

/// Draws `scene` at `scale` device pixels per px as a PNG, a strip at a time on every core: the
/// scene's shapes are turned into paths once (see `render::raster`), each strip draws those that
/// reach into it.
pub fn render_scene(scene: Scene, scale: f64, meta: &Metadata) -> Result<Vec<u8>> {
    let (w, h) = pixels(scene.width, scene.height, scale)?;
    let drawing = super::raster::drawing(&scene, scale as f32);
    crate::budget::checkpoint()?;
    let count = h.div_ceil(STRIP_ROWS) as usize;
    let mut strips = vec![Vec::new(); count];
    for (k, op) in drawing.ops.iter().enumerate() {
        let (top, bottom) = op.rows(scale as f32, &drawing.masks);
        // Generous: anti-aliasing and miter joins reach a little past the rows, and a shape drawn
        // in one strip too many only costs time.
        let margin = 4.0 + OVERLAP as f32;
        let (top, bottom) = (top - margin, bottom + margin);
        let (first, end) = if top.is_finite() && bottom.is_finite() {
            (
                (top.max(0.0) as u32 / STRIP_ROWS) as usize,
                ((bottom.max(0.0) as u32 / STRIP_ROWS) as usize + 1).min(count),
            )
        } else {
            (0, count)
        };
        for strip in strips.iter_mut().take(end).skip(first) {
            strip.push(k as u32);
        }
    }
    let scale = scale as f32;
    // The background fills every pixel when the picture is a whole number of pixels each way (the
    // usual case): the strip starts as that colour rather than transparent with a rect over it.
    let exact = (scene.width * scale as f64).fract() == 0.0 && (scene.height * scale as f64).fract() == 0.0;
    let background =
        Background { color: scene.background, exact, width: scene.width as f32, height: scene.height as f32 };
    // An opaque picture goes out as RGB: a quarter less to filter, deflate and store.
    let rgb = exact;
    let painter = Painter { scale, drawing: &drawing, strips, background };
    let indices: Vec<u32> = (0..count as u32).collect();
    let last = count as u32 - 1;
    let pieces = crate::par::map_ref(&indices, |&i| strip(&painter, w, h, i, last));
    crate::budget::checkpoint()?;
    let pieces: Vec<Piece> = pieces.into_iter().collect::<Result<_>>()?;
    Ok(assemble(w, h, rgb, meta, &pieces))
}

/// The page colour behind a scene, and whether it covers every pixel whole.
struct Background {
    color: crate::plan::style::Color,
    exact: bool,
    width: f32,
    height: f32,
}

thread_local! {
    /// Each thread's strip of pixels (see [`strip`]).
    static PIXELS: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Each thread's strip of filtered rows, kept for the same reason.
    static FILTERED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Strip `i` of a `w` x `h` px picture, drawn, filtered and deflated (`last` is the last strip's
/// index: its piece ends the stream).
fn strip(painter: &Painter, w: u32, h: u32, i: u32, last: u32) -> Result<Piece> {
    crate::budget::checkpoint()?;
    let top = i * STRIP_ROWS;
    let rows = STRIP_ROWS.min(h - top);
    // A few rows past each edge are drawn and dropped (see OVERLAP).
    let (above, below) = (OVERLAP.min(top), OVERLAP.min(h - top - rows));
    let drawn = above + rows + below;
    let stride = w as usize * 4;
    PIXELS.with_borrow_mut(|pixels| {
        // Each thread's strip pixels are allocated once, not for every strip: a fresh strip's
        // pages cost as much to fault in and zero as drawing it. The painter covers them all.
        pixels.resize(stride * drawn as usize, 0);
        let too_large = || Error::of(ErrorKind::TooLarge, Detail::NoRoomFor { width: w, height: drawn });
        let mut pixmap = tiny_skia::PixmapMut::from_bytes(pixels, w, drawn).ok_or_else(too_large)?;
        painter.paint(i, top - above, &mut pixmap);
        let kept = &pixels[above as usize * stride..(above + rows) as usize * stride];
        FILTERED.with_borrow_mut(|filtered| {
            // A scene over a background that covers every pixel stays opaque: each of its
            // shapes is an opaque colour, blended over opaque pixels.
            let opaque = painter.background.exact;
            debug_assert!(!opaque || self::opaque(kept), "a scene over its background stays opaque");
            let kept = if opaque { std::borrow::Cow::Borrowed(kept) } else { straight_alpha(kept) };
            filter_rows(&kept, stride, opaque, filtered);
            deflate(filtered, i == last)
        })
    })
}

/// What a strip draws: a scene's operations that reach into it (see [`render_scene`]), in painting
/// order, over its background.
struct Painter<'a> {
    scale: f32,
    drawing: &'a super::raster::Drawing,
    /// For each strip, the indices of the operations it draws.
    strips: Vec<Vec<u32>>,
    background: Background,
}

impl Painter<'_> {
    /// Draws the shapes of strip `i` into `pixmap`, whose first row is row `top` of the picture.
    fn paint(&self, i: u32, top: u32, pixmap: &mut tiny_skia::PixmapMut) {
        let Painter { scale, drawing, strips, background } = self;
        // `0.0 - top` rather than `-top`: the first strip's transform is exactly the whole picture's.
        let at = tiny_skia::Transform::from_row(*scale, 0.0, 0.0, *scale, 0.0, 0.0 - top as f32);
        let c = background.color;
        if background.exact {
            pixmap.fill(tiny_skia::Color::from_rgba8(c.0, c.1, c.2, 255));
        } else {
            pixmap.fill(tiny_skia::Color::TRANSPARENT);
            let mut paint = tiny_skia::Paint::default();
            paint.set_color_rgba8(c.0, c.1, c.2, 255);
            if let Some(r) = tiny_skia::Rect::from_xywh(0.0, 0.0, background.width, background.height) {
                pixmap.fill_rect(r, &paint, at, None);
            }
        }
        for &k in &strips[i as usize] {
            drawing.ops[k as usize].draw(at, top as i32, &drawing.masks, pixmap);
        }
    }
}

/// One strip's part of the zlib stream: its deflated rows, and their Adler-32 and length for the
/// stream's checksum.
struct Piece {
    deflated: Vec<u8>,
    adler: u32,
    len: u64,
}

/// Each row of RGBA `data` (`stride` bytes a row) with its PNG filter byte before it: Up (the
/// difference from the row above), which turns the picture's flat colour and vertical edges into
/// runs of zeros; Sub (from the pixel to the left) for a strip's first row, whose row above is
/// another strip's.
fn filter_rows(data: &[u8], stride: usize, rgb: bool, out: &mut Vec<u8>) {
    let rows = data.len() / stride.max(1);
    // RGB drops each pixel's alpha (every one is opaque) as it filters: one pass, no copy.
    let (px, line_len) = if rgb { (3, stride / 4 * 3) } else { (4, stride) };
    // Every byte is written below: what the buffer held before does not matter.
    out.resize(rows * (line_len + 1), 0);
    // Plain loops over slices of one length, which the compiler turns into vector instructions.
    for (r, line) in out.chunks_exact_mut(line_len + 1).enumerate() {
        let row = &data[r * stride..(r + 1) * stride];
        let (kind, line) = line.split_at_mut(1);
        if r == 0 {
            // Sub: each byte less the same channel's byte of the pixel to its left.
            kind[0] = 1;
            if rgb {
                for (i, (d, a)) in line.chunks_exact_mut(3).zip(row.chunks_exact(4)).enumerate() {
                    let b = if i == 0 { [0; 4] } else { [row[4 * i - 4], row[4 * i - 3], row[4 * i - 2], 0] };
                    for c in 0..3 {
                        d[c] = a[c].wrapping_sub(b[c]);
                    }
                }
            } else {
                let first = px.min(stride);
                line[..first].copy_from_slice(&row[..first]);
                for ((d, a), b) in line[first..].iter_mut().zip(&row[first..]).zip(row) {
                    *d = a.wrapping_sub(*b);
                }
            }
        } else {
            // Up: each byte less the byte above it.
            kind[0] = 2;
            let up = &data[(r - 1) * stride..r * stride];
            if row == up {
                // A third of a map's rows repeat the one above (a box's or a lane's inside): a
                // compare and a fill, at memory speed.
                line.fill(0);
            } else if rgb {
                up_rgb(row, up, line);
            } else {
                for ((d, a), b) in line.iter_mut().zip(row).zip(up) {
                    *d = a.wrapping_sub(*b);
                }
            }
        }
    }
}

/// The Up filter of RGBA row `row` under `up` as RGB into `line`, 64 pixels at a time: the bytes'
/// differences in a plain loop the compiler vectorizes, then two pixels' colour bytes out of each 8
/// bytes, written 8 bytes at each pair's 6 (the next pair's write replaces the last two). 2.3 times
/// as fast as a byte at a time, whose dropped alpha keeps the compiler from vectorizing it.
fn up_rgb(row: &[u8], up: &[u8], line: &mut [u8]) {
    const CHUNK: usize = 64;
    let mut diff = [0u8; CHUNK * 4 + 8];
    for ((row, up), line) in row.chunks(CHUNK * 4).zip(up.chunks(CHUNK * 4)).zip(line.chunks_mut(CHUNK * 3)) {
        // Most of a row that differs from the one above is the same as it (a text's few pixels
        // across a lane): a compare and a fill.
        if row == up {
            line.fill(0);
            continue;
        }
        for ((d, a), b) in diff.iter_mut().zip(row).zip(up) {
            *d = a.wrapping_sub(*b);
        }
        let px = line.len() / 3;
        let mut i = 0;
        // A pair is written whole only where the 8 bytes stay inside `line`.
        while 3 * i + 8 <= line.len() {
            let x = u64::from_le_bytes(std::array::from_fn(|k| diff[4 * i + k]));
            let v = (x & 0xFF_FFFF) | ((x >> 8) & 0xFFFF_FF00_0000);
            line[3 * i..3 * i + 8].copy_from_slice(&v.to_le_bytes());
            i += 2;
        }
        for j in i..px {
            line[3 * j..3 * j + 3].copy_from_slice(&diff[4 * j..4 * j + 3]);
        }
    }
}

/// Deflates `data` as one piece of the image's zlib stream ([`crate::deflate::piece`]).
fn deflate(data: &[u8], last: bool) -> Result<Piece> {
    let deflated = crate::deflate::piece(data, LEVEL, last, &[])
        .map_err(|e| Error::failed(ErrorKind::Io, Task::EncodePng, Some(e.to_string())))?;
    Ok(Piece { deflated, adler: zlib_rs::adler32::adler32(1, data), len: data.len() as u64 })
}

/// The PNG file: signature, header, text chunks naming the tool, the dump, the pass and the
/// backend, the image data (one chunk per strip, then the stream's checksum), the end.
fn assemble(w: u32, h: u32, rgb: bool, meta: &Metadata, pieces: &[Piece]) -> Vec<u8> {
    let total: usize = pieces.iter().map(|p| p.deflated.len() + 12).sum();
    let mut out = Vec::with_capacity(total + 1024);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&w.to_be_bytes());
    header.extend_from_slice(&h.to_be_bytes());
    // 8 bits a channel, RGB (2) or RGBA (6), deflate, adaptive filtering, not interlaced.
    header.extend_from_slice(&[8, if rgb { 2 } else { 6 }, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &[&header]);
    let software = format!("pto-memory-map {}", env!("CARGO_PKG_VERSION"));
    for (key, value) in
        [("Software", software.as_str()), ("Source", meta.dump), ("Pass", meta.pass_name), ("Backend", meta.backend)]
    {
        // iTXt: keyword, NUL, not compressed, method 0, no language tag, no translated keyword, text.
        chunk(&mut out, b"iTXt", &[key.as_bytes(), &[0, 0, 0, 0, 0], value.as_bytes()]);
    }
    // zlib's header: deflate with a 32 KiB window, the fastest level, no dictionary.
    const ZLIB_HEADER: [u8; 2] = [0x78, 0x01];
    let mut adler = 1u32;
    for (i, piece) in pieces.iter().enumerate() {
        let head: &[u8] = if i == 0 { &ZLIB_HEADER } else { &[] };
        chunk(&mut out, b"IDAT", &[head, &piece.deflated]);
        adler = zlib_rs::adler32::adler32_combine(adler, piece.adler, piece.len);
    }
    chunk(&mut out, b"IDAT", &[&adler.to_be_bytes()]);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// Appends one chunk: its length, its type, its data (given in parts) and their CRC.
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], parts: &[&[u8]]) {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    out.extend_from_slice(&(len as u32).to_be_bytes());
    let from = out.len();
    out.extend_from_slice(kind);
    for part in parts {
        out.extend_from_slice(part);
    }
    let crc = zlib_rs::crc32::crc32(0, &out[from..]);
    out.extend_from_slice(&crc.to_be_bytes());
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

    #[test]
    fn the_up_filter_is_each_byte_less_the_one_above() {
        // Every pair of byte values, borrows across bytes included, on rows of odd and even widths.
        let mut seed = 7u32;
        let mut byte = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as u8
        };
        for width in [1usize, 2, 3, 257] {
            let stride = width * 4;
            for _ in 0..64 {
                let mut data: Vec<u8> = (0..stride * 4).map(|_| byte()).collect();
                data.copy_within(stride..2 * stride, 2 * stride); // a repeated row
                // One repeated but for a pixel: its other 64-pixel runs are the same as above.
                data.copy_within(2 * stride..3 * stride, 3 * stride);
                let last = 3 * stride + 4 * (width / 2);
                data[last] = data[last].wrapping_add(1);
                for rgb in [true, false] {
                    let mut out = Vec::new();
                    filter_rows(&data, stride, rgb, &mut out);
                    let (px, line) = if rgb { (3, width * 3) } else { (4, stride) };
                    for r in 1..4 {
                        let got = &out[r * (line + 1)..(r + 1) * (line + 1)];
                        assert_eq!(got[0], 2, "Up");
                        for i in 0..width {
                            for c in 0..px {
                                let want =
                                    data[r * stride + 4 * i + c].wrapping_sub(data[(r - 1) * stride + 4 * i + c]);
                                assert_eq!(got[1 + px * i + c], want, "row {r} pixel {i} channel {c} of {width}");
                            }
                        }
                    }
                }
            }
        }
        let all: Vec<u8> = (0..=255u8).flat_map(|a| (0..=255u8).flat_map(move |b| [a, b, b, a])).collect();
        let below: Vec<u8> = all.chunks(4).flat_map(|p| [p[1], p[0], p[0], p[1]]).collect();
        let mut line = vec![0; all.len() / 4 * 3];
        up_rgb(&below, &all, &mut line);
        for (i, (p, q)) in below.chunks(4).zip(all.chunks(4)).enumerate() {
            assert_eq!(line[3 * i..3 * i + 3], [0, 1, 2].map(|c| p[c].wrapping_sub(q[c])), "pixel {i}");
        }
    }
}
