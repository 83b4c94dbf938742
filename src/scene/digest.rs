//! The digest: the picture that stands in for a whole dump too large for one PNG (the PNG back end
//! decides when, `render::digest`). One row per function of the plan's overview, the worst first
//! (each space's occupancy as a bar, the fullest space's peak, the findings), then as many of the
//! worst functions' cards as fit a pixel budget, and a line saying how to draw the others.

use crate::error::Result;
use crate::plan::overview::{Occupancy, Overview, Row};
use crate::plan::style::{CRITICAL, Color, GOOD, Palette, WARNING, palette, space_color};
use crate::plan::text::{fit, width as text_width};
use crate::plan::width::SMALL;
use crate::plan::{RULES, ViewOptions};
use crate::scene::{Anchor, Card, Rect, Scene, Shape, ShiftDown, Stroke, Text};

/// The page's margin and the gap between cards: the scene's own, so the digest's cards sit as a
/// map's do.
use super::{CARD_GAP as GAP, PAGE_PAD as MARGIN};
/// One function's row in the digest, and its text sizes.
const ROW: f64 = 18.0;
const NAME: f64 = 11.0;
/// An occupancy bar's length and thickness.
const BAR: f64 = 64.0;
const BAR_H: f64 = 8.0;
/// Names longer than this many characters are shortened in the digest (the card has the whole).
const NAME_CHARS: usize = 48;
/// Above the rows: the caption, the advice's two lines, the column heads.
const HEAD: f64 = 92.0;

/// Lays out the dump's scene as a view asks (the scene's `layout` of the one map).
pub type Layout<'a> = dyn Fn(&ViewOptions, Heading) -> Scene + 'a;

/// What the header of a laid-out scene speaks of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heading {
    /// The cards drawn.
    Drawn,
    /// The whole dump, of which the cards drawn are the worst (the digest).
    Digest,
}

/// A function's lines, as tall as its card draws them (folds folded): the least its card can be.
pub fn body_height(r: &Row) -> f64 {
    r.rows as f64 * RULES.line_px
}

/// The digest of the dump: its header, a row per function of `overview`, the worst first, and the
/// worst cards that fit in `budget` device pixels at `scale` (cards laid out by `lay`).
pub fn digest(overview: &Overview, lay: &Layout, view: &ViewOptions, scale: f64, budget: u64) -> Result<Scene> {
    let budget = budget as f64;
    let pal = palette(view.theme);
    let order: Vec<&Row> = overview.rows.iter().collect();
    // Rows past what the limit holds at the narrowest width are left to the text report.
    let most_rows = ((budget / (scale * scale) / 2000.0 - HEAD - 200.0) / ROW).max(1.0) as usize;
    let shown = order.len().min(most_rows);

    // The worst cards in order while they fit, so that those drawn are the worst there are: a card
    // too tall for the digest even alone is passed over (the words then say so), and the first
    // that does not fit under those drawn ends the list (so at most one card is laid out and not
    // drawn). A smaller card from further down would read as the next worst.
    let table = Table::new(overview, &order[..shown]);
    let tall = |w: f64| budget / (scale * scale) / w;
    let (mut width, mut used, mut header) = (table.width + 2.0 * MARGIN, 0.0, 0.0);
    let mut picked: Vec<&Row> = Vec::new();
    for f in &order {
        let room = |w: f64, header: f64, used: f64| tall(w) - header - table.height() - 2.0 * GAP - MARGIN - used;
        if body_height(f) > room(width, header, 0.0) {
            continue;
        }
        if body_height(f) > room(width, header, used) {
            break;
        }
        crate::budget::checkpoint()?;
        let alone = lay(&ViewOptions { functions: vec![f.name.clone()], ..view.clone() }, Heading::Digest);
        let Some(card) = alone.cards.first() else { continue };
        let (w, h) = (alone.width.max(width), card.frame.h + GAP);
        header = card.frame.y;
        if h > room(w, header, used) {
            if picked.is_empty() {
                continue;
            }
            break;
        }
        picked.push(f);
        (width, used) = (w, used + h);
    }
    loop {
        crate::budget::checkpoint()?;
        let scene = compose(lay, view, &pal, &table, &order, &picked);
        let within = (scene.width * scale).ceil() * (scene.height * scale).ceil() <= budget;
        if within || picked.is_empty() {
            return Ok(scene);
        }
        picked.pop();
    }
}

