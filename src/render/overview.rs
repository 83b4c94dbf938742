//! The page's first screen: one row per function, the worst first (errors, then warnings, then the
//! fullest space), with each space's occupancy in its level's colour, the fullest space's peak and
//! the findings by severity; and the error badges on each collapsed card. Plain HTML, so it reads
//! without scripts; the page's script only adds sorting by any column.

use super::xml::{Value as Attr, Xml};
use crate::findings::counts_text;
use crate::layout::plan::pill;
use crate::model::{Finding, FunctionMap, MemoryMap, Severity, space_rank};
use crate::units::fmt_bytes;
use std::collections::HashMap;

/// The findings about one function.
pub fn findings_of<'a>(map: &'a MemoryMap, f: &FunctionMap) -> Vec<&'a Finding> {
    map.findings.iter().filter(|x| x.function.as_deref() == Some(f.name.as_str())).collect()
}

/// Occupancy of `f`'s fullest space with a capacity, in percent.
fn worst(f: &FunctionMap) -> f64 {
    super::txt::worst(f)
}

/// Functions the worst first: most errors, then most warnings, then the fullest space, then dump
/// order.
pub fn worst_first(map: &MemoryMap) -> Vec<&FunctionMap> {
    let counts = counts_by_function(map);
    // Keys made once: a whole model has hundreds of functions and thousands of findings.
    let mut order: Vec<((usize, usize), f64, &FunctionMap)> = map
        .functions
        .iter()
        .map(|f| {
            let (e, w, _) = counts.get(f.name.as_str()).copied().unwrap_or_default();
            ((e, w), worst(f), f)
        })
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)));
    order.into_iter().map(|(_, _, f)| f).collect()
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
    let caption = format!("{} functions, worst first · findings: {}", map.functions.len(), counts_text(&map.findings));
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
    for f in worst_first(map) {
        row(x, counts.get(f.name.as_str()).copied().unwrap_or_default(), f, &spaces);
    }
    x.close();
    x.close();
    x.close();
    x.newline();
}

fn row(x: &mut Xml, (e, w, n): (usize, usize, usize), f: &FunctionMap, spaces: &[&str]) {
    x.open("tr", &[("data-function", f.name.as_str().into())]);
    x.open("td", &[]);
    let href = format!("#fn-{}", f.name);
    x.element("a", &[("href", href.as_str().into())], &f.name);
    x.close();
    x.element("td", &[], &f.ftype);
    for s in spaces {
        match f.spaces.iter().find(|u| u.space == *s) {
            Some(u) => {
                let p = pill(u);
                x.element("td", &[("class", p.level.into())], &p.pct);
            }
            None => x.element("td", &[], ""),
        }
    }
    // The peak of the fullest space (by occupancy; with no capacity anywhere, the most bytes).
    let fullest = f.spaces.iter().max_by(|a, b| {
        super::txt::occupancy(a).total_cmp(&super::txt::occupancy(b)).then(a.peak.bytes.cmp(&b.peak.bytes))
    });
    match fullest {
        Some(u) => {
            let text = format!("{} {} L{}", u.space, fmt_bytes(u.peak.bytes), u.peak.line);
            x.element("td", &[("data-v", Attr::Int(u.peak.bytes))], &text);
        }
        None => x.element("td", &[], ""),
    }
    for (k, class) in [(e, "e"), (w, "w"), (n, "n")] {
        let text = if k > 0 { k.to_string() } else { String::new() };
        x.element("td", &[("class", class.into())], &text);
    }
    x.close();
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
