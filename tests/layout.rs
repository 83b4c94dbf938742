//! Properties of the scene (one byte scale per card, the lane spans, hidden spaces) over every corpus dump and over generated maps.

mod common;

use common::{Rng, drawable_dumps, map_of, random_dump};
use pto_memory_map::layout;
use pto_memory_map::model::MemoryMap;
use pto_memory_map::plan::{KEY_PX, RULES, ScaleMode, ViewOptions, WIDE_PX, XAxis, span, text};
use pto_memory_map::scene::{BlockShape, Lane, Shape, Text};

const EPS: f64 = 0.01;

/// Checks every geometric promise of one view of one map.
fn check(map: &MemoryMap, view: &ViewOptions, what: &str) {
    let scene = layout(map, view);
    assert_eq!(scene.cards.len(), map.functions.len(), "{what}");
    for card in &scene.cards {
        let f = &map.functions[card.index];
        let factor = card.px_per_byte;
        assert!(factor > 0.0 && factor.is_finite(), "{what}");
        let mut right = f64::MIN;
        let mut inset_w: Option<f64> = None;
        for lane in &card.lanes {
            let usage = f.spaces.iter().find(|s| s.space == lane.space).unwrap();
            assert_eq!(lane.span, span(usage, view.x_axis), "{what}");
            if view.x_axis == XAxis::Used {
                assert_eq!(lane.span, usage.hwm.max(1), "{what}: used spans the high-water mark");
            }
            // One factor per card, except an inset: a lane too narrow at it, drawn at its own.
            let own = match &lane.inset {
                None => factor,
                Some(inset) => {
                    assert_eq!(view.scale_mode, ScaleMode::Insets, "{what}: no inset in strict mode");
                    let scaled = lane.span - lane.axis.cut.map_or(0, |(from, to)| to - from);
                    assert!(scaled as f64 * factor < RULES.min_lane_px * view.zoom, "{what}: needless inset");
                    // An inset is RULES.inset_px wide at zoom 1, or narrower down to the minimum
                    // lane where the card's other lanes leave less (plan::inset_width): one width
                    // for every inset of the card.
                    let band = lane.axis.px;
                    let (_, px, least) = stretches(lane);
                    let at_one = (lane.width - px - band) / view.zoom + band + least;
                    assert!(
                        (RULES.min_lane_px - EPS..=RULES.inset_px + EPS).contains(&at_one),
                        "{what}: inset width {at_one}"
                    );
                    let first = *inset_w.get_or_insert(at_one);
                    assert!((at_one - first).abs() < EPS, "{what}: insets {first} and {at_one} px wide");
                    assert!(inset.badge.ends_with("not to scale"), "{what}");
                    lane.factor
                }
            };
            assert!((lane.factor - own).abs() < 1e-12, "{what}: the lane's factor");
            // A mostly free lane draws its longest free stretch as a band of fixed width; the bytes
            // either side keep the factor.
            let (scaled, band) = match lane.axis.cut {
                Some((from, to)) => {
                    assert!(view.scale_mode == ScaleMode::Insets, "{what}: no cut in strict mode");
                    assert!(10 * (to - from) >= 6 * lane.span, "{what}: a cut is most of the lane");
                    for b in &lane.blocks {
                        assert!(b.offset + b.size <= from || b.offset >= to, "{what}: {} in the cut", b.name);
                    }
                    (lane.span - (to - from), lane.axis.px)
                }
                None => (lane.span, 0.0),
            };
            assert!(view.scale_mode == ScaleMode::Insets || lane.axis.wide.is_empty(), "{what}: strict widens");
            check_stretches(lane, what);
            let (wide_bytes, wide_px, _) = stretches(lane);
            let width = (scaled - wide_bytes).max(1) as f64 * own + band + wide_px;
            assert!((lane.width - width).abs() < EPS, "{what}: one factor per card, the widened stretches apart");
            assert!(lane.x >= right - EPS, "{what}: lanes never overlap");
            right = lane.x + lane.width;
            if view.zoom == 1.0 {
                assert!(lane.width >= RULES.min_lane_px - EPS, "{what}: {} is {} px", lane.space, lane.width);
            }
            assert!(!view.hidden.contains(&lane.space) || card.lanes.len() == 1, "{what}: hidden lane drawn");
            for b in &lane.blocks {
                let r = &b.rect;
                // The box's bytes at the factor, plus what the stretches over them add.
                let stop = b.offset.saturating_add(b.size.max(0));
                let stretched: f64 = lane
                    .axis
                    .wide
                    .iter()
                    .map(|&(from, to, least)| {
                        let over = (stop.min(to) - b.offset.max(from)).max(0) as f64;
                        let len = (to - from) as f64;
                        over / len * (len * own).max(least) - over * own
                    })
                    .sum();
                let want = (b.size.max(0) as f64 * own + stretched).max(RULES.min_box_px);
                assert!((r.w - want).abs() < EPS, "{what}: {} is {} px, not {want}", b.name, r.w);
                // In the opening view, no box with bytes on its lane is thinner than `WIDE_PX`, and
                // one on widened stretches no thinner than the least of theirs: it is seen apart
                // and carries its key. (A lane whose slivers hold over half its bytes to scale
                // keeps them to scale, or those few bytes would set its scale.)
                let opening = view.zoom == 1.0 && view.hidden.is_empty() && view.scale_mode == ScaleMode::Insets;
                if opening && b.size > 0 && b.offset >= 0 && stop <= lane.span && !mostly_thin(lane) {
                    assert!(r.w >= WIDE_PX - EPS, "{what}: {} is {} px", b.name, r.w);
                    let on = lane.axis.wide.iter().filter(|s| s.0 < stop && s.1 > b.offset);
                    if let Some(least) = on.map(|s| s.2).reduce(f64::min) {
                        assert!(r.w >= least - EPS, "{what}: {} is {} px on {least} px stretches", b.name, r.w);
                    }
                }
                assert!(
                    r.x >= lane.x - EPS && r.x + r.w <= lane.x + lane.width + EPS,
                    "{what}: {} leaves its lane",
                    b.name
                );
                // Its line's row (`plan::RowMap`: no fold skips a line of a box), line for line.
                assert!(!card.rows.folded(b.start) && !card.rows.folded(b.end), "{what}: {} folded", b.name);
                let top = card.body_top + card.rows.row(b.start) * RULES.line_px;
                assert!((r.y - top).abs() < EPS, "{what}: {} top", b.name);
                assert!((r.h - (b.end - b.start + 1) as f64 * RULES.line_px).abs() < EPS, "{what}");
                let o = &b.outline;
                assert!(o.x <= r.x && o.x + o.w >= r.x + r.w, "{what}: the outline is drawn outside the box");
                check_texts(b, what);
            }
        }
        check_keys(card, what);
        let drawn: usize = card.lanes.iter().map(|l| l.blocks.len()).sum();
        let visible = f.blocks.iter().filter(|b| card.lanes.iter().any(|l| l.space == b.tile.space)).count();
        assert_eq!(drawn, visible, "{what}: every block of a visible space is drawn once");
    }
}

