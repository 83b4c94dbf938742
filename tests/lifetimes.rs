//! The compiler's lifetimes on `tests/fixtures/lifetimes.py`, one function per loop form: how long
//! each box is held (`live_end`), what the peak, `--fit` and the live list make of it, the results of
//! multi-value yields drawn, and the warning where MemoryReuse's own rule misses a real read.

mod common;

use std::path::PathBuf;

use pto_memory_map::analyze::{FitQuery, answer_fits, live_at};
use pto_memory_map::model::{Block, FunctionMap, MemoryMap, Severity};
use pto_memory_map::{Format, RenderOptions, load, render_map};

fn fixture() -> PathBuf {
    common::fixtures().join("lifetimes.py")
}

fn map() -> MemoryMap {
    load(&fixture(), "AllocateMemoryAddr", Some("Ascend910B")).unwrap()
}

/// The 1-based line of the first line of function `func` that contains `text`.
fn line_in(func: &str, text: &str) -> u32 {
    let src = std::fs::read_to_string(fixture()).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let def = lines.iter().position(|l| l.contains(&format!("def {func}("))).expect("function");
    let at = lines[def..].iter().position(|l| l.contains(text)).unwrap_or_else(|| panic!("{text} in {func}"));
    (def + at + 1) as u32
}

fn function<'a>(m: &'a MemoryMap, name: &str) -> &'a FunctionMap {
    m.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"))
}

/// The box that draws `name` (as its own name or an alias).
fn boxed<'a>(f: &'a FunctionMap, name: &str) -> &'a Block {
    f.blocks
        .iter()
        .find(|b| b.tile.name == name || b.aliases.iter().any(|a| a == name))
        .unwrap_or_else(|| panic!("no box draws {name} in {}", f.name))
}

#[test]
fn a_tile_read_inside_a_loop_is_held_to_the_loops_end() {
    let m = map();
    let f = function(&m, "for_loop");
    let a = &boxed(f, "a__tile").tile;
    assert_eq!(a.end, line_in("for_loop", "pl.tile.muls(a__tile"), "end stays the last line naming it");
    assert_eq!(a.live_end, line_in("for_loop", "x__ssa_v2: pl.Tensor"), "held to the loop's last line");
    assert_eq!(a.held_by, Some(line_in("for_loop", "for i__idx_v0 in pl.range(4)")));
    // Tiles defined inside the loop are freed after their last read.
    for name in ["b__tile", "c__tile"] {
        let t = &boxed(f, name).tile;
        assert_eq!((t.live_end, t.held_by), (t.end, None), "{name}");
    }
}

#[test]
fn the_held_tail_raises_the_peak_and_changes_a_fit_answer() {
    let mut m = map();
    let c_line = line_in("for_loop", "c__tile: pl.Tile");
    let vec = function(&m, "for_loop").spaces.iter().find(|s| s.space == "Vec").unwrap().clone();
    // a (64 KB) + b (32 KB) + c (64 KB) at c's line; lexically a would be gone: 96 KB.
    assert_eq!((vec.peak.bytes, vec.peak.line), (163_840, c_line));
    let names: Vec<&str> = vec.peak.live.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["a__tile", "c__tile", "b__tile"]);
    assert_eq!(vec.peak.live.iter().map(|l| l.size).sum::<i64>(), vec.peak.bytes, "the live list adds up");
    // 64 KB at c's line: lexically a's 64 KB would be free; the compiler still holds them.
    let q: FitQuery = format!("Vec=64KB@{c_line}-{c_line}").parse().unwrap();
    answer_fits(&mut m, &[q]).unwrap();
    let fit = &function(&m, "for_loop").fits[0];
    assert!(!fit.fits, "{fit:?}");
    assert_eq!((fit.largest.offset, fit.largest.size), (163_840, 188_416 - 163_840));
    // After the loop the bytes are free again.
    let after = line_in("for_loop", "return x__ssa_v0");
    let q: FitQuery = format!("Vec=64KB@{after}-{after}").parse().unwrap();
    answer_fits(&mut m, &[q]).unwrap();
    assert!(function(&m, "for_loop").fits[0].fits);
}

