//! The PNG back end: the SVG, drawn with the bundled font, deterministic, with metadata and a guard.

mod common;

use pto_memory_map::layout;
use pto_memory_map::option_table::{Shell, describe};
use pto_memory_map::plan::{ViewOptions, style};
use pto_memory_map::scene::Scene;
use pto_memory_map::{ErrorKind, Format, MemoryMap, RenderOptions, render_map};

use common::reference::{self, decode};

fn close(a: [u8; 3], b: style::Color, tolerance: u8) -> bool {
    [b.0, b.1, b.2].iter().zip(a).all(|(&x, y)| x.abs_diff(y) <= tolerance)
}

fn example() -> MemoryMap {
    pto_memory_map::load(&common::example(), "AllocateMemoryAddr", None).unwrap()
}

fn png_of(map: &MemoryMap, view: ViewOptions, scale: f64) -> (Scene, Vec<u8>) {
    let scene = layout(map, &view);
    let bytes = render_map(map, &RenderOptions { format: Format::Png, backend: None, view, scale }).unwrap();
    (scene, bytes)
}

#[test]
fn the_png_is_the_svg_drawn() {
    let map = example();
    let view = ViewOptions { functions: vec!["row_softmax".into()], ..Default::default() };
    let scale = 2.0;
    let (scene, bytes) = png_of(&map, view, scale);
    let img = decode(&bytes);
    assert_eq!((img.width, img.height), ((scene.width * scale) as u32, (scene.height * scale) as u32));
    assert!(img.rgb, "an opaque picture goes out without an alpha channel");
    // At a scale that leaves the picture's edge a part of a pixel, that edge is translucent: RGBA.
    let view = ViewOptions { functions: vec!["row_softmax".into()], ..Default::default() };
    let (scene, bytes) = png_of(&map, view, 1.3);
    let whole = (scene.width * 1.3).fract() == 0.0 && (scene.height * 1.3).fract() == 0.0;
    assert!(!whole, "{} x {} px at 1.3 is whole: pick another scale", scene.width, scene.height);
    assert!(!decode(&bytes).rgb, "a picture with a translucent edge keeps its alpha channel");

    let lane = &scene.cards[0].lanes[0];
    let pal = style::palette(pto_memory_map::plan::Theme::Light);
    let fill = pal.fill(style::space_color("Vec", pal.theme));
    // probs__tile: a plain box; sample its body below the label, away from other boxes.
    let probs = lane.blocks.iter().find(|b| b.name == "probs__tile").unwrap();
    let r = &probs.rect;
    assert!(close(img.at((r.x + r.w * 0.75) * scale, (r.y + r.h - 4.0) * scale), fill, 2), "box fill");
    // A conflict's outline is red: probs__tile overlaps head__tile on another base.
    let s = lane.blocks.iter().find(|b| b.name == "probs__tile").unwrap();
    assert!(s.conflict);
    // Its top edge: the 2 px stroke lies just above the box (drawn outside it).
    let (mx, top) = (s.rect.x + s.rect.w / 2.0, s.rect.y - 1.0);
    assert!(close(img.at(mx * scale, top * scale), style::CRITICAL, 12), "conflict edge");
    // The label area has dark text pixels on the light fill.
    let label = &probs.label[0];
    let mut dark = 0;
    for dy in 0..(9.0 * scale) as u32 {
        for dx in 0..(60.0 * scale) as u32 {
            let [r, g, b] = img.at(label.x * scale + dx as f64, (label.y - 8.0) * scale + dy as f64);
            if (r as u32 + g as u32 + b as u32) < 300 {
                dark += 1;
            }
        }
    }
    assert!(dark > 50, "text was drawn ({dark} dark pixels at {},{})", label.x, label.y);
}

#[test]
fn renders_are_byte_identical_and_carry_metadata() {
    let map = example();
    let (_, a) = png_of(&map, ViewOptions { hidden: vec!["Bias".into()], ..Default::default() }, 1.0);
    let (_, b) = png_of(&map, ViewOptions { hidden: vec!["Bias".into()], ..Default::default() }, 1.0);
    assert!(a == b, "two renders differ");
    let texts = decode(&a).texts;
    let get = |k: &str| texts.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    assert!(get("Software").unwrap().starts_with("pto-memory-map "));
    assert_eq!(get("Source").as_deref(), Some("32_after_AllocateMemoryAddr.py"));
    assert_eq!(get("Pass").as_deref(), Some("AllocateMemoryAddr"));
    assert_eq!(get("Backend").as_deref(), Some("Ascend910B"));
}

