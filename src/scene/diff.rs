//! The picture of a diff: for each changed function, the old and the new map side by side on one
//! byte scale (so widths compare across the two), with added, removed and changed tiles outlined.
//! What is paired, on which scale, and every word are planned in `plan::diff`.

use super::shapes::{Anchor, Card, Rect, Scene, Shape, Stroke, Text};
use super::{CARD_GAP, PAGE_PAD, Placement, card};
use crate::hashed::HashSet;
use crate::plan::diff::{DiffPicture, PairLayout};
use crate::plan::style::{CRITICAL, Color, GOOD, Palette, WARNING, palette};
use crate::plan::text;
use crate::plan::width::{LABEL, SMALL};

/// Gap between the two sides of a pair.
const SIDE_GAP: f64 = 16.0;
/// Row above each pair for the function and its deltas, and above each side for "old ..." / "new ...".
const PAIR_LABEL: f64 = 20.0;
const SIDE_LABEL: f64 = 20.0;
/// Height of the header without lists of added or removed functions; each list adds a line.
const HEADER: f64 = 128.0;
const HEADER_LINE: f64 = 16.0;

/// The viewport a review is read in. A pair whose two sides fit in [`FITTED`] viewports is drawn
/// side by side (the HTML page shrinks a picture that wide to the viewport, down to 1 / FITTED, still
/// readable), a wider one stacked, old above new, so an address is at the same x on both.
pub const VIEWPORT: f64 = 1500.0;
/// How many viewports wide a side-by-side pair may be before it is stacked instead.
pub const FITTED: f64 = 1.25;

/// Lays out the diff `d` plans: each changed function's pair on one byte scale, showing only the
/// spaces that changed (the others are named above the pair), side by side when both fit in
/// [`VIEWPORT`], else stacked.
pub fn diff_scene(d: &DiffPicture) -> Scene {
    let view = &d.view;
    let pal = palette(view.theme);
    let lists = [&d.added, &d.removed].iter().filter(|l| !l.is_empty()).count();
    let mut y = HEADER + lists as f64 * HEADER_LINE;
    let mut cards = Vec::new();
    let mut labels = Vec::new();
    let mut right = 0.0f64;
    for pair in &d.pairs {
        let [o, n] = pair.index;
        let [half, full] = &pair.layouts;
        let side_by_side = PAGE_PAD + 2.0 * half.width + SIDE_GAP + PAGE_PAD <= VIEWPORT * FITTED;
        let PairLayout { view: pair_view, factor, width: w, cards: [old_card, new_card] } =
            if side_by_side { half } else { full };
        let (factor, w) = (Some(*factor), *w);
        let top = y + PAIR_LABEL + SIDE_LABEL;
        let mut left = card(old_card, o, pair_view, &pal, Placement { x: PAGE_PAD, y: top, w, factor });
        let (nx, ny) =
            if side_by_side { (PAGE_PAD + w + SIDE_GAP, top) } else { (PAGE_PAD, top + left.frame.h + PAIR_LABEL) };
        let mut rightc = card(new_card, n, pair_view, &pal, Placement { x: nx, y: ny, w, factor });
        mark_tiles(&mut left, &pair.removed, &pair.changed[0], &[], &pal);
        mark_tiles(&mut rightc, &[], &pair.changed[1], &pair.added, &pal);
        labels.push(label(PAGE_PAD, y + 15.0, pal.text, pair.deltas.clone()));
        labels.push(label(PAGE_PAD, top - 7.0, pal.muted, d.over[0].clone()));
        labels.push(label(nx, ny - 7.0, pal.muted, d.over[1].clone()));
        y = rightc.frame.y + rightc.frame.h.max(if side_by_side { left.frame.h } else { 0.0 }) + CARD_GAP;
        right = right.max(nx + w);
        cards.push(left);
        cards.push(rightc);
    }
    let mut header = header(d, &pal);
    header.extend(labels);
    let unchanged = &d.unchanged;
    if !unchanged.is_empty() {
        let shown: Vec<&str> = unchanged.iter().take(12).map(String::as_str).collect();
        let more = if unchanged.len() > 12 { format!(" and {} more", unchanged.len() - 12) } else { String::new() };
        header.push(label(
            PAGE_PAD,
            y + 12.0,
            pal.muted,
            format!("{} unchanged: {}{more}", unchanged.len(), shown.join(", ")),
        ));
        y += 28.0;
    }
    let header_right = header.iter().map(super::right_edge).fold(0.0, f64::max);
    Scene {
        title: d.title.clone(),
        width: (right.max(header_right) + PAGE_PAD).ceil(),
        height: (y + PAGE_PAD).ceil(),
        background: pal.page,
        font_family: text::FONT_FAMILY,
        ink: pal.text,
        header,
        cards,
    }
}

