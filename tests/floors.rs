//! The library is built in floors, and a module may use its own floor and those below, never one
//! above: data flows from the dump text up to the shells, so a change to a shell cannot break the
//! parser, and the lower floors can be read without the upper ones.
//!
//! 0. ground: `units`, `budget`, `error`, `par`, `output` (writing files)
//! 1. the dump and what it means: `dump`, `model`, `backend`, `analyze`, `findings`, `overlap`, `compare`, `cases`,
//!    `pack`
//! 2. the plan: what every back end draws, decided once and scale-free (`plan`)
//! 3. the scene: the plan placed in pixels at one factor (`scene`)
//! 4. back ends: `render` (pictures from the plan and scene; text reports from the model)
//! 5. the library's entry points (`pipeline`: `load`, `render_map`, ..., re-exported by `lib.rs`) and
//!    the option table
//! 6. shells: `check`, `tree` (the site), `server`, and the binary
//!
//! This test reads every source file and fails on a `crate::` path that reaches a higher floor. It
//! reads the code before the file's `#[cfg(test)]` module: a test may use anything.

use std::path::{Path, PathBuf};

/// The floor of a top-level module of the crate.
fn floor(module: &str) -> Option<u8> {
    Some(match module {
        "units" | "budget" | "error" | "par" | "output" | "deflate" | "hashed" => 0,
        "dump" | "model" | "backend" | "analyze" | "findings" | "overlap" | "compare" | "cases" | "pack" => 1,
        "plan" => 2,
        "scene" => 3,
        "render" => 4,
        "lib" | "pipeline" | "option_table" => 5,
        "check" | "tree" | "server" => 6,
        _ => return None,
    })
}

/// The module that the crate root's name `name` belongs to: a module's name is itself, a re-export
/// is the module it comes from, anything else is the root's own (`RenderOptions`, `render_map`).
fn owner(name: &str) -> &str {
    match name {
        "Format" => "render",
        "ViewOptions" => "plan",
        "MemoryMap" => "model",
        "Dump" => "dump",
        "build" => "findings",
        "Error" | "ErrorKind" | "Result" => "error",
        other if floor(other).is_some() => other,
        _ => "lib",
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its tests and comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every name a `crate::` path in `code` starts with: `crate::model::X` gives `model`, and
/// `crate::{A, b::C}` gives `A` and `b`.
fn reached(code: &str) -> Vec<String> {
    reached_from(code, "crate::")
}

/// [`reached`] for paths that start with `prefix` (`crate::`, `super::`).
fn reached_from(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        rest = &rest[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // One level of braces: the first name of each item.
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(std::mem::take(&mut item));
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(item);
        } else {
            out.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out.into_iter()
        .map(|item| item.trim().split("::").next().unwrap_or("").trim().to_string())
        .filter(|name| !name.is_empty() && name != "self")
        .collect()
}

/// The back ends that draw pictures (in `render/`): they take the plan and the scene and nothing
/// else, so what a picture says of the dump is worded once, in the plan, and two back ends cannot
/// word it differently. The text reports (json, txt, md, sarif) are reports of the model by design.
const PICTURES: &[&str] = &["svg", "png", "raster", "coverage", "glyphs", "html", "digest", "overview"];

/// What in `code` (a picture back end's) reaches past the plan and the scene: what
/// [`scene_past_the_plan`] finds, or a `super::` path to anything but another picture back end or the
/// XML writer.
fn past_the_plan(code: &str) -> Vec<String> {
    let mut out = scene_past_the_plan(code);
    for name in reached_from(code, "super::") {
        if !(PICTURES.contains(&name.as_str()) || name == "xml") {
            out.push(format!("super::{name}"));
        }
    }
    out
}

#[test]
fn picture_back_ends_read_the_plan_and_the_scene_not_the_model() {
    let render = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/render");
    let mut wrong = Vec::new();
    for name in PICTURES {
        let text = std::fs::read_to_string(render.join(format!("{name}.rs"))).unwrap();
        for what in past_the_plan(&code(&text)) {
            wrong.push(format!("render/{name}.rs uses {what}"));
        }
    }
    assert!(wrong.is_empty(), "picture back ends that read past the plan and the scene:\n{}", wrong.join("\n"));
}

/// What in `code` (a file of `scene/`) reaches past the plan: a `crate::` path to anything but the
/// ground floor, the plan or the scene itself, or a model type named through a re-export. The scene
/// is a function of the plan alone, so it cannot draw what the plan (and so the page, which draws
/// from the plan) never decided.
fn scene_past_the_plan(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for name in reached(code) {
        let to = owner(&name);
        if !(floor(to) == Some(0) || to == "plan" || to == "scene") {
            out.push(format!("crate::{name}"));
        }
    }
    for model_type in MODEL_TYPES {
        if code.split(|c: char| !c.is_alphanumeric() && c != '_').any(|word| word == *model_type) {
            out.push(model_type.to_string());
        }
    }
    out
}

/// The model's types a drawing module must not name (through any path).
const MODEL_TYPES: &[&str] =
    &["MemoryMap", "FunctionMap", "SpaceUsage", "Finding", "Block", "Tile", "Severity", "MapDiff", "FunctionDiff"];

#[test]
fn the_scene_reads_the_plan_not_the_model() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scene");
    let mut files = Vec::new();
    sources(&scene, &mut files);
    files.sort();
    assert!(files.len() >= 5, "read {} files", files.len());
    let mut wrong = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for what in scene_past_the_plan(&code(&std::fs::read_to_string(file).unwrap())) {
            wrong.push(format!("scene/{name} uses {what}"));
        }
    }
    assert!(wrong.is_empty(), "scene files that read past the plan:\n{}", wrong.join("\n"));
}

#[test]
fn the_scene_check_sees_the_model_however_it_is_named() {
    let fine = "use super::shapes::Card;\nuse crate::plan::{CardPlan, Picture};\nuse crate::units::fmt_bytes;";
    assert!(scene_past_the_plan(fine).is_empty(), "{:?}", scene_past_the_plan(fine));
    for bad in [
        "use crate::model::Block;",
        "use crate::{findings, plan::Plan};",
        "fn f(map: &crate::MemoryMap) {}",
        "fn g(f: &FunctionMap) {}",
        "let d: &compare::MapDiff = x;",
        "use crate::render::svg;",
    ] {
        assert!(!scene_past_the_plan(bad).is_empty(), "not caught: {bad}");
    }
}

#[test]
fn the_picture_check_sees_the_model_however_it_is_named() {
    let fine = "use super::xml::Xml;\nuse crate::plan::Page;\nuse crate::scene::Scene;\nuse crate::{Error, budget};";
    assert!(past_the_plan(fine).is_empty(), "{:?}", past_the_plan(fine));
    for bad in [
        "use crate::model::Block;",
        "use crate::{analyze::live, plan::Plan};",
        "fn f(map: &crate::MemoryMap) {}",
        "let order = super::txt::worst(f);",
        "fn g(f: &FunctionMap) {}",
    ] {
        assert!(!past_the_plan(bad).is_empty(), "not caught: {bad}");
    }
}

#[test]
fn no_module_uses_a_higher_floor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
        let module = first.strip_suffix(".rs").unwrap_or(&first).to_string();
        if module == "main" || module == "cli" {
            continue; // the binary (main.rs and cli/) uses the library's public API, never `crate::`
        }
        let Some(mine) = floor(&module) else {
            wrong.push(format!("{}: module '{module}' has no floor; add it to this test", rel.display()));
            continue;
        };
        seen += 1;
        for name in reached(&code(&std::fs::read_to_string(file).unwrap())) {
            let to = owner(&name);
            match floor(to) {
                Some(theirs) if theirs > mine => {
                    wrong.push(format!("{} (floor {mine}) uses crate::{name} ({to}, floor {theirs})", rel.display()))
                }
                Some(_) => {}
                None => wrong.push(format!("{}: crate::{name} is not a known module", rel.display())),
            }
        }
    }
    assert!(seen > 40, "read {seen} files");
    assert!(wrong.is_empty(), "imports that go up a floor:\n{}", wrong.join("\n"));
}

