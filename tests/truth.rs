//! What the compiler placed beyond plain tiles: declared multi-slot allocations, reserved windows,
//! the unsafe band at the top of Vec, numbers that cannot be, older dumps, and what current dumps
//! add around the tiles. Each on a fixture written for it (tests/fixtures/).

use pto_memory_map::model::{Block, Finding, FunctionMap, MemoryMap};
use pto_memory_map::{ErrorKind, Format, RenderOptions, load, render_map};

mod common;

fn map_with(rel: &str, backend: Option<&str>) -> MemoryMap {
    let path = common::fixtures().join(rel);
    load(&path, "AllocateMemoryAddr", backend).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn map(rel: &str) -> MemoryMap {
    map_with(rel, None)
}

fn function<'a>(map: &'a MemoryMap, name: &str) -> &'a FunctionMap {
    map.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"))
}

fn block<'a>(f: &'a FunctionMap, name: &str) -> &'a Block {
    f.blocks
        .iter()
        .find(|b| b.tile.name == name || b.aliases.iter().any(|a| a == name))
        .unwrap_or_else(|| panic!("no box {name} in {}", f.name))
}

fn findings<'a>(map: &'a MemoryMap, code: &str, function: &str) -> Vec<&'a Finding> {
    map.findings.iter().filter(|x| x.code == code && x.function.as_deref() == Some(function)).collect()
}

fn json(map: &MemoryMap) -> serde_json::Value {
    let opts = RenderOptions { format: Format::Json, ..Default::default() };
    serde_json::from_slice(&render_map(map, &opts).unwrap()).unwrap()
}

fn function_json<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["functions"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap()
}

fn space<'a>(f: &'a FunctionMap, space: &str) -> &'a pto_memory_map::model::SpaceUsage {
    f.spaces.iter().find(|s| s.space == space).unwrap_or_else(|| panic!("no {space} in {}", f.name))
}

#[test]
fn a_runtime_slot_selector_draws_and_counts_the_whole_allocation() {
    let m = map("slots_pingpong.py");
    let f = function(&m, "pingpong");
    // lo and hi both take some slot of ub at run time: one box over all of ub, both names on it.
    let ub = block(f, "lo");
    assert_eq!((ub.tile.offset, ub.tile.size), (16384, 32768));
    assert_eq!(ub.aliases, ["hi"]);
    assert!(ub.tile.pinned);
    let slots = ub.tile.slots.as_ref().unwrap();
    assert_eq!((slots.count, slots.slot_size, slots.index), (2, 16384, None));
    assert_eq!(slots.selector, "i % 2");
    assert_eq!((slots.alloc_offset, slots.alloc_size), (16384, 32768));
    // Vec holds 48 KiB: the 16 KiB tile and the two slots.
    let vec = space(f, "Vec");
    assert_eq!((vec.hwm, vec.peak.bytes, vec.tiles), (49152, 49152, 2));
    let live: Vec<&str> = vec.peak.live.iter().map(|t| t.name.as_str()).collect();
    assert!(live.contains(&"lo") && live.contains(&"s"), "{live:?}");
    let j = json(&m);
    let boxes = function_json(&j, "pingpong")["boxes"].as_array().unwrap();
    let lo = boxes.iter().find(|b| b["name"] == "lo").unwrap();
    assert_eq!(lo["slots"]["selector"], "i % 2");
    assert_eq!(lo["slots"]["index"], serde_json::Value::Null);
    assert_eq!(lo["pinned"], true);
    assert_eq!(function_json(&j, "pingpong")["spaces"][0]["hwm"], 49152);
}

#[test]
fn a_constant_slot_is_drawn_where_it_is_and_the_allocation_is_taken_whole() {
    let m = map("slots_pingpong.py");
    let f = function(&m, "one_slot");
    let acc = block(f, "acc");
    assert_eq!((acc.tile.offset, acc.tile.size), (16384, 16384));
    let slots = acc.tile.slots.as_ref().unwrap();
    assert_eq!((slots.index, slots.alloc_offset, slots.alloc_size), (Some(1), 0, 32768));
    // Slot 0 is bound by nobody, yet the allocation takes it: the high-water mark and the free
    // ranges count the whole allocation; the peak counts what is live, the drawn slot, so its live
    // list (the slot alone) adds up to it.
    let s = space(f, "Acc");
    assert_eq!((s.hwm, s.peak.bytes, s.tiles), (32768, 16384, 1));
    assert_eq!(s.peak.live.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["acc"]);
    assert_eq!(s.largest_free.offset, 32768);
    // A pinned allocation without slots is marked too.
    assert!(block(f, "b_mat").tile.pinned && block(f, "b_mat").tile.slots.is_none());
    assert!(!block(f, "a_mat").tile.pinned);
}

