//! The options a reader can set on a map, each described once: its names (a query parameter and
//! form field, a command-line flag), a short label and a line of help, the values it takes, its
//! default, and the code that reads one value of it into [`Chosen`].
//!
//! The command line (`cli/args.rs`, through clap's builder) and the service (`server/params.rs`) both
//! loop over [`OPTIONS`] and call [`OptionSpec::apply`], so a value is parsed and checked in one
//! place, the same way in both shells. The upload page, `--help` and the README's table are made
//! from the same rows. Adding an option is one row here plus its `apply` function; the shells, the
//! form and the table follow.
//!
//! How each shell words an error ([`describe`], [`advice`]) is in `wording.rs`, and re-exported
//! here: the shells call `option_table::describe` as before.

mod wording;

use clap::ValueEnum;

pub(crate) use self::wording::clip;
pub use self::wording::{LIMIT_FLAGS, Shell, TIME_LIMIT_FLAG, advice, describe, describe_unplaced, widening_note};
use crate::error::{Error, Result};
use crate::plan::{DEFAULT_SCALE, Range, SCALE, ScaleMode, Theme, ViewOptions, WIDTH, XAxis, ZOOM};
use crate::render::{FORMATS, Format};
use crate::{RenderOptions, backend};

/// How an option's value is read.
#[derive(Debug, Clone, Copy)]
pub enum OptionKind {
    /// One of the words the function lists.
    Choice(fn() -> Vec<String>),
    /// A number in this range.
    Number(Range),
    /// Names, repeatable or comma-separated, as the placeholder says.
    List(&'static str),
    /// Free text, checked by the option's own code, as the placeholder says.
    Text(&'static str),
    /// On or off: a bare flag on the command line (`--packed`), `yes`/`no` (or `true`/`false`,
    /// `1`/`0`, `on`/`off`) as a value, a checkbox on the form.
    Switch,
}

/// One option of the command line and the HTTP service.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    /// The query parameter and form field; also the option's key in errors' [`Advice`](crate::error::Advice).
    pub http: &'static str,
    /// The command line's long flag (without `--`); `None` where the CLI has no such option.
    pub cli: Option<&'static str>,
    /// The command line's short flag.
    pub short: Option<char>,
    /// A few words for the upload form.
    pub label: &'static str,
    /// What it does, in one line, for `--help` and the README.
    pub help: &'static str,
    /// How the value is read.
    pub kind: OptionKind,
    /// The value used when the option is absent, as text.
    pub default: &'static str,
    /// May be given more than once.
    pub repeatable: bool,
    /// Reads one value into the choices made so far, or says why it cannot.
    pub apply: fn(&mut Chosen, &str) -> Result<()>,
}

impl OptionSpec {
    /// The values it takes, as tables write them: `limit|used`, `0.2..64`, `SPACE`.
    pub fn values(&self) -> String {
        match self.kind {
            OptionKind::Choice(words) => words().join("|"),
            OptionKind::Number(r) => r.text(),
            OptionKind::List(what) | OptionKind::Text(what) => what.into(),
            OptionKind::Switch => "yes|no".into(),
        }
    }

    /// Reads one value of this option into `chosen`.
    pub fn apply(&self, chosen: &mut Chosen, value: &str) -> Result<()> {
        (self.apply)(chosen, value)
    }

    /// The row whose query parameter (or, as the service also takes it, flag name) is `name`.
    pub fn find(name: &str) -> Option<&'static OptionSpec> {
        OPTIONS.iter().find(|o| o.http == name || o.cli == Some(name))
    }
}

/// What the options given say, before a shell fills in what only it knows (the CLI's format from
/// `-o`'s extension, the service's name from the upload).
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    /// The output format, when one was named.
    pub format: Option<Format>,
    /// The backend, when one was named (a built-in one by its canonical name).
    pub backend: Option<String>,
    /// How to draw.
    pub view: ViewOptions,
    /// The PNG's device pixel ratio.
    pub scale: f64,
    /// The dump's file name (the service only).
    pub name: Option<String>,
}

impl Default for Chosen {
    fn default() -> Self {
        Chosen { format: None, backend: None, view: ViewOptions::default(), scale: DEFAULT_SCALE, name: None }
    }
}

