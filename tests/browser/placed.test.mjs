// What the compiler placed besides tiles, on the interactive page: reserved windows hatched and
// named, the unsafe band, a declared allocation's outline, slot edges and selector, and the pin of
// an author-declared allocation. They are marks of the plan (plan/placed.rs), so the page
// draws them with its generic mark draw; here they are checked on the pages of the project's own
// fixtures (tests/fixtures/{reserve_windows,slots_pingpong,unsafe_band}.py, rendered by run.sh),
// at zoom 1 and after a zoom step: present, where their bytes are, with their names and tooltips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPage, openCard, near, payload, cutsOf, xOf } from './helpers.mjs';

/** The rectangle of every element `sel` finds in `lane`, relative to the lane, with its data. */
async function rects(lane, sel) {
  return lane.evaluate((l, s) => {
    const at = l.getBoundingClientRect();
    return [...l.querySelectorAll(s)].map((n) => {
      const r = n.getBoundingClientRect();
      return {
        x: r.left - at.left, w: r.width, h: r.height, title: n.title, ...n.dataset,
        bg: getComputedStyle(n).backgroundImage, border: getComputedStyle(n).borderLeftStyle,
        hidden: n.hidden || getComputedStyle(n).display === 'none',
      };
    });
  }, sel);
}

/** px per byte of `lane`, read off its box `name` (offset and size in its data). */
async function factorOf(lane, name) {
  const [b] = await rects(lane, `.box[data-name="${name}"]`);
  return { k: b.w / Number(b.size), box: b };
}

async function zoomIn(c) {
  const before = await c.getAttribute('data-zoom');
  await c.getByRole('button', { name: 'Zoom in' }).click();
  await c.page().waitForFunction(([fn, z]) => document.querySelector(`section.card[data-function="${fn}"]`).dataset.zoom !== z, [await c.getAttribute('data-function'), before]);
}

test('a reserved window is hatched and named down its function, at every zoom', async () => {
  await withPage('truth_reserve', {}, async ({ page }) => {
    const c = await openCard(page, 'ring_aic');
    const lane = c.locator('.lane[data-space="Mat"]');
    const seen = [];
    for (const step of ['zoom 1', 'zoomed in', 'zoomed in further']) {
      const { k } = await factorOf(lane, 'a_mat');
      const [w, ...more] = await rects(lane, '.reserved.mk-window');
      assert.equal(more.length, 0, step);
      assert.equal(w.name, 'ring_v2c_slot_buffer', step);
      assert.equal([w.from, w.to].join(), '0,32768', step);
      assert.match(w.title, /ring_v2c_slot_buffer: 32 KB of Mat reserved by system\.reserve_buffer at 0 B\.\.32 KB/, step);
      assert.match(w.bg, /repeating-linear-gradient/, `${step}: hatched`);
      assert.equal(w.border, 'dashed', step);
      near(w.x, 0, 0.6, `${step}: the window starts at byte 0`);
      near(w.w, 32768 * k, 1, `${step}: the window is 32 KB wide at the lane's factor`);
      const body = await lane.evaluate((l) => l.getBoundingClientRect().height);
      near(w.h, body, 1, `${step}: the window runs down every line of the function`);
      // Its name is written in it where it fits the window's width (the plan's rule, as the SVG's).
      const name = lane.locator('.mk-text', { hasText: 'ring_v2c_slot_buffer' });
      assert.equal(await name.count(), 1, step);
      const { px } = await payload(page, 'pmm-plan');
      const fits = 'ring_v2c_slot_buffer'.length * px.char_em * px.small + 2 * px.inset <= w.w;
      assert.equal(await name.evaluate((n) => !n.hidden), fits, `${step}: the name is shown where it fits (${w.w} px)`);
      seen.push(fits);
      if (step !== 'zoomed in further') await zoomIn(c);
    }
    assert.ok(seen.includes(true), `the name shows once the window is wide enough: ${seen}`);
    // The legend says what the hatching is; a base=-1 window is not drawn.
    assert.match(await c.locator('.legend').innerText(), /reserved window \(system\.reserve_buffer\), in the hwm/);
    const waiting = await openCard(page, 'waiting_aiv');
    assert.equal(await waiting.locator('.reserved').count(), 0);
    // The AIV side's window is in Vec.
    const aiv = await openCard(page, 'ring_aiv');
    const [v] = await rects(aiv.locator('.lane[data-space="Vec"]'), '.reserved.mk-window');
    assert.equal([v.name, v.from, v.to].join(), 'ring_c2v_slot_buffer,0,16384');
  });
});

