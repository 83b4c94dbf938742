//! What a viewer can change about a map, and the fixed rules every view obeys.

use serde::Serialize;

use crate::error::{Error, Named, Result};

/// The span of each lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum XAxis {
    /// 0 to the capacity: the fill is the occupancy.
    #[default]
    Limit,
    /// 0 to the high-water mark: small tiles are easier to tell apart.
    Used,
}

/// Light or dark colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Theme {
    #[default]
    /// Light background.
    Light,
    /// Dark background.
    Dark,
}

/// How lanes too small for the card's byte scale are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ScaleMode {
    /// One byte scale for every lane that can hold it; a lane that would be narrower than
    /// `RULES.min_lane_px` at that scale is an inset at its own factor, marked as such.
    #[default]
    Insets,
    /// One byte scale for every lane: the whole factor grows until the narrowest lane is
    /// `RULES.min_lane_px` wide (the reference tool's rule; a 1 KiB lane can make the map very wide).
    Strict,
}

/// How to draw a map; the defaults give the picture a user expects.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewOptions {
    /// What a lane spans.
    pub x_axis: XAxis,
    /// Multiplies the byte scale, within [`ZOOM`].
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
    /// Each space's packing drawn beside it, as a lane of its own (see `plan::packed`).
    pub packed: bool,
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
            packed: false,
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
    /// The page's smallest zoom: two steps out (0.39x). The lanes fill the view at zoom 1, so a
    /// reader never needs the map smaller than this; the page plans every label for each step it
    /// offers (`plan::steps`), and the two steps below this were 38 % of that work on the decode
    /// case. A picture takes any zoom of [`ZOOM`].
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

    /// `v` if accepted, else the error for option `option` (the option table's key).
    pub fn check(&self, option: &'static str, v: f64) -> Result<f64> {
        if !self.contains(v) {
            return Err(Error::bad_value(option, &v.to_string(), format!("a number in {}", self.text())));
        }
        Ok(v)
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

/// The rules of this build.
pub const RULES: Rules = Rules {
    line_px: 17.0,
    min_lane_px: 72.0,
    min_box_px: 2.0,
    zoom_step: 1.6,
    zoom_min: 0.390625, // 1 / 1.6², exactly: two steps out of 1
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
    /// Whether this view draws the function `name` (see [`crate::model::is_chosen`]).
    pub fn draws(&self, name: &str) -> bool {
        crate::model::is_chosen(&self.functions, name)
    }

    /// Checks the numbers, and that named spaces and functions exist in `map`.
    pub fn validate(&self, map: &crate::model::MemoryMap) -> Result<()> {
        ZOOM.check("zoom", self.zoom)?;
        WIDTH.check("width", self.width)?;
        let mut spaces: Vec<&str> =
            map.functions.iter().flat_map(|f| f.spaces.iter().map(|s| s.space.as_str())).collect();
        spaces.sort_by_key(|s| crate::model::space_rank(s));
        spaces.dedup();
        if let Some(bad) = self.hidden.iter().find(|h| !spaces.contains(&h.as_str())) {
            return Err(Error::unknown(Named::Space, bad, spaces));
        }
        let names: Vec<&str> = map.functions.iter().map(|f| f.name.as_str()).collect();
        if let Some(bad) = self.functions.iter().find(|f| !names.contains(&f.as_str())) {
            if let Some((_, ftype)) = map.without_tiles.iter().find(|(n, _)| n == bad) {
                return Err(Error::unknown(Named::FunctionWithoutMap { ftype: ftype.to_string() }, bad, names));
            }
            return Err(Error::unknown(Named::Function, bad, names));
        }
        Ok(())
    }
}
