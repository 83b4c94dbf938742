//! One list of findings, counted once: every format of a map, and every shell that sums one up,
//! gives the same counts by severity and by code, on every drawable fixture and corpus dump.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

type Counts = BTreeMap<String, usize>;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
}

/// `findings: 1 error, 2 warnings, 30 notes` as counts by severity.
fn from_words(text: &str, what: &str) -> Counts {
    let at = text.find("findings: ").unwrap_or_else(|| panic!("{what}: no findings count"));
    let rest = &text[at + "findings: ".len()..];
    let mut out = Counts::new();
    for part in rest.split(", ").take(3) {
        let mut words = part.split_whitespace();
        let n: usize = words.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{what}: {part}"));
        let word: String = words.next().unwrap_or_default().chars().take_while(|c| c.is_alphabetic()).collect();
        out.insert(word.trim_end_matches('s').to_string(), n);
    }
    out
}

fn by_severity(findings: &[serde_json::Value]) -> Counts {
    let mut out: Counts = ["error", "warning", "note"].iter().map(|s| (s.to_string(), 0)).collect();
    for x in findings {
        *out.entry(x["severity"].as_str().unwrap().to_string()).or_default() += 1;
    }
    out
}

fn by_code(findings: &[serde_json::Value], key: &str) -> Counts {
    let mut out = Counts::new();
    for x in findings {
        *out.entry(x[key].as_str().unwrap().to_string()).or_default() += 1;
    }
    out
}

fn run(args: &[&str]) -> (Vec<u8>, String) {
    let out = bin().args(args).output().unwrap();
    (out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Checks every format and shell of one dump; returns the number of findings.
fn check_dump(path: &Path) -> usize {
    let p = path.to_str().unwrap();
    let what = path.display().to_string();
    let (json, err) = run(&[p, "-f", "json", "-o", "-"]);
    let map: serde_json::Value = serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{what}: {e}: {err}"));
    let list = map["findings"].as_array().unwrap().clone();
    let want = by_severity(&list);
    let codes = by_code(&list, "code");
    // The CLI's own line says the same.
    assert_eq!(from_words(&err, &what), want, "{what}: the summary line: {err}");
    for format in ["svg", "html", "txt"] {
        let (bytes, _) = run(&[p, "-f", format, "-o", "-"]);
        assert_eq!(from_words(&String::from_utf8_lossy(&bytes), &what), want, "{what}: {format}");
    }
    // check in each of its formats: the findings it reports are the map's (it refuses a dump from
    // before address assignment, which has nothing to gate).
    if map["addresses"] == "unassigned" {
        return list.len();
    }
    let (bytes, _) = run(&["check", p, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{what}: check: {e}"));
    let checked = report["findings"].as_array().unwrap();
    assert_eq!(by_code(checked, "code"), codes, "{what}: check --format json");
    let (bytes, _) = run(&["check", p, "--format", "text"]);
    let text = String::from_utf8_lossy(&bytes);
    assert_eq!(from_words(&text, &what), want, "{what}: check --format text: {text}");
    let (bytes, _) = run(&["check", p, "--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(by_code(results, "ruleId"), codes, "{what}: check --format sarif");
    list.len()
}

#[test]
fn every_format_counts_the_same_findings() {
    let mut dumps: Vec<_> = common::drawable_fixtures().into_iter().map(|(p, _)| p).collect();
    for name in ["lifetimes.py", "reserve_windows.py", "held_conflicts.py", "slots_pingpong.py", "find_conflict.py"] {
        dumps.push(common::fixtures().join(name));
    }
    dumps.extend(common::drawable_corpus_if_any().into_iter().map(|(p, _)| p));
    let total: usize = dumps.iter().map(|p| check_dump(p)).sum();
    assert!(total > 10, "{total}");
}
