import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';
import { LAUNCH_ARGS, chromiumPath } from './helpers.mjs';
const [file] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: LAUNCH_ARGS });
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await browser.startTracing(page, { categories: ['devtools.timeline', 'blink.user_timing', 'v8.execute'] });
await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: 60000 });
const ready = await page.evaluate(() => performance.getEntriesByName('pmm-ready')[0]?.startTime);
await page.waitForTimeout(300);
const buf = await browser.stopTracing();
const ev = JSON.parse(buf.toString()).traceEvents;
const nav = ev.find((e) => e.name === 'navigationStart' || e.name === 'NavigationTimingStart') || ev.find(e=>e.name==='TracingStartedInBrowser');
const tot = {};
// top-level durations on the renderer main thread
const main = ev.filter((e) => e.ph === 'X' && e.dur);
for (const e of main) { tot[e.name] = (tot[e.name] || 0) + e.dur / 1000; }
console.log('ready', ready);
console.log(Object.entries(tot).sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${k.padEnd(32)} ${v.toFixed(1)}`).join('\n'));
await browser.close();