#[test]
fn nested_loops_hold_to_the_outermost_loop_after_the_definition() {
    let m = map();
    let f = function(&m, "nested");
    let p = &boxed(f, "p__tile").tile;
    assert_eq!((p.live_end, p.held_by), (line_in("nested", "u__ssa_v0:"), Some(line_in("nested", "for i__idx_v0"))));
    let q = &boxed(f, "q__tile").tile;
    let inner_end = line_in("nested", "pl.tile.store(r__tile");
    assert_eq!((q.live_end, q.held_by), (inner_end, Some(line_in("nested", "for j__idx_v0"))));
    let r = &boxed(f, "r__tile").tile;
    assert_eq!((r.live_end, r.held_by), (r.end, None));
    // w__tile takes p's bytes after the outer loop: reuse, a box of its own, no conflict.
    let w = boxed(f, "w__tile");
    assert_eq!(w.tile.name, "w__tile");
    assert!(f.blocks.iter().all(|b| !b.conflict && !b.view));
}

#[test]
fn while_loops_hold_and_a_while_s_results_are_drawn() {
    let m = map();
    let f = function(&m, "while_loop");
    let a = &boxed(f, "a__tile").tile;
    assert_eq!(
        (a.live_end, a.held_by),
        (line_in("while_loop", "n__ssa_v0 = n__ssa_v0 + 1"), Some(line_in("while_loop", "while n__ssa_v0")))
    );
    let read = line_in("while_loop", "pl.tile.add(s__rv_v2, e__rv_v2)");
    for (init, result) in [("s0__tile", "s__rv_v2"), ("e0__tile", "e__rv_v2")] {
        let b = boxed(f, init);
        assert!(b.aliases.iter().any(|a| a == result), "{result} is drawn in {init}'s box: {:?}", b.aliases);
        assert_eq!(b.tile.live_end, read, "{init}");
        // Between the loop and the read the accumulator is live.
        let live = live_at(&[b], line_in("while_loop", "g__ssa_v0:"));
        assert_eq!(live.len(), 1, "{init}");
    }
}

#[test]
fn a_multi_value_yield_s_results_keep_the_accumulators_drawn() {
    let m = map();
    let f = function(&m, "carried");
    let acc = boxed(f, "acc0__tile");
    assert!(acc.aliases.contains(&"acc1__tile".to_string()) && acc.aliases.contains(&"acc__rv_v2".to_string()));
    assert_eq!(acc.tile.live_end, line_in("carried", "pl.tile.add(acc__rv_v2"));
    let mx = boxed(f, "m0__tile");
    assert!(mx.aliases.contains(&"m__rv_v2".to_string()), "{:?}", mx.aliases);
    assert_eq!(mx.tile.live_end, line_in("carried", "row_expand_mul"));
    // At tmp__tile's line both accumulators are still held: 4 KB + 128 B + 4 KB.
    let tmp_line = line_in("carried", "tmp__tile: pl.Tile");
    let vec: Vec<&Block> = f.blocks.iter().filter(|b| b.tile.space == "Vec").collect();
    let live: Vec<String> = live_at(&vec, tmp_line).into_iter().map(|l| l.name).collect();
    assert_eq!(live, ["acc0__tile", "tmp__tile", "m0__tile"]);
    assert!(f.blocks.iter().all(|b| !b.conflict));
}

#[test]
fn a_branch_inside_a_loop_and_a_tile_defined_in_the_loop() {
    let m = map();
    let f = function(&m, "branchy");
    let d = &boxed(f, "d__tile").tile;
    assert_eq!((d.live_end, d.end), (line_in("branchy", "pl.tile.add(acc__iter_v1, d__tile)"), d.live_end), "not held");
    assert_eq!(d.held_by, None);
    let acc = boxed(f, "a0__tile");
    for alias in ["f__tile", "ph__tile", "g__tile", "acc__rv_v2"] {
        assert!(acc.aliases.iter().any(|a| a == alias), "{alias} in {:?}", acc.aliases);
    }
    assert_eq!(acc.tile.live_end, line_in("branchy", "pl.tile.adds(acc__rv_v2"));
    assert!(m.findings.iter().all(|x| x.function.as_deref() != Some("branchy") || x.code != "short-lifetime"));
}

