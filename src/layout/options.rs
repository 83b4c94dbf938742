//! What a viewer can change about a map, and the fixed rules every view obeys.

use serde::Serialize;

use crate::error::{Error, ErrorKind, Result};

/// The span of each lane (D6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XAxis {
    /// 0 to the capacity: the fill is the occupancy.
    #[default]
    Limit,
    /// 0 to the high-water mark: small tiles are easier to tell apart.
    Used,
}

impl std::str::FromStr for XAxis {
    type Err = Error;
    fn from_str(s: &str) -> Result<XAxis> {
        match s.to_ascii_lowercase().as_str() {
            "limit" => Ok(XAxis::Limit),
            "used" => Ok(XAxis::Used),
            _ => Err(Error::new(ErrorKind::Usage, format!("unknown x axis '{s}'; use limit or used"))),
        }
    }
}

/// Light or dark colours (D7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    /// Light background.
    Light,
    /// Dark background.
    Dark,
}

impl std::str::FromStr for Theme {
    type Err = Error;
    fn from_str(s: &str) -> Result<Theme> {
        match s.to_ascii_lowercase().as_str() {
            "light" => Ok(Theme::Light),
            "dark" => Ok(Theme::Dark),
            _ => Err(Error::new(ErrorKind::Usage, format!("unknown theme '{s}'; use light or dark"))),
        }
    }
}

/// How lanes too small for the card's byte scale are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScaleMode {
    /// One byte scale for every lane that can hold it; a lane that would be narrower than
    /// `RULES.min_lane_px` at that scale is an inset at its own factor, marked as such.
    #[default]
    Insets,
    /// One byte scale for every lane: the whole factor grows until the narrowest lane is
    /// `RULES.min_lane_px` wide (the reference tool's rule; a 1 KiB lane can make the map very wide).
    Strict,
}

impl std::str::FromStr for ScaleMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<ScaleMode> {
        match s.to_ascii_lowercase().as_str() {
            "insets" => Ok(ScaleMode::Insets),
            "strict" => Ok(ScaleMode::Strict),
            _ => Err(Error::new(ErrorKind::Usage, format!("unknown scale mode '{s}'; use insets or strict"))),
        }
    }
}

/// How to draw a map; the defaults give the picture a user expects.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewOptions {
    /// What a lane spans.
    pub x_axis: XAxis,
    /// Multiplies the byte scale, within `RULES.zoom_min..=RULES.zoom_max`.
    pub zoom: f64,
    /// Spaces not drawn; the others keep the same byte scale.
    pub hidden: Vec<String>,
    /// Functions to draw; empty draws all.
    pub functions: Vec<String>,
    /// Light or dark colours.
    pub theme: Theme,
    /// Width in px that the lanes of a card fill at zoom 1.
    pub width: f64,
    /// "Would a buffer this big fit, and where?" questions, answered on the map and in the JSON.
    pub fits: Vec<crate::analyze::FitQuery>,
    /// Small lanes as insets (default) or one strict scale.
    pub scale_mode: ScaleMode,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            x_axis: XAxis::Limit,
            zoom: 1.0,
            hidden: Vec::new(),
            functions: Vec::new(),
            theme: Theme::Light,
            width: RULES.panel_px,
            fits: Vec::new(),
            scale_mode: ScaleMode::Insets,
        }
    }
}

/// The numbers every view shares; the HTML page reads them from here, so the script and the static
/// picture cannot drift apart.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rules {
    /// Height of one dump line.
    pub line_px: f64,
    /// The byte scale grows until the narrowest visible lane is at least this wide.
    pub min_lane_px: f64,
    /// A box is never narrower than this, however few bytes it holds.
    pub min_box_px: f64,
    /// Zoom factor of one step of the page's buttons and wheel.
    pub zoom_step: f64,
    /// Smallest zoom ([`ZOOM`]).
    pub zoom_min: f64,
    /// Largest zoom ([`ZOOM`]).
    pub zoom_max: f64,
    /// Default width the lanes fill at zoom 1.
    pub panel_px: f64,
    /// Narrowest IR source column of the page's splitter.
    pub splitter_min: f64,
    /// Widest IR source column.
    pub splitter_max: f64,
    /// The IR source column's width until a reader drags it.
    pub splitter_default: f64,
    /// The interactive plot is at most this share of the viewport high.
    pub plot_max_vh: f64,
    /// Occupancy from which a pill warns, and from which it is critical.
    pub occupancy_warn: f64,
    /// Occupancy from which a pill is critical.
    pub occupancy_crit: f64,
    /// Widths accepted for `width`.
    pub width_min: f64,
    /// Largest accepted `width` ([`WIDTH`]).
    pub width_max: f64,
    /// Width of one live-bytes profile column beside the lanes, and the gap before the first.
    pub profile_px: f64,
    /// Gap before the first profile column.
    pub profile_gap: f64,
    /// Width of a lane drawn as an inset at its own factor (scale mode `insets`), at zoom 1.
    pub inset_px: f64,
}

