//! The plan and the pictures drawn from it: every back end draws the one plan `layout` makes.

mod common;

use std::path::{Path, PathBuf};

use common::drawable_corpus;
use pto_memory_map::layout;
use pto_memory_map::model::MemoryMap;
use pto_memory_map::plan::labels::{LabelBox, Spot};
use pto_memory_map::plan::{self, px_rules};
use pto_memory_map::plan::{ScaleMode, ViewOptions, XAxis};
use pto_memory_map::{Format, RenderOptions, render_map};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn load(path: &Path) -> MemoryMap {
    pto_memory_map::load(path, "AllocateMemoryAddr", None).expect("fixture draws")
}

/// Every box of the scene is the plan's box placed at the card's factor with the plan's rules:
/// its rectangle by `place`, its label texts by the label rule (`place_lane`), its tooltip the plan's lines.
fn scene_follows_plan(map: &MemoryMap, view: &ViewOptions) {
    let scene = layout(map, view);
    let plan = plan::plan(map, view);
    let px = px_rules();
    for (card, cp) in scene.cards.iter().zip(&plan.cards) {
        assert_eq!(card.function, cp.function);
        let mask = plan::visible_mask(&map.functions[card.index], view);
        let axis = usize::from(view.x_axis == XAxis::Used);
        assert!((cp.factors[axis][mask] * view.zoom - card.px_per_byte).abs() < 1e-12, "{}: factor", card.function);
        for lane in &card.lanes {
            let lp = cp.lanes.iter().find(|l| l.space == lane.space).expect("lane in plan");
            assert_eq!(lane.span, lp.span[axis], "{} {}: span", card.function, lane.space);
            let rows = (cp.last - cp.first + 1) as usize;
            let boxes: Vec<LabelBox> = lane
                .blocks
                .iter()
                .map(|b| {
                    let bp = &cp.boxes[b.index];
                    let rows = ((b.start - cp.first) as usize, (b.end - cp.first) as usize);
                    // Where the plan's axis puts the box in its lane (its rectangle is checked
                    // against this below): the label rule's input, to the last bit.
                    let (x, w) = lane.axis.place(bp.bytes[0], bp.bytes[1], lane.width, px.min_box);
                    LabelBox { x, w, rows, label: &bp.label, key: bp.n }
                })
                .collect();
            let a = &lane.axis;
            let band = a.cut.map(|(from, _)| (a.x(from), a.x(from) + a.px));
            let spots = pto_memory_map::plan::labels::place_lane_around(&boxes, lane.width, rows, &px, band);
            for (bi, b) in lane.blocks.iter().enumerate() {
                let bp = &cp.boxes[b.index];
                // An inset lane has its own factor; the others have the card's.
                let (x, w) = lp.axis(axis, lane.factor).place(bp.bytes[0], bp.bytes[1], lane.width, px.min_box);
                assert!(
                    (b.rect.x - lane.x - x).abs() < 1e-9 && (b.rect.w - w).abs() < 1e-9,
                    "{}: {}",
                    card.function,
                    b.name
                );
                let drawn: Vec<String> = b.label.iter().map(|t| t.content.clone()).collect();
                // The label is the label rule's answer for the lane, inside the box or beside it.
                let texts: Vec<String> = match &spots[bi] {
                    Some(Spot::Inside { fitted, .. }) => [fitted.name.as_deref(), fitted.badge, fitted.detail]
                        .into_iter()
                        .flatten()
                        .filter(|t| !t.is_empty())
                        .map(str::to_string)
                        .collect(),
                    Some(Spot::Beside { text, .. }) => vec![text.to_string()],
                    None => Vec::new(),
                };
                assert_eq!(drawn, texts, "{}: {} label", card.function, b.name);
                assert_eq!(b.tooltip[1..], bp.tip[..], "{}: {} tooltip", card.function, b.name);
                assert!(
                    b.rect.x >= lane.x - 1e-9 && b.rect.x + b.rect.w <= lane.x + lane.width + 1e-6,
                    "{}: {} leaves its lane",
                    card.function,
                    b.name
                );
            }
        }
    }
}

#[test]
fn the_scene_is_the_plan_placed_on_every_corpus_dump() {
    for (path, map) in drawable_corpus() {
        for view in [
            ViewOptions::default(),
            ViewOptions { x_axis: XAxis::Used, ..Default::default() },
            ViewOptions { zoom: 1.6, ..Default::default() },
        ] {
            scene_follows_plan(&map, &view);
        }
        let _ = path;
    }
}

