//! Where each box's label goes in one lane at one factor: its whole name inside the box where it
//! fits, else its key inside, else its name or key beside the box on a free spot of the lane, joined
//! to it by a leader. A label never lies over another label, nor over a box other than its own.
//!
//! The rule works on rows (one dump line each) and pixels across, and knows nothing of any back end:
//! the static pictures apply it at their factor, and the page's script applies the same rule (a copy
//! held equal to this one by a test over cases this module writes) at whatever zoom a reader picks.

use std::borrow::Cow;

use serde::Serialize;

use super::{FittedLabel, LabelPlan, PxRules, fit_label};

/// One box of a lane, as the label rule sees it.
#[derive(Debug, Clone, Serialize)]
pub struct LabelBox<'a> {
    /// Left edge from the lane's left, and width, in px.
    pub x: f64,
    /// Width in px.
    pub w: f64,
    /// First and last row (dump line minus the card's first line).
    pub rows: (usize, usize),
    /// What the label chooses from.
    pub label: &'a LabelPlan,
    /// The box's key: its number in the card's reading order.
    pub key: usize,
}

/// Where a box's label went.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Spot<'a> {
    /// Inside the box.
    Inside {
        /// The texts [`fit_label`] leaves (or the key, as the name).
        fitted: FittedLabel<'a>,
        /// Whether it shows the key.
        keyed: bool,
        /// The row of its first text: the box's first, or the first no box drawn over it covers.
        row: usize,
    },
    /// Beside the box, on a free spot of the lane.
    Beside {
        /// The box's whole name, or its key.
        text: Cow<'a, str>,
        /// Whether it is the key.
        keyed: bool,
        /// Where the text starts, in px from the lane's left.
        x: f64,
        /// Its row.
        row: usize,
        /// The leader, from `(x1, y1)` on the box's edge to `(x2, y2)` at the text, `y` in px
        /// from the top of the lane's first row.
        leader: [f64; 4],
    },
}

impl Spot<'_> {
    /// Whether the box shows its key (so the card's key list names it).
    pub fn keyed(&self) -> bool {
        match self {
            Spot::Inside { keyed, .. } | Spot::Beside { keyed, .. } => *keyed,
        }
    }
}

/// The vertical extent of a label's text in its row, in px from the row's top: the name's baseline
/// is 12 px down; a glyph rises three quarters of the size above it and falls a quarter below.
pub fn text_band(size: f64) -> (f64, f64) {
    (12.0 - 0.75 * size, 12.0 + 0.25 * size)
}

/// Gap between a box and a label beside it (the leader spans it), and around any label.
const GAP: f64 = 4.0;
/// What a row of distance costs against a pixel across: rows are farther apart than pixels.
const ROW_COST: f64 = 17.0;
/// Rows above and below a box a label beside it may take: its text stays within two line-heights
/// of the box, where the eye still pairs them.
const REACH: usize = 2;
/// Farthest a label beside its box may start or end from it, in px across.
const NEAR_X: f64 = 40.0;
/// Where no spot is that near (a sliver in a crowd), its key goes this many rows up or down at
/// most, crossing boxes if it must (each crossing costing [`CROSSING`] px): a box is never left
/// without its key on the map.
const FAR_REACH: usize = 40;
const CROSSING: f64 = 60.0;
/// Rows at each end of a tall box searched beside it: a label near a corner reads as the box's,
/// and the search stays linear in boxes, whatever their height (with 4 rather than 12 the corpus
/// has as few far or crossing labels, and the decode case's page searches 29 % fewer rows).
const END_ROWS: usize = 4;
/// A leader within this many px of another box's edge, parallel to it for more than
/// [`ALONG_PX`], reads as that edge: the spot is refused.
const EDGE_PX: f64 = 2.0;
const ALONG_PX: f64 = 10.0;

/// Places the labels of `boxes` (in the order they are drawn: a later box covers an earlier one) in
/// a lane `lane_w` px wide and `rows` rows tall. Returns one spot per box, `None` where no row
/// within reach has room (a lane packed from edge to edge).
pub fn place_lane<'a>(boxes: &[LabelBox<'a>], lane_w: f64, rows: usize, px: &PxRules) -> Vec<Option<Spot<'a>>> {
    place_lane_around(boxes, lane_w, rows, px, None)
}