#[test]
fn a_memref_that_cannot_be_placed_is_listed_with_a_finding() {
    let m = map("slots_pingpong.py");
    let f = function(&m, "one_slot");
    assert!(f.blocks.iter().all(|b| b.tile.name != "part"));
    let u = &f.unresolved[0];
    assert_eq!((u.name.as_str(), u.space.as_str(), u.base.as_str()), ("part", "Mat", "mem_mat_0"));
    assert_eq!(u.memref, "pl.MemRef(mem_mat_0, k * 4096, 4096)");
    let x = findings(&m, "unresolved", "one_slot");
    assert_eq!(x.len(), 1);
    assert_eq!(x[0].tiles, ["part"]);
    assert_eq!(x[0].line, Some(u.line));
    assert!(x[0].message.contains("run time"), "{}", x[0].message);
    let j = json(&m);
    assert_eq!(function_json(&j, "one_slot")["unresolved"][0]["name"], "part");
}

#[test]
fn a_declared_allocation_past_the_capacity_overflows_though_its_tile_does_not() {
    // Two 8 KiB slots at 56 KiB of a 64 KiB Left space: slot 0, the one bound, fits; the
    // allocation passes the capacity with its slot 1.
    let text = "import pypto.language as pl\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIC)\n    def f(self, x):\n        l: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 16384, pinned=True)\n        t: pl.Tile[[4], pl.FP32, pl.MemRef(l, 57344, 8192, slots=2)[0], pl.Mem.Left] = pl.tile.load(x)\n        return t\n";
    let dump = pto_memory_map::Dump::from_bytes("s.py", text.as_bytes().to_vec()).unwrap();
    let m = pto_memory_map::build(&dump, pto_memory_map::backend::choose(Some("Ascend910B"), None).unwrap()).unwrap();
    let x = findings(&m, "overflow", "f");
    assert_eq!(x.len(), 1, "{x:?}");
    assert!(x[0].message.starts_with("the declared allocation l (2 slots) ends at 72 KB"), "{}", x[0].message);
    assert_eq!(m.functions[0].spaces[0].hwm, 73728);
}

#[test]
fn reserved_windows_count_in_the_hwm_and_the_peak() {
    let m = map("reserve_windows.py");
    let aic = function(&m, "ring_aic");
    let r = &aic.reserved[0];
    assert_eq!((r.name.as_str(), r.space.as_str(), r.offset, r.size), ("ring_v2c_slot_buffer", "Mat", Some(0), 32768));
    let mat = space(aic, "Mat");
    // A placed window holds its bytes on every line: in the peak, and named in its live list.
    assert_eq!((mat.hwm, mat.peak.bytes, mat.tiles), (49152, 49152, 1));
    let live: Vec<(&str, bool)> = mat.peak.live.iter().map(|t| (t.name.as_str(), t.reserved)).collect();
    assert_eq!(live, [("ring_v2c_slot_buffer", true), ("a_mat", false)]);
    // The window is not free room.
    assert_eq!(mat.largest_free.offset, 49152);
    // The AIV side reserves in Vec, and imports the AIC window.
    let aiv = function(&m, "ring_aiv");
    assert_eq!((aiv.reserved[0].space.as_str(), aiv.reserved[0].size), ("Vec", 16384));
    assert_eq!(
        (aiv.peer_buffers[0].name.as_str(), aiv.peer_buffers[0].peer.as_str()),
        ("ring_v2c_slot_buffer", "ring_aic")
    );
    let peer = findings(&m, "peer-buffer", "ring_aiv");
    assert_eq!(peer.len(), 1);
    assert!(peer[0].message.contains("ring_aic"), "{}", peer[0].message);
    let j = json(&m);
    assert_eq!(function_json(&j, "ring_aic")["reserved"][0]["offset"], 0);
    assert_eq!(function_json(&j, "ring_aic")["peer_buffers"][0]["peer"], "ring_aiv");
}

