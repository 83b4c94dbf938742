//! `POST /diff` (a form with `old` and `new`) and `GET /maps/{old}/diff/{new}.{ext}` (two stored
//! maps): what a change did to on-chip memory, as Markdown, JSON or a side-by-side picture.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};

use super::conditional::{IMMUTABLE, contains, etag_of, no_such_map, none_match};
use super::errors::ApiError;
use super::errors::clip;
use super::params::{self, Params};
use super::{AppState, body, store};
use crate::{DiffFormat, Dump, MemoryMap, backend, build, render_diff};

/// Takes `format` out of the options (a diff also knows `md`), and reads the rest as usual.
fn split_format(mut pairs: Vec<(String, String)>, default: DiffFormat) -> Result<(DiffFormat, Params), ApiError> {
    let mut format = None;
    pairs.retain(|(k, v)| {
        if k == "format" {
            format = Some(v.clone());
            false
        } else {
            true
        }
    });
    let format = match format {
        Some(f) => f.trim().parse::<DiffFormat>()?,
        None => default,
    };
    Ok((format, Params::from_pairs(&pairs)?))
}

fn map_of(name: &str, bytes: Vec<u8>, params: &Params) -> Result<MemoryMap, ApiError> {
    let dump = Dump::from_bytes(name, bytes)?;
    Ok(build(&dump, backend::choose(params.backend.as_deref(), None)?)?)
}

/// Renders on a render thread: both dumps parsed, compared, drawn.
async fn run(
    state: &AppState,
    format: DiffFormat,
    params: Params,
    load: impl FnOnce() -> Result<((String, Vec<u8>), (String, Vec<u8>)), ApiError> + Send + 'static,
) -> Result<Vec<u8>, ApiError> {
    state
        .pool
        .run(move || -> Result<Vec<u8>, ApiError> {
            let ((old_name, old), (new_name, new)) = load()?;
            let (old, new) = (map_of(&old_name, old, &params)?, map_of(&new_name, new, &params)?);
            let opts = params.render_options(crate::Format::Svg);
            Ok(render_diff(&old, &new, format, &opts.view, opts.scale)?)
        })
        .await?
}

fn respond(status: StatusCode, format: DiffFormat) -> actix_web::HttpResponseBuilder {
    let mut res = HttpResponse::build(status);
    res.content_type(format.content_type()).insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff")).insert_header((
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    ));
    res
}

/// `POST /diff`: a multipart form with the dumps in `old` and `new`; Markdown by default.
pub async fn post(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let query = params::query_pairs(req.query_string())?;
    split_format(query.clone(), DiffFormat::Markdown)?;
    let (mut old, new) = body::read_pair(&req, payload, state.max_body, state.read_timeout).await?;
    let mut pairs = query;
    pairs.append(&mut old.fields);
    let (format, params) = split_format(pairs, DiffFormat::Markdown)?;
    let limit = state.max_body;
    let names = (
        old.filename.clone().unwrap_or_else(|| "old.py".into()),
        new.filename.clone().unwrap_or_else(|| "new.py".into()),
    );
    let out = run(&state, format, params, move || {
        let (o, n) = body::dump_pair(old, new, limit)?;
        Ok(((names.0, o), (names.1, n)))
    })
    .await?;
    Ok(respond(StatusCode::OK, format).insert_header((header::CACHE_CONTROL, "no-store")).body(out))
}

/// `GET /maps/{old}/diff/{new}.{svg,png,html,md,json}`: two stored maps compared, cached for good.
pub async fn stored(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let old = req.match_info().get("old").unwrap_or("").to_string();
    let file = req.match_info().get("file").unwrap_or("");
    let (new, ext) = file.split_once('.').ok_or_else(|| no_such_map(file))?;
    let new = new.to_string();
    for id in [&old, &new] {
        if !store::is_id(id) {
            return Err(no_such_map(id));
        }
    }
    let format: DiffFormat = ext
        .parse()
        .map_err(|_| ApiError::not_found(format!("no format '.{}'; use .md, .json, .svg, .png or .html", clip(ext))))?;
    let pairs = params::query_pairs(req.query_string())?;
    if pairs.iter().any(|(k, _)| k == "format") {
        return Err(ApiError::bad_request(
            "bad_option",
            "a stored diff's format comes from its extension: /maps/OLD/diff/NEW.md",
        ));
    }
    let (_, params) = split_format(pairs, format)?;
    let canonical = format!("diff {old} {} {}", format.extension(), params.canonical(crate::Format::Svg, ""));
    let etag = etag_of(&new, &canonical);
    let cached = |status: StatusCode| {
        let mut res = respond(status, format);
        res.insert_header((header::ETAG, HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\""))))
            .insert_header((header::CACHE_CONTROL, IMMUTABLE))
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"));
        res
    };
    if none_match(&req, &etag) && contains(&state.store, &old)? && contains(&state.store, &new)? {
        return Ok(cached(StatusCode::NOT_MODIFIED).finish());
    }
    if let Some(bytes) = state.cache.get(&etag) {
        return Ok(cached(StatusCode::OK).body(bytes));
    }
    let store = state.store.clone();
    let out = run(&state, format, params, move || {
        let get = |id: &str| store.get(id).map_err(ApiError::internal)?.ok_or_else(|| no_such_map(id));
        Ok(((format!("{}.py", &old[..12]), get(&old)?), (format!("{}.py", &new[..12]), get(&new)?)))
    })
    .await?;
    let bytes = Bytes::from(out);
    state.cache.put(etag.clone(), bytes.clone());
    Ok(cached(StatusCode::OK).body(bytes))
}
