//! How wide a card is: its line-number column, its lanes at the card's byte scale (insets at their
//! own), its live-bytes columns and its text. The plan sizes each card's panel with it, and the
//! scene places the card in it, so the two never disagree on a card's width.

use std::sync::Arc;

use crate::model::{FunctionMap, MemoryMap};
use crate::plan::{self, RULES, ScaleMode, ViewOptions, XAxis, span, text};

/// Inner left/right padding of a card.
pub const CARD_PAD: f64 = 12.0;
/// Text sizes: labels in boxes, small print, titles.
pub const LABEL: f64 = 11.0;
/// Small print, the size most texts have (the SVG gives it once, for them to inherit).
pub const SMALL: f64 = 10.0;
/// Label size of a card's summary lines.
pub const SUMMARY_SIZE: f64 = LABEL;

/// The width the lanes of each card `view` draws fill at zoom 1: `view.width`, plus what the card
/// would leave blank beside its lanes in the page's shared card width (a card with fewer or no inset
/// lanes, or fewer profile columns, than the widest), so no card has a blank stretch beside a short
/// row of lanes. A card whose wider lanes would then pass the shared width keeps `view.width`.
pub(crate) fn panel_widths(map: &MemoryMap, view: &ViewOptions) -> Vec<f64> {
    let chosen: Vec<&FunctionMap> = map.functions.iter().filter(|f| view.draws(&f.name)).collect();
    if view.scale_mode == ScaleMode::Strict {
        return chosen.iter().map(|_| view.width).collect(); // today's pictures, exactly
    }
    // Decided at zoom 1, on the limit axis, with every space shown: what the page's reader can
    // change (zoom, axis, hidden spaces) then changes the factor as it does in the static picture.
    let base = ViewOptions { zoom: 1.0, x_axis: XAxis::Limit, hidden: Vec::new(), ..view.clone() };
    let own: Vec<(&FunctionMap, f64, f64)> = crate::par::map_ref(&chosen, |f| {
        let text = text_width(f, &base);
        (*f, text, card_width(f, &base, None, text))
    });
    let inner = own.iter().map(|&(_, _, w)| w).fold(RULES.width_min, f64::max).ceil();
    crate::par::map_ref(&own, |&(f, text, own)| {
        let spare = inner - own;
        let wider = ViewOptions { width: view.width + spare, ..base.clone() };
        if spare > 1.0 && card_width(f, &wider, None, text) <= inner { wider.width } else { view.width }
    })
}

/// The width a card needs: its lanes, or its `text` (see [`text_width`]), whichever is wider.
pub(crate) fn card_width(f: &FunctionMap, view: &ViewOptions, factor: Option<f64>, text: f64) -> f64 {
    let (spans, own) = scale(f, view);
    spans_width(spans, own, f.src_end, view, factor, text)
}

/// [`card_width`] of lanes `spans` at their own factor `own` (or `factor`), on a card whose last
/// dump line is `last_line`.
pub(crate) fn spans_width(
    spans: Vec<Option<LaneSpan>>,
    own: f64,
    last_line: u32,
    view: &ViewOptions,
    factor: Option<f64>,
    text: f64,
) -> f64 {
    // A scale imposed from outside (a diff's) has no cuts: both sides' bytes line up.
    let spans: Vec<Option<LaneSpan>> =
        if factor.is_some() { spans.into_iter().map(|s| s.map(LaneSpan::whole)).collect() } else { spans };
    let factor = factor.unwrap_or(own);
    let lanes: f64 = lane_scales(&spans, factor, view, last_line).iter().flatten().map(|l| l.0).sum();
    let profiles = RULES.profile_gap + spans.iter().flatten().count() as f64 * (RULES.profile_px + 4.0);
    (2.0 * CARD_PAD + gutter_width(last_line) + lanes + profiles).max(text)
}

/// The width a card's text needs, whatever the view: its title row with the widest pill, and its
/// summary lines. It formats every pill and line, so it is found once per card and handed to each
/// [`card_width`] tried (a page tries four per card).
pub(crate) fn text_width(f: &FunctionMap, view: &ViewOptions) -> f64 {
    let pills: Vec<plan::Pill> = f.spaces.iter().map(plan::pill).collect();
    texts_width(&f.name, &f.ftype, &pills, &plan::summary(f, view.width))
}

