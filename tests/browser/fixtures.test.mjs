// The pages of the project's own fixtures (tests/fixtures/fx_*), rendered in every checkout: the
// page's contract on dumps with every space of both backends, views, aliases, a tile parameter and
// a conflict, so a clone with no corpus beside it still tests the page in a real browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { withPage, card, openCard, pageData, payload, pagesDir, laneWidths, scaledWidths, near, expectedScale, panelOf, boxGeometry, cutsOf, xOf } from './helpers.mjs';

const A2A3 = 'fx_a2a3_case';
const A5 = 'fx_a5_case';

test('fixture pages are self-contained and readable without JavaScript', async () => {
  for (const name of [A2A3, A5]) {
    const html = await readFile(path.join(pagesDir, `${name}.html`), 'utf8');
    assert.doesNotMatch(html, /<(script|link|img|iframe)\b[^>]*\s(src|href)=/i, name);
    assert.doesNotMatch(html, /@import|url\((?!#)/i, name);
    await withPage(name, { javaScriptEnabled: false }, async ({ page }) => {
      const { backend, functions } = await payload(page, 'pmm-data');
      assert.equal(backend.detected, true, `${name}: the arch comes from ptoas/`);
      assert.match(await page.locator('header.page-head').innerText(), name === A5 ? /Ascend950/ : /Ascend910B/);
      assert.equal(await page.locator('.assumed').count(), 0);
      assert.equal(await page.locator('section.card').count(), functions.length);
      assert.equal(await page.locator('section.card .static-map svg').count(), functions.length);
      assert.ok(await page.locator('section.card:has(details[open])').locator('.card-body svg').first().isVisible());
    });
  }
});

test('every space of both backends gets a lane, all on one px/byte factor, boxes on their bytes', async () => {
  for (const [name, fnName, spaces] of [
    [A2A3, 'fx_cube', ['Mat', 'Left', 'Right', 'Acc', 'Bias']],
    [A5, 'fx_mx_matmul', ['Mat', 'Left', 'LeftScale', 'Right', 'RightScale', 'Acc', 'Bias']],
  ]) {
    await withPage(name, {}, async ({ page }) => {
      const c = await openCard(page, fnName);
      const { data, rules } = await pageData(page);
      const fn = data.functions.find((f) => f.name === fnName);
      const w = await laneWidths(c);
      assert.deepEqual(Object.keys(w).sort(), [...spaces].sort(), name);
      // One factor for every lane that can hold it; a lane too small for it is an inset at its own.
      const cuts = await cutsOf(page, fnName);
      const { widths, ks: factor } = expectedScale(rules, fn.spaces, 'limit', 1, await panelOf(page, fnName), cuts);
      for (const s of fn.spaces) near(w[s.space], widths[s.space], 0.5, `${name} ${s.space} lane width`);
      const geo = await boxGeometry(c);
      assert.equal(geo.length, fn.boxes.length);
      for (const g of geo) {
        const f = factor[g.space];
        const x = xOf(cuts, g.space, f, g.offset);
        near(g.x, x, 0.6, `${g.name} x`);
        near(g.w, Math.max(rules.min_box_px, xOf(cuts, g.space, f, g.offset + g.size) - x), 0.6, `${g.name} width`);
      }
    });
  }
});

test('a view is dashed, a conflict outlined, an alias chain and a tile parameter in the tooltip', async () => {
  await withPage(A2A3, {}, async ({ page }) => {
    const c = await openCard(page, 'fx_vector');
    assert.equal(await c.locator('.box.view').count(), 1);
    assert.equal(await c.locator('.box.view').getAttribute('data-name'), 'head__tile');
    assert.equal(await c.locator('.box.view').evaluate((e) => getComputedStyle(e).outlineStyle), 'dashed');
    const conflicts = await c.locator('.box.conflict').evaluateAll((els) => els.map((e) => e.dataset.name).sort());
    assert.deepEqual(conflicts, ['x__tile', 'y__tile']);
    const tip = page.locator('#pmm-tip');
    await c.locator('.box[data-name="y__tile"]').hover();
    assert.match(await tip.innerText(), /z__tile/);
    assert.match(await tip.innerText(), /conflict/);
    await c.locator('.box[data-name="scale__tile"]').hover();
    assert.match(await tip.innerText(), /param/);
    const cube = await openCard(page, 'fx_cube');
    // The loop holds its initial value to its end: the whole chain is one box.
    await cube.locator('.box[data-name="acc_init__tile"]').hover();
    const text = await tip.innerText();
    for (const alias of ['acc_next__tile', 'acc_phi__tile', 'acc__rv_v2']) assert.ok(text.includes(alias), `${alias} in ${text}`);
    await cube.locator('.box[data-name="a_l1__tile"]').hover();
    assert.match(await tip.innerText(), /fractal=512/);
  });
});

test('zoom, pin and the fragment work on a fixture page', async () => {
  await withPage(A2A3, {}, async ({ page }) => {
    const c = await openCard(page, 'fx_cube');
    const { rules } = await pageData(page);
    // A zoom scales each lane's bytes; a cut band keeps its width.
    const w0 = await scaledWidths(c);
    await c.getByRole('button', { name: 'Zoom in' }).click();
    const w1 = await scaledWidths(c);
    for (const s of Object.keys(w0)) near(w1[s] / w0[s], rules.zoom_step, 0.01 * rules.zoom_step, `${s} grows`);
    await c.locator('.box[data-name="b_l0__tile"]').click();
    const chip = c.locator('.pin-chip');
    assert.equal((await chip.innerText()).replace(/\s+/g, ' ').trim(), 'pinned b_l0__tile ×');
    await page.waitForFunction(() => location.hash.includes('pin=b_l0__tile'));
    assert.match(await page.evaluate(() => location.hash), /fn=fx_cube/);
    await page.keyboard.press('Escape');
    assert.ok(await chip.isHidden());
    assert.equal(await card(page, 'fx_cube').locator('.box[aria-pressed="true"]').count(), 0);
  });
});

test('x axis: used spans each lane to its high-water mark, on every space of Ascend950', async () => {
  await withPage(A5, {}, async ({ page }) => {
    const c = await openCard(page, 'fx_mx_matmul');
    const { data, rules } = await pageData(page);
    const fn = data.functions.find((f) => f.name === 'fx_mx_matmul');
    await c.locator('.axis-toggle').click();
    assert.match(await c.locator('.axis-toggle').innerText(), /used/);
    const { widths } = expectedScale(rules, fn.spaces, 'used', 1, await panelOf(page, 'fx_mx_matmul'), await cutsOf(page, 'fx_mx_matmul', 'used'));
    const w = await laneWidths(c);
    for (const s of fn.spaces) {
      assert.equal(Number(await c.locator(`.lane[data-space="${s.space}"]`).getAttribute('data-span')), s.hwm, s.space);
      near(w[s.space], widths[s.space], 0.5, `${s.space} width`);
    }
  });
});

test('show/hide: a hidden space gives its width to the others; the last one stays', async () => {
  await withPage(A2A3, {}, async ({ page }) => {
    const c = await openCard(page, 'fx_cube');
    const { data, rules } = await pageData(page);
    const fn = data.functions.find((f) => f.name === 'fx_cube');
    const spaces = () => c.locator('.lane').evaluateAll((ls) => ls.map((l) => l.dataset.space));
    assert.deepEqual(await spaces(), ['Mat', 'Left', 'Right', 'Acc', 'Bias']);
    await c.locator('.space-toggle[data-space="Bias"]').click();
    assert.deepEqual(await spaces(), ['Mat', 'Left', 'Right', 'Acc']);
    assert.equal(await c.locator('.box[data-space="Bias"]').count(), 0);
    const rest = fn.spaces.filter((s) => s.space !== 'Bias');
    const w = await laneWidths(c);
    const { widths } = expectedScale(rules, rest, 'limit', 1, await panelOf(page, 'fx_cube'), await cutsOf(page, 'fx_cube'));
    for (const s of rest) near(w[s.space], widths[s.space], 0.5, `${s.space} after hiding Bias`);
    for (const s of ['Mat', 'Left', 'Right']) await c.locator(`.space-toggle[data-space="${s}"]`).click();
    assert.deepEqual(await spaces(), ['Acc']);
    assert.equal(await c.locator('.space-toggle[data-space="Acc"]').getAttribute('aria-disabled'), 'true');
    // Per card: the AIV card keeps its lane.
    assert.equal(await (await openCard(page, 'fx_vector')).locator('.lane').count(), 1);
  });
});

test('the payloads inflate to the map and the plan the CLI writes', async () => {
  await withPage(A2A3, {}, async ({ page }) => {
    const { data: map } = await pageData(page);
    const data = await payload(page, 'pmm-data');
    const plan = await payload(page, 'pmm-plan');
    assert.deepEqual(data.functions.map((f) => f.name), map.functions.map((f) => f.name));
    for (const [i, f] of map.functions.entries()) {
      assert.deepEqual(data.functions[i].source, f.source, `${f.name}: its source lines`);
      assert.deepEqual(data.functions[i].spaces.map((s) => [s.space, s.hwm]), f.spaces.map((s) => [s.space, s.hwm]));
      const boxes = plan.cards.find((c) => c.function === f.name).boxes;
      assert.deepEqual(boxes.map((b) => [b.label.name, ...b.bytes]), f.boxes.map((b) => [b.name, b.offset, b.size]), `${f.name}: its boxes, once, in the plan`);
    }
    // What the page's own script inflated is what it draws.
    const c = await openCard(page, 'fx_cube');
    assert.equal(await c.locator('.box').count(), map.functions.find((f) => f.name === 'fx_cube').boxes.length);
  });
});

test('a card opened, a link followed or an overview row clicked before the data are inflated is taken up', async () => {
  // Hold the inflating back until told, as a slow machine or a page of hundreds of cards would.
  const hold = () => {
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    window.pmmRelease = () => release();
    const Real = window.DecompressionStream;
    window.DecompressionStream = class extends Real {
      constructor(format) {
        super(format);
        this.held = super.readable.pipeThrough(new TransformStream({ async transform(chunk, out) { await held; out.enqueue(chunk); } }));
      }
      get readable() { return this.held; }
    };
  };
  for (const scenario of ['open', 'link', 'overview']) {
    await withPage(A2A3, { wait: false, init: hold }, async ({ page }) => {
      await page.waitForFunction(() => document.readyState === 'complete');
      assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), undefined, 'still held');
      if (scenario === 'open') await card(page, 'fx_incore').locator('summary.card-head').click();
      if (scenario === 'link') await page.evaluate(() => { location.hash = 'fn=fx_incore&x=used'; });
      if (scenario === 'overview') await page.locator('table.ov a[href="#fn-fx_incore"]').click();
      await page.evaluate(() => window.pmmRelease());
      await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
      const c = card(page, 'fx_incore');
      assert.equal(await c.locator('.live-view').count(), 1, `${scenario}: the card is drawn live`);
      assert.ok(await c.locator('details.card-details').evaluate((d) => d.open), scenario);
      if (scenario === 'link') assert.match(await c.locator('.axis-toggle').innerText(), /used/, 'the link\'s view too');
    });
  }
});
