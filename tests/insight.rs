//! Idle lifetimes and headroom (the guide's two questions): uses, idle stretches, the live-bytes
//! profile, free ranges and fit answers, SoC files, and the CONCISE note.

mod common;

use common::{drawable_dumps, map_of};
use pto_memory_map::analyze::{FitQuery, answer_fits, free_ranges, live_profile};
use pto_memory_map::layout;
use pto_memory_map::model::{Block, Gap};
use pto_memory_map::plan::ViewOptions;
use pto_memory_map::render::svg;
use pto_memory_map::scene::Shape;

/// A function whose tiles are bound on the lines given, one statement a line from line 6.
fn dump(body: &[&str]) -> String {
    let mut text = String::from(
        "import pypto.language as pl\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self):\n",
    );
    for line in body {
        text += "        ";
        text += line;
        text += "\n";
    }
    text += "        return\n";
    text
}

fn tile(name: &str, offset: i64, size: i64, value: &str) -> String {
    format!("{name}: pl.Tile[[8], pl.FP32, pl.MemRef(mem_vec_{offset}, {offset}, {size}), pl.Mem.Vec] = {value}")
}

/// `busy` is used on every line; `lazy` is loaded at 7 and only used again at 18.
fn idle_dump() -> String {
    let mut body = vec![tile("busy", 0, 1024, "pl.tile.load(x)"), tile("lazy", 1024, 2048, "pl.tile.load(x)")];
    for _ in 0..10 {
        body.push("y = pl.tile.add(busy, busy)".into());
    }
    body.push("z = pl.tile.add(busy, lazy)".into());
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    dump(&refs)
}

fn block<'a>(blocks: &'a [Block], name: &str) -> &'a Block {
    blocks.iter().find(|b| b.tile.name == name).unwrap()
}

#[test]
fn uses_are_the_lines_that_read_the_name_after_it_is_bound() {
    let map = map_of(&idle_dump());
    let f = &map.functions[0];
    assert_eq!(block(&f.blocks, "busy").tile.uses, (8..=18).collect::<Vec<u32>>());
    assert_eq!(block(&f.blocks, "lazy").tile.uses, vec![18]);
}

#[test]
fn an_idle_tile_is_flagged_and_a_busy_one_is_not() {
    let map = map_of(&idle_dump());
    let f = &map.functions[0];
    assert_eq!(block(&f.blocks, "busy").idle, None);
    let idle = block(&f.blocks, "lazy").idle.expect("lazy is idle");
    assert_eq!((idle.lines, idle.from, idle.to), (10, 8, 17));
}

#[test]
fn ticks_sit_on_the_use_lines_and_idle_is_shaded() {
    let map = map_of(&idle_dump());
    let scene = layout(&map, &ViewOptions::default());
    let card = &scene.cards[0];
    let lane = &card.lanes[0];
    let lazy = lane.blocks.iter().find(|b| b.name == "lazy").unwrap();
    let ticks: Vec<f64> =
        lazy.marks.iter().filter_map(|m| if let Shape::Line(l) = m { Some(l.y1) } else { None }).collect();
    let row = |line: u32| card.body_top + (line - card.first_line) as f64 * 17.0 + 8.5;
    assert_eq!(ticks, vec![row(18)]);
    let shade = lazy.marks.iter().find_map(|m| if let Shape::Rect(r) = m { Some(r.clone()) } else { None }).unwrap();
    assert_eq!((shade.y, shade.h), (row(8) - 8.5, 10.0 * 17.0));
    let busy = lane.blocks.iter().find(|b| b.name == "busy").unwrap();
    assert_eq!(busy.marks.iter().filter(|m| matches!(m, Shape::Line(_))).count(), 11);
    let doc = svg::render(&scene);
    assert!(doc.contains("idle: lazy holds 2 KB for 10 lines with no use (L8–L17)"));
}

