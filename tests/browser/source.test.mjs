// The IR source beside the map: alignment, pinning, search, the splitter, and the plot's height.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, card, openCard, pageData, countIdentifiers, near } from './helpers.mjs';
import { pageCases, titled } from './cases.mjs';

for (const k of pageCases()) {
  test(titled('a box’s top edge is level with its defining source line', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      for (const name of [k.main, k.long]) {
        const c = await openCard(page, name);
        await c.getByRole('button', { name: 'Show IR source' }).click();
        const misses = await c.evaluate((root) => {
          const out = [];
          for (const b of root.querySelectorAll('.box')) {
            const row = root.querySelector(`.ln[data-line="${b.dataset.start}"]`);
            const rowEnd = root.querySelector(`.ln[data-line="${b.dataset.end}"]`);
            const br = b.getBoundingClientRect();
            const top = row.getBoundingClientRect().top;
            const bottom = rowEnd.getBoundingClientRect().bottom;
            if (Math.abs(br.top - top) > 1 || Math.abs(br.bottom - bottom) > 1) out.push(`${b.dataset.name}: ${br.top}-${br.bottom} vs ${top}-${bottom}`);
          }
          return out;
        });
        assert.deepEqual(misses, [], `${name}: boxes aligned with their lines`);
        // Rows are line_px high, so the map and the source stay in step all the way down.
        const { rules } = await pageData(page);
        const h = await c.locator('.ln').first().evaluate((r) => r.getBoundingClientRect().height);
        assert.equal(h, rules.line_px);
      }
      // The collapsed gutter aligns too.
      const c = await openCard(page, k.twin);
      assert.ok(!(await c.evaluate((e) => e.classList.contains('src-open'))));
      const b = c.locator('.box').first();
      const start = await b.getAttribute('data-start');
      const bt = (await b.boundingBox()).y;
      const rt = (await c.locator(`.ln[data-line="${start}"] .no`).boundingBox()).y;
      near(bt, rt, 1, 'gutter alignment');
      assert.ok(await c.locator(`.ln[data-line="${start}"] .no`).isVisible());
      assert.ok(await c.locator(`.ln[data-line="${start}"] .code`).isHidden(), 'collapsed: numbers only');
    });
  });
}

