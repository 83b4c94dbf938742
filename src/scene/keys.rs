//! Keys: a box too narrow for its name gets a number in it, and the card lists each number with
//! the whole name under its lanes. Apart from the lanes because the list is laid out for the card
//! as a whole, once every lane's keys are known.

use super::*;

/// Labels every drawn box of every lane by the label rule ([`labels::place_lane`]): its name or
/// its key inside, else beside it with a leader. Returns the keyed boxes, in key order, for the key list.
pub(super) fn apply_keys<'a>(
    plan: &'a CardPlan,
    lanes: &mut [Lane],
    body_top: f64,
    pal: &Palette,
) -> Vec<(String, &'a BoxPlan)> {
    let px = plan::px_rules();
    let mut keyed = Vec::new();
    for lane in lanes.iter_mut() {
        let (lx, lw) = (lane.x, lane.width);
        let order: Vec<usize> = lane.blocks.iter().map(|shape| shape.index).collect();
        if order.iter().any(|&i| i >= plan.boxes.len()) {
            continue; // a plan made for another map: leave the labels `block` drew
        }
        let spots = plan::steps::lane_labels(plan, &order, &lane.axis, lw);
        for (shape, spot) in lane.blocks.iter_mut().zip(spots) {
            let bp = &plan.boxes[shape.index];
            let r = shape.rect.clone();
            shape.label = Vec::new();
            shape.leader = None;
            shape.key = None;
            let Some(spot) = spot else { continue };
            if spot.keyed() {
                shape.key = Some(bp.n);
                keyed.push((bp.n.to_string(), bp));
            }
            match spot {
                labels::Spot::Inside { fitted, row, .. } => {
                    let y = body_top + row as f64 * px.line;
                    shape.label = placed_label(&fitted, (r.x, y), &px, pal);
                }
                labels::Spot::Beside { text, x, row, leader, .. } => {
                    let y = body_top + row as f64 * px.line;
                    shape.label = vec![run(lx + x, y + 12.0, px.label, pal.text, &text)];
                    shape.leader = Some(Line {
                        x1: lx + leader[0],
                        y1: body_top + leader[1],
                        x2: lx + leader[2],
                        y2: body_top + leader[3],
                        stroke: Stroke { color: pal.muted, width: 1.0, dash: None },
                    });
                }
            }
        }
    }
    keyed.sort_by_key(|(_, bp)| bp.n);
    keyed
}

/// Size of the key's texts, and the height of one of its rows.
const KEY_SIZE: f64 = 10.0;
const KEY_ROW: f64 = 15.0;

/// The card's key under the map: each keyed box's key, then its full name (and aliases), size,
/// address range and lines, in as many columns as the card's width holds. Returns its shapes and
/// height (zero without keys).
pub(super) fn key_list(keyed: &[(String, &BoxPlan)], x: f64, top: f64, width: f64, pal: &Palette) -> (Vec<Shape>, f64) {
    if keyed.is_empty() {
        return (Vec::new(), 0.0);
    }
    let head = "key: boxes too narrow for their names";
    let mut out = vec![text_at(x, top + 20.0, KEY_SIZE, pal.muted, head)];
    let key_w = keyed.iter().map(|(k, _)| text::width(k, KEY_SIZE)).fold(0.0, f64::max) + 6.0;
    let gap = 24.0;
    // Columns as wide as three entries in four need; a longer entry takes as many columns as it needs (the
    // whole width at most, where it is cut), so one long alias chain does not make every row one entry.
    let mut widths: Vec<f64> = keyed.iter().map(|(_, b)| key_w + text::width(&b.key, KEY_SIZE) + gap).collect();
    let mut sorted = widths.clone();
    sorted.sort_by(f64::total_cmp);
    let col = sorted[sorted.len() * 3 / 4].min(width + gap).max(key_w + gap + 1.0);
    let cols = (((width + gap) / col).floor() as usize).max(1);
    let (mut at, mut row) = (0usize, 0usize);
    for ((key, b), w) in keyed.iter().zip(widths.iter_mut()) {
        let span = ((*w / col).ceil() as usize).clamp(1, cols);
        if at > 0 && at + span > cols {
            at = 0;
            row += 1;
        }
        let cx = x + at as f64 * col;
        let cy = top + 20.0 + (row + 1) as f64 * KEY_ROW;
        out.push(Shape::Text(Text {
            x: cx + key_w - 6.0,
            y: cy,
            size: KEY_SIZE,
            color: pal.text,
            anchor: Anchor::End,
            content: key.clone(),
        }));
        // An entry wider than the whole card (a long chain of aliases) runs on over more rows,
        // broken between names: a name is never cut.
        let room = span as f64 * col - key_w - gap / 2.0;
        let chars = (room / (text::advance_em() * KEY_SIZE)).floor().max(1.0) as usize;
        let pieces =
            if text::width(&b.key, KEY_SIZE) <= room { vec![b.key.clone()] } else { plan::wrap(&b.key, chars) };
        for (i, piece) in pieces.iter().enumerate() {
            let cy = cy + i as f64 * KEY_ROW;
            out.push(text_at(cx + key_w, cy, KEY_SIZE, pal.text, piece));
        }
        row += pieces.len() - 1;
        at += span;
    }
    (out, 20.0 + (row + 1) as f64 * KEY_ROW + 6.0)
}