/// A closed range of accepted numbers, written once for every place that checks or shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
}

impl Range {
    /// Whether `v` is accepted.
    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && (self.min..=self.max).contains(&v)
    }

    /// `0.2..64`, as messages and tables write it.
    pub fn text(&self) -> String {
        format!("{}..{}", self.min, self.max)
    }
}

/// Zoom factors a view accepts.
pub const ZOOM: Range = Range { min: 0.2, max: 64.0 };
/// Widths (px) the lanes may fill at zoom 1.
pub const WIDTH: Range = Range { min: 200.0, max: 20_000.0 };
/// Device pixel ratios of a PNG.
pub const SCALE: Range = Range { min: 1.0, max: 4.0 };
/// The PNG's device pixel ratio when none is asked for: crisp in reviews.
pub const DEFAULT_SCALE: f64 = 2.0;

/// How an option's value is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionKind {
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A number in this range.
    Number(Range),
    /// Names, repeatable or comma-separated, as the value's placeholder says.
    List(&'static str),
    /// Free text, checked by its own parser, as the placeholder says.
    Text(&'static str),
}

/// One option of the command line and the HTTP service: the one description that `main.rs` (clap),
/// `server/params.rs`, the upload page and the README's table follow (a test holds each to it).
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    /// The query parameter and form field.
    pub http: &'static str,
    /// The command line's long flag (without `--`); `None` where the CLI has no such option.
    pub cli: Option<&'static str>,
    /// How the value is read.
    pub kind: OptionKind,
    /// The value used when the option is absent, as text.
    pub default: &'static str,
    /// What it does, in one line.
    pub help: &'static str,
    /// May be given more than once.
    pub repeatable: bool,
}

impl OptionSpec {
    /// The values it takes, as tables write them: `limit\|used`, `0.2..64`, `SPACE`.
    pub fn values(&self) -> String {
        match self.kind {
            OptionKind::Choice(words) => words.join("|"),
            OptionKind::Number(r) => r.text(),
            OptionKind::List(what) | OptionKind::Text(what) => what.into(),
        }
    }
}

/// The output format (`format` over HTTP, `-f` on the command line; see [`crate::render::FORMATS`]).
pub const FORMAT: OptionSpec = OptionSpec {
    http: "format",
    cli: Some("format"),
    kind: OptionKind::Text("FORMAT"),
    default: "html (CLI), svg (POST /render)",
    help: "output format (see the formats below); the CLI also takes it from the extension of -o",
    repeatable: false,
};
/// The chip whose capacities scale the lanes.
pub const BACKEND: OptionSpec = OptionSpec {
    http: "backend",
    cli: Some("backend"),
    kind: OptionKind::Text("NAME"),
    default: "detected, else Ascend910B (assumed)",
    help: "backend whose capacities scale the lanes: Ascend910B, Ascend950, or a --soc file's name",
    repeatable: false,
};
/// What a lane spans.
pub const X_AXIS: OptionSpec = OptionSpec {
    http: "x_axis",
    cli: Some("x-axis"),
    kind: OptionKind::Choice(&["limit", "used"]),
    default: "limit",
    help: "lane span: 0 to the capacity (limit) or to the high-water mark (used)",
    repeatable: false,
};
/// The zoom.
pub const ZOOM_OPTION: OptionSpec = OptionSpec {
    http: "zoom",
    cli: Some("zoom"),
    kind: OptionKind::Number(ZOOM),
    default: "1",
    help: "multiplies the byte scale",
    repeatable: false,
};
/// Spaces left out.
pub const HIDE: OptionSpec = OptionSpec {
    http: "hide",
    cli: Some("hide"),
    kind: OptionKind::List("SPACE"),
    default: "",
    help: "a memory space not to draw (the last one of a card stays)",
    repeatable: true,
};
/// Functions drawn.
pub const FUNCTION: OptionSpec = OptionSpec {
    http: "function",
    cli: Some("function"),
    kind: OptionKind::List("NAME"),
    default: "",
    help: "draw only this function",
    repeatable: true,
};
/// The colours.
pub const THEME: OptionSpec = OptionSpec {
    http: "theme",
    cli: Some("theme"),
    kind: OptionKind::Choice(&["light", "dark"]),
    default: "light",
    help: "colours",
    repeatable: false,
};
/// How lanes too small for the card's byte scale are drawn.
pub const SCALE_MODE: OptionSpec = OptionSpec {
    http: "scale_mode",
    cli: Some("scale-mode"),
    kind: OptionKind::Choice(&["insets", "strict"]),
    default: "insets",
    help: "a lane too small for the card's byte scale: insets (drawn apart at its own scale, marked) or strict (one scale for all; the map grows until the smallest lane is 72 px)",
    repeatable: false,
};
/// The PNG's pixel ratio.
pub const SCALE_OPTION: OptionSpec = OptionSpec {
    http: "scale",
    cli: Some("scale"),
    kind: OptionKind::Number(SCALE),
    default: "2",
    help: "PNG device pixel ratio",
    repeatable: false,
};
/// The width at zoom 1.
pub const WIDTH_OPTION: OptionSpec = OptionSpec {
    http: "width",
    cli: Some("width"),
    kind: OptionKind::Number(WIDTH),
    default: "1180",
    help: "width in px the lanes fill at zoom 1",
    repeatable: false,
};
/// Fit questions.
pub const FIT: OptionSpec = OptionSpec {
    http: "fit",
    cli: Some("fit"),
    kind: OptionKind::Text("SPACE=BYTES[@LINE-LINE]"),
    default: "",
    help: "would a buffer this big fit, and where? e.g. Vec=32KB@120-180 (KB, MB: 1024-based)",
    repeatable: true,
};
/// The dump's file name (HTTP only: the CLI knows its file).
pub const NAME: OptionSpec = OptionSpec {
    http: "name",
    cli: None,
    kind: OptionKind::Text("FILE"),
    default: "the upload's file name, else dump.py",
    help: "the dump's file name, shown in the map and used for its pass name",
    repeatable: false,
};