/// The width of a card's title row with its widest pill, and of its summary lines.
fn texts_width(name: &str, ftype: &str, pills: &[plan::Pill], summary: &[String]) -> f64 {
    let summary = summary.iter().map(|l| text::width(l, SUMMARY_SIZE)).fold(0.0, f64::max);
    // The pills wrap under the title (see `pill_rows`), so only the widest one must fit beside it.
    let widest = pills.iter().map(pill_width).fold(0.0, f64::max);
    (title_width(name, ftype) + widest + 12.0).max(summary + 2.0 * CARD_PAD)
}

/// Width of a card's title (the function's name and its type's badge), with its margins.
pub(crate) fn title_width(name: &str, ftype: &str) -> f64 {
    16.0 + text::width(name, 15.0) + 10.0 + text::width(ftype, SMALL) + 10.0 + 24.0
}

/// A drawn lane's span, the stretch of it drawn as a cut band, if any, and its widened stretches
/// ([`plan::Axis`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LaneSpan {
    pub(crate) span: i64,
    pub(crate) cut: Option<(i64, i64)>,
    pub(crate) wide: Arc<[plan::Stretch]>,
}

impl LaneSpan {
    /// The same span without its cut or widened stretches: every byte to scale.
    pub(crate) fn whole(self) -> LaneSpan {
        LaneSpan { cut: None, wide: Arc::from([]), ..self }
    }

    /// Bytes drawn to scale, and the px of its bands: the cut's, and the least width of each
    /// widened stretch ([`plan::scaled`]).
    pub(crate) fn scaled(&self) -> (i64, f64) {
        let cut = self.cut.map(|(from, to)| (to - from, plan::px_rules().cut));
        plan::to_scale(self.span, cut, &self.wide)
    }
}

/// The span of each space of `f` (`None` where hidden) and the card's one px/byte factor, computed
/// over the visible spans: hiding a space gives its width back to the others at one shared scale,
/// which is how hiding a tiny space keeps the `used` axis readable (reference guide, show/hide).
/// A mostly free lane's longest free stretch is a cut band (see [`plan::Axis`]), so its bytes in
/// use are drawn at the card's scale rather than as slivers; and its boxes too thin at the
/// opening view's scale are widened ([`widened_lanes`]).
pub(crate) fn scale(f: &FunctionMap, view: &ViewOptions) -> (Vec<Option<LaneSpan>>, f64) {
    scale_with(f, view, widened_lanes(f, view, view.x_axis))
}

/// [`scale`] with the widened stretches of `view`'s x axis already found ([`widened_lanes`]).
pub(crate) fn scale_with(
    f: &FunctionMap,
    view: &ViewOptions,
    wide: Vec<Arc<[plan::Stretch]>>,
) -> (Vec<Option<LaneSpan>>, f64) {
    let mut spans = spans_of(f, view);
    for (sp, wide) in spans.iter_mut().zip(wide) {
        if let Some(sp) = sp {
            sp.wide = wide;
        }
    }
    let factor = factor_of(&spans, view, f.src_end);
    (spans, factor)
}

/// The widened stretches of each space of `f` on x axis `x_axis`: those of its boxes thinner than
/// [`plan::KEY_PX`] at the lane's factor in the opening view of that axis (zoom 1, every space
/// shown, an inset at its own factor), drawn that wide so each holds its key; where the card has
/// no room for that (the stretches would take over half the lanes' room, or push the lanes past
/// it), those thinner than [`plan::WIDE_PX`], drawn that wide. One list whatever the zoom and the
/// hidden spaces, so the page applies it at every factor it draws: a zoom in widens the stretches
/// to scale, and the distortion fades.
pub(crate) fn widened_lanes(f: &FunctionMap, view: &ViewOptions, x_axis: XAxis) -> Vec<Arc<[plan::Stretch]>> {
    if view.scale_mode == ScaleMode::Strict {
        return f.spaces.iter().map(|_| Arc::from([])).collect();
    }
    let base = ViewOptions { zoom: 1.0, x_axis, hidden: Vec::new(), ..view.clone() };
    if let Some(keyed) = grow(f, &base, plan::KEY_PX, true)
        && fits(f, &base, &keyed)
    {
        return keyed;
    }
    // At the least width, however many: a card of that many slivers draws them apart, however
    // squeezed the rest.
    grow(f, &base, plan::WIDE_PX, false).unwrap_or_default()
}

