// The map itself: one shared byte scale, zoom, the x axis, and showing/hiding spaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, card, openCard, pageData, laneWidths, scaledWidths, near, expectedScale, panelOf, boxGeometry, cutsOf, xOf } from './helpers.mjs';
import { pageCases, titled } from './cases.mjs';

for (const k of pageCases()) {
  test(titled('lanes share one px/byte factor and boxes sit on their bytes', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const { data, rules } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      const panel = await panelOf(page, k.main);
      const cuts = await cutsOf(page, k.main);
      const { widths, ks } = expectedScale(rules, fn.spaces, 'limit', 1, panel, cuts);
      const w = await laneWidths(c);
      for (const s of fn.spaces) near(w[s.space], widths[s.space], 0.5, `${s.space} lane width`);
      // Without cut bands, 512 KB of Mat is exactly eight times 64 KB of Left.
      if (!cuts.bytes.Mat && !cuts.bytes.Left) near(w.Mat / w.Left, 8, 0.01, 'Mat/Left');
      const geo = await boxGeometry(c);
      assert.equal(geo.length, fn.boxes.length);
      // Each lane's own factor: the card's, or an inset's (its bytes to scale fill its width less a band).
      const own = ks;
      for (const g of geo) {
        const x = xOf(cuts, g.space, own[g.space], g.offset);
        near(g.x, x, 0.6, `${g.name} x`);
        near(g.w, Math.max(rules.min_box_px, xOf(cuts, g.space, own[g.space], g.offset + g.size) - x), 0.6, `${g.name} width`);
      }
      // The narrowest-lane rule: with x=used, Left (1 KB) would be 3 px wide, so it is an inset.
      await c.locator('.axis-toggle').click();
      const wu = await laneWidths(c);
      near(wu.Left, rules.inset_px, 0.5, 'a lane too narrow for the scale is an inset');
      assert.match(await c.locator('.lane-head[data-space="Left"] .lh-inset').innerText(), /^x[\d.]+, not to scale$/);
      assert.ok(await c.locator('.lane[data-space="Left"]').evaluate((l) => l.classList.contains('inset')));
    });
  });
}

for (const k of pageCases()) {
  test(titled('zoom buttons: ×1.6 per click on every lane, reset, and bounds', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const { rules } = await pageData(page);
      const zin = c.getByRole('button', { name: 'Zoom in' });
      const zout = c.getByRole('button', { name: 'Zoom out' });
      const reset = c.getByRole('button', { name: 'Reset zoom' });
      assert.equal(await reset.innerText(), '1.0×');
      const w0 = await scaledWidths(c);
      await zin.click();
      const w1 = await scaledWidths(c);
      for (const s of Object.keys(w0)) near(w1[s] / w0[s], rules.zoom_step, 0.01 * rules.zoom_step, `${s} grows ×${rules.zoom_step}`);
      assert.equal(await reset.innerText(), '1.6×');
      await zout.click();
      await zout.click();
      const w2 = await scaledWidths(c);
      for (const s of Object.keys(w0)) near(w2[s] * rules.zoom_step, w0[s], 0.01 * w0[s], `${s} shrinks ÷${rules.zoom_step}`);
      await reset.click();
      assert.equal(await reset.innerText(), '1.0×');
      const w3 = await scaledWidths(c);
      for (const s of Object.keys(w0)) near(w3[s], w0[s], 0.01 * w0[s], `${s} back to 1×`);

      for (let i = 0; i < 20; i++) if (await zin.isEnabled()) await zin.click();
      assert.equal(Number(await c.getAttribute('data-zoom')), rules.zoom_max);
      assert.equal(await reset.innerText(), `${rules.zoom_max.toFixed(1)}×`);
      const wMax = await scaledWidths(c);
      for (const s of Object.keys(w0)) near(wMax[s], w0[s] * rules.zoom_max, 0.01 * w0[s] * rules.zoom_max, `${s} at max zoom`);
      await reset.click();
      for (let i = 0; i < 20; i++) if (await zout.isEnabled()) await zout.click();
      // The card states its zoom to four places.
      near(Number(await c.getAttribute('data-zoom')), rules.zoom_min, 1e-4, 'at the smallest zoom');
      assert.ok(await zout.isDisabled());
      const wMin = await scaledWidths(c);
      for (const s of Object.keys(w0)) near(wMin[s], w0[s] * rules.zoom_min, 0.01 * w0[s] * rules.zoom_min + 0.5, `${s} at min zoom`);
    });
  });
}

