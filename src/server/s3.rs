//! Maps in an S3-compatible bucket (`serve --store s3://BUCKET[/PREFIX]`), shared by any number of
//! instances.
//!
//! One object per map, `PREFIX/<id>`, holding the same unit a local folder holds (`store::encode`).
//! What makes many instances safe on one bucket:
//! - a put is conditional (`If-None-Match: *`): of two instances storing the same dump at once,
//!   the bucket lets exactly one create the object and tells the other it exists (one 201), on a
//!   store that checks and writes atomically (docs/deploy.md lists which do; on the others both
//!   puts succeed with the same bytes: one object all the same, two 201s);
//! - a single-request PUT is atomic in S3: an instance killed mid-upload leaves no object at all;
//! - every failure to answer is [`store::unavailable`] (503 to writers), never "not found".
//!
//! The client (`object_store`) is async; the service's store calls are not (they run on render
//! threads and blocking threads), so this store keeps a small runtime of its own and waits for each
//! call with a deadline, which also bounds how long a slow store can hold a thread.
//!
//! Configuration follows the AWS conventions the client reads: `AWS_ENDPOINT_URL`,
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION` (and the client's other `AWS_*`).

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder, S3ConditionalPut};
use object_store::path::Path;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig};

use super::store::{self, MapStore, Put};

/// Longest a store call may take, retries included, before the caller is told the store is
/// unavailable.
const CALL_DEADLINE: Duration = Duration::from_secs(8);
/// Longest one HTTP request to the store may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How often an instance that stores lists the bucket to enforce the quota (at most).
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// Most objects one quota sweep reads (bounded work whatever the bucket holds).
const SWEEP_MAX_OBJECTS: usize = 1_000_000;

/// A bucket (and prefix) holding maps.
pub struct S3Store {
    /// `Some` until dropped; shut down without waiting, as a drop may happen on an async thread.
    runtime: Option<tokio::runtime::Runtime>,
    client: Arc<AmazonS3>,
    prefix: Path,
    url: String,
    /// Zero: no quota (the bucket's lifecycle rules bound it).
    max_bytes: u64,
    quota: Arc<Quota>,
}

/// The quota sweep's state, shared with the sweep running in the background.
#[derive(Default)]
struct Quota {
    running: AtomicBool,
    /// Bytes this instance stored since its last sweep.
    stored_since: AtomicU64,
    last: Mutex<Option<Instant>>,
    /// Maps counted by the last sweep.
    count: AtomicUsize,
}

impl S3Store {
    /// Opens `s3://BUCKET[/PREFIX]` with the client's `AWS_*` settings from the environment; an
    /// `http://` endpoint (a store on loopback) is allowed as given. Nothing is sent yet.
    pub fn open(url: &str, max_bytes: u64) -> io::Result<S3Store> {
        let rest = url.strip_prefix("s3://").ok_or_else(|| bad_url(url, "it must start with s3://"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(bad_url(url, "it names no bucket"));
        }
        let prefix = Path::parse(prefix.trim_end_matches('/'))
            .map_err(|e| bad_url(url, &format!("the prefix is not a plain path: {e}")))?;
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            .with_retry(RetryConfig {
                max_retries: 2,
                retry_timeout: REQUEST_TIMEOUT,
                backoff: object_store::BackoffConfig {
                    init_backoff: Duration::from_millis(50),
                    max_backoff: Duration::from_millis(500),
                    base: 2.0,
                },
            })
            .with_client_options(
                ClientOptions::new()
                    .with_timeout(REQUEST_TIMEOUT)
                    .with_connect_timeout(Duration::from_secs(2))
                    .with_allow_http(endpoint_is_http()),
            );
        if std::env::var_os("AWS_REGION").is_none() && std::env::var_os("AWS_DEFAULT_REGION").is_none() {
            builder = builder.with_region("us-east-1");
        }
        let client = builder.build().map_err(|e| bad_url(url, &e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("map-store")
            .enable_all()
            .build()?;
        Ok(S3Store {
            runtime: Some(runtime),
            client: Arc::new(client),
            prefix,
            url: url.to_string(),
            max_bytes,
            quota: Arc::new(Quota::default()),
        })
    }

    fn key(&self, id: &str) -> io::Result<Path> {
        if !store::is_id(id) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a map id"));
        }
        Ok(self.prefix.clone().join(id))
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.as_ref().expect("the runtime lives as long as the store")
    }

    /// Runs `call` on the store's runtime and waits for it, at most [`CALL_DEADLINE`]. Waiting on
    /// a plain channel works from any thread, async workers included.
    fn call<T: Send + 'static>(
        &self,
        call: impl Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> io::Result<object_store::Result<T>> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.runtime().spawn(async move {
            let answer = tokio::time::timeout(CALL_DEADLINE, call).await;
            let _ = tx.send(answer);
        });
        match rx.recv_timeout(CALL_DEADLINE + Duration::from_secs(1)) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) | Err(_) => Err(store::unavailable(format!("no answer within {CALL_DEADLINE:?}"))),
        }
    }

    /// After this instance stored `size` bytes: starts a sweep in the background when one is due.
    fn after_store(&self, size: u64) {
        if self.max_bytes == 0 {
            return;
        }
        let since = self.quota.stored_since.fetch_add(size, Ordering::Relaxed) + size;
        let due = {
            let last = self.quota.last.lock().unwrap_or_else(|p| p.into_inner());
            last.is_none_or(|at| at.elapsed() >= SWEEP_EVERY) || since >= self.max_bytes / 10
        };
        if !due || self.quota.running.swap(true, Ordering::AcqRel) {
            return;
        }
        let (client, prefix, max, quota) =
            (self.client.clone(), self.prefix.clone(), self.max_bytes, self.quota.clone());
        self.runtime().spawn(async move {
            if let Err(e) = sweep(&client, &prefix, max, &quota).await {
                log_warning(&format!("the quota sweep of the map store failed (retried on a later store): {e}"));
            }
            *quota.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
            quota.running.store(false, Ordering::Release);
        });
    }
}