/// The map's header, the digest's table under it, then the `picked` cards, the worst first.
fn compose(lay: &Layout, view: &ViewOptions, pal: &Palette, table: &Table, order: &[&Row], picked: &[&Row]) -> Scene {
    let names: Vec<String> = picked.iter().map(|f| f.name.clone()).collect();
    // With no card to draw, the view names a function no dump has (a Python name is never empty):
    // the header alone is laid out.
    let functions = if names.is_empty() { vec![String::new()] } else { names };
    let mut scene = lay(&ViewOptions { functions, ..view.clone() }, Heading::Digest);
    let mut cards = std::mem::take(&mut scene.cards);
    // The header ends a gap above the first card; with none, a margin above the page's end.
    let header_bottom = cards.first().map_or(scene.height - MARGIN, |c| c.frame.y - GAP);
    let drawn: Vec<&str> = cards.iter().map(|c| c.function.as_str()).collect();
    // Whether the cards are the worst ones, or some worse were too tall to draw.
    let first = picked.iter().zip(order).all(|(p, o)| p.name == o.name);
    let (shapes, table_h) = table.shapes(pal, MARGIN, header_bottom + GAP, (picked.len(), first), &drawn);
    scene.header.extend(shapes);
    // Cards in the order of the table (the worst first), each under the one before.
    let rank = |c: &Card| order.iter().position(|f| f.name == c.function).unwrap_or(usize::MAX);
    cards.sort_by_key(rank);
    let mut y = header_bottom + GAP + table_h + GAP;
    for card in &mut cards {
        let dy = y - card.frame.y;
        card.shift_down(dy);
        y = card.frame.y + card.frame.h + GAP;
    }
    scene.cards = cards;
    scene.width = scene.width.max((table.width + 2.0 * MARGIN).ceil());
    scene.height = (y - GAP + MARGIN).ceil();
    scene
}

/// The digest's table: its columns, and the rows' texts, found once.
struct Table<'a> {
    /// The overview's caption, and how many functions it has.
    caption: &'a str,
    functions: usize,
    /// The columns: the spaces of the rows shown, by their index in the overview's.
    spaces: Vec<(usize, &'a str)>,
    rows: Vec<Line<'a>>,
    /// Functions the table has no row for (past what the limit holds).
    left_out: usize,
    name_w: f64,
    type_w: f64,
    peak_w: f64,
    width: f64,
}

/// A row of the table: the overview's, with its name shortened.
struct Line<'a> {
    f: &'a Row,
    name: String,
    peak: &'a str,
}

/// A space's column: its bar and its percentage.
const SPACE_W: f64 = BAR + 6.0 + 7.0 * 6.0 + 12.0;
/// Each findings column.
const COUNT_W: f64 = 30.0;
/// The column saying a card is drawn below.
const DRAWN_W: f64 = 60.0;

