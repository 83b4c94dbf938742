//! The HTTP rendering service: post a dump, get a map back; store it for permanent, cacheable links.
//!
//! Wiring only; each concern has its own file:
//! - `routes`: the endpoints; `params`: view options; `body`: reading uploads (raw, gzip,
//!   multipart) within the size limit;
//! - `pool`: the render threads and their bounded queue (CPU work never runs on async workers);
//! - `store`: where stored dumps live, behind [`MapStore`] (a local folder, or `s3`: a bucket
//!   shared by many instances); `storage`: the store as handlers hold it (timed, and remembering
//!   what a shared store was seen to hold); `cache`: recent renders in memory;
//! - `errors`: the one JSON error shape; `wire`: the same shape for what the HTTP layer answers on
//!   its own, and the write timeout; `answer`: one budget for the bytes all answers hold;
//!   `observe`: request logs and counters; `metrics`: the Prometheus page; `page`: the upload
//!   form at `/`.

mod answer;
mod body;
mod cache;
mod conditional;
mod diff;
mod errors;
mod metrics;
mod observe;
mod origin;
mod page;
mod params;
mod pool;
mod routes;
#[cfg(feature = "s3")]
mod s3;
mod storage;
mod store;
mod wire;

/// A request's options, read from its query string and form fields by the option table.
pub use origin::PublicUrl;
pub use params::Params;
pub use store::{FsStore, MapStore};

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_service::IntoServiceFactory;
use actix_service::ServiceFactoryExt;
use actix_web::http::StatusCode;
use actix_web::{App, ResponseError, middleware, web};

use cache::RenderCache;
use metrics::Metrics;
use pool::RenderPool;
use store::{StoreError, UrlProblem};

/// How the service is started (`pto-memory-map serve ...`).
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    pub bind: String,
    /// Where stored maps live: a local folder (`--data-dir`), unless `store` names another place.
    pub data_dir: PathBuf,
    /// `file://PATH` (the long form of `data_dir`) or `s3://BUCKET/PREFIX` (`--store`).
    pub store: Option<String>,
    /// Largest request body, on the wire and after gunzip.
    pub max_body_bytes: usize,
    /// Threads that render.
    pub render_threads: usize,
    /// Jobs that may wait for a render thread before requests get 503.
    pub queue_depth: usize,
    /// How long a request waits for its render (queue included) before it gets 504.
    pub render_timeout: Duration,
    /// Memory for recent renders of stored maps.
    pub cache_bytes: usize,
    /// How long a client may take to send its headers, and then its body (408 past it).
    pub read_timeout: Duration,
    /// Bytes of stored maps; past it a local folder evicts the least recently used maps, and a
    /// shared bucket the least recently stored (0 for a bucket: no quota, lifecycle rules instead).
    pub max_store_bytes: u64,
    /// Bytes the answers to all clients may hold at once (503 past it).
    pub max_answer_bytes: usize,
    /// Work limits of every render.
    pub limits: crate::budget::Limits,
    /// When set, `POST /maps` needs `Authorization: Bearer <token>` (from `PMM_WRITE_TOKEN`).
    pub write_token: Option<String>,
    /// Where the links in answers start (`--public-url`); `None`: from each request.
    pub public_url: Option<PublicUrl>,
    /// Proxies whose `X-Forwarded-Host` and `-Proto` are believed (`--trusted-proxy`).
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

