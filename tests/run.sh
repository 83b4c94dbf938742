#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what the tests need, then runs them.
#   1. clippy with warnings as errors, then the Rust tests (unit, CLI on the corpus, HTTP service,
#      SVG/PNG), and
#   2. the HTML page in a real headless Chromium (installs Debian's chromium and playwright-core).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
bash tests/browser/run.sh