#[test]
fn the_over_capacity_lane_spans_its_high_water_mark_in_svg_png_and_plan() {
    let map = load(&fixture("layout_over_capacity.py"));
    let view = ViewOptions::default();
    scene_follows_plan(&map, &view);
    let cp = &plan::plan(&map, &view).cards[0];
    let vec = &cp.lanes[0];
    assert_eq!(vec.space, "Vec");
    assert_eq!(vec.span, [196_608, 196_608], "192 KiB on both axes, past the 184 KiB capacity");
    assert_eq!(vec.ends[0], "192 KB");
    let scene = layout(&map, &view);
    let lane = &scene.cards[0].lanes[0];
    let right = lane.blocks.iter().map(|b| b.rect.x + b.rect.w).fold(0.0, f64::max);
    assert!((right - (lane.x + lane.width)).abs() < 1e-6, "the last box ends at the lane's edge");
    // The PNG is that SVG, drawn: the same size at its scale.
    let svg =
        String::from_utf8(render_map(&map, &RenderOptions { format: Format::Svg, ..Default::default() }).unwrap())
            .unwrap();
    assert!(svg.contains("data-space=\"Vec\" data-span=\"196608\""));
    let png = render_map(&map, &RenderOptions { format: Format::Png, scale: 1.0, ..Default::default() }).unwrap();
    let size = |b: &[u8]| {
        (u32::from_be_bytes(b[16..20].try_into().unwrap()), u32::from_be_bytes(b[20..24].try_into().unwrap()))
    };
    assert_eq!(size(&png), (scene.width as u32, scene.height as u32));
}

#[test]
fn a_small_space_sets_the_scale_and_hiding_it_gives_the_width_back() {
    let map = load(&fixture("layout_small_space.py"));
    let f = &map.functions[0];
    // Under the strict one-scale rule (the reference tool's); by default Bias is an inset instead.
    let strict = ViewOptions { scale_mode: ScaleMode::Strict, ..Default::default() };
    let cp = plan::card_plan(f, &strict);
    let all = (1usize << f.spaces.len()) - 1;
    let bias = f.spaces.iter().position(|s| s.space == "Bias").expect("a Bias lane");
    // With Bias shown, its 1 KiB lane is held at the minimum width: 72 px per KiB for every lane.
    assert!((cp.factors[0][all] * 1024.0 - 72.0).abs() < 1e-9);
    // Hidden, the other lanes fill the panel again.
    let spans: i64 = cp.lanes.iter().enumerate().filter(|(i, _)| *i != bias).map(|(_, l)| l.span[0]).sum();
    let room = plan::lane_room(1180.0, pto_memory_map::plan::gutter_width(f.src_end), f.spaces.len() - 1);
    assert!((cp.factors[0][all & !(1 << bias)] * spans as f64 - room).abs() < 1e-6);
    let hidden = ViewOptions { hidden: vec!["Bias".into()], ..Default::default() };
    scene_follows_plan(&map, &hidden);
    scene_follows_plan(&map, &strict);
    scene_follows_plan(&map, &ViewOptions::default());
}

#[test]
fn the_page_writes_the_plan_a_batch_of_cards_at_a_time_as_it_is() {
    // More cards than one batch: the fixture's functions many times over.
    let one = load(&fixture("fx_a2a3_case"));
    let mut map = one.clone();
    for k in 0..70 {
        map.functions.extend(one.functions.iter().map(|f| {
            let mut f = f.clone();
            f.name = format!("{}_{k}", f.name);
            f
        }));
    }
    let view = ViewOptions::default();
    let planner = plan::Planner::new(&map, &view);
    assert!(planner.len() > 128, "{}", planner.len());
    let lines = |plan: &dyn plan::PageLines| {
        let mut out = Vec::new();
        plan.write_lines(&mut out).unwrap();
        out
    };
    let streamed = lines(&plan::PlanStream::new(&map, &view, &planner));
    let whole = lines(&plan::plan(&map, &view));
    assert!(streamed == whole, "{} and {} bytes", streamed.len(), whole.len());
    // A line for the head, then one a card.
    assert_eq!(whole.iter().filter(|&&b| b == b'\n').count(), planner.len());
}

/// The page formats no byte count itself: every line's live total and largest free range, in every
/// space of every card, is in the plan's words (which are found only where the live set changes).
/// And the plan's live list names, at every line, the boxes whose lines include it.
#[test]
fn every_line_live_total_and_largest_free_range_has_its_words() {
    for (path, map) in common::drawable_dumps() {
        let plan = plan::plan(&map, &ViewOptions::default());
        for f in &map.functions {
            for s in &f.spaces {
                let windows = pto_memory_map::analyze::reserved_blocks(&f.reserved, &s.space, (f.src_start, f.src_end));
                let mine: Vec<_> = f.blocks.iter().filter(|b| b.tile.space == s.space).chain(&windows).collect();
                let card = plan.cards.iter().find(|c| c.function == f.name).unwrap();
                let li = card.lanes.iter().position(|l| l.space == s.space).unwrap();
                let lane = &card.lanes[li];
                for line in f.src_start..=f.src_end {
                    let (total, largest) = plan::live_at(&mine, plan::live_capacity(s), line);
                    // The lane's changes, looked up, say the same as the rule recomputed.
                    let upto: Vec<&Vec<i64>> = lane.live.iter().take_while(|e| e[0] <= i64::from(line)).collect();
                    let figures = upto.last().map_or((0, 0, 0), |e| (e[1], e[2], e[3]));
                    assert_eq!(figures, (total, largest.offset, largest.size), "{} L{line}", path.display());
                    let mut live = std::collections::BTreeSet::new();
                    for &i in upto.iter().flat_map(|e| &e[4..]) {
                        if !live.remove(&i) {
                            live.insert(i);
                        }
                    }
                    let drawn = |b: &&plan::BoxPlan| b.lane == li && b.lines[0] <= line && line <= b.lines[1];
                    let want = card.boxes.iter().enumerate().filter(|(_, b)| drawn(b)).map(|(i, _)| i as i64).collect();
                    assert_eq!(live, want, "{} {} {} L{line}: the live list", path.display(), f.name, s.space);
                    for v in [total, largest.size] {
                        assert!(plan.words.contains_key(&v), "{}: {} {} L{line}: {v}", path.display(), f.name, s.space);
                    }
                }
            }
        }
        assert!(!plan.words.is_empty(), "{}", path.display());
    }
}

