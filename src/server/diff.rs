//! `POST /diff` (a form with `old` and `new`) and `GET /maps/{old}/diff/{new}.{ext}` (two stored
//! maps): what a change did to on-chip memory, as Markdown, JSON or a side-by-side picture.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};

use super::conditional::{IMMUTABLE, etag_of, first_missing, no_such_map, none_match};
use super::errors::{ApiError, Stored};
use super::params::{self, Params};
use super::store;
use super::{AppState, body};
use crate::{DiffFormat, Dump, MemoryMap, backend, build, render_diff};

/// What a diff is asked for beyond a map's options: its format (a diff also knows `md`) and a
/// backend per side (`old_backend`, `new_backend`: one kernel on two chips).
struct DiffOptions {
    format: DiffFormat,
    old_backend: Option<String>,
    new_backend: Option<String>,
    params: Params,
}

/// Takes `format`, `old_backend` and `new_backend` out of the options, and reads the rest as usual.
fn split_options(mut pairs: Vec<(String, String)>, default: DiffFormat) -> Result<DiffOptions, ApiError> {
    let (mut format, mut old_backend, mut new_backend) = (None, None, None);
    let mut twice = None;
    pairs.retain(|(k, v)| {
        let slot = match k.as_str() {
            "format" => &mut format,
            "old_backend" => &mut old_backend,
            "new_backend" => &mut new_backend,
            _ => return true,
        };
        if slot.replace(v.trim().to_string()).is_some() {
            twice = Some(k.clone());
        }
        false
    });
    if let Some(k) = twice {
        return Err(ApiError::OptionTwice(k));
    }
    let format = match format {
        Some(f) => f.parse::<DiffFormat>()?,
        None => default,
    };
    let params = Params::from_pairs(&pairs)?;
    for b in [&old_backend, &new_backend].into_iter().flatten() {
        backend::choose(Some(b), None)?;
    }
    Ok(DiffOptions { format, old_backend, new_backend, params })
}

/// One side: its name, its dump, and the backend it is drawn for (`None`: the default).
struct SideInput {
    name: String,
    dump: Vec<u8>,
    backend: Option<String>,
}

fn map_of(side: SideInput) -> crate::Result<MemoryMap> {
    let dump = Dump::from_bytes(&side.name, side.dump)?;
    build(&dump, backend::choose(side.backend.as_deref(), None)?)
}

/// Renders on a render thread: both dumps parsed, compared, drawn.
async fn run(
    state: &AppState,
    input: usize,
    options: DiffOptions,
    load: impl FnOnce(&DiffOptions) -> Result<(SideInput, SideInput), ApiError> + Send + 'static,
) -> Result<Vec<u8>, ApiError> {
    let metrics = state.metrics.clone();
    state.answers.check_for(input)?;
    state
        .pool
        .run_sized(input, move || -> Result<Vec<u8>, ApiError> {
            let (old, new) = load(&options)?;
            let input = old.dump.len() + new.dump.len();
            super::answer::within_output_for(input, || {
                metrics.timed(options.format.extension(), || {
                    let (old, new) = (map_of(old)?, map_of(new)?);
                    let opts = options.params.render_options(crate::Format::Svg);
                    render_diff(&old, &new, options.format, &opts.view, opts.scale)
                })
            })
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
    split_options(query.clone(), DiffFormat::Markdown)?;
    let (mut old, new) = body::read_pair(&req, payload, &state.reading()).await?;
    let mut pairs = query;
    pairs.append(&mut old.fields);
    let options = split_options(pairs, DiffFormat::Markdown)?;
    let format = options.format;
    let limit = state.max_body;
    let names = (
        old.filename.clone().unwrap_or_else(|| "old.py".into()),
        new.filename.clone().unwrap_or_else(|| "new.py".into()),
    );
    // Inflated first, as `/render` does, so that gzipped dumps count as large as they are against
    // the large-render limits; not at all when the answers already hold their whole budget.
    state.answers.check()?;
    let (old_dump, new_dump) = state.pool.run(move || body::dump_pair(old, new, limit)).await??;
    let input = old_dump.len() + new_dump.len();
    let out = run(&state, input, options, move |o| {
        let backend = |side: &Option<String>| side.clone().or_else(|| o.params.backend.clone());
        let old = SideInput { name: names.0, dump: old_dump, backend: backend(&o.old_backend) };
        let new = SideInput { name: names.1, dump: new_dump, backend: backend(&o.new_backend) };
        Ok((old, new))
    })
    .await?;
    let body = state.answers.body(Bytes::from(out))?;
    Ok(respond(StatusCode::OK, format).insert_header((header::CACHE_CONTROL, "no-store")).body(body))
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
    let format: DiffFormat = ext.parse().map_err(|_| ApiError::NoFormat { ext: ext.to_string(), of: Stored::Diff })?;
    let pairs = params::query_pairs(req.query_string())?;
    if pairs.iter().any(|(k, _)| k == "format") {
        return Err(ApiError::FormatInQuery(Stored::Diff));
    }
    let options = split_options(pairs, format)?;
    // The names and backends the maps were stored with never change for an id, so the tag need not
    // read them; what the request overrides is in it.
    let canonical = format!(
        "diff {old} {} {:?} {:?} {}",
        format.extension(),
        options.old_backend,
        options.new_backend,
        options.params.canonical(crate::Format::Svg, "")
    );
    let etag = etag_of(&new, &canonical);
    let cached = |status: StatusCode| {
        let mut res = respond(status, format);
        res.insert_header((header::ETAG, HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\""))))
            .insert_header((header::CACHE_CONTROL, IMMUTABLE))
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"));
        res
    };
    let held = state.cache.get(&etag);
    if let Some(id) = first_missing(&state.store, &[old.as_str(), new.as_str()], held.is_some()).await? {
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
    let maps = [old.clone(), new.clone()];
    // Read off the render threads, once (the storage keeps what it read).
    let units =
        [super::conditional::stored_unit(&state, &old).await?, super::conditional::stored_unit(&state, &new).await?];
    let out = run(&state, units[0].len() + units[1].len(), options, move |o| {
        let side = |id: &str, unit: &[u8], backend: &Option<String>| -> Result<SideInput, ApiError> {
            let (meta, dump) = store::decode(id, unit).ok_or_else(|| no_such_map(id))?;
            Ok(SideInput {
                name: meta.name.unwrap_or_else(|| format!("{}.py", &id[..12])),
                dump: dump.to_vec(),
                backend: backend.clone().or_else(|| o.params.backend.clone()).or(meta.backend),
            })
        };
        Ok((side(&old, &units[0], &o.old_backend)?, side(&new, &units[1], &o.new_backend)?))
    })
    .await?;
    let bytes = Bytes::from(out);
    state.cache.put(etag.clone(), &[&maps[0], &maps[1]], bytes.clone());
    Ok(cached(StatusCode::OK).body(state.answers.body(bytes)?))
}