impl<'a> Table<'a> {
    fn new(overview: &'a Overview, rows: &[&'a Row]) -> Table<'a> {
        let spaces: Vec<(usize, &str)> = (overview.spaces.iter().enumerate())
            .filter(|&(k, _)| rows.iter().any(|r| r.spaces[k].is_some()))
            .map(|(k, s)| (k, s.as_str()))
            .collect();
        let rows: Vec<Line> = rows
            .iter()
            .map(|f| Line {
                f,
                name: shorten(&f.name, NAME_CHARS),
                peak: f.peak.as_ref().map_or("", |(text, _)| text.as_str()),
            })
            .collect();
        let widest = |texts: &mut dyn Iterator<Item = f64>, least: f64| texts.fold(least, f64::max) + 14.0;
        let name_w = widest(&mut rows.iter().map(|r| text_width(&r.name, NAME)), text_width("function", SMALL));
        let type_w = widest(&mut rows.iter().map(|r| text_width(&r.f.ftype, SMALL)), text_width("type", SMALL));
        let peak_w = widest(&mut rows.iter().map(|r| text_width(r.peak, SMALL)), text_width("peak", SMALL));
        let width = 24.0 + name_w + type_w + spaces.len() as f64 * SPACE_W + peak_w + 3.0 * COUNT_W + DRAWN_W;
        // As wide as the advice, whichever it is.
        let n = overview.functions;
        let said =
            [advice(n, 0, true), advice(n, 1, false)].into_iter().flatten().map(|l| text_width(&l, SMALL) + 24.0);
        let width = said.fold(width, f64::max);
        let left_out = n - rows.len();
        Table {
            caption: &overview.caption,
            functions: n,
            spaces,
            rows,
            left_out,
            name_w,
            type_w,
            peak_w,
            width: width.max(600.0),
        }
    }

    /// Its height: the caption and advice, the column heads, the rows, a line for those left out.
    fn height(&self) -> f64 {
        HEAD + self.rows.len() as f64 * ROW + if self.left_out > 0 { ROW } else { 0.0 } + 16.0
    }

    /// The table's shapes, its top-left corner at (`x`, `y`), and its height. `picked` cards follow
    /// it; `drawn` names them.
    fn shapes(&self, pal: &Palette, x: f64, y: f64, picked: (usize, bool), drawn: &[&str]) -> (Vec<Shape>, f64) {
        let h = self.height();
        let mut out = vec![Shape::Rect(Rect {
            x,
            y,
            w: self.width,
            h,
            radius: 6.0,
            fill: Some(pal.card),
            stroke: Some(Stroke { color: pal.border, width: 1.0, dash: None }),
        })];
        out.push(text(x + 12.0, y + 22.0, 13.0, pal.text, Anchor::Start, self.caption));
        for (k, line) in advice(self.functions, picked.0, picked.1).iter().enumerate() {
            out.push(text(x + 12.0, y + 40.0 + k as f64 * 14.0, SMALL, pal.muted, Anchor::Start, line));
        }

        // Column heads.
        let head_y = y + HEAD - 16.0;
        let mut cx = x + 12.0;
        out.push(text(cx, head_y, SMALL, pal.muted, Anchor::Start, "function"));
        cx += self.name_w;
        out.push(text(cx, head_y, SMALL, pal.muted, Anchor::Start, "type"));
        cx += self.type_w;
        for &(_, s) in &self.spaces {
            let color = space_color(s, pal.theme);
            out.push(Shape::Rect(Rect {
                x: cx,
                y: head_y - 8.0,
                w: 8.0,
                h: 8.0,
                radius: 1.5,
                fill: Some(color),
                stroke: None,
            }));
            out.push(text(cx + 12.0, head_y, SMALL, pal.muted, Anchor::Start, s));
            cx += SPACE_W;
        }
        out.push(text(cx, head_y, SMALL, pal.muted, Anchor::Start, "peak"));
        cx += self.peak_w;
        for head in ["E", "W", "N"] {
            out.push(text(cx + COUNT_W - 14.0, head_y, SMALL, pal.muted, Anchor::End, head));
            cx += COUNT_W;
        }
        out.push(Shape::Line(crate::scene::Line {
            x1: x + 8.0,
            y1: head_y + 6.0,
            x2: x + self.width - 8.0,
            y2: head_y + 6.0,
            stroke: Stroke { color: pal.border, width: 1.0, dash: None },
        }));

        for (i, row) in self.rows.iter().enumerate() {
            let base = y + HEAD + i as f64 * ROW;
            let mut cx = x + 12.0;
            out.push(text(cx, base, NAME, pal.text, Anchor::Start, &row.name));
            cx += self.name_w;
            out.push(text(cx, base, SMALL, pal.muted, Anchor::Start, &row.f.ftype));
            cx += self.type_w;
            for &(k, _) in &self.spaces {
                if let Some(o) = &row.f.spaces[k] {
                    out.extend(bar(o, cx, base, pal));
                }
                cx += SPACE_W;
            }
            out.push(text(cx, base, SMALL, pal.text, Anchor::Start, row.peak));
            cx += self.peak_w;
            let (e, w, n) = row.f.counts;
            for (k, color) in [(e, CRITICAL), (w, WARNING), (n, pal.muted)] {
                if k > 0 {
                    out.push(text(cx + COUNT_W - 14.0, base, SMALL, color, Anchor::End, &k.to_string()));
                }
                cx += COUNT_W;
            }
            if drawn.contains(&row.f.name.as_str()) {
                out.push(text(cx, base, SMALL, pal.text, Anchor::Start, "below"));
            }
        }
        if self.left_out > 0 {
            let base = y + HEAD + self.rows.len() as f64 * ROW;
            let line = format!("… and {} more functions (the text report, -f txt, lists every one)", self.left_out);
            out.push(text(x + 12.0, base, SMALL, pal.muted, Anchor::Start, &line));
        }
        (out, h)
    }
}

