//! The page's zoom steps, decided here so that the page's script places nothing: for each lane and
//! x axis, the labels ([`labels`]) and the high-water mark's words at every zoom step the page
//! offers, carried as what changes from one step to the next.
//!
//! Step `n` of a lane is its px/byte factor in the page's opening view (every lane shown, zoom 1)
//! times `RULES.zoom_step^n`: the zooms the buttons reach are steps. Hiding a lane, or fitting the
//! map beside the source, gives factors between steps; the page then takes the step below and
//! scales its places, anchored in bytes. That is sound because everything else only widens: a label
//! that fitted a box or a gap at the step below fits the wider box or gap, and a label beside a box
//! keeps its place among the scaled boxes.

use serde::Serialize;

use super::labels::{self, LabelBox, LaneRows, Spot};
use super::{Axis, CardPlan, LanePlan, MarkText, RULES, px_rules};

/// A lane's boxes (indices into [`CardPlan::boxes`]) in the order they are drawn: the plan's,
/// views after the boxes they look into, which they cover.
pub fn drawing_order(plan: &CardPlan, lane: usize) -> Vec<usize> {
    let mut mine: Vec<usize> = (0..plan.boxes.len()).filter(|&i| plan.boxes[i].lane == lane).collect();
    mine.sort_by_key(|&i| plan.boxes[i].view);
    mine
}

/// The labels of the boxes `order` ([`drawing_order`]) of a lane `lane_w` px wide on `axis`: the
/// one call of the label rule every back end's labels come from.
pub fn lane_labels<'a>(plan: &'a CardPlan, order: &[usize], axis: &Axis, lane_w: f64) -> Vec<Option<Spot<'a>>> {
    labels_on(plan, order, &lane_rows(plan, order), axis, lane_w)
}

/// The first and last row of box `i` ([`super::RowMap`]: no fold skips a line of a box).
fn rows_of(plan: &CardPlan, i: usize) -> (usize, usize) {
    let [a, z] = plan.boxes[i].lines;
    (plan.rows.whole_row(a), plan.rows.whole_row(z.max(a)))
}

/// The rows of the boxes `order`, indexed for the label rule (the same at every factor), the
/// folds' rows walls no label goes on or past.
fn lane_rows(plan: &CardPlan, order: &[usize]) -> LaneRows {
    LaneRows::of(order.iter().map(|&i| rows_of(plan, i)), plan.rows.rows() as usize).walled(plan.rows.fold_rows())
}

/// [`lane_labels`] with the lane's rows indexed already.
fn labels_on<'a>(
    plan: &'a CardPlan,
    order: &[usize],
    index: &LaneRows,
    axis: &Axis,
    lane_w: f64,
) -> Vec<Option<Spot<'a>>> {
    let px = px_rules();
    let items: Vec<LabelBox> = order
        .iter()
        .map(|&i| {
            let b = &plan.boxes[i];
            let (x, w) = axis.place(b.bytes[0], b.bytes[1], lane_w, px.min_box);
            LabelBox { x, w, rows: rows_of(plan, i), label: &b.label, key: b.n }
        })
        .collect();
    // The cut band's words sit across its first two rows: no label beside a box goes there.
    let band = axis.cut.map(|(from, _)| (axis.x(from), axis.x(from) + axis.px));
    labels::place_lane_in(&items, lane_w, index, &px, band)
}

/// Where the high-water mark's words start in a lane `lane_w` px wide: centred on its line, moved
/// in from an edge of the lane so that they are never cut.
pub fn hwm_left(lane: &LanePlan, axis: &Axis, lane_w: f64) -> f64 {
    let at = lane.marks.iter().find(|m| m.style == super::HWM).and_then(|m| m.bytes).map_or(0, |[o, _]| o);
    let at = axis.x(at).clamp(0.5, (lane_w - 0.5).max(0.5));
    (at - lane.hwm_w / 2.0).clamp(1.0, (lane_w - lane.hwm_w - 1.0).max(1.0))
}

/// Where a mark's pill starts in a lane `lane_w` px wide, the mark being `[x, x + w)`: at the
/// mark's left, moved left where it would pass the lane's end, never left of the lane.
pub fn pill_left(text: &MarkText, x: f64, lane_w: f64) -> f64 {
    let inset = px_rules().inset;
    (x + inset).min(lane_w - text.w - inset).max(1.0)
}

/// One box's label at one step, as the page reads it: a bare box index where it has none; else
/// `[box, row, keyed, detail]` inside (the detail's index in the label's details, `-1` for none;
/// the text is the name and badge, or the key where keyed); else `[box, row, keyed, x, x1, y1, x2,
/// y2]` beside, with its leader from `(x1, y1)` to `(x2, y2)`; `x`s in px from the lane's left at
/// the step. Rows and `y`s count from the box's first line (rows) and top (px): small numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StepLabel {
    /// No label: a lane packed from edge to edge.
    None(usize),
    /// Inside the box.
    Inside(usize, i64, u8, i32),
    /// Beside the box.
    Beside(usize, i64, u8, i64, i64, i64, i64, i64),
}

