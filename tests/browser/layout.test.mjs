// One layout, every back end: the interactive page draws the boxes exactly where the static SVG does.
//
// Over every shared corpus dump that the tool draws (refused ones are skipped), the repo's own
// layout_* fixtures (a Vec lane past its capacity, a 1 KiB Bias lane that sets the byte scale) and
// the page tests' case (fx_page_case), this opens every card of the page and compares each box with
// the SVG the CLI writes for the same options: its rectangle relative to its lane (x, width, height
// within 0.75 px; its top on the same dump line), its label texts, where a label beside its box
// starts, and its tooltip lines, on the `limit` axis, on the `used` axis, and at the zoom steps the
// buttons reach (one out, one and two in). Pages and SVGs are rendered once, with the project's
// binary; one browser serves every page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { repoRoot, pagesDir, chromiumPath, LAUNCH_ARGS, payload } from './helpers.mjs';

const TOL = 0.75;
/** The zoom steps compared besides zoom 1, as the page's buttons reach them (RULES.zoom_step 1.6). */
const ZOOMS = ['0.625', '1.6', '2.56'];
const corpus = process.env.PMM_CORPUS || path.join(repoRoot, '..', 'shared', 'corpus');
const bin = process.env.PMM_BIN || path.join(repoRoot, 'target', 'debug', 'pto-memory-map');
const outDir = path.join(pagesDir, 'layout');

/** Every input to compare: corpus case folders and dump files, then the repo's fixtures. */
function inputs() {
  const out = [];
  const add = (name, p) => out.push({ name, path: p });
  if (existsSync(corpus)) {
    for (const c of readdirSync(path.join(corpus, 'cases'))) add(`cases_${c}`, path.join(corpus, 'cases', c));
    for (const d of readdirSync(path.join(corpus, 'dumps')).filter((f) => f.endsWith('.py'))) add(`dumps_${d}`, path.join(corpus, 'dumps', d));
    const gen = path.join(corpus, 'generated');
    for (const backend of readdirSync(gen).filter((b) => statSync(path.join(gen, b)).isDirectory())) {
      for (const c of readdirSync(path.join(gen, backend))) add(`gen_${backend}_${c}`, path.join(gen, backend, c));
    }
  }
  const fixtures = path.join(repoRoot, 'tests', 'fixtures');
  for (const f of readdirSync(fixtures).filter((f) => f.startsWith('layout_') && f.endsWith('.py'))) add(`fixture_${f}`, path.join(fixtures, f));
  add('fixture_fx_page_case', path.join(fixtures, 'fx_page_case'));
  return out;
}

