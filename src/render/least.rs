//! The least bytes an output of a map can take, known before anything is planned or drawn.
//!
//! Why: a small dump can ask for a picture hundreds of times its size (many boxes, long names), and
//! a writer that stops at the output limit has still laid out and drawn everything up to it. The
//! number of boxes and lines and the bytes of the names each box carries are known from the map, and
//! each writer puts a fixed markup around each of them; so the output's least size is known up front,
//! and a render past the limit is refused then, with that figure (`pipeline.rs`).
//!
//! Each figure is a lower bound, never an estimate: only what a writer always writes is counted (a
//! box's element with its name, base and aliases; a line's number in the gutter), with every number
//! one digit and every escape left out. The tests hold every box and line of the fixtures to it, so
//! a writer that drops something from a box breaks them rather than the bound.

use super::Format;

/// What the functions an output draws hold, counted from the map by the caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Dump lines of the cards no fold skips (each has its number in the card's gutter).
    pub lines: usize,
    /// Bytes of those lines' text (the JSON carries each function's source).
    pub line_bytes: usize,
    /// Boxes drawn.
    pub boxes: usize,
    /// Bytes of the boxes' names.
    pub names: usize,
    /// Bytes of their bases and of the names merged into them (aliases).
    pub others: usize,
}

/// A box of the standalone SVG: its group with every data attribute, its tooltip (whose first line
/// is the name), its fill and its outline.
const SVG_BOX: &str = concat!(
    r#"<g class="box" data-name="" data-space="" data-base="" data-offset="" data-size="" data-start="" data-end="""#,
    r#" data-aliases=""><title></title><rect x="" y="" width="" height="" fill=""/>"#,
    r#"<rect x="" y="" width="" height="" fill=""/></g>"#,
);
/// Its values that are not names, one character each: the space, four figures, two rectangles.
const SVG_BOX_VALUES: usize = 1 + 4 + 2 * 5;

/// A box of the page's static pictures: the group and its two rectangles, no attribute but the
/// class. Its name is in its label or, where it does not fit, in the card's key list.
const PAGE_BOX: &str =
    r#"<g class="box"><rect x="" y="" width="" height="" fill=""/><rect x="" y="" width="" height="" fill=""/></g>"#;
const PAGE_BOX_VALUES: usize = 2 * 5;

/// A line's number in a card's gutter (both pictures).
const GUTTER_LINE: &str = r#"<text x="" y=""></text>"#;
const GUTTER_LINE_VALUES: usize = 3;

/// A box in the JSON, without a space: its fields as `render::json` writes them for every box.
const JSON_BOX: &str = concat!(
    r#"{"name":"","space":"","base":"","offset":,"size":,"shape":[],"dtype":"","op":"","start":,"end":,"#,
    r#""live_end":,"uses":[],"layout":"","aliases":[],"view":true,"conflict":true,"idle":null}"#,
);
/// Its figures: the space's name, offset, size, start, end, live_end.
const JSON_BOX_VALUES: usize = 6;
/// A source line in the JSON: its quotes and the comma after it.
const JSON_LINE: usize = 3;

/// The least bytes `format` takes for what `counts` counts; `None` for a format with no such bound
/// (the PNG, bounded by its pixels instead, and the text report).
pub fn bytes(format: Format, counts: &Counts) -> Option<usize> {
    let c = counts;
    let lines = |line: usize| c.lines.saturating_mul(line);
    let boxes = |markup: usize| c.boxes.saturating_mul(markup);
    let gutter = lines(GUTTER_LINE.len() + GUTTER_LINE_VALUES);
    let total: [usize; 3] = match format {
        // The name twice (`data-name` and the tooltip), the base and aliases once.
        Format::Svg => {
            [boxes(SVG_BOX.len() + SVG_BOX_VALUES), c.names.saturating_mul(2).saturating_add(c.others), gutter]
        }
        Format::Html => [boxes(PAGE_BOX.len() + PAGE_BOX_VALUES), c.names, gutter],
        Format::Json => {
            let source = lines(JSON_LINE).saturating_add(c.line_bytes);
            [boxes(JSON_BOX.len() + JSON_BOX_VALUES), c.names.saturating_add(c.others), source]
        }
        Format::Png | Format::Txt => return None,
    };
    Some(total.iter().fold(0usize, |a, &b| a.saturating_add(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_box_and_line_adds_its_markup_and_its_names() {
        let none = Counts::default();
        for f in [Format::Svg, Format::Html, Format::Json] {
            assert_eq!(bytes(f, &none), Some(0), "{f:?}");
        }
        let one = Counts { boxes: 1, names: 10, others: 7, lines: 1, line_bytes: 40 };
        let svg = bytes(Format::Svg, &one).unwrap();
        assert_eq!(svg, SVG_BOX.len() + SVG_BOX_VALUES + 2 * 10 + 7 + GUTTER_LINE.len() + GUTTER_LINE_VALUES);
        // A longer name counts twice in the SVG, once in the page and the JSON.
        let longer = Counts { names: 1010, ..one };
        assert_eq!(bytes(Format::Svg, &longer).unwrap() - svg, 2000);
        assert_eq!(bytes(Format::Html, &longer).unwrap() - bytes(Format::Html, &one).unwrap(), 1000);
        assert_eq!(bytes(Format::Json, &longer).unwrap() - bytes(Format::Json, &one).unwrap(), 1000);
        assert_eq!(bytes(Format::Png, &one), None);
        let huge = Counts { boxes: usize::MAX, names: usize::MAX, ..one };
        assert_eq!(bytes(Format::Svg, &huge), Some(usize::MAX), "saturates, never wraps");
    }
}
