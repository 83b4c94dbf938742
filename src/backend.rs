//! SoC capacities of the backends PyPTO targets (requirement I8), and how a dump picks one (I9).
//!
//! The dump does not record capacities, so they live here, keyed by backend. A space a backend does
//! not describe is scaled by its own high-water mark (see `analyze`).

use std::path::Path;

use crate::error::{Error, ErrorKind, Result};
use crate::model::BackendChoice;

/// One chip: its `BackendType` member name, its PTO target arch and its on-chip memories.
#[derive(Debug, Clone, Copy)]
pub struct Backend {
    pub name: &'static str,
    pub arch: &'static str,
    pub capacities: &'static [(&'static str, i64)],
}

impl Backend {
    /// Capacity of `space` in bytes, if this chip describes it.
    pub fn capacity(&self, space: &str) -> Option<i64> {
        self.capacities.iter().find(|(s, _)| *s == space).map(|&(_, c)| c)
    }
}

/// The built-in backends, in the order they are listed to users.
pub const BACKENDS: &[Backend] = &[
    Backend {
        name: "Ascend910B",
        arch: "a2a3",
        capacities: &[
            ("Vec", 188_416),
            ("Mat", 524_288),
            ("Left", 65_536),
            ("Right", 65_536),
            ("Acc", 131_072),
            ("Bias", 1_024),
        ],
    },
    Backend {
        name: "Ascend950",
        arch: "a5",
        capacities: &[
            ("Vec", 245_760),
            ("Mat", 524_288),
            ("Left", 65_536),
            ("Right", 65_536),
            ("Acc", 262_144),
            ("Bias", 4_096),
            ("LeftScale", 4_096),
            ("RightScale", 4_096),
        ],
    },
];

/// Used when neither the user nor the case's `ptoas/` output names a target.
pub const DEFAULT_BACKEND: &str = "Ascend910B";

/// Looks a backend up by name (case-insensitive, so `ascend950` works too).
pub fn by_name(name: &str) -> Result<&'static Backend> {
    BACKENDS.iter().find(|b| b.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
        let known: Vec<&str> = BACKENDS.iter().map(|b| b.name).collect();
        Error::new(ErrorKind::Usage, format!("unknown backend '{name}'; known backends: {}", known.join(", ")))
    })
}

/// Picks the backend for a dump: an explicit name wins, then the target arch written by ptoas in the
/// case folder (the dump's grandparent), then the default, marked as not detected.
pub fn choose(requested: Option<&str>, dump_path: Option<&Path>) -> Result<BackendChoice> {
    if let Some(name) = requested {
        let b = by_name(name)?;
        return Ok(BackendChoice { name: b.name.into(), arch: b.arch.into(), detected: true });
    }
    let detected = dump_path.and_then(detect_arch).and_then(|arch| BACKENDS.iter().find(|b| b.arch == arch));
    let (b, detected) = match detected {
        Some(b) => (b, true),
        None => (by_name(DEFAULT_BACKEND)?, false),
    };
    Ok(BackendChoice { name: b.name.into(), arch: b.arch.into(), detected })
}

/// Reads `pto.target_arch = "..."` from the first `ptoas/*.pto` (sorted by name) that has it.
///
/// Only the head of each file is read: the attribute sits on the module line, and `.pto` files can
/// be large.
pub fn detect_arch(dump_path: &Path) -> Option<String> {
    let dir = dump_path.parent()?.parent()?.join("ptoas");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pto"))
        .collect();
    files.sort();
    files.iter().find_map(|p| arch_in(&read_head(p, 64 * 1024)?))
}

fn read_head(path: &Path, limit: u64) -> Option<String> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::fs::File::open(path).ok()?.take(limit).read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// Finds the value of the first `pto.target_arch = "..."` in `text`.
pub fn arch_in(text: &str) -> Option<String> {
    let key = "pto.target_arch";
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        rest = &rest[at + key.len()..];
        let after_eq = rest.trim_start().strip_prefix('=')?.trim_start();
        if let Some(quoted) = after_eq.strip_prefix('"')
            && let Some(end) = quoted.find('"')
        {
            return Some(quoted[..end].to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_arch_attribute() {
        let line = r#"module attributes {pto.target_arch = "a5"} {"#;
        assert_eq!(arch_in(line).as_deref(), Some("a5"));
        assert_eq!(arch_in("module {"), None);
    }

    #[test]
    fn unknown_backend_lists_the_known_ones() {
        let err = by_name("Ascend310").unwrap_err();
        assert!(err.message.contains("Ascend910B") && err.message.contains("Ascend950"), "{err}");
    }

    #[test]
    fn explicit_backend_wins() {
        let c = choose(Some("ascend950"), None).unwrap();
        assert_eq!((c.name.as_str(), c.arch.as_str(), c.detected), ("Ascend950", "a5", true));
        let c = choose(None, None).unwrap();
        assert_eq!((c.name.as_str(), c.detected), ("Ascend910B", false));
    }
}
