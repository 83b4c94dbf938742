// The live list's figures are the plan's (Rust's), looked up: at every line of a card, the total and
// the largest free range the page shows are the rule's, recomputed here from the map's JSON boxes
// independently of the page, and at the peak line the total is the JSON's peak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, openCard, pageData } from './helpers.mjs';

/** The union of the bytes of `boxes` live at `line`. */
function liveTotal(boxes, line) {
  const busy = boxes.filter((b) => b.start <= line && line <= (b.live_end ?? b.end) && b.size > 0)
    .map((b) => [b.offset, b.offset + b.size]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let total = 0;
  let reach = -Infinity;
  for (const [lo0, hi] of busy) {
    const lo = Math.max(lo0, reach);
    if (hi > lo) { total += hi - lo; reach = hi; }
  }
  return total;
}

/** The largest free range of [0, capacity) among `boxes` live at `line`, first of the largest. */
function largestFree(boxes, capacity, line) {
  const busy = boxes.filter((b) => b.start <= line && line <= (b.live_end ?? b.end) && b.size > 0)
    .map((b) => [b.offset, b.offset + b.size]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let best = { offset: 0, size: 0 };
  let at = 0;
  const consider = (offset, size) => { if (size > best.size) best = { offset, size }; };
  for (const [lo, hi] of busy) {
    if (lo > at && at < capacity) consider(at, Math.min(lo, capacity) - at);
    at = Math.max(at, hi);
  }
  if (at < capacity) consider(at, capacity - at);
  return best;
}

test('every line of a card lists the live total and largest free range Rust computed', async () => {
  await withPage('demo_case', {}, async ({ page }) => {
    const { data } = await pageData(page);
    // The function with the most boxes: overlaps, views and conflicts make the figures move.
    const f = [...data.functions].sort((a, b) => b.boxes.length - a.boxes.length)[0];
    const c = await openCard(page, f.name);
    const panel = c.locator('.live-at');
    let checked = 0;
    for (let line = f.src_start; line <= f.src_end; line++) {
      const no = c.locator(`.ln[data-line="${line}"] .no`);
      if ((await no.count()) === 0) continue;
      await no.click();
      assert.ok(await panel.isVisible(), `L${line}: the list opens`);
      for (const s of f.spaces) {
        const sp = panel.locator(`.la-space[data-space="${s.space}"]`);
        // The boxes, held to live_end, and the placed windows, which hold their bytes on every line.
        const windows = (f.reserved || []).filter((r) => r.space === s.space && r.offset != null)
          .map((r) => ({ start: f.src_start, end: f.src_end, offset: r.offset, size: r.size }));
        const mine = f.boxes.filter((b) => b.space === s.space).concat(windows);
        const total = Number(await sp.getAttribute('data-total'));
        assert.equal(total, liveTotal(mine, line), `${s.space} L${line}: total`);
        if (line === s.peak.line) assert.equal(total, s.peak.bytes, `${s.space} L${line}: the peak`);
        const want = largestFree(mine, s.limit > 0 ? s.limit : s.hwm, line);
        const text = await sp.locator('.la-sum').innerText();
        if (want.size > 0) {
          assert.ok(text.includes(`at [${want.offset}, ${want.offset + want.size})`), `${s.space} L${line}: ${text} (want ${JSON.stringify(want)})`);
        } else {
          assert.match(text, /no free range/, `${s.space} L${line}`);
        }
      }
      checked++;
    }
    assert.ok(checked > 10, `${checked} lines checked`);
  });
});
