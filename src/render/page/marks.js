// pto-memory-map: what the page adds to the marks of what the compiler placed.
//
// Reserved windows, the unsafe band, a declared allocation's slots and the pin of an author-declared
// allocation are marks of the plan (plan/placed.rs), placed by page.js' generic `markEl` and
// `placeMark` like every other mark, so the page, the SVG and the PNG draw them alike. What only the
// page has is here: a mark's tooltip and the names a test or a reader finds it by. The legend's
// words for them come with the plan's legend (plan::card_legend).
'use strict';

// eslint-disable-next-line no-unused-vars
const pmmMarks = (() => {
  /** Gives a mark's element its tooltip (plan::MarkTip): the text, its name and byte range. */
  function tip(node, m) {
    if (!m.tip) return;
    node.title = m.tip.text;
    node.dataset.name = m.tip.name;
    node.dataset.from = String(m.tip.range[0]);
    node.dataset.to = String(m.tip.range[1]);
  }

  return { tip };
})();
