// Shared set-up of the browser tests: a fresh headless Debian Chromium per test, the pages that
// run.sh rendered with the project's binary, and the two things every test must also hold:
// no console error and no request leaving the file.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const pagesDir = process.env.PMM_PAGES || path.join(repoRoot, 'target', 'browser-pages');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
export const shotsDir = process.env.PMM_SHOTS || '/tmp/shots';

export const LAUNCH_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export function pageUrl(name, hash = '') {
  const file = path.join(pagesDir, `${name}.html`);
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: run tests/browser/run.sh (it renders the pages with the project's binary)`);
  }
  return pathToFileURL(file).href + hash;
}

/**
 * Opens `name` (a page in pagesDir) in a fresh profile. Returns the page and a `close()` that
 * asserts nothing was logged as an error and nothing was fetched before shutting the browser.
 * `init` runs in the page before its own script; `wait: false` returns before the page is ready.
 */
export async function open(name, { hash = '', viewport = { width: 1400, height: 900 }, javaScriptEnabled = true, colorScheme = 'light', reducedMotion = 'reduce', init = null, wait = true } = {}) {
  // Before a browser is started: a missing page must fail the test, not leave a browser running.
  const url = pageUrl(name, hash);
  const userDataDir = await mkdtemp(path.join(tmpdir(), 'pmm-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: LAUNCH_ARGS,
    viewport,
    javaScriptEnabled,
    colorScheme,
    reducedMotion,
  });
  const errors = [];
  const requests = [];
  context.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith('file:') && !url.startsWith('data:')) requests.push(url);
  });
  const page = context.pages()[0] || (await context.newPage());
  // Fail fast: nothing on these pages should take seconds.
  context.setDefaultTimeout(5000);
  const watch = (p) => {
    p.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
    p.on('pageerror', (err) => errors.push(String(err)));
  };
  watch(page);
  context.on('page', watch);
  if (init) await context.addInitScript(init);
  await page.goto(url);
  if (javaScriptEnabled && wait) await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
  const close = async () => {
    try {
      assert.deepEqual(errors, [], 'console errors');
      assert.deepEqual(requests, [], 'network requests');
    } finally {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    }
  };
  return { page, context, errors, requests, close };
}

/** Runs `fn(t)` with an open page and always closes it (asserting no errors / requests). */
export async function withPage(name, opts, fn) {
  const handle = await open(name, opts);
  try {
    await fn(handle);
  } catch (err) {
    await handle.context.close().catch(() => {});
    throw err;
  }
  await handle.close();
}

export const card = (page, fn) => page.locator(`section.card[data-function="${fn}"]`);

/** Opens a card by clicking its summary (if closed) and waits for its interactive view. */
export async function openCard(page, fn) {
  const c = card(page, fn);
  if (!(await c.locator('details.card-details').evaluate((d) => d.open))) await c.locator('summary.card-head').click();
  await c.locator('.live-view .plot').waitFor();
  return c;
}

/**
 * The map (the `-f json` that run.sh wrote beside the page: the page itself carries its boxes only
 * in the layout plan) and the rules the page embeds.
 */
