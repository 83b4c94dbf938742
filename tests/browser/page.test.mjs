// The page as a whole: readable without scripts, self-contained, lazy, themed, and linkable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { withPage, card, openCard, pageData, payload, pagesDir, laneWidths, near, expectedScale, panelOf, cutsOf } from './helpers.mjs';
import { pageCases, viewCases, titled } from './cases.mjs';

for (const k of pageCases()) {
  test(titled('the file references nothing outside itself', k), async () => {
    const html = await readFile(path.join(pagesDir, `${k.page}.html`), 'utf8');
    // No src/href to another file or host, no CSS url() import: everything is inline.
    assert.doesNotMatch(html, /<(script|link|img|iframe)\b[^>]*\s(src|href)=/i);
    assert.doesNotMatch(html, /@import|url\((?!#)/i);
    assert.match(html, /<script type="application\/gzip" id="pmm-data">[A-Za-z0-9+/=]+<\/script>/);
    assert.match(html, /<script type="application\/gzip" id="pmm-plan">[A-Za-z0-9+/=]+<\/script>/);
    assert.match(html, /<script type="application\/json" id="pmm-rules">/);
  });
}

for (const k of pageCases()) {
  test(titled('without JavaScript the header and the worst card’s static SVG are readable', k), async () => {
    await withPage(k.page, { javaScriptEnabled: false }, async ({ page }) => {
      await assertHeader(page, k);
      // Cards keep the dump's order; the worst function's is the one open.
      assert.equal(await page.locator('section.card').first().getAttribute('data-function'), k.first);
      assert.deepEqual(await page.locator('section.card:has(details[open])').evaluateAll((s) => s.map((e) => e.dataset.function)), [k.opens]);
      const svg = card(page, k.opens).locator('.card-body svg').first();
      assert.ok(await svg.isVisible(), 'static svg of the worst card is visible');
      const box = await svg.boundingBox();
      assert.ok(box.width > 100 && box.height > 50, `static svg has a real size (${box.width}x${box.height})`);
      // The other cards are closed but present, each with its own static image.
      assert.equal(await page.locator('section.card').count(), k.functions);
      assert.equal(await page.locator('section.card .static-map svg').count(), k.functions);
      assert.equal(await page.locator('.live-view').count(), 0);
    });
  });
}

async function assertHeader(page, k) {
  const head = page.locator('header.page-head');
  const text = await head.innerText();
  assert.ok(text.includes(k.file), `the header names ${k.file}`);
  assert.match(text, /AllocateMemoryAddr/);
  assert.match(text, new RegExp(`compute functions\\s*${k.functions}\\b`));
  assert.match(text, new RegExp(`tiles\\s*${k.tiles}\\b`));
  assert.match(text, /Ascend910B/);
  assert.ok(text.includes(k.arch), `the header names the arch ${k.arch}`);
  const pills = await card(page, k.main).locator('.pill').allInnerTexts();
  assert.deepEqual(pills.map((p) => p.replace(/\s+/g, ' ').trim()), k.pills);
  assert.equal(await card(page, k.main).locator('.pill.occ-crit').getAttribute('data-space'), 'Right');
}

for (const k of pageCases()) {
  test(titled('with JavaScript: no console error, no network, cards built lazily', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      await assertHeader(page, k);
      // Only the open worst card is interactive; every closed card still holds its static SVG, for
      // readers without scripts: with them, it stays unparsed text (a <noscript>).
      assert.equal(await page.locator('.live-view').count(), 1);
      assert.equal(await card(page, k.opens).locator('.static-map').count(), 0);
      // It opens at the top of the view, the header and the overview a scroll above it.
      const top = await card(page, k.opens).evaluate((e) => e.getBoundingClientRect().top);
      assert.ok(Math.abs(top) <= 1, `the worst card's top is at ${top} px`);
      assert.ok(await page.evaluate(() => window.scrollY) > 0);
      assert.equal(await page.locator('section.card .static-map svg').count(), 0);
      const kept = await page.locator('section.card .static-map > noscript').evaluateAll((ns) => ns.map((n) => n.textContent));
      assert.equal(kept.length, k.functions - 1);
      assert.ok(kept.every((t) => t.startsWith('<svg') && t.trimEnd().endsWith('</svg>')), 'each holds a whole SVG');
      const c = await openCard(page, k.long);
      assert.equal(await c.locator('.static-map').count(), 0, 'opening replaces the static svg');
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.long);
      assert.equal(await c.locator('.box').count(), fn.boxes.length);
      // Closing keeps the built view; reopening does not build it twice.
      await c.locator('summary.card-head').click();
      await c.locator('summary.card-head').click();
      assert.equal(await c.locator('.live-view').count(), 1);
      assert.equal(await page.locator('.live-view').count(), 2);
      // Touch every card once: none throws.
      for (const f of data.functions) await openCard(page, f.name);
      assert.equal(await page.locator('.live-view').count(), k.functions);
      assert.equal(await page.locator('.box').count(), k.tiles);
    });
  });
}

