//! The price of reuse on dumps written here, whose answers are known from how they were written:
//! which boxes hand bytes to which, the pipes of the accesses on both sides, the counts in the
//! JSON and the text report, the tooltip, and the packer's second aim.

mod common;

use pto_memory_map::model::{FunctionMap, Handovers, Pipe};
use pto_memory_map::render::txt;
use pto_memory_map::{Format, RenderOptions, render_map};

const HEAD: &str = "# pypto.program: t
import pypto.language as pl


@pl.program
class t:
";

/// `tile` in Vec at `base`/`offset`, 4 KB, bound to `value`.
fn vec(name: &str, base: &str, offset: i64, value: &str) -> String {
    format!(
        "        {name}: pl.Tile[[16, 64], pl.FP32, pl.MemRef({base}, pl.const({offset}, pl.INT64), 4096), pl.Mem.Vec] = \
         {value}\n"
    )
}

/// `name = pl.tile.store(tile, [0, 0], into)`, a tensor in DDR.
fn store(name: &str, tile: &str, into: &str) -> String {
    format!(
        "        {name}: pl.Tensor[[16, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 4096)] = \
         pl.tile.store({tile}, [0, 0], {into})\n"
    )
}

const X: &str = "x: pl.Tensor[[16, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 4096)]";
const LOAD: &str = "pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec, transpose=False)";

/// An AIV function: `a` is loaded (MTE2) and read by `pl.tile.exp` (V) into `b`; `c` is loaded on
/// `a`'s bytes (a cross-pipe handover, V -> MTE2); `d` is written by `pl.tile.add(b, c)` on `b`'s
/// bytes under another base (a same-pipe handover on the line of `b`'s last read, V -> V); `d` is
/// stored (MTE3), and `e`, filled by `pl.tile.full` (V), takes `c`'s bytes from the add (V -> V).
fn aiv() -> String {
    let mut s =
        format!("    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, {X}) -> pl.Tensor[[16, 64], pl.FP32]:\n");
    s += &vec("a", "mem_vec_0", 0, LOAD); // line 9
    s += &vec("b", "mem_vec_1", 4096, "pl.tile.exp(a)"); // 10
    s += &vec("c", "mem_vec_0", 0, LOAD); // 11
    s += &vec("d", "mem_vec_2", 4096, "pl.tile.add(b, c)"); // 12
    s += &store("y", "d", "x"); // 13
    s += &vec("e", "mem_vec_3", 0, "pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)"); // 14
    s += &store("z", "e", "y"); // 15
    s += "        return z\n";
    s
}

fn function(text: &str) -> FunctionMap {
    let map = common::map_of(text);
    map.functions.into_iter().next().unwrap()
}

fn handovers(f: &FunctionMap, space: &str) -> Handovers {
    f.spaces.iter().find(|s| s.space == space).unwrap().handovers.clone().unwrap()
}

#[test]
fn bytes_pass_and_their_pipes_are_told() {
    let text = format!("{HEAD}{}", aiv());
    let f = function(&text);
    let h = handovers(&f, "Vec");
    type Row<'a> = (&'a str, &'a str, u32, u32, Option<Pipe>, Option<Pipe>);
    let got: Vec<Row> =
        h.list.iter().map(|x| (&*x.from, &*x.to, x.from_line, x.line, x.from_pipe, x.to_pipe)).collect();
    assert_eq!(
        got,
        vec![
            // Cross-pipe first: exp (V) reads a last, the load of c (MTE2) takes its bytes.
            ("a", "c", 10, 11, Some(Pipe::V), Some(Pipe::Mte2)),
            // Then by line: the add reads b and writes d on one line, on one pipe.
            ("b", "d", 12, 12, Some(Pipe::V), Some(Pipe::V)),
            ("c", "e", 12, 14, Some(Pipe::V), Some(Pipe::V)),
        ]
    );
    assert_eq!((h.count, h.cross_pipe, h.left_off), (3, 1, 0));
    // d is stored (MTE3) and nothing takes its bytes after.
    let d = f.blocks.iter().find(|b| b.tile.name == "d").unwrap();
    assert!(d.handovers.gives.is_empty());
    assert_eq!(d.tile.accesses.last.as_ref().and_then(|a| a.pipe), Some(Pipe::Mte3));
}

#[test]
fn the_json_and_the_text_report_carry_them() {
    let text = format!("{HEAD}{}", aiv());
    let map = common::map_of(&text);
    let json: serde_json::Value = serde_json::to_value(&map).unwrap();
    let h = &json["functions"][0]["spaces"][0]["handovers"];
    assert_eq!(h["count"], 3);
    assert_eq!(h["cross_pipe"], 1);
    assert_eq!(h["list"][0]["from_pipe"], "V");
    assert_eq!(h["list"][0]["to_pipe"], "MTE2");
    assert_eq!(h["list"][0]["line"], 11);
    assert!(h.get("left_off").is_none(), "written only when something is left off");
    let report = txt::render(&map);
    let row = |cells: &[&str]| {
        report.lines().any(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).eq(cells.iter().copied()))
    };
    assert!(row(&["function", "space", "handovers", "cross-pipe"]), "{report}");
    assert!(row(&["f", "Vec", "3", "1"]), "{report}");
    assert!(row(&["f", "Vec", "L11", "a (L10)", "c", "V -> MTE2"]), "{report}");
}

