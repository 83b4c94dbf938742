//! `GET /`: a small page to drop a dump on, and the API in brief.
//!
//! It works without JavaScript (a plain multipart form posting to `/render`), so it works in any
//! browser and behind any content policy. Every piece of text goes through [`escape`], even the
//! constant parts, so that no later edit can put unescaped text on the page.

use crate::Format;

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The API lines shown under the form: (method and path, what it does).
const API: &[(&str, &str)] = &[
    (
        "POST /render?format=svg|png|html|json",
        "body: the dump (text/plain, application/octet-stream, gzip) or a multipart upload (field 'dump'); returns the map",
    ),
    ("POST /maps", "stores the dump under its SHA-256; 201 with Location and links (200 when already stored)"),
    ("GET /maps/{id}.svg|png|html|json", "the stored map, cacheable forever (ETag, immutable)"),
    ("GET /maps/{id}", "JSON with the links of a stored map"),
    ("POST /diff?format=md|json|svg|png|html", "multipart fields 'old' and 'new': what the change did to on-chip memory"),
    ("GET /maps/{old}/diff/{new}.md|json|svg|png|html", "two stored maps compared, cacheable like stored maps"),
    ("GET /healthz, GET /metrics", "liveness (JSON) and Prometheus metrics"),
];

const OPTIONS: &str = "View options (query parameters, or form fields): backend=Ascend910B|Ascend950, x_axis=limit|used, \
zoom=0.2..64, hide=SPACE (repeatable or comma-separated), function=NAME (same), theme=light|dark, scale=1..4 (PNG), \
width=200..20000, name=FILE (the dump's file name, shown in the map).";

/// The whole page; `max_body` is shown so users know the limit before they hit it.
pub fn index(max_body: usize) -> String {
    let formats: String = Format::ALL
        .iter()
        .map(|f| {
            let ext = escape(f.extension());
            let selected = if *f == Format::Svg { " selected" } else { "" };
            format!("<option value=\"{ext}\"{selected}>{}</option>", escape(&ext.to_uppercase()))
        })
        .collect();
    let api: String =
        API.iter().map(|(route, what)| format!("<li><code>{}</code>: {}</li>", escape(route), escape(what))).collect();
    let example = "curl -H 'Content-Type: text/plain' --data-binary @35_after_AllocateMemoryAddr.py \
                   'http://HOST/render?format=svg' -o map.svg";
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; background: #fff; }}
@media (prefers-color-scheme: dark) {{ body {{ color: #e6edf3; background: #0d1117; }} code, pre {{ background: #161b22; }} }}
form {{ display: grid; gap: .75rem; padding: 1rem; border: 1px solid #8884; border-radius: 8px; }}
label {{ display: grid; gap: .25rem; }}
button {{ justify-self: start; padding: .4rem 1.2rem; font: inherit; }}
code, pre {{ background: #f6f8fa; border-radius: 4px; padding: .1rem .3rem; }}
pre {{ padding: .6rem; overflow-x: auto; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>{intro}</p>
<form method="post" action="/render" enctype="multipart/form-data">
<label>{file_label} <input type="file" name="dump" required></label>
<label>{format_label} <select name="format">{formats}</select></label>
<label>{theme_label} <select name="theme"><option value="light">light</option><option value="dark">dark</option></select></label>
<label>{axis_label} <select name="x_axis"><option value="limit">limit (0 to capacity)</option><option value="used">used (0 to high-water mark)</option></select></label>
<button type="submit">{button}</button>
</form>
<h2>API</h2>
<ul>{api}</ul>
<p>{options}</p>
<pre>{example}</pre>
<p>{limits}</p>
<p><small>{version}</small></p>
</body>
</html>
"#,
        title = escape("PyPTO memory map"),
        intro = escape(
            "Upload a pass dump (passes_dump/NN_after_AllocateMemoryAddr.py, or a later pass) to see what each \
             kernel keeps in on-chip memory, where, and for how long."
        ),
        file_label = escape("Dump file (.py, or .py.gz)"),
        format_label = escape("Format"),
        theme_label = escape("Theme"),
        axis_label = escape("x axis"),
        button = escape("Draw the map"),
        options = escape(OPTIONS),
        example = escape(example),
        limits = escape(&format!(
            "Bodies up to {max_body} bytes, also after gunzip. Errors are JSON: {{\"error\": {{\"code\", \"message\"}}}}."
        )),
        version = escape(&format!("pto-memory-map {}", env!("CARGO_PKG_VERSION"))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        let page = index(1024);
        assert!(page.contains("action=\"/render\"") && page.contains("multipart/form-data"));
        assert!(!page.contains("<script"));
    }
}
