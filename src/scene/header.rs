//! The picture's header in pixels: the title, the facts as chips, the notes, the legend (only what
//! the picture has), and the findings under it. Apart from the cards because it reads the picture
//! as a whole ([`Picture`]) and no card.

use super::*;

pub(super) fn header(picture: &Picture, pal: &Palette, width: f64) -> (Vec<Shape>, f64) {
    let x = PAGE_PAD;
    let head = &picture.header;
    let mut out = vec![
        text_at(x, PAGE_PAD + 10.0, SMALL, pal.muted, "PTO · MEMORY MAP"),
        text_at(x, PAGE_PAD + 36.0, 22.0, pal.text, &head.heading),
    ];
    let chips = [
        ("dump", head.dump.clone()),
        ("compute functions", head.functions.clone()),
        ("tiles", head.tiles.clone()),
        ("capacities", head.capacities.clone()),
    ];
    let mut items: Vec<Vec<Shape>> = Vec::new();
    for (label, value) in chips {
        let w = text::width(label, LABEL) + 6.0 + text::width(&value, LABEL) + 16.0;
        let warn = label == "capacities" && !head.detected;
        let vx = 8.0 + text::width(label, LABEL) + 6.0;
        items.push(vec![
            Shape::Rect(Rect {
                x: 0.0,
                y: 0.0,
                w,
                h: 22.0,
                radius: 3.0,
                fill: Some(pal.card),
                stroke: Some(Stroke { color: pal.border, width: 1.0, dash: None }),
            }),
            text_at(8.0, 15.0, LABEL, pal.muted, label),
            text_at(vx, 15.0, LABEL, if warn { WARNING } else { pal.text }, &value),
        ]);
    }
    for (note, warn) in &head.notes {
        items.push(vec![text_at(8.0, 15.0, LABEL, if *warn { WARNING } else { pal.muted }, note)]);
    }
    let (chips, bottom) = flow(items, x, PAGE_PAD + 48.0, width, 28.0, 6.0);
    out.extend(chips);
    let mut items = legend(pal);
    if picture.cut {
        items.push(cut_swatch(pal));
    }
    if picture.wide {
        items.push(wide_swatch(pal));
    }
    if picture.held {
        items.push(held_swatch(pal));
    }
    items.extend(placed::legend(picture.placed, pal));
    let (legend, bottom) = flow(items, x, bottom + 6.0, width, 18.0, 18.0);
    out.extend(legend);
    let y = bottom + 16.0;
    let (rows, h) = findings_rows(&picture.findings, pal, x, y, width);
    out.extend(rows);
    (out, y + h - 4.0)
}

/// The legend's held tail: a box's wash under its outline, and what it means.
fn held_swatch(pal: &Palette) -> Vec<Shape> {
    wash_swatch(pal, "held: after the last read, the compiler keeps the bytes (a loop reads them again)")
}

/// A legend item of a box's pale wash (an idle stretch, a held tail) and its words.
fn wash_swatch(pal: &Palette, words: &str) -> Vec<Shape> {
    let neutral = space_color("", pal.theme);
    vec![
        Shape::Rect(Rect {
            x: 0.5,
            y: 0.5,
            w: 16.0,
            h: 10.0,
            radius: 2.0,
            fill: Some(pal.wash(neutral)),
            stroke: Some(Stroke { color: neutral, width: 1.0, dash: None }),
        }),
        text_at(22.0, 9.5, LABEL, pal.muted, words),
    ]
}

/// The legend's cut band: its swatch (the page's colour between thin edges) and its words.
fn cut_swatch(pal: &Palette) -> Vec<Shape> {
    let edge = |x: f64| {
        Shape::Line(Line {
            x1: x,
            y1: -1.0,
            x2: x,
            y2: 12.0,
            stroke: Stroke { color: pal.muted, width: 1.0, dash: None },
        })
    };
    vec![
        Shape::Rect(Rect { x: 0.5, y: 0.5, w: 16.0, h: 10.0, radius: 0.0, fill: Some(pal.page), stroke: None }),
        edge(0.5),
        edge(16.5),
        text_at(22.0, 9.5, LABEL, pal.muted, plan::CUT_WORDS),
    ]
}

/// The legend's widened stretch: the bracket drawn under one at the foot of a lane's head, and its
/// words.
fn wide_swatch(pal: &Palette) -> Vec<Shape> {
    let stroke = Stroke { color: pal.muted, width: 1.0, dash: None };
    let line = |x1: f64, y1: f64, x2: f64, y2: f64| Shape::Line(Line { x1, y1, x2, y2, stroke });
    vec![
        line(4.5, 3.0, 4.5, 8.5),
        line(4.5, 8.5, 12.5, 8.5),
        line(12.5, 8.5, 12.5, 3.0),
        text_at(22.0, 9.5, LABEL, pal.muted, plan::WIDE_WORDS),
    ]
}

