//! `GET /`: a small page to drop a dump on, and the API in brief.
//!
//! It works without JavaScript (a plain multipart form posting to `/render`), so it works in any
//! browser and behind any content policy. Like every page of the crate it is written with the typed
//! writer of `render::xml`, so no later edit can put unescaped text on it.

use crate::option_table::{self as table, OPTIONS, OptionKind};
use crate::render::xml::{Value, Xml};
use crate::render::{FORMATS, Format};

/// The API lines shown under the form: (method and path, what it does). Format lists come from
/// the format table ([`crate::render::FORMATS`]).
fn api() -> Vec<(String, &'static str)> {
    let maps = Format::names();
    vec![
        (
            format!("POST /render?format={maps}"),
            "body: the dump (text/plain, application/octet-stream, gzip) or a multipart upload (field 'dump'); returns the map (default svg)",
        ),
        (
            "POST /maps".into(),
            "stores the dump under its SHA-256; 201 with Location and links (200 when already stored)",
        ),
        (format!("GET /maps/{{id}}.{maps}"), "the stored map, cacheable forever (ETag, immutable)"),
        ("GET /maps/{id}".into(), "JSON with the links of a stored map"),
        (
            format!("POST /diff?format=md|{maps}"),
            "multipart fields 'old' and 'new': what the change did to on-chip memory",
        ),
        (format!("GET /maps/{{old}}/diff/{{new}}.md|{maps}"), "two stored maps compared, cacheable like stored maps"),
        ("GET /healthz, GET /metrics".into(), "liveness (JSON) and Prometheus metrics"),
    ]
}

/// The options in one sentence, from the option table.
fn options_text() -> String {
    let items: Vec<String> = OPTIONS
        .iter()
        .map(|o| format!("{}={}{}", o.http, o.values(), if o.repeatable { " (repeatable)" } else { "" }))
        .collect();
    format!("Options (query parameters, or form fields; hide and function also comma-separated): {}.", items.join(", "))
}

