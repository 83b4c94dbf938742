//! Progressive HTML page: the static SVG of each card is readable at once; the script upgrades it.
//!
//! Everything a reader needs without scripts (header, one card per function with its pills and its
//! static SVG) is plain HTML. The map data and the layout rules ride along as JSON so the script can
//! rebuild each card as an interactive view when it is opened; nothing is fetched (H9).

use std::fmt::Write as _;

use serde_json::Value;

use crate::model::{FunctionMap, MemoryMap, SpaceUsage};

const PAGE_CSS: &str = include_str!("page/page.css");
const PAGE_JS: &str = include_str!("page/page.js");

/// `static_cards[i]` is a standalone `<svg>` document for `map.functions[i]` (from the SVG back end);
/// `rules_json` is the layout rules as a JSON object (see below).
///
/// The rules object carries `line_px`, `min_lane_px`, `min_box_px`, `zoom_step`, `zoom_min`,
/// `zoom_max`, `panel_px`, `splitter_min`, `splitter_max`, `splitter_default`, `plot_max_vh`,
/// `occupancy_warn`, `occupancy_crit` and `colors` (`light`/`dark` per space plus `good`, `warning`,
/// `critical`). The page reads every number from it, so the layout engine stays the one authority.
pub fn render(map: &MemoryMap, static_cards: &[String], rules_json: &str) -> String {
    let rules: Value = serde_json::from_str(rules_json).unwrap_or(Value::Null);
    // A map is plain strings and numbers, so serializing it cannot fail; an empty object keeps the
    // page readable (static cards) even if that ever changed.
    let data = serde_json::to_string(map).unwrap_or_else(|_| "{}".to_owned());

    let mut out = String::with_capacity(data.len() + static_cards.iter().map(String::len).sum::<usize>() + 64 * 1024);
    let title = format!("Memory map — {} — {}", map.pass_name, map.dump);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    out.push_str("<meta name=\"generator\" content=\"pto-memory-map\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape(&title));
    // Colours come from the rules, so they are emitted as custom properties next to the stylesheet.
    let _ = writeln!(out, "<style>\n{}\n{}</style>", palette_css(&rules), PAGE_CSS);
    out.push_str("</head>\n<body>\n");

    header(&mut out, map);

    out.push_str("<main class=\"cards\">\n");
    if map.functions.is_empty() {
        out.push_str("<p class=\"empty\">No compute function binds a tile in this dump.</p>\n");
    }
    let thresholds = Thresholds::from_rules(&rules);
    for (i, f) in map.functions.iter().enumerate() {
        card(&mut out, i, f, static_cards.get(i).map(String::as_str), &thresholds);
    }
    out.push_str("</main>\n");

    let _ = writeln!(out, "<script type=\"application/json\" id=\"pmm-data\">{}</script>", script_safe(&data));
    let _ = writeln!(out, "<script type=\"application/json\" id=\"pmm-rules\">{}</script>", script_safe(rules_json));
    let _ = writeln!(out, "<script>\n{}</script>", script_safe_code(PAGE_JS));
    out.push_str("</body>\n</html>\n");
    out
}

/// Escapes text for HTML element content and quoted attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// JSON inside `<script>` ends at the first `</`; `<!--` would switch the parser into its escaped
/// state. Both only occur inside JSON strings, where `\/` and `\u0021` read back unchanged.
fn script_safe(json: &str) -> String {
    json.replace("</", "<\\/").replace("<!--", "<\\u0021--")
}

/// The page script is ours, but a stray `</script` in it would still end the element early.
fn script_safe_code(js: &str) -> String {
    js.replace("</script", "<\\/script")
}

fn header(out: &mut String, map: &MemoryMap) {
    let tiles = map.block_count();
    out.push_str("<header class=\"page-head\">\n");
    out.push_str("<div class=\"head-row\"><p class=\"eyebrow\">pto-memory-map</p>");
    // Hidden until the script can honour it: without scripts the page follows the system theme.
    out.push_str(
        "<button type=\"button\" class=\"theme-toggle\" hidden aria-label=\"Toggle dark mode\">theme</button></div>\n",
    );
    let _ = writeln!(out, "<h1>Memory Map — {}</h1>", escape(&map.pass_name));
    out.push_str("<ul class=\"facts\">");
    let _ = write!(out, "<li>dump <b class=\"dump-name\">{}</b></li>", escape(&map.dump));
    let _ = write!(out, "<li>pass <b>{}</b></li>", escape(&map.pass_name));
    let _ = write!(out, "<li>compute functions <b>{}</b></li>", map.functions.len());
    let _ = write!(out, "<li>tiles <b>{tiles}</b></li>");
    let _ = write!(
        out,
        "<li class=\"backend\">capacities <b>{}</b> ({})",
        escape(&map.backend.name),
        escape(&map.backend.arch)
    );
    if !map.backend.detected {
        out.push_str(
            " <em class=\"assumed\" title=\"No ptoas/*.pto target arch was found next to the dump, so the \
             capacities are this backend's by assumption, not measured\">assumed</em>",
        );
    }
    out.push_str("</li></ul>\n");
    out.push_str(
        "<p class=\"note\">Address across, dump line down. Lifetimes are lexical (first to last line that \
         names the tile), not a dataflow analysis.</p>\n",
    );
    out.push_str("</header>\n");
}

fn card(out: &mut String, index: usize, f: &FunctionMap, svg: Option<&str>, th: &Thresholds) {
    let name = escape(&f.name);
    let _ = writeln!(out, "<section class=\"card\" data-function=\"{name}\" data-index=\"{index}\" id=\"fn-{name}\">");
    // The first card starts open (as in PyPTO's page); <details> keeps cards collapsible without scripts.
    let _ = writeln!(out, "<details class=\"card-details\"{}>", if index == 0 { " open" } else { "" });
    out.push_str("<summary class=\"card-head\">");
    let _ = write!(out, "<span class=\"fn-name\">{name}</span> <span class=\"badge\">{}</span>", escape(&f.ftype));
    out.push_str("<span class=\"pills\">");
    for s in &f.spaces {
        pill(out, s, th);
    }
    out.push_str("</span></summary>\n<div class=\"card-body\">\n<div class=\"static-map\">");
    match svg {
        Some(svg) => out.push_str(&inline_svg(svg, index)),
        None => out.push_str("<p class=\"empty\">No static image for this function.</p>"),
    }
    out.push_str("</div>\n</div>\n</details>\n</section>\n");
}

fn pill(out: &mut String, s: &SpaceUsage, th: &Thresholds) {
    let (pct, class) = if s.limit > 0 {
        let ratio = s.hwm as f64 / s.limit as f64;
        let class = if ratio >= th.crit {
            "occ-crit"
        } else if ratio >= th.warn {
            "occ-warn"
        } else {
            "occ-good"
        };
        (format!("{:.1}%", ratio * 100.0), class)
    } else {
        ("—".to_owned(), "occ-good")
    };
    let space = escape(&s.space);
    let _ = write!(
        out,
        "<span class=\"pill {class}\" data-space=\"{space}\" title=\"{space}: high-water mark {} of {} bytes, {} tiles, {} bases; \
         most live at once {} bytes at line {}\">\
         <i class=\"sw\" aria-hidden=\"true\"></i>{space} {}/{} <span class=\"pct\">{pct}</span> <span class=\"peak\">peak L{}</span></span>",
        s.hwm,
        s.limit,
        s.tiles,
        s.bases,
        s.peak.bytes,
        s.peak.line,
        crate::layout::fmt_bytes(s.hwm),
        crate::layout::fmt_bytes(s.limit),
        s.peak.line
    );
}

/// Occupancy thresholds for the pills, from the rules (fallbacks only matter for a broken rules object).
struct Thresholds {
    warn: f64,
    crit: f64,
}

impl Thresholds {
    fn from_rules(rules: &Value) -> Self {
        Thresholds {
            warn: rules.get("occupancy_warn").and_then(Value::as_f64).unwrap_or(0.8),
            crit: rules.get("occupancy_crit").and_then(Value::as_f64).unwrap_or(0.95),
        }
    }
}

/// Space colours as custom properties: light by default, dark when the system asks for it unless
/// the reader forced light, and dark when the reader forced it.
fn palette_css(rules: &Value) -> String {
    let colors = rules.get("colors");
    let scheme = |name: &str| -> String {
        let mut decl = String::new();
        if let Some(Value::Object(map)) = colors.and_then(|c| c.get(name)) {
            for (space, color) in map {
                if let (true, Some(color)) = (is_css_ident(space), color.as_str().filter(|c| is_css_color(c))) {
                    let _ = write!(decl, "--c-{space}:{color};");
                }
            }
        }
        decl
    };
    let mut status = String::new();
    for key in ["good", "warning", "critical"] {
        if let Some(color) = colors.and_then(|c| c.get(key)).and_then(Value::as_str).filter(|c| is_css_color(c)) {
            let _ = write!(status, "--{key}:{color};");
        }
    }
    let (light, dark) = (scheme("light"), scheme("dark"));
    let mut css = String::new();
    let _ = writeln!(css, ":root{{{light}{status}}}");
    let _ = writeln!(css, "@media (prefers-color-scheme: dark){{:root:not([data-theme=light]){{{dark}}}}}");
    let _ = writeln!(css, ":root[data-theme=dark]{{{dark}}}");
    // Each known space picks its colour; any other space keeps the `unknown` fallback.
    css.push_str("[data-space]{--c:var(--c-unknown, #7b858c)}\n");
    if let Some(Value::Object(map)) = colors.and_then(|c| c.get("light")) {
        for space in map.keys().filter(|s| is_css_ident(s) && s.as_str() != "unknown") {
            let _ = writeln!(css, "[data-space=\"{space}\"]{{--c:var(--c-{space})}}");
        }
    }
    css
}

fn is_css_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Only plain colour tokens (`#2a78d6`, `rgb(1, 2, 3)`) reach the stylesheet.
fn is_css_color(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "#(),.% ".contains(c))
}

