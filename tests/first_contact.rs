//! What a new user trips on first, each answered with the thing named and the way out: a missing
//! output folder, a misspelt command or flag, a pass that is not there, a function with no map, a
//! dump from before memory allocation, a whole-dump PNG that is a digest, the summary's errors, and
//! `--error-format json` for every kind of error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().unwrap()
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmm-first-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn conflict_fixture() -> String {
    std::fs::read_to_string(root().join("tests/fixtures/find_conflict.py")).unwrap()
}

/// The one JSON error line `--error-format json` prints on standard error.
fn json_error(o: &Output) -> serde_json::Value {
    let text = stderr(o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {text}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {text}"));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["code", "column", "file", "line", "message", "remedy"], "{v}");
    assert!(!v["message"].as_str().unwrap().is_empty() && !v["remedy"].as_str().unwrap().is_empty(), "{v}");
    v
}

#[test]
fn a_missing_output_folder_is_named_with_the_way_out() {
    let dir = scratch("nosuchdir");
    let out = dir.join("nosuchdir/x.svg");
    let o = bin(&[path(&root().join("examples/demo_case")), "-o", path(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let text = stderr(&o);
    let folder = dir.join("nosuchdir");
    assert!(text.contains(&format!("the folder {} does not exist", folder.display())), "{text}");
    assert!(text.contains(&format!("mkdir -p {}", folder.display())) && !text.contains("os error"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_misspelt_command_is_not_taken_for_a_file() {
    let o = bin(&["chek", "examples/demo_case"]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    assert!(stderr(&o).contains("did you mean `check`?"), "{}", stderr(&o));
    let o = bin(&["serv"]);
    assert!(stderr(&o).contains("did you mean `serve`?"), "{}", stderr(&o));
    // A real file of that name is drawn, and a name near no command is a missing file.
    let o = bin(&["nosuchthing"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no such file or folder") && !stderr(&o).contains("did you mean"));
}

#[test]
fn a_flag_people_reach_for_names_the_one_that_does_it() {
    for flag in ["--colour", "--color"] {
        let o = bin(&["examples/demo_case", flag, "dark"]);
        assert_eq!(o.status.code(), Some(2));
        let text = stderr(&o);
        assert!(text.contains(&format!("there is no {flag} option")) && text.contains("--theme light|dark"), "{text}");
        assert!(!text.contains("tip:"), "no misleading guess: {text}");
    }
    // Other unknown flags keep clap's own words and exit status.
    let o = bin(&["examples/demo_case", "--zom", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--zoom"), "{}", stderr(&o));
}

#[test]
fn serve_help_documents_every_value_its_default_and_the_environment() {
    let o = bin(&["serve", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    for (flag, value) in [
        ("--bind", "<ADDR:PORT>"),
        ("--data-dir", "<FOLDER>"),
        ("--store", "<URL>"),
        ("--public-url", "<URL>"),
        ("--trusted-proxy", "<IP>"),
        ("--max-body-bytes", "<BYTES>"),
        ("--render-threads", "<N>"),
        ("--queue-depth", "<N>"),
        ("--render-timeout-ms", "<MS>"),
        ("--cache-bytes", "<BYTES>"),
        ("--read-timeout-ms", "<MS>"),
        ("--max-store-bytes", "<BYTES>"),
    ] {
        // The flag's line, and the next where clap puts the help under it.
        let lines: Vec<&str> = help.lines().collect();
        let at = lines.iter().position(|l| l.contains(flag)).unwrap_or_else(|| panic!("{flag}: {help}"));
        let line = lines[at..(at + 2).min(lines.len())].join(" ");
        assert!(line.contains(value), "{flag} shows {value}: {line}");
        assert!(line.contains("[default: "), "{flag} names its default: {line}");
    }
    for env in ["PMM_WRITE_TOKEN", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"] {
        assert!(help.contains(env), "{env} is documented: {help}");
    }
    assert!(!help.contains("<BIND>") && !help.contains("<DATA_DIR>"), "no bare placeholders: {help}");
}

#[test]
fn the_summary_says_what_conflicts() {
    let dir = scratch("summary");
    let dump = dir.join("find_conflict.py");
    std::fs::write(&dump, conflict_fixture()).unwrap();
    let o = bin(&[path(&dump), "-f", "svg", "-o", "-"]);
    assert_eq!(o.status.code(), Some(0));
    let line = stderr(&o);
    assert!(line.contains("(conflict: clash Vec: "), "{line}");
    assert!(line.contains(" and ") && line.contains(", and 1 more)"), "both tiles and the count: {line}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pass_that_is_not_there_lists_the_passes_that_are() {
    let o = bin(&["examples/demo_case", "-p", "MemoryReuse"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stderr(&o);
    assert!(text.contains("no '*_after_MemoryReuse.py' dump"), "{text}");
    assert!(text.contains("the passes dumped here are: AllocateMemoryAddr"), "{text}");
}

#[test]
fn a_function_without_tiles_is_answered_precisely() {
    let dir = scratch("bare");
    let dump = dir.join("d.py");
    let bare = "\n    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)\n    \
                def fa_work_build(self, x__ssa_v0: pl.Tensor[[64, 256], pl.FP32, pl.MemRef(\"mem_ddr_0\", \
                pl.const(0, pl.INT64), 65536)]) -> pl.Tensor[[64, 256], pl.FP32]:\n        return x__ssa_v0\n";
    std::fs::write(&dump, conflict_fixture() + bare).unwrap();
    let o = bin(&[path(&dump), "--function", "fa_work_build", "-f", "svg", "-o", "-"]);
    assert_eq!(o.status.code(), Some(2));
    let text = stderr(&o);
    assert!(text.contains("'fa_work_build' is an AIV function of this dump that places nothing"), "{text}");
    assert!(text.contains("give one of the functions drawn: clash"), "{text}");
    let o = bin(&[path(&dump), "--function", "nope", "-f", "svg", "-o", "-"]);
    assert!(stderr(&o).contains("no compute function 'nope'"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dump_before_allocation_says_on_the_terminal_that_addresses_are_not_assigned() {
    let dir = scratch("unassigned");
    let dump = dir.join("20_after_MemoryReuse.py");
    let text = conflict_fixture()
        .replace("pl.const(16384, pl.INT64)", "pl.const(0, pl.INT64)")
        .replace("pl.const(40960, pl.INT64), 32768), pl.Mem.Vec", "pl.const(0, pl.INT64), 32768), pl.Mem.Vec");
    std::fs::write(&dump, text).unwrap();
    let o = bin(&[path(&dump), "-f", "svg", "-o", "-"]);
    assert_eq!(o.status.code(), Some(0));
    let said = stderr(&o);
    assert!(said.contains("note: addresses are not assigned yet in 20_after_MemoryReuse.py"), "{said}");
    assert!(said.contains("bases view"), "{said}");
    assert!(stderr(&bin(&[path(&dump), "-f", "svg", "-o", "-", "-q"])).is_empty(), "-q says nothing");
    // A dump with addresses gets no such note.
    let o = bin(&["examples/demo_case", "-f", "svg", "-o", "-"]);
    assert!(!stderr(&o).contains("not assigned"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_whole_dump_png_that_is_a_digest_says_so_and_how_to_get_every_card() {
    let dir = scratch("digest");
    let out = dir.join("m.png");
    // At the widest and largest, the bundled example is past a PNG's limit: it gets its digest.
    let o = bin(&["examples/demo_case", "-o", path(&out), "--width", "20000", "--zoom", "64", "--scale", "4"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = stderr(&o);
    assert!(said.contains("this PNG is its digest"), "{said}");
    assert!(said.contains("-f svg") && said.contains("--function NAME") && said.contains("--split"), "{said}");
    // A PNG drawn whole says nothing of the kind.
    let o = bin(&["examples/demo_case", "-o", path(&out)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("digest"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every kind of error, as one JSON object on one line of standard error: the code its kind names,
/// the place when it points into a dump (else nulls), the message without that place, and the
/// remedy the error's data names, worded for the command line.
#[test]
fn every_kind_of_error_is_one_json_line_with_error_format_json() {
    let dir = scratch("json");
    let broken = dir.join("broken.py");
    std::fs::write(
        &broken,
        conflict_fixture().replace("pl.tile.add(a__tile, b__tile)", "pl.tile.add(a__tile, b__tile"),
    )
    .unwrap();
    let demo = path(&root().join("examples/demo_case")).to_string();
    let dump = format!("{demo}/passes_dump/32_after_AllocateMemoryAddr.py");
    let planner = path(&root().join("tests/fixtures/fx_ptoas_planner.py")).to_string();
    let nowhere = path(&dir.join("no/such/dir/x.svg")).to_string();
    let cases: Vec<(&str, Vec<&str>, i32)> = vec![
        ("not_found", vec!["nosuchdump.py"], 1),
        ("unreadable", vec![path(&broken)], 1),
        ("nothing_to_draw", vec![&planner], 1),
        ("usage", vec![&demo, "--zoom", "100"], 2),
        ("usage", vec![&demo, "--no-such-flag"], 2),
        ("too_large", vec![&demo, "-f", "png", "--function", "qk_matmul", "--width", "20000", "--zoom", "64"], 1),
        ("io", vec![&demo, "-o", &nowhere], 1),
        ("over_limit", vec![&demo, "--max-tiles", "1"], 1),
        ("cancelled", vec![&demo, "--time-limit-ms", "0"], 1),
    ];
    let every: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.0).collect();
    let kinds: std::collections::BTreeSet<&str> =
        pto_memory_map::error::ErrorKind::ALL.iter().map(|k| k.code()).collect();
    assert_eq!(every, kinds, "a case for every kind");
    for (code, args, status) in cases {
        let mut argv = vec!["--error-format", "json"];
        argv.extend(args.iter().copied());
        argv.extend(["-o", "-"].iter().filter(|_| !args.contains(&"-o")));
        let o = bin(&argv);
        assert_eq!(o.status.code(), Some(status), "{code}: {}", stderr(&o));
        let v = json_error(&o);
        assert_eq!(v["code"], code, "{v}");
        let at = (v["file"].as_str(), v["line"].as_u64(), v["column"].as_u64());
        if code == "unreadable" {
            // The bracket left open on line 14 is found where the parser meets the next statement.
            assert_eq!(at, (Some(path(&broken)), Some(16), Some(9)), "{v}");
            assert!(v["message"].as_str().unwrap().starts_with("not valid Python"), "the place is apart: {v}");
        } else if code == "over_limit" {
            // The function over the limit, at its `def`.
            assert_eq!(at, (Some(dump.as_str()), Some(9), Some(1)), "{v}");
            assert!(v["message"].as_str().unwrap().starts_with("tiles in function qk_matmul"), "{v}");
        } else {
            assert!(v["file"].is_null() && v["line"].is_null() && v["column"].is_null(), "{v}");
        }
        let remedy = v["remedy"].as_str().unwrap();
        let message = v["message"].as_str().unwrap();
        match code {
            "over_limit" => assert!(remedy.contains("--max-tiles"), "{v}"),
            "cancelled" => assert!(remedy.contains("--time-limit-ms"), "{v}"),
            "usage" if args.contains(&"--zoom") => {
                assert_eq!(message, "--zoom 100 is not accepted; it takes a number in 0.2..64", "{v}");
                assert_eq!(remedy, "give --zoom a number in 0.2..64", "{v}");
            }
            "not_found" => assert!(remedy.starts_with("give a pass dump (.py)"), "{v}"),
            "nothing_to_draw" => assert!(remedy.contains("AllocateMemoryAddr"), "{v}"),
            "too_large" => assert!(remedy.starts_with("try "), "{v}"),
            "io" => assert!(message.contains("does not exist") && message.contains("mkdir -p"), "{v}"),
            _ => {}
        }
    }
    // The option may come after the subcommand, and text stays the default.
    let o = bin(&["check", "nosuchdump.py", "--error-format", "json"]);
    assert_eq!(json_error(&o)["code"], "not_found");
    let o = bin(&["nosuchdump.py"]);
    assert!(stderr(&o).starts_with("error: nosuchdump.py: no such file or folder"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The codes are documented where the option is.
#[test]
fn the_json_error_codes_are_documented() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for kind in pto_memory_map::error::ErrorKind::ALL {
        assert!(readme.contains(&format!("`{}`", kind.code())), "README.md documents {}", kind.code());
    }
    assert!(readme.contains("--error-format json"));
}