/// The lists of [`widened_lanes`] at least width `least`; `None` where `bounded` and the stretches
/// pass half the lanes' room. The factor makes room for the stretches as for a cut band (each
/// takes its least width of the panel), so the card keeps its width; as that changes the factor,
/// boxes just wide enough before may become thin, so the lists are found again until they stop
/// growing (they only grow: see the least factor below). A lane whose list at `least` would hold
/// over half its bytes to scale takes its list at [`plan::WIDE_PX`] instead, or keeps the one it
/// has: the few bytes left would set its scale, and a lane of long-lived 64 B tiles came out
/// millions of px wide.
fn grow(f: &FunctionMap, base: &ViewOptions, least: f64, bounded: bool) -> Option<Vec<Arc<[plan::Stretch]>>> {
    let mut spans = spans_of(f, base);
    // Each lane's least factor so far: a box thin at it stays widened though a later pass's factor
    // be larger (a lane that becomes an inset gives the others room), so the lists only grow.
    let mut lowest = vec![f64::INFINITY; spans.len()];
    let budget = lanes_room(f, base) / 2.0;
    let leasts: &[f64] = if least > plan::WIDE_PX { &[least, plan::WIDE_PX] } else { &[least] };
    for _ in 0..MAX_WIDENING_PASSES {
        let factor = factor_of(&spans, base, f.src_end);
        let scales = lane_scales(&spans, factor, base, f.src_end);
        let mut grew = false;
        for (((s, sp), scale), k) in f.spaces.iter().zip(spans.iter_mut()).zip(scales).zip(lowest.iter_mut()) {
            if let (Some(sp), Some((_, axis, _))) = (sp, scale) {
                *k = axis.k.min(*k);
                let found = leasts.iter().find_map(|&least| {
                    let wide: Arc<[plan::Stretch]> =
                        plan::lane_widened(f, s, sp.span, *k, least, base.scale_mode).into();
                    keeps_a_scale(sp, &wide).then_some(wide)
                });
                if let Some(wide) = found
                    && wide != sp.wide
                {
                    sp.wide = wide;
                    grew = true;
                }
            }
        }
        let px: f64 = spans.iter().flatten().flat_map(|sp| sp.wide.iter()).map(|s| s.2).sum();
        if bounded && px > budget {
            return None;
        }
        if !grew {
            break;
        }
    }
    Some(spans.into_iter().map(|sp| sp.map_or_else(|| Arc::from([]), |sp| sp.wide)).collect())
}

/// Whether stretches `wide` leave lane `sp` at least half its bytes to scale (those outside its
/// cut).
fn keeps_a_scale(sp: &LaneSpan, wide: &[plan::Stretch]) -> bool {
    let to_scale = sp.span - sp.cut.map_or(0, |(from, to)| to - from);
    let widened: i64 = wide.iter().map(|&(from, to, _)| to - from).sum();
    2 * widened <= to_scale
}

/// Whether the lanes of `f` with stretches `wide` fit the room `base`'s panel leaves them, or are
/// no wider than without them (a card of many lanes at the least width may be wider than its
/// room either way).
fn fits(f: &FunctionMap, base: &ViewOptions, wide: &[Arc<[plan::Stretch]>]) -> bool {
    let drawn = |wide: Vec<Arc<[plan::Stretch]>>| -> f64 {
        let (spans, factor) = scale_with(f, base, wide);
        lane_scales(&spans, factor, base, f.src_end).iter().flatten().map(|l| l.0).sum()
    };
    let plain = drawn(wide.iter().map(|_| Arc::from([])).collect());
    drawn(wide.to_vec()) <= lanes_room(f, base).max(plain) + 0.5
}

/// The room `view`'s panel leaves the lanes of `f` it shows.
fn lanes_room(f: &FunctionMap, view: &ViewOptions) -> f64 {
    plan::lane_room(view.width, gutter_width(f.src_end), visible_spaces(f, view).len())
}

/// The most times one [`grow`] finds its lists (a card grows them at most twice: at
/// [`plan::KEY_PX`], then at [`plan::WIDE_PX`]): past it, a box may stay a little under the least
/// width rather than the planning take longer.
const MAX_WIDENING_PASSES: usize = 8;

/// The span of each space of `f` that `view` shows (`None` where hidden), and its cut; no widened
/// stretches.
fn spans_of(f: &FunctionMap, view: &ViewOptions) -> Vec<Option<LaneSpan>> {
    let visible = visible_spaces(f, view);
    f.spaces
        .iter()
        .map(|s| {
            visible.contains(&s.space.as_str()).then(|| {
                let span = span(s, view.x_axis);
                let cut = plan::lane_cut(f, s, span, view.scale_mode, &plan::lane_marks(f, s));
                LaneSpan { span, cut, wide: Arc::from([]) }
            })
        })
        .collect()
}

