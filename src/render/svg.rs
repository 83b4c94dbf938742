//! The static SVG: a picture for docs and wikis that is also machine-readable (cards, lanes and boxes
//! carry `data-*` attributes, and each box a `<title>` tooltip). Only features resvg renders are used,
//! so the PNG is this document, drawn.

use crate::plan::style::Color;
use crate::scene::{Anchor, BlockShape, Card, Lane, Line, Rect, Scene, Shape, Stroke, Text};

use super::xml::{Markup, Value, Xml, num, write_num};

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The text style a document gives once, on its root, for the texts that have it to inherit (most
/// have it: a card's picture is then a tenth smaller). Every shape that is filled says its fill.
#[derive(Clone, Copy)]
struct Plain {
    size: f64,
    color: Color,
}

impl Plain {
    fn of(ink: Color) -> Plain {
        Plain { size: crate::plan::width::SMALL, color: ink }
    }
}

/// The whole scene as one standalone document: header, then the cards stacked.
pub fn render(scene: &Scene) -> String {
    render_markup(scene).into_string()
}

/// [`render`], as markup a page can embed (the diff page).
pub fn render_markup(scene: &Scene) -> Markup {
    let mut x = Xml::new();
    let (w, h) = (num(scene.width), num(scene.height));
    let view_box = format!("0 0 {w} {h}");
    let plain = Plain::of(scene.ink);
    root(&mut x, &w, &h, &view_box, scene.font_family, plain);
    x.element("title", &[], &scene.title);
    rect_leaf(
        &mut x,
        &Rect {
            x: 0.0,
            y: 0.0,
            w: scene.width,
            h: scene.height,
            radius: 0.0,
            fill: Some(scene.background),
            stroke: None,
        },
    );
    x.open("g", &[("class", "header".into())]);
    shapes(&mut x, &scene.header, plain);
    x.close();
    for card in &scene.cards {
        if crate::budget::output_done(x.len()) {
            break; // refused by the output's writer, or by the run's next checkpoint
        }
        draw_card(&mut x, card, Detail::Full, plain);
    }
    x.finish()
}

/// One card's plot alone (column headers, lanes, profiles, footer), cropped below its title row:
/// what the HTML page shows before its script runs, under the page's own title and pills. The
/// writer gives no element an id, so many cards can share one page. Boxes carry no `<title>` and
/// no element its `data-*` attributes: the page's plan has the tooltip lines and every figure those
/// attributes give (the script draws from it), and the page is not sent them twice. The picture is
/// the standalone document's, drawn by the same code.
pub fn render_card(font_family: &str, card: &Card) -> Markup {
    let mut x = Xml::new();
    let f = &card.frame;
    let top = card.lanes.first().map_or(f.y, |l| l.y) - 8.0;
    let (w, h) = (num(f.w + 2.0), num(f.y + f.h - top + 1.0));
    let view_box = format!("{} {} {w} {h}", num(f.x - 1.0), num(top));
    let plain = Plain::of(card.ink);
    root(&mut x, &w, &h, &view_box, font_family, plain);
    x.element("title", &[], &format!("Memory map of {}", card.function));
    draw_card(&mut x, card, Detail::Picture, plain);
    x.finish()
}

fn root(x: &mut Xml, w: &str, h: &str, view_box: &str, font_family: &str, plain: Plain) {
    x.open(
        "svg",
        &[
            ("xmlns", SVG_NS.into()),
            ("width", w.into()),
            ("height", h.into()),
            ("viewBox", view_box.into()),
            ("font-family", font_family.into()),
            ("font-size", plain.size.into()),
            ("fill", plain.color.into()),
            ("role", "img".into()),
        ],
    );
}

/// What goes with the picture: everything (`<title>` tooltips on boxes, `data-*` attributes for
/// scripts), or the picture alone (a card in the page, whose plan carries the rest).
#[derive(Clone, Copy, PartialEq)]
enum Detail {
    Full,
    Picture,
}

/// `attrs` as given for [`Detail::Full`]; for [`Detail::Picture`], only the class.
fn described<'a>(detail: Detail, mut attrs: Vec<(&'static str, Value<'a>)>) -> Vec<(&'static str, Value<'a>)> {
    if detail == Detail::Picture {
        attrs.retain(|(name, _)| !name.starts_with("data-"));
    }
    attrs
}

