//! Getting the dump out of a request: a raw body (optionally gzip), or a multipart upload.
//!
//! Every byte read is counted against one limit, and so is every byte inflated: a 40 KB gzip body
//! that would inflate to 4 GB stops at the limit plus one byte. Reading happens on the async worker
//! (it is I/O); inflating is CPU work and runs on a render thread with the rest ([`inflate`]).
//!
//! Reading is also bounded in time: a client that trickles its body (one byte a second holds a
//! connection and its buffer for hours) is answered 408 once the read timeout has passed.
//!
//! Memory follows what arrives, not what is declared: a buffer grows with the bytes received (a
//! `Content-Length` of 32 MiB on a connection that then sends nothing reserves nothing), and the
//! bytes held by every body in flight are counted together ([`InFlight`]): past that total a
//! request is answered 503 with `Retry-After`, so many slow uploads at once cannot exhaust memory.
//!
//! A form has one rule for its fields: each option at most once (as in a query string), the dump in
//! exactly one file field (`dump`, or the form's only file), and any other field is a 400 naming it.

use std::io::Read;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use actix_multipart::Multipart;
use actix_web::error::PayloadError;
use actix_web::http::header;
use actix_web::web::{self, Bytes};
use actix_web::{HttpMessage, HttpRequest};
use futures_util::{Stream, StreamExt};

use super::errors::{ApiError, Body, Busy, FormProblem, MediaProblem};
use super::params;

/// Longest accepted text field in a form (`format`, `theme`...).
const MAX_FIELD: usize = 4096;

/// The bytes held by request bodies being read or waiting for their render, over the whole service.
#[derive(Debug)]
pub struct InFlight {
    held: AtomicUsize,
    cap: usize,
}

impl InFlight {
    /// A count whose total may not pass `cap` bytes.
    pub fn new(cap: usize) -> Arc<InFlight> {
        Arc::new(InFlight { held: AtomicUsize::new(0), cap })
    }

    /// The service's total for a largest body of `max_body` bytes: room for eight such bodies (256
    /// MiB at the default 32 MiB), so a few large uploads go through together while a crowd of
    /// clients cannot hold more memory than that.
    pub fn cap_for(max_body: usize) -> usize {
        max_body.saturating_mul(8)
    }
}

/// One request's share of [`InFlight`]: what it was granted, given back when the last clone is
/// dropped (the upload, after its render).
#[derive(Debug, Clone, Default)]
pub struct Held(Option<Arc<Share>>);

#[derive(Debug)]
struct Share {
    bytes: AtomicUsize,
    pool: Arc<InFlight>,
}

