// pto-memory-map page script: turns a card of the static page (a <details> with its SVG), when first
// opened, into the interactive view. What to draw, and where at every zoom step, is the plan's
// (plan/steps.rs); the script picks the step for the reader's zoom, scales it (plan/axis.rs), and handles interaction.
'use strict';

// A payload the page carries gzipped and in base64 (render/html.rs), inflated by the browser.
async function pmmPayload(id) {
  const text = document.getElementById(id).textContent;
  const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
}

// What the stylesheet reads from the rules is set before the body is parsed, not to restyle hundreds of cards.
const PMM_RULES = JSON.parse(document.getElementById('pmm-rules').textContent);
document.documentElement.classList.add('js');
document.documentElement.style.setProperty('--line', `${PMM_RULES.line_px}px`);
document.documentElement.style.setProperty('--plot-max', `${PMM_RULES.plot_max_vh * 100}vh`);

// Draws the cards page.css leaves to the viewport (past the 64th), a batch per idle moment: the page opens at once.
function drawDistantCards() {
  const rest = [...document.querySelectorAll('table.ov > tbody > tr:nth-child(n+65):not(.drawn), main.cards > section.card:nth-child(n+65):not(.drawn)')];
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 16));
  const step = () => {
    for (const section of rest.splice(0, 64)) section.classList.add('drawn');
    if (rest.length) idle(step, { timeout: 500 });
  };
  if (rest.length) idle(step, { timeout: 500 });
}

