// Screenshots of a few states, for a person to look at (PMM_SHOTS, default /tmp/shots).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { withPage, card, openCard, pageData, shotsDir, needsCorpus } from './helpers.mjs';

const DECODE = 'decode_fwd_layers';

async function shoot(page, name, opts = {}) {
  await mkdir(shotsDir, { recursive: true });
  const file = path.join(shotsDir, `${name}.png`);
  await page.screenshot({ path: file, ...opts });
  assert.ok((await stat(file)).size > 10_000, `${file} has content`);
}

test('screenshots: overview, down_proj with source and a pin, dark mode, views, no script', needsCorpus(DECODE, 'test_layer_norm_core'), async () => {
  await withPage(DECODE, {}, async ({ page }) => {
    await shoot(page, 'overview');
    const { data } = await pageData(page);
    const fn = data.functions.find((f) => f.name === 'down_proj');
    const pin = fn.boxes.find((b) => b.aliases.length >= 3);
    const c = await openCard(page, 'down_proj');
    await c.locator(`.box[data-name="${pin.name}"]`).click();
    await c.locator('.plot').evaluate((p) => { p.scrollTop = 0; p.scrollLeft = 0; });
    await c.locator(`.box[data-name="${fn.boxes[2].name}"]`).hover();
    await c.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, document.querySelector('[data-function="down_proj"]').getBoundingClientRect().top - 8));
    await shoot(page, 'down_proj-source-pinned');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.mouse.move(2, 2);
    await shoot(page, 'down_proj-dark');
    await c.getByRole('button', { name: 'Zoom in' }).click();
    await c.getByRole('button', { name: 'Zoom in' }).click();
    await c.locator('.axis-toggle').click();
    await shoot(page, 'down_proj-dark-zoom-used');
  });
  await withPage('test_layer_norm_core', {}, async ({ page }) => {
    const { data } = await pageData(page);
    const fn = data.functions[0];
    const c = card(page, fn.name);
    await c.getByRole('button', { name: 'Show IR source' }).click();
    const v = fn.boxes.find((b) => b.view);
    await c.locator(`.box[data-name="${v.name}"]`).hover();
    await shoot(page, 'layer_norm-views', { fullPage: true });
  });
  await withPage(DECODE, { javaScriptEnabled: false }, async ({ page }) => {
    await shoot(page, 'no-script');
  });
});