/// A lane's zoom steps on one x axis.
#[derive(Debug, Clone, Serialize)]
pub struct LaneSteps {
    /// The lane's px/byte factor in the opening view: step `n` is this times `zoom_step^n`.
    pub k: f64,
    /// The first step's `n`.
    pub from: i32,
    /// For each step from `from` on, the boxes whose label differs from the step before (every box
    /// at the first). Past the last step nothing changes any more.
    pub at: Vec<Vec<StepLabel>>,
    /// For each step, where the high-water mark's words start ([`hwm_left`]), in px at the step.
    pub hwm: Vec<i64>,
    /// For each step, where the lane's pills start ([`pill_left`]), in px at the step, in the
    /// order of the lane's marks; empty for a lane without pills.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pills: Vec<Vec<i64>>,
}

/// Px are carried whole: a label half a pixel off is invisible, and whole numbers keep the
/// page's data small (measured when this was chosen: 26 KB of gzip so, 35 KB to a hundredth).
fn whole(v: f64) -> i64 {
    v.round() as i64
}

/// Most (box, row) cells a card's steps are placed over, past which each lane is stepped at its
/// opening factor only (labels then stay where that view put them, scaled): the steps cost the page
/// no more than a few times the work of its static cards.
const MAX_STEP_CELLS: usize = 2_000_000;

/// The steps of every lane of `plan` on both x axes (`[limit, used]`, each `None` for a lane the
/// page cannot show on that axis).
pub fn card_steps(plan: &CardPlan) -> Vec<[Option<LaneSteps>; 2]> {
    let n = plan.lanes.len().min(super::MAX_SUBSET_LANES);
    let all = (1usize << n) - 1;
    let rows = plan.rows.rows() as usize;
    let cells: usize = plan
        .boxes
        .iter()
        .map(|b| (b.lines[1].max(b.lines[0]) - b.lines[0]) as usize + 1)
        .sum::<usize>()
        .min(rows.saturating_mul(plan.boxes.len()));
    let ladder = if cells.saturating_mul(2 * 16) > MAX_STEP_CELLS { Ladder::Opening } else { Ladder::Whole };
    (0..plan.lanes.len())
        .map(|li| {
            let order = drawing_order(plan, li);
            let index = lane_rows(plan, &order);
            [0, 1].map(|a| lane_steps(plan, (li, a), all, (&order, &index), ladder))
        })
        .collect()
}

/// Sets each mark text's first step ([`MarkText::from`]) on both x axes, over every step a reader
/// can reach (also on a card whose labels are stepped at its opening factor only: this is cheap).
pub fn text_steps(plan: &mut CardPlan) {
    let all = (1usize << plan.lanes.len().min(super::MAX_SUBSET_LANES)) - 1;
    // Each lane's ladder once, not once a mark: it looks at every set of shown lanes.
    let ladders: Vec<[LaneLadder; 2]> =
        (0..plan.lanes.len()).map(|li| [0, 1].map(|a| ladder(plan, (li, a), all, Ladder::Whole))).collect();
    let of = |li: usize, host: Option<usize>, marks: &[super::Mark]| -> Vec<[Option<i32>; 2]> {
        marks.iter().map(|m| text_from(plan, (li, host), m, &ladders[li])).collect()
    };
    let lanes: Vec<_> = plan.lanes.iter().enumerate().map(|(li, l)| of(li, None, &l.marks)).collect();
    let boxes: Vec<_> = plan.boxes.iter().enumerate().map(|(i, b)| of(b.lane, Some(i), &b.marks)).collect();
    let marks = plan.lanes.iter_mut().map(|l| &mut l.marks).chain(plan.boxes.iter_mut().map(|b| &mut b.marks));
    for (marks, from) in marks.zip(lanes.into_iter().chain(boxes)) {
        for (m, from) in marks.iter_mut().zip(from) {
            if let Some(t) = m.text.as_mut() {
                t.from = from;
            }
        }
    }
}

/// The first step on each x axis at which the text of mark `m` of lane `li` (on box `host`, or the
/// lane) fits it, if any; none for a pill, drawn always.
fn text_from(
    plan: &CardPlan,
    (li, host): (usize, Option<usize>),
    m: &super::Mark,
    ladders: &[LaneLadder; 2],
) -> [Option<i32>; 2] {
    let Some(t) = m.text.as_ref().filter(|t| !t.pill) else { return [None; 2] };
    let lane = &plan.lanes[li];
    let bytes = m.bytes.or_else(|| host.map(|i| plan.boxes[i].bytes));
    [0, 1].map(|a| {
        let (base, mut steps) = ladders[a].clone()?;
        steps.find(|&n| {
            let axis = lane.axis(a, base * RULES.zoom_step.powi(n));
            let lane_w = axis.width(lane.span[a]);
            t.fits(bytes.map_or(lane_w, |[o, s]| axis.place(o, s, lane_w, px_rules().min_box).1))
        })
    })
}

/// A lane's [`ladder`] on one x axis.
type LaneLadder = Option<(f64, std::ops::RangeInclusive<i32>)>;

#[derive(Clone, Copy, PartialEq)]
enum Ladder {
    /// Every step a reader can reach.
    Whole,
    /// The opening view's step alone (a card too large to step: see [`MAX_STEP_CELLS`]).
    Opening,
}

