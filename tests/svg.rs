//! The static SVG back end: valid, self-contained, escaped, deterministic, complete.

mod common;

use common::reference;
use pto_memory_map::layout;
use pto_memory_map::plan::{Theme, ViewOptions};
use pto_memory_map::render::svg;
use pto_memory_map::{Format, RenderOptions, render_bytes};

fn svg_of(map: &pto_memory_map::MemoryMap, view: &ViewOptions) -> String {
    svg::render(&layout(map, view))
}

#[test]
fn every_corpus_map_is_valid_self_contained_and_complete() {
    for (path, map) in common::drawable_dumps() {
        let doc = svg_of(&map, &ViewOptions::default());
        let at = path.display();
        reference::parse(&doc).unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_no_external_reference(&doc);
        assert_eq!(doc.matches("<g class=\"box").count(), map.block_count(), "{at}: one <g class=box> per block");
        assert_eq!(doc.matches("<g class=\"card\"").count(), map.functions.len(), "{at}");
    }
}

fn assert_no_external_reference(doc: &str) {
    for bad in ["href", "url(", "@import", "<image", "<script", "<foreignObject"] {
        assert!(!doc.contains(bad), "found {bad}");
    }
    assert_eq!(doc.matches("http").count(), 1, "only the SVG namespace names a URL");
}

#[test]
fn text_from_the_dump_is_escaped() {
    let text = "import pypto.language as pl\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self):\n        \
                t: pl.Tile[[4], pl.FP32, pl.MemRef(\"a<b>&\\\"'c\", 0, 64), pl.Mem.Vec] = pl.tile.load(x)\n        return\n";
    let opts = RenderOptions { format: Format::Svg, ..Default::default() };
    let doc = String::from_utf8(render_bytes("x<y>&.py", text.as_bytes().to_vec(), &opts).unwrap()).unwrap();
    assert!(doc.contains("data-base=\"a&lt;b&gt;&amp;&quot;&#39;c\""), "{doc}");
    assert!(doc.contains("x&lt;y&gt;&amp;.py"));
    assert!(!doc.contains("a<b>") && !doc.contains("x<y>"));
    reference::parse(&doc).unwrap();
}

#[test]
fn two_renders_are_byte_identical() {
    let Some(corpus) = common::corpus() else { return };
    let map = pto_memory_map::load(&corpus.join("cases/decode_fwd_layers"), "AllocateMemoryAddr", None).unwrap();
    let view = ViewOptions { theme: Theme::Dark, ..Default::default() };
    assert_eq!(svg_of(&map, &view), svg_of(&map, &view));
}

#[test]
fn boxes_carry_their_facts_for_scripts() {
    let map = pto_memory_map::load(&common::example(), "AllocateMemoryAddr", None).unwrap();
    let doc = svg_of(&map, &ViewOptions::default());
    assert!(doc.contains(
        "<g class=\"box\" data-name=\"s__tile\" data-space=\"Vec\" data-base=\"mem_vec_5\" data-offset=\"0\" \
         data-size=\"65536\" data-start=\"42\" data-end=\"49\" data-aliases=\"scaled__tile,shifted__tile,exp__tile\">"
    ));
    assert!(doc.contains(
        "<g class=\"box conflict\" data-name=\"probs__tile\" data-space=\"Vec\" data-base=\"mem_vec_6\" \
         data-offset=\"8192\" data-size=\"32768\" data-start=\"49\" data-end=\"50\" data-aliases=\"\">"
    ));
    assert!(doc.contains("<g class=\"box view conflict\" data-name=\"head__tile\""));
    // Bias (1 KiB) is an inset: its own scale, 120 px wide, said in its data attributes.
    assert!(doc.contains("<g class=\"lane inset\" data-space=\"Bias\" data-span=\"1024\""));
    assert!(doc.contains("data-width=\"120\" data-px-per-byte=\"0.1171875\" data-inset=\"x"));
    assert!(doc.contains("<g class=\"lane\" data-space=\"Mat\""));
    let strict = ViewOptions { scale_mode: pto_memory_map::plan::ScaleMode::Strict, ..Default::default() };
    assert!(svg_of(&map, &strict).contains("<g class=\"lane\" data-space=\"Bias\" data-span=\"1024\""));
    assert!(doc.contains("<g class=\"card\" data-function=\"qk_matmul\" data-px-per-byte=\""));
    // The tooltip names the space, shape, dtype, op, base, size, range, lines and aliases.
    assert!(doc.contains("<title>s__tile\nVec · [64, 256] FP32 · tile.load\nbase mem_vec_5 · 64 KB (65536 B)\naddress [0, 65536)\nlines 42–49 (named)\naliases: scaled__tile, shifted__tile, exp__tile\nused on lines"));
}

/// The golden file was reviewed by eye (rasterized) before it was committed; regenerate with
/// `UPDATE_GOLDEN=1 cargo test --test svg` and look at it again.
#[test]
fn the_small_example_matches_its_reviewed_snapshot() {
    let map = pto_memory_map::load(&common::example(), "AllocateMemoryAddr", None).unwrap();
    let doc = svg_of(&map, &ViewOptions { functions: vec!["row_softmax".into()], ..Default::default() });
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/row_softmax.svg");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &doc).unwrap();
    }
    let want = std::fs::read_to_string(&golden).expect("golden file");
    assert!(doc == want, "the SVG changed; review it and regenerate the golden file");
}