/// [`place_lane`] in a lane whose stretch `blocked` (`[from, to)` px across, in the first two rows:
/// a cut band's words) takes no label beside a box.
pub fn place_lane_around<'a>(
    boxes: &[LabelBox<'a>],
    lane_w: f64,
    rows: usize,
    px: &PxRules,
    blocked: Option<(f64, f64)>,
) -> Vec<Option<Spot<'a>>> {
    let index = LaneRows::of(boxes.iter().map(|b| b.rows), rows);
    place_lane_in(boxes, lane_w, &index, px, blocked)
}

/// Which boxes (by their place in the drawing order) each row of a lane holds: the same at every
/// factor, so a lane placed at many factors (the page's zoom steps) indexes its rows once. Kept as
/// one list of all rows' boxes and where each row's start, not a list per row.
pub struct LaneRows {
    starts: Vec<u32>,
    items: Vec<u32>,
    /// Past [`MAX_CELLS`]: not indexed (labels stay inside their boxes).
    over: bool,
    /// The rows no label goes on or past (a fold's, [`super::RowMap`]), in order.
    walls: Vec<usize>,
}

impl LaneRows {
    /// The rows of boxes spanning `spans` (first and last row each, in drawing order) in a lane
    /// `rows` rows tall.
    pub fn of(spans: impl Iterator<Item = (usize, usize)> + Clone, rows: usize) -> LaneRows {
        let rows = rows.max(1);
        let clip = |(a, z): (usize, usize)| (a.min(rows - 1), z.min(rows - 1).max(a.min(rows - 1)));
        // Rows times boxes is a picture no reader sees at once; past this, labels stay inside their
        // boxes rather than the work growing with every box's height.
        let cells: usize = spans.clone().map(|s| clip(s).1 - clip(s).0 + 1).sum();
        if cells > MAX_CELLS {
            return LaneRows { starts: vec![0; rows + 1], items: Vec::new(), over: true, walls: Vec::new() };
        }
        let mut starts = vec![0u32; rows + 1];
        for (a, z) in spans.clone().map(clip) {
            for row in a..=z {
                starts[row + 1] += 1;
            }
        }
        for row in 0..rows {
            starts[row + 1] += starts[row];
        }
        let mut fill = starts.clone();
        let mut items = vec![0u32; cells];
        for (i, (a, z)) in spans.map(clip).enumerate() {
            for row in a..=z {
                items[fill[row] as usize] = i as u32;
                fill[row] += 1;
            }
        }
        LaneRows { starts, items, over: false, walls: Vec::new() }
    }

    /// The same rows, with `walls` rows no label beside a box goes on, nor past: a label stays
    /// on its box's side of a fold, where the page's unfolding of it does not move it off.
    pub fn walled(mut self, walls: impl IntoIterator<Item = usize>) -> LaneRows {
        self.walls = walls.into_iter().filter(|&r| r < self.len()).collect();
        self.walls.sort_unstable();
        self
    }

    /// Whether `row` is a wall.
    fn wall(&self, row: usize) -> bool {
        self.walls.binary_search(&row).is_ok()
    }

    /// The rows between the walls nearest above `top` and below `bottom`, walls left out.
    fn between(&self, top: usize, bottom: usize) -> (usize, usize) {
        let above = self.walls.partition_point(|&w| w < top);
        let lo = above.checked_sub(1).map_or(0, |i| self.walls[i] + 1);
        let below = self.walls.partition_point(|&w| w <= bottom);
        let hi = self.walls.get(below).map_or(usize::MAX, |&w| w - 1);
        (lo, hi)
    }

    /// How many rows.
    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The boxes in `row`, in drawing order.
    fn row(&self, row: usize) -> &[u32] {
        &self.items[self.starts[row] as usize..self.starts[row + 1] as usize]
    }
}

