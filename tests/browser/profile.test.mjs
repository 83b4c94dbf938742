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
        const top = p.getBoundingClientRect().top;
        const bars = [...p.querySelectorAll('.bar')].map((b) => {
          const r = b.getBoundingClientRect();
          return { top: r.top - top, bottom: r.bottom - top, width: r.width };
        });
        return {
          space: p.dataset.space, peak: Number(p.dataset.peak), line: Number(p.dataset.peakLine),
          width: p.getBoundingClientRect().width, bars,
        };
      }));
      assert.deepEqual(cols.map((p) => p.space), fn.spaces.map((s) => s.space), 'one column per space, in lane order');
      for (const p of cols) {
        const sp = fn.spaces.find((s) => s.space === p.space);
        assert.equal(p.peak, sp.peak.bytes, `${p.space} peak bytes`);
        assert.equal(p.line, sp.peak.line, `${p.space} peak line`);
        assert.ok(Math.abs(p.width - rules.profile_px) < 0.5, `${p.space} column is ${p.width} px`);
        // A bar covers the peak line's row, and none is wider (the columns share the card's byte
        // scale, so a small space's bars may all be at the 1 px floor: as wide, not wider).
        const row = (sp.peak.line - fn.src_start) * rules.line_px;
        const peak = p.bars.find((b) => b.top <= row + 0.5 && b.bottom >= row + rules.line_px - 0.5);
        assert.ok(peak, `${p.space}: a bar on the peak line L${sp.peak.line}`);
        for (const b of p.bars) assert.ok(b.width <= peak.width + 0.5, `${p.space}: a bar wider than the peak's`);
        // One byte scale for the card: the largest peak fills the column's room, the others in
        // proportion.
        const full = Math.max(...fn.spaces.map((s) => s.peak.bytes));
        const room = rules.profile_px - 6;
        const want = Math.max((sp.peak.bytes / full) * room, 1);
        assert.ok(Math.abs(peak.width - want) < 1, `${p.space}: peak bar ${peak.width} px, ${want} px on the card's scale`);
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
