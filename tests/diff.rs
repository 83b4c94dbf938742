//! `diff` and `check`: pairs written with known answers, real pairs from the corpus, exit codes.

mod common;

use std::process::Command;

use common::map_of;
use pto_memory_map::compare::diff;
use pto_memory_map::plan::ViewOptions;
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

/// `base()` with lines inserted above, between and below its tiles: comments and statements that
/// mention none of them.
fn with_lines_inserted() -> Vec<String> {
    let mut body = base();
    body.insert(0, "        # prologue added by the change".into());
    body.insert(1, "        w: pl.Scalar[pl.INDEX] = 4".into());
    body.insert(3, "        # between a and b".into());
    body.insert(5, "        v: pl.Scalar[pl.INDEX] = w + 1".into());
    body.push("        # after the last read".into());
    body.push("        u: pl.Scalar[pl.INDEX] = v + 2".into());
    body
}

#[test]
fn lines_inserted_above_between_and_below_change_no_tile() {
    let d = pair(with_lines_inserted());
    let f = &d.functions[0];
    assert!(f.tiles.changed.is_empty() && f.tiles.added.is_empty() && f.tiles.removed.is_empty(), "{:?}", f.tiles);
    assert_eq!((f.lines_inserted, f.lines_removed), (6, 0));
    assert_eq!(d.verdict, "no change");
    // The same with a function added above it: every line of `f` moves down, nothing changes.
    let old = map_of(&dump(&[("f", base())]));
    let new = map_of(&dump(&[("g", vec![tile("e", 9, 0, 64), "        z = e".into()]), ("f", with_lines_inserted())]));
    let d = diff(&old, &new);
    assert!(d.functions.iter().all(|f| f.tiles.changed.is_empty()), "{:?}", d.functions);
}

#[test]
fn a_tile_moved_by_one_alignment_unit_resized_or_living_longer_is_changed() {
    // Moved by 32 bytes (Vec's alignment), with lines inserted too so the lines of every tile move.
    let mut body = with_lines_inserted();
    body[6] = tile("c", 3, 4096 + 32, 1024);
    let f = &pair(body).functions[0];
    assert_eq!(f.tiles.changed.len(), 1, "{:?}", f.tiles);
    assert_eq!((f.tiles.changed[0].name.as_str(), &f.tiles.changed[0].what[..]), ("c", &["offset"][..]));

    let mut body = with_lines_inserted();
    body[6] = tile("c", 3, 4096, 1024 + 32);
    let f = &pair(body).functions[0];
    assert_eq!(f.tiles.changed.len(), 1, "{:?}", f.tiles);
    assert_eq!(f.tiles.changed[0].what, ["size"]);

    // One statement longer: a new read of `b` after the statement that was its last.
    let mut body = with_lines_inserted();
    body.insert(8, "        z = pl.tile.add(b, b)".into());
    let f = &pair(body).functions[0];
    assert_eq!(f.tiles.changed.len(), 1, "{:?}", f.tiles);
    assert_eq!((f.tiles.changed[0].name.as_str(), &f.tiles.changed[0].what[..]), ("b", &["end"][..]));
    let md = markdown(&pair({
        let mut b = with_lines_inserted();
        b.insert(8, "        z = pl.tile.add(b, b)".into());
        b
    }));
    assert!(md.contains("`b` end: Vec [1024, 3072) L7–9 → Vec [1024, 3072) L10–14"), "{md}");
}

