// Screenshots of a few states, for a person to look at (PMM_SHOTS, default /tmp/shots).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { withPage, card, openCard, pageData, shotsDir } from './helpers.mjs';
import { pageCases, viewCases, titled } from './cases.mjs';

async function shoot(page, name, opts = {}) {
  await mkdir(shotsDir, { recursive: true });
  const file = path.join(shotsDir, `${name}.png`);
  await page.screenshot({ path: file, ...opts });
  assert.ok((await stat(file)).size > 10_000, `${file} has content`);
}

for (const k of pageCases()) {
  test(titled('screenshots: overview, a cube card with source and a pin, dark mode, no script', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      await shoot(page, `${k.page}-overview`);
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      const pin = fn.boxes.find((b) => b.aliases.length >= 3);
      const c = await openCard(page, k.main);
      await c.locator(`.box[data-name="${pin.name}"]`).click();
      await c.locator('.plot').evaluate((p) => { p.scrollTop = 0; p.scrollLeft = 0; });
      await c.locator(`.box[data-name="${fn.boxes[2].name}"]`).hover();
      await c.scrollIntoViewIfNeeded();
      await page.evaluate((name) => window.scrollBy(0, document.querySelector(`[data-function="${name}"]`).getBoundingClientRect().top - 8), k.main);
      await shoot(page, `${k.page}-${k.main}-source-pinned`);
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.mouse.move(2, 2);
      await shoot(page, `${k.page}-${k.main}-dark`);
      await c.getByRole('button', { name: 'Zoom in' }).click();
      await c.getByRole('button', { name: 'Zoom in' }).click();
      await c.locator('.axis-toggle').click();
      await shoot(page, `${k.page}-${k.main}-dark-zoom-used`);
    });
    await withPage(k.page, { javaScriptEnabled: false }, async ({ page }) => {
      await shoot(page, `${k.page}-no-script`);
    });
  });
}

for (const k of viewCases()) {
  test(titled('screenshot: views, with the source open', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.fn);
      const c = await openCard(page, fn.name);
      await c.getByRole('button', { name: 'Show IR source' }).click();
      const v = fn.boxes.find((b) => b.view);
      await c.locator(`.box[data-name="${v.name}"]`).hover();
      await shoot(page, `${k.page}-${k.fn}-views`, { fullPage: true });
    });
  });
}
