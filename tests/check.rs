//! The CLI around findings: `check` (text, JSON, SARIF, trees of cases, typos that must not pass),
//! `explain`, the text report and the summary line.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pto_memory_map::findings::CODES;

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().unwrap()
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).to_string_lossy().into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_fails_on_error_findings_by_default() {
    let over = bin(&["check", &fixture("find_overflow.py")]);
    assert_eq!(over.status.code(), Some(1), "{}", stderr(&over));
    // The violation first, then every warning counted, as a linter lists them.
    assert_eq!(
        stdout(&over),
        "too_big: Vec: L12: overflow: b__tile ends at 192 KB (96 KB + 96 KB), 8 KB past the Vec capacity of 184 KB, \
         inside the unsafe band 184 KB..192 KB: the chip has those bytes, but the top 8 KB of Vec corrupt data; \
         a placement of the same tiles over the same lifetimes needs 192 KB and would not fit either: more is held \
         at once than the space has\n\
         warning: backend-assumed: no backend named or found (no -b, no ptoas/*.pto): Ascend910B's capacities assumed\n\
         failed: 1 function checked; findings: 1 error, 1 warning, 0 notes\n"
    );
    let clash = bin(&["check", &fixture("find_conflict.py")]);
    assert_eq!(clash.status.code(), Some(1));
    let out = stdout(&clash);
    assert!(out.ends_with("failed: 1 function checked; findings: 2 errors, 1 warning, 0 notes\n"), "{out}");
    let lines: Vec<String> =
        out.lines().filter(|l| !l.starts_with("warning: ") && !l.starts_with("failed: ")).map(String::from).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("clash: Vec: L1") && l.contains(": conflict: ")), "{lines:?}");
    // --allow lets a code through; warnings and notes pass unless denied.
    assert_eq!(bin(&["check", &fixture("find_conflict.py"), "--allow", "conflict"]).status.code(), Some(0));
    let idle = fixture("find_idle.py");
    let ok = bin(&["check", &idle, "-b", "Ascend910B"]);
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(stdout(&ok), "ok: 1 function within the limits; findings: 0 errors, 0 warnings, 1 note\n");
    assert_eq!(bin(&["check", &idle, "-b", "Ascend910B", "--deny", "warnings"]).status.code(), Some(0));
    assert_eq!(bin(&["check", &idle, "--deny", "warnings"]).status.code(), Some(1), "backend-assumed is a warning");
    assert_eq!(bin(&["check", &idle, "-b", "Ascend910B", "--deny", "notes"]).status.code(), Some(1));
    assert_eq!(bin(&["check", &idle, "-b", "Ascend910B", "--deny", "idle"]).status.code(), Some(1));
}

