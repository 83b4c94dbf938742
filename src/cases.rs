//! Folders of cases: which folder is one (a `passes_dump/` inside), how a tree of them is walked
//! and named. Drawing a site, `diff` and `check` all take a tree by these rules, so a folder is a
//! tree for all of them or for none.

use std::path::{Component, Path, PathBuf};

use crate::dump;

/// How deep below the tree's root a case may sit (`build_output/<arch>/<case>` is 2).
const MAX_DEPTH: usize = 6;
/// A tree larger than this is refused rather than walked: it is not a build tree.
pub const MAX_CASES: usize = 10_000;
/// Most folders a tree walk visits.
pub const MAX_FOLDERS: usize = 20_000;

/// Whether `path` is a folder of cases rather than one case: it has no dump of its own (nor a
/// `passes_dump/`), and some folder below it has a `passes_dump/`.
pub fn is_tree(path: &Path, pass_name: &str) -> bool {
    path.is_dir()
        && !path.join("passes_dump").is_dir()
        && dump::resolve(path, pass_name).is_err()
        && !case_folders(path).is_empty()
}

/// Folders under `root` that hold a `passes_dump/`, sorted: the one walk every command that takes a
/// tree uses (drawing a site, `diff`, `check`). It does not look inside a case, into hidden folders
/// or through symlinks (so a link cycle cannot make it endless), and it visits at most
/// `MAX_FOLDERS` folders `MAX_DEPTH` deep: a tree is a build output, not a whole disk.
pub fn case_folders(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut visited = 0;
    while let Some((dir, depth)) = stack.pop() {
        visited += 1;
        if visited > MAX_FOLDERS {
            break;
        }
        if dir != root && dir.join("passes_dump").is_dir() {
            found.push(dir);
            if found.len() > MAX_CASES {
                break;
            }
            continue;
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if !hidden && entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push((entry.path(), depth + 1));
            }
        }
    }
    found.sort();
    found
}

/// A case's name: its path below `root`, with `/` between the parts (`Ascend950/ffn`).
pub fn case_name(root: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    rel.components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Every case under `root` with its name, sorted by path ([`case_folders`]).
pub fn list(root: &Path) -> Vec<(String, PathBuf)> {
    case_folders(root).into_iter().map(|dir| (case_name(root, &dir), dir)).collect()
}
