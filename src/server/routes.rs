//! The endpoints. Each handler reads and checks the request, hands the CPU work to the render pool,
//! and shapes the answer; the work itself is the library's `render_bytes`.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web;
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};

use super::answer::{Answer, SPOOL_AT, Spool};
use super::conditional::{IMMUTABLE, contains, etag_of, first_missing, no_such_map, none_match};
use super::errors::{ApiError, Stored};
use super::metrics::{Gauges, Metrics};
use super::params::{self, Params};
use super::store::{self, MapStore, Put};
use super::{AppState, body, page};
use crate::{Format, RenderOptions};

/// Name of a posted dump that came without one (no `name`, no upload file name).
pub(super) const DEFAULT_NAME: &str = "dump.py";
/// Every route of the service, each with its own method (another method is a 405 that says which).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(get_resource("/", index))
        .service(post_resource("/render", render))
        .service(post_resource("/maps", store_map))
        .service(get_resource("/maps/{file}", stored))
        .service(post_resource("/diff", super::diff::post))
        .service(get_resource("/maps/{old}/diff/{file}", super::diff::stored))
        .service(get_resource("/healthz", healthz))
        .service(get_resource("/metrics", metrics));
}

/// A route answering GET and HEAD, and 405 (with `Allow`) to anything else.
fn get_resource<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::get().to(handler.clone()))
        .route(web::head().to(handler))
        .default_service(web::to(|| async { Err::<HttpResponse, _>(ApiError::method_not_allowed("GET, HEAD")) }))
}

/// A route answering POST, and 405 (with `Allow`) to anything else.
fn post_resource<F, Args>(path: &str, handler: F) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: actix_web::FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::post().to(handler))
        .default_service(web::to(|| async { Err::<HttpResponse, _>(ApiError::method_not_allowed("POST")) }))
}

/// The app's default service: any path no route matches.
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NoRoute { method: req.method().to_string(), path: req.path().to_string() })
}

async fn index(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(page::index(state.max_body))
}

/// How long `/healthz` waits for the store before it says the store is not answering.
const HEALTH_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// `GET /healthz`: 200 while the service runs, within [`HEALTH_WAIT`] and a little more whatever
/// the store does. `status` is `degraded` (still 200) when the map store does not answer or
/// refuses: the instance still renders and serves what it holds, so a load balancer should keep
/// it, while writes fail until the store is back. The store's state is said in words; its address,
/// bucket and raw errors go to the log only (this page is often public).
async fn healthz(state: web::Data<AppState>) -> HttpResponse {
    use super::storage::Health;
    let store = state.store.clone();
    let health = match actix_web::rt::time::timeout(HEALTH_WAIT, web::block(move || store.health())).await {
        Ok(Ok(health)) => health,
        _ => Health::NotAnswering,
    };
    let (state_word, message) = match health {
        Health::Ok => ("ok", "the map store answers"),
        Health::NotAnswering => (
            "not_answering",
            "the map store does not answer; stored maps this instance holds are served, others and writes fail until it is back",
        ),
        Health::Refusing => (
            "refusing",
            "the map store refuses this service's requests (credentials, bucket or space); the operator must fix it",
        ),
    };
    let body = serde_json::json!({
        "status": if health == Health::Ok { "ok" } else { "degraded" },
        "version": env!("CARGO_PKG_VERSION"),
        "store": { "reachable": health == Health::Ok, "state": state_word, "message": message },
    });
    HttpResponse::Ok()
        .content_type("application/json")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body.to_string())
}

async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    use std::sync::atomic::Ordering::Relaxed;
    let (cache_entries, cache_bytes) = state.cache.usage();
    let gauges = Gauges {
        in_flight: state.pool.stats.running.load(Relaxed),
        queued: state.pool.stats.queued.load(Relaxed),
        queue_capacity: state.pool.capacity,
        stored: state.store.count(),
        cache_entries,
        cache_bytes,
        cache_hits: state.cache.hits.load(Relaxed),
        cache_misses: state.cache.misses.load(Relaxed),
    };
    let mut page = state.metrics.render_text(&gauges);
    state.store.stats.write(&mut page);
    page.push_str(&format!(
        "# HELP pto_store_circuit_open Whether calls to the map store fail at once after repeated failures.\n\
         # TYPE pto_store_circuit_open gauge\npto_store_circuit_open {}\n",
        u8::from(state.store.tripped())
    ));
    page.push_str(&format!(
        "# HELP pto_answer_bytes_held Bytes the answers on their way to clients hold.\n\
         # TYPE pto_answer_bytes_held gauge\npto_answer_bytes_held {}\n",
        state.answers.held()
    ));
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(page)
}