impl Drop for Share {
    fn drop(&mut self) {
        self.pool.held.fetch_sub(self.bytes.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

impl Held {
    fn new(pool: &Arc<InFlight>) -> Held {
        Held(Some(Arc::new(Share { bytes: AtomicUsize::new(0), pool: pool.clone() })))
    }

    /// Takes `more` bytes from the service's total; false (nothing taken) when that would pass it.
    fn grow(&self, more: usize) -> bool {
        let Some(share) = &self.0 else { return true };
        let before = share.pool.held.fetch_add(more, Ordering::Relaxed);
        if before.saturating_add(more) > share.pool.cap {
            share.pool.held.fetch_sub(more, Ordering::Relaxed);
            return false;
        }
        share.bytes.fetch_add(more, Ordering::Relaxed);
        true
    }
}

/// A dump as it arrived, before inflating.
#[derive(Debug, Default)]
pub struct Upload {
    /// Its bytes' share of the bodies in flight, given back when the upload is dropped: kept for
    /// that drop, never read.
    #[allow(dead_code)]
    pub held: Held,
    pub bytes: Vec<u8>,
    /// The body is gzip: said by `Content-Encoding`/`Content-Type`, or seen in its first two bytes
    /// (0x1f 0x8b is never the start of UTF-8 text, so sniffing cannot misread a dump).
    pub gzip: bool,
    /// The file name of a multipart upload, already reduced to a safe name.
    pub filename: Option<String>,
    /// Form fields other than the dump, read as options.
    pub fields: Vec<(String, String)>,
}

/// How a request body is to be read.
enum Kind {
    Raw { gzip: bool },
    Multipart,
}

/// Content types taken as a raw dump. `application/gzip` is a gzip-compressed dump.
fn classify(req: &HttpRequest) -> Result<Kind, ApiError> {
    let encoding = match req.headers().get(header::CONTENT_ENCODING) {
        None => None,
        Some(v) => {
            Some(v.to_str().map_err(|_| ApiError::Media(MediaProblem::EncodingNotText))?.trim().to_ascii_lowercase())
        }
    };
    let gzip = match encoding.as_deref() {
        None | Some("") | Some("identity") => false,
        Some("gzip") | Some("x-gzip") => true,
        Some(other) => {
            return Err(ApiError::Media(MediaProblem::Encoding(other.to_string())));
        }
    };
    let mime = req.mime_type().map_err(|_| ApiError::Media(MediaProblem::TypeUnparsable))?;
    let Some(mime) = mime else { return Ok(Kind::Raw { gzip }) };
    match (mime.type_().as_str(), mime.subtype().as_str()) {
        ("text", "plain" | "x-python" | "x-script.python") | ("application", "octet-stream" | "x-python") => {
            Ok(Kind::Raw { gzip })
        }
        ("application", "gzip" | "x-gzip") => Ok(Kind::Raw { gzip: true }),
        ("multipart", "form-data") if gzip => Err(ApiError::Media(MediaProblem::GzipForm)),
        ("multipart", "form-data") => {
            check_boundary(mime.get_param("boundary").map(|b| b.as_str()))?;
            Ok(Kind::Multipart)
        }
        _ => Err(ApiError::Media(MediaProblem::Type(mime.essence_str().to_string()))),
    }
}

/// The multipart parser (actix-multipart 0.7) panics on a line shorter than a boundary of 1 to 3
/// characters (found by the `body` fuzz target). RFC 2046 allows 1 to 70, but clients send long
/// ones (curl and browsers some 40 characters), so 4 to 70 are taken and the rest refused.
fn check_boundary(boundary: Option<&str>) -> Result<(), ApiError> {
    match boundary.map(str::len) {
        Some(4..=70) => Ok(()),
        _ => Err(ApiError::Form(FormProblem::Boundary)),
    }
}

/// How a body is to be read: at most `limit` bytes on the wire, within `timeout`, its bytes counted
/// in `bodies`.
#[derive(Clone)]
pub struct Reading {
    pub limit: usize,
    pub timeout: Duration,
    pub bodies: Arc<InFlight>,
}

/// Reads the dump (and any form fields) from the request as `how` says.
pub async fn read(req: &HttpRequest, payload: web::Payload, how: &Reading) -> Result<Upload, ApiError> {
    let timeout = how.timeout;
    actix_web::rt::time::timeout(timeout, read_untimed(req, payload, how.limit, Held::new(&how.bodies)))
        .await
        .map_err(|_| ApiError::BodyTimeout(timeout))?
}

async fn read_untimed(req: &HttpRequest, payload: web::Payload, limit: usize, held: Held) -> Result<Upload, ApiError> {
    let kind = classify(req)?;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::too_large(limit, Body::Request));
    }
    let mut upload = match kind {
        Kind::Raw { gzip } => {
            let bytes = read_raw(payload, limit, &held).await?;
            Upload { bytes, gzip, held, ..Upload::default() }
        }
        Kind::Multipart => read_multipart(req, payload, limit, held).await?,
    };
    if upload.bytes.is_empty() {
        return Err(ApiError::EmptyBody);
    }
    upload.gzip |= upload.bytes.starts_with(&[0x1f, 0x8b]);
    Ok(upload)
}

/// The body as it arrives: the buffer grows with the chunks (never by what `Content-Length`
/// declares), each counted in `held` first.
async fn read_raw(mut payload: web::Payload, limit: usize, held: &Held) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(payload_error)?;
        if out.len() + chunk.len() > limit {
            return Err(ApiError::too_large(limit, Body::Request));
        }
        // The buffer may double as it grows: its capacity is what is held.
        let more = (out.len() + chunk.len()).saturating_sub(out.capacity());
        if more > 0 {
            let grown = (out.len() + chunk.len()).max(out.capacity() * 2).min(limit);
            if !held.grow(grown - out.capacity()) {
                return Err(ApiError::Busy(Busy::Bodies));
            }
            out.reserve_exact(grown - out.len());
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

fn payload_error(err: PayloadError) -> ApiError {
    match err {
        PayloadError::Overflow => ApiError::TooLarge { what: Body::Request, limit: None },
        other => ApiError::BadBody(other.to_string()),
    }
}

/// The raw body stream, cut off after `limit` bytes or when the bodies in flight hold all they may.
/// Multipart parsing reads the whole body, including fields it skips, so the limit has to sit
/// under the parser, not around what it yields. Every byte that passes is counted in `held`: the
/// parser buffers it, and the fields it yields keep it.
struct Capped {
    inner: web::Payload,
    seen: usize,
    limit: usize,
    held: Held,
    /// Why the stream stopped: [`OVER_LIMIT`] or [`CROWDED`] (0 while it has not).
    tripped: Arc<AtomicU8>,
}

const OVER_LIMIT: u8 = 1;
const CROWDED: u8 = 2;
/// The body ended before the form did.
const ENDED: u8 = 3;

impl Capped {
    fn new(payload: web::Payload, limit: usize, held: Held) -> (Capped, Arc<AtomicU8>) {
        let tripped = Arc::new(AtomicU8::new(0));
        (Capped { inner: payload, seen: 0, limit, held, tripped: tripped.clone() }, tripped)
    }
}

impl Stream for Capped {
    type Item = Result<Bytes, PayloadError>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                self.seen += chunk.len();
                let why = if self.seen > self.limit {
                    OVER_LIMIT
                } else if !self.held.grow(chunk.len()) {
                    CROWDED
                } else {
                    return Poll::Ready(Some(Ok(chunk)));
                };
                self.tripped.store(why, Ordering::Relaxed);
                Poll::Ready(Some(Err(PayloadError::Overflow)))
            }
            // The multipart parser (actix-multipart 0.7) told that the body ended waits forever
            // when the form is not complete (no closing boundary): nothing will wake it. The end
            // is noted and the reader's task woken, so that [`Parsed`] sees the parser still
            // waiting after the end and answers at once rather than at the read timeout.
            Poll::Ready(None) => {
                let _ = self.tripped.compare_exchange(0, ENDED, Ordering::Relaxed, Ordering::Relaxed);
                cx.waker().wake_by_ref();
                Poll::Ready(None)
            }
            other => other,
        }
    }
}

