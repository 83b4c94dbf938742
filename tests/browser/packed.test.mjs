// The packed view on the page (`--packed`): each packed lane beside its space on the card's one
// byte scale, its boxes where the packer put them, named as the compiler's, and shown or hidden by
// its own space button like any lane. The page is tests/fixtures/lifetimes.py drawn with
// `--packed` by run.sh; its JSON (without `--packed`) holds the packings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { withPage, openCard, near, pagesDir } from './helpers.mjs';

/** Each box of `lane` as {name, offset, x, w}: x relative to the lane. */
async function boxes(lane) {
  return lane.evaluate((l) => {
    const at = l.getBoundingClientRect();
    return [...l.querySelectorAll('.box')].map((n) => {
      const r = n.getBoundingClientRect();
      return { name: n.dataset.name, offset: Number(n.dataset.offset), size: Number(n.dataset.size), x: r.left - at.left, w: r.width };
    });
  });
}

test('a packed lane draws the packing beside its space, on one scale, and its button hides it', async () => {
  const map = JSON.parse(fs.readFileSync(path.join(pagesDir, 'packed.json'), 'utf8'));
  const fn = map.functions.find((f) => f.name === 'wasteful');
  const packing = fn.spaces.find((s) => s.space === 'Vec').packing;
  await withPage('packed', {}, async ({ page }) => {
    const c = await openCard(page, 'wasteful');
    const own = c.locator('.lane[data-space="Vec"]');
    const packed = c.locator('.lane[data-space="Vec packed"]');
    assert.equal(await packed.count(), 1, 'the packed lane is drawn');
    const [a, b] = [await boxes(own), await boxes(packed)];
    assert.deepEqual(b.map((x) => x.name).sort(), a.map((x) => x.name).sort(), 'the same boxes, by name');
    const k = a[0].w / a[0].size;
    for (const x of b) {
      const placed = packing.placement.find((p) => p.name === x.name);
      assert.equal(x.offset, placed.offset, `${x.name} where the packing put it`);
      near(x.w / x.size, k, 1e-3 * k, `${x.name}: one byte scale for both lanes`);
    }
    const hide = c.locator('button[title="Hide Vec packed"]');
    await hide.click();
    assert.equal(await c.locator('.lane[data-space="Vec packed"]').count(), 0, 'hidden by its button');
    await c.locator('button[title="Show Vec packed"]').click();
    assert.equal(await c.locator('.lane[data-space="Vec packed"]').count(), 1, 'shown again');
  });
});

test('hovering a box marks the boxes of its handovers, and only while hovered', async () => {
  await withPage('packed', {}, async ({ page }) => {
    const c = await openCard(page, 'nested');
    const lane = c.locator('.lane[data-space="Vec"]');
    const from = lane.locator('.box[data-name="p__tile"]');
    const to = lane.locator('.box[data-name="w__tile"]');
    assert.equal(await c.locator('.box.partner').count(), 0, 'nothing marked before a hover');
    await to.hover();
    assert.equal(await from.evaluate((n) => n.classList.contains('partner')), true, 'w__tile takes p__tile\'s bytes');
    assert.equal(await c.locator('.box.partner').count(), 1, 'only its partner is marked');
    assert.match(await page.locator('#pmm-tip').innerText(), /p__tile/, 'the tooltip names it');
    await c.locator('.lane-head, .card-head, summary').first().hover();
    assert.equal(await c.locator('.box.partner').count(), 0, 'unmarked once the pointer leaves');
  });
});
