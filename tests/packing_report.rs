//! The packing where people read figures: the text report's per-function table and overview
//! column, and the page's overview column (tests/lifetimes.rs checks the packing itself).

mod common;

use std::process::Command;

use pto_memory_map::pack::{self, export};
use pto_memory_map::plan::overview::Overview;
use pto_memory_map::render::txt;
use pto_memory_map::units::fmt_bytes;
use pto_memory_map::{MemoryMap, load};

fn map() -> MemoryMap {
    load(&common::fixtures().join("lifetimes.py"), "AllocateMemoryAddr", Some("Ascend910B")).unwrap()
}

/// Each space with a packing has one row in its function's packing table, its figures the map's.
#[test]
fn the_text_report_lists_every_packing() {
    let m = map();
    let text = txt::render(&m);
    let mut rows = 0;
    for f in &m.functions {
        for s in &f.spaces {
            let Some(p) = &s.packing else { continue };
            let how = if p.proven_optimal { "optimal" } else { "best found" };
            let want = [
                f.name.clone(),
                s.space.clone(),
                fmt_bytes(s.hwm),
                fmt_bytes(p.bytes),
                fmt_bytes(p.lower_bound),
                fmt_bytes(s.hwm - p.bytes),
                how.to_string(),
            ];
            // Cells are padded apart by two or more spaces; "16 KB" holds one.
            let found = text.lines().any(|l| {
                let cells: Vec<&str> = l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
                cells == want
            });
            assert!(found, "no row {want:?} in\n{text}");
            rows += 1;
        }
    }
    assert!(rows >= 8, "{rows}");
    let wasteful = text.lines().find(|l| l.starts_with("wasteful ") && l.contains("16 KB → 8 KB"));
    assert!(wasteful.is_some(), "the overview names what wasteful could save:\n{text}");
}

/// The overview's `could pack` is the space saving the most, and absent where nothing is saved.
#[test]
fn the_overview_names_the_space_that_saves_most() {
    let m = map();
    let o = Overview::of(&m);
    for r in &o.rows {
        let f = m.functions.iter().find(|f| f.name == r.name).unwrap();
        let best = f.spaces.iter().filter_map(|s| s.packing.as_ref().map(|p| s.hwm - p.bytes)).max().unwrap_or(0);
        match &r.could_pack {
            Some((text, saved)) => {
                assert_eq!(*saved, best, "{}", r.name);
                assert!(best > 0 && text.contains(" → "), "{}: {text}", r.name);
            }
            // `broken` packs 4 KB above its hwm: the compiler's placement has a conflict.
            None => assert!(best <= 0, "{}: {best}", r.name),
        }
    }
    let w = o.rows.iter().find(|r| r.name == "wasteful").unwrap();
    assert_eq!(w.could_pack, Some(("Vec 16 KB → 8 KB".to_string(), 8192)));
    assert!(o.rows.iter().any(|r| r.could_pack.is_none()), "for_loop packs no tighter than its hwm");
}

/// The exported instance of each space is what the map's packing packed: packed again by the
/// library, it reaches the same peak and bound (or, where the map kept the compiler's placement,
/// no lower than it), and its placement is valid, checked here apart from the solver.
#[test]
fn exported_instances_pack_as_the_map_did() {
    let m = map();
    let all = export::instances(&m);
    assert!(all.len() >= 8, "{}", all.len());
    for (function, space, instance) in &all {
        let f = m.functions.iter().find(|f| &f.name == function).unwrap();
        let s = f.spaces.iter().find(|s| &s.space == space).unwrap();
        let p = s.packing.as_ref().unwrap();
        // Written and read back: the same instance.
        let mut text = Vec::new();
        pack::csv::write_instance(&mut text, instance).unwrap();
        let back = pack::csv::read(std::str::from_utf8(&text).unwrap(), "x.csv").unwrap();
        assert_eq!(&back, instance);
        let options = pack::PackOptions { align: 32, capacity: None, deadline: None };
        let again = pack::pack(&back.blocks, &options).unwrap();
        assert_eq!(again.lower_bound as i64, p.lower_bound, "{function} {space}");
        let kept_compilers = p.bytes == s.hwm && again.peak as i64 > s.hwm;
        assert!(again.peak as i64 == p.bytes || kept_compilers, "{function} {space}: {} vs {}", again.peak, p.bytes);
        // Independent check: aligned, pinned rows where pinned, no two live rows on shared bytes.
        let b = &back.blocks;
        for (i, x) in b.iter().enumerate() {
            let o = again.offsets[i];
            assert!(
                x.fixed.is_none_or(|f| f == o) && (x.fixed.is_some() || o.is_multiple_of(32)),
                "{function} {space}"
            );
            for (j, y) in b.iter().enumerate().skip(i + 1) {
                let live = x.lower < y.upper && y.lower < x.upper;
                let q = again.offsets[j];
                let bytes = o < q + y.size && q < o + x.size;
                assert!(!(live && bytes), "{function} {space}: {} and {}", back.ids[i], back.ids[j]);
            }
        }
    }
}

/// `--export-csv` writes files that `pack` reads and solves to the map's packing.
#[test]
fn the_export_round_trips_through_the_pack_command() {
    let bin = env!("CARGO_BIN_EXE_pto-memory-map");
    let dir = std::env::temp_dir().join(format!("pmm-export-{}", std::process::id()));
    let dump = common::fixtures().join("lifetimes.py");
    let o = Command::new(bin).arg(&dump).args(["-b", "Ascend910B", "--export-csv"]).arg(&dir).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = dir.join("wasteful.Vec.csv");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("id,lower,upper,size,offset\n"), "{text}");
    let o = Command::new(bin).arg("pack").arg(&file).args(["--align", "32"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("peak 8192") && stderr.contains("proven optimal"), "{stderr}");
    let tree = Command::new(bin).arg(common::fixtures()).arg("--export-csv").arg(&dir).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(tree.status.code(), Some(2), "{}", String::from_utf8_lossy(&tree.stderr));
}

