//! Recent renders of stored maps, kept in memory within a byte budget.
//!
//! An embedded map is fetched by every reader of the page that embeds it; rendering it once and
//! serving the bytes after that is the whole point of a permanent link. Entries are keyed by the
//! ETag (which already names the map, the options and the crate version); the least recently used
//! go first when the budget is exceeded.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use actix_web::web::Bytes;

struct Entry {
    bytes: Bytes,
    last_used: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    bytes: usize,
    clock: u64,
}

/// A shared, bounded cache of rendered outputs.
pub struct RenderCache {
    budget: usize,
    inner: Mutex<Inner>,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
}

impl RenderCache {
    pub fn new(budget: usize) -> RenderCache {
        RenderCache { budget, inner: Mutex::new(Inner::default()), hits: AtomicU64::new(0), misses: AtomicU64::new(0) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Nothing in the critical sections can panic halfway through an update that matters.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn get(&self, key: &str) -> Option<Bytes> {
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let found = inner.entries.get_mut(key).map(|e| {
            e.last_used = now;
            e.bytes.clone()
        });
        let counter = if found.is_some() { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps `bytes` unless it alone would take more than a quarter of the budget (one huge map
    /// should not flush everything else).
    pub fn put(&self, key: String, bytes: Bytes) {
        if bytes.len() > self.budget / 4 {
            return;
        }
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let size = bytes.len();
        if let Some(old) = inner.entries.insert(key, Entry { bytes, last_used: now }) {
            inner.bytes -= old.bytes.len();
        }
        inner.bytes += size;
        while inner.bytes > self.budget {
            let Some(oldest) = inner.entries.iter().min_by_key(|(_, e)| e.last_used).map(|(k, _)| k.clone()) else {
                break;
            };
            if let Some(gone) = inner.entries.remove(&oldest) {
                inner.bytes -= gone.bytes.len();
            }
        }
    }

    /// (entries, bytes) for the metrics page.
    pub fn usage(&self) -> (usize, usize) {
        let inner = self.lock();
        (inner.entries.len(), inner.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_goes_first() {
        let cache = RenderCache::new(40);
        cache.put("a".into(), Bytes::from(vec![0; 10]));
        cache.put("b".into(), Bytes::from(vec![0; 10]));
        cache.put("c".into(), Bytes::from(vec![0; 10]));
        assert!(cache.get("a").is_some());
        cache.put("d".into(), Bytes::from(vec![0; 10]));
        cache.put("e".into(), Bytes::from(vec![0; 10]));
        assert!(cache.get("b").is_none());
        assert!(cache.get("a").is_some());
        assert!(cache.usage().1 <= 40);
        cache.put("huge".into(), Bytes::from(vec![0; 11]));
        assert!(cache.get("huge").is_none());
    }
}
