//! What the handlers hold: a [`MapStore`] whose calls are timed and counted for `/metrics`, and
//! which, in front of a shared store, remembers for a short while which maps it was seen to hold.
//!
//! Why remember: a stored picture is served from the render cache only once the store is known to
//! still hold its map (another instance, or the bucket's lifecycle rules, may have removed it), and
//! asking a remote store on every request would put a network round trip in front of every cached
//! answer. So "the store has this map" is believed for [`SHARED_TRUST`] after the store last said
//! so: a map removed from a shared store is gone from every instance within that time. Only
//! presence is remembered, never absence, so a map another instance just stored is found at once.
//!
//! In front of a remote store it also keeps a hanging or failing store from holding the service:
//! - a circuit breaker: after [`TRIP_AFTER`] calls in a row found the store unavailable, calls fail
//!   at once for [`OPEN_FOR`], then one call probes it (the others still fail at once) and its
//!   answer closes or reopens the circuit;
//! - at most [`MAX_CALLS`] calls wait on it at once (each on a blocking thread, up to the store's
//!   own deadline); past that a call fails at once as unavailable;
//! - the units it read (verified against their ids by the store) are kept within [`UNITS_BYTES`],
//!   so a map is downloaded once, not once per picture or per option.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::metrics::StoreStats;
use super::store::{self, MapStore, Put};

/// How long a shared store's "I have this map" is believed without asking again. The bound on how
/// long a removed map is still served by an instance that had it cached (docs/deploy.md).
pub const SHARED_TRUST: Duration = Duration::from_secs(30);

/// Most maps remembered at once; past it the memory starts over (bounded whatever the traffic).
const SEEN_MAX: usize = 100_000;

/// Calls in a row that found a remote store unavailable before the circuit opens.
pub const TRIP_AFTER: u32 = 3;
/// How long an open circuit fails calls at once before one probes the store again.
pub const OPEN_FOR: Duration = Duration::from_secs(5);
/// Most calls waiting on a remote store at once (each holds a blocking thread while it waits).
pub const MAX_CALLS: usize = 32;
/// Bytes of units read from a remote store kept in memory; a unit larger than a quarter of it is
/// not kept.
pub const UNITS_BYTES: usize = 64 * 1024 * 1024;

/// A health probe still waiting after this long means the store is not answering.
const SLOW_PROBE: Duration = Duration::from_secs(1);

/// What the breaker knows of a remote store.
#[derive(Default)]
struct Breaker {
    /// Calls in a row that found the store unavailable.
    failures: AtomicU32,
    /// While set and in the future, calls fail at once.
    open_until: Mutex<Option<Instant>>,
}

/// Units read from a remote store, oldest first out.
#[derive(Default)]
struct Units {
    by_id: HashMap<String, Arc<Vec<u8>>>,
    order: VecDeque<String>,
    bytes: usize,
}

/// How the store fared lately, for `/healthz`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Ok,
    /// Down, hanging or failing: may answer later.
    NotAnswering,
    /// Answering, and refusing (credentials, a missing bucket, no room).
    Refusing,
}

/// A store with its metrics and, when it is remote, its memory of maps seen.
pub struct Storage {
    inner: Box<dyn MapStore>,
    /// Zero for a local folder, where asking is one `stat`.
    trust: Duration,
    seen: Mutex<HashMap<String, Instant>>,
    pub stats: StoreStats,
    breaker: Breaker,
    calls: AtomicUsize,
    units: Mutex<Units>,
    /// Since when a `/healthz` probe waits on the store, while one does; the others meanwhile
    /// report `last_health`, or that the store is not answering once the probe is slow.
    probing: Mutex<Option<Instant>>,
    last_health: Mutex<Health>,
}

const GET: usize = 0;
const HEAD: usize = 1;
const PUT: usize = 2;
const CHECK: usize = 3;