/// The card's one px/byte factor (zoom included) for lanes `spans` on a card whose last dump line
/// is `last_line`.
fn factor_of(spans: &[Option<LaneSpan>], view: &ViewOptions, last_line: u32) -> f64 {
    let shown: Vec<(i64, f64)> = spans.iter().flatten().map(|s| s.scaled()).collect();
    let room = plan::lane_room(view.width, gutter_width(last_line), shown.len());
    plan::lanes_factor(&shown, room, view.scale_mode) * view.zoom
}

/// Each lane's width and byte axis on a card of panel `view.width` whose lanes are `spans` (`None`
/// where hidden), main factor `factor` (zoom included) and last dump line `last_line`, and whether
/// it is an inset: a lane too narrow at the card's scale is [`plan::inset_width`] wide (the part to
/// scale times the zoom) at its own factor instead of widening every other lane.
pub(crate) fn lane_scales(
    spans: &[Option<LaneSpan>],
    factor: f64,
    view: &ViewOptions,
    last_line: u32,
) -> Vec<Option<(f64, plan::Axis, bool)>> {
    let shown: Vec<(i64, f64)> = spans.iter().flatten().map(|s| s.scaled()).collect();
    let room = plan::lane_room(view.width, gutter_width(last_line), shown.len());
    let insets = view.scale_mode == ScaleMode::Insets;
    let inset_w = plan::inset_width(&shown, room, factor / view.zoom, insets);
    spans.iter().map(|sp| sp.as_ref().map(|sp| lane_scale(sp, factor, inset_w, view))).collect()
}

fn lane_scale(sp: &LaneSpan, factor: f64, inset_w: f64, view: &ViewOptions) -> (f64, plan::Axis, bool) {
    let (scaled, band) = sp.scaled();
    let inset = plan::is_inset(scaled, band, factor / view.zoom, view.scale_mode == ScaleMode::Insets);
    let k = if inset { plan::inset_factor(scaled, band, inset_w) * view.zoom } else { factor };
    // The axis draws the cut at its own px; the stretches take theirs by the axis's rule.
    let cut_px = if sp.cut.is_some() { plan::px_rules().cut } else { 0.0 };
    let axis = plan::Axis::new(k, sp.cut, cut_px, sp.wide.clone());
    (axis.width(sp.span), axis, inset)
}

/// Spaces drawn for `f`: all but the hidden ones, and never none (the last one stays).
pub(crate) fn visible_spaces<'a>(f: &'a FunctionMap, view: &ViewOptions) -> Vec<&'a str> {
    let shown: Vec<&str> =
        f.spaces.iter().map(|s| s.space.as_str()).filter(|s| !view.hidden.iter().any(|h| h == s)).collect();
    if shown.is_empty() { f.spaces.iter().take(1).map(|s| s.space.as_str()).collect() } else { shown }
}

/// Width of the line-number column of a card whose last dump line is `last_line`.
pub fn gutter_width(last_line: u32) -> f64 {
    let digits = last_line.max(1).ilog10() as f64 + 1.0;
    (digits.max(4.0) * text::advance_em() * SMALL + 20.0).ceil()
}

pub(crate) fn pill_width(p: &plan::Pill) -> f64 {
    8.0 + 8.0 + 6.0 + text::width(&p.text, LABEL) + pct_room(p) + 6.0 + text::width(&p.peak, LABEL) + 8.0
}

/// The room a pill's percentage takes with its gap: none when there is none (capacity unknown).
pub(crate) fn pct_room(p: &plan::Pill) -> f64 {
    if p.pct.is_empty() { 0.0 } else { 6.0 + text::width(&p.pct, LABEL) }
}

/// Spaces whose small span widens some chosen card to more than three panel widths: one byte scale
/// grows the whole factor until the narrowest lane is 72 px, so a 1 KiB Bias lane makes a 512 KiB
/// Mat lane 36 864 px wide. Naming them tells a user what to hide for a picture that fits a review.
pub fn widening_spaces<'a>(map: &'a MemoryMap, view: &ViewOptions) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    if view.scale_mode == ScaleMode::Insets {
        return out; // small lanes are insets: none widens the map
    }
    for f in map.functions.iter().filter(|f| view.draws(&f.name)) {
        let spans = spans_of(f, view);
        let total: f64 = spans.iter().flatten().map(|sp| sp.span as f64).sum();
        for (s, sp) in f.spaces.iter().zip(&spans) {
            // Alone, this lane's 72 px minimum would make the lanes `min * total / span` px wide.
            let wide = sp.as_ref().is_some_and(|sp| RULES.min_lane_px * total / sp.span as f64 > 3.0 * view.width);
            if wide && spans.iter().flatten().count() > 1 && !out.contains(&s.space.as_str()) {
                out.push(&s.space);
            }
        }
    }
    out
}
