//! What answers hold: one budget of answer bytes for all clients at once, and a body that gives its
//! bytes to the connection a slice at a time.
//!
//! Why: a request is small and bounded (`body`), but its answer may be a hundred times larger (a
//! picture of a large dump), and a client that never reads holds its answer for as long as its
//! connection lasts (until `wire`'s write timeout). Without a total, a few such clients hold
//! gigabytes. So every picture answered reserves its size here until its body is dropped (sent,
//! or the connection closed); past the budget the client is told to come back (503 with
//! `Retry-After`), before any render is spent on it when the budget is already spent. Small answers
//! (at most [`SMALL`] bytes: errors, links, most pictures) have a reserve of their own above the
//! budget, a quarter of it, so that clients holding large answers cannot keep everyone else out.
//!
//! The output limit of a render is set here too: proportionate to its dump ([`within_output_for`]).
//!
//! Why slices: actix-http copies each chunk a body yields into the connection's write buffer, and
//! asks for the next only once that buffer has drained; yielding the answer whole would copy it
//! whole (twice the memory). Slices of a shared `Bytes` copy nothing until they are written.
//!
//! Why a spool: a render's output stays in memory only up to [`SPOOL_AT`] bytes (or as much as the
//! render cache would keep); past that it goes on, as it is drawn, into an unnamed temporary file
//! ([`Spool`]), which the body reads a slice at a time. A client that never reads a 240 MB answer
//! then holds a file and one slice of memory, not the answer. The budget counts spooled bytes too,
//! so it bounds the disk the answers take as it bounded their memory.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use actix_web::web::Bytes;

use super::errors::{ApiError, Busy};

/// Bytes handed to the connection at a time.
const SLICE: usize = 64 * 1024;

/// The largest answer that may use the reserve above the budget.
pub const SMALL: usize = 1024 * 1024;

/// Output bytes a render keeps in memory before it spools the rest to a temporary file.
pub const SPOOL_AT: usize = 4 * 1024 * 1024;

/// An answer's bytes: in memory (shared with the render cache, if it keeps them), or in a spool
/// file.
pub enum Answer {
    Memory(Bytes),
    Spooled { file: File, len: u64 },
}

impl Answer {
    pub fn len(&self) -> u64 {
        match self {
            Answer::Memory(b) => b.len() as u64,
            Answer::Spooled { len, .. } => *len,
        }
    }

    /// The bytes in memory, when they are there (what the render cache may keep).
    pub fn in_memory(&self) -> Option<&Bytes> {
        match self {
            Answer::Memory(b) => Some(b),
            Answer::Spooled { .. } => None,
        }
    }
}

impl From<Bytes> for Answer {
    fn from(bytes: Bytes) -> Answer {
        Answer::Memory(bytes)
    }
}

/// A render's output as it is written: in memory up to `keep` bytes, then in an unnamed file in
/// the system's temporary folder (`TMPDIR`), unlinked as soon as it is made, so that it is gone
/// with the answer however the process ends.
pub struct Spool {
    keep: usize,
    /// Where the file goes: the system's temporary folder.
    dir: std::path::PathBuf,
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
    len: u64,
}

impl Spool {
    pub fn new(keep: usize) -> Spool {
        Spool { keep, dir: std::env::temp_dir(), memory: Vec::new(), file: None, len: 0 }
    }

