//! The command line as a newcomer meets it: help that lists what there is, quiet that is quiet,
//! usage errors that say what to give instead, and a `check` that shows what it counts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pto_memory_map::option_table::{OPTIONS, OptionKind};
use pto_memory_map::render::FORMATS;

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn example() -> String {
    root().join("examples/demo_case").display().to_string()
}

/// A fresh empty folder under the system's temporary folder.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmm-shells-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lists_commands_and_formats(help: &str) {
    for command in ["diff", "check", "explain", "serve", "pack"] {
        assert!(help.lines().any(|l| l.trim_start().starts_with(command)), "{command} is not listed:\n{help}");
    }
    for f in FORMATS {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(f.extension)),
            "{} is not listed:\n{help}",
            f.extension
        );
    }
}

#[test]
fn no_arguments_and_help_list_the_commands_and_the_formats() {
    let bare = bin(&[]);
    assert_eq!(bare.status.code(), Some(2));
    lists_commands_and_formats(&text(&bare.stderr));
    for flag in ["--help", "-h"] {
        let help = bin(&[flag]);
        assert!(help.status.success());
        lists_commands_and_formats(&text(&help.stdout));
    }
}

#[test]
fn every_option_in_help_shows_its_values_or_default() {
    for command in [&["--help"][..], &["diff", "--help"], &["check", "--help"], &["serve", "--help"]] {
        let help = text(&bin(command).stdout);
        // An option's line: `  -f, --format <svg|png|...>  help [default: ...]`, its help beside it
        // or (where clap puts it when lines are long) on the next line. A flag that takes no value
        // (`--split`) is a switch and has neither; a count (`<N>`) says its default.
        let lines: Vec<&str> = help.lines().map(str::trim_start).collect();
        let mut seen = 0;
        for (i, line) in lines.iter().enumerate().filter(|(_, l)| l.starts_with('-')) {
            let names = line.split("  ").next().unwrap_or("");
            if names.contains('<') {
                seen += 1;
                let said = format!("{line} {}", if line.contains("  ") { "" } else { lines.get(i + 1).unwrap_or(&"") });
                assert!(!names.contains("<N>") || said.contains("[default"), "{command:?}: {said}");
            }
        }
        assert!(seen > 3, "{command:?}: {help}");
    }
    let help = text(&bin(&["--help"]).stdout);
    for o in OPTIONS.iter().filter(|o| o.cli.is_some()) {
        // A switch takes its value after `=` only (`--packed[=<yes|no>]`).
        let flag = match o.kind {
            OptionKind::Switch => format!("--{}[=<{}>]", o.cli.unwrap(), o.values()),
            _ => format!("--{} <{}>", o.cli.unwrap(), o.values()),
        };
        let line = help.lines().find(|l| l.contains(&flag)).unwrap_or_else(|| panic!("{flag}:\n{help}"));
        assert!(o.default.is_empty() || line.contains(&format!("[default: {}]", o.default)), "{line}");
    }
}

#[test]
fn each_command_shows_only_the_options_it_takes() {
    let explain = text(&bin(&["explain", "--help"]).stdout);
    assert!(!explain.contains("--max-") && !explain.contains("--threads"), "{explain}");
    let check = text(&bin(&["check", "--help"]).stdout);
    assert!(!check.contains("--zoom") && check.contains("--backend"), "{check}");
    let diff = text(&bin(&["diff", "--help"]).stdout);
    assert!(diff.contains("--zoom") && diff.contains("md|svg"), "{diff}");
}

#[test]
fn quiet_writes_nothing_on_success() {
    let dir = scratch("quiet");
    let out = dir.join("map.svg");
    let run = bin(&[&example(), "-q", "-o", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(run.stdout.is_empty() && run.stderr.is_empty(), "{} / {}", text(&run.stdout), text(&run.stderr));
    assert!(out.is_file());
    // Without it: the file written and the summary.
    let run = bin(&[&example(), "-o", out.to_str().unwrap()]);
    assert_eq!(text(&run.stdout).trim(), format!("wrote {}", out.display()));
    assert!(text(&run.stderr).starts_with("drew 2 functions"), "{}", text(&run.stderr));
    // A failure still says why, quiet or not.
    let run = bin(&[&example(), "-q", "--zoom", "100", "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--zoom 100 is not accepted; it takes a number in 0.2..64"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quiet_is_quiet_for_a_tree_too() {
    let dir = scratch("quiet-tree");
    let site = dir.join("site");
    let examples = root().join("examples");
    let run = bin(&[examples.to_str().unwrap(), "-q", "-o", site.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(run.stdout.is_empty() && run.stderr.is_empty(), "{} / {}", text(&run.stdout), text(&run.stderr));
    assert!(site.join("index.html").is_file());
    // Without it, a line per case on stderr (not a terminal here) and the summary on stdout.
    let run = bin(&[examples.to_str().unwrap(), "-o", site.to_str().unwrap()]);
    assert!(text(&run.stderr).contains("[1/"), "{}", text(&run.stderr));
    assert!(text(&run.stdout).starts_with("drew "), "{}", text(&run.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tree_drawn_to_a_file_name_is_a_usage_error() {
    let dir = scratch("tree-file");
    let out = dir.join("site.html");
    let run = bin(&[root().join("tests/fixtures").to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("give -o a folder"), "{}", text(&run.stderr));
    assert!(!out.exists(), "nothing is made under the file's name");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_passing_check_lists_the_warnings_it_counts() {
    let run = bin(&["check", &example(), "--allow", "conflict"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    let warnings: Vec<&str> = out.lines().filter(|l| l.starts_with("warning: ")).collect();
    let ok = out.lines().last().unwrap_or("");
    assert!(ok.starts_with("ok: ") && ok.contains(&format!("{} warning", warnings.len())), "{out}");
    assert!(!warnings.is_empty(), "{out}");
    // function: space: line: code: message
    assert!(warnings.iter().any(|l| l.starts_with("warning: qk_matmul: Bias: L20: pressure: ")), "{out}");
    assert!(!out.contains("note: "), "notes are counted, not listed: {out}");
    let notes = text(&bin(&["check", &example(), "--allow", "conflict", "--show", "notes"]).stdout);
    assert!(notes.lines().any(|l| l.starts_with("note: ")), "{notes}");
}
