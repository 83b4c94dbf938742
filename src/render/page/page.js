// pto-memory-map page script.
//
// The HTML already reads without this script: a header, and one <details> card per function holding
// its static SVG. This script turns an open card's SVG into the interactive view (zoom, x axis,
// show/hide, pinning, IR source, splitter). Cards are built when first opened, so a page with dozens
// of functions is interactive at once. What to draw comes from the plan the Rust layout engine wrote
// next to the data (plan/mod.rs): spans, the factor of every set of visible lanes, where every label
// goes at every zoom step (plan/steps.rs), tooltip lines, marks, profile bars, live-list order, all
// text. This script places nothing: it picks the plan's step for the reader's zoom, turns bytes and
// lines into pixels at the reader's factor (the plan's byte axis, plan/axis.rs), and handles
// interaction.
'use strict';

/**
 * A payload the page carries gzipped and in base64 (render/html.rs: the map data and the plan), as
 * the JSON it holds. The browser inflates it itself (DecompressionStream): nothing is fetched.
 */
async function pmmPayload(id) {
  const text = document.getElementById(id).textContent;
  const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
}

/** The index of the closing quote of the JSON string that opens at `text[at]`. */
function stringEnd(text, at) {
  let i = at + 1;
  for (; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++; // past an escape
  if (i >= text.length) throw new Error('unterminated string in the plan');
  return i;
}

/** The index of the closing brace of the JSON object that opens at `text[at]`. */
function objectEnd(text, at) {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = stringEnd(text, i);
    else if (c === 123 || c === 91) depth++;
    else if ((c === 125 || c === 93) && --depth === 0) return i;
  }
  throw new Error('unterminated object in the plan');
}

/**
 * The plan (plan/mod.rs) with its cards' JSON left unparsed until a card is drawn: a page of
 * hundreds of cards parses only those it opens, not megabytes of boxes. A card is the plan's one
 * object whose first key is `function`, so its text begins at `{"function":` (a string cannot hold
 * that: its quotes would be escaped) and ends where the next card begins, the last where its braces
 * close. `card(name)` parses a card when first asked; should a card's text not be one (a plan shaped
 * otherwise), the whole plan is parsed instead, as it always was.
 */
function lazyPlan(text) {
  const KEY = '{"function":';
  const starts = [];
  for (let at = text.indexOf(KEY); at >= 0; at = text.indexOf(KEY, at + KEY.length)) starts.push(at);
  let whole = null;
  const parseWhole = () => {
    whole = whole || JSON.parse(text);
    return whole;
  };
  const ranges = new Map();
  let plan;
  try {
    if (!starts.length) throw new Error('no cards');
    const last = objectEnd(text, starts[starts.length - 1]);
    plan = JSON.parse(text.slice(0, starts[0]) + text.slice(last + 1));
    if (!Array.isArray(plan.cards) || plan.cards.length) throw new Error('cards not where expected');
    starts.forEach((start, i) => {
      const at = start + KEY.length;
      const name = JSON.parse(text.slice(at, stringEnd(text, at) + 1));
      ranges.set(name, [start, i + 1 < starts.length ? starts[i + 1] - 1 : last + 1]);
    });
  } catch {
    plan = { ...parseWhole() };
  }
  const parsed = new Map();
  plan.card = (name) => {
    if (whole) return whole.cards.find((c) => c.function === name);
    if (!parsed.has(name)) {
      const range = ranges.get(name);
      let card;
      try {
        card = range ? JSON.parse(text.slice(range[0], range[1])) : undefined;
      } catch {
        return parseWhole().cards.find((c) => c.function === name);
      }
      if (card && card.function !== name) return parseWhole().cards.find((c) => c.function === name);
      parsed.set(name, card);
    }
    return parsed.get(name);
  };
  return plan;
}

// The rules (in the head, before this script) set what the stylesheet reads from them now, while
// the body is still unparsed: set on the root once the cards are there, they would restyle every
// element of a page of hundreds of cards.
const PMM_RULES = JSON.parse(document.getElementById('pmm-rules').textContent);
document.documentElement.classList.add('js');
document.documentElement.style.setProperty('--line', `${PMM_RULES.line_px}px`);
document.documentElement.style.setProperty('--plot-max', `${PMM_RULES.plot_max_vh * 100}vh`);

/**
 * Draws the cards the stylesheet leaves to be laid out near the viewport only (page.css: those past
 * the 64th), a batch per idle moment, so that the page opens at once and is all there soon after
 * (a scrollbar that tells the true length, a full-page picture with every card).
 */
function drawDistantCards() {
  const rest = [...document.querySelectorAll('table.ov > tbody > tr:nth-child(n+65):not(.drawn), main.cards > section.card:nth-child(n+65):not(.drawn)')];
  const BATCH = 64;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 16));
  const step = () => {
    for (const section of rest.splice(0, BATCH)) section.classList.add('drawn');
    if (rest.length) idle(step, { timeout: 500 });
  };
  if (rest.length) idle(step, { timeout: 500 });
}

