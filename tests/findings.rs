//! Findings, one test per code on dumps written for it (`tests/fixtures/find_*`), the backend's
//! source, and the real corpus: no false overflow or conflict, and each space's live set at its
//! peak checked against a brute-force computation.

mod common;

use std::path::{Path, PathBuf};

use pto_memory_map::model::{BackendSource, Finding, MemoryMap, Severity};
use pto_memory_map::{Dump, Format, RenderOptions, backend, build, load, render_bytes};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn map(name: &str, backend: Option<&str>) -> MemoryMap {
    load(&fixture(name), "AllocateMemoryAddr", backend).unwrap()
}

fn of<'a>(m: &'a MemoryMap, code: &str) -> Vec<&'a Finding> {
    m.findings.iter().filter(|x| x.code == code).collect()
}

#[test]
fn overflow_says_by_how_many_bytes() {
    let m = map("find_overflow.py", Some("Ascend910B"));
    let over = of(&m, "overflow");
    assert_eq!(over.len(), 1, "{:#?}", m.findings);
    let x = over[0];
    assert_eq!(
        (x.severity, x.function.as_deref(), x.space.as_deref()),
        (Severity::Error, Some("too_big"), Some("Vec"))
    );
    assert_eq!(x.tiles, ["b__tile"]);
    assert_eq!(x.line, Some(12));
    assert!(
        x.message.contains("ends at 192 KB") && x.message.contains("8 KB past") && x.message.contains("184 KB"),
        "{}",
        x.message
    );
    assert!(!x.remedy.is_empty());
    // Errors come first.
    assert_eq!(m.findings[0].code, "overflow");
    // Ascend950's Vec is 240 KiB: the same dump fits there.
    assert!(of(&map("find_overflow.py", Some("Ascend950")), "overflow").is_empty());
}

#[test]
fn conflict_names_both_tiles_once_per_pair() {
    let m = map("find_conflict.py", Some("Ascend910B"));
    let pairs: Vec<(Vec<String>, Option<u32>)> = of(&m, "conflict").iter().map(|x| (x.tiles.clone(), x.line)).collect();
    assert_eq!(
        pairs,
        [
            (vec!["a__tile".to_string(), "b__tile".into()], Some(13)),
            (vec!["b__tile".to_string(), "c__tile".into()], Some(14))
        ]
    );
    assert!(of(&m, "conflict").iter().all(|x| x.severity == Severity::Error && x.lines.len() == 2));
    assert!(of(&m, "conflict")[0].message.contains("share 16 KB"), "{}", of(&m, "conflict")[0].message);
}

#[test]
fn pressure_is_a_warning_from_95_percent_and_a_note_from_80() {
    let m = map("find_pressure.py", Some("Ascend910B"));
    let p: Vec<(Option<&str>, Severity)> =
        of(&m, "pressure").iter().map(|x| (x.function.as_deref(), x.severity)).collect();
    assert!(p.contains(&(Some("nearly_full"), Severity::Warning)), "{p:?}");
    assert!(p.contains(&(Some("rather_full"), Severity::Note)), "{p:?}");
    assert_eq!(p.len(), 2);
    // An overflowing space is an overflow, not also pressure.
    assert!(of(&map("find_overflow.py", Some("Ascend910B")), "pressure").is_empty());
}

#[test]
fn idle_gives_bytes_and_lines_held_for_nothing() {
    let m = map("find_idle.py", Some("Ascend910B"));
    let idle = of(&m, "idle");
    assert_eq!(idle.len(), 1, "{:#?}", m.findings);
    assert_eq!((idle[0].tiles[0].as_str(), idle[0].line, idle[0].severity), ("early__tile", Some(12), Severity::Note));
    assert!(idle[0].message.contains("16 KB x 11 lines"), "{}", idle[0].message);
}