impl Chosen {
    /// The library's options for one render in `format`.
    pub fn render_options(&self, format: Format) -> RenderOptions {
        RenderOptions { format, backend: self.backend.clone(), view: self.view.clone(), scale: self.scale }
    }
}

/// At most this many names in `hide` or `function`, and fit questions: a dump has a handful.
const MAX_LIST: usize = 256;
/// Longest accepted name in bytes (a space, a function, a backend, the dump's file name), wherever it
/// enters: the command line, a query, a form, an upload's file name, a stored map's metadata. Any
/// file name fits (255 bytes on Linux and macOS); a longer one is a drawing's amplifier, not a name.
pub const MAX_NAME: usize = 256;

/// A character a name may not hold: a control character, or an invisible one that hides, breaks or
/// reorders the text around it (soft hyphen, zero-width spaces and joiners, line and paragraph
/// separators, bidirectional marks, overrides and isolates, the byte-order mark, interlinear
/// annotation, tags), so that a name drawn on a map reads as what it is.
pub fn unfit_in_name(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// The names of a clap value enum's values, for [`OptionKind::Choice`].
fn words<E: ValueEnum>() -> Vec<String> {
    E::value_variants().iter().filter_map(|v| v.to_possible_value()).map(|p| p.get_name().to_string()).collect()
}

/// One value of a clap value enum, in any case.
fn choice<E: ValueEnum>(option: &'static str, value: &str) -> Result<E> {
    E::from_str(value, true).map_err(|_| Error::bad_value(option, value, words::<E>().join(" or ")))
}

/// A [`OptionKind::Switch`]'s value.
fn switch(option: &'static str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" | "on" => Ok(true),
        "no" | "false" | "0" | "off" => Ok(false),
        _ => Err(Error::bad_value(option, &shown(value), "yes or no")),
    }
}

fn format_names() -> Vec<String> {
    FORMATS.iter().map(|f| f.extension.to_string()).collect()
}

fn number(option: &'static str, value: &str, range: Range) -> Result<f64> {
    let n: f64 =
        value.trim().parse().map_err(|_| Error::bad_value(option, value, format!("a number in {}", range.text())))?;
    range.check(option, n)
}

/// Adds the comma-separated names in `value` to `list`.
fn push_names(option: &'static str, list: &mut Vec<String>, value: &str) -> Result<()> {
    for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item.len() > MAX_NAME || item.chars().any(unfit_in_name) {
            return Err(Error::bad_value(
                option,
                &shown(item),
                format!("a name of at most {MAX_NAME} bytes, printable"),
            ));
        }
        if list.len() >= MAX_LIST {
            return Err(Error::bad_value(option, item, format!("at most {MAX_LIST} names")));
        }
        list.push(item.to_string());
    }
    Ok(())
}

/// A display name: a file name, not a path, printable, not too long.
pub fn check_name(value: &str) -> Result<String> {
    if value.is_empty() || value.len() > MAX_NAME || value.chars().any(|c| unfit_in_name(c) || c == '/' || c == '\\') {
        return Err(Error::bad_value(
            "name",
            &shown(value),
            format!("a file name of 1 to {MAX_NAME} bytes, printable, no slashes"),
        ));
    }
    Ok(value.to_string())
}

/// A name as a message quotes it: whole up to [`MAX_NAME`] bytes, else its start and its length, so
/// a refused megabyte of name does not come back in the answer.
fn shown(value: &str) -> String {
    if value.len() <= MAX_NAME {
        return value.to_string();
    }
    format!("{}... ({} bytes)", crate::units::truncated(value, 32), value.len())
}

