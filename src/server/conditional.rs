//! Conditional GETs of stored pictures: their strong validators and the `If-None-Match` test.
//!
//! A stored map never changes (its id is its content's hash), so one picture of it is named by the
//! id, the canonical options and the crate version; both stored maps and stored diffs answer `304`
//! with these, and cache for a year.

use std::sync::Arc;

use actix_web::HttpRequest;
use actix_web::http::header;
use actix_web::web;
use sha2::{Digest, Sha256};

use super::errors::ApiError;
use super::storage::Storage;
use super::store::{self, MapStore};

/// `Cache-Control` of a stored picture: it can never change under its URL.
pub(super) const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks for this header).
pub(super) fn none_match(req: &HttpRequest, etag: &str) -> bool {
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// The strong validator of one picture: the map, the canonical options and the crate version (a
/// new version may draw differently, so it must not match an old copy).
pub(super) fn etag_of(id: &str, canonical: &str) -> String {
    let mut h = Sha256::new();
    for part in [id, canonical, env!("CARGO_PKG_VERSION")] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    format!("\"{}\"", &store::hex(&h.finalize())[..40])
}

/// The 404 for an id that names no stored map.
pub(super) fn no_such_map(id: &str) -> ApiError {
    ApiError::NoSuchMap(id.to_string())
}

/// Whether `id` is stored; a store that cannot say is an error (503 when it may answer later),
/// never a 404. A shared store is asked off the async workers unless it was seen to hold the map
/// recently.
pub(super) async fn contains(store: &Arc<Storage>, id: &str) -> Result<bool, ApiError> {
    if let Some(known) = store.contains_now(id) {
        return known.map_err(ApiError::from_store);
    }
    let (store, id) = (store.clone(), id.to_string());
    web::block(move || store.contains(&id)).await.map_err(ApiError::internal)?.map_err(ApiError::from_store)
}

/// How long a picture this instance holds waits for the store to confirm its map before it is
/// served all the same: a hanging store must not hold what is already in memory.
pub(super) const HELD_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// The first of `ids` the store does not hold, for a stored picture about to be served. When the
/// store cannot say (503, or no answer within [`HELD_WAIT`]) and this instance holds the picture
/// already (`held`), it is served: an outage of a shared store keeps what an instance holds
/// readable.
pub(super) async fn first_missing<'a>(
    store: &Arc<Storage>,
    ids: &[&'a str],
    held: bool,
) -> Result<Option<&'a str>, ApiError> {
    for id in ids {
        let asked = if held {
            match actix_web::rt::time::timeout(HELD_WAIT, contains(store, id)).await {
                Ok(answer) => answer,
                Err(_) => return Ok(None),
            }
        } else {
            contains(store, id).await
        };
        match asked {
            Ok(true) => {}
            Ok(false) => return Ok(Some(id)),
            Err(e) if held && e.status() == actix_web::http::StatusCode::SERVICE_UNAVAILABLE => return Ok(None),
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// The stored unit of the map `id`, read off the render threads (a blocking thread waits on the
/// store, within its deadline) and kept by the storage after the first read. 404 when the map is
/// not stored; 502 when the object does not match its id.
pub(super) async fn stored_unit(state: &super::AppState, id: &str) -> Result<std::sync::Arc<Vec<u8>>, ApiError> {
    let (store, owned_id) = (state.store.clone(), id.to_string());
    let unit =
        web::block(move || store.unit(&owned_id)).await.map_err(ApiError::internal)?.map_err(ApiError::from_store)?;
    // Checked against the id by the store as it read it (`MapStore::get`).
    unit.ok_or_else(|| no_such_map(id))
}