/// Renders on the calling render thread and records how long it took.
pub(super) fn timed_render_to(
    metrics: &Metrics,
    name: &str,
    dump: Vec<u8>,
    opts: &RenderOptions,
    out: &mut dyn std::io::Write,
) -> Result<(), ApiError> {
    super::answer::within_output_for(dump.len(), || {
        metrics.timed(opts.format.extension(), || crate::pipeline::render_bytes_to(name, dump, opts, out))
    })
}

/// [`timed_render_to`] into an answer: kept in memory up to `keep` bytes, spooled past them.
fn timed_render(
    metrics: &Metrics,
    name: &str,
    dump: Vec<u8>,
    opts: &RenderOptions,
    keep: usize,
) -> Result<Answer, ApiError> {
    let mut spool = Spool::new(keep);
    timed_render_to(metrics, name, dump, opts, &mut spool)?;
    spool.finish().map_err(ApiError::internal)
}

/// Reads a dump request: query options checked first (no body is read for a bad option), then
/// the body, then the options again with the form's fields added.
async fn read_request(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<(Params, body::Upload), ApiError> {
    let mut pairs = params::query_pairs(req.query_string())?;
    Params::from_pairs(&pairs)?;
    let mut upload = body::read(req, payload, &state.reading()).await?;
    pairs.append(&mut upload.fields);
    Ok((Params::from_pairs(&pairs)?, upload))
}

/// Headers every picture carries. The policy forbids anything a map does not need, so a hostile
/// name in a dump could not make the page fetch or run anything even if it slipped through escaping.
pub(super) fn picture(status: StatusCode, format: Format) -> HttpResponseBuilder {
    let policy = match format {
        Format::Html => {
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:"
        }
        _ => "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:",
    };
    let mut res = HttpResponse::build(status);
    res.content_type(format.content_type())
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_SECURITY_POLICY, policy));
    res
}

/// `POST /render`: the dump in, the map out. Nothing is stored, and the answer is not cacheable.
/// A browser (the upload form) that gets an error gets it as a page to read, not as JSON.
async fn render(req: HttpRequest, payload: web::Payload, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let browser = page::from_browser(&req);
    render_map(req, payload, state).await.or_else(|e| if browser { Ok(page::error_response(&e)) } else { Err(e) })
}

async fn render_map(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (params, upload) = read_request(&req, payload, &state).await?;
    let format = params.format.unwrap_or(Format::HTTP_DEFAULT);
    let name = params.name.clone().or(upload.filename).unwrap_or_else(|| DEFAULT_NAME.to_string());
    let opts = params.render_options(format);
    let limit = state.max_body;
    let metrics = state.metrics.clone();
    let (bytes, gzip) = (upload.bytes, upload.gzip);
    let file = download_name(&name, format);
    state.answers.check()?;
    // Inflated first, so that a large dump is known as one however small it came.
    let dump = state.pool.run(move || body::dump_bytes(bytes, gzip, limit)).await??;
    state.answers.check_for(dump.len())?;
    let out = state.pool.run_sized(dump.len(), move || timed_render(&metrics, &name, dump, &opts, SPOOL_AT)).await??;
    Ok(picture(StatusCode::OK, format)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_DISPOSITION, format!("inline; filename=\"{file}\"")))
        .body(state.answers.body(out)?))
}

/// `35_after_AllocateMemoryAddr.memory_map.svg`, kept to characters that need no quoting.
pub(super) fn download_name(name: &str, format: Format) -> String {
    let stem = name.strip_suffix(".py").unwrap_or(name);
    let safe: String =
        stem.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')).take(120).collect();
    let safe = if safe.is_empty() { "dump".to_string() } else { safe };
    format!("{safe}.memory_map.{}", format.extension())
}