#[test]
fn an_overflow_in_a_reserved_space_names_the_window() {
    let m = map_with("reserve_windows.py", Some("Ascend910B"));
    let x = findings(&m, "overflow", "ring_aiv");
    assert_eq!(x.len(), 1, "{x:?}");
    let msg = &x[0].message;
    assert!(
        msg.contains("the first 16 KB of Vec are reserved by system.reserve_buffer (ring_c2v_slot_buffer (16 KB))"),
        "{msg}"
    );
}

#[test]
fn an_unplaced_window_is_a_note_and_not_drawn() {
    let m = map("reserve_windows.py");
    let f = function(&m, "waiting_aiv");
    assert_eq!(f.reserved[0].offset, None);
    assert_eq!(space(f, "Vec").hwm, 32768);
    let x = findings(&m, "reserved-unplaced", "waiting_aiv");
    assert_eq!((x.len(), x[0].line), (1, Some(f.reserved[0].line)));
}

#[test]
fn the_unsafe_band_is_told_from_past_the_chip() {
    let m = map_with("unsafe_band.py", Some("Ascend910B"));
    assert_eq!(m.backend.physical["Vec"], 196_608);
    let band = findings(&m, "overflow", "in_band");
    assert!(band[0].message.contains("inside the unsafe band 184 KB..192 KB"), "{}", band[0].message);
    let past = findings(&m, "overflow", "past_physical");
    assert!(past[0].message.contains("past the physical 192 KB as well"), "{}", past[0].message);
    let m = map_with("unsafe_band.py", Some("Ascend950"));
    assert_eq!(m.backend.physical["Vec"], 253_952);
    assert!(findings(&m, "overflow", "in_band").is_empty());
    let band = findings(&m, "overflow", "past_physical");
    assert!(band[0].message.contains("inside the unsafe band 240 KB..248 KB"), "{}", band[0].message);
    let j = json(&m);
    assert_eq!(j["backend"]["physical"]["Vec"], 253_952);
}

#[test]
fn a_soc_file_may_give_physical_sizes() {
    let b = pto_memory_map::backend::parse_soc(
        "name = \"Mini\"\narch = \"m1\"\n[capacities]\nVec = 65536\n[physical]\nVec = 73728\n",
        "mini.toml",
        true,
    )
    .unwrap();
    assert_eq!(b.physical["Vec"], 73728);
    for bad in ["Vec = 1024", "Mat = 99999"] {
        let text = format!("name = \"Mini\"\narch = \"m1\"\n[capacities]\nVec = 65536\n[physical]\n{bad}\n");
        let err = pto_memory_map::backend::parse_soc(&text, "mini.toml", true).unwrap_err();
        assert!(err.to_string().contains("physical size"), "{err}");
    }
}

#[test]
fn an_older_dump_is_named_and_refused() {
    let path = common::fixtures().join("legacy_memoryspace.py");
    let err = load(&path, "AllocateMemoryAddr", None).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    let msg = &err.to_string();
    assert!(msg.contains("legacy_memoryspace.py:11:20: a PyPTO dump from before the pl.Mem syntax"), "{msg}");
    for what in ["pl.MemorySpace", "pl.block.alloc", "pl.MemRefType", "<unsupported IRNode type>", "re-dump"] {
        assert!(msg.contains(what), "{what}: {msg}");
    }
    assert!(!msg.contains("not valid Python"), "{msg}");
}

#[test]
fn what_current_dumps_add_is_read_through() {
    let m = map("tolerant_current.py");
    let f = function(&m, "kernel");
    assert_eq!(f.blocks.len(), 2);
    assert!(f.unresolved.is_empty());
    let x = block(f, "x__tile");
    assert_eq!((x.tile.offset, x.tile.size, x.tile.op.as_str()), (0, 16384, "tile.load"));
    assert!(
        x.tile.layout.contains("valid_shape=[n__ssa_v0, 64]") && x.tile.layout.contains("compact=CompactMode.null"),
        "{}",
        x.tile.layout
    );
    assert_eq!(block(f, "y__tile").tile.offset, 16384);
    assert!(m.findings.iter().all(|x| x.severity != pto_memory_map::model::Severity::Error), "{:?}", m.findings);
}