#[test]
fn a_read_past_the_compilers_lifetime_is_a_warning_and_drawn_to_the_read() {
    let m = map();
    let f = function(&m, "broken");
    let c = boxed(f, "c0__tile");
    let read = line_in("broken", "pl.tile.add(c__rv_v2");
    assert_eq!(c.tile.live_end, read, "drawn to the real read");
    let short: Vec<_> = m.findings.iter().filter(|x| x.code == "short-lifetime").collect();
    assert_eq!(short.len(), 1, "{:#?}", m.findings);
    let x = short[0];
    assert_eq!((x.severity, x.function.as_deref(), x.line), (Severity::Warning, Some("broken"), Some(read)));
    let ends = line_in("broken", "c__rv_v2: pl.Tile");
    assert!(x.message.contains("c__rv_v2") && x.message.contains(&format!("line {ends}")), "{}", x.message);
    assert!(x.message.contains("c__rv_v1"), "says why: {}", x.message);
    // z__tile is placed on those bytes after the compiler let them go: drawn as the conflict it is.
    assert!(boxed(f, "z__tile").conflict);
    assert!(m.findings.iter().any(|x| x.code == "conflict" && x.tiles.iter().any(|t| t == "z__tile")));
}

#[test]
fn every_box_in_the_json_has_live_end() {
    let m = map();
    let json = render_map(&m, &RenderOptions { format: Format::Json, ..RenderOptions::default() }).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let mut n = 0;
    for f in v["functions"].as_array().unwrap() {
        for b in f["boxes"].as_array().unwrap() {
            let (end, live) = (b["end"].as_u64().unwrap(), b["live_end"].as_u64().unwrap());
            assert!(live >= end, "{b}");
            n += 1;
        }
    }
    assert!(n > 20);
    let held = v["functions"][0]["boxes"].as_array().unwrap().iter().find(|b| b["name"] == "a__tile").unwrap();
    assert!(held["held_by"].as_u64().is_some(), "{held}");
}

#[test]
fn the_picture_draws_the_held_tail_and_the_tooltip_says_why() {
    let m = map();
    let svg =
        String::from_utf8(render_map(&m, &RenderOptions { format: Format::Svg, ..RenderOptions::default() }).unwrap())
            .unwrap();
    let header = line_in("for_loop", "for i__idx_v0 in pl.range(4)");
    let end = line_in("for_loop", "x__ssa_v2: pl.Tensor");
    assert!(svg.contains(&format!("held to line {end} by the loop at line {header}")), "tooltip");
    assert!(svg.contains(&format!("held by loop L{header}")), "the tail's own words");
    assert!(svg.contains("the compiler keeps the bytes"), "the legend says what it is");
}

#[test]
fn a_slotted_dump_from_before_allocation_is_the_bases_view() {
    let m = load(&common::fixtures().join("slots_reuse_case"), "MemoryReuse", None).unwrap();
    assert_eq!(m.addresses, pto_memory_map::model::Addresses::Unassigned);
    let f = &m.functions[0];
    assert!(f.blocks.iter().all(|b| !b.conflict), "{:#?}", f.blocks);
    assert!(m.findings.iter().all(|x| x.code != "conflict"), "{:#?}", m.findings);
    // Each base its own column: ub's two slots beside mem_vec_0's 16 KB, not on top of it.
    let s = &boxed(f, "s").tile;
    let lo = &boxed(f, "lo").tile;
    assert!(lo.offset >= s.stop() || s.offset >= lo.stop(), "s {:?} lo {:?}", (s.offset, s.size), (lo.offset, lo.size));
    let json = render_map(&m, &RenderOptions { format: Format::Json, ..RenderOptions::default() }).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["addresses"], "unassigned");
}

