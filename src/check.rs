//! A map held against limits: the CI gate behind `check`.
//!
//! The gate cannot be switched off by a typo: by default it fails on every error finding (overflow,
//! conflict); a space name it does not know, a code it does not know or a percentage outside 0-100
//! is a usage error, never a silent pass. It checks one dump, or every case of a tree
//! (`build_output/`), where a case that cannot be read is reported and the others still checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::backend::Backends;
use crate::error::{Detail, Empty, Error, ErrorKind, Misuse, Named, Result};
use crate::findings::{self, CODES};
use crate::model::{Block, Finding, FunctionMap, MemoryMap, Severity, SpaceUsage, space_rank};

/// What fails the gate.
#[derive(Debug, Clone)]
pub struct Gate {
    /// Findings of this severity or worse fail (default: errors).
    pub deny: Severity,
    /// Codes that fail whatever their severity (`--deny idle`, `--deny-conflicts`).
    pub deny_codes: Vec<String>,
    /// Codes that never fail (`--allow idle`).
    pub allow: Vec<String>,
    /// Highest occupancy allowed, in percent of capacity.
    pub max_occupancy: Option<f64>,
    /// Highest high-water mark allowed per space, in bytes.
    pub max_hwm: Vec<(String, i64)>,
    /// Most bytes allowed per space between the high-water mark and the packer's placement.
    pub max_waste: Vec<(String, i64)>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            deny: Severity::Error,
            deny_codes: Vec::new(),
            allow: Vec::new(),
            max_occupancy: None,
            max_hwm: Vec::new(),
            max_waste: Vec::new(),
        }
    }
}

impl Gate {
    /// Reads `--deny` values: `errors`, `warnings`, `notes`, or a code.
    pub fn deny(&mut self, what: &str) -> Result<()> {
        match what {
            "errors" | "error" => {} // always denied
            "warnings" | "warning" => self.deny = self.deny.max(Severity::Warning),
            "notes" | "note" => self.deny = Severity::Note,
            code => self.deny_codes.push(known_code(code, "--deny")?.to_string()),
        }
        Ok(())
    }

    /// Reads an `--allow CODE`.
    pub fn allow(&mut self, code: &str) -> Result<()> {
        let code = known_code(code, "--allow")?;
        self.allow.push(code.to_string());
        Ok(())
    }

    /// Checks what can be checked before any dump is read: percentages, codes given both ways.
    pub fn validate(&self) -> Result<()> {
        if let Some(p) = self.max_occupancy
            && !(0.0..=100.0).contains(&p)
        {
            return Err(Error::bad_value("--max-occupancy", &p.to_string(), "a percentage within 0-100"));
        }
        if let Some(c) = self.allow.iter().find(|c| self.deny_codes.contains(c)) {
            return Err(Error::misuse(Misuse::DeniedAndAllowed { code: c.clone() }));
        }
        Ok(())
    }

    /// Every space named by a gate must be one the maps or their backends know, spelled as they
    /// spell it: `vec` or `UB` would otherwise gate nothing.
    pub fn validate_spaces(&self, maps: &[&MemoryMap]) -> Result<()> {
        let mut known: BTreeSet<&str> = BTreeSet::new();
        for m in maps {
            known.extend(m.backend.capacities.keys().map(String::as_str));
            known.extend(m.functions.iter().flat_map(|f| &f.spaces).map(|s| s.space.as_str()));
        }
        if known.is_empty() {
            return Ok(()); // nothing was readable: the unreadable cases fail the gate anyway
        }
        let named =
            self.max_hwm.iter().map(|g| ("--max-hwm", g)).chain(self.max_waste.iter().map(|g| ("--max-waste", g)));
        for (option, (space, _)) in named {
            if !known.contains(space.as_str()) {
                let mut names: Vec<&str> = known.iter().copied().collect();
                names.sort_by_key(|s| space_rank(s));
                let near = names.iter().find(|k| k.eq_ignore_ascii_case(space)).map(|k| k.to_string());
                let backends: BTreeSet<&str> = maps.iter().map(|m| m.backend.name.as_str()).collect();
                let backends = backends.into_iter().map(str::to_string).collect();
                return Err(Error::unknown(Named::GateSpace { option, backends, near }, space, names));
            }
        }
        Ok(())
    }

