#!/usr/bin/env bash
# The scale-out test (tests/s3/scale_out.py): two instances of the service on one real
# S3-compatible store (s3s-fs) on loopback, nginx in front (examples/deploy/pto-memory-map.conf).
#
# s3s-fs is built from crates.io once into a cache the machine keeps ($PMM_TOOLS, default
# ~/.cache/pmm-tools) and reused after that: 4.5 CPU-minutes the first time (46 minutes of wall
# time with one job on 2 cores that other builds kept busy), nothing after. nginx is Debian's
# (installed here when missing and allowed: root with apt-get).
# PMM_BIN: the service binary (default: built here, debug profile).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools="${PMM_TOOLS:-$HOME/.cache/pmm-tools}"
s3s_version=0.14.1
if [[ ! -x "$tools/bin/s3s-fs" ]] || ! "$tools/bin/s3s-fs" --version 2>/dev/null | grep -q "$s3s_version"; then
  echo "s3/run.sh: building s3s-fs $s3s_version into $tools (once)" >&2
  start=$(date +%s)
  cargo install --locked --quiet --root "$tools" s3s-fs --version "$s3s_version" --features binary
  echo "s3/run.sh: s3s-fs built in $(( $(date +%s) - start )) s" >&2
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
if [[ ! -x "$nginx_bin" ]]; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends nginx >/dev/null
    nginx_bin=/usr/sbin/nginx
  else
    echo "s3/run.sh: nginx is missing (apt-get install nginx)" >&2
    exit 1
  fi
fi
if [[ -z "${PMM_BIN:-}" ]]; then
  cargo build --locked --quiet --bin pto-memory-map
  PMM_BIN="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/pto-memory-map"
fi
S3S_FS="$tools/bin/s3s-fs" NGINX_BIN="$nginx_bin" PMM_BIN="$PMM_BIN" python3 tests/s3/scale_out.py