for (const k of pageCases()) {
  test(titled('pinning: halo, chip, live lines, every mention marked; Esc, × and a second click unpin', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      // A tile with aliases: every alias is marked too.
      const b = fn.boxes.find((x) => x.aliases.length >= 3);
      const names = [b.name, ...b.aliases];
      const expected = countIdentifiers(fn.source, names);
      assert.ok(expected > names.length, 'the names occur several times');
      assert.ok(!(await c.evaluate((e) => e.classList.contains('src-open'))), 'source starts closed');

      const box = c.locator(`.box[data-name="${b.name}"]`);
      await box.click();
      const chip = c.locator('.pin-chip');
      assert.ok(await chip.isVisible());
      assert.equal((await chip.innerText()).replace(/\s+/g, ' ').trim(), `pinned ${b.name} ×`);
      assert.ok(await c.evaluate((e) => e.classList.contains('src-open')), 'pinning opens the source');
      assert.equal(await c.locator('mark.hit').count(), expected);
      const marked = await c.locator('mark.hit').allInnerTexts();
      assert.ok(marked.every((t) => names.includes(t)), 'only the names are marked');
      assert.equal(await box.getAttribute('aria-pressed'), 'true');
      assert.notEqual(await box.evaluate((e) => getComputedStyle(e).boxShadow), 'none', 'halo');
      // Its live lines are highlighted, in the source and across the lanes.
      const band = await c.locator('.pin-band').boundingBox();
      const first = await c.locator(`.ln[data-line="${b.start}"]`).boundingBox();
      const last = await c.locator(`.ln[data-line="${b.end}"]`).boundingBox();
      near(band.y, first.y, 1, 'band top');
      near(band.y + band.height, last.y + last.height, 1, 'band bottom');
      assert.ok(await c.locator('.rowband').isVisible());

      // Hovering another box still shows its tooltip, and the pinned highlight does not move.
      const other = fn.boxes.find((x) => x.space === 'Mat' && x.name !== b.name);
      await c.locator(`.box[data-name="${other.name}"]`).hover();
      assert.ok(await page.locator('#pmm-tip').isVisible());
      assert.match(await page.locator('#pmm-tip').innerText(), new RegExp(other.name));
      assert.equal(await c.locator('.pin-chip b').innerText(), b.name);
      // (hover may have scrolled the plot, so compare with where the pinned tile's first line is now)
      near((await c.locator('.pin-band').boundingBox()).y, (await c.locator(`.ln[data-line="${b.start}"]`).boundingBox()).y, 1, 'pinned band unchanged by hover');
      assert.ok(await c.locator('.hover-band').isHidden(), 'no hover band while pinned');

      await page.keyboard.press('Escape');
      assert.ok(await chip.isHidden(), 'Esc unpins');
      assert.equal(await c.locator('mark.hit').count(), 0);
      assert.equal(await c.locator('.box.pinned').count(), 0);

      await box.click({ force: true });
      assert.ok(await chip.isVisible());
      await box.click({ force: true });
      assert.ok(await chip.isHidden(), 'a second click unpins');

      await box.click({ force: true });
      await c.getByRole('button', { name: 'Unpin' }).click();
      assert.ok(await chip.isHidden(), '× unpins');

      // Keyboard: focus and Enter pins a tile without aliases (only its own name is marked).
      const solo = fn.boxes.find((x) => x.aliases.length === 0 && x.space === 'Right');
      await c.locator(`.box[data-name="${solo.name}"]`).focus();
      await page.keyboard.press('Enter');
      assert.equal(await c.locator('.pin-chip b').innerText(), solo.name);
      assert.equal(await c.locator('mark.hit').count(), countIdentifiers(fn.source, [solo.name]));
      // The pin is per card.
      const other2 = await openCard(page, k.twin);
      assert.equal(await other2.locator('.box.pinned').count(), 0);
      assert.ok(await other2.locator('.pin-chip').isHidden());
    });
  });
}

for (const k of pageCases()) {
  test(titled('hovering a box highlights its live lines in the gutter', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const box = c.locator('.box[data-space="Mat"]').first();
      const [start, end] = [await box.getAttribute('data-start'), await box.getAttribute('data-end')];
      await box.hover();
      const band = c.locator('.hover-band');
      assert.ok(await band.isVisible());
      const bb = await band.boundingBox();
      const a = await c.locator(`.ln[data-line="${start}"]`).boundingBox();
      const z = await c.locator(`.ln[data-line="${end}"]`).boundingBox();
      near(bb.y, a.y, 1, 'hover band top');
      near(bb.y + bb.height, z.y + z.height, 1, 'hover band bottom');
      await page.mouse.move(2, 2);
      assert.ok(await band.isHidden());
    });
  });
}

for (const k of pageCases()) {
  test(titled('search finds tiles by name; Enter pins the first match', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const c = await openCard(page, k.main);
      const { data } = await pageData(page);
      const fn = data.functions.find((f) => f.name === k.main);
      const q = k.search;
      const hits = fn.boxes.filter((b) => [b.name, ...b.aliases].some((n) => n.toLowerCase().includes(q)));
      const input = c.getByRole('searchbox');
      await input.fill(q);
      assert.equal(await c.locator('.box.match').count(), hits.length);
      assert.match(await c.locator('.search-count').innerText(), new RegExp(`^${hits.length} found`));
      await input.press('Enter');
      const firstHit = [...hits].sort((a, b) => a.start - b.start || a.offset - b.offset)[0];
      assert.equal(await c.locator('.pin-chip b').innerText(), firstHit.name);
      await input.fill('');
      assert.equal(await c.locator('.box.match').count(), 0);
    });
  });
}