#[test]
fn the_peak_is_the_union_of_live_bytes_checked_by_hand() {
    // a [0,4096) lines 6-8; b [1024,2048) a view-like overlap lines 7-9 (another base: a conflict);
    // c [8192,9216) lines 9-10. Live: L6 4096, L7 4096 (b inside a), L8 4096, L9 1024+1024, L10 1024.
    let body = [
        tile("a", 0, 4096, "pl.tile.load(x)"),
        tile("b", 1024, 1024, "pl.tile.load(x)"),
        "y = pl.tile.add(a, b)".to_string(),
        tile("c", 8192, 1024, "pl.tile.add(b, b)"),
        "z = c".to_string(),
    ];
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    let map = map_of(&dump(&refs));
    let f = &map.functions[0];
    let blocks: Vec<&Block> = f.blocks.iter().collect();
    assert_eq!(live_profile(&blocks, (6, 10)), vec![4096, 4096, 4096, 2048, 1024]);
    let vec = &f.spaces[0];
    assert_eq!((vec.peak.bytes, vec.peak.line), (4096, 6));
    assert_eq!(vec.headroom, 188_416 - 9216);
    assert_eq!(vec.largest_free, Gap { offset: 9216, size: 188_416 - 9216 });
}

#[test]
fn the_peak_matches_brute_force_on_every_corpus_dump() {
    for (path, map) in drawable_dumps() {
        for f in &map.functions {
            for s in &f.spaces {
                let mut best = (0i64, f.src_start);
                // Placed reserved windows hold their bytes on every line.
                let windows = pto_memory_map::analyze::reserved_blocks(&f.reserved, &s.space, (f.src_start, f.src_end));
                for line in f.src_start..=f.src_end {
                    // Byte by byte, in 32-byte cells (every corpus offset and size is a multiple of 32).
                    let mut cells = std::collections::BTreeSet::new();
                    for b in f
                        .blocks
                        .iter()
                        .chain(&windows)
                        .filter(|b| b.tile.space == s.space && b.tile.start <= line && line <= b.tile.held())
                    {
                        for c in (b.tile.offset..b.tile.offset + b.tile.size).step_by(32) {
                            cells.insert(c);
                        }
                    }
                    let bytes = cells.len() as i64 * 32;
                    if bytes > best.0 {
                        best = (bytes, line);
                    }
                }
                assert_eq!((s.peak.bytes, s.peak.line), best, "{} {} {}", path.display(), f.name, s.space);
            }
        }
    }
}

#[test]
fn fit_answers_yes_with_the_ranges_and_no_when_nothing_fits() {
    let mut map = map_of(&idle_dump());
    // busy [0,1024) L6-18, lazy [1024,3072) L7-18: free is [3072, 188416) over the function.
    let yes: FitQuery = "Vec=64KB".parse().unwrap();
    let no: FitQuery = "Vec=200KB".parse().unwrap();
    let early: FitQuery = "Vec=1KB@6-6".parse().unwrap();
    answer_fits(&mut map, &[yes, no, early]).unwrap();
    let fits = &map.functions[0].fits;
    assert!(fits[0].fits);
    assert_eq!(fits[0].ranges, vec![Gap { offset: 3072, size: 188_416 - 3072 }]);
    assert!(!fits[1].fits && fits[1].ranges.is_empty());
    assert_eq!(fits[1].largest.size, 188_416 - 3072);
    // Over line 6 only `busy` is live: [1024, 188416) is free.
    assert_eq!(fits[2].ranges, vec![Gap { offset: 1024, size: 188_416 - 1024 }]);
    let blocks: Vec<&Block> = map.functions[0].blocks.iter().collect();
    assert_eq!(free_ranges(&blocks, 1024, (6, 18)), vec![]);
    let err = answer_fits(&mut map, &["Ub=1".parse().unwrap()]).unwrap_err();
    assert!(err.to_string().contains("Vec"), "{err}");
}

