//! Readable by default: at default options, every function of every real dump, and of the
//! `inset_*` fixtures that use every space of both backends and one no backend knows, gets a PNG, an
//! SVG at most 3000 px wide, and every box's full name as visible text in its card (in the box or in
//! the card's key; a `<title>` tooltip does not count).

mod common;

use std::path::{Path, PathBuf};

use pto_memory_map::model::MemoryMap;
use pto_memory_map::plan::ViewOptions;
use pto_memory_map::{Format, RenderOptions, render_map};

/// The widest picture a default render may be (CSS px; its PNG is twice that at the default scale).
const MAX_WIDTH: f64 = 1600.0;

/// The visible texts of an SVG: the contents of its `<text>` elements, unescaped.
fn visible_texts(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find("<text") {
        rest = &rest[at..];
        let Some(open_end) = rest.find('>') else { break };
        let Some(close) = rest.find("</text>") else { break };
        out.push(unescape(&rest[open_end + 1..close]));
        rest = &rest[close..];
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

fn svg_width(svg: &str) -> f64 {
    let at = svg.find("width=\"").expect("an svg width") + 7;
    svg[at..].split('"').next().unwrap().parse().unwrap()
}

/// The width of each card's frame: the first rect of each `g.card`.
fn card_widths(svg: &str) -> Vec<f64> {
    svg.split("<g class=\"card\"")
        .skip(1)
        .map(|card| svg_width(&card[card.find("<rect").expect("a card frame")..]))
        .collect()
}

/// Checks one function of `map` at default options; returns how many boxes it checked.
fn check_function(map: &MemoryMap, function: &str, what: &str) -> usize {
    let view = ViewOptions { functions: vec![function.to_string()], ..Default::default() };
    let svg_opts = RenderOptions { format: Format::Svg, view: view.clone(), ..Default::default() };
    let svg = String::from_utf8(render_map(map, &svg_opts).unwrap()).unwrap();
    let width = svg_width(&svg);
    assert!(width <= MAX_WIDTH, "{what} {function}: the SVG is {width} px wide");
    // Insets and live-bytes columns come out of `--width`: the card is its panel (the width asked
    // for, plus 12 px of padding each side), however many small spaces it has.
    for card in card_widths(&svg) {
        assert!(
            card <= view.width + 24.0 + 0.5,
            "{what} {function}: a card is {card} px wide for --width {}",
            view.width
        );
    }
    let texts = visible_texts(&svg);
    let f = map.functions.iter().find(|f| f.name == function).unwrap();
    for b in &f.blocks {
        let name = &b.tile.name;
        let shown = texts.iter().any(|t| t == name || t.starts_with(&format!("{name} ")));
        assert!(shown, "{what} {function}: the box {name} is not named on the picture");
    }
    let png_opts = RenderOptions { format: Format::Png, view, ..Default::default() };
    let png = render_map(map, &png_opts).unwrap_or_else(|e| panic!("{what} {function}: no PNG: {e}"));
    assert!(png.starts_with(b"\x89PNG"), "{what} {function}");
    f.blocks.len()
}

fn check_map(map: &MemoryMap, what: &str) -> usize {
    map.functions.iter().map(|f| check_function(map, &f.name, what)).sum()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

#[test]
fn every_space_of_both_backends_and_an_unknown_one_reads_at_default_options() {
    let cases = [
        ("inset_a2a3_bias.py", "Ascend910B", "Bias"),
        ("inset_a5_scales.py", "Ascend950", "LeftScale"),
        ("inset_a5_scales.py", "Ascend950", "RightScale"),
        ("inset_a5_scales.py", "Ascend950", "Bias"),
        ("inset_unknown_space.py", "Ascend910B", "Fix"),
        ("inset_unknown_space.py", "Ascend950", "Fix"),
    ];
    for (file, backend, small) in cases {
        let map = pto_memory_map::load(&fixture(file), "AllocateMemoryAddr", Some(backend)).unwrap();
        let what = format!("{file} on {backend}");
        assert!(check_map(&map, &what) > 0, "{what}");
        // The small space is drawn as an inset, at its own scale, and says so.
        let svg =
            String::from_utf8(render_map(&map, &RenderOptions { format: Format::Svg, ..Default::default() }).unwrap())
                .unwrap();
        let lane = format!("<g class=\"lane inset\" data-space=\"{small}\"");
        assert!(svg.contains(&lane), "{what}: {small} is not an inset");
    }
}

#[test]
fn every_function_of_every_corpus_dump_reads_at_default_options() {
    let Some(_) = common::corpus() else { return };
    let (mut dumps, mut boxes) = (0, 0);
    for (path, map) in common::drawable_corpus() {
        boxes += check_map(&map, &path.display().to_string());
        dumps += 1;
    }
    eprintln!("{dumps} dumps, {boxes} boxes: every one named, every PNG made, every SVG within {MAX_WIDTH} px");
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().unwrap()
}

/// No option silently ignored: `-f json` honours `--function` and `--hide`; a `--fit` range that
/// crosses no function is an error naming the functions' lines; `-o map.txt` is a usage error
/// listing the formats; a refused PNG's advice does not suggest what it was given.
#[test]
fn no_option_is_silently_ignored() {
    let demo = common::example();
    let demo = demo.to_str().unwrap();
    let out = cli(&[demo, "-f", "json", "--function", "qk_matmul", "--hide", "Bias", "-o", "-"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let functions = json["functions"].as_array().unwrap();
    assert_eq!(functions.len(), 1, "--function picks the function");
    assert_eq!(functions[0]["name"], "qk_matmul");
    assert!(functions[0]["spaces"].as_array().unwrap().iter().all(|s| s["space"] != "Bias"), "--hide drops Bias");
    assert!(functions[0]["boxes"].as_array().unwrap().iter().all(|b| b["space"] != "Bias"));

    let out = cli(&[demo, "--fit", "Vec=1KB@1000-1200", "-f", "json", "-o", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cross no compute function") && err.contains("qk_matmul L9–L36"), "{err}");

    let dir = std::env::temp_dir().join(format!("pmm-readable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let txt = dir.join("map.doc");
    let out = cli(&[demo, "-o", txt.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not an output format") && err.contains(".svg, .png, .html, .json, .txt"), "{err}");
    assert!(!txt.exists(), "nothing written");
    std::fs::remove_dir_all(&dir).ok();

    let map = pto_memory_map::load(&common::example(), "AllocateMemoryAddr", None).unwrap();
    let view = ViewOptions {
        zoom: 64.0,
        width: 4000.0,
        functions: vec!["qk_matmul".into()],
        x_axis: pto_memory_map::plan::XAxis::Used,
        ..Default::default()
    };
    let opts = RenderOptions { format: Format::Png, view, scale: 1.0, ..Default::default() };
    let Err(err) = render_map(&map, &opts) else { panic!("a picture over the pixel limit was made") };
    assert_eq!(err.kind, pto_memory_map::ErrorKind::TooLarge, "{err}");
    let cli = pto_memory_map::option_table::describe(&err, pto_memory_map::option_table::Shell::Cli);
    for given in ["--scale 1", "--x-axis used", "--function", "--split"] {
        assert!(!cli.contains(given), "advises {given}, which it was given: {cli}");
    }
    assert!(cli.contains("--zoom 1"), "{cli}");
}
