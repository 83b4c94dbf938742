//! Memory under attack, measured as the process's peak resident set: this binary holds this one test,
//! so nothing else runs beside it and the peak is the attack's. Each input is generated here.

use pto_memory_map::{DiffFormat, Dump, Format, RenderOptions, ViewOptions, backend, build, render_diff, render_map};

/// A dump whose one function binds `n` tiles on `n` bases, each over most of the others' bytes and
/// all live at once at the end: every pair of tiles is a conflict.
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

/// The peak resident set of this process in bytes (`VmHWM`), where the system reports it.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
fn millions_of_conflicting_pairs_stay_within_300_mb() {
    // 2 000 tiles make 2 M conflicting pairs: one finding each took gigabytes before.
    let text = piled_tiles(2000);
    assert!(text.len() < 1 << 20);
    let map =
        build(&Dump::from_bytes("t.py", text.into_bytes()).unwrap(), backend::choose(None, None).unwrap()).unwrap();
    for format in [Format::Txt, Format::Json, Format::Svg] {
        let out = render_map(&map, &RenderOptions { format, ..Default::default() })
            .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        // Linear output: a few hundred bytes a tile.
        assert!(out.len() < 4 << 20, "{format:?}: {} bytes", out.len());
        if format == Format::Txt {
            let report = String::from_utf8_lossy(&out);
            assert!(report.contains("1998950 more pairs of tiles"), "the rest are counted");
        }
    }
    // A diff of two such maps (here the same one twice: building them is what cost).
    let other = &map;
    for format in [DiffFormat::Markdown, DiffFormat::Map(Format::Json)] {
        let out = render_diff(&map, other, format, &ViewOptions::default(), 1.0).unwrap();
        assert!(out.len() < 4 << 20, "diff {format:?}: {} bytes", out.len());
    }
    if let Some(peak) = peak_rss() {
        assert!(peak < 300 << 20, "peak resident set {} MB", peak >> 20);
    }
}