#[test]
fn fit_is_drawn_and_in_the_json() {
    let map = pto_memory_map::load(&common::example(), "AllocateMemoryAddr", None).unwrap();
    let opts = pto_memory_map::RenderOptions {
        format: pto_memory_map::Format::Json,
        view: ViewOptions { fits: vec!["Vec=24KB@44-50".parse().unwrap()], ..Default::default() },
        ..Default::default()
    };
    let json: serde_json::Value = serde_json::from_slice(&pto_memory_map::render_map(&map, &opts).unwrap()).unwrap();
    let fit = &json["functions"][1]["fits"][0];
    assert_eq!(fit["fits"], true);
    assert_eq!(fit["ranges"][0], serde_json::json!({"offset": 65792, "size": 122624}));
    // qk_matmul spans L9-L36: lines 44-50 are not its own, so it gets no answer.
    assert!(json["functions"][0]["fits"].as_array().is_none_or(|a| a.is_empty()), "{}", json["functions"][0]["fits"]);
    let svg_opts = pto_memory_map::RenderOptions { format: pto_memory_map::Format::Svg, ..opts };
    let doc = String::from_utf8(pto_memory_map::render_map(&map, &svg_opts).unwrap()).unwrap();
    assert!(doc.contains("<g class=\"fit\">") && doc.contains("fit Vec 24 KB over L44–L50: yes, at [65792, 188416)"));
    assert_eq!(doc.matches("fit Vec 24 KB over").count(), 1, "only the function with those lines answers");
}

#[test]
fn a_soc_file_changes_the_limits_and_the_detection() {
    use pto_memory_map::backend::Backends;
    let dir = std::env::temp_dir().join(format!("pmm-soc-{}", std::process::id()));
    let case = dir.join("case");
    std::fs::create_dir_all(case.join("passes_dump")).unwrap();
    std::fs::create_dir_all(case.join("ptoas")).unwrap();
    std::fs::write(case.join("passes_dump/3_after_AllocateMemoryAddr.py"), idle_dump()).unwrap();
    std::fs::write(case.join("ptoas/k.pto"), "module attributes {pto.target_arch = \"m1\"} {\n").unwrap();
    let soc = dir.join("mini.toml");
    std::fs::write(&soc, "name = \"Mini\"\narch = \"m1\"\n[capacities]\nVec = 65536\n").unwrap();
    let backends = Backends::builtin().with_soc_file(&soc).unwrap();
    let map = pto_memory_map::load_with(&case, "AllocateMemoryAddr", None, &backends).unwrap();
    assert_eq!((map.backend.name.as_str(), map.backend.detected), ("Mini", true));
    assert_eq!(map.functions[0].spaces[0].limit, 65536);
    // Without the file, the arch is unknown: the default, assumed.
    let plain = pto_memory_map::load(&case, "AllocateMemoryAddr", None).unwrap();
    assert_eq!((plain.backend.name.as_str(), plain.backend.detected), ("Ascend910B", false));
    let by_name = pto_memory_map::load_with(&case, "AllocateMemoryAddr", Some("mini"), &backends).unwrap();
    assert_eq!(by_name.backend.name, "Mini");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn layouts_show_in_tooltips_and_a_concise_dump_says_so_once() {
    let explicit = pto_memory_map::load(&common::fixtures().join("fx_a2a3_case"), "AllocateMemoryAddr", None).unwrap();
    assert!(explicit.has_layouts());
    let doc = svg::render(&layout(&explicit, &ViewOptions::default()));
    assert!(doc.contains("layout: blayout=col_major, slayout=row_major, fractal=512"));
    assert!(!doc.contains("layouts not in this dump"));
    let concise = map_of(&idle_dump());
    assert!(!concise.has_layouts());
    let doc = svg::render(&layout(&concise, &ViewOptions::default()));
    assert_eq!(doc.matches("layouts not in this dump: re-dump with PassDumpLevel.EXPLICIT").count(), 1);
}