/// The output format.
pub const FORMAT: OptionSpec = OptionSpec {
    http: "format",
    cli: Some("format"),
    short: Some('f'),
    label: "Format",
    kind: OptionKind::Choice(format_names),
    default: "html on the command line (or the extension of -o), svg over HTTP",
    help: "output format",
    repeatable: false,
    apply: |c, v| {
        c.format = Some(v.parse()?);
        Ok(())
    },
};
/// The chip whose capacities scale the lanes.
pub const BACKEND: OptionSpec = OptionSpec {
    http: "backend",
    cli: Some("backend"),
    short: Some('b'),
    label: "Backend",
    kind: OptionKind::Text("NAME"),
    default: "detected from the dump, else Ascend910B (marked assumed)",
    help: "the chip whose capacities scale the lanes: Ascend910B, Ascend950, or a chip described in a SoC file",
    repeatable: false,
    // A built-in backend by its canonical name, whatever case was given; another name may be a SoC
    // file's (command line only), which is looked up when the dump is loaded.
    apply: |c, v| {
        if v.len() > MAX_NAME || v.chars().any(unfit_in_name) {
            return Err(Error::bad_value(
                "backend",
                &shown(v),
                format!("a name of at most {MAX_NAME} bytes, printable"),
            ));
        }
        c.backend = Some(backend::by_name(v).map_or_else(|_| v.to_string(), |b| b.name));
        Ok(())
    },
};
/// What a lane spans.
pub const X_AXIS: OptionSpec = OptionSpec {
    http: "x_axis",
    cli: Some("x-axis"),
    short: None,
    label: "Lane span",
    kind: OptionKind::Choice(words::<XAxis>),
    default: "limit",
    help: "lane span: 0 to the capacity (limit) or to the high-water mark (used)",
    repeatable: false,
    apply: |c, v| {
        c.view.x_axis = choice("x_axis", v)?;
        Ok(())
    },
};
/// The zoom.
pub const ZOOM_OPTION: OptionSpec = OptionSpec {
    http: "zoom",
    cli: Some("zoom"),
    short: None,
    label: "Zoom",
    kind: OptionKind::Number(ZOOM),
    default: "1",
    help: "multiplies the byte scale",
    repeatable: false,
    apply: |c, v| {
        c.view.zoom = number("zoom", v, ZOOM)?;
        Ok(())
    },
};
/// Spaces left out.
pub const HIDE: OptionSpec = OptionSpec {
    http: "hide",
    cli: Some("hide"),
    short: None,
    label: "Hide spaces",
    kind: OptionKind::List("SPACE"),
    default: "",
    help: "a memory space not to draw (the last one of a card stays)",
    repeatable: true,
    apply: |c, v| push_names("hide", &mut c.view.hidden, v),
};
/// Functions drawn.
pub const FUNCTION: OptionSpec = OptionSpec {
    http: "function",
    cli: Some("function"),
    short: None,
    label: "Only these functions",
    kind: OptionKind::List("NAME"),
    default: "",
    help: "draw only this function",
    repeatable: true,
    apply: |c, v| push_names("function", &mut c.view.functions, v),
};
/// The colours.
pub const THEME: OptionSpec = OptionSpec {
    http: "theme",
    cli: Some("theme"),
    short: None,
    label: "Colours",
    kind: OptionKind::Choice(words::<Theme>),
    default: "light",
    help: "colours",
    repeatable: false,
    apply: |c, v| {
        c.view.theme = choice("theme", v)?;
        Ok(())
    },
};
/// How lanes too small for the card's byte scale are drawn.
pub const SCALE_MODE: OptionSpec = OptionSpec {
    http: "scale_mode",
    cli: Some("scale-mode"),
    short: None,
    label: "Small lanes",
    kind: OptionKind::Choice(words::<ScaleMode>),
    default: "insets",
    help: "insets: a lane too small for the card's byte scale drawn apart at its own scale, and a lane's long free stretch drawn as a narrow band, both marked; strict: every byte at one scale (the map grows until the smallest lane is 72 px)",
    repeatable: false,
    apply: |c, v| {
        c.view.scale_mode = choice("scale_mode", v)?;
        Ok(())
    },
};
/// Whether each space's packing is drawn beside it.
pub const PACKED: OptionSpec = OptionSpec {
    http: "packed",
    cli: Some("packed"),
    short: None,
    label: "Packed lanes",
    kind: OptionKind::Switch,
    default: "no",
    help: "beside each space's lane, the same tiles over the same lifetimes where the packer placed them, on the same byte scale (a lane named like `Vec packed`)",
    repeatable: false,
    apply: |c, v| {
        c.view.packed = switch("packed", v)?;
        Ok(())
    },
};
/// The PNG's pixel ratio.
pub const SCALE_OPTION: OptionSpec = OptionSpec {
    http: "scale",
    cli: Some("scale"),
    short: None,
    label: "PNG pixel ratio",
    kind: OptionKind::Number(SCALE),
    default: "2",
    help: "PNG device pixel ratio",
    repeatable: false,
    apply: |c, v| {
        c.scale = number("scale", v, SCALE)?;
        Ok(())
    },
};
/// The width at zoom 1.
pub const WIDTH_OPTION: OptionSpec = OptionSpec {
    http: "width",
    cli: Some("width"),
    short: None,
    label: "Width (px)",
    kind: OptionKind::Number(WIDTH),
    default: "1180",
    help: "width in px the lanes fill at zoom 1",
    repeatable: false,
    apply: |c, v| {
        c.view.width = number("width", v, WIDTH)?;
        Ok(())
    },
};
/// Fit questions.
pub const FIT: OptionSpec = OptionSpec {
    http: "fit",
    cli: Some("fit"),
    short: None,
    label: "Would a buffer fit?",
    kind: OptionKind::Text("SPACE=BYTES[@LINE-LINE]"),
    default: "",
    help: "would a buffer this big fit, and where? e.g. Vec=32KB@120-180 (KB, MB: 1024-based)",
    repeatable: true,
    apply: |c, v| {
        if c.view.fits.len() >= MAX_LIST {
            return Err(Error::bad_value("fit", v, format!("at most {MAX_LIST} questions")));
        }
        c.view.fits.push(v.trim().parse()?);
        Ok(())
    },
};
/// The dump's file name (HTTP only: the CLI knows its file).
pub const NAME: OptionSpec = OptionSpec {
    http: "name",
    cli: None,
    short: None,
    label: "Dump name",
    kind: OptionKind::Text("FILE"),
    default: "the upload's file name, else dump.py",
    help: "the dump's file name, shown in the map and used for its pass name",
    repeatable: false,
    apply: |c, v| {
        c.name = Some(check_name(v)?);
        Ok(())
    },
};

