//! The built binary on every dump of the shared corpus (real compiler output), and the CLI's contract.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().expect("binary runs")
}

fn json_of(path: &Path, extra: &[&str]) -> Value {
    let mut args = vec![path.to_str().unwrap(), "-f", "json", "-o", "-"];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn dumps_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            dumps_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

/// Dumps before address assignment, and the one program that binds no tile, are refused.
fn expected_refusal(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    if name == "vllm_ascend_prepare_token_metadata.py" {
        return Some("AllocateMemoryAddr");
    }
    // MemoryReuse dumps are drawn as a bases view (see tests/truth.rs).
    None
}

#[test]
fn every_corpus_dump_is_drawn_or_refused_for_its_reason() {
    let Some(corpus) = common::corpus() else { return };
    let mut dumps = Vec::new();
    dumps_under(&corpus, &mut dumps);
    assert!(dumps.len() >= 40, "only {} dumps under {}", dumps.len(), corpus.display());
    for path in dumps {
        if let Some(reason) = expected_refusal(&path) {
            let out = run(&[path.to_str().unwrap(), "-o", "-"]);
            assert_eq!(out.status.code(), Some(1), "{}", path.display());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.starts_with("error: ") && err.contains(reason), "{}: {err}", path.display());
            continue;
        }
        check_invariants(&path, &json_of(&path, &[]));
    }
}

fn check_invariants(path: &Path, map: &Value) {
    let at = path.display();
    for f in map["functions"].as_array().unwrap() {
        let (lo, hi) = (f["src_start"].as_u64().unwrap(), f["src_end"].as_u64().unwrap());
        assert_eq!(f["source"].as_array().unwrap().len() as u64, hi - lo + 1, "{at}");
        let boxes = f["boxes"].as_array().unwrap();
        for b in boxes {
            let (s, e) = (b["start"].as_u64().unwrap(), b["end"].as_u64().unwrap());
            assert!(lo <= s && s <= e && e <= hi, "{at}: {} lines {s}-{e} outside {lo}-{hi}", b["name"]);
        }
        for space in f["spaces"].as_array().unwrap() {
            let mine: Vec<&Value> = boxes.iter().filter(|b| b["space"] == space["space"]).collect();
            let hwm = mine.iter().map(|b| b["offset"].as_i64().unwrap() + b["size"].as_i64().unwrap()).max().unwrap();
            assert_eq!(space["hwm"].as_i64(), Some(hwm), "{at}");
            assert_eq!(space["tiles"].as_u64(), Some(mine.len() as u64), "{at}");
            let mut bases: Vec<&str> = mine.iter().map(|b| b["base"].as_str().unwrap()).collect();
            bases.sort();
            bases.dedup();
            assert_eq!(space["bases"].as_u64(), Some(bases.len() as u64), "{at}");
        }
    }
}

