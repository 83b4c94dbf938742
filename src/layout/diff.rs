//! The picture of a diff: for each changed function, the old and the new map side by side on one
//! byte scale (so widths compare across the two), with added, removed and changed tiles outlined.

use std::collections::HashSet;

use super::scene::{Anchor, Card, Rect, Scene, Shape, Stroke, Text};
use super::style::{CRITICAL, Color, GOOD, Palette, WARNING, palette};
use super::{CARD_GAP, LABEL, PAGE_PAD, Placement, RULES, SMALL, ViewOptions, card, card_width, scale, span, text};
use crate::compare::{FunctionDiff, MapDiff};
use crate::model::{FunctionMap, MemoryMap};
use crate::units::signed_bytes;

/// Gap between the two sides of a pair.
const SIDE_GAP: f64 = 16.0;
/// Row above each pair for "old ..." / "new ..." and the deltas.
const PAIR_LABEL: f64 = 22.0;
const HEADER: f64 = 118.0;

/// Lays out the changed functions of `d` (old from `old`, new from `new`), each side `view.width / 2`
/// wide at zoom 1.
pub fn diff_scene(old: &MemoryMap, new: &MemoryMap, d: &MapDiff, view: &ViewOptions) -> Scene {
    let pal = palette(view.theme);
    let half = ViewOptions { width: (view.width / 2.0).max(RULES.width_min), ..view.clone() };
    let pairs: Vec<(&FunctionDiff, usize, usize)> = d
        .functions
        .iter()
        .filter(|f| f.changed)
        .filter_map(|f| {
            let o = old.functions.iter().position(|x| x.name == f.name)?;
            let n = new.functions.iter().position(|x| x.name == f.name)?;
            Some((f, o, n))
        })
        .collect();
    let mut y = HEADER;
    let mut cards = Vec::new();
    let mut labels = Vec::new();
    let mut right = 0.0f64;
    for (fd, o, n) in pairs {
        let (fo, fnew) = (&old.functions[o], &new.functions[n]);
        let factor = shared_factor(fo, fnew, &half);
        let w = card_width(fo, &half, Some(factor)).max(card_width(fnew, &half, Some(factor))).ceil();
        let top = y + PAIR_LABEL;
        let mut left = card(fo, o, &half, &pal, Placement { x: PAGE_PAD, y: top, w, factor: Some(factor) });
        let nx = PAGE_PAD + w + SIDE_GAP;
        let mut rightc = card(fnew, n, &half, &pal, Placement { x: nx, y: top, w, factor: Some(factor) });
        mark_tiles(&mut left, &fd.tiles.removed, &changed_names(fd), &[], &pal);
        mark_tiles(&mut rightc, &[], &changed_names(fd), &fd.tiles.added, &pal);
        labels.push(label(PAGE_PAD, y + 15.0, pal.muted, format!("old · {}", old.dump)));
        labels.push(label(nx, y + 15.0, pal.muted, format!("new · {}", new.dump)));
        let deltas = deltas(fd);
        let nx_text = nx + text::width(&format!("new · {}", new.dump), LABEL) + 16.0;
        labels.push(label(nx_text, y + 15.0, pal.text, deltas));
        y = top + left.frame.h.max(rightc.frame.h) + CARD_GAP;
        right = right.max(nx + w);
        cards.push(left);
        cards.push(rightc);
    }
    let mut header = header(d, &pal);
    header.extend(labels);
    let unchanged: Vec<&str> = d.functions.iter().filter(|f| !f.changed).map(|f| f.name.as_str()).collect();
    if !unchanged.is_empty() {
        let shown: Vec<&str> = unchanged.iter().take(12).copied().collect();
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
        width: (right.max(header_right) + PAGE_PAD).ceil(),
        height: (y + PAGE_PAD).ceil(),
        background: pal.page,
        font_family: text::FONT_FAMILY,
        header,
        cards,
    }
}

/// One factor for both sides: the card rule (fill the width, 72 px minimum lane) applied to the
/// larger span of each space over the two sides.
fn shared_factor(old: &FunctionMap, new: &FunctionMap, view: &ViewOptions) -> f64 {
    let mut spans: Vec<(String, i64)> = Vec::new();
    for f in [old, new] {
        let (visible, _) = scale(f, view);
        for (s, sp) in f.spaces.iter().zip(visible) {
            if sp.is_none() {
                continue;
            }
            let sp = span(s, view.x_axis);
            match spans.iter_mut().find(|(name, _)| *name == s.space) {
                Some(e) => e.1 = e.1.max(sp),
                None => spans.push((s.space.clone(), sp)),
            }
        }
    }
    let spans: Vec<i64> = spans.into_iter().map(|(_, s)| s).collect();
    super::plan::main_factor(&spans, view.width, view.scale_mode) * view.zoom
}

fn changed_names(fd: &FunctionDiff) -> Vec<String> {
    fd.tiles.changed.iter().map(|c| c.name.clone()).collect()
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

/// `Vec +12 KB · Mat −4 KB`: the high-water marks that moved.
fn deltas(fd: &FunctionDiff) -> String {
    let moved: Vec<String> =
        fd.spaces.iter().filter(|s| s.delta != 0).map(|s| format!("{} {}", s.space, signed_bytes(s.delta))).collect();
    if moved.is_empty() { "high-water marks unchanged".into() } else { moved.join(" · ") }
}

fn header(d: &MapDiff, pal: &Palette) -> Vec<Shape> {
    let x = PAGE_PAD;
    let mut out = vec![
        label(x, PAGE_PAD + 10.0, pal.muted, "PTO · MEMORY MAP DIFF".into()),
        Shape::Text(Text {
            x,
            y: PAGE_PAD + 36.0,
            size: 22.0,
            color: pal.text,
            anchor: Anchor::Start,
            content: format!("{} → {}", d.old.dump, d.new.dump),
        }),
        label(x, PAGE_PAD + 58.0, pal.text, d.verdict.clone()),
    ];
    let mut lx = x;
    let ly = PAGE_PAD + 70.0;
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
    if !d.added.is_empty() {
        out.push(label(x, ly + 30.0, pal.muted, format!("added functions: {}", d.added.join(", "))));
    }
    if !d.removed.is_empty() {
        let at = if d.added.is_empty() { ly + 30.0 } else { ly + 46.0 };
        out.push(label(x, at, pal.muted, format!("removed functions: {}", d.removed.join(", "))));
    }
    out
}

fn label(x: f64, y: f64, color: Color, content: String) -> Shape {
    Shape::Text(Text { x, y, size: LABEL, color, anchor: Anchor::Start, content })
}