/// Every option, in the order tables list them.
pub const OPTIONS: &[OptionSpec] = &[
    FORMAT,
    BACKEND,
    X_AXIS,
    ZOOM_OPTION,
    HIDE,
    FUNCTION,
    THEME,
    SCALE_MODE,
    PACKED,
    SCALE_OPTION,
    WIDTH_OPTION,
    FIT,
    NAME,
];

/// The README's option table, made from [`OPTIONS`] (a test checks the README holds exactly this).
pub fn options_markdown() -> String {
    let mut out = String::from("| HTTP | CLI | values | default | what |\n| --- | --- | --- | --- | --- |\n");
    for o in OPTIONS {
        let cli = o.cli.map_or("—".to_string(), |c| format!("`--{c}`"));
        let more = if o.repeatable { " (repeatable)" } else { "" };
        out.push_str(&format!(
            "| `{}` | {cli} | `{}` | {} | {}{more} |\n",
            o.http,
            o.values().replace('|', "\\|"),
            if o.default.is_empty() { "—" } else { o.default },
            o.help
        ));
    }
    out
}

/// The option table as JSON, for programs that drive the CLI (the Python package reads it through
/// `--list-options`): per option its names, label, help, values and kind (`choices` for a choice,
/// `min`/`max` for a number), default and whether it repeats; then the formats.
pub fn options_json() -> serde_json::Value {
    use serde_json::json;
    let options: Vec<serde_json::Value> = OPTIONS
        .iter()
        .map(|o| {
            let kind = match o.kind {
                OptionKind::Choice(words) => json!({ "type": "choice", "choices": words() }),
                OptionKind::Number(r) => json!({ "type": "number", "min": r.min, "max": r.max }),
                OptionKind::List(what) => json!({ "type": "list", "placeholder": what }),
                OptionKind::Text(what) => json!({ "type": "text", "placeholder": what }),
                OptionKind::Switch => json!({ "type": "switch" }),
            };
            json!({
                "name": o.http,
                "cli": o.cli.map(|c| format!("--{c}")),
                "label": o.label,
                "help": o.help,
                "values": o.values(),
                "kind": kind,
                "default": o.default,
                "repeatable": o.repeatable,
            })
        })
        .collect();
    let formats: Vec<&str> = crate::render::FORMATS.iter().map(|f| f.extension).collect();
    json!({ "version": env!("CARGO_PKG_VERSION"), "options": options, "formats": formats })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_hide_or_reorder_their_text_are_refused() {
        let at = |o: &OptionSpec, v: &str| o.apply(&mut Chosen::default(), v);
        for o in [&NAME, &FUNCTION, &HIDE, &BACKEND] {
            for bad in
                ["abc\u{202E}fdp.py", "a\u{200B}b", "\u{FEFF}x", "x\u{2066}y", "a\u{061C}b", "a\u{2028}b", "a\u{E0041}"]
            {
                assert!(at(o, bad).is_err(), "{}: {bad:?}", o.http);
            }
            assert!(at(o, "résumé_é.py").is_ok(), "{}", o.http);
        }
    }

    #[test]
    fn names_are_bounded_in_bytes_wherever_they_enter() {
        let at = |o: &OptionSpec, v: &str| o.apply(&mut Chosen::default(), v);
        for o in [&NAME, &FUNCTION, &HIDE, &BACKEND] {
            assert!(at(o, &"a".repeat(MAX_NAME)).is_ok(), "{}", o.http);
            let err = at(o, &"a".repeat(100 * MAX_NAME)).unwrap_err();
            // The message says the bound and quotes the start of the value, not all of it.
            let words = err.to_string();
            assert!(words.contains("256 bytes") && words.len() < 300, "{}: {err}", o.http);
            // Bytes, not characters: 128 two-byte letters are 256 bytes, 129 are past the bound.
            assert!(at(o, &"é".repeat(128)).is_ok() && at(o, &"é".repeat(129)).is_err(), "{}", o.http);
        }
        assert_eq!(
            (crate::units::truncated("aé", 2), crate::units::truncated("aé", 3), crate::units::truncated("a", 9)),
            ("a", "aé", "a")
        );
    }

    #[test]
    fn every_option_reads_its_default_and_refuses_nonsense() {
        for o in OPTIONS {
            let mut c = Chosen::default();
            match o.kind {
                OptionKind::Choice(words) => {
                    if o.http != "format" {
                        assert_eq!(words().first().map(String::as_str), Some(o.default));
                    }
                    for w in words() {
                        o.apply(&mut c, &w.to_uppercase()).unwrap_or_else(|e| panic!("{}: {w}: {e}", o.http));
                    }
                    assert!(o.apply(&mut c, "nonsense").is_err(), "{}", o.http);
                }
                OptionKind::Number(r) => {
                    o.apply(&mut c, o.default).unwrap();
                    for bad in [r.min / 2.0, r.max * 2.0, f64::NAN] {
                        assert!(o.apply(&mut c, &bad.to_string()).is_err(), "{} {bad}", o.http);
                    }
                    assert!(o.apply(&mut c, "ten").is_err());
                }
                OptionKind::List(_) | OptionKind::Text(_) => {}
                OptionKind::Switch => {
                    o.apply(&mut c, o.default).unwrap();
                    for on in ["yes", "TRUE", "1", "on"] {
                        o.apply(&mut c, on).unwrap_or_else(|e| panic!("{}: {on}: {e}", o.http));
                    }
                    assert!(o.apply(&mut c, "maybe").is_err(), "{}", o.http);
                }
            }
        }
        assert_eq!(words::<XAxis>(), ["limit", "used"]);
        assert_eq!(words::<Theme>(), ["light", "dark"]);
        assert_eq!(words::<ScaleMode>(), ["insets", "strict"]);
    }

    #[test]
    fn the_json_lists_every_option() {
        let json = options_json();
        let rows = &json["options"];
        assert_eq!(rows.as_array().map(Vec::len), Some(OPTIONS.len()));
        assert_eq!(rows[2]["kind"]["choices"], serde_json::json!(["limit", "used"]));
        assert_eq!(rows[3]["kind"]["min"], 0.2);
    }
}
