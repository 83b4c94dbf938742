// Every box named in the page too (plan/labels.rs, applied by labels.js at the reader's zoom): at
// zoom 1, after a zoom step out and in, and with the IR source open, each box of the chosen cards
// cards shows its name or its key, inside it or beside it on its lane; each key is in the card's key
// list with the box's name; a box keeps its key whatever the zoom; and no two labels overlap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, openCard } from './helpers.mjs';
import { pageCases, titled } from './cases.mjs';

/** What the card shows for each box, in the page: its label texts and their rectangles. */
function seen(root) {
  const out = { boxes: [], keys: {}, overlaps: [] };
  for (const li of root.querySelectorAll('.key-list li')) out.keys[li.dataset.key] = li.dataset.name;
  const rects = [];
  for (const lane of root.querySelectorAll('.lane')) {
    for (const node of lane.querySelectorAll(':scope > .box')) {
      const beside = lane.querySelector(`:scope > .beside[data-for="${node.dataset.index}"]`);
      const shown = beside && !beside.hidden ? beside : node.querySelector('.bl b');
      const text = shown ? shown.textContent : '';
      out.boxes.push({ name: node.dataset.name, key: node.dataset.key || null, text, beside: !!(beside && !beside.hidden) });
      for (const e of [beside && !beside.hidden ? beside : null, node.querySelector('.bl b'), node.querySelector('.bd')]) {
        if (!e || e.hidden || !e.textContent) continue;
        // The glyphs' extent (the element's box holds generous line spacing around them).
        const r = e.getBoundingClientRect();
        const w = e.textContent.length * 0.6 * parseFloat(getComputedStyle(e).fontSize);
        rects.push({ who: `${node.dataset.name}:${e.textContent}`, x: r.left, y: r.top + 3, w, h: r.height - 6 });
      }
    }
  }
  rects.sort((a, b) => a.x - b.x);
  for (let i = 0; i < rects.length; i++) {
    for (let j = i + 1; j < rects.length && rects[j].x < rects[i].x + rects[i].w - 0.5; j++) {
      const a = rects[i];
      const b = rects[j];
      if (a.y + 0.5 < b.y + b.h && b.y + 0.5 < a.y + a.h) out.overlaps.push(`${a.who} / ${b.who}`);
    }
  }
  return out;
}

function check(where, s) {
  assert.ok(s.boxes.length > 0, `${where}: boxes`);
  for (const b of s.boxes) {
    if (b.key) {
      assert.equal(b.text, b.key, `${where}: ${b.name} shows its key`);
      assert.equal(s.keys[b.key], b.name, `${where}: key ${b.key} names ${b.name} in the key list`);
    } else {
      assert.equal(b.text, b.name, `${where}: ${b.name} shows its whole name`);
    }
  }
  assert.deepEqual(s.overlaps, [], `${where}: labels overlap`);
}

for (const k of pageCases()) {
  test(titled('every box of the chosen cards is named in the page at any zoom and with the source open', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const beside = [];
      for (const name of k.labelled) {
        const c = await openCard(page, name);
        const at1 = await c.evaluate(seen);
        check(`${name} zoom 1`, at1);
        const keys = Object.fromEntries(at1.boxes.filter((b) => b.key).map((b) => [b.name, b.key]));
        await c.locator('.zoom-out').click();
        const out = await c.evaluate(seen);
        check(`${name} zoomed out`, out);
        await c.locator('.zoom-in').click();
        await c.locator('.zoom-in').click();
        check(`${name} zoomed in`, await c.evaluate(seen));
        await c.locator('.zoom-level').click();
        await c.getByRole('button', { name: 'Show IR source' }).click();
        const src = await c.evaluate(seen);
        check(`${name} with the source open`, src);
        // A box's key is the plan's: the same number whatever the zoom.
        for (const b of [...out.boxes, ...src.boxes].filter((x) => x.key && keys[x.name])) {
          assert.equal(b.key, keys[b.name], `${name}: ${b.name} keeps its key`);
        }
        if (at1.boxes.some((b) => b.beside)) beside.push(name);
      }
      assert.ok(beside.length > 0, `${k.page}: some label beside its box in ${k.labelled.join(', ')}`);
    });
  });
}

for (const k of pageCases()) {
  test(titled('a long key-list entry runs on over more lines in the page, never cut', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.wide);
      const entries = await c.locator('.key-list li').evaluateAll((lis) => lis.map((li) => ({
        text: li.textContent,
        cut: li.scrollWidth > li.clientWidth + 0.5,
        high: li.getBoundingClientRect().height,
      })));
      assert.ok(entries.length > 0, 'k_proj has a key list');
      for (const e of entries) assert.ok(!e.cut, `"${e.text}" is cut`);
      const one = Math.min(...entries.map((e) => e.high));
      assert.ok(entries.some((e) => e.high > 1.5 * one), 'an alias chain takes more than one line');
    });
  });
}
