//! Long runs of lines where nothing is live are folded, measured from the SVG: in every card of
//! every drawable corpus dump and fixture at default options, each run of more than 8 lines on
//! which no box is live in any lane (a box's `data-start` to `data-end`, its drawn lines) is drawn
//! far shorter than its lines, by a `line-cut` group at most two line-heights high that says which
//! lines it skips, with at most 8 of its lines left at full height; a cut skips only such lines;
//! and every box keeps its full height, line for line.

mod common;

use common::{attr, num};

use std::collections::BTreeMap;
use std::path::PathBuf;

use pto_memory_map::model::MemoryMap;
use pto_memory_map::{Format, RenderOptions, render_map};

const LINE: f64 = 17.0;
/// Where a line number's baseline is in its row.
const BASELINE: f64 = 12.0;

/// Each `<tag ...>` opening in `text`, with what follows it.
fn openings<'a>(text: &'a str, tag: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    text.match_indices(tag).map(move |(i, _)| &text[i..])
}

/// A fold as the SVG draws it.
#[derive(Debug)]
struct CutSeen {
    from: u32,
    to: u32,
    y: f64,
    h: f64,
    words: Vec<String>,
}

/// What one card of the SVG says about its rows: boxes (start, end, top, height), the line numbers'
/// baselines, its folds, and the bottom of its body.
#[derive(Debug, Default)]
struct CardSeen {
    boxes: Vec<(u32, u32, f64, f64)>,
    numbers: BTreeMap<u32, f64>,
    cuts: Vec<CutSeen>,
    bottom: f64,
}

fn read_card(card: &str) -> CardSeen {
    let mut seen = CardSeen::default();
    let lanes_at = card.find("<g class=\"lane").expect("a card has lanes");
    // The gutter's numbers are the card's own texts that are a number, before its key list.
    let head = &card[..card.find("<g class=\"key-list\"").unwrap_or(lanes_at).min(lanes_at)];
    for t in openings(head, "<text") {
        let tag = &t[..t.find('>').unwrap()];
        if let Ok(line) = t[tag.len() + 1..t.find("</text>").unwrap()].parse::<u32>() {
            seen.numbers.insert(line, num(tag, "y"));
        }
    }
    let lane = &card[lanes_at..];
    let wash = openings(lane, "<rect").next().unwrap();
    seen.bottom = num(wash, "y") + num(wash, "height");
    for part in card.split("<g class=\"box").skip(1) {
        let open = &part[..part.find('>').unwrap()];
        let rect = openings(part, "<rect").next().unwrap();
        let (start, end) = (num(open, "data-start") as u32, num(open, "data-end") as u32);
        seen.boxes.push((start, end, num(rect, "y"), num(rect, "height")));
    }
    for part in card.split("<g class=\"line-cut\"").skip(1) {
        let open = &part[..part.find('>').unwrap()];
        let body = &part[..part.find("</g>").unwrap()];
        let rect = openings(body, "<rect").next().expect("a cut's rect");
        let words =
            openings(body, "<text").map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_string());
        seen.cuts.push(CutSeen {
            from: num(open, "data-from") as u32,
            to: num(open, "data-to") as u32,
            y: num(rect, "y"),
            h: num(rect, "height"),
            words: words.collect(),
        });
    }
    seen
}

/// What [`check`] found over the cards it was given.
#[derive(Debug, Default)]
struct Totals {
    /// Runs of more than 8 idle lines.
    runs: usize,
    /// Their lines.
    lines: u64,
    /// Px their folds save against full height.
    saved: f64,
    /// Cards with one.
    cards: usize,
}

