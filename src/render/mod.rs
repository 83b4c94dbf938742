//! Back ends: one file per output format. Each draws what it is given and decides nothing.

pub mod diff;
pub mod html;
pub mod json;
pub mod md;
pub mod png;
pub mod sarif;
pub mod svg;
pub mod txt;
pub mod xml;

use crate::error::{Error, ErrorKind, Result};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
    Html,
    Json,
    /// A plain-text report (overview, findings, live sets), not a picture.
    Txt,
}

impl Format {
    pub const ALL: [Format; 5] = [Format::Svg, Format::Png, Format::Html, Format::Json, Format::Txt];

    pub fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
            Format::Html => "html",
            Format::Json => "json",
            Format::Txt => "txt",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Svg => "image/svg+xml",
            Format::Png => "image/png",
            Format::Html => "text/html; charset=utf-8",
            Format::Json => "application/json",
            Format::Txt => "text/plain; charset=utf-8",
        }
    }

    /// The format a file name asks for by its extension.
    pub fn from_extension(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Format::ALL.into_iter().find(|f| f.extension() == ext)
    }
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Format> {
        Format::ALL.into_iter().find(|f| f.extension().eq_ignore_ascii_case(s)).ok_or_else(|| {
            let known: Vec<&str> = Format::ALL.iter().map(|f| f.extension()).collect();
            Error::new(ErrorKind::Usage, format!("unknown format '{s}'; known formats: {}", known.join(", ")))
        })
    }
}
