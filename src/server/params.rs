//! View options from a query string or form fields, checked and put in one canonical form.
//!
//! The canonical form matters for permanent links: `?zoom=1.0`, `?zoom=1` and no `zoom` at all draw
//! the same picture, so they must give the same ETag and share one cache entry. Options are checked
//! here, before the body is read or a render is queued, so a typo costs the client one round trip and
//! the server nothing.

use actix_web::web;

use crate::Format;
use crate::backend;
use crate::option_table::OptionSpec;

use super::errors::ApiError;

/// Everything a request can say about how to draw, already checked: the option table's
/// [`crate::option_table::Chosen`], which the command line fills in too.
pub use crate::option_table::Chosen as Params;

/// Splits a query string into (key, value) pairs, percent-decoded, repeated keys kept.
pub fn query_pairs(query: &str) -> Result<Vec<(String, String)>, ApiError> {
    web::Query::<Vec<(String, String)>>::from_query(query)
        .map(|q| q.into_inner())
        .map_err(|e| ApiError::BadQuery(e.to_string()))
}

impl Params {
    /// Reads and checks `pairs`, each through its row of the option table. A single-valued option
    /// given twice is an error (which one did the client mean?); `hide`, `function` and `fit` may
    /// repeat, and `hide` and `function` may hold comma-separated lists. The service draws with
    /// the built-in backends only.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Params, ApiError> {
        let mut p = Params::default();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            let Some(option) = OptionSpec::find(key) else {
                return Err(ApiError::UnknownOption(key.clone()));
            };
            let value = value.trim();
            // A form sends its empty fields too: an empty value is the option left at its default.
            if value.is_empty() {
                continue;
            }
            if !option.repeatable {
                if seen.contains(&option.http) {
                    return Err(ApiError::OptionTwice(option.http.to_string()));
                }
                seen.push(option.http);
            }
            option.apply(&mut p, value)?;
        }
        if let Some(name) = &p.backend {
            backend::by_name(name)?;
        }
        p.view.hidden.sort();
        p.view.hidden.dedup();
        p.view.functions.sort();
        p.view.functions.dedup();
        // One order for equal questions however they were written (`32KB`, `32768`).
        p.view.fits.sort_by_key(|f| format!("{f:?}"));
        p.view.fits.dedup();
        Ok(p)
    }

    /// One string per distinct picture: what the ETag and the render cache are keyed on. Defaults are
    /// already filled in and lists sorted, so equivalent requests give the same string. It is every
    /// field of the options as they were read (their `Debug` form), so an option added to the
    /// table keys the picture with no edit here.
    pub fn canonical(&self, format: Format, name: &str) -> String {
        let keyed = Params { format: Some(format), name: Some(name.to_string()), ..self.clone() };
        format!("{keyed:?}")
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

/// A multipart file name as the browser sent it, reduced to its last path segment; `None` when
/// nothing usable is left, so the default name applies instead of an error.
pub fn name_from_upload(filename: &str) -> Option<String> {
    let base = filename.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base.chars().filter(|&c| !crate::option_table::unfit_in_name(c)).collect();
    // Cut at the bound in bytes, on a character boundary, as every other name is bounded.
    let clean = crate::units::truncated(clean.trim(), crate::option_table::MAX_NAME).trim().to_string();
    if clean.is_empty() || clean == "." || clean == ".." { None } else { Some(clean) }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn percent_encode(s: &str) -> String {
    crate::units::percent_encode(s, b"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::option_table::OPTIONS;
    use crate::plan::ScaleMode;

    fn pairs(q: &str) -> Vec<(String, String)> {
        query_pairs(q).unwrap()
    }

    #[test]
    fn the_scale_mode_is_read_and_keys_the_picture() {
        let strict = Params::from_pairs(&pairs("scale-mode=Strict")).unwrap();
        assert_eq!(strict.render_options(Format::Svg).view.scale_mode, ScaleMode::Strict);
        let default = Params::from_pairs(&pairs("")).unwrap();
        assert_eq!(default.view.scale_mode, ScaleMode::Insets);
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

    /// Every option of the table, set away from its default, gives another key: a new option that
    /// is not here fails this test until it has a sample value.
    #[test]
    fn every_option_keys_the_picture() {
        let samples = [
            ("backend", "Ascend950"),
            ("x_axis", "used"),
            ("zoom", "2"),
            ("hide", "Vec"),
            ("function", "f"),
            ("theme", "dark"),
            ("scale_mode", "Strict"),
            ("packed", "yes"),
            ("scale", "3"),
            ("width", "900"),
            ("fit", "Vec=32KB"),
        ];
        // The format and the name are the key's own arguments.
        let keyed: Vec<&str> = OPTIONS.iter().map(|o| o.http).filter(|h| !["format", "name"].contains(h)).collect();
        let mut sampled: Vec<&str> = samples.iter().map(|(k, _)| *k).collect();
        sampled.sort_unstable();
        let mut all = keyed.clone();
        all.sort_unstable();
        assert_eq!(sampled, all, "a sample value for every option");
        let base = Params::default().canonical(Format::Svg, "d.py");
        for (key, value) in samples {
            let p = Params::from_pairs(&pairs(&format!("{key}={value}"))).unwrap();
            assert_ne!(p.canonical(Format::Svg, "d.py"), base, "{key}={value} does not key the picture");
        }
        assert_ne!(Params::default().canonical(Format::Svg, "e.py"), base);
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
        // Bounded in bytes as every name is: cut on a character boundary.
        let long = name_from_upload(&format!("x/{}", "é".repeat(200))).unwrap();
        assert_eq!(long, "é".repeat(128));
        assert!(crate::option_table::check_name(&long).is_ok());
        assert_eq!(percent_encode("a b/é"), "a%20b%2F%C3%A9");
    }
}
