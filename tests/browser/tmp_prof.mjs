import { chromium } from 'playwright-core';
import { pathToFileURL } from 'node:url';
import { LAUNCH_ARGS, chromiumPath } from './helpers.mjs';
const [file] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: LAUNCH_ARGS });
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: 60000 });
const { profile } = await cdp.send('Profiler.stop');
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas; let i = 0;
for (const s of profile.samples) { const n = byId.get(s); const k = `${n.callFrame.functionName || '(anon)'}:${n.callFrame.lineNumber + 1}`; self.set(k, (self.get(k) || 0) + dt[i++] / 1000); }
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${k.padEnd(40)} ${v.toFixed(1)}`).join('\n'));
await browser.close();
