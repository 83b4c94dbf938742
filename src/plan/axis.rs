//! A lane's byte axis: one byte scale for the bytes in use, and, in a lane that is mostly free, its
//! longest free stretch drawn as a band of fixed width. A card whose tiles sit in a tenth of their
//! lane would otherwise draw them as slivers at its left; cut, the bytes in use fill the lane at the
//! card's shared scale, and the band says how many bytes it stands for.
//!
//! The stretch cut is one no box touches on any line, and no mark either (the high-water mark, a
//! capacity line, a reserved window, the unsafe band, a declared allocation, a `--fit` answer), so
//! every mark keeps its place on the axis. Only the stretch is out of scale, and it says so.
//!
//! A box too thin for its key at the lane's scale is widened the other way: the pieces of the lane
//! inside such boxes are each drawn at least [`KEY_PX`] wide ([`widened`]), wide enough to hold a
//! two-digit key, so neighbouring slivers are told apart and each names itself inside; on a card
//! with no room for that, [`WIDE_PX`], wide enough to be seen apart. The rest keeps the scale; the
//! factor makes room for the pieces as for a cut band, and the scene marks each piece so drawn
//! under the lane's head.

use std::sync::Arc;

use serde::Serialize;

use super::Mark;
use crate::model::{FunctionMap, SpaceUsage};
use crate::units::fmt_bytes;

/// A stretch is cut when it is at least this share of the lane's span: a lane "mostly free"; half
/// free is left to scale, where the free half reads as the occupancy.
const CUT_SHARE: f64 = 0.6;

/// A free stretch of a lane drawn [`super::PxRules::cut`] px wide, whatever its size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cut {
    /// Its first byte.
    pub from: i64,
    /// One past its last byte.
    pub to: i64,
    /// The band's two lines: `152 KB`, `free`.
    pub words: [String; 2],
    /// What it is, in a sentence (a tooltip).
    pub title: String,
}

impl Cut {
    /// Bytes it stands for.
    pub fn size(&self) -> i64 {
        self.to - self.from
    }
}

/// How bytes map to px across one lane: `k` px a byte, except the cut `[from, to)`, drawn `px`
/// wide, and the widened stretches `(from, to, least)`, each drawn `max(len * k, least)` px wide. The page's script
/// applies the same rule (`axisX`; the browser test that compares every box with the SVG holds the
/// two equal).
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Px per byte (zoom included).
    pub k: f64,
    /// The cut range, if any.
    pub cut: Option<(i64, i64)>,
    /// Width of the cut band.
    pub px: f64,
    /// The widened stretches, sorted and disjoint, none in the cut (each inside boxes too thin for their key).
    pub wide: Arc<[Stretch]>,
    /// The px the stretches before each one add at `k` (one more entry than `wide`): what the
    /// lane gains left of a byte, found with one binary search.
    before: Arc<[f64]>,
}

/// A widened stretch: its bytes `[from, to)` and the least px it is drawn.
pub type Stretch = (i64, i64, f64);

/// The least width of a widened stretch on a card with no room for [`KEY_PX`], in px: a box this
/// wide is seen apart from its neighbours, and carries its key beside it.
pub const WIDE_PX: f64 = 4.0;

/// The least width of a widened stretch, in px: a box this wide holds a two-digit key inside (the
/// inset, two characters at the label size, and the room a key leaves after it: 4 + 13.2 + 1.5),
/// so a sliver names itself rather than on a leader through its crowd.
pub const KEY_PX: f64 = 19.0;

impl Axis {
    /// One scale from end to end.
    pub fn linear(k: f64) -> Axis {
        Axis::new(k, None, 0.0, Arc::from([]))
    }

    /// The axis at `k` px/byte with a cut `px` wide, if any, and widened stretches `wide`.
    pub fn new(k: f64, cut: Option<(i64, i64)>, px: f64, wide: Arc<[Stretch]>) -> Axis {
        let mut before = Vec::with_capacity(wide.len() + 1);
        let mut at = 0.0;
        before.push(at);
        for &(from, to, least) in wide.iter() {
            // The page sums the same terms in the same order (`axisX`).
            at += (least - (to - from) as f64 * k).max(0.0);
            before.push(at);
        }
        Axis { k, cut, px, wide, before: before.into() }
    }

