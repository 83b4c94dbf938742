// A page of many functions opens at once: the overview rows and the cards past the 64th
// wait for the script to draw them in idle moments (page.css, page.js `drawDistantCards`), on
// columns as wide from the start as every row needs; each card's plan is parsed when it is opened.
// The page is a fixture repeated 110 times (run.sh, scripts/repeat_dump.py): 330 functions, the
// copies past the 100th (`__r100`) with the longest names, all past the first rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, openCard, pageData } from './helpers.mjs';

const MANY = 'fx_many';
const AT_ONCE = 64; // page.css: the rows and cards drawn with the page

/** How much of the page is drawn: overview rows shown, cards left to the viewport, column widths. */
const drawnState = (page) => page.evaluate(() => ({
  rows: [...document.querySelectorAll('table.ov > tbody > tr')].filter((r) => r.getBoundingClientRect().height > 0).length,
  deferred: [...document.querySelectorAll('section.card')].filter((s) => getComputedStyle(s).contentVisibility !== 'visible').length,
  widths: [...document.querySelector('table.ov').tHead.rows[0].cells].map((c) => c.getBoundingClientRect().width),
}));

test('a page of many functions draws its first rows and cards at once, the rest when idle, on columns that never widen', async () => {
  await withPage(MANY, {}, async ({ page }) => {
    const { data } = await pageData(page);
    const n = data.functions.length;
    assert.ok(n >= AT_ONCE + 20, `${n} functions`);
    // Soon after it is ready, everything is drawn: every row shown, no card left to the viewport.
    await page.waitForFunction(() => document.querySelectorAll('.drawn').length >= 2 * (document.querySelectorAll('section.card').length - 64));
    const all = await drawnState(page);
    assert.equal(all.rows, n);
    assert.equal(all.deferred, 0);
    // As the page opened (nothing drawn yet): the first rows only, the other cards deferred, and
    // the columns already as wide as all rows need.
    await page.evaluate(() => { for (const e of [...document.querySelectorAll('.drawn')]) e.classList.remove('drawn'); });
    const first = await drawnState(page);
    assert.equal(first.rows, AT_ONCE);
    assert.equal(first.deferred, n - AT_ONCE);
    assert.deepEqual(first.widths, all.widths);
    // What holds them: the collapsed row of each column's widest text.
    const widest = await page.evaluate(() => {
      const len = (c) => [...c.textContent].length;
      const body = [...document.querySelector('table.ov').tBodies[0].rows];
      const sizer = [...document.querySelector('table.ov tfoot.sizer tr').cells];
      return sizer.map((c, i) => len(c) === Math.max(...body.map((r) => len(r.cells[i])))).every(Boolean);
    });
    assert.ok(widest, 'the sizer row holds each column\'s longest text');
    assert.equal(await page.locator('table.ov tfoot.sizer tr').evaluate((r) => r.getBoundingClientRect().height), 0, 'collapsed');
    // Without it, the first rows alone would make narrower columns.
    await page.evaluate(() => document.querySelector('table.ov tfoot.sizer').remove());
    assert.ok((await drawnState(page)).widths[0] < all.widths[0], 'the names past the first rows are the longest');
  });
});

test('cards far down a page of many functions open with their own boxes (their plan parsed on opening)', async () => {
  await withPage(MANY, {}, async ({ page }) => {
    const { data } = await pageData(page);
    // One past the cards drawn at once, and the last (its plan's text ends the plan's cards).
    for (const fn of [data.functions[AT_ONCE + 5], data.functions[data.functions.length - 1]]) {
      const c = await openCard(page, fn.name);
      assert.equal(await c.locator('.box').count(), fn.boxes.length, fn.name);
      const labels = await c.locator('.box').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label').split(/[ :]/)[0]).sort());
      assert.deepEqual(labels, fn.boxes.map((b) => b.name).sort(), `${fn.name}: the boxes of its own plan`);
      assert.equal(await c.evaluate((s) => getComputedStyle(s).contentVisibility), 'visible', 'an open card is never deferred');
    }
  });
});

test('a link to a card far down keeps it in place while the cards above it are drawn', async () => {
  await withPage(MANY, {}, async ({ page }) => {
    const names = await page.evaluate(() => [...document.querySelectorAll('section.card')].map((s) => s.dataset.function));
    const target = names[names.length - 10];
    await page.goto(page.url().replace(/#.*$/, '') + `#fn=${target}`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
    const top = () => page.evaluate((f) => document.querySelector(`section.card[data-function="${f}"]`).getBoundingClientRect().top, target);
    const atOpen = await top();
    // Everything above it drawn (their true heights differ from the estimate the stylesheet gives).
    await page.waitForFunction(() => !document.querySelector('main.cards > section.card:nth-child(n+65):not(.drawn)'));
    assert.ok(Math.abs(atOpen) <= 1, `the linked card opens at the top (${atOpen})`);
    assert.ok(Math.abs((await top()) - atOpen) <= 1, `and stays there (${await top()} vs ${atOpen})`);
  });
});
