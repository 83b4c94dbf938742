// The diff page shows both sides of each changed function at once in a 1500 px viewport, on one
// byte scale. The page is static (no script), so it is read as mail clients and trackers show it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, near } from './helpers.mjs';

test('old and new of each pair are side by side in a 1500 px viewport, on one byte scale', async () => {
  await withPage('diff_demo', { viewport: { width: 1500, height: 1000 }, javaScriptEnabled: false }, async ({ page }) => {
    const cards = await page.evaluate(() => [...document.querySelectorAll('svg g.card')].map((c) => {
      const r = c.getBoundingClientRect();
      const lanes = [...c.querySelectorAll('g.lane')].map((l) => l.getBoundingClientRect().width / Number(l.dataset.span));
      return { fn: c.dataset.function, left: r.left, right: r.right, top: r.top, bottom: r.bottom, perByte: lanes };
    }));
    assert.equal(cards.length, 4, 'two changed functions, two sides each');
    for (let i = 0; i < cards.length; i += 2) {
      const [old, neu] = [cards[i], cards[i + 1]];
      assert.equal(old.fn, neu.fn);
      assert.ok(old.left >= 0 && neu.right <= 1500, `${old.fn}: ${old.left}..${neu.right} is inside the viewport`);
      assert.ok(old.right <= neu.left, `${old.fn}: side by side`);
      near(old.top, neu.top, 0.5, `${old.fn}: both at one height`);
      for (const f of [...old.perByte, ...neu.perByte]) near(f, old.perByte[0], 1e-3 * old.perByte[0], `${old.fn}: one byte scale`);
    }
    // The first pair is in view without scrolling.
    assert.ok(cards[0].bottom <= 1000 && cards[1].bottom <= 1000, `first pair ends at ${cards[0].bottom}`);
  });
});
