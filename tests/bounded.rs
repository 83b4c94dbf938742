//! Bounded work: every input finishes or is refused, in bounded time and memory (issue 16). Each
//! test generates its input; none is committed.

use std::time::{Duration, Instant};

use pto_memory_map::{Dump, ErrorKind, Format, RenderOptions, backend, build, render_bytes, render_map};

/// A valid dump whose one AIV function binds `n` tiles, each live for a line or two.
pub fn many_tiles(n: usize) -> String {
    let mut text = String::from(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n",
    );
    for i in 0..n {
        let offset = (i % 2048) * 64;
        text.push_str(&format!(
            "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {offset}, 64), pl.Mem.Vec] = pl.tile.load(x)\n"
        ));
    }
    text.push_str("        return x\n");
    text
}

fn svg_of(text: &str) -> pto_memory_map::Result<Vec<u8>> {
    render_bytes("t.py", text.as_bytes().to_vec(), &RenderOptions { format: Format::Svg, ..Default::default() })
}

fn timed(text: &str) -> Duration {
    let started = Instant::now();
    let map = build(&Dump::from_bytes("t.py", text.as_bytes().to_vec()).unwrap(), backend::choose(None, None).unwrap())
        .unwrap();
    render_map(&map, &RenderOptions { format: Format::Svg, ..Default::default() }).unwrap();
    started.elapsed()
}

#[test]
fn a_hundred_thousand_tiles_render_in_linear_time() {
    let (small, large) = (many_tiles(25_000), many_tiles(100_000));
    timed(&small); // warm up the allocator and the font
    let (t_small, t_large) = (timed(&small), timed(&large));
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    // Four times the tiles: linear is about 4, quadratic 16.
    assert!(ratio < 8.0, "25k tiles {t_small:?}, 100k tiles {t_large:?}: ratio {ratio:.1}");
    assert!(t_large < Duration::from_secs(30), "100k tiles took {t_large:?}");
}
