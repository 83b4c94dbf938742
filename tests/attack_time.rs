//! Work under attack stops at the run's deadline: the service gives up on a render at its timeout,
//! and the render must then stop, not run on for a minute holding a thread and its memory.

mod common;

use std::time::{Duration, Instant};

use pto_memory_map::budget::{self, Budget};
use pto_memory_map::{Dump, ErrorKind, Format, RenderOptions, backend, build, render_map};

/// `n` tiles on `n` bases over one range, all live together to the end (see `attack_memory.rs`).
fn piled_tiles(n: usize) -> String {
    let mut text = String::from(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n",
    );
    for i in 0..n {
        text.push_str(&format!(
            "        t{i}: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_{i}, {}, 16384), pl.Mem.Vec] = pl.tile.load(x)\n",
            i * 2
        ));
    }
    let all: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    text.push_str(&format!("        y = pl.tile.add({})\n        return y\n", all.join(", ")));
    text
}

#[test]
fn a_page_of_thousands_of_live_tiles_costs_their_changes_and_stops_at_the_deadline() {
    let map =
        build(&Dump::from_bytes("t.py", piled_tiles(2000).into_bytes()).unwrap(), backend::choose(None, None).unwrap())
            .unwrap();
    // The live lists' figures are found where the live set changes, not at every line for every
    // live tile (which took 23 s here in a debug build): the page is made in a few seconds.
    let started = Instant::now();
    let page = render_map(&map, &RenderOptions { format: Format::Html, ..Default::default() }).unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(if cfg!(debug_assertions) { 8 } else { 2 }), "the page took {took:?}");
    assert!(page.len() < 8 << 20, "{} bytes", page.len());
    // Past its deadline, the page is not made at all.
    let started = Instant::now();
    let budget = Budget { deadline: Some(started), ..Budget::default() };
    let err = budget::run(budget, || render_map(&map, &RenderOptions { format: Format::Html, ..Default::default() }))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Cancelled, "{err}");
    assert!(started.elapsed() < Duration::from_secs(2), "stopped only after {:?}", started.elapsed());
}

#[test]
fn every_format_stops_building_at_the_output_limit() {
    let map = build(
        &Dump::from_bytes("t.py", common::many_functions(400).into_bytes()).unwrap(),
        backend::choose(None, None).unwrap(),
    )
    .unwrap();
    for format in [Format::Txt, Format::Json, Format::Svg, Format::Html] {
        let whole = render_map(&map, &RenderOptions { format, ..Default::default() }).unwrap().len();
        let limit = whole / 16;
        let budget =
            Budget { limits: budget::Limits { output_bytes: limit, ..Default::default() }, ..Budget::default() };
        let err =
            budget::run(budget, || render_map(&map, &RenderOptions { format, ..Default::default() })).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OverLimit, "{format:?}: {err}");
        // What was built before the refusal is about the limit (a part past it), not the whole.
        let pto_memory_map::error::Detail::OverLimit { count, .. } = *err.detail else { panic!("{format:?}: {err:?}") };
        assert!(count > limit && count < whole / 2, "{format:?}: {count} bytes built of {whole}");
    }
}

/// One function of `n` statements, each one of two operations picked by `seed`: two of these share
/// no line of text, and every statement key with half the other's lines.
fn long_function(seed: u64, n: usize, ops: [&str; 2]) -> String {
    let mut text = String::from(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n",
    );
    let mut state = seed;
    for i in 0..n {
        // A xorshift step: any sequence of the two operations will do, as long as the two differ.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let op = ops[(state & 1) as usize];
        text.push_str(&format!(
            "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{}, {}, 64), pl.Mem.Vec] = pl.tile.{op}(x)\n",
            i % 7,
            64 * (i % 50)
        ));
    }
    text.push_str("        return x\n");
    text
}

#[test]
fn a_diff_of_two_long_unlike_functions_stops_at_the_deadline() {
    let map = |text: String| {
        build(&Dump::from_bytes("t.py", text.into_bytes()).unwrap(), backend::choose(None, None).unwrap()).unwrap()
    };
    let (old, new) = (map(long_function(1, 30_000, ["add", "mul"])), map(long_function(7, 30_000, ["sub", "exp"])));
    let started = Instant::now();
    let budget = Budget { deadline: Some(started + Duration::from_millis(50)), ..Budget::default() };
    let md = pto_memory_map::DiffFormat::Markdown;
    let err = budget::run(budget, || {
        pto_memory_map::render_diff(&old, &new, md, &pto_memory_map::ViewOptions::default(), 1.0)
    })
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Cancelled, "{err}");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "stopped only after {took:?}");
}

/// One function: `windows` reserved windows and `tiles` tiles, every window over every tile (the
/// windows live over the whole function); each tile in its own slotted allocation when `slotted`.
fn windows_over_tiles(windows: usize, tiles: usize, slotted: bool) -> String {
    let mut text = String::from(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n",
    );
    for i in 0..windows {
        text.push_str(&format!(
            "        w{i}: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='w{i}', size=1024, base=0)\n"
        ));
    }
    for i in 0..tiles {
        if slotted {
            text.push_str(&format!("        m{i}: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)\n"));
            text.push_str(&format!(
                "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(m{i}, {}, 64, slots=2)[0], pl.Mem.Vec] = pl.tile.load(x)\n",
                (i % 8) * 4
            ));
        } else {
            text.push_str(&format!(
                "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {}, 64), pl.Mem.Vec] = pl.tile.load(x)\n",
                (i % 64) * 16
            ));
        }
    }
    // All tiles live together to the end, used a thousand at a time (a statement's tokens are bounded).
    for (k, chunk) in (0..tiles).collect::<Vec<_>>().chunks(1000).enumerate() {
        let names: Vec<String> = chunk.iter().map(|i| format!("t{i}")).collect();
        text.push_str(&format!("        y{k} = pl.tile.add({})\n", names.join(", ")));
    }
    text.push_str("        return x\n");
    text
}

/// Windows over tiles, and tiles each in an allocation of its own piled together: what the held
/// bytes check, the findings and the drawing cost grows with their count, not with their pairs
/// (8 000 windows over 8 000 tiles were 64 million pairs visited and a 470 MB SVG of hatching;
/// the same at 40 000 took 45 s and past 4 GB).
#[test]
fn windows_over_tiles_and_piled_allocations_cost_their_count_not_their_pairs() {
    let limit = Duration::from_secs(if cfg!(debug_assertions) { 40 } else { 5 });
    for (what, text) in
        [("windows", windows_over_tiles(8000, 8000, false)), ("allocations", windows_over_tiles(0, 16_000, true))]
    {
        let started = Instant::now();
        let map =
            build(&Dump::from_bytes("w.py", text.into_bytes()).unwrap(), backend::choose(None, None).unwrap()).unwrap();
        let svg = render_map(&map, &RenderOptions { format: Format::Svg, ..Default::default() }).unwrap();
        let took = started.elapsed();
        assert!(took < limit, "{what}: {took:?}");
        assert!(svg.len() < 64 << 20, "{what}: {} bytes of SVG", svg.len());
        let held = map.functions[0].blocks.iter().filter(|b| b.conflict).count();
        assert!(held > 0, "{what}: the held tiles are drawn as conflicts");
    }
}