export async function pageData(page) {
  const file = fileURLToPath(page.url().replace(/#.*$/, '')).replace(/\.html$/, '.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const rules = await page.evaluate(() => JSON.parse(document.getElementById('pmm-rules').textContent));
  return { data, rules };
}

export async function laneWidths(c) {
  return c.locator('.lane').evaluateAll((ls) => Object.fromEntries(ls.map((l) => [l.dataset.space, l.getBoundingClientRect().width])));
}

/** Whole-identifier occurrences of any of `names` in `lines`, counted token by token. */
export function countIdentifiers(lines, names) {
  const wanted = new Set(names);
  let n = 0;
  for (const line of lines) {
    for (const tok of line.match(/[A-Za-z0-9_]+/g) || []) if (wanted.has(tok)) n += 1;
  }
  return n;
}

export function near(actual, expected, tol, msg) {
  assert.ok(Math.abs(actual - expected) <= tol, `${msg}: ${actual} vs ${expected} (tolerance ${tol})`);
}

/**
 * The layout engine's byte-scale rule (plan::lane_room, main_factor and is_inset), written
 * out again independently of the page script. `panel` is the card's panel less its line numbers
 * ([`panelOf`]); the live-bytes columns of the shown `spaces` come out of it too, and what is left
 * (`room`) is filled by the lanes that can hold the fill scale; a lane narrower than min_lane_px at
 * it is an inset, inset_px wide at its own scale, and the insets' widths come out of the room as
 * well. Returns the card's factor, each space's expected lane width and each lane's own factor (`ks`).
 */
export function expectedScale(rules, spaces, axis, zoom, panel, cuts = { bytes: {}, band: 0, wide: {} }) {
  const span = (s) => Math.max(axis === 'used' ? s.hwm : s.limit, 1);
  // A lane with a cut band (plan::Axis) draws its bytes less the cut to scale, plus the band; each
  // widened stretch counts as a band of its least width (its fourth entry) while the factor is
  // found (plan::scale's `to_scale`).
  const wideOf = (s) => cuts.wide?.[s.space] || [];
  const cutOf = (s) => (cuts.bytes[s.space] ? cuts.band : 0);
  const bandOf = (s) => cutOf(s) + wideOf(s).reduce((a, w) => a + w[3], 0);
  const wideBytes = (s) => wideOf(s).reduce((a, [from, to]) => a + to - from, 0);
  const scaledOf = (s) => Math.max(span(s) - (cuts.bytes[s.space] || 0) - wideBytes(s), 1);
  const spans = spaces.map(scaledOf);
  const bands = spaces.map(bandOf);
  const room = Math.max(panel - rules.profile_gap - spaces.length * (rules.profile_px + 4), rules.min_lane_px);
  // A lane is an inset where it would be narrower than the minimum, its band included
  // (plan::is_inset); lanes are set aside by the factor below which they are one.
  const isInset = (j, f) => spans[j] * f + bands[j] < rules.min_lane_px - 1e-6;
  const until = (j) => (rules.min_lane_px - bands[j]) / spans[j];
  const fillFactor = (width) => {
    const sorted = spans.map((_, j) => j).sort((a, b) => until(b) - until(a));
    const sum = (js) => js.reduce((a, j) => a + spans[j], 0);
    let fill = 0;
    for (let k = 0; k < sorted.length; k++) {
      fill = width / sum(sorted.slice(k));
      if (!isInset(sorted[k], fill)) break;
    }
    const main = sorted.filter((j) => !isInset(j, fill));
    return Math.min(Math.max(width / sum(main), ...main.map(until)), fill);
  };
  const allBands = bands.reduce((a, b) => a + b, 0);
  let f;
  if (spans.length < 2) {
    const width = Math.max(room - allBands, rules.min_lane_px);
    f = Math.max(width / spans[0], rules.min_lane_px / spans[0]);
  } else {
    let width = Math.max(room - allBands, rules.min_lane_px);
    // An inset takes at most an equal share of the room while the factor is found.
    const share = Math.min(Math.max(room / spans.length, rules.min_lane_px), rules.inset_px);
    for (let i = 0; i <= spans.length; i++) {
      f = fillFactor(width);
      const inset = (j) => isInset(j, f);
      const insets = spans.filter((_, j) => inset(j)).length;
      const kept = bands.filter((_, j) => !inset(j)).reduce((a, b) => a + b, 0);
      const next = Math.max(room - insets * share - kept, rules.min_lane_px);
      if (Math.abs(next - width) < 1e-9 || insets === spans.length) break;
      width = next;
    }
  }
  // Then each inset is inset_px wide, or what the lanes at the card's scale leave (plan::inset_width).
  const insetOf = (s) => spans.length > 1 && scaledOf(s) * f + bandOf(s) < rules.min_lane_px - 1e-6;
  const small = spaces.filter(insetOf);
  const main = spaces.filter((s) => !insetOf(s)).reduce((a, s) => a + scaledOf(s) * f + bandOf(s), 0);
  const insetW = small.length ? Math.min(Math.max((room - main) / small.length, rules.min_lane_px), rules.inset_px) : rules.inset_px;
  // A widened stretch (plan::Axis) is drawn its bytes at the lane's factor, or its least px where
  // that is less.
  const stretched = (s, k) => wideOf(s).reduce((a, [from, to, , least]) => a + Math.max((to - from) * k, least), 0);
  const widths = {};
  const ks = {};
  for (const s of spaces) {
    const k = insetOf(s) ? (Math.max(insetW - bandOf(s), 1) / scaledOf(s)) * zoom : f * zoom;
    ks[s.space] = k;
    widths[s.space] = scaledOf(s) * k + cutOf(s) + stretched(s, k);
  }
  return { f: f * zoom, widths, ks };
}

/** The cut bands of a card's lanes on `axis` (the plan's): bytes cut by space, and the band's px. */
export async function cutsOf(page, fn, axis = 'limit') {
  const plan = await payload(page, 'pmm-plan');
  const card = plan.cards.find((c) => c.function === fn);
  const a = axis === 'used' ? 1 : 0;
  const bytes = {};
  const ranges = {};
  const wide = {};
  for (const l of card.lanes) {
    if (l.wide) wide[l.space] = l.wide[a];
    if (!(l.cuts && l.cuts[a])) continue;
    bytes[l.space] = l.cuts[a].to - l.cuts[a].from;
    ranges[l.space] = [l.cuts[a].from, l.cuts[a].to];
  }
  return { bytes, ranges, band: plan.px.cut, wide };
}

/**
 * Where byte `b` of `space` lands at `f` px/byte, past a cut band where `cuts` has one there, and
 * past the widened stretches before it (each `[from, to, title, least]`: drawn at least `least` px wide).
 */
export function xOf(cuts, space, f, b) {
  const r = cuts.ranges[space];
  const cutX = (b) => {
    if (!r || b <= r[0]) return b * f;
    if (b >= r[1]) return (b - (r[1] - r[0])) * f + cuts.band;
    return r[0] * f + ((b - r[0]) / (r[1] - r[0])) * cuts.band;
  };
  let before = 0;
  for (const [from, to, , least] of cuts.wide?.[space] || []) {
    if (to <= b) before += Math.max(least - (to - from) * f, 0);
    else if (from < b) return cutX(from) + before + ((b - from) * Math.max((to - from) * f, least)) / (to - from);
    else break;
  }
  return cutX(b) + before;
}

/**
 * Each lane's width less its cut band, if it has one, and less what its widened stretches add past
 * their bytes (each bracket under its head is one, as wide as it is drawn): the part a zoom scales.
 */
export async function scaledWidths(c) {
  return c.locator('.lane').evaluateAll((ls) => Object.fromEntries(ls.map((l) => {
    const band = l.querySelector(':scope > .cut:not([hidden])');
    const k = Number(l.dataset.pxPerByte || getComputedStyle(l).getPropertyValue('--k'));
    const head = l.parentElement.querySelector(`.lane-head[data-space="${l.dataset.space}"]`);
    const added = [...head.querySelectorAll('.wide-marks > i')]
      .reduce((a, i) => a + i.getBoundingClientRect().width - (i.dataset.to - i.dataset.from) * k, 0);
    return [l.dataset.space, l.getBoundingClientRect().width - (band ? band.getBoundingClientRect().width : 0) - added];
  })));
}

/**
 * A payload the page carries gzipped in base64 (`pmm-data`, `pmm-plan`), inflated here, in Node,
 * apart from the page's own script. The plan's lines (plan::PageLines: its head, then a card a line)
 * are put back together as the plan they are.
 */
export async function payload(page, id) {
  const text = await page.locator(`script#${id}`).textContent();
  const lines = gunzipSync(Buffer.from(text, 'base64')).toString('utf8').split('\n');
  const [head, ...cards] = lines.map((line) => JSON.parse(line));
  return id === 'pmm-plan' ? { cards, ...head } : head;
}

/**
 * A card's panel at zoom 1 less its line-number column (plan::width::gutter_width), from the page's
 * plan: what its lanes and live-bytes columns share ([`expectedScale`]).
 */
export async function panelOf(page, fn) {
  const plan = await payload(page, 'pmm-plan');
  const card = plan.cards.find((c) => c.function === fn);
  const gutter = Math.ceil(Math.max(String(card.last).length, 4) * plan.px.char_em * 10 + 20);
  return card.panel - gutter;
}

/** Each box of a live card: its name, lane space, x and width relative to its lane, and its bytes. */
export async function boxGeometry(c) {
  return c.locator('.box').evaluateAll((els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    const laneEl = e.closest('.lane');
    const lane = laneEl.getBoundingClientRect();
    return { name: e.dataset.name, space: laneEl.dataset.space, x: r.left - lane.left, w: r.width, offset: +e.dataset.offset, size: +e.dataset.size };
  }));
}
