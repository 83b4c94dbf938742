//! Bytes to pixels, decided in the plan: where a range lands in a lane, the px/byte factor of a
//! card for each set of visible lanes and each x axis, and which small spaces are drawn as insets
//! at a factor of their own. The scene and the page's script apply these factors; they choose none.

use super::*;

/// Where a byte range lands in a lane `lane_w` px wide at `factor`: its left edge from the lane's
/// left, and its width. Never narrower than the minimum box; a range past either end of the lane
/// (a negative offset, say) is moved inside it rather than drawn outside.
pub fn place(offset: i64, size: i64, factor: f64, lane_w: f64, min_px: f64) -> (f64, f64) {
    let w = (size.max(0) as f64 * factor).max(min_px);
    let x = (offset as f64 * factor).clamp(0.0, (lane_w - w).max(0.0));
    (x, w)
}

/// Bytes a lane spans under `axis`; never less than what is allocated, so no box leaves its lane.
pub fn span(space: &SpaceUsage, axis: XAxis) -> i64 {
    match axis {
        XAxis::Limit => space.limit.max(space.hwm),
        XAxis::Used => space.hwm,
    }
    .max(1)
}

/// The px/byte factor of a card: fill `width` with the sum of spans, grow until the narrowest
/// lane reaches the minimum, then apply the zoom.
pub fn px_per_byte(spans: &[i64], width: f64, zoom: f64) -> f64 {
    let total: f64 = spans.iter().map(|&s| s as f64).sum();
    let narrowest = spans.iter().copied().min().unwrap_or(1).max(1) as f64;
    let fill = width / total.max(1.0);
    fill.max(RULES.min_lane_px / narrowest) * zoom
}

/// The card's main px/byte factor at zoom 1 for lanes spanning `spans` bytes. `Strict` is
/// [`px_per_byte`]: the whole factor grows until the narrowest lane is the minimum wide. `Insets`
/// keeps the factor that fills `width` with the lanes that can hold it: the lanes that would be
/// insets ([`is_inset`]: too narrow, and magnified enough by an inset) are set aside one by one
/// until none left is one at the fill of those left; a set-aside lane that is no inset at that fill
/// rejoins them (the factor then grows a little, as in `Strict`, never past that fill). The lanes
/// left out are exactly those with [`is_inset`] at the answer, so a drawer given only the factor
/// classifies every lane the same way.
///
/// The insets' own widths come out of `width` too, so that the lanes and the insets together fill
/// it: a card is as wide as `--width` asks, whatever its small spaces.
pub fn main_factor(spans: &[i64], width: f64, mode: ScaleMode) -> f64 {
    let lanes: Vec<(i64, f64)> = spans.iter().map(|&s| (s, 0.0)).collect();
    lanes_factor(&lanes, width, mode)
}

/// [`main_factor`] for lanes each drawn as `(bytes to scale, px of fixed width)`: a lane with a cut
/// band spans its bytes less the cut at the factor, plus the band. The bands of the lanes at the
/// card's factor come out of `width` too; an inset's band is inside the inset.
pub fn lanes_factor(lanes: &[(i64, f64)], width: f64, mode: ScaleMode) -> f64 {
    let spans: Vec<i64> = lanes.iter().map(|l| l.0).collect();
    let fixed: f64 = lanes.iter().map(|l| l.1).sum();
    if mode == ScaleMode::Strict || spans.len() < 2 {
        return px_per_byte(&spans, (width - fixed).max(RULES.min_lane_px), 1.0);
    }
    // Fewer px for the lanes makes more of them insets, never fewer: this settles within one pass
    // per lane. An inset takes at most an equal share of the room, so that on a card of many small
    // spaces the lanes at the card's scale are not squeezed to the minimum behind full-width insets
    // ([`inset_width`] then gives the insets what those lanes leave).
    let share = (width / spans.len() as f64).clamp(RULES.min_lane_px, RULES.inset_px);
    let mut room = (width - fixed).max(RULES.min_lane_px);
    for _ in 0..=spans.len() {
        let factor = fill_factor(lanes, room);
        let inset = |l: &&(i64, f64)| is_inset(l.0, l.1, factor, true);
        let insets = lanes.iter().filter(inset).count();
        let bands: f64 = lanes.iter().filter(|l| !inset(l)).map(|l| l.1).sum();
        let next = (width - insets as f64 * share - bands).max(RULES.min_lane_px);
        if (next - room).abs() < 1e-9 || insets == spans.len() {
            return factor;
        }
        room = next;
    }
    fill_factor(lanes, room)
}

/// The card's room for its lanes inside a panel `width` px wide: what the line-number gutter
/// (`gutter` px) and the live-bytes columns of `lanes` visible lanes leave, never less than one
/// lane. A card is then as wide as its panel, not its panel plus its columns.
pub fn lane_room(width: f64, gutter: f64, lanes: usize) -> f64 {
    (width - gutter - RULES.profile_gap - lanes as f64 * (RULES.profile_px + 4.0)).max(RULES.min_lane_px)
}

