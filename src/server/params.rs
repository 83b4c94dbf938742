//! View options from a query string or form fields, checked and put in one canonical form.
//!
//! The canonical form matters for permanent links: `?zoom=1.0`, `?zoom=1` and no `zoom` at all draw
//! the same picture, so they must give the same ETag and share one cache entry. Options are checked
//! here, before the body is read or a render is queued, so a typo costs the client one round trip and
//! the server nothing.

use actix_web::web;
use serde::Serialize;

use crate::backend;
use crate::layout::{OPTIONS, Range, SCALE, ScaleMode, Theme, WIDTH, XAxis, ZOOM};
use crate::{Format, RenderOptions, ViewOptions};

use super::errors::{ApiError, clip};

/// Names accepted in a query string or as form fields: those of the option table
/// ([`crate::layout::OPTIONS`]), and the CLI's spelling where it differs (`x-axis`, `scale-mode`).
/// Anything else is a 400, so a misspelt option is reported instead of silently ignored.
pub fn known() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = OPTIONS.iter().map(|o| o.http).collect();
    names.extend(OPTIONS.iter().filter_map(|o| o.cli.filter(|c| *c != o.http)));
    names
}

/// The option table's name of `name`, given in either spelling.
fn canonical(name: &str) -> Option<&'static str> {
    OPTIONS.iter().find(|o| o.http == name || o.cli == Some(name)).map(|o| o.http)
}

/// At most this many names in `hide` or `function`: a dump has a handful of spaces and functions.
const MAX_LIST: usize = 256;
/// Longest accepted `name`.
const MAX_NAME: usize = 200;

/// Everything a request can say about how to draw, already checked.
#[derive(Debug, Clone)]
pub struct Params {
    pub format: Option<Format>,
    /// Canonical backend name (`Ascend910B`), whatever case the client used.
    pub backend: Option<String>,
    pub x_axis: XAxis,
    pub zoom: f64,
    pub hidden: Vec<String>,
    pub functions: Vec<String>,
    pub theme: Theme,
    pub scale: f64,
    pub width: f64,
    /// The dump's file name, shown in the picture and used to name the pass.
    pub name: Option<String>,
    /// `--fit` questions as given (`Vec=32KB@10-40`), repeatable.
    pub fits: Vec<String>,
    /// Small lanes as insets (default) or one strict byte scale.
    pub scale_mode: ScaleMode,
}

impl Default for Params {
    fn default() -> Self {
        let view = ViewOptions::default();
        Params {
            format: None,
            backend: None,
            x_axis: view.x_axis,
            zoom: view.zoom,
            hidden: Vec::new(),
            functions: Vec::new(),
            theme: view.theme,
            scale: RenderOptions::default().scale,
            width: view.width,
            name: None,
            fits: Vec::new(),
            scale_mode: view.scale_mode,
        }
    }
}

/// Splits a query string into (key, value) pairs, percent-decoded, repeated keys kept.
pub fn query_pairs(query: &str) -> Result<Vec<(String, String)>, ApiError> {
    web::Query::<Vec<(String, String)>>::from_query(query)
        .map(|q| q.into_inner())
        .map_err(|e| ApiError::bad_request("bad_query", format!("the query string cannot be read: {e}")))
}

