//! `GET /`: a small page to drop a dump on, and the API in brief.
//!
//! It works without JavaScript (a plain multipart form posting to `/render`), so it works in any
//! browser and behind any content policy. Like every page of the crate it is written with the typed
//! writer of `render::xml`, so no later edit can put unescaped text on it.

use crate::Format;
use crate::render::xml::{Value, Xml};

/// The API lines shown under the form: (method and path, what it does).
const API: &[(&str, &str)] = &[
    (
        "POST /render?format=svg|png|html|json",
        "body: the dump (text/plain, application/octet-stream, gzip) or a multipart upload (field 'dump'); returns the map",
    ),
    ("POST /maps", "stores the dump under its SHA-256; 201 with Location and links (200 when already stored)"),
    ("GET /maps/{id}.svg|png|html|json", "the stored map, cacheable forever (ETag, immutable)"),
    ("GET /maps/{id}", "JSON with the links of a stored map"),
    (
        "POST /diff?format=md|json|svg|png|html",
        "multipart fields 'old' and 'new': what the change did to on-chip memory",
    ),
    ("GET /maps/{old}/diff/{new}.md|json|svg|png|html", "two stored maps compared, cacheable like stored maps"),
    ("GET /healthz, GET /metrics", "liveness (JSON) and Prometheus metrics"),
];

const OPTIONS: &str = "View options (query parameters, or form fields): backend=Ascend910B|Ascend950, x_axis=limit|used, \
zoom=0.2..64, hide=SPACE (repeatable or comma-separated), function=NAME (same), theme=light|dark, scale=1..4 (PNG), \
width=200..20000, scale_mode=insets|strict, name=FILE (the dump's file name, shown in the map).";

const STYLE: &str = "\
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; } code, pre { background: #161b22; } }
form { display: grid; gap: .75rem; padding: 1rem; border: 1px solid #8884; border-radius: 8px; }
label { display: grid; gap: .25rem; }
button { justify-self: start; padding: .4rem 1.2rem; font: inherit; }
code, pre { background: #f6f8fa; border-radius: 4px; padding: .1rem .3rem; }
pre { padding: .6rem; overflow-x: auto; }
";

/// The whole page; `max_body` is shown so users know the limit before they hit it.
pub fn index(max_body: usize) -> String {
    let title = "PyPTO memory map";
    let mut x = Xml::html();
    x.open("html", &[("lang", "en".into())]);
    x.open("head", &[]);
    x.leaf("meta", &[("charset", "utf-8".into())]);
    x.leaf("meta", &[("name", "viewport".into()), ("content", "width=device-width, initial-scale=1".into())]);
    x.element("title", &[], title);
    x.raw_text("style", &[], STYLE);
    x.close();
    x.open("body", &[]);
    x.element("h1", &[], title);
    x.element(
        "p",
        &[],
        "Upload a pass dump (passes_dump/NN_after_AllocateMemoryAddr.py, or a later pass) to see what each kernel \
         keeps in on-chip memory, where, and for how long.",
    );
    form(&mut x);
    x.element("h2", &[], "API");
    x.open("ul", &[]);
    for (route, what) in API {
        x.open("li", &[]);
        x.element("code", &[], route);
        x.text(&format!(": {what}"));
        x.close();
    }
    x.close();
    x.element("p", &[], OPTIONS);
    x.element(
        "pre",
        &[],
        "curl -H 'Content-Type: text/plain' --data-binary @35_after_AllocateMemoryAddr.py \
         'http://HOST/render?format=svg' -o map.svg",
    );
    x.element(
        "p",
        &[],
        &format!("Bodies up to {max_body} bytes, also after gunzip. Errors are JSON: {{\"error\": {{\"code\", \"message\"}}}}."),
    );
    x.open("p", &[]);
    x.element("small", &[], &format!("pto-memory-map {}", env!("CARGO_PKG_VERSION")));
    x.close();
    x.finish().into_string()
}

/// The upload form: a file and three view options, posted as multipart to `/render`.
fn form(x: &mut Xml) {
    x.open(
        "form",
        &[("method", "post".into()), ("action", "/render".into()), ("enctype", "multipart/form-data".into())],
    );
    x.open("label", &[]);
    x.text("Dump file (.py, or .py.gz) ");
    x.leaf("input", &[("type", "file".into()), ("name", "dump".into()), ("required", "".into())]);
    x.close();
    let formats: Vec<(&str, String)> =
        Format::ALL.iter().map(|f| (f.extension(), f.extension().to_uppercase())).collect();
    let formats: Vec<(&str, &str)> = formats.iter().map(|(v, l)| (*v, l.as_str())).collect();
    select(x, "Format", "format", &formats, "svg");
    select(x, "Theme", "theme", &[("light", "light"), ("dark", "dark")], "light");
    let axes = [("limit", "limit (0 to capacity)"), ("used", "used (0 to high-water mark)")];
    select(x, "x axis", "x_axis", &axes, "limit");
    x.element("button", &[("type", "submit".into())], "Draw the map");
    x.close();
}

fn select(x: &mut Xml, label: &str, name: &str, options: &[(&str, &str)], chosen: &str) {
    x.open("label", &[]);
    x.text(label);
    x.text(" ");
    x.open("select", &[("name", name.into())]);
    for (value, text) in options {
        let mut attrs: Vec<(&'static str, Value)> = vec![("value", (*value).into())];
        if *value == chosen {
            attrs.push(("selected", "".into()));
        }
        x.element("option", &attrs, text);
    }
    x.close();
    x.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_that_needs_no_script() {
        let page = index(1024);
        assert!(page.contains("action=\"/render\"") && page.contains("multipart/form-data"));
        assert!(!page.contains("<script"));
        assert!(page.contains("<option value=\"svg\" selected=\"\">SVG</option>"));
        assert!(page.contains("<input type=\"file\" name=\"dump\" required=\"\"/>"));
        assert!(page.contains("Bodies up to 1024 bytes"));
    }
}
