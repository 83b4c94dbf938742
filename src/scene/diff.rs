//! The picture of a diff: for each changed function, the old and the new map side by side on one
//! byte scale (so widths compare across the two), with added, removed and changed tiles outlined.

use std::collections::HashSet;

use super::shapes::{Anchor, Card, Rect, Scene, Shape, Stroke, Text};
use super::{CARD_GAP, PAGE_PAD, Placement, card};
use crate::compare::{FunctionDiff, MapDiff, Side};
use crate::model::{FunctionMap, MemoryMap};
use crate::plan::style::{CRITICAL, Color, GOOD, Palette, WARNING, palette};
use crate::plan::width::{LABEL, SMALL, card_width, scale, text_width};
use crate::plan::{RULES, ViewOptions, span, text};
use crate::units::signed_bytes;

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

/// Lays out the changed functions of `d` (old from `old`, new from `new`): each pair on one byte
/// scale, showing only the spaces that changed (the others are named above the pair), side by side
/// when both fit in [`VIEWPORT`], else stacked.
pub fn diff_scene(old: &MemoryMap, new: &MemoryMap, d: &MapDiff, view: &ViewOptions) -> Scene {
    let pal = palette(view.theme);
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
    let lists = [&d.added, &d.removed].iter().filter(|l| !l.is_empty()).count();
    let mut y = HEADER + lists as f64 * HEADER_LINE;
    let mut cards = Vec::new();
    let mut labels = Vec::new();
    let mut right = 0.0f64;
    for (fd, o, n) in pairs {
        let (focus, unchanged) = focus(fd, view);
        // Each side without the spaces not drawn, so neither its lanes nor its pills take room.
        let (fo, fnew) = (&only_drawn(&old.functions[o], &focus), &only_drawn(&new.functions[n], &focus));
        let half =
            ViewOptions { width: (view.width / 2.0).max(RULES.width_min), hidden: focus.clone(), ..view.clone() };
        let mut factor = shared_factor(fo, fnew, &half);
        let mut w = pair_width(fo, fnew, &half, factor);
        let side_by_side = PAGE_PAD + 2.0 * w + SIDE_GAP + PAGE_PAD <= VIEWPORT * FITTED;
        let pair_view = if side_by_side {
            half
        } else {
            let full = ViewOptions { hidden: focus, ..view.clone() };
            factor = shared_factor(fo, fnew, &full);
            w = pair_width(fo, fnew, &full, factor);
            full
        };
        let top = y + PAIR_LABEL + SIDE_LABEL;
        let mut left = card(
            fo,
            &crate::plan::card_plan(fo, &pair_view),
            o,
            &pair_view,
            &pal,
            Placement { x: PAGE_PAD, y: top, w, factor: Some(factor) },
        );
        let (nx, ny) =
            if side_by_side { (PAGE_PAD + w + SIDE_GAP, top) } else { (PAGE_PAD, top + left.frame.h + PAIR_LABEL) };
        let mut rightc = card(
            fnew,
            &crate::plan::card_plan(fnew, &pair_view),
            n,
            &pair_view,
            &pal,
            Placement { x: nx, y: ny, w, factor: Some(factor) },
        );
        let changed_old: Vec<String> = fd.tiles.changed.iter().map(|c| c.old_name.clone()).collect();
        let changed_new: Vec<String> = fd.tiles.changed.iter().map(|c| c.name.clone()).collect();
        mark_tiles(&mut left, &fd.tiles.removed, &changed_old, &[], &pal);
        mark_tiles(&mut rightc, &[], &changed_new, &fd.tiles.added, &pal);
        let mut deltas = format!("{}: {}", fd.name, deltas(fd));
        if !unchanged.is_empty() {
            deltas += &format!(" · not drawn, unchanged: {}", unchanged.join(", "));
        }
        labels.push(label(PAGE_PAD, y + 15.0, pal.text, deltas));
        let side = |word: &str, m: &MemoryMap| format!("{word} · {} · {}", m.dump, m.backend.name);
        labels.push(label(PAGE_PAD, top - 7.0, pal.muted, side("old", old)));
        labels.push(label(nx, ny - 7.0, pal.muted, side("new", new)));
        y = rightc.frame.y + rightc.frame.h.max(if side_by_side { left.frame.h } else { 0.0 }) + CARD_GAP;
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
        title: crate::plan::Header::of(new, view).title,
        width: (right.max(header_right) + PAGE_PAD).ceil(),
        height: (y + PAGE_PAD).ceil(),
        background: pal.page,
        font_family: text::FONT_FAMILY,
        ink: pal.text,
        header,
        cards,
    }
}

/// `f` without the spaces in `hidden` and their boxes; all of it when that would leave nothing.
fn only_drawn(f: &FunctionMap, hidden: &[String]) -> FunctionMap {
    let mut out = f.clone();
    out.spaces.retain(|s| !hidden.contains(&s.space));
    if out.spaces.is_empty() {
        return f.clone();
    }
    out.blocks.retain(|b| !hidden.contains(&b.tile.space));
    out.fits.retain(|a| !hidden.contains(&a.space));
    out
}

/// The width both cards of a pair take: the wider of the two at the shared factor.
fn pair_width(old: &FunctionMap, new: &FunctionMap, view: &ViewOptions, factor: f64) -> f64 {
    let width = |f: &FunctionMap| card_width(f, view, Some(factor), text_width(f));
    width(old).max(width(new)).ceil()
}

/// The spaces to hide for a pair (the caller's, and those the change left alone, unless that would
/// leave none), and the names of those left alone.
fn focus(fd: &FunctionDiff, view: &ViewOptions) -> (Vec<String>, Vec<String>) {
    let moved = |s: &crate::compare::SpaceDiff| {
        s.old_hwm != s.new_hwm
            || s.old_tiles != s.new_tiles
            || s.old_bases != s.new_bases
            || s.old_conflicts != s.new_conflicts
            || s.old_occupancy != s.new_occupancy
            || fd.tiles.changed.iter().any(|c| c.old.space == s.space || c.new.space == s.space)
            || fd.tiles.touched.iter().any(|t| *t == s.space)
    };
    let shown = |s: &&crate::compare::SpaceDiff| !view.hidden.contains(&s.space);
    let unchanged: Vec<String> =
        fd.spaces.iter().filter(shown).filter(|s| !moved(s)).map(|s| s.space.clone()).collect();
    if unchanged.len() == fd.spaces.iter().filter(shown).count() {
        return (view.hidden.clone(), Vec::new());
    }
    (view.hidden.iter().chain(&unchanged).cloned().collect(), unchanged)
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
    crate::plan::main_factor(&spans, view.width, view.scale_mode) * view.zoom
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
    let side = |word: &str, s: &Side| format!("{word}  {} · {} · pass {}", s.dump, s.backend, s.pass_name);
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
        label(x, PAGE_PAD + 56.0, pal.text, side("old", &d.old)),
        label(x, PAGE_PAD + 72.0, pal.text, side("new", &d.new)),
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