impl Params {
    /// Reads and checks `pairs`. A single-valued option given twice is an error (which one did the
    /// client mean?); `hide` and `function` may repeat and may hold comma-separated lists.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Params, ApiError> {
        let mut p = Params::default();
        let mut seen: Vec<&str> = Vec::new();
        let known = known();
        for (key, value) in pairs {
            let key = key.as_str();
            let Some(&name) = known.iter().find(|k| **k == key) else {
                return Err(bad(format!("unknown option '{}'; known options: {}", clip(key), known.join(", "))));
            };
            let canonical = canonical(name).unwrap_or(name);
            let value = value.trim();
            // A form sends its empty fields too: an empty value is the option left at its default.
            if value.is_empty() {
                continue;
            }
            let repeatable = OPTIONS.iter().any(|o| o.http == canonical && o.repeatable);
            if !repeatable {
                if seen.contains(&canonical) {
                    return Err(bad(format!("option '{canonical}' is given more than once")));
                }
                seen.push(canonical);
            }
            match canonical {
                "format" => p.format = Some(value.parse::<Format>()?),
                // Empty is the upload form's "from the dump": detected or inferred, as if not given.
                "backend" if value.is_empty() => p.backend = None,
                "backend" => p.backend = Some(backend::by_name(value)?.name),
                "x_axis" => p.x_axis = value.parse::<XAxis>()?,
                "theme" => p.theme = value.parse::<Theme>()?,
                "scale_mode" => p.scale_mode = value.parse::<ScaleMode>()?,
                "zoom" => p.zoom = number("zoom", value, ZOOM)?,
                "width" => p.width = number("width", value, WIDTH)?,
                "scale" => p.scale = number("scale", value, SCALE)?,
                "hide" => push_list(&mut p.hidden, "hide", value)?,
                "function" => push_list(&mut p.functions, "function", value)?,
                "name" => p.name = Some(check_name(value)?),
                "fit" => {
                    value.parse::<crate::analyze::FitQuery>()?;
                    if p.fits.len() >= MAX_LIST {
                        return Err(bad(format!("at most {MAX_LIST} fit questions")));
                    }
                    p.fits.push(value.to_string());
                }
                _ => unreachable_option(canonical)?,
            }
        }
        p.hidden.sort();
        p.hidden.dedup();
        p.functions.sort();
        p.functions.dedup();
        p.fits.sort();
        p.fits.dedup();
        Ok(p)
    }

    /// The library's options for one render in `format`.
    pub fn render_options(&self, format: Format) -> RenderOptions {
        RenderOptions {
            format,
            backend: self.backend.clone(),
            view: ViewOptions {
                x_axis: self.x_axis,
                zoom: self.zoom,
                hidden: self.hidden.clone(),
                functions: self.functions.clone(),
                theme: self.theme,
                width: self.width,
                // Checked when the parameters were read.
                fits: self.fits.iter().filter_map(|f| f.parse().ok()).collect(),
                scale_mode: self.scale_mode,
            },
            scale: self.scale,
        }
    }

    /// One string per distinct picture: what the ETag and the render cache are keyed on. Defaults are
    /// already filled in and lists sorted, so equivalent requests give the same string.
    pub fn canonical(&self, format: Format, name: &str) -> String {
        #[derive(Serialize)]
        struct Canonical<'a> {
            format: &'a str,
            backend: Option<&'a str>,
            x_axis: String,
            zoom: f64,
            hide: &'a [String],
            function: &'a [String],
            theme: String,
            scale: f64,
            width: f64,
            name: &'a str,
            fit: &'a [String],
            scale_mode: String,
        }
        let c = Canonical {
            format: format.extension(),
            backend: self.backend.as_deref(),
            x_axis: format!("{:?}", self.x_axis),
            zoom: self.zoom,
            hide: &self.hidden,
            function: &self.functions,
            theme: format!("{:?}", self.theme),
            scale: self.scale,
            width: self.width,
            name,
            fit: &self.fits,
            scale_mode: format!("{:?}", self.scale_mode),
        };
        serde_json::to_string(&c).unwrap_or_default()
    }

    /// The part of a stored map's identity that is not in the dump itself (its name and backend), as
    /// a query string for its links: `?name=32_after_AllocateMemoryAddr.py`, or empty.
    pub fn link_query(&self) -> String {
        let mut parts = Vec::new();
        if let Some(name) = &self.name {
            parts.push(format!("name={}", percent_encode(name)));
        }
        if let Some(b) = &self.backend {
            parts.push(format!("backend={}", percent_encode(b)));
        }
        if parts.is_empty() { String::new() } else { format!("?{}", parts.join("&")) }
    }
}

fn bad(message: String) -> ApiError {
    ApiError::bad_request("bad_option", message)
}

fn unreachable_option(key: &str) -> Result<(), ApiError> {
    Err(ApiError::internal(format!("option '{key}' is listed but not handled")))
}

