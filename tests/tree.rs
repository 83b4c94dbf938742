//! A build tree at once: `pto-memory-map FOLDER -o SITE` over a folder of cases, with drawn, skipped
//! and broken ones, run as the built binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::TempDir;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().expect("binary runs")
}

/// Two drawable cases (one named with markup characters), one before AllocateMemoryAddr, one
/// compiled with PTOAS, one with no AllocateMemoryAddr dump at all, and one that is not Python.
fn build_tree(root: &Path) {
    let fx = common::fixtures();
    copy_dir(&fx.join("fx_a2a3_case"), &root.join("a2a3/cube & <vector> \"case\""));
    copy_dir(&fx.join("fx_a5_case"), &root.join("a5/mx_matmul"));
    let early = root.join("a2a3/early/passes_dump/35_after_AllocateMemoryAddr.py");
    std::fs::create_dir_all(early.parent().unwrap()).unwrap();
    std::fs::copy(fx.join("fx_a2a3_case/passes_dump/34_after_MemoryReuse.py"), &early).unwrap();
    let ptoas = root.join("a5/ptoas_planner/passes_dump/35_after_AllocateMemoryAddr.py");
    std::fs::create_dir_all(ptoas.parent().unwrap()).unwrap();
    std::fs::copy(fx.join("fx_ptoas_planner.py"), &ptoas).unwrap();
    write(&root.join("a5/no_alloc/passes_dump/20_after_Simplify.py"), "x = 1\n");
    write(&root.join("broken/passes_dump/35_after_AllocateMemoryAddr.py"), "def f(:\n    pass\n");
}

#[test]
fn a_tree_draws_each_case_and_an_index_worst_first() {
    let dir = TempDir::new("site");
    let (root, site) = (dir.0.join("build_output"), dir.0.join("site"));
    build_tree(&root);
    let out = run(&[&root, Path::new("-o"), &site]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // One case failed: exit 1, after drawing all the others.
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("drew 2 cases (5 functions) into "), "{last}");
    assert!(last.contains("skipped 3 [") && last.contains("before AllocateMemoryAddr: 1"), "{last}");
    assert!(last.contains("PTOAS") && last.ends_with("failed 1 [broken]"), "{last}");
    // Not a terminal: one plain line per case, then the error.
    assert_eq!(stderr.lines().filter(|l| l.starts_with('[')).count(), 6, "{stderr}");
    assert!(stderr.contains("failed broken: ") && stderr.contains(":1:7: not valid Python"), "{stderr}");

    let page = site.join("a2a3/cube & <vector> \"case\".html");
    assert!(std::fs::read_to_string(&page).unwrap().contains("fx_vector"));
    assert!(site.join("a5/mx_matmul.html").is_file());
    assert!(!site.join("broken.html").exists() && !site.join("a2a3/early.html").exists());

    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    // Text from the file system is escaped, and links are percent-encoded.
    assert!(index.contains("cube &amp; &lt;vector&gt; &quot;case&quot;") && !index.contains("<vector>"), "{index}");
    assert!(index.contains("href=\"a2a3/cube%20%26%20%3Cvector%3E%20%22case%22.html#fn=fx_vector\""));
    // Worst first: the occupancy column never rises down the table.
    let figures: Vec<f64> = index
        .split("<td class=\"num\">")
        .skip(1)
        .filter_map(|cell| cell.split_once("%<").and_then(|(n, _)| n.parse().ok()))
        .collect();
    assert_eq!(figures.len(), 5, "{index}");
    assert!(figures.windows(2).all(|w| w[0] >= w[1]), "{figures:?}");
    // The conflicts are counted where they are (fx_vector has two conflicting boxes).
    let vector_row = index.split("<tr").find(|r| r.contains("#fn=fx_vector")).unwrap();
    assert!(vector_row.contains("<td class=\"num conflict\">2</td>"), "{vector_row}");
    for why in ["not valid Python", "offset 0", "PTOAS", "PassDumpLevel.EXPLICIT"] {
        assert!(index.contains(why), "{why}");
    }
}

