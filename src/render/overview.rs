//! The page's first screen: one row per function, the worst first (errors, then warnings, then the
//! fullest space), with each space's occupancy in its level's colour, the fullest space's peak and
//! the findings by severity; and the error badges on each collapsed card. Plain HTML, so it reads
//! without scripts; the page's script only adds sorting by any column.

use super::xml::{Value as Attr, Xml};
use crate::compare::plural;
use crate::findings::counts_text;
use crate::model::{Finding, FunctionMap, MemoryMap, Severity, space_rank};
use crate::plan::pill;
use crate::units::fmt_bytes;
use std::collections::HashMap;

/// The findings about one function.
pub fn findings_of<'a>(map: &'a MemoryMap, f: &FunctionMap) -> Vec<&'a Finding> {
    map.findings.iter().filter(|x| x.function.as_deref() == Some(f.name.as_str())).collect()
}

/// Occupancy of `f`'s fullest space with a capacity, in percent.
fn worst(f: &FunctionMap) -> f64 {
    f.worst_occupancy()
}

/// The one "worst first" order of every list of functions (the page's overview, the text report,
/// the tree's index): most errors, then most warnings, then the fullest space with a known capacity
/// (`fullest`, in any unit both sides share). `a` before `b` is `Less`; ties keep their order.
pub fn worse_first(a: (usize, usize, f64), b: (usize, usize, f64)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.total_cmp(&a.2))
}

/// Functions the worst first ([`worse_first`]), then in dump order.
pub fn worst_first(map: &MemoryMap) -> Vec<&FunctionMap> {
    let counts = counts_by_function(map);
    // Keys made once: a whole model has hundreds of functions and thousands of findings.
    let mut order: Vec<((usize, usize, f64), &FunctionMap)> = map
        .functions
        .iter()
        .map(|f| {
            let (e, w, _) = counts.get(f.name.as_str()).copied().unwrap_or_default();
            ((e, w, worst(f)), f)
        })
        .collect();
    order.sort_by(|a, b| worse_first(a.0, b.0));
    order.into_iter().map(|(_, f)| f).collect()
}

/// Errors, warnings and notes about each function, by name.
fn counts_by_function(map: &MemoryMap) -> HashMap<&str, (usize, usize, usize)> {
    let mut by_name: HashMap<&str, (usize, usize, usize)> = HashMap::new();
    for x in &map.findings {
        let Some(name) = x.function.as_deref() else { continue };
        let c = by_name.entry(name).or_default();
        match x.severity {
            Severity::Error => c.0 += 1,
            Severity::Warning => c.1 += 1,
            Severity::Note => c.2 += 1,
        }
    }
    by_name
}

/// The overview table of every function, the worst first, each row linking to its card.
pub fn table(x: &mut Xml, map: &MemoryMap) {
    if map.functions.is_empty() {
        return;
    }
    let mut spaces: Vec<&str> = map.functions.iter().flat_map(|f| &f.spaces).map(|s| s.space.as_str()).collect();
    spaces.sort_by_key(|s| space_rank(s));
    spaces.dedup();
    x.open("section", &[("class", "overview".into()), ("aria-label", "Functions, the worst first".into())]);
    x.open("table", &[("class", "ov".into())]);
    let n = map.functions.len();
    let order = if n > 1 { ", worst first" } else { "" };
    let caption = format!("{n} function{}{order} · findings: {}", plural(n), counts_text(&map.findings));
    x.element("caption", &[], &caption);
    x.open("thead", &[]);
    x.open("tr", &[]);
    x.element("th", &[], "function");
    x.element("th", &[], "type");
    for s in &spaces {
        x.open("th", &[("data-space", (*s).into()), ("title", "high-water mark / capacity".into())]);
        x.leaf("i", &[("class", "sw".into())]);
        x.text(s);
        x.close();
    }
    x.element("th", &[("title", "most bytes live at once in the fullest space, and where".into())], "peak");
    for (th, title) in [("E", "errors"), ("W", "warnings"), ("N", "notes")] {
        x.element("th", &[("title", title.into())], th);
    }
    x.close();
    x.close();
    x.open("tbody", &[]);
    let counts = counts_by_function(map);
    let mut widest: Vec<Cell> = Vec::new();
    for f in worst_first(map) {
        let cells = cells(counts.get(f.name.as_str()).copied().unwrap_or_default(), f, &spaces);
        row(x, f, &cells);
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
/// space's peak, its findings by severity.
fn cells((e, w, n): (usize, usize, usize), f: &FunctionMap, spaces: &[&str]) -> Vec<Cell> {
    let mut row =
        vec![Cell { text: f.name.clone(), ..Cell::default() }, Cell { text: f.ftype.clone(), ..Cell::default() }];
    for s in spaces {
        row.push(match f.spaces.iter().find(|u| u.space == *s) {
            Some(u) => {
                let p = pill(u);
                Cell { text: p.pct, class: Some(p.level), value: None }
            }
            None => Cell::default(),
        });
    }
    // The peak of the fullest space (by occupancy; with no capacity anywhere, the most bytes).
    let fullest =
        f.spaces.iter().max_by(|a, b| a.occupancy().total_cmp(&b.occupancy()).then(a.peak.bytes.cmp(&b.peak.bytes)));
    row.push(match fullest {
        Some(u) => Cell {
            text: format!("{} {} L{}", u.space, fmt_bytes(u.peak.bytes), u.peak.line),
            class: None,
            value: Some(u.peak.bytes),
        },
        None => Cell::default(),
    });
    for (k, class) in [(e, "e"), (w, "w"), (n, "n")] {
        let text = if k > 0 { k.to_string() } else { String::new() };
        row.push(Cell { text, class: Some(class), value: None });
    }
    row
}

/// A function's row, its name linking to its card.
fn row(x: &mut Xml, f: &FunctionMap, cells: &[Cell]) {
    x.open("tr", &[("data-function", f.name.as_str().into())]);
    if let Some((name, rest)) = cells.split_first() {
        x.open("td", &[]);
        let href = format!("#fn-{}", f.name);
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
pub fn badges(x: &mut Xml, map: &MemoryMap, f: &FunctionMap) {
    let errors: Vec<&Finding> = findings_of(map, f).into_iter().filter(|x| x.severity == Severity::Error).collect();
    let mut codes: Vec<&str> = errors.iter().map(|x| x.code.as_str()).collect();
    codes.dedup();
    codes.sort_unstable();
    codes.dedup();
    for code in codes {
        let mine: Vec<&&Finding> = errors.iter().filter(|x| x.code == code).collect();
        let text = if mine.len() > 1 { format!("{code} ×{}", mine.len()) } else { code.to_string() };
        let title: Vec<&str> = mine.iter().map(|x| x.message.as_str()).collect();
        x.element("span", &[("class", "badge err".into()), ("title", title.join("\n").as_str().into())], &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caption(map: &MemoryMap) -> String {
        let mut x = Xml::html_fragment();
        table(&mut x, map);
        let html = x.finish().into_string();
        let from = html.find("<caption>").unwrap() + "<caption>".len();
        html[from..from + html[from..].find("</caption>").unwrap()].to_string()
    }

    #[test]
    fn the_caption_counts_the_functions_in_words_that_fit_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layout_over_capacity.py");
        let one = crate::load(&path, crate::dump::DEFAULT_PASS, None).unwrap();
        assert_eq!(one.functions.len(), 1);
        assert!(caption(&one).starts_with("1 function · findings: "), "{}", caption(&one));
        assert!(caption(&one.with_copies(2)).starts_with("3 functions, worst first · findings: "));
    }
}