fn number(key: &str, value: &str, range: Range) -> Result<f64, ApiError> {
    let n: f64 = value.parse().map_err(|_| bad(format!("{key} '{}' is not a number", clip(value))))?;
    if !range.contains(n) {
        return Err(bad(format!("{key} {} is outside {}", clip(value), range.text())));
    }
    Ok(n)
}

fn push_list(list: &mut Vec<String>, key: &str, value: &str) -> Result<(), ApiError> {
    for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item.len() > MAX_NAME || item.chars().any(char::is_control) {
            return Err(bad(format!("{key}: '{}' is not a valid name", clip(item))));
        }
        list.push(item.to_string());
        if list.len() > MAX_LIST {
            return Err(bad(format!("{key}: more than {MAX_LIST} names")));
        }
    }
    Ok(())
}

/// A display name: a file name, not a path, printable, not too long.
pub fn check_name(value: &str) -> Result<String, ApiError> {
    if value.is_empty()
        || value.chars().count() > MAX_NAME
        || value.chars().any(|c| c.is_control() || c == '/' || c == '\\')
    {
        return Err(bad(format!(
            "name '{}' is not a file name (1 to {MAX_NAME} printable characters, no slashes)",
            clip(value)
        )));
    }
    Ok(value.to_string())
}

/// A multipart file name as the browser sent it, reduced to its last path segment; `None` when
/// nothing usable is left, so the default name applies instead of an error.
pub fn name_from_upload(filename: &str) -> Option<String> {
    let base = filename.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base.chars().filter(|c| !c.is_control()).take(MAX_NAME).collect();
    let clean = clean.trim().to_string();
    if clean.is_empty() || clean == "." || clean == ".." { None } else { Some(clean) }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn percent_encode(s: &str) -> String {
    crate::units::percent_encode(s, b"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(String, String)> {
        query_pairs(q).unwrap()
    }

    #[test]
    fn the_scale_mode_is_read_and_keys_the_picture() {
        let strict = Params::from_pairs(&pairs("scale-mode=Strict")).unwrap();
        assert_eq!(strict.render_options(Format::Svg).view.scale_mode, ScaleMode::Strict);
        let default = Params::from_pairs(&pairs("")).unwrap();
        assert_eq!(default.scale_mode, ScaleMode::Insets);
        assert_ne!(strict.canonical(Format::Svg, "d.py"), default.canonical(Format::Svg, "d.py"));
        assert!(Params::from_pairs(&pairs("scale_mode=wide")).is_err());
    }

    #[test]
    fn equivalent_queries_are_one_canonical_string() {
        let a = Params::from_pairs(&pairs("zoom=1.0&hide=Mat,Vec&theme=LIGHT")).unwrap();
        let b = Params::from_pairs(&pairs("hide=Vec&hide=Mat&hide=Vec")).unwrap();
        assert_eq!(a.canonical(Format::Svg, "d.py"), b.canonical(Format::Svg, "d.py"));
        assert_ne!(a.canonical(Format::Svg, "d.py"), a.canonical(Format::Png, "d.py"));
    }

    #[test]
    fn bad_values_and_unknown_keys_are_rejected() {
        for q in ["zoom=1000", "zoom=NaN", "scale=9", "width=5", "x_axis=up", "colour=red", "theme=a&theme=b"] {
            assert!(Params::from_pairs(&pairs(q)).is_err(), "{q}");
        }
        assert!(Params::from_pairs(&pairs("name=../etc/passwd")).is_err());
        assert_eq!(Params::from_pairs(&pairs("backend=ascend950")).unwrap().backend.as_deref(), Some("Ascend950"));
    }

    #[test]
    fn upload_names_lose_their_directories() {
        assert_eq!(name_from_upload("C:\\x\\35_after_A.py").as_deref(), Some("35_after_A.py"));
        assert_eq!(name_from_upload("../"), None);
        assert_eq!(percent_encode("a b/é"), "a%20b%2F%C3%A9");
    }
}
