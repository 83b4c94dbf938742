//! Every failure the service reports, as one JSON shape: `{"error": {"code": "...", "message": "..."}}`.
//!
//! Clients (a CI job, a script, a browser) branch on the status and the stable `code`; the `message`
//! is for the person reading it and says what to change. Keeping one type for all of them means no
//! path can answer with an HTML or plain-text error by accident.
//!
//! An [`ApiError`] is what went wrong as data (the option, the limit and the size, the id, the
//! store's failure), and its status, code and words each follow from it in one place
//! ([`ApiError::status`], [`ApiError::code`], [`ApiError::message`]): nothing decides by reading a
//! message.

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

/// Names accepted in a query string or as form fields: those of the option table
/// ([`crate::option_table::OPTIONS`]), and the CLI's spelling where it differs (`x-axis`,
/// `scale-mode`). Anything else is a 400, so a misspelt option is reported instead of silently
/// ignored.
fn known() -> Vec<&'static str> {
    use crate::option_table::OPTIONS;
    let mut names: Vec<&'static str> = OPTIONS.iter().map(|o| o.http).collect();
    names.extend(OPTIONS.iter().filter_map(|o| o.cli.filter(|c| *c != o.http)));
    names
}

/// Keeps a client-supplied string short enough to quote in a message.
pub(super) use crate::option_table::clip;

/// Which body, or part of one, was over its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// The request body as it arrives.
    Request,
    /// The dump of a multipart upload.
    Upload,
    /// A gzip body once inflated.
    Inflated,
    /// The two dumps of a diff, once inflated.
    InflatedPair,
    /// The two dumps of a diff.
    Pair,
    /// A form field, by name.
    Field(String),
}

/// What is wrong with a multipart form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormProblem {
    /// The boundary is not 4 to 70 characters.
    Boundary,
    /// The body ended before the form's closing boundary.
    CutShort,
    /// The parser's own refusal, in its words.
    Unreadable(String),
    /// A second dump: the field `field` after the field `first`.
    SecondDump { field: String, first: String },
    /// A file field a diff does not take.
    UnknownFileField(String),
    /// A diff's `old` or `new` given twice.
    FieldTwice(String),
}

/// What is wrong with a body's type or encoding (415).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaProblem {
    /// `Content-Encoding` is not readable text.
    EncodingNotText,
    /// A `Content-Encoding` other than gzip.
    Encoding(String),
    /// A multipart form gzipped as a whole.
    GzipForm,
    /// `Content-Type` cannot be parsed.
    TypeUnparsable,
    /// A `Content-Type` that is not a dump.
    Type(String),
    /// A diff sent as anything but a multipart form.
    DiffNotForm,
}

/// Whose link a request was about: a stored map's or a stored diff's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Map,
    Diff,
}

/// Why the service cannot take a request now (503, with `Retry-After`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// Every render thread is busy and the queue is full.
    Queue,
    /// The request bodies in flight hold all the memory they may.
    Bodies,
    /// Answers to other clients hold `held` bytes of the `cap` they may hold at once.
    Answers { held: usize, cap: usize },
}

/// A request actix-http refuses before any handler runs (see `wire`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unframed {
    /// Not valid HTTP/1.1 (400).
    Malformed,
    /// The headers did not arrive in time (408).
    HeadersLate,
    /// The headers are too large (431).
    HeadersTooLarge,
}