/// Every option, in the order tables list them.
pub const OPTIONS: &[OptionSpec] =
    &[FORMAT, BACKEND, X_AXIS, ZOOM_OPTION, HIDE, FUNCTION, THEME, SCALE_MODE, SCALE_OPTION, WIDTH_OPTION, FIT, NAME];

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

/// The option table as JSON, for programs that drive the binary (the Python package validates its
/// keyword arguments against it, so it never keeps a copy of the table). `--list-options` prints it.
pub fn options_json() -> serde_json::Value {
    use serde_json::json;
    let options: Vec<serde_json::Value> = OPTIONS
        .iter()
        .map(|o| {
            let mut row = json!({
                "name": o.http,
                "cli": o.cli.map(|c| format!("--{c}")),
                "values": o.values(),
                "default": o.default,
                "help": o.help,
                "repeatable": o.repeatable,
            });
            row["kind"] = match o.kind {
                OptionKind::Choice(words) => json!({ "type": "choice", "choices": words }),
                OptionKind::Number(r) => json!({ "type": "number", "min": r.min, "max": r.max }),
                OptionKind::List(what) => json!({ "type": "list", "placeholder": what }),
                OptionKind::Text(what) => json!({ "type": "text", "placeholder": what }),
            };
            row
        })
        .collect();
    let formats: Vec<&str> = crate::render::FORMATS.iter().map(|f| f.extension).collect();
    json!({ "version": env!("CARGO_PKG_VERSION"), "options": options, "formats": formats })
}

/// The rules of this build.
pub const RULES: Rules = Rules {
    line_px: 17.0,
    min_lane_px: 72.0,
    min_box_px: 2.0,
    zoom_step: 1.6,
    zoom_min: ZOOM.min,
    zoom_max: ZOOM.max,
    panel_px: 1180.0,
    splitter_min: 140.0,
    splitter_max: 2400.0,
    splitter_default: 520.0,
    plot_max_vh: 0.78,
    occupancy_warn: 0.80,
    occupancy_crit: 0.95,
    width_min: WIDTH.min,
    width_max: WIDTH.max,
    profile_px: 56.0,
    profile_gap: 8.0,
    inset_px: 120.0,
};

/// The rules and colours as one JSON object, for the HTML page's script.
pub fn rules_json() -> String {
    let mut rules = serde_json::to_value(RULES).unwrap_or_default();
    if let Some(obj) = rules.as_object_mut() {
        obj.insert("colors".into(), super::style::colors_json());
    }
    rules.to_string()
}

impl ViewOptions {
    /// Checks the numbers, and that named spaces and functions exist in `map`.
    pub fn validate(&self, map: &crate::model::MemoryMap) -> Result<()> {
        if !ZOOM.contains(self.zoom) {
            return Err(usage(format!("zoom {} is outside {}", self.zoom, ZOOM.text())));
        }
        if !WIDTH.contains(self.width) {
            return Err(usage(format!("width {} px is outside {}", self.width, WIDTH.text())));
        }
        let mut spaces: Vec<&str> =
            map.functions.iter().flat_map(|f| f.spaces.iter().map(|s| s.space.as_str())).collect();
        spaces.sort_by_key(|s| crate::model::space_rank(s));
        spaces.dedup();
        if let Some(bad) = self.hidden.iter().find(|h| !spaces.contains(&h.as_str())) {
            return Err(usage(format!("no space '{bad}' in this dump; its spaces are: {}", spaces.join(", "))));
        }
        let names: Vec<&str> = map.functions.iter().map(|f| f.name.as_str()).collect();
        if let Some(bad) = self.functions.iter().find(|f| !names.contains(&f.as_str())) {
            return Err(usage(format!(
                "no compute function '{bad}' in this dump; its functions are: {}",
                names.join(", ")
            )));
        }
        Ok(())
    }
}

fn usage(message: String) -> Error {
    Error::new(ErrorKind::Usage, message)
}