/// [`place_lane_around`] with the lane's rows indexed already (`index`, made from `boxes`' rows).
pub fn place_lane_in<'a>(
    boxes: &[LabelBox<'a>],
    lane_w: f64,
    index: &LaneRows,
    px: &PxRules,
    blocked: Option<(f64, f64)>,
) -> Vec<Option<Spot<'a>>> {
    let line = px.line;
    if index.over {
        return inside_only(boxes, px);
    }
    let rows = index.len();
    let drawn = Drawn { boxes, rows: index };
    let mut labels_in: Vec<Vec<(f64, f64)>> = vec![Vec::new(); rows];
    let mut out: Vec<Option<Spot>> = vec![None; boxes.len()];
    let mut reading: Vec<usize> = (0..boxes.len()).collect();
    reading.sort_by_key(|&i| (boxes[i].key, i));
    // Inside first, in reading order: a label fits its box and no box drawn over it covers it.
    let mut beside = Vec::new();
    for &i in &reading {
        let b = &boxes[i];
        let (fitted, keyed) = inside_label(b, px);
        let Some(name) = &fitted.name else {
            beside.push(i);
            continue;
        };
        let name_w = if keyed { b.label.w.key } else { b.label.w.full };
        debug_assert!(keyed || name == &b.label.name);
        let (from, to) = (b.x + px.inset, b.x + px.inset + name_w);
        let free = |row: usize, from: f64, to: f64| {
            row < rows
                && !labels_in[row].iter().any(|&(a, z)| a < to && from < z)
                && !index
                    .row(row)
                    .iter()
                    .map(|&o| o as usize)
                    .any(|o| o > i && boxes[o].x < to && from < boxes[o].x + boxes[o].w)
        };
        // The first row of the box no box drawn over it covers (a view over its base, say).
        let Some(row) = (b.rows.0..=b.rows.1.min(rows - 1)).find(|&r| free(r, from, to)) else {
            beside.push(i);
            continue;
        };
        let detail_to = fitted.detail.as_ref().and_then(|d| detail_w(b.label, d)).map(|w| from + w);
        let detail = match detail_to {
            Some(z) if row < b.rows.1 && free(row + 1, from, z) => fitted.detail,
            _ => None,
        };
        put(&mut labels_in[row], (from, to));
        if let Some(z) = detail.as_ref().and(detail_to) {
            put(&mut labels_in[row + 1], (from, z));
        }
        out[i] = Some(Spot::Inside { fitted: FittedLabel { detail, ..fitted }, keyed, row });
    }
    // Then beside, in reading order, each on the nearest free spot.
    beside.sort_by_key(|&i| (boxes[i].key, i));
    let mut rows_in = Rows {
        drawn: &drawn,
        blocked,
        lane_w,
        sorted: std::iter::repeat_with(|| None).take(if beside.is_empty() { 0 } else { rows }).collect(),
    };
    for i in beside {
        let b = &boxes[i];
        let name = &b.label.name;
        let mut search =
            |w: f64, reach: Reach| find_spot((i, b), w, lane_w, (line, reach), &mut rows_in, &labels_in, &drawn);
        let chosen = search(b.label.w.name, Reach::Near)
            .map(|s| (s, Cow::Borrowed(name.as_str()), false))
            .or_else(|| search(b.label.w.key, Reach::Near).map(|s| (s, Cow::Owned(b.key.to_string()), true)))
            .or_else(|| search(b.label.w.key, Reach::Crossing).map(|s| (s, Cow::Owned(b.key.to_string()), true)))
            .or_else(|| search(b.label.w.key, Reach::Far).map(|s| (s, Cow::Owned(b.key.to_string()), true)));
        let Some((s, text, keyed)) = chosen else { continue };
        put(&mut labels_in[s.row], (s.x, s.x + s.w));
        out[i] = Some(Spot::Beside { text, keyed, x: s.x, row: s.row, leader: s.leader });
    }
    out
}

/// Adds a label's span to its row's, which are kept in order of their left edge.
fn put(row: &mut Vec<(f64, f64)>, span: (f64, f64)) {
    let at = row.partition_point(|s| s.0 <= span.0);
    row.insert(at, span);
}

/// Most (box, row) pairs a lane's labels are placed over: a hundred times the largest real lane.
const MAX_CELLS: usize = 4_000_000;