/// An error on its way to the client: what went wrong, with the values involved. Its status, its
/// stable code (what clients branch on) and its words all follow from the variant, in
/// [`ApiError::status`], [`ApiError::code`] and [`ApiError::message`].
#[derive(Debug, Clone)]
pub enum ApiError {
    /// The query string is not `key=value&...`: the parser's words.
    BadQuery(String),
    /// An option the service does not take.
    UnknownOption(String),
    /// A single-valued option given more than once.
    OptionTwice(String),
    /// `format=` for a stored map or diff, whose format is its extension.
    FormatInQuery(Stored),
    /// A form text field longer than a field may be.
    FieldTooLong(String),
    /// A form text field that is not UTF-8.
    FieldNotUtf8(String),
    /// A request with no body.
    EmptyBody,
    /// A form without a dump (`diff`: without the two a diff takes).
    NoDump { diff: bool },
    /// A multipart form that cannot be read as one.
    Form(FormProblem),
    /// A body taken as gzip that does not inflate: the inflater's words.
    BadGzip(String),
    /// A body that could not be read: the reader's words.
    BadBody(String),
    /// A store without the write token.
    Unauthorized,
    /// A store from another site's page.
    CrossSite,
    /// No route for this method and path.
    NoRoute { method: String, path: String },
    /// An id that names no stored map.
    NoSuchMap(String),
    /// An extension that names no format of a stored map or diff.
    NoFormat { ext: String, of: Stored },
    /// A route that does not take this method; `allow` lists those it takes.
    MethodNotAllowed { allow: &'static str },
    /// The body did not arrive within this time.
    BodyTimeout(std::time::Duration),
    /// A body over its limit (`None`: a limit actix holds).
    TooLarge { what: Body, limit: Option<usize> },
    /// A body whose type or encoding is not one the service reads.
    Media(MediaProblem),
    /// The library's error: its kind gives the status and code, the option table its words.
    Library(Box<Error>),
    /// A failure on our side (logged when made).
    Internal,
    /// The store refuses this service's requests (logged when made).
    StoreRefused,
    /// A stored object that does not match its id (logged when made).
    StoredMapInvalid,
    /// A map of `size` bytes, larger than the store's whole quota of `quota` bytes.
    MapOverQuota { size: u64, quota: u64 },
    /// The store has no room (its disk is full; logged when made).
    StoreFull,
    /// The store does not answer (logged when made).
    StoreUnavailable,
    /// The service cannot take the request now.
    Busy(Busy),
    /// The render did not finish within this time.
    RenderTimeout(std::time::Duration),
    /// A request actix-http refused before any handler ran.
    Unframed(Unframed),
    /// A status actix produced on its own, with no more said.
    Status(StatusCode),
    /// An actix extractor's refusal (query, path, JSON, payload), with its status and words.
    Extractor { status: StatusCode, words: String },
}

impl ApiError {
    pub fn method_not_allowed(allow: &'static str) -> ApiError {
        ApiError::MethodNotAllowed { allow }
    }

    pub fn too_large(limit: usize, what: Body) -> ApiError {
        ApiError::TooLarge { what, limit: Some(limit) }
    }

    /// A store failure: a map larger than the whole quota is 507; a store that may answer later
    /// (down, slow, hanging) is 503 with `Retry-After`; a store that refuses (bad credentials, no
    /// bucket, full) is 502, and so is an object that is not what its id says (altered, damaged,
    /// too large): no `Retry-After`, as asking again meets the same answer. The detail, which may
    /// name the endpoint, the bucket or the object, is logged, never answered. Anything else 500.
    pub fn from_store(err: std::io::Error) -> ApiError {
        use super::store::{self, StoreError};
        use std::io::ErrorKind as K;
        let (answer, level) = match (StoreError::of(&err), err.kind()) {
            _ if store::is_refused(&err) => (ApiError::StoreRefused, "error"),
            (Some(&StoreError::OverQuota { size, quota }), _) => return ApiError::MapOverQuota { size, quota },
            (_, K::InvalidData) => (ApiError::StoredMapInvalid, "error"),
            (_, K::StorageFull) => (ApiError::StoreFull, "error"),
            _ if store::is_unavailable(&err) => (ApiError::StoreUnavailable, "warn"),
            _ => return ApiError::internal(err),
        };
        log(level, &err);
        answer
    }

    /// A failure on our side; the detail goes to the log, not to the client.
    pub fn internal(detail: impl fmt::Display) -> ApiError {
        log("error", &detail);
        ApiError::Internal
    }

    /// The generic error for a status that actix produced on its own (a malformed request line, a
    /// header too large...), so that even those answers carry the JSON shape.
    pub fn for_status(status: StatusCode) -> ApiError {
        ApiError::Status(status)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.answer().0
    }

    /// The stable, machine-readable code (`unreadable_dump`, `too_large`, ...).
    pub fn code(&self) -> &'static str {
        self.answer().1
    }

