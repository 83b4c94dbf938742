//! The connection under the HTTP layer, so that even the answers actix-http writes on its own carry
//! the service's JSON error shape.
//!
//! actix-http answers a request it cannot take before any handler runs: 400 for a malformed request,
//! 408 for headers that do not arrive in time, 431 for headers too large. It writes those with an
//! empty body and offers no hook to change them. So each connection is wrapped in [`JsonErrors`],
//! which recognises such a head at the start of a write (`HTTP/1.x 400|408|431 ...` with
//! `content-length: 0`: no answer of the service's own looks like that, since every error it writes
//! has a JSON body) and writes the same head with the JSON body in its place.
//!
//! The same wrapper bounds how long a client may stall the answer: actix-http has no write
//! timeout, so a client that sends a request and never reads the answer would hold the answer's
//! bytes for as long as it keeps the connection. A write that makes no progress for
//! [`WRITE_STALL`] fails, which closes the connection and frees the answer.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use super::errors::{ApiError, Unframed};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Longest a connection's writes may make no progress (its reader not reading) before it is closed.
pub const WRITE_STALL: Duration = Duration::from_secs(30);

/// A connection whose protocol-level error answers are rewritten to carry a JSON body, and whose
/// stalled writes time out.
pub struct JsonErrors<T> {
    io: T,
    /// A rewritten answer still being written: the bytes, how many are written, and how many of the
    /// caller's bytes they stand for.
    pending: Option<(Vec<u8>, usize, usize)>,
    /// Running while writes wait on the reader; reset by any progress.
    stall: Option<Pin<Box<actix_web::rt::time::Sleep>>>,
    stall_limit: Duration,
}

impl<T> JsonErrors<T> {
    pub fn new(io: T) -> JsonErrors<T> {
        JsonErrors::with_stall_limit(io, WRITE_STALL)
    }

    pub fn with_stall_limit(io: T, stall_limit: Duration) -> JsonErrors<T> {
        JsonErrors { io, pending: None, stall: None, stall_limit }
    }

    /// Passes on a write's outcome: progress resets the stall timer; waiting starts it (or checks
    /// it), and past the limit the write fails.
    fn watch<R>(&mut self, cx: &mut Context<'_>, outcome: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if outcome.is_ready() {
            self.stall = None;
            return outcome;
        }
        let limit = self.stall_limit;
        let stall = self.stall.get_or_insert_with(|| Box::pin(actix_web::rt::time::sleep(limit)));
        if stall.as_mut().poll(cx).is_ready() {
            self.stall = None;
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing of the answer for {} s", limit.as_secs()),
            )));
        }
        Poll::Pending
    }
}

/// The JSON body for a status actix-http answers on its own.
fn body_for(status: u16) -> Option<String> {
    let refused = match status {
        400 => Unframed::Malformed,
        408 => Unframed::HeadersLate,
        431 => Unframed::HeadersTooLarge,
        _ => return None,
    };
    Some(ApiError::Unframed(refused).body())
}

/// `buf` with its head rewritten to carry the JSON body, when it starts with a protocol-level error
/// answer with an empty body.
pub fn rewrite(buf: &[u8]) -> Option<Vec<u8>> {
    if !buf.starts_with(b"HTTP/1.") || buf.len() < 13 {
        return None;
    }
    let status: u16 = std::str::from_utf8(&buf[9..12]).ok()?.parse().ok()?;
    let body = body_for(status)?;
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 2;
    let head = std::str::from_utf8(&buf[..end]).ok()?;
    let empty = head.lines().any(|l| l.eq_ignore_ascii_case("content-length: 0"));
    if !empty {
        return None;
    }
    let mut out = String::with_capacity(head.len() + body.len() + 64);
    for line in head.split_inclusive("\r\n") {
        if line.trim_end().eq_ignore_ascii_case("content-length: 0") {
            out.push_str(&format!("content-type: application/json\r\ncontent-length: {}\r\n", body.len()));
            out.push_str(super::errors::RAW_SECURITY_HEADERS);
        } else {
            out.push_str(line);
        }
    }
    out.push_str("\r\n");
    out.push_str(&body);
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&buf[end + 2..]);
    Some(bytes)
}