/// The peak's live list of every space: what is drawn (boxes and placed windows, no declared
/// allocation beside its slots), and its ranges' union is the peak's bytes.
fn check_live_lists(m: &MemoryMap, what: &str) {
    for f in &m.functions {
        let drawn: Vec<&str> = f.blocks.iter().map(|b| b.tile.name.as_str()).collect();
        for s in &f.spaces {
            let mut ranges: Vec<(i64, i64)> = Vec::new();
            for t in &s.peak.live {
                if t.reserved {
                    assert!(
                        f.reserved.iter().any(|r| r.name == t.name && r.offset == Some(t.offset)),
                        "{what} {}",
                        t.name
                    );
                } else {
                    assert!(drawn.contains(&t.name.as_str()), "{what} {} {}: {} is not drawn", f.name, s.space, t.name);
                }
                ranges.push((t.offset, t.offset + t.size));
            }
            ranges.sort_unstable();
            let (mut total, mut reach) = (0i64, i64::MIN);
            for (lo, hi) in ranges {
                let lo = lo.max(reach);
                if hi > lo {
                    total += hi - lo;
                    reach = hi;
                }
            }
            assert_eq!(total, s.peak.bytes, "{what} {} {}: live list {:?}", f.name, s.space, s.peak.live);
        }
    }
}

#[test]
fn peaks_count_reserved_windows_and_their_live_lists_add_up() {
    let m = load(&common::fixtures().join("reserve_windows.py"), "AllocateMemoryAddr", None).unwrap();
    let with_window =
        m.functions.iter().flat_map(|f| &f.spaces).filter(|s| s.peak.live.iter().any(|t| t.reserved)).count();
    assert!(with_window > 0, "a placed window is live on every line, so in the peak");
    for f in &m.functions {
        for s in &f.spaces {
            let windows: i64 =
                f.reserved.iter().filter(|r| r.space == s.space && r.offset.is_some()).map(|r| r.size).sum();
            assert!(
                s.peak.bytes >= windows,
                "{} {}: peak {} under its windows' {windows}",
                f.name,
                s.space,
                s.peak.bytes
            );
        }
    }
    for name in ["reserve_windows.py", "slots_pingpong.py", "lifetimes.py", "held_conflicts.py"] {
        let m = load(&common::fixtures().join(name), "AllocateMemoryAddr", None).unwrap();
        check_live_lists(&m, name);
    }
    for (path, m) in common::drawable_corpus_if_any() {
        check_live_lists(&m, &path.display().to_string());
    }
}

/// Union-find over names.
fn root(parent: &mut std::collections::HashMap<String, String>, name: &str) -> String {
    let mut at = name.to_string();
    while let Some(up) = parent.get(&at).filter(|up| **up != at) {
        at = up.clone();
    }
    at
}

fn join(parent: &mut std::collections::HashMap<String, String>, a: &str, b: &str) {
    let (x, y) = (root(parent, a), root(parent, b));
    if x != y {
        parent.insert(x, y);
    }
}

/// The identifiers in `text`.
fn names(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect()
}

/// The statement that starts on line `start` (1-based): up to the line where its brackets close.
fn statement(lines: &[&str], start: u32) -> String {
    let mut out = String::new();
    let mut depth = 0i32;
    for l in lines.iter().skip(start as usize - 1) {
        out.push_str(l);
        out.push('\n');
        depth += l
            .chars()
            .map(|c| match c {
                '(' | '[' | '{' => 1,
                ')' | ']' | '}' => -1,
                _ => 0,
            })
            .sum::<i32>();
        if depth <= 0 {
            break;
        }
    }
    out
}