/// Every `pl.system.reserve_buffer` call with a base in `text`, by the function it is in: (function,
/// name, size, base), read with plain text search, apart from the parser.
fn reserve_calls(text: &str) -> Vec<(String, String, i64, i64)> {
    let mut function = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("def ") {
            function = rest.split('(').next().unwrap_or_default().to_string();
        }
        let Some(at) = t.find("pl.system.reserve_buffer(") else { continue };
        let args = &t[at..];
        let kw = |key: &str| {
            let from = args.find(&format!("{key}="))? + key.len() + 1;
            Some(args[from..].split([',', ')']).next()?.trim().trim_matches('\'').to_string())
        };
        let (name, size, base) = (kw("name").unwrap(), kw("size").unwrap(), kw("base").unwrap());
        out.push((function.clone(), name, size.parse().unwrap(), base.parse().unwrap()));
    }
    out
}

/// On the shared corpus: every reserved window of the decode case and of the generated cases is
/// in the map at its place, in its function's cross-core space; and every function's high-water
/// mark is what its tiles alone give (the window was already under them), which for the decode
/// case is what PyPTO's own tool computed.
#[test]
fn every_reserved_window_of_the_corpus_is_drawn_and_no_hwm_moves() {
    let Some(corpus) = common::corpus() else { return };
    let mut dumps = vec![corpus.join("cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py")];
    for arch in ["Ascend910B", "Ascend950"] {
        for case in std::fs::read_dir(corpus.join("generated").join(arch)).unwrap() {
            let dir = case.unwrap().path().join("passes_dump");
            for dump in std::fs::read_dir(dir).unwrap() {
                let path = dump.unwrap().path();
                if !path.to_string_lossy().contains("_after_MemoryReuse") {
                    dumps.push(path);
                }
            }
        }
    }
    let mut windows = 0;
    for path in &dumps {
        let text = std::fs::read_to_string(path).unwrap();
        let m = load(path, "AllocateMemoryAddr", None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (function_name, name, size, base) in reserve_calls(&text) {
            let f = function(&m, &function_name);
            let space_name = if f.ftype == "AIC" { "Mat" } else { "Vec" };
            let r = f.reserved.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("{name} in {function_name}"));
            assert_eq!((r.space.as_str(), r.offset, r.size), (space_name, Some(base), size), "{}", path.display());
            windows += 1;
        }
        for f in &m.functions {
            for s in &f.spaces {
                let tiles = f.blocks.iter().filter(|b| b.tile.space == s.space).map(|b| b.tile.stop()).max();
                assert_eq!(Some(s.hwm), tiles, "{} {} {}", path.display(), f.name, s.space);
            }
        }
    }
    assert!(windows >= 10, "only {windows} windows");
    // The decode case's hwm, space by space, is PyPTO's.
    let reference: serde_json::Value = serde_json::from_slice(
        &std::fs::read(corpus.join("reference/decode_fwd_layers.32_after_AllocateMemoryAddr.memory_map.json")).unwrap(),
    )
    .unwrap();
    let m = load(&dumps[0], "AllocateMemoryAddr", None).unwrap();
    for rf in reference["functions"].as_array().unwrap() {
        let f = function(&m, rf["name"].as_str().unwrap());
        for rs in rf["spaces"].as_array().unwrap() {
            assert_eq!(space(f, rs["space"].as_str().unwrap()).hwm, rs["hwm"].as_i64().unwrap(), "{}", f.name);
        }
    }
    let aic = function(&m, "fa_fused_aic");
    assert_eq!((aic.reserved[0].name.as_str(), aic.reserved[0].space.as_str()), ("fa_fused_v2c_slot_buffer", "Mat"));
}

fn svg(map: &MemoryMap) -> String {
    let opts = RenderOptions { format: Format::Svg, ..Default::default() };
    String::from_utf8(render_map(map, &opts).unwrap()).unwrap()
}

