#!/usr/bin/env bash
# Prints the folder cargo builds this checkout into: `./target`, or wherever CARGO_TARGET_DIR or a
# cargo config's `build.target-dir` puts it. Scripts and tests find the binary there rather than
# assume `./target`, which many Rust users move globally.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo metadata --format-version 1 --no-deps --offline 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
