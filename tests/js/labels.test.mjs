// The page's label rule (src/render/page/labels.js) gives the layout's answer (plan/labels.rs) on
// every case tests/labels.rs writes: each lane of the fixtures and of part of the corpus at four
// widths and zooms. Run by that Rust test with PMM_LABEL_CASES set; skipped without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

// The script as the page runs it (a classic script, not a module), in a context of its own.
const source = readFileSync(new URL('../../src/render/page/labels.js', import.meta.url), 'utf8');
const labels = vm.runInNewContext(`${source}\n;pmmLabels`, {});
const file = process.env.PMM_LABEL_CASES;

/** `a` and `b` alike, numbers within a millionth of a pixel (both sides compute in doubles). */
function same(a, b, where) {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) < 1e-6, `${where}: ${a} vs ${b}`);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    assert.equal(a.length, b.length, `${where}: length`);
    a.forEach((v, i) => same(v, b[i], `${where}[${i}]`));
  } else if (a && b && typeof a === 'object' && typeof b === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${where}: keys`);
    for (const k of Object.keys(a)) same(a[k], b[k], `${where}.${k}`);
  } else {
    assert.equal(a, b, where);
  }
}

test('the page places every label where the layout does', { skip: !file && 'PMM_LABEL_CASES not set' }, () => {
  const { px, cases } = JSON.parse(readFileSync(file, 'utf8'));
  assert.ok(cases.length > 0, 'some cases');
  let boxes = 0;
  cases.forEach((c, i) => {
    const input = c.boxes.map((b) => ({ ...b, label: { badge: '', ...b.label } }));
    const got = labels.placeLane(input, c.lane_w, c.rows, px, c.blocked);
    const names = c.boxes.map((b) => b.label.name).slice(0, 3).join(', ');
    same(got, c.spots, `case ${i} (${names}…)`);
    boxes += c.boxes.length;
  });
  assert.ok(boxes > 0);
});

test('the page maps bytes to px by the plan\'s axis rule', { skip: !file && 'PMM_LABEL_CASES not set' }, () => {
  const { px, axes } = JSON.parse(readFileSync(file, 'utf8'));
  assert.ok(axes.some((a) => a.axis.cut), 'some lane has a cut band');
  axes.forEach((a, i) => {
    a.probes.forEach((b, j) => same(labels.axisX(a.axis, b), a.xs[j], `lane ${i} byte ${b}`));
    a.ranges.forEach(([o, n], j) => same(labels.placeOn(a.axis, o, n, a.lane_w, px.min_box), a.want[j], `lane ${i} box ${j}`));
  });
});