for (const k of pageCases()) {
  test(titled('splitter: drag, clamp to its bounds, double-click reset, keys, remembered', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      const { rules } = await pageData(page);
      const c = await openCard(page, k.main);
      await c.getByRole('button', { name: 'Show IR source' }).click();
      const width = () => c.locator('.left').evaluate((e) => e.getBoundingClientRect().width);
      near(await width(), rules.splitter_default, 0.5, 'default width');
      const sp = c.getByRole('separator');
      const drag = async (dx) => {
        const b = await sp.boundingBox();
        const x = b.x + b.width / 2;
        const y = b.y + 40;
        await page.mouse.move(x, y);
        await page.mouse.down();
        await page.mouse.move(x + dx / 2, y, { steps: 4 });
        await page.mouse.move(x + dx, y, { steps: 4 });
        await page.mouse.up();
      };
      await c.locator('.plot').scrollIntoViewIfNeeded();
      await drag(-200);
      near(await width(), rules.splitter_default - 200, 1, 'dragged');
      await drag(-1000);
      assert.equal(await width(), rules.splitter_min, 'clamped at the minimum');
      // Dragging changes only the first column; the lanes keep their widths.
      const lanes0 = await c.locator('.lane').evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().width));
      await drag(300);
      const lanes1 = await c.locator('.lane').evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().width));
      assert.deepEqual(lanes1, lanes0);
      await sp.dblclick();
      assert.equal(await width(), rules.splitter_default, 'double-click resets');
      await sp.focus();
      await page.keyboard.press('ArrowRight');
      const w1 = await width();
      assert.ok(w1 > rules.splitter_default, 'arrow nudges');
      await page.keyboard.press('Shift+ArrowRight');
      const w2 = await width();
      assert.ok(w2 - w1 > w1 - rules.splitter_default, 'Shift nudges further');
      for (let i = 0; i < 60; i++) await page.keyboard.press('Shift+ArrowRight');
      assert.equal(await width(), rules.splitter_max, 'clamped at the maximum');
      assert.equal(await sp.getAttribute('aria-valuenow'), String(rules.splitter_max));
      await page.keyboard.press('Home');
      assert.equal(await width(), rules.splitter_min);
      // Remembered per card across a reload (localStorage on file://).
      await page.keyboard.press('ArrowRight');
      const kept = await width();
      // A fresh load of the bare file (the fragment would restore the open source by itself).
      const bare = await page.evaluate(() => location.href.replace(/#.*$/, ''));
      await page.goto('about:blank');
      await page.goto(bare);
      await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
      const c2 = await openCard(page, k.main);
      await c2.getByRole('button', { name: 'Show IR source' }).click();
      assert.equal(await c2.locator('.left').evaluate((e) => e.getBoundingClientRect().width), kept);
      const g = await openCard(page, k.twin);
      await g.getByRole('button', { name: 'Show IR source' }).click();
      assert.equal(await g.locator('.left').evaluate((e) => e.getBoundingClientRect().width), rules.splitter_default, 'other cards keep theirs');
    });
  });
}

