//! The page's first screen: the plan's [`Overview`] (one row per function, the worst first, with
//! each space's occupancy in its level's colour, the fullest space's peak and the findings by
//! severity), and the error badges on each collapsed card. Plain HTML, so it reads without
//! scripts; the page's script only adds sorting by any column.

use super::xml::{Value as Attr, Xml};
use crate::plan::overview::{Overview, Row};
use crate::plan::page::CardHead;

/// The overview table of every function, the worst first, each row linking to its card.
pub fn table(x: &mut Xml, overview: &Overview) {
    if overview.rows.is_empty() {
        return;
    }
    x.open("section", &[("class", "overview".into()), ("aria-label", "Functions, the worst first".into())]);
    x.open("table", &[("class", "ov".into())]);
    x.element("caption", &[], &overview.caption);
    x.open("thead", &[]);
    x.open("tr", &[]);
    x.element("th", &[], "function");
    x.element("th", &[], "type");
    for s in &overview.spaces {
        x.open("th", &[("data-space", s.as_str().into()), ("title", "high-water mark / capacity".into())]);
        x.leaf("i", &[("class", "sw".into())]);
        x.text(s);
        x.close();
    }
    x.element("th", &[("title", "most bytes live at once in the fullest space, and where".into())], "peak");
    let title = "the space whose high-water mark is the most above a packing of the same tiles over the same lifetimes";
    x.element("th", &[("title", title.into())], "could pack");
    for (th, title) in [("E", "errors"), ("W", "warnings"), ("N", "notes")] {
        x.element("th", &[("title", title.into())], th);
    }
    x.close();
    x.close();
    x.open("tbody", &[]);
    let mut widest: Vec<Cell> = Vec::new();
    for r in &overview.rows {
        let cells = cells(r);
        row(x, r, &cells);
        widest.resize_with(cells.len(), Cell::default);
        for (w, c) in widest.iter_mut().zip(cells) {
            if c.text.chars().count() > w.text.chars().count() {
                *w = c;
            }
        }
    }
    x.close();
    // The widest text of each column (the font is monospaced) in a collapsed row: the columns are
    // as wide from the first frame as when every row is there, though the page's script leaves all
    // but the first rows of a long table to be drawn later (page.css).
    x.open("tfoot", &[("class", "sizer".into()), ("aria-hidden", "true".into())]);
    x.open("tr", &[]);
    for c in &widest {
        cell(x, c);
    }
    x.close();
    x.close();
    x.close();
    x.close();
    x.newline();
}

/// One cell of a function's row: its text, its class, and the number it sorts by where that is
/// not its text.
#[derive(Default)]
struct Cell {
    text: String,
    class: Option<&'static str>,
    value: Option<i64>,
}

/// A function's row of the table, cell by cell: name, type, each space's occupancy, the fullest
/// space's peak, what a packing would save, its findings by severity.
fn cells(r: &Row) -> Vec<Cell> {
    let mut row =
        vec![Cell { text: r.name.clone(), ..Cell::default() }, Cell { text: r.ftype.clone(), ..Cell::default() }];
    for s in &r.spaces {
        row.push(match s {
            Some(o) => Cell { text: o.pct.clone(), class: Some(o.level), value: None },
            None => Cell::default(),
        });
    }
    row.push(match &r.peak {
        Some((text, bytes)) => Cell { text: text.clone(), class: None, value: Some(*bytes) },
        None => Cell::default(),
    });
    row.push(match &r.could_pack {
        Some((text, saved)) => Cell { text: text.clone(), class: None, value: Some(*saved) },
        None => Cell::default(),
    });
    let (e, w, n) = r.counts;
    for (k, class) in [(e, "e"), (w, "w"), (n, "n")] {
        let text = if k > 0 { k.to_string() } else { String::new() };
        row.push(Cell { text, class: Some(class), value: None });
    }
    row
}

/// A function's row, its name linking to its card.
fn row(x: &mut Xml, r: &Row, cells: &[Cell]) {
    x.open("tr", &[("data-function", r.name.as_str().into())]);
    if let Some((name, rest)) = cells.split_first() {
        x.open("td", &[]);
        let href = format!("#fn-{}", r.name);
        x.element("a", &[("href", href.as_str().into())], &name.text);
        x.close();
        for c in rest {
            cell(x, c);
        }
    }
    x.close();
}

fn cell(x: &mut Xml, c: &Cell) {
    let mut attrs: Vec<(&'static str, Attr)> = Vec::new();
    if let Some(class) = c.class {
        attrs.push(("class", class.into()));
    }
    if let Some(v) = c.value {
        attrs.push(("data-v", Attr::Int(v)));
    }
    x.element("td", &attrs, &c.text);
}

/// Badges in a card's head for its errors, one per code (`conflict ×2`), each titled with the
/// messages: a collapsed card says what is wrong in it.
pub fn badges(x: &mut Xml, head: &CardHead) {
    for (text, title) in &head.badges {
        x.element("span", &[("class", "badge err".into()), ("title", title.as_str().into())], text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caption(map: &crate::MemoryMap) -> String {
        let mut x = Xml::html_fragment();
        table(&mut x, &Overview::of(map));
        let html = x.finish().into_string();
        let from = html.find("<caption>").unwrap() + "<caption>".len();
        html[from..from + html[from..].find("</caption>").unwrap()].to_string()
    }

    #[test]
    fn the_caption_counts_the_functions_in_words_that_fit_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layout_over_capacity.py");
        let dump = crate::Dump::open(&path, crate::dump::DEFAULT_PASS).unwrap();
        let one = crate::findings::build(&dump, crate::backend::choose(None, None).unwrap()).unwrap();
        assert_eq!(one.functions.len(), 1);
        assert!(caption(&one).starts_with("1 function · findings: "), "{}", caption(&one));
        assert!(caption(&one.with_copies(2)).starts_with("3 functions, worst first · findings: "));
    }
}
