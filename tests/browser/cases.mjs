// The pages the page tests run on, and what each test needs to know of them.
//
// Every test runs on the repository's own fixture (tests/fixtures/fx_page_case, written for these
// tests in PyPTO's format), so a clone with nothing beside it runs them all. Where run.sh found the
// shared corpus, its decode and layer-norm cases are added: the corpus adds cases, never enables a
// test. The figures below are each case's own, known from how its dump was written (the fixture)
// or read once from the case (the corpus): a test compares the page with them, not with itself.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pagesDir } from './helpers.mjs';

/**
 * A page of a whole dump. `main` is a cube function with Mat, Left, Right and Acc (Left at most
 * 1 KB used, Right full), with an accumulator that has at least three aliases; `twin` another with
 * the same four lanes; `wide` one whose lanes cannot all fit beside the open source at 1400 px and
 * whose key list has an entry on more than one line; `long` a vector function of one Vec lane far
 * taller than the plot, with boxes too narrow for their ranges; `labelled` functions whose boxes
 * must all be named at every zoom, one at least with a label beside its box; `search` a text some
 * of `main`'s boxes are named with.
 */
const PAGES = [
  {
    page: 'fx_page_case',
    file: '32_after_AllocateMemoryAddr.py',
    arch: 'a2a3',
    functions: 7,
    tiles: 118,
    first: 'fx_copy_in',
    opens: 'fx_mm_down',
    main: 'fx_mm_down',
    twin: 'fx_mm_gate',
    wide: 'fx_mm_key_projection',
    long: 'fx_softmax',
    labelled: ['fx_rotary', 'fx_softmax', 'fx_mm_down'],
    // Mat: x blocks of 4 KB at 0 and 4 KB, w blocks of 128 KB at 8 KB and 136 KB; Left: two 512 B
    // pieces; Right: two 32 KB pieces; Acc: one 64 KB accumulator.
    pills: [
      'Mat hwm 264 KB / 512 KB 51.6% · peak 264 KB at L55', 'Left hwm 1 KB / 64 KB 1.6% · peak 1 KB at L39',
      'Right hwm 64 KB / 64 KB 100.0% · peak 64 KB at L40', 'Acc hwm 64 KB / 128 KB 50.0% · peak 64 KB at L35',
    ],
    matUsed: /264 KB/,
    // The start of the second w block (dn_w_k__tile), mid-lane.
    anchor: 139264,
    search: 'w_k',
  },
  {
    page: 'decode_fwd_layers',
    corpus: true,
    file: '32_after_AllocateMemoryAddr.py',
    arch: 'a2a3',
    functions: 38,
    tiles: 656,
    first: 'copy_hidden',
    opens: 'down_proj',
    main: 'down_proj',
    twin: 'gate_proj',
    wide: 'k_proj',
    long: 'online_softmax',
    labelled: ['rope_qkv', 'online_softmax', 'down_proj'],
    pills: [
      'Mat hwm 260 KB / 512 KB 50.8% · peak 260 KB at L86', 'Left hwm 1 KB / 64 KB 1.6% · peak 1 KB at L65',
      'Right hwm 64 KB / 64 KB 100.0% · peak 64 KB at L66', 'Acc hwm 64 KB / 128 KB 50.0% · peak 64 KB at L61',
    ],
    matUsed: /260 KB/,
    // Near the w0_v2 tile's start.
    anchor: 135168,
    search: 'w_k_inline65',
  },
];

/** A page whose function `fn` has views and merged aliases (the tooltip's story). */
const VIEWS = [
  { page: 'fx_page_case', fn: 'fx_norm' },
  { page: 'test_layer_norm_core', corpus: true, fn: 'layer_norm_incore_0' },
];

const rendered = (c) => existsSync(path.join(pagesDir, `${c.page}.html`));

/**
 * The cases run.sh rendered: the fixture's always (a missing fixture page is an error, not a skip),
 * the corpus's where it found the corpus.
 */
function present(cases) {
  for (const c of cases.filter((x) => !x.corpus && !rendered(x))) {
    throw new Error(`${c.page}.html is missing from ${pagesDir}: run tests/browser/run.sh`);
  }
  return cases.filter((c) => !c.corpus || rendered(c));
}

export const pageCases = () => present(PAGES);
export const viewCases = () => present(VIEWS);

/** `name` with its case's page, so each case's test has a name of its own. */
export const titled = (name, c) => `${name} [${c.page}]`;
