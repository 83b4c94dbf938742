// The live-bytes profile beside the lanes, in the interactive view as in the static picture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, openCard, pageData } from './helpers.mjs';
import { pageCases, titled } from './cases.mjs';

for (const k of pageCases()) {
  test(titled('each visible space has its live-bytes column, peaking where the map data says', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const { data, rules } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      const c = await openCard(page, k.main);
      const cols = await c.locator('.profile').evaluateAll((ps) => ps.map((p) => {
        const bars = [...p.querySelectorAll('.bar')].map((b) => b.getBoundingClientRect());
        const top = p.getBoundingClientRect().top;
        const widest = bars.reduce((a, b) => (b.width > a.width ? b : a), { width: 0 });
        return {
          space: p.dataset.space, peak: Number(p.dataset.peak), line: Number(p.dataset.peakLine),
          width: p.getBoundingClientRect().width, widestTop: widest.top - top, widestBottom: widest.bottom - top,
        };
      }));
      assert.deepEqual(cols.map((p) => p.space), fn.spaces.map((s) => s.space), 'one column per space, in lane order');
      for (const p of cols) {
        const sp = fn.spaces.find((s) => s.space === p.space);
        assert.equal(p.peak, sp.peak.bytes, `${p.space} peak bytes`);
        assert.equal(p.line, sp.peak.line, `${p.space} peak line`);
        assert.ok(Math.abs(p.width - rules.profile_px) < 0.5, `${p.space} column is ${p.width} px`);
        // The widest bar is the peak, and it covers the peak line's row.
        const row = (sp.peak.line - fn.src_start) * rules.line_px;
        assert.ok(p.widestTop <= row + 0.5 && p.widestBottom >= row + rules.line_px - 0.5, `${p.space}: peak bar on L${sp.peak.line}`);
      }
      // Hiding a space takes its column too.
      await c.locator('.space-toggle[data-space="Left"]').click();
      assert.deepEqual(await c.locator('.profile').evaluateAll((ps) => ps.map((p) => p.dataset.space)),
        fn.spaces.map((s) => s.space).filter((s) => s !== 'Left'));
      await c.locator('.space-toggle[data-space="Left"]').click();
      assert.equal(await c.locator('.profile').count(), fn.spaces.length);
    });
  });
}