/// The scene is a function of the plan alone: planned, the map can go, and the scene laid out from
/// the plan is the library's scene of the map. (The borrow checker holds the first half: the plan
/// owns everything the scene reads; `tests/floors.rs` holds that the scene names no model type.)
#[test]
fn the_scene_is_laid_out_from_the_plan_alone() {
    let map = load(&fixture("find_overflow.py"));
    let with_finding = map.findings.iter().find_map(|x| x.function.clone()).expect("a function with a finding");
    for view in [
        ViewOptions::default(),
        ViewOptions { functions: vec![with_finding], hidden: vec!["Vec".into()], ..Default::default() },
    ] {
        let want = pto_memory_map::render::svg::render(&layout(&map, &view));
        let owned = map.clone();
        let planner = plan::Planner::new(&owned, &view);
        let plans = planner.cards(0..planner.len());
        let picture = plan::Picture::of(&owned, &view, &planner.panels());
        drop(planner);
        drop(owned); // nothing planned borrows the map it was planned from
        let got = pto_memory_map::render::svg::render(&pto_memory_map::scene::layout(&picture, &plans));
        assert_eq!(got, want);
        assert!(got.contains(&picture.findings.counts), "the header says the plan's counts");
    }
}

/// The page's opening step (`plan::steps`, zoom 1, every lane shown) labels each box as the static
/// picture does: the same text, inside or beside it. The page draws that step's labels, so its
/// opening view and the SVG cannot disagree; `tests/browser/layout.test.mjs` checks the other steps.
#[test]
fn the_pages_opening_step_labels_every_box_as_the_picture_does() {
    use pto_memory_map::plan::steps::StepLabel;
    let mut compared = 0;
    for (path, map) in common::drawable_fixtures() {
        let view = ViewOptions::default();
        let (scene, plan) = (layout(&map, &view), plan::plan(&map, &view));
        for (card, cp) in scene.cards.iter().zip(&plan.cards) {
            for lane in &card.lanes {
                let li = cp.lanes.iter().position(|l| l.space == lane.space).expect("lane in plan");
                let steps = cp.steps[li][0].as_ref().expect("steps on the limit axis");
                assert!(steps.from <= 0, "{}: the steps reach down to the opening view", path.display());
                // Each step lists what changed: replay them up to step 0 (or the last, if it settled).
                let upto = (-steps.from as usize).min(steps.at.len() - 1);
                let mut at = std::collections::HashMap::new();
                for change in steps.at[..=upto].iter().flatten() {
                    let i = match change {
                        StepLabel::None(i) | StepLabel::Inside(i, ..) | StepLabel::Beside(i, ..) => *i,
                    };
                    at.insert(i, change.clone());
                }
                for b in &lane.blocks {
                    let bp = &cp.boxes[b.index];
                    let texts: Vec<&str> = b.label.iter().map(|t| t.content.as_str()).collect();
                    let what = format!("{} {} {}", path.display(), cp.function, bp.label.name);
                    let text = |keyed: u8| if keyed == 1 { bp.n.to_string() } else { bp.label.name.clone() };
                    match at.get(&b.index).unwrap_or_else(|| panic!("{what}: no label in the steps")) {
                        StepLabel::None(_) => assert!(texts.is_empty(), "{what}: {texts:?}"),
                        StepLabel::Inside(_, _, keyed, _) => {
                            assert_eq!(texts.first().copied(), Some(text(*keyed).as_str()), "{what}");
                            assert!(b.leader.is_none(), "{what}: inside, with no leader");
                        }
                        StepLabel::Beside(_, _, keyed, ..) => {
                            assert_eq!(texts, [text(*keyed).as_str()], "{what}");
                            assert!(b.leader.is_some(), "{what}: beside, with its leader");
                        }
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 50, "{compared} boxes compared");
}