#[test]
fn a_typo_in_a_gate_is_a_usage_error_not_a_pass() {
    let clash = fixture("find_conflict.py");
    for space in ["vec=1KB", "UB=1KB"] {
        let o = bin(&["check", &clash, "--allow", "conflict", "--max-hwm", space]);
        assert_eq!(o.status.code(), Some(2), "{space}: {}", stdout(&o));
        assert!(stderr(&o).contains("known spaces: Vec, Mat, Left, Right, Acc, Bias"), "{}", stderr(&o));
    }
    assert!(stderr(&bin(&["check", &clash, "--max-hwm", "vec=1KB"])).contains("did you mean Vec?"));
    for bad in
        [["--max-occupancy", "150"], ["--max-occupancy", "-5"], ["--deny", "warning-s"], ["--allow", "conflicts"]]
    {
        let o = bin(&["check", &clash, bad[0], bad[1]]);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    assert_eq!(bin(&["check", &clash, "--format", "xml"]).status.code(), Some(2));
    assert_eq!(bin(&["check", "/no/such/dump.py"]).status.code(), Some(1));
}

#[test]
fn limits_still_gate_with_codes() {
    let demo = common::example();
    let demo = demo.to_str().unwrap();
    let out = bin(&["check", demo, "--allow", "conflict", "--max-occupancy", "50", "--max-hwm", "Vec=64KB"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.lines().any(
            |l| l.starts_with("row_softmax: Vec: L") && l.ends_with(": max-occupancy: occupancy 52.7% exceeds 50%")
        ),
        "{text}"
    );
    assert!(text.lines().any(|l| l.ends_with(": max-hwm: high-water mark 99328 B exceeds 65536 B")), "{text}");
    // Allowed, the conflicts are listed as such and do not fail.
    let conflicts: Vec<&str> = text.lines().filter(|l| l.contains(": conflict: ")).collect();
    assert!(conflicts.iter().all(|l| l.starts_with("error (allowed): ")), "{text}");
    let json = bin(&["check", demo, "--format", "json"]);
    assert_eq!(json.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["passed"], false);
    let codes: Vec<&str> = v["violations"].as_array().unwrap().iter().map(|x| x["code"].as_str().unwrap()).collect();
    assert!(!codes.is_empty() && codes.iter().all(|c| *c == "conflict"), "{codes:?}");
    assert!(v["findings"].as_array().unwrap().len() >= codes.len());
}

/// A build_output/ with a passing case, a conflicting one and one that cannot be read.
fn tree() -> PathBuf {
    let root = std::env::temp_dir().join(format!("pmm-check-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (case, source) in
        [("good", "find_idle.py"), ("clash", "find_conflict.py"), ("deep/overflow", "find_overflow.py")]
    {
        let dir = root.join("build_output").join(case).join("passes_dump");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(fixture(source), dir.join("35_after_AllocateMemoryAddr.py")).unwrap();
    }
    let bad = root.join("build_output/bad/passes_dump");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("35_after_AllocateMemoryAddr.py"), "def f(:\n").unwrap();
    root.join("build_output")
}

#[test]
fn check_over_a_tree_names_case_and_function_and_goes_on_past_a_bad_case() {
    let root = tree();
    let r = root.to_str().unwrap();
    let o = bin(&["check", r]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("clash: clash: Vec: ") && l.contains(": conflict: ")).count(),
        2,
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("deep/overflow: too_big: Vec: L12: overflow: ")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bad: unreadable: ") && l.contains(":1:")), "{text}");
    let good: Vec<&str> = text.lines().filter(|l| l.starts_with("good: ")).collect();
    assert!(good.iter().all(|l| l.starts_with("good: warning: ")), "only its warnings: {text}");

    let v: serde_json::Value = serde_json::from_slice(&bin(&["check", r, "--format", "json"]).stdout).unwrap();
    let cases: Vec<&str> = v["cases"].as_array().unwrap().iter().map(|c| c["case"].as_str().unwrap()).collect();
    assert_eq!(cases, ["clash", "deep/overflow", "good"]);
    assert_eq!(v["unreadable"][0]["case"], "bad");
    assert_eq!(v["passed"], false);
    assert_eq!(v["cases"][2]["passed"], true);

    let s: serde_json::Value = serde_json::from_slice(&bin(&["check", r, "--format", "sarif"]).stdout).unwrap();
    let results = s["runs"][0]["results"].as_array().unwrap();
    let files: std::collections::BTreeSet<&str> = results
        .iter()
        .map(|x| x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 4, "one file per case, the bad one included: {files:?}");
    assert!(results.iter().any(|x| x["ruleId"] == "unreadable"));
    // Only passing cases pass the gate: the good case alone.
    assert_eq!(bin(&["check", root.join("good").to_str().unwrap()]).status.code(), Some(0));
    let _ = std::fs::remove_dir_all(root.parent().unwrap());
}

#[test]
fn sarif_has_one_rule_per_code_and_one_result_per_finding_at_its_line() {
    let dump = fixture("find_conflict.py");
    let o = bin(&["check", &dump, "--format", "sarif", "--allow", "backend-assumed"]);
    assert_eq!(o.status.code(), Some(1));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["version"], "2.1.0");
    let run = &s["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), CODES.len());
    for (rule, code) in rules.iter().zip(CODES) {
        assert_eq!(rule["id"], code.code);
        assert!(rule["help"]["text"].as_str().unwrap().contains(code.remedy));
        assert_eq!(rule["defaultConfiguration"]["level"], code.severity.as_str());
    }
    let results = run["results"].as_array().unwrap();
    let conflicts: Vec<&serde_json::Value> = results.iter().filter(|r| r["ruleId"] == "conflict").collect();
    assert_eq!(conflicts.len(), 2);
    let lines: Vec<u64> = conflicts
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [13, 14]);
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.ends_with("tests/fixtures/find_conflict.py"), "{uri}");
    }
    let assumed = results.iter().find(|r| r["ruleId"] == "backend-assumed").unwrap();
    assert_eq!(assumed["suppressions"][0]["kind"], "external");
    assert_eq!(assumed["properties"]["failsGate"], false);
}

