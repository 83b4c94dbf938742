//! Recent renders of stored maps, kept in memory within a byte budget.
//!
//! An embedded map is fetched by every reader of the page that embeds it; rendering it once and
//! serving the bytes after that is the whole point of a permanent link. Entries are keyed by the
//! ETag (which already names the map, the options and the crate version) and know the stored maps
//! they were drawn from: an entry is served only while those maps are stored, and goes with them
//! ([`RenderCache::forget`]). The least recently used go first when the budget is exceeded.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use actix_web::web::Bytes;

struct Entry {
    bytes: Bytes,
    last_used: u64,
    /// The ids of the stored maps it was drawn from (two for a diff).
    maps: Vec<String>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    /// The name and backend each stored map was stored with, as read once (a few bytes each; one
    /// per map, forgotten with it).
    metas: HashMap<String, (Option<String>, Option<String>)>,
    bytes: usize,
    clock: u64,
}

/// Stored maps whose name and backend are remembered at once.
const MAX_METAS: usize = 100_000;

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

    /// The name and backend the map `id` was stored with, when remembered.
    pub fn meta(&self, id: &str) -> Option<(Option<String>, Option<String>)> {
        self.lock().metas.get(id).cloned()
    }

    /// Remembers what the map `id` was stored with. Past a bound the memory starts over (these are
    /// read again when needed): a client asking for many maps cannot grow it without end.
    pub fn remember_meta(&self, id: &str, meta: (Option<String>, Option<String>)) {
        let mut inner = self.lock();
        if inner.metas.len() >= MAX_METAS {
            inner.metas.clear();
        }
        inner.metas.insert(id.to_string(), meta);
    }

    /// Drops every entry drawn from the stored map `id`, and what it was stored with: it is gone,
    /// or stored anew.
    pub fn forget(&self, id: &str) {
        let mut inner = self.lock();
        inner.metas.remove(id);
        let gone: Vec<String> =
            inner.entries.iter().filter(|(_, e)| e.maps.iter().any(|m| m == id)).map(|(k, _)| k.clone()).collect();
        for key in gone {
            if let Some(e) = inner.entries.remove(&key) {
                inner.bytes -= e.bytes.len();
            }
        }
    }

    /// Keeps `bytes`, drawn from the stored `maps`, unless it alone would take more than a quarter
    /// of the budget (one huge map should not flush everything else).
    /// The largest render [`RenderCache::put`] keeps.
    pub fn largest(&self) -> usize {
        self.budget / 4
    }

    pub fn put(&self, key: String, maps: &[&str], bytes: Bytes) {
        if bytes.len() > self.largest() {
            return;
        }
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let size = bytes.len();
        let maps = maps.iter().map(|m| m.to_string()).collect();
        if let Some(old) = inner.entries.insert(key, Entry { bytes, last_used: now, maps }) {
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
        cache.put("a".into(), &["m"], Bytes::from(vec![0; 10]));
        cache.put("b".into(), &["m"], Bytes::from(vec![0; 10]));
        cache.put("c".into(), &["m"], Bytes::from(vec![0; 10]));
        assert!(cache.get("a").is_some());
        cache.put("d".into(), &["m"], Bytes::from(vec![0; 10]));
        cache.put("e".into(), &["m"], Bytes::from(vec![0; 10]));
        assert!(cache.get("b").is_none());
        assert!(cache.get("a").is_some());
        assert!(cache.usage().1 <= 40);
        cache.put("huge".into(), &["m"], Bytes::from(vec![0; 11]));
        assert!(cache.get("huge").is_none());
    }

    #[test]
    fn entries_go_with_their_maps() {
        let cache = RenderCache::new(1000);
        cache.put("a.svg".into(), &["a"], Bytes::from(vec![0; 10]));
        cache.put("a.png".into(), &["a"], Bytes::from(vec![0; 10]));
        cache.put("b.svg".into(), &["b"], Bytes::from(vec![0; 10]));
        cache.put("a-b.md".into(), &["a", "b"], Bytes::from(vec![0; 10]));
        cache.forget("a");
        assert!(cache.get("a.svg").is_none() && cache.get("a.png").is_none() && cache.get("a-b.md").is_none());
        assert!(cache.get("b.svg").is_some());
        assert_eq!(cache.usage(), (1, 10));
    }
}