/** Where `byte` of `space` is in viewport x. */
async function byteX(c, space, byte) {
  return c.locator(`.lane[data-space="${space}"]`).evaluate((lane, b) => {
    const k = Number(getComputedStyle(lane).getPropertyValue('--k'));
    return lane.getBoundingClientRect().left + b * k;
  }, byte);
}

for (const k of pageCases()) {
  test(titled('Ctrl+wheel zooms around the pointer; a plain wheel pans', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      await c.scrollIntoViewIfNeeded();
      const plot = await c.locator('.plot').boundingBox();
      const y = plot.y + 120;
      // Anchor at the case's Mat byte (a tile's start, mid-lane). Pointer positions are whole pixels in the
      // events the page sees, so take the byte under a whole-pixel x.
      const x = Math.round(await byteX(c, 'Mat', k.anchor));
      const byte = await c.locator('.lane[data-space="Mat"]').evaluate((lane, px) => (px - lane.getBoundingClientRect().left) / Number(getComputedStyle(lane).getPropertyValue('--k')), x);
      assert.ok(x > plot.x + 60 && x < plot.x + plot.width - 10, 'anchor byte is on screen');
      await page.mouse.move(x, y);
      const scrollY0 = await page.evaluate(() => window.scrollY);
      await page.keyboard.down('Control');
      await page.mouse.wheel(0, -100);
      await page.keyboard.up('Control');
      await page.waitForFunction((el) => el.dataset.zoom !== '1', await c.elementHandle());
      const z = Number(await c.getAttribute('data-zoom'));
      assert.ok(z > 1.5, `zoomed in (${z})`);
      near(await byteX(c, 'Mat', byte), x, 2, 'byte under the pointer stays');
      assert.equal(await page.evaluate(() => window.scrollY), scrollY0, 'ctrl+wheel does not scroll the page');
      // Twice more, then back out: the byte still stays put.
      for (const dy of [-100, -100, 100]) {
        await page.keyboard.down('Control');
        await page.mouse.wheel(0, dy);
        await page.keyboard.up('Control');
        await page.waitForTimeout(50);
        near(await byteX(c, 'Mat', byte), x, 2, `byte under the pointer stays after wheel ${dy}`);
      }
      // Plain wheel: no zoom change; the plot scrolls.
      const zoomBefore = await c.getAttribute('data-zoom');
      const st0 = await c.locator('.plot').evaluate((p) => p.scrollTop);
      await page.mouse.wheel(0, 200);
      await page.waitForTimeout(200);
      assert.equal(await c.getAttribute('data-zoom'), zoomBefore);
      const st1 = await c.locator('.plot').evaluate((p) => p.scrollTop);
      assert.ok(st1 > st0, `plain wheel scrolls the plot (${st0} -> ${st1})`);
    });
  });
}

for (const k of pageCases()) {
  test(titled('x axis: used makes each lane span its high-water mark', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const { data, rules } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      const toggle = c.locator('.axis-toggle');
      assert.match(await toggle.innerText(), /limit/);
      await toggle.click();
      assert.match(await toggle.innerText(), /used/);
      const { widths } = expectedScale(rules, fn.spaces, 'used', 1, await panelOf(page, k.main), await cutsOf(page, k.main, 'used'));
      const w = await laneWidths(c);
      for (const s of fn.spaces) {
        const lane = c.locator(`.lane[data-space="${s.space}"]`);
        assert.equal(Number(await lane.getAttribute('data-span')), s.hwm, `${s.space} spans its hwm`);
        near(w[s.space], widths[s.space], 0.5, `${s.space} width`);
        // The high-water line sits on the lane's right edge, and the highest box ends there too.
        const hw = await lane.evaluate((l) => l.querySelector('.hwm').getBoundingClientRect().left - l.getBoundingClientRect().right);
        near(hw, 0, 1.5, `${s.space} hwm line at the right edge`);
        const end = await lane.evaluate((l) => Math.max(...[...l.querySelectorAll('.box')].map((b) => b.getBoundingClientRect().right)) - l.getBoundingClientRect().right);
        near(end, 0, 0.6, `${s.space} highest box ends at the edge`);
      }
      assert.match(await c.locator('.lane-head[data-space="Mat"] .lh-end').innerText(), k.matUsed);
      await toggle.click();
      for (const s of fn.spaces) assert.equal(Number(await c.locator(`.lane[data-space="${s.space}"]`).getAttribute('data-span')), s.limit);
    });
  });
}

