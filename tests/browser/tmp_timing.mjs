import { chromium } from 'playwright-core';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LAUNCH_ARGS, chromiumPath } from './helpers.mjs';
const [file, js = '1', runs = '3'] = process.argv.slice(2);
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = {};
for (let i = 0; i < +runs; i++) {
  const ctx = await chromium.launchPersistentContext(await mkdtemp(path.join(tmpdir(), 'pmmt-')), { executablePath: chromiumPath, headless: true, args: LAUNCH_ARGS, viewport: { width: 1400, height: 900 }, javaScriptEnabled: js === '1' });
  const page = ctx.pages()[0];
  page.on('pageerror', (e) => console.log('ERR', String(e)));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  if (js === '1') await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: 60000 });
  const t = js === '1' ? await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const r = { resp: nav.responseEnd, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd };
    for (const m of performance.getEntriesByType('mark')) r[m.name] = m.startTime; for (const m of performance.getEntriesByType('paint')) r[m.name] = m.startTime;
    return r;
  }) : { note: 'js off' };
  for (const [k, v] of Object.entries(t)) (out[k] ||= []).push(v);
  await ctx.close();
}
console.log(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, typeof v[0] === 'number' ? +med(v).toFixed(1) : v[0]])));
