// The page's label choice (src/render/page/labels.js) takes, inside a box, the first candidate whose
// width the plan states fits (name and badge, else key), never a cut name, and measures no text
// itself. Hand-made lanes of one box each; tests/labels.rs checks the same rule against Rust's
// answers over real lanes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const source = readFileSync(new URL('../../src/render/page/labels.js', import.meta.url), 'utf8');
const labels = vm.runInNewContext(`${source}\n;pmmLabels`, {});
// char_em is deliberately absurd: a rule that measured text itself would give other answers.
const px = { line: 17, min_box: 2, char_em: 100, label: 11, small: 10, inset: 4 };
const label = {
  name: 't__tile_long', badge: '+2', details: ['8 KB · [0, 8192)', '8 KB'],
  w: { full: 100, name: 80, key: 7, details: [120, 25] },
};
// As plain objects: the script runs in a context of its own, whose objects have other prototypes.
const one = (w, rows = [0, 1]) => JSON.parse(JSON.stringify(labels.placeLane([{ x: 0, w, rows, label, key: 3 }], 1000, 40, px)[0]));

test('a box wide enough for the name and badge shows both, and the widest detail that fits', () => {
  assert.deepEqual(one(108).inside, { fitted: { name: 't__tile_long', badge: '+2', detail: '8 KB' }, keyed: false, row: 0 });
  assert.equal(one(108, [0, 0]).inside.fitted.detail, null, 'one line high: no detail');
  assert.equal(one(200).inside.fitted.detail, '8 KB · [0, 8192)');
});

test('short of the name with its badge, the key; short of the key, the name beside', () => {
  const keyed = one(107).inside;
  assert.deepEqual([keyed.fitted.name, keyed.fitted.badge, keyed.keyed], ['3', null, true], 'never a cut name');
  const beside = one(14).beside;
  assert.equal(beside.text, 't__tile_long', 'the whole name, beside the box');
  assert.ok(beside.x >= 14, 'right of the box');
});