    fn fails(&self, x: &Finding) -> bool {
        !self.allow.contains(&x.code) && (x.severity <= self.deny || self.deny_codes.contains(&x.code))
    }
}

fn known_code<'a>(code: &'a str, option: &'static str) -> Result<&'a str> {
    if findings::info(code).is_some() {
        return Ok(code);
    }
    let codes: Vec<&str> = CODES.iter().map(|c| c.code).collect();
    Err(Error::bad_value(option, code, format!("a finding code ({}), or errors, warnings, notes", codes.join(", "))))
}

/// One dump held against the gate.
#[derive(Debug, Clone, Serialize)]
pub struct CaseReport {
    /// The case as the user would name it (the tree-relative folder, or the path given).
    pub case: String,
    /// The dump file that was read: where SARIF puts its results.
    pub dump: String,
    pub passed: bool,
    pub functions: usize,
    /// What fails the gate, with codes.
    pub violations: Vec<Finding>,
    /// Every finding of the map, failing or not.
    pub findings: Vec<Finding>,
}

/// A case of a tree that could not be read.
#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    pub case: String,
    /// The case folder.
    pub path: String,
    pub error: String,
}

/// The gate's answer over one dump or a tree of cases.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Whether `check` was given a tree of cases rather than one dump.
    #[serde(skip)]
    pub tree: bool,
    /// The codes `--allow` let through: SARIF marks their results suppressed.
    #[serde(skip)]
    pub allowed: Vec<String>,
    pub root: String,
    pub passed: bool,
    pub cases: Vec<CaseReport>,
    pub unreadable: Vec<Unreadable>,
}

/// Every limit `map` breaks and every finding the gate denies, worst first.
pub fn violations(map: &MemoryMap, gate: &Gate) -> Vec<Finding> {
    let mut out: Vec<Finding> = map.findings.iter().filter(|x| gate.fails(x)).cloned().collect();
    for f in &map.functions {
        for s in &f.spaces {
            let occupancy = s.occupancy() * 100.0;
            if let Some(max) = gate.max_occupancy
                && occupancy > max
            {
                out.push(limit(f, s, "max-occupancy", format!("occupancy {occupancy:.1}% exceeds {max}%")));
            }
            for (space, max) in &gate.max_hwm {
                if *space == s.space && s.hwm > *max {
                    out.push(limit(f, s, "max-hwm", format!("high-water mark {} B exceeds {max} B", s.hwm)));
                }
            }
            for (space, max) in &gate.max_waste {
                // A space with no packing (nothing the packer could move) wastes nothing it can name.
                let Some(p) = s.packing.as_ref().filter(|_| *space == s.space) else { continue };
                let waste = s.hwm - p.bytes;
                if waste > *max {
                    let how = p.verdict();
                    out.push(limit(
                        f,
                        s,
                        "max-waste",
                        format!(
                            "high-water mark {} B is {waste} B above a packing of {} B ({how}); the limit is {max} B",
                            s.hwm, p.bytes
                        ),
                    ));
                }
            }
        }
    }
    out.sort_by_key(|x| x.severity);
    out
}

/// A broken limit, pinned on the block that reaches the high-water mark.
fn limit(f: &FunctionMap, s: &SpaceUsage, code: &str, message: String) -> Finding {
    let top: Option<&Block> = f
        .blocks
        .iter()
        .filter(|b| b.tile.space == s.space)
        .max_by_key(|b| (b.tile.stop(), std::cmp::Reverse(b.tile.start)));
    Finding {
        code: code.to_string(),
        severity: Severity::Error,
        function: Some(f.name.clone()),
        space: Some(s.space.clone()),
        tiles: top.map(|b| vec![b.tile.name.clone()]).unwrap_or_default(),
        line: top.map(|b| b.tile.start),
        lines: top.map(|b| vec![b.tile.start]).unwrap_or_default(),
        message,
        remedy: findings::info(code).map(|c| c.remedy.to_string()).unwrap_or_default(),
    }
}

/// How to read each dump.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    pub pass_name: &'a str,
    pub backend: Option<&'a str>,
    pub backends: &'a Backends,
}