#[test]
fn a_tile_renamed_in_the_same_slot_is_the_same_tile() {
    // SSA renumbering shifts every name by one: old t__tile_2 is new t__tile_3's name, in another
    // slot. Matching by place first keeps every tile where it was.
    let named = |names: [&str; 3]| {
        vec![
            tile(names[0], 1, 0, 1024),
            tile(names[1], 2, 1024, 2048),
            tile(names[2], 3, 4096, 1024),
            format!("        y = pl.tile.add({}, {}, {})", names[0], names[1], names[2]),
        ]
    };
    let old = map_of(&dump(&[("f", named(["t__tile_1", "t__tile_2", "t__tile_3"]))]));
    let mut body = named(["t__tile_2", "t__tile_3", "t__tile_4"]);
    body.insert(1, "        # inserted".into());
    let new = map_of(&dump(&[("f", body)]));
    let d = diff(&old, &new);
    let t = &d.functions[0].tiles;
    assert!(t.changed.is_empty() && t.added.is_empty() && t.removed.is_empty(), "{t:?}");
    assert_eq!(t.renamed.len(), 3);
    assert_eq!(t.renamed[0], ("t__tile_1".to_string(), "t__tile_2".to_string()));
    assert_eq!(d.verdict, "no change");
    // Renamed and grown: one changed tile, under its new name, with the old one said.
    let mut body = named(["t__tile_2", "t__tile_3", "t__tile_4"]);
    body[2] = tile("t__tile_4", 3, 4096, 2048);
    let d = diff(&old, &map_of(&dump(&[("f", body)])));
    let t = &d.functions[0].tiles;
    assert_eq!(t.changed.len(), 1, "{t:?}");
    assert_eq!((t.changed[0].old_name.as_str(), t.changed[0].name.as_str()), ("t__tile_3", "t__tile_4"));
    assert!(markdown(&d).contains("`t__tile_4` (was `t__tile_3`) size:"), "{}", markdown(&d));
}

/// `text` with a comment line after every line ending in `:` and before every fifth line.
fn with_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for (i, line) in text.lines().enumerate() {
        if i % 5 == 4 {
            out += "        # a reviewer's note\n";
        }
        out += line;
        out.push('\n');
        if line.trim_end().ends_with(':') {
            out += "    # opened a block\n";
        }
    }
    out
}