#[test]
fn the_real_case_matches_pypto_s_own_tool() {
    let Some(corpus) = common::corpus() else { return };
    let case = corpus.join("cases/decode_fwd_layers");
    let mut ours = json_of(&case, &[]);
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(
            corpus.join("reference/decode_fwd_layers.32_after_AllocateMemoryAddr.memory_map.json"),
        )
        .unwrap(),
    )
    .unwrap();
    // PyPTO's run had no ptoas/ beside the dump; ours detects the arch from it.
    assert_eq!(ours["backend"]["detected"], true);
    ours["backend"]["detected"] = reference["backend"]["detected"].clone();
    // The boxes apart: PyPTO's tool merges aliases over lexical ranges, this map over the ranges the
    // compiler holds (the loop rule), so where a loop holds an accumulator across its chain of
    // names, several of its boxes are one of ours.
    let mut ours_boxes = Vec::new();
    let mut ref_boxes = Vec::new();
    for (o, r) in ours["functions"].as_array_mut().unwrap().iter_mut().zip(reference["functions"].as_array().unwrap()) {
        ours_boxes.push(o["boxes"].take());
        ref_boxes.push(r["boxes"].clone());
    }
    let mut reference = reference;
    // A space's tile count is its boxes': fewer where boxes merged.
    for f in reference["functions"].as_array_mut().unwrap() {
        f["boxes"] = Value::Null;
        for s in f["spaces"].as_array_mut().unwrap() {
            s["tiles"] = Value::Null;
        }
    }
    for f in ours["functions"].as_array_mut().unwrap() {
        for s in f["spaces"].as_array_mut().unwrap() {
            s["tiles"] = Value::Null;
        }
    }
    assert_eq!(only_fields_of(&ours, &reference), reference);
    let (mut merged, mut same) = (0, 0);
    for ((f, ob), rb) in ours["functions"].as_array().unwrap().iter().zip(&ours_boxes).zip(&ref_boxes) {
        let ob = ob.as_array().unwrap();
        let names = |b: &Value| -> Vec<String> {
            std::iter::once(&b["name"])
                .chain(b["aliases"].as_array().unwrap())
                .map(|n| n.as_str().unwrap().to_string())
                .collect()
        };
        for r in rb.as_array().unwrap() {
            let rn = names(r);
            let o = ob
                .iter()
                .find(|o| names(o).contains(&rn[0]))
                .unwrap_or_else(|| panic!("{}: {} not drawn", f["name"], rn[0]));
            let on = names(o);
            assert!(rn.iter().all(|n| on.contains(n)), "{}: {rn:?} split across boxes", f["name"]);
            for k in ["space", "base", "offset", "size", "conflict"] {
                assert_eq!(o[k], r[k], "{}: {} {k}", f["name"], rn[0]);
            }
            // A view there is one here; the compiler's longer ranges can make more.
            assert!(o["view"] == true || r["view"] == false, "{}: {} view", f["name"], rn[0]);
            let (os, oe, rs, re) = (o["start"].as_u64(), o["end"].as_u64(), r["start"].as_u64(), r["end"].as_u64());
            assert!(os <= rs && oe >= re, "{}: {} lines {os:?}-{oe:?} do not cover {rs:?}-{re:?}", f["name"], rn[0]);
            if on.len() == rn.len() && os == rs && oe == re { same += 1 } else { merged += 1 }
        }
        // Every name this map draws that PyPTO's tool does not is a result of a multi-value yield.
        let theirs: Vec<String> = rb.as_array().unwrap().iter().flat_map(names).collect();
        let extra: Vec<String> = ob.iter().flat_map(names).filter(|n| !theirs.contains(n)).collect();
        assert!(extra.iter().all(|n| n.contains("__rv")), "{}: {extra:?}", f["name"]);
    }
    eprintln!("{same} boxes as PyPTO's tool draws them, {merged} merged with others the compiler holds at once");
    assert!(same > merged, "{same} {merged}");
}

/// `ours` cut down to the fields `reference` has: our JSON carries more facts (uses, idle measure,
/// capacities), and every field PyPTO's tool writes must be there with the same value.
fn only_fields_of(ours: &Value, reference: &Value) -> Value {
    match (ours, reference) {
        (Value::Object(o), Value::Object(r)) => Value::Object(
            r.keys().map(|k| (k.clone(), only_fields_of(o.get(k).unwrap_or(&Value::Null), &r[k]))).collect(),
        ),
        (Value::Array(o), Value::Array(r)) if o.len() == r.len() => {
            Value::Array(o.iter().zip(r).map(|(a, b)| only_fields_of(a, b)).collect())
        }
        _ => ours.clone(),
    }
}

#[test]
fn the_three_path_forms_resolve_to_the_same_dump() {
    let case = common::fixtures().join("fx_a2a3_case");
    let by_case = common::without_times(json_of(&case, &[]));
    let by_dir = common::without_times(json_of(&case.join("passes_dump"), &[]));
    let by_file = common::without_times(json_of(&case.join("passes_dump/35_after_AllocateMemoryAddr.py"), &[]));
    assert_eq!(by_case, by_file);
    assert_eq!(by_dir, by_file);
    assert_eq!(by_file["pass_name"], "AllocateMemoryAddr");
    let later = json_of(&case, &["-p", "MaterializeValidShapeSymbols"]);
    assert_eq!(later["pass_name"], "MaterializeValidShapeSymbols");
    assert_eq!(
        later["functions"][0]["boxes"].as_array().unwrap().len(),
        by_file["functions"][0]["boxes"].as_array().unwrap().len()
    );
}