/// Outlines the boxes any of whose names is listed: removed (old side), changed, added (new side).
fn mark_tiles(card: &mut Card, removed: &[String], changed: &[String], added: &[String], pal: &Palette) {
    let (removed, changed, added) = (name_set(removed), name_set(changed), name_set(added));
    for lane in &mut card.lanes {
        for b in &mut lane.blocks {
            let names: Vec<&str> =
                std::iter::once(b.name.as_str()).chain(b.aliases.iter().map(String::as_str)).collect();
            let hit = |s: &HashSet<&str>| names.iter().any(|n| s.contains(n));
            let mark: Option<(Color, &str)> = if hit(&added) {
                Some((GOOD, "added"))
            } else if hit(&removed) {
                Some((pal.muted, "removed"))
            } else if hit(&changed) {
                Some((WARNING, "changed"))
            } else {
                None
            };
            if let Some((color, word)) = mark {
                let stroke = Stroke { color, width: 2.0, dash: (word == "removed").then_some((4.0, 2.0)) };
                let r = &b.rect;
                b.outline = Rect {
                    x: r.x - 1.0,
                    y: r.y - 1.0,
                    w: r.w + 2.0,
                    h: r.h + 2.0,
                    radius: 0.0,
                    fill: None,
                    stroke: Some(stroke),
                };
                b.tooltip.push(format!("diff: {word}"));
            }
        }
    }
}

fn name_set(names: &[String]) -> HashSet<&str> {
    names.iter().map(String::as_str).collect()
}

fn header(d: &DiffPicture, pal: &Palette) -> Vec<Shape> {
    let x = PAGE_PAD;
    let mut out = vec![
        label(x, PAGE_PAD + 10.0, pal.muted, "PTO · MEMORY MAP DIFF".into()),
        Shape::Text(Text {
            x,
            y: PAGE_PAD + 34.0,
            size: 17.0,
            color: pal.text,
            anchor: Anchor::Start,
            content: d.verdict.clone(),
        }),
        label(x, PAGE_PAD + 56.0, pal.text, d.sides[0].clone()),
        label(x, PAGE_PAD + 72.0, pal.text, d.sides[1].clone()),
    ];
    let mut lx = x;
    let ly = PAGE_PAD + 84.0;
    for (color, dash, word) in [
        (GOOD, None, "added tile"),
        (WARNING, None, "changed slot or lifetime"),
        (pal.muted, Some((4.0, 2.0)), "removed tile"),
        (CRITICAL, None, "conflict"),
    ] {
        out.push(Shape::Rect(Rect {
            x: lx + 0.5,
            y: ly + 0.5,
            w: 16.0,
            h: 10.0,
            radius: 2.0,
            fill: None,
            stroke: Some(Stroke { color, width: 2.0, dash }),
        }));
        out.push(Shape::Text(Text {
            x: lx + 22.0,
            y: ly + 9.5,
            size: SMALL,
            color: pal.muted,
            anchor: Anchor::Start,
            content: word.into(),
        }));
        lx += 22.0 + text::width(word, SMALL) + 18.0;
    }
    out.push(label(lx, ly + 9.5, pal.muted, "both sides of a pair share one byte scale".into()));
    let mut at = ly + 30.0;
    for (list, word) in [(&d.added, "added"), (&d.removed, "removed")] {
        if !list.is_empty() {
            out.push(label(x, at, pal.muted, format!("{word} functions: {}", list.join(", "))));
            at += 16.0;
        }
    }
    out
}

fn label(x: f64, y: f64, color: Color, content: String) -> Shape {
    Shape::Text(Text { x, y, size: LABEL, color, anchor: Anchor::Start, content })
}