for (const k of pageCases()) {
  test(titled('the assumed backend is marked', k), async () => {
    await withPage(k.page, { javaScriptEnabled: false }, async ({ page }) => {
      const { detected } = (await payload(page, 'pmm-data')).backend;
      assert.equal(await page.locator('.assumed').count(), detected ? 0 : 1);
    });
  });
}

for (const k of pageCases()) {
  test(titled('dark mode follows the system and the header toggle', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await bg();
      const laneLight = await card(page, k.opens).locator('.lane-head').first().evaluate((e) => getComputedStyle(e).getPropertyValue('--c').trim());
      await page.emulateMedia({ colorScheme: 'dark' });
      const dark = await bg();
      assert.notEqual(dark, light, 'background changes with prefers-color-scheme');
      const laneDark = await card(page, k.opens).locator('.lane-head').first().evaluate((e) => getComputedStyle(e).getPropertyValue('--c').trim());
      const { rules } = await pageData(page);
      const space = await card(page, k.opens).locator('.lane-head').first().getAttribute('data-space');
      assert.equal(laneLight, rules.colors.light[space]);
      assert.equal(laneDark, rules.colors.dark[space]);
      // The toggle overrides the system, and is remembered.
      const toggle = page.locator('.theme-toggle');
      assert.ok(await toggle.isVisible());
      await toggle.click();
      assert.equal(await bg(), light);
      await page.reload();
      await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
      assert.equal(await bg(), light, 'the choice survives a reload');
      await page.locator('.theme-toggle').click();
      assert.equal(await bg(), dark);
    });
  });
}

for (const k of pageCases()) {
  test(titled('the URL fragment restores a view, and interactions write it', k), async () => {
    const { data } = await withData(k);
    const fn = data.functions.find((f) => f.name === k.main);
    const pinned = fn.boxes.find((b) => b.space === 'Mat' && b.aliases.length === 0).name;
    const hash = `#fn=${k.main}&zoom=2.56&x=used&hide=Acc,Left&pin=${pinned}`;
    await withPage(k.page, { hash }, async ({ page }) => {
      const c = card(page, k.main);
      assert.ok(await c.locator('details.card-details').evaluate((d) => d.open));
      assert.equal(await c.locator('.zoom-level').innerText(), '2.6×');
      assert.equal(await c.getAttribute('data-zoom'), '2.56');
      assert.equal(await c.getAttribute('data-axis'), 'used');
      assert.deepEqual(await c.locator('.lane').evaluateAll((ls) => ls.map((l) => l.dataset.space)), ['Mat', 'Right']);
      assert.equal(await c.locator('.pin-chip b').innerText(), pinned);
      assert.ok(await c.locator('.pin-chip').isVisible());
      assert.ok(await c.evaluate((e) => e.classList.contains('src-open')), 'a pin opens the source');
      // The link shows exactly its card: any other open by default stepped aside.
      assert.equal(await page.locator('details.card-details[open]').count(), 1);
      // The lanes are the same width they would be after clicking to that state (shared factor, x=used).
      const w = await laneWidths(c);
      const { rules } = await pageData(page);
      const shown = fn.spaces.filter((s) => ['Mat', 'Right'].includes(s.space));
      const { widths } = expectedScale(rules, shown, 'used', 2.56, await panelOf(page, k.main), await cutsOf(page, k.main, 'used'));
      near(w.Mat, widths.Mat, 0.5, 'Mat lane width');

      // Changing the view rewrites the fragment in place (no new history entry).
      const before = await page.evaluate(() => history.length);
      await c.getByRole('button', { name: 'Zoom in' }).click();
      await c.locator('.space-toggle[data-space="Acc"]').click();
      const after = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
      assert.equal(after.get('fn'), k.main);
      near(Number(after.get('zoom')), 2.56 * 1.6, 1e-3, 'zoom in the fragment');
      assert.equal(after.get('x'), 'used');
      assert.equal(after.get('hide'), 'Left');
      assert.equal(after.get('pin'), pinned);
      assert.equal(await page.evaluate(() => history.length), before);

      // And that URL, opened afresh, gives the same view.
      const url = await page.evaluate(() => location.href);
      await page.goto('about:blank');
      await page.goto(url);
      await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
      const c2 = card(page, k.main);
      assert.deepEqual(await c2.locator('.lane').evaluateAll((ls) => ls.map((l) => l.dataset.space)), ['Mat', 'Right', 'Acc']);
      assert.equal(await c2.locator('.zoom-level').innerText(), '4.1×');
      assert.equal(await c2.locator('.pin-chip b').innerText(), pinned);
    });
  });
}

/** The map of case `k`'s page, as `-f json` wrote it beside the page. */
async function withData(k) {
  return { data: JSON.parse(await readFile(path.join(pagesDir, `${k.page}.json`), 'utf8')) };
}

