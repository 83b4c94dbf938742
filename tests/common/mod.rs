//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod reference;

use pto_memory_map::model::MemoryMap;
use pto_memory_map::{Dump, backend, build};

/// Where the shared corpus of real dumps would be: `$PMM_CORPUS`, else `../shared/corpus` beside the
/// repository.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("PMM_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    }
}

/// The shared corpus, or `None` when this checkout has none beside it; then the calling test returns
/// early and says so (see [`skipped`]).
pub fn corpus() -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.is_dir() {
        return Some(dir);
    }
    skipped(&format!("corpus not found at {} (set PMM_CORPUS)", dir.display()));
    None
}

/// Says that the running test could not run and why, as one `skipped: TEST: REASON` line on stderr,
/// past the harness's capture so it shows in a passing run; `scripts/test_summary.py` counts these
/// lines, so a test that cannot run is never counted as one that passed.
pub fn skipped(reason: &str) {
    use std::io::Write;
    let current = std::thread::current();
    let test = current.name().unwrap_or("a test");
    // One write of the whole line: a pipe keeps it whole even as libtest writes beside it.
    let _ = std::io::stderr().write_all(format!("skipped: {test}: {reason}\n").as_bytes());
}

/// The project's own small dumps, in the repository.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_case")
}

/// Every dump under the corpus that has something to draw, with its map; empty without a corpus.
pub fn drawable_corpus() -> Vec<(PathBuf, MemoryMap)> {
    let Some(corpus) = corpus() else { return Vec::new() };
    let maps = drawable_under(&corpus);
    assert!(maps.len() >= 30, "only {} drawable dumps under {}", maps.len(), corpus.display());
    maps
}

/// The corpus's drawable dumps as further cases of a test that runs on fixtures anyway: empty, and
/// nothing said, without a corpus (the test still ran).
pub fn drawable_corpus_if_any() -> Vec<(PathBuf, MemoryMap)> {
    if !corpus_dir().is_dir() {
        return Vec::new();
    }
    drawable_corpus()
}

/// Every `fx_*` fixture dump that has something to draw, with its map (other fixtures belong to
/// the tests that name them).
pub fn drawable_fixtures() -> Vec<(PathBuf, MemoryMap)> {
    let maps: Vec<_> = drawable_under(&fixtures())
        .into_iter()
        .filter(|(p, _)| p.strip_prefix(fixtures()).is_ok_and(|r| r.to_string_lossy().starts_with("fx_")))
        .collect();
    assert!(maps.len() >= 4, "only {} drawable fixtures under {}", maps.len(), fixtures().display());
    maps
}

/// The drawable dumps of the corpus and the fixtures: what property tests run over.
pub fn drawable_dumps() -> Vec<(PathBuf, MemoryMap)> {
    let mut all = drawable_fixtures();
    all.extend(drawable_corpus_if_any());
    all
}

fn drawable_under(dir: &Path) -> Vec<(PathBuf, MemoryMap)> {
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|p| pto_memory_map::load(&p, "AllocateMemoryAddr", None).ok().map(|m| (p, m)))
        .collect()
}

/// Every `.py` file under `dir`, recursively.
pub fn walk_py(dir: &Path, out: &mut Vec<PathBuf>) {
    walk(dir, out);
    out.sort();
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

/// A dump of `n` functions of four tiles each: small (it compresses well), with an output of many
/// parts and a picture many times its size.
pub fn many_functions(n: usize) -> String {
    let mut text = String::from("import pypto.language as pl\n\n@pl.program\nclass p:\n");
    for f in 0..n {
        text.push_str(&format!("    @pl.function(type=pl.FunctionType.AIV)\n    def f{f}(self, x):\n"));
        for i in 0..4 {
            text.push_str(&format!(
                "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {}, 64), pl.Mem.Vec] = pl.tile.load(x)\n",
                i * 64
            ));
        }
        text.push_str("        return t0\n");
    }
    text
}

/// A map's JSON without the one thing that differs from run to run: how long each packing took.
pub fn without_times(mut map: serde_json::Value) -> serde_json::Value {
    for f in map["functions"].as_array_mut().into_iter().flatten() {
        for s in f["spaces"].as_array_mut().into_iter().flatten() {
            if let Some(p) = s.get_mut("packing").and_then(|p| p.as_object_mut()) {
                p.remove("ms");
            }
        }
    }
    map
}

/// The map of a dump given as text.
pub fn map_of(text: &str) -> MemoryMap {
    build(&Dump::from_bytes("t.py", text.as_bytes().to_vec()).unwrap(), backend::choose(None, None).unwrap()).unwrap()
}

/// A small deterministic generator (xorshift), so "random" maps are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A dump with `functions` AIV/AIC functions of random tiles in random spaces, some of them unknown.
pub fn random_dump(rng: &mut Rng, functions: usize) -> String {
    let spaces = ["Vec", "Mat", "Left", "Right", "Acc", "Bias", "LeftScale", "Mystery"];
    let mut text = String::from("import pypto.language as pl\n@pl.program\nclass g:\n");
    for f in 0..functions {
        text += &format!("    @pl.function(type=pl.FunctionType.AIV)\n    def f{f}(self):\n");
        let tiles = 1 + rng.below(12);
        let mut names = Vec::new();
        for t in 0..tiles {
            let space = spaces[rng.below(spaces.len() as u64) as usize];
            let size = 32 << rng.below(12);
            let offset = 32 * rng.below(4096);
            let base = rng.below(3);
            let name = format!("t{t}");
            text += &format!(
                "        {name}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_{base}, {offset}, {size}), pl.Mem.{space}] = pl.tile.load(x)\n"
            );
            if let Some(prev) = names.get(rng.below(names.len() as u64 + 1) as usize) {
                text += &format!("        y = pl.tile.add({prev}, {name})\n");
            }
            names.push(name);
        }
        text += "        return\n";
    }
    text
}

/// A folder under the system temp dir, fresh and empty, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new folder named after `tag`, the process and a serial number (tests run in parallel).
    pub fn new(tag: &str) -> TempDir {
        static SERIAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("pmm-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The value of attribute `name` in an SVG or HTML tag's text, as written.
pub fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let pat = format!(" {name}=\"");
    let at = tag.find(&pat)? + pat.len();
    tag[at..].split('"').next()
}

/// [`attr`] as a number; a test's failure where there is none.
pub fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {}", &tag[..tag.len().min(200)]))
}