/// The `<g>` of `class` about `name`, with what it holds up to its end.
fn group<'a>(svg: &'a str, class: &str, name: &str) -> &'a str {
    let open = format!("<g class=\"{class}\" data-name=\"{name}\"");
    let at = svg.find(&open).unwrap_or_else(|| panic!("no {open}"));
    let end = svg[at..].find("</g>").unwrap();
    &svg[at..at + end]
}

#[test]
fn slots_and_pins_are_drawn_over_their_boxes() {
    let m = map("slots_pingpong.py");
    let s = svg(&m);
    let lo = group(&s, "slots", "lo");
    assert!(lo.contains("data-from=\"16384\" data-to=\"49152\""), "{lo}");
    assert!(lo.contains("[i % 2] of 2 slots") && lo.contains("chosen at run time"), "{lo}");
    // One divider between the two slots.
    assert!(lo.contains("stroke-dasharray"), "{lo}");
    let acc = group(&s, "slots", "acc");
    assert!(acc.contains("slot 1 of 2"), "{acc}");
    assert!(group(&s, "pinned", "b_mat").contains("declared"));
    assert!(!s.contains("<g class=\"pinned\" data-name=\"a_mat\""));
    // The box itself is the allocation's whole range.
    assert!(
        s.contains("data-name=\"lo\" data-space=\"Vec\" data-base=\"ub\" data-offset=\"16384\" data-size=\"32768\"")
    );
}

#[test]
fn reserved_windows_are_drawn_hatched_and_named_down_their_function() {
    let m = map("reserve_windows.py");
    let s = svg(&m);
    let ring = group(&s, "reserved", "ring_v2c_slot_buffer");
    assert!(ring.contains("data-from=\"0\" data-to=\"32768\""), "{ring}");
    assert!(ring.contains("ring_v2c_slot_buffer: 32 KB of Mat reserved by system.reserve_buffer"), "{ring}");
    let hatch = &ring[ring.find("<path d=\"").expect("hatched")..];
    assert!(hatch.matches('M').count() > 10, "hatched: {ring}");
    let aic = m.functions.iter().find(|f| f.name == "ring_aic").unwrap();
    // The window runs from the function's first line to its last.
    let rows = (aic.src_end - aic.src_start + 1) as f64 * pto_memory_map::plan::RULES.line_px;
    assert!(ring.contains(&format!("height=\"{rows}\"")), "{rows}: {ring}");
    // Not placed yet: not drawn.
    assert!(!s.contains("data-name=\"wait_c2v_slot_buffer\""));
    // The legend says what the hatching is, on maps that have windows only.
    assert!(s.contains("reserved window (system.reserve_buffer), in the hwm"));
    assert!(!svg(&map("unsafe_band.py")).contains("reserved window (system"));
    // ...and among the functions drawn: one whose window is not placed yet has none to explain.
    let drawn = |function: &str| {
        let view = pto_memory_map::ViewOptions { functions: vec![function.into()], ..Default::default() };
        let opts = RenderOptions { format: Format::Svg, view, ..Default::default() };
        String::from_utf8(render_map(&m, &opts).unwrap()).unwrap()
    };
    assert!(drawn("ring_aiv").contains("reserved window (system"));
    assert!(!drawn("waiting_aiv").contains("reserved window (system"));
}

/// Every reserved window drawn in `svg` names itself and its size on a pill, in text whose colour
/// against the pill has a contrast of at least 4.5:1, and the pill stays inside the SVG; returns
/// how many it checked.
fn windows_named_legibly(svg: &str, at: &str) -> usize {
    let ink = attr(&svg[..svg.find('>').unwrap()], "fill").expect("the picture's ink");
    let mut n = 0;
    for part in svg.split("<g class=\"reserved\" data-name=\"").skip(1) {
        let group = &part[..part.find("</g>").unwrap()];
        let name = &group[..group.find('"').unwrap()];
        let title = &group[group.find("<title>").unwrap() + 7..group.find("</title>").unwrap()];
        // `NAME: 16 KB of Vec reserved ...`: the size as the tooltip words it.
        let size = title[name.len() + 2..].split(" of ").next().unwrap();
        let label = format!(">{name} · {size}</text>");
        let text_at = group.find(&label).unwrap_or_else(|| panic!("{at}: {name} is not named and sized: {group}"));
        let tag_start = group[..text_at].rfind("<text").unwrap();
        let fg = attr(&group[tag_start..text_at], "fill").unwrap_or(ink.clone());
        let pill_start = group[..tag_start].rfind("<rect").expect("a pill under the name");
        let pill = &group[pill_start..tag_start];
        let bg = attr(pill, "fill").expect("a filled pill");
        let ratio = contrast(&fg, &bg);
        assert!(ratio >= 4.5, "{at}: {name}: {fg} on {bg} is {ratio:.2}:1");
        let num = |k: &str| attr(pill, k).unwrap().parse::<f64>().unwrap();
        assert!(num("x") >= 0.0 && num("width") > 0.0, "{at}: {pill}");
        n += 1;
    }
    n
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    Some(tag[at..at + tag[at..].find('"')?].to_string())
}