    /// The status and the code, decided together so that the two never disagree.
    fn answer(&self) -> (StatusCode, &'static str) {
        use ApiError as E;
        use StatusCode as S;
        match self {
            E::BadQuery(_) => (S::BAD_REQUEST, "bad_query"),
            E::UnknownOption(_) | E::OptionTwice(_) | E::FormatInQuery(_) | E::FieldTooLong(_) | E::FieldNotUtf8(_) => {
                (S::BAD_REQUEST, "bad_option")
            }
            E::EmptyBody => (S::BAD_REQUEST, "empty_body"),
            E::NoDump { .. } => (S::BAD_REQUEST, "no_dump"),
            E::Form(_) => (S::BAD_REQUEST, "bad_multipart"),
            E::BadGzip(_) => (S::BAD_REQUEST, "bad_gzip"),
            E::BadBody(_) => (S::BAD_REQUEST, "bad_body"),
            E::Unauthorized => (S::UNAUTHORIZED, "unauthorized"),
            E::CrossSite => (S::FORBIDDEN, "forbidden"),
            E::NoRoute { .. } | E::NoSuchMap(_) | E::NoFormat { .. } => (S::NOT_FOUND, "not_found"),
            E::MethodNotAllowed { .. } => (S::METHOD_NOT_ALLOWED, "method_not_allowed"),
            E::BodyTimeout(_) => (S::REQUEST_TIMEOUT, "request_timeout"),
            E::TooLarge { .. } => (S::PAYLOAD_TOO_LARGE, "too_large"),
            E::Media(MediaProblem::EncodingNotText | MediaProblem::Encoding(_) | MediaProblem::GzipForm) => {
                (S::UNSUPPORTED_MEDIA_TYPE, "unsupported_encoding")
            }
            E::Media(_) => (S::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type"),
            E::Library(err) => library(err.kind),
            E::Internal => (S::INTERNAL_SERVER_ERROR, "internal"),
            E::StoreRefused => (S::BAD_GATEWAY, "store_refused"),
            E::StoredMapInvalid => (S::BAD_GATEWAY, "stored_map_invalid"),
            E::MapOverQuota { .. } | E::StoreFull => (S::INSUFFICIENT_STORAGE, "insufficient_storage"),
            E::StoreUnavailable => (S::SERVICE_UNAVAILABLE, "store_unavailable"),
            E::Busy(_) => (S::SERVICE_UNAVAILABLE, "busy"),
            E::RenderTimeout(_) => (S::GATEWAY_TIMEOUT, "render_timeout"),
            E::Unframed(Unframed::Malformed) => (S::BAD_REQUEST, "bad_request"),
            E::Unframed(Unframed::HeadersLate) => (S::REQUEST_TIMEOUT, "request_timeout"),
            E::Unframed(Unframed::HeadersTooLarge) => (S::REQUEST_HEADER_FIELDS_TOO_LARGE, "headers_too_large"),
            E::Status(status) => (*status, status_code(*status)),
            E::Extractor { status, .. } if *status == S::PAYLOAD_TOO_LARGE => (*status, "too_large"),
            E::Extractor { status, .. } => (*status, "bad_request"),
        }
    }

    /// For 405: the methods the route does take.
    pub fn allow(&self) -> Option<&'static str> {
        match self {
            ApiError::MethodNotAllowed { allow } => Some(allow),
            _ => None,
        }
    }

    /// The library's error this one came from, for a page that words it for a person (the upload
    /// form's error page).
    pub fn cause(&self) -> Option<&Error> {
        match self {
            ApiError::Library(err) => Some(err),
            _ => None,
        }
    }