#[test]
fn the_analysis_never_reads_the_findings() {
    // One floor, one direction: the findings read the analysed map (and its holders); the analysis
    // never asks the findings, so neither can be changed into a cycle with the other.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("analyze.rs")];
    sources(&src.join("analyze"), &mut files);
    assert!(files.len() >= 3, "read {} files", files.len());
    let mut wrong = Vec::new();
    for file in &files {
        for name in reached(&code(&std::fs::read_to_string(file).unwrap())) {
            if owner(&name) == "findings" {
                wrong.push(format!("{} uses crate::{name}", file.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "the analysis reads the findings:\n{}", wrong.join("\n"));
    let findings = code(&std::fs::read_to_string(src.join("findings.rs")).unwrap());
    assert!(
        reached(&findings).iter().any(|n| owner(n) == "analyze"),
        "the check sees the findings' own use of analyze"
    );
}

/// Pairs of files in one folder that use each other, while their owners take them apart (none
/// now); a new pair fails the test.
const KNOWN_CYCLES: &[(&str, &str)] = &[];

/// The sibling files of `dir`'s module that `code` (a file in it) names: `super::x`,
/// `crate::<module>::x` and `use super::{x, y}`.
fn siblings(code: &str, module: &str, names: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in ["super::".to_string(), format!("crate::{module}::")] {
        let mut rest = code;
        while let Some(at) = rest.find(&prefix) {
            rest = &rest[at + prefix.len()..];
            let items: Vec<String> = match rest.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or("").split(',').map(str::to_string).collect(),
                None => vec![rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()],
            };
            for item in items {
                let name = item.trim().split("::").next().unwrap_or("").trim().to_string();
                if names.contains(&name) {
                    out.push(name);
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn no_two_files_of_a_folder_use_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap().flatten() {
        let dir = entry.path();
        if !dir.is_dir() {
            continue;
        }
        let module = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        files.sort();
        let names: Vec<String> = files.iter().map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()).collect();
        let uses: Vec<(String, Vec<String>)> = files
            .iter()
            .zip(&names)
            .map(|(p, n)| (n.clone(), siblings(&code(&std::fs::read_to_string(p).unwrap()), &module, &names)))
            .collect();
        for (a, used) in &uses {
            for b in used.iter().filter(|b| *b > a) {
                if uses.iter().any(|(n, u)| n == b && u.contains(a)) {
                    found.push((format!("{module}/{a}"), format!("{module}/{b}")));
                }
            }
        }
    }
    let new: Vec<_> = found.iter().filter(|(a, b)| !KNOWN_CYCLES.contains(&(a.as_str(), b.as_str()))).collect();
    assert!(new.is_empty(), "files that use each other: {new:?}");
}

#[test]
fn the_reader_sees_paths_and_groups() {
    let text = "use crate::model::{A, B};\nuse crate::{RenderOptions, dump::x, plan::{P, Q}};\n// crate::server\nlet v = crate::budget::limits();";
    let names = reached(&code(text));
    assert_eq!(names, ["model", "RenderOptions", "dump", "plan", "budget"]);
}
