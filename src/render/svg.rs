//! The static SVG: a picture for docs and wikis that is also machine-readable (cards, lanes and boxes
//! carry `data-*` attributes, and each box a `<title>` tooltip). Only features resvg renders are used,
//! so the PNG is this document, drawn.

use crate::layout::{Anchor, BlockShape, Card, Lane, Line, Rect, Scene, Shape, Text};
use crate::model::MemoryMap;

use super::xml::{Xml, num};

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The whole scene as one standalone document: header, then the cards stacked.
pub fn render(map: &MemoryMap, scene: &Scene) -> String {
    let mut x = Xml::new();
    let (w, h) = (num(scene.width), num(scene.height));
    let view_box = format!("0 0 {w} {h}");
    root(&mut x, &w, &h, &view_box, scene);
    x.element("title", &[], &format!("Memory map — {} · {}", map.pass_name, map.dump));
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
    x.open("g", &[("class", "header")]);
    shapes(&mut x, &scene.header);
    x.close();
    for card in &scene.cards {
        draw_card(&mut x, card);
    }
    x.finish()
}

/// One card alone, cropped to its frame: what the HTML page shows before its script runs.
pub fn render_card(scene: &Scene, card: &Card) -> String {
    let mut x = Xml::new();
    let f = &card.frame;
    let pad = 1.0;
    let (w, h) = (num(f.w + 2.0 * pad), num(f.h + 2.0 * pad));
    let view_box = format!("{} {} {w} {h}", num(f.x - pad), num(f.y - pad));
    root(&mut x, &w, &h, &view_box, scene);
    x.element("title", &[], &format!("Memory map of {}", card.function));
    draw_card(&mut x, card);
    x.finish()
}

fn root(x: &mut Xml, w: &str, h: &str, view_box: &str, scene: &Scene) {
    x.open(
        "svg",
        &[
            ("xmlns", SVG_NS),
            ("width", w),
            ("height", h),
            ("viewBox", view_box),
            ("font-family", scene.font_family),
            ("role", "img"),
        ],
    );
}

fn draw_card(x: &mut Xml, card: &Card) {
    let factor = format!("{}", card.px_per_byte);
    x.open("g", &[("class", "card"), ("data-function", &card.function), ("data-px-per-byte", &factor)]);
    shapes(x, &card.decorations);
    for lane in &card.lanes {
        draw_lane(x, lane);
    }
    x.close();
}

fn draw_lane(x: &mut Xml, lane: &Lane) {
    let (span, lx, lw) = (lane.span.to_string(), num(lane.x), num(lane.width));
    x.open(
        "g",
        &[("class", "lane"), ("data-space", &lane.space), ("data-span", &span), ("data-x", &lx), ("data-width", &lw)],
    );
    shapes(x, &lane.decorations);
    for block in &lane.blocks {
        draw_block(x, block);
    }
    if let Some(line) = &lane.hwm {
        x.open("g", &[("class", "hwm")]);
        line_leaf(x, line);
        x.close();
    }
    x.close();
}

fn draw_block(x: &mut Xml, b: &BlockShape) {
    let class = match (b.view, b.conflict) {
        (false, false) => "box",
        (true, false) => "box view",
        (false, true) => "box conflict",
        (true, true) => "box view conflict",
    };
    let (offset, size, start, end) = (b.offset.to_string(), b.size.to_string(), b.start.to_string(), b.end.to_string());
    let aliases = b.aliases.join(",");
    x.open(
        "g",
        &[
            ("class", class),
            ("data-name", &b.name),
            ("data-space", &b.space),
            ("data-base", &b.base),
            ("data-offset", &offset),
            ("data-size", &size),
            ("data-start", &start),
            ("data-end", &end),
            ("data-aliases", &aliases),
        ],
    );
    x.element("title", &[], &b.tooltip.join("\n"));
    rect_leaf(x, &b.rect);
    rect_leaf(x, &b.outline);
    for t in &b.label {
        text_leaf(x, t);
    }
    x.close();
}

fn shapes(x: &mut Xml, shapes: &[Shape]) {
    for s in shapes {
        match s {
            Shape::Rect(r) => rect_leaf(x, r),
            Shape::Line(l) => line_leaf(x, l),
            Shape::Text(t) => text_leaf(x, t),
        }
    }
}

fn rect_leaf(x: &mut Xml, r: &Rect) {
    let (rx, ry, rw, rh, radius) = (num(r.x), num(r.y), num(r.w), num(r.h), num(r.radius));
    let fill = r.fill.map_or_else(|| "none".to_string(), |c| c.css());
    let mut attrs: Vec<(&'static str, &str)> =
        vec![("x", &rx), ("y", &ry), ("width", &rw), ("height", &rh), ("fill", &fill)];
    if r.radius > 0.0 {
        attrs.push(("rx", &radius));
    }
    let stroke = r.stroke.map(|s| (s.color.css(), num(s.width), s.dash.map(|(a, b)| format!("{} {}", num(a), num(b)))));
    if let Some((color, width, dash)) = &stroke {
        attrs.push(("stroke", color));
        attrs.push(("stroke-width", width));
        if let Some(dash) = dash {
            attrs.push(("stroke-dasharray", dash));
        }
    }
    x.leaf("rect", &attrs);
}

fn line_leaf(x: &mut Xml, l: &Line) {
    let (x1, y1, x2, y2) = (num(l.x1), num(l.y1), num(l.x2), num(l.y2));
    let (color, width) = (l.stroke.color.css(), num(l.stroke.width));
    let dash = l.stroke.dash.map(|(a, b)| format!("{} {}", num(a), num(b)));
    let mut attrs: Vec<(&'static str, &str)> =
        vec![("x1", &x1), ("y1", &y1), ("x2", &x2), ("y2", &y2), ("stroke", &color), ("stroke-width", &width)];
    if let Some(dash) = &dash {
        attrs.push(("stroke-dasharray", dash));
    }
    x.leaf("line", &attrs);
}

fn text_leaf(x: &mut Xml, t: &Text) {
    let (tx, ty, size, fill) = (num(t.x), num(t.y), num(t.size), t.color.css());
    let mut attrs: Vec<(&'static str, &str)> = vec![("x", &tx), ("y", &ty), ("font-size", &size), ("fill", &fill)];
    if t.anchor == Anchor::End {
        attrs.push(("text-anchor", "end"));
    }
    x.element("text", &attrs, &t.content);
}
