//! What the handlers hold: a [`MapStore`] whose calls are timed and counted for `/metrics`, and
//! which, in front of a shared store, remembers for a short while which maps it was seen to hold.
//!
//! Why remember: a stored picture is served from the render cache only once the store is known to
//! still hold its map (another instance, or the bucket's lifecycle rules, may have removed it), and
//! asking a remote store on every request would put a network round trip in front of every cached
//! answer. So "the store has this map" is believed for [`SHARED_TRUST`] after the store last said
//! so: a map removed from a shared store is gone from every instance within that time. Only
//! presence is remembered, never absence, so a map another instance just stored is found at once.

use std::collections::HashMap;
use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::metrics::StoreStats;
use super::store::{MapStore, Put};

/// How long a shared store's "I have this map" is believed without asking again. The bound on how
/// long a removed map is still served by an instance that had it cached (docs/deploy.md).
pub const SHARED_TRUST: Duration = Duration::from_secs(30);

/// Most maps remembered at once; past it the memory starts over (bounded whatever the traffic).
const SEEN_MAX: usize = 100_000;

/// A store with its metrics and, when it is remote, its memory of maps seen.
pub struct Storage {
    inner: Box<dyn MapStore>,
    /// Zero for a local folder, where asking is one `stat`.
    trust: Duration,
    seen: Mutex<HashMap<String, Instant>>,
    pub stats: StoreStats,
}

const GET: usize = 0;
const HEAD: usize = 1;
const PUT: usize = 2;
const CHECK: usize = 3;

impl Storage {
    /// Wraps `inner`; a remote store's presence answers are trusted for [`SHARED_TRUST`].
    pub fn new(inner: Box<dyn MapStore>) -> Storage {
        let trust = if inner.remote() { SHARED_TRUST } else { Duration::ZERO };
        Storage { inner, trust, seen: Mutex::new(HashMap::new()), stats: StoreStats::default() }
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

    fn timed<T>(&self, op: usize, call: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        let started = Instant::now();
        let result = call();
        self.stats.observe(op, started.elapsed(), result.is_ok());
        result
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
