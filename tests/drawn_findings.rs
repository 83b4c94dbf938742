//! Findings drawn (issue 14): overflow hatched past a capacity line, the live set at each space's
//! peak under the card, the header's counts, and the page's overview table.

use std::path::{Path, PathBuf};

use pto_memory_map::layout::{ViewOptions, XAxis, layout};
use pto_memory_map::model::MemoryMap;
use pto_memory_map::render::svg;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn load(name: &str) -> MemoryMap {
    pto_memory_map::load(&fixture(name), "AllocateMemoryAddr", None).expect("fixture draws")
}

fn svg_of(map: &MemoryMap, view: &ViewOptions) -> String {
    svg::render(map, &layout(map, view))
}

/// The `<g class="overflow" ...>...</g>` groups of a document.
fn overflow_groups(doc: &str) -> Vec<&str> {
    doc.match_indices("<g class=\"overflow\"").map(|(i, _)| &doc[i..i + doc[i..].find("</g>").unwrap()]).collect()
}

#[test]
fn the_over_capacity_lane_draws_its_capacity_line_and_hatches_the_bytes_past_it() {
    let map = load("find_overflow.py");
    let vec = map.functions[0].spaces.iter().find(|s| s.space == "Vec").unwrap();
    assert!(vec.hwm > vec.limit, "the fixture reaches past the capacity");
    for axis in [XAxis::Limit, XAxis::Used] {
        let view = ViewOptions { x_axis: axis, ..Default::default() };
        let scene = layout(&map, &view);
        let lane = scene.cards[0].lanes.iter().find(|l| l.space == "Vec").unwrap();
        assert!(lane.span >= vec.limit.max(vec.hwm) || axis == XAxis::Used, "the lane spans capacity and hwm");
        let doc = svg_of(&map, &view);
        let groups = overflow_groups(&doc);
        assert_eq!(groups.len(), 1, "{axis:?}: one overflow group, in the Vec lane");
        let g = groups[0];
        assert!(g.contains(&format!("data-capacity=\"{}\"", vec.limit)), "{g}");
        // The capacity line sits at the capacity's x: lane x + limit * factor.
        let x = lane.x + vec.limit as f64 * scene.cards[0].px_per_byte;
        let line = &g[g.find("<line").expect("a capacity line")..];
        let x1: f64 = line["<line x1=\"".len()..].split('"').next().unwrap().parse().unwrap();
        assert!((x1 - x).abs() < 0.6, "{axis:?}: capacity at {x1}, expected {x}");
        assert!(line.contains("stroke=\"#d03b3b\""), "in the critical colour");
        // The hatching: diagonals in the critical colour, all right of the capacity line.
        let path = &g[g.find("<path d=\"").expect("hatching")..];
        assert!(path.contains("stroke=\"#d03b3b\""));
        let d = path["<path d=\"".len()..].split('"').next().unwrap();
        let xs: Vec<f64> = d
            .split(['M', 'L'])
            .filter(|s| !s.is_empty())
            .map(|s| s.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(xs.len() >= 8, "several diagonals: {d}");
        assert!(xs.iter().all(|&v| v >= x - 0.6), "no hatching left of the capacity");
    }
}

#[test]
fn a_map_within_its_capacities_draws_no_overflow() {
    let doc = svg_of(&load("find_conflict.py"), &ViewOptions::default());
    assert!(overflow_groups(&doc).is_empty());
}