/// `38`, or `1 of 38` where only some are drawn.
/// `text` broken at spaces into lines at most `max` px wide at `size`; a word longer than a line is
/// broken too, so nothing is ever cut.
pub fn wrap(text: &str, size: f64, max: f64) -> Vec<String> {
    let per_line = ((max / (text::advance_em() * size)).floor() as usize).max(8);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used > 0 && used + 1 + word.len() > per_line {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > per_line {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..per_line).collect());
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.extend(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Lays `items` (each drawn from its own origin) left to right from `(x, y)`, starting a new row
/// `row` px lower when the next would pass `x + width`; returns the shapes and the bottom of the
/// last row. A header that wraps keeps the picture as wide as its cards (`--width`).
fn flow(items: Vec<Vec<Shape>>, x: f64, y: f64, width: f64, row: f64, gap: f64) -> (Vec<Shape>, f64) {
    let mut out = Vec::new();
    let (mut lx, mut ly) = (x, y);
    for item in items {
        let w = item.iter().map(right_edge).fold(0.0, f64::max);
        if lx > x && lx + w > x + width {
            lx = x;
            ly += row;
        }
        out.extend(item.into_iter().map(|s| shift(s, lx, ly)));
        lx += w + gap;
    }
    (out, ly + row)
}

/// `shape` moved by `(dx, dy)`.
fn shift(shape: Shape, dx: f64, dy: f64) -> Shape {
    match shape {
        Shape::Rect(r) => Shape::Rect(Rect { x: r.x + dx, y: r.y + dy, ..r }),
        Shape::Line(l) => Shape::Line(Line { x1: l.x1 + dx, x2: l.x2 + dx, y1: l.y1 + dy, y2: l.y2 + dy, ..l }),
        Shape::Text(t) => Shape::Text(Text { x: t.x + dx, y: t.y + dy, ..t }),
    }
}

/// Height of one findings row in the header.
const FINDINGS_ROW: f64 = 17.0;

/// The header's findings: their count by severity, then every error and warning, errors first,
/// each with its code, function, space, line and message, wrapped to the page's width (the first
/// screen says what is wrong before any card does). Returns the shapes and their height.
fn findings_rows(findings: &plan::Findings, pal: &Palette, x: f64, y: f64, width: f64) -> (Vec<Shape>, f64) {
    let color = match findings.level {
        "crit" => CRITICAL,
        "warn" => WARNING,
        _ => pal.muted,
    };
    let counts = &findings.counts;
    let mut out = vec![text_at(x, y, LABEL, color, counts)];
    if findings.overflow {
        // What the overflow marks are, beside the count that says there is one.
        let lx = x + text::width(counts, LABEL) + 24.0;
        let red = Stroke { color: CRITICAL, width: 2.0, dash: None };
        out.push(Shape::Line(Line { x1: lx, y1: y - 10.0, x2: lx, y2: y + 2.0, stroke: red }));
        out.push(text_at(lx + 8.0, y, LABEL, pal.muted, "capacity"));
        let hx = lx + 8.0 + text::width("capacity", LABEL) + 18.0;
        let frame = Rect { x: hx, y: y - 9.0, w: 16.0, h: 10.0, radius: 0.0, fill: None, stroke: None };
        out.extend(insight::hatch_swatch(frame, CRITICAL));
        out.push(text_at(hx + 22.0, y, LABEL, pal.muted, "bytes past the capacity"));
    }
    let mut row = 1usize;
    for (text, error) in &findings.listed {
        let ink = if *error { pal.text } else { pal.muted };
        for (i, line) in wrap(text, LABEL, width - 12.0 - 24.0).into_iter().enumerate() {
            // A message's further lines are indented under its first.
            let indent = if i == 0 { 12.0 } else { 36.0 };
            out.push(text_at(x + indent, y + row as f64 * FINDINGS_ROW, LABEL, ink, &line));
            row += 1;
        }
    }
    (out, row as f64 * FINDINGS_ROW + 10.0)
}

/// The marks and what they mean, one item each, drawn from their own origin.
fn legend(pal: &Palette) -> Vec<Vec<Shape>> {
    let neutral = space_color("", pal.theme);
    let fill = Some(pal.fill(neutral));
    let boxes: [(Stroke, &str); 3] = [
        (Stroke { color: neutral, width: 1.0, dash: None }, "tile live range"),
        (Stroke { color: neutral, width: 1.0, dash: Some((3.0, 2.0)) }, "view into the same base"),
        (Stroke { color: CRITICAL, width: 2.0, dash: None }, "cross-base address + lifetime overlap"),
    ];
    let mut items: Vec<Vec<Shape>> = boxes
        .into_iter()
        .map(|(stroke, label)| {
            vec![
                Shape::Rect(Rect { x: 0.5, y: 0.5, w: 16.0, h: 10.0, radius: 2.0, fill, stroke: Some(stroke) }),
                text_at(22.0, 9.5, LABEL, pal.muted, label),
            ]
        })
        .collect();
    items.push(vec![
        Shape::Line(Line {
            x1: 4.5,
            y1: -1.0,
            x2: 4.5,
            y2: 12.0,
            stroke: Stroke { color: neutral, width: 1.0, dash: Some((4.0, 3.0)) },
        }),
        text_at(12.0, 9.5, LABEL, pal.muted, "high-water mark"),
    ]);
    items.push(vec![text_at(0.0, 9.5, LABEL, pal.muted, "+N: aliases merged into one box")]);
    items.push(vec![
        Shape::Line(Line {
            x1: 0.0,
            y1: 5.0,
            x2: 6.0,
            y2: 5.0,
            stroke: Stroke { color: neutral, width: 2.0, dash: None },
        }),
        text_at(10.0, 9.5, LABEL, pal.muted, "use"),
    ]);
    items.push(wash_swatch(pal, "idle: no mention for 8+ lines, half the range"));
    items.push(vec![
        Shape::Rect(Rect {
            x: 0.5,
            y: 0.5,
            w: 16.0,
            h: 10.0,
            radius: 0.0,
            fill: None,
            stroke: Some(Stroke { color: neutral, width: 1.5, dash: Some((5.0, 3.0)) }),
        }),
        text_at(22.0, 9.5, LABEL, pal.muted, "inset: a space too small for the card's scale, at its own"),
    ]);
    items
}