/// Checks every card of `map`'s SVG at default options; `what` names the dump in messages.
fn check(map: &MemoryMap, what: &str, totals: &mut Totals) {
    let opts = RenderOptions { format: Format::Svg, ..Default::default() };
    let svg = String::from_utf8(render_map(map, &opts).unwrap()).unwrap();
    for card in svg.split("<g class=\"card\"").skip(1) {
        let name = attr(&card[..card.find('>').unwrap()], "data-function").unwrap();
        let f = map.functions.iter().find(|f| f.name == name).expect("a card of a function");
        let at = format!("{what} {name}");
        let seen = read_card(card);
        let (first, last) = (f.src_start, f.src_end);
        let live = |l: u32| seen.boxes.iter().any(|&(a, z, _, _)| a <= l && l <= z.max(a));
        for &(a, z, _, h) in &seen.boxes {
            let want = (z.max(a) - a + 1) as f64 * LINE;
            assert!((h - want).abs() < 0.01, "{at}: box L{a}-L{z} is {h} px high, not {want}");
        }
        for c in &seen.cuts {
            assert!((first..=last).contains(&c.from) && c.from <= c.to && c.to <= last, "{at}: {c:?}");
            assert!((c.from..=c.to).all(|l| !live(l)), "{at}: the cut L{}-L{} skips a live line", c.from, c.to);
            assert!(c.h > 0.0 && c.h <= 2.0 * LINE + 0.01, "{at}: a cut {} px high", c.h);
            let span = format!("L{}–L{}", c.from, c.to);
            assert!(c.words.iter().any(|w| w.contains(&span)), "{at}: the cut says {:?}, not {span}", c.words);
            assert!((c.from..=c.to).all(|l| !seen.numbers.contains_key(&l)), "{at}: a folded line has its number");
        }
        // The top of line `l`'s row: from its number, or the cut it starts, or the body's bottom.
        let top = |l: u32| -> f64 {
            if l > last {
                return seen.bottom;
            }
            if let Some(y) = seen.numbers.get(&l) {
                return y - BASELINE;
            }
            seen.cuts.iter().find(|c| c.from == l).map(|c| c.y).unwrap_or_else(|| panic!("{at}: no row for L{l}"))
        };
        let mut l = first;
        let mut folded_here = false;
        while l <= last {
            if live(l) {
                l += 1;
                continue;
            }
            let a = l;
            while l <= last && !live(l) {
                l += 1;
            }
            let z = l - 1;
            let n = z - a + 1;
            let drawn = top(z + 1) - top(a);
            let numbered = (a..=z).filter(|x| seen.numbers.contains_key(x)).count();
            if n <= 8 {
                assert!((drawn - n as f64 * LINE).abs() < 0.01, "{at}: the short idle run L{a}-L{z} is {drawn} px");
                continue;
            }
            assert!(numbered <= 8, "{at}: {numbered} lines of the idle run L{a}-L{z} at full height");
            let full = n as f64 * LINE;
            assert!(
                drawn <= full - 5.0 * LINE + 0.01,
                "{at}: the idle run L{a}-L{z} ({n} lines) is drawn {drawn} px high"
            );
            assert!(seen.cuts.iter().any(|c| a <= c.from && c.to <= z), "{at}: the idle run L{a}-L{z} has no line-cut");
            totals.runs += 1;
            totals.lines += n as u64;
            totals.saved += full - drawn;
            folded_here = true;
        }
        totals.cards += usize::from(folded_here);
    }
}

#[test]
fn long_idle_runs_are_folded_in_the_fixture() {
    let path = common::fixtures().join("layout_idle_lines.py");
    let map = pto_memory_map::load(&path, "AllocateMemoryAddr", None).unwrap();
    let mut totals = Totals::default();
    check(&map, "layout_idle_lines.py", &mut totals);
    // idle_runs: 29 lines after its first tiles, then 9; idle_head: 23 before its tile. The run of
    // 8 is drawn whole.
    assert_eq!(totals.runs, 3, "{totals:?}");
    assert_eq!(totals.cards, 2, "{totals:?}");
    assert!(totals.saved >= (25.0 + 5.0 + 20.0) * LINE, "{totals:?}");
}

#[test]
fn long_idle_runs_are_folded_in_every_drawable_dump() {
    let mut totals = Totals::default();
    let dumps: Vec<(PathBuf, MemoryMap)> = common::drawable_dumps();
    for (path, map) in &dumps {
        check(map, &path.display().to_string(), &mut totals);
    }
    eprintln!(
        "folds: {} idle runs of more than 8 lines ({} lines) in {} cards of {} dumps, {:.0} px saved",
        totals.runs,
        totals.lines,
        totals.cards,
        dumps.len(),
        totals.saved
    );
    if common::corpus_dir().is_dir() {
        // Measured when folds came in: 60 runs (789 lines) in 60 cards, 8 585 px saved; the decode
        // case alone has rope_qkv's 52 lines and fa_fused_aiv's 22.
        assert!(totals.runs >= 60 && totals.saved >= 8_000.0, "{totals:?}");
    }
}
