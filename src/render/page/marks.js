// pto-memory-map: what the page adds to the marks of what the compiler placed.
//
// Reserved windows, the unsafe band, a declared allocation's slots and the pin of an author-declared
// allocation are marks of the plan (layout/plan/placed.rs), placed by page.js' generic `markEl` and
// `placeMark` like every other mark, so the page, the SVG and the PNG draw them alike. What only the
// page has is here: a mark's tooltip and the names a test or a reader finds it by, and the legend's
// words for the marks a card has.
'use strict';

// eslint-disable-next-line no-unused-vars
const pmmMarks = (() => {
  /** Gives a mark's element its tooltip (layout::plan::MarkTip): the text, its name and byte range. */
  function tip(node, m) {
    if (!m.tip) return;
    node.title = m.tip.text;
    node.dataset.name = m.tip.name;
    node.dataset.from = String(m.tip.range[0]);
    node.dataset.to = String(m.tip.range[1]);
  }

  // What the legend says of each placed mark, by its style's class (as layout/placed.rs' legend).
  const WORDS = [
    ['reserved', 'mk-reserved', 'reserved window (system.reserve_buffer), in the hwm'],
    ['unsafe-band', 'mk-unsafe', 'unsafe band: past the usable size, within the physical'],
    ['slots', 'mk-slots', 'declared allocation: its slots (dashed edges); a dot: pinned'],
  ];

  /** The legend entries for the placed marks `card` (a card's plan) has, made with page.js' `el`. */
  function legend(card, styles, el) {
    const has = new Set();
    for (const lane of card.lanes) for (const m of lane.marks) has.add(styles[m.style].class);
    if (has.has('pinned')) has.add('slots');
    return WORDS.filter(([cls]) => has.has(cls))
      .map(([, swatch, words]) => el('span', { class: 'lg' }, el('i', { class: `mk ${swatch}` }), words));
  }

  return { tip, legend };
})();
