//! Findings as a GitLab Code Quality report (`check --format codequality`), so they show in a merge
//! request's widget: one entry per finding at its dump line, from the same results as SARIF.
//!
//! Severities: an error is `major`, a warning `minor`, a note `info`; an error or warning that
//! failed the gate is `critical`. Paths under the working directory (the checkout, in a CI job) are
//! made relative to it, as GitLab resolves them against the checkout. Each entry's fingerprint is a
//! SHA-256 of what identifies the finding (file, code, function, space, tiles, message), so the
//! same finding keeps its fingerprint from one pipeline to the next; GitLab keeps the first of
//! entries that share one, so repeats are left out here.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::sarif::Result;
use crate::model::Severity;

#[derive(Serialize)]
struct Entry {
    description: String,
    check_name: String,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u32,
}

/// The report for `results`, paths made relative to `cwd` where they lie under it; pretty JSON
/// with a trailing newline.
pub fn render(results: &[Result], cwd: Option<&std::path::Path>) -> String {
    let mut seen = crate::hashed::HashSet::default();
    let entries: Vec<Entry> =
        results.iter().map(|r| entry(r, cwd)).filter(|e| seen.insert(e.fingerprint.clone())).collect();
    let mut out = serde_json::to_string_pretty(&entries).unwrap_or_default();
    out.push('\n');
    out
}

fn entry(r: &Result, cwd: Option<&std::path::Path>) -> Entry {
    let x = &r.finding;
    let path = relative(r.file, cwd);
    let mut key = Sha256::new();
    let tiles = x.tiles.join("\u{1}");
    for part in [
        path.as_str(),
        &x.code,
        x.function.as_deref().unwrap_or(""),
        x.space.as_deref().unwrap_or(""),
        &tiles,
        &x.message,
    ] {
        key.update(part.as_bytes());
        key.update([0]);
    }
    let fingerprint = key.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let severity = match x.severity {
        Severity::Note => "info",
        _ if r.fails => "critical",
        Severity::Error => "major",
        Severity::Warning => "minor",
    };
    let case = Some(r.case).filter(|c| !c.is_empty());
    let whose: Vec<&str> = case.into_iter().chain(x.function.as_deref()).chain(x.space.as_deref()).collect();
    let description = if whose.is_empty() { x.message.clone() } else { format!("{}: {}", whose.join(": "), x.message) };
    Entry {
        description,
        check_name: format!("pto-memory-map/{}", x.code),
        fingerprint,
        severity,
        location: Location { path, lines: Lines { begin: r.line.unwrap_or(1).max(1) } },
    }
}

/// `file` relative to `cwd` when it lies under it, with `/` separators; otherwise as given.
fn relative(file: &str, cwd: Option<&std::path::Path>) -> String {
    let path = std::path::Path::new(file);
    let rel = cwd.filter(|_| path.is_absolute()).and_then(|c| path.strip_prefix(c).ok()).unwrap_or(path);
    rel.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::finding;

    fn result<'a>(file: &'a str, case: &'a str, severity: Severity, fails: bool) -> Result<'a> {
        let mut x = finding("overflow", severity, "c__tile ends at 192 KB".into());
        x.function = Some("spill".into());
        x.space = Some("Vec".into());
        Result { file, case, line: Some(17), finding: x, fails, suppressed: false }
    }

    #[test]
    fn entries_carry_the_gate_the_place_and_a_stable_fingerprint() {
        let cwd = std::path::Path::new("/work/repo");
        let failing = result("/work/repo/build/a.py", "spills", Severity::Error, true);
        let other = result("/elsewhere/b.py", "", Severity::Warning, false);
        let note = result("c.py", "", Severity::Note, true);
        let v: serde_json::Value =
            serde_json::from_str(&render(&[failing.clone(), other, note, failing], Some(cwd))).unwrap();
        let entries = v.as_array().unwrap();
        assert_eq!(entries.len(), 3, "a repeated finding is listed once: {v}");
        assert_eq!(entries[0]["severity"], "critical");
        assert_eq!(entries[0]["location"]["path"], "build/a.py");
        assert_eq!(entries[0]["location"]["lines"]["begin"], 17);
        assert_eq!(entries[0]["check_name"], "pto-memory-map/overflow");
        assert_eq!(entries[0]["description"], "spills: spill: Vec: c__tile ends at 192 KB");
        assert_eq!(entries[1]["severity"], "minor");
        assert_eq!(entries[1]["location"]["path"], "/elsewhere/b.py", "outside the checkout: as given");
        assert_eq!(entries[2]["severity"], "info", "a note never fails a merge request's widget");
        assert_ne!(entries[0]["fingerprint"], entries[1]["fingerprint"]);
        assert_eq!(entries[0]["fingerprint"].as_str().unwrap().len(), 64);
    }
}
