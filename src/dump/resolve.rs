//! From what the user typed to one dump file.

use std::path::{Path, PathBuf};

use crate::error::{Detail, Error, ErrorKind, Missing, Result};

/// The pass whose dump holds the final addresses.
pub const DEFAULT_PASS: &str = "AllocateMemoryAddr";

/// A file is taken as is; a folder yields its highest-numbered `NN_after_<pass>.py`, looking in the
/// folder itself and then in its `passes_dump/`.
pub fn resolve(path: &Path, pass_name: &str) -> Result<PathBuf> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    if !path.exists() {
        return Err(missing(path, Missing::Path));
    }
    for dir in [path.to_path_buf(), path.join("passes_dump")] {
        if let Some(found) = highest_dump(&dir, pass_name) {
            return Ok(found);
        }
    }
    let present = passes_present(path);
    Err(missing(path, Missing::PassDump { pass: pass_name.to_string(), present }))
}

/// `path` holds no `what`.
fn missing(path: &Path, what: Missing) -> Error {
    Error::of(ErrorKind::NotFound, Detail::Missing { path: path.display().to_string(), what })
}

/// The passes dumped in `path` or its `passes_dump/` (`NN_after_<PASS>.py`), in pass order, each once.
fn passes_present(path: &Path) -> Vec<String> {
    let mut found: Vec<(u64, String)> = [path.to_path_buf(), path.join("passes_dump")]
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_str()?.to_string();
            let (num, pass) = name.strip_suffix(".py")?.split_once("_after_")?;
            Some((num.parse().ok()?, pass.to_string()))
        })
        .collect();
    found.sort();
    let mut seen = crate::hashed::HashSet::default();
    found.into_iter().filter(|(_, p)| seen.insert(p.clone())).map(|(_, p)| p).collect()
}

/// The dump with the largest `NN` prefix; numbers compare as numbers, so `100_` beats `99_`.
fn highest_dump(dir: &Path, pass_name: &str) -> Option<PathBuf> {
    let suffix = format!("_after_{pass_name}.py");
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let num: u64 = name.strip_suffix(&suffix)?.parse().ok()?;
            e.path().is_file().then(|| (num, e.path()))
        })
        .max()
        .map(|(_, p)| p)
}
