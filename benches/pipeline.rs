//! Timings of the pipeline stages on the largest real dump: `cargo bench --bench pipeline`.
//!
//! A plain timing loop (median of repeated runs) rather than a benchmark framework: the figures are
//! for the closing notes and README, and the project keeps its dependency tree small.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pto_memory_map::layout;
use pto_memory_map::plan::ViewOptions;
use pto_memory_map::render::{json, png, svg};
use pto_memory_map::{DiffFormat, Dump, Format, backend, build, render_diff};

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    f(); // warm up
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn report(what: &str, t: Duration, bytes: Option<usize>) {
    let ms = t.as_secs_f64() * 1e3;
    match bytes {
        Some(b) => println!("{what:<36} {ms:>9.2} ms {:>9.1} MB/s", b as f64 / 1e6 / t.as_secs_f64()),
        None => println!("{what:<36} {ms:>9.2} ms"),
    }
}

/// The largest real dump, from `$PMM_CORPUS` (default `../shared/corpus`); without a corpus, the
/// project's largest fixture, so the bench still runs (its figures are then not the README's).
fn dump_path() -> PathBuf {
    if let Some(path) = std::env::var_os("PMM_BENCH_DUMP") {
        return PathBuf::from(path); // another dump, such as a repeated one (scripts/repeat_dump.py)
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = match std::env::var_os("PMM_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => root.join("../shared/corpus"),
    };
    if corpus.is_dir() {
        return corpus.join("cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py");
    }
    println!("note: corpus not found at {} (set PMM_CORPUS): timing a small fixture instead", corpus.display());
    root.join("tests/fixtures/fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py")
}

fn main() {
    let path = dump_path();
    let dump = Dump::open(&path, "AllocateMemoryAddr").expect("benchmark dump");
    let bytes = dump.text.len();
    println!("{} ({} bytes)", dump.name, bytes);
    let choice = backend::choose(None, dump.path.as_deref()).unwrap();
    let view = ViewOptions::default();

    let parse = median(|| drop(ruff_python_parser::parse_module(&dump.text).unwrap()), 21);
    report("parse only (ruff)", parse, Some(bytes));
    let walk = median(|| drop(pto_memory_map::dump::parse(&dump.text, &dump.name).unwrap()), 21);
    report("parse + tile walk", walk, Some(bytes));
    let to_json = median(|| drop(json::render(&build(&dump, choice.clone()).unwrap())), 21);
    report("dump to JSON", to_json, Some(bytes));
    let to_svg = median(
        || {
            let map = build(&dump, choice.clone()).unwrap();
            drop(svg::render(&layout(&map, &view)))
        },
        21,
    );
    report("dump to SVG", to_svg, Some(bytes));
    println!("dump-to-JSON / parse-only: {:.2}x", to_json.as_secs_f64() / parse.as_secs_f64());

    // The page's stages, in the order `render_map` runs them.
    let map = build(&dump, choice.clone()).unwrap();
    let runs = if bytes > 4_000_000 { 3 } else { 21 };
    report("page: build (parse + analyse)", median(|| drop(build(&dump, choice.clone()).unwrap()), runs), Some(bytes));
    let scene = layout(&map, &view);
    report("page: layout (scene)", median(|| drop(layout(&map, &view)), runs), None);
    let cards: Vec<_> = scene.cards.iter().map(|c| svg::render_card(scene.font_family, c)).collect();
    report(
        "page: static cards",
        median(|| scene.cards.iter().for_each(|c| drop(svg::render_card(scene.font_family, c))), runs),
        None,
    );
    let plan = pto_memory_map::plan::plan(&map, &view);
    report("page: plan", median(|| drop(pto_memory_map::plan::plan(&map, &view)), runs), None);
    let rules = pto_memory_map::plan::rules_json();
    let t_html = median(
        || drop(pto_memory_map::render::html::render(&pto_memory_map::plan::Page::of(&map), &cards, &rules, &plan)),
        runs,
    );
    report("page: HTML (data, plan JSON, writing)", t_html, None);
    println!("dump-to-SVG / dump-to-JSON: {:.2}x", to_svg.as_secs_f64() / to_json.as_secs_f64());

    // A diff reads both dumps, so "one render" is its yardstick: dump to SVG.
    let diff = |format: DiffFormat| {
        let old = build(&dump, choice.clone()).unwrap();
        let new = build(&dump, choice.clone()).unwrap();
        drop(render_diff(&old, &new, format, &view, 2.0).unwrap())
    };
    let diff_md = median(|| diff(DiffFormat::Markdown), 21);
    report("diff against itself, Markdown", diff_md, Some(bytes));
    let diff_svg = median(|| diff(DiffFormat::Map(Format::Svg)), 21);
    report("diff against itself, SVG", diff_svg, Some(bytes));
    let diff_png = median(|| diff(DiffFormat::Map(Format::Png)), 11);
    report("diff against itself, PNG", diff_png, Some(bytes));
    println!(
        "diff / one render (dump to SVG): Markdown {:.2}x, SVG {:.2}x",
        diff_md.as_secs_f64() / to_svg.as_secs_f64(),
        diff_svg.as_secs_f64() / to_svg.as_secs_f64()
    );

    // PNG stages for the largest function (most lines x widest card), at scale 2.
    let map = build(&dump, choice.clone()).unwrap();
    let largest = map.functions.iter().max_by_key(|f| (f.src_end - f.src_start) as usize * f.blocks.len()).unwrap();
    println!(
        "PNG of the largest function: {} ({} lines, {} boxes), scale 2",
        largest.name,
        largest.src_end - largest.src_start + 1,
        largest.blocks.len()
    );
    let one = ViewOptions { functions: vec![largest.name.clone()], ..ViewOptions::default() };
    let scene = layout(&map, &one);
    let t_layout = median(|| drop(layout(&map, &one)), 21);
    let (w, h) = ((scene.width * 2.0).ceil() as u32, (scene.height * 2.0).ceil() as u32);
    let meta = png::Metadata { dump: &map.dump, pass_name: &map.pass_name, backend: &map.backend.name };
    // Drawn straight from the scene (no SVG text) and encoded together, a strip at a time on every
    // core; the clone of the scene each run is a small part of it.
    let t_encode = median(|| drop(png::render_scene(scene.clone(), 2.0, &meta).unwrap()), 11);
    report("  layout", t_layout, None);
    report(&format!("  draw and encode {w}x{h}"), t_encode, None);
    report("  total", t_layout + t_encode, None);
}
