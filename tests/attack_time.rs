//! Work under attack stops at the run's deadline: the service gives up on a render at its timeout,
//! and the render must then stop, not run on for a minute holding a thread and its memory.

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
fn a_page_of_thousands_of_live_tiles_stops_at_the_deadline() {
    let map =
        build(&Dump::from_bytes("t.py", piled_tiles(2000).into_bytes()).unwrap(), backend::choose(None, None).unwrap())
            .unwrap();
    // The page's live lists cost lines x live tiles here: far longer than the deadline.
    let started = Instant::now();
    let budget = Budget { deadline: Some(started + Duration::from_millis(500)), ..Budget::default() };
    let err = budget::run(budget, || render_map(&map, &RenderOptions { format: Format::Html, ..Default::default() }))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Cancelled, "{err}");
    assert!(started.elapsed() < Duration::from_secs(4), "stopped only after {:?}", started.elapsed());
}