    /// The words for the person reading the error: what went wrong, with its values, and what to
    /// change. Every message of the service is worded here (a library error by the option table,
    /// in the service's names for the options).
    pub fn message(&self) -> String {
        use ApiError as E;
        let stored = |of: &Stored| match of {
            Stored::Map => ("map", "/maps/ID.svg", ".svg, .png, .html or .json"),
            Stored::Diff => ("diff", "/maps/OLD/diff/NEW.md", ".md, .json, .svg, .png or .html"),
        };
        match self {
            E::BadQuery(why) => format!("the query string cannot be read: {why}"),
            E::UnknownOption(name) => {
                format!("unknown option '{}'; known options: {}", clip(name), known().join(", "))
            }
            E::OptionTwice(name) => format!("option '{}' is given more than once", clip(name)),
            E::FormatInQuery(of) => {
                let (what, example, _) = stored(of);
                format!("a stored {what}'s format comes from its extension: {example}")
            }
            E::FieldTooLong(name) => format!("form field '{}' is too long", clip(name)),
            E::FieldNotUtf8(name) => format!("form field '{}' is not UTF-8", clip(name)),
            E::EmptyBody => "no dump in the request: send the text of a passes_dump/NN_after_<Pass>.py file as the \
                             body, or upload it in the form field 'dump'"
                .into(),
            E::NoDump { diff: false } => {
                "the form has no dump: put the file in the field 'dump' (curl: -F dump=@dump.py)".into()
            }
            E::NoDump { diff: true } => {
                "a diff needs two dumps: the form fields 'old' and 'new' (curl: -F old=@a.py -F new=@b.py)".into()
            }
            E::Form(FormProblem::Boundary) => {
                "the multipart boundary must be 4 to 70 characters (curl and browsers choose one)".into()
            }
            E::Form(FormProblem::CutShort) => {
                "the multipart body ended before the form's closing boundary (--BOUNDARY--): send the whole form".into()
            }
            E::Form(FormProblem::Unreadable(why)) => format!("the multipart upload cannot be read: {why}"),
            E::Form(FormProblem::SecondDump { field, first }) => format!(
                "the form has a second dump (field '{}' after '{}'): send one dump, in the field 'dump'",
                clip(field),
                clip(first)
            ),
            E::Form(FormProblem::UnknownFileField(name)) => {
                format!("unknown file field '{}': a diff takes the dumps in 'old' and 'new'", clip(name))
            }
            E::Form(FormProblem::FieldTwice(name)) => format!("the field '{}' is given more than once", clip(name)),
            E::BadGzip(why) => format!("the body is marked or looks like gzip but cannot be inflated: {why}"),
            E::BadBody(why) => format!("the request body could not be read: {why}"),
            E::Unauthorized => {
                "storing maps needs the service's write token: send Authorization: Bearer <token>".into()
            }
            E::CrossSite => "maps are not stored from another site's page; post from a script, or from this \
                             service's own page"
                .into(),
            E::NoRoute { method, path } => {
                let path: String = path.chars().take(120).collect();
                format!("no route {method} {path}; see GET / for the API")
            }
            E::NoSuchMap(id) => {
                let shown: String = id.chars().take(80).collect();
                format!("no stored map '{shown}': an id is the 64 lowercase hex digits that POST /maps returned")
            }
            E::NoFormat { ext, of } => format!("no format '.{}'; use {}", clip(ext), stored(of).2),
            E::MethodNotAllowed { allow } => format!("this route takes {allow}"),
            E::BodyTimeout(limit) => {
                format!("the request body did not arrive within {:.3} s; send it at once", limit.as_secs_f64())
            }
            E::TooLarge { what, limit } => {
                let what = match what {
                    Body::Request => "the request body".to_string(),
                    Body::Upload => "the uploaded dump".to_string(),
                    Body::Inflated => "the inflated body".to_string(),
                    Body::InflatedPair => "the two inflated dumps together".to_string(),
                    Body::Pair => "the two dumps together".to_string(),
                    Body::Field(name) => format!("the field '{}'", clip(name)),
                };
                match limit {
                    Some(limit) => format!("{what} is larger than the limit of {limit} bytes"),
                    None => format!("{what} is too large"),
                }
            }
            E::Media(MediaProblem::EncodingNotText) => "Content-Encoding is not readable text".into(),
            E::Media(MediaProblem::Encoding(name)) => {
                format!("Content-Encoding '{}' is not supported; send the dump as is, or gzip", clip(name))
            }
            E::Media(MediaProblem::GzipForm) => {
                "a multipart upload cannot be gzip-encoded as a whole; gzip the file inside it instead".into()
            }
            E::Media(MediaProblem::TypeUnparsable) => "the Content-Type header cannot be parsed".into(),
            E::Media(MediaProblem::Type(name)) => format!(
                "Content-Type '{}' is not a dump: send the file as text/plain or application/octet-stream \
                 (curl: -H 'Content-Type: text/plain' --data-binary @dump.py), or as a multipart/form-data \
                 upload (curl: -F dump=@dump.py)",
                clip(name)
            ),
            E::Media(MediaProblem::DiffNotForm) => {
                "a diff takes a multipart form with the fields 'old' and 'new' (curl: -F old=@a.py -F new=@b.py)".into()
            }
            E::Library(err) => describe(err, Shell::Http),
            E::Internal => "the server failed; see its log".into(),
            E::StoreRefused => "the map store refuses this service's requests (its credentials, bucket or space); \
                                a retry will not help until the service's operator fixes it (see its log)"
                .into(),
            E::StoredMapInvalid => "the stored object of this map does not match its id (altered, damaged or too \
                                    large); it is not drawn, and a retry will not help (see the service's log)"
                .into(),
            E::MapOverQuota { size, quota } => {
                format!(
                    "the map cannot be stored: a map of {size} bytes is larger than the whole store ({quota} bytes)"
                )
            }
            E::StoreFull => "the map cannot be stored: the store has no room left (see the service's log)".into(),
            E::StoreUnavailable => "the map store does not answer; retry in a moment".into(),
            E::Busy(Busy::Queue) => "every render thread is busy and the queue is full; retry in a moment".into(),
            E::Busy(Busy::Bodies) => {
                "the service holds as many request bodies as it may at once; retry in a moment".into()
            }
            E::Busy(Busy::Answers { held, cap }) => format!(
                "answers to other clients hold {held} bytes of the {cap} this service gives them at once; retry in a moment"
            ),
            E::RenderTimeout(limit) => format!("the render did not finish within {:.3} s", limit.as_secs_f64()),
            E::Unframed(Unframed::Malformed) => "the request is not valid HTTP/1.1".into(),
            E::Unframed(Unframed::HeadersLate) => {
                "the request headers did not arrive in time; send them at once".into()
            }
            E::Unframed(Unframed::HeadersTooLarge) => "the request headers are too large".into(),
            E::Status(status) => status.canonical_reason().unwrap_or("error").to_string(),
            E::Extractor { words, .. } => words.clone(),
        }
    }
}

