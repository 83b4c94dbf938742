//! SoC capacities of the backends PyPTO targets, and how a dump picks one.
//!
//! The dump does not record capacities, so they live here, keyed by backend. A chip that is not
//! built in is described by a SoC file (`--soc`, TOML or JSON) instead of a code change. A space a
//! backend does not describe is scaled by its own high-water mark (see `analyze`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Detail, Error, ErrorKind, FileOp, FileProblem, Named, Result, SocProblem};
use crate::model::{BackendChoice, BackendSource, MAX_BYTES};

/// One chip: its `BackendType` member name, its PTO target arch and the capacity of each on-chip
/// memory space in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backend {
    /// The name `-b` and `backend=` take (`Ascend910B`).
    pub name: String,
    /// The architecture a case's `ptoas/*.pto` names (`a2a3`).
    pub arch: String,
    /// Bytes per memory space: what is safe to use.
    pub capacities: BTreeMap<String, i64>,
    /// Physical bytes of the spaces that have more than is safe to use (a SoC file's `physical`
    /// table): the bytes between the two are the unsafe band.
    #[serde(default)]
    pub physical: BTreeMap<String, i64>,
}

impl Backend {
    fn new(name: &str, arch: &str, capacities: &[(&str, i64)], physical: &[(&str, i64)]) -> Backend {
        Backend {
            name: name.into(),
            arch: arch.into(),
            capacities: capacities.iter().map(|&(s, c)| (s.to_string(), c)).collect(),
            physical: physical.iter().map(|&(s, c)| (s.to_string(), c)).collect(),
        }
    }

    fn choice(&self, source: BackendSource, ptoas_arch: Option<String>) -> BackendChoice {
        BackendChoice {
            name: self.name.clone(),
            arch: self.arch.clone(),
            // PyPTO's tool says "detected" for a backend it was told or found, never for a guess.
            detected: matches!(source, BackendSource::Given | BackendSource::Ptoas),
            source,
            ptoas_arch,
            capacities: self.capacities.clone(),
            physical: self.physical.clone(),
        }
    }
}

/// Used when neither the user nor the case's `ptoas/` output names a target.
pub const DEFAULT_BACKEND: &str = "Ascend910B";

/// The known backends: those from SoC files first (so a file's arch is matched before a built-in
/// one's), then the built-in ones.
#[derive(Debug, Clone)]
pub struct Backends(Vec<Backend>);

impl Default for Backends {
    fn default() -> Self {
        Backends::builtin()
    }
}

impl Backends {
    /// Ascend910B and Ascend950, with their published capacities.
    pub fn builtin() -> Backends {
        Backends(vec![
            Backend::new(
                "Ascend910B",
                "a2a3",
                &[
                    ("Vec", 188_416),
                    ("Mat", 524_288),
                    ("Left", 65_536),
                    ("Right", 65_536),
                    ("Acc", 131_072),
                    ("Bias", 1_024),
                ],
                // The top 8 KiB of Vec are physically there but corrupt data.
                &[("Vec", 196_608)],
            ),
            Backend::new(
                "Ascend950",
                "a5",
                &[
                    ("Vec", 245_760),
                    ("Mat", 524_288),
                    ("Left", 65_536),
                    ("Right", 65_536),
                    ("Acc", 262_144),
                    ("Bias", 4_096),
                    ("LeftScale", 4_096),
                    ("RightScale", 4_096),
                ],
                &[("Vec", 253_952)],
            ),
        ])
    }