/// The next thing the multipart parser yields (`next`, a form's next field or a field's next
/// chunk), or an error when the body has ended and the parser still waits for more: a form cut
/// short (see [`Capped`]).
struct Parsed<'a, F> {
    next: F,
    tripped: &'a AtomicU8,
}

impl<F: std::future::Future + Unpin> std::future::Future for Parsed<'_, F> {
    type Output = Result<F::Output, ApiError>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.next).poll(cx) {
            Poll::Ready(out) => Poll::Ready(Ok(out)),
            Poll::Pending if self.tripped.load(Ordering::Relaxed) == ENDED => {
                Poll::Ready(Err(ApiError::Form(FormProblem::CutShort)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// The error of a multipart body: what stopped the stream under the parser, or the parser's own.
fn multipart_failure(tripped: &AtomicU8, limit: usize, e: actix_multipart::MultipartError) -> ApiError {
    match tripped.load(Ordering::Relaxed) {
        OVER_LIMIT => ApiError::too_large(limit, Body::Request),
        CROWDED => ApiError::Busy(Busy::Bodies),
        _ => ApiError::Form(FormProblem::Unreadable(e.to_string())),
    }
}

/// Takes the field named `dump`, or the form's only file field, as the dump; the text fields are
/// options (the upload form's format select), checked with the query's. A second dump, or a file
/// field that is not the dump, is a 400 naming it.
async fn read_multipart(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
    held: Held,
) -> Result<Upload, ApiError> {
    let (capped, tripped) = Capped::new(payload, limit, held.clone());
    let mut form = Multipart::new(req.headers(), capped);
    let mut upload = Upload { held, ..Upload::default() };
    // The name of the field the dump came from.
    let mut dump_field: Option<String> = None;
    let fail = |e: actix_multipart::MultipartError| multipart_failure(&tripped, limit, e);
    while let Some(field) = (Parsed { next: form.next(), tripped: &tripped }).await? {
        let mut field = field.map_err(&fail)?;
        let name = field.name().unwrap_or("").to_string();
        let filename = field.content_disposition().and_then(|cd| cd.get_filename()).map(str::to_string);
        let is_dump = name == "dump" || filename.is_some();
        if is_dump && let Some(first) = &dump_field {
            return Err(ApiError::Form(FormProblem::SecondDump { field: name, first: first.clone() }));
        }
        let cap = if is_dump { limit } else { MAX_FIELD };
        let data = read_field(&mut field, cap, &fail, &tripped).await?.ok_or_else(|| {
            if is_dump { ApiError::too_large(limit, Body::Upload) } else { ApiError::FieldTooLong(name.clone()) }
        })?;
        if is_dump {
            upload.bytes = data;
            upload.filename = filename.as_deref().and_then(params::name_from_upload);
            dump_field = Some(name);
        } else {
            push_option(&mut upload.fields, name, data)?;
        }
    }
    if dump_field.is_none() {
        return Err(ApiError::NoDump { diff: false });
    }
    Ok(upload)
}

/// A field's bytes, or `None` past `cap`.
async fn read_field(
    field: &mut actix_multipart::Field,
    cap: usize,
    fail: &impl Fn(actix_multipart::MultipartError) -> ApiError,
    tripped: &AtomicU8,
) -> Result<Option<Vec<u8>>, ApiError> {
    let mut data = Vec::new();
    while let Some(chunk) = (Parsed { next: field.next(), tripped }).await? {
        let chunk = chunk.map_err(fail)?;
        if data.len() + chunk.len() > cap {
            return Ok(None);
        }
        data.extend_from_slice(&chunk);
    }
    Ok(Some(data))
}

/// A text field as an option; unknown names and repeats are refused later, with the query's, by
/// `Params::from_pairs`. An empty value means "default", as a query string without the key.
fn push_option(fields: &mut Vec<(String, String)>, name: String, data: Vec<u8>) -> Result<(), ApiError> {
    let value = String::from_utf8(data).map_err(|_| ApiError::FieldNotUtf8(name.clone()))?;
    if !value.trim().is_empty() {
        fields.push((name, value));
    }
    Ok(())
}

/// Two dumps from one form, for `POST /diff`: the file fields `old` and `new` (each once); the text
/// fields are options. Any other file field is a 400 naming it. As `how` says.
pub async fn read_pair(req: &HttpRequest, payload: web::Payload, how: &Reading) -> Result<(Upload, Upload), ApiError> {
    let timeout = how.timeout;
    actix_web::rt::time::timeout(timeout, read_pair_untimed(req, payload, how.limit, Held::new(&how.bodies)))
        .await
        .map_err(|_| ApiError::BodyTimeout(timeout))?
}

async fn read_pair_untimed(
    req: &HttpRequest,
    payload: web::Payload,
    limit: usize,
    held: Held,
) -> Result<(Upload, Upload), ApiError> {
    if !matches!(classify(req)?, Kind::Multipart) {
        return Err(ApiError::Media(MediaProblem::DiffNotForm));
    }
    let (capped, tripped) = Capped::new(payload, limit, held.clone());
    let mut form = Multipart::new(req.headers(), capped);
    let (mut old, mut new) = (Upload { held: held.clone(), ..Upload::default() }, Upload { held, ..Upload::default() });
    let (mut have_old, mut have_new) = (false, false);
    let fail = |e: actix_multipart::MultipartError| multipart_failure(&tripped, limit, e);
    while let Some(field) = (Parsed { next: form.next(), tripped: &tripped }).await? {
        let mut field = field.map_err(&fail)?;
        let name = field.name().unwrap_or("").to_string();
        let filename = field.content_disposition().and_then(|cd| cd.get_filename()).map(str::to_string);
        let (target, seen) = match name.as_str() {
            "old" => (&mut old, &mut have_old),
            "new" => (&mut new, &mut have_new),
            _ if filename.is_some() => {
                return Err(ApiError::Form(FormProblem::UnknownFileField(name)));
            }
            _ => {
                let data = read_field(&mut field, MAX_FIELD, &fail, &tripped)
                    .await?
                    .ok_or_else(|| ApiError::too_large(MAX_FIELD, Body::Field(name.clone())))?;
                push_option(&mut old.fields, name, data)?;
                continue;
            }
        };
        if std::mem::replace(seen, true) {
            return Err(ApiError::Form(FormProblem::FieldTwice(name)));
        }
        let data = read_field(&mut field, limit, &fail, &tripped)
            .await?
            .ok_or_else(|| ApiError::too_large(limit, Body::Field(name.clone())))?;
        target.gzip = data.starts_with(&[0x1f, 0x8b]);
        target.bytes = data;
        target.filename = filename.as_deref().and_then(params::name_from_upload);
    }
    if old.bytes.is_empty() || new.bytes.is_empty() {
        return Err(ApiError::NoDump { diff: true });
    }
    Ok((old, new))
}

/// Inflates a gzip body into at most `limit` bytes (runs on a render thread).
pub fn inflate(bytes: &[u8], limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
    let mut reader = flate2::read::MultiGzDecoder::new(bytes).take(limit as u64 + 1);
    reader.read_to_end(&mut out).map_err(|e| ApiError::BadGzip(e.to_string()))?;
    if out.len() > limit {
        return Err(ApiError::too_large(limit, Body::Inflated));
    }
    Ok(out)
}

/// The dump's text bytes: inflated when the upload was gzip.
pub fn dump_bytes(upload_bytes: Vec<u8>, gzip: bool, limit: usize) -> Result<Vec<u8>, ApiError> {
    if gzip { inflate(&upload_bytes, limit) } else { Ok(upload_bytes) }
}

/// Both dumps of a diff, inflated within one `limit` for the whole request, as one dump would be.
pub fn dump_pair(old: Upload, new: Upload, limit: usize) -> Result<(Vec<u8>, Vec<u8>), ApiError> {
    let old = dump_bytes(old.bytes, old.gzip, limit)?;
    let rest = limit.saturating_sub(old.len());
    let new = dump_bytes(new.bytes, new.gzip, rest).map_err(|e| {
        if matches!(e, ApiError::TooLarge { .. }) { ApiError::too_large(limit, Body::InflatedPair) } else { e }
    })?;
    if !new.is_empty() && old.len() + new.len() > limit {
        return Err(ApiError::too_large(limit, Body::Pair));
    }
    Ok((old, new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn a_form_without_its_closing_boundary_ends_with_its_body() {
        let body = b"--BBBBBB\r\nContent-Disposition: form-data; name=\"dump\"; filename=\"d.py\"\r\n\r\nx = 1\r\n";
        let headers = [("content-type", "multipart/form-data; boundary=BBBBBB")];
        let (done, outcome) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(crate::server::read_body_for_fuzzing(&headers, body, 1000, false));
        });
        let got = outcome.recv_timeout(Duration::from_secs(5)).expect("answered when the body ended");
        assert_eq!(got, Err("bad_multipart"));
        // A whole form, with or without a line break after its closing boundary, is read.
        for end in ["--BBBBBB--", "--BBBBBB--\r\n"] {
            let whole = [&body[..], end.as_bytes()].concat();
            let got = crate::server::read_body_for_fuzzing(&headers, &whole, 1000, false);
            assert_eq!(got, Ok(vec![b"x = 1".to_vec()]), "{end:?}");
        }
    }

    #[test]
    fn inflating_stops_at_the_limit() {
        let bomb = gz(&vec![0u8; 1 << 20]);
        assert_eq!(inflate(&bomb, 1000).unwrap_err().code(), "too_large");
        assert_eq!(inflate(&bomb, 1 << 20).unwrap().len(), 1 << 20);
        assert_eq!(inflate(b"\x1f\x8bnot really", 1000).unwrap_err().code(), "bad_gzip");
    }

    #[test]
    fn a_pair_inflates_within_one_limit() {
        let half = |n: usize| Upload { bytes: gz(&vec![b'x'; n]), gzip: true, ..Upload::default() };
        assert!(dump_pair(half(600), half(600), 1000).is_err_and(|e| matches!(e, ApiError::TooLarge { .. })));
        let (a, b) = dump_pair(half(400), half(600), 1000).unwrap();
        assert_eq!((a.len(), b.len()), (400, 600));
    }
}