#[test]
fn cases_lists_each_case_with_its_chosen_dump() {
    let dir = TempDir::new("list");
    build_tree(&dir.0);
    let cases = pto_memory_map::tree::cases(&dir.0, "AllocateMemoryAddr").unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["a2a3/cube & <vector> \"case\"", "a2a3/early", "a5/mx_matmul", "a5/no_alloc", "a5/ptoas_planner", "broken"]
    );
    let chosen = cases[0].dump.as_ref().unwrap();
    assert!(chosen.ends_with("passes_dump/35_after_AllocateMemoryAddr.py"), "{}", chosen.display());
    assert!(cases[3].dump.is_err());
    assert!(pto_memory_map::tree::is_tree(&dir.0, "AllocateMemoryAddr"));
    assert!(!pto_memory_map::tree::is_tree(&dir.0.join("a5/mx_matmul"), "AllocateMemoryAddr"));
}

#[test]
fn a_tree_needs_an_output_folder() {
    let dir = TempDir::new("no-out");
    build_tree(&dir.0);
    let out = run(&[&dir.0]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give -o FOLDER"));
}

/// The shared corpus's generated cases: every one drawn, none skipped or failed.
#[test]
fn the_generated_corpus_draws_as_one_site() {
    let Some(corpus) = common::corpus() else { return };
    let dir = TempDir::new("corpus");
    let out = run(&[&corpus.join("generated"), Path::new("-o"), &dir.0]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("drew 14 cases") && last.contains("skipped 0; failed 0"), "{last}");
    assert!(dir.0.join("Ascend950/test_ffn_swiglu_64x64.html").is_file());
}

/// View options apply to each case as far as it has what they name; ones no dump can satisfy
/// are a usage error before anything is drawn.
#[test]
fn view_options_apply_to_each_case_as_far_as_it_goes() {
    let dir = TempDir::new("view");
    let root = dir.0.join("tree");
    copy_dir(&common::fixtures().join("fx_a2a3_case"), &root.join("a2a3"));
    copy_dir(&common::fixtures().join("fx_a5_case"), &root.join("a5"));
    let site = dir.0.join("site");
    let args = |extra: &[&str]| -> Vec<PathBuf> {
        let mut v = vec![root.clone(), "-o".into(), site.clone()];
        v.extend(extra.iter().map(PathBuf::from));
        v
    };
    let run_with = |extra: &[&str]| {
        let a = args(extra);
        run(&a.iter().map(PathBuf::as_path).collect::<Vec<_>>())
    };
    // Only the a5 case has LeftScale; hiding it leaves the a2a3 case as it is.
    let out = run_with(&["-f", "svg", "--hide", "LeftScale", "--hide", "Bias"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let a5 = std::fs::read_to_string(site.join("a5.svg")).unwrap();
    assert!(!a5.contains("data-space=\"LeftScale\"") && a5.contains("data-space=\"RightScale\""));
    assert!(std::fs::read_to_string(site.join("a2a3.svg")).unwrap().contains("data-space=\"Left\""));
    // --function draws the cases that have it and skips the others, saying so.
    let out = run_with(&["-f", "svg", "--function", "fx_relu"]);
    let last = String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("drew 1 case (1 function)") && last.contains("no --function named here: 1"), "{last}");
    let out = run_with(&["--zoom", "100"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("zoom 100"));
}

#[test]
fn a_tree_is_drawn_within_the_runs_limits() {
    // Each case is drawn on a thread of its own; the limits given on the command line go with it.
    let dir = TempDir::new("limits");
    let (root, site) = (dir.0.join("build_output"), dir.0.join("site"));
    copy_dir(&common::fixtures().join("fx_a5_case"), &root.join("a5/mx_matmul"));
    let out = run(&[&root, Path::new("-o"), &site, Path::new("--max-tiles"), Path::new("1")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("over the limit of 1") && stderr.contains("--max-tiles"), "{stderr}");
    assert!(!site.join("a5/mx_matmul.html").exists());
}