#[test]
fn waste_when_placement_costs_a_quarter_of_the_space() {
    let m = map("find_waste.py", Some("Ascend910B"));
    let w = of(&m, "waste");
    assert_eq!(w.len(), 1, "{:#?}", m.findings);
    assert_eq!(w[0].tiles, ["second__tile"]);
    assert!(w[0].message.contains("placement costs 128 KB"), "{}", w[0].message);
    // Ascend910B Vec is 184 KiB: 128 KiB is well over a quarter; no other fixture comes near it.
    for other in ["find_idle.py", "find_conflict.py", "find_pressure.py"] {
        assert!(of(&map(other, Some("Ascend910B")), "waste").is_empty(), "{other}");
    }
}

#[test]
fn backend_assumed_when_nothing_names_the_chip() {
    let m = map("find_idle.py", None);
    assert_eq!(m.backend.source, BackendSource::Assumed);
    assert!(!m.backend.detected);
    let a = of(&m, "backend-assumed");
    assert_eq!((a.len(), a[0].severity, a[0].function.as_deref()), (1, Severity::Warning, None));
    assert!(of(&map("find_idle.py", Some("Ascend910B")), "backend-assumed").is_empty());
}

#[test]
fn backend_mismatch_when_b_contradicts_the_case() {
    // The case's ptoas/*.pto names a5 (Ascend950).
    let found = map("find_case_a5", None);
    assert_eq!((found.backend.name.as_str(), found.backend.source), ("Ascend950", BackendSource::Ptoas));
    assert!(of(&found, "backend-mismatch").is_empty());
    let given = map("find_case_a5", Some("Ascend910B"));
    assert_eq!((given.backend.source, given.backend.ptoas_arch.as_deref()), (BackendSource::Given, Some("a5")));
    let m = of(&given, "backend-mismatch");
    assert_eq!((m.len(), m[0].severity), (1, Severity::Warning));
    assert!(m[0].message.contains("a5"), "{}", m[0].message);
    // A space only the other backend has is a mismatch too.
    let scale = map("find_scale.py", Some("Ascend910B"));
    assert!(of(&scale, "backend-mismatch")[0].message.contains("only Ascend950"));
}

#[test]
fn no_layouts_on_a_concise_dump() {
    let m = map("find_concise.py", Some("Ascend910B"));
    assert_eq!(of(&m, "no-layouts").len(), 1);
    assert!(of(&map("find_idle.py", Some("Ascend910B")), "no-layouts").is_empty());
}

#[test]
fn a_space_only_one_backend_has_picks_it_also_in_the_service() {
    let m = map("find_scale.py", None);
    assert_eq!(
        (m.backend.name.as_str(), m.backend.source, m.backend.detected),
        ("Ascend950", BackendSource::Inferred, false)
    );
    assert!(of(&m, "backend-assumed").is_empty());
    // The service builds posted text the same way.
    let text = std::fs::read(fixture("find_scale.py")).unwrap();
    let json =
        render_bytes("find_scale.py", text, &RenderOptions { format: Format::Json, ..Default::default() }).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["backend"]["name"], "Ascend950");
    assert_eq!(v["backend"]["source"], "inferred");
    assert_eq!(v["backend"]["detected"], false);
}

#[test]
fn json_carries_findings_and_the_live_set() {
    let text = std::fs::read(fixture("find_overflow.py")).unwrap();
    let opts = RenderOptions { format: Format::Json, backend: Some("Ascend910B".into()), ..Default::default() };
    let v: serde_json::Value = serde_json::from_slice(&render_bytes("x.py", text, &opts).unwrap()).unwrap();
    let f = &v["findings"][0];
    for key in ["code", "severity", "function", "space", "tiles", "line", "message", "remedy"] {
        assert!(f.get(key).is_some(), "findings[0] has no {key}: {f}");
    }
    assert_eq!(
        (f["code"].as_str(), f["severity"].as_str(), f["line"].as_u64()),
        (Some("overflow"), Some("error"), Some(12))
    );
    assert_eq!(v["backend"]["source"], "given");
    let peak = &v["functions"][0]["spaces"][0]["peak"];
    assert_eq!(peak["live"][0]["name"], "a__tile", "{peak}");
    assert_eq!(peak["live"].as_array().unwrap().len(), 2, "{peak}");
}

