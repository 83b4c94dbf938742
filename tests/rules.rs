//! The extraction and analysis rules, each on a dump written for it.

use pto_memory_map::model::{BackendChoice, Block, MemoryMap};
use pto_memory_map::{Dump, ErrorKind, backend, build};

fn map_of(text: &str) -> pto_memory_map::Result<MemoryMap> {
    build(&Dump::from_bytes("t.py", text.as_bytes().to_vec())?, backend::choose(None, None)?)
}

fn blocks(text: &str) -> Vec<Block> {
    map_of(text).unwrap().functions.into_iter().flat_map(|f| f.blocks).collect()
}

fn find<'a>(blocks: &'a [Block], name: &str) -> &'a Block {
    blocks.iter().find(|b| b.tile.name == name).unwrap_or_else(|| panic!("no block {name}"))
}

/// A dump with one function of type `ftype` whose body is `body` (8-space indented lines).
fn dump(ftype: &str, params: &str, body: &str) -> String {
    format!(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.{ftype}, level=pl.Level.AIV)\n    def f(self{params}):\n{body}        return\n"
    )
}

fn tile(name: &str, base: &str, offset: i64, size: i64, value: &str) -> String {
    format!(
        "        {name}: pl.Tile[[16, 16], pl.FP32, pl.MemRef({base}, pl.const({offset}, pl.INT64), {size}), pl.Mem.Vec] = {value}\n"
    )
}

#[test]
fn alias_chain_merges_into_one_block_with_its_names() {
    let body = [
        tile("a", "mem_vec_1", 0, 1024, "pl.tile.load(x)"),
        tile("b", "mem_vec_1", 0, 1024, "pl.tile.add(a, a)"),
        tile("c", "mem_vec_1", 0, 1024, "pl.yield_(b)"),
        "        y = c\n".into(),
    ]
    .concat();
    let bs = blocks(&dump("AIV", "", &body));
    assert_eq!(bs.len(), 1);
    assert_eq!(bs[0].tile.name, "a");
    assert_eq!(bs[0].aliases, ["b", "c"]);
    assert_eq!((bs[0].tile.start, bs[0].tile.end), (7, 10));
}

#[test]
fn reuse_of_a_slot_over_disjoint_lifetimes_stays_apart() {
    let body = [
        tile("a", "mem_vec_1", 0, 1024, "pl.tile.load(x)"),
        "        y = a\n".into(),
        "        z = 1\n".into(),
        tile("b", "mem_vec_1", 0, 1024, "pl.tile.load(x)"),
    ]
    .concat();
    let bs = blocks(&dump("AIV", "", &body));
    assert_eq!(bs.len(), 2);
    assert!(bs.iter().all(|b| b.aliases.is_empty() && !b.view && !b.conflict));
}

#[test]
fn overlap_on_one_base_is_a_view_and_across_bases_a_conflict() {
    let body = [
        tile("whole", "mem_vec_1", 0, 4096, "pl.tile.load(x)"),
        tile("part", "mem_vec_1", 1024, 512, "pl.tile.slice(whole, [0], [8])"),
        tile("other", "mem_vec_2", 2048, 4096, "pl.tile.load(x)"),
        "        y = pl.tile.add(whole, other)\n".into(),
    ]
    .concat();
    let bs = blocks(&dump("AIV", "", &body));
    let (whole, part, other) = (find(&bs, "whole"), find(&bs, "part"), find(&bs, "other"));
    assert!(part.view && !whole.view, "the narrower block is the view");
    assert!(whole.conflict && other.conflict && !part.conflict);
}

#[test]
fn ddr_tiles_and_tensors_are_not_drawn() {
    let body =
        "        t: pl.Tile[[4], pl.FP32, pl.MemRef(\"mem_ddr_0\", 0, 16), pl.Mem.DDR] = pl.tile.load(x)\n        \
                u: pl.Out[pl.Tensor[[4], pl.FP32, pl.MemRef(\"mem_ddr_1\", 0, 16)]] = x\n"
            .to_string()
            + &tile("v", "mem_vec_1", 0, 64, "pl.tile.load(x)");
    let bs = blocks(&dump("AIV", "", &body));
    assert_eq!(bs.iter().map(|b| b.tile.name.as_str()).collect::<Vec<_>>(), ["v"]);
}