/// [`main_factor`]'s fill of `width` by the lanes (`(bytes to scale, band px)`) that can hold it:
/// the lanes that would be insets are set aside, most in need first, until the next one is no inset
/// at the fill of those left; then every lane that is no inset at that fill is at the card's scale,
/// and the factor grows (never past that fill) until none of them is one.
fn fill_factor(lanes: &[(i64, f64)], width: f64) -> f64 {
    let mut sorted: Vec<(i64, f64)> = lanes.iter().map(|&(s, band)| (s.max(1), band)).collect();
    sorted.sort_by(|a, b| inset_until(b.0, b.1).total_cmp(&inset_until(a.0, a.1)));
    // Summed as floats: a hostile dump's spans may add up past i64, and a factor needs no exact sum.
    let sum = |ls: &[(i64, f64)]| ls.iter().map(|&(s, _)| s as f64).sum::<f64>();
    let mut fill = width / sum(&sorted);
    for k in 0..sorted.len() {
        fill = width / sum(&sorted[k..]);
        if !is_inset(sorted[k].0, sorted[k].1, fill, true) {
            break;
        }
    }
    let main: Vec<(i64, f64)> = sorted.into_iter().filter(|&(s, band)| !is_inset(s, band, fill, true)).collect();
    if main.is_empty() {
        return fill;
    }
    main.iter().map(|&(s, band)| inset_until(s, band)).fold(width / sum(&main), f64::max).min(fill)
}

/// Whether a lane with `span` bytes to scale and a cut band `band` px wide (0 without one) is drawn
/// as an inset at a card whose main factor is `factor` px/byte at zoom 1: at that factor it would be
/// narrower than the minimum lane, its band included. A lane whose band already makes it that wide
/// is drawn at the card's scale: as an inset it would be magnified barely or not at all (`x1.3`, even
/// `x0.8`), which tells a reader nothing the card's scale does not.
pub fn is_inset(span: i64, band: f64, factor: f64, insets: bool) -> bool {
    insets && span.max(1) as f64 * factor + band < RULES.min_lane_px - 1e-6
}

/// The factor below which a lane (`span` bytes to scale, a band `band` px wide) is an inset.
fn inset_until(span: i64, band: f64) -> f64 {
    (RULES.min_lane_px - band) / span.max(1) as f64
}

/// The px/byte factor of an inset lane at zoom 1 with `span` bytes to scale and a cut band `band`
/// px wide (0 without one): it is `width` px wide ([`inset_width`]).
pub fn inset_factor(span: i64, band: f64, width: f64) -> f64 {
    (width - band).max(1.0) / span.max(1) as f64
}

/// How wide each inset is at zoom 1 on a card whose lanes (`(bytes to scale, band px)`) have the
/// main factor `factor` and `room` px between the line numbers and the live-bytes columns:
/// `RULES.inset_px`, or less where the lanes at the card's scale leave less, never under the
/// minimum lane. The lanes at the card's scale keep their width (none is under the minimum), so
/// narrower insets are what keeps a card of many small spaces inside its panel.
pub fn inset_width(lanes: &[(i64, f64)], room: f64, factor: f64, insets: bool) -> f64 {
    let small = lanes.iter().filter(|l| is_inset(l.0, l.1, factor, insets)).count();
    if small == 0 {
        return RULES.inset_px;
    }
    let main: f64 =
        lanes.iter().filter(|l| !is_inset(l.0, l.1, factor, insets)).map(|l| l.0.max(1) as f64 * factor + l.1).sum();
    ((room - main) / small as f64).clamp(RULES.min_lane_px, RULES.inset_px)
}

/// The badge of an inset: how much larger its scale is than the card's (`x36, not to scale`).
pub fn inset_badge(inset: f64, main: f64) -> String {
    format!("{}, not to scale", inset_ratio(inset, main))
}

/// The short badge of an inset, for a lane too narrow for [`inset_badge`]: `x36`.
pub fn inset_ratio(inset: f64, main: f64) -> String {
    let ratio = inset / main;
    if ratio >= 10.0 { format!("x{}", ratio.round()) } else { format!("x{:.1}", ratio) }
}

/// Lanes past this many get factors only for "all shown" and "one hidden" (a table of every subset
/// would be 2^n entries; real chips have at most eight spaces).
pub(super) const MAX_SUBSET_LANES: usize = 10;

/// The factor at zoom 1 for every set of visible lanes, by axis.
pub(super) fn factors(f: &FunctionMap, lanes: &[LanePlan], width: f64, mode: ScaleMode) -> [Vec<f64>; 2] {
    let n = lanes.len().min(MAX_SUBSET_LANES);
    let table = |axis: usize| -> Vec<f64> {
        (0..1usize << n)
            .map(|mask| {
                let (shown, room) = shown_lanes(lanes, axis, mask, (width, f.src_end));
                if shown.is_empty() { 0.0 } else { lanes_factor(&shown, room, mode) }
            })
            .collect()
    };
    [table(0), table(1)]
}

