import { chromium } from 'playwright-core';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LAUNCH_ARGS, chromiumPath } from './helpers.mjs';
const [file] = process.argv.slice(2);
const ctx = await chromium.launchPersistentContext(await mkdtemp(path.join(tmpdir(), 'pmmt-')), { executablePath: chromiumPath, headless: true, args: LAUNCH_ARGS, viewport: { width: 1400, height: 900 } });
const page = ctx.pages()[0];
await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
await page.waitForTimeout(500);
const r = await page.evaluate(async () => {
  const out = {};
  const text = document.getElementById('pmm-plan').textContent;
  let t = performance.now();
  const bytes = Uint8Array.fromBase64(text);
  out.b64 = performance.now() - t;
  const variants = {
    blobJson: () => new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).json(),
    respBody: () => new Response(new Response(bytes).body.pipeThrough(new DecompressionStream('gzip'))).json(),
    writer: async () => { const ds = new DecompressionStream('gzip'); const w = ds.writable.getWriter(); w.write(bytes); w.close(); return new Response(ds.readable).json(); },
    writerAB: async () => { const ds = new DecompressionStream('gzip'); const w = ds.writable.getWriter(); w.write(bytes); w.close(); const ab = await new Response(ds.readable).arrayBuffer(); return JSON.parse(new TextDecoder().decode(ab)); },
    readerLoop: async () => { const ds = new DecompressionStream('gzip'); const w = ds.writable.getWriter(); w.write(bytes); w.close(); const rd = ds.readable.getReader(); const parts = []; let n = 0; for (;;) { const { done, value } = await rd.read(); if (done) break; parts.push(value); n++; } out.chunks = n; return null; },
  };
  for (const [k, f] of Object.entries(variants)) {
    const ts = [];
    for (let i = 0; i < 5; i++) { t = performance.now(); await f(); ts.push(performance.now() - t); }
    out[k] = ts.map((x) => +x.toFixed(1));
  }
  t = performance.now(); JSON.parse(JSON.stringify(1)); 
  return out;
});
console.log(r);
await ctx.close();
