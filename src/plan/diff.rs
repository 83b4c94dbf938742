//! The plan of a diff's picture: which functions are paired, each pair's cards planned on one byte
//! scale (once at half the width, for side by side, and once at the whole width, for stacked), the
//! tiles to outline on each side, and every line of words. The scene places it and reads nothing
//! else, as it does for a map.

use crate::compare::{FunctionDiff, MapDiff, SpaceDiff};
use crate::model::{FunctionMap, MemoryMap};
use crate::plan::width::{card_width, scale, text_width};
use crate::plan::{CardPlan, Header, RULES, ViewOptions, card_plan, main_factor, span};
use crate::units::signed_bytes;

/// The plan of a diff's picture (see the module's comment).
#[derive(Debug, Clone)]
pub struct DiffPicture {
    /// The view it is drawn as.
    pub view: ViewOptions,
    /// The document's title (the new map's).
    pub title: String,
    /// One sentence for the top of a review comment.
    pub verdict: String,
    /// `old  x.py · Ascend910B · pass P`, then the new side's.
    pub sides: [String; 2],
    /// Functions only in the new dump.
    pub added: Vec<String>,
    /// Functions only in the old dump.
    pub removed: Vec<String>,
    /// The changed functions in both, in the new dump's order.
    pub pairs: Vec<PairPlan>,
    /// `old · x.py · Ascend910B`, then the new side's: the words over each side of a pair.
    pub over: [String; 2],
    /// The functions in both that did not change.
    pub unchanged: Vec<String>,
}

/// One changed function, old and new.
#[derive(Debug, Clone)]
pub struct PairPlan {
    /// `f: Vec +12 KB · not drawn, unchanged: Mat`: the words over the pair.
    pub deltas: String,
    /// The function's index in the old map and in the new.
    pub index: [usize; 2],
    /// The pair at half the width (side by side), then at the whole width (stacked).
    pub layouts: [PairLayout; 2],
    /// Names of the tiles to outline as removed (on the old side).
    pub removed: Vec<String>,
    /// Names of the tiles to outline as changed: their old names, then their new ones.
    pub changed: [Vec<String>; 2],
    /// Names of the tiles to outline as added (on the new side).
    pub added: Vec<String>,
}

/// A pair's two cards at one width, on one byte scale.
#[derive(Debug, Clone)]
pub struct PairLayout {
    /// The view both cards are planned at (the spaces the change left alone hidden).
    pub view: ViewOptions,
    /// The shared px/byte factor (zoom included).
    pub factor: f64,
    /// The width both cards take: the wider of the two at that factor.
    pub width: f64,
    /// The old side's card and the new side's.
    pub cards: [CardPlan; 2],
}

impl DiffPicture {
    /// The plan of the changed functions of `d` (old from `old`, new from `new`) drawn as `view` asks.
    pub fn of(old: &MemoryMap, new: &MemoryMap, d: &MapDiff, view: &ViewOptions) -> DiffPicture {
        let pairs = d
            .functions
            .iter()
            .filter(|f| f.changed)
            .filter_map(|fd| {
                let o = old.functions.iter().position(|x| x.name == fd.name)?;
                let n = new.functions.iter().position(|x| x.name == fd.name)?;
                Some(pair(fd, [o, n], [&old.functions[o], &new.functions[n]], view))
            })
            .collect();
        let side =
            |word: &str, s: &crate::compare::Side| format!("{word}  {} · {} · pass {}", s.dump, s.backend, s.pass_name);
        let over = |word: &str, m: &MemoryMap| format!("{word} · {} · {}", m.dump, m.backend.name);
        DiffPicture {
            view: view.clone(),
            title: Header::of(new, view).title,
            verdict: d.verdict.clone(),
            sides: [side("old", &d.old), side("new", &d.new)],
            added: d.added.clone(),
            removed: d.removed.clone(),
            pairs,
            over: [over("old", old), over("new", new)],
            unchanged: d.functions.iter().filter(|f| !f.changed).map(|f| f.name.clone()).collect(),
        }
    }
}

fn pair(fd: &FunctionDiff, index: [usize; 2], [old, new]: [&FunctionMap; 2], view: &ViewOptions) -> PairPlan {
    let (focus, unchanged) = focus(fd, view);
    // Each side without the spaces not drawn, so neither its lanes nor its pills take room.
    let (fo, fnew) = (&only_drawn(old, &focus), &only_drawn(new, &focus));
    let half = ViewOptions { width: (view.width / 2.0).max(RULES.width_min), hidden: focus.clone(), ..view.clone() };
    let full = ViewOptions { hidden: focus, ..view.clone() };
    let layout = |view: ViewOptions| {
        let factor = shared_factor(fo, fnew, &view);
        let width = pair_width(fo, fnew, &view, factor);
        let cards = [card_plan(fo, &view), card_plan(fnew, &view)];
        PairLayout { view, factor, width, cards }
    };
    let mut deltas = format!("{}: {}", fd.name, deltas(fd));
    if !unchanged.is_empty() {
        deltas += &format!(" · not drawn, unchanged: {}", unchanged.join(", "));
    }
    PairPlan {
        deltas,
        index,
        layouts: [layout(half), layout(full)],
        removed: fd.tiles.removed.clone(),
        changed: [
            fd.tiles.changed.iter().map(|c| c.old_name.clone()).collect(),
            fd.tiles.changed.iter().map(|c| c.name.clone()).collect(),
        ],
        added: fd.tiles.added.clone(),
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
    let width = |f: &FunctionMap| card_width(f, view, Some(factor), text_width(f, view));
    width(old).max(width(new)).ceil()
}

/// The spaces to hide for a pair (the caller's, and those the change left alone, unless that would
/// leave none), and the names of those left alone.
fn focus(fd: &FunctionDiff, view: &ViewOptions) -> (Vec<String>, Vec<String>) {
    let moved = |s: &SpaceDiff| {
        s.old_hwm != s.new_hwm
            || s.old_tiles != s.new_tiles
            || s.old_bases != s.new_bases
            || s.old_conflicts != s.new_conflicts
            || s.old_occupancy != s.new_occupancy
            || fd.tiles.changed.iter().any(|c| c.old.space == s.space || c.new.space == s.space)
            || fd.tiles.touched.iter().any(|t| *t == s.space)
    };
    let shown = |s: &&SpaceDiff| !view.hidden.contains(&s.space);
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
    main_factor(&spans, view.width, view.scale_mode) * view.zoom
}

/// `Vec +12 KB · Mat −4 KB`: the high-water marks that moved.
fn deltas(fd: &FunctionDiff) -> String {
    let moved: Vec<String> =
        fd.spaces.iter().filter(|s| s.delta != 0).map(|s| format!("{} {}", s.space, signed_bytes(s.delta))).collect();
    if moved.is_empty() { "high-water marks unchanged".into() } else { moved.join(" · ") }
}