    /// The same axis without its widened stretches.
    pub fn unwidened(&self) -> Axis {
        Axis::new(self.k, self.cut, self.px, Arc::from([]))
    }

    /// Where byte `b` lands with the cut alone.
    fn scaled(&self, b: i64) -> f64 {
        match self.cut {
            Some((from, to)) if b > from => {
                if b >= to {
                    (b - (to - from)) as f64 * self.k + self.px
                } else {
                    from as f64 * self.k + (b - from) as f64 / (to - from) as f64 * self.px
                }
            }
            _ => b as f64 * self.k,
        }
    }

    /// The px a stretch of `len` bytes and least width `least` takes: to scale, or `least` where
    /// that is less.
    pub fn stretch_px(&self, len: i64, least: f64) -> f64 {
        (len as f64 * self.k).max(least)
    }

    /// Where byte `b` lands, from the lane's left.
    pub fn x(&self, b: i64) -> f64 {
        let i = self.wide.partition_point(|s| s.1 <= b);
        match self.wide.get(i) {
            // Inside a stretch: spread evenly over its width.
            Some(&(from, to, least)) if from < b => {
                self.scaled(from)
                    + self.before[i]
                    + (b - from) as f64 * self.stretch_px(to - from, least) / (to - from) as f64
            }
            _ => self.scaled(b) + self.before[i],
        }
    }

    /// The width of a lane spanning `span` bytes.
    pub fn width(&self, span: i64) -> f64 {
        self.x(span.max(1))
    }

    /// Where a byte range lands in a lane `lane_w` px wide: its left edge and its width, never
    /// narrower than `min_px`, moved inside the lane where it would pass an end ([`super::place`]).
    pub fn place(&self, offset: i64, size: i64, lane_w: f64, min_px: f64) -> (f64, f64) {
        let stop = offset.saturating_add(size.max(0));
        // Clear of the cut and of every stretch, the width is the size at the scale, as on a plain
        // axis.
        let off_cut = self.cut.is_none_or(|(from, to)| stop <= from || offset >= to);
        let off_wide = self.wide.get(self.wide.partition_point(|s| s.1 <= offset)).is_none_or(|s| s.0 >= stop);
        let w = if off_cut && off_wide { size.max(0) as f64 * self.k } else { self.x(stop) - self.x(offset) };
        let w = w.max(min_px);
        let x = self.x(offset).clamp(0.0, (lane_w - w).max(0.0));
        (x, w)
    }

    /// The stretches drawn wider than their bytes at this scale: each one's bytes and its left
    /// edge and width in px.
    pub fn distorted(&self) -> impl Iterator<Item = ((i64, i64, f64), f64, f64)> + '_ {
        self.wide
            .iter()
            .filter(|&&(from, to, least)| ((to - from) as f64 * self.k) < least)
            .map(|&(from, to, least)| ((from, to, least), self.x(from), self.stretch_px(to - from, least)))
    }
}

/// The stretches of a lane to widen, from its boxes' bytes `boxes` (offset, size) at `k` px/byte:
/// the boxes narrower than `least` px at `k` are cut at each of their edges, and every piece
/// inside one of them is a stretch drawn at least `least` px wide. So each such box, nested or
/// overlapping others, takes at least `least`, and any two of them with an edge apart are drawn
/// apart. Sorted, disjoint, in `[0, span]`; an empty box (no bytes) widens nothing. O(n log n).
pub fn widened(boxes: impl Iterator<Item = (i64, i64)>, span: i64, k: f64, least: f64) -> Vec<Stretch> {
    if !(k > 0.0 && k.is_finite()) {
        return Vec::new();
    }
    // +1 where a thin box starts, -1 where it stops; a piece is inside one while the count is up.
    let mut edges: Vec<(i64, i32)> = Vec::new();
    for (offset, size) in boxes {
        let (from, to) = (offset.clamp(0, span), offset.saturating_add(size.max(0)).clamp(0, span));
        if to > from && ((to - from) as f64 * k) < least {
            edges.push((from, 1));
            edges.push((to, -1));
        }
    }
    edges.sort_unstable();
    let mut out = Vec::new();
    let mut inside = 0;
    for (i, &(at, step)) in edges.iter().enumerate() {
        inside += step;
        if let Some(&(next, _)) = edges.get(i + 1)
            && inside > 0
            && next > at
        {
            out.push((at, next, least));
        }
    }
    out
}

