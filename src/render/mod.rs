//! Back ends: one file per output format. Each draws what it is given and decides nothing.

pub mod codequality;
mod coverage;
pub mod diff;
pub mod digest;
mod glyphs;
pub mod html;
pub mod json;
pub mod least;
pub mod md;
pub mod overview;
pub mod png;
mod raster;
pub mod sarif;
pub mod svg;
pub mod txt;
pub mod xml;

use crate::error::{Error, Result};

/// An output format. Each has one row in [`FORMATS`]; adding one is a variant, a row, and its arm in
/// `render_map` and `render_diff` (the compiler points at both); the CLI, the server's parsing,
/// links and metrics, the upload page and the README's table follow the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The static picture.
    Svg,
    /// The static picture, rasterized.
    Png,
    /// The progressive interactive page.
    Html,
    /// The map as data.
    Json,
    /// A plain-text report (overview, findings, live sets), not a picture.
    Txt,
}

/// What the CLI, the server, its links and metrics, the upload page and the README know of a format.
#[derive(Debug, Clone, Copy)]
pub struct FormatSpec {
    /// The format.
    pub format: Format,
    /// File extension and the name `format=` / `-f` take.
    pub extension: &'static str,
    /// HTTP `Content-Type`.
    pub content_type: &'static str,
    /// What it is for, in a few words.
    pub what: &'static str,
}

/// Every map format, in the order lists show them.
pub const FORMATS: &[FormatSpec] = &[
    FormatSpec {
        format: Format::Svg,
        extension: "svg",
        content_type: "image/svg+xml",
        what: "static picture, machine-readable",
    },
    FormatSpec { format: Format::Png, extension: "png", content_type: "image/png", what: "the SVG, rasterized" },
    FormatSpec {
        format: Format::Html,
        extension: "html",
        content_type: "text/html; charset=utf-8",
        what: "progressive interactive page",
    },
    FormatSpec { format: Format::Json, extension: "json", content_type: "application/json", what: "the map as data" },
    FormatSpec {
        format: Format::Txt,
        extension: "txt",
        content_type: "text/plain; charset=utf-8",
        what: "plain-text report: overview, findings, live sets",
    },
];

impl Format {
    /// Every format, in [`FORMATS`] order (made from the table, so a new row is all it takes).
    pub const ALL: [Format; FORMATS.len()] = {
        let mut out = [Format::Svg; FORMATS.len()];
        let mut i = 0;
        while i < FORMATS.len() {
            out[i] = FORMATS[i].format;
            i += 1;
        }
        out
    };

    /// The CLI writes a file to open, so it writes the page, as PyPTO's own tool does.
    pub const CLI_DEFAULT: Format = Format::Html;
    /// `POST /render` answers what a link, an `<img>` or `curl -o map.svg` can embed at once: the
    /// picture (the page is a click away with `format=html`).
    pub const HTTP_DEFAULT: Format = Format::Svg;

    /// Its row of [`FORMATS`].
    pub fn spec(self) -> &'static FormatSpec {
        FORMATS.iter().find(|s| s.format == self).unwrap_or(&FORMATS[0])
    }

    /// File extension, and the name options take.
    pub fn extension(self) -> &'static str {
        self.spec().extension
    }

    /// HTTP `Content-Type`.
    pub fn content_type(self) -> &'static str {
        self.spec().content_type
    }

    /// Its place in [`FORMATS`] (metrics keep one series per format in this order).
    pub fn index(self) -> usize {
        FORMATS.iter().position(|s| s.format == self).unwrap_or(0)
    }

    /// `svg|png|html|json`.
    pub fn names() -> String {
        FORMATS.iter().map(|s| s.extension).collect::<Vec<_>>().join("|")
    }

    /// The format a file name asks for by its extension.
    pub fn from_extension(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        FORMATS.iter().find(|f| f.extension == ext).map(|f| f.format)
    }
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Format> {
        FORMATS.iter().find(|f| f.extension.eq_ignore_ascii_case(s)).map(|f| f.format).ok_or_else(|| {
            let known: Vec<&str> = FORMATS.iter().map(|f| f.extension).collect();
            Error::bad_value("format", s, known.join(", "))
        })
    }
}

/// The README's format table, made from [`FORMATS`].
pub fn formats_markdown() -> String {
    let mut out = String::from("| format | content type | what |\n| --- | --- | --- |\n");
    for f in FORMATS {
        let default = match (f.format == Format::CLI_DEFAULT, f.format == Format::HTTP_DEFAULT) {
            (true, _) => " (the CLI's default: a file to open, as PyPTO's own tool writes)",
            (_, true) => " (`POST /render`'s default: what a link or `curl -o` embeds at once)",
            _ => "",
        };
        out.push_str(&format!("| `{}` | `{}` | {}{default} |\n", f.extension, f.content_type, f.what));
    }
    out
}

/// The README's tables (options, formats) as made from their one description; a test holds the
/// README to them, and `UPDATE_README=1 cargo test --lib readme` rewrites them.
#[cfg(test)]
mod readme {
    const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");

    fn block(text: &str, name: &str) -> Option<(usize, usize)> {
        let begin = format!("<!-- {name}:begin -->\n");
        let start = text.find(&begin)? + begin.len();
        let end = start + text[start..].find(&format!("<!-- {name}:end -->"))?;
        Some((start, end))
    }

    #[test]
    fn readme_tables_follow_the_tables_in_code() {
        let mut text = std::fs::read_to_string(README).expect("README.md");
        let tables = [("options", crate::option_table::options_markdown()), ("formats", super::formats_markdown())];
        for (name, made) in &tables {
            let (start, end) = block(&text, name).unwrap_or_else(|| panic!("README has no {name} block"));
            if std::env::var_os("UPDATE_README").is_some() {
                text.replace_range(start..end, made);
            } else {
                assert_eq!(
                    &text[start..end],
                    made,
                    "README's {name} table drifted; UPDATE_README=1 cargo test --lib readme"
                );
            }
        }
        if std::env::var_os("UPDATE_README").is_some() {
            std::fs::write(README, text).expect("README.md written");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_row() {
        assert_eq!(Format::ALL.len(), FORMATS.len());
        for (i, f) in Format::ALL.into_iter().enumerate() {
            assert_eq!(f.index(), i);
            assert_eq!(f.extension().parse::<Format>().unwrap(), f);
        }
    }
}
