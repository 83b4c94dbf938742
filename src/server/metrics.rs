//! Counters for `GET /metrics`, in the Prometheus text format, written by hand.
//!
//! A handful of counters do not justify a metrics crate. Label values come from a closed set (route
//! patterns, standard methods, formats), never from request data, so a client cannot grow the page.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::Format;

/// Upper bounds of the render time histogram, in seconds.
const BUCKETS: [f64; 12] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

#[derive(Default)]
struct Histogram {
    /// Per bucket, not cumulative; the last slot is +Inf.
    counts: [AtomicU64; BUCKETS.len() + 1],
    sum_micros: AtomicU64,
}

impl Histogram {
    /// Counts one observation of `took`.
    fn observe(&self, took: Duration) {
        let secs = took.as_secs_f64();
        let i = BUCKETS.iter().position(|b| secs <= *b).unwrap_or(BUCKETS.len());
        self.counts[i].fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    }

    /// Appends the histogram's lines as `name{labels,le=...}`, with its sum and count.
    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let mut cumulative = 0;
        for (i, bound) in BUCKETS.iter().enumerate() {
            cumulative += self.counts[i].load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels},le=\"{bound}\"}} {cumulative}");
        }
        cumulative += self.counts[BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels},le=\"+Inf\"}} {cumulative}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum{{{labels}}} {sum}");
        let _ = writeln!(out, "{name}_count{{{labels}}} {cumulative}");
    }
}

/// What the service counts.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, &'static str, u16), u64>>,
    renders: [Histogram; SLOTS],
    render_errors: [AtomicU64; SLOTS],
}

/// Gauges read at scrape time from the parts that own them.
pub struct Gauges {
    pub in_flight: usize,
    pub queued: usize,
    pub queue_capacity: usize,
    pub stored: usize,
    pub cache_entries: usize,
    pub cache_bytes: usize,
    pub cache_hits: u64,
    pub cache_misses: u64,
}

/// Render time is kept per output format: the map formats of [`crate::render::FORMATS`], then
/// Markdown, which only a diff is written in.
const SLOTS: usize = Format::ALL.len() + 1;

/// The format label of each slot.
fn label(slot: usize) -> &'static str {
    Format::ALL.get(slot).map_or("md", |f| f.extension())
}

/// The slot of a format label (`svg`, ..., `md`); an unknown one counts as the last.
fn slot(format: &str) -> usize {
    (0..SLOTS).find(|&i| label(i) == format).unwrap_or(SLOTS - 1)
}

/// Standard methods by name; anything else is `other`, so odd methods cannot add label values.
pub fn method_label(method: &actix_web::http::Method) -> &'static str {
    match method.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        "PATCH" => "PATCH",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    }
}

impl Metrics {
    /// Runs one render (a map's or a diff's) and records its time and outcome under `format`:
    /// every render the service does goes through here, so every one reaches the metrics.
    pub(super) fn timed<T>(
        &self,
        format: &str,
        work: impl FnOnce() -> crate::Result<T>,
    ) -> Result<T, super::errors::ApiError> {
        let started = std::time::Instant::now();
        let result = work();
        self.observe_render(format, started.elapsed(), result.is_ok());
        result.map_err(super::errors::ApiError::from)
    }

    pub fn count_request(&self, route: &str, method: &'static str, status: u16) {
        let mut map = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        *map.entry((route.to_string(), method, status)).or_insert(0) += 1;
    }

