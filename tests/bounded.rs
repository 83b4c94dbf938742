//! Bounded work: every input finishes or is refused, in bounded time and memory. Each
//! test generates its input; none is committed.

mod common;

use std::time::{Duration, Instant};

use pto_memory_map::budget::{self, Budget, Limits};
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

fn map_of(text: &str) -> pto_memory_map::Result<pto_memory_map::MemoryMap> {
    build(&Dump::from_bytes("t.py", text.as_bytes().to_vec()).unwrap(), backend::choose(None, None).unwrap())
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

/// A dump with one AIV function whose body is `body` (8-space indented lines).
fn one_function(body: &str) -> String {
    format!(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n        a: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_0, 0, 64), pl.Mem.Vec] = pl.tile.load(x)\n{body}        return a\n"
    )
}

fn refusal(text: &str) -> pto_memory_map::Error {
    let started = Instant::now();
    let err = svg_of(text).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10), "refused only after {:?}", started.elapsed());
    err
}

/// The error as the command line words it.
fn cli(err: &pto_memory_map::Error) -> String {
    pto_memory_map::option_table::describe(err, pto_memory_map::option_table::Shell::Cli)
}

#[test]
fn long_unary_chains_are_refused_before_parsing() {
    // The reproducer: 128 lines of `x = ------...1`, 3.3 GB and 17 s before. Now a refusal at the first.
    let line = format!("        x = {}1\n", "-".repeat(255 * 1024));
    let err = refusal(&one_function(&line.repeat(128)));
    assert_eq!(err.kind, ErrorKind::OverLimit);
    assert!(err.to_string().starts_with("t.py:8:1: tokens in one statement"), "{err}");
    assert!(cli(&err).contains("--max-statement-tokens"), "{err}");
}

#[test]
fn a_function_of_millions_of_lines_is_refused() {
    // A million comment lines are over the line limit of a function.
    let err = refusal(&one_function(&format!("#\n{}", "#\n".repeat(1_000_000))));
    assert_eq!(err.kind, ErrorKind::OverLimit);
    assert!(err.to_string().contains("lines in function f") && cli(&err).contains("--max-lines"), "{err}");
    // The reproducer's 16 M (a 780 MB SVG and a 5.1 GB peak before) are refused before parsing.
    let err = refusal(&one_function(&"#\n".repeat(16_000_000)));
    assert_eq!(err.kind, ErrorKind::OverLimit);
    assert!(err.to_string().contains("tokens in one function") && cli(&err).contains("--max-tokens"), "{err}");
}

#[test]
fn tiles_per_function_and_output_bytes_have_limits() {
    let text = many_tiles(50);
    let limits = |l: Limits| Budget { limits: l, ..Budget::default() };
    let err =
        budget::run(limits(Limits { tiles_per_function: 10, ..Limits::default() }), || svg_of(&text)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::OverLimit);
    assert!(err.to_string().contains("tiles in function f: 50 is over the limit of 10"), "{err}");
    assert!(cli(&err).contains("--max-tiles"), "{err}");
    let err = budget::run(limits(Limits { output_bytes: 1000, ..Limits::default() }), || svg_of(&text)).unwrap_err();
    assert!(err.to_string().contains("bytes of output") && cli(&err).contains("--max-output-bytes"), "{err}");
    // The service names no flag: its operator sets the limits.
    assert!(!pto_memory_map::option_table::describe(&err, pto_memory_map::option_table::Shell::Http).contains("--"));
    assert!(svg_of(&text).is_ok(), "the defaults take it");
}

#[test]
fn a_run_past_its_deadline_stops() {
    let text = many_tiles(2_000);
    let past = Budget { deadline: Some(Instant::now()), ..Budget::default() };
    assert_eq!(budget::run(past, || svg_of(&text)).unwrap_err().kind, ErrorKind::Cancelled);
}