/// What a widened stretch is, in a sentence (a tooltip).
pub fn wide_title(&(from, to, least): &Stretch) -> String {
    format!("{} at [{from}, {to}): drawn at least {least} px wide, not to scale", fmt_bytes(to - from))
}

/// The stretch of space `s` of `f`, in a lane spanning `span` bytes, that is cut: the longest one
/// nothing touches, where it is most of the span (`CUT_SHARE`) and leaves some bytes to scale.
pub fn cut_range(f: &FunctionMap, s: &SpaceUsage, span: i64, marks: &[Mark]) -> Option<(i64, i64)> {
    let mut used: Vec<(i64, i64)> = Vec::new();
    for b in f.blocks.iter().filter(|b| b.tile.space == s.space) {
        used.push((b.tile.offset, b.tile.stop()));
        if let Some(slots) = &b.tile.slots {
            used.push((slots.alloc_offset, slots.alloc_offset.saturating_add(slots.alloc_size)));
        }
    }
    for r in f.reserved.iter().filter(|r| r.space == s.space) {
        if let Some(offset) = r.offset {
            used.push((offset, offset.saturating_add(r.size)));
        }
    }
    if let Some(physical) = s.physical.filter(|&p| p > s.limit && s.limit > 0) {
        used.push((s.limit, physical));
    }
    // Points (the high-water mark, the capacity line) split a stretch as ranges do.
    used.extend(marks.iter().filter_map(|m| m.bytes).map(|[o, n]| (o, o.saturating_add(n.max(0)))));
    used.push((s.hwm, s.hwm));
    if s.limit > 0 {
        used.push((s.limit, s.limit));
    }
    let clamp = |v: i64| v.clamp(0, span);
    let mut used: Vec<(i64, i64)> = used.into_iter().map(|(a, z)| (clamp(a), clamp(z.max(a)))).collect();
    used.sort_unstable();
    let (mut at, mut best) = (0i64, (0i64, 0i64));
    for (lo, hi) in used.into_iter().chain([(span, span)]) {
        if lo > at && lo - at > best.1 - best.0 {
            best = (at, lo);
        }
        at = at.max(hi);
    }
    let size = best.1 - best.0;
    (size > 0 && size as f64 >= CUT_SHARE * span as f64 && span - size >= 1).then_some(best)
}