/// Whether boxes under `WIDE_PX` at the lane's scale hold over half the bytes of `lane` outside its
/// cut: widened, the few bytes left would set its scale, so the plan leaves them to scale.
fn mostly_thin(lane: &Lane) -> bool {
    let (cut_from, cut_to) = lane.axis.cut.unwrap_or((0, 0));
    let mut thin: Vec<(i64, i64)> = lane
        .blocks
        .iter()
        .filter(|b| (b.size as f64 * lane.axis.k) < WIDE_PX && b.size > 0)
        .map(|b| (b.offset.max(0), b.offset.saturating_add(b.size).min(lane.span)))
        .collect();
    thin.sort_unstable();
    let (mut covered, mut reach) = (0, 0);
    for (from, to) in thin {
        let from = from.max(reach);
        if to > from {
            covered += to - from - (to.min(cut_to) - from.max(cut_from)).max(0);
            reach = to;
        }
    }
    2 * covered > lane.span - (cut_to - cut_from)
}

/// A lane's widened stretches (`plan::Axis`): their bytes, their px at the lane's factor (each at
/// least its least width, `KEY_PX` or `WIDE_PX`), and the least px they take (what the factor made
/// room for at zoom 1).
fn stretches(lane: &Lane) -> (i64, f64, f64) {
    let wide = &lane.axis.wide;
    assert!(wide.iter().all(|s| s.2 == KEY_PX || s.2 == WIDE_PX), "{}: a stretch's least width", lane.space);
    let bytes = wide.iter().map(|&(from, to, _)| to - from).sum();
    let px = wide.iter().map(|&(from, to, least)| ((to - from) as f64 * lane.factor).max(least)).sum();
    (bytes, px, wide.iter().map(|s| s.2).sum())
}

/// A lane's widened stretches are sorted, disjoint, inside the lane, clear of its cut, and each
/// lies inside a box; none under `Strict`.
fn check_stretches(lane: &Lane, what: &str) {
    let wide = &lane.axis.wide;
    for w in wide.windows(2) {
        assert!(w[0].1 <= w[1].0, "{what}: {} stretches {:?} overlap", lane.space, w);
    }
    for &(from, to, _) in wide.iter() {
        assert!(0 <= from && from < to && to <= lane.span, "{what}: stretch {from}..{to}");
        assert!(lane.axis.cut.is_none_or(|(a, z)| to <= a || from >= z), "{what}: a stretch in the cut");
        assert!(
            lane.blocks.iter().any(|b| b.offset <= from && to <= b.offset + b.size),
            "{what}: stretch {from}..{to} of {} in no box",
            lane.space
        );
    }
}

