//! Text measurement with the bundled font, so labels are fitted to their boxes before any back end
//! draws them, and the PNG (rasterized with the same font) shows exactly what was measured.

use std::sync::OnceLock;

/// The bundled font: JetBrains Mono Regular (see `fonts/`).
pub static FONT: &[u8] = include_bytes!("../../fonts/JetBrainsMono-Regular.ttf");

/// The family the SVG names, the bundled font first.
pub const FONT_FAMILY: &str = "JetBrains Mono, ui-monospace, monospace";

/// Horizontal advance of one character, as a fraction of the font size.
///
/// The font is monospaced, so one number serves every glyph: `hhea.advanceWidthMax / head.unitsPerEm`,
/// read from the font file itself rather than assumed.
pub fn advance_em() -> f64 {
    static ADVANCE: OnceLock<f64> = OnceLock::new();
    *ADVANCE.get_or_init(|| read_advance(FONT).unwrap_or(0.6))
}

/// Width in px of `text` at `size` px.
pub fn width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * advance_em() * size
}

/// `text` shortened with an ellipsis to fit `max` px, or `None` if not even one character fits.
pub fn fit(text: &str, size: f64, max: f64) -> Option<String> {
    let per_char = advance_em() * size;
    let room = (max / per_char).floor() as usize;
    let count = text.chars().count();
    if count <= room {
        return Some(text.to_string());
    }
    if room < 2 {
        return None;
    }
    let mut short: String = text.chars().take(room - 1).collect();
    short.push('…');
    Some(short)
}

fn read_advance(font: &[u8]) -> Option<f64> {
    let table = |tag: &[u8; 4]| -> Option<usize> {
        let count = u16::from_be_bytes(font.get(4..6)?.try_into().ok()?) as usize;
        (0..count).find_map(|i| {
            let rec = font.get(12 + i * 16..12 + i * 16 + 16)?;
            (&rec[0..4] == tag).then(|| u32::from_be_bytes(rec[8..12].try_into().unwrap_or_default()) as usize)
        })
    };
    let head = table(b"head")?;
    let hhea = table(b"hhea")?;
    let units = u16::from_be_bytes(font.get(head + 18..head + 20)?.try_into().ok()?) as f64;
    let advance = u16::from_be_bytes(font.get(hhea + 10..hhea + 12)?.try_into().ok()?) as f64;
    (units > 0.0).then(|| advance / units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_font_is_read() {
        assert_eq!(read_advance(FONT), Some(0.6));
    }

    #[test]
    fn labels_are_shortened_with_an_ellipsis() {
        let size = 10.0; // 6 px a character
        assert_eq!(fit("t__tile", size, 60.0).as_deref(), Some("t__tile"));
        assert_eq!(fit("t__tile_long", size, 30.0).as_deref(), Some("t__t…"));
        assert_eq!(fit("t__tile", size, 8.0), None);
    }
}