    /// Adds the chip described by a SoC file: `name`, `arch` and a `capacities` table of bytes per
    /// space, as TOML (`.toml`) or JSON (anything else). A file that takes the name of a built-in
    /// backend is refused: it replaced that backend silently, and when it lacked a space the
    /// built-in has, the map was scaled by the other backend, "inferred", with nothing said.
    pub fn with_soc_file(mut self, path: &Path) -> Result<Backends> {
        let bytes = crate::dump::read_file(path, MAX_SOC_BYTES, SOC_FILE)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::file_problem(ErrorKind::Unreadable, path, FileOp::Read(SOC_FILE), FileProblem::NotUtf8)
        })?;
        let backend = parse_soc(&text, &path.display().to_string(), path.extension().is_some_and(|e| e == "toml"))?;
        if let Some(builtin) = Backends::builtin().0.iter().find(|b| b.name.eq_ignore_ascii_case(&backend.name)) {
            let problem = SocProblem::BuiltinName { name: backend.name.clone(), builtin: builtin.name.clone() };
            return Err(soc(&path.display().to_string(), problem));
        }
        self.0.retain(|b| !b.name.eq_ignore_ascii_case(&backend.name));
        self.0.insert(0, backend);
        Ok(self)
    }

    /// Looks a backend up by name (case-insensitive, so `ascend950` works too).
    pub fn by_name(&self, name: &str) -> Result<&Backend> {
        self.0
            .iter()
            .find(|b| b.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::unknown(Named::Backend, name, self.0.iter().map(|b| b.name.as_str())))
    }

    /// Picks the backend for a dump: an explicit name wins, then the target arch written by ptoas in
    /// the case folder (the dump's grandparent), then the default, marked as assumed (the analysis
    /// may still infer one from the spaces the dump uses, see [`Backends::infer`]). The ptoas arch
    /// is kept either way, so a given backend that contradicts it can be reported.
    pub fn choose(&self, requested: Option<&str>, dump_path: Option<&Path>) -> Result<BackendChoice> {
        let arch = dump_path.and_then(detect_arch);
        if let Some(name) = requested {
            return Ok(self.by_name(name)?.choice(BackendSource::Given, arch));
        }
        match arch.as_deref().and_then(|a| self.0.iter().find(|b| b.arch == a)) {
            Some(b) => Ok(b.choice(BackendSource::Ptoas, arch.clone())),
            None => Ok(self.by_name(DEFAULT_BACKEND)?.choice(BackendSource::Assumed, arch)),
        }
    }

    /// The one backend that `spaces` point to: some space of theirs is described by that backend
    /// alone (LeftScale and RightScale: Ascend950), and none points elsewhere.
    pub fn implied_by(&self, spaces: &std::collections::BTreeSet<&str>) -> Option<&Backend> {
        let mut implied: Option<&Backend> = None;
        for space in spaces {
            let mut having = self.0.iter().filter(|b| b.capacities.contains_key(*space));
            if let (Some(only), None) = (having.next(), having.next()) {
                match implied {
                    Some(b) if b.name != only.name => return None,
                    _ => implied = Some(only),
                }
            }
        }
        implied
    }

    /// An assumed `choice` replaced by the backend the dump's `spaces` imply, marked inferred;
    /// anything else unchanged.
    pub fn infer(&self, choice: BackendChoice, spaces: &std::collections::BTreeSet<&str>) -> BackendChoice {
        if choice.source != BackendSource::Assumed {
            return choice;
        }
        match self.implied_by(spaces) {
            Some(b) => b.choice(BackendSource::Inferred, choice.ptoas_arch),
            None => choice,
        }
    }
}

/// [`Backends::by_name`] over the built-in backends.
pub fn by_name(name: &str) -> Result<Backend> {
    Backends::builtin().by_name(name).cloned()
}

/// [`Backends::choose`] over the built-in backends.
pub fn choose(requested: Option<&str>, dump_path: Option<&Path>) -> Result<BackendChoice> {
    Backends::builtin().choose(requested, dump_path)
}

/// Reads a SoC description; `file` names it in messages.
pub fn parse_soc(text: &str, file: &str, toml: bool) -> Result<Backend> {
    let parsed: std::result::Result<Backend, String> = if toml {
        toml::from_str(text).map_err(|e| e.to_string())
    } else {
        serde_json::from_str(text).map_err(|e| e.to_string())
    };
    let backend = parsed.map_err(|e| soc(file, SocProblem::NotDescription(e.trim().to_string())))?;
    if let Some((space, bytes)) = backend.capacities.iter().find(|(_, b)| **b <= 0 || **b > MAX_BYTES) {
        return Err(soc(file, SocProblem::Capacity { space: space.clone(), bytes: *bytes }));
    }
    if let Some((space, bytes)) = backend.physical.iter().find(|(space, b)| {
        let usable = backend.capacities.get(*space).copied().unwrap_or(i64::MAX);
        **b > MAX_BYTES || **b < usable
    }) {
        return Err(soc(file, SocProblem::Physical { space: space.clone(), bytes: *bytes }));
    }
    if backend.name.is_empty() || backend.arch.is_empty() {
        return Err(soc(file, SocProblem::Unnamed));
    }
    Ok(backend)
}