// Run from the head, inflating overlaps parsing the body; cards opened meanwhile are taken up once it is done.
const pmmParsed = new Promise((resolve) => {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', resolve, { once: true });
  else resolve();
});
Promise.all([pmmPayload('pmm-data'), pmmPayload('pmm-plan'), pmmParsed]).then(([dataText, planText]) => {
  const DATA = JSON.parse(dataText);
  // The plan's head, then a card a line (plan::PageLines): a page of hundreds parses only the cards it draws.
  const cardLines = planText.split('\n');
  const PLAN = JSON.parse(cardLines.shift());
  const R = PMM_RULES;
  const PX = PLAN.px;
  const root = document.documentElement;
  // One mouse-wheel notch is 100 px of deltaY in Chromium and Firefox; treat it as one zoom click.
  const WHEEL_NOTCH = 100;
  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');

  // file:// pages may have no usable storage (or throw on access): remembering is a nicety only.
  const store = {
    get: (key) => { try { return window.localStorage.getItem(key); } catch { return null; } },
    set: (key, value) => { try { window.localStorage.setItem(key, value); } catch { /* not kept */ } },
  };

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key === 'style') node.style.cssText = value;
      else if (key === 'data') Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? '' : value);
    }
    node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
    return node;
  }

  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  const clampSplit = (w) => Math.round(clamp(w, R.splitter_min, R.splitter_max));
  const px = (v) => `${v}px`;

  // Where byte `b` lands on `axis` with its cut alone (`k` px a byte, the cut `px` wide).
  function cutX(axis, b) {
    if (!axis.cut || b <= axis.cut[0]) return b * axis.k;
    const [from, to] = axis.cut;
    return b >= to ? (b - (to - from)) * axis.k + axis.px : from * axis.k + ((b - from) / (to - from)) * axis.px;
  }

  // cutX's inverse.
  function cutByte(axis, x) {
    if (!axis.cut || x <= axis.cut[0] * axis.k) return x / axis.k;
    const [from, to] = axis.cut;
    const band = from * axis.k;
    return x >= band + axis.px ? (x - axis.px) / axis.k + (to - from) : from + ((x - band) / axis.px) * (to - from);
  }

  // The px a widened stretch of `len` bytes and least width `least` takes on `axis`
  // (plan::Axis::stretch_px).
  const stretchPx = (axis, len, least) => Math.max(len * axis.k, least);

  // Where byte `b` lands on `axis` (plan::Axis { k, cut, px, wide }): the cut's rule, plus what
  // each widened stretch before `b` adds (its px past its bytes at `k`), summed in the plan's order.
  function axisX(axis, b) {
    let before = 0;
    for (const [from, to, , least] of axis.wide) {
      if (to <= b) before += Math.max(least - (to - from) * axis.k, 0);
      else if (from < b) return cutX(axis, from) + before + ((b - from) * stretchPx(axis, to - from, least)) / (to - from);
      else break;
    }
    return cutX(axis, b) + before;
  }

  /** The byte at `x` px on `axis` (axisX's inverse): how a place at one factor scales to another. */
  function byteAt(axis, x) {
    let before = 0;
    for (const [from, to, , least] of axis.wide) {
      const left = cutX(axis, from) + before;
      if (x <= left) break;
      const w = stretchPx(axis, to - from, least);
      if (x < left + w) return from + ((x - left) / w) * (to - from);
      before += Math.max(least - (to - from) * axis.k, 0);
    }
    return cutByte(axis, x - before);
  }

  /** plan::Axis::place: a byte range's left edge and width in a lane `laneW` px wide. */
  function placeOn(axis, offset, size, laneW) {
    const stop = offset + Math.max(size, 0);
    const offCut = !axis.cut || stop <= axis.cut[0] || offset >= axis.cut[1];
    const offWide = !axis.wide.some(([from, to]) => to > offset && from < stop);
    const w = Math.max(offCut && offWide ? Math.max(size, 0) * axis.k : axisX(axis, stop) - axisX(axis, offset), PX.min_box);
    return [clamp(axisX(axis, offset), 0, Math.max(laneW - w, 0)), w];
  }

  /** A mark of the plan (plan::Mark) as an element, its ticks from its first line (or its host's, `firstLine`). */
  function markEl(m, firstLine) {
    const st = PLAN.styles[m.style];
    const node = el('i', {
      class: `${st.class} mk-${st.kind} tone-${st.tone}`, 'aria-hidden': 'true', title: m.tip?.text,
      data: m.tip && { name: m.tip.name, from: String(m.tip.range[0]), to: String(m.tip.range[1]) },
    });
    const from = m.lines ? m.lines[0] : firstLine;
    for (const u of m.at || []) node.append(el('i', { style: `top:${(u - from + 0.5) * PX.line - 1}px` }));
    const text = m.text ? el('span', {
      class: `mk-text tone-${st.tone}${m.text.pill ? ' mk-pill' : ''}`, text: m.text.content, 'aria-hidden': 'true',
    }) : null;
    return { m, st, node, text };
  }

  // A mark drawn on `host`, its box's [x, w] or the lane's; its text from the step the plan says.
  function placeMark({ m, st, node, text }, host, axis, laneW, step) {
    let [x, w] = m.bytes ? placeOn(axis, m.bytes[0], m.bytes[1], laneW) : host;
    if (text && !m.text.pill) {
      const from = step && m.text.from ? m.text.from[step.a] : null;
      text.hidden = from === null || step.n < from;
      text.style.left = px(x + PX.inset);
    }
    if (st.kind === 'band' && w > 4) {
      x += 1;
      w -= 2;
    } else if (st.kind === 'outline') {
      x += 1;
      w = Math.max(w - 2, 1);
    } else if (st.kind === 'rule') {
      x = clamp(axisX(axis, m.bytes[0]), 0.5, laneW - 0.5);
      w = 0;
    } else if (st.kind === 'ticks') {
      const tick = Math.min(PX.tick, w);
      x += w - tick;
      w = tick;
    }
    node.style.left = px(x);
    node.style.width = px(w);
  }

  // Byte counts as the Rust side writes them (plan::Plan::words): the script formats none.
  const words = (n) => (PLAN.words || {})[n] ?? `${n} B`;

  // The tooltip (one per page): the lines the layout engine wrote (the SVG's <title> has the same).
  const tip = el('div', { class: 'tip', role: 'tooltip', id: 'pmm-tip', hidden: true });
  document.body.append(tip);

  function showTip(b, x, y, byFocus = false) {
    Object.assign(tip.dataset, { by: byFocus ? 'focus' : 'pointer', space: b.space });
    tip.replaceChildren(el('div', { class: 'tt' }, el('b', { text: b.name })), ...b.plan.tip.map((line) => el('div', { class: 'tr', text: line })));
    tip.hidden = false;
    placeTip(x, y);
  }

  function placeTip(x, y) {
    const pad = 14;
    let left = x + pad;
    let top = y + pad;
    if (left + tip.offsetWidth > window.innerWidth - 4) left = Math.max(4, x - pad - tip.offsetWidth);
    if (top + tip.offsetHeight > window.innerHeight - 4) top = Math.max(4, y - pad - tip.offsetHeight);
    tip.style.transform = `translate(${Math.round(left)}px, ${Math.round(top)}px)`;
  }

  const hideTip = () => { tip.hidden = true; };

  // The view (card, zoom, x axis, hidden spaces, pin, source) lives in the URL's fragment.
  let activeCard = null;

  function readHash() {
    const raw = window.location.hash.replace(/^#/, '');
    // A card's anchor (`#fn-NAME`, where the overview's links lead without the script) opens it too.
    return new URLSearchParams(raw.startsWith('fn-') && !raw.includes('=') ? `fn=${raw.slice(3)}` : raw);
  }

  function writeHash(card) {
    activeCard = card;
    const s = card && card.state;
    const parts = [];
    // The page as it opens (the worst card, default view) needs no fragment: a bare URL says it.
    if (card && card.details.open && !(card === opening && s.zoom === 1 && s.axis === 'limit'
      && !s.hidden.size && s.pin === null && !s.src)) {
      const enc = encodeURIComponent;
      parts.push(`fn=${enc(card.fn.name)}`);
      if (s.zoom !== 1) parts.push(`zoom=${+s.zoom.toFixed(4)}`);
      if (s.axis === 'used') parts.push('x=used');
      if (s.hidden.size) parts.push(`hide=${[...s.hidden].map(enc).join(',')}`);
      if (s.pin !== null) parts.push(`pin=${enc(card.boxes[s.pin].name)}`);
      if (s.src) parts.push('src=1');
    }
    const url = window.location.href.replace(/#.*$/, '') + (parts.length ? `#${parts.join('&')}` : '');
    if (url !== window.location.href) {
      try { window.history.replaceState(null, '', url); } catch { /* some file:// setups refuse; the view still works */ }
    }
  }

  // Folded lines: the plan's folds are runs of lines where nothing is live, each `rows` rows high. The page
  // repeats plan::RowMap::row's arithmetic because the reader opens folds, which the plan cannot know.
  /** The top of `line`'s row in px on `card`, with the folds the reader opened open. */
  function rowY(card, line) {
    let row = line - card.fn.src_start;
    for (const [i, f] of (card.plan.folds || []).entries()) {
      if (line <= f.from) break;
      if (card.opened.has(i)) continue;
      const n = f.to - f.from + 1;
      // A line a folded fold skips lies inside it, the fold's lines evenly over its rows.
      if (line <= f.to) return (row - (line - f.from) + ((line - f.from) * f.rows) / n) * PX.line;
      row -= n - f.rows;
    }
    return row * PX.line;
  }

  /** Sets `node` over lines `from` to `to` of `card`, its top from that of line `origin`'s row. */
  function spanRows(card, node, from, to, origin = card.fn.src_start) {
    node.style.top = px(rowY(card, from) - rowY(card, origin));
    node.style.height = px(rowY(card, to + 1) - rowY(card, from));
  }

  // A mark's rows, from its host's first line `origin`: without lines of its own it covers its host.
  function placeMarkRows(card, { m, node, text }, origin) {
    if (m.lines) spanRows(card, node, m.lines[0], m.lines[1], origin);
    else node.style.top = node.style.bottom = '0';
    if (text) text.style.top = px(rowY(card, m.text.line) - rowY(card, origin));
  }

  // The card's folds, across the lanes and in the source. A click opens one, and all below moves down.
  function buildFolds(card) {
    card.opened = new Set();
    card.folds = (card.plan.folds || []).map((f, i) => {
      const data = { from: String(f.from), to: String(f.to) };
      const across = el('button', {
        type: 'button', class: 'line-cut', title: `${f.title} · click to unfold`,
        'aria-label': `Unfold lines ${f.from} to ${f.to}`, data,
      }, el('span', { text: f.words[0] }));
      const side = el('div', { class: 'ln src-cut', title: f.title, data },
        el('span', { class: 'no', text: '⋮' }), el('span', { class: 'code', text: f.words[0] }));
      const open = () => {
        card.opened.add(i);
        placeRows(card);
        card.layout();
        card.paintPin();
      };
      for (const node of [across, side]) node.addEventListener('click', open);
      card.grid.append(across);
      card.rows[f.from - card.fn.src_start]?.before(side);
      return { f, across, side };
    });
  }

  /** Every row-placed element of the card, at the rows its folds give it now. */
  function placeRows(card) {
    const first = card.fn.src_start;
    card.grid.style.gridTemplateRows = `auto ${px(rowY(card, first + card.lines))}`;
    for (const it of card.items) {
      spanRows(card, it.node, it.b.start, Math.max(it.b.end, it.b.start));
      for (const mk of it.marks) placeMarkRows(card, mk, it.b.start);
    }
    for (const { lp, marks, profile } of card.lanes.values()) {
      for (const mk of marks) placeMarkRows(card, mk, first);
      const { bars, peak_line: peak } = lp.profile;
      bars.forEach(([row, rows], j) => spanRows(card, profile.body.children[j], first + row, first + row + rows - 1));
      spanRows(card, profile.body.lastChild, peak, peak);
    }
    card.folds.forEach(({ f, across, side }, i) => {
      across.hidden = side.hidden = card.opened.has(i);
      across.style.marginTop = px(rowY(card, f.from));
      across.style.height = side.style.height = px(f.rows * PX.line);
      for (const row of card.rows.slice(f.from - first, f.to - first + 1)) row.hidden = !across.hidden;
    });
  }

  class Card {
    constructor(section, fn) {
      this.el = section;
      this.fn = fn;
      this.index = Number(section.dataset.index);
      this.details = section.querySelector('details');
      this.body = section.querySelector('.card-body');
      this.lines = Math.max(fn.src_end - fn.src_start + 1, fn.source.length, 1);
      this.state = { zoom: 1, axis: 'limit', hidden: new Set(), pin: null, src: false };
      this.storeKey = `pmm:split:${DATA.dump}:${fn.name}`;
      this.built = false;
      this.marked = [];
    }
    get plan() {
      return (this._plan ??= JSON.parse(cardLines[this.index]));
    }
    /** The boxes as the plan lists them, indexed like the map JSON's (`-f json`), when first asked for. */
    get boxes() {
      return (this._boxes ??= this.plan.boxes.map((p, i) => ({
        i, plan: p, name: p.label.name, aliases: p.aliases || [], base: p.base,
        space: this.plan.lanes[p.lane].space, offset: p.bytes[0], size: p.bytes[1], start: p.lines[0], end: p.lines[1],
        view: !!p.view, conflict: !!p.conflict,
      })));
    }
    /** Lists what is live at `line`, per lane, from the plan (plan::LanePlan::live); twice closes it. */
    showLiveAt(line) {
      const panel = this.liveAtPanel;
      panel.hidden = !panel.hidden && panel.dataset.line === String(line);
      if (panel.hidden) return;
      panel.dataset.line = String(line);
      const close = el('button', { type: 'button', class: 'btn la-close', 'aria-label': 'Close the live list', text: '×' });
      close.addEventListener('click', () => { panel.hidden = true; });
      const rows = [el('div', { class: 'la-head' }, el('b', { text: `live at L${line}` }), close)];
      for (const lp of this.plan.lanes) {
        let figures = [line, 0, 0, 0];
        const on = new Set();
        for (const entry of lp.live) {
          if (entry[0] > line) break;
          figures = entry;
          for (const i of entry.slice(4)) if (!on.delete(i)) on.add(i);
        }
        const [, total, offset, size] = figures;
        const live = lp.by_size.filter((i) => on.has(i)).map((i) => this.boxes[i])
          .concat((lp.windows || []).map(([name, at, bytes]) => ({ name: `${name} (reserved)`, offset: at, size: bytes })));
        const free = size > 0 ? `largest free ${words(size)} at [${offset}, ${offset + size})` : 'no free range';
        const tiles = live.map((b) => el('li', { data: { name: b.name, size: String(b.size) } },
          el('span', { class: 'la-name', text: b.name }), ` ${words(b.size)} [${b.offset}, ${b.offset + b.size})`));
        rows.push(el('div', { class: 'la-space', data: { space: lp.space, total: String(total) } },
          el('div', { class: 'la-sum' }, el('i', { class: 'sw' }),
            el('b', { text: lp.space }), ` ${words(total)} live in ${live.length} tile${live.length === 1 ? '' : 's'} · ${free}`),
          tiles.length ? el('ul', null, ...tiles) : null));
      }
      panel.replaceChildren(...rows);
    }
    /** Takes the state a link asks for (`q`, readHash); drawn when the card is built (at once if it is). */
    applyState(q) {
      const s = this.state;
      const zoom = Number(q.get('zoom') ?? 1);
      s.zoom = clamp(Number.isFinite(zoom) && zoom > 0 ? zoom : 1, R.zoom_min, R.zoom_max);
      s.axis = q.get('x') === 'used' ? 'used' : 'limit';
      const known = new Set(this.fn.spaces.map((sp) => sp.space));
      s.hidden = new Set((q.get('hide') || '').split(',').filter((n) => known.has(n)));
      if (s.hidden.size >= known.size) s.hidden.clear();
      const pin = q.get('pin') && this.boxes.find((b) => b.name === q.get('pin') || b.aliases.includes(q.get('pin')));
      s.pin = pin ? pin.i : null;
      s.src = q.get('src') === '1' || s.pin !== null; // as when pinning by hand
      if (this.built) this.refreshAll();
    }
    build() {
      if (this.built) return;
      this.built = true;
      this.el.classList.add('drawn'); // a live card is never left to the viewport (page.css)
      const fn = this.fn;
      this.srcW = clampSplit(Number(store.get(this.storeKey)) || R.splitter_default);
      // The boxes in reading order: by their keys (plan::BoxPlan::n, from 1).
      this.reading = [];
      for (const b of this.boxes) this.reading[b.plan.n - 1] = b;
      const btn = (cls, props, ...kids) => el('button', { type: 'button', class: `btn ${cls}`, ...props }, ...kids);
      this.btnSrc = btn('src-toggle', { 'aria-pressed': 'false' });
      this.btnAxis = btn('axis-toggle', { title: 'x axis span: the space capacity (limit) or its high-water mark (used)' });
      this.btnOut = btn('zoom-out', { 'aria-label': 'Zoom out', title: 'Zoom out' }, '−');
      this.btnLevel = btn('zoom-level', { 'aria-label': 'Reset zoom', title: 'Zoom level (click to reset)' });
      this.btnIn = btn('zoom-in', { 'aria-label': 'Zoom in', title: 'Zoom in' }, '+');
      this.spaceBtns = new Map(fn.spaces.map((sp) => [sp.space, btn('space-toggle', { 'aria-pressed': 'true', data: { space: sp.space } },
        el('i', { class: 'sw', 'aria-hidden': 'true' }), sp.space)]));
      this.searchInput = el('input', {
        type: 'search', class: 'search', placeholder: 'find tile…', 'aria-label': `Find tiles by name in ${fn.name}`,
        spellcheck: 'false', autocomplete: 'off',
      });
      this.searchCount = el('span', { class: 'search-count', 'aria-live': 'polite' });
      this.chipName = el('b');
      this.chipClose = el('button', { type: 'button', class: 'chip-x', 'aria-label': 'Unpin', title: 'Unpin (Esc)', text: '×' });
      this.chip = el('span', { class: 'pin-chip', hidden: true }, 'pinned ', this.chipName, this.chipClose);
      const toolbar = el('div', { class: 'toolbar' },
        this.btnSrc, this.btnAxis,
        el('span', { class: 'group zoom', role: 'group', 'aria-label': 'Zoom' }, this.btnOut, this.btnLevel, this.btnIn),
        fn.spaces.length > 1 ? el('span', { class: 'group show', role: 'group', 'aria-label': 'Show memory spaces' },
          el('span', { class: 'lbl', text: 'show' }), ...this.spaceBtns.values()) : null,
        el('span', { class: 'group find' }, this.searchInput, this.searchCount),
        this.chip);
      // plot grid: row 1 = headers, row 2 = body; column 1 = the sticky IR column, then one per lane
      this.grid = el('div', { class: 'grid', style: `--grid-n:${PX.grid};--grid-y:${this.plan.grid}px` });
      this.plot = el('div', { class: 'plot' }, this.grid);
      this.plot.style.setProperty('--gutter-w', `calc(${Math.max(3, String(fn.src_end).length)}ch + 22px)`);
      this.corner = el('div', { class: 'corner' });
      this.src = el('div', { class: 'src' });
      this.codes = Array.from({ length: this.lines }, (_, i) => el('span', { class: 'code', text: fn.source[i] ?? '' }));
      this.rows = this.codes.map((code, i) => el('div', { class: 'ln', data: { line: String(fn.src_start + i) } },
        el('span', { class: 'no', text: String(fn.src_start + i) }), code));
      for (const row of this.rows) this.src.append(row); // not a spread of thousands of rows
      this.hoverBand = el('div', { class: 'band hover-band', hidden: true });
      this.pinBand = el('div', { class: 'band pin-band', hidden: true });
      this.splitter = el('div', {
        class: 'splitter', role: 'separator', tabindex: '0', 'aria-orientation': 'vertical',
        'aria-label': 'Resize the IR source panel', 'aria-valuemin': String(R.splitter_min),
        'aria-valuemax': String(R.splitter_max), title: 'Drag to resize; double-click to reset; arrow keys nudge',
      });
      this.left = el('div', { class: 'left' }, this.src, this.hoverBand, this.pinBand, this.splitter);
      // A faint band across the lanes marks the pinned tile's live lines there too.
      this.rowBand = el('div', { class: 'rowband', hidden: true, 'aria-hidden': 'true' });
      this.grid.append(this.corner, this.left, this.rowBand);
      this.lanes = new Map();
      this.items = [];
      this.plan.lanes.forEach((lp, li) => {
        const end = el('span', { class: 'lh-end' });
        const hwm = el('span', { class: 'lh-hwm', text: lp.hwm, title: `most live at once: ${lp.profile.head[1]}, ${lp.profile.head[0]}` });
        const badge = el('div', { class: 'lh-inset', hidden: true });
        const head = el('div', { class: 'lane-head', data: { space: lp.space } },
          el('div', { class: 'lh-name' }, el('i', { class: 'sw', 'aria-hidden': 'true' }), el('span', { text: lp.space })),
          el('div', { class: 'lh-axis' }, el('span', { text: '0' }), end), el('div', { class: 'lh-hwmrow' }, hwm), badge);
        // Under the head, a bracket across each stretch drawn wider than its bytes (plan::Axis's widened stretches).
        const wide = el('div', { class: 'wide-marks' });
        head.append(wide);
        const marks = lp.marks.map((m) => markEl(m, fn.src_start));
        // The lane's cut band (plan::Cut): its free stretch, a fixed width, not to scale.
        const cut = el('div', { class: 'cut', hidden: true }, el('span'), el('span'));
        const lane = el('div', { class: 'lane', role: 'group', 'aria-label': `${lp.space} lane`, data: { space: lp.space } },
          cut, ...marks.flatMap((mk) => [mk.node, mk.text]));
        const pills = marks.filter((mk) => mk.text && mk.m.text.pill);
        const profile = this.profile(lp);
        this.lanes.set(lp.space, { lp, li, head, lane, marks, pills, cut, wide, boxes: [], end, badge, hwm, profile });
      });
      // The SVG's order (steps::drawing_order): the plan's, views after the boxes they look into.
      for (const b of [...this.boxes].sort((a, c) => a.view - c.view)) {
        const entry = this.lanes.get(b.space);
        const name = el('b');
        const badge = el('span', { class: 'plus' });
        const detail = el('span', { class: 'bd' });
        const marks = (b.plan.marks || []).map((m) => markEl(m, b.start));
        const node = el('div', {
          class: `box${b.view ? ' view' : ''}${b.conflict ? ' conflict' : ''}`, tabindex: '0', role: 'button', 'aria-pressed': 'false',
          'aria-label': `${b.name}${b.aliases.length ? ` (+${b.aliases.length} aliases)` : ''}: ${b.space} ${b.plan.label.details[0]}, lines ${b.start} to ${b.end}`,
          data: {
            name: b.name, space: b.space, base: b.base, offset: String(b.offset), size: String(b.size),
            start: String(b.start), end: String(b.end), aliases: b.aliases.join(','), index: String(b.i),
          },
        }, el('span', { class: 'bl' }, name, badge), detail, ...marks.flatMap((mk) => [mk.node, mk.text]));
        // A label beside the box (where none fits in it), and its leader, live in the lane.
        const beside = el('span', { class: 'beside', hidden: true, 'aria-hidden': 'true', data: { for: String(b.i) } });
        const leader = el('i', { class: 'leader', hidden: true, 'aria-hidden': 'true' });
        this.items[b.i] = { b, node, name, badge, detail, marks, beside, leader };
        entry.boxes.push(this.items[b.i]);
        entry.lane.append(node);
      }
      // Beside-labels and leaders over every box of their lane.
      for (const entry of this.lanes.values()) for (const it of entry.boxes) entry.lane.append(it.leader, it.beside);
      buildFolds(this);
      placeRows(this);
      const legend = el('div', { class: 'legend' },
        ...this.plan.legend.map((e) => el('span', { class: 'lg' }, el('i', { class: `mk mk-${e.mark}` }), e.text)),
        el('span', { class: 'lg hint', text: 'ctrl/⌘ + wheel zooms the byte scale · click a tile to pin it' }),
        el('span', { class: 'lg count', text: `${this.lines} lines · dump L${fn.src_start}–L${fn.src_end}` }));
      this.tableDetails = el('details', { class: 'table-view' }, el('summary', { text: 'Table view' }));
      this.keyList = el('div', { class: 'key-list', hidden: true });
      // Clicking a line number lists what is live there, per space (the guide's "what holds it?").
      this.liveAtPanel = el('div', { class: 'live-at', hidden: true, 'aria-live': 'polite' });
      const view = el('div', { class: 'live-view' }, toolbar, this.liveAtPanel, this.plot, this.keyList, legend, this.tableDetails);
      this.body.querySelector('.static-map').replaceWith(view);
      this.el.classList.add('live');
      this.wire();
      this.refreshAll();
      this.plot.style.scrollPaddingTop = px(this.corner.offsetHeight);
    }
    wire() {
      this.btnSrc.addEventListener('click', () => this.setSource(!this.state.src));
      this.btnAxis.addEventListener('click', () => {
        this.state.axis = this.state.axis === 'used' ? 'limit' : 'used';
        this.layout();
        writeHash(this);
      });
      this.btnIn.addEventListener('click', () => this.zoomTo(this.state.zoom * R.zoom_step, this.viewCenterX()));
      this.btnOut.addEventListener('click', () => this.zoomTo(this.state.zoom / R.zoom_step, this.viewCenterX()));
      this.btnLevel.addEventListener('click', () => this.zoomTo(1, this.viewCenterX()));
      for (const [space, b] of this.spaceBtns) b.addEventListener('click', () => this.toggleSpace(space));
      this.src.addEventListener('click', (e) => {
        const no = e.target.closest('.no');
        if (no && no.parentElement.dataset.line) this.showLiveAt(Number(no.parentElement.dataset.line));
      });
      this.searchInput.addEventListener('input', () => this.find(this.searchInput.value));
      this.searchInput.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          if (this.matches && this.matches.length) this.reveal(this.matches[0]);
        } else if (e.key === 'Escape' && this.searchInput.value) {
          e.stopPropagation();
          this.searchInput.value = '';
          this.find('');
        }
      });
      this.chipClose.addEventListener('click', () => this.pin(null));
      const onBox = (type, f) => this.grid.addEventListener(type, (e) => {
        const node = e.target.closest('.box');
        if (node) f(this.boxes[Number(node.dataset.index)], e, node);
      });
      const over = (b, x, y, byFocus) => { showTip(b, x, y, byFocus); this.hover(b); };
      const out = () => { hideTip(); this.hover(null); };
      onBox('click', (b) => this.pin(this.state.pin === b.i ? null : b.i));
      onBox('keydown', (b, e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        this.pin(this.state.pin === b.i ? null : b.i);
      });
      onBox('pointerover', (b, e) => over(b, e.clientX, e.clientY));
      onBox('pointermove', (b, e) => { if (!tip.hidden) placeTip(e.clientX, e.clientY); });
      onBox('pointerout', (b, e, node) => { if (!node.contains(e.relatedTarget)) out(); });
      onBox('focusin', (b, e, node) => {
        const r = node.getBoundingClientRect();
        over(b, r.left + Math.min(r.width, 40), r.top, true);
      });
      onBox('focusout', out);
      // Ctrl/Cmd + wheel zooms around the pointer; a plain wheel is left to the browser (panning).
      this.plot.addEventListener('wheel', (e) => {
        if (!(e.ctrlKey || e.metaKey)) return;
        e.preventDefault();
        const dy = e.deltaY * [1, WHEEL_NOTCH / 3, WHEEL_NOTCH * 3][e.deltaMode];
        const steps = clamp(-dy / WHEEL_NOTCH, -1, 1);
        if (steps) this.zoomTo(this.state.zoom * R.zoom_step ** steps, e.clientX);
      }, { passive: false });
      this.tableDetails.addEventListener('toggle', () => this.buildTable(), { once: true }); // the first opens it
      for (const type of ['focusin', 'pointerdown']) this.el.addEventListener(type, () => { activeCard = this; });
      const sp = this.splitter;
      let drag = null;
      sp.addEventListener('pointerdown', (e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        sp.setPointerCapture(e.pointerId);
        drag = { x: e.clientX, w: this.srcW };
        root.classList.add('dragging');
      });
      // Browsers send pointer moves at most once a frame (coalesced): one template write each.
      sp.addEventListener('pointermove', (e) => {
        if (drag) this.setSplit(drag.w + e.clientX - drag.x, false);
      });
      const end = () => {
        if (!drag) return;
        drag = null;
        root.classList.remove('dragging');
        this.setSplit(this.srcW, true);
      };
      for (const type of ['pointerup', 'pointercancel']) sp.addEventListener(type, end);
      sp.addEventListener('dblclick', () => this.setSplit(R.splitter_default, true));
      sp.addEventListener('keydown', (e) => {
        const step = e.shiftKey ? 96 : 16;
        const w = {
          ArrowLeft: this.srcW - step, ArrowRight: this.srcW + step,
          Home: R.splitter_min, End: R.splitter_max, Enter: R.splitter_default,
        }[e.key];
        if (w === undefined) return;
        e.preventDefault();
        this.setSplit(w, true);
      });
    }
    refreshAll() {
      this.layout();
      this.paintSource();
      this.paintPin();
    }
    visibleSpaces() {
      return this.fn.spaces.filter((sp) => !this.state.hidden.has(sp.space));
    }
    get a() {
      return this.state.axis === 'used' ? 1 : 0;
    }
    /** The bit set of the visible lanes (bit i: the plan's lane i), as the plan's tables index them. */
    mask() {
      let mask = 0;
      for (const { li, lp } of this.lanes.values()) if (!this.state.hidden.has(lp.space)) mask |= 1 << li;
      return mask;
    }
    // A lane's byte axis: the visible lanes' scale (`k`, as layout set it) or an inset's own, and its cut
    // band; with its inset entry (or null) and width.
    laneAxis(entry) {
      const inset = (this.plan.inset_lanes?.[this.a][this.mask()] || []).find((x) => x.lane === entry.li) || null;
      const k = inset ? inset.factor * this.state.zoom : this.k;
      const c = entry.lp.cuts ? entry.lp.cuts[this.a] : null;
      const axis = { k, cut: c ? [c.from, c.to] : null, px: c ? PX.cut : 0, wide: entry.lp.wide ? entry.lp.wide[this.a] : [] };
      return { axis, inset, width: axisX(axis, Math.max(entry.lp.span[this.a], 1)) };
    }
    /** Sets an inset lane apart: a dashed frame, and the plan's badge from the zoom it fits at. */
    markInset(entry, inset, k) {
      const on = !!inset;
      for (const node of [entry.lane, entry.head]) node.classList.toggle('inset', on);
      entry.badge.hidden = !on;
      entry.badge.textContent = on ? inset.badge.find((_, i) => this.state.zoom >= inset.badge_z[i]) ?? '' : '';
      if (on) entry.lane.dataset.pxPerByte = String(k);
      else delete entry.lane.dataset.pxPerByte;
    }
    /** The key list under the map: the boxes of the visible lanes their step labels by key, in key order. */
    applyKeys() {
      const rows = this.reading.map((b) => this.items[b.i]).filter((it) => it.keyed && !this.state.hidden.has(it.b.space))
        .map(({ b }) => el('li', { data: { key: String(b.plan.n), name: b.name } }, el('b', { text: String(b.plan.n) }), ' ',
          el('span', { text: b.plan.key })));
      this.keyList.hidden = rows.length === 0;
      this.keyList.replaceChildren(el('div', { class: 'key-head', text: 'key: boxes too narrow for their names' }), el('ol', {}, ...rows));
    }
    /** The live-bytes column of a lane: the plan's bars (scaled to the column already) and peak. */
    profile(lp) {
      const pp = lp.profile;
      const body = el('div', {
        class: 'profile', 'aria-hidden': 'true', data: { space: lp.space, peak: String(pp.peak), peakLine: String(pp.peak_line) },
      });
      for (const [, , w] of pp.bars) body.append(el('div', { class: 'bar', style: `width:${w}px` }));
      body.append(el('div', { class: 'peak-row' }));
      const head = el('div', {
        class: 'profile-head', data: { space: lp.space }, title: `${lp.space}: most bytes live at once, ${pp.head[1]}, ${pp.head[0]}`,
      }, el('div', { text: pp.head[0] }), el('div', { class: 'ph-bytes', text: pp.head[1] }));
      return { head, body };
    }
    // The plan's zoom step `n` for a lane on `axis` (plan/steps.rs): the largest at or below its factor, its
    // labels and places (the last step's past it), and `scale`, from a place at the step to this factor.
    stepAt(entry, axis) {
      const st = this.plan.steps && this.plan.steps[entry.li] && this.plan.steps[entry.li][this.a];
      if (!st) return null;
      const n = Math.floor(Math.log(axis.k / st.k) / Math.log(R.zoom_step) + 1e-9);
      const at = clamp(n, st.from, st.from + st.at.length - 1) - st.from;
      // Each box's label: its last change up to the step.
      const spots = new Map(st.at.slice(0, at + 1).flat().map((s) => [typeof s === 'number' ? s : s[0], s]));
      const stepAxis = { ...axis, k: st.k * R.zoom_step ** (at + st.from) };
      const scale = (x) => axisX(axis, byteAt(stepAxis, x));
      return { a: this.a, n, spots, hwm: st.hwm[at], pills: st.pills ? st.pills[at] : [], scale };
    }
    placeCut(entry, axis) {
      const c = entry.lp.cuts ? entry.lp.cuts[this.a] : null;
      entry.cut.hidden = !c;
      delete entry.lane.dataset.cut;
      if (!c) return;
      entry.lane.dataset.cut = `${c.from} ${c.to}`;
      entry.cut.title = c.title;
      entry.cut.style.left = px(axisX(axis, c.from));
      entry.cut.style.width = px(axis.px);
      c.words.forEach((w, i) => { entry.cut.children[i].textContent = w; });
    }
    // A bracket under each stretch this factor draws wider than its bytes (as the SVG's `g.widened`).
    placeWide(entry, axis) {
      const marks = axis.wide.filter(([from, to, , least]) => (to - from) * axis.k < least).map(([from, to, title, least]) =>
        el('i', { title, data: { from: String(from), to: String(to) }, style: `left:${px(axisX(axis, from))};width:${px(stretchPx(axis, to - from, least))}` }));
      entry.wide.replaceChildren(...marks);
    }
    /** Every box and mark of a lane `laneW` px wide on its byte `axis`, and its step's labels. */
    placeLane(entry, axis, laneW) {
      const step = this.stepAt(entry, axis);
      for (const mk of entry.marks) placeMark(mk, [0, laneW], axis, laneW, step);
      entry.pills.forEach((mk, j) => { mk.text.style.left = step ? px(step.scale(step.pills[j])) : ''; });
      this.placeCut(entry, axis);
      this.placeWide(entry, axis);
      if (step) entry.hwm.style.left = px(step.scale(step.hwm) - 8); // less the head's padding (page.css)
      for (const it of entry.boxes) {
        const [x, w] = placeOn(axis, it.b.offset, it.b.size, laneW);
        it.node.style.left = px(x);
        it.node.style.width = px(w);
        for (const mk of it.marks) placeMark(mk, [0, w], axis, laneW, step);
        // plan::steps::StepLabel: a box index, [box, row, keyed, detail] inside, or [box, row,
        // keyed, x, x1, y1, x2, y2] beside.
        const spot = step && step.spots.get(it.b.i);
        const label = it.b.plan.label;
        const key = String(it.b.plan.n);
        const inside = Array.isArray(spot) && spot.length === 4 ? spot : null;
        const beside = Array.isArray(spot) && spot.length === 8 ? spot : null;
        it.keyed = !!(Array.isArray(spot) && spot[2]);
        it.name.textContent = inside ? (it.keyed ? key : label.name) : '';
        it.badge.textContent = inside && !it.keyed ? label.badge || '' : '';
        it.badge.hidden = !it.badge.textContent;
        it.detail.textContent = inside && inside[3] >= 0 ? label.details[inside[3]] : '';
        it.detail.hidden = !it.detail.textContent;
        it.name.parentElement.style.marginTop = inside && inside[1] > 0 ? px(inside[1] * PX.line) : '';
        if (it.keyed) it.node.dataset.key = key;
        else delete it.node.dataset.key;
        it.beside.hidden = it.leader.hidden = !beside;
        if (!beside) continue;
        const [, row, , bx, x1, y1, x2, y2] = beside;
        const top = rowY(this, it.b.start);
        const [lx1, lx2] = [step.scale(x1), step.scale(x2)];
        it.beside.textContent = it.keyed ? key : label.name;
        it.beside.style.cssText = `left:${step.scale(bx)}px;top:${top + row * PX.line}px`;
        it.leader.style.cssText = `left:${lx1}px;top:${top + y1}px;width:${Math.hypot(lx2 - lx1, y2 - y1)}px;`
          + `transform:rotate(${Math.atan2(y2 - y1, lx2 - lx1)}rad)`;
      }
    }
    layout() {
      const table = this.plan.factors[this.a];
      this.k = (table[this.mask()] || table[table.length - 1]) * this.state.zoom;
      // Exposed for scripts and tests that read the page's byte scale (as the SVG's data-px-per-byte).
      this.grid.style.setProperty('--k', String(this.k));
      const cols = [];
      const visible = this.visibleSpaces();
      // A space shown again goes back to its panel place in the DOM too (users' scripts read lanes in order).
      const reorder = visible.some((sp) => !this.lanes.get(sp.space).lane.isConnected);
      for (const sp of this.fn.spaces) {
        const entry = this.lanes.get(sp.space);
        const shown = !this.state.hidden.has(sp.space);
        const b = this.spaceBtns.get(sp.space);
        const last = shown && visible.length === 1;
        b.setAttribute('aria-pressed', String(shown));
        b.setAttribute('aria-disabled', String(last));
        b.title = last ? 'The last visible space cannot be hidden' : `${shown ? 'Hide' : 'Show'} ${sp.space}`;
        if (!shown) {
          // Gone from the DOM, not just invisible, so `.lane` queries see only what is drawn.
          for (const node of [entry.head, entry.lane, entry.profile.head, entry.profile.body]) node.remove();
          continue;
        }
        const { axis, inset, width } = this.laneAxis(entry);
        this.markInset(entry, inset, axis.k);
        this.placeLane(entry, axis, width);
        cols.push(`${width.toFixed(3)}px`);
        entry.head.style.gridColumn = entry.lane.style.gridColumn = String(cols.length + 1);
        entry.lane.dataset.span = String(entry.lp.span[this.a]);
        entry.end.textContent = entry.lp.ends[this.a];
        if (reorder) this.grid.append(entry.head, entry.lane);
      }
      this.applyKeys();
      this.rowBand.style.gridColumn = `2 / ${cols.length + 2}`;
      cols.push(`${R.profile_gap}px`);
      for (const sp of visible) {
        const { head, body } = this.lanes.get(sp.space).profile;
        cols.push(`${R.profile_px}px`);
        head.style.gridColumn = body.style.gridColumn = String(cols.length + 1);
        if (reorder) this.grid.append(head, body);
      }
      this.laneCols = cols.join(' ');
      this.writeTemplate();
      this.btnLevel.textContent = `${this.state.zoom.toFixed(this.state.zoom < 1 ? 2 : 1)}×`;
      this.btnIn.disabled = this.state.zoom >= R.zoom_max;
      this.btnOut.disabled = this.state.zoom <= R.zoom_min;
      this.btnAxis.replaceChildren('x axis: ', el('b', { text: this.state.axis }));
      this.btnAxis.setAttribute('aria-pressed', String(this.state.axis === 'used'));
      // The card's zoom and axis on its element, where tests and scripts read them.
      this.el.dataset.zoom = String(+this.state.zoom.toFixed(4));
      this.el.dataset.axis = this.state.axis;
    }
    /** The only thing the splitter touches: the first column of the grid template. */
    writeTemplate() {
      const leftW = this.state.src ? px(this.srcW) : 'var(--gutter-w)';
      this.grid.style.gridTemplateColumns = `${leftW} ${this.laneCols}`;
      // Scrolling a box into view (focus, search, Playwright) must not leave it under the sticky column.
      this.plot.style.scrollPaddingLeft = leftW;
      this.plot.style.setProperty('--left-w', leftW);
    }
    setSplit(w, persist) {
      this.srcW = clampSplit(w);
      this.splitter.setAttribute('aria-valuenow', String(this.srcW));
      this.writeTemplate();
      if (persist) store.set(this.storeKey, String(this.srcW));
    }
    setSource(open) {
      this.state.src = open;
      this.paintSource();
      if (open) this.fitBesideSource();
      else if (this.fitFrom !== undefined) {
        // Closing the source undoes its fit, unless the reader chose a zoom meanwhile (zoomTo).
        this.state.zoom = this.fitFrom;
        this.fitFrom = undefined;
        this.layout();
      }
      writeHash(this);
    }
    // Opening the source must not push lanes off screen: the map zooms out to fit, down to the plan's readable zoom.
    fitBesideSource() {
      // What zooms is each lane's part to scale; a cut band keeps its width.
      const drawn = this.visibleSpaces().map((sp) => this.laneAxis(this.lanes.get(sp.space)));
      const lanes = drawn.reduce((a, d) => a + d.width - d.axis.px, 0);
      const bands = drawn.reduce((a, d) => a + d.axis.px, 0);
      const room = this.plot.clientWidth - this.srcW - R.profile_gap - drawn.length * R.profile_px - bands;
      if (!drawn.length || room <= 0 || lanes <= room) return;
      const z0 = this.state.zoom;
      const z = clamp(Math.max((z0 * room) / lanes, this.plan.readable[this.a][this.mask()] ?? 0), R.zoom_min, z0);
      if (z >= z0) return;
      this.fitFrom = z0;
      this.state.zoom = z;
      this.layout();
    }
    paintSource() {
      const open = this.state.src;
      this.el.classList.toggle('src-open', open);
      this.btnSrc.textContent = open ? 'Hide IR source' : 'Show IR source';
      this.btnSrc.setAttribute('aria-pressed', String(open));
      this.corner.textContent = open ? 'IR source' : 'line';
      this.splitter.hidden = !open;
      this.splitter.setAttribute('aria-valuenow', String(this.srcW));
      this.writeTemplate();
    }
    toggleSpace(space) {
      const hidden = this.state.hidden;
      if (hidden.has(space)) hidden.delete(space);
      else if (this.visibleSpaces().length > 1) hidden.add(space);
      else return; // the last visible space stays
      this.layout();
      writeHash(this);
    }
    /** The viewport x of the middle of the visible lane area (the anchor of button zooms). */
    viewCenterX() {
      const r = this.plot.getBoundingClientRect();
      const leftW = this.left.getBoundingClientRect().width;
      return r.left + leftW + (r.width - leftW) / 2;
    }
    /** Zooms so that the byte under viewport x `anchorX` stays under it. */
    zoomTo(z, anchorX) {
      this.fitFrom = undefined; // the reader chose a zoom: closing the source keeps it
      const z0 = this.state.zoom;
      // Exactly 1 where a step lands there within rounding, so that reset and steps agree.
      const z1 = Math.abs(z - 1) < 1e-9 ? 1 : clamp(z, R.zoom_min, R.zoom_max);
      if (z1 === z0) return;
      const x = Math.max(anchorX, this.left.getBoundingClientRect().right);
      const laneLeft = this.grid.querySelector('.lane')?.getBoundingClientRect().left ?? 0;
      // `a`: the anchor's place along the lanes in bytes. Scroll offsets are whole pixels, so repeated
      // zooms at one spot reuse it rather than let the anchor drift.
      const kept = this.anchor;
      const a = kept && kept.x === x && kept.scroll === this.plot.scrollLeft && kept.zoom === z0
        ? kept.a : (x - laneLeft) / this.k;
      this.state.zoom = z1;
      this.layout();
      // Lane widths changed but not where the lanes begin: scroll so that byte `a` is back at x.
      this.plot.scrollLeft = Math.round(this.plot.scrollLeft + laneLeft + a * this.k - x);
      this.anchor = { x, a, scroll: this.plot.scrollLeft, zoom: z1 };
      writeHash(this);
    }
    hover(b) {
      // The boxes of the hovered box's handovers (the plan's partners) are marked while it is.
      for (const j of this.partners || []) this.items[j].node.classList.remove('partner');
      this.partners = b ? b.plan.partners || [] : [];
      for (const j of this.partners) this.items[j].node.classList.add('partner');
      this.hoverBand.hidden = this.state.pin !== null || !b;
      if (b) spanRows(this, this.hoverBand, b.start, b.end);
    }
    pin(i) {
      if (i === this.state.pin) return;
      this.state.pin = i;
      if (i !== null && !this.state.src) {
        // Finding the tile in the source is the point of pinning: the source opens, the box in sight.
        this.setSource(true);
        if (this.items[i].node.isConnected) this.items[i].node.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      }
      this.paintPin();
      writeHash(this);
    }
    paintPin() {
      for (const node of this.el.querySelectorAll('.box.pinned')) {
        node.classList.remove('pinned');
        node.setAttribute('aria-pressed', 'false');
      }
      for (const idx of this.marked) {
        this.codes[idx].textContent = this.fn.source[idx] ?? '';
        this.rows[idx].classList.remove('has-hit');
      }
      this.marked = [];
      const i = this.state.pin;
      this.el.classList.toggle('has-pin', i !== null);
      this.chip.hidden = this.pinBand.hidden = this.rowBand.hidden = i === null;
      if (i === null) return;
      const b = this.boxes[i];
      this.items[i].node.classList.add('pinned');
      this.items[i].node.setAttribute('aria-pressed', 'true');
      this.chip.dataset.space = b.space;
      this.chipName.textContent = b.name;
      this.hoverBand.hidden = true;
      for (const band of [this.pinBand, this.rowBand]) spanRows(this, band, b.start, b.end);
      // Every mention of its names in the IR source as a whole identifier, in <mark>.
      const alts = [...new Set([b.name, ...b.aliases])].filter(Boolean).sort((x, y) => y.length - x.length)
        .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      const re = new RegExp(`(?<![A-Za-z0-9_])(${alts.join('|')})(?![A-Za-z0-9_])`);
      this.fn.source.forEach((text, idx) => {
        const parts = text.split(re); // split by a group: the mentions at the odd places
        if (parts.length === 1) return;
        this.codes[idx].replaceChildren(...parts.map((p, j) => (j % 2 ? el('mark', { class: 'hit', text: p }) : p))
          .filter((p) => p !== ''));
        this.rows[idx].classList.add('has-hit');
        this.marked.push(idx);
      });
    }
    reveal(i) {
      this.pin(i);
      const node = this.items[i].node;
      if (!node.isConnected) return;
      node.focus({ preventScroll: true });
      node.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: reducedMotion.matches ? 'auto' : 'smooth' });
    }
    find(query) {
      const q = query.trim().toLowerCase();
      this.el.classList.toggle('searching', q.length > 0);
      this.matches = [];
      for (const b of this.reading) {
        const hit = q.length > 0 && [b.name, ...b.aliases].some((n) => n.toLowerCase().includes(q));
        this.items[b.i].node.classList.toggle('match', hit);
        if (hit) this.matches.push(b.i);
      }
      this.searchCount.textContent = q ? `${this.matches.length} found` : '';
    }
    buildTable() {
      // Every cell is a text the layout engine wrote: the tooltip's lines and the label's detail.
      const head = ['name', 'space · shape dtype · op', 'base', 'size · address', 'lines', 'aliases', 'marks'];
      const tbody = el('tbody');
      for (const b of this.reading) tbody.append(el('tr', { data: { index: String(b.i), space: b.space } },
        el('td', { class: 'nm' }, el('button', { type: 'button', class: 'linkish', text: b.name, title: 'Pin this tile' })),
        el('td', {}, el('i', { class: 'sw', 'aria-hidden': 'true' }), b.plan.tip[0]),
        el('td', { text: b.base }),
        el('td', { class: 'num', text: b.plan.label.details[0] }),
        el('td', { class: 'num', text: b.plan.tip[3] }),
        el('td', { class: 'al', text: b.aliases.join(', ') }),
        el('td', { text: [b.view ? 'view' : '', b.conflict ? 'conflict' : ''].filter(Boolean).join(', '), class: b.conflict ? 'crit' : '' })));
      this.table = el('table', { class: 'tiles' },
        el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))), tbody);
      this.table.addEventListener('click', (e) => {
        const b = e.target.closest('button.linkish');
        if (b) this.reveal(Number(b.closest('tr').dataset.index));
      });
      this.tableDetails.append(el('div', { class: 'table-wrap' }, this.table));
    }
  }

  const cards = [];
  for (const section of document.querySelectorAll('section.card')) {
    const fn = DATA.functions[Number(section.dataset.index)];
    if (!fn) continue;
    const card = new Card(section, fn);
    cards.push(card);
    card.details.addEventListener('toggle', () => {
      if (card.details.open) {
        card.build();
        writeHash(card);
      } else if (activeCard === card) {
        writeHash(null);
      }
    });
  }

  // The card the page opens with (the worst function's, open in the HTML).
  const opening = cards.find((c) => c.details.open) || null;

  function applyHash() {
    const q = readHash();
    const card = q.get('fn') && cards.find((c) => c.fn.name === q.get('fn'));
    if (!card) return false;
    card.applyState(q);
    activeCard = card;
    // A link shows exactly its card: the one open by default steps aside.
    for (const other of cards) if (other !== card && other.details.open && !other.built) other.details.open = false;
    if (!card.details.open) card.details.open = true; // its toggle event builds it
    card.build();
    card.el.scrollIntoView({ block: 'start' });
    return true;
  }

  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    const card = (e.target instanceof Element && cards.find((c) => c.el.contains(e.target))) || activeCard;
    if (card && card.state.pin !== null) {
      card.pin(null);
      hideTip();
    }
  });

  // The overview table (render/overview.rs): any column sorts on a click (numbers largest first,
  // names A to Z; a second click reverses), and a function's name opens its card.
  const overview = document.querySelector('table.ov');
  if (overview) {
    const body = overview.tBodies[0];
    const heads = [...overview.tHead.rows[0].cells];
    const key = (row, i) => (row.cells[i].dataset.v ?? row.cells[i].textContent.trim()) || null;
    heads.forEach((th, i) => {
      th.tabIndex = 0;
      const sort = () => {
        const rows = [...body.rows];
        const numeric = rows.every((r) => key(r, i) === null || Number.isFinite(parseFloat(key(r, i))));
        const desc = th.getAttribute('aria-sort') ? th.getAttribute('aria-sort') === 'ascending' : numeric;
        const value = (r) => (numeric ? parseFloat(key(r, i) ?? '-Infinity') : key(r, i) ?? '');
        rows.sort((a, b) => (numeric ? value(a) - value(b) : value(a).localeCompare(value(b))) * (desc ? -1 : 1));
        for (const h of heads) h.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
        body.append(...rows);
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        sort();
      });
    });
    overview.addEventListener('click', (e) => {
      const row = e.target.closest('a') && e.target.closest('tr');
      if (!row) return;
      e.preventDefault();
      const hash = new URLSearchParams({ fn: row.dataset.function }).toString();
      if (window.location.hash === `#${hash}`) applyHash();
      else window.location.hash = hash;
    });
  }

  window.addEventListener('hashchange', applyHash);
  // A tooltip at a focused box would be left behind by scrolling (one at the pointer follows it).
  window.addEventListener('scroll', () => { if (tip.dataset.by === 'focus') hideTip(); }, { passive: true, capture: true });

  // Theme (the header's button, on every page): the system decides unless the reader chose; the choice is kept.
  const themeBtn = document.querySelector('.theme-toggle');
  const savedTheme = store.get('pmm:theme');
  if (savedTheme === 'dark' || savedTheme === 'light') root.dataset.theme = savedTheme;
  const isDark = () => (root.dataset.theme || (darkScheme.matches ? 'dark' : 'light')) === 'dark';
  const paintThemeButton = () => {
    themeBtn.textContent = isDark() ? '☀ light' : '☾ dark';
    themeBtn.title = `Switch to the ${isDark() ? 'light' : 'dark'} theme`;
    themeBtn.setAttribute('aria-pressed', String(isDark()));
  };
  themeBtn.hidden = false;
  themeBtn.addEventListener('click', () => {
    root.dataset.theme = isDark() ? 'light' : 'dark';
    store.set('pmm:theme', root.dataset.theme);
    paintThemeButton();
  });
  darkScheme.addEventListener('change', paintThemeButton);
  paintThemeButton();

  if (!applyHash()) {
    for (const card of cards) if (card.details.open) card.build();
    // The worst card opens at the top of the view, unless it is the first (under the overview) or the
    // reader has scrolled. This window only: a notebook around its frame stays where it is.
    if (opening && opening !== cards[0] && window.scrollY === 0) window.scrollTo(0, opening.el.getBoundingClientRect().top);
  }
  root.dataset.ready = '1';
  performance.mark('pmm-ready');
}).catch((err) => {
  // A browser without DecompressionStream (older than 2023), or a damaged file: the static page stays.
  console.error('pto-memory-map: the interactive view could not start; the static cards stay.', err);
}).finally(drawDistantCards);