/// Lists the maps under `prefix`; past `max` bytes, deletes the least recently stored first until
/// they fit. Whichever instance stores runs it, so the quota holds for the bucket, not per
/// instance; between sweeps the bucket may run over by what was stored since.
async fn sweep(client: &AmazonS3, prefix: &Path, max: u64, quota: &Quota) -> object_store::Result<()> {
    quota.stored_since.store(0, Ordering::Relaxed);
    let mut maps = Vec::new();
    let mut listing = client.list(Some(prefix));
    while let Some(meta) = listing.next().await {
        let meta = meta?;
        if meta.location.filename().is_some_and(store::is_id) {
            maps.push((meta.last_modified, meta.size, meta.location));
        }
        if maps.len() >= SWEEP_MAX_OBJECTS {
            break;
        }
    }
    let mut total: u64 = maps.iter().map(|m| m.1).sum();
    maps.sort();
    let mut kept = maps.len();
    for (_, size, location) in maps {
        if total <= max {
            break;
        }
        match client.delete(&location).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
        total -= size;
        kept -= 1;
    }
    quota.count.store(kept, Ordering::Relaxed);
    Ok(())
}

fn endpoint_is_http() -> bool {
    ["AWS_ENDPOINT_URL", "AWS_ENDPOINT", "AWS_ENDPOINT_URL_S3"]
        .iter()
        .any(|k| std::env::var(k).is_ok_and(|v| v.starts_with("http://")))
}

fn bad_url(url: &str, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "--store {url}: {why} (expected s3://BUCKET[/PREFIX], with AWS_ENDPOINT_URL for a store other than AWS)"
        ),
    )
}

fn log_warning(message: &str) {
    let line = serde_json::json!({ "level": "warn", "message": message });
    eprintln!("{line}");
}

impl MapStore for S3Store {
    fn put(&self, id: &str, bytes: &[u8]) -> io::Result<Put> {
        let key = self.key(id)?;
        let size = bytes.len() as u64;
        if self.max_bytes > 0 && size > self.max_bytes {
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                format!("a map of {size} bytes is larger than the whole store ({} bytes)", self.max_bytes),
            ));
        }
        let client = self.client.clone();
        let payload = PutPayload::from(bytes.to_vec());
        let options = PutOptions { mode: PutMode::Create, ..PutOptions::default() };
        let shown = key.to_string();
        match self.call(async move { client.put_opts(&key, payload, options).await })? {
            Ok(_) => {
                self.after_store(size);
                Ok(Put::Created)
            }
            // 412: the object exists.
            Err(object_store::Error::Precondition { .. }) => Ok(Put::Existed),
            // 409 (S3's ConditionalRequestConflict): another conditional write to the key was in
            // flight, and may yet fail; only the object being there makes this a stored map.
            Err(object_store::Error::AlreadyExists { .. }) => match self.contains(id)? {
                true => Ok(Put::Existed),
                false => Err(store::unavailable(format!("{shown}: a concurrent store of this map has not landed yet"))),
            },
            Err(e) => Err(store::unavailable(e)),
        }
    }

    fn get(&self, id: &str) -> io::Result<Option<Vec<u8>>> {
        let key = self.key(id)?;
        let client = self.client.clone();
        let bytes = match self.call(async move { client.get(&key).await?.bytes().await })? {
            Ok(bytes) => bytes.to_vec(),
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(store::unavailable(e)),
        };
        if store::decode(id, &bytes).is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: the object's contents do not match its id", self.key(id)?),
            ));
        }
        Ok(Some(bytes))
    }

    fn count(&self) -> usize {
        self.quota.count.load(Ordering::Relaxed)
    }

    fn contains(&self, id: &str) -> io::Result<bool> {
        let key = self.key(id)?;
        let client = self.client.clone();
        match self.call(async move { client.head(&key).await })? {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(store::unavailable(e)),
        }
    }

    /// Lists one page under the prefix: a missing bucket or refused credentials fail here, where
    /// a HEAD of an absent key could not tell them from an empty bucket.
    fn check(&self) -> io::Result<()> {
        let (client, prefix) = (self.client.clone(), self.prefix.clone());
        self.call(async move { client.list(Some(&prefix)).next().await.transpose().map(drop) })?
            .map_err(store::unavailable)
    }

    fn describe(&self) -> String {
        self.url.clone()
    }

    fn remote(&self) -> bool {
        true
    }
}

