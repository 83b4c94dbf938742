//! Wraps every request: one structured log line, the request counters, and the JSON error shape for
//! the few errors actix answers on its own.
//!
//! It sits outside the routes and the default service, so 404s and 405s are logged and counted like
//! anything else.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{ResponseError, web};

use super::AppState;
use super::errors::ApiError;
use super::metrics::method_label;

pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().clone();
    let path: String = req.path().chars().take(300).collect();
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let res = match next.call(req).await {
        Ok(res) => json_errors(res.map_into_boxed_body()),
        Err(err) => {
            // Only a middleware fails this way; actix turns it into a response after us.
            log_line(method.as_str(), &path, "unmatched", err.as_response_error().status_code().as_u16(), -1, started);
            return Err(err);
        }
    };
    let status = res.status().as_u16();
    let route = res.request().match_pattern().unwrap_or_else(|| "unmatched".to_string());
    let bytes = match res.response().body().size() {
        BodySize::Sized(n) => n as i64,
        BodySize::None => 0,
        BodySize::Stream => -1,
    };
    if let Some(state) = state {
        state.metrics.count_request(&route, method_label(&method), status);
    }
    log_line(method.as_str(), &path, &route, status, bytes, started);
    Ok(res)
}

/// Replaces a non-JSON error body (one actix produced itself, always plain text) with the
/// service's JSON shape, keeping the status and an `Allow` header. The upload form's error page
/// (HTML, see `page::error_response`) is the service's own and stays.
fn json_errors(res: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let ours = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
    if res.status().as_u16() < 400 || ours {
        return res;
    }
    let (req, old) = res.into_parts();
    let mut fresh = ApiError::for_status(old.status()).error_response();
    if let Some(allow) = old.headers().get(header::ALLOW) {
        fresh.headers_mut().insert(header::ALLOW, allow.clone());
    }
    ServiceResponse::new(req, fresh)
}

/// One JSON object per line on stderr: easy for people to read and for log shippers to parse.
fn log_line(method: &str, path: &str, route: &str, status: u16, bytes: i64, started: Instant) {
    let ts = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
    let ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    let line = serde_json::json!({
        "ts": (ts * 1e3).round() / 1e3,
        "method": method,
        "path": path,
        "route": route,
        "status": status,
        "bytes": bytes,
        "ms": ms,
    });
    // A closed stderr (the log reader went away) must not take the worker down.
    let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("{line}\n"));
}
