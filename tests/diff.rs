//! `diff` and `check`: pairs written with known answers, real pairs from the corpus, exit codes.

mod common;

use std::process::Command;

use common::map_of;
use pto_memory_map::check::{Limits, check};
use pto_memory_map::compare::diff;
use pto_memory_map::layout::ViewOptions;
use pto_memory_map::render::md::render as markdown;
use pto_memory_map::{DiffFormat, Format, render_diff};

/// Tiles `a` [0,1K) `b` [1K,3K) `c` [4K,5K) in one AIV function `f`, all read on the last line.
fn base() -> Vec<String> {
    vec![
        tile("a", 1, 0, 1024),
        tile("b", 2, 1024, 2048),
        tile("c", 3, 4096, 1024),
        "        y = pl.tile.add(a, b, c)".into(),
    ]
}

fn tile(name: &str, base: u32, offset: i64, size: i64) -> String {
    format!(
        "        {name}: pl.Tile[[8], pl.FP32, pl.MemRef(mem_vec_{base}, {offset}, {size}), pl.Mem.Vec] = pl.tile.load(x)"
    )
}

fn dump(functions: &[(&str, Vec<String>)]) -> String {
    let mut text = String::from("import pypto.language as pl\n@pl.program\nclass p:\n");
    for (name, body) in functions {
        text += &format!("    @pl.function(type=pl.FunctionType.AIV)\n    def {name}(self):\n");
        for line in body {
            text += line;
            text += "\n";
        }
        text += "        return\n";
    }
    text
}

fn pair(new_body: Vec<String>) -> pto_memory_map::compare::MapDiff {
    diff(&map_of(&dump(&[("f", base())])), &map_of(&dump(&[("f", new_body)])))
}

#[test]
fn identical_dumps_give_no_change() {
    let d = pair(base());
    assert_eq!(d.verdict, "no change");
    assert!(d.functions.iter().all(|f| !f.changed));
    assert!(markdown(&d).starts_with("**Memory map:** no change"));
}

#[test]
fn a_grown_tile_moves_the_high_water_mark() {
    let mut body = base();
    body[2] = tile("c", 3, 4096, 2048);
    let d = pair(body);
    let f = &d.functions[0];
    assert!(f.changed);
    assert_eq!(f.spaces[0].delta, 1024);
    assert_eq!((f.spaces[0].old_hwm, f.spaces[0].new_hwm), (Some(5120), Some(6144)));
    assert_eq!(f.tiles.changed.len(), 1);
    assert_eq!(f.tiles.changed[0].name, "c");
    assert_eq!(d.verdict, "Vec high-water +1 KB in 1 function; no new conflicts");
    let md = markdown(&d);
    assert!(md.contains("| Vec | 5 KB | 6 KB | ▲ +1 KB | 184 KB | 2.7% → 3.3% |"), "{md}");
}

#[test]
fn a_moved_tile_is_changed_and_a_lower_peak_points_down() {
    let mut body = base();
    body[2] = tile("c", 3, 3072, 1024);
    let d = pair(body);
    let f = &d.functions[0];
    assert_eq!(f.spaces[0].delta, -1024);
    assert_eq!(f.tiles.changed[0].old.offset, 4096);
    assert_eq!(f.tiles.changed[0].new.offset, 3072);
    assert!(markdown(&d).contains("▼ −1 KB"));
}

#[test]
fn added_and_removed_tiles_and_functions() {
    let mut body = base();
    body.remove(2);
    body[2] = "        y = pl.tile.add(a, b)".into();
    body.insert(2, tile("d", 4, 8192, 512));
    let old = map_of(&dump(&[("f", base())]));
    let new = map_of(&dump(&[("f", body), ("g", vec![tile("e", 1, 0, 64), "        z = e".into()])]));
    let d = diff(&old, &new);
    let f = &d.functions[0];
    assert_eq!(f.tiles.added, ["d"]);
    assert_eq!(f.tiles.removed, ["c"]);
    assert_eq!(d.added, ["g"]);
    assert!(d.removed.is_empty());
    assert!(d.verdict.ends_with("1 function added"), "{}", d.verdict);
    let back = diff(&new, &old);
    assert_eq!(back.removed, ["g"]);
}

#[test]
fn a_new_conflict_is_reported() {
    let mut body = base();
    body[1] = tile("b", 2, 1024, 4096); // now overlaps c on another base while both are live
    let d = pair(body);
    assert_eq!(d.functions[0].spaces[0].new_conflicts, 2);
    assert!(d.verdict.contains("2 new conflicting boxes"), "{}", d.verdict);
    assert!(markdown(&d).contains("Vec conflicts 0 → 2"));
}

