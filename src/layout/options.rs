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
    Light,
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
    pub x_axis: XAxis,
    /// Multiplies the byte scale, within `RULES.zoom_min..=RULES.zoom_max`.
    pub zoom: f64,
    /// Spaces not drawn; the others keep the same byte scale.
    pub hidden: Vec<String>,
    /// Functions to draw; empty draws all.
    pub functions: Vec<String>,
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
    pub zoom_step: f64,
    pub zoom_min: f64,
    pub zoom_max: f64,
    /// Default width the lanes fill at zoom 1.
    pub panel_px: f64,
    pub splitter_min: f64,
    pub splitter_max: f64,
    pub splitter_default: f64,
    /// The interactive plot is at most this share of the viewport high.
    pub plot_max_vh: f64,
    /// Occupancy from which a pill warns, and from which it is critical.
    pub occupancy_warn: f64,
    pub occupancy_crit: f64,
    /// Widths accepted for `width`.
    pub width_min: f64,
    pub width_max: f64,
    /// Width of one live-bytes profile column beside the lanes, and the gap before the first.
    pub profile_px: f64,
    pub profile_gap: f64,
    /// Width of a lane drawn as an inset at its own factor (scale mode `insets`), at zoom 1.
    pub inset_px: f64,
}

pub const RULES: Rules = Rules {
    line_px: 17.0,
    min_lane_px: 72.0,
    min_box_px: 2.0,
    zoom_step: 1.6,
    zoom_min: 0.2,
    zoom_max: 64.0,
    panel_px: 1180.0,
    splitter_min: 140.0,
    splitter_max: 2400.0,
    splitter_default: 520.0,
    plot_max_vh: 0.78,
    occupancy_warn: 0.80,
    occupancy_crit: 0.95,
    width_min: 200.0,
    width_max: 20_000.0,
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
        if !(RULES.zoom_min..=RULES.zoom_max).contains(&self.zoom) {
            return Err(usage(format!("zoom {} is outside {}..{}", self.zoom, RULES.zoom_min, RULES.zoom_max)));
        }
        if !(RULES.width_min..=RULES.width_max).contains(&self.width) {
            return Err(usage(format!("width {} px is outside {}..{}", self.width, RULES.width_min, RULES.width_max)));
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