/// Makes a standalone SVG document safe to sit next to others in one HTML page: the XML prolog is
/// dropped, and ids are prefixed per card so that one card's `url(#clip0)` cannot resolve to another
/// card's definition (ids are global to the page).
fn inline_svg(svg: &str, index: usize) -> String {
    let mut s = svg.trim_start();
    loop {
        if s.starts_with("<?") {
            s = s.find("?>").map_or("", |i| &s[i + 2..]).trim_start();
        } else if s.starts_with("<!DOCTYPE") || s.starts_with("<!doctype") {
            s = s.find('>').map_or("", |i| &s[i + 1..]).trim_start();
        } else if s.starts_with("<!--") {
            s = s.find("-->").map_or("", |i| &s[i + 3..]).trim_start();
        } else {
            break;
        }
    }
    if !s.contains("id=\"") {
        return s.to_owned();
    }
    let prefix = format!("pmm{index}-");
    s.replace(" id=\"", &format!(" id=\"{prefix}"))
        .replace("url(#", &format!("url(#{prefix}"))
        .replace("href=\"#", &format!("href=\"#{prefix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_all_five() {
        assert_eq!(escape(r#"<a href="x">'&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }

    #[test]
    fn bytes_read_like_the_script() {
        assert_eq!(crate::layout::fmt_bytes(512), "512 B");
        assert_eq!(crate::layout::fmt_bytes(1024), "1 KB");
        assert_eq!(crate::layout::fmt_bytes(24 * 1024), "24 KB");
        assert_eq!(crate::layout::fmt_bytes(41062), "40.1 KB");
        assert_eq!(crate::layout::fmt_bytes(524_288), "512 KB");
        assert_eq!(crate::layout::fmt_bytes(2 * 1024 * 1024), "2 MB");
    }

    #[test]
    fn script_text_cannot_close_its_element() {
        let s = script_safe(r#"{"a":"</script><!-- x"}"#);
        assert!(!s.contains("</") && !s.contains("<!--"));
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back["a"], "</script><!-- x");
    }

    const RULES: &str = r##"{"occupancy_warn":0.8,"occupancy_crit":0.95,"colors":{"light":{"Vec":"#2a78d6","unknown":"#7b858c"},"dark":{"Vec":"#3987e5","unknown":"#82837d"},"good":"#0ca30c","warning":"#fab219","critical":"#d03b3b"}}"##;

    /// A map whose dump-derived text tries to break out of every context it lands in.
    fn hostile_map() -> MemoryMap {
        serde_json::from_value(serde_json::json!({
            "dump": "x</script><b>.py", "pass_name": "AllocateMemoryAddr",
            "backend": {"name": "Ascend910B", "arch": "a2a3", "detected": false},
            "functions": [{
                "name": "f_<i>\"'&", "ftype": "AIV", "src_start": 1, "src_end": 2,
                "source": ["def f(): # </script><script>alert(1)</script>", "    <!-- x"],
                "spaces": [{"space": "Vec", "hwm": 180_000, "limit": 188_416, "tiles": 1, "bases": 1}],
                "boxes": [{"name": "t__tile", "space": "Vec", "base": "mem_vec_1", "offset": 0, "size": 180_000,
                    "shape": [16, 16], "dtype": "FP32", "op": "tile.load", "start": 1, "end": 2,
                    "aliases": [], "view": false, "conflict": false}]
            }]
        }))
        .expect("sample map")
    }

    #[test]
    fn page_is_escaped_and_self_contained() {
        let map = hostile_map();
        let page = render(&map, &["<?xml version=\"1.0\"?><svg id=\"s\"></svg>".to_owned()], RULES);
        assert!(page.contains("data-function=\"f_&lt;i&gt;&quot;&#39;&amp;\""));
        assert!(page.contains("<b class=\"dump-name\">x&lt;/script&gt;&lt;b&gt;.py</b>"));
        // Only our own three scripts close: the data, the rules, the code.
        assert_eq!(page.matches("</script>").count(), 3);
        assert!(!page.contains("<!-- x"));
        let start = page.find("id=\"pmm-data\">").unwrap() + "id=\"pmm-data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        // Outside the JSON (where it is inert script data) the raw name never appears.
        assert!(!page[..start].contains("<i>") && !page.contains("<?xml"));
        let back: MemoryMap = serde_json::from_str(&page[start..end]).unwrap();
        assert_eq!(back, map);
        // The header says the backend is assumed; the pill is critical (180000/188416 = 95.5 %).
        assert!(page.contains(">assumed</em>"));
        assert!(page.contains("class=\"pill occ-crit\" data-space=\"Vec\""));
        assert!(page.contains("Vec 175.8 KB/184 KB <span class=\"pct\">95.5%</span>"));
        assert!(page.contains("<svg id=\"pmm0-s\"></svg>"));
        // Colours come from the rules, per scheme.
        assert!(page.contains("--c-Vec:#2a78d6;") && page.contains("--c-Vec:#3987e5;"));
        assert!(page.contains("--critical:#d03b3b;"));
        for external in [" src=\"", " href=\"http", "@import", "url(http"] {
            assert!(!page.contains(external), "{external}");
        }
    }

    #[test]
    fn svg_ids_are_prefixed_per_card() {
        let s = inline_svg(
            "<?xml version=\"1.0\"?>\n<svg><defs><clipPath id=\"c0\"/></defs><g clip-path=\"url(#c0)\"/><use href=\"#c0\"/></svg>",
            3,
        );
        assert!(s.starts_with("<svg>"));
        assert!(s.contains("id=\"pmm3-c0\"") && s.contains("url(#pmm3-c0)") && s.contains("href=\"#pmm3-c0\""));
    }
}