impl ApiError {
    /// The JSON body every error answer carries: `{"error": {"code": "...", "message": "..."}}`.
    pub fn body(&self) -> String {
        serde_json::json!({ "error": { "code": self.code(), "message": self.message() } }).to_string()
    }
}

/// Writes `detail` to the log as one JSON line; a closed stderr must not take a worker down.
fn log(level: &str, detail: &dyn fmt::Display) {
    let line = serde_json::json!({ "level": level, "message": detail.to_string() });
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The library's error kinds, worded for HTTP (parameters, not flags): a dump that cannot be read is the client's to fix (400, with line:col
/// in the message); a readable dump with nothing to draw is 422. A picture too large to rasterize is
/// 422 `picture_too_large`, not 413: the request was fine and a smaller body would not help, while
/// 413 (`too_large`) always means "your upload is over the limit".
/// The code of an answer that carries only its status (one actix made itself).
fn status_code(status: StatusCode) -> &'static str {
    match status.as_u16() {
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
    }
}

fn library(kind: ErrorKind) -> (StatusCode, &'static str) {
    match kind {
        ErrorKind::Unreadable => (StatusCode::BAD_REQUEST, "unreadable_dump"),
        ErrorKind::Usage => (StatusCode::BAD_REQUEST, "bad_option"),
        ErrorKind::Refused => (StatusCode::UNPROCESSABLE_ENTITY, "nothing_to_draw"),
        ErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
        ErrorKind::TooLarge => (StatusCode::UNPROCESSABLE_ENTITY, "picture_too_large"),
        ErrorKind::OverLimit => (StatusCode::UNPROCESSABLE_ENTITY, "over_limit"),
        ErrorKind::Cancelled => (StatusCode::GATEWAY_TIMEOUT, "render_timeout"),
        ErrorKind::Io => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
    }
}

/// A library error is answered as its kind says; a failure to read or write (`Io`) is ours, logged
/// and answered as `internal`.
impl From<Error> for ApiError {
    fn from(err: Error) -> ApiError {
        match err.kind {
            ErrorKind::Io => ApiError::internal(&err),
            _ => ApiError::Library(Box::new(err)),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status().as_u16(), self.code(), self.message())
    }
}

impl std::error::Error for ApiError {}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status();
        let mut res = HttpResponse::build(status);
        res.content_type("application/json").insert_header((header::CACHE_CONTROL, "no-store"));
        if let Some(allow) = self.allow() {
            res.insert_header((header::ALLOW, HeaderValue::from_static(allow)));
        }
        if status == StatusCode::SERVICE_UNAVAILABLE {
            res.insert_header((header::RETRY_AFTER, "1"));
        }
        if status == StatusCode::UNAUTHORIZED {
            res.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        if status == StatusCode::REQUEST_TIMEOUT {
            res.insert_header((header::CONNECTION, "close"));
        }
        res.body(self.body())
    }
}

