// Findings first: the overview table lists every function worst first and sorts; a
// function's row opens its card; clicking a line number lists what is live there; overflow is
// drawn past a capacity line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, openCard, pageData, card } from './helpers.mjs';
import { pageCases, titled } from './cases.mjs';

const occupancy = (s) => (s.limit > 0 ? (s.hwm / s.limit) * 100 : 0);
const worst = (f) => Math.max(0, ...f.spaces.map(occupancy));

for (const k of pageCases()) {
  test(titled('the overview lists every function, the worst first, and sorts by any column', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const { data } = await pageData(page);
      const rows = page.locator('table.ov tbody tr');
      const names = await rows.evaluateAll((rs) => rs.map((r) => r.dataset.function));
      assert.deepEqual([...names].sort(), data.functions.map((f) => f.name).sort(), 'one row per function');
      // Worst first: errors, then warnings, then the fullest space.
      const count = (f, sev) => data.findings.filter((x) => x.function === f.name && x.severity === sev).length;
      const key = (f) => [count(f, 'error'), count(f, 'warning'), worst(f)];
      const byName = Object.fromEntries(data.functions.map((f) => [f.name, f]));
      for (let i = 1; i < names.length; i++) {
        const [a, b] = [key(byName[names[i - 1]]), key(byName[names[i]])];
        const cmp = a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
        assert.ok(cmp >= -1e-9, `${names[i - 1]} ${a} before ${names[i]} ${b}`);
      }
      assert.ok(await page.locator('table.ov').isVisible(), 'on the first screen');

      // A click on the Vec column sorts by Vec occupancy, largest first; a second click reverses.
      const vec = page.locator('table.ov th[data-space="Vec"]');
      const vecOf = (n) => { const s = byName[n].spaces.find((x) => x.space === 'Vec'); return s ? occupancy(s) : -Infinity; };
      await vec.click();
      assert.equal(await vec.getAttribute('aria-sort'), 'descending');
      let order = await rows.evaluateAll((rs) => rs.map((r) => r.dataset.function));
      for (let i = 1; i < order.length; i++) assert.ok(vecOf(order[i - 1]) >= vecOf(order[i]) - 0.06, `${order[i - 1]} before ${order[i]}`);
      await vec.click();
      assert.equal(await vec.getAttribute('aria-sort'), 'ascending');
      order = await rows.evaluateAll((rs) => rs.map((r) => r.dataset.function));
      for (let i = 1; i < order.length; i++) assert.ok(vecOf(order[i - 1]) <= vecOf(order[i]) + 0.06, `${order[i - 1]} before ${order[i]}`);
      // By name, A to Z.
      await page.locator('table.ov th', { hasText: 'function' }).click();
      order = await rows.evaluateAll((rs) => rs.map((r) => r.dataset.function));
      assert.deepEqual(order, [...order].sort((a, b) => a.localeCompare(b)));

      // A row opens its card.
      const last = order[order.length - 1];
      await page.locator(`table.ov tr[data-function="${last}"] a`).click();
      await card(page, last).locator('.live-view .plot').waitFor();
      assert.ok(await card(page, last).locator('details.card-details').evaluate((d) => d.open));
    });
  });
}

for (const k of pageCases()) {
  test(titled('clicking a line number lists the tiles live there, their total and the largest free range', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const { data } = await pageData(page);
      const f = data.functions.find((x) => x.name === k.main);
      const c = await openCard(page, f.name);
      for (const s of f.spaces.filter((x) => x.peak.bytes > 0)) {
        await c.locator(`.ln[data-line="${s.peak.line}"] .no`).click();
        const panel = c.locator('.live-at');
        assert.ok(await panel.isVisible());
        assert.match(await panel.innerText(), new RegExp(`live at L${s.peak.line}`));
        const sp = panel.locator(`.la-space[data-space="${s.space}"]`);
        assert.equal(Number(await sp.getAttribute('data-total')), s.peak.bytes, `${s.space}: the total is the peak`);
        const live = await sp.locator('li').evaluateAll((ls) => ls.map((l) => [l.dataset.name, Number(l.dataset.size)]));
        assert.deepEqual(live.map((x) => x[1]), s.peak.live.map((t) => t.size), `${s.space}: biggest first, as the JSON's live set`);
        const text = await sp.locator('.la-sum').innerText();
        assert.match(text, /live in \d+ tiles? · (largest free \d[\d.]* [KMG]?B at \[\d+, \d+\)|no free range)/, text);
        // The free range is the model's free space at this line: it lies in [0, capacity) and no live tile touches it.
        const m = text.match(/at \[(\d+), (\d+)\)/);
        if (m) {
          const [lo, hi] = [Number(m[1]), Number(m[2])];
          assert.ok(hi <= (s.limit > 0 ? s.limit : s.hwm));
          for (const t of s.peak.live) assert.ok(t.offset + t.size <= lo || t.offset >= hi, `${t.name} is not in the free range`);
        }
        // The same line twice closes the list.
        await c.locator(`.ln[data-line="${s.peak.line}"] .no`).click();
        assert.ok(!(await panel.isVisible()));
      }
    });
  });
}

test('a tile past its capacity is hatched past a capacity line', async () => {
  await withPage('find_overflow', {}, async ({ page }) => {
    const c = await openCard(page, 'too_big');
    const rule = c.locator('.lane[data-space="Vec"] .capacity.mk-rule');
    const hatch = c.locator('.lane[data-space="Vec"] .overflow.mk-hatch');
    assert.equal(await rule.count(), 1);
    assert.equal(await hatch.count(), 1);
    const r = await rule.boundingBox();
    const h = await hatch.boundingBox();
    assert.ok(h.width > 2 && h.height > 2, 'the hatching has an area');
    assert.ok(Math.abs(h.x - r.x) < 2.5, `the hatching starts at the capacity line (${h.x} vs ${r.x})`);
    const bg = await hatch.evaluate((n) => getComputedStyle(n).backgroundImage);
    assert.match(bg, /repeating-linear-gradient/);
    // The card's head says what is wrong before it is opened.
    assert.match(await card(page, 'too_big').locator('summary .badge.err').innerText(), /overflow/);
  });
});