/// Each box's label inside it, where it fits, with nothing beside: for a lane too large to search.
fn inside_only<'a>(boxes: &[LabelBox<'a>], px: &PxRules) -> Vec<Option<Spot<'a>>> {
    boxes
        .iter()
        .map(|b| {
            let (fitted, keyed) = inside_label(b, px);
            fitted.name.is_some().then_some(Spot::Inside { fitted, keyed, row: b.rows.0 })
        })
        .collect()
}

/// The first of a box's candidates whose stated width fits inside it: its name with the badge, else
/// its key (`keyed`), else none (the name is `None`: the label goes beside); the detail as
/// [`fit_label`] picks it.
fn inside_label<'a>(b: &LabelBox<'a>, px: &PxRules) -> (FittedLabel<'a>, bool) {
    let h = (b.rows.1 - b.rows.0 + 1) as f64 * px.line;
    let fitted = fit_label(b.label, b.w, h, px);
    if fitted.name.is_some() {
        return (fitted, false);
    }
    // A key is drawn from the same inset as a name, but needs less room after it: it is a short
    // number, and a box one digit wider than it already reads as holding it.
    let fits = b.label.w.key <= b.w - px.inset - KEY_AFTER + super::parts::FIT_SLACK;
    (FittedLabel { name: fits.then(|| Cow::Owned(b.key.to_string())), badge: None, detail: fitted.detail }, true)
}

/// The room a key inside a box leaves after it, in px (a name leaves the full inset).
const KEY_AFTER: f64 = 1.5;

/// The stated width of `detail`, one of `label`'s details.
fn detail_w(label: &LabelPlan, detail: &str) -> Option<f64> {
    label.details.iter().position(|d| d == detail).and_then(|i| label.w.details.get(i).copied())
}

/// A free spot for a text beside a box, and what reaching it costs.
struct Found {
    row: usize,
    x: f64,
    w: f64,
    leader: [f64; 4],
    cost: f64,
}

/// Each row's boxes as [`find_spot`] reads them: once a row is first searched, its boxes (and the
/// blocked stretch, in the first two rows) widened by the gap and sorted by their left edge. The
/// boxes do not move while the labels beside them are placed, so each row is sorted once rather than
/// once per label that looks at it (a lane of a thousand long-lived tiles spent half its time
/// re-sorting the same rows).
struct Rows<'a, 'b, 'c> {
    drawn: &'a Drawn<'a, 'b, 'c>,
    blocked: Option<(f64, f64)>,
    lane_w: f64,
    sorted: Vec<Option<Row>>,
}

/// One row's boxes, widened and sorted, and the widest stretch they leave: no text wider than it
/// fits the row, whatever labels it holds, so a search skips the row unread.
struct Row {
    spans: Vec<(f64, f64)>,
    widest: f64,
}

impl Rows<'_, '_, '_> {
    fn sorted(&mut self, row: usize) -> &Row {
        let (drawn, blocked, lane_w) = (self.drawn, self.blocked, self.lane_w);
        self.sorted[row].get_or_insert_with(|| {
            if drawn.rows.wall(row) {
                return Row { spans: vec![(f64::NEG_INFINITY, f64::INFINITY)], widest: 0.0 };
            }
            let boxes = drawn.rows.row(row).iter().map(|&o| &drawn.boxes[o as usize]).map(|b| (b.x, b.x + b.w));
            let band = blocked.filter(|_| row < 2);
            let mut spans: Vec<(f64, f64)> = boxes.chain(band).map(|(a, z)| (a - GAP, z + GAP)).collect();
            spans.sort_by(|a, z| a.0.total_cmp(&z.0));
            let (mut reach, mut widest) = (1.0f64, 0.0f64);
            for &(a, z) in spans.iter().chain([&(lane_w - 1.0, f64::INFINITY)]) {
                widest = widest.max(a - reach);
                reach = reach.max(z);
            }
            Row { spans, widest }
        })
    }
}

/// The boxes of a lane as drawn, and each row's, by index: what a leader must not cross.
struct Drawn<'a, 'b, 'c> {
    boxes: &'a [LabelBox<'b>],
    rows: &'c LaneRows,
}

