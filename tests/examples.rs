//! The pictures and reports in `examples/` are what the binary writes today: each is made again
//! here from the bundled example and compared byte for byte, so a change to the drawing that is
//! not carried to them fails. `UPDATE_EXAMPLES=1 cargo test --test examples` writes them anew.

use std::path::Path;
use std::process::Command;

/// Each example: its file under `examples/`, and the arguments that make it (run from the
/// repository's root, writing to standard output).
const EXAMPLES: &[(&str, &[&str])] = &[
    ("demo.svg", &["examples/demo_case", "--fit", "Vec=24KB@44-50", "-f", "svg"]),
    ("demo.png", &["examples/demo_case", "--fit", "Vec=24KB@44-50", "-f", "png"]),
    ("demo-dark.svg", &["examples/demo_case", "--function", "row_softmax", "--theme", "dark", "-f", "svg"]),
    ("diff.md", &["diff", "examples/demo_case", "examples/demo_change", "-f", "md"]),
    ("diff.html", &["diff", "examples/demo_case", "examples/demo_change", "-f", "html"]),
    ("diff.png", &["diff", "examples/demo_case", "examples/demo_change", "-f", "png"]),
];

#[test]
fn the_examples_are_what_the_binary_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("UPDATE_EXAMPLES").is_some();
    let mut stale = Vec::new();
    for (file, args) in EXAMPLES {
        let out = Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
            .current_dir(root)
            .args(*args)
            .args(["-o", "-", "-q"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        let path = root.join("examples").join(file);
        if update {
            std::fs::write(&path, &out.stdout).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&out.stdout[..]) {
            stale.push(format!("examples/{file} (pto-memory-map {})", args.join(" ")));
        }
    }
    assert!(
        stale.is_empty(),
        "these examples differ from what the binary writes; UPDATE_EXAMPLES=1 cargo test --test examples:\n{}",
        stale.join("\n")
    );
}
