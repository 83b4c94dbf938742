//! Work limits and the deadline of one run, checked at the stages' checkpoints.
//!
//! A hostile dump a few kilobytes long (gzip makes it a few hundred bytes) can ask for millions of
//! tiles, lines or syntax nodes; byte limits alone do not bound the work. So every run carries
//! [`Limits`] that no real dump comes near, and each stage refuses what is over them, naming the
//! limit as data ([`Detail::OverLimit`]) so each shell can say how it is raised. A run may also carry a deadline (the service's render
//! timeout): parse, analysis, layout and rasterizing call [`checkpoint`], which stops a run past it, so
//! a render the client has given up on frees its thread instead of burning it.
//!
//! Why a thread-local rather than a parameter: limits and the deadline belong to the run, not to any
//! stage's data, and every stage (owned by different modules) would otherwise grow an argument it
//! only passes on. The run installs its budget with [`run`]; code outside a run gets the defaults and
//! no deadline.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub use crate::error::Limit;
use crate::error::{Detail, Error, ErrorKind, Result};

/// How much one run may do. The defaults are far above the largest real dumps (a 481 KB dump has at
/// most 160 lines and 54 tiles per function, and statements of a few hundred tokens).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Tiles bound in one function (`--max-tiles`).
    pub tiles_per_function: usize,
    /// Lines of one function (`--max-lines`).
    pub lines_per_function: usize,
    /// Tokens (names, numbers, operators) of one statement: bounds the syntax nodes, and so the
    /// memory, that one line of input can make the parser allocate (`--max-statement-tokens`).
    pub tokens_per_statement: usize,
    /// Tokens of the stretch of the dump the parser holds at a time (`--max-tokens`): a function, a
    /// class header with its first function, or a part of a long function's body (see
    /// `dump::guard`). Its syntax tree takes about 100 bytes a token, so this bounds the parser's
    /// memory per thread.
    pub tokens_per_function: usize,
    /// Bytes of one output (`--max-output-bytes`).
    pub output_bytes: usize,
    /// Milliseconds the packer may search one space (`--pack-deadline`). `None`: 50 ms within the
    /// map's own packing budget; given, the map's budget is at least that, so one hard space gets it.
    pub pack_deadline_ms: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            tiles_per_function: 250_000,
            lines_per_function: 250_000,
            tokens_per_statement: 20_000,
            tokens_per_function: 5_000_000,
            output_bytes: 512 * 1024 * 1024,
            pack_deadline_ms: None,
        }
    }
}

impl Limits {
    /// This run's value of `limit`.
    pub fn get(&self, limit: Limit) -> usize {
        match limit {
            Limit::Tiles => self.tiles_per_function,
            Limit::Lines => self.lines_per_function,
            Limit::StatementTokens => self.tokens_per_statement,
            Limit::Tokens => self.tokens_per_function,
            Limit::OutputBytes => self.output_bytes,
        }
    }

    /// The refusal for `what` (`"tiles in function f"`) at `count`, over `limit`, whose value in
    /// this run is `allowed`. How to raise it is the shell's to say.
    pub fn refuse(what: &str, count: usize, allowed: usize, limit: Limit) -> Error {
        Error::of(ErrorKind::OverLimit, Detail::OverLimit { limit, what: what.to_string(), count, allowed })
    }
}

/// One run's limits, deadline and cancel flag.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// What one run may use.
    pub limits: Limits,
    /// When it must have finished, if ever.
    pub deadline: Option<Instant>,
    /// Set by whoever gave up waiting (the service on a timeout): the run stops at its next checkpoint.
    pub cancelled: Arc<AtomicBool>,
    /// The most threads the run may spread one dump's functions over (see [`crate::par`]); `None`
    /// is every core. The service gives 1: its render threads already spread requests over the cores.
    pub threads: Option<usize>,
}

thread_local! {
    static CURRENT: RefCell<Budget> = RefCell::new(Budget::default());
}

/// Runs `f` with `budget` installed on this thread, restoring the previous one after.
pub fn run<T>(budget: Budget, f: impl FnOnce() -> T) -> T {
    let previous = CURRENT.with(|c| c.replace(budget));
    let out = f();
    CURRENT.with(|c| *c.borrow_mut() = previous);
    out
}

/// The budget of the run on this thread, to carry onto a helper thread with [`run`].
pub fn current() -> Budget {
    CURRENT.with(|c| c.borrow().clone())
}

/// When the run on this thread must stop, for a library that takes a deadline of its own.
pub fn deadline() -> Option<Instant> {
    CURRENT.with(|c| c.borrow().deadline)
}

/// The limits of the run on this thread.
pub fn limits() -> Limits {
    CURRENT.with(|c| c.borrow().limits)
}

/// The most threads the run on this thread may use; `None` is every core.
pub fn threads() -> Option<usize> {
    CURRENT.with(|c| c.borrow().threads)
}

/// Whether the run should stop, for loops that cannot return an error: they stop early, and the
/// next [`checkpoint`] reports it (what they produced is never used).
pub fn expired() -> bool {
    checkpoint().is_err()
}

/// Whether a builder of an output now `len` bytes long should stop: past the run's output limit
/// (the writer then refuses what was built, so nothing past the limit is ever made whole) or past
/// its deadline (the run's next checkpoint reports it).
pub fn output_done(len: usize) -> bool {
    len > limits().output_bytes || expired()
}

/// A writer into memory that fails once what it holds is past the run's output limit, so a
/// serializer stops there rather than build the whole: what it holds is then just past the limit,
/// which the output's writer refuses. Give it large writes (see [`json_capped`]): it asks the
/// run's deadline on each.
#[derive(Debug)]
pub struct Capped {
    /// What was written so far.
    pub bytes: Vec<u8>,
    limit: usize,
}

impl Default for Capped {
    fn default() -> Self {
        Capped { bytes: Vec::new(), limit: limits().output_bytes }
    }
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        if self.bytes.len() > self.limit || expired() {
            return Err(std::io::Error::other("over the output limit or past the deadline"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `value` as pretty JSON with a trailing newline, built no further than the run's output limit.
pub fn json_capped<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = Capped::default();
    // Serde writes a token at a time: buffered, the limit and the deadline are asked once per 64 KB
    // (asked per token, they were a fifth of writing the decode case's JSON). An error is the cap
    // (or the deadline): what was written so far is kept for the caller to refuse.
    let mut buffered = std::io::BufWriter::with_capacity(64 * 1024, &mut out);
    let whole = serde_json::to_writer_pretty(&mut buffered, value).is_ok() && buffered.flush().is_ok();
    drop(buffered);
    if whole {
        out.bytes.push(b'\n');
    }
    out.bytes
}

/// Stops the run when it was cancelled or its deadline has passed; cheap enough to call per line.
pub fn checkpoint() -> Result<()> {
    CURRENT.with(|c| {
        let b = c.borrow();
        let late = b.deadline.is_some_and(|d| Instant::now() >= d);
        if late || b.cancelled.load(Ordering::Relaxed) {
            return Err(Error::of(ErrorKind::Cancelled, Detail::Deadline));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_past_its_deadline_stops_at_the_next_checkpoint() {
        assert!(checkpoint().is_ok());
        let budget = Budget { deadline: Some(Instant::now()), ..Budget::default() };
        let err = run(budget, checkpoint).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Cancelled);
        let flag = Arc::new(AtomicBool::new(true));
        assert!(run(Budget { cancelled: flag, ..Budget::default() }, checkpoint).is_err());
        assert!(checkpoint().is_ok(), "the budget is restored after the run");
    }
}