#[test]
fn a_picture_over_the_pixel_limit_is_refused_with_advice() {
    let Some(corpus) = common::corpus() else { return };
    let map = pto_memory_map::load(&corpus.join("cases/decode_fwd_layers"), "AllocateMemoryAddr", None).unwrap();
    let opts = RenderOptions {
        format: Format::Png,
        backend: None,
        view: ViewOptions { zoom: 8.0, ..Default::default() },
        scale: 4.0,
    };
    // The whole dump gets its digest; functions named are refused, with advice.
    assert!(render_map(&map, &opts).is_ok(), "a whole dump always has a picture");
    let two = vec!["online_softmax".to_string(), "rope_qkv".to_string()];
    let opts = RenderOptions { view: ViewOptions { functions: two, ..opts.view }, ..opts };
    let Err(err) = render_map(&map, &opts) else { panic!("a picture past the limit was made") };
    assert_eq!(err.kind, ErrorKind::TooLarge);
    let cli = describe(&err, Shell::Cli);
    for advice in ["--split", "--function", "--scale 1", "--x-axis used"] {
        assert!(cli.contains(advice), "{cli}");
    }
    // Over HTTP the same error names parameters, never flags.
    let http = describe(&err, Shell::Http);
    assert!(http.contains("function=NAME") && http.contains("scale=1") && !http.contains("--"), "{http}");
}

