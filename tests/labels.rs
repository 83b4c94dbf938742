//! Every box named on the map itself: in the SVG of every drawable corpus dump and fixture, each
//! `g.box[data-name]` carries visible text, its name or its key, inside the box or joined to it by a
//! leader; each key shown is the box's line in the card's key list; keys run in reading order (top to
//! bottom, then left to right); no two labels overlap, and no label beside a box lies on another box.
//! A label beside its box is near it: its text within two line-heights of the box vertically and
//! within 40 px across, its leader crossing no other box and running along no other box's edge.

mod common;

use pto_memory_map::model::MemoryMap;
use pto_memory_map::plan::ViewOptions;
use pto_memory_map::{Format, RenderOptions, render_map};

/// An element's attribute, unescaped.
fn attr(tag: &str, name: &str) -> Option<String> {
    let pat = format!(" {name}=\"");
    let at = tag.find(&pat)? + pat.len();
    Some(unescape(tag[at..].split('"').next()?))
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no {name} in {tag}"))
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// A rectangle: left, top, right, bottom.
type Bounds = [f64; 4];

fn overlap(a: &Bounds, b: &Bounds, slack: f64) -> bool {
    a[0] + slack < b[2] && b[0] + slack < a[2] && a[1] + slack < b[3] && b[1] + slack < a[3]
}

/// One text of a box's label, with its bounds (the font is monospaced: 0.6 em a character; a glyph
/// rises three quarters of the size above the baseline and falls a quarter below).
#[derive(Debug)]
struct Label {
    text: String,
    bounds: Bounds,
}

#[derive(Debug)]
struct BoxSeen {
    name: String,
    key: Option<usize>,
    lane: usize,
    offset: i64,
    start: i64,
    rect: Bounds,
    leader: Option<[f64; 4]>,
    labels: Vec<Label>,
}

/// The boxes of one card's SVG text (from its `<g class="card"` to the next), and its key list.
fn read_card(card: &str) -> (Vec<BoxSeen>, Vec<(usize, String)>) {
    let mut boxes = Vec::new();
    for (lane, lane_text) in card.split("<g class=\"lane").skip(1).enumerate() {
        for part in lane_text.split("<g class=\"box").skip(1) {
            let open = &part[..part.find('>').unwrap()];
            let body = &part[..part.find("</g>").unwrap_or(part.len())];
            // The box's own texts and leader follow its last rect (the outline); marks come before.
            let rects: Vec<&str> = body.match_indices("<rect").map(|(i, _)| &body[i..]).collect();
            let fill = rects[0];
            let rect = [
                num(fill, "x"),
                num(fill, "y"),
                num(fill, "x") + num(fill, "width"),
                num(fill, "y") + num(fill, "height"),
            ];
            let tail = &body[body.rfind("<rect").unwrap()..];
            let leader = tail.find("<line").map(|i| {
                let l = &tail[i..];
                [num(l, "x1"), num(l, "y1"), num(l, "x2"), num(l, "y2")]
            });
            let mut labels = Vec::new();
            for (i, _) in tail.match_indices("<text") {
                let t = &tail[i..];
                let head = &t[..t.find('>').unwrap()];
                let text = unescape(&t[head.len() + 1..t.find("</text>").unwrap()]);
                let size = attr(head, "font-size").and_then(|s| s.parse().ok()).unwrap_or(10.0);
                let (x, y) = (num(head, "x"), num(head, "y"));
                let w = text.chars().count() as f64 * 0.6 * size;
                let x0 = if head.contains("text-anchor=\"end\"") { x - w } else { x };
                labels.push(Label { text, bounds: [x0, y - 0.75 * size, x0 + w, y + 0.25 * size] });
            }
            boxes.push(BoxSeen {
                name: attr(open, "data-name").unwrap(),
                key: attr(open, "data-key").map(|k| k.parse().unwrap()),
                lane,
                offset: num(open, "data-offset") as i64,
                start: num(open, "data-start") as i64,
                rect,
                leader,
                labels,
            });
        }
    }
    let mut keys = Vec::new();
    if let Some(at) = card.find("<g class=\"key-list\">") {
        let list = &card[at..];
        let list = &list[..list.find("<g class=\"lane").unwrap_or(list.len())];
        let texts: Vec<String> = list
            .match_indices("<text")
            .map(|(i, _)| {
                let t = &list[i..];
                unescape(&t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
            })
            .collect();
        // The head, then each key followed by its line, which a long entry continues on more lines,
        // each indented (broken between names, never inside one).
        let mut texts = texts[1..].iter().peekable();
        while let (Some(key), Some(line)) = (texts.next(), texts.next()) {
            let mut line = line.clone();
            while let Some(more) = texts.next_if(|t| t.starts_with("  ")) {
                line = format!("{line} {}", more.trim_start());
            }
            keys.push((key.parse().unwrap_or_else(|_| panic!("a key list key: {key}")), line));
        }
    }
    (boxes, keys)
}

/// What [`check`] counted.
#[derive(Default, Debug)]
struct Counts {
    boxes: usize,
    beside: usize,
    keyed: usize,
    /// Labels beside their box farther than [`NEAR_X`] across or [`NEAR_Y`] up or down.
    far: usize,
    /// Leaders that cross another box or run along its edge.
    astray: usize,
}

impl Counts {
    fn add(&mut self, c: Counts) {
        self.boxes += c.boxes;
        self.beside += c.beside;
        self.keyed += c.keyed;
        self.far += c.far;
        self.astray += c.astray;
    }
}

/// Farthest a label beside its box may be: two line-heights down or up, 40 px across.
const NEAR_Y: f64 = 2.0 * 17.0;
const NEAR_X: f64 = 40.0;

/// How far apart two spans are (0 where they touch or overlap).
fn gap(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.0 - a.1).max(a.0 - b.1).max(0.0)
}

/// Whether the segment `l` passes through the inside of `r` (shrunk by half a px): clipped to the
/// rectangle's x span, its y span must enter the rectangle's.
fn crosses(l: &[f64; 4], r: &Bounds) -> bool {
    let r = [r[0] + 0.5, r[1] + 0.5, r[2] - 0.5, r[3] - 0.5];
    let [x1, y1, x2, y2] = *l;
    let (lo, hi) = (x1.min(x2).max(r[0]), x1.max(x2).min(r[2]));
    if lo > hi {
        return false;
    }
    let y_at = |x: f64| {
        if (x2 - x1).abs() < 1e-9 {
            (y1, y2)
        } else {
            let y = y1 + (y2 - y1) * (x - x1) / (x2 - x1);
            (y, y)
        }
    };
    let (a, b) = (y_at(lo), y_at(hi));
    let (ylo, yhi) = (a.0.min(a.1).min(b.0).min(b.1), a.0.max(a.1).max(b.0).max(b.1));
    ylo < r[3] && yhi > r[1]
}

/// Whether the segment `l` runs along an edge of `r`: parallel to it, within 2 px, for over 10 px.
fn along(l: &[f64; 4], r: &Bounds) -> bool {
    let [x1, y1, x2, y2] = *l;
    let shared = |a: (f64, f64), b: (f64, f64)| a.1.min(b.1) - a.0.max(b.0);
    let flat = (y2 - y1).abs() < 0.5;
    let upright = (x2 - x1).abs() < 0.5;
    let xs = (x1.min(x2), x1.max(x2));
    let ys = (y1.min(y2), y1.max(y2));
    (flat && [r[1], r[3]].iter().any(|&e| (y1 - e).abs() <= 2.0) && shared(xs, (r[0], r[2])) > 10.0)
        || (upright && [r[0], r[2]].iter().any(|&e| (x1 - e).abs() <= 2.0) && shared(ys, (r[1], r[3])) > 10.0)
}

/// Checks every card of `svg`; panics with `what` on the first box that breaks a rule.
fn check(svg: &str, what: &str) -> Counts {
    let mut counts = Counts::default();
    for card in svg.split("<g class=\"card\"").skip(1) {
        let function = attr(&card[..card.find('>').unwrap()], "data-function").unwrap_or_default();
        let (boxes, keys) = read_card(card);
        let at = format!("{what} {function}");
        let key_line = |k: usize| keys.iter().find(|(n, _)| *n == k).map(|(_, l)| l.as_str());
        for b in &boxes {
            counts.boxes += 1;
            let shown = b.labels.first();
            let Some(shown) = shown else {
                panic!("{at}: the box {} ({:?}) carries no text", b.name, b.rect);
            };
            match b.key {
                Some(k) => {
                    counts.keyed += 1;
                    assert_eq!(shown.text, k.to_string(), "{at}: the box {} shows {} for key {k}", b.name, shown.text);
                    let line =
                        key_line(k).unwrap_or_else(|| panic!("{at}: key {k} ({}) is not in the key list", b.name));
                    assert!(
                        line == b.name || line.starts_with(&format!("{} ", b.name)),
                        "{at}: key {k} is the box {}, the key list says {line}",
                        b.name
                    );
                }
                None => assert_eq!(shown.text, b.name, "{at}: a box shows neither its whole name nor a key"),
            }
            let inside = b.labels.iter().all(|l| {
                l.bounds[0] >= b.rect[0] - 0.02
                    && l.bounds[2] <= b.rect[2] + 0.02
                    && l.bounds[1] >= b.rect[1] - 0.02
                    && l.bounds[3] <= b.rect[3] + 0.02
            });
            if !inside {
                counts.beside += 1;
                let l = b.leader.unwrap_or_else(|| panic!("{at}: {}'s label is outside it with no leader", b.name));
                let on_edge = |x: f64, y: f64, r: &Bounds, slack: f64| {
                    x >= r[0] - slack && x <= r[2] + slack && y >= r[1] - slack && y <= r[3] + slack
                };
                assert!(on_edge(l[0], l[1], &b.rect, 0.02), "{at}: {}'s leader does not start at the box", b.name);
                assert!(on_edge(l[2], l[3], &shown.bounds, 1.5), "{at}: {}'s leader does not reach its label", b.name);
                let (dx, dy) = (
                    gap((shown.bounds[0], shown.bounds[2]), (b.rect[0], b.rect[2])),
                    gap((shown.bounds[1], shown.bounds[3]), (b.rect[1], b.rect[3])),
                );
                if dx > NEAR_X + 0.5 || dy > NEAR_Y + 0.5 {
                    counts.far += 1;
                    eprintln!("{at}: {}'s label {:?} is {dx:.1} px across, {dy:.1} px up or down", b.name, shown.text);
                }
                let mut astray = false;
                for o in boxes.iter().filter(|o| o.lane == b.lane && !std::ptr::eq(*o, b)) {
                    // A box the leader starts in (the base a view looks into) is its own ground.
                    let r = &o.rect;
                    let starts_in = l[0] >= r[0] && l[0] <= r[2] && l[1] >= r[1] && l[1] <= r[3];
                    if !starts_in && (crosses(&l, r) || along(&l, r)) && !astray {
                        astray = true;
                        counts.astray += 1;
                        eprintln!("{at}: {}'s leader {l:?} crosses or runs along the box {}", b.name, o.name);
                    }
                    assert!(
                        !overlap(&shown.bounds, &o.rect, 0.5),
                        "{at}: {}'s label {:?} lies on the box {}",
                        b.name,
                        shown.text,
                        o.name
                    );
                }
            }
        }
        // No two labels overlap (sorted by left edge, each against those that start before it ends).
        let mut all: Vec<(&Label, &str)> =
            boxes.iter().flat_map(|b| b.labels.iter().map(move |l| (l, b.name.as_str()))).collect();
        all.sort_by(|a, b| a.0.bounds[0].total_cmp(&b.0.bounds[0]));
        for (i, (a, an)) in all.iter().enumerate() {
            for (b, bn) in all[i + 1..].iter().take_while(|(b, _)| b.bounds[0] < a.bounds[2]) {
                assert!(
                    !overlap(&a.bounds, &b.bounds, 0.5),
                    "{at}: the labels {:?} ({an}) and {:?} ({bn}) overlap",
                    a.text,
                    b.text
                );
            }
        }
        // Keys in reading order: top to bottom, then left to right.
        let mut keyed: Vec<&BoxSeen> = boxes.iter().filter(|b| b.key.is_some()).collect();
        keyed.sort_by_key(|b| (b.start, b.lane, b.offset));
        let order: Vec<usize> = keyed.iter().filter_map(|b| b.key).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{at}: keys out of reading order: {order:?}");
        let mut listed: Vec<usize> = keys.iter().map(|(k, _)| *k).collect();
        assert!(listed.windows(2).all(|w| w[0] < w[1]), "{at}: the key list is out of order: {listed:?}");
        listed.sort_unstable();
        let mut shown = order.clone();
        shown.sort_unstable();
        assert_eq!(listed, shown, "{at}: the key list names other keys than the boxes show");
    }
    counts
}

fn svg_of(map: &MemoryMap, view: ViewOptions) -> String {
    let opts = RenderOptions { format: Format::Svg, view, ..Default::default() };
    String::from_utf8(render_map(map, &opts).unwrap()).unwrap()
}

#[test]
fn every_box_of_every_corpus_dump_is_named_on_the_map() {
    let mut total = Counts::default();
    for (path, map) in common::drawable_corpus() {
        total.add(check(&svg_of(&map, ViewOptions::default()), &path.display().to_string()));
    }
    eprintln!("corpus: {total:?}");
    // A sliver is drawn wide enough for its key, so none needs a leader through its crowd (6 far
    // and 9 crossing of 1 466 boxes while slivers were drawn 4 px wide).
    assert_eq!(total.far + total.astray, 0, "{total:?}");
}

#[test]
fn every_box_of_the_fixtures_is_named_at_any_width_and_zoom() {
    let mut dumps = common::drawable_fixtures();
    for name in ["fx_labels_crowded.py", "layout_small_space.py", "inset_a5_scales.py", "find_conflict.py"] {
        let path = common::fixtures().join(name);
        dumps.push((path.clone(), pto_memory_map::load(&path, "AllocateMemoryAddr", None).unwrap()));
    }
    for (path, map) in dumps {
        for (width, zoom) in [(1180.0, 1.0), (300.0, 1.0), (1180.0, 0.25), (1180.0, 4.0)] {
            let view = ViewOptions { width, zoom, ..Default::default() };
            let c = check(&svg_of(&map, view), &format!("{} at width {width} zoom {zoom}", path.display()));
            if width > 1000.0 && zoom >= 1.0 {
                assert_eq!(c.far, 0, "{} at zoom {zoom}: labels far from their boxes", path.display());
            }
        }
    }
}

#[test]
fn a_box_keeps_its_key_whatever_the_zoom() {
    let path = common::fixtures().join("fx_labels_crowded.py");
    let map = pto_memory_map::load(&path, "AllocateMemoryAddr", None).unwrap();
    let keys = |zoom: f64| -> Vec<(String, usize)> {
        let svg = svg_of(&map, ViewOptions { zoom, width: 300.0, ..Default::default() });
        let (boxes, _) = read_card(&svg);
        boxes.into_iter().filter_map(|b| Some((b.name, b.key?))).collect()
    };
    let (near, far) = (keys(1.0), keys(0.25));
    assert!(!far.is_empty(), "zoomed out, some box shows its key");
    for (name, key) in &near {
        if let Some((_, k)) = far.iter().find(|(n, _)| n == name) {
            assert_eq!(k, key, "{name} has one key at zoom 1 and another at 0.25");
        }
    }
}