/// What every handler shares.
pub(crate) struct AppState {
    pub max_body: usize,
    /// How long reading a request body may take.
    pub read_timeout: Duration,
    pub write_token: Option<String>,
    pub pool: RenderPool,
    pub store: Arc<storage::Storage>,
    pub cache: RenderCache,
    pub metrics: Arc<Metrics>,
    /// The bytes all request bodies hold at once.
    pub bodies: Arc<body::InFlight>,
    /// The bytes all answers hold at once.
    pub answers: answer::AnswerBudget,
    /// Held while a map is stored: one upload at a time checks and writes.
    pub storing: tokio::sync::Mutex<()>,
    /// Where links start (see `origin`).
    pub public_url: Option<PublicUrl>,
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl AppState {
    /// How request bodies are read.
    pub fn reading(&self) -> body::Reading {
        body::Reading { limit: self.max_body, timeout: self.read_timeout, bodies: self.bodies.clone() }
    }

    /// Where the links of the answer to `req` start.
    pub fn origin(&self, req: &actix_web::HttpRequest) -> String {
        origin::of(req, self.public_url.as_ref(), &self.trusted_proxies)
    }
}

/// Runs the service until it is stopped (SIGINT/SIGTERM stop it gracefully).
///
/// Prints `listening on http://ADDR` on standard output once bound, so a caller that asked for port
/// 0 learns the port.
pub fn serve(config: ServeConfig) -> io::Result<()> {
    let store = storage::Storage::new(open_store(&config)?);
    if let Err(e) = store.check() {
        // Started all the same: reads of what this instance renders still work, writes get 503
        // until the store answers, and `/healthz` says so.
        let line = serde_json::json!({ "level": "warn", "message": format!("the map store {} does not answer: {e}", store.describe()) });
        let _ = writeln!(io::stderr(), "{line}");
    }
    let store_name = store.describe();
    let state = web::Data::new(AppState {
        max_body: config.max_body_bytes,
        read_timeout: config.read_timeout,
        write_token: config.write_token.clone(),
        pool: RenderPool::start(config.render_threads, config.queue_depth, config.render_timeout, config.limits)?,
        store: Arc::new(store),
        cache: RenderCache::new(config.cache_bytes),
        metrics: Arc::new(Metrics::default()),
        bodies: body::InFlight::new(body::InFlight::cap_for(config.max_body_bytes)),
        answers: answer::AnswerBudget::new(config.max_answer_bytes),
        storing: tokio::sync::Mutex::new(()),
        public_url: config.public_url.clone(),
        trusted_proxies: config.trusted_proxies.clone(),
    });
    let max_body = config.max_body_bytes;
    let app = move || {
        App::new()
            .app_data(state.clone())
            .app_data(
                web::QueryConfig::default().error_handler(|e, _| errors::extractor_error(e, StatusCode::BAD_REQUEST)),
            )
            .app_data(
                web::PathConfig::default().error_handler(|e, _| errors::extractor_error(e, StatusCode::NOT_FOUND)),
            )
            .app_data(web::JsonConfig::default().limit(max_body).error_handler(|e, _| {
                let status = e.status_code();
                errors::extractor_error(e, status)
            }))
            .app_data(web::PayloadConfig::default().limit(max_body))
            .configure(routes::configure)
            .default_service(web::to(routes::not_found))
            .wrap(middleware::from_fn(observe::observe))
            .wrap(middleware::from_fn(errors::secure))
    };
    let listener = std::net::TcpListener::bind(&config.bind)?;
    let addr = listener.local_addr()?;
    let read_timeout = config.read_timeout;
    actix_web::rt::System::new().block_on(async move {
        // actix-web's HttpServer, spelled out, so that each connection can be wrapped in `JsonErrors`.
        let server = actix_server::Server::build()
            .shutdown_timeout(5)
            .listen("pto-memory-map", listener, move || {
                let factory = app().into_factory().map_err(|err: actix_web::Error| err.error_response());
                let http = actix_http::HttpService::build()
                    .client_request_timeout(read_timeout)
                    .local_addr(addr)
                    .h1(actix_service::map_config(factory, |_| actix_web::dev::AppConfig::default()));
                actix_service::fn_service(|io: actix_web::rt::net::TcpStream| {
                    let peer = io.peer_addr().ok();
                    std::future::ready(Ok::<_, actix_http::error::DispatchError>((wire::JsonErrors::new(io), peer)))
                })
                .and_then(http)
            })?
            .run();
        let mut out = io::stdout().lock();
        writeln!(out, "listening on http://{addr}")?;
        out.flush()?;
        drop(out);
        let line = serde_json::json!({
            "level": "info",
            "message": "serving",
            "store": store_name,
            "max_body_bytes": config.max_body_bytes,
            "render_threads": config.render_threads,
            "queue_depth": config.queue_depth,
            "render_timeout_ms": config.render_timeout.as_millis() as u64,
            "cache_bytes": config.cache_bytes,
            "read_timeout_ms": config.read_timeout.as_millis() as u64,
            "max_store_bytes": config.max_store_bytes,
            "max_answer_bytes": config.max_answer_bytes,
            "write_token": config.write_token.is_some(),
        });
        let _ = writeln!(io::stderr(), "{line}");
        server.await
    })
}

/// The store `config` names: `--store file://PATH` or `s3://...`, else the folder `--data-dir`.
fn open_store(config: &ServeConfig) -> io::Result<Box<dyn MapStore>> {
    let url = config.store.as_deref().unwrap_or("");
    let dir = match url.strip_prefix("file://") {
        Some("") => {
            return Err(StoreError::BadUrl { url: url.to_string(), why: UrlProblem::NoFolder }.into());
        }
        Some(path) => PathBuf::from(path),
        None if url.is_empty() => config.data_dir.clone(),
        // The largest object read back: the largest dump taken, with its metadata line.
        None => return open_shared(url, config.max_store_bytes, config.max_body_bytes as u64 + 8192),
    };
    let store = FsStore::open(&dir, config.max_store_bytes)
        .map_err(|source| StoreError::DataDir { dir: dir.clone(), source })?;
    Ok(Box::new(store))
}

#[cfg(feature = "s3")]
fn open_shared(url: &str, max_bytes: u64, max_object: u64) -> io::Result<Box<dyn MapStore>> {
    if url.starts_with("s3://") {
        return Ok(Box::new(s3::S3Store::open(url, max_bytes, max_object)?));
    }
    Err(StoreError::BadUrl { url: url.to_string(), why: UrlProblem::Scheme }.into())
}

#[cfg(not(feature = "s3"))]
fn open_shared(url: &str, _max_bytes: u64, _max_object: u64) -> io::Result<Box<dyn MapStore>> {
    Err(StoreError::BadUrl { url: url.to_string(), why: UrlProblem::NoS3 }.into())
}

/// Reads `body` as the service reads a request to `/render` (`pair`: to `/diff`) with these headers,
/// inflating what is gzip, within `limit` bytes: the body readers without a socket, for the fuzz
/// target in `fuzz/`. Returns the dump bytes (both, for a pair) or the error's code.
#[doc(hidden)]
pub fn read_body_for_fuzzing(
    headers: &[(&str, &str)],
    body: &[u8],
    limit: usize,
    pair: bool,
) -> Result<Vec<Vec<u8>>, &'static str> {
    use actix_web::FromRequest;
    let mut request = actix_web::test::TestRequest::post();
    for &(name, value) in headers {
        request = request.insert_header((name, value));
    }
    let (req, mut payload) = request.set_payload(body.to_vec()).to_http_parts();
    actix_web::rt::System::new().block_on(async move {
        let payload = web::Payload::from_request(&req, &mut payload).await.map_err(|_| "payload")?;
        let how = body::Reading { limit, timeout: Duration::from_secs(10), bodies: body::InFlight::new(usize::MAX) };
        if pair {
            let (old, new) = body::read_pair(&req, payload, &how).await.map_err(|e| e.code())?;
            let (old, new) = body::dump_pair(old, new, limit).map_err(|e| e.code())?;
            Ok(vec![old, new])
        } else {
            let upload = body::read(&req, payload, &how).await.map_err(|e| e.code())?;
            Ok(vec![body::dump_bytes(upload.bytes, upload.gzip, limit).map_err(|e| e.code())?])
        }
    })
}
