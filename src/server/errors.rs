//! Every failure the service reports, as one JSON shape: `{"error": {"code": "...", "message": "..."}}`.
//!
//! Clients (a CI job, a script, a browser) branch on the status and the stable `code`; the `message`
//! is for the person reading it and says what to change. Keeping one type for all of them means no
//! path can answer with an HTML or plain-text error by accident.

use std::fmt;
use std::io::Write;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};

use crate::error::{Error, ErrorKind};
use crate::option_table::{Shell, describe};

/// The policy of an answer that sets none: it loads nothing and may not be framed. JSON, text and
/// errors need nothing more; pictures and pages set their own, which [`secure`] completes.
const NOTHING: &str = "default-src 'none'; frame-ancestors 'none'";

/// Sets the headers every answer carries, errors included: `X-Content-Type-Options: nosniff` (a
/// browser never reads a JSON error or an SVG as a page of another type), and a
/// `Content-Security-Policy` with `frame-ancestors` (no other site can frame a page to trick a
/// click). A route's own policy is kept and given `frame-ancestors 'self'` when it has none.
pub async fn secure(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let headers = res.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    let policy = match headers.get(header::CONTENT_SECURITY_POLICY).and_then(|v| v.to_str().ok()) {
        None => Some(HeaderValue::from_static(NOTHING)),
        Some(p) if !p.contains("frame-ancestors") => {
            HeaderValue::from_str(&format!("{p}; frame-ancestors 'self'")).ok()
        }
        Some(_) => None,
    };
    if let Some(policy) = policy {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    Ok(res)
}

/// The headers [`secure`] sets, for answers written below the app (see `wire`).
pub(super) const RAW_SECURITY_HEADERS: &str =
    "x-content-type-options: nosniff\r\ncontent-security-policy: default-src 'none'; frame-ancestors 'none'\r\n";

/// Keeps a client-supplied string short enough to quote in a message.
pub(super) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(64).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// An error on its way to the client.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    /// Stable, machine-readable (`unreadable_dump`, `too_large`, ...).
    pub code: &'static str,
    pub message: String,
    /// For 405: the methods the route does take.
    pub allow: Option<&'static str>,
    /// The library's error this one came from, for a page that words it for a person (the upload
    /// form's error page).
    pub cause: Option<Box<Error>>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), allow: None, cause: None }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn method_not_allowed(allow: &'static str) -> ApiError {
        ApiError {
            allow: Some(allow),
            ..ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", format!("this route takes {allow}"))
        }
    }

    pub fn too_large(limit: usize, what: &str) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("{what} is larger than the limit of {limit} bytes"),
        )
    }

    pub fn unsupported(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, code, message)
    }

    pub fn busy() -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "every render thread is busy and the queue is full; retry in a moment",
        )
    }

    pub fn timeout(limit: std::time::Duration) -> ApiError {
        ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "render_timeout",
            format!("the render did not finish within {:.3} s", limit.as_secs_f64()),
        )
    }

    pub fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "storing maps needs the service's write token: send Authorization: Bearer <token>",
        )
    }

    /// A store failure: a map larger than the whole quota is 507; a store that may answer later
    /// (down, slow, hanging) is 503 with `Retry-After`; a store that refuses (bad credentials, no
    /// bucket, full) is 502, and so is an object that is not what its id says (altered, damaged,
    /// too large): no `Retry-After`, as asking again meets the same answer. The detail, which may
    /// name the endpoint, the bucket or the object, is logged, never answered. Anything else 500.
    pub fn from_store(err: std::io::Error) -> ApiError {
        let log = |level: &str| {
            let line = serde_json::json!({ "level": level, "message": err.to_string() });
            let _ = writeln!(std::io::stderr(), "{line}");
        };
        if super::store::is_refused(&err) {
            log("error");
            return ApiError::new(
                StatusCode::BAD_GATEWAY,
                "store_refused",
                "the map store refuses this service's requests (its credentials, bucket or space); \
                 a retry will not help until the service's operator fixes it (see its log)",
            );
        }
        if err.kind() == std::io::ErrorKind::InvalidData {
            log("error");
            return ApiError::new(
                StatusCode::BAD_GATEWAY,
                "stored_map_invalid",
                "the stored object of this map does not match its id (altered, damaged or too large); \
                 it is not drawn, and a retry will not help (see the service's log)",
            );
        }
        if err.kind() == std::io::ErrorKind::StorageFull {
            return ApiError::new(
                StatusCode::INSUFFICIENT_STORAGE,
                "insufficient_storage",
                format!("the map cannot be stored: {err}"),
            );
        }
        if super::store::is_unavailable(&err) {
            log("warn");
            return ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unavailable",
                "the map store does not answer; retry in a moment",
            );
        }
        ApiError::internal(err)
    }

    /// A failure on our side; the detail goes to the log, not to the client.
    pub fn internal(detail: impl fmt::Display) -> ApiError {
        let line = serde_json::json!({ "level": "error", "message": detail.to_string() });
        let _ = writeln!(std::io::stderr(), "{line}"); // a closed stderr must not take a worker down
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the server failed; see its log")
    }

    /// The generic error for a status that actix produced on its own (a malformed request line, a
    /// header too large...), so that even those answers carry the JSON shape.
    pub fn for_status(status: StatusCode) -> ApiError {
        let code = match status.as_u16() {
            400 => "bad_request",
            404 => "not_found",
            405 => "method_not_allowed",
            408 => "request_timeout",
            413 => "too_large",
            414 => "uri_too_long",
            415 => "unsupported_media_type",
            431 => "headers_too_large",
            s if s >= 500 => "internal",
            _ => "error",
        };
        ApiError::new(status, code, status.canonical_reason().unwrap_or("error").to_string())
    }
}

