#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