#[test]
fn only_compute_functions_get_a_map() {
    let body = tile("v", "mem_vec_1", 0, 64, "pl.tile.load(x)");
    for (ftype, drawn) in
        [("AIV", true), ("AIC", true), ("InCore", true), ("Group", false), ("Orchestration", false), ("Spmd", false)]
    {
        let got = map_of(&dump(ftype, "", &body));
        assert_eq!(got.is_ok(), drawn, "{ftype}");
    }
}

#[test]
fn tile_parameters_live_from_the_signature_to_their_last_use() {
    let params = ", p: pl.Tile[[8], pl.FP16, pl.MemRef(mem_vec_9, pl.const(512, pl.INT64), 16), pl.Mem.Vec], n: pl.Scalar[pl.INDEX]";
    let body = [tile("v", "mem_vec_1", 0, 64, "pl.tile.load(x)"), "        y = pl.tile.add(p, v)\n".into()].concat();
    let bs = blocks(&dump("AIV", params, &body));
    let p = find(&bs, "p");
    assert_eq!(
        (p.tile.op.as_str(), p.tile.start, p.tile.end, p.tile.offset, p.tile.dtype.as_str()),
        ("param", 6, 8, 512, "FP16")
    );
}

#[test]
fn function_without_self_and_extra_decorator_keywords() {
    let text = format!(
        "import pypto.language as pl\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIC, attrs={{\"split\": pl.SplitMode.UP_DOWN}}, auto_scope=False)\n    def g(x: pl.Tensor[[4], pl.FP32]):\n{}",
        tile("m", "mem_mat_1", 0, 64, "pl.tile.load(x)").replace("Mem.Vec", "Mem.Mat")
    );
    let map = map_of(&text).unwrap();
    assert_eq!((map.functions[0].name.as_str(), map.functions[0].ftype.as_str()), ("g", "AIC"));
    assert_eq!(map.functions[0].spaces[0].space, "Mat");
}

#[test]
fn multi_line_annotation_tileview_and_symbolic_shape() {
    let body = "        t: pl.Tile[\n            [rows, 64],\n            pl.BF16,\n            pl.MemRef(\"vec_base\", 128, 2048),\n            pl.Mem.Vec,\n            pl.TileView(valid_shape=[rows, 64]),\n        ] = pl.tile.load(\n            x, [0, 0]\n        )\n        y = t\n";
    let bs = blocks(&dump("AIV", "", body));
    let t = find(&bs, "t");
    assert_eq!((t.tile.base.as_str(), t.tile.offset, t.tile.size), ("vec_base", 128, 2048));
    assert!(t.tile.shape.is_empty(), "a symbolic dimension leaves the shape empty");
    assert_eq!((t.tile.start, t.tile.end, t.tile.op.as_str()), (7, 16, "tile.load"));
}

#[test]
fn the_source_slice_runs_from_the_decorator_to_the_last_line() {
    let body = tile("v", "mem_vec_1", 0, 64, "pl.tile.load(x)");
    let map = map_of(&dump("AIV", "", &body)).unwrap();
    let f = &map.functions[0];
    assert_eq!((f.src_start, f.src_end), (5, 8));
    let line = |i| f.source.get(i).unwrap_or_default();
    assert!(line(0).contains("@pl.function") && line(3).trim() == "return");
}

#[test]
fn name_rebound_in_sibling_branches_gets_one_range() {
    let body = "        if c:\n".to_string()
        + &tile("t", "mem_vec_1", 0, 64, "pl.tile.load(x)").replace("        t", "            t")
        + "        else:\n"
        + &tile("t", "mem_vec_1", 0, 64, "pl.tile.load(y)").replace("        t", "            t")
        + "        z = t\n";
    let bs = blocks(&dump("AIV", "", &body));
    assert_eq!(bs.len(), 1);
    assert_eq!((bs[0].tile.start, bs[0].tile.end), (8, 11));
}