/// How far [`find_spot`] looks.
#[derive(Clone, Copy, PartialEq)]
enum Reach {
    /// Within [`REACH`] rows and [`NEAR_X`] px, the leader crossing no other box and running along
    /// none of their edges.
    Near,
    /// As near, the leader crossing boxes at a cost: a short leader over a sliver reads better
    /// than a long one.
    Crossing,
    /// Within [`FAR_REACH`] rows, crossings allowed at a cost: the last resort of a key.
    Far,
}

/// The cheapest spot beside box `b` (the `i`th) for a text `w` px wide, touching no box and no
/// label, as far as `how` allows. The cost is the leader's length across plus [`ROW_COST`] a
/// row (and [`CROSSING`] a box crossed, where allowed): of the spots allowed, the nearest wins.
fn find_spot(
    (i, b): (usize, &LabelBox),
    w: f64,
    lane_w: f64,
    (line, how): (f64, Reach),
    rows_in: &mut Rows,
    labels_in: &[Vec<(f64, f64)>],
    drawn: &Drawn,
) -> Option<Found> {
    let rows = drawn.rows.len();
    let (r0, r1) = (b.rows.0.min(rows - 1), b.rows.1.min(rows - 1));
    let (rows_out, near_x) = match how {
        Reach::Near | Reach::Crossing => (REACH, NEAR_X),
        Reach::Far => (FAR_REACH, f64::INFINITY),
    };
    // The box's own rows near its ends, then the rows above and below it within reach.
    let own = (r0..=r1.min(r0 + END_ROWS)).chain((r1.saturating_sub(END_ROWS).max(r0 + END_ROWS + 1))..=r1);
    let (lo, hi) = drawn.rows.between(r0, r1);
    let candidates = own
        .map(|r| (r, 0usize))
        .chain((1..=rows_out).flat_map(|d| [r0.checked_sub(d).map(|r| (r, d)), Some((r1 + d, d))]).flatten())
        .filter(|&(r, _)| r < rows && r >= lo && r <= hi);
    let (near_lo, near_hi) = (b.x - near_x - w, b.x + b.w + near_x + w);
    let mut best: Option<Found> = None;
    for (row, d) in candidates {
        if best.as_ref().is_some_and(|f| d as f64 * ROW_COST > f.cost) {
            break; // rows only get farther
        }
        // What a text must avoid in this row, by left edge: the row's boxes (sorted once) merged
        // with its few labels (kept sorted), up to the lane's right end; the stretch starts past
        // its left end. Among equal left edges the order does not matter: after the first, the
        // stretch before them is already past.
        let known = rows_in.sorted(row);
        if known.widest < w {
            continue; // no stretch of this row is wide enough, labels or not
        }
        let (sorted, labels) = (&known.spans, &labels_in[row]);
        let (mut p, mut q, mut past) = (0, 0, false);
        let mut reach = 1.0;
        while !past {
            let (a, z) = if p < sorted.len() && (q == labels.len() || sorted[p].0 <= labels[q].0 - GAP) {
                p += 1;
                sorted[p - 1]
            } else if q < labels.len() {
                q += 1;
                (labels[q - 1].0 - GAP, labels[q - 1].1 + GAP)
            } else {
                past = true; // the lane's right end
                (lane_w - 1.0, f64::INFINITY)
            };
            if reach > near_hi {
                break; // every stretch from here on starts too far right of the box
            }
            if a - reach >= w && a >= near_lo {
                // A free stretch [reach, a): the text goes at its end nearest the box.
                let x = if reach >= b.x + b.w {
                    reach
                } else if a <= b.x {
                    a - w
                } else {
                    (b.x + b.w / 2.0 - w / 2.0).clamp(reach, a - w) // over or under the box
                };
                consider(&mut best, (i, b), (row, x, w), (d, how), line, drawn);
            }
            reach = reach.max(z);
        }
    }
    best
}