fn draw_card(x: &mut Xml, card: &Card, detail: Detail, plain: Plain) {
    // The data attributes are only written in full detail; their text is not made otherwise.
    let factor = if detail == Detail::Full { card.px_per_byte.to_string() } else { String::new() };
    x.open(
        "g",
        &described(
            detail,
            vec![
                ("class", "card".into()),
                ("data-function", card.function.as_str().into()),
                ("data-px-per-byte", factor.as_str().into()),
            ],
        ),
    );
    shapes(x, &card.decorations, plain);
    if !card.keys.is_empty() {
        x.open("g", &[("class", "key-list".into())]);
        shapes(x, &card.keys, plain);
        x.close();
    }
    for lane in &card.lanes {
        draw_lane(x, lane, detail, plain);
    }
    for p in &card.profiles {
        x.open(
            "g",
            &described(
                detail,
                vec![
                    ("class", "profile".into()),
                    ("data-space", p.space.as_str().into()),
                    ("data-peak", Value::Int(p.peak_bytes)),
                    ("data-peak-line", Value::Int(p.peak_line.into())),
                ],
            ),
        );
        shapes(x, &p.shapes, plain);
        x.close();
    }
    for cut in &card.cuts {
        draw_line_cut(x, cut, detail, plain);
    }
    x.close();
}

/// A fold of the line axis: a group with its class, the lines it skips and the rows it takes, and,
/// in full detail, its tooltip.
fn draw_line_cut(x: &mut Xml, cut: &crate::scene::LineCut, detail: Detail, plain: Plain) {
    let attrs = vec![
        ("class", "line-cut".into()),
        ("data-from", Value::Int(cut.from.into())),
        ("data-to", Value::Int(cut.to.into())),
        ("data-rows", Value::Int(cut.rows.into())),
    ];
    x.open("g", &described(detail, attrs));
    if detail == Detail::Full {
        x.element("title", &[], &cut.title);
    }
    shapes(x, &cut.shapes, plain);
    x.close();
}

fn draw_lane(x: &mut Xml, lane: &Lane, detail: Detail, plain: Plain) {
    let mut attrs: Vec<(&str, Value)> = vec![
        ("class", if lane.inset.is_some() { "lane inset" } else { "lane" }.into()),
        ("data-space", lane.space.as_str().into()),
        ("data-span", Value::Int(lane.span)),
        ("data-x", lane.x.into()),
        ("data-width", lane.width.into()),
    ];
    // An inset has its own byte scale; a script reads it here, as the card's from the card.
    let factor = if detail == Detail::Full { lane.factor.to_string() } else { String::new() };
    // A cut band's bytes (`from to`): the stretch drawn at a fixed width, not to scale.
    let cut = lane.axis.cut.map(|(from, to)| format!("{from} {to}")).unwrap_or_default();
    if lane.axis.cut.is_some() {
        attrs.push(("data-cut", cut.as_str().into()));
    }
    if let Some(inset) = &lane.inset {
        attrs.push(("data-px-per-byte", factor.as_str().into()));
        attrs.push(("data-inset", inset.badge.as_str().into()));
    }
    x.open("g", &described(detail, attrs));
    shapes(x, &lane.decorations, plain);
    for block in &lane.blocks {
        draw_block(x, block, detail, plain);
    }
    if !lane.fits.is_empty() {
        x.open("g", &[("class", "fit".into())]);
        shapes(x, &lane.fits, plain);
        x.close();
    }
    if let Some(line) = &lane.hwm {
        x.open("g", &[("class", "hwm".into())]);
        line_leaf(x, line);
        x.close();
    }
    if let Some(inset) = &lane.inset {
        x.open("g", &[("class", "inset-frame".into())]);
        shapes(x, std::slice::from_ref(&Shape::Rect(inset.frame.clone())), plain);
        x.close();
    }
    if let Some(capacity) = lane.capacity {
        x.open("g", &described(detail, vec![("class", "overflow".into()), ("data-capacity", Value::Int(capacity))]));
        shapes(x, &lane.overflow, plain);
        x.close();
    }
    for p in &lane.placed {
        draw_placed(x, p, detail, plain);
    }
    x.close();
}

/// A reserved window, the unsafe band, or a tile's slots or pin: a group with its class, the
/// bytes it marks and, in full detail, its tooltip.
fn draw_placed(x: &mut Xml, p: &crate::scene::Placed, detail: Detail, plain: Plain) {
    let attrs = vec![
        ("class", p.class.into()),
        ("data-name", p.name.as_str().into()),
        ("data-from", Value::Int(p.from)),
        ("data-to", Value::Int(p.to)),
    ];
    x.open("g", &described(detail, attrs));
    if detail == Detail::Full {
        x.element("title", &[], &p.tooltip);
    }
    shapes(x, &p.shapes, plain);
    x.close();
}