/// `--pack-deadline 0` leaves the packer its greedy placements alone: every space still has a
/// packing between its bound and its high-water mark. A deadline that is not a number is refused.
#[test]
fn a_pack_deadline_bounds_the_search_not_the_answer() {
    let bin = env!("CARGO_BIN_EXE_pto-memory-map");
    let dump = common::fixtures().join("lifetimes.py");
    let run = |ms: &str| {
        Command::new(bin).arg(&dump).args(["-b", "Ascend910B", "-f", "json", "-o", "-", "--pack-deadline", ms]).output()
    };
    let o = run("0").unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut spaces = 0;
    for f in v["functions"].as_array().unwrap() {
        for s in f["spaces"].as_array().unwrap() {
            let p = &s["packing"];
            let (bytes, bound, hwm) =
                (p["bytes"].as_i64().unwrap(), p["lower_bound"].as_i64().unwrap(), s["hwm"].as_i64().unwrap());
            assert!(bound <= bytes, "{s}");
            assert!(bytes <= hwm || f["name"] == "broken", "{s}");
            spaces += 1;
        }
    }
    assert!(spaces >= 8, "{spaces}");
    assert_eq!(run("soon").unwrap().status.code(), Some(2));
}

/// The boxes of an SVG as (function, space, name, offset), read from their `data-` attributes.
fn svg_boxes(svg: &str) -> Vec<(String, String, String, i64)> {
    let attr = |tag: &str, name: &str| {
        let key = format!(" data-{name}=\"");
        let at = tag.find(&key)? + key.len();
        Some(tag[at..at + tag[at..].find('"')?].to_string())
    };
    let mut out = Vec::new();
    for card in svg.split("<g class=\"card\"").skip(1) {
        let Some(function) = attr(&card[..card.find('>').unwrap_or(0)], "function") else { continue };
        for rest in card.split("<g class=\"box\"").skip(1) {
            let tag = &rest[..rest.find('>').unwrap_or(0)];
            if let (Some(space), Some(name), Some(offset)) =
                (attr(tag, "space"), attr(tag, "name"), attr(tag, "offset"))
            {
                out.push((function.clone(), space, name, offset.parse().unwrap()));
            }
        }
    }
    out
}

/// `--packed` draws, after each space the packer placed, a lane of the same boxes at the packing's
/// offsets, matched by name; nothing else changes, and the JSON stays the map's own.
#[test]
fn the_packed_view_draws_each_packing_beside_its_space() {
    use pto_memory_map::{Format, RenderOptions, ViewOptions, render_map};
    let map = map();
    let draw = |packed: bool, format: Format| {
        let opts = RenderOptions { format, view: ViewOptions { packed, ..Default::default() }, ..Default::default() };
        String::from_utf8(render_map(&map, &opts).unwrap()).unwrap()
    };
    let (plain, packed) = (svg_boxes(&draw(false, Format::Svg)), svg_boxes(&draw(true, Format::Svg)));
    assert!(!plain.is_empty() && plain.iter().all(|(_, space, ..)| !space.ends_with(" packed")));
    let mut lanes = 0;
    for f in &map.functions {
        for s in &f.spaces {
            let Some(p) = &s.packing else { continue };
            lanes += 1;
            let lane = format!("{} packed", s.space);
            let names: Vec<&str> =
                f.blocks.iter().filter(|b| b.tile.space == s.space).map(|b| b.tile.name.as_str()).collect();
            let drawn: Vec<_> =
                packed.iter().filter(|(function, space, ..)| *function == f.name && *space == lane).collect();
            let mut drawn_names: Vec<&str> = drawn.iter().map(|(_, _, name, _)| name.as_str()).collect();
            let mut names = names;
            drawn_names.sort_unstable();
            names.sort_unstable();
            assert_eq!(drawn_names, names, "{} {lane}: every box once, by name", f.name);
            for (_, _, name, offset) in drawn {
                assert!(
                    p.placement.iter().any(|q| q.name == *name && q.offset == *offset),
                    "{} {lane}: {name} at {offset}, not where the packing put it",
                    f.name
                );
            }
        }
    }
    assert!(lanes >= 4, "the fixture packs {lanes} spaces");
    // The compiler's lanes are drawn as before.
    let own: Vec<_> = packed.iter().filter(|(_, space, ..)| !space.ends_with(" packed")).cloned().collect();
    assert_eq!(own, plain);
    assert_eq!(
        common::without_times(serde_json::from_str(&draw(true, Format::Json)).unwrap()),
        common::without_times(serde_json::from_str(&draw(false, Format::Json)).unwrap())
    );
}

/// On the command line `--packed` is a bare flag: the word after it is still the dump.
#[test]
fn the_packed_flag_takes_no_value_but_the_path_after_it() {
    let dir = common::TempDir::new("packed-flag");
    let out = dir.0.join("m.svg");
    let run = Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
        .args(["--function", "wasteful", "--packed"])
        .arg(common::fixtures().join("lifetimes.py"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("data-space=\"Vec packed\""));
    let refused = Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
        .arg("--packed=maybe")
        .arg(common::fixtures().join("lifetimes.py"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("yes or no"));
}