/// Two different names never look the same: a box shows its whole name or a key (digits, which no
/// name is), never a name cut short; each key is shown once, and the card's key lists each one with
/// the box's full name.
fn check_keys(card: &pto_memory_map::scene::Card, what: &str) {
    let mut keys: Vec<u32> = Vec::new();
    let texts: Vec<&str> =
        card.keys.iter().filter_map(|d| if let Shape::Text(t) = d { Some(t.content.as_str()) } else { None }).collect();
    for b in card.lanes.iter().flat_map(|l| &l.blocks) {
        let Some(first) = b.label.first() else { continue };
        assert!(!first.content.contains('…'), "{what}: '{}' is a name cut short", first.content);
        if first.content.chars().all(|c| c.is_ascii_digit()) {
            keys.push(first.content.parse().unwrap());
            let listed = texts.iter().any(|t| t.starts_with(&format!("{} ", b.name)) || *t == b.name);
            assert!(listed, "{what}: key {} of {} is not in the card's key", first.content, b.name);
        } else if first.content != b.name {
            // A box too narrow even for its key shows only the detail line, or nothing.
            assert!(b.label.iter().all(|t| t.size < 11.0), "{what}: '{}' in box {}", first.content, b.name);
        }
    }
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), keys.len(), "{what}: a key drawn twice");
}

/// A box's texts (its label, the idle note) fit inside it and never overprint each other; a label
/// beside the box (joined by a leader) is checked over the whole card by tests/labels.rs.
fn check_texts(b: &BlockShape, what: &str) {
    let inside: &[Text] = if b.leader.is_some() { &[] } else { &b.label };
    let texts: Vec<&Text> = inside
        .iter()
        .chain(b.marks.iter().filter_map(|m| if let Shape::Text(t) = m { Some(t) } else { None }))
        .collect();
    let extent = |t: &Text| (t.x, t.x + text::width(&t.content, t.size), t.y - t.size, t.y);
    for (i, a) in texts.iter().enumerate() {
        let (x0, x1, y0, y1) = extent(a);
        let r = &b.rect;
        assert!(x0 >= r.x - EPS && x1 <= r.x + r.w + EPS, "{what}: '{}' overflows {}", a.content, b.name);
        assert!(y0 >= r.y - EPS && y1 <= r.y + r.h + EPS, "{what}: '{}' leaves {} vertically", a.content, b.name);
        for c in &texts[i + 1..] {
            let (u0, u1, v0, v1) = extent(c);
            let apart = x1 <= u0 + EPS || u1 <= x0 + EPS || y1 <= v0 + EPS || v1 <= y0 + EPS;
            assert!(apart, "{what}: '{}' and '{}' overprint in {}", a.content, c.content, b.name);
        }
    }
}

fn views(map: &MemoryMap) -> Vec<(String, ViewOptions)> {
    let first_space = map.functions[0].spaces[0].space.clone();
    vec![
        ("default".into(), ViewOptions::default()),
        ("used".into(), ViewOptions { x_axis: XAxis::Used, ..Default::default() }),
        ("zoom 2.56".into(), ViewOptions { zoom: 2.56, ..Default::default() }),
        ("zoom 0.2".into(), ViewOptions { zoom: 0.2, ..Default::default() }),
        ("narrow".into(), ViewOptions { width: 400.0, ..Default::default() }),
        (format!("hide {first_space}"), ViewOptions { hidden: vec![first_space], ..Default::default() }),
        ("strict".into(), ViewOptions { scale_mode: ScaleMode::Strict, ..Default::default() }),
        (
            "strict used".into(),
            ViewOptions { scale_mode: ScaleMode::Strict, x_axis: XAxis::Used, ..Default::default() },
        ),
    ]
}

#[test]
fn scene_properties_hold_on_every_corpus_dump() {
    for (path, map) in drawable_dumps() {
        for (name, view) in views(&map) {
            check(&map, &view, &format!("{} ({name})", path.display()));
        }
    }
}

#[test]
fn scene_properties_hold_on_generated_maps() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..60 {
        let text = random_dump(&mut rng, 1 + (round % 4));
        let map = map_of(&text);
        for (name, view) in views(&map) {
            check(&map, &view, &format!("generated #{round} ({name})"));
        }
    }
}