const STYLE: &str = "\
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; } code, pre { background: #161b22; } }
form { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: .75rem 1.25rem; padding: 1rem; border: 1px solid #8884; border-radius: 8px; }
label { display: grid; gap: .2rem; align-content: start; font-weight: 600; min-width: 0; }
label.wide, form > button { grid-column: 1 / -1; }
label small { font-weight: normal; opacity: .75; }
input, select { font: inherit; padding: .25rem; width: 100%; box-sizing: border-box; min-width: 0; }
input[type=file] { width: auto; }
.error { border-left: 4px solid #cf222e; padding: .5rem 1rem; background: #cf222e14; }
button { justify-self: start; padding: .4rem 1.2rem; font: inherit; }
code, pre { background: #f6f8fa; border-radius: 4px; padding: .1rem .3rem; }
pre { padding: .6rem; overflow-x: auto; }
";

/// A page of the service up to its body's heading: the head with the style, and `title` as the
/// `<h1>`.
fn start(title: &str) -> Xml {
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
    x
}

/// The whole page; `max_body` is shown so users know the limit before they hit it.
pub fn index(max_body: usize) -> String {
    let title = "PyPTO memory map";
    let mut x = start(title);
    x.element(
        "p",
        &[],
        "Upload a pass dump (passes_dump/NN_after_AllocateMemoryAddr.py, or a later pass) to see what each kernel \
         keeps in on-chip memory, where, and for how long.",
    );
    form(&mut x);
    x.element("h2", &[], "API");
    x.open("ul", &[]);
    for (route, what) in api() {
        x.open("li", &[]);
        x.element("code", &[], &route);
        x.text(&format!(": {what}"));
        x.close();
    }
    x.close();
    x.element("p", &[], &options_text());
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

/// The upload form, posted as multipart to `/render`: the file, then one field per option of the
/// option table, labelled with its short label and its help beneath. A choice is a menu with the
/// default chosen, a number an input holding its default within the table's range, the rest text.
/// Left empty, a field is the option's default.
fn form(x: &mut Xml) {
    x.open(
        "form",
        &[("method", "post".into()), ("action", "/render".into()), ("enctype", "multipart/form-data".into())],
    );
    x.open("label", &[("class", "wide".into())]);
    x.text("Pass dump (.py, or .py.gz)");
    x.leaf("input", &[("type", "file".into()), ("name", "dump".into()), ("required", "".into())]);
    x.close();
    for o in OPTIONS {
        x.open("label", &[]);
        x.text(o.label);
        if o.http == table::FORMAT.http {
            let formats: Vec<(&str, String)> =
                FORMATS.iter().map(|f| (f.extension, format!("{} ({})", f.extension.to_uppercase(), f.what))).collect();
            let formats: Vec<(&str, &str)> = formats.iter().map(|(v, l)| (*v, l.as_str())).collect();
            select(x, o.http, &formats, Format::HTTP_DEFAULT.extension());
            x.element(
                "small",
                &[],
                "A PNG draws every function of the dump in one picture; for a dump of many functions name one below.",
            );
            x.close();
            continue;
        }
        if o.http == table::BACKEND.http {
            let backends = [
                ("", "From the dump (a space only Ascend950 has picks it; else Ascend910B, marked assumed)"),
                ("Ascend910B", "Ascend910B (a2a3)"),
                ("Ascend950", "Ascend950 (a5)"),
            ];
            select(x, o.http, &backends, "");
            x.element("small", &[], "the chip whose capacities scale the lanes");
            x.close();
            continue;
        }
        match o.kind {
            OptionKind::Choice(words) => {
                let words = words();
                let choices: Vec<(&str, &str)> = words.iter().map(|w| (w.as_str(), w.as_str())).collect();
                select(x, o.http, &choices, o.default);
            }
            OptionKind::Number(range) => {
                x.leaf(
                    "input",
                    &[
                        ("type", "number".into()),
                        ("name", o.http.into()),
                        ("min", range.min.into()),
                        ("max", range.max.into()),
                        ("step", "any".into()),
                        ("value", o.default.into()),
                    ],
                );
            }
            // Unticked, the box sends nothing and the default (off) applies.
            OptionKind::Switch => {
                x.leaf("input", &[("type", "checkbox".into()), ("name", o.http.into()), ("value", "yes".into())]);
            }
            OptionKind::List(what) | OptionKind::Text(what) => {
                let placeholder = if o.repeatable { format!("{what}, {what}, ...") } else { what.to_string() };
                x.leaf(
                    "input",
                    &[("type", "text".into()), ("name", o.http.into()), ("placeholder", placeholder.as_str().into())],
                );
            }
        }
        let range = match o.kind {
            OptionKind::Number(r) => format!(" ({})", r.text()),
            _ => String::new(),
        };
        x.element("small", &[], &format!("{}{range}", o.help));
        x.close();
    }
    x.element("button", &[("type", "submit".into())], "Draw the map");
    x.close();
}

fn select(x: &mut Xml, name: &str, options: &[(&str, &str)], chosen: &str) {
    x.open("select", &[("name", name.into())]);
    for (value, text) in options {
        let mut attrs: Vec<(&'static str, Value)> = vec![("value", (*value).into())];
        if *value == chosen {
            attrs.push(("selected", "".into()));
        }
        x.element("option", &attrs, text);
    }
    x.close();
}

/// Whether a request came from a person's browser (the upload form) rather than a script: browsers
/// ask for HTML first when they navigate, scripts take any type or name the one they want.
pub fn from_browser(req: &actix_web::HttpRequest) -> bool {
    req.headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.split(',').next().is_some_and(|first| first.trim().starts_with("text/html")))
}

/// [`error_page`] as the answer, with the error's status.
pub fn error_response(err: &super::errors::ApiError) -> actix_web::HttpResponse {
    let message = err.cause().map_or_else(|| err.message(), |e| table::describe(e, table::Shell::Form));
    actix_web::HttpResponse::build(err.status())
        .content_type("text/html; charset=utf-8")
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .insert_header((
            actix_web::http::header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'",
        ))
        .body(error_page(err.status().as_u16(), err.code(), &message))
}

/// An error of the upload form as a page a person can read: what went wrong with the advice
/// (worded for the form's fields), the error's code, and the way back to the form.
pub fn error_page(status: u16, code: &str, message: &str) -> String {
    let title = "The map could not be drawn";
    let mut x = start(title);
    x.open("div", &[("class", "error".into())]);
    x.element("p", &[], &sentence(message));
    x.close();
    x.open("p", &[]);
    x.text("Change the form as it says, then draw again: ");
    x.element("a", &[("href", "/".into())], "back to the form");
    x.text(".");
    x.close();
    x.open("p", &[]);
    x.element("small", &[], &format!("HTTP {status}, error code {code}"));
    x.close();
    x.finish().into_string()
}

/// A message as a sentence: capital first letter, full stop at the end. A message that starts with a
/// name (a file `dump.py:3:1:`, a tile `t__tile`, a place `qk:`) keeps it as it is spelt.
fn sentence(message: &str) -> String {
    let first = message.split([' ', ',', ';']).next().unwrap_or("");
    let a_name =
        first.ends_with(':') || first.contains(['.', '_', '/', '\\']) || first.chars().any(|c| c.is_ascii_digit());
    let mut chars = message.chars();
    let mut out: String = match chars.next() {
        Some(c) if !a_name => c.to_uppercase().collect(),
        Some(c) => c.to_string(),
        None => String::new(),
    };
    out.push_str(chars.as_str());
    if !out.ends_with(['.', '?', '!']) {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_that_needs_no_script() {
        let page = index(1024);
        assert!(page.contains("action=\"/render\"") && page.contains("multipart/form-data"));
        assert!(!page.contains("<script"));
        assert!(page.contains("<option value=\"svg\" selected=\"\">SVG (static picture, machine-readable)</option>"));
        // One field per option of the table, `fit` included, and numbers carry the table's range.
        for o in OPTIONS {
            assert!(page.contains(&format!("name=\"{}\"", o.http)), "the form has {}", o.http);
        }
        assert!(page.contains("name=\"scale\" min=\"1\" max=\"4\""));
        assert!(page.contains("zoom=0.2..64"));
        assert!(page.contains("name=\"zoom\" min=\"0.2\" max=\"64\" step=\"any\" value=\"1\""), "defaults pre-set");
        // The form speaks to a person: its labels and hints name no command-line flag.
        let form = &page[page.find("<form").unwrap()..page.find("</form>").unwrap()];
        assert!(!form.contains("--"), "{form}");
        assert!(page.contains("<select name=\"backend\">") && page.contains("<option value=\"Ascend950\">"));
        assert!(page.contains("<input type=\"file\" name=\"dump\" required=\"\"/>"));
        assert!(page.contains("Bodies up to 1024 bytes"));
    }

    #[test]
    fn an_error_page_says_what_to_do() {
        let page = error_page(422, "picture_too_large", "the picture is too large; try function=NAME <b>");
        assert!(page.contains("The picture is too large; try function=NAME &lt;b&gt;."));
        assert!(page.contains("href=\"/\"") && page.contains("picture_too_large"));
        // A file's name is spelt as it is, never capitalised.
        let page = error_page(400, "unreadable", "qk_matmul.py:3:1: not valid Python");
        assert!(page.contains("qk_matmul.py:3:1: not valid Python."), "{page}");
        let page = error_page(400, "unreadable", "dump: not a pass dump");
        assert!(page.contains(">dump: not a pass dump.<"), "{page}");
    }
}