for (const k of viewCases()) {
  test(titled('views are dashed and the tooltip tells a tile’s story', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.fn);
      const c = await openCard(page, fn.name);
      const views = fn.boxes.filter((b) => b.view);
      assert.ok(views.length > 0, `${k.fn} has views`);
      assert.equal(await c.locator('.box.view').count(), views.length);
      const style = await c.locator('.box.view').first().evaluate((e) => getComputedStyle(e).outlineStyle);
      assert.equal(style, 'dashed');
      const plain = await c.locator('.box:not(.view):not(.conflict)').first().evaluate((e) => getComputedStyle(e).outlineStyle);
      assert.equal(plain, 'solid');

      const b = views[0];
      await c.locator(`.box[data-name="${b.name}"]`).hover();
      const tip = page.locator('#pmm-tip');
      assert.ok(await tip.isVisible());
      const text = (await tip.innerText()).replace(/\s+/g, ' ');
      for (const part of [b.name, b.space, b.dtype, b.op, b.base, `[${b.offset}, ${b.offset + b.size})`, `lines ${b.start}–${b.end}`, 'view']) {
        assert.ok(text.includes(part), `tooltip mentions ${part}: ${text}`);
      }
      if (b.shape.length) assert.ok(text.includes(`[${b.shape.join(', ')}]`), 'tooltip shows the shape');
      // Each line reads across the tooltip: one that fits in it takes one row, not a narrow column.
      const rows = await tip.locator('.tr').evaluateAll((els) => els.map((e) => {
        const r = document.createRange();
        r.selectNodeContents(e);
        return { lines: r.getClientRects().length, w: r.getBoundingClientRect().width, room: e.clientWidth };
      }));
      for (const r of rows.filter((x) => x.w < x.room - 1)) assert.equal(r.lines, 1, `a tooltip line wraps: ${JSON.stringify(r)}`);
      assert.ok(rows.some((r) => r.w > 200), `tooltip lines run across: ${JSON.stringify(rows)}`);
      await page.mouse.move(1, 1);
      assert.ok(await tip.isHidden(), 'leaving the box hides the tooltip');
      // Keyboard users get the same tooltip on focus.
      const withAliases = fn.boxes.find((x) => x.aliases.length);
      assert.ok(withAliases, `${k.fn} has merged aliases`);
      await c.locator(`.box[data-name="${withAliases.name}"]`).focus();
      assert.ok(await tip.isVisible());
      const t2 = await tip.innerText();
      for (const a of withAliases.aliases) assert.ok(t2.includes(a), `alias ${a} in tooltip`);
    });
  });
}

for (const k of pageCases()) {
  test(titled('the table view lists every box of the card', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      await c.locator('.table-view > summary').click();
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      assert.equal(await c.locator('table.tiles tbody tr').count(), fn.boxes.length);
      const names = await c.locator('table.tiles tbody td.nm').allInnerTexts();
      assert.deepEqual(new Set(names), new Set(fn.boxes.map((b) => b.name)));
    });
  });
}

test('conflicts are outlined in the critical colour; motion follows the reader’s setting', async () => {
  await withPage('demo_case', {}, async ({ page }) => {
    const { data, rules } = await pageData(page);
    const fn = data.functions.find((f) => f.boxes.some((b) => b.conflict));
    assert.ok(fn, 'the example has a conflict');
    const c = await openCard(page, fn.name);
    const conflicts = fn.boxes.filter((b) => b.conflict);
    assert.equal(await c.locator('.box.conflict').count(), conflicts.length);
    const outline = await c.locator('.box.conflict').first().evaluate((e) => {
      const s = getComputedStyle(e);
      return { color: s.outlineColor, width: s.outlineWidth, style: s.outlineStyle };
    });
    const hex = rules.colors.critical.replace('#', '');
    const rgb = `rgb(${[0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    assert.equal(outline.color, rgb);
    assert.equal(outline.style, 'solid');
    assert.equal(outline.width, '2px');
    await c.locator('.box.conflict').first().hover();
    assert.match(await page.locator('#pmm-tip').innerText(), /conflict/);
    // Reduced motion (the helper's default): no transitions.
    assert.equal(await c.locator('.box').first().evaluate((e) => getComputedStyle(e).transitionDuration), '0s');
  });
  await withPage('demo_case', { reducedMotion: 'no-preference' }, async ({ page }) => {
    const c = page.locator('section.card:has(details[open])');
    assert.notEqual(await c.locator('.box').first().evaluate((e) => getComputedStyle(e).transitionDuration), '0s');
  });
});

for (const k of pageCases()) {
  test(titled('keyboard: Tab reaches boxes with a visible focus ring; Enter pins, Esc unpins', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = card(page, k.opens);
      const first = c.locator('.box').first();
      await first.focus();
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      assert.ok(await first.evaluate((e) => e === document.activeElement && e.matches(':focus-visible')));
      const ring = await first.evaluate((e) => getComputedStyle(e).outlineWidth);
      assert.equal(ring, '2px');
      await page.keyboard.press('Enter');
      assert.ok(await c.locator('.pin-chip').isVisible());
      await page.keyboard.press('Escape');
      assert.ok(await c.locator('.pin-chip').isHidden());
      // Every toolbar control is a real button (reachable and operable by keyboard).
      const toolbar = await c.locator('.toolbar button').evaluateAll((bs) => bs.filter((b) => !b.closest('[hidden]')).map((b) => b.tabIndex));
      assert.ok(toolbar.length >= 5 && toolbar.every((t) => t === 0));
    });
  });
}
