//! Findings as SARIF 2.1.0, the format code scanning and review tools read: one rule per code of
//! [`crate::findings::CODES`] with its help text, one result per finding at the dump file and line.

use serde_json::{Value, json};

use crate::findings::{CODES, CodeInfo};
use crate::model::Finding;

/// One finding, with the file it is about and what the gate made of it.
#[derive(Debug, Clone)]
pub struct Result<'a> {
    /// The dump (or, for an unreadable case, the case folder) as a path.
    pub file: &'a str,
    /// The case of a tree it belongs to, as the user would name it; empty for one dump.
    pub case: &'a str,
    /// The line the result points at; `None` for a folder (an unreadable case).
    pub line: Option<u32>,
    /// What was found.
    pub finding: Finding,
    /// Whether it failed the gate.
    pub fails: bool,
    /// Whether `--allow` let it through.
    pub suppressed: bool,
}

/// The SARIF log, pretty-printed with a trailing newline.
pub fn render(results: &[Result]) -> String {
    let log = json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "pto-memory-map",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": CODES.iter().map(rule).collect::<Vec<_>>(),
            }},
            "columnKind": "unicodeCodePoints",
            "results": results.iter().map(result).collect::<Vec<_>>(),
        }],
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

fn rule(c: &CodeInfo) -> Value {
    json!({
        "id": c.code,
        "shortDescription": { "text": c.title },
        "fullDescription": { "text": c.meaning },
        "help": {
            "text": format!("{} What to do: {} (pto-memory-map explain {})", c.meaning, c.remedy, c.code),
            "markdown": format!("{}\n\n**What to do:** {}\n\n`pto-memory-map explain {}`", c.meaning, c.remedy, c.code),
        },
        "defaultConfiguration": { "level": c.severity.as_str() },
    })
}

fn result(r: &Result) -> Value {
    let x = &r.finding;
    let rule_index = CODES.iter().position(|c| c.code == x.code);
    let mut physical = json!({ "artifactLocation": { "uri": uri(r.file) } });
    if let Some(line) = r.line {
        physical["region"] = json!({ "startLine": line.max(1) });
    }
    let mut location = json!({ "physicalLocation": physical });
    if let Some(f) = &x.function {
        location["logicalLocations"] = json!([{ "name": f, "kind": "function" }]);
    }
    let mut out = json!({
        "ruleId": x.code,
        "level": x.severity.as_str(),
        "message": { "text": x.message },
        "locations": [location],
        "properties": {
            "failsGate": r.fails,
            "function": x.function,
            "space": x.space,
            "tiles": x.tiles,
            "lines": x.lines,
        },
    });
    if let Some(i) = rule_index {
        out["ruleIndex"] = json!(i);
    }
    let related: Vec<Value> = x
        .lines
        .iter()
        .filter(|&&l| Some(l) != x.line && l > 0)
        .enumerate()
        .map(|(i, &l)| {
            json!({ "id": i, "physicalLocation": { "artifactLocation": { "uri": uri(r.file) }, "region": { "startLine": l } } })
        })
        .collect();
    if !related.is_empty() {
        out["relatedLocations"] = json!(related);
    }
    if r.suppressed {
        out["suppressions"] = json!([{ "kind": "external", "justification": format!("--allow {}", x.code) }]);
    }
    out
}

/// A path as a URI reference: relative paths stay relative (code scanning resolves them against
/// the checkout), absolute ones become `file://` URIs; anything but unreserved characters and `/`
/// is percent-encoded.
pub fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::with_capacity(path.len());
    if path.starts_with('/') {
        out.push_str("file://");
    }
    out.push_str(&crate::units::percent_encode(&path, b"/"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("case a/passes_dump/3.py"), "case%20a/passes_dump/3.py");
        assert_eq!(uri("/tmp/x#1.py"), "file:///tmp/x%231.py");
    }
}
