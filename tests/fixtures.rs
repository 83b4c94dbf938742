//! The project's own dumps (tests/fixtures/fx_*): every syntax form and mark the corpus shows, with
//! answers known from how they were written, so a clone with nothing beside it tests them all.

use std::path::Path;

use pto_memory_map::model::{Block, FunctionMap, MemoryMap};
use pto_memory_map::{ErrorKind, load};

mod common;

fn fixture(rel: &str) -> std::path::PathBuf {
    common::fixtures().join(rel)
}

fn map(rel: &str) -> MemoryMap {
    load(&fixture(rel), "AllocateMemoryAddr", None).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn function<'a>(map: &'a MemoryMap, name: &str) -> &'a FunctionMap {
    map.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"))
}

fn block<'a>(f: &'a FunctionMap, name: &str) -> &'a Block {
    f.blocks.iter().find(|b| b.tile.name == name).unwrap_or_else(|| panic!("no box {name} in {}", f.name))
}

fn spaces(f: &FunctionMap) -> Vec<&str> {
    f.spaces.iter().map(|s| s.space.as_str()).collect()
}

#[test]
fn the_a2a3_case_has_every_ascend910b_space_and_every_mark() {
    let m = map("fx_a2a3_case");
    assert_eq!((m.backend.name.as_str(), m.backend.arch.as_str(), m.backend.detected), ("Ascend910B", "a2a3", true));
    // Orchestration holds no tile memory; InCore does.
    let names: Vec<(&str, &str)> = m.functions.iter().map(|f| (f.name.as_str(), f.ftype.as_str())).collect();
    assert_eq!(names, [("fx_cube", "AIC"), ("fx_vector", "AIV"), ("fx_incore", "InCore")]);

    let cube = function(&m, "fx_cube");
    assert_eq!(spaces(cube), ["Mat", "Left", "Right", "Acc", "Bias"]);
    // A multi-line annotation keeps its MemRef and its pl.TileView; a wrapped call keeps its op.
    let a_l1 = block(cube, "a_l1__tile");
    assert_eq!((a_l1.tile.offset, a_l1.tile.size, a_l1.tile.shape.as_slice()), (0, 16384, &[64, 128][..]));
    assert_eq!(a_l1.tile.layout, "blayout=col_major, slayout=row_major, fractal=512");
    assert_eq!(block(cube, "a_l0__tile").tile.op, "tile.move");
    // Reuse: one Mat slot, two tiles over disjoint lifetimes, two boxes.
    let b_l1 = block(cube, "b_l1__tile");
    assert_eq!((b_l1.tile.base.as_str(), b_l1.tile.offset, b_l1.tile.size), ("mem_mat_1", 0, 16384));
    assert!(a_l1.tile.end < b_l1.tile.start && a_l1.aliases.is_empty() && b_l1.aliases.is_empty());
    // The phi/yield chain in Acc is one box with its other names: the loop holds its initial value
    // to its end, and the loop's result is read as the initial value's bytes.
    assert_eq!(block(cube, "acc_init__tile").aliases, ["acc_next__tile", "acc_phi__tile", "acc__rv_v2"]);
    assert!(cube.blocks.iter().all(|b| !b.conflict && !b.view));

    let vector = function(&m, "fx_vector");
    assert_eq!(block(vector, "scale__tile").tile.op, "param");
    let head = block(vector, "head__tile");
    assert!(head.view && !head.conflict && head.tile.layout == "valid_shape=[16, 128]");
    let (x, y) = (block(vector, "x__tile"), block(vector, "y__tile"));
    assert!(x.conflict && y.conflict && !x.view);
    assert_eq!(y.aliases, ["z__tile"]);
    assert_eq!(function(&m, "fx_incore").blocks.len(), 1);
}

#[test]
fn the_a5_case_has_every_ascend950_space() {
    let m = map("fx_a5_case");
    assert_eq!((m.backend.name.as_str(), m.backend.arch.as_str(), m.backend.detected), ("Ascend950", "a5", true));
    // Spmd holds no tile memory.
    assert_eq!(m.functions.len(), 2);
    let aic = function(&m, "fx_mx_matmul");
    assert_eq!(spaces(aic), ["Mat", "Left", "LeftScale", "Right", "RightScale", "Acc", "Bias"]);
    for s in &aic.spaces {
        assert_eq!(s.limit, m.backend.capacities[&s.space], "{}", s.space);
    }
    assert_eq!(spaces(function(&m, "fx_relu")), ["Vec"]);
}

#[test]
fn a_concise_dump_has_no_layouts_and_the_others_do() {
    assert!(!map("fx_concise.py").has_layouts());
    assert!(map("fx_a2a3_case").has_layouts() && map("fx_a5_case").has_layouts());
}

