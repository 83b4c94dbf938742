-- wrk script for scripts/load.sh: POSTs one dump (DUMP_FILE) as text/plain on every request, and at
-- the end prints one machine-readable line with the figures load.sh reports.
local path = os.getenv("DUMP_FILE")
local file = assert(io.open(path, "rb"), "cannot open DUMP_FILE=" .. tostring(path))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "text/plain"

function done(summary, latency, requests)
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.status + e.timeout
  io.write(string.format(
    "RESULT requests=%d seconds=%.2f rps=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f errors=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1e3, latency:percentile(90) / 1e3, latency:percentile(99) / 1e3, latency.max / 1e3,
    errors, e.connect, e.read, e.write, e.status, e.timeout))
end