#[test]
fn memref_numbers_are_read_or_refused_at_their_place() {
    let tile = |offset: &str, size: &str| {
        format!(
            "        b: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_1, {offset}, {size}), pl.Mem.Vec] = pl.tile.load(x)\n"
        )
    };
    let col = "        b: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_1, ".len() + 1;
    for (offset, size, says) in [
        ("99999999999999999999", "64", "beyond"),
        ("-99999999999999999999", "64", "beyond"),
        ("pl.const(99999999999999999999, pl.INT64)", "64", "beyond"),
        ("64.0", "64", "not an integer"),
        ("-64.0", "64", "not an integer"),
        ("pl.const(64.5, pl.FP32)", "64", "not an integer"),
        ("1e3", "64", "not an integer"),
        ("-64", "64", "negative"),
        ("-2", "64", "negative"),
        ("pl.const(-32, pl.INT64)", "64", "negative"),
        ("0", "-64", "negative"),
        ("1099511627000", "4096", "ends past"),
    ] {
        let err = svg_of(&one_function(&tile(offset, size))).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unreadable, "{offset}");
        let col = if offset == "0" { col + "0, ".len() } else { col };
        assert!(err.to_string().starts_with(&format!("t.py:8:{col}: ")), "{offset}: {err}");
        assert!(err.to_string().contains(says), "{offset}: {err}");
    }
    let size_col = col + "0, ".len();
    let err = svg_of(&one_function(&tile("0", "64.5"))).unwrap_err();
    assert!(err.to_string().starts_with(&format!("t.py:8:{size_col}: ")), "{err}");
    // An offset computed from names is no damage but a place this tool cannot compute: the tile
    // is listed as unresolved, not drawn, and the dump is read.
    for offset in ["nan", "float('nan')", "i * 64"] {
        let map = map_of(&one_function(&tile(offset, "64"))).unwrap_or_else(|e| panic!("{offset}: {e}"));
        assert_eq!(map.functions[0].unresolved[0].name, "b", "{offset}");
        assert!(map.findings.iter().any(|x| x.code == "unresolved" && x.line == Some(8)), "{offset}");
    }
    // A DDR tensor may have a computed offset: it is not drawn, so it is not read.
    let ddr = "        d: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_ddr_0, i * 64, 64), pl.Mem.DDR] = pl.tile.load(x)\n";
    assert!(svg_of(&one_function(ddr)).is_ok());
}

#[test]
fn messages_fit_the_input() {
    for empty in ["", "\n\n  \n"] {
        let err = svg_of(empty).unwrap_err();
        assert!(err.to_string().contains("the file is empty"), "{err}");
    }
    let err = svg_of("import os\nprint(os.getcwd())\n").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    assert!(err.to_string().contains("not a pass dump") && !err.to_string().contains("PTOAS"), "{err}");
    // A real dump from before AllocateMemoryAddr still gets the advice about passes.
    let early = one_function("").replace("pl.MemRef(mem_vec_0, 0, 64), ", "");
    assert!(svg_of(&early).unwrap_err().to_string().contains("AllocateMemoryAddr"));
}

// ---------------------------------------------------------------------------------------------
// The command line: the input is sacred, and no I/O condition is a panic.

