//! The diff as a page: the verdict and the per-function tables in HTML, then the side-by-side
//! picture (the diff SVG, inline). Readable without scripts, self-contained, and written with the
//! same typed writer as every other page, so names from the dumps arrive only as escaped text.

use crate::compare::{FunctionDiff, MapDiff};
use crate::units::{fmt_bytes, signed_bytes};

use super::xml::{Markup, Xml};

const STYLE: &str = "body{font:14px/1.45 ui-monospace,\"JetBrains Mono\",monospace;margin:24px;color:#1d1f21;\
    background:#f6f6f4}table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #d9d9d4;\
    padding:3px 10px;text-align:right}td:first-child,th:first-child{text-align:left}.up{color:#d03b3b}\
    .down{color:#0ca30c}.map{overflow:auto;margin:8px 0 16px}.fit svg{max-width:100%;height:auto}@media (prefers-color-scheme: dark){body{background:#16171a;\
    color:#e6e6e3}td,th{border-color:#3a3d42}}";

/// A standalone HTML page for `d`, with `svg` (the diff picture) inline, right under the verdict;
/// `fit` shrinks the picture to the page's width.
pub fn html(d: &MapDiff, svg: &Markup, fit: bool) -> String {
    let mut x = Xml::html();
    x.open("html", &[("lang", "en".into())]);
    x.open("head", &[]);
    x.leaf("meta", &[("charset", "utf-8".into())]);
    x.leaf("meta", &[("name", "viewport".into()), ("content", "width=device-width, initial-scale=1".into())]);
    x.element("title", &[], &format!("Memory map diff — {} → {}", d.old.dump, d.new.dump));
    x.raw_text("style", &[], STYLE);
    x.close();
    x.open("body", &[]);
    x.element("h1", &[], "Memory map diff");
    x.open("p", &[]);
    x.element("b", &[], &d.verdict);
    x.close();
    x.open("p", &[]);
    for (word, side) in [("old ", &d.old), ("new ", &d.new)] {
        x.text(word);
        x.element("code", &[], &side.dump);
        x.text(&format!(" · {} · pass {}", side.backend, side.pass_name));
        if word == "old " {
            x.leaf("br", &[]);
        }
    }
    x.close();
    x.newline();
    let class = if fit { "map fit" } else { "map" };
    x.open("div", &[("class", class.into())]);
    x.markup(svg);
    x.close();
    x.newline();
    for f in d.functions.iter().filter(|f| f.changed) {
        function(&mut x, f);
    }
    let unchanged: Vec<&str> = d.functions.iter().filter(|f| !f.changed).map(|f| f.name.as_str()).collect();
    if !unchanged.is_empty() {
        x.element("p", &[], &format!("{} unchanged: {}", unchanged.len(), unchanged.join(", ")));
    }
    x.finish().into_string()
}

/// One changed function: its table of spaces and what happened to its tiles.
fn function(x: &mut Xml, f: &FunctionDiff) {
    x.open("h3", &[]);
    x.element("code", &[], &f.name);
    x.text(&format!(" ({})", f.ftype));
    x.close();
    x.open("table", &[]);
    x.open("tr", &[]);
    for h in ["space", "old", "new", "delta", "capacity", "occupancy"] {
        x.element("th", &[], h);
    }
    x.close();
    let pct = |p: Option<f64>| p.map_or("–".into(), |p| format!("{:.1}%", p * 100.0));
    for s in &f.spaces {
        x.open("tr", &[]);
        x.element("td", &[], &s.space);
        x.element("td", &[], &s.old_hwm.map_or("–".into(), fmt_bytes));
        x.element("td", &[], &s.new_hwm.map_or("–".into(), fmt_bytes));
        let (class, delta) = match s.delta.signum() {
            1 => (vec![("class", "up".into())], signed_bytes(s.delta)),
            -1 => (vec![("class", "down".into())], signed_bytes(s.delta)),
            _ => (Vec::new(), "0".to_string()),
        };
        x.element("td", &class, &delta);
        x.element("td", &[], &fmt_bytes(s.limit));
        x.element("td", &[], &format!("{} → {}", pct(s.old_occupancy), pct(s.new_occupancy)));
        x.close();
    }
    x.close();
    let t = &f.tiles;
    let some = |names: Vec<String>| if names.is_empty() { String::new() } else { format!(" ({})", names.join(", ")) };
    x.element(
        "p",
        &[],
        &format!(
            "tiles: {} changed{}; {} added{}; {} removed{}",
            t.changed.len(),
            some(t.changed.iter().map(|c| format!("{} {}", c.name, c.what.join("+"))).collect()),
            t.added.len(),
            some(t.added.clone()),
            t.removed.len(),
            some(t.removed.clone()),
        ),
    );
    x.newline();
}