/// The cut of [`cut_range`] with its words.
pub fn cut(range: (i64, i64), px: f64) -> Cut {
    let (from, to) = range;
    let size = fmt_bytes(to - from);
    Cut {
        from,
        to,
        title: format!(
            "{size} free in every line ({} to {}): drawn {px} px wide, not to scale",
            fmt_bytes(from),
            fmt_bytes(to)
        ),
        words: [size, "free".to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cut_is_a_band_of_its_own_width_and_the_rest_keeps_the_scale() {
        let a = Axis::new(0.01, Some((1000, 9000)), 50.0, Arc::from([]));
        assert_eq!(a.x(500), 5.0);
        assert_eq!(a.x(1000), 10.0);
        assert_eq!(a.x(5000), 35.0, "halfway through the band");
        assert_eq!(a.x(9000), 60.0);
        assert_eq!(a.width(10_000), 70.0);
        assert_eq!(a.place(0, 1000, 70.0, 2.0), (0.0, 10.0));
        assert_eq!(a.place(9000, 1000, 70.0, 2.0), (60.0, 10.0));
        assert_eq!(Axis::linear(0.01).place(9000, 1000, 100.0, 2.0), (90.0, 10.0));
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn a_widened_stretch_is_drawn_wide_and_shifts_the_bytes_after_it() {
        // 100 B a px: 64 B would be 0.64 px; drawn KEY_PX, so KEY_PX - 0.64 px more to its right.
        let more = KEY_PX - 0.64;
        let a = Axis::new(0.01, None, 0.0, Arc::from([(1000, 1064, KEY_PX)]));
        assert!(close(a.x(1000), 10.0));
        assert!(close(a.x(1032), 10.0 + KEY_PX / 2.0), "halfway through the stretch: {}", a.x(1032));
        assert!(close(a.x(1064), 10.0 + KEY_PX));
        assert!(close(a.x(2000), 20.0 + more));
        assert!(close(a.width(10_000), 100.0 + more));
        let (x, w) = a.place(1000, 64, 100.0 + more, 2.0);
        assert!(close(x, 10.0) && close(w, KEY_PX), "{x} {w}");
        // A range clear of the stretch keeps its size at the scale; one over it takes its px.
        assert_eq!(a.place(0, 1000, 100.0 + more, 2.0), (0.0, 10.0));
        let (_, w) = a.place(900, 200, 100.0 + more, 2.0);
        assert!(close(w, 2.0 + more), "{w}");
        assert_eq!(a.distorted().count(), 1);
        // Zoomed in until the stretch is wider than the least width: the scale, undistorted.
        let z = Axis::new(1.0, None, 0.0, Arc::from([(1000, 1064, KEY_PX)]));
        assert!(close(z.x(1032), 1032.0) && close(z.x(5000), 5000.0));
        assert_eq!(z.distorted().count(), 0);
    }

    #[test]
    fn stretches_and_a_cut_add_up() {
        let wide = [(1000, 1064, WIDE_PX), (9500, 9501, KEY_PX)];
        let a = Axis::new(0.01, Some((5000, 9000)), 50.0, Arc::from(wide));
        let first = 50.0 + WIDE_PX - 0.64;
        assert!(close(a.x(5000), first), "after the first stretch: {}", a.x(5000));
        assert!(close(a.x(7000), first + 25.0), "halfway through the band");
        assert!(close(a.x(9000), first + 50.0));
        assert!(close(a.x(9500), first + 55.0));
        assert!(close(a.x(9501), first + 55.0 + KEY_PX), "a byte drawn KEY_PX wide");
        assert!(close(a.x(10_000), first + 55.0 + KEY_PX + 4.99));
        let (x, w) = a.place(9500, 1, 500.0, 2.0);
        assert!(close(x, first + 55.0) && close(w, KEY_PX));
        assert!(close(a.unwidened().x(10_000), 110.0));
    }

    #[test]
    fn the_legend_says_the_least_width() {
        assert!(super::super::WIDE_WORDS.contains(&format!(" {KEY_PX} px wide")));
    }

    #[test]
    fn thin_boxes_are_cut_at_their_edges_into_stretches() {
        // Two overlapping 64 B boxes and a wide one around them, at 100 B a px.
        let boxes = [(1000, 64), (1032, 64), (0, 5000), (3000, 0)];
        let wide = widened(boxes.into_iter(), 10_000, 0.01, WIDE_PX);
        assert_eq!(wide, [(1000, 1032, WIDE_PX), (1032, 1064, WIDE_PX), (1064, 1096, WIDE_PX)]);
        let a = Axis::new(0.01, None, 0.0, wide.into());
        for (o, s) in [(1000, 64), (1032, 64)] {
            let (_, w) = a.place(o, s, 200.0, 2.0);
            assert!(w >= 8.0 - 1e-9, "each takes two pieces: {w}");
        }
        // Their left edges are apart by a piece.
        assert!(close(a.x(1032) - a.x(1000), 4.0));
        // Nested: a 32 B view inside a 64 B box.
        let nested = widened([(0, 64), (16, 32)].into_iter(), 100, 0.01, KEY_PX);
        assert_eq!(nested, [(0, 16, KEY_PX), (16, 48, KEY_PX), (48, 64, KEY_PX)]);
        // Wide enough at the scale: nothing.
        assert!(widened([(0, 400), (400, 400)].into_iter(), 1000, 0.01, WIDE_PX).is_empty());
        assert!(widened([(0, 4)].into_iter(), 10, 0.0, KEY_PX).is_empty());
    }
}