for (const k of pageCases()) {
  test(titled('the plot is at most 78% of the viewport high, both scrollbars reachable, source sticky', k), async () => {
    await withPage(k.page, { viewport: { width: 1200, height: 800 } }, async ({ page }) => {
      const { rules } = await pageData(page);
      const c = await openCard(page, k.long);
      await c.getByRole('button', { name: 'Show IR source' }).click();
      const plot = c.locator('.plot');
      const box = await plot.boundingBox();
      assert.ok(box.height <= rules.plot_max_vh * 800 + 1, `plot height ${box.height}`);
      assert.ok(box.height > 0.5 * 800, 'a long function fills most of it');
      const dims = await plot.evaluate((p) => ({ sw: p.scrollWidth, cw: p.clientWidth, sh: p.scrollHeight, ch: p.clientHeight }));
      assert.ok(dims.sh > dims.ch, 'scrolls vertically');
      await c.getByRole('button', { name: 'Zoom in' }).click();
      const dims2 = await plot.evaluate((p) => ({ sw: p.scrollWidth, cw: p.clientWidth }));
      assert.ok(dims2.sw > dims2.cw, 'scrolls horizontally');
      // The plot's bottom (its horizontal scrollbar) fits in the viewport once the card is in view.
      await plot.evaluate((p) => p.scrollIntoView({ block: 'end' }));
      const b2 = await plot.boundingBox();
      assert.ok(b2.y >= 0 && b2.y + b2.height <= 800 + 1, 'whole plot on screen');
      // The source column stays put while the map scrolls sideways.
      const left0 = (await c.locator('.left').boundingBox()).x;
      await plot.evaluate((p) => { p.scrollLeft = 400; });
      const left1 = (await c.locator('.left').boundingBox()).x;
      assert.equal(left1, left0, 'sticky IR column');
      // Long IR lines scroll inside the panel; the line numbers stay at its left edge.
      const src = c.locator('.src');
      assert.ok(await src.evaluate((e) => e.scrollWidth > e.clientWidth), 'long lines overflow the panel');
      const no0 = (await c.locator('.ln .no').first().boundingBox()).x;
      const code0 = (await c.locator('.ln .code').first().boundingBox()).x;
      await src.evaluate((e) => { e.scrollLeft = 200; });
      assert.equal((await c.locator('.ln .no').first().boundingBox()).x, no0, 'sticky line numbers');
      near((await c.locator('.ln .code').first().boundingBox()).x, code0 - 200, 1, 'code scrolled');
      assert.equal((await c.locator('.left').boundingBox()).width, rules.splitter_default, 'panel width unchanged');
      // Headers stay on top while it scrolls down.
      const head0 = (await c.locator('.lane-head').first().boundingBox()).y;
      await plot.evaluate((p) => { p.scrollTop = 600; });
      const head1 = (await c.locator('.lane-head').first().boundingBox()).y;
      assert.equal(head1, head0, 'sticky lane headers');
    });
  });
}

for (const k of pageCases()) {
  test(titled('underscores in names are readable: labels are not clipped below the baseline', k), async () => {
    await withPage(k.page, {}, async ({ page }) => {
      // online_softmax has boxes wide enough for their ranges and boxes that only hold their sizes.
      const c = await openCard(page, k.long);
      const label = c.locator('.box .bl b').filter({ hasText: '_' }).first();
      const name = await label.innerText();
      assert.match(name, /_/, 'the label keeps underscores in its text');
      // The label's line box holds the glyphs' descent, so an underscore is inside the clip.
      const fits = await label.evaluate((b) => {
        const line = b.parentElement;
        const r = document.createRange();
        r.selectNodeContents(b);
        const glyphs = r.getBoundingClientRect();
        const box = line.getBoundingClientRect();
        return glyphs.bottom <= box.bottom + 0.5 && glyphs.top >= box.top - 0.5;
      });
      assert.ok(fits, 'label text inside its line box');
      // A narrow box drops the address range before it cuts the size (the label rule of the plan,
      // as the static picture applies it): a detail shown is whole and inside its box.
      const details = await c.locator('.box').evaluateAll((boxes) => boxes.map((b) => {
        const d = b.querySelector('.bd');
        const shown = !d.hidden && d.textContent !== '';
        return {
          name: b.dataset.name, shown, text: d.textContent, range: d.textContent.includes('['),
          whole: d.scrollWidth <= d.clientWidth + 0.5 && d.getBoundingClientRect().right <= b.getBoundingClientRect().right + 0.5,
        };
      }));
      assert.ok(details.some((d) => d.shown && !d.range), 'some box is too narrow for its range and shows its size');
      assert.ok(details.some((d) => d.range), 'some box shows its range');
      for (const d of details) if (d.shown) assert.ok(d.whole, `${d.name}: its detail "${d.text}" is cut`);
    });
  });
}