/// For actix's extractor configs (query, path, JSON, payload): whatever they reject becomes a 400
/// with the JSON shape instead of actix's plain-text body.
pub fn extractor_error(err: impl fmt::Display, status: StatusCode) -> actix_web::Error {
    ApiError::Extractor { status, words: err.to_string() }.into()
}

#[cfg(test)]
mod tests {
    use super::super::store::{self, StoreError};
    use super::*;

    #[test]
    fn a_store_failure_is_answered_by_what_it_is_not_by_its_words() {
        let answer = |e: std::io::Error| {
            let a = ApiError::from_store(e);
            (a.status().as_u16(), a.code())
        };
        assert_eq!(answer(store::refused("403 Forbidden")), (502, "store_refused"));
        assert_eq!(answer(store::unavailable("no answer")), (503, "store_unavailable"));
        assert_eq!(answer(std::io::ErrorKind::TimedOut.into()), (503, "store_unavailable"));
        assert_eq!(answer(StoreError::Mismatch { object: "p/x".into() }.into()), (502, "stored_map_invalid"));
        let huge = StoreError::ObjectTooLarge { object: "p/x".into(), size: 9, max: 8 };
        assert_eq!(answer(huge.into()), (502, "stored_map_invalid"));
        assert_eq!(answer(std::io::ErrorKind::StorageFull.into()), (507, "insufficient_storage"));
        assert_eq!(answer(std::io::ErrorKind::PermissionDenied.into()), (500, "internal"));
        let over = ApiError::from_store(StoreError::OverQuota { size: 10, quota: 5 }.into());
        assert!(matches!(over, ApiError::MapOverQuota { size: 10, quota: 5 }), "{over}");
        assert_eq!((over.status().as_u16(), over.code()), (507, "insufficient_storage"));
        assert!(over.message().contains("a map of 10 bytes is larger than the whole store (5 bytes)"), "{over}");
    }

    #[test]
    fn the_values_are_in_the_words() {
        let e = ApiError::too_large(1000, Body::Field("old".into()));
        assert_eq!((e.status(), e.code()), (StatusCode::PAYLOAD_TOO_LARGE, "too_large"));
        assert_eq!(e.message(), "the field 'old' is larger than the limit of 1000 bytes");
        let e = ApiError::UnknownOption("x".repeat(100));
        assert_eq!(e.code(), "bad_option");
        assert!(e.message().starts_with(&format!("unknown option '{}…'", "x".repeat(64))), "{e}");
        let e = ApiError::method_not_allowed("POST");
        assert_eq!((e.allow(), e.message().as_str()), (Some("POST"), "this route takes POST"));
        assert_eq!(ApiError::for_status(StatusCode::URI_TOO_LONG).code(), "uri_too_long");
        let body: serde_json::Value =
            serde_json::from_str(&ApiError::Unframed(Unframed::HeadersTooLarge).body()).unwrap();
        assert_eq!(body["error"]["code"], "headers_too_large");
    }
}