/// Bytes covered by `ranges`, by cutting the address line at every boundary and testing each piece:
/// a different method from the analysis's sweep.
fn covered(ranges: &[(i64, i64)]) -> i64 {
    let mut cuts: Vec<i64> = ranges.iter().flat_map(|&(a, b)| [a, b]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).filter(|w| ranges.iter().any(|&(a, b)| a <= w[0] && w[1] <= b && a < b)).map(|w| w[1] - w[0]).sum()
}

fn corpus_maps() -> Option<Vec<(PathBuf, MemoryMap)>> {
    common::corpus()?;
    Some(common::drawable_corpus())
}

#[test]
fn no_false_overflow_or_conflict_on_the_corpus() {
    let Some(maps) = corpus_maps() else { return };
    for (path, m) in &maps {
        for x in &m.findings {
            assert!(x.code != "overflow" && x.code != "conflict", "{}: {x:?}", path.display());
            if let Some(line) = x.line {
                assert!(line >= 1 && (line as usize) <= 1 << 20, "{}: {x:?}", path.display());
            }
        }
    }
}

#[test]
fn live_set_at_the_peak_matches_brute_force_on_the_corpus() {
    let Some(maps) = corpus_maps() else { return };
    let mut spaces = 0;
    for (path, m) in &maps {
        for f in &m.functions {
            for s in &f.spaces {
                // The boxes, held as the compiler holds them, and the placed windows, every line.
                let windows = pto_memory_map::analyze::reserved_blocks(&f.reserved, &s.space, (f.src_start, f.src_end));
                let mine: Vec<_> = f.blocks.iter().filter(|b| b.tile.space == s.space).chain(&windows).collect();
                let live_at = |line: u32| -> Vec<_> {
                    mine.iter().filter(|b| b.tile.start <= line && line <= b.tile.held()).collect()
                };
                let mut best = (0i64, f.src_start);
                for line in f.src_start..=f.src_end {
                    let bytes =
                        covered(&live_at(line).iter().map(|b| (b.tile.offset, b.tile.stop())).collect::<Vec<_>>());
                    if bytes > best.0 {
                        best = (bytes, line);
                    }
                }
                let at = format!("{} {} {}", path.display(), f.name, s.space);
                assert_eq!((s.peak.bytes, s.peak.line), best, "{at}");
                let mut expected: Vec<(String, i64, i64)> =
                    live_at(best.1).iter().map(|b| (b.tile.name.clone(), b.tile.offset, b.tile.size)).collect();
                expected.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(&b.1)));
                let got: Vec<(String, i64, i64)> =
                    s.peak.live.iter().map(|t| (t.name.clone(), t.offset, t.size)).collect();
                assert_eq!(got, expected, "{at}");
                let union = covered(&s.peak.live.iter().map(|t| (t.offset, t.offset + t.size)).collect::<Vec<_>>());
                assert_eq!(union, s.peak.bytes, "{at}: the live set's union is the peak");
                spaces += 1;
            }
        }
    }
    assert!(spaces > 100, "only {spaces} spaces checked");
}

#[test]
fn the_live_set_is_biggest_first_on_a_written_dump() {
    let text = std::fs::read(fixture("find_conflict.py")).unwrap();
    let dump = Dump::from_bytes("c.py", text).unwrap();
    let m = build(&dump, backend::choose(Some("Ascend910B"), None).unwrap()).unwrap();
    let vec = &m.functions[0].spaces[0];
    let names: Vec<&str> = vec.peak.live.iter().map(|t| t.name.as_str()).collect();
    // All three 32 KiB tiles are live at L14..16; equal sizes go lowest address first.
    assert_eq!(names, ["a__tile", "b__tile", "c__tile"]);
    assert_eq!(vec.peak.bytes, 72 * 1024);
}
