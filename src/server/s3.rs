//! Maps in an S3-compatible bucket (`serve --store s3://BUCKET/PREFIX`), shared by any number of
//! instances.
//!
//! One object per map, `PREFIX/<id>`, holding the same unit a local folder holds (`store::encode`).
//! What makes many instances safe on one bucket:
//! - a put is conditional (`If-None-Match: *`): of two instances storing the same dump at once,
//!   the bucket lets exactly one create the object and tells the other it exists (one 201), on a
//!   store that checks and writes atomically (docs/deploy.md lists which do; on the others both
//!   puts succeed with the same bytes: one object all the same, two 201s);
//! - a single-request PUT is atomic in S3: an instance killed mid-upload leaves no object at all;
//! - every failure to answer is [`store::unavailable`] (503 to writers), never "not found"; a store
//!   that answers and refuses (403 bad credentials, 507 full) is [`store::refused`] (502: a retry
//!   will not help);
//! - the quota sweep counts and deletes only the objects directly under the prefix (`team/<id>`),
//!   never those of another instance under a deeper or a sibling prefix (`team/a/<id>`, `teamX/<id>`);
//! - an object is read only when its size (from the answer's head, before its body) fits the
//!   largest unit this service stores, and its body is read within that bound.
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

use super::store::{self, MapStore, Put, StoreError, UrlProblem};

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
    /// The largest object read back: the largest dump the service takes and its metadata line.
    max_object: u64,
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
    /// Opens `s3://BUCKET/PREFIX` with the client's `AWS_*` settings from the environment; an
    /// `http://` endpoint (a store on loopback) is allowed as given. Nothing is sent yet. Objects
    /// larger than `max_object` bytes are refused unread.
    pub fn open(url: &str, max_bytes: u64, max_object: u64) -> io::Result<S3Store> {
        let (bucket, prefix) = parse_url(url)?;
        let prefix = Path::parse(prefix).map_err(|e| bad_url(url, UrlProblem::PrefixPath(e.to_string())))?;
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
        let client = builder.build().map_err(|e| bad_url(url, UrlProblem::Client(e.to_string())))?;
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
            max_object,
            max_bytes,
            quota: Arc::new(Quota::default()),
        })
    }

    fn key(&self, id: &str) -> io::Result<Path> {
        if !store::is_id(id) {
            return Err(StoreError::NotAnId.into());
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

/// `s3://BUCKET/PREFIX` split, checked before anything is sent: a bucket of the characters bucket
/// names use, and a prefix of one or more plain segments (no empty, `.` or `..` segment). The
/// prefix is required: it is what the quota sweep may delete under, so it must name this
/// service's maps and nothing else of the bucket's.
fn parse_url(url: &str) -> io::Result<(&str, &str)> {
    let rest = url.strip_prefix("s3://").ok_or_else(|| bad_url(url, UrlProblem::NotS3))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(bad_url(url, UrlProblem::NoBucket));
    }
    if bucket.starts_with('.')
        || bucket.contains("..")
        || !bucket.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    {
        return Err(bad_url(url, UrlProblem::BucketName));
    }
    let prefix = prefix.strip_suffix('/').unwrap_or(prefix);
    if prefix.is_empty() {
        return Err(bad_url(url, UrlProblem::NoPrefix));
    }
    if prefix.split('/').any(|segment| segment.is_empty() || segment == "." || segment == "..") {
        return Err(bad_url(url, UrlProblem::PrefixSegment));
    }
    Ok((bucket, prefix))
}

/// Whether `location` is directly under `prefix` (`team/<id>`), not deeper (`team/a/<id>`).
/// (`list` already keeps to `prefix/`, so a sibling `teamX/` never shows up.)
fn directly_under(location: &Path, prefix: &Path) -> bool {
    location.prefix_match(prefix).is_some_and(|mut rest| rest.next().is_some() && rest.next().is_none())
}

/// A failure of the client worded for the service: a store that answered and refused (401/403,
/// 507 full, or another 4xx a retry would meet again) is [`store::refused`]; anything else
/// (timeouts, refused connections, 5xx) may pass, and is [`store::unavailable`].
fn failure(err: object_store::Error) -> io::Error {
    use object_store::Error as E;
    match &err {
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => store::refused(err),
        _ => match status_of(&err) {
            Some(507) => store::refused(err),
            Some(s) if (400..500).contains(&s) && s != 408 && s != 429 => store::refused(err),
            _ => store::unavailable(err),
        },
    }
}

/// The HTTP status the store answered with, from the error's text: the client keeps its error type
/// with the status private, and words it as "status code: NNN".
fn status_of(err: &(dyn std::error::Error + 'static)) -> Option<u16> {
    let mut next = Some(err);
    while let Some(e) = next {
        let text = e.to_string();
        if let Some(at) = text.find("status code: ") {
            return text[at + 13..].get(..3)?.parse().ok();
        }
        next = e.source();
    }
    None
}

/// What a bounded read of an object found.
enum Fetched {
    Bytes(Vec<u8>),
    /// Larger than the bound: its size, as the head gave it or as counted.
    TooLarge(u64),
}

/// Lists the maps under `prefix`; past `max` bytes, deletes the least recently stored first until
/// they fit. Whichever instance stores runs it, so the quota holds for the bucket, not per
/// instance; between sweeps the bucket may run over by what was stored since.
async fn sweep(client: &AmazonS3, prefix: &Path, max: u64, quota: &Quota) -> object_store::Result<()> {
    quota.stored_since.store(0, Ordering::Relaxed);
    let mut maps = Vec::new();
    let mut listing = client.list(Some(prefix));
    let mut listed = 0;
    while let Some(meta) = listing.next().await {
        let meta = meta?;
        // Only this instance's maps: directly under its prefix, named by an id. Another
        // instance's prefix below this one is not ours to count or delete.
        if directly_under(&meta.location, prefix) && meta.location.filename().is_some_and(store::is_id) {
            maps.push((meta.last_modified, meta.size, meta.location));
        }
        listed += 1;
        if listed >= SWEEP_MAX_OBJECTS {
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

fn bad_url(url: &str, why: UrlProblem) -> io::Error {
    StoreError::BadUrl { url: url.to_string(), why }.into()
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
            return Err(StoreError::OverQuota { size, quota: self.max_bytes }.into());
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
            Err(e) => Err(failure(e)),
        }
    }

    fn get(&self, id: &str) -> io::Result<Option<Vec<u8>>> {
        let key = self.key(id)?;
        let client = self.client.clone();
        let max = self.max_object;
        // The size from the answer's head is checked before any of the body is read, and the body
        // is read within the bound all the same (a head may understate).
        let fetched = self.call(async move {
            let answer = client.get(&key).await?;
            if answer.meta.size > max {
                return Ok(Fetched::TooLarge(answer.meta.size));
            }
            let mut bytes = Vec::with_capacity(answer.meta.size as usize);
            let mut body = answer.into_stream();
            while let Some(chunk) = body.next().await {
                let chunk = chunk?;
                if (bytes.len() + chunk.len()) as u64 > max {
                    return Ok(Fetched::TooLarge((bytes.len() + chunk.len()) as u64));
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(Fetched::Bytes(bytes))
        })?;
        let bytes = match fetched {
            Ok(Fetched::Bytes(bytes)) => bytes,
            Ok(Fetched::TooLarge(size)) => {
                return Err(StoreError::ObjectTooLarge { object: self.key(id)?.to_string(), size, max }.into());
            }
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(failure(e)),
        };
        if store::decode(id, &bytes).is_none() {
            return Err(StoreError::Mismatch { object: self.key(id)?.to_string() }.into());
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
            Err(e) => Err(failure(e)),
        }
    }

    /// Lists one page under the prefix: a missing bucket or refused credentials fail here, where
    /// a HEAD of an absent key could not tell them from an empty bucket.
    fn check(&self) -> io::Result<()> {
        let (client, prefix) = (self.client.clone(), self.prefix.clone());
        match self.call(async move { client.list(Some(&prefix)).next().await.transpose().map(drop) })? {
            Ok(()) => Ok(()),
            // A listing answered 404: the bucket is missing, which waiting will not change.
            Err(e @ object_store::Error::NotFound { .. }) => Err(store::refused(e)),
            Err(e) => Err(failure(e)),
        }
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
        let err = |url: &str| S3Store::open(url, 0, 1).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err("file:///tmp").contains("must start with s3://"));
        assert!(err("s3://").contains("names no bucket"));
        assert!(err("s3:///prefix").contains("names no bucket"));
        for no_prefix in ["s3://b", "s3://b/", "s3://b//"] {
            assert!(err(no_prefix).contains("names no prefix"), "{no_prefix}: {}", err(no_prefix));
        }
        for bad_bucket in ["s3://../p", "s3://./p", "s3://a..b/p", "s3://b?x/p", "s3://b c/p"] {
            assert!(err(bad_bucket).contains("bucket name"), "{bad_bucket}: {}", err(bad_bucket));
        }
        for bad_prefix in ["s3://b/..", "s3://b/team/../other", "s3://b/./team", "s3://b/a//b", "s3://b/team//"] {
            assert!(err(bad_prefix).contains("segment"), "{bad_prefix}: {}", err(bad_prefix));
        }
        let store = S3Store::open("s3://maps-bucket/team/a/", 0, 1).unwrap();
        assert_eq!(store.key(&store::id_of(b"x")).unwrap().as_ref(), format!("team/a/{}", store::id_of(b"x")));
        assert!(store.key("../etc").is_err());
        assert_eq!(store.describe(), "s3://maps-bucket/team/a/");
    }

    #[test]
    fn an_unreachable_store_is_unavailable_not_empty() {
        // Nothing listens on port 9 of loopback: every call must fail as "unavailable", quickly.
        let store = with_endpoint("http://127.0.0.1:9", || S3Store::open("s3://b/p", 0, 1 << 20).unwrap());
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
            let store =
                with_endpoint(&format!("http://127.0.0.1:{port}"), || S3Store::open("s3://b/p", 0, 1 << 20).unwrap());
            let put = store.put(&store::id_of(b"x"), b"x");
            if stored {
                assert!(matches!(put, Ok(Put::Existed)), "{put:?}");
            } else {
                assert!(put.as_ref().is_err_and(store::is_unavailable), "{put:?}");
            }
        }
    }

    #[test]
    fn the_sweep_counts_only_what_is_directly_under_the_prefix() {
        let team = Path::from("team");
        let id = store::id_of(b"x");
        assert!(directly_under(&Path::from(format!("team/{id}")), &team));
        assert!(!directly_under(&Path::from(format!("team/a/{id}")), &team));
        assert!(!directly_under(&Path::from(format!("teamX/{id}")), &team));
        assert!(!directly_under(&Path::from("team"), &team));
    }

    #[test]
    fn a_store_that_refuses_is_told_apart_from_one_that_may_answer_later() {
        let id = store::id_of(b"x");
        for (status, refuses) in
            [(403, true), (401, true), (507, true), (400, true), (503, false), (500, false), (429, false)]
        {
            let port =
                answer_all(format!("HTTP/1.1 {status} X\r\nContent-Length: 8\r\nConnection: close\r\n\r\n<Error/>"));
            let store =
                with_endpoint(&format!("http://127.0.0.1:{port}"), || S3Store::open("s3://b/p", 0, 1 << 20).unwrap());
            for err in [store.get(&id).unwrap_err(), store.put(&id, b"x").unwrap_err(), store.check().unwrap_err()] {
                assert_eq!(store::is_refused(&err), refuses, "{status}: {err}");
                assert_eq!(store::is_unavailable(&err), !refuses, "{status}: {err}");
            }
        }
    }

    #[test]
    fn an_object_larger_than_any_map_is_refused_unread() {
        // The head says 300 MiB; the body never comes. The size alone must end the read, at once.
        let port = answer_all(
            "HTTP/1.1 200 OK\r\nContent-Length: 314572800\r\nETag: \"e\"\r\n\
             Last-Modified: Thu, 03 Dec 2026 12:00:00 GMT\r\nConnection: close\r\n\r\n#pto"
                .to_string(),
        );
        let store =
            with_endpoint(&format!("http://127.0.0.1:{port}"), || S3Store::open("s3://b/p", 0, 1 << 20).unwrap());
        let started = Instant::now();
        let err = store.get(&store::id_of(b"x")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
        assert!(err.to_string().contains("314572800 bytes"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    }

    /// A loopback HTTP server that answers every request with `answer`; it serves until the test
    /// process ends.
    fn answer_all(answer: String) -> u16 {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let answer = answer.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(conn);
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                            break;
                        }
                    }
                    let _ = reader.get_mut().write_all(answer.as_bytes());
                    // Held open a while, as a store sending a large body slowly would.
                    std::thread::sleep(Duration::from_secs(3));
                });
            }
        });
        port
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
