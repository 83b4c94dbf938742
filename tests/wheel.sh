#!/usr/bin/env bash
# The Python package as a user gets it: builds the wheel with maturin, installs it into a fresh
# virtualenv and runs the installed binary and `python -m pto_memory_map` on a fixture.
#
# The wheel is built from the test build (cargo's dev profile, the same target dir and features), so
# no dependency is compiled again: on the 2-core CI machine a second, release build of the
# dependency world would take minutes. `pip install .` builds in release, as users want it.
# maturin comes from PyPI, into target/maturin-venv. auditwheel's check is maturin's own.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

venv="$root/target/maturin-venv"
if [[ ! -x "$venv/bin/maturin" ]]; then
  echo "wheel.sh: installing maturin from PyPI into target/maturin-venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'maturin>=1.5,<2'
fi

wheels="$root/target/wheels"
rm -f "$wheels"/pto_memory_map-*.whl
start=$(date +%s)
"$venv/bin/maturin" build --profile dev --locked --auditwheel check --out "$wheels"
wheel=$(ls "$wheels"/pto_memory_map-*.whl)
echo "wheel.sh: built $(basename "$wheel") in $(( $(date +%s) - start )) s" >&2
[[ "$(basename "$wheel")" == *manylinux_* ]] || { echo "wheel.sh: $wheel is not manylinux-tagged" >&2; exit 1; }

# A fresh virtualenv, the wheel alone (no index: it needs nothing else), run from outside the repo.
fresh="$root/target/wheel-venv"
python3 -m venv --clear "$fresh"
"$fresh/bin/pip" install --quiet --no-index "$wheel"
work="$root/target/wheel-check"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
version=$("$fresh/bin/pto-memory-map" --version)
[[ "$version" == "pto-memory-map $(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)" ]] ||
  { echo "wheel.sh: unexpected version '$version'" >&2; exit 1; }
PATH="$fresh/bin:$PATH" python -m pto_memory_map "$root/tests/fixtures/fx_a5_case" -b Ascend950 -o m.html
# The page's header names the backend (its data travel gzipped, so the text is looked for there).
grep -q 'capacities <b>Ascend950</b>' m.html || { echo "wheel.sh: m.html does not name Ascend950" >&2; exit 1; }
# The module finds the binary in its environment even when PATH does not lead there.
env -i HOME="$HOME" "$fresh/bin/python" -m pto_memory_map "$root/tests/fixtures/fx_concise.py" -o m.json
grep -q '"functions"' m.json || { echo "wheel.sh: m.json is not a map" >&2; exit 1; }
# And the binary's exit status comes back: 1 for a dump with nothing to draw.
set +e
"$fresh/bin/python" -m pto_memory_map "$root/tests/fixtures/fx_ptoas_planner.py" -o - 2>/dev/null
status=$?
set -e
[[ $status -eq 1 ]] || { echo "wheel.sh: exit status $status for a refused dump, not 1" >&2; exit 1; }
echo "wheel.sh: $version from the wheel: --version, python -m pto_memory_map (html, json, refusal) ok" >&2

# The Python API's tests, in the same fresh virtualenv, with what they need from PyPI: pytest, a
# real Jupyter kernel to execute the example notebook headless, and check-jsonschema for the CI
# recipes. They run from outside the repo, so `import pto_memory_map` is the installed wheel's.
echo "wheel.sh: installing pytest, nbclient, ipykernel, nbformat, check-jsonschema from PyPI" >&2
"$fresh/bin/pip" install --quiet pytest nbclient ipykernel nbformat check-jsonschema
set +e
PYTHONDONTWRITEBYTECODE=1 "$fresh/bin/python" -m pytest "$root/tests/python" -p no:cacheprovider -q -rs \
  --junitxml "$work/pytest.xml"
status=$?
set -e
# pytest exits 5 when it collected nothing: a moved folder or a broken conftest must not pass.
[[ $status -ne 5 ]] || { echo "wheel.sh: pytest collected no tests in tests/python" >&2; exit 1; }
[[ $status -eq 0 ]] || { echo "wheel.sh: the Python tests failed (pytest exit $status)" >&2; exit 1; }
# Every test ran: none skipped for a missing package or kernel.
"$fresh/bin/python" - "$work/pytest.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suite = root if root.tag == "testsuite" else root.find("testsuite")
tests, skipped = int(suite.get("tests")), int(suite.get("skipped"))
if tests < 20 or skipped:
    sys.exit(f"wheel.sh: pytest ran {tests} tests and skipped {skipped}; expected at least 20, none skipped")
print(f"wheel.sh: {tests} Python tests passed against the wheel", file=sys.stderr)
PY