#[test]
fn a_folder_without_the_pass_says_how_to_produce_dumps() {
    let out = run(&[common::fixtures().join("fx_a2a3_case").to_str().unwrap(), "-p", "NoSuchPass"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("NoSuchPass") && err.contains("dump_passes=PassDumpLevel.EXPLICIT"), "{err}");
}

#[test]
fn backend_is_detected_from_ptoas_and_can_be_overridden() {
    let a5 = common::fixtures().join("fx_a5_case");
    let detected = json_of(&a5, &[]);
    assert_eq!(detected["backend"]["name"], "Ascend950");
    assert_eq!(detected["backend"]["arch"], "a5");
    assert_eq!(detected["backend"]["detected"], true);
    let vec = |m: &Value| {
        m["functions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["spaces"].as_array().unwrap().clone())
            .find(|s| s["space"] == "Vec")
            .unwrap()
    };
    assert_eq!(vec(&detected)["limit"], 245_760);
    let forced = json_of(&a5, &["-b", "Ascend910B"]);
    assert_eq!(forced["backend"]["name"], "Ascend910B");
    assert_eq!(vec(&forced)["limit"], 188_416);
    // No ptoas/ beside a loose dump: the default, marked as assumed.
    let loose = json_of(&common::fixtures().join("fx_concise.py"), &[]);
    assert_eq!(loose["backend"]["detected"], false);
}

#[test]
fn an_unknown_backend_is_a_usage_error_listing_the_known_ones() {
    let out = run(&[common::fixtures().join("fx_concise.py").to_str().unwrap(), "-b", "Ascend310"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Ascend910B") && err.contains("Ascend950"), "{err}");
}

#[test]
fn default_output_goes_beside_the_dump() {
    let dir = std::env::temp_dir().join(format!("pmm-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("7_after_AllocateMemoryAddr.py");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_case/passes_dump/32_after_AllocateMemoryAddr.py"),
        &dump,
    )
    .unwrap();
    let out = run(&[dir.to_str().unwrap(), "-f", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = dir.join("7_after_AllocateMemoryAddr.memory_map.json");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("wrote {}", written.display()));
    assert!(written.is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_path_and_bad_bytes_fail_with_exit_1() {
    let out = run(&["/no/such/dump.py"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
    let dir = std::env::temp_dir().join(format!("pmm-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("1_after_AllocateMemoryAddr.py");
    std::fs::write(&bad, b"x = 1\n\xff\xfe\n").unwrap();
    let out = run(&[bad.to_str().unwrap(), "-o", "-"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1_after_AllocateMemoryAddr.py:2:1: not UTF-8"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn split_writes_one_file_per_function() {
    let dir = std::env::temp_dir().join(format!("pmm-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_case");
    for ext in ["svg", "png"] {
        let out = run(&[
            example.to_str().unwrap(),
            "--split",
            "--scale",
            "1",
            "-o",
            dir.join(format!("map.{ext}")).to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        for f in ["qk_matmul", "row_softmax"] {
            let file = dir.join(format!("map.{f}.{ext}"));
            assert!(file.metadata().unwrap().len() > 1000, "{}", file.display());
        }
    }
    let one = std::fs::read_to_string(dir.join("map.row_softmax.svg")).unwrap();
    assert!(one.contains("data-function=\"row_softmax\"") && !one.contains("data-function=\"qk_matmul\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_space_or_function_names_the_valid_ones() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_case");
    let out = run(&[example.to_str().unwrap(), "-f", "svg", "-o", "-", "--hide", "Ub"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Vec, Mat, Left, Right, Acc, Bias"));
    let out = run(&[example.to_str().unwrap(), "-f", "svg", "-o", "-", "--function", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("qk_matmul, row_softmax"));
    let out = run(&[example.to_str().unwrap(), "-f", "svg", "-o", "-", "--zoom", "100"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The page's size goal, on the largest real dump (481 KB, 38 functions): its page is at most twice
/// the dump. Small dumps say nothing here (the page's script and stylesheet alone are 72 KB).
/// What keeps it so: the data and the plan are gzipped (base64), and the cards' static SVGs leave
/// out the `data-*` attributes and tooltips the plan carries, which the standalone SVG keeps.
#[test]
fn the_page_of_the_largest_real_dump_is_at_most_twice_the_dump() {
    let Some(corpus) = common::corpus() else { return };
    let dump = corpus.join("cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py");
    let out = run(&[dump.to_str().unwrap(), "-f", "html", "-o", "-"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (page, dump_bytes) = (String::from_utf8(out.stdout).unwrap(), std::fs::metadata(&dump).unwrap().len());
    let ratio = page.len() as f64 / dump_bytes as f64;
    assert!(ratio <= 2.0, "the page is {} bytes, {ratio:.2}x the dump's {dump_bytes}", page.len());
    assert_eq!(page.matches("<section class=\"card\"").count(), 38);
    assert_eq!(page.matches("<svg ").count(), 38, "every card keeps its static picture");
    assert!(!page.contains(" data-name=") && !page.contains(" data-offset="), "the plan has the boxes' figures");
    let svg = run(&[dump.to_str().unwrap(), "-f", "svg", "-o", "-"]);
    assert!(String::from_utf8_lossy(&svg.stdout).contains(" data-name=\"t__tile\""), "the standalone SVG keeps them");
}