/// The JSON a stored map is described by: its id and one absolute link per format (`origin` is
/// where they start, see `origin`).
fn links(origin: &str, id: &str, query: &str) -> serde_json::Value {
    let links: serde_json::Map<String, serde_json::Value> = crate::render::FORMATS
        .iter()
        .map(|f| (f.extension.to_string(), format!("{origin}/maps/{id}.{}{query}", f.extension).into()))
        .collect();
    serde_json::json!({ "id": id, "links": links })
}

/// `POST /maps`: stores the dump under its SHA-256. 201 the first time, 200 when it was already
/// stored (same id, same links). A dump that cannot be drawn is refused (400/422) and not stored, and
/// so is one whose render timed out: the map is written only after its render succeeded, outside
/// the render job, so a 504 can never be followed by a store.
async fn store_map(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    may_store(&req, &state)?;
    let (params, upload) = read_request(&req, payload, &state).await?;
    let name = params.name.clone().or(upload.filename);
    let link_params = Params { name: name.clone(), backend: params.backend.clone(), ..Params::default() };
    let opts = RenderOptions { format: Format::Json, backend: params.backend.clone(), ..Default::default() };
    let (limit, metrics) = (state.max_body, state.metrics.clone());
    let (bytes, gzip) = (upload.bytes, upload.gzip);
    // The map's name and backend go with it, in the one stored unit, and into its id (see
    // `store::map_id`).
    let meta = store::MapMeta { name, backend: opts.backend.clone() };
    let (id, dump) = state
        .pool
        .run(move || -> Result<(String, Vec<u8>), ApiError> {
            let dump = body::dump_bytes(bytes, gzip, limit)?;
            Ok((store::map_id(&meta, &dump), dump))
        })
        .await??;
    // Asked off the render threads: a slow store holds a blocking thread, never a render thread.
    let unit = if contains(&state.store, &id).await? {
        None
    } else {
        let meta = store::MapMeta { name: link_params.name.clone(), backend: link_params.backend.clone() };
        let unit = state
            .pool
            .run_sized(dump.len(), move || -> Result<Vec<u8>, ApiError> {
                let name = meta.name.as_deref().unwrap_or(DEFAULT_NAME);
                timed_render_to(&metrics, name, dump.clone(), &opts, &mut std::io::sink())?;
                Ok(store::encode(&meta, &dump))
            })
            .await??;
        Some(unit)
    };
    let mut created = false;
    if let Some(dump) = unit {
        // Identical uploads at once all find the map missing and render it; they store one at a
        // time, and the store lets exactly one create it (201; the others 200), across instances
        // too where the store's put is conditional.
        let _turn = state.storing.lock().await;
        let (store, owned_id) = (state.store.clone(), id.clone());
        let put = web::block(move || store.put(&owned_id, &dump))
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::from_store)?;
        if put == Put::Created {
            // Stored anew (perhaps after an eviction, with another name): no older render stands.
            state.cache.forget(&id);
            created = true;
        }
    }
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok(HttpResponse::build(status)
        .content_type("application/json")
        .insert_header((header::LOCATION, format!("{}/maps/{id}", state.origin(&req))))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(links(&state.origin(&req), &id, &link_params.link_query()).to_string()))
}

/// Who may store: with a write token configured, only a request carrying it (401 otherwise); and
/// never a page of another site (a form posted cross-site by a browser says so in `Origin` or
/// `Sec-Fetch-Site`), whatever the token (403). Rendering stays open to all.
fn may_store(req: &HttpRequest, state: &AppState) -> Result<(), ApiError> {
    let headers = req.headers();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
    let cross_site = text(header::HeaderName::from_static("sec-fetch-site")) == "cross-site"
        || headers.get(header::ORIGIN).is_some_and(|origin| {
            let origin = origin.to_str().unwrap_or("");
            let host = origin.split_once("://").map_or(origin, |(_, rest)| rest);
            host != text(header::HOST)
        });
    if cross_site {
        return Err(ApiError::CrossSite);
    }
    let Some(token) = &state.write_token else { return Ok(()) };
    // Compared exactly: a token with spaces around it is another token.
    let given = text(header::AUTHORIZATION).strip_prefix("Bearer ").unwrap_or("");
    if !same_secret(given.as_bytes(), token.as_bytes()) {
        return Err(ApiError::Unauthorized);
    }
    Ok(())
}

