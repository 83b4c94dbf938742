//! The README's first commands run as written on a fresh clone: each command of the block between
//! `<!-- first-commands:begin -->` and `<!-- first-commands:end -->` (a ```sh block), but the
//! install itself (`pip install`, `cargo install`) and the test command (`bash tests/run.sh`, which
//! runs this test), is run in a temporary clone of this repository with the binary the tests built
//! first on PATH and the clone's `python/` package importable; `cargo run --release --` is that
//! binary, so the release build is not made again. Each must succeed, and what they write must be
//! ignored by git (the clone stays clean).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The commands of the README's first block, one per line, comments and installs left out.
fn first_commands(readme: &str) -> Option<Vec<String>> {
    let start = readme.find("<!-- first-commands:begin -->")?;
    let end = start + readme[start..].find("<!-- first-commands:end -->")?;
    let block = &readme[start..end];
    let commands = block
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .map(|l| l.split(" #").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !l.starts_with("pip install") && !l.starts_with("cargo install"))
        .filter(|l| !l.starts_with("bash tests/run.sh"))
        .map(|l| match l.strip_prefix("cargo run --release -- ") {
            Some(args) => format!("pto-memory-map {args}"),
            None => l.to_string(),
        })
        .collect();
    Some(commands)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").current_dir(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_readmes_first_commands_run_in_a_fresh_clone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let Some(commands) = first_commands(&readme) else {
        // The README marks its first block when it is written for this test; until then it is
        // not checked, and says so.
        eprintln!("note: README.md has no first-commands block: its first commands are not run");
        return;
    };
    assert!(!commands.is_empty(), "the first-commands block holds no command");
    if Command::new("git").arg("--version").output().is_err() || !root.join(".git").exists() {
        eprintln!("note: not a git checkout: the README's first commands are not run");
        return;
    }
    let work = std::env::temp_dir().join(format!("pmm-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let clone = work.join("clone");
    git(&work, &["clone", "--quiet", "--no-hardlinks", root.to_str().unwrap(), clone.to_str().unwrap()]);
    // The README's own working tree, not only what is committed, is what a reader sees.
    std::fs::copy(root.join("README.md"), clone.join("README.md")).unwrap();
    git(&clone, &["update-index", "--assume-unchanged", "README.md"]);
    let bin_dir: PathBuf = work.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pto-memory-map"), bin_dir.join("pto-memory-map")).unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    for command in &commands {
        let out = Command::new("sh")
            .current_dir(&clone)
            .args(["-c", command])
            .env("PATH", &path)
            .env("PYTHONPATH", clone.join("python"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{command}` failed in a fresh clone:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let left = git(&clone, &["status", "--porcelain"]);
    assert!(left.is_empty(), "the first commands left files git does not ignore:\n{left}");
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn the_block_reader_takes_commands_not_comments_or_installs() {
    let text = "x\n<!-- first-commands:begin -->\n```sh\npip install .   # the wheel\n# a comment\n\
                pto-memory-map examples/demo_case -o demo.memory_map.svg  # named as git ignores\n```\n\
                <!-- first-commands:end -->\n";
    assert_eq!(first_commands(text).unwrap(), ["pto-memory-map examples/demo_case -o demo.memory_map.svg"]);
    let text = "<!-- first-commands:begin -->\n```sh\ncargo run --release -- examples/demo_case -o d.memory_map.svg\n\
                bash tests/run.sh   # every test\n```\n<!-- first-commands:end -->\n";
    assert_eq!(first_commands(text).unwrap(), ["pto-memory-map examples/demo_case -o d.memory_map.svg"]);
    assert!(first_commands("no block").is_none());
}