/// WCAG's contrast ratio of two `#rrggbb` colours.
fn contrast(a: &str, b: &str) -> f64 {
    let lum = |c: &str| {
        let ch = |i: usize| {
            let v = u8::from_str_radix(&c[1 + 2 * i..3 + 2 * i], 16).unwrap() as f64 / 255.0;
            if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * ch(0) + 0.7152 * ch(1) + 0.0722 * ch(2)
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn every_reserved_window_names_itself_and_its_size_legibly() {
    // The fixture's 16 KB window is far narrower than its name: the pill reaches past it.
    let m = map("reserve_windows.py");
    assert_eq!(windows_named_legibly(&svg(&m), "reserve_windows.py"), 3);
    let view = pto_memory_map::plan::ViewOptions { theme: pto_memory_map::plan::Theme::Dark, ..Default::default() };
    let dark =
        String::from_utf8(render_map(&m, &RenderOptions { format: Format::Svg, view, ..Default::default() }).unwrap());
    assert_eq!(windows_named_legibly(&dark.unwrap(), "dark"), 3);
    let mut windows = 0;
    for (path, m) in common::drawable_corpus_if_any() {
        windows += windows_named_legibly(&svg(&m), &path.display().to_string());
    }
    if common::corpus_dir().is_dir() {
        assert!(windows >= 10, "only {windows} windows in the corpus");
    }
}

#[test]
fn the_unsafe_band_is_drawn_where_a_tile_reaches_it_and_flagged_otherwise() {
    let m = map_with("unsafe_band.py", Some("Ascend910B"));
    let s = svg(&m);
    let band = group(&s, "unsafe-band", "Vec");
    assert!(band.contains("data-from=\"188416\" data-to=\"196608\""), "{band}");
    assert!(band.contains("184 KB usable of 192 KB physical"), "{band}");
    // Where no tile passes the usable size, the band is a tab at the end of the byte axis.
    let m = map_with("slots_pingpong.py", Some("Ascend910B"));
    let s = svg(&m);
    let tab = group(&s, "unsafe-band", "Vec");
    assert!(tab.contains("data-from=\"188416\" data-to=\"196608\""), "{tab}");
    // A strip as narrow as the narrowest box, at the lane's end, framed and hatched in amber.
    assert!(tab.contains("width=\"2\"") && tab.contains("stroke=\"#fab219\""), "{tab}");
    // Spaces without a band have none.
    assert_eq!(s.matches("class=\"unsafe-band\"").count(), 1);
}

/// The fixture case's dump one pass before AllocateMemoryAddr.
fn early() -> std::path::PathBuf {
    common::fixtures().join("fx_a2a3_case/passes_dump/34_after_MemoryReuse.py")
}

#[test]
fn a_dump_before_address_assignment_is_a_bases_view() {
    let m = load(&early(), "MemoryReuse", None).unwrap();
    let j = json(&m);
    assert_eq!(j["addresses"], "unassigned");
    assert_eq!(j["addresses_in"], "35_after_AllocateMemoryAddr.py");
    // Each base its own column, in first-use order, as wide as its allocation.
    for f in &m.functions {
        for s in &f.spaces {
            let mut columns: Vec<(u32, &str, i64)> = Vec::new();
            let mut blocks: Vec<&Block> = f.blocks.iter().filter(|b| b.tile.space == s.space).collect();
            blocks.sort_by_key(|b| b.tile.start);
            for b in blocks {
                match columns.iter().find(|c| c.1 == b.tile.base) {
                    Some(c) => assert_eq!(c.2, b.tile.offset, "{} shares its base's column", b.tile.name),
                    None => columns.push((b.tile.start, &b.tile.base, b.tile.offset)),
                }
            }
            assert!(columns.windows(2).all(|w| w[0].2 < w[1].2), "{} {}: {columns:?}", f.name, s.space);
            assert!(f.blocks.iter().all(|b| !b.conflict), "bases never share a column");
        }
    }
    // The header says so, and where the addresses are.
    let s = svg(&m);
    assert!(s.contains("addresses not assigned yet: a bases view, one column per base in first-use order; the addresses are in 35_after_AllocateMemoryAddr.py"));
    // The page's header too.
    let page =
        String::from_utf8(render_map(&m, &RenderOptions { format: Format::Html, ..Default::default() }).unwrap())
            .unwrap();
    assert!(page.contains("<p class=\"note concise\">addresses not assigned yet: a bases view"), "the page says so");
    // A dump with addresses says nothing of them.
    let later = load(&common::fixtures().join("fx_a2a3_case"), "AllocateMemoryAddr", None).unwrap();
    assert!(json(&later).get("addresses").is_none());
    assert!(!svg(&later).contains("addresses not assigned"));
}

#[test]
fn check_refuses_a_dump_before_address_assignment() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
        .args(["check", early().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("addresses are not assigned yet") && err.contains("nothing to gate on"), "{err}");
    assert!(err.contains("check 35_after_AllocateMemoryAddr.py"), "{err}");
}

#[test]
fn a_diff_against_the_assigned_dump_says_where_each_base_was_placed() {
    let early = load(&early(), "MemoryReuse", None).unwrap();
    let late = load(&common::fixtures().join("fx_a2a3_case"), "AllocateMemoryAddr", None).unwrap();
    let d = pto_memory_map::compare::diff(&early, &late);
    let placed: Vec<(&str, &str, Option<i64>, Option<i64>)> =
        d.placed.iter().map(|p| (p.function.as_str(), p.base.as_str(), p.from, p.to)).collect();
    assert_eq!(
        placed,
        [("fx_vector", "mem_vec_6", Some(0), Some(32768)), ("fx_vector", "mem_vec_7", Some(16384), Some(49152))]
    );
    assert!(d.verdict.starts_with("addresses assigned: 2 of 2 bases placed"), "{}", d.verdict);
    let md = pto_memory_map::render::md::render(&d);
    assert!(md.contains("| `fx_vector` | Vec | `mem_vec_7` | [16384, 49152) (32 KB) |"), "{md}");
    // Either way round; and two assigned dumps say nothing of bases.
    assert_eq!(pto_memory_map::compare::diff(&late, &early).placed.len(), 2);
    assert!(pto_memory_map::compare::diff(&late, &late).placed.is_empty());
}

/// The line of `fixture` that binds `name` (`    name: ...`), from 1.
fn line_of(fixture: &str, name: &str) -> u32 {
    let text = std::fs::read_to_string(common::fixtures().join(fixture)).unwrap();
    let at = text.lines().position(|l| l.trim_start().starts_with(&format!("{name}: "))).unwrap();
    at as u32 + 1
}

#[test]
fn a_tile_on_an_unbound_slot_of_a_live_allocation_is_a_conflict() {
    let m = map("held_conflicts.py");
    let f = function(&m, "over_slot");
    let x = findings(&m, "conflict", "over_slot");
    assert_eq!(x.len(), 1, "{x:?}");
    let (acc, stray) = (line_of("held_conflicts.py", "acc"), line_of("held_conflicts.py", "stray"));
    assert_eq!(x[0].tiles, ["stray", "l0c"]);
    assert_eq!((x[0].line, x[0].lines.clone()), (Some(stray), vec![acc, stray]));
    assert_eq!(x[0].space.as_deref(), Some("Acc"));
    let msg = &x[0].message;
    assert!(
        msg.starts_with(
            "stray (mem_acc_1) is on 16 KB at 0..16384 of the declared allocation l0c (2 slots of 16 KB, pinned)"
        ),
        "{msg}"
    );
    assert!(msg.contains(&format!("(L{stray}-L{})", stray + 1)), "{msg}");
    // Drawn as a conflict; the same bytes taken after the allocation is dead are not one.
    assert!(block(f, "stray").conflict);
    assert!(!block(f, "later").conflict && !block(f, "acc").conflict);
    let j = json(&m);
    let boxes = function_json(&j, "over_slot")["boxes"].as_array().unwrap();
    assert_eq!(boxes.iter().find(|b| b["name"] == "stray").unwrap()["conflict"], true);
    assert!(svg(&m).contains("class=\"box conflict\" data-name=\"stray\""));
}

#[test]
fn a_tile_on_a_reserved_window_is_a_conflict() {
    let m = map("held_conflicts.py");
    let x = findings(&m, "conflict", "over_window");
    assert_eq!(x.len(), 1, "{x:?}");
    let (ring, tile) = (line_of("held_conflicts.py", "ring_buf"), line_of("held_conflicts.py", "x"));
    assert_eq!(x[0].tiles, ["x", "ring_buf"]);
    assert_eq!((x[0].line, x[0].lines.clone()), (Some(tile), vec![ring, tile]));
    assert!(
        x[0].message.starts_with(&format!(
            "x (mem_vec_1) is on 8 KB at 8192..16384 of the window ring_buf reserved by system.reserve_buffer (line {ring})"
        )),
        "{}",
        x[0].message
    );
    assert!(block(function(&m, "over_window"), "x").conflict);
    // The fixtures whose tiles keep off their windows and slots have none.
    for clean in ["reserve_windows.py", "slots_pingpong.py"] {
        let m = map(clean);
        assert!(m.findings.iter().all(|x| x.code != "conflict"), "{clean}: {:?}", m.findings);
    }
}

#[test]
fn a_negative_offset_is_refused_at_its_place() {
    let path = common::fixtures().join("negative_numbers.py");
    let err = load(&path, "AllocateMemoryAddr", None).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unreadable);
    let line = line_of("negative_numbers.py", "y");
    let text = std::fs::read_to_string(&path).unwrap();
    let col = text.lines().nth(line as usize - 1).unwrap().find("-256").unwrap() + 1;
    assert!(err.to_string().contains(&format!("negative_numbers.py:{line}:{col}: ")), "{err}");
    assert!(err.to_string().contains("negative"), "{err}");
    // The command line says the same and exits non-zero, writing no map.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
        .args([path.to_str().unwrap(), "-f", "json"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!(":{line}:{col}: ")), "{out:?}");
}

#[test]
fn windows_and_bands_are_drawn_on_both_sides_and_both_backends() {
    // The AIV side's window, in Vec.
    let s = svg(&map("reserve_windows.py"));
    let ring = group(&s, "reserved", "ring_c2v_slot_buffer");
    assert!(ring.contains("data-from=\"0\" data-to=\"16384\"") && ring.contains("16 KB of Vec reserved"), "{ring}");
    assert_eq!(s.matches("class=\"reserved\"").count(), 3, "one per placed window");
    // An InCore function reserves in Vec, as an AIV one does; the JSON says where.
    let m = map("reserve_windows.py");
    let incore = function(&m, "ring_incore");
    assert_eq!((incore.ftype.as_str(), incore.reserved[0].space.as_str()), ("InCore", "Vec"));
    assert_eq!(space(incore, "Vec").hwm, 24576);
    assert_eq!(function_json(&json(&m), "ring_incore")["reserved"][0]["space"], "Vec");
    assert!(group(&s, "reserved", "incore_slot_buffer").contains("data-from=\"0\" data-to=\"8192\""));
    // Ascend950's band (240..248 KB), reached by the tile that ends at 244 KB.
    let m = map_with("unsafe_band.py", Some("Ascend950"));
    let s = svg(&m);
    let band = group(&s, "unsafe-band", "Vec");
    assert!(band.contains("data-from=\"245760\" data-to=\"253952\""), "{band}");
    assert!(band.contains("240 KB usable of 248 KB physical"), "{band}");
    let j = json(&m);
    assert_eq!(j["backend"]["physical"]["Vec"], 253_952);
    assert_eq!(function_json(&j, "past_physical")["spaces"][0]["hwm"], 249_856);
}
