//! Findings drawn: overflow hatched past a capacity line, the live set at each space's
//! peak under the card, the header's counts, and the page's overview table.

mod common;

use std::path::{Path, PathBuf};

use pto_memory_map::layout;
use pto_memory_map::model::{MemoryMap, Severity};
use pto_memory_map::plan;
use pto_memory_map::plan::overview;
use pto_memory_map::plan::{ViewOptions, XAxis};
use pto_memory_map::render::svg;
use pto_memory_map::units::fmt_bytes;
use pto_memory_map::{Format, RenderOptions, render_map};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn load(name: &str) -> MemoryMap {
    pto_memory_map::load(&fixture(name), "AllocateMemoryAddr", None).expect("fixture draws")
}

fn svg_of(map: &MemoryMap, view: &ViewOptions) -> String {
    svg::render(&layout(map, view))
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

fn count(map: &MemoryMap, sev: Severity) -> usize {
    map.findings.iter().filter(|f| f.severity == sev).count()
}

#[test]
fn the_header_counts_findings_by_severity_and_names_the_errors() {
    let map = load("find_conflict.py");
    let (e, w, n) = (count(&map, Severity::Error), count(&map, Severity::Warning), count(&map, Severity::Note));
    assert_eq!(e, 2, "the fixture has two conflicts");
    let doc = svg_of(&map, &ViewOptions::default());
    let header = &doc[doc.find("<g class=\"header\">").unwrap()..];
    let header = &header[..header.find("<g class=\"card\"").unwrap()];
    let word = |k: usize, w: &str| format!("{k} {w}{}", if k == 1 { "" } else { "s" });
    let counts = format!("findings: {}, {}, {}", word(e, "error"), word(w, "warning"), word(n, "note"));
    assert!(header.contains(&counts), "{counts} in {header}");
    for f in map.findings.iter().filter(|f| f.severity == Severity::Error) {
        let row = format!("error {} · clash Vec L{}", f.code, f.line.unwrap());
        assert!(header.contains(&row), "{row}");
    }
    assert!(!header.contains("more errors"));
}

/// A Vec with `k` tiles each past the capacity: `k` overflow errors.
fn many_overflows(k: usize) -> String {
    let mut text = String::from(
        "import pypto.language as pl\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self):\n",
    );
    for i in 0..k {
        let offset = 188416 + i * 1024;
        text.push_str(&format!(
            "        t{i}: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_{i}, {offset}, 1024), pl.Mem.Vec] = pl.tile.load(x)\n"
        ));
    }
    text.push_str("        return\n");
    text
}

#[test]
fn the_header_names_every_error_and_warning_and_wraps_rather_than_cuts() {
    let map = common::map_of(&many_overflows(5));
    assert_eq!(count(&map, Severity::Error), 5);
    let doc = svg_of(&map, &ViewOptions::default());
    assert_eq!(doc.matches("error overflow · f Vec").count(), 5, "every error named");
    assert!(!doc.contains("more errors") && !doc.contains('…'), "nothing left out or cut");
    // A narrow picture wraps a long message onto further rows rather than cutting it.
    let narrow = svg_of(&map, &ViewOptions { width: 300.0, ..Default::default() });
    assert!(!narrow.contains('…'), "no message cut");
    let message = &map.findings.iter().find(|f| f.severity == Severity::Error).unwrap().message;
    let last_word = message.split(' ').next_back().unwrap();
    assert!(narrow.contains(last_word), "the end of the message is drawn: {last_word}");
    // The cards move down by the rows the header adds, and nothing overlaps the first card.
    let scene = layout(&map, &ViewOptions::default());
    let quiet = layout(&load("find_waste.py"), &ViewOptions::default());
    assert!(scene.cards[0].frame.y > quiet.cards[0].frame.y + 3.0 * 16.0);
}

#[test]
fn a_line_under_each_card_says_what_holds_each_space_at_its_peak() {
    for name in ["find_conflict.py", "find_overflow.py", "find_idle.py"] {
        let map = load(name);
        let doc = svg_of(&map, &ViewOptions::default());
        for f in &map.functions {
            for s in f.spaces.iter().filter(|s| s.peak.bytes > 0) {
                let first = &s.peak.live[0];
                let line = format!(
                    "{} peak {} at L{}: {} {}",
                    s.space,
                    fmt_bytes(s.peak.bytes),
                    s.peak.line,
                    first.name,
                    fmt_bytes(first.size)
                );
                assert!(doc.contains(&line), "{name}: {line}");
            }
        }
    }
}

#[test]
fn the_page_opens_with_every_function_worst_first_and_badges_its_errors() {
    let path = common::example();
    let map = pto_memory_map::load(&path, "AllocateMemoryAddr", None).expect("example draws");
    let opts = RenderOptions { format: Format::Html, ..Default::default() };
    let page = String::from_utf8(render_map(&map, &opts).unwrap()).unwrap();
    let table = &page[page.find("<table class=\"ov\">").expect("an overview table")..];
    let table = &table[..table.find("</table>").unwrap()];
    assert!(page.find("<table class=\"ov\">") < page.find("<section class=\"card\""), "before the cards");
    let rows: Vec<&str> = table
        .match_indices("<tr data-function=\"")
        .map(|(i, m)| table[i + m.len()..].split('"').next().unwrap())
        .collect();
    let mut names: Vec<&str> = map.functions.iter().map(|f| f.name.as_str()).collect();
    let mut sorted = rows.clone();
    sorted.sort_unstable();
    names.sort_unstable();
    assert_eq!(sorted, names, "one row per function");
    let errors = |n: &str| {
        map.findings.iter().filter(|f| f.function.as_deref() == Some(n) && f.severity == Severity::Error).count()
    };
    assert!(rows.windows(2).all(|w| errors(w[0]) >= errors(w[1])), "errors first: {rows:?}");
    assert!(errors(rows[0]) > 0, "the example has conflicts, and their function leads");
    assert_eq!(rows, overview::worst_first(&map).iter().map(|f| f.name.as_str()).collect::<Vec<_>>());
    // Each row links to its card; each card with errors carries a badge per code.
    for f in &map.functions {
        assert!(table.contains(&format!("href=\"#fn-{}\"", f.name)));
        assert!(page.contains(&format!("id=\"fn-{}\"", f.name)));
    }
    let badges = page.matches("class=\"badge err\"").count();
    assert!(badges >= 1 && badges <= count(&map, Severity::Error));
    // The worst function's card is the one open (the example's worst is its second function),
    // and the cards keep the dump's order.
    assert_ne!(rows[0], map.functions[0].name);
    let open: Vec<&str> = page
        .split("<section class=\"card\" data-function=\"")
        .skip(1)
        .filter(|s| s[..s.find("</summary>").unwrap()].contains("<details class=\"card-details\" open"))
        .map(|s| s.split('"').next().unwrap())
        .collect();
    assert_eq!(open, [rows[0]]);
    let order: Vec<&str> =
        page.split("<section class=\"card\" data-function=\"").skip(1).map(|s| s.split('"').next().unwrap()).collect();
    assert_eq!(order, map.functions.iter().map(|f| f.name.as_str()).collect::<Vec<_>>());
}

#[test]
fn the_overview_puts_the_corpus_worst_first() {
    for (path, map) in common::drawable_corpus() {
        let order = overview::worst_first(&map);
        let key = |f: &pto_memory_map::model::FunctionMap| {
            let n =
                |s| map.findings.iter().filter(|x| x.function.as_deref() == Some(&f.name) && x.severity == s).count();
            let worst =
                f.spaces.iter().filter(|s| s.limit > 0).map(|s| s.hwm as f64 / s.limit as f64).fold(0.0, f64::max);
            (n(Severity::Error), n(Severity::Warning), worst)
        };
        for w in order.windows(2) {
            let (a, b) = (key(w[0]), key(w[1]));
            assert!(
                (a.0, a.1) > (b.0, b.1) || ((a.0, a.1) == (b.0, b.1) && a.2 >= b.2),
                "{}: {a:?} {b:?}",
                path.display()
            );
        }
    }
}

#[test]
fn the_live_rule_of_the_plan_gives_the_model_s_live_bytes_at_every_line() {
    for (path, map) in common::drawable_corpus() {
        let view = ViewOptions::default();
        let p = plan::plan(&map, &view);
        for f in &map.functions {
            for s in &f.spaces {
                // The boxes and the placed windows (every line): what the page's live list lists.
                let windows = pto_memory_map::analyze::reserved_blocks(&f.reserved, &s.space, (f.src_start, f.src_end));
                let mine: Vec<_> = f.blocks.iter().filter(|b| b.tile.space == s.space).chain(&windows).collect();
                for (i, line) in (f.src_start..=f.src_end).enumerate() {
                    let (total, largest) = plan::live_at(&mine, plan::live_capacity(s), line);
                    assert_eq!(total, s.profile[i], "{} {} {} L{line}", path.display(), f.name, s.space);
                    assert_eq!(p.words.get(&total), Some(&fmt_bytes(total)));
                    assert_eq!(p.words.get(&largest.size), Some(&fmt_bytes(largest.size)));
                }
            }
        }
    }
}