fn draw_block(x: &mut Xml, b: &BlockShape, detail: Detail, plain: Plain) {
    let class = match (b.view, b.conflict) {
        (false, false) => "box",
        (true, false) => "box view",
        (false, true) => "box conflict",
        (true, true) => "box view conflict",
    };
    let aliases = if detail == Detail::Full { b.aliases.join(",") } else { String::new() };
    let mut attrs = vec![
        ("class", class.into()),
        ("data-name", b.name.as_str().into()),
        ("data-space", b.space.as_str().into()),
        ("data-base", b.base.as_str().into()),
        ("data-offset", Value::Int(b.offset)),
        ("data-size", Value::Int(b.size)),
        ("data-start", Value::Int(b.start.into())),
        ("data-end", Value::Int(b.end.into())),
        ("data-aliases", aliases.as_str().into()),
    ];
    if let Some(key) = b.key {
        attrs.push(("data-key", Value::Int(key as i64)));
    }
    x.open("g", &described(detail, attrs));
    if detail == Detail::Full {
        x.element("title", &[], &b.tooltip.join("\n"));
    }
    rect_leaf(x, &b.rect);
    shapes(x, &b.marks, plain);
    rect_leaf(x, &b.outline);
    if let Some(leader) = &b.leader {
        line_leaf(x, leader);
    }
    for t in &b.label {
        text_leaf(x, t, plain);
    }
    x.close();
}

/// Draws `shapes` in order. A run of lines with one stroke becomes one `<path>`, and a run of texts
/// with one style one `<g>` that carries it: the same picture, in a fraction of the bytes (gridlines,
/// line numbers and use ticks come in long runs, and the HTML page embeds every card's SVG).
fn shapes(x: &mut Xml, shapes: &[Shape], plain: Plain) {
    let mut rest = shapes;
    while let Some(first) = rest.first() {
        let run = rest.iter().take_while(|s| alike(first, s)).count().max(1);
        let (now, later) = rest.split_at(run);
        match first {
            Shape::Rect(r) if run == 1 => rect_leaf(x, r),
            Shape::Rect(r) => rects_path(x, r, now),
            Shape::Line(l) if run == 1 => line_leaf(x, l),
            Shape::Line(l) => lines_path(x, l.stroke, now),
            Shape::Text(t) if run == 1 => text_leaf(x, t, plain),
            Shape::Text(t) => text_group(x, t, now, plain),
        }
        rest = later;
    }
}

/// Whether `b` can share `a`'s element: lines with the same stroke, texts with the same style,
/// plain filled rects (profile bars) with the same fill.
pub(super) fn alike(a: &Shape, b: &Shape) -> bool {
    let plain = |r: &Rect| r.stroke.is_none() && r.radius == 0.0 && r.fill.is_some();
    match (a, b) {
        (Shape::Rect(a), Shape::Rect(b)) => plain(a) && plain(b) && a.fill == b.fill,
        (Shape::Line(a), Shape::Line(b)) => a.stroke == b.stroke,
        (Shape::Text(a), Shape::Text(b)) => (a.size, a.color, a.anchor) == (b.size, b.color, b.anchor),
        _ => false,
    }
}