#[test]
fn unassigned_addresses_give_a_bases_view_but_one_base_per_space_is_a_layout() {
    let two_bases =
        [tile("a", "mem_vec_1", 0, 64, "pl.tile.load(x)"), tile("b", "mem_vec_2", 0, 64, "pl.tile.load(x)")].concat();
    let map = map_of(&dump("AIV", "", &two_bases)).unwrap();
    assert_eq!(map.addresses, pto_memory_map::model::Addresses::Unassigned);
    let offsets: Vec<(String, i64)> =
        map.functions[0].blocks.iter().map(|b| (b.tile.base.clone(), b.tile.offset)).collect();
    assert_eq!(offsets, [("mem_vec_1".to_string(), 0), ("mem_vec_2".to_string(), 64)]);

    let one_base =
        [tile("a", "mem_vec_1", 0, 64, "pl.tile.load(x)"), tile("b", "mem_vec_1", 0, 32, "pl.tile.load(x)")].concat();
    let map = map_of(&dump("AIV", "", &one_base)).unwrap();
    assert_eq!(map.addresses, pto_memory_map::model::Addresses::Assigned);
}

#[test]
fn a_dump_without_tiles_is_refused_naming_the_pass_and_ptoas() {
    let err = map_of(&dump("AIV", "", "        x = 1\n")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(err.to_string().contains("AllocateMemoryAddr") && err.to_string().contains("PTOAS"), "{err}");
}

#[test]
fn syntax_errors_name_file_line_and_column() {
    let err = map_of("x = 1\ndef f(:\n").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unreadable);
    assert!(err.to_string().starts_with("t.py:2:7: not valid Python"), "{err}");
}

#[test]
fn a_memref_beyond_any_memory_is_refused_with_its_place() {
    let body = tile("ok", "mem_vec_1", 0, 1024, "pl.tile.load(x)")
        + &tile("bad", "mem_vec_2", 9_223_372_036_854_775_000, 4096, "pl.tile.load(x)");
    let err = map_of(&dump("AIV", "", &body)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unreadable);
    assert!(err.to_string().starts_with("t.py:8:62: "), "{}", err.to_string());
    assert!(err.to_string().contains("1 TiB") && err.to_string().contains("re-dump"), "{}", err.to_string());
}

#[test]
fn deep_nesting_is_a_clean_error() {
    let text = format!("x = {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let err = map_of(&text).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unreadable);
    assert!(err.to_string().starts_with("t.py:1:"), "{err}");
}

#[test]
fn long_expressions_within_the_guard_still_parse() {
    // The deepest trees the guard lets through must parse, walk and drop without overflowing the stack.
    let budget = pto_memory_map::budget::Limits::default().tokens_per_statement - 100;
    for (prefix, unit, suffix) in
        [("v", ".a", ""), ("v", "**v", ""), ("", "-", "v"), ("", "not ", "v"), ("v", "[0]", ""), ("v", "+v", "")]
    {
        let tokens = unit.chars().filter(|c| !c.is_whitespace()).count() - unit.matches("not").count() * 2;
        let expr = format!("{prefix}{}{suffix}", unit.repeat(budget / tokens));
        let text =
            dump("AIV", "", &(tile("v", "mem_vec_1", 0, 64, "pl.tile.load(x)") + &format!("        y = {expr}\n")));
        let map = map_of(&text).unwrap_or_else(|e| panic!("{unit}: {e}"));
        assert_eq!(map.functions[0].blocks[0].tile.end, 8, "{unit}");
    }
}

#[test]
fn capacities_come_from_the_backend_and_unknown_spaces_scale_by_their_peak() {
    let body = tile("v", "mem_vec_1", 0, 64, "pl.tile.load(x)")
        + &tile("w", "mem_x_1", 128, 64, "pl.tile.load(x)").replace("Mem.Vec", "Mem.Mystery");
    let text = dump("AIV", "", &body);
    let d = Dump::from_bytes("t.py", text.into_bytes()).unwrap();
    let a5: BackendChoice = backend::choose(Some("Ascend950"), None).unwrap();
    let map = build(&d, a5).unwrap();
    let spaces = &map.functions[0].spaces;
    assert_eq!((spaces[0].space.as_str(), spaces[0].limit), ("Vec", 245_760));
    assert_eq!((spaces[1].space.as_str(), spaces[1].hwm, spaces[1].limit), ("Mystery", 192, 192));
}
