//! A card's line axis: which dump lines are drawn, and in which row. The byte axis cuts a lane's
//! long free stretch to a band of fixed width ([`super::Axis`]); the line axis folds a long run of
//! lines where nothing is live into a cut a row or two high, so the lines where something happens
//! are not pushed below the fold by lines where nothing does.
//!
//! A line is idle when no box is live on it in any lane of the card: no box's drawn lines (first
//! mention to its held end, [`super::BoxPlan::lines`]) include it, and no `--fit` answer asks about
//! it. Reserved windows span every line, so they do not count. A run of more than [`FOLD_OVER`]
//! idle lines is folded: all of it but a few lines at its ends ([`fold_of`]) is drawn in
//! [`Fold::rows`] rows, and every line after it moves up by a whole number of gridline periods, so
//! gridlines stay on the lines they divide. Every drawer places a line through [`RowMap::row`]; the
//! page carries the folds, applies the same rule, and unfolds one on a click by giving it back its
//! lines (the fold's `to - from + 1` rows instead of its `rows`).

use serde::Serialize;

use super::GRID_LINES;
use crate::model::FunctionMap;

/// A run of more than this many idle lines is folded.
pub const FOLD_OVER: u32 = 8;
/// Most rows a fold is drawn in.
pub const FOLD_ROWS: u32 = 2;

/// Rows at the top of a card never folded: a lane's cut band ([`super::Cut`]) writes its two
/// words there, as the label rule knows.
const KEPT_ROWS: u32 = 2;

/// A run of idle lines drawn as a cut a row or two high.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fold {
    /// The first line it skips.
    pub from: u32,
    /// The last line it skips.
    pub to: u32,
    /// Its first row, with every fold folded (row 0 is the card's first line).
    pub row: u32,
    /// How many rows it is drawn in (1 or 2); unfolded, it takes `to - from + 1`.
    pub rows: u32,
    /// What the cut says, longest first: `L1502–L1553 · 52 lines, nothing live`, then `L1502–L1553`.
    /// A drawer shows the first whose width ([`Fold::widths`]) fits the plot.
    pub words: [String; 2],
    /// Their widths in px at the small size.
    #[serde(skip)]
    pub widths: [f64; 2],
    /// What it is, in a sentence (a tooltip).
    pub title: String,
}

impl Fold {
    /// How many lines it skips.
    pub fn lines(&self) -> u32 {
        self.to - self.from + 1
    }
}

/// Where each dump line of a card is drawn: its row, in row heights from the card's first line's
/// row. A line a fold skips is drawn inside the fold, its lines evenly over its rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowMap {
    first: u32,
    last: u32,
    folds: Vec<Fold>,
}

impl Serialize for RowMap {
    /// As its folds: the page's data has the card's first and last line already.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.folds.serialize(s)
    }
}

impl RowMap {
    /// Every line of `first..=last` at full height.
    pub fn flat(first: u32, last: u32) -> RowMap {
        RowMap { first, last: last.max(first), folds: Vec::new() }
    }

    /// The row map of a card of lines `first..=last` on which the stretches `live` (first and last
    /// line each) hold something.
    pub fn new(first: u32, last: u32, live: impl IntoIterator<Item = (u32, u32)>) -> RowMap {
        let last = last.max(first);
        let mut spans: Vec<(u32, u32)> =
            live.into_iter().map(|(a, z)| (a.max(first), z.max(a).min(last))).filter(|(a, z)| a <= z).collect();
        spans.sort_unstable();
        let mut idle = Vec::new();
        let mut at = first; // the first line not known to be live or idle
        for (a, z) in spans.into_iter().chain([(last + 1, last + 1)]) {
            if a > at {
                idle.push((at, a - 1));
            }
            at = at.max(z.saturating_add(1));
        }
        let mut folds: Vec<Fold> = Vec::new();
        let mut hidden = 0; // rows the folds above have taken out
        for (a, z) in idle {
            // The first rows stay lines: a lane's cut band writes its words there.
            let keep = if a == first { KEPT_ROWS } else { 0 };
            let Some((from, to, rows)) = fold_of(a, z, keep) else { continue };
            let row = from - first - hidden;
            hidden += to - from + 1 - rows;
            folds.push(fold(from, to, row, rows));
        }
        RowMap { first, last, folds }
    }

    /// The row map of `f`'s card: its boxes' drawn lines and its `--fit` answers' lines are live.
    pub fn of(f: &FunctionMap) -> RowMap {
        let boxes = f.blocks.iter().map(|b| (b.tile.start, b.tile.held()));
        let fits = f.fits.iter().map(|a| (a.from, a.to));
        RowMap::new(f.src_start, f.src_end, boxes.chain(fits))
    }

    /// Whether no line is folded.
    pub fn is_flat(&self) -> bool {
        self.folds.is_empty()
    }

    /// The card's first line.
    pub fn first(&self) -> u32 {
        self.first
    }

    /// Its folds, top to bottom.
    pub fn folds(&self) -> &[Fold] {
        &self.folds
    }

    /// How many rows the card's lines take.
    pub fn rows(&self) -> u32 {
        let lines = self.last - self.first + 1;
        lines - self.folds.iter().map(|f| f.lines() - f.rows).sum::<u32>()
    }

    /// How many lines no fold skips (each has its row, and its number in the gutter).
    pub fn drawn_lines(&self) -> u32 {
        self.last - self.first + 1 - self.folds.iter().map(Fold::lines).sum::<u32>()
    }