#[test]
fn dumps_with_nothing_to_draw_are_refused_for_their_reason() {
    // Before AllocateMemoryAddr (every offset 0 while two bases share Vec): a bases view, marked.
    let early = load(&fixture("fx_a2a3_case"), "MemoryReuse", None).unwrap();
    assert_eq!(early.addresses, pto_memory_map::model::Addresses::Unassigned);
    assert_eq!(early.addresses_in.as_deref(), Some("35_after_AllocateMemoryAddr.py"));
    // memory_planner=PTOAS: no tile carries a MemRef.
    let ptoas = load(&fixture("fx_ptoas_planner.py"), "AllocateMemoryAddr", None).unwrap_err();
    assert_eq!(ptoas.kind, ErrorKind::Refused);
    assert!(ptoas.to_string().contains("MemRef") && ptoas.to_string().contains("PTOAS"), "{ptoas}");
}

#[test]
fn a_later_dump_draws_the_same_layout() {
    let at = map("fx_a2a3_case");
    let later = load(&fixture("fx_a2a3_case"), "MaterializeValidShapeSymbols", None).unwrap();
    assert_eq!(later.pass_name, "MaterializeValidShapeSymbols");
    // The same boxes at the same addresses (its header comment is a line longer, so lines move).
    let boxes = |m: &MemoryMap| -> Vec<String> {
        m.functions
            .iter()
            .flat_map(|f| &f.blocks)
            .map(|b| {
                let t = &b.tile;
                format!("{} {} {}+{} {:?} {} {}", t.name, t.space, t.offset, t.size, b.aliases, b.view, b.conflict)
            })
            .collect()
    };
    assert_eq!(boxes(&later), boxes(&at));
}

/// Every `fx_` fixture file is either drawn or refused, none fails otherwise: a fixture that stopped
/// parsing would show here first.
#[test]
fn every_fixture_dump_is_drawn_or_refused() {
    let mut files = Vec::new();
    walk(&common::fixtures(), &mut files);
    files.retain(|p| p.strip_prefix(common::fixtures()).is_ok_and(|r| r.to_string_lossy().starts_with("fx_")));
    assert!(files.len() >= 6, "{files:?}");
    for path in files {
        match load(&path, "AllocateMemoryAddr", None) {
            Ok(m) => assert!(!m.functions.is_empty(), "{}", path.display()),
            Err(e) => assert_eq!(e.kind, ErrorKind::Refused, "{}: {e}", path.display()),
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

/// The page tests' case (tests/browser/cases.mjs reads these figures off the page): what each of its
/// functions was written to have.
#[test]
fn the_page_case_has_what_the_page_tests_read() {
    let m = map("fx_page_case");
    assert_eq!((m.backend.name.as_str(), m.backend.arch.as_str(), m.backend.detected), ("Ascend910B", "a2a3", true));
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["fx_copy_in", "fx_mm_down", "fx_mm_gate", "fx_mm_key_projection", "fx_softmax", "fx_rotary", "fx_norm"]
    );
    assert_eq!(m.functions.iter().map(|f| f.blocks.len()).sum::<usize>(), 118);
    // The main cube card: Mat x blocks of 4 KB and w blocks of 128 KB from 8 KB, two 512 B Left
    // pieces, two 32 KB Right pieces (full), one 64 KB accumulator with its chain as aliases.
    let down = function(&m, "fx_mm_down");
    assert_eq!(spaces(down), ["Mat", "Left", "Right", "Acc"]);
    let figures: Vec<(i64, i64, u32)> = down.spaces.iter().map(|s| (s.hwm, s.limit, s.peak.line)).collect();
    assert_eq!(figures, [(270_336, 524_288, 55), (1024, 65_536, 39), (65_536, 65_536, 40), (65_536, 131_072, 35)]);
    assert!(block(down, "dn_acc__init").aliases.len() >= 3);
    assert_eq!(block(down, "dn_w_k__tile").tile.offset, 139_264);
    assert_eq!(spaces(function(&m, "fx_mm_gate")), ["Mat", "Left", "Right", "Acc"]);
    // The long vector card: one Vec lane, far taller than a plot, boxes from 64 B to 32 KB.
    let softmax = function(&m, "fx_softmax");
    assert_eq!(spaces(softmax), ["Vec"]);
    assert!(softmax.src_end - softmax.src_start > 60);
    let sizes: Vec<i64> = softmax.blocks.iter().map(|b| b.tile.size).collect();
    assert!(sizes.contains(&64) && sizes.contains(&32_768), "{sizes:?}");
    // The norm: reshapes are views, in-place steps aliases.
    let norm = function(&m, "fx_norm");
    assert!(norm.blocks.iter().any(|b| b.view) && norm.blocks.iter().any(|b| !b.aliases.is_empty()));
}