#[test]
fn hiding_a_space_gives_its_width_to_the_others_at_one_scale() {
    let map = pto_memory_map::load(&common::fixtures().join("fx_a2a3_case"), "AllocateMemoryAddr", None).unwrap();
    // Its 256-byte Bias lane would set the scale (72 px for 1 KiB) and widen the card past the
    // panel, so it is hidden on both sides.
    let all = layout(&map, &ViewOptions { hidden: vec!["Bias".into()], ..Default::default() });
    let hidden = layout(&map, &ViewOptions { hidden: vec!["Bias".into(), "Left".into()], ..Default::default() });
    let (a, h) = (&all.cards[0], &hidden.cards[0]);
    assert!(a.lanes.iter().any(|l| l.space == "Left") && !h.lanes.iter().any(|l| l.space == "Left"));
    assert_eq!(h.lanes.len(), a.lanes.len() - 1);
    // Less what the widened stretches take past their least width as the scale grows.
    let past = |l: &Lane| stretches(l).1 - stretches(l).2;
    let total = |c: &pto_memory_map::scene::Card| c.lanes.iter().map(|l| l.width - past(l)).sum::<f64>();
    // The panel stays filled: the lanes left take the hidden one's width and its live-bytes column.
    let freed = RULES.profile_px + 4.0;
    assert!((total(h) - total(a) - freed).abs() < 1.0, "the panel stays filled: {} vs {}", total(a), total(h));
    assert!(h.px_per_byte > a.px_per_byte);
}

#[test]
fn the_last_visible_space_stays() {
    let map = pto_memory_map::load(&common::fixtures().join("fx_concise.py"), "AllocateMemoryAddr", None).unwrap();
    let scene = layout(&map, &ViewOptions { hidden: vec!["Vec".into()], ..Default::default() });
    assert_eq!(scene.cards[0].lanes.len(), 1);
}

#[test]
fn zoom_multiplies_the_factor() {
    let map = pto_memory_map::load(&common::example(), "AllocateMemoryAddr", None).unwrap();
    let one = layout(&map, &ViewOptions::default());
    let zoomed = layout(&map, &ViewOptions { zoom: 1.6, ..Default::default() });
    for (a, b) in one.cards.iter().zip(&zoomed.cards) {
        assert!((b.px_per_byte / a.px_per_byte - 1.6).abs() < 1e-9);
    }
}

/// Values a printer could write but no allocator would: an empty size, a tile past the space's
/// capacity. They are drawn, inside their lanes, in every format (negative numbers are refused
/// where they are read).
#[test]
fn odd_memref_values_stay_inside_their_lanes_in_every_format() {
    let text = "import pypto.language as pl\n@pl.program\nclass g:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self):\n"
        .to_string()
        + &[("neg", 0, 128), ("empty", 256, 0), ("negative", 1000, 1), ("over", 180000, 65536)]
            .iter()
            .map(|(n, o, s)| {
                format!("        {n}: pl.Tile[[4], pl.FP32, pl.MemRef(mem_v, {o}, {s}), pl.Mem.Vec] = pl.tile.load(x)\n")
            })
            .collect::<String>()
        + "        y = pl.tile.add(neg, empty, negative, over)\n        return\n";
    let map = map_of(&text);
    for (name, view) in views(&map) {
        check(&map, &view, &format!("odd values ({name})"));
    }
    for format in [pto_memory_map::Format::Svg, pto_memory_map::Format::Html, pto_memory_map::Format::Json] {
        let opts = pto_memory_map::RenderOptions { format, ..Default::default() };
        assert!(!pto_memory_map::render_map(&map, &opts).unwrap().is_empty());
    }
}

/// `--scale-mode strict` keeps the one-scale rule: every card's factor is the one that fills the
/// panel (less its line numbers and live-bytes columns), grown until the narrowest visible lane is the minimum wide, and no lane is an inset.
#[test]
fn strict_mode_keeps_one_scale_for_every_lane() {
    for (path, map) in drawable_dumps() {
        for axis in [XAxis::Limit, XAxis::Used] {
            let view = ViewOptions { scale_mode: ScaleMode::Strict, x_axis: axis, ..Default::default() };
            for card in &layout(&map, &view).cards {
                let spans: Vec<i64> = card.lanes.iter().map(|l| l.span).collect();
                let gutter = pto_memory_map::plan::gutter_width(map.functions[card.index].src_end);
                let room = pto_memory_map::plan::lane_room(view.width, gutter, spans.len());
                let want = pto_memory_map::plan::px_per_byte(&spans, room, 1.0);
                assert!((card.px_per_byte - want).abs() < 1e-12, "{}: {}", path.display(), card.function);
                assert!(card.lanes.iter().all(|l| l.inset.is_none() && l.factor == card.px_per_byte));
            }
        }
    }
}