/** The four renders of one input, or null when the tool refuses it (nothing to draw). */
function render(input) {
  const file = (kind) => path.join(outDir, `${input.name}.${kind}`);
  const run = (args) => execFileSync(bin, [input.path, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    run(['-f', 'html', '-o', file('html')]);
  } catch {
    return null;
  }
  run(['-f', 'svg', '-o', file('limit.svg')]);
  run(['-f', 'svg', '--x-axis', 'used', '-o', file('used.svg')]);
  const svgs = { limit: file('limit.svg'), used: file('used.svg') };
  for (const z of ZOOMS) svgs[z] = file(`zoom${z}.svg`);
  return { html: file('html'), svgs, zoomArgs: () => ZOOMS.forEach((z) => run(['-f', 'svg', '--zoom', z, '-o', svgs[z]])) };
}

/** Boxes of every card of an SVG document: geometry relative to the lane, label and tooltip. */
function svgBoxes(svgText) {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const cards = {};
  for (const card of doc.querySelectorAll('g.card')) {
    const boxes = [];
    for (const lane of card.querySelectorAll(':scope > g.lane')) {
      const lx = Number(lane.dataset.x);
      for (const g of lane.querySelectorAll(':scope > g.box')) {
        const rect = g.querySelector(':scope > rect');
        const kids = [...g.children];
        const lastRect = kids.map((k) => k.tagName).lastIndexOf('rect');
        const texts = kids.slice(lastRect + 1).filter((k) => k.tagName === 'text');
        const label = texts.map((t) => t.textContent);
        const textX = texts.map((t) => Number(t.getAttribute('x')) - lx);
        const tip = g.querySelector(':scope > title').textContent.split('\n');
        boxes.push({
          key: [g.dataset.space, g.dataset.name, g.dataset.offset, g.dataset.size, g.dataset.start, g.dataset.end].join('|'),
          start: Number(g.dataset.start),
          x: Number(rect.getAttribute('x')) - lx, y: Number(rect.getAttribute('y')),
          w: Number(rect.getAttribute('width')), h: Number(rect.getAttribute('height')),
          label, textX, tip, laneW: Number(lane.dataset.width),
        });
      }
    }
    // The card's folds (plan::RowMap): each line after one is `to - from + 1 - rows` rows up.
    const folds = [...card.querySelectorAll(':scope > g.line-cut')].map((g) => ({
      from: Number(g.dataset.from), to: Number(g.dataset.to), rows: Number(g.dataset.rows),
    }));
    cards[card.dataset.function] = { boxes, folds };
  }
  return cards;
}

/** The row of a line no fold skips, on a card whose first line is `first`, with `folds` folded. */
function rowOf(line, first, folds) {
  return folds.filter((f) => f.to < line).reduce((row, f) => row - (f.to - f.from + 1 - f.rows), line - first);
}

/** Boxes of an open card of the page, measured as laid out, with their label and tooltip lines. */
function pageBoxes(fn) {
  const section = document.querySelector(`section.card[data-function="${CSS.escape(fn)}"]`);
  const tip = document.getElementById('pmm-tip');
  const out = [];
  for (const lane of section.querySelectorAll('.live-view .lane')) {
    const lr = lane.getBoundingClientRect();
    for (const node of lane.querySelectorAll(':scope > .box')) {
      const r = node.getBoundingClientRect();
      const d = node.dataset;
      const visible = (e) => e && !e.hidden && e.textContent !== '';
      // A label beside its box (plan/labels.rs) is the lane's, tied to the box by its index.
      const beside = lane.querySelector(`:scope > .beside[data-for="${d.index}"]`);
      const label = visible(beside) ? [beside.textContent]
        : [node.querySelector('.bl b'), node.querySelector('.bl .plus'), node.querySelector('.bd')].filter(visible).map((e) => e.textContent);
      node.dispatchEvent(new FocusEvent('focusin', { bubbles: true }));
      const lines = [...tip.children].map((e) => e.textContent);
      node.dispatchEvent(new FocusEvent('focusout', { bubbles: true }));
      out.push({
        key: [d.space, d.name, d.offset, d.size, d.start, d.end].join('|'),
        start: Number(d.start), x: r.left - lr.left, top: r.top - lr.top, w: r.width, h: r.height,
        label, tip: lines, laneW: lr.width,
        besideX: visible(beside) ? beside.getBoundingClientRect().left - lr.left : null,
      });
    }
  }
  return out;
}

function compare(where, svgCards, pageCards, firstLines, line) {
  let n = 0;
  for (const [fn, page] of Object.entries(pageCards)) {
    assert.ok(svgCards[fn], `${where}: ${fn} is in the SVG`);
    const { boxes: svg, folds } = svgCards[fn];
    assert.equal(page.length, svg.length, `${where}: ${fn} box count`);
    const byKey = new Map();
    for (const b of svg) byKey.set(b.key, [...(byKey.get(b.key) || []), b]);
    // The SVG's rows start at one body top per card: every box's top minus its line is that top.
    const tops = svg.map((b) => b.y - rowOf(b.start, firstLines[fn], folds) * line);
    for (const t of tops) assert.ok(Math.abs(t - tops[0]) < 1e-6, `${where}: ${fn}: SVG box tops follow the lines`);
    for (const p of page) {
      const candidates = byKey.get(p.key) || [];
      assert.ok(candidates.length, `${where}: ${fn}: ${p.key} is in the SVG`);
      const s = candidates.find((c) => Math.abs(c.x - p.x) <= TOL && Math.abs(c.w - p.w) <= TOL) || candidates[0];
      const what = `${where}: ${fn}: ${p.key}`;
      assert.ok(Math.abs(p.laneW - s.laneW) <= TOL, `${what}: lane width ${p.laneW} vs ${s.laneW}`);
      assert.ok(Math.abs(p.x - s.x) <= TOL, `${what}: x ${p.x} vs ${s.x}`);
      assert.ok(Math.abs(p.w - s.w) <= TOL, `${what}: width ${p.w} vs ${s.w}`);
      assert.ok(Math.abs(p.h - s.h) <= TOL, `${what}: height ${p.h} vs ${s.h}`);
      assert.ok(Math.abs(p.top - rowOf(p.start, firstLines[fn], folds) * line) <= TOL, `${what}: top on its line's row`);
      assert.deepEqual(p.label, s.label, `${what}: label`);
      // A label beside its box starts where the SVG's does (the plan carries it to a whole px).
      if (p.besideX !== null) assert.ok(Math.abs(p.besideX - s.textX[0]) <= 1, `${what}: beside at ${p.besideX} vs ${s.textX[0]}`);
      assert.deepEqual(p.tip, s.tip, `${what}: tooltip`);
      n += 1;
    }
  }
  return n;
}

let context;
let userDataDir;
const rendered = [];

before(() => {
  mkdirSync(outDir, { recursive: true });
  for (const input of inputs()) {
    const r = render(input);
    if (r) {
      r.zoomArgs();
      rendered.push({ ...input, ...r });
    }
  }
});

before(async () => {
  userDataDir = await mkdtemp(path.join(tmpdir(), 'pmm-layout-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath, headless: true, args: LAUNCH_ARGS, viewport: { width: 1400, height: 900 }, reducedMotion: 'reduce',
  });
  context.setDefaultTimeout(20000);
});

after(async () => {
  if (context) await context.close();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
});

test('the fixtures and the corpus were rendered', () => {
  const names = rendered.map((r) => r.name);
  assert.ok(names.includes('fixture_layout_over_capacity.py'), names.join(', '));
  assert.ok(names.includes('fixture_layout_small_space.py'), names.join(', '));
  if (existsSync(corpus)) assert.ok(names.length >= 20, `${names.length} corpus dumps drawn`);
});

test('every box of every card sits where the SVG draws it, on both axes and at every zoom step compared', async () => {
  let total = 0;
  for (const r of rendered) {
    const page = context.pages()[0] || (await context.newPage());
    const errors = [];
    const onError = (e) => errors.push(String(e));
    const onConsole = (m) => { if (m.type() === 'error') errors.push(m.text()); };
    page.on('pageerror', onError);
    page.on('console', onConsole);
    await page.goto(pathToFileURL(r.html).href);
    await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
    await page.addScriptTag({ content: `window.pageBoxes = ${pageBoxes.toString()};` });
    const data = await payload(page, 'pmm-data');
    const fns = data.functions.map((f) => f.name);
    const firstLines = Object.fromEntries(data.functions.map((f) => [f.name, f.src_start]));
    const line = (await payload(page, 'pmm-plan')).px.line;
    // Open every card (each builds its interactive view when opened), in the page: one round trip.
    await page.evaluate(async () => {
      for (const d of document.querySelectorAll('section.card details.card-details')) d.open = true;
      while (document.querySelectorAll('section.card .live-view').length < document.querySelectorAll('section.card').length) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });
    const measure = async () => Object.fromEntries(await page.evaluate((names) => names.map((fn) => [fn, pageBoxes(fn)]), fns));
    const svg = (kind) => page.evaluate(svgBoxes, readFileSync(r.svgs[kind], 'utf8'));
    const press = (selector) => page.evaluate((sel) => { for (const b of document.querySelectorAll(sel)) b.click(); }, selector);
    total += compare(`${r.name} limit`, await svg('limit'), await measure(), firstLines, line);
    await press('section.card .axis-toggle');
    total += compare(`${r.name} used`, await svg('used'), await measure(), firstLines, line);
    await press('section.card .axis-toggle');
    await press('section.card .zoom-out');
    total += compare(`${r.name} zoom 0.625`, await svg('0.625'), await measure(), firstLines, line);
    await press('section.card .zoom-in');
    await press('section.card .zoom-in');
    total += compare(`${r.name} zoom 1.6`, await svg('1.6'), await measure(), firstLines, line);
    await press('section.card .zoom-in');
    total += compare(`${r.name} zoom 2.56`, await svg('2.56'), await measure(), firstLines, line);
    page.off('pageerror', onError);
    page.off('console', onConsole);
    assert.deepEqual(errors, [], `${r.name}: console errors`);
  }
  assert.ok(total > 0, 'some boxes compared');
  console.log(`# compared ${total} boxes over ${rendered.length} dumps`);
});

test('the over-capacity lane spans its high-water mark in the page as in the SVG', async () => {
  const r = rendered.find((x) => x.name === 'fixture_layout_over_capacity.py');
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(pathToFileURL(r.html).href);
  await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
  const lane = page.locator('section.card[data-function="spill"] .live-view .lane[data-space="Vec"]');
  assert.equal(Number(await lane.getAttribute('data-span')), 196608, 'the lane spans 192 KiB, past the 184 KiB capacity');
  const svgSpan = /class="lane" data-space="Vec" data-span="(\d+)"/.exec(readFileSync(r.svgs.limit, 'utf8'))[1];
  assert.equal(Number(svgSpan), 196608);
  // The last box ends at the lane's right edge: nothing spills out of it.
  const edges = await lane.evaluate((l) => {
    const lr = l.getBoundingClientRect();
    return [...l.querySelectorAll('.box')].map((b) => lr.right - b.getBoundingClientRect().right);
  });
  assert.ok(Math.min(...edges.map(Math.abs)) < TOL, `a box ends at the lane's edge: ${edges}`);
  assert.ok(edges.every((e) => e > -TOL), `no box leaves its lane: ${edges}`);
});

test('a fold of idle lines is drawn where the SVG draws it, and a click unfolds it', async () => {
  const r = rendered.find((x) => x.name === 'fixture_layout_idle_lines.py');
  assert.ok(r, 'the idle-lines fixture was rendered');
  const svg = readFileSync(r.svgs.limit, 'utf8');
  const cut = /<g class="line-cut" data-from="(\d+)" data-to="(\d+)" data-rows="(\d+)"/.exec(svg);
  assert.ok(cut, 'the SVG folds the long idle run');
  const [from, to, rows] = cut.slice(1).map(Number);
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(`${pathToFileURL(r.html).href}#fn=idle_runs`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
  const card = page.locator('section.card[data-function="idle_runs"]');
  await card.locator('.live-view').waitFor();
  const fold = card.locator(`.line-cut[data-from="${from}"]`);
  assert.equal(await fold.count(), 1, 'the page draws the fold across the lanes');
  assert.match(await fold.textContent(), new RegExp(`L${from}–L${to}`), 'it names the lines it skips');
  const line = (await payload(page, 'pmm-plan')).px.line;
  const geometry = () => card.evaluate((c, f) => {
    const lane = c.querySelector('.live-view .lane');
    const box = [...lane.querySelectorAll('.box')].find((b) => Number(b.dataset.start) > f);
    const fold = c.querySelector(`.line-cut[data-from="${f}"]`);
    const row = c.querySelector(`.src .ln[data-line="${f}"]`);
    return {
      box: box.getBoundingClientRect().top - lane.getBoundingClientRect().top,
      fold: fold.hidden ? null : fold.getBoundingClientRect().height,
      rowShown: row.getBoundingClientRect().height > 0,
      lane: lane.getBoundingClientRect().height,
    };
  }, from);
  const folded = await geometry();
  assert.ok(Math.abs(folded.fold - rows * line) <= TOL, `the fold is ${rows} rows high: ${folded.fold}`);
  assert.equal(folded.rowShown, false, 'its lines are folded in the source too');
  await fold.click();
  const open = await geometry();
  const grown = (to - from + 1 - rows) * line;
  assert.equal(open.fold, null, 'the fold is gone');
  assert.equal(open.rowShown, true, 'its lines are back in the source');
  assert.ok(Math.abs(open.box - folded.box - grown) <= TOL, `the box below moved down ${open.box - folded.box}, not ${grown}`);
  assert.ok(Math.abs(open.lane - folded.lane - grown) <= TOL, 'the lanes grew by the fold\'s lines');
  // The fold's row in the source unfolds it too, and is no line to list what is live at.
  await page.goto('about:blank');
  await page.goto(`${pathToFileURL(r.html).href}#fn=idle_runs&src=1`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
  await card.locator(`.src-cut[data-from="${from}"] .no`).click();
  assert.equal(await card.locator(`.line-cut[data-from="${from}"]`).isHidden(), true, 'the source\'s fold unfolds');
  assert.equal(await card.locator('.live-at').isHidden(), true, 'the fold row opens no live list');
});