/// The library's error kinds, worded for HTTP (parameters, not flags): a dump that cannot be read is the client's to fix (400, with line:col
/// in the message); a readable dump with nothing to draw is 422. A picture too large to rasterize is
/// 422 `picture_too_large`, not 413: the request was fine and a smaller body would not help, while
/// 413 (`too_large`) always means "your upload is over the limit".
impl From<Error> for ApiError {
    fn from(err: Error) -> ApiError {
        let (status, code) = match err.kind {
            ErrorKind::Unreadable => (StatusCode::BAD_REQUEST, "unreadable_dump"),
            ErrorKind::Usage => (StatusCode::BAD_REQUEST, "bad_option"),
            ErrorKind::Refused => (StatusCode::UNPROCESSABLE_ENTITY, "nothing_to_draw"),
            ErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            ErrorKind::TooLarge => (StatusCode::UNPROCESSABLE_ENTITY, "picture_too_large"),
            ErrorKind::OverLimit => (StatusCode::UNPROCESSABLE_ENTITY, "over_limit"),
            ErrorKind::Cancelled => (StatusCode::GATEWAY_TIMEOUT, "render_timeout"),
            ErrorKind::Io => return ApiError::internal(&err),
        };
        let message = describe(&err, Shell::Http);
        ApiError { cause: Some(Box::new(err)), ..ApiError::new(status, code, message) }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let body = serde_json::json!({ "error": { "code": self.code, "message": self.message } });
        let mut res = HttpResponse::build(self.status);
        res.content_type("application/json").insert_header((header::CACHE_CONTROL, "no-store"));
        if let Some(allow) = self.allow {
            res.insert_header((header::ALLOW, HeaderValue::from_static(allow)));
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            res.insert_header((header::RETRY_AFTER, "1"));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            res.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        if self.status == StatusCode::REQUEST_TIMEOUT {
            res.insert_header((header::CONNECTION, "close"));
        }
        res.body(body.to_string())
    }
}

/// For actix's extractor configs (query, path, JSON, payload): whatever they reject becomes a 400
/// with the JSON shape instead of actix's plain-text body.
pub fn extractor_error(err: impl fmt::Display, status: StatusCode) -> actix_web::Error {
    let code = if status == StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_request" };
    ApiError::new(status, code, err.to_string()).into()
}