mod cli {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output, Stdio};

    const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/demo_case");
    const DUMP: &str = "passes_dump/32_after_AllocateMemoryAddr.py";

    /// A copy of the bundled example case in a fresh temporary folder.
    fn case(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pto-mm-bounded-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("passes_dump")).unwrap();
        std::fs::copy(Path::new(DEMO).join(DUMP), dir.join(DUMP)).unwrap();
        dir
    }

    fn bin() -> Command {
        Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
    }

    fn run(cmd: &mut Command) -> Output {
        cmd.stdin(Stdio::null()).output().expect("the binary runs")
    }

    /// Runs and checks the output was refused before anything was written: exit 2, the message,
    /// and `dump` unchanged.
    fn refused(cmd: &mut Command, dump: &Path) {
        let before = std::fs::read(dump).unwrap();
        let out = run(cmd);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("would destroy the dump"), "{stderr}");
        assert_eq!(std::fs::read(dump).unwrap(), before, "the input is intact");
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = case("sacred");
        let dump = dir.join(DUMP);
        refused(bin().arg(&dump).args(["-f", "svg", "-o"]).arg(&dump), &dump);
        // Through a symbolic link, a hard link, and the case folder's resolution.
        std::os::unix::fs::symlink(&dump, dir.join("link.svg")).unwrap();
        refused(bin().arg(&dump).arg("-o").arg(dir.join("link.svg")), &dump);
        std::fs::hard_link(&dump, dir.join("hard.svg")).unwrap();
        refused(bin().arg(&dir).arg("-o").arg(dir.join("hard.svg")), &dump);
        refused(bin().arg(&dir).args(["-f", "json", "-o"]).arg(dir.join("passes_dump/../").join(DUMP)), &dump);
        // diff OLD NEW -o OLD, and -o NEW.
        let other = dir.join("other.py");
        std::fs::copy(&dump, &other).unwrap();
        refused(bin().arg("diff").arg(&dump).arg(&other).arg("-o").arg(&dump), &dump);
        refused(bin().arg("diff").arg(&dump).arg(&other).arg("-o").arg(&other), &other);
        // A fresh name is written, through a temporary file renamed into place.
        let out = run(bin().arg(&dump).arg("-o").arg(dir.join("map.svg")));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::read_to_string(dir.join("map.svg")).unwrap().starts_with("<svg"));
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_run_leaves_no_half_file() {
        let dir = case("half");
        let out = run(bin().arg(dir.join(DUMP)).args(["--max-output-bytes", "100", "-o"]).arg(dir.join("map.svg")));
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--max-output-bytes"));
        assert!(!dir.join("map.svg").exists());
        // An old output stays as it was.
        std::fs::write(dir.join("map.svg"), "the old map").unwrap();
        let out = run(bin().arg(dir.join(DUMP)).args(["--max-output-bytes", "100", "-o"]).arg(dir.join("map.svg")));
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(std::fs::read_to_string(dir.join("map.svg")).unwrap(), "the old map");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "the dump and the old map, nothing else");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_old_output_is_replaced_whole_and_nothing_is_left_beside_it() {
        let dir = case("replaced");
        let target = dir.join("map.svg");
        std::fs::write(&target, "the old map").unwrap();
        for format in ["svg", "json", "svg"] {
            let out = run(bin().arg(dir.join(DUMP)).args(["-q", "-f", format, "-o"]).arg(&target));
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let text = std::fs::read_to_string(&target).unwrap();
            assert!(text.starts_with(if format == "svg" { "<svg" } else { "{" }), "{format}: {text:.40}");
        }
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "the dump and the map, nothing else: {names:?}");
        // A folder in the output's place is not moved: the run fails and the folder stays.
        let folder = dir.join("taken.svg");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("kept"), "x").unwrap();
        let out = run(bin().arg(dir.join(DUMP)).arg("-o").arg(&folder));
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
        assert!(folder.join("kept").is_file());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A pipe whose reading end is already closed: every write to it fails with EPIPE.
    fn closed_pipe() -> Stdio {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        Stdio::from(writer)
    }

    #[test]
    fn closed_pipes_end_quietly() {
        let dir = case("pipe");
        let dump = dir.join(DUMP);
        // The "wrote" line to a reader that went away (`... -o x.svg | true`).
        let status = bin().arg(&dump).arg("-o").arg(dir.join("x.svg")).stdout(closed_pipe()).status().unwrap();
        assert_eq!(status.code(), Some(0));
        // The map itself to standard output.
        let status = bin().arg(&dump).args(["-f", "svg", "-o", "-"]).stdout(closed_pipe()).status().unwrap();
        assert_eq!(status.code(), Some(0));
        // An error message to a closed standard error: still exit 1, not a panic (101).
        let status = bin().arg(dir.join("missing.py")).stderr(closed_pipe()).status().unwrap();
        assert_eq!(status.code(), Some(1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn service_numbers_are_checked() {
        for args in [
            &["--render-threads", "100000"][..],
            &["--render-threads", "0"],
            &["--render-timeout-ms", "0"],
            &["--queue-depth", "0"],
            &["--read-timeout-ms", "99999999999"],
        ] {
            let out =
                run(bin().arg("serve").args(["--bind", "127.0.0.1:0", "--data-dir", "/nonexistent/x"]).args(args));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains(args[0]) && stderr.contains("it takes a number in 1..="), "{stderr}");
        }
    }

    #[test]
    fn threads_are_checked_and_change_nothing_but_the_speed() {
        for n in ["0", "100000"] {
            let out = run(bin().args(["-j", n, "x.py"]));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{n}: {stderr}");
            assert!(stderr.contains("--threads") && stderr.contains("it takes a number in 1..=256"), "{stderr}");
        }
        // A dump large enough to be parsed in parallel: one thread and two draw the same map.
        let dir = case("threads");
        let fixture = std::fs::read_to_string(dir.join(DUMP)).unwrap();
        let class = fixture.find("\nclass ").unwrap();
        let body_at = class + fixture[class + 1..].find('\n').unwrap() + 2;
        let mut big = fixture.clone();
        for k in 0..200 {
            big.push_str(&fixture[body_at..].replace("    def ", &format!("    def r{k}_")));
        }
        assert!(big.len() > 300_000, "{}", big.len());
        let path = dir.join("big.py");
        std::fs::write(&path, &big).unwrap();
        let json = |j: &str| run(bin().args(["-j", j, "-f", "json", "-o", "-"]).arg(&path)).stdout;
        let (one, two) = (json("1"), json("2"));
        assert!(one.len() > 100_000, "{} bytes", one.len());
        // The same map, but for how long each packing took.
        let map = |bytes: &[u8]| crate::common::without_times(serde_json::from_slice(bytes).unwrap());
        assert!(map(&one) == map(&two), "{} and {} bytes", one.len(), two.len());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn soc_files_go_through_the_file_guard() {
        let dir = case("soc");
        let out = run(bin().arg(dir.join(DUMP)).args(["--soc", "/dev/zero", "-o", "-", "-f", "json"]));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("/dev/zero: the SoC file must be a regular file"), "{stderr}");
        std::fs::write(dir.join("big.toml"), vec![b'#'; 2 << 20]).unwrap();
        let out = run(bin().arg(dir.join(DUMP)).arg("--soc").arg(dir.join("big.toml")).args(["-o", "-"]));
        assert!(String::from_utf8_lossy(&out.stderr).contains("larger than the limit"));
        // A device as the dump is not read either.
        let out = run(bin().arg("/dev/zero").args(["-o", "-"]));
        assert_eq!(out.status.code(), Some(1));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `n` tiles that all reuse one slot over disjoint lifetimes, as address reuse does at scale.
fn reused_slot(n: usize) -> String {
    let mut text = many_tiles(0).replace("        return x\n", "");
    for i in 0..n {
        text.push_str(&format!(
            "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, 1024, 64), pl.Mem.Vec] = pl.tile.load(x)\n"
        ));
    }
    text.push_str("        return x\n");
    text
}

#[test]
fn many_tiles_reusing_one_address_take_linear_time() {
    // The overlap pass used to try every pair on one address: 40 000 tiles made 800 million pairs.
    let (small, large) = (reused_slot(10_000), reused_slot(40_000));
    timed(&small);
    let (t_small, t_large) = (timed(&small), timed(&large));
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    assert!(ratio < 8.0, "10k tiles {t_small:?}, 40k tiles {t_large:?}: ratio {ratio:.1}");
}

/// A dump whose one function binds `n` tiles named with `name_bytes` letters each: the picture of a
/// small dump made large by its names.
fn long_names(n: usize, name_bytes: usize) -> String {
    let mut text = String::from(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n",
    );
    for i in 0..n {
        let name = format!("t{i}_{}", "n".repeat(name_bytes));
        text.push_str(&format!(
            "        {name}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {}, 64), pl.Mem.Vec] = pl.tile.load(x)\n",
            i * 64
        ));
    }
    text.push_str("        return x\n");
    text
}

/// The least size the output limit is checked against before drawing is never more than what the
/// writers write: on every fixture, the corpus where there is one, dumps of many small functions and
/// of long names; whole, with one function chosen, and with a space hidden.
#[test]
fn the_least_output_size_is_a_lower_bound() {
    let mut maps: Vec<(String, pto_memory_map::MemoryMap)> = common::drawable_fixtures()
        .into_iter()
        .chain(common::drawable_corpus_if_any())
        .map(|(p, m)| (p.display().to_string(), m))
        .collect();
    maps.push(("many functions".into(), map_of(&common::many_functions(300)).unwrap()));
    maps.push(("long names".into(), map_of(&long_names(40, 20_000)).unwrap()));
    let mut tightest = f64::MAX;
    for (name, map) in &maps {
        let first = &map.functions[0];
        let views = [
            pto_memory_map::ViewOptions::default(),
            pto_memory_map::ViewOptions { functions: vec![first.name.clone()], ..Default::default() },
            pto_memory_map::ViewOptions { hidden: vec![first.spaces[0].space.clone()], ..Default::default() },
        ];
        for view in views.iter().filter(|v| v.validate(map).is_ok()) {
            for format in [Format::Svg, Format::Html, Format::Json] {
                let opts = RenderOptions { format, view: view.clone(), ..Default::default() };
                let least = pto_memory_map::least_output_bytes(map, &opts).unwrap();
                let written = render_map(map, &opts).unwrap().len();
                assert!(least <= written, "{name} {format:?} {view:?}: least {least} > {written} written");
                tightest = tightest.min(written as f64 / least.max(1) as f64);
            }
        }
    }
    // A bound that is not far below what is written, or it would refuse nothing.
    assert!(tightest < 3.0, "the least size is never within 3x of the output: {tightest:.1}x at best");
    eprintln!("least output size: written/least {tightest:.2}x at best over {} maps", maps.len());
}

/// A render whose least size is past the output limit is refused before it is drawn, with that
/// figure, and in a small part of the time the drawing takes.
#[test]
fn a_render_past_the_limit_is_refused_before_it_is_drawn() {
    let map = map_of(&long_names(400, 20_000)).unwrap();
    for format in [Format::Svg, Format::Html, Format::Json] {
        let opts = RenderOptions { format, ..Default::default() };
        let least = pto_memory_map::least_output_bytes(&map, &opts).unwrap();
        assert!(least > 400 * 20_000, "{format:?}: every name counted: {least}");
        let started = Instant::now();
        let written = render_map(&map, &opts).unwrap().len();
        let drawn = started.elapsed();
        let limit = Limits { output_bytes: least - 1, ..Limits::default() };
        let started = Instant::now();
        let err = budget::run(Budget { limits: limit, ..Budget::default() }, || render_map(&map, &opts)).unwrap_err();
        let refused = started.elapsed();
        assert_eq!(err.kind, ErrorKind::OverLimit, "{format:?}: {err}");
        assert!(
            err.to_string().contains(&format!("at the least (counted from the map before drawing): {least}")),
            "{err}"
        );
        assert!(cli(&err).contains("--max-output-bytes"), "{err}");
        assert!(refused * 20 < drawn, "{format:?}: refused in {refused:?}, drawn ({written} bytes) in {drawn:?}");
        // At the least size itself, the writers run (and stop where the output passes the limit).
        let at = Limits { output_bytes: least, ..Limits::default() };
        let err = budget::run(Budget { limits: at, ..Budget::default() }, || render_map(&map, &opts)).unwrap_err();
        assert!(!err.to_string().contains("at the least"), "{format:?}: {err}");
    }
}

/// A box with a long name whose bytes pass to many boxes: each of their tooltips quotes it, cut, so
/// the picture stays a few times the dump (whole, the name made it a hundred times the dump).
#[test]
fn a_long_name_handed_over_to_many_boxes_is_quoted_cut() {
    let (n, long) = (300, format!("{}__tile", "x".repeat(20_000)));
    let mut body = format!(
        "        {long}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_big, 0, {}), pl.Mem.Vec] = pl.tile.load(x)\n        y = pl.tile.store({long}, x)\n",
        n * 64
    );
    for i in 0..n {
        body.push_str(&format!(
            "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {}, 64), pl.Mem.Vec] = pl.tile.load(x)\n",
            i * 64
        ));
    }
    let text = one_function(&body);
    let map = map_of(&text).unwrap();
    let vec = &map.functions[0].spaces.iter().find(|s| s.space == "Vec").unwrap();
    assert!(vec.handovers.as_ref().is_some_and(|h| h.count + 1 >= n), "{:?}", vec.handovers.as_ref().map(|h| h.count));
    let svg = svg_of(&text).unwrap();
    assert!(svg.len() < 10 * text.len(), "{} bytes of SVG for {} of dump", svg.len(), text.len());
}
