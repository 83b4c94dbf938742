// Benchmark (not a test): size of the decode_fwd_layers page and how soon it is interactive.
//
//   node tests/browser/bench.mjs [page-name] [runs]
//
// "Interactive" is the page script's `pmm-ready` mark: data parsed, every card wired, the open card
// built. Also reported: the slowest single card build (opening the card with the most boxes) and
// building all 38 cards. Target: interactive in well under 1000 ms.
import { stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { open, pagesDir } from './helpers.mjs';

const name = process.argv[2] || 'decode_fwd_layers';
const runs = Number(process.argv[3] || 5);
const file = path.join(pagesDir, `${name}.html`);
if (!existsSync(file)) {
  // The default page comes from the shared corpus, which run.sh renders only where it finds one.
  console.log(`no ${file}: run tests/browser/run.sh with the corpus present (PMM_CORPUS), or name a page (fx_a2a3_case)`);
  process.exit(1);
}
const bytes = (await stat(file)).size;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const samples = { ready: [], dcl: [], load: [], biggestCard: [], allCards: [] };
for (let i = 0; i < runs; i++) {
  const { page, close } = await open(name);
  const t = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      ready: performance.getEntriesByName('pmm-ready')[0].startTime,
      dcl: nav.domContentLoadedEventEnd,
      load: nav.loadEventEnd,
    };
  });
  const cards = await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('pmm-data').textContent);
    // Boxes travel in the layout plan, one card plan per function.
    const plan = document.getElementById('pmm-plan');
    const cards = plan ? JSON.parse(plan.textContent).cards : [];
    for (const f of data.functions) f.boxes = f.boxes || cards.find((c) => c.function === f.name).boxes;
    const biggest = data.functions.reduce((a, f) => (f.boxes.length > a.boxes.length ? f : a));
    const openCard = (f) => {
      const d = document.querySelector(`section.card[data-function="${f.name}"] details`);
      d.open = true;
      // The toggle event builds the card; dispatch it now to time the build synchronously.
      d.dispatchEvent(new Event('toggle'));
    };
    let t0 = performance.now();
    openCard(biggest);
    document.body.getBoundingClientRect(); // include the layout it causes
    const one = performance.now() - t0;
    t0 = performance.now();
    for (const f of data.functions) openCard(f);
    document.body.getBoundingClientRect();
    return { one, all: performance.now() - t0, biggest: `${biggest.name} (${biggest.boxes.length} boxes, ${biggest.source.length} lines)` };
  });
  samples.ready.push(t.ready);
  samples.dcl.push(t.dcl);
  samples.load.push(t.load);
  samples.biggestCard.push(cards.one);
  samples.allCards.push(cards.all);
  samples.biggestName = cards.biggest;
  await close();
}

const ms = (v) => `${v.toFixed(1)} ms`;
console.log(`page                 ${name}.html`);
console.log(`size                 ${bytes} bytes (${(bytes / 1024).toFixed(0)} KiB)`);
console.log(`runs                 ${runs} (median reported, fresh Chromium profile each)`);
console.log(`interactive          ${ms(median(samples.ready))}  (pmm-ready mark; target < 1000 ms)`);
console.log(`DOMContentLoaded     ${ms(median(samples.dcl))}`);
console.log(`load                 ${ms(median(samples.load))}`);
console.log(`open biggest card    ${ms(median(samples.biggestCard))}  ${samples.biggestName}`);
console.log(`open all cards       ${ms(median(samples.allCards))}`);
process.exitCode = median(samples.ready) < 1000 ? 0 : 1;