/// The names a `pl.yield_` line binds and the names it yields: `a: pl.Tile[...] = pl.yield_(x)` or
/// `a, b = pl.yield_(x, y)`.
fn yield_pairs(line: &str) -> Vec<(String, String)> {
    let (Some(eq), Some(call)) = (line.find(" = "), line.find("pl.yield_(")) else { return Vec::new() };
    let lhs = &line[..eq];
    // A typed binding's annotation holds names too: the targets are before its colon.
    let targets = lhs.find(": ").map_or(lhs, |c| &lhs[..c]);
    let values = &line[call + "pl.yield_(".len()..];
    names(targets).into_iter().zip(names(values)).map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Pairs of names that are one value to the compiler before reuse, read from the loops: each
/// loop's carried names and their initial values (`for i, (a, b) in pl.range(..., init_values=(x,
/// y)):`, `for (a,) in pl.while_(init_values=(x,)):`), each carried name and the result the
/// loop's last `pl.yield_` binds for it, and each `pl.yield_`'s targets and values.
fn carried(lines: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let indent = |l: &str| l.len() - l.trim_start().len();
    for (h, raw) in lines.iter().enumerate() {
        let l = raw.trim();
        out.extend(yield_pairs(l));
        let (Some(rest), Some(at)) = (l.strip_prefix("for "), l.find("init_values=(")) else { continue };
        let target = &rest[..rest.find(" in ").unwrap_or(0)];
        let args = names(target.rfind('(').map_or("", |i| &target[i..]));
        let inits = &l[at + "init_values=(".len()..];
        let inits = &inits[..inits.find(')').unwrap_or(inits.len())];
        for (a, i) in args.iter().zip(names(inits)) {
            out.push((a.to_string(), i.to_string()));
        }
        // The body's last line: its yield binds the loop's results.
        let k = indent(raw);
        let last = lines[h + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || indent(l) > k)
            .filter(|l| !l.trim().is_empty())
            .last();
        for (a, (target, _)) in args.iter().zip(last.map(|l| yield_pairs(l.trim())).unwrap_or_default()) {
            out.push((a.to_string(), target));
        }
    }
    out
}

/// Checks the rule against what MemoryReuse did: two tiles it tracks that it put on one base must
/// not be held at once past a touching line, unless they are one allocation to the compiler before
/// reuse: related through a statement that defines one and reads the other (an in-place op, a
/// view, a yield), or through a loop's carried name and its initial value. Returns the pairs that
/// are held at once without such a relation.
fn overlapping_unrelated(text: &str, file: &str, checked: &mut usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let carried = carried(&lines);
    let mut bad = Vec::new();
    for f in pto_memory_map::dump::parse(text, file).unwrap_or_default() {
        let tiles = &f.tiles;
        let mut parent = std::collections::HashMap::new();
        for (arg, init) in &carried {
            join(&mut parent, arg, init);
        }
        let mut by_base: std::collections::HashMap<(&str, &str), Vec<usize>> = Default::default();
        for (i, t) in tiles.iter().enumerate() {
            by_base.entry((t.space.as_str(), t.base.as_str())).or_default().push(i);
        }
        for members in by_base.values() {
            let mine: std::collections::HashSet<&str> = members.iter().map(|&i| tiles[i].name.as_str()).collect();
            for &b in members {
                let stmt = statement(&lines, tiles[b].start);
                for n in names(&stmt) {
                    if mine.contains(n) || parent.contains_key(n) {
                        join(&mut parent, n, &tiles[b].name);
                    }
                }
            }
            for (k, &a) in members.iter().enumerate() {
                for &b in &members[k + 1..] {
                    let (ta, tb) = (&tiles[a], &tiles[b]);
                    let (Some(ea), Some(eb)) = (ta.compiler_end, tb.compiler_end) else { continue };
                    if root(&mut parent, &ta.name) == root(&mut parent, &tb.name) {
                        continue;
                    }
                    let bytes = ta.offset < tb.stop() && tb.offset < ta.stop();
                    *checked += usize::from(bytes);
                    let (first, second, end) = if ta.start <= tb.start { (ta, tb, ea) } else { (tb, ta, eb) };
                    if bytes && second.start < end {
                        bad.push(format!(
                            "{}: {} [{}, {end}] and {} from {} on {}",
                            f.name, first.name, first.start, second.name, second.start, first.base
                        ));
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn the_rule_agrees_with_where_memory_reuse_put_tiles() {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let mut checked = 0;
    assert_eq!(overlapping_unrelated(&text, "lifetimes.py", &mut checked), Vec::<String>::new());
    assert!(checked >= 2, "the fixture reuses bytes: {checked}");
    checked = 0;
    let Some(corpus) = common::corpus() else { return };
    let mut dumps = 0;
    let mut bad = Vec::new();
    let mut files = Vec::new();
    common::walk_py(&corpus, &mut files);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        dumps += 1;
        let found = overlapping_unrelated(&text, &path.display().to_string(), &mut checked);
        bad.extend(found.into_iter().map(|b| format!("{}: {b}", path.display())));
    }
    assert!(dumps >= 30, "{dumps}");
    // Hundreds of unrelated tiles MemoryReuse put on one base's bytes: the rule is put to the test.
    eprintln!("{checked} pairs of unrelated tiles on one base's bytes, in {dumps} dumps");
    assert!(checked >= 200, "{checked}");
    assert!(bad.is_empty(), "{} pairs:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn a_wasteful_placement_gets_its_packing_and_a_note() {
    let m = map();
    let f = function(&m, "wasteful");
    let vec = f.spaces.iter().find(|s| s.space == "Vec").unwrap();
    let p = vec.packing.as_ref().expect("a packing");
    assert_eq!((vec.hwm, p.bytes, p.lower_bound, p.proven_optimal), (16384, 8192, 8192, true));
    let at = |n: &str| p.placement.iter().find(|x| x.name == n).unwrap().offset;
    assert_eq!(at("u__tile"), at("v__tile"), "v takes u's bytes once u is dead");
    let notes: Vec<_> =
        m.findings.iter().filter(|x| x.code == "could-pack" && x.function.as_deref() == Some("wasteful")).collect();
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!((notes[0].function.as_deref(), notes[0].space.as_deref()), (Some("wasteful"), Some("Vec")));
    assert!(notes[0].message.contains("16 KB") && notes[0].message.contains("8 KB (optimal)"), "{}", notes[0].message);
    // The held range counts: for_loop's a__tile, held by its loop, cannot share with c__tile.
    let fl = function(&m, "for_loop").spaces.iter().find(|s| s.space == "Vec").unwrap();
    assert_eq!(fl.packing.as_ref().unwrap().bytes, fl.hwm);
}

/// Every space of every corpus map: a packing no larger than its high-water mark and no smaller
/// than its lower bound, placing every box of the space, none on another's bytes while both are held.
#[test]
fn every_corpus_space_packs_between_its_bound_and_its_hwm() {
    let mut maps = vec![(fixture(), map())];
    maps.extend(common::drawable_corpus_if_any());
    let mut spaces = 0;
    for (path, m) in &maps {
        for f in &m.functions {
            for s in &f.spaces {
                let Some(p) = &s.packing else { continue };
                let at = format!("{} {} {}", path.display(), f.name, s.space);
                let boxes: Vec<&Block> =
                    f.blocks.iter().filter(|b| b.tile.space == s.space && b.tile.size > 0).collect();
                // A placement with a conflict is no packing: the packer's may then need more.
                let valid = !boxes.iter().any(|b| b.conflict);
                assert!(
                    p.lower_bound <= p.bytes && (p.bytes <= s.hwm || !valid),
                    "{at}: {} {} {}",
                    p.lower_bound,
                    p.bytes,
                    s.hwm
                );
                for b in &boxes {
                    assert!(p.placement.iter().any(|x| x.name == b.tile.name), "{at}: {} not placed", b.tile.name);
                }
                let offset = |b: &Block| p.placement.iter().find(|x| x.name == b.tile.name).unwrap().offset;
                for (i, a) in boxes.iter().enumerate() {
                    for b in &boxes[i + 1..] {
                        // One unit (a base's overlapping boxes) moves together; others may not meet.
                        let same_unit = a.tile.base == b.tile.base
                            && a.tile.offset < b.tile.stop()
                            && b.tile.offset < a.tile.stop();
                        if same_unit || !a.tile.held_with(&b.tile) {
                            continue;
                        }
                        let (oa, ob) = (offset(a), offset(b));
                        assert!(
                            oa + a.tile.size <= ob || ob + b.tile.size <= oa,
                            "{at}: {} and {} meet",
                            a.tile.name,
                            b.tile.name
                        );
                    }
                }
                spaces += 1;
            }
        }
    }
    assert!(spaces >= 8, "{spaces}: the fixture alone has 8 packed spaces");
}

#[test]
fn an_if_in_an_else_branch_passes_the_outer_reads_to_its_values() {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let parsed = pto_memory_map::dump::parse(&text, "lifetimes.py").unwrap();
    let f = parsed.iter().find(|f| f.name == "nested_else").unwrap();
    let read = line_in("nested_else", "pl.tile.adds(r__tile");
    for name in ["a__tile", "b__tile", "d__tile"] {
        let t = f.tiles.iter().find(|t| t.name == name).unwrap();
        assert_eq!(t.compiler_end, Some(read), "{name}: the read of r__tile counts for it");
    }
}

/// A chain of `if`s, each passing the last one's result on in its else branch: credits are edges,
/// so four times the chain costs about four times the time, not sixteen.
#[test]
fn a_chain_of_results_costs_its_length() {
    let chain = |n: usize| {
        let mut t = String::from(
            "import pypto.language as pl\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x, c):\n",
        );
        let tile = |name: &str| format!("{name}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_0, 0, 64), pl.Mem.Vec]");
        t += &format!("        {} = pl.tile.load(x)\n", tile("r0"));
        for k in 1..n {
            t += &format!(
                "        if c:\n            {} = pl.tile.load(x)\n            {} = pl.yield_(a{k})\n        else:\n            {} = pl.yield_(r{})\n",
                tile(&format!("a{k}")),
                tile(&format!("r{k}")),
                tile(&format!("r{k}")),
                k - 1
            );
        }
        t += &format!("        y = pl.tile.adds(r{}, 1.0)\n        return y\n", n - 1);
        t
    };
    let time = |n: usize| {
        let text = chain(n);
        let started = std::time::Instant::now();
        let parsed = pto_memory_map::dump::parse(&text, "chain.py").unwrap();
        assert!(parsed[0].tiles.len() >= n, "{}", parsed[0].tiles.len());
        started.elapsed()
    };
    time(1000); // warm up
    let (small, large) = (time(2000), time(8000));
    let ratio = large.as_secs_f64() / small.as_secs_f64();
    assert!(ratio < 8.0, "2 000 ifs {small:?}, 8 000 ifs {large:?}: ratio {ratio:.1}");
}

/// An overflow says whether a placement of the same tiles would fit: two 100 KB tiles that never
/// live at once, placed one above the other past Vec's 184 KB, pack into 100 KB.
#[test]
fn an_overflow_says_whether_a_packing_would_fit() {
    let tile = |name: &str, base: &str, offset: i64| {
        format!(
            "        {name}: pl.Tile[[160, 160], pl.FP32, pl.MemRef({base}, {offset}, 102400), pl.Mem.Vec] = pl.tile.load(x)\n"
        )
    };
    let text = format!(
        "import pypto.language as pl\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n{}        y = pl.tile.store(a, x)\n        k = 1\n{}        z = pl.tile.store(b, x)\n        return x\n",
        tile("a", "mem_vec_0", 0),
        tile("b", "mem_vec_1", 102400)
    );
    let dump = pto_memory_map::Dump::from_bytes("o.py", text.into_bytes()).unwrap();
    let m = pto_memory_map::build(&dump, pto_memory_map::backend::choose(Some("Ascend910B"), None).unwrap()).unwrap();
    let over: Vec<_> = m.findings.iter().filter(|x| x.code == "overflow").collect();
    assert_eq!(over.len(), 1, "{:#?}", m.findings);
    assert!(over[0].message.ends_with("needs 100 KB and would fit"), "{}", over[0].message);
}
