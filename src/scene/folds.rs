//! The folds of a card's line axis ([`plan::RowMap`]), drawn: each a cut a row or two high across
//! the plot, saying which lines it skips; and the footer's count of them.

use super::{Line, LineCut, Rect, Shape, Stroke, text_at};
use crate::plan::{self, style::Palette};

/// ` (47 folded: nothing live)`: how many of a card's lines its folds skip, or nothing.
pub(super) fn folded_words(rows: &plan::RowMap) -> String {
    let folded: u32 = rows.folds().iter().map(plan::Fold::lines).sum();
    if folded == 0 { String::new() } else { format!(" ({folded} folded: nothing live)") }
}

/// A fold of the line axis across the plot `(x, w)` (the gutter's left edge to the last live-bytes
/// column's right): the page's colour between two dashed edges, over whatever the lanes draw on
/// those lines (a reserved window, the high-water mark), with the lines it skips in words.
pub(super) fn line_cut(f: &plan::Fold, (x, w): (f64, f64), body_top: f64, pal: &Palette) -> LineCut {
    let px = plan::px_rules();
    let (y, h) = (body_top + f.row as f64 * px.line, f.rows as f64 * px.line);
    let edge = |ey: f64| {
        Shape::Line(Line {
            x1: x,
            y1: ey,
            x2: x + w,
            y2: ey,
            stroke: Stroke { color: pal.muted, width: 1.0, dash: Some((4.0, 3.0)) },
        })
    };
    let mut shapes = vec![
        Shape::Rect(Rect { x, y, w, h, radius: 0.0, fill: Some(pal.page), stroke: None }),
        edge(y + 0.5),
        edge(y + h - 0.5),
    ];
    // The lines in words, the first that fits the plot; the baseline in the middle of the cut.
    if let Some(i) = f.widths.iter().position(|&tw| tw + 2.0 * px.inset <= w) {
        shapes.push(text_at(x + px.inset + 2.0, y + h / 2.0 + 3.5, px.small, pal.muted, &f.words[i]));
    }
    LineCut { from: f.from, to: f.to, rows: f.rows, title: f.title.clone(), shapes }
}