#[test]
fn the_picture_puts_both_sides_on_one_scale() {
    let mut body = base();
    body[2] = tile("c", 3, 4096, 2048);
    let old = map_of(&dump(&[("f", base())]));
    let new = map_of(&dump(&[("f", body)]));
    let d = diff(&old, &new);
    let scene = pto_memory_map::layout::diff_scene(&old, &new, &d, &ViewOptions::default());
    assert_eq!(scene.cards.len(), 2);
    assert_eq!(scene.cards[0].px_per_byte, scene.cards[1].px_per_byte);
    assert!(scene.cards[1].frame.x > scene.cards[0].frame.x + scene.cards[0].frame.w);
    let svg =
        String::from_utf8(render_diff(&old, &new, DiffFormat::Map(Format::Svg), &ViewOptions::default(), 1.0).unwrap())
            .unwrap();
    pto_memory_map::render::png::parse(&svg).unwrap();
    assert!(svg.contains("diff: changed"));
    let html = String::from_utf8(
        render_diff(&old, &new, DiffFormat::Map(Format::Html), &ViewOptions::default(), 1.0).unwrap(),
    )
    .unwrap();
    assert!(html.contains("Vec high-water +1 KB in 1 function") && html.contains("<svg"));
    let json: serde_json::Value = serde_json::from_slice(
        &render_diff(&old, &new, DiffFormat::Map(Format::Json), &ViewOptions::default(), 1.0).unwrap(),
    )
    .unwrap();
    assert_eq!(json["functions"][0]["spaces"][0]["delta"], 1024);
}

#[test]
fn real_pairs_from_the_corpus() {
    let Some(corpus) = common::corpus() else { return };
    let case = corpus.join("cases/decode_fwd_layers");
    let map = pto_memory_map::load(&case, "AllocateMemoryAddr", None).unwrap();
    assert_eq!(diff(&map, &map).verdict, "no change");
    // The same kernel on the two backends: addresses stay, capacities and occupancy move.
    let llama = corpus.join("generated/Ascend910B/llama_7b_mini_1h_s16");
    let a2 = pto_memory_map::load(&llama, "AllocateMemoryAddr", Some("Ascend910B")).unwrap();
    let a5 = pto_memory_map::load(&llama, "AllocateMemoryAddr", Some("Ascend950")).unwrap();
    let d = diff(&a2, &a5);
    assert!(d.functions.iter().all(|f| f.changed && f.spaces.iter().all(|s| s.delta == 0)));
    assert!(d.verdict.starts_with("no high-water mark moved (11 functions changed)"), "{}", d.verdict);
    assert!(markdown(&d).contains("184 KB → 240 KB"));
}

fn bin(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().unwrap()
}

#[test]
fn check_passes_or_lists_each_violation() {
    let demo = common::example();
    let demo = demo.to_str().unwrap();
    let ok = bin(&["check", demo, "--max-occupancy", "100"]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    let out = bin(&["check", demo, "--max-occupancy", "50", "--deny-conflicts", "--max-hwm", "Vec=64KB"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"row_softmax: Vec: occupancy 52.7% exceeds 50%"), "{text}");
    assert!(lines.contains(&"qk_matmul: Bias: occupancy 100.0% exceeds 50%"), "{text}");
    assert!(lines.contains(&"row_softmax: Vec: high-water mark 99328 B exceeds 65536 B"), "{text}");
    assert!(lines.contains(&"row_softmax: Vec: conflicting boxes 3 exceeds 0"), "{text}");
    assert_eq!(lines.len(), 4, "{text}");
    let json = bin(&["check", demo, "--deny-conflicts", "--format", "json"]);
    assert_eq!(json.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["passed"], false);
    assert_eq!(v["violations"][0]["rule"], "conflicting boxes");
    assert_eq!(bin(&["check", demo, "--max-hwm", "Vec"]).status.code(), Some(2));
    assert_eq!(bin(&["check", "/no/such/dump.py"]).status.code(), Some(1));
}

#[test]
fn check_rules_one_by_one() {
    let map = pto_memory_map::load(&common::example(), "AllocateMemoryAddr", None).unwrap();
    assert!(check(&map, &Limits::default()).is_empty());
    let conflicts = check(&map, &Limits { deny_conflicts: true, ..Default::default() });
    assert_eq!(conflicts.len(), 1);
    let hwm = check(&map, &Limits { max_hwm: vec![("Acc".into(), 1024)], ..Default::default() });
    assert_eq!(hwm.len(), 1);
    assert_eq!(hwm[0].to_string(), "qk_matmul: Acc: high-water mark 65536 B exceeds 1024 B");
}

#[test]
fn diff_cli_writes_markdown_by_default_and_pictures_by_extension() {
    let demo = common::example();
    let demo = demo.to_str().unwrap();
    let out = bin(&["diff", demo, demo]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("**Memory map:** no change"));
    // Two dumps with one file name are told apart by as much of their paths as differs.
    let change = common::example().with_file_name("demo_change");
    let out = bin(&["diff", demo, change.to_str().unwrap(), "-f", "json"]);
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["old"]["dump"], "demo_case/passes_dump/32_after_AllocateMemoryAddr.py");
    assert_eq!(d["new"]["dump"], "demo_change/passes_dump/32_after_AllocateMemoryAddr.py");
    let dir = std::env::temp_dir().join(format!("pmm-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("d.png");
    let out = bin(&[
        "diff",
        demo,
        demo,
        "--old-backend",
        "Ascend950",
        "--hide",
        "Bias",
        "--scale",
        "1",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    std::fs::remove_dir_all(&dir).unwrap();
}