/// The lane's factor at zoom 1 with the lanes of `mask` shown: its inset factor, or the card's.
fn factor_at(plan: &CardPlan, li: usize, axis: usize, mask: usize) -> Option<f64> {
    let table = &plan.factors[axis];
    let card = *table.get(mask).or(table.last())?;
    let inset = plan.inset_lanes[axis].get(&mask).and_then(|l| l.iter().find(|x| x.lane == li));
    Some(inset.map_or(card, |x| x.factor)).filter(|k| *k > 0.0 && k.is_finite())
}

/// The lane's factor in the opening view and the steps a reader can reach on axis `a` (`ladder`
/// [`Ladder::Opening`]: the opening view's alone).
fn ladder(plan: &CardPlan, (li, a): (usize, usize), all: usize, ladder: Ladder) -> LaneLadder {
    let base = factor_at(plan, li, a, all)?;
    if ladder == Ladder::Opening {
        return Some((base, 0..=0));
    }
    let step = RULES.zoom_step.ln();
    // The steps between the smallest and the largest factor any set of shown lanes gives this one.
    let (mut lo, mut hi) = (base, base);
    if li < super::MAX_SUBSET_LANES {
        for mask in (1..plan.factors[a].len()).filter(|m| m & (1 << li) != 0) {
            if let Some(k) = factor_at(plan, li, a, mask) {
                lo = lo.min(k);
                hi = hi.max(k);
            }
        }
    }
    // The step at or below the smallest and the largest factor, as the page picks them (a factor a
    // hair under a step, by rounding, is that step).
    let at = |k: f64| ((k / base).ln() / step + 1e-9).floor() as i32;
    Some((base, at(lo * RULES.zoom_min)..=at(hi * RULES.zoom_max)))
}

fn lane_steps(
    plan: &CardPlan,
    (li, a): (usize, usize),
    all: usize,
    (order, index): (&[usize], &LaneRows),
    ladder_of: Ladder,
) -> Option<LaneSteps> {
    let lane = &plan.lanes[li];
    let (base, steps) = ladder(plan, (li, a), all, ladder_of)?;
    let px = px_rules();
    let mut out = LaneSteps { k: base, from: *steps.start(), at: Vec::new(), hwm: Vec::new(), pills: Vec::new() };
    let mut before: Vec<Option<StepLabel>> = vec![None; order.len()];
    for n in steps {
        let axis = lane.axis(a, base * RULES.zoom_step.powi(n));
        let lane_w = axis.width(lane.span[a]);
        let spots = labels_on(plan, order, index, &axis, lane_w);
        let now: Vec<StepLabel> = order.iter().zip(&spots).map(|(&i, s)| step_label(plan, i, s.as_ref())).collect();
        let changed: Vec<StepLabel> =
            now.iter().zip(&before).filter(|(s, b)| b.as_ref() != Some(*s)).map(|(s, _)| s.clone()).collect();
        let settled = now.iter().all(|s| settled(plan, s));
        out.at.push(changed);
        out.hwm.push(whole(hwm_left(lane, &axis, lane_w)));
        let pills: Vec<i64> = lane
            .marks
            .iter()
            .filter_map(|m| Some((m.text.as_ref().filter(|t| t.pill)?, m.bytes?)))
            .map(|(t, [o, s])| whole(pill_left(t, axis.place(o, s, lane_w, px.min_box).0, lane_w)))
            .collect();
        if !pills.is_empty() {
            out.pills.push(pills);
        }
        before = now.into_iter().map(Some).collect();
        // Every name inside with its longest detail: a wider step draws the same.
        if settled {
            break;
        }
    }
    Some(out)
}

fn step_label(plan: &CardPlan, i: usize, spot: Option<&Spot>) -> StepLabel {
    let b = &plan.boxes[i];
    let first = plan.rows.whole_row(b.lines[0]) as i64;
    let top = first as f64 * RULES.line_px;
    match spot {
        None => StepLabel::None(i),
        Some(Spot::Inside { fitted, keyed, row }) => {
            let d = fitted.detail.as_ref().and_then(|d| b.label.details.iter().position(|x| x == d));
            StepLabel::Inside(i, *row as i64 - first, u8::from(*keyed), d.map_or(-1, |d| d as i32))
        }
        Some(Spot::Beside { keyed, x, row, leader: [x1, y1, x2, y2], .. }) => StepLabel::Beside(
            i,
            *row as i64 - first,
            u8::from(*keyed),
            whole(*x),
            whole(*x1),
            whole(y1 - top),
            whole(*x2),
            whole(y2 - top),
        ),
    }
}

/// Whether a box's label can change no more at a wider step: its name inside with the first
/// (longest) detail, or with none on a box one line high.
fn settled(plan: &CardPlan, s: &StepLabel) -> bool {
    let StepLabel::Inside(i, 0, 0, d) = *s else { return false };
    let b = &plan.boxes[i];
    let one_line = b.lines[1] <= b.lines[0];
    d == 0 || (one_line && d < 0) || b.label.details.is_empty()
}
