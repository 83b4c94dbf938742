//! The JSON report is written a function at a time on every core (`render/json.rs`): it must be,
//! byte for byte, what serde writes of the whole map in one go, whatever the map holds.

mod common;

use pto_memory_map::model::MemoryMap;
use pto_memory_map::{Format, RenderOptions, render_map};

fn serde_whole(map: &MemoryMap) -> Vec<u8> {
    let mut whole = serde_json::to_vec_pretty(map).unwrap();
    whole.push(b'\n');
    whole
}

fn check(map: &MemoryMap, what: &str) {
    let opts = RenderOptions { format: Format::Json, ..Default::default() };
    let ours = render_map(map, &opts).unwrap();
    let want = serde_whole(map);
    if ours != want {
        let at = ours.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(ours.len().min(want.len()));
        let show = |b: &[u8]| String::from_utf8_lossy(&b[at.saturating_sub(80)..(at + 80).min(b.len())]).into_owned();
        panic!("{what}: the report differs from serde's at byte {at}:\n{}\n---\n{}", show(&ours), show(&want));
    }
}

#[test]
fn the_report_is_serdes_json_of_the_map() {
    let mut dumps = common::drawable_fixtures();
    dumps.extend(common::drawable_corpus_if_any());
    for (path, map) in &dumps {
        check(map, &path.display().to_string());
    }
    // More functions than are written at a time, and none at all.
    let (_, one) = dumps.iter().find(|(_, m)| !m.functions.is_empty()).unwrap();
    let mut many = one.clone();
    let f = many.functions[0].clone();
    many.functions =
        (0..150).map(|i| pto_memory_map::model::FunctionMap { name: format!("f{i}"), ..f.clone() }).collect();
    check(&many, "150 functions");
    let none = MemoryMap { functions: Vec::new(), ..one.clone() };
    check(&none, "no function");
}

#[test]
fn an_unassigned_dump_keeps_its_fields_after_the_functions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx_a2a3_case");
    let early = pto_memory_map::load(&dir, "MemoryReuse", None).unwrap();
    assert!(early.addresses_in.is_some());
    check(&early, "fx_a2a3_case before AllocateMemoryAddr");
}