/// Checks `path`: a dump, a `passes_dump/` or case folder, or a tree of case folders.
///
/// A single dump that cannot be read is an error (exit 1 with the reason); in a tree, it is one
/// [`Unreadable`] entry and the other cases are still checked.
pub fn run(path: &Path, input: &Input, gate: &Gate) -> Result<Report> {
    gate.validate()?;
    let root = path.display().to_string();
    let single = crate::dump::resolve(path, input.pass_name);
    let tree = single.is_err();
    let cases = match single {
        Ok(_) => vec![(root.clone(), path.to_path_buf())],
        Err(e) => {
            let cases = if path.is_dir() { list_cases(path) } else { Vec::new() };
            if cases.is_empty() {
                return Err(e);
            }
            cases.into_iter().map(|p| (p.strip_prefix(path).unwrap_or(&p).display().to_string(), p)).collect()
        }
    };
    let mut loaded = Vec::new();
    let mut unreadable = Vec::new();
    for (name, case) in cases {
        match load(&case, input) {
            Ok(ok) => loaded.push((name, ok)),
            Err(e) if tree => {
                unreadable.push(Unreadable { case: name, path: case.display().to_string(), error: e.to_string() })
            }
            Err(e) => return Err(e),
        }
    }
    let maps: Vec<&MemoryMap> = loaded.iter().map(|(_, (_, m))| m).collect();
    gate.validate_spaces(&maps)?;
    let cases: Vec<CaseReport> = loaded
        .iter()
        .map(|(name, (file, map))| {
            let violations = violations(map, gate);
            CaseReport {
                case: name.clone(),
                dump: file.display().to_string(),
                passed: violations.is_empty(),
                functions: map.functions.len(),
                violations,
                findings: map.findings.clone(),
            }
        })
        .collect();
    let passed = unreadable.is_empty() && cases.iter().all(|c| c.passed);
    Ok(Report { tree, allowed: gate.allow.clone(), root, passed, cases, unreadable })
}

fn load(case: &Path, input: &Input) -> Result<(PathBuf, MemoryMap)> {
    let file = crate::dump::resolve(case, input.pass_name)?;
    let map = crate::load_with(&file, input.pass_name, input.backend, input.backends)?;
    if map.addresses == crate::model::Addresses::Unassigned {
        let why = Empty::Unassigned { later: map.addresses_in.clone() };
        return Err(Error::of(ErrorKind::Refused, Detail::NothingToDraw { file: file.display().to_string(), why }));
    }
    Ok((file, map))
}

/// The case folders under `root` (folders holding a `passes_dump/`), sorted. Symbolic links are
/// not followed, so a link cycle cannot make the walk endless.
pub fn list_cases(root: &Path) -> Vec<PathBuf> {
    if root.join("passes_dump").is_dir() {
        return vec![root.to_path_buf()];
    }
    crate::cases::case_folders(root)
}

impl Report {
    /// One line per violation (`case: function: space: L12: code: message` in a tree), one per
    /// unreadable case; `ok: ...` when the gate passes.
    pub fn text(&self) -> String {
        self.text_showing(false)
    }

    /// [`Report::text`], and then, as compilers and linters do, one line per warning (and allowed
    /// error) the gate let through (`case: function: space: L12: warning: code: message`), and per note with `notes`.
    /// What failed is listed first, so a failing run still begins with its cause.
    pub fn text_showing(&self, notes: bool) -> String {
        let mut out = String::new();
        let case = |out: &mut String, c: &CaseReport| {
            if self.tree {
                out.push_str(&c.case);
                out.push_str(": ");
            }
        };
        for c in &self.cases {
            for v in &c.violations {
                case(&mut out, c);
                out.push_str(&violation_line(v));
                out.push('\n');
            }
        }
        for c in &self.cases {
            let shown = |x: &&Finding| (notes || x.severity != Severity::Note) && !c.violations.contains(x);
            for x in c.findings.iter().filter(shown) {
                case(&mut out, c);
                // An error here is one `--allow` let through: counted, so listed, but not failing.
                out.push_str(if x.severity == Severity::Error { "error (allowed)" } else { x.severity.as_str() });
                out.push_str(": ");
                out.push_str(&violation_line(x));
                out.push('\n');
            }
        }
        for u in &self.unreadable {
            out.push_str(&format!("{}: unreadable: {}\n", u.case, u.error));
        }
        // The last line counts the findings whatever the outcome, as every other format does.
        let functions: usize = self.cases.iter().map(|c| c.functions).sum();
        let all: Vec<Finding> = self.cases.iter().flat_map(|c| c.findings.iter().cloned()).collect();
        let cases = if self.tree { format!("{} cases, ", self.cases.len()) } else { String::new() };
        let s = if functions == 1 { "" } else { "s" };
        let counts = findings::counts_text(&all);
        if self.passed {
            out.push_str(&format!("ok: {cases}{functions} function{s} within the limits; findings: {counts}\n"));
        } else {
            out.push_str(&format!("failed: {cases}{functions} function{s} checked; findings: {counts}\n"));
        }
        out
    }

