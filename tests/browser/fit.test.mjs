// Opening the IR source keeps every lane in sight (PyPTO's page pushes them off screen), on the
// one shared factor and the 72 px minimum; closing it gives the zoom back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, openCard, pageData, near } from './helpers.mjs';
import { pageCases, titled } from './cases.mjs';

/** Right edge of the last lane and of the plot's visible area, and each lane's width per span byte. */
async function lanesInSight(c) {
  return c.evaluate((root) => {
    const plot = root.querySelector('.plot').getBoundingClientRect();
    // A lane's bytes to scale are its span less a cut band's bytes; the band keeps its width.
    const lanes = [...root.querySelectorAll('.lane')].map((l) => {
      const [from, to] = (l.dataset.cut || '0 0').split(' ').map(Number);
      const band = l.querySelector(':scope > .cut:not([hidden])');
      const bandW = band ? band.getBoundingClientRect().width : 0;
      return { r: l.getBoundingClientRect(), span: Number(l.dataset.span) - (to - from), bandW, inset: l.classList.contains('inset') };
    });
    // An inset has its own factor; every other lane has the card's.
    const main = lanes.filter((l) => !l.inset);
    return {
      right: Math.max(...lanes.map((l) => l.r.right)),
      plotRight: plot.right,
      factors: main.map((l) => (l.r.width - l.bandW) / l.span),
      narrowest: Math.min(...lanes.map((l) => l.r.width)),
    };
  });
}

for (const k of pageCases()) {
  test(titled('opening the source zooms the map out to fit beside it; closing it zooms back', k), async () => {
    // online_softmax's one Vec lane is far wider than 72 px at zoom 1: beside the source it fits at
    // a smaller zoom.
    await withPage(k.page, { viewport: { width: 1600, height: 900 } }, async ({ page }) => {
      const { rules } = await pageData(page);
      const c = await openCard(page, k.long);
      const closed = await lanesInSight(c);
      await c.getByRole('button', { name: 'Show IR source' }).click();
      const open = await lanesInSight(c);
      assert.ok(open.right <= open.plotRight + 1, `the last lane ends at ${open.right}, the plot at ${open.plotRight}`);
      for (const f of open.factors) near(f, open.factors[0], 1e-3 * open.factors[0], 'one factor for every lane');
      assert.ok(open.narrowest >= rules.min_lane_px - 0.5, `narrowest lane ${open.narrowest} px`);
      const level = await c.locator('.zoom-level').innerText();
      assert.notEqual(level, '1.0×', 'the zoom level says the map was zoomed out');
      assert.ok(Number(await c.getAttribute('data-zoom')) < 1);
      await c.getByRole('button', { name: 'Hide IR source' }).click();
      assert.equal(await c.getAttribute('data-zoom'), '1');
      near((await lanesInSight(c)).factors[0], closed.factors[0], 1e-3 * closed.factors[0], 'back to the closed factor');

      // A zoom chosen while the source is open stays when it closes.
      await c.getByRole('button', { name: 'Show IR source' }).click();
      await c.getByRole('button', { name: 'Reset zoom' }).click();
      await c.getByRole('button', { name: 'Hide IR source' }).click();
      assert.equal(await c.getAttribute('data-zoom'), '1');
      await c.getByRole('button', { name: 'Show IR source' }).click();
      await c.getByRole('button', { name: 'Zoom in' }).click();
      const chosen = await c.getAttribute('data-zoom');
      await c.getByRole('button', { name: 'Hide IR source' }).click();
      assert.equal(await c.getAttribute('data-zoom'), chosen);
    });
  });
}

for (const k of pageCases()) {
  test(titled('the fit stops where the narrowest lane would fall under 72 px', k), async () => {
    // At 1400 px k_proj's 64 KiB lanes would need to be narrower than 72 px to fit: the map zooms
    // out as far as the rule allows and scrolls the rest.
    await withPage(k.page, {}, async ({ page }) => {
      const { rules } = await pageData(page);
      const c = await openCard(page, k.wide);
      await c.getByRole('button', { name: 'Show IR source' }).click();
      const open = await lanesInSight(c);
      assert.ok(Number(await c.getAttribute('data-zoom')) < 1, 'zoomed out');
      assert.ok(open.right > open.plotRight + 1, 'k_proj does not fit beside the source: the case this test is about');
      near(open.narrowest, rules.min_lane_px, 0.5, 'narrowest lane at the minimum');
    });
  });
}

for (const k of pageCases()) {
  test(titled('pinning a box in the last lane opens the source with the box in sight', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      const last = fn.spaces[fn.spaces.length - 1].space;
      const target = fn.boxes.find((b) => b.space === last);
      const c = await openCard(page, k.main);
      await c.locator(`.box[data-name="${target.name}"]`).click();
      assert.ok(await c.evaluate((e) => e.classList.contains('src-open')), 'the pin opened the source');
      const seen = await c.evaluate((root, name) => {
        const plot = root.querySelector('.plot').getBoundingClientRect();
        const left = root.querySelector('.left').getBoundingClientRect();
        const box = root.querySelector(`.box[data-name="${name}"]`).getBoundingClientRect();
        return box.left >= left.right - 1 && box.right <= plot.right + 1;
      }, target.name);
      assert.ok(seen, `${target.name} (${last}) is beside the source, not behind or past it`);
    });
  });
}