/// The lanes of set `mask` on axis `axis`, as [`lanes_factor`] takes them, and their room on a card
/// of panel `width` whose last dump line is `last` ([`lane_room`]).
fn shown_lanes(lanes: &[LanePlan], axis: usize, mask: usize, (width, last): (f64, u32)) -> (Vec<(i64, f64)>, f64) {
    let n = lanes.len().min(MAX_SUBSET_LANES);
    let shown: Vec<(i64, f64)> = lanes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < n && mask & (1 << i) != 0)
        .map(|(_, l)| scaled(l, axis))
        .collect();
    let room = lane_room(width, width::gutter_width(last), shown.len());
    (shown, room)
}

/// The inset lanes of every set of visible lanes at `factors` ([`CardPlan::inset_lanes`]) on a
/// card of `panel` (its width and last dump line, as [`shown_lanes`] takes them).
pub(super) fn inset_table(
    lanes: &[LanePlan],
    factors: &[Vec<f64>; 2],
    panel: (f64, u32),
    mode: ScaleMode,
) -> [std::collections::BTreeMap<usize, Vec<InsetLane>>; 2] {
    [0, 1].map(|axis| {
        let mut out = std::collections::BTreeMap::new();
        for (mask, &main) in factors[axis].iter().enumerate().skip(1) {
            let (shown, room) = shown_lanes(lanes, axis, mask, panel);
            let inset_w = inset_width(&shown, room, main, mode == ScaleMode::Insets);
            let insets: Vec<InsetLane> = lanes
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < MAX_SUBSET_LANES && mask & (1 << i) != 0)
                .filter_map(|(i, l)| {
                    let (scaled, band) = scaled(l, axis);
                    is_inset(scaled, band, main, mode == ScaleMode::Insets).then(|| {
                        let own = inset_factor(scaled, band, inset_w);
                        let badge = [inset_badge(own, main), inset_ratio(own, main)];
                        // A lane is `scaled` bytes at `own` times the zoom, plus its band.
                        let badge_z = [0, 1].map(|b| {
                            let need = measured(&badge[b], px_rules().small) + 2.0 * HEAD_PAD - band;
                            ((need / (scaled.max(1) as f64 * own)) * 1000.0).ceil() / 1000.0
                        });
                        InsetLane { lane: i, factor: own, badge, badge_z }
                    })
                })
                .collect();
            if !insets.is_empty() {
                out.insert(mask, insets);
            }
        }
        out
    })
}

/// The padding either side of a lane head's texts on the page.
const HEAD_PAD: f64 = 8.0;

/// [`CardPlan::readable`] of `lanes` at `factors` with insets `insets`.
pub(super) fn readable_steps(
    lanes: &[LanePlan],
    factors: &[Vec<f64>; 2],
    insets: &[std::collections::BTreeMap<usize, Vec<InsetLane>>; 2],
) -> [Vec<f64>; 2] {
    [0, 1].map(|axis| {
        factors[axis]
            .iter()
            .enumerate()
            .map(|(mask, &main)| {
                let own = insets[axis].get(&mask);
                let zoom = lanes
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i < MAX_SUBSET_LANES && mask & (1 << i) != 0)
                    .map(|(i, l)| {
                        let k = own.and_then(|o| o.iter().find(|x| x.lane == i)).map_or(main, |x| x.factor);
                        let (scaled, band) = scaled(l, axis);
                        (RULES.min_lane_px - band).max(0.0) / (scaled.max(1) as f64 * k)
                    })
                    .fold(0.0, f64::max);
                if zoom.is_finite() { (zoom * 1000.0).ceil() / 1000.0 } else { 0.0 }
            })
            .collect()
    })
}

/// A lane on axis `axis` as [`lanes_factor`] takes it: bytes to scale, and its bands' px.
pub fn scaled(l: &LanePlan, axis: usize) -> (i64, f64) {
    let cut = l.cuts[axis].as_ref().map(|c| (c.size(), CUT_PX));
    to_scale(l.span[axis], cut, &l.wide[axis])
}

/// A lane of `span` bytes with its cut (bytes and px), if any, and widened stretches `wide`: the
/// bytes drawn to scale, and the px of its bands. A widened stretch counts as a band of its least
/// width: it is that wide at the opening factor, which is found with it so.
pub(crate) fn to_scale(span: i64, cut: Option<(i64, f64)>, wide: &[super::Stretch]) -> (i64, f64) {
    let (cut_bytes, cut_px) = cut.unwrap_or((0, 0.0));
    let wide_bytes: i64 = wide.iter().map(|&(from, to, _)| to - from).sum();
    ((span - cut_bytes - wide_bytes).max(1), cut_px + wide.iter().map(|s| s.2).sum::<f64>())
}

/// The bit set of the lanes `view` shows (never none: the last one stays).
pub fn visible_mask(f: &FunctionMap, view: &ViewOptions) -> usize {
    let mask = f
        .spaces
        .iter()
        .enumerate()
        .filter(|(_, s)| !view.hidden.iter().any(|h| h == &s.space))
        .fold(0usize, |m, (i, _)| m | 1 << i);
    if mask == 0 && !f.spaces.is_empty() { 1 } else { mask }
}
