//! One error type for the whole pipeline, sorted by who has to act on it.
//!
//! The CLI turns every kind into `error: ...` and exit 1; the HTTP service maps the kind to a status
//! code. The message always says what is wrong, where, and what to do.

use std::fmt;

/// Why a dump could not be drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The path, pass or backend named by the user does not exist.
    NotFound,
    /// The input cannot be read: not UTF-8, not Python, nested too deep.
    Unreadable,
    /// A readable dump that has nothing to draw (requirement I2).
    Refused,
    /// An option value that makes no sense (unknown space, zoom out of range...).
    Usage,
    /// The picture would be too large to rasterize safely.
    TooLarge,
    /// Reading or writing a file failed.
    Io,
    /// The input asks for more work than a limit allows (tiles or lines per function, tokens per
    /// statement, output bytes); the message names the limit and the option that raises it.
    OverLimit,
    /// The run passed its deadline and stopped (see [`crate::budget`]).
    Cancelled,
}

/// An error with a message written for the person who ran the tool.
#[derive(Debug, Clone)]
pub struct Error {
    /// What went wrong, which decides the exit status and the HTTP status.
    pub kind: ErrorKind,
    /// What, where and what to do, in words.
    pub message: String,
}

impl Error {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;