for (const k of pageCases()) {
  test(titled('show/hide spaces: the lane goes, the rest share the width, the last stays', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const { data, rules } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      const spaces = () => c.locator('.lane').evaluateAll((ls) => ls.map((l) => l.dataset.space));
      const heads = () => c.locator('.lane-head').evaluateAll((ls) => ls.map((l) => l.dataset.space));
      assert.deepEqual(await spaces(), ['Mat', 'Left', 'Right', 'Acc']);
      await c.locator('.space-toggle[data-space="Mat"]').click();
      assert.deepEqual(await spaces(), ['Left', 'Right', 'Acc']);
      assert.deepEqual(await heads(), ['Left', 'Right', 'Acc']);
      assert.equal(await c.locator('.box[data-space="Mat"]').count(), 0, 'its boxes go with it');
      const left = fn.spaces.filter((s) => s.space !== 'Mat');
      const { widths } = expectedScale(rules, left, 'limit', 1, await panelOf(page, k.main), await cutsOf(page, k.main));
      const w = await laneWidths(c);
      for (const s of left) near(w[s.space], widths[s.space], 0.5, `${s.space} after hiding Mat`);
      // Lanes stay side by side: no gap where Mat was.
      const xs = await c.locator('.lane').evaluateAll((ls) => ls.map((l) => [l.getBoundingClientRect().left, l.getBoundingClientRect().right]));
      for (let i = 1; i < xs.length; i++) near(xs[i][0], xs[i - 1][1], 0.5, 'adjacent lanes');

      await c.locator('.space-toggle[data-space="Left"]').click();
      await c.locator('.space-toggle[data-space="Right"]').click();
      assert.deepEqual(await spaces(), ['Acc']);
      const last = c.locator('.space-toggle[data-space="Acc"]');
      assert.equal(await last.getAttribute('aria-disabled'), 'true');
      await last.click({ force: true }); // aria-disabled: Playwright would otherwise wait for it to enable
      assert.deepEqual(await spaces(), ['Acc'], 'the last visible space cannot be hidden');
      await c.locator('.space-toggle[data-space="Mat"]').click();
      assert.deepEqual(await spaces(), ['Mat', 'Acc'], 'shown again in panel order');
      // Per card: another card is untouched.
      const other = await openCard(page, k.twin);
      assert.equal(await other.locator('.lane').count(), 4);
    });
  });
}

for (const k of pageCases()) {
  test(titled('gridlines every 5 lines and a dashed high-water line per lane', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const { rules } = await pageData(page);
      const lane = c.locator('.lane[data-space="Mat"]');
      const bg = await lane.evaluate((l) => getComputedStyle(l).backgroundImage);
      assert.match(bg, /repeating-linear-gradient/);
      assert.match(bg, new RegExp(`${5 * rules.line_px - 1}px`));
      const hwm = await lane.evaluate((l) => getComputedStyle(l.querySelector('.hwm')).borderLeftStyle);
      assert.equal(hwm, 'dashed');
      // The band marks are inset: the lane's own width is its bytes only.
      const sh = await lane.evaluate((l) => getComputedStyle(l).boxShadow);
      assert.match(sh, /inset/);
      const headSh = await c.locator('.lane-head[data-space="Mat"]').evaluate((l) => getComputedStyle(l).boxShadow);
      assert.match(headSh, /inset/);
      assert.equal(await lane.evaluate((l) => getComputedStyle(l).borderLeftWidth), '0px');
    });
  });
}