/// Keeps the spot `(row, x, w)`, `d` rows from the box, in `best` if `reach` allows it and it is
/// cheaper.
fn consider(
    best: &mut Option<Found>,
    (i, b): (usize, &LabelBox),
    (row, x, w): (usize, f64, f64),
    (d, reach): (usize, Reach),
    line: f64,
    drawn: &Drawn,
) {
    let across_gap = (x - (b.x + b.w)).max(b.x - (x + w)).max(0.0);
    if reach != Reach::Far && across_gap > NEAR_X {
        return;
    }
    let (t0, t1) = text_band(11.0);
    let (ty0, ty1) = (row as f64 * line + t0, row as f64 * line + t1);
    let (by0, by1) = (b.rows.0 as f64 * line, (b.rows.1 + 1) as f64 * line);
    // The leader: from the box's edge point nearest the text's middle to the text's nearest point.
    let (mx, my) = (x + w / 2.0, (ty0 + ty1) / 2.0);
    let (x1, y1) = (mx.clamp(b.x, b.x + b.w), my.clamp(by0, by1));
    let (x2, y2) = (x1.clamp(x - 1.0, x + w + 1.0), y1.clamp(ty0, ty1));
    let leader = [x1, y1, x2, y2];
    let mut cost = (x2 - x1).abs() + d as f64 * ROW_COST;
    if best.as_ref().is_some_and(|f| cost >= f.cost) {
        return;
    }
    // Other boxes in the rows the leader spans; a box it starts in (the base a view looks into)
    // is its own ground.
    let rows = drawn.rows.len();
    let (ra, rz) = ((y1.min(y2) / line) as usize, ((y1.max(y2) / line) as usize).min(rows - 1));
    for o in (ra..=rz).flat_map(|r| drawn.rows.row(r).iter().map(|&o| o as usize)) {
        if o == i {
            continue;
        }
        let ob = &drawn.boxes[o];
        let rect = [ob.x, ob.rows.0 as f64 * line, ob.x + ob.w, (ob.rows.1 + 1) as f64 * line];
        let starts_in = x1 >= rect[0] && x1 <= rect[2] && y1 >= rect[1] && y1 <= rect[3];
        if starts_in {
            continue;
        }
        match reach {
            Reach::Near if crosses(&leader, &rect) || along(&leader, &rect) => return,
            Reach::Crossing | Reach::Far if crosses(&leader, &rect) => cost += CROSSING,
            _ => {}
        }
        if best.as_ref().is_some_and(|f| cost >= f.cost) {
            return;
        }
    }
    *best = Some(Found { row, x, w, leader, cost });
}

/// Whether segment `l` (`[x1, y1, x2, y2]`) passes through the inside of rectangle `r` (`[left,
/// top, right, bottom]`, shrunk by half a px so that touching is not crossing).
fn crosses(l: &[f64; 4], r: &[f64; 4]) -> bool {
    let r = [r[0] + 0.5, r[1] + 0.5, r[2] - 0.5, r[3] - 0.5];
    let [x1, y1, x2, y2] = *l;
    let (lo, hi) = (x1.min(x2).max(r[0]), x1.max(x2).min(r[2]));
    if lo > hi {
        return false;
    }
    // The segment's y over [lo, hi] (all of it where it is upright).
    let (ya, yb) = if (x2 - x1).abs() < 1e-9 {
        (y1.min(y2), y1.max(y2))
    } else {
        let at = |x: f64| y1 + (y2 - y1) * (x - x1) / (x2 - x1);
        (at(lo).min(at(hi)), at(lo).max(at(hi)))
    };
    ya < r[3] && yb > r[1]
}