impl Drop for S3Store {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_before_anything_is_sent() {
        let err = |url: &str| S3Store::open(url, 0).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err("file:///tmp").contains("must start with s3://"));
        assert!(err("s3://").contains("names no bucket"));
        assert!(err("s3:///prefix").contains("names no bucket"));
        let store = S3Store::open("s3://maps-bucket/team/a/", 0).unwrap();
        assert_eq!(store.key(&store::id_of(b"x")).unwrap().as_ref(), format!("team/a/{}", store::id_of(b"x")));
        assert!(store.key("../etc").is_err());
        assert_eq!(store.describe(), "s3://maps-bucket/team/a/");
    }

    #[test]
    fn an_unreachable_store_is_unavailable_not_empty() {
        // Nothing listens on port 9 of loopback: every call must fail as "unavailable", quickly.
        let store = with_endpoint("http://127.0.0.1:9", || S3Store::open("s3://b", 0).unwrap());
        let id = store::id_of(b"x");
        let started = Instant::now();
        for err in [store.contains(&id).unwrap_err(), store.get(&id).unwrap_err(), store.put(&id, b"x").unwrap_err()] {
            assert!(store::is_unavailable(&err), "{err}");
        }
        assert!(store.check().is_err());
        assert!(started.elapsed() < CALL_DEADLINE * 4, "{:?}", started.elapsed());
    }

    #[test]
    fn a_conflicting_conditional_put_is_stored_only_if_the_object_is_there() {
        // S3 answers 409 to a conditional put while another one to the key is in flight; that
        // other write may still fail, so the answer depends on a HEAD of the key.
        for (object_there, stored) in [(true, true), (false, false)] {
            let port = answer_409_to_puts(object_there);
            let store = with_endpoint(&format!("http://127.0.0.1:{port}"), || S3Store::open("s3://b", 0).unwrap());
            let put = store.put(&store::id_of(b"x"), b"x");
            if stored {
                assert!(matches!(put, Ok(Put::Existed)), "{put:?}");
            } else {
                assert!(put.as_ref().is_err_and(store::is_unavailable), "{put:?}");
            }
        }
    }

    /// A loopback HTTP server that answers every PUT with S3's 409 and every HEAD with the object
    /// (or 404), on a port of its own; it serves until the test process ends.
    fn answer_409_to_puts(object_there: bool) -> u16 {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let mut reader = BufReader::new(conn);
                let (mut first, mut length) = (String::new(), 0usize);
                reader.read_line(&mut first).unwrap_or_default();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let answer = if first.starts_with("PUT") {
                    let xml = "<Error><Code>ConditionalRequestConflict</Code><Message>in flight</Message></Error>";
                    format!("HTTP/1.1 409 Conflict\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{xml}", xml.len())
                } else if object_there {
                    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nETag: \"e\"\r\n\
                     Last-Modified: Thu, 03 Dec 2026 12:00:00 GMT\r\nConnection: close\r\n\r\n"
                        .to_string()
                } else {
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
                };
                let _ = reader.get_mut().write_all(answer.as_bytes());
            }
        });
        port
    }

    /// Builds a store with the endpoint set in its builder rather than the process environment
    /// (tests run in parallel; the environment is shared).
    fn with_endpoint(endpoint: &str, open: impl FnOnce() -> S3Store) -> S3Store {
        let mut store = open();
        let client = AmazonS3Builder::new()
            .with_bucket_name("b")
            .with_region("us-east-1")
            .with_endpoint(endpoint)
            .with_access_key_id("k")
            .with_secret_access_key("s")
            .with_conditional_put(S3ConditionalPut::ETagMatch)
            .with_retry(RetryConfig { max_retries: 0, ..RetryConfig::default() })
            .with_client_options(ClientOptions::new().with_allow_http(true).with_timeout(REQUEST_TIMEOUT))
            .build()
            .unwrap();
        store.client = Arc::new(client);
        store
    }
}
