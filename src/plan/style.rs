//! Colours: the space colours of PyPTO's own page (so a space looks the same in both) and the
//! neutrals of each theme. Fills are mixed here, not with opacity, so every back end shows the same
//! pixel values.

use super::Theme;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Color(pub u8, pub u8, pub u8);

impl Color {
    const fn hex(v: u32) -> Color {
        Color((v >> 16) as u8, (v >> 8) as u8, v as u8)
    }

    /// `self` blended over `under`, `amount` of `self`.
    pub fn over(self, under: Color, amount: f64) -> Color {
        let mix = |a: u8, b: u8| (a as f64 * amount + b as f64 * (1.0 - amount)).round() as u8;
        Color(mix(self.0, under.0), mix(self.1, under.1), mix(self.2, under.2))
    }

    /// `#rrggbb`.
    pub fn css(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Occupancy levels of a pill.
pub const GOOD: Color = Color::hex(0x0ca30c);
/// A pill between the warning and critical occupancies.
pub const WARNING: Color = Color::hex(0xfab219);
/// A pill past the critical occupancy, and conflict outlines.
pub const CRITICAL: Color = Color::hex(0xd03b3b);

/// The colours of one theme.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    /// The theme these colours are for.
    pub theme: Theme,
    /// Behind the cards.
    pub page: Color,
    /// A card's background.
    pub card: Color,
    /// Frames and dividers.
    pub border: Color,
    /// Text.
    pub text: Color,
    /// Secondary text.
    pub muted: Color,
    /// Gridlines every five lines.
    pub grid: Color,
}

/// The colours of `theme`.
pub fn palette(theme: Theme) -> Palette {
    match theme {
        Theme::Light => Palette {
            theme,
            page: Color::hex(0xf6f6f4),
            card: Color::hex(0xfdfdfc),
            border: Color::hex(0xd9d9d4),
            text: Color::hex(0x1d1f21),
            muted: Color::hex(0x6b6f73),
            grid: Color::hex(0xe4e4df),
        },
        Theme::Dark => Palette {
            theme,
            page: Color::hex(0x16171a),
            card: Color::hex(0x1e2024),
            border: Color::hex(0x3a3d42),
            text: Color::hex(0xe6e6e3),
            muted: Color::hex(0x9a9da1),
            grid: Color::hex(0x2c2f34),
        },
    }
}

/// The colour of a memory space; an unknown space gets the fallback colour.
pub fn space_color(space: &str, theme: Theme) -> Color {
    let light = match super::packed::packed_of(space) {
        "Vec" => (0x2a78d6, 0x3987e5),
        "Mat" => (0xeb6834, 0xd95926),
        "Left" => (0x1baf7a, 0x199e70),
        "LeftScale" => (0x5ecfa3, 0x4fc496),
        "Right" => (0xeda100, 0xc98500),
        "RightScale" => (0xf0c45a, 0xdbb34a),
        "Acc" => (0xe87ba4, 0xd55181),
        "Bias" => (0x8a5cd0, 0x9b71dd),
        _ => (0x7b858c, 0x82837d),
    };
    Color::hex(if theme == Theme::Light { light.0 } else { light.1 })
}

/// How much of a space's colour the map's fills take: the wash behind a lane (and an idle stretch),
/// a box's fill, a profile bar. The page's stylesheet mixes with these same shares.
#[derive(Debug, Clone, Copy)]
pub struct Mix {
    /// Behind a lane, a profile column, an idle stretch.
    pub wash: f64,
    /// A box.
    pub fill: f64,
    /// A live-bytes bar.
    pub bar: f64,
}

/// The shares of `theme`.
pub fn mix(theme: Theme) -> Mix {
    Mix { wash: 0.05, fill: if theme == Theme::Light { 0.16 } else { 0.28 }, bar: 0.55 }
}

impl Palette {
    /// The wash behind a lane.
    pub fn wash(&self, space: Color) -> Color {
        space.over(self.card, mix(self.theme).wash)
    }

    /// The fill of a box.
    pub fn fill(&self, space: Color) -> Color {
        space.over(self.card, mix(self.theme).fill)
    }

    /// A live-bytes bar.
    pub fn bar(&self, space: Color) -> Color {
        space.over(self.card, mix(self.theme).bar)
    }
}

/// The neutrals of `theme` by the names the page's stylesheet gives them.
fn neutrals(theme: Theme) -> serde_json::Value {
    let p = palette(theme);
    serde_json::json!({
        "bg": p.page.css(), "panel": p.card.css(), "fg": p.text.css(),
        "muted": p.muted.css(), "border": p.border.css(), "grid": p.grid.css(),
    })
}

/// The colours as the HTML page reads them: space colours and neutrals per theme, and the occupancy
/// levels.
pub fn colors_json() -> serde_json::Value {
    let spaces = ["Vec", "Mat", "Left", "LeftScale", "Right", "RightScale", "Acc", "Bias", "unknown"];
    let theme = |t: Theme| -> serde_json::Map<String, serde_json::Value> {
        spaces.iter().map(|s| (s.to_string(), space_color(s, t).css().into())).collect()
    };
    let shares = |t: Theme| {
        let m = mix(t);
        serde_json::json!({ "wash": m.wash, "fill": m.fill, "bar": m.bar })
    };
    serde_json::json!({
        "light": theme(Theme::Light),
        "dark": theme(Theme::Dark),
        "neutral": { "light": neutrals(Theme::Light), "dark": neutrals(Theme::Dark) },
        "mix": { "light": shares(Theme::Light), "dark": shares(Theme::Dark) },
        "good": GOOD.css(),
        "warning": WARNING.css(),
        "critical": CRITICAL.css(),
    })
}