    pub fn finish(self) -> io::Result<Answer> {
        match self.file {
            None => Ok(Answer::Memory(Bytes::from(self.memory))),
            Some(writer) => {
                let mut file = writer.into_inner().map_err(|e| e.into_error())?;
                file.rewind()?;
                Ok(Answer::Spooled { file, len: self.len })
            }
        }
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.file.is_none() && self.memory.len() + buf.len() > self.keep {
            match spool_file(&self.dir) {
                Ok(file) => {
                    let mut file = BufWriter::with_capacity(SLICE, file);
                    file.write_all(&std::mem::take(&mut self.memory))?;
                    self.file = Some(file);
                }
                // No temporary folder to write to (a read-only root, TMPDIR gone): the answer stays
                // in memory, as answers did before spooling, still within the answer budget.
                Err(e) => {
                    let line = serde_json::json!({ "level": "warn", "message": format!("cannot spool an answer to {}: {e}; kept in memory", self.dir.display()) });
                    let _ = writeln!(io::stderr(), "{line}");
                    self.keep = usize::MAX;
                }
            }
        }
        match &mut self.file {
            Some(file) => file.write_all(buf)?,
            None => self.memory.extend_from_slice(buf),
        }
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().map_or(Ok(()), |f| f.flush())
    }
}