    /// `{"dump","passed","violations","findings"}` for one dump; `{"root","passed","cases",
    /// "unreadable"}` for a tree.
    pub fn json(&self) -> serde_json::Value {
        match (&self.cases[..], self.tree) {
            ([one], false) => serde_json::json!({
                "dump": one.dump,
                "passed": self.passed,
                "violations": one.violations,
                "findings": one.findings,
            }),
            _ => serde_json::to_value(self).unwrap_or_default(),
        }
    }

    /// Every result for SARIF and the Code Quality report: the findings of each case (failing or not), the broken limits, and
    /// the unreadable cases, each with the file it is about.
    pub fn results(&self) -> Vec<crate::render::sarif::Result<'_>> {
        use crate::render::sarif::Result as R;
        let mut out = Vec::new();
        for c in &self.cases {
            let case = if self.tree { c.case.as_str() } else { "" };
            for x in &c.findings {
                let fails = c.violations.iter().any(|v| v == x);
                // A finding about the whole dump (its backend, its level) points at its first line.
                let line = Some(x.line.unwrap_or(1));
                out.push(R {
                    file: &c.dump,
                    case,
                    line,
                    finding: x.clone(),
                    fails,
                    suppressed: self.allowed.contains(&x.code),
                });
            }
            for v in c.violations.iter().filter(|v| !c.findings.contains(v)) {
                out.push(R {
                    file: &c.dump,
                    case,
                    line: Some(v.line.unwrap_or(1)),
                    finding: v.clone(),
                    fails: true,
                    suppressed: false,
                });
            }
        }
        for u in &self.unreadable {
            let mut x = dump_wide("unreadable", format!("{}: {}", u.case, u.error));
            x.function = None;
            out.push(R { file: &u.path, case: &u.case, line: None, finding: x, fails: true, suppressed: false });
        }
        out
    }
}

fn dump_wide(code: &str, message: String) -> Finding {
    findings::finding(code, Severity::Error, message)
}

/// `function: space: L12: code: message`, leaving out what the finding does not have.
pub fn violation_line(v: &Finding) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(v.function.clone());
    parts.extend(v.space.clone());
    parts.extend(v.line.map(|l| format!("L{l}")));
    parts.push(v.code.clone());
    parts.push(v.message.clone());
    parts.join(": ")
}

/// `Vec=4KB` or `Vec=0` for `--max-waste`.
pub fn parse_max_waste(s: &str) -> Result<(String, i64)> {
    crate::units::parse_space_limit(s, "--max-waste", 0)
}

/// `Vec=96KB` or `Vec=98304` for `--max-hwm`.
pub fn parse_max_hwm(s: &str) -> Result<(String, i64)> {
    crate::units::parse_space_bytes(s, "--max-hwm")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_and_allow_read_levels_and_codes() {
        let mut g = Gate::default();
        g.deny("warnings").unwrap();
        assert_eq!(g.deny, Severity::Warning);
        g.deny("idle").unwrap();
        assert_eq!(g.deny_codes, ["idle"]);
        assert_eq!(g.deny("idel").unwrap_err().kind, ErrorKind::Usage);
        assert_eq!(g.allow("overflw").unwrap_err().kind, ErrorKind::Usage);
        g.allow("idle").unwrap();
        assert!(g.validate().is_err(), "idle both denied and allowed");
    }

    #[test]
    fn percentages_stay_within_0_to_100() {
        for bad in [150.0, -1.0, f64::NAN] {
            let g = Gate { max_occupancy: Some(bad), ..Gate::default() };
            assert_eq!(g.validate().unwrap_err().kind, ErrorKind::Usage, "{bad}");
        }
        assert!(Gate { max_occupancy: Some(100.0), ..Gate::default() }.validate().is_ok());
    }
}