#[test]
fn the_tooltip_says_where_bytes_come_from_and_go() {
    let text = format!("{HEAD}{}", aiv());
    let map = common::map_of(&text);
    let svg = render_map(&map, &RenderOptions { format: Format::Svg, ..Default::default() }).unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert!(svg.contains("takes the bytes of a: V L10 → MTE2 L11, cross-pipe sync"), "{svg}");
    assert!(svg.contains("hands its bytes to c: V L10 → MTE2 L11, cross-pipe sync"), "{svg}");
    assert!(svg.contains("takes the bytes of b: V L12 → V L12, same pipe"), "{svg}");
}

/// A cube function: Mat is loaded (MTE2) and read into Left and Right (MTE1), multiplied (M) into
/// Acc, which is moved out (FIX); a second load takes the first's Mat bytes after the extracts
/// (MTE1 -> MTE2), and the second Left the first's (M -> MTE1, the matmul read it last).
#[test]
fn cube_pipes() {
    let tile = |name: &str, space: &str, base: &str, off: i64, value: &str| {
        format!(
            "        {name}: pl.Tile[[16, 16], pl.BF16, pl.MemRef({base}, pl.const({off}, pl.INT64), 512), pl.Mem.{space}] = {value}\n"
        )
    };
    let mut s = format!(
        "{HEAD}    @pl.function(type=pl.FunctionType.AIC)\n    def g(self, {X}) -> pl.Tensor[[16, 64], pl.FP32]:\n"
    );
    let load = "pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat, transpose=False)";
    s += &tile("m0", "Mat", "mem_mat_0", 0, load); // 9
    s += &tile("l0", "Left", "mem_left_0", 0, "pl.tile.extract(m0, 0, 0, [16, 16], target_memory=pl.Mem.Left)"); // 10
    s += &tile("r0", "Right", "mem_right_0", 0, "pl.tile.extract(m0, 0, 0, [16, 16], target_memory=pl.Mem.Right)"); // 11
    s += &tile("c0", "Acc", "mem_acc_0", 0, "pl.tile.matmul(l0, r0)"); // 12
    s += &tile("m1", "Mat", "mem_mat_0", 0, load); // 13
    s += &tile("l1", "Left", "mem_left_0", 0, "pl.tile.extract(m1, 0, 0, [16, 16], target_memory=pl.Mem.Left)"); // 14
    s += &tile("c1", "Acc", "mem_acc_1", 512, "pl.tile.matmul(l1, r0)"); // 15
    s += "        y: pl.Tensor[[16, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c0, [0, 0], x)\n"; // 16
    s += "        z: pl.Tensor[[16, 64], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c1, [0, 0], y)\n"; // 17
    s += "        return z\n";
    let f = function(&s);
    let one = |space: &str| {
        let h = handovers(&f, space);
        h.list.iter().map(|x| (x.from.to_string(), x.to.to_string(), x.from_pipe, x.to_pipe)).collect::<Vec<_>>()
    };
    assert_eq!(one("Mat"), vec![("m0".into(), "m1".into(), Some(Pipe::Mte1), Some(Pipe::Mte2))]);
    assert_eq!(one("Left"), vec![("l0".into(), "l1".into(), Some(Pipe::M), Some(Pipe::Mte1))]);
    assert!(one("Right").is_empty() && one("Acc").is_empty());
    let c0 = f.blocks.iter().find(|b| b.tile.name == "c0").unwrap();
    assert_eq!(c0.tile.accesses.last.as_ref().and_then(|a| a.pipe), Some(Pipe::Fix));
}

/// Over a long chain the count stays exact while the list stops at 100.
#[test]
fn the_list_is_bounded_and_the_count_exact() {
    let mut s = format!(
        "{HEAD}    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, {X}) -> pl.Tensor[[16, 64], pl.FP32]:\n"
    );
    // 300 loads, each read by an exp: load k+1 takes load k's bytes once its exp has read it.
    for k in 0..300 {
        s += &vec(&format!("a{k}"), &format!("mem_vec_{k}"), 0, LOAD);
        s += &vec(&format!("b{k}"), "mem_vec_x", 4096 * (1 + k % 2), &format!("pl.tile.exp(a{k})"));
    }
    s += "        return x\n";
    let f = function(&s);
    let h = handovers(&f, "Vec");
    // a(k) -> a(k+1) (V -> MTE2) 299 times; b(k) -> b(k+2) (V -> V) 298 times.
    assert_eq!((h.count, h.cross_pipe), (597, 299));
    assert_eq!((h.list.len(), h.left_off), (100, 497));
    assert!(h.list.iter().all(|x| x.cross_pipe()), "cross-pipe ones come first");
}

