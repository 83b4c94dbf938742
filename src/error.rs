//! One error type for the whole pipeline, sorted by who has to act on it.
//!
//! The CLI turns every kind into `error: ...` and an exit status; the HTTP service maps the kind to
//! a status code. The message says what is wrong and where. What the user can change about it
//! (a limit to raise, options that draw a smaller picture) is kept as data in [`Detail`], because
//! each shell names its own knobs: the command line says `--scale 1`, the service `scale=1`. The
//! shells word it (`option_table::describe`); nothing here or there edits a message after it is made.

use std::fmt;

/// Why a dump could not be drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The path, pass or backend named by the user does not exist.
    NotFound,
    /// The input cannot be read: not UTF-8, not Python, nested too deep.
    Unreadable,
    /// A readable dump that has nothing to draw.
    Refused,
    /// An option value that makes no sense (unknown space, zoom out of range...).
    Usage,
    /// The picture would be too large to rasterize safely.
    TooLarge,
    /// Reading or writing a file failed.
    Io,
    /// The input asks for more work than a limit allows (tiles or lines per function, tokens per
    /// statement, output bytes); [`Detail::OverLimit`] says which.
    OverLimit,
    /// The run passed its deadline and stopped (see [`crate::budget`]).
    Cancelled,
}

impl ErrorKind {
    /// Every kind, for what must cover them all (the JSON error's documentation and its tests).
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::NotFound,
        ErrorKind::Unreadable,
        ErrorKind::Refused,
        ErrorKind::Usage,
        ErrorKind::TooLarge,
        ErrorKind::Io,
        ErrorKind::OverLimit,
        ErrorKind::Cancelled,
    ];

    /// The kind's stable name in machine-readable errors (`--error-format json`, the Python
    /// package's exceptions): a program decides by this, never by the message's words.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::Unreadable => "unreadable",
            ErrorKind::Refused => "nothing_to_draw",
            ErrorKind::Usage => "usage",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::Io => "io",
            ErrorKind::OverLimit => "over_limit",
            ErrorKind::Cancelled => "cancelled",
        }
    }

    /// What to do about an error of this kind when its message names no more precise way out.
    pub fn remedy(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "check the path, the pass name and the backend named",
            ErrorKind::Unreadable => "give the pass dump PyPTO wrote, unedited",
            ErrorKind::Refused => "draw the dump after AllocateMemoryAddr (or a later pass)",
            ErrorKind::Usage => "correct the option as the message says (--help lists them all)",
            ErrorKind::TooLarge => "draw fewer functions (--function NAME), one file each (--split) or at --scale 1",
            ErrorKind::Io => "check that the folder exists and can be written",
            ErrorKind::OverLimit => "raise the limit the message names if this input is meant",
            ErrorKind::Cancelled => "run it again with more time, or on a smaller input",
        }
    }
}

/// Where in a file an error is: the dump's name as messages give it, its line and column (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as the message names it.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A work limit of [`crate::budget::Limits`], named so each shell can say how it is raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Tiles bound in one function.
    Tiles,
    /// Lines of one function.
    Lines,
    /// Tokens of one statement.
    StatementTokens,
    /// Tokens of the stretch of the dump the parser holds at a time.
    Tokens,
    /// Bytes of one output.
    OutputBytes,
}

/// Something the user can change to get past an error, as data: the shell words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advice {
    /// Give the option whose table key is `option` (`scale`, `x_axis`) the value `value`.
    Set {
        /// The option table's key (its HTTP name).
        option: &'static str,
        /// The value to give, or a placeholder (`NAME`) the user fills in.
        value: String,
    },
    /// Write one file per function (only the command line can).
    Split,
}

/// What went wrong, as data, for the errors whose remedy depends on the shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// A work limit was passed: `count` of what `limit` counts, over `allowed`.
    OverLimit {
        /// Which limit.
        limit: Limit,
        /// How many the input asked for (at the point it was stopped).
        count: usize,
        /// The limit's value in this run.
        allowed: usize,
    },
    /// A picture too large to rasterize.
    PictureTooLarge {
        /// Width in pixels.
        width: u64,
        /// Height in pixels.
        height: u64,
        /// The most pixels a picture may have.
        max_pixels: u64,
        /// The small spaces whose lanes set the byte scale and so widen the map, when they do.
        widening: Vec<String>,
        /// The functions drawn, when there are several: one of them is a picture that may fit.
        functions: Vec<String>,
        /// What would make it smaller, most effective first.
        advice: Vec<Advice>,
    },
    /// An option's value is not one it takes.
    BadValue {
        /// The option table's key (its HTTP name).
        option: &'static str,
        /// The value given (clipped for display by whoever shows it).
        value: String,
        /// What it takes: `limit or used`, `a number in 0.2..64`.
        expected: String,
    },
}

/// An error with a message written for the person who ran the tool.
#[derive(Debug, Clone)]
pub struct Error {
    /// What went wrong, which decides the exit status and the HTTP status.
    pub kind: ErrorKind,
    /// What and where, in words that hold for every shell.
    pub message: String,
    /// What the user can change, for the shell to word; `None` for errors whose message says it all.
    pub detail: Option<Box<Detail>>,
    /// Where in the dump the error is, when it points into one; the message then starts with it.
    pub location: Option<Box<Location>>,
}

impl Error {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), detail: None, location: None }
    }

    /// An error of `kind` at `location` of a dump: the message is `FILE:LINE:COL: what`, and the
    /// place is kept as data too, for the shells that point at it (editors, CI annotations).
    pub fn at(kind: ErrorKind, location: Location, what: impl fmt::Display) -> Self {
        let message = format!("{location}: {what}");
        Error { kind, message, detail: None, location: Some(Box::new(location)) }
    }

    /// This error placed at `location`, its message prefixed with it.
    pub fn placed(mut self, location: Location) -> Self {
        self.message = format!("{location}: {}", self.message);
        self.location = Some(Box::new(location));
        self
    }

    /// An error of `kind` saying `message`, with `detail` for the shell to word.
    pub fn with_detail(kind: ErrorKind, message: impl Into<String>, detail: Detail) -> Self {
        Error { kind, message: message.into(), detail: Some(Box::new(detail)), location: None }
    }

    /// An option value that is not accepted: `option` is the option table's key.
    pub fn bad_value(option: &'static str, value: &str, expected: impl Into<String>) -> Self {
        let expected = expected.into();
        Error::with_detail(
            ErrorKind::Usage,
            format!("{option} '{value}' is not accepted; it takes {expected}"),
            Detail::BadValue { option, value: value.to_string(), expected },
        )
    }
}

/// The message alone: a shell adds its own words for the [`Detail`].
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;
