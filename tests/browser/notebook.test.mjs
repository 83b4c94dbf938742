// The interactive page as a notebook shows it (the Python package's Drawing._repr_html_): inside an
// iframe srcdoc sandboxed to scripts only, the page still starts and answers, and cannot reach the
// notebook around it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage } from './helpers.mjs';

test('the page runs inside the sandboxed notebook frame and is cut off from the notebook', async () => {
  await withPage('notebook_frame', { wait: false }, async ({ page }) => {
    const iframe = page.locator('iframe');
    assert.equal(await iframe.getAttribute('sandbox'), 'allow-scripts');
    // The frame's move from about:blank to its srcdoc may reach Playwright after the notebook's
    // load event (once in a CI run on a busy machine): wait for it rather than look once.
    let frame;
    for (const end = Date.now() + 5000; !frame && Date.now() < end; ) {
      frame = page.frames().find((f) => f.url() === 'about:srcdoc');
      if (!frame) await page.waitForTimeout(20);
    }
    assert.ok(frame, 'the srcdoc frame is loaded');
    await frame.waitForFunction(() => document.documentElement.dataset.ready === '1');
    // Opaque origin: no way up into the notebook's document, no storage of its origin.
    const reach = await frame.evaluate(() => {
      try { return window.parent.document ? 'reached the notebook' : 'no document'; } catch { return 'blocked'; }
    });
    assert.equal(reach, 'blocked');
    assert.equal(await frame.evaluate(() => window.origin), 'null');
    // And the page answers: the open card's zoom works as on its own. The notebook around the
    // frame did not scroll to it.
    const c = frame.locator('section.card[data-function="row_softmax"]');
    await c.locator('.live-view .plot').waitFor();
    const reset = c.getByRole('button', { name: 'Reset zoom' });
    assert.equal(await reset.innerText(), '1.0×');
    await c.getByRole('button', { name: 'Zoom in' }).click();
    assert.equal(await reset.innerText(), '1.6×');
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the notebook stays where it was');
    const box = await iframe.boundingBox();
    assert.ok(box.height >= 880, `the frame keeps its height (${box.height})`);
  });
});
