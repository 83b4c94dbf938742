//! The diff as a page: the verdict and the per-function tables in HTML, then the side-by-side
//! picture (the diff SVG, inline). Readable without scripts, self-contained.

use crate::compare::{MapDiff, signed_bytes};
use crate::layout::fmt_bytes;

use super::xml::escape;

/// A standalone HTML page for `d`, with `svg` (the diff picture) inline.
pub fn html(d: &MapDiff, svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + 8192);
    out += "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
    out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
    out += &format!("<title>Memory map diff — {} → {}</title>", escape(&d.old.dump), escape(&d.new.dump));
    out += "<style>body{font:14px/1.45 ui-monospace,\"JetBrains Mono\",monospace;margin:24px;color:#1d1f21;background:#f6f6f4}\
            table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #d9d9d4;padding:3px 10px;text-align:right}\
            td:first-child,th:first-child{text-align:left}.up{color:#d03b3b}.down{color:#0ca30c}.map{overflow:auto}\
            @media (prefers-color-scheme: dark){body{background:#16171a;color:#e6e6e3}td,th{border-color:#3a3d42}}</style>";
    out += "</head><body>";
    out += &format!("<h1>Memory map diff</h1><p><b>{}</b></p>", escape(&d.verdict));
    out += &format!(
        "<p><code>{}</code> → <code>{}</code> · {} · pass {}</p>",
        escape(&d.old.dump),
        escape(&d.new.dump),
        escape(&d.new.backend),
        escape(&d.new.pass_name)
    );
    for f in d.functions.iter().filter(|f| f.changed) {
        out += &format!("<h3><code>{}</code> ({})</h3>", escape(&f.name), escape(&f.ftype));
        out +=
            "<table><tr><th>space</th><th>old</th><th>new</th><th>delta</th><th>capacity</th><th>occupancy</th></tr>";
        for s in &f.spaces {
            let class = match s.delta.signum() {
                1 => " class=\"up\"",
                -1 => " class=\"down\"",
                _ => "",
            };
            let pct = |p: Option<f64>| p.map_or("–".into(), |p| format!("{:.1}%", p * 100.0));
            out += &format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td{class}>{}</td><td>{}</td><td>{} → {}</td></tr>",
                escape(&s.space),
                s.old_hwm.map_or("–".into(), fmt_bytes),
                s.new_hwm.map_or("–".into(), fmt_bytes),
                if s.delta == 0 { "0".into() } else { signed_bytes(s.delta) },
                fmt_bytes(s.limit),
                pct(s.old_occupancy),
                pct(s.new_occupancy)
            );
        }
        out += "</table>";
        let t = &f.tiles;
        let list = |v: &[String]| v.iter().map(|n| escape(n)).collect::<Vec<_>>().join(", ");
        let changed: Vec<String> = t.changed.iter().map(|c| escape(&c.name)).collect();
        out += &format!(
            "<p>tiles: {} changed{}; {} added{}; {} removed{}</p>",
            t.changed.len(),
            if changed.is_empty() { String::new() } else { format!(" ({})", changed.join(", ")) },
            t.added.len(),
            if t.added.is_empty() { String::new() } else { format!(" ({})", list(&t.added)) },
            t.removed.len(),
            if t.removed.is_empty() { String::new() } else { format!(" ({})", list(&t.removed)) },
        );
    }
    let unchanged: Vec<String> = d.functions.iter().filter(|f| !f.changed).map(|f| escape(&f.name)).collect();
    if !unchanged.is_empty() {
        out += &format!("<p>{} unchanged: {}</p>", unchanged.len(), unchanged.join(", "));
    }
    out += "<div class=\"map\">";
    out += svg;
    out += "</div></body></html>\n";
    out
}