test('the unsafe band is drawn where tiles reach it, with what it is in its tooltip', async () => {
  await withPage('truth_band', {}, async ({ page }) => {
    const c = await openCard(page, 'in_band');
    const lane = c.locator('.lane[data-space="Vec"]');
    for (const step of ['zoom 1', 'zoomed in']) {
      const { k } = await factorOf(lane, 'x');
      const [b, ...more] = await rects(lane, '.unsafe-band.mk-window');
      assert.equal(more.length, 0, step);
      assert.equal([b.name, b.from, b.to].join(), 'Vec,188416,196608', step);
      assert.match(b.title, /Vec: 184 KB usable of 192 KB physical\. The top 8 KB \(184 KB\.\.192 KB\) is the unsafe band/, step);
      assert.match(b.bg, /repeating-linear-gradient/, step);
      // The tile ends at 190 KB, so the lane does: the band covers 184..190 KB. The lane's long
      // free stretch below is drawn as a cut band, so bytes go to px through the plan's cut.
      const cuts = await cutsOf(page, 'in_band');
      const x = (bytes) => xOf(cuts, 'Vec', k, bytes);
      near(b.x, x(188416), 1, `${step}: the band starts at the usable size`);
      near(b.w, x(194560) - x(188416), 1, `${step}: the band runs to the lane's end`);
      if (step === 'zoom 1') await zoomIn(c);
    }
    assert.match(await c.locator('.legend').innerText(), /unsafe band: past the usable size, within the physical/);
  });
});

test('a declared allocation shows its slots, its selector and its pin', async () => {
  await withPage('truth_slots', {}, async ({ page }) => {
    const c = await openCard(page, 'pingpong');
    const lane = c.locator('.lane[data-space="Vec"]');
    for (const step of ['zoom 1', 'zoomed in']) {
      const { k, box } = await factorOf(lane, 'lo');
      const [s, ...more] = await rects(lane, '.slots.mk-outline');
      assert.equal(more.length, 0, step);
      assert.equal([s.name, s.from, s.to].join(), 'lo,16384,49152', step);
      assert.match(s.title, /lo: \[i % 2\] of 2 slots of the declared allocation ub \(2 slots of 16 KB at 16 KB\.\.48 KB\): the slot is chosen at run time/, step);
      near(s.x, box.x + 1, 1, `${step}: the outline is the allocation's`);
      // One edge between the two slots, at 32 KB, within the box's lines.
      const edges = await rects(lane, '.slot-edge.mk-rule');
      assert.equal(edges.length, 1, step);
      near(edges[0].x, 32768 * k, 1, `${step}: the slot edge is at 32 KB`);
      near(edges[0].h, box.h, 1, `${step}: the edge runs down the box`);
      assert.equal(await lane.locator('.mk-text', { hasText: '[i % 2] of 2 slots' }).count(), 1, step);
      const [pin] = await rects(lane, '.pinned.mk-dot');
      assert.equal(pin.name, 'lo', step);
      assert.match(pin.title, /an allocation the author declared \(pinned\)/, step);
      if (step === 'zoom 1') await zoomIn(c);
    }
    // A constant subscript: the outline spans the whole allocation, the box its slot.
    const one = await openCard(page, 'one_slot');
    const acc = one.locator('.lane[data-space="Acc"]');
    const { k } = await factorOf(acc, 'acc');
    const [s] = await rects(acc, '.slots.mk-outline');
    assert.equal([s.name, s.from, s.to].join(), 'acc,0,32768');
    near(s.w, 32768 * k - 2, 1, 'the outline is the whole allocation');
    assert.match(s.title, /slot 1 of 2/);
    assert.equal(await acc.locator('.slot-edge').count(), 0, 'no edge inside a one-slot box');
    assert.match(await one.locator('.legend').innerText(), /declared allocation: its slots/);
    // The first card, with no allocation in Mat, has none of these.
    assert.equal(await one.locator('.lane[data-space="Mat"] .slots').count(), 0);
  });
});