/// Under `--scale-mode strict`, Ascend910B's 1 KiB Bias lane at 72 px makes an AIC card with Bias
/// tens of thousands of px wide: the refusal names Bias as the cause and says how to hide it; the
/// CLI notes it for an SVG too. By default Bias is an inset and the PNG is made.
#[test]
fn a_map_widened_by_a_small_space_names_it() {
    let case = common::fixtures().join("fx_a2a3_case");
    let map = pto_memory_map::load(&case, "AllocateMemoryAddr", None).unwrap();
    let default = RenderOptions { format: Format::Png, ..Default::default() };
    assert!(render_map(&map, &default).is_ok(), "by default Bias is an inset and the picture is made");
    assert!(pto_memory_map::plan::width::widening_spaces(&map, &default.view).is_empty());
    // The whole dump gets its digest; its functions named, the refusal says why.
    let strict = ViewOptions { scale_mode: pto_memory_map::plan::ScaleMode::Strict, ..Default::default() };
    let whole = RenderOptions { format: Format::Png, view: strict.clone(), ..Default::default() };
    assert!(render_map(&map, &whole).is_ok(), "a whole dump always has a picture");
    let every: Vec<String> = map.functions.iter().map(|f| f.name.clone()).collect();
    let strict = ViewOptions { functions: every, ..strict };
    let opts = RenderOptions { format: Format::Png, view: strict.clone(), ..Default::default() };
    let Err(err) = render_map(&map, &opts) else { panic!("a picture past the limit was made") };
    assert_eq!(err.kind, ErrorKind::TooLarge);
    let cli = describe(&err, Shell::Cli);
    assert!(cli.contains("small Bias lane sets the byte scale") && cli.contains("--hide Bias"), "{cli}");
    let hidden = RenderOptions { view: ViewOptions { hidden: vec!["Bias".into()], ..strict }, ..opts };
    assert!(render_map(&map, &hidden).is_ok(), "hiding Bias gives a picture");
    assert!(pto_memory_map::plan::width::widening_spaces(&map, &hidden.view).is_empty());

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
        .args([case.to_str().unwrap(), "--scale-mode", "strict", "-f", "svg", "-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("note: the small Bias lane") && err.contains("--hide Bias"), "{err}");
    // A map of ordinary proportions gets no note.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
        .args([common::example().to_str().unwrap(), "--hide", "Bias", "-f", "svg", "-o", "-", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `f` with the run bounded to `threads` threads (the PNG's strips are spread over them).
fn on_threads<T>(threads: usize, f: impl FnOnce() -> T) -> T {
    let budget = pto_memory_map::budget::Budget { threads: Some(threads), ..Default::default() };
    pto_memory_map::budget::run(budget, f)
}

#[test]
fn the_same_bytes_on_any_number_of_threads() {
    let map = example();
    let opts = RenderOptions { format: Format::Png, scale: 2.0, ..Default::default() };
    let one = on_threads(1, || render_map(&map, &opts).unwrap());
    for threads in [2, 3, 8] {
        let many = on_threads(threads, || render_map(&map, &opts).unwrap());
        assert!(one == many, "{threads} threads gave other bytes than one");
    }
    // A picture of many strips, decoded whole: the strips' pieces make one valid stream.
    let img = decode(&one);
    let scene = layout(&map, &opts.view);
    assert_eq!((img.width, img.height), ((scene.width * 2.0) as u32, (scene.height * 2.0) as u32));
    assert!(img.height > 10 * 64, "several strips");
}

/// The PNG is resvg's drawing of the same map's SVG, pixel by pixel within a small tolerance (see
/// `common::reference::within_tolerance`), over dumps that between them draw every kind of mark:
/// views and conflicts, reserved windows and their overflow, insets of other scales, a lane past
/// its capacity, fit outlines, the packed view, the dark theme, a picture of many strips. A
/// translucent edge (a scale that leaves the picture a part of a pixel wider) is left to the
/// first test: the PNG stores straight alpha, resvg's pixels are premultiplied.
#[test]
fn the_png_is_resvgs_drawing_of_the_svg() {
    let fixture = |name: &str| common::fixtures().join(name);
    let only =
        |names: &[&str]| ViewOptions { functions: names.iter().map(|n| n.to_string()).collect(), ..Default::default() };
    let fit = "Vec=32KB@42-50".parse().unwrap();
    let cases: Vec<(&str, std::path::PathBuf, ViewOptions)> = vec![
        ("the demo whole, many strips", common::example(), ViewOptions::default()),
        ("views, conflicts, a fit", common::example(), ViewOptions { fits: vec![fit], ..only(&["row_softmax"]) }),
        (
            "reserved windows, dark",
            fixture("reserve_windows.py"),
            ViewOptions { theme: pto_memory_map::plan::Theme::Dark, ..Default::default() },
        ),
        ("held conflicts, packed", fixture("held_conflicts.py"), ViewOptions { packed: true, ..Default::default() }),
        ("insets", fixture("inset_a5_scales.py"), ViewOptions::default()),
        (
            "over capacity, used axis",
            fixture("layout_over_capacity.py"),
            ViewOptions { x_axis: pto_memory_map::plan::XAxis::Used, ..Default::default() },
        ),
    ];
    // The default scale, which the tolerance was measured at. At scale 1 a glyph's flat edge can
    // fall on one of tiny-skia's sample rows, so a mask's rounding shows more (up to 55 of 255 on
    // some 60 pixels of reserve_windows.py's header), and a stroke of at most a device pixel is a
    // hairline, which tiny-skia clips at each strip's edge (about 1 200 pixels by up to 12, as
    // resvg's own drawing a strip at a time differs from its drawing whole).
    let scale = 2.0;
    for (what, path, view) in cases {
        let map = pto_memory_map::load(&path, "AllocateMemoryAddr", None).unwrap();
        let opts = |format| RenderOptions { format, backend: None, view: view.clone(), scale };
        let svg = String::from_utf8(render_map(&map, &opts(Format::Svg)).unwrap()).unwrap();
        let want = reference::draw(&svg, scale as f32);
        let got = reference::decode(&render_map(&map, &opts(Format::Png)).unwrap());
        let apart = reference::apart(&got, &want);
        eprintln!("{what}: {apart}");
        assert!(reference::within_tolerance(apart), "{what}: {apart}");
    }
}

/// The comparison above can fail: a box moved by 1 px, a mark left out, or a line of text a
/// quarter of a px off is past its tolerance.
#[test]
fn a_mark_a_little_off_is_past_the_tolerance() {
    use common::reference;
    use pto_memory_map::render::png;
    use pto_memory_map::scene::Shape;
    let map = example();
    let view = ViewOptions { functions: vec!["row_softmax".into()], ..Default::default() };
    let scene = layout(&map, &view);
    let want = reference::draw(&pto_memory_map::render::svg::render(&scene), 2.0);
    let meta = png::Metadata { dump: "d", pass_name: "p", backend: "b" };
    let apart =
        |scene: Scene| reference::apart(&reference::decode(&png::render_scene(scene, 2.0, &meta).unwrap()), &want);
    let same = apart(scene.clone());
    assert!(reference::within_tolerance(same), "the scene as it is: {same}");
    type Change = fn(&mut Scene);
    let changes: [(&str, Change); 3] = [
        ("a box moved by 1 px", |s| {
            let lane = &mut s.cards[0].lanes[0];
            let b = lane.blocks.iter_mut().find(|b| b.name == "stats__tile").unwrap();
            b.rect.x += 1.0;
            b.outline.x += 1.0;
        }),
        ("the high-water line left out", |s| s.cards[0].lanes[0].hwm = None),
        ("the title a quarter of a px off", |s| {
            let title = s.header.iter_mut().find_map(|s| match s {
                Shape::Text(t) => Some(t),
                _ => None,
            });
            title.unwrap().x += 0.25;
        }),
    ];
    for (what, change) in changes {
        let mut changed = scene.clone();
        change(&mut changed);
        let off = apart(changed);
        eprintln!("{what}: {off}");
        assert!(!reference::within_tolerance(off), "{what} passed: {off}");
    }
}

/// A dump of AIV functions, each `(name, bytes, lines)`: one Vec tile of that many bytes, live
/// over that many comment lines.
fn one_tile_functions(functions: &[(&str, i64, usize)]) -> MemoryMap {
    let mut text = String::from("import pypto.language as pl\n\n@pl.program\nclass p:\n");
    for (name, size, lines) in functions {
        text.push_str(&format!(
            "    @pl.function(type=pl.FunctionType.AIV)\n    def {name}(self, x):\n        a: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_0, 0, {size}), pl.Mem.Vec] = pl.tile.load(x)\n{}        return a\n",
            "        #\n".repeat(*lines)
        ));
    }
    common::map_of(&text)
}

/// A whole dump past the pixel limit gets the digest: every function's row, the worst first, then
/// the worst cards that fit, and the way to the others; chosen functions past it are refused.
#[test]
fn a_whole_dump_past_the_limit_gets_the_digest() {
    use pto_memory_map::render::{digest, png};
    // Three functions of 120 lines and one of 10 000: the short cards fit the digest, the long one
    // does not.
    let map = one_tile_functions(&[
        ("calm", 1024, 120),
        ("full", 180 * 1024, 120),
        ("long", 1024, 10_000),
        ("mid", 100 * 1024, 120),
    ]);
    let view = ViewOptions::default();
    let overview = pto_memory_map::plan::overview::Overview::of(&map);
    let scene = digest::png_scene(&overview, &pto_memory_map::png_layout(&map, &view), &view, 1.0).unwrap();
    assert!(png::fits(scene.width, scene.height, 1.0));
    let texts: Vec<&str> = scene
        .header
        .iter()
        .filter_map(|s| match s {
            pto_memory_map::scene::Shape::Text(t) => Some(t.content.as_str()),
            _ => None,
        })
        .collect();
    assert!(texts.iter().any(|t| t.starts_with("4 functions, worst first")), "{texts:?}");
    // The header counts the whole dump, not the cards drawn, and says how each function is drawn.
    let full = scene.cards.len();
    let how = format!("4: {full} in full, {} summarised", 4 - full);
    assert!(texts.contains(&how.as_str()), "{how} not in {texts:?}");
    let tiles: usize = map.functions.iter().map(|f| f.blocks.len()).sum();
    assert!(texts.contains(&tiles.to_string().as_str()), "{tiles} tiles not in {texts:?}");
    let said = texts.iter().find(|t| t.starts_with("Too large for one PNG: the ")).expect("what follows");
    let advice = texts.iter().find(|t| t.starts_with("Draw ")).expect("advice");
    for way in ["--function NAME", "--split", "function=NAME"] {
        assert!(advice.contains(way), "{advice}");
    }
    // Rows the worst first, as the page's overview orders them.
    let order: Vec<String> = pto_memory_map::plan::overview::worst_first(&map).iter().map(|f| f.name.clone()).collect();
    assert_eq!(order[0], "full");
    let rows: Vec<&str> = texts.iter().copied().filter(|t| order.iter().any(|n| n == t)).collect();
    assert_eq!(rows, order.iter().map(String::as_str).collect::<Vec<_>>());
    // The worst cards are drawn under the table, the worst first, and only the worst: none is
    // picked from further down past one that fits no more. "long" (10 000 lines) is too tall for
    // any digest, so it alone is passed over, and the words say the cards are those that fit.
    assert!(!scene.cards.is_empty() && scene.cards.len() < 4, "{} cards", scene.cards.len());
    let drawn: Vec<&str> = scene.cards.iter().map(|c| c.function.as_str()).collect();
    let fitting: Vec<&str> = order.iter().map(String::as_str).filter(|n| *n != "long").collect();
    assert_eq!(drawn, fitting[..drawn.len()], "the worst that fit, in order");
    let passed = order.iter().position(|n| n == "long").unwrap()
        < order.iter().position(|n| n == drawn[drawn.len() - 1]).unwrap();
    assert_eq!(said.contains("that fit"), passed, "{said}");
    // The PNG itself is made.
    let opts = RenderOptions { format: Format::Png, scale: 1.0, view: view.clone(), ..Default::default() };
    let img = decode(&render_map(&map, &opts).unwrap());
    assert_eq!((img.width, img.height), (scene.width as u32, scene.height as u32));
    // A long function chosen, past the limit: refused before it is drawn.
    let one = ViewOptions { functions: vec!["long".into()], ..view };
    let Err(err) = render_map(&map, &RenderOptions { view: one, ..opts }) else {
        panic!("a picture past the limit was made")
    };
    assert_eq!(err.kind, ErrorKind::TooLarge);
    assert!(err.to_string().contains("the picture would be"), "{err}");
}

/// The digest draws the worst cards in order and stops at the first that does not fit under
/// them: a smaller card from further down would read as the next worst.
#[test]
fn the_digest_stops_at_the_first_worst_card_that_does_not_fit() {
    use pto_memory_map::scene::digest::digest;
    // Worst first: "full" (96 %), then "mid" (53 %, taller), then "calm" (a few lines).
    let map = one_tile_functions(&[("full", 180 * 1024, 100), ("mid", 100 * 1024, 130), ("calm", 1024, 4)]);
    let view = ViewOptions::default();
    let overview = pto_memory_map::plan::overview::Overview::of(&map);
    let lay = pto_memory_map::png_layout(&map, &view);
    let card_h = |name: &str| {
        let s = layout(&map, &ViewOptions { functions: vec![name.to_string()], ..view.clone() });
        s.cards[0].frame.h
    };
    // A budget with room for "full" and then "calm", not "mid": 80 px past the first two.
    let alone = digest(&overview, &lay, &view, 1.0, u64::MAX / 4).unwrap();
    assert_eq!(alone.cards.len(), 3, "all three fit an unbounded digest");
    let full_end = alone.cards[0].frame.y + alone.cards[0].frame.h;
    let tall = full_end + 16.0 + card_h("calm") + 80.0;
    assert!(tall < full_end + 16.0 + card_h("mid"), "mid does not fit after full");
    let budget = (alone.width * tall) as u64;
    let scene = digest(&overview, &lay, &view, 1.0, budget).unwrap();
    let drawn: Vec<&str> = scene.cards.iter().map(|c| c.function.as_str()).collect();
    assert_eq!(drawn, ["full"], "only the worst: calm would read as the second worst");
}

#[test]
fn the_decode_case_whole_gets_a_digest_png() {
    let Some(corpus) = common::corpus() else { return };
    let map = pto_memory_map::load(&corpus.join("cases/decode_fwd_layers"), "AllocateMemoryAddr", None).unwrap();
    let opts = RenderOptions { format: Format::Png, scale: 2.0, ..Default::default() };
    let img = decode(&render_map(&map, &opts).unwrap());
    assert!(img.width as u64 * img.height as u64 <= pto_memory_map::render::png::MAX_PIXELS);
    // The cards drawn are the worst first, in that order.
    let overview = pto_memory_map::plan::overview::Overview::of(&map);
    let lay = pto_memory_map::png_layout(&map, &opts.view);
    let scene = pto_memory_map::render::digest::png_scene(&overview, &lay, &opts.view, 2.0).unwrap();
    let order: Vec<String> = pto_memory_map::plan::overview::worst_first(&map).iter().map(|f| f.name.clone()).collect();
    let at: Vec<usize> = scene.cards.iter().map(|c| order.iter().position(|n| *n == c.function).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
}

/// The least size the PNG reckons a whole dump at before laying it out is never more than the
/// scene laid out, for every drawable dump and views that change widths and heights: a bound too
/// high would give a dump that fits a digest instead of its picture.
#[test]
fn the_least_size_of_a_dump_is_never_more_than_its_scene() {
    use pto_memory_map::plan::{ScaleMode, XAxis};
    let mut dumps = common::drawable_dumps();
    for name in ["inset_a5_scales.py", "inset_a2a3_bias.py", "layout_over_capacity.py"] {
        let path = common::fixtures().join(name);
        let map = pto_memory_map::load(&path, "AllocateMemoryAddr", None).unwrap();
        dumps.push((path, map));
    }
    let views = [
        ViewOptions::default(),
        ViewOptions { zoom: pto_memory_map::plan::RULES.zoom_min, ..Default::default() },
        ViewOptions { zoom: 4.0, ..Default::default() },
        ViewOptions { width: 200.0, ..Default::default() },
        ViewOptions { width: 3000.0, x_axis: XAxis::Used, ..Default::default() },
        ViewOptions { scale_mode: ScaleMode::Strict, ..Default::default() },
        ViewOptions { hidden: vec!["Vec".into(), "Mat".into()], ..Default::default() },
        ViewOptions {
            hidden: vec!["Vec".into(), "Mat".into(), "Left".into(), "Right".into(), "Acc".into()],
            ..Default::default()
        },
    ];
    let mut checked = 0;
    for (path, map) in &dumps {
        let overview = pto_memory_map::plan::overview::Overview::of(map);
        for view in &views {
            let (w, h) = pto_memory_map::render::digest::least_size(&overview, view);
            let scene = layout(map, view);
            assert!(
                w <= scene.width && h <= scene.height,
                "{}: at least {w} x {h} px, laid out {} x {} ({view:?})",
                path.display(),
                scene.width,
                scene.height
            );
            checked += 1;
        }
    }
    eprintln!("{checked} scenes of {} dumps", dumps.len());
    assert!(checked >= 4 * views.len(), "{checked}");
}

/// A whole dump whose cards could not fit the PNG however they were laid out gets its digest
/// without being laid out whole first (a model's dump of hundreds of functions was laid out only
/// to be found too large); one whose least size fits is laid out, and then gets its digest.
#[test]
fn a_dump_too_large_by_its_least_size_is_not_laid_out_whole() {
    use pto_memory_map::render::digest;
    use std::cell::RefCell;
    let functions: Vec<(String, i64, usize)> = (0..40).map(|i| (format!("f{i}"), 1024 * (i + 1), 200)).collect();
    let named: Vec<(&str, i64, usize)> = functions.iter().map(|(n, b, l)| (n.as_str(), *b, *l)).collect();
    let map = one_tile_functions(&named);
    let overview = pto_memory_map::plan::overview::Overview::of(&map);
    let view = ViewOptions::default();
    let wholes = RefCell::new(0);
    let lay = |v: &ViewOptions, _: pto_memory_map::scene::digest::Heading| {
        if v.functions.is_empty() {
            *wholes.borrow_mut() += 1;
        }
        layout(&map, v)
    };
    let (w, h) = digest::least_size(&overview, &view);
    assert!(!pto_memory_map::render::png::fits(w, h, 2.0), "the case is past the limit by its least size");
    let scene = digest::png_scene(&overview, &lay, &view, 2.0).unwrap();
    assert_eq!(*wholes.borrow(), 0, "not laid out whole");
    assert!(scene.cards.len() < 40, "the digest: {} cards", scene.cards.len());
    // At scale 1 the least size fits and the whole is laid out, to be found past the limit.
    assert!(pto_memory_map::render::png::fits(w, h, 1.0));
    let scene = digest::png_scene(&overview, &lay, &view, 1.0).unwrap();
    assert_eq!(*wholes.borrow(), 1, "laid out whole once");
    assert!(scene.cards.len() < 40, "the digest: {} cards", scene.cards.len());
}