/// Compares in time that does not depend on where the strings differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The name and backend the map `id` was stored with: remembered by the cache, or read from the
/// store and remembered. 404 when the map is not stored.
async fn stored_meta(state: &AppState, id: &str) -> Result<(Option<String>, Option<String>), ApiError> {
    if let Some(meta) = state.cache.meta(id) {
        return Ok(meta);
    }
    let unit = super::conditional::stored_unit(state, id).await?;
    let (meta, _) = store::decode(id, &unit).ok_or_else(|| no_such_map(id))?;
    let meta = (meta.name, meta.backend);
    state.cache.remember_meta(id, meta.clone());
    Ok(meta)
}

/// `GET /maps/{id}` (links) and `GET /maps/{id}.{svg,png,html,json}` (the picture).
async fn stored(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let file = req.match_info().get("file").unwrap_or("");
    let (id, ext) = match file.split_once('.') {
        Some((id, ext)) => (id, Some(ext)),
        None => (file, None),
    };
    if !store::is_id(id) {
        return Err(no_such_map(file));
    }
    let format = match ext {
        None => None,
        Some(ext) => Some(
            Format::ALL
                .into_iter()
                .find(|f| f.extension() == ext)
                .ok_or_else(|| ApiError::NoFormat { ext: ext.to_string(), of: Stored::Map })?,
        ),
    };
    let params = Params::from_pairs(&params::query_pairs(req.query_string())?)?;
    if params.format.is_some() {
        return Err(ApiError::FormatInQuery(Stored::Map));
    }
    let Some(format) = format else {
        if !contains(&state.store, id).await? {
            return Err(no_such_map(id));
        }
        return Ok(HttpResponse::Ok()
            .content_type("application/json")
            .insert_header((header::CACHE_CONTROL, IMMUTABLE))
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
            .body(links(&state.origin(&req), id, &params.link_query()).to_string()));
    };
    // The tag names exactly the bytes served: the map, the options, and the name and backend it is
    // drawn with, the query's or else those it was stored with (read once, remembered with its
    // renders). A map evicted and stored again under another name gets another tag.
    let mut params = params;
    if params.name.is_none() || params.backend.is_none() {
        let (name, backend) = stored_meta(&state, id).await?;
        params.name = params.name.or(name).or_else(|| Some(format!("{}.py", &id[..12])));
        params.backend = params.backend.or(backend);
    }
    let etag = etag_of(id, &params.canonical(format, params.name.as_deref().unwrap_or("")));
    let cached = |status: StatusCode| {
        let mut res = picture(status, format);
        res.insert_header((header::ETAG, HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\""))))
            .insert_header((header::CACHE_CONTROL, IMMUTABLE))
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"));
        res
    };
    // A picture is served (or confirmed, 304) only while the store holds its map, so a map removed
    // from a shared store stops being served everywhere (see `storage`).
    let held = state.cache.get(&etag);
    if first_missing(&state.store, &[id], held.is_some()).await?.is_some() {
        // A map gone from the store takes its renders out of memory with it.
        state.cache.forget(id);
        return Err(no_such_map(id));
    }
    if none_match(&req, &etag) {
        return Ok(cached(StatusCode::NOT_MODIFIED).finish());
    }
    if let Some(bytes) = held {
        return Ok(cached(StatusCode::OK).body(state.answers.body(bytes)?));
    }
    state.answers.check()?;
    let opts = params.render_options(format);
    let unit = super::conditional::stored_unit(&state, id).await?;
    state.answers.check_for(unit.len())?;
    let (metrics, owned_id) = (state.metrics.clone(), id.to_string());
    let name = params.name.clone();
    // What the cache would keep stays in memory, to be kept; the rest is spooled.
    let keep = state.cache.largest().max(SPOOL_AT);
    let out = state
        .pool
        .run_sized(unit.len(), move || -> Result<Answer, ApiError> {
            let (_, dump) = store::decode(&owned_id, &unit).ok_or_else(|| no_such_map(&owned_id))?;
            let name = name.unwrap_or_else(|| format!("{}.py", &owned_id[..12]));
            timed_render(&metrics, &name, dump.to_vec(), &opts, keep)
        })
        .await??;
    if let Some(bytes) = out.in_memory() {
        state.cache.put(etag.clone(), &[id], bytes.clone());
    }
    Ok(cached(StatusCode::OK).body(state.answers.body(out)?))
}
