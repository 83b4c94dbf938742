//! Axis-aligned boxes filled with exact anti-aliased coverage, worked out directly: the pixels
//! tiny-skia's path filler gives the same boxes, at a fraction of its cost (the map is mostly
//! boxes); and which lines and outlines are such boxes once stroked. Apart from the raster's drawing because it is arithmetic on rows of pixels alone, held
//! to tiny-skia's own by the raster's tests.

use resvg::tiny_skia::{self, Path, Transform};

use crate::plan::style::Color;

/// Fills the union of `boxes` (the scene's px) at `transform` onto `pixmap`, with the pixels
/// tiny-skia's anti-aliased filling gives the same boxes as one path: each edge at the nearest
/// quarter of a pixel, a pixel's coverage added up over its four sub-rows as tiny-skia adds it
/// (its sums and their rounding), and the colour blended in by it with tiny-skia's arithmetic.
/// False when the pixmap is past what tiny-skia anti-aliases (it then draws without).
pub(super) fn boxes_onto(
    boxes: &[[f32; 4]],
    color: Color,
    transform: Transform,
    pixmap: &mut tiny_skia::PixmapMut,
) -> bool {
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

/// The boxes whose union `path` filled (`stroke` `None`) or stroked at `scale` covers, when it is
/// such a union: a rectangle filled; lines across or down, solid or dashed, and rectangles'
/// outlines (solid), stroked with square ends and corners, wider than a device pixel (thinner
/// ones tiny-skia draws as hairlines, otherwise). `None` for anything else.
pub(super) fn boxes(
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
