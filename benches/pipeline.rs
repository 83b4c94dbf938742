//! Timings of the pipeline stages on the largest real dump: `cargo bench --bench pipeline`.
//!
//! A plain timing loop (median of repeated runs) rather than a benchmark framework: the figures are
//! for the closing notes and README, and the project keeps its dependency tree small.

use std::path::Path;
use std::time::{Duration, Instant};

use pto_memory_map::{Dump, backend, build, render};

fn median(mut f: impl FnMut(), runs: usize) -> Duration {
    f(); // warm up
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn report(what: &str, t: Duration, bytes: usize) {
    let ms = t.as_secs_f64() * 1e3;
    let mbps = bytes as f64 / 1e6 / t.as_secs_f64();
    println!("{what:<28} {ms:>9.2} ms {mbps:>9.1} MB/s");
}

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py");
    let dump = Dump::open(&path, "AllocateMemoryAddr").expect("corpus dump");
    let bytes = dump.text.len();
    println!("{} ({} bytes)", dump.name, bytes);
    let choice = backend::choose(None, dump.path.as_deref()).unwrap();

    let parse = median(|| drop(ruff_python_parser::parse_module(&dump.text).unwrap()), 21);
    report("parse only (ruff)", parse, bytes);
    let walk = median(|| drop(pto_memory_map::dump::parse(&dump.text, &dump.name).unwrap()), 21);
    report("parse + tile walk", walk, bytes);
    let to_json = median(|| drop(render::json::render(&build(&dump, choice.clone()).unwrap())), 21);
    report("dump to JSON", to_json, bytes);
    println!("dump-to-JSON / parse-only: {:.2}x", to_json.as_secs_f64() / parse.as_secs_f64());
}
