//! The PNG back end: the SVG, drawn with the bundled font, deterministic, with metadata and a guard.

mod common;

use pto_memory_map::layout::{Scene, ViewOptions, layout, style};
use pto_memory_map::option_table::{Shell, describe};
use pto_memory_map::{ErrorKind, Format, MemoryMap, RenderOptions, render_map};

struct Image {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
    texts: Vec<(String, String)>,
}

fn decode(bytes: &[u8]) -> Image {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgba).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let texts = reader.info().utf8_text.iter().map(|t| (t.keyword.clone(), t.get_text().unwrap())).collect();
    Image { width: info.width, height: info.height, rgba, texts }
}

impl Image {
    fn at(&self, x: f64, y: f64) -> [u8; 3] {
        let i = ((y as u32 * self.width + x as u32) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }
}

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

    let lane = &scene.cards[0].lanes[0];
    let pal = style::palette(pto_memory_map::layout::Theme::Light);
    let fill = pal.fill(style::space_color("Vec", pal.theme));
    // probs__tile: a plain box; sample its body below the label, away from other boxes.
    let probs = lane.blocks.iter().find(|b| b.name == "probs__tile").unwrap();
    let r = &probs.rect;
    assert!(close(img.at((r.x + r.w * 0.75) * scale, (r.y + r.h - 4.0) * scale), fill, 2), "box fill");
    // A conflict's outline is red: s__tile overlaps probs__tile on another base.
    let s = lane.blocks.iter().find(|b| b.name == "s__tile").unwrap();
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
    let err = render_map(&map, &opts).unwrap_err();
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
    assert!(pto_memory_map::layout::widening_spaces(&map, &default.view).is_empty());
    let strict = ViewOptions { scale_mode: pto_memory_map::layout::ScaleMode::Strict, ..Default::default() };
    let opts = RenderOptions { format: Format::Png, view: strict.clone(), ..Default::default() };
    let err = render_map(&map, &opts).unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge);
    let cli = describe(&err, Shell::Cli);
    assert!(cli.contains("small Bias lane sets the byte scale") && cli.contains("--hide Bias"), "{cli}");
    let hidden = RenderOptions { view: ViewOptions { hidden: vec!["Bias".into()], ..strict }, ..opts };
    assert!(render_map(&map, &hidden).is_ok(), "hiding Bias gives a picture");
    assert!(pto_memory_map::layout::widening_spaces(&map, &hidden.view).is_empty());

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