impl Storage {
    /// Wraps `inner`; a remote store's presence answers are trusted for [`SHARED_TRUST`].
    pub fn new(inner: Box<dyn MapStore>) -> Storage {
        let trust = if inner.remote() { SHARED_TRUST } else { Duration::ZERO };
        Storage {
            inner,
            trust,
            seen: Mutex::new(HashMap::new()),
            stats: StoreStats::default(),
            breaker: Breaker::default(),
            calls: AtomicUsize::new(0),
            units: Mutex::new(Units::default()),
            probing: Mutex::new(None),
            last_health: Mutex::new(Health::Ok),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn saw(&self, id: &str, present: bool) {
        if self.trust.is_zero() {
            return;
        }
        let mut seen = self.seen();
        if !present {
            seen.remove(id);
            // Gone from the store: its unit goes from memory too.
            let mut units = self.units.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(gone) = units.by_id.remove(id) {
                units.bytes -= gone.len();
                units.order.retain(|other| other != id);
            }
            return;
        }
        if seen.len() >= SEEN_MAX {
            seen.clear();
        }
        seen.insert(id.to_string(), Instant::now());
    }

    /// Whether `id` can be answered without waiting on the network: `Some` from the memory of a
    /// shared store, or from a local folder; `None` when a remote store must be asked (do that off
    /// the async workers).
    pub fn contains_now(&self, id: &str) -> Option<io::Result<bool>> {
        if !self.inner.remote() {
            return Some(self.contains(id));
        }
        let seen = self.seen();
        seen.get(id).filter(|at| at.elapsed() < self.trust).map(|_| Ok(true))
    }

    /// Runs one call to the store: timed and counted, and for a remote store through the breaker
    /// and within [`MAX_CALLS`].
    fn timed<T>(&self, op: usize, call: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        if !self.inner.remote() {
            let started = Instant::now();
            let result = call();
            self.stats.observe(op, started.elapsed(), result.is_ok());
            return result;
        }
        if let Some(wait) = self.circuit_open() {
            self.stats.observe(op, Duration::ZERO, false);
            return Err(store::unavailable(format!(
                "it failed {TRIP_AFTER} calls in a row; not asked again for {:.1} s",
                wait.as_secs_f64()
            )));
        }
        if self.calls.fetch_add(1, Ordering::AcqRel) >= MAX_CALLS {
            self.calls.fetch_sub(1, Ordering::AcqRel);
            self.stats.observe(op, Duration::ZERO, false);
            return Err(store::unavailable(format!("{MAX_CALLS} calls are already waiting on it")));
        }
        let started = Instant::now();
        let result = call();
        self.calls.fetch_sub(1, Ordering::AcqRel);
        self.stats.observe(op, started.elapsed(), result.is_ok());
        self.after_call(result.as_ref().err());
        result
    }

    /// How long the circuit stays open, when it is; when its time is up, lets this one call through
    /// as the probe (and keeps the others failing at once until the probe answers).
    fn circuit_open(&self) -> Option<Duration> {
        let mut open_until = self.breaker.open_until.lock().unwrap_or_else(|p| p.into_inner());
        let until = (*open_until)?;
        let now = Instant::now();
        if now < until {
            return Some(until - now);
        }
        *open_until = Some(now + OPEN_FOR);
        None
    }

    fn after_call(&self, err: Option<&io::Error>) {
        let mut open_until = self.breaker.open_until.lock().unwrap_or_else(|p| p.into_inner());
        if err.is_some_and(store::is_unavailable) {
            let failures = self.breaker.failures.fetch_add(1, Ordering::AcqRel) + 1;
            if failures >= TRIP_AFTER {
                *open_until = Some(Instant::now() + OPEN_FOR);
            }
        } else {
            // An answer, even a refusal or "no such map", is a store that answers.
            self.breaker.failures.store(0, Ordering::Release);
            *open_until = None;
        }
    }

    /// Whether the breaker is open now (the store failed lately and is not being asked).
    pub fn tripped(&self) -> bool {
        self.breaker.open_until.lock().unwrap_or_else(|p| p.into_inner()).is_some_and(|until| Instant::now() < until)
    }

    /// The unit stored for `id` (verified against the id by the store), read once from a remote
    /// store and then kept in memory within [`UNITS_BYTES`].
    pub fn unit(&self, id: &str) -> io::Result<Option<Arc<Vec<u8>>>> {
        if let Some(unit) = self.units.lock().unwrap_or_else(|p| p.into_inner()).by_id.get(id) {
            return Ok(Some(unit.clone()));
        }
        let Some(unit) = self.get(id)? else { return Ok(None) };
        let unit = Arc::new(unit);
        if self.inner.remote() && unit.len() <= UNITS_BYTES / 4 {
            let mut units = self.units.lock().unwrap_or_else(|p| p.into_inner());
            if !units.by_id.contains_key(id) {
                while units.bytes + unit.len() > UNITS_BYTES {
                    let Some(oldest) = units.order.pop_front() else { break };
                    if let Some(gone) = units.by_id.remove(&oldest) {
                        units.bytes -= gone.len();
                    }
                }
                units.bytes += unit.len();
                units.order.push_back(id.to_string());
                units.by_id.insert(id.to_string(), unit.clone());
            }
        }
        Ok(Some(unit))
    }

    /// Asks the store whether it answers, for `/healthz`: one probe at a time (a flood of health
    /// checks is not a flood of store calls); while one waits, the others get the last answer.
    pub fn health(&self) -> Health {
        {
            let mut probing = self.probing.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(since) = *probing {
                if since.elapsed() > SLOW_PROBE {
                    return Health::NotAnswering;
                }
                return *self.last_health.lock().unwrap_or_else(|p| p.into_inner());
            }
            *probing = Some(Instant::now());
        }
        let health = match self.check() {
            Ok(()) => Health::Ok,
            Err(e) => {
                // The detail names the endpoint and bucket: for the log, not for `/healthz`.
                let line = serde_json::json!({ "level": "warn", "message": format!("health check: {e}") });
                eprintln!("{line}");
                if store::is_refused(&e) { Health::Refusing } else { Health::NotAnswering }
            }
        };
        *self.last_health.lock().unwrap_or_else(|p| p.into_inner()) = health;
        *self.probing.lock().unwrap_or_else(|p| p.into_inner()) = None;
        health
    }
}

impl MapStore for Storage {
    fn put(&self, id: &str, bytes: &[u8]) -> io::Result<Put> {
        let put = self.timed(PUT, || self.inner.put(id, bytes))?;
        self.saw(id, true);
        Ok(put)
    }

    fn get(&self, id: &str) -> io::Result<Option<Vec<u8>>> {
        let got = self.timed(GET, || self.inner.get(id))?;
        self.saw(id, got.is_some());
        Ok(got)
    }

    fn count(&self) -> usize {
        self.inner.count()
    }

    fn contains(&self, id: &str) -> io::Result<bool> {
        let present = self.timed(HEAD, || self.inner.contains(id))?;
        self.saw(id, present);
        Ok(present)
    }

    fn check(&self) -> io::Result<()> {
        self.timed(CHECK, || self.inner.check())
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn remote(&self) -> bool {
        self.inner.remote()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A remote store held in memory, counting how often it is asked.
    #[derive(Default)]
    struct Remote {
        maps: Mutex<HashMap<String, Vec<u8>>>,
        asked: AtomicUsize,
        down: std::sync::atomic::AtomicBool,
    }

    impl MapStore for Remote {
        fn put(&self, id: &str, bytes: &[u8]) -> io::Result<Put> {
            let mut maps = self.maps.lock().unwrap();
            if maps.contains_key(id) {
                return Ok(Put::Existed);
            }
            maps.insert(id.into(), bytes.to_vec());
            Ok(Put::Created)
        }
        fn get(&self, id: &str) -> io::Result<Option<Vec<u8>>> {
            Ok(self.maps.lock().unwrap().get(id).cloned())
        }
        fn count(&self) -> usize {
            self.maps.lock().unwrap().len()
        }
        fn contains(&self, id: &str) -> io::Result<bool> {
            self.asked.fetch_add(1, Ordering::Relaxed);
            if self.down.load(Ordering::Relaxed) {
                return Err(super::super::store::unavailable("connection refused"));
            }
            Ok(self.maps.lock().unwrap().contains_key(id))
        }
        fn describe(&self) -> String {
            "memory".into()
        }
        fn remote(&self) -> bool {
            true
        }
    }

    #[test]
    fn presence_is_remembered_absence_is_not_and_errors_are_counted() {
        let storage = Storage::new(Box::new(Remote::default()));
        assert!(storage.contains_now("a").is_none(), "nothing seen yet: the store must be asked");
        assert!(!storage.contains("a").unwrap());
        assert!(storage.contains_now("a").is_none(), "absence is never remembered");
        assert_eq!(storage.put("a", b"x").unwrap(), Put::Created);
        assert_eq!(storage.put("a", b"x").unwrap(), Put::Existed);
        assert!(matches!(storage.contains_now("a"), Some(Ok(true))), "a map just stored is known");
        let mut page = String::new();
        storage.stats.write(&mut page);
        assert!(page.contains("pto_store_duration_seconds_count{op=\"put\"} 2"), "{page}");
        assert!(page.contains("pto_store_errors_total{op=\"head\"} 0"), "{page}");
    }

    #[test]
    fn a_store_that_fails_is_an_error_not_an_absent_map() {
        let remote = Remote::default();
        remote.down.store(true, Ordering::Relaxed);
        let storage = Storage::new(Box::new(remote));
        let err = storage.contains("b").unwrap_err();
        assert!(super::super::store::is_unavailable(&err), "{err}");
        let mut page = String::new();
        storage.stats.write(&mut page);
        assert!(page.contains("pto_store_errors_total{op=\"head\"} 1"), "{page}");
    }

    #[test]
    fn a_failing_store_trips_the_breaker_and_is_not_asked_while_it_is_open() {
        let remote = Remote::default();
        remote.down.store(true, Ordering::Relaxed);
        let storage = Storage::new(Box::new(remote));
        for _ in 0..TRIP_AFTER {
            assert!(super::super::store::is_unavailable(&storage.contains("b").unwrap_err()));
        }
        assert!(storage.tripped());
        let started = Instant::now();
        for _ in 0..100 {
            let err = storage.contains("b").unwrap_err();
            assert!(super::super::store::is_unavailable(&err), "{err}");
        }
        assert!(started.elapsed() < Duration::from_millis(100), "{:?}", started.elapsed());
        let asked = |s: &Storage| {
            let mut page = String::new();
            s.stats.write(&mut page);
            page
        };
        assert!(asked(&storage).contains("pto_store_errors_total{op=\"head\"} 103"), "{}", asked(&storage));
        assert_eq!(storage.health(), Health::NotAnswering);
    }

    #[test]
    fn a_unit_is_read_from_a_remote_store_once() {
        let storage = Storage::new(Box::new(Remote::default()));
        storage.put("u", b"unit").unwrap();
        for _ in 0..3 {
            assert_eq!(storage.unit("u").unwrap().as_deref().map(Vec::as_slice), Some(&b"unit"[..]));
        }
        let mut page = String::new();
        storage.stats.write(&mut page);
        assert!(page.contains("pto_store_duration_seconds_count{op=\"get\"} 1\n"), "{page}");
        assert!(storage.unit("missing").unwrap().is_none());
        // Gone from the store: gone from memory too.
        storage.saw("u", false);
        assert!(storage.units.lock().unwrap().by_id.is_empty());
    }

    #[test]
    fn a_local_store_is_always_asked() {
        let dir = std::env::temp_dir().join(format!("pto-mm-storage-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let fs = super::super::store::FsStore::open(&dir, 1 << 20).unwrap();
        let storage = Storage::new(Box::new(fs));
        let id = super::super::store::id_of(b"m");
        assert!(matches!(storage.contains_now(&id), Some(Ok(false))));
        storage.put(&id, b"m").unwrap();
        assert!(matches!(storage.contains_now(&id), Some(Ok(true))));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
