#!/usr/bin/env bash
# Load benchmark of the HTTP service (not a test): starts a release server on loopback, POSTs a
# mid-size corpus dump to /render with wrk for DURATION at CONNECTIONS concurrent connections, then
# prints requests/s, p50/p99 latency, errors (must be 0) and the server's RSS before and after.
# Everything it starts it stops; nothing listens beyond 127.0.0.1.
#
#   bash scripts/load.sh                      # 30 s, 16 connections, svg (json if svg is not built)
#   DURATION=10s CONNECTIONS=32 FORMAT=png bash scripts/load.sh
#   BIN=target/release/pto-memory-map bash scripts/load.sh   # skip the build
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-30s}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-2}
DUMP=${DUMP:-${PMM_CORPUS:-../shared/corpus}/generated/Ascend910B/llama_7b_mini_1h_s16/passes_dump/35_after_AllocateMemoryAddr.py}
FORMAT=${FORMAT:-}

[ -f "$DUMP" ] || { echo "load.sh: no dump at $DUMP (set DUMP=...)" >&2; exit 2; }
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -qq wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
  else
    echo "load.sh: wrk is not installed (Debian: apt-get install -y wrk)" >&2; exit 2
  fi
fi
command -v curl >/dev/null || { echo "load.sh: curl is needed" >&2; exit 2; }

if [ -z "${BIN:-}" ]; then
  cargo --quiet release-bin # the release binary, linked statically (see README)
  BIN="$(bash scripts/target-dir.sh)/release/pto-memory-map"
fi

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$BIN" serve --bind 127.0.0.1:0 --data-dir "$WORK/data" >"$WORK/stdout" 2>"$WORK/server.log" &
SERVER_PID=$!
ADDR=
for _ in $(seq 100); do
  ADDR=$(sed -n 's|^listening on ||p' "$WORK/stdout" | head -n1)
  [ -n "$ADDR" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$ADDR" ] || { echo "load.sh: the server did not start" >&2; exit 1; }

if [ -z "$FORMAT" ]; then
  FORMAT=svg
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: text/plain' --data-binary "@$DUMP" "$ADDR/render?format=svg")
  [ "$code" = 200 ] || FORMAT=json
fi

rss() { awk '/^VmRSS/ { print $2 " " $3 }' "/proc/$SERVER_PID/status"; }
RSS_BEFORE=$(rss)
echo "server $ADDR (pid $SERVER_PID), $(nproc) cores; dump $(basename "$DUMP") ($(wc -c <"$DUMP") bytes) -> $FORMAT"
echo "wrk: $DURATION, $CONNECTIONS connections, $THREADS threads"

# wrk stops itself after DURATION; the outer timeout only guards against a hung run.
DUMP_FILE="$DUMP" timeout 300 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 10s --latency \
  -s scripts/post_dump.lua "$ADDR/render?format=$FORMAT" | tee "$WORK/wrk.out"
RSS_AFTER=$(rss)

RESULT=$(grep '^RESULT ' "$WORK/wrk.out")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$RESULT"; }
render_sum=$(curl -s "$ADDR/metrics" | awk -v f="$FORMAT" '$1 == "pto_render_duration_seconds_sum{format=\"" f "\"}" { s = $2 } $1 == "pto_render_duration_seconds_count{format=\"" f "\"}" { c = $2 } END { if (c > 0) printf "%.2f ms mean over %d renders", 1000 * s / c, c }')
echo
echo "== load.sh summary =="
echo "format          $FORMAT"
echo "requests/s      $(field rps)"
echo "latency p50     $(field p50_ms) ms"
echo "latency p99     $(field p99_ms) ms"
echo "render time     $render_sum"
echo "errors          $(field errors)"
echo "server RSS      before $RSS_BEFORE, after $RSS_AFTER"
[ "$(field errors)" = 0 ] || { echo "load.sh: errors under load" >&2; exit 1; }