/// Whether segment `l` runs along an edge of `r`: parallel to it, within [`EDGE_PX`], for more than
/// [`ALONG_PX`].
fn along(l: &[f64; 4], r: &[f64; 4]) -> bool {
    let [x1, y1, x2, y2] = *l;
    let shared = |a: (f64, f64), b: (f64, f64)| a.1.min(b.1) - a.0.max(b.0);
    let (xs, ys) = ((x1.min(x2), x1.max(x2)), (y1.min(y2), y1.max(y2)));
    let flat = (y2 - y1).abs() < 0.5 && [r[1], r[3]].iter().any(|&e| (y1 - e).abs() <= EDGE_PX);
    let upright = (x2 - x1).abs() < 0.5 && [r[0], r[2]].iter().any(|&e| (x1 - e).abs() <= EDGE_PX);
    (flat && shared(xs, (r[0], r[2])) > ALONG_PX) || (upright && shared(ys, (r[1], r[3])) > ALONG_PX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::px_rules;

    fn label(name: &str) -> LabelPlan {
        let mut l = LabelPlan::new(name.into(), String::new(), vec!["8 KB".into()]);
        l.set_key(1);
        l
    }

    #[test]
    fn a_name_that_fits_stays_in_its_box_and_a_key_takes_a_narrower_one() {
        let px = px_rules();
        let (a, k) = (label("t__a"), label("t__very_long_name"));
        let boxes = [
            LabelBox { x: 0.0, w: 200.0, rows: (0, 3), label: &a, key: 1 },
            LabelBox { x: 300.0, w: 30.0, rows: (0, 3), label: &k, key: 2 },
        ];
        let spots = place_lane(&boxes, 1000.0, 10, &px);
        let named = |s: &Option<Spot>, want: &str, key: bool| match s {
            Some(Spot::Inside { keyed, fitted, .. }) => *keyed == key && fitted.name.as_deref() == Some(want),
            _ => false,
        };
        assert!(named(&spots[0], "t__a", false));
        assert!(named(&spots[1], "2", true), "{:?}", spots[1]);
    }

    #[test]
    fn a_sliver_is_named_beside_itself_with_a_leader_and_never_over_a_box() {
        let px = px_rules();
        let (a, b) = (label("t__a"), label("t__b"));
        let boxes = [
            LabelBox { x: 0.0, w: 2.0, rows: (0, 20), label: &a, key: 1 },
            LabelBox { x: 2.0, w: 2.0, rows: (5, 20), label: &b, key: 2 },
        ];
        let spots = place_lane(&boxes, 1000.0, 30, &px);
        let Some(Spot::Beside { text, x, leader, row: r0, .. }) = &spots[0] else { panic!("{:?}", spots[0]) };
        assert_eq!(text, "t__a", "its whole name, near it");
        assert!(*x >= 2.0 && *r0 < 5, "right of it, above its neighbour: {x} on row {r0}");
        assert!(leader[0] <= 2.0 && leader[2] >= *x - 1.0, "the leader joins box and text: {leader:?}");
        let Some(Spot::Beside { text, x, row: r1, .. }) = &spots[1] else { panic!() };
        assert_eq!((text.as_ref(), *r1), ("t__b", 5), "beside its first row");
        assert!(*x >= 4.0, "right of both slivers: {x}");
        // Where a neighbour covers every row beside a sliver, its label goes under both, or past it.
        let boxes = [boxes[0].clone(), LabelBox { rows: (0, 20), ..boxes[1].clone() }];
        let spots = place_lane(&boxes, 1000.0, 30, &px);
        let Some(Spot::Beside { x, row, .. }) = &spots[0] else { panic!("{:?}", spots[0]) };
        assert!(*x >= 4.0 || *row > 20, "not on its neighbour: {x} on row {row}");
    }

    #[test]
    fn a_label_a_later_box_would_cover_goes_beside() {
        let px = px_rules();
        let (base, view) = (label("t__base"), label("t__v"));
        let boxes = [
            LabelBox { x: 0.0, w: 300.0, rows: (0, 5), label: &base, key: 1 },
            LabelBox { x: 0.0, w: 100.0, rows: (0, 2), label: &view, key: 2 },
        ];
        let spots = place_lane(&boxes, 1000.0, 10, &px);
        assert!(matches!(&spots[1], Some(Spot::Inside { row: 0, .. })), "the view on top keeps its name");
        assert!(matches!(&spots[0], Some(Spot::Inside { row: 3, .. })), "below the view: {:?}", spots[0]);
        let boxes = [boxes[0].clone(), LabelBox { rows: (0, 5), ..boxes[1].clone() }];
        let spots = place_lane(&boxes, 1000.0, 10, &px);
        assert!(matches!(&spots[0], Some(Spot::Beside { .. })), "covered all down: {:?}", spots[0]);
    }
}