/// What the digest says above its rows, in two lines: what follows (the `picked` worst cards, or,
/// when some worse were too tall for it and not `first`, the worst that fit), and how to draw the
/// rest.
fn advice(functions: usize, picked: usize, first: bool) -> [String; 2] {
    match picked {
        0 => [
            "Too large for one PNG: no card fits.".to_string(),
            format!(
                "Draw a function with --function NAME, every one with --split (over HTTP: function=NAME); the page \
                 (-f html) and the SVG have all {functions}."
            ),
        ],
        _ => [
            format!(
                "Too large for one PNG: the {} follow{}.",
                match (picked, first) {
                    (1, true) => "worst card".to_string(),
                    (1, false) => "worst card that fits".to_string(),
                    (_, true) => format!("{picked} worst cards"),
                    (_, false) => format!("{picked} worst cards that fit"),
                },
                if picked == 1 { "s" } else { "" }
            ),
            format!(
                "Draw any of the other {} with --function NAME, every one with --split (over HTTP: function=NAME).",
                functions - picked
            ),
        ],
    }
}

/// A space's occupancy: a track, the used share in its level's colour, the percentage.
fn bar(o: &Occupancy, x: f64, base: f64, pal: &Palette) -> Vec<Shape> {
    let track = Rect { x, y: base - BAR_H, w: BAR, h: BAR_H, radius: 0.0, fill: Some(pal.grid), stroke: None };
    let mut out = vec![Shape::Rect(track.clone())];
    let color = match o.level {
        "crit" => CRITICAL,
        "warn" => WARNING,
        "good" => GOOD,
        _ => pal.muted,
    };
    let share = o.share;
    if share > 0.0 {
        out.push(Shape::Rect(Rect { w: (BAR * share).max(1.0), fill: Some(color), ..track }));
    }
    let label = if o.pct.is_empty() { "unknown" } else { o.pct.as_str() };
    out.push(text(x + BAR + 6.0, base, SMALL, if share >= 0.95 { CRITICAL } else { pal.text }, Anchor::Start, label));
    out
}

/// `name` in at most `chars` characters, an ellipsis marking a cut.
fn shorten(name: &str, chars: usize) -> String {
    fit(name, 1.0, (chars as f64 + 0.5) * crate::plan::text::advance_em()).unwrap_or_default()
}

fn text(x: f64, y: f64, size: f64, color: Color, anchor: Anchor, content: &str) -> Shape {
    Shape::Text(Text { x, y, size, color, anchor, content: content.to_string() })
}