#[test]
fn explain_prints_meaning_and_remedy() {
    let o = bin(&["explain", "overflow"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.starts_with("overflow (error): ") && text.contains("What to do: "), "{text}");
    let all = stdout(&bin(&["explain"]));
    assert_eq!(all.lines().count(), CODES.len());
    let o = bin(&["explain", "overflw"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("codes: overflow, conflict"));
}

#[test]
fn text_report_and_summary_line() {
    let dump = fixture("find_overflow.py");
    let o = bin(&[&dump, "-f", "txt", "-o", "-", "-b", "Ascend910B"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("\nOVERVIEW"), "{text}");
    assert!(
        text.lines().any(|l| l.split_whitespace().collect::<Vec<_>>()[..]
            == ["too_big", "AIV", "104.3%", "104.3%", "-", "1", "0", "0"]),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("error  overflow  too_big  Vec  L12  b__tile ends at 192 KB")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("to do for overflow: ")), "{text}");
    // The live set at the peak, one greppable row per tile.
    let live: Vec<&str> = text.lines().filter(|l| l.starts_with("too_big") && l.contains(" L12 ")).collect();
    assert!(live.iter().any(|l| l.contains("a__tile") && l.contains("96 KB") && l.contains("0..98304")), "{live:?}");
    assert!(live.iter().any(|l| l.contains("b__tile") && l.contains("98304..196608")), "{live:?}");
    assert!(text.lines().all(|l| l == l.trim_end()), "no trailing spaces");
    // The summary line, and -q.
    assert_eq!(
        stderr(&o).trim_end(),
        "drew 1 function of find_overflow.py; worst occupancy 104.3% (too_big Vec); findings: 1 error, 0 warnings, 0 notes (overflow: too_big Vec: b__tile at L12)"
    );
    let quiet = bin(&[&dump, "-f", "txt", "-o", "-", "-q"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(stderr(&quiet), "");
    // `.txt` picks the format.
    let out = std::env::temp_dir().join(format!("pmm-report-{}.txt", std::process::id()));
    let o = bin(&[&dump, "-o", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("memory map of find_overflow.py"));
    let _ = std::fs::remove_file(out);
}

/// `--max-waste` gates on the bytes between the high-water mark and the packing: the fixture's
/// `wasteful` function places 16 KB of Vec where 8 KB pack (tests/lifetimes.rs checks the packing).
#[test]
fn max_waste_gates_on_the_packing() {
    let dump = fixture("lifetimes.py");
    // The fixture's `broken` function has a conflict on purpose; allowed, the gate alone decides.
    let run =
        |limit: &str| bin(&["check", &dump, "--backend", "Ascend910B", "--allow", "conflict", "--max-waste", limit]);
    let over = run("Vec=8191");
    assert_eq!(over.status.code(), Some(1), "{}", stderr(&over));
    let text = stdout(&over);
    let line = text
        .lines()
        .find(|l| l.starts_with("wasteful: Vec: L") && l.contains(": max-waste: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.ends_with("high-water mark 16384 B is 8192 B above a packing of 8192 B (optimal); the limit is 8191 B"),
        "{line}"
    );
    // At the waste itself the gate holds, as it did without it; 0 means no waste allowed at all.
    assert_eq!(run("Vec=8KB").status.code(), Some(0), "{}", stdout(&run("Vec=8KB")));
    assert_eq!(run("Vec=0").status.code(), Some(1));
    for bad in ["vec=1KB", "Vec=-1", "Vec"] {
        assert_eq!(run(bad).status.code(), Some(2), "{bad}");
    }
    assert!(stderr(&run("vec=1KB")).contains("--max-waste: no space 'vec'"), "{}", stderr(&run("vec=1KB")));
}