    /// One finished render (successful or not), of a map or a diff, in `format` (its extension),
    /// that took `took`.
    pub fn observe_render(&self, format: &str, took: Duration, ok: bool) {
        self.renders[slot(format)].observe(took);
        if !ok {
            self.render_errors[slot(format)].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn render_text(&self, g: &Gauges) -> String {
        let mut out = String::new();
        out.push_str("# HELP pto_http_requests_total HTTP requests answered, by route pattern, method and status.\n");
        out.push_str("# TYPE pto_http_requests_total counter\n");
        for ((route, method, status), n) in self.requests.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let _ = writeln!(
                out,
                "pto_http_requests_total{{route=\"{}\",method=\"{method}\",status=\"{status}\"}} {n}",
                escape_label(route)
            );
        }
        out.push_str("# HELP pto_render_duration_seconds Time spent rendering on a render thread, by format.\n");
        out.push_str("# TYPE pto_render_duration_seconds histogram\n");
        for i in 0..SLOTS {
            self.renders[i].write(&mut out, "pto_render_duration_seconds", &format!("format=\"{}\"", label(i)));
        }
        out.push_str("# HELP pto_render_errors_total Renders that ended in an error, by format.\n");
        out.push_str("# TYPE pto_render_errors_total counter\n");
        for i in 0..SLOTS {
            let n = self.render_errors[i].load(Ordering::Relaxed);
            let _ = writeln!(out, "pto_render_errors_total{{format=\"{}\"}} {n}", label(i));
        }
        let gauges: [(&str, &str, &str, String); 8] = [
            ("pto_renders_in_flight", "gauge", "Renders running on a render thread now.", g.in_flight.to_string()),
            ("pto_render_queue_depth", "gauge", "Jobs waiting for a render thread.", g.queued.to_string()),
            (
                "pto_render_queue_capacity",
                "gauge",
                "Jobs that may wait before requests get 503.",
                g.queue_capacity.to_string(),
            ),
            ("pto_stored_maps", "gauge", "Dumps in the map store.", g.stored.to_string()),
            ("pto_render_cache_entries", "gauge", "Rendered maps held in memory.", g.cache_entries.to_string()),
            ("pto_render_cache_bytes", "gauge", "Bytes of rendered maps held in memory.", g.cache_bytes.to_string()),
            (
                "pto_render_cache_hits_total",
                "counter",
                "Stored-map requests served from memory.",
                g.cache_hits.to_string(),
            ),
            (
                "pto_render_cache_misses_total",
                "counter",
                "Stored-map requests that had to render.",
                g.cache_misses.to_string(),
            ),
        ];
        for (name, kind, help, value) in gauges {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}");
        }
        out
    }
}

fn escape_label(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The map store's calls as the handlers make them, by operation: how long each took and how many
/// failed (a map that is absent is an answer, not a failure). A shared store is a network hop on
/// every uncached read and every write, so its latency is the first thing to look at when
/// renders are fast and requests are not.
#[derive(Default)]
pub struct StoreStats {
    calls: [Histogram; STORE_OPS.len()],
    errors: [AtomicU64; STORE_OPS.len()],
}

/// The operations counted, as their label values.
pub const STORE_OPS: [&str; 4] = ["get", "head", "put", "check"];

impl StoreStats {
    /// One call of `op` (one of [`STORE_OPS`]) that took `took`.
    pub fn observe(&self, op: usize, took: Duration, ok: bool) {
        self.calls[op].observe(took);
        if !ok {
            self.errors[op].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Appends the store's histogram and error counters to a metrics page.
    pub fn write(&self, out: &mut String) {
        out.push_str("# HELP pto_store_duration_seconds Time of map store calls, by operation.\n");
        out.push_str("# TYPE pto_store_duration_seconds histogram\n");
        for (op, h) in STORE_OPS.iter().zip(&self.calls) {
            h.write(out, "pto_store_duration_seconds", &format!("op=\"{op}\""));
        }
        out.push_str("# HELP pto_store_errors_total Map store calls that failed (absent maps are not failures).\n");
        out.push_str("# TYPE pto_store_errors_total counter\n");
        for (op, n) in STORE_OPS.iter().zip(&self.errors) {
            let _ = writeln!(out, "pto_store_errors_total{{op=\"{op}\"}} {}", n.load(Ordering::Relaxed));
        }
    }
}
