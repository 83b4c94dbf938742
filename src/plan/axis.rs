//! A lane's byte axis: one byte scale for the bytes in use, and, in a lane that is mostly free, its
//! longest free stretch drawn as a band of fixed width. A card whose tiles sit in a tenth of their
//! lane would otherwise draw them as slivers at its left; cut, the bytes in use fill the lane at the
//! card's shared scale, and the band says how many bytes it stands for.
//!
//! The stretch cut is one no box touches on any line, and no mark either (the high-water mark, a
//! capacity line, a reserved window, the unsafe band, a declared allocation, a `--fit` answer), so
//! every mark keeps its place on the axis. Only the stretch is out of scale, and it says so.

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
/// wide. The page's script applies the same rule (`axisX`; the browser test that compares every
/// box with the SVG holds the two equal).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    /// Px per byte (zoom included).
    pub k: f64,
    /// The cut range, if any.
    pub cut: Option<(i64, i64)>,
    /// Width of the cut band.
    pub px: f64,
}

impl Axis {
    /// One scale from end to end.
    pub fn linear(k: f64) -> Axis {
        Axis { k, cut: None, px: 0.0 }
    }

    /// Where byte `b` lands, from the lane's left.
    pub fn x(&self, b: i64) -> f64 {
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

    /// The width of a lane spanning `span` bytes.
    pub fn width(&self, span: i64) -> f64 {
        self.x(span.max(1))
    }

    /// Where a byte range lands in a lane `lane_w` px wide: its left edge and its width, never
    /// narrower than `min_px`, moved inside the lane where it would pass an end ([`super::place`]).
    pub fn place(&self, offset: i64, size: i64, lane_w: f64, min_px: f64) -> (f64, f64) {
        let stop = offset.saturating_add(size.max(0));
        // On one side of the cut the width is the size at the scale, as with no cut at all.
        let apart = self.cut.is_none_or(|(from, to)| stop <= from || offset >= to);
        let w = if apart { size.max(0) as f64 * self.k } else { self.x(stop) - self.x(offset) };
        let w = w.max(min_px);
        let x = self.x(offset).clamp(0.0, (lane_w - w).max(0.0));
        (x, w)
    }
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
        let a = Axis { k: 0.01, cut: Some((1000, 9000)), px: 50.0 };
        assert_eq!(a.x(500), 5.0);
        assert_eq!(a.x(1000), 10.0);
        assert_eq!(a.x(5000), 35.0, "halfway through the band");
        assert_eq!(a.x(9000), 60.0);
        assert_eq!(a.width(10_000), 70.0);
        assert_eq!(a.place(0, 1000, 70.0, 2.0), (0.0, 10.0));
        assert_eq!(a.place(9000, 1000, 70.0, 2.0), (60.0, 10.0));
        assert_eq!(Axis::linear(0.01).place(9000, 1000, 100.0, 2.0), (90.0, 10.0));
    }
}