/// A new file for one answer, already unlinked: only its handle reaches it. Its name is not
/// guessable (another local user cannot take it first), it is never an existing file
/// (`create_new`), and only the service's user may read it in the moment before it is unlinked.
fn spool_file(dir: &std::path::Path) -> io::Result<File> {
    use std::hash::{BuildHasher, Hasher};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let random = std::collections::hash_map::RandomState::new().build_hasher().finish();
    let name =
        format!("pto-memory-map-{}-{}-{random:016x}.spool", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let path = dir.join(name);
    let mut open = std::fs::OpenOptions::new();
    open.read(true).write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let file = open.open(&path)?;
    if let Err(e) = std::fs::remove_file(&path) {
        // Not unlinked: not used either, so that nothing is left behind with an answer in it.
        drop(file);
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok(file)
}

/// The answer bytes all clients hold at once, and the most they may.
pub struct AnswerBudget {
    held: Arc<AtomicUsize>,
    cap: usize,
}

impl AnswerBudget {
    pub fn new(cap: usize) -> AnswerBudget {
        AnswerBudget { held: Arc::new(AtomicUsize::new(0)), cap }
    }

    /// Bytes answers hold now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// The budget and the small answers' reserve above it.
    fn ceiling(&self) -> usize {
        self.cap.saturating_add(self.cap / 4)
    }

    /// 503 when answers already hold the whole budget and its reserve: checked before a render, so
    /// that none is spent on an answer that could not be given.
    pub fn check(&self) -> Result<(), ApiError> {
        if self.held() >= self.ceiling() { Err(full(self.held(), self.cap)) } else { Ok(()) }
    }

    /// [`AnswerBudget::check`] for a render of `input` dump bytes: a large one (past
    /// [`super::pool::LARGE_INPUT`], whose picture may be hundreds of MB) also needs half the
    /// budget free, so that it is not made only to be refused, and the memory of one such render
    /// is not added to answers that already hold most of the budget.
    pub fn check_for(&self, input: usize) -> Result<(), ApiError> {
        self.check()?;
        if input > super::pool::LARGE_INPUT && self.held() > self.cap / 2 {
            return Err(full(self.held(), self.cap));
        }
        Ok(())
    }

    /// `answer` as a body that holds its share of the budget until it is dropped; 503 when it does
    /// not fit beside what the other answers hold (a small one: within the reserve too).
    pub fn body(&self, answer: impl Into<Answer>) -> Result<Budgeted, ApiError> {
        let answer = answer.into();
        let size = usize::try_from(answer.len()).unwrap_or(usize::MAX);
        let limit = if size <= SMALL { self.ceiling() } else { self.cap };
        let mut held = self.held.load(Ordering::Acquire);
        loop {
            // One answer larger than the whole budget (as large as the output limit allows) is
            // given when it is the only one.
            if held + size > limit && held > 0 {
                return Err(full(held, self.cap));
            }
            match self.held.compare_exchange_weak(held, held + size, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(now) => held = now,
            }
        }
        let total = answer.len();
        Ok(Budgeted { total, rest: answer, held: self.held.clone(), size })
    }
}

fn full(held: usize, cap: usize) -> ApiError {
    ApiError::Busy(Busy::Answers { held, cap })
}

/// An answer's bytes, given out in slices, holding their share of the budget while alive.
pub struct Budgeted {
    total: u64,
    /// What is left to give: the bytes not yet given, or the spool file at the next slice.
    rest: Answer,
    held: Arc<AtomicUsize>,
    size: usize,
}

impl Drop for Budgeted {
    fn drop(&mut self) {
        self.held.fetch_sub(self.size, Ordering::AcqRel);
    }
}

impl MessageBody for Budgeted {
    type Error = io::Error;

    fn size(&self) -> BodySize {
        BodySize::Sized(self.total)
    }

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Bytes, io::Error>>> {
        let this = self.get_mut();
        let n = this.rest.len().min(SLICE as u64) as usize;
        if n == 0 {
            return Poll::Ready(None);
        }
        Poll::Ready(Some(match &mut this.rest {
            Answer::Memory(bytes) => Ok(bytes.split_to(n)),
            // Read on the connection's worker: a slice of a file just written, so from the page
            // cache; a failed read ends the connection, as a failed write would.
            Answer::Spooled { file, len } => {
                let mut slice = vec![0; n];
                file.read_exact(&mut slice).map(|()| {
                    *len -= n as u64;
                    Bytes::from(slice)
                })
            }
        }))
    }
}

/// The smallest output limit a render of the service gets, however small its dump.
const OUTPUT_FLOOR: usize = 64 * 1024 * 1024;
/// Output bytes a render may make per byte of its dump, above the floor. Small dumps legitimately
/// draw pictures 100 times their size; a picture far beyond that is an amplification, not a map.
const OUTPUT_PER_INPUT_BYTE: usize = 128;

/// Runs `render` (on a render thread) with its output limited in proportion to its `input` bytes,
/// with [`OUTPUT_FLOOR`] as the least, and never more than the service's `--max-output-bytes`.
pub(super) fn within_output_for<T>(input: usize, render: impl FnOnce() -> T) -> T {
    let mut budget = crate::budget::current();
    let proportionate = input.saturating_mul(OUTPUT_PER_INPUT_BYTE).max(OUTPUT_FLOOR);
    budget.limits.output_bytes = budget.limits.output_bytes.min(proportionate);
    crate::budget::run(budget, render)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::StatusCode;

    #[test]
    fn answers_hold_the_budget_until_dropped() {
        const M: usize = 1 << 20;
        let budget = AnswerBudget::new(3 * M);
        let a = budget.body(Bytes::from(vec![1; 2 * M])).unwrap();
        assert_eq!(budget.held(), 2 * M);
        assert!(budget.check().is_ok());
        let err = budget.body(Bytes::from(vec![2; 3 * M / 2])).err().unwrap();
        assert_eq!((err.status(), err.code()), (StatusCode::SERVICE_UNAVAILABLE, "busy"));
        assert!(matches!(err, ApiError::Busy(Busy::Answers { held, cap }) if (held, cap) == (2 * M, 3 * M)), "{err}");
        let b = budget.body(Bytes::from(vec![3; M])).unwrap();
        assert_eq!(budget.held(), 3 * M);
        // Small answers still have the reserve (a quarter of the budget)...
        assert!(budget.check().is_ok());
        let small = budget.body(Bytes::from(vec![4; 3 * M / 4])).unwrap();
        // ...and once that is spent too, requests are refused before a render.
        assert!(budget.check().is_err(), "spent: refused before a render");
        assert!(budget.body(Bytes::from(vec![5; 1])).is_err());
        drop((a, small));
        assert_eq!(budget.held(), M);
        drop(b);
        assert_eq!(budget.held(), 0);
        // Alone, an answer larger than the budget is given; beside it, nothing large.
        let huge = budget.body(Bytes::from(vec![6; 4 * M])).unwrap();
        assert!(budget.body(Bytes::from(vec![7; 2 * M])).is_err());
        assert!(budget.check_for(super::super::pool::LARGE_INPUT + 1).is_err());
        drop(huge);
        assert!(budget.check_for(super::super::pool::LARGE_INPUT + 1).is_ok());
    }

    #[test]
    fn the_body_gives_its_bytes_in_slices() {
        actix_web::rt::System::new().block_on(async {
            let budget = AnswerBudget::new(1 << 20);
            let bytes = Bytes::from((0..200_000u32).map(|i| i as u8).collect::<Vec<u8>>());
            let body = budget.body(bytes.clone()).unwrap();
            assert_eq!(body.size(), BodySize::Sized(200_000));
            let mut body = std::pin::pin!(body);
            let mut got = Vec::new();
            let mut slices = 0;
            while let Some(chunk) = std::future::poll_fn(|cx| body.as_mut().poll_next(cx)).await {
                let chunk = chunk.unwrap();
                assert!(chunk.len() <= SLICE);
                got.extend_from_slice(&chunk);
                slices += 1;
            }
            assert_eq!((got.as_slice(), slices), (&bytes[..], 4));
        });
    }

    #[test]
    fn a_spool_keeps_small_answers_in_memory_and_gives_large_ones_from_a_file() {
        let text: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut small = Spool::new(text.len());
        small.write_all(&text).unwrap();
        assert!(small.finish().unwrap().in_memory().is_some_and(|b| b[..] == text[..]));
        let mut large = Spool::new(1000);
        for piece in text.chunks(7_000) {
            large.write_all(piece).unwrap();
        }
        let answer = large.finish().unwrap();
        assert!(matches!(answer, Answer::Spooled { len: 300_000, .. }), "spooled past 1000 bytes");
        actix_web::rt::System::new().block_on(async {
            let budget = AnswerBudget::new(1 << 20);
            let body = budget.body(answer).unwrap();
            assert_eq!((body.size(), budget.held()), (BodySize::Sized(300_000), 300_000));
            let mut body = std::pin::pin!(body);
            let mut got = Vec::new();
            while let Some(chunk) = std::future::poll_fn(|cx| body.as_mut().poll_next(cx)).await {
                let chunk = chunk.unwrap();
                assert!(chunk.len() <= SLICE);
                got.extend_from_slice(&chunk);
            }
            assert!(got == text, "the file gives back what was written, in order");
        });
    }

    #[test]
    fn a_spool_with_nowhere_to_write_keeps_the_answer_in_memory_and_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("pmm-spool-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut gone = Spool { dir: dir.join("missing"), ..Spool::new(10) };
        gone.write_all(&[7; 100]).unwrap();
        assert!(gone.finish().unwrap().in_memory().is_some_and(|b| b[..] == [7; 100]));
        std::fs::create_dir_all(&dir).unwrap();
        let mut spooled = Spool { dir: dir.clone(), ..Spool::new(10) };
        spooled.write_all(&[8; 100]).unwrap();
        let answer = spooled.finish().unwrap();
        assert!(matches!(answer, Answer::Spooled { len: 100, .. }));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the spool file has no name left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_output_limit_is_proportionate_to_the_dump_with_a_floor() {
        let limit = |input: usize, configured: usize| {
            let budget = crate::budget::Budget {
                limits: crate::budget::Limits { output_bytes: configured, ..Default::default() },
                ..Default::default()
            };
            crate::budget::run(budget, || within_output_for(input, || crate::budget::limits().output_bytes))
        };
        let max = 512 << 20;
        assert_eq!(limit(1_000, max), OUTPUT_FLOOR, "a small dump gets the floor");
        assert_eq!(limit(1 << 20, max), 128 << 20, "a 1 MiB dump: 128 MiB");
        assert_eq!(limit(32 << 20, max), max, "never past --max-output-bytes");
        assert_eq!(limit(1_000, 1 << 20), 1 << 20, "nor past a smaller one");
        assert_eq!(limit(usize::MAX, max), max);
    }
}