/// The packer keeps the peak and, at that peak, hands bytes across pipes no more than the
/// compiler did; here it does better. `k` holds a third of the space throughout; `a` is last read
/// by a store (MTE3), `b` by an add (V); then `c` is written by an exp (V) and `d` by a load (MTE2).
/// The compiler put `c` on `a`'s bytes and `d` on `b`'s: two cross-pipe handovers, where `c` on
/// `b`'s and `d` on `a`'s make one.
#[test]
fn the_packer_prefers_fewer_cross_pipe_handovers() {
    let mut s = format!(
        "{HEAD}    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, {X}) -> pl.Tensor[[16, 64], pl.FP32]:\n"
    );
    s += &vec("k", "mem_k", 8192, LOAD); // 9
    s += &vec("a", "mem_a", 0, LOAD); // 10
    s += &vec("b", "mem_b", 4096, LOAD); // 11
    s += &store("y", "a", "x"); // 12
    s += &vec("k1", "mem_k", 8192, "pl.tile.add(k, b)"); // 13
    s += &vec("c", "mem_c", 0, "pl.tile.exp(k1)"); // 14
    s += &vec("d", "mem_d", 4096, LOAD); // 15
    s += &store("w", "c", "y"); // 16
    s += &store("v", "d", "w"); // 17
    s += &store("u", "k1", "v"); // 18
    s += "        return u\n";
    let f = function(&s);
    let vec_space = f.spaces.iter().find(|s| s.space == "Vec").unwrap();
    let h = vec_space.handovers.as_ref().unwrap();
    let pairs: Vec<(&str, &str)> = h.list.iter().map(|x| (&*x.from, &*x.to)).collect();
    assert_eq!(pairs, vec![("a", "c"), ("b", "d")]);
    assert_eq!((h.count, h.cross_pipe), (2, 2));
    let p = vec_space.packing.as_ref().unwrap();
    assert_eq!((p.bytes, vec_space.hwm), (12288, 12288));
    assert_eq!(p.cross_pipe, 1, "{p:?}");
    let at = |n: &str| p.placement.iter().find(|x| x.name == n).unwrap().offset;
    assert_eq!(at("c"), at("b"));
    assert_eq!(at("d"), at("a"));
}

/// On every dump at hand (the fixtures and the corpus), each space's handovers agree with a brute
/// force over its boxes (where no two boxes conflict): box `b` takes bytes from the boxes that,
/// among those over before `b` begins, were the last over some byte of it. The JSON's figures hold
/// together, and the packing at the compiler's bytes never crosses pipes more often.
#[test]
fn the_sweep_agrees_with_brute_force_on_every_dump() {
    let mut spaces = 0;
    for (path, map) in common::drawable_dumps() {
        for f in &map.functions {
            for s in &f.spaces {
                let Some(h) = &s.handovers else { continue };
                assert!(h.cross_pipe <= h.count && h.list.len() == h.count.min(100), "{path:?}");
                assert_eq!(h.left_off, h.count - h.list.len());
                if let Some(p) = s.packing.as_ref().filter(|p| p.bytes == s.hwm) {
                    assert!(p.cross_pipe <= h.cross_pipe, "{path:?} {} {}: {p:?}", f.name, s.space);
                }
                let boxes: Vec<_> = f
                    .blocks
                    .iter()
                    .filter(|b| b.tile.space == s.space && !b.view && b.tile.size > 0 && b.tile.offset >= 0)
                    .collect();
                if boxes.iter().any(|b| b.conflict) {
                    continue;
                }
                let mut count = 0;
                for b in &boxes {
                    let begin = b.tile.held_span().0;
                    let mut before: Vec<_> = boxes
                        .iter()
                        .filter(|a| a.tile.held_span().1 < begin)
                        .filter(|a| a.tile.offset < b.tile.stop() && b.tile.offset < a.tile.stop())
                        .collect();
                    // The latest over first (the widest on a tie): each claims what is still unclaimed.
                    before.sort_by_key(|a| std::cmp::Reverse((a.tile.held_span().1, a.tile.size)));
                    let mut unclaimed = vec![(b.tile.offset, b.tile.stop())];
                    for a in before {
                        let (lo, hi) = (a.tile.offset, a.tile.stop());
                        let hit = unclaimed.iter().any(|&(x, y)| x < hi && lo < y);
                        if hit {
                            count += 1;
                            unclaimed = unclaimed
                                .into_iter()
                                .flat_map(|(x, y)| [(x, y.min(lo)), (x.max(hi), y)])
                                .filter(|(x, y)| x < y)
                                .collect();
                        }
                    }
                }
                assert_eq!(h.count, count, "{path:?} {} {}", f.name, s.space);
                spaces += 1;
            }
        }
    }
    assert!(spaces >= 10, "{spaces}");
}
