//! The raster held to tiny-skia: every way it draws boxes, frames, outlines and glyphs without
//! tiny-skia's path filler gives the pixels tiny-skia gives, on random cases.

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
    for boxes in [[[1.0, 1.0, 10.0, 20.0], [20.0, 1.0, 30.0, 10.0]], [[20.0, 1.0, 30.0, 10.0], [1.0, 1.0, 10.0, 20.0]]]
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
