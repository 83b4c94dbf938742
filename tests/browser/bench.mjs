// Benchmark (not a test): size of the decode_fwd_layers page and how soon it is interactive.
//
//   node tests/browser/bench.mjs [page-name] [runs]
//
// "Interactive" is the page script's `pmm-ready` mark: data parsed, every card wired, the open card
// built. Also reported: the slowest single card build (opening the card with the most boxes) and
// building every card (pages of at most 100), and one zoom step on the biggest card (a button
// press: the plan's step picked, every box and label placed, the layout it causes). Targets:
// interactive within 1000 ms, the biggest card within 50 ms (on the decode_fwd_layers dump repeated
// 16x: scripts/repeat_dump.py).
import { stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { open, pagesDir, payload } from './helpers.mjs';

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
const samples = { ready: [], dcl: [], load: [], biggestCard: [], zoom: [], allCards: [] };
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
  // Boxes travel in the layout plan, one card plan per function; the card with the most is the
  // biggest to build.
  const data = await payload(page, 'pmm-data');
  const plan = await payload(page, 'pmm-plan');
  const fns = data.functions.map((f) => ({ name: f.name, lines: f.source.length, boxes: plan.cards.find((c) => c.function === f.name).boxes.length }));
  // Building every card of a page of hundreds takes minutes; the figure is for pages of dozens.
  const all = fns.length <= 100;
  const cards = await page.evaluate(({ fns, all }) => {
    const biggest = fns.reduce((a, f) => (f.boxes > a.boxes ? f : a));
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
    // Zoom steps on it, in and out, each with the layout it causes.
    const card = document.querySelector(`section.card[data-function="${biggest.name}"]`);
    const steps = [];
    for (const cls of ['.zoom-in', '.zoom-in', '.zoom-out', '.zoom-out', '.zoom-out', '.zoom-in']) {
      t0 = performance.now();
      card.querySelector(cls).click();
      document.body.getBoundingClientRect();
      steps.push(performance.now() - t0);
    }
    const zoom = steps.sort((a, b) => a - b)[steps.length >> 1];
    t0 = performance.now();
    if (all) for (const f of fns) openCard(f);
    document.body.getBoundingClientRect();
    return { one, zoom, all: all ? performance.now() - t0 : NaN, biggest: `${biggest.name} (${biggest.boxes} boxes, ${biggest.lines} lines)` };
  }, { fns, all });
  samples.ready.push(t.ready);
  samples.dcl.push(t.dcl);
  samples.load.push(t.load);
  samples.biggestCard.push(cards.one);
  samples.zoom.push(cards.zoom);
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
console.log(`open biggest card    ${ms(median(samples.biggestCard))}  ${samples.biggestName} (target < 50 ms)`);
console.log(`zoom step            ${ms(median(samples.zoom))}  (on the biggest card)`);
console.log(`open all cards       ${ms(median(samples.allCards))}`);
process.exitCode = median(samples.ready) < 1000 && median(samples.biggestCard) < 50 ? 0 : 1;