fn lines_path(x: &mut Xml, stroke: Stroke, run: &[Shape]) {
    let mut d = String::with_capacity(run.len() * 20);
    for s in run {
        let Shape::Line(l) = s else { continue };
        path_cmd(&mut d, 'M', &[l.x1, l.y1]);
        if l.y1 == l.y2 {
            path_cmd(&mut d, 'H', &[l.x2]);
        } else if l.x1 == l.x2 {
            path_cmd(&mut d, 'V', &[l.y2]);
        } else {
            path_cmd(&mut d, 'L', &[l.x2, l.y2]);
        }
    }
    let dash = stroke.dash.map(|(a, b)| format!("{} {}", num(a), num(b)));
    let mut attrs: Vec<(&'static str, Value)> =
        vec![("d", d.as_str().into()), ("fill", "none".into()), ("stroke", stroke.color.into())];
    stroke_width(&mut attrs, stroke.width);
    if let Some(dash) = &dash {
        attrs.push(("stroke-dasharray", dash.as_str().into()));
    }
    x.leaf("path", &attrs);
}

fn rects_path(x: &mut Xml, style: &Rect, run: &[Shape]) {
    let mut d = String::with_capacity(run.len() * 28);
    for s in run {
        let Shape::Rect(r) = s else { continue };
        path_cmd(&mut d, 'M', &[r.x, r.y]);
        path_cmd(&mut d, 'h', &[r.w]);
        path_cmd(&mut d, 'v', &[r.h]);
        path_cmd(&mut d, 'h', &[-r.w]);
        d.push('z');
    }
    let fill = style.fill.map_or(Value::Str("none"), Value::Color);
    x.leaf("path", &[("d", d.as_str().into()), ("fill", fill)]);
}

/// One path command: `M12.5 30`.
fn path_cmd(d: &mut String, op: char, values: &[f64]) {
    d.push(op);
    for (i, &v) in values.iter().enumerate() {
        if i > 0 {
            d.push(' ');
        }
        write_num(d, v);
    }
}

fn text_group(x: &mut Xml, style: &Text, run: &[Shape], plain: Plain) {
    let mut attrs: Vec<(&'static str, Value)> = Vec::with_capacity(3);
    style_attrs(&mut attrs, style, plain);
    if style.anchor == Anchor::End {
        attrs.push(("text-anchor", "end".into()));
    }
    x.open("g", &attrs);
    for s in run {
        if let Shape::Text(t) = s {
            let mut attrs: Vec<(&'static str, Value)> = vec![("x", t.x.into()), ("y", t.y.into())];
            keep_spaces(&mut attrs, &t.content);
            x.element("text", &attrs, &t.content);
        }
    }
    x.close();
}

fn rect_leaf(x: &mut Xml, r: &Rect) {
    let mut attrs: Vec<(&'static str, Value)> = Vec::with_capacity(9);
    attrs.extend([("x", r.x.into()), ("y", r.y.into()), ("width", r.w.into()), ("height", r.h.into())]);
    attrs.push(("fill", r.fill.map_or(Value::Str("none"), Value::Color)));
    if r.radius > 0.0 {
        attrs.push(("rx", r.radius.into()));
    }
    let dash = r.stroke.and_then(|s| s.dash).map(|(a, b)| format!("{} {}", num(a), num(b)));
    if let Some(s) = r.stroke {
        attrs.push(("stroke", s.color.into()));
        stroke_width(&mut attrs, s.width);
    }
    if let Some(dash) = &dash {
        attrs.push(("stroke-dasharray", dash.as_str().into()));
    }
    x.leaf("rect", &attrs);
}

fn line_leaf(x: &mut Xml, l: &Line) {
    let dash = l.stroke.dash.map(|(a, b)| format!("{} {}", num(a), num(b)));
    let mut attrs: Vec<(&'static str, Value)> = vec![
        ("x1", l.x1.into()),
        ("y1", l.y1.into()),
        ("x2", l.x2.into()),
        ("y2", l.y2.into()),
        ("stroke", l.stroke.color.into()),
    ];
    stroke_width(&mut attrs, l.stroke.width);
    if let Some(dash) = &dash {
        attrs.push(("stroke-dasharray", dash.as_str().into()));
    }
    x.leaf("line", &attrs);
}

fn text_leaf(x: &mut Xml, t: &Text, plain: Plain) {
    let mut attrs: Vec<(&'static str, Value)> = Vec::with_capacity(5);
    attrs.extend([("x", t.x.into()), ("y", t.y.into())]);
    style_attrs(&mut attrs, t, plain);
    if t.anchor == Anchor::End {
        attrs.push(("text-anchor", "end".into()));
    }
    keep_spaces(&mut attrs, &t.content);
    x.element("text", &attrs, &t.content);
}

/// `xml:space="preserve"` for a text whose spaces SVG's default handling would change (a leading
/// or trailing one, or two in a row: a wrapped line's indent, the diff's "old  " and "new  "),
/// which would drop or merge them: the plan measured every space, and the PNG draws them all.
fn keep_spaces(attrs: &mut Vec<(&'static str, Value)>, content: &str) {
    if content.starts_with(' ') || content.ends_with(' ') || content.contains("  ") {
        attrs.push(("xml:space", "preserve".into()));
    }
}

/// The size and colour of `t` where they are not the ones it inherits.
fn style_attrs(attrs: &mut Vec<(&'static str, Value)>, t: &Text, plain: Plain) {
    if t.size != plain.size {
        attrs.push(("font-size", t.size.into()));
    }
    if t.color != plain.color {
        attrs.push(("fill", t.color.into()));
    }
}

/// A stroke's width, unless it is SVG's default of 1.
fn stroke_width(attrs: &mut Vec<(&'static str, Value)>, width: f64) {
    if width != 1.0 {
        attrs.push(("stroke-width", width.into()));
    }
}