#[test]
fn every_corpus_dump_against_itself_with_comments_inserted_changes_no_tile() {
    let Some(corpus) = common::corpus() else { return };
    let mut files = Vec::new();
    common::walk_py(&corpus, &mut files);
    let mut compared = 0;
    for path in files {
        let Ok(old) = pto_memory_map::load(&path, "AllocateMemoryAddr", None) else { continue };
        let text = std::fs::read_to_string(&path).unwrap();
        let dump = pto_memory_map::Dump::from_bytes(&old.dump, with_comments(&text).into_bytes()).unwrap();
        let choice = pto_memory_map::backend::choose(Some(&old.backend.name), None).unwrap();
        let new = pto_memory_map::build(&dump, choice).unwrap();
        let d = diff(&old, &new);
        assert!(d.added.is_empty() && d.removed.is_empty(), "{}", path.display());
        for f in &d.functions {
            let t = &f.tiles;
            assert!(
                t.changed.is_empty() && t.added.is_empty() && t.removed.is_empty(),
                "{}: {}: {:?}",
                path.display(),
                f.name,
                t
            );
            assert!(f.lines_inserted > 0, "{}: {}", path.display(), f.name);
        }
        assert_eq!(d.verdict, "no change", "{}", path.display());
        compared += 1;
    }
    assert!(compared >= 30, "only {compared} corpus dumps compared");
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
    let scene = pto_memory_map::diff_layout(&old, &new, &d, &ViewOptions::default());
    assert_eq!(scene.cards.len(), 2);
    assert_eq!(scene.cards[0].px_per_byte, scene.cards[1].px_per_byte);
    assert!(scene.cards[1].frame.x > scene.cards[0].frame.x + scene.cards[0].frame.w);
    let svg =
        String::from_utf8(render_diff(&old, &new, DiffFormat::Map(Format::Svg), &ViewOptions::default(), 1.0).unwrap())
            .unwrap();
    common::reference::parse(&svg).unwrap();
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

/// The diff's PNG is resvg's drawing of the diff's SVG within the map's tolerance (see
/// `common::reference`), however it is made: the bundled example against
/// its change (views, conflicts resolved, tiles moved), tiles and a function added and removed in
/// the dark theme, and a pair too wide to stand side by side, stacked.
#[test]
fn the_diff_png_is_resvgs_drawing_of_the_diff_svg() {
    use common::reference;
    use pto_memory_map::plan::Theme;
    let load = |p: std::path::PathBuf| pto_memory_map::load(&p, "AllocateMemoryAddr", None).unwrap();
    let demo = (load(common::example()), load(common::example().with_file_name("demo_change")));
    let mut body = base();
    body.remove(2);
    body[2] = "        y = pl.tile.add(a, b)".into();
    body.insert(2, tile("d", 4, 8192, 512));
    let added = (
        map_of(&dump(&[("f", base())])),
        map_of(&dump(&[("f", body), ("g", vec![tile("e", 1, 0, 64), "        z = e".into()])])),
    );
    let dark = ViewOptions { theme: Theme::Dark, ..Default::default() };
    let wide = ViewOptions { width: 2000.0, ..Default::default() };
    let cases = [
        ("the example against its change", &demo, ViewOptions::default(), 2.0),
        ("tiles and a function added and removed, dark", &added, dark, 2.0),
        ("a wide pair, stacked", &demo, wide.clone(), 2.0),
    ];
    let stacked = pto_memory_map::diff_layout(&demo.0, &demo.1, &diff(&demo.0, &demo.1), &wide);
    assert!(stacked.cards[1].frame.y > stacked.cards[0].frame.y, "the wide pair is stacked");
    for (what, (old, new), view, scale) in cases {
        let svg = render_diff(old, new, DiffFormat::Map(Format::Svg), &view, scale).unwrap();
        let want = reference::draw(std::str::from_utf8(&svg).unwrap(), scale as f32);
        let got = reference::decode(&render_diff(old, new, DiffFormat::Map(Format::Png), &view, scale).unwrap());
        let apart = reference::apart(&got, &want);
        eprintln!("{what}: {apart}");
        assert!(reference::within_tolerance(apart), "{what}: {apart}");
    }
    // A scale out of range is refused before anything is drawn, as for a map.
    let err = render_diff(&demo.0, &demo.1, DiffFormat::Map(Format::Png), &ViewOptions::default(), 9.0).unwrap_err();
    assert_eq!(err.kind, pto_memory_map::ErrorKind::Usage, "{err}");
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
    assert!(
        d.verdict.starts_with("backend Ascend910B → Ascend950; no high-water mark moved (11 functions changed)"),
        "{}",
        d.verdict
    );
    assert!(markdown(&d).contains("184 KB → 240 KB"));
}

fn bin(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().unwrap()
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

/// Copies the folder `from` to `to` (a case: a few small files).
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Where the MemRef on `line` ends: (start of its size, end of its size, offset + size).
fn memref_end(line: &str) -> Option<(usize, usize, i64)> {
    let at = line.find("pl.MemRef(")?;
    // The MemRef's own closing bracket: its offset may be a call, `pl.const(0, pl.INT64)`.
    let mut depth = 0;
    let close = at
        + line[at..]
            .char_indices()
            .find(|(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                *c == ')' && depth == 0
            })?
            .0;
    let comma = line[..close].rfind(", ")?;
    let size: i64 = line[comma + 2..close].trim().parse().ok()?;
    let args = &line[at + "pl.MemRef(".len()..comma];
    let offset_text = &args[args.find(", ")? + 2..];
    let digits: String =
        offset_text.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    Some((comma + 2, close, digits.parse::<i64>().ok()? + size))
}

/// `text` with the size of the `space` tile that reaches highest doubled: its high-water mark moves.
fn grow_top_tile(text: &str, space: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let top = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(&format!("pl.Mem.{space}")))
        .filter_map(|(i, l)| memref_end(l).map(|e| (e.2, i)))
        .max()
        .expect("no tile in that space");
    let line = &lines[top.1];
    let (from, to, _) = memref_end(line).unwrap();
    let size: i64 = line[from..to].parse().unwrap();
    lines[top.1] = format!("{}{}{}", &line[..from], size * 2, &line[to..]);
    lines.join("\n") + "\n"
}

#[test]
fn a_tree_diff_of_two_build_trees_reads_as_one_report() {
    let Some(corpus) = common::corpus() else { return };
    let generated = corpus.join("generated");
    let dir = std::env::temp_dir().join(format!("pmm-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (base, head) = (dir.join("base/build_output"), dir.join("head/build_output"));
    for chip in ["Ascend910B", "Ascend950"] {
        copy_tree(&generated.join(chip), &base.join(chip));
        copy_tree(&generated.join(chip), &head.join(chip));
    }
    let dump = |root: &std::path::Path, case: &str| root.join(case).join("passes_dump/35_after_AllocateMemoryAddr.py");
    // Changed: a Vec tile grown; a Mat tile grown; comments added (no change).
    for (case, space) in [("Ascend910B/test_layer_norm_core", "Vec"), ("Ascend950/test_ffn_swiglu_64x64", "Mat")] {
        let text = std::fs::read_to_string(dump(&head, case)).unwrap();
        std::fs::write(dump(&head, case), grow_top_tile(&text, space)).unwrap();
    }
    let case = "Ascend910B/llama_7b_mini_1h_s16";
    let text = std::fs::read_to_string(dump(&head, case)).unwrap();
    std::fs::write(dump(&head, case), with_comments(&text)).unwrap();
    // Removed, added, compiled for the other chip, unreadable.
    std::fs::remove_dir_all(head.join("Ascend910B/test_tile_softmax")).unwrap();
    copy_tree(&generated.join("Ascend910B/matmul_128x64x128"), &head.join("Ascend910B/matmul_128x64x128_v2"));
    let swapped = head.join("Ascend910B/test_matmul_bias_mn_k_direct_store_pypto");
    std::fs::remove_dir_all(&swapped).unwrap();
    copy_tree(&generated.join("Ascend950/test_matmul_bias_mn_k_mat_scratch_pypto"), &swapped);
    std::fs::write(dump(&head, "Ascend950/for_if_else_nested"), "def broken(:\n").unwrap();

    let out = bin(&["diff", base.to_str().unwrap(), head.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8(out.stdout).unwrap();
    if let Some(path) = std::env::var_os("PMM_TREE_REPORT") {
        std::fs::write(path, &md).unwrap();
    }
    assert!(md.starts_with("**Memory map, 12 cases:** "), "{md}");
    assert!(md.contains("`base/build_output` → `head/build_output`"), "{md}");
    assert!(md.contains("| case | function | space | high-water old → new | delta | new findings |"), "{md}");
    assert!(md.contains("| Ascend910B/test\\_layer\\_norm\\_core | `"), "{md}");
    assert!(md.contains("Added cases: `Ascend910B/matmul_128x64x128_v2`."), "{md}");
    assert!(md.contains("Removed cases: `Ascend910B/test_tile_softmax`."), "{md}");
    assert!(md.contains("- `Ascend950/for_if_else_nested` (head): "), "{md}");
    assert!(md.contains("<details><summary><b>Ascend910B/test_matmul_bias_mn_k_direct_store_pypto</b>"), "{md}");
    assert!(
        md.contains(
            "`base: passes_dump/35_after_AllocateMemoryAddr.py` (Ascend910B) → \
             `head: passes_dump/35_after_AllocateMemoryAddr.py` (Ascend950)"
        ),
        "{md}"
    );
    let unchanged = md.lines().find(|l| l.contains("unchanged: ")).unwrap_or_default();
    assert!(unchanged.contains("`Ascend910B/llama_7b_mini_1h_s16`"), "{md}");
    assert_eq!(md.matches("<details>").count(), md.matches("</details>").count());

    let out = bin(&["diff", base.to_str().unwrap(), head.to_str().unwrap(), "-f", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["added"], serde_json::json!(["Ascend910B/matmul_128x64x128_v2"]));
    assert_eq!(v["removed"], serde_json::json!(["Ascend910B/test_tile_softmax"]));
    assert_eq!(v["unreadable"][0]["case"], "Ascend950/for_if_else_nested");
    let moved = v["moved"].as_array().unwrap();
    assert!(moved.iter().any(|m| m["case"] == "Ascend910B/test_layer_norm_core" && m["space"] == "Vec"), "{moved:?}");
    assert!(moved.iter().all(|m| m["delta"] != 0 || !m["new_findings"].as_array().unwrap().is_empty()));
    // A tree against one dump is a usage error.
    let one = dump(&base, "Ascend950/test_ffn_swiglu_64x64");
    assert_eq!(bin(&["diff", base.to_str().unwrap(), one.to_str().unwrap()]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
