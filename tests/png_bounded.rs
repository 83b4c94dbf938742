//! A PNG too large is known to be so before any drawing: a tile live across 240 000 lines is
//! refused (one function asked for) or drawn as the digest (the whole dump) at once, in bounded
//! memory. Alone in its test binary, so the process's peak memory is this test's.

use std::time::{Duration, Instant};

use pto_memory_map::plan::ViewOptions;
use pto_memory_map::{ErrorKind, Format, RenderOptions, render_bytes};

/// The process's peak resident memory so far, in bytes (Linux; `None` elsewhere).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
}

#[test]
fn a_tile_live_across_240k_lines_is_refused_or_digested_at_once() {
    // 3.1 MB: a tile bound on the first line and returned on the last.
    let text = format!(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n        a: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_0, 0, 64), pl.Mem.Vec] = pl.tile.load(x)\n{}        return a\n",
        "        # pass\n".repeat(240_000)
    );
    assert!(text.len() > 3_000_000);
    let png = |functions: Vec<String>| RenderOptions {
        format: Format::Png,
        scale: 2.0,
        view: ViewOptions { functions, ..Default::default() },
        ..Default::default()
    };
    let before = peak_rss();
    let started = Instant::now();
    let err = render_bytes("t.py", text.clone().into_bytes(), &png(vec!["f".into()])).unwrap_err();
    let refused = started.elapsed();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{err}");
    let cli = pto_memory_map::option_table::describe(&err, pto_memory_map::option_table::Shell::Cli);
    assert!(cli.contains("would be at least") && cli.contains("--scale 1"), "{cli}");
    let started = Instant::now();
    let digest = render_bytes("t.py", text.into_bytes(), &png(Vec::new())).unwrap();
    let digested = started.elapsed();
    assert!(digest.starts_with(b"\x89PNG"));
    // Reading the dump is most of it; an unoptimized build reads it some times slower.
    let bound = Duration::from_secs(if cfg!(debug_assertions) { 10 } else { 2 });
    assert!(refused < bound && digested < bound, "refused after {refused:?}, digest after {digested:?}");
    if let (Some(before), Some(after)) = (before, peak_rss()) {
        let grown = after.saturating_sub(before);
        assert!(grown < 300 << 20, "the process grew by {} MiB", grown >> 20);
    }
}