    /// The top of line `line`'s row, in rows (a whole number but inside a fold); `last + 1` is
    /// the bottom of the last row, and lines outside the card are moved to its ends.
    pub fn row(&self, line: u32) -> f64 {
        let line = line.clamp(self.first, self.last + 1);
        let at = self.folds.partition_point(|f| f.from <= line);
        let Some(f) = at.checked_sub(1).map(|i| &self.folds[i]) else { return (line - self.first) as f64 };
        if line <= f.to {
            f.row as f64 + (line - f.from) as f64 * f.rows as f64 / f.lines() as f64
        } else {
            (f.row + f.rows + (line - f.to - 1)) as f64
        }
    }

    /// The row of a line no fold skips.
    pub fn whole_row(&self, line: u32) -> usize {
        self.row(line).floor() as usize
    }

    /// Whether a fold skips `line`.
    pub fn folded(&self, line: u32) -> bool {
        let at = self.folds.partition_point(|f| f.from <= line);
        at.checked_sub(1).is_some_and(|i| line <= self.folds[i].to)
    }

    /// The rows the folds are drawn in: no label goes there, nor past them.
    pub fn fold_rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.folds.iter().flat_map(|f| (f.row..f.row + f.rows).map(|r| r as usize))
    }
}

/// The part of the idle run `a..=z` that is folded, past its first `keep` lines, and the rows it is
/// drawn in: none for a run of [`FOLD_OVER`] lines or fewer. The fold takes out whole gridline
/// periods (so every line after it keeps its place among the gridlines, here and in the page, whose
/// gridlines repeat), as many as leave it at least one row; it is drawn in [`FOLD_ROWS`] rows where
/// the run has the lines, and the run's few other lines (at most three, and the kept ones) stay at
/// full height, split between its ends.
pub fn fold_of(a: u32, z: u32, keep: u32) -> Option<(u32, u32, u32)> {
    let n = z.checked_sub(a)? + 1;
    let foldable = n.checked_sub(keep)?;
    if n <= FOLD_OVER || foldable <= GRID_LINES {
        return None;
    }
    let periods = (foldable - 1) / GRID_LINES;
    let rows = (foldable - periods * GRID_LINES).min(FOLD_ROWS);
    let folded = periods * GRID_LINES + rows;
    let from = a + keep + (foldable - folded) / 2;
    Some((from, from + folded - 1, rows))
}

fn fold(from: u32, to: u32, row: u32, rows: u32) -> Fold {
    let n = to - from + 1;
    let span = format!("L{from}–L{to}");
    let long = format!("{span} · {n} lines, nothing live");
    let small = super::px_rules().small;
    let widths = [super::measured(&long, small), super::measured(&span, small)];
    let title = format!(
        "lines {from} to {to}: no tile is live in any lane ({n} lines), drawn {rows} line{} high",
        if rows == 1 { "" } else { "s" }
    );
    Fold { from, to, row, rows, words: [long, span], widths, title }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_idle_run_is_folded_by_whole_gridline_periods() {
        assert_eq!(fold_of(10, 17, 0), None, "eight lines stay");
        // Nine lines: one period out, two rows drawn, the other two lines at full height.
        assert_eq!(fold_of(10, 18, 0), Some((11, 17, 2)));
        assert_eq!(fold_of(10, 20, 0), Some((10, 20, 1)), "eleven: two periods out, one row");
        assert_eq!(fold_of(10, 18, 2), Some((12, 18, 2)), "nine at a card's top: its first two kept");
        let (from, to, rows) = fold_of(1502, 1553, 0).unwrap();
        assert_eq!((to - from + 1 - rows) % GRID_LINES, 0);
        assert!(rows <= FOLD_ROWS && (1553 - 1502 + 1) - (to - from + 1) <= 3);
    }

    #[test]
    fn lines_after_a_fold_move_up_and_lines_in_it_share_its_rows() {
        // Lines 1..=100, boxes on 1..=5 and 60..=100: 6..=59 is idle (54 lines).
        let m = RowMap::new(1, 100, [(1, 5), (60, 100)]);
        assert_eq!(m.folds().len(), 1);
        let f = m.folds()[0].clone();
        assert_eq!((f.from, f.to, f.rows), (7, 58, 2), "{f:?}");
        assert_eq!(f.row, 6);
        assert_eq!(m.row(1), 0.0);
        assert_eq!(m.row(6), 5.0);
        assert_eq!(m.row(7), 6.0);
        assert_eq!(m.row(59), 8.0);
        assert_eq!(m.row(60), 9.0);
        assert_eq!(m.rows(), 100 - 50);
        assert_eq!(m.row(101), m.rows() as f64);
        assert!(m.row(30) > 6.0 && m.row(30) < 8.0);
        assert!(m.folded(7) && m.folded(58) && !m.folded(59));
        assert_eq!(m.fold_rows().collect::<Vec<_>>(), [6, 7]);
        // Gridlines keep their lines: line 60 is 5 periods up.
        assert_eq!((60 - 1) as f64 - m.row(60), 50.0);
        assert_eq!(RowMap::flat(1, 100).rows(), 100);
        assert_eq!(RowMap::new(1, 100, [(1, 100)]), RowMap::flat(1, 100));
    }

    #[test]
    fn idle_runs_at_either_end_fold_too() {
        let m = RowMap::new(10, 60, [(30, 40)]);
        let folds: Vec<(u32, u32)> = m.folds().iter().map(|f| (f.from, f.to)).collect();
        assert_eq!(folds.len(), 2, "{folds:?}");
        assert!(folds[0].0 >= 12 && folds[0].1 < 30 && folds[1].0 > 40 && folds[1].1 <= 60, "{folds:?}");
        assert!(!m.folded(10) && !m.folded(11), "the first two rows stay lines");
    }
}