// The page stays as it was written (readable, static cards) until both payloads are inflated; the
// cards opened and the fragment followed meanwhile are taken up at the end, once wired.
// The script runs from the page's head, before the body is parsed, so that inflating overlaps parsing.
const pmmParsed = new Promise((resolve) => {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', resolve, { once: true });
  else resolve();
});
Promise.all([pmmPayload('pmm-data'), pmmPayload('pmm-plan'), pmmParsed]).then(([dataText, planText]) => {
  const DATA = JSON.parse(dataText);
  const PLAN = lazyPlan(planText);
  const R = PMM_RULES;
  const PX = PLAN.px;
  const root = document.documentElement;
  // Keyboard steps of the splitter; they only decide how far one key press moves it.
  const NUDGE_PX = 16;
  const NUDGE_BIG_PX = 96;
  // One mouse-wheel notch is 100 px of deltaY in Chromium and Firefox; treat it as one zoom click.
  const WHEEL_NOTCH = 100;
  const IDENT_CHAR = 'A-Za-z0-9_';
  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');

  // file:// pages may have no usable storage (or throw on access): remembering is a nicety only.
  const store = {
    get(key) {
      try { return window.localStorage.getItem(key); } catch { return null; }
    },
    set(key, value) {
      try { window.localStorage.setItem(key, value); } catch { /* not remembered */ }
    },
  };


  // ---------------------------------------------------------------- helpers

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (value === undefined || value === null || value === false) continue;
        if (key === 'class') node.className = value;
        else if (key === 'text') node.textContent = value;
        else if (key === 'style') node.style.cssText = value;
        else if (key === 'data') Object.assign(node.dataset, value);
        else node.setAttribute(key, value === true ? '' : value);
      }
    }
    for (const child of children) {
      if (child !== null && child !== undefined && child !== false) node.append(child);
    }
    return node;
  }

  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

  /**
   * The byte axis (plan::Axis): `axis` is { k, cut, px }, `k` px a byte except the cut [from, to),
   * drawn `px` wide. Where byte `b` lands from the lane's left.
   */
  function axisX(axis, b) {
    if (!axis.cut || b <= axis.cut[0]) return b * axis.k;
    const [from, to] = axis.cut;
    return b >= to ? (b - (to - from)) * axis.k + axis.px : from * axis.k + ((b - from) / (to - from)) * axis.px;
  }

  /** The byte at `x` px on `axis` (axisX's inverse): how a place at one factor scales to another. */
  function byteAt(axis, x) {
    if (!axis.cut || x <= axis.cut[0] * axis.k) return x / axis.k;
    const [from, to] = axis.cut;
    const band = from * axis.k;
    return x >= band + axis.px ? (x - axis.px) / axis.k + (to - from) : from + ((x - band) / axis.px) * (to - from);
  }

  /** plan::Axis::place: a byte range's left edge and width in a lane `laneW` px wide. */
  function placeOn(axis, offset, size, laneW, minPx) {
    const stop = offset + Math.max(size, 0);
    const apart = !axis.cut || stop <= axis.cut[0] || offset >= axis.cut[1];
    const w = Math.max(apart ? Math.max(size, 0) * axis.k : axisX(axis, stop) - axisX(axis, offset), minPx);
    return [clamp(axisX(axis, offset), 0, Math.max(laneW - w, 0)), w];
  }

  // The tooltips and legend words of the compiler's placed marks are marks.js' `pmmMarks`.

  /** A mark of the plan (plan::Mark) as an element; `placeMark` puts it at a factor. */
  function markEl(m, firstLine) {
    const st = PLAN.styles[m.style];
    const node = el('i', { class: `${st.class} mk-${st.kind} tone-${st.tone}`, 'aria-hidden': 'true' });
    pmmMarks.tip(node, m);
    // Without lines of its own a mark covers its host (a box, or the lane) from top to bottom.
    const [from, to] = m.lines || [firstLine, null];
    node.style.top = `${(from - firstLine) * PX.line}px`;
    if (to === null) node.style.bottom = '0';
    else node.style.height = `${(to - from + 1) * PX.line}px`;
    for (const u of m.at || []) node.append(el('i', { style: `top:${(u - from + 0.5) * PX.line - 1}px` }));
    const text = m.text ? el('span', {
      class: `mk-text tone-${st.tone}${m.text.pill ? ' mk-pill' : ''}`, text: m.text.content, 'aria-hidden': 'true',
      style: `top:${(m.text.line - firstLine) * PX.line}px`,
    }) : null;
    return { m, st, node, text };
  }

  /** The generic draw of a mark: `host` is its box's [x, w] (or the lane's), in its parent's px. */
  function placeMark({ m, st, node, text }, host, axis, laneW) {
    let [x, w] = m.bytes ? placeOn(axis, m.bytes[0], m.bytes[1], laneW, PX.min_box) : host;
    if (text && m.text.pill) {
      text.style.left = `${Math.max(Math.min(x + PX.inset, laneW - m.text.w - PX.inset), 1)}px`;
    } else if (text) {
      text.hidden = m.text.w + 2 * PX.inset > w;
      text.style.left = `${x + PX.inset}px`;
    }
    if (st.kind === 'band') {
      const inset = w > 4 ? 1 : 0;
      x += inset;
      w -= 2 * inset;
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
    node.style.left = `${x}px`;
    node.style.width = `${w}px`;
  }

  // Byte counts as the Rust side writes them (plan::Plan::words): the script formats none.
  const WORDS = PLAN.words || {};
  const words = (n) => WORDS[n] ?? `${n} B`;

  /**
   * The plan's live figures at `line` (plan::LanePlan::live, one entry where the live set
   * changes): the last entry at or before it, found by bisection; [line, total, offset, size].
   */
  function changeAt(changes, line) {
    let lo = 0;
    let hi = changes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (changes[mid][0] <= line) lo = mid + 1; else hi = mid;
    }
    return changes[lo - 1] || [line, 0, 0, 0];
  }

  function fmtZoom(z) {
    return `${z < 1 ? z.toFixed(2) : z.toFixed(1)}×`;
  }

  const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /** Matches any of `names` as a whole identifier (not inside a longer name). */
  function identRegex(names) {
    const alts = [...new Set(names)].filter(Boolean).sort((a, b) => b.length - a.length).map(escapeRe);
    return new RegExp(`(?<![${IDENT_CHAR}])(?:${alts.join('|')})(?![${IDENT_CHAR}])`, 'g');
  }

  const scrollBehavior = () => (reducedMotion.matches ? 'auto' : 'smooth');

  // ---------------------------------------------------------------- tooltip (one per page)

  const tip = el('div', { class: 'tip', role: 'tooltip', id: 'pmm-tip', hidden: true });
  document.body.append(tip);

  /** The tooltip lines the layout engine wrote (the SVG's <title> has the same). */
  function showTip(card, b, x, y, byFocus = false) {
    tip.dataset.by = byFocus ? 'focus' : 'pointer';
    tip.replaceChildren(el('div', { class: 'tt' }, el('b', { text: b.name })), ...b.plan.tip.map((line) => el('div', { class: 'tr', text: line })));
    tip.dataset.space = b.space;
    tip.hidden = false;
    placeTip(x, y);
  }

  function placeTip(x, y) {
    const pad = 14;
    const w = tip.offsetWidth;
    const h = tip.offsetHeight;
    let left = x + pad;
    let top = y + pad;
    if (left + w > window.innerWidth - 4) left = Math.max(4, x - pad - w);
    if (top + h > window.innerHeight - 4) top = Math.max(4, y - pad - h);
    tip.style.transform = `translate(${Math.round(left)}px, ${Math.round(top)}px)`;
  }

  function hideTip() {
    tip.hidden = true;
  }

  // ---------------------------------------------------------------- the view state in the URL

  let activeCard = null;

  function readHash() {
    let raw = window.location.hash.replace(/^#/, '');
    if (!raw) return null;
    // A card's anchor (`#fn-NAME`, where the overview's links lead without the script, or before it
    // is ready) opens that card too.
    if (raw.startsWith('fn-') && !raw.includes('=')) raw = `fn=${raw.slice(3)}`;
    const q = new URLSearchParams(raw);
    const fn = q.get('fn');
    if (!fn) return null;
    const list = (v) => (v ? v.split(',').filter(Boolean) : []);
    return {
      fn,
      zoom: q.has('zoom') ? Number(q.get('zoom')) : 1,
      axis: q.get('x') === 'used' ? 'used' : 'limit',
      hide: list(q.get('hide')),
      pin: q.get('pin'),
      src: q.get('src') === '1',
    };
  }

  function isDefaultView(card) {
    const s = card.state;
    return card === opening && s.zoom === 1 && s.axis === 'limit' && !s.hidden.size && s.pin === null && !s.src;
  }

  function writeHash(card) {
    activeCard = card;
    let hash = '';
    // The page as it opens (the worst card, default view) needs no fragment: a bare URL says it.
    if (card && card.details.open && !isDefaultView(card)) {
      const s = card.state;
      const enc = encodeURIComponent;
      const parts = [`fn=${enc(card.fn.name)}`];
      if (s.zoom !== 1) parts.push(`zoom=${+s.zoom.toFixed(4)}`);
      if (s.axis === 'used') parts.push('x=used');
      if (s.hidden.size) parts.push(`hide=${[...s.hidden].map(enc).join(',')}`);
      if (s.pin !== null) parts.push(`pin=${enc(card.boxes[s.pin].name)}`);
      if (s.src) parts.push('src=1');
      hash = `#${parts.join('&')}`;
    }
    const url = window.location.href.replace(/#.*$/, '') + hash;
    if (url !== window.location.href) {
      try { window.history.replaceState(null, '', url); } catch { /* some file:// setups refuse; the view still works */ }
    }
  }

  // ---------------------------------------------------------------- folded lines (plan::RowMap)
  // A card's folds (the plan's `folds`): runs of lines where nothing is live, each drawn `rows`
  // rows high instead of its lines. The plan places them; the page applies its rule (RowMap::row):
  // a line's row is its line less the card's first, less the rows each folded fold above it takes
  // out, and a line a folded fold skips lies inside the fold, its lines evenly over its rows. A
  // click on a fold opens it: its lines take their rows again, and everything below moves down.

  /** The top of `line`'s row in px on `card`, with the folds it has opened open. */
  function rowY(card, line) {
    const folds = card.plan.folds || [];
    let row = line - card.fn.src_start;
    for (let i = 0; i < folds.length; i++) {
      const f = folds[i];
      if (line <= f.from) break;
      if (card.opened.has(i)) continue;
      const n = f.to - f.from + 1;
      if (line <= f.to) return (row - (line - f.from) + ((line - f.from) * f.rows) / n) * PX.line;
      row -= n - f.rows;
    }
    return row * PX.line;
  }

  /** The card's folds as elements, across the lanes and in the source; a click opens one. */
  function buildFolds(card) {
    card.opened = new Set();
    card.folds = (card.plan.folds || []).map((f, i) => {
      const open = () => {
        card.opened.add(i);
        placeRows(card);
        card.layout();
        card.paintPin();
      };
      const across = el('button', {
        type: 'button', class: 'line-cut', title: `${f.title} · click to unfold`,
        'aria-label': `Unfold lines ${f.from} to ${f.to}`, data: { from: String(f.from), to: String(f.to) },
      }, el('span', { text: f.words[0] }));
      const side = el('div', { class: 'ln src-cut', title: f.title, data: { from: String(f.from), to: String(f.to) } },
        el('span', { class: 'no', text: '⋮' }), el('span', { class: 'code', text: f.words[0] }));
      across.addEventListener('click', open);
      side.addEventListener('click', open);
      card.grid.append(across);
      card.rows[f.from - card.fn.src_start]?.before(side);
      return { f, across, side };
    });
  }

  /** Every row-placed element of the card, at the rows its folds give it now. */
  function placeRows(card) {
    const y = (line) => rowY(card, line);
    const span = (node, from, to) => {
      node.style.top = `${y(from)}px`;
      node.style.height = `${y(to + 1) - y(from)}px`;
    };
    const first = card.fn.src_start;
    card.grid.style.gridTemplateRows = `auto ${y(first + card.lines)}px`;
    for (const it of card.items) if (it) span(it.node, it.b.start, Math.max(it.b.end, it.b.start));
    for (const { marks } of card.lanes.values()) {
      for (const { m, node, text } of marks) {
        if (m.lines) span(node, m.lines[0], m.lines[1]);
        if (text) text.style.top = `${y(m.text.line)}px`;
      }
    }
    for (const { body } of card.profiles.values()) {
      for (const bar of body.querySelectorAll('.bar')) span(bar, first + Number(bar.dataset.row), first + Number(bar.dataset.row) + Number(bar.dataset.rows) - 1);
      const peak = body.querySelector('.peak-row');
      span(peak, Number(body.dataset.peakLine), Number(body.dataset.peakLine));
    }
    const hidden = new Set();
    for (const [i, { f, across, side }] of card.folds.entries()) {
      const open = card.opened.has(i);
      across.hidden = open;
      side.hidden = open;
      across.style.marginTop = `${y(f.from)}px`;
      across.style.height = side.style.height = `${f.rows * PX.line}px`;
      if (!open) for (let l = f.from; l <= f.to; l++) hidden.add(l - first);
    }
    card.rows.forEach((row, i) => { row.hidden = hidden.has(i); });
  }

  // ---------------------------------------------------------------- one card

  class Card {
    constructor(section, fn) {
      this.el = section;
      this.fn = fn;
      this.details = section.querySelector('details');
      this.body = section.querySelector('.card-body');
      this.lines = Math.max(fn.src_end - fn.src_start + 1, fn.source.length, 1);
      this.state = { zoom: 1, axis: 'limit', hidden: new Set(), pin: null, src: false };
      this.storeKey = `pmm:split:${DATA.dump}:${fn.name}`;
      this.built = false;
      this.search = '';
      this.marked = [];
    }

    /** The card's plan, parsed when first needed (`lazyPlan`). */
    get plan() {
      if (!this.planRead) {
        this.planRead = true;
        this._plan = PLAN.card(this.fn.name);
      }
      return this._plan;
    }

    /**
     * The boxes as the plan lists them, indexed like the map JSON's boxes (`-f json`). Made when
     * first asked for, as the splitter's width: a page of hundreds of cards wires them all at once.
     */
    get boxes() {
      if (!this._boxes) {
        this._boxes = this.plan.boxes.map((p, index) => ({
          i: index, plan: p, name: p.label.name, aliases: p.aliases || [], base: p.base,
          space: this.plan.lanes[p.lane].space, offset: p.bytes[0], size: p.bytes[1], start: p.lines[0], end: p.lines[1],
          view: !!p.view, conflict: !!p.conflict,
        }));
      }
      return this._boxes;
    }

    /** The boxes in reading order: by their keys (plan::BoxPlan::n, from 1). */
    get reading() {
      if (!this._reading) {
        this._reading = [];
        for (const b of this.boxes) this._reading[b.plan.n - 1] = b;
      }
      return this._reading;
    }

    get srcW() {
      if (this._srcW === undefined) this._srcW = this.clampSplit(Number(store.get(this.storeKey)) || R.splitter_default);
      return this._srcW;
    }

    set srcW(w) {
      this._srcW = w;
    }

    /** Fills the live-list panel for `line` (or closes it when asked twice for the same line). */
    showLiveAt(line) {
      const panel = this.liveAtPanel;
      if (!panel.hidden && panel.dataset.line === String(line)) {
        panel.hidden = true;
        return;
      }
      panel.dataset.line = String(line);
      const close = el('button', { type: 'button', class: 'btn la-close', 'aria-label': 'Close the live list', text: '×' });
      close.addEventListener('click', () => { panel.hidden = true; });
      const rows = [el('div', { class: 'la-head' }, el('b', { text: `live at L${line}` }), close)];
      for (const sp of this.fn.spaces) {
        const { lp } = this.lanes.get(sp.space);
        const [, total, offset, size] = changeAt(lp.live, line);
        // The plan lists the lane's boxes in the live list's order; those live at `line` are its list.
        const live = lp.by_size.map((i) => this.boxes[i]).filter((b) => b.start <= line && line <= b.end)
          .concat((lp.windows || []).map(([name, offset, size]) => ({ name: `${name} (reserved)`, offset, size })));
        const free = size > 0 ? `largest free ${words(size)} at [${offset}, ${offset + size})` : 'no free range';
        const tiles = live.map((b) => el('li', { data: { name: b.name, size: String(b.size) } },
          el('span', { class: 'la-name', text: b.name }), ` ${words(b.size)} [${b.offset}, ${b.offset + b.size})`));
        rows.push(el('div', { class: 'la-space', data: { space: sp.space, total: String(total) } },
          el('div', { class: 'la-sum' }, el('i', { class: 'sw' }),
            el('b', { text: sp.space }), ` ${words(total)} live in ${live.length} tile${live.length === 1 ? '' : 's'} · ${free}`),
          tiles.length ? el('ul', null, ...tiles) : null));
      }
      panel.replaceChildren(...rows);
      panel.hidden = false;
    }

    clampSplit(w) {
      return Math.round(clamp(w, R.splitter_min, R.splitter_max));
    }

    /** Takes the state a link asked for; it is drawn when the card is built (or at once if it is). */
    applyState(st) {
      const s = this.state;
      s.zoom = clamp(Number.isFinite(st.zoom) && st.zoom > 0 ? st.zoom : 1, R.zoom_min, R.zoom_max);
      s.axis = st.axis;
      const known = new Set(this.fn.spaces.map((sp) => sp.space));
      s.hidden = new Set(st.hide.filter((n) => known.has(n)));
      if (s.hidden.size >= known.size) s.hidden.clear();
      s.src = st.src;
      const pin = st.pin ? this.boxes.find((b) => b.name === st.pin || b.aliases.includes(st.pin)) : null;
      s.pin = pin ? pin.i : null;
      if (s.pin !== null) s.src = true; // as when pinning by hand
      if (this.built) this.refreshAll();
    }

    // ---- build

    build() {
      if (this.built) return;
      this.built = true;
      this.el.classList.add('drawn'); // a live card is never left to the viewport (page.css)
      const fn = this.fn;
      const view = el('div', { class: 'live-view' });

      // toolbar
      this.btnSrc = el('button', { type: 'button', class: 'btn src-toggle', 'aria-pressed': 'false' });
      this.btnAxis = el('button', {
        type: 'button', class: 'btn axis-toggle',
        title: 'x axis span: the space capacity (limit) or its high-water mark (used)',
      });
      this.btnOut = el('button', { type: 'button', class: 'btn zoom-out', 'aria-label': 'Zoom out', title: 'Zoom out', text: '−' });
      this.btnLevel = el('button', { type: 'button', class: 'btn zoom-level', 'aria-label': 'Reset zoom', title: 'Zoom level (click to reset)' });
      this.btnIn = el('button', { type: 'button', class: 'btn zoom-in', 'aria-label': 'Zoom in', title: 'Zoom in', text: '+' });
      this.spaceBtns = new Map();
      const show = el('span', { class: 'group show', role: 'group', 'aria-label': 'Show memory spaces' }, el('span', { class: 'lbl', text: 'show' }));
      for (const sp of fn.spaces) {
        const b = el('button', { type: 'button', class: 'btn space-toggle', 'aria-pressed': 'true', data: { space: sp.space } },
          el('i', { class: 'sw', 'aria-hidden': 'true' }), sp.space);
        this.spaceBtns.set(sp.space, b);
        show.append(b);
      }
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
        fn.spaces.length > 1 ? show : null,
        el('span', { class: 'group find' }, this.searchInput, this.searchCount),
        this.chip);

      // plot grid: row 1 = headers, row 2 = body; column 1 = the sticky IR column, then one per lane
      this.grid = el('div', { class: 'grid' });
      this.grid.style.gridTemplateRows = `auto ${this.lines * R.line_px}px`;
      // A gridline every PX.grid dump lines, at the lines it divides (the plan's period).
      const period = PX.grid * R.line_px;
      const firstRule = Math.ceil(fn.src_start / PX.grid) * PX.grid;
      this.grid.style.setProperty('--grid-n', String(PX.grid));
      this.grid.style.setProperty('--grid-y', `${(firstRule - fn.src_start + 1) * R.line_px - period}px`);
      this.plot = el('div', { class: 'plot' }, this.grid);
      this.plot.style.setProperty('--gutter-w', `calc(${Math.max(3, String(fn.src_end).length)}ch + 22px)`);

      this.corner = el('div', { class: 'corner' });
      this.grid.append(this.corner);

      // the IR column: source rows, highlight bands, and the splitter on its right edge
      this.src = el('div', { class: 'src' });
      this.rows = [];
      this.codes = [];
      const frag = document.createDocumentFragment();
      for (let i = 0; i < this.lines; i++) {
        const line = fn.src_start + i;
        const code = el('span', { class: 'code', text: fn.source[i] ?? '' });
        const row = el('div', { class: 'ln', data: { line: String(line) } }, el('span', { class: 'no', text: String(line) }), code);
        this.rows.push(row);
        this.codes.push(code);
        frag.append(row);
      }
      this.src.append(frag);
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
      this.grid.append(this.left, this.rowBand);

      // lanes, in the plan's panel order, with their marks (high-water mark, fit answers)
      this.lanes = new Map();
      this.boxEls = [];
      this.items = [];
      this.plan.lanes.forEach((lp, li) => {
        const head = el('div', { class: 'lane-head', data: { space: lp.space } },
          el('div', { class: 'lh-name' }, el('i', { class: 'sw', 'aria-hidden': 'true' }), el('span', { text: lp.space })),
          el('div', { class: 'lh-axis' }, el('span', { text: '0' }), el('span', { class: 'lh-end' })),
          // The high-water mark's words on a row of their own, over its dashed line (placed in layout()).
          el('div', { class: 'lh-hwmrow' },
            el('span', { class: 'lh-hwm', text: lp.hwm, title: `most live at once: ${lp.profile.head[1]}, ${lp.profile.head[0]}` })),
          el('div', { class: 'lh-inset', hidden: true }));
        const marks = lp.marks.map((m) => markEl(m, fn.src_start));
        const lane = el('div', { class: 'lane', role: 'group', 'aria-label': `${lp.space} lane`, data: { space: lp.space } });
        // The lane's cut band (plan::Cut): its free stretch, a fixed width, not to scale.
        const cut = el('div', { class: 'cut', hidden: true }, el('span'), el('span'));
        lane.append(cut);
        for (const mk of marks) lane.append(...[mk.node, mk.text].filter(Boolean));
        this.lanes.set(lp.space, {
          lp, li, head, lane, marks, cut, boxes: [], end: head.querySelector('.lh-end'), badge: head.querySelector('.lh-inset'),
          hwm: head.querySelector('.lh-hwm'),
        });
      });
      // The SVG's order (scene::lane): the plan's, views after the boxes they look into, which they
      // cover; the label rule knows which box covers which by this order.
      const order = [...this.boxes].sort((a, b) => a.view - b.view);
      for (const b of order) {
        const entry = this.lanes.get(b.space);
        if (!entry || !b.plan) continue;
        const cls = `box${b.view ? ' view' : ''}${b.conflict ? ' conflict' : ''}`;
        // The label rule picks the texts at each factor (layout()); these are their places.
        const name = el('b');
        const badge = el('span', { class: 'plus' });
        const detail = el('span', { class: 'bd' });
        const marks = (b.plan.marks || []).map((m) => markEl(m, b.start));
        const node = el('div', {
          class: cls, tabindex: '0', role: 'button', 'aria-pressed': 'false',
          'aria-label': `${b.name}${b.aliases.length ? ` (+${b.aliases.length} aliases)` : ''}: ${b.space} ${b.plan.label.details[0]}, lines ${b.start} to ${b.end}`,
          data: {
            name: b.name, space: b.space, base: b.base, offset: String(b.offset), size: String(b.size),
            start: String(b.start), end: String(b.end), aliases: b.aliases.join(','), index: String(b.i),
          },
          style: `top:${(b.start - fn.src_start) * PX.line}px;height:${(b.end - b.start + 1) * PX.line}px`,
        }, el('span', { class: 'bl' }, name, badge), detail, ...marks.flatMap((mk) => [mk.node, mk.text].filter(Boolean)));
        this.boxEls[b.i] = node;
        // A label beside the box (where none fits in it), and its leader, live in the lane.
        const beside = el('span', { class: 'beside', hidden: true, 'aria-hidden': 'true', data: { for: String(b.i) } });
        const leader = el('i', { class: 'leader', hidden: true, 'aria-hidden': 'true' });
        this.items[b.i] = { b, node, name, badge, detail, marks, beside, leader, bl: name.parentElement };
        entry.boxes.push(this.items[b.i]);
        entry.lane.append(node);
      }
      // Beside-labels and leaders over every box of their lane.
      for (const entry of this.lanes.values()) for (const it of entry.boxes) entry.lane.append(it.leader, it.beside);
      this.profiles = new Map(fn.spaces.map((sp) => [sp.space, this.profile(sp)]));
      buildFolds(this);
      placeRows(this);

      // legend and table
      const first = fn.src_start;
      const last = fn.src_end;
      // The plan's legend (plan::card_legend): each swatch and its words.
      const legend = el('div', { class: 'legend' },
        ...this.plan.legend.map((e) => el('span', { class: 'lg' }, el('i', { class: `mk mk-${e.mark}` }), e.text)),
        el('span', { class: 'lg hint', text: 'ctrl/⌘ + wheel zooms the byte scale · click a tile to pin it' }),
        el('span', { class: 'lg count', text: `${this.lines} lines · dump L${first}–L${last}` }));
      this.tableDetails = el('details', { class: 'table-view' }, el('summary', { text: 'Table view' }));

      this.keyList = el('div', { class: 'key-list', hidden: true });
      view.append(toolbar, this.plot, this.keyList, legend, this.tableDetails);
      // Clicking a line number lists what is live there, per space (the guide's "what holds it?").
      this.liveAtPanel = el('div', { class: 'live-at', hidden: true, 'aria-live': 'polite' });
      toolbar.after(this.liveAtPanel);
      this.src.addEventListener('click', (e) => {
        const no = e.target.closest('.no');
        if (no) this.showLiveAt(Number(no.parentElement.dataset.line));
      });
      const stat = this.body.querySelector('.static-map');
      if (stat) stat.replaceWith(view);
      else this.body.append(view);
      this.el.classList.add('live');

      this.wire();
      this.refreshAll();
      this.plot.style.scrollPaddingTop = `${this.corner.offsetHeight}px`;
    }

    // ---- events

    wire() {
      this.btnSrc.addEventListener('click', () => this.setSource(!this.state.src));
      this.btnAxis.addEventListener('click', () => {
        this.state.axis = this.state.axis === 'used' ? 'limit' : 'used';
        this.layout();
        this.changed();
      });
      this.btnIn.addEventListener('click', () => this.zoomBy(R.zoom_step));
      this.btnOut.addEventListener('click', () => this.zoomBy(1 / R.zoom_step));
      this.btnLevel.addEventListener('click', () => this.zoomTo(1, this.viewCenterX()));
      for (const [space, btn] of this.spaceBtns) btn.addEventListener('click', () => this.toggleSpace(space));

      this.searchInput.addEventListener('input', () => this.find(this.searchInput.value));
      this.searchInput.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          const hit = this.matches && this.matches[0];
          if (hit !== undefined) {
            if (this.state.pin !== hit) this.pin(hit);
            this.revealBox(hit);
          }
        } else if (e.key === 'Escape' && this.searchInput.value) {
          e.stopPropagation();
          this.searchInput.value = '';
          this.find('');
        }
      });
      this.chipClose.addEventListener('click', () => this.unpin());

      this.grid.addEventListener('click', (e) => {
        const node = e.target.closest('.box');
        if (node) this.togglePin(Number(node.dataset.index));
      });
      this.grid.addEventListener('keydown', (e) => {
        const node = e.target.closest('.box');
        if (node && (e.key === 'Enter' || e.key === ' ')) {
          e.preventDefault();
          this.togglePin(Number(node.dataset.index));
        }
      });
      this.grid.addEventListener('pointerover', (e) => {
        const node = e.target.closest('.box');
        if (!node) return;
        const b = this.boxes[Number(node.dataset.index)];
        showTip(this, b, e.clientX, e.clientY);
        this.hover(b);
      });
      this.grid.addEventListener('pointermove', (e) => {
        if (!tip.hidden && e.target.closest('.box')) placeTip(e.clientX, e.clientY);
      });
      this.grid.addEventListener('pointerout', (e) => {
        const node = e.target.closest('.box');
        if (node && !node.contains(e.relatedTarget)) {
          hideTip();
          this.hover(null);
        }
      });
      this.grid.addEventListener('focusin', (e) => {
        const node = e.target.closest('.box');
        if (!node) return;
        const r = node.getBoundingClientRect();
        const b = this.boxes[Number(node.dataset.index)];
        showTip(this, b, r.left + Math.min(r.width, 40), r.top, true);
        this.hover(b);
      });
      this.grid.addEventListener('focusout', (e) => {
        if (e.target.closest('.box')) {
          hideTip();
          this.hover(null);
        }
      });

      // Ctrl/Cmd + wheel zooms around the pointer; a plain wheel is left to the browser (panning).
      this.plot.addEventListener('wheel', (e) => {
        if (!(e.ctrlKey || e.metaKey)) return;
        e.preventDefault();
        let dy = e.deltaY;
        if (e.deltaMode === 1) dy *= WHEEL_NOTCH / 3;
        else if (e.deltaMode === 2) dy *= WHEEL_NOTCH * 3;
        const steps = clamp(-dy / WHEEL_NOTCH, -1, 1);
        if (steps) this.zoomTo(this.state.zoom * R.zoom_step ** steps, e.clientX);
      }, { passive: false });

      this.wireSplitter();

      this.tableDetails.addEventListener('toggle', () => {
        if (this.tableDetails.open && !this.table) this.buildTable();
      });
      this.el.addEventListener('focusin', () => { activeCard = this; });
      this.el.addEventListener('pointerdown', () => { activeCard = this; });
    }

    wireSplitter() {
      const sp = this.splitter;
      let drag = null;
      sp.addEventListener('pointerdown', (e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        sp.setPointerCapture(e.pointerId);
        drag = { x: e.clientX, w: this.srcW, next: this.srcW, raf: 0 };
        root.classList.add('dragging');
      });
      sp.addEventListener('pointermove', (e) => {
        if (!drag) return;
        drag.next = this.clampSplit(drag.w + e.clientX - drag.x);
        // One template write per frame however fast the pointer moves.
        if (!drag.raf) {
          drag.raf = requestAnimationFrame(() => {
            if (!drag) return;
            drag.raf = 0;
            this.setSplit(drag.next, false);
          });
        }
      });
      const end = (e) => {
        if (!drag) return;
        const w = drag.next;
        if (drag.raf) cancelAnimationFrame(drag.raf);
        drag = null;
        if (sp.hasPointerCapture(e.pointerId)) sp.releasePointerCapture(e.pointerId);
        root.classList.remove('dragging');
        this.setSplit(w, true);
      };
      sp.addEventListener('pointerup', end);
      sp.addEventListener('pointercancel', end);
      sp.addEventListener('dblclick', () => this.setSplit(R.splitter_default, true));
      sp.addEventListener('keydown', (e) => {
        const step = e.shiftKey ? NUDGE_BIG_PX : NUDGE_PX;
        let w = null;
        if (e.key === 'ArrowLeft') w = this.srcW - step;
        else if (e.key === 'ArrowRight') w = this.srcW + step;
        else if (e.key === 'Home') w = R.splitter_min;
        else if (e.key === 'End') w = R.splitter_max;
        else if (e.key === 'Enter') w = R.splitter_default;
        if (w === null) return;
        e.preventDefault();
        this.setSplit(w, true);
      });
    }

    // ---- state changes

    /** Something a reader did: this card becomes the one the URL describes. */
    changed() {
      this.stamp();
      writeHash(this);
    }

    /** The card's zoom and axis on its element, where tests and scripts read them. */
    stamp() {
      this.el.dataset.zoom = String(+this.state.zoom.toFixed(4));
      this.el.dataset.axis = this.state.axis;
    }

    refreshAll() {
      this.layout();
      this.paintSource();
      this.paintPin();
      this.stamp();
    }

    visibleSpaces() {
      return this.fn.spaces.filter((sp) => !this.state.hidden.has(sp.space));
    }

    /** Index of the x axis in the plan's pairs: 0 limit, 1 used. */
    axisIndex() {
      return this.state.axis === 'used' ? 1 : 0;
    }

    spanOf(sp) {
      return this.lanes.get(sp.space).lp.span[this.axisIndex()];
    }

    /** The bit set of the visible lanes (bit i: the plan's lane i), as the plan's tables index them. */
    mask() {
      let mask = 0;
      for (const { li, lp } of this.lanes.values()) if (!this.state.hidden.has(lp.space)) mask |= 1 << li;
      return mask;
    }

    /** The card's px/byte factor: the plan's answer for the visible lanes, times the zoom. */
    factor() {
      const table = this.plan.factors[this.axisIndex()];
      return (table[this.mask()] || table[table.length - 1]) * this.state.zoom;
    }

    /**
     * A lane's byte axis on a card whose factor is `k`: the card's factor, or, for an inset (the
     * plan's inset_lanes for the visible lanes: plan::is_inset), its own factor times the
     * zoom; and the plan's cut band on this x axis, if the lane has one. Returns the axis, the
     * plan's inset entry (null for a lane at the card's factor), and the lane's width.
     */
    laneAxis(entry, k) {
      const a = this.axisIndex();
      const span = entry.lp.span[a];
      const c = entry.lp.cuts ? entry.lp.cuts[a] : null;
      const insets = this.plan.inset_lanes ? this.plan.inset_lanes[a][this.mask()] || [] : [];
      const inset = insets.find((x) => x.lane === entry.li) || null;
      const kl = inset ? inset.factor * this.state.zoom : k;
      const axis = { k: kl, cut: c ? [c.from, c.to] : null, px: c ? PX.cut : 0 };
      return { axis, inset, width: axisX(axis, Math.max(span, 1)) };
    }

    /**
     * Sets an inset lane apart (dashed frame, and the plan's badge: whole where it fits the lane's
     * head, else the plan's short one, never cut).
     */
    markInset(entry, inset, kl) {
      const on = !!inset;
      entry.lane.classList.toggle('inset', on);
      entry.head.classList.toggle('inset', on);
      entry.badge.hidden = !on;
      entry.badge.textContent = on ? inset.badge.find((_, i) => this.state.zoom >= inset.badge_z[i]) ?? '' : '';
      if (on) entry.lane.dataset.pxPerByte = String(kl);
      else delete entry.lane.dataset.pxPerByte;
    }

    /**
     * The card's key list under the map: the boxes of the visible lanes whose label is their key
     * (the plan's number, the same at every zoom), in key order.
     */
    applyKeys() {
      const items = this.reading.map((b) => this.items[b.i]).filter((it) => it && it.keyed && !this.state.hidden.has(it.b.space));
      const rows = items.map((it) => {
        const key = String(it.b.plan.n);
        return el('li', { data: { key, name: it.b.name } }, el('b', { text: key }), ' ', el('span', { text: it.b.plan.key }));
      });
      this.keyList.hidden = rows.length === 0;
      this.keyList.replaceChildren(el('div', { class: 'key-head', text: 'key: boxes too narrow for their names' }), el('ol', {}, ...rows));
    }

    /** The live-bytes column of a space: the plan's bars (scaled to the column already) and peak. */
    profile(sp) {
      const pp = this.lanes.get(sp.space).lp.profile;
      const body = el('div', {
        class: 'profile', 'aria-hidden': 'true',
        data: { space: sp.space, peak: String(pp.peak), peakLine: String(pp.peak_line) },
      });
      for (const [row, rows, w] of pp.bars) {
        body.append(el('div', { class: 'bar', data: { row: String(row), rows: String(rows) }, style: `width:${w}px` }));
      }
      body.append(el('div', { class: 'peak-row' }));
      const head = el('div', {
        class: 'profile-head', data: { space: sp.space },
        title: `${sp.space}: most bytes live at once, ${pp.head[1]}, ${pp.head[0]}`,
      }, el('div', { text: pp.head[0] }), el('div', { class: 'ph-bytes', text: pp.head[1] }));
      return { head, body };
    }

    /**
     * The plan's zoom step for a lane on `axis` (plan/steps.rs): the largest at or below the lane's
     * factor, whose labels fit any wider lane, or the last where nothing changes any more. Returns
     * each box's label there (by box index), the high-water mark's place, and the step's axis, whose
     * places `scale` carries to this one through the bytes they stand on.
     */
    stepAt(entry, axis) {
      const a = this.axisIndex();
      const st = this.plan.steps && this.plan.steps[entry.li] && this.plan.steps[entry.li][a];
      if (!st) return null;
      const n = clamp(Math.floor(Math.log(axis.k / st.k) / Math.log(R.zoom_step) + 1e-9), st.from, st.from + st.at.length - 1);
      entry.steps = entry.steps || [new Map(), new Map()];
      let spots = entry.steps[a].get(n);
      if (!spots) {
        spots = new Map();
        for (const change of st.at.slice(0, n - st.from + 1).flat()) spots.set(typeof change === 'number' ? change : change[0], change);
        entry.steps[a].set(n, spots);
      }
      const at = { ...axis, k: st.k * R.zoom_step ** n };
      return { spots, hwm: st.hwm[n - st.from], scale: (x) => axisX(axis, byteAt(at, x)) };
    }

    /** The lane's cut band on the current x axis, where it has one: the plan's words, at its place. */
    placeCut(entry, axis) {
      const c = entry.lp.cuts ? entry.lp.cuts[this.axisIndex()] : null;
      entry.cut.hidden = !c;
      delete entry.lane.dataset.cut;
      if (!c) return;
      entry.lane.dataset.cut = `${c.from} ${c.to}`;
      entry.cut.title = c.title;
      entry.cut.style.left = `${axisX(axis, c.from)}px`;
      entry.cut.style.width = `${axis.px}px`;
      c.words.forEach((w, i) => { entry.cut.children[i].textContent = w; });
    }

    /** Every box and mark of a lane `laneW` px wide, on its byte `axis`, and the labels of its step. */
    placeLane(entry, axis, laneW) {
      for (const mk of entry.marks) placeMark(mk, [0, laneW], axis, laneW);
      this.placeCut(entry, axis);
      for (const it of entry.boxes) {
        const [x, w] = placeOn(axis, it.b.offset, it.b.size, laneW, PX.min_box);
        it.node.style.left = `${x}px`;
        it.node.style.width = `${w}px`;
        for (const mk of it.marks) placeMark(mk, [0, w], axis, laneW);
      }
      const step = this.stepAt(entry, axis);
      if (step) entry.hwm.style.left = `${step.scale(step.hwm) - 8}px`; // less the head's padding (page.css)
      for (const it of entry.boxes) {
        const spot = step && step.spots.get(it.b.i);
        const label = it.b.plan.label;
        const key = String(it.b.plan.n);
        const inside = Array.isArray(spot) && spot.length === 4 ? spot : null;
        const beside = Array.isArray(spot) && spot.length === 8 ? spot : null;
        const keyed = !!(spot && typeof spot !== 'number' && spot[2]);
        it.name.textContent = inside ? (keyed ? key : label.name) : '';
        it.badge.textContent = inside && !keyed ? label.badge || '' : '';
        it.badge.hidden = !it.badge.textContent;
        it.detail.textContent = inside && inside[3] >= 0 ? label.details[inside[3]] : '';
        it.detail.hidden = !it.detail.textContent;
        it.bl.style.marginTop = inside && inside[1] > 0 ? `${inside[1] * PX.line}px` : '';
        it.keyed = keyed;
        if (keyed) it.node.dataset.key = key;
        else delete it.node.dataset.key;
        it.beside.hidden = !beside;
        it.leader.hidden = !beside;
        if (!beside) continue;
        const [, row, , x, x1, y1, x2, y2] = beside;
        const top = rowY(this, it.b.start);
        const [lx1, lx2] = [step.scale(x1), step.scale(x2)];
        it.beside.textContent = keyed ? key : label.name;
        it.beside.style.left = `${step.scale(x)}px`;
        it.beside.style.top = `${top + row * PX.line}px`;
        it.leader.style.left = `${lx1}px`;
        it.leader.style.top = `${top + y1}px`;
        it.leader.style.width = `${Math.hypot(lx2 - lx1, y2 - y1)}px`;
        it.leader.style.transform = `rotate(${Math.atan2(y2 - y1, lx2 - lx1)}rad)`;
      }
    }

    layout() {
      const k = this.factor();
      this.k = k;
      // Exposed for scripts and tests that read the page's byte scale (as the SVG's data-px-per-byte).
      this.grid.style.setProperty('--k', String(k));
      const cols = [];
      let col = 2;
      const visible = this.visibleSpaces();
      // A space shown again goes back to its panel place in the DOM too (users' scripts read lanes in order).
      const reorder = visible.some((sp) => !this.lanes.get(sp.space).lane.isConnected);
      for (const sp of this.fn.spaces) {
        const entry = this.lanes.get(sp.space);
        const shown = !this.state.hidden.has(sp.space);
        const btn = this.spaceBtns.get(sp.space);
        btn.setAttribute('aria-pressed', String(shown));
        const last = shown && visible.length === 1;
        btn.setAttribute('aria-disabled', String(last));
        btn.title = last ? 'The last visible space cannot be hidden' : `${shown ? 'Hide' : 'Show'} ${sp.space}`;
        if (!shown) {
          // Gone from the DOM, not just invisible, so `.lane` queries see only what is drawn.
          entry.head.remove();
          entry.lane.remove();
          continue;
        }
        const span = this.spanOf(sp);
        const { axis, inset, width } = this.laneAxis(entry, k);
        this.markInset(entry, inset, axis.k);
        cols.push(`${width.toFixed(3)}px`);
        this.placeLane(entry, axis, width);
        entry.head.style.gridColumn = String(col);
        entry.lane.style.gridColumn = String(col);
        col += 1;
        entry.lane.dataset.span = String(span);
        entry.lane.style.setProperty('--span', String(span));
        entry.end.textContent = entry.lp.ends[this.axisIndex()];
        if (reorder) this.grid.append(entry.head, entry.lane);
      }
      this.applyKeys();
      this.rowBand.style.gridColumn = `2 / ${col}`;
      // The live-bytes columns of the visible spaces, after a gap, in lane order.
      cols.push(`${R.profile_gap}px`);
      col += 1;
      for (const sp of this.fn.spaces) {
        const { head, body } = this.profiles.get(sp.space);
        if (this.state.hidden.has(sp.space)) {
          head.remove();
          body.remove();
          continue;
        }
        cols.push(`${R.profile_px}px`);
        head.style.gridColumn = String(col);
        body.style.gridColumn = String(col);
        col += 1;
        if (!head.isConnected || reorder) this.grid.append(head, body);
      }
      this.laneCols = cols.join(' ');
      this.writeTemplate();
      this.btnLevel.textContent = fmtZoom(this.state.zoom);
      this.btnIn.disabled = this.state.zoom >= R.zoom_max;
      this.btnOut.disabled = this.state.zoom <= R.zoom_min;
      this.btnAxis.replaceChildren('x axis: ', el('b', { text: this.state.axis }));
      this.btnAxis.setAttribute('aria-pressed', String(this.state.axis === 'used'));
    }

    /** The only thing the splitter touches: the first column of the grid template. */
    writeTemplate() {
      const leftW = this.state.src ? `${this.srcW}px` : 'var(--gutter-w)';
      this.grid.style.gridTemplateColumns = `${leftW} ${this.laneCols}`;
      // Scrolling a box into view (focus, search, Playwright) must not leave it under the sticky column.
      this.plot.style.scrollPaddingLeft = leftW;
      this.plot.style.setProperty('--left-w', leftW);
    }

    setSplit(w, persist) {
      this.srcW = this.clampSplit(w);
      this.splitter.setAttribute('aria-valuenow', String(this.srcW));
      this.writeTemplate();
      if (persist) store.set(this.storeKey, String(this.srcW));
    }

    setSource(open) {
      this.state.src = open;
      this.paintSource();
      if (open) this.fitBesideSource();
      else this.unfit();
      this.writeTemplate();
      this.changed();
    }

    /**
     * Opening the source must not push lanes off screen, as it does on PyPTO's page. The lanes keep
     * absolute widths on one factor (never shares of what is left), so the whole map zooms out,
     * every lane together, until it fits beside the source; but never below the plan's readable
     * zoom (every lane min_lane_px wide), where the map scrolls instead. Its labels are the zoom
     * step's below (stepAt). Closing the source undoes
     * it, unless the reader zoomed in between. Links restore their zoom as written, without this.
     */
    fitBesideSource() {
      // What zooms is each lane's part to scale; a cut band keeps its width.
      const drawn = this.visibleSpaces().map((sp) => this.laneAxis(this.lanes.get(sp.space), this.k));
      const spans = drawn.map((d) => d.width - d.axis.px);
      const bands = drawn.reduce((a, d) => a + d.axis.px, 0);
      const profiles = R.profile_gap + spans.length * R.profile_px;
      const room = this.plot.clientWidth - this.srcW - profiles - bands;
      const lanes = spans.reduce((a, b) => a + b, 0);
      if (!spans.length || room <= 0 || lanes <= room) return;
      const z0 = this.state.zoom;
      // The lanes scale with the zoom: the zoom at which they fit, never below the plan's readable one.
      const z = clamp(Math.max((z0 * room) / lanes, this.plan.readable[this.axisIndex()][this.mask()] ?? 0), R.zoom_min, z0);
      if (z >= z0) return;
      this.fitFrom = z0;
      this.state.zoom = z;
      this.layout();
    }

    unfit() {
      if (this.fitFrom === undefined) return;
      this.state.zoom = this.fitFrom;
      this.fitFrom = undefined;
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
      this.changed();
    }

    /** The viewport x of the middle of the visible lane area (the anchor of button zooms). */
    viewCenterX() {
      const r = this.plot.getBoundingClientRect();
      const leftW = this.left.getBoundingClientRect().width;
      return r.left + leftW + (r.width - leftW) / 2;
    }

    zoomBy(ratio) {
      this.zoomTo(this.state.zoom * ratio, this.viewCenterX());
    }

    /** Zooms so that the byte under viewport x `anchorX` stays under it. */
    zoomTo(z, anchorX) {
      this.fitFrom = undefined; // the reader chose a zoom: closing the source keeps it
      const z0 = this.state.zoom;
      let z1 = clamp(z, R.zoom_min, R.zoom_max);
      // Snap to exactly 1 when a step lands there within rounding, so reset and steps agree.
      if (Math.abs(z1 - 1) < 1e-9) z1 = 1;
      if (z1 === z0) return;
      const firstLane = this.grid.querySelector('.lane');
      const x = Math.max(anchorX, this.left.getBoundingClientRect().right);
      const laneLeft = firstLane ? firstLane.getBoundingClientRect().left : 0;
      // `a` is the anchor's place along the lanes in bytes (lanes sit side by side on one scale).
      // Scroll offsets are whole pixels, so re-deriving it after every step would let the anchor
      // drift; repeated zooms at the same spot reuse the exact value instead.
      const kept = this.anchor;
      const a = kept && kept.x === x && kept.scroll === this.plot.scrollLeft && kept.zoom === z0
        ? kept.a : (x - laneLeft) / this.k;
      this.state.zoom = z1;
      this.layout();
      // Lane widths changed but not where the lanes begin: scroll so that byte `a` is back at x.
      this.plot.scrollLeft = Math.round(this.plot.scrollLeft + laneLeft + a * this.k - x);
      this.anchor = { x, a, scroll: this.plot.scrollLeft, zoom: z1 };
      this.changed();
    }

    hover(b) {
      // The boxes of the hovered box's handovers (the plan's partners) are marked while it is.
      for (const j of this.partners || []) this.boxEls[j]?.classList.remove('partner');
      this.partners = b ? b.plan.partners || [] : [];
      for (const j of this.partners) this.boxEls[j]?.classList.add('partner');
      if (this.state.pin !== null || !b) {
        this.hoverBand.hidden = true;
        return;
      }
      this.placeBand(this.hoverBand, b);
    }

    placeBand(band, b, top = 'top') {
      band.hidden = false;
      band.style[top] = `${rowY(this, b.start)}px`;
      band.style.height = `${rowY(this, b.end + 1) - rowY(this, b.start)}px`;
    }

    togglePin(i) {
      if (this.state.pin === i) this.unpin();
      else this.pin(i);
    }

    pin(i) {
      this.state.pin = i;
      if (!this.state.src) {
        // Finding the tile in the source is the point of pinning, so the source opens, and the
        // pinned box stays in sight beside it.
        this.state.src = true;
        this.paintSource();
        this.fitBesideSource();
        const node = this.boxEls[i];
        if (node && node.isConnected) node.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      }
      this.paintPin();
      this.changed();
    }

    unpin() {
      if (this.state.pin === null) return;
      this.state.pin = null;
      this.paintPin();
      this.changed();
    }

    paintPin() {
      for (const node of this.el.querySelectorAll('.box.pinned')) {
        node.classList.remove('pinned');
        node.setAttribute('aria-pressed', 'false');
      }
      this.clearMarks();
      const i = this.state.pin;
      this.el.classList.toggle('has-pin', i !== null);
      if (i === null) {
        this.chip.hidden = true;
        this.pinBand.hidden = true;
        this.rowBand.hidden = true;
        return;
      }
      const b = this.boxes[i];
      const node = this.boxEls[i];
      if (node) {
        node.classList.add('pinned');
        node.setAttribute('aria-pressed', 'true');
      }
      this.chip.hidden = false;
      this.chip.dataset.space = b.space;
      this.chipName.textContent = b.name;
      this.hoverBand.hidden = true;
      this.placeBand(this.pinBand, b);
      this.placeBand(this.rowBand, b, 'marginTop');
      this.markNames([b.name, ...b.aliases]);
    }

    /** Wraps every whole-identifier mention of `names` in the IR source in <mark>. */
    markNames(names) {
      const re = identRegex(names);
      this.fn.source.forEach((text, idx) => {
        re.lastIndex = 0;
        if (!re.test(text)) return;
        re.lastIndex = 0;
        const parts = [];
        let at = 0;
        for (const m of text.matchAll(re)) {
          if (m.index > at) parts.push(text.slice(at, m.index));
          parts.push(el('mark', { class: 'hit', text: m[0] }));
          at = m.index + m[0].length;
        }
        if (at < text.length) parts.push(text.slice(at));
        this.codes[idx].replaceChildren(...parts);
        this.rows[idx].classList.add('has-hit');
        this.marked.push(idx);
      });
    }

    clearMarks() {
      for (const idx of this.marked) {
        this.codes[idx].textContent = this.fn.source[idx] ?? '';
        this.rows[idx].classList.remove('has-hit');
      }
      this.marked = [];
    }

    revealBox(i) {
      const node = this.boxEls[i];
      if (!node || !node.isConnected) return;
      node.focus({ preventScroll: true });
      node.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: scrollBehavior() });
    }

    find(query) {
      const q = query.trim().toLowerCase();
      this.matches = [];
      this.el.classList.toggle('searching', q.length > 0);
      const hits = [];
      for (const b of this.reading) {
        const hit = q.length > 0 && [b.name, ...b.aliases].some((n) => n.toLowerCase().includes(q));
        const node = this.boxEls[b.i];
        if (node) node.classList.toggle('match', hit);
        if (hit) hits.push(b);
      }
      this.matches = hits.map((b) => b.i);
      this.searchCount.textContent = q ? `${hits.length} found` : '';
    }

    buildTable() {
      // Every cell is a text the layout engine wrote: the tooltip's lines and the label's detail.
      const head = ['name', 'space · shape dtype · op', 'base', 'size · address', 'lines', 'aliases', 'marks'];
      const tbody = el('tbody');
      for (const b of this.reading) {
        const flags = [b.view ? 'view' : '', b.conflict ? 'conflict' : ''].filter(Boolean).join(', ');
        const tr = el('tr', { data: { index: String(b.i), space: b.space } },
          el('td', { class: 'nm' }, el('button', { type: 'button', class: 'linkish', text: b.name, title: 'Pin this tile' })),
          el('td', {}, el('i', { class: 'sw', 'aria-hidden': 'true' }), b.plan.tip[0]),
          el('td', { text: b.base }),
          el('td', { class: 'num', text: b.plan.label.details[0] }),
          el('td', { class: 'num', text: b.plan.tip[3] }),
          el('td', { class: 'al', text: b.aliases.join(', ') }),
          el('td', { text: flags, class: b.conflict ? 'crit' : '' }));
        tbody.append(tr);
      }
      this.table = el('table', { class: 'tiles' },
        el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))), tbody);
      this.table.addEventListener('click', (e) => {
        const btn = e.target.closest('button.linkish');
        if (!btn) return;
        const i = Number(btn.closest('tr').dataset.index);
        if (this.state.pin !== i) this.pin(i);
        this.revealBox(i);
      });
      this.tableDetails.append(el('div', { class: 'table-wrap' }, this.table));
    }
  }

  // ---------------------------------------------------------------- page wiring

  const cards = [];
  for (const section of document.querySelectorAll('section.card')) {
    const fn = DATA.functions && DATA.functions[Number(section.dataset.index)];
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

  function applyHash(scroll) {
    const st = readHash();
    if (!st) return false;
    const card = cards.find((c) => c.fn.name === st.fn);
    if (!card) return false;
    card.applyState(st);
    activeCard = card;
    for (const other of cards) {
      // A link shows exactly its card: the one open by default steps aside.
      if (other !== card && other.details.open && !other.built) other.details.open = false;
    }
    if (!card.details.open) card.details.open = true; // its toggle event builds it
    card.build();
    if (scroll) card.el.scrollIntoView({ block: 'start' });
    return true;
  }

  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    const inCard = e.target instanceof Element ? cards.find((c) => c.el.contains(e.target)) : null;
    const card = inCard || activeCard;
    if (card && card.state.pin !== null) {
      card.unpin();
      hideTip();
    }
  });
  // The overview table (render/overview.rs): any column sorts on a click (numbers largest first,
  // names A to Z; a second click reverses), and a function's name opens its card.
  const overview = document.querySelector('table.ov');
  if (overview) {
    const body = overview.tBodies[0];
    const heads = [...overview.tHead.rows[0].cells];
    const key = (row, i) => {
      const cell = row.cells[i];
      const raw = cell.dataset.v ?? cell.textContent.trim();
      return raw === '' ? null : raw;
    };
    heads.forEach((th, i) => {
      th.tabIndex = 0;
      const sort = () => {
        const rows = [...body.rows];
        const numeric = rows.every((r) => { const k = key(r, i); return k === null || Number.isFinite(parseFloat(k)); });
        const was = th.getAttribute('aria-sort');
        const desc = was ? was === 'ascending' : numeric;
        const value = (r) => { const k = key(r, i); return numeric ? (k === null ? -Infinity : parseFloat(k)) : (k ?? ''); };
        rows.sort((a, b) => {
          const [x, y] = [value(a), value(b)];
          const c = numeric ? x - y : String(x).localeCompare(String(y));
          return desc ? -c : c;
        });
        for (const h of heads) h.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
        body.append(...rows);
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    });
    overview.addEventListener('click', (e) => {
      const a = e.target.closest('a');
      const row = a && a.closest('tr');
      if (!row) return;
      e.preventDefault();
      const hash = new URLSearchParams({ fn: row.dataset.function }).toString();
      if (window.location.hash === `#${hash}`) applyHash(true);
      else window.location.hash = hash;
    });
  }

  window.addEventListener('hashchange', () => applyHash(true));
  // A tooltip placed at a focused box would be left behind by scrolling; one at the pointer follows
  // the pointer events the browser sends after a scroll anyway.
  window.addEventListener('scroll', () => { if (tip.dataset.by === 'focus') hideTip(); }, { passive: true, capture: true });

  // Theme: the system decides unless the reader chose; the choice is remembered.
  const themeBtn = document.querySelector('.theme-toggle');
  const savedTheme = store.get('pmm:theme');
  if (savedTheme === 'dark' || savedTheme === 'light') root.dataset.theme = savedTheme;
  function effectiveTheme() {
    return root.dataset.theme || (darkScheme.matches ? 'dark' : 'light');
  }
  function paintThemeButton() {
    if (!themeBtn) return;
    const dark = effectiveTheme() === 'dark';
    themeBtn.textContent = dark ? '☀ light' : '☾ dark';
    themeBtn.setAttribute('aria-pressed', String(dark));
    themeBtn.title = dark ? 'Switch to the light theme' : 'Switch to the dark theme';
  }
  if (themeBtn) {
    themeBtn.hidden = false;
    themeBtn.addEventListener('click', () => {
      const next = effectiveTheme() === 'dark' ? 'light' : 'dark';
      root.dataset.theme = next;
      store.set('pmm:theme', next);
      paintThemeButton();
    });
    darkScheme.addEventListener('change', paintThemeButton);
    paintThemeButton();
  }

  if (!applyHash(true)) {
    for (const card of cards) if (card.details.open) card.build();
    // The worst card opens at the top of the view, unless it is the first card (under the
    // overview already) or the reader has scrolled meanwhile. This window only: in a notebook's
    // frame, the notebook around it stays where it is.
    if (opening && opening !== cards[0] && window.scrollY === 0) {
      window.scrollTo(0, opening.el.getBoundingClientRect().top);
    }
  }
  root.dataset.ready = '1';
  if (window.performance && performance.mark) performance.mark('pmm-ready');
  drawDistantCards();
}).catch((err) => {
  // A browser without DecompressionStream (older than 2023), or a damaged file: the static page stays.
  console.error('pto-memory-map: the interactive view could not start; the static cards stay.', err);
  drawDistantCards();
});