impl<T: AsyncWrite + Unpin> JsonErrors<T> {
    /// Writes what is pending; ready with the number of caller bytes it stood for once all is out.
    fn drive(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<usize>>> {
        while let Some((bytes, written, _)) = &mut self.pending {
            if *written == bytes.len() {
                let (_, _, stands_for) = self.pending.take().unwrap_or_default();
                return Poll::Ready(Ok(Some(stands_for)));
            }
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(None))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonErrors<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonErrors<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none()
            && let Some(bytes) = rewrite(buf)
        {
            this.pending = Some((bytes, 0, buf.len()));
        }
        if this.pending.is_some() {
            // The caller retries with the same bytes until told they are written.
            return match ready!(this.drive(cx))? {
                Some(n) => Poll::Ready(Ok(n)),
                None => Poll::Ready(Ok(0)),
            };
        }
        let outcome = Pin::new(&mut this.io).poll_write(cx, buf);
        this.watch(cx, outcome)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drive(cx))?;
        let this = &mut *self;
        let outcome = Pin::new(&mut this.io).poll_flush(cx);
        this.watch(cx, outcome)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drive(cx))?;
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `total` bytes through a [`JsonErrors`] with the stall limit `stall`, to a loopback
    /// peer that reads with `read` (on a thread of its own); the write's outcome and time.
    fn write_to(
        total: usize,
        stall: Duration,
        read: impl FnOnce(std::net::TcpStream) + Send + 'static,
    ) -> (io::Result<()>, Duration) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || read(listener.accept().unwrap().0));
        let outcome = actix_web::rt::System::new().block_on(async move {
            let stream = actix_web::rt::net::TcpStream::connect(addr).await.unwrap();
            let mut conn = JsonErrors::with_stall_limit(stream, stall);
            let chunk = vec![b'x'; 64 * 1024];
            let started = std::time::Instant::now();
            let mut written = 0;
            let result = async {
                while written < total {
                    let n = std::future::poll_fn(|cx| Pin::new(&mut conn).poll_write(cx, &chunk)).await?;
                    written += n;
                }
                std::future::poll_fn(|cx| Pin::new(&mut conn).poll_shutdown(cx)).await
            }
            .await;
            (result, started.elapsed())
        });
        peer.join().unwrap();
        outcome
    }

    #[test]
    fn a_write_that_waits_on_the_reader_times_out() {
        // A peer that never reads: the socket's buffers fill, then the writes wait, and fail.
        let (result, took) = write_to(256 << 20, Duration::from_millis(300), |socket| {
            std::thread::sleep(Duration::from_secs(3));
            drop(socket);
        });
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(took < Duration::from_secs(2), "{took:?}");
        // A peer that reads, slowly but steadily, is never cut off (TCP opens its window in large
        // steps, so a steady reader may let the writer wait a while: far less than the limit).
        let (result, _) = write_to(16 << 20, Duration::from_secs(3), |mut socket| {
            use std::io::Read;
            let mut buf = vec![0; 64 * 1024];
            while socket.read(&mut buf).is_ok_and(|n| n > 0) {
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        result.unwrap();
    }

    #[test]
    fn protocol_errors_get_the_json_body() {
        let head = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(rewrite(head).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.contains("content-type: application/json"), "{out}");
        assert!(head.contains(&format!("content-length: {}", body.len())), "{out}");
        assert!(head.contains("connection: close"), "{out}");
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], "request_timeout");
        // The service's own answers, with bodies, and other statuses pass as they are.
        assert!(rewrite(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 57\r\n\r\n{...}").is_none());
        assert!(rewrite(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(rewrite(b"<svg").is_none());
    }
}