/// The SoC file `file` refused for `problem`: the user's to correct, as an option's value is.
fn soc(file: &str, problem: SocProblem) -> Error {
    Error::of(ErrorKind::Usage, Detail::Soc { file: file.to_string(), problem })
}

/// A SoC file, as messages name it.
const SOC_FILE: &str = "the SoC file";

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

/// The largest SoC file read: a few lines of TOML or JSON in practice.
const MAX_SOC_BYTES: u64 = 1024 * 1024;

fn read_head(path: &Path, limit: u64) -> Option<String> {
    use std::io::Read;
    if !std::fs::metadata(path).ok()?.is_file() {
        return None; // a FIFO named *.pto would block the open
    }
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
    fn a_soc_file_may_not_take_a_built_in_name() {
        let dir = std::env::temp_dir().join(format!("pmm-soc-shadow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("shadow.toml");
        std::fs::write(&file, "name = \"ascend910b\"\narch = \"a2a3\"\n[capacities]\nVec = 1024\n").unwrap();
        let err = Backends::builtin().with_soc_file(&file).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Usage);
        assert!(err.to_string().contains("'ascend910b', which is a built-in backend"), "{err}");
        assert!(err.to_string().contains("Ascend910B-custom"), "{err}");
        std::fs::write(&file, "name = \"Ascend910B-custom\"\narch = \"a2a3\"\n[capacities]\nVec = 1024\n").unwrap();
        let backends = Backends::builtin().with_soc_file(&file).unwrap();
        assert_eq!(backends.by_name("Ascend910B").unwrap().capacities["Vec"], 188_416, "the built-in stays");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reads_the_arch_attribute() {
        let line = r#"module attributes {pto.target_arch = "a5"} {"#;
        assert_eq!(arch_in(line).as_deref(), Some("a5"));
        assert_eq!(arch_in("module {"), None);
    }

    #[test]
    fn unknown_backend_lists_the_known_ones() {
        let err = by_name("Ascend310").unwrap_err();
        assert!(err.to_string().contains("Ascend910B") && err.to_string().contains("Ascend950"), "{err}");
    }

    #[test]
    fn explicit_backend_wins() {
        let c = choose(Some("ascend950"), None).unwrap();
        assert_eq!((c.name.as_str(), c.arch.as_str(), c.detected), ("Ascend950", "a5", true));
        assert_eq!(c.source, BackendSource::Given);
        assert_eq!(c.capacities["Vec"], 245_760);
        let c = choose(None, None).unwrap();
        assert_eq!((c.name.as_str(), c.detected, c.source), ("Ascend910B", false, BackendSource::Assumed));
    }

    #[test]
    fn a_space_only_one_backend_has_implies_it() {
        let all = Backends::builtin();
        let spaces = |s: &[&'static str]| s.iter().copied().collect::<std::collections::BTreeSet<&str>>();
        assert_eq!(all.implied_by(&spaces(&["Mat", "LeftScale"])).map(|b| b.name.as_str()), Some("Ascend950"));
        assert!(all.implied_by(&spaces(&["Vec", "Mat"])).is_none());
        let c = all.infer(choose(None, None).unwrap(), &spaces(&["RightScale"]));
        assert_eq!((c.name.as_str(), c.detected, c.source), ("Ascend950", false, BackendSource::Inferred));
        // A named backend is never second-guessed.
        let c = all.infer(choose(Some("Ascend910B"), None).unwrap(), &spaces(&["RightScale"]));
        assert_eq!((c.name.as_str(), c.source), ("Ascend910B", BackendSource::Given));
    }

    #[test]
    fn soc_files_in_toml_and_json() {
        let toml = "name = \"Mini\"\narch = \"m1\"\n[capacities]\nVec = 65536\nMat = 131072\n";
        let b = parse_soc(toml, "mini.toml", true).unwrap();
        assert_eq!((b.name.as_str(), b.arch.as_str(), b.capacities["Vec"]), ("Mini", "m1", 65536));
        let json = r#"{"name": "Mini", "arch": "m1", "capacities": {"Vec": 65536}}"#;
        assert_eq!(parse_soc(json, "mini.json", false).unwrap().capacities.len(), 1);
        let err = parse_soc("name = 3", "bad.toml", true).unwrap_err();
        assert!(err.to_string().starts_with("bad.toml: not a SoC description"), "{err}");
        assert!(parse_soc(r#"{"name":"x","arch":"y","capacities":{"Vec":0}}"#, "z.json", false).is_err());
    }
}
