// pto-memory-map label rule, as the page applies it at the reader's zoom.
//
// This is plan/labels.rs (and plan/mod.rs' fit_label) written again for the page, which must
// choose labels at factors the plan never saw. It measures nothing: each label comes with its
// candidates' widths (plan::LabelWidths), and the rule takes the first whose width fits. It
// is held equal to the Rust rule by tests/js/labels.test.mjs, which runs it over cases the Rust side
// writes with its answers (tests/labels.rs). The constants and the order of every step are the Rust
// ones: change both.
'use strict';

// eslint-disable-next-line no-unused-vars
const pmmLabels = (() => {
  const GAP = 4;
  const ROW_COST = 17;
  const NAME_NEAR = ROW_COST + 2 * GAP;
  const CROSSING = 60;
  const REACH = 40;
  const MAX_CELLS = 4000000;

  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

  /**
   * plan::labels::inside_label: what box `b` shows inside itself, by the stated widths: its name
   * and badge where both fit, else its key, else no name (it goes beside); on a box two lines high
   * the first detail that fits. Returns [fitted, keyed, width of the first row's text].
   */
  function inside(b, px) {
    const l = b.label;
    const room = b.w - 2 * px.inset;
    const i = (b.rows[1] - b.rows[0] + 1) * px.line >= 2 * px.line ? l.w.details.findIndex((d) => d <= room) : -1;
    const detail = i < 0 ? null : l.details[i];
    if (l.w.full <= room) return [{ name: l.name, badge: l.badge || null, detail }, false, l.w.full, i];
    return [{ name: l.w.key <= room ? String(b.key) : null, badge: null, detail }, true, l.w.key, i];
  }

  /** The name's band in its row, from the row's top (plan::labels::text_band). */
  const textBand = (size) => [12 - 0.75 * size, 12 + 0.25 * size];

  /** The label inside its box, where it fits, for a lane too large to search. */
  function insideOnly(boxes, px) {
    return boxes.map((b) => {
      const [fitted, keyed] = inside(b, px);
      return fitted.name === null ? null : { inside: { fitted, keyed, row: b.rows[0] } };
    });
  }

  function consider(best, b, row, x, w, d, line, boxesIn) {
    const [t0, t1] = textBand(11);
    const ty0 = row * line + t0;
    const ty1 = row * line + t1;
    const by0 = b.rows[0] * line;
    const by1 = (b.rows[1] + 1) * line;
    const mx = x + w / 2;
    const my = (ty0 + ty1) / 2;
    const x1 = clamp(mx, b.x, b.x + b.w);
    const y1 = clamp(my, by0, by1);
    const x2 = clamp(x1, x - 1, x + w + 1);
    const y2 = clamp(y1, ty0, ty1);
    const across = Math.abs(x2 - x1);
    const lo = Math.min(x1, x2);
    const hi = Math.max(x1, x2);
    const ra = Math.floor(Math.min(y1, y2) / line);
    const rz = Math.min(Math.floor(Math.max(y1, y2) / line), boxesIn.length - 1);
    let crossed = 0;
    for (let r = ra; r <= rz; r++) {
      for (const [a, z] of boxesIn[r]) if (a < hi && lo < z && !(a === b.x && z === b.x + b.w)) crossed++;
    }
    const cost = across + d * ROW_COST + crossed * CROSSING;
    if (!best.found || cost < best.found.cost) best.found = { row, x, w, leader: [x1, y1, x2, y2], cost };
  }

  function findSpot(b, w, laneW, line, boxesIn, labelsIn) {
    const rows = boxesIn.length;
    const r0 = Math.min(b.rows[0], rows - 1);
    const r1 = Math.min(b.rows[1], rows - 1);
    const candidates = [];
    for (let r = r0; r <= r1; r++) candidates.push([r, 0]);
    for (let d = 1; d <= REACH; d++) {
      if (r0 >= d) candidates.push([r0 - d, d]);
      candidates.push([r1 + d, d]);
    }
    const best = { found: null };
    for (const [row, d] of candidates) {
      if (row >= rows) continue;
      if (best.found && d * ROW_COST > best.found.cost) break;
      const taken = [...boxesIn[row], ...labelsIn[row]].map(([a, z]) => [a - GAP, z + GAP]);
      taken.push([-Infinity, 1], [laneW - 1, Infinity]);
      taken.sort((p, q) => (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0));
      let reach = -Infinity;
      for (const [a, z] of taken) {
        if (a - reach >= w) {
          let x;
          if (reach >= b.x + b.w) x = reach;
          else if (a <= b.x) x = a - w;
          else x = clamp(b.x + b.w / 2 - w / 2, reach, a - w);
          consider(best, b, row, x, w, d, line, boxesIn);
        }
        reach = Math.max(reach, z);
      }
    }
    return best.found;
  }

  /**
   * plan::labels::place_lane: the labels of `boxes` ({x, w, rows: [first, last], label, key}, in
   * drawing order) in a lane `laneW` px wide and `rows` rows tall; one spot per box, or null:
   * {inside: {fitted, keyed, row}} or {beside: {text, keyed, x, row, leader}}.
   */
  /**
   * Labels of a lane's boxes (plan::labels::place_lane_around): `blocked`, if given, is a stretch
   * [from, to) px across the first two rows (a cut band's words) that takes no label beside a box.
   */
  function placeLane(boxes, laneW, rowsIn, px, blocked) {
    const line = px.line;
    const rows = Math.max(rowsIn, 1);
    let cells = 0;
    for (const b of boxes) cells += Math.max(Math.min(b.rows[1], rows - 1) - b.rows[0], 0) + 1;
    if (cells > MAX_CELLS) return insideOnly(boxes, px);
    const boxesIn = Array.from({ length: rows }, () => []);
    const drawnIn = Array.from({ length: rows }, () => []);
    boxes.forEach((b, i) => {
      for (let r = Math.min(b.rows[0], rows - 1); r <= Math.min(b.rows[1], rows - 1); r++) {
        boxesIn[r].push([b.x, b.x + b.w]);
        drawnIn[r].push(i);
      }
    });
    if (blocked) for (const row of boxesIn.slice(0, 2)) row.push([blocked[0], blocked[1]]);
    const labelsIn = Array.from({ length: rows }, () => []);
    const out = boxes.map(() => null);
    const reading = boxes.map((_, i) => i).sort((i, j) => boxes[i].key - boxes[j].key || i - j);
    const beside = [];
    for (const i of reading) {
      const b = boxes[i];
      const [fitted, keyed, nameW, di] = inside(b, px);
      if (fitted.name === null) {
        beside.push(i);
        continue;
      }
      const from = b.x + px.inset;
      const to = b.x + px.inset + nameW;
      const free = (row, f, t) => row < rows
        && !labelsIn[row].some(([a, z]) => a < t && f < z)
        && !drawnIn[row].some((o) => o > i && boxes[o].x < t && f < boxes[o].x + boxes[o].w);
      let row = null;
      for (let r = b.rows[0]; r <= Math.min(b.rows[1], rows - 1); r++) {
        if (free(r, from, to)) {
          row = r;
          break;
        }
      }
      if (row === null) {
        beside.push(i);
        continue;
      }
      const detailTo = di >= 0 ? from + b.label.w.details[di] : null;
      const detail = detailTo !== null && row < b.rows[1] && free(row + 1, from, detailTo) ? fitted.detail : null;
      labelsIn[row].push([from, to]);
      if (detail !== null) labelsIn[row + 1].push([from, detailTo]);
      out[i] = { inside: { fitted: { ...fitted, detail }, keyed, row } };
    }
    beside.sort((i, j) => boxes[i].key - boxes[j].key || i - j);
    for (const i of beside) {
      const b = boxes[i];
      const name = b.label.name;
      let chosen = null;
      const near = findSpot(b, b.label.w.name, laneW, line, boxesIn, labelsIn);
      if (near && near.cost <= NAME_NEAR) chosen = [near, name, false];
      if (!chosen) {
        const key = String(b.key);
        const spot = findSpot(b, b.label.w.key, laneW, line, boxesIn, labelsIn);
        if (spot) chosen = [spot, key, true];
      }
      if (!chosen) continue;
      const [s, text, keyed] = chosen;
      labelsIn[s.row].push([s.x, s.x + s.w]);
      out[i] = { beside: { text, keyed, x: s.x, row: s.row, leader: s.leader } };
    }
    return out;
  }

  /**
   * The byte axis rule (plan::Axis): `axis` is { k, cut, px }, `k` px a byte except the
   * cut [from, to), drawn `px` wide. Where byte `b` lands from the lane's left.
   */
  function axisX(axis, b) {
    if (axis.cut && b > axis.cut[0]) {
      const [from, to] = axis.cut;
      if (b >= to) return (b - (to - from)) * axis.k + axis.px;
      return from * axis.k + ((b - from) / (to - from)) * axis.px;
    }
    return b * axis.k;
  }

  /** plan::Axis::place: a byte range's left edge and width in a lane `laneW` px wide. */
  function placeOn(axis, offset, size, laneW, minPx) {
    const stop = offset + Math.max(size, 0);
    const apart = !axis.cut || stop <= axis.cut[0] || offset >= axis.cut[1];
    const w = Math.max(apart ? Math.max(size, 0) * axis.k : axisX(axis, stop) - axisX(axis, offset), minPx);
    return [clamp(axisX(axis, offset), 0, Math.max(laneW - w, 0)), w];
  }

  return { placeLane, axisX, placeOn };
})();
