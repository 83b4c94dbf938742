//! One error type for the whole pipeline, sorted by who has to act on it.
//!
//! The CLI turns every kind into `error: ...` and an exit status; the HTTP service maps the kind to
//! a status code. An error keeps what went wrong as data ([`Detail`]: the path, the value, the
//! names there are, the limit) and where ([`Location`]), and its words are made from that data in
//! one place, [`Detail`]'s `Display` and [`Detail::remedy`] (in `words.rs`). What the user can change about it (a
//! limit to raise, options that draw a smaller picture) is named differently by each shell: the
//! command line says `--scale 1`, the service `scale=1`, so those words are the shells' own
//! (`option_table::describe`). Nothing decides anything by reading a message, and nothing edits one.

mod words;

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

/// What went wrong, as data: the values involved, for each shell to word and a program to read.
///
/// The variants group errors by shape, not by the place that raises them: a file that could not
/// be read or written, a value an option does not take, a name the input does not have, and so on.
/// [`Detail::Text`] is the few errors whose every value is already in their sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// A sentence alone (a parser's description of a dump's bad spot, clap's refusal).
    Text(String),
    /// A work limit was passed: `count` of `what` (`tiles in function f`), over `allowed`.
    OverLimit {
        /// Which limit.
        limit: Limit,
        /// What was counted, in words.
        what: String,
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
        /// Whether the size is a lower bound, counted before drawing.
        at_least: bool,
        /// The small spaces whose lanes set the byte scale and so widen the map, when they do.
        widening: Vec<String>,
        /// The functions drawn, when there are several: one of them is a picture that may fit.
        functions: Vec<String>,
        /// What would make it smaller, most effective first.
        advice: Vec<Advice>,
    },
    /// A picture (or a strip of one) whose pixels could not be allocated.
    NoRoomFor {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// An option's value is not one it takes.
    BadValue {
        /// The option table's key (its HTTP name), or a command-line-only flag with its dashes.
        option: &'static str,
        /// The value given (clipped for display by whoever shows it).
        value: String,
        /// What it takes: `limit or used`, `a number in 0.2..64`.
        expected: String,
    },
    /// A name the input (or this tool) does not have, and the names it has.
    Unknown {
        /// What sort of name.
        what: Named,
        /// The name asked for.
        name: String,
        /// The names there are.
        known: Vec<String>,
    },
    /// A file or folder that could not be read, written or created.
    File {
        /// The path, as the user gave it; `None` until the writer that knows it fills it in.
        path: Option<String>,
        /// What was being done.
        op: FileOp,
        /// Why it failed.
        problem: FileProblem,
    },
    /// The path given holds no dump to draw.
    Missing {
        /// The path given.
        path: String,
        /// What is not there.
        what: Missing,
    },
    /// A readable dump with nothing to draw.
    NothingToDraw {
        /// The dump.
        file: String,
        /// Why.
        why: Empty,
    },
    /// A SoC description that cannot be used.
    Soc {
        /// The SoC file.
        file: String,
        /// What is wrong with it.
        problem: SocProblem,
    },
    /// A packing instance that cannot be packed.
    Pack(PackProblem),
    /// A command line that asks for something that cannot be done as asked.
    Misuse(Misuse),
    /// A step that failed for a reason outside the input: `reason` is the system's or library's.
    Failed {
        /// What was being done.
        task: Task,
        /// The system's words, when it gave any.
        reason: Option<String>,
    },
    /// The run passed its deadline (see [`crate::budget`]).
    Deadline,
    /// Cases of a folder that could not be drawn (each said so as it failed).
    CasesFailed {
        /// How many.
        count: usize,
    },
}

/// The sort of name an [`Detail::Unknown`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// A backend (`-b`).
    Backend,
    /// A finding's code (`explain CODE`).
    FindingCode,
    /// A memory space of the dump (`hide`).
    Space,
    /// A memory space asked about by `fit`, in the dump or in this backend.
    FitSpace {
        /// The backend's name.
        backend: String,
    },
    /// A compute function of the dump (`function`).
    Function,
    /// A function of the dump that binds no tile, so has no map: its type (`Orchestration`).
    FunctionWithoutMap {
        /// The function's type.
        ftype: String,
    },
    /// A space a gate of `check` names (`--max-hwm`), in no map checked or its backend.
    GateSpace {
        /// The gate's flag.
        option: &'static str,
        /// The backends of the maps checked.
        backends: Vec<String>,
        /// A known space spelled otherwise (`Vec` for `vec`).
        near: Option<String>,
    },
    /// A subcommand: `known` holds the one the word is near.
    Command,
    /// An output's extension (`-o map.text`).
    Extension {
        /// The output named.
        output: String,
    },
}

/// What a [`Detail::File`] error was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    /// Reading an input, named as messages name it (`the dump`, `the SoC file`).
    Read(&'static str),
    /// Writing an output.
    Write,
    /// Creating a folder.
    CreateFolder,
}

/// Why a [`Detail::File`] error failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileProblem {
    /// The system refused: its error kind, and its words.
    Io {
        /// The system's error kind, which programs may test.
        kind: std::io::ErrorKind,
        /// The system's words.
        reason: String,
    },
    /// A folder where a file is wanted.
    IsFolder,
    /// A socket, which cannot be written as a file.
    IsSocket,
    /// Symbolic links that lead round in a loop.
    LinkLoop,
    /// A name with no file name in it (`..`).
    NoFileName,
    /// The folder the file would go in is missing or is not one.
    NoFolder {
        /// The folder.
        folder: String,
        /// Whether something else is there.
        exists: bool,
    },
    /// A device, a pipe or a folder where a regular file is wanted.
    NotRegular,
    /// Larger than the input may be.
    TooLarge {
        /// The most bytes read.
        limit: u64,
    },
    /// Not UTF-8 text.
    NotUtf8,
}

/// What a [`Detail::Missing`] path lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// The path itself.
    Path,
    /// A dump of the pass asked for; `present` names the passes dumped there.
    PassDump {
        /// The pass asked for.
        pass: String,
        /// The passes whose dumps are there.
        present: Vec<String>,
    },
    /// A case folder (one holding `passes_dump/`).
    CaseFolder,
}

/// Why a dump has nothing to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Empty {
    /// The file holds nothing.
    EmptyFile,
    /// Python, but no `@pl.program` or `@pl.function`.
    NotPassDump,
    /// No compute function binds a tile with a MemRef.
    NoMemRef,
    /// Addresses are not assigned yet; `later` names the dump that has them, when known.
    Unassigned {
        /// The dump after AllocateMemoryAddr, when it is there.
        later: Option<String>,
    },
}

/// What is wrong with a SoC description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocProblem {
    /// Not TOML or JSON of the expected shape: the parser's words.
    NotDescription(String),
    /// It names a built-in chip (`name` as written, `builtin` as the tool spells it).
    BuiltinName {
        /// The name written.
        name: String,
        /// The built-in backend's name.
        builtin: String,
    },
    /// A capacity out of range.
    Capacity {
        /// The space.
        space: String,
        /// The bytes given.
        bytes: i64,
    },
    /// A physical size out of range or of no space of the capacities.
    Physical {
        /// The space.
        space: String,
        /// The bytes given.
        bytes: i64,
    },
    /// No name or no arch.
    Unnamed,
}

/// Why a packing instance cannot be packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackProblem {
    /// A block's size, offset or alignment is past the packer's bound.
    BlockTooLarge {
        /// The block's index.
        block: usize,
        /// The bound, in bytes.
        max: u64,
    },
    /// Two pinned blocks share bytes while live at once: `(offset, end)` of each.
    FixedOverlap {
        /// The two blocks' indices.
        blocks: (usize, usize),
        /// The first block's bytes.
        first: (u64, u64),
        /// The second block's bytes.
        second: (u64, u64),
    },
    /// More pairs of blocks live at once than the packer holds.
    TooManyPairs {
        /// The bound.
        max: usize,
    },
}

/// A command line that asks for what cannot be done as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misuse {
    /// `-o` names an input of the run.
    OutputIsInput {
        /// The output named.
        output: String,
        /// The input it is.
        input: String,
        /// Whether the input is a packing instance (else a dump).
        instance: bool,
    },
    /// `--split` with `-o -`.
    SplitToStdout,
    /// `--split` on a folder of cases.
    SplitTree,
    /// `--export-csv` on a folder of cases.
    ExportTree,
    /// A folder of cases with `-o` naming a file.
    TreeToFile {
        /// The folder of cases.
        tree: String,
        /// The file named.
        output: String,
    },
    /// A folder of cases without `-o FOLDER`.
    TreeWithoutFolder {
        /// The folder of cases.
        tree: String,
    },
    /// More cases under a folder than are drawn at once.
    TooManyCases {
        /// The folder.
        root: String,
        /// The most cases.
        max: usize,
    },
    /// A diff of a tree of cases and a single dump.
    TreeAgainstDump,
    /// A diff of two trees in a picture format.
    TreeDiffPicture,
    /// A `fit` question about lines that no compute function crosses.
    FitLines {
        /// The first and last line asked about.
        lines: (u32, u32),
        /// Each function's name and lines, `qk_matmul L9–L36`.
        functions: Vec<String>,
    },
    /// A finding code both denied and allowed.
    DeniedAndAllowed {
        /// The code.
        code: String,
    },
    /// A `--public-url` that is not the service's address: why, in a few words.
    PublicUrl {
        /// The text given.
        text: String,
        /// What is wrong with it (`is not a URL`).
        why: &'static str,
    },
}

/// What was being done when a [`Detail::Failed`] error happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Task {
    /// Starting a worker thread.
    StartThread,
    /// A worker thread's job, which panicked.
    Worker,
    /// The parser, on this file.
    Parse {
        /// The dump.
        file: String,
    },
    /// Compressing the PNG.
    EncodePng,
    /// Making the digest of a dump too large to draw whole.
    Digest,
    /// Serving HTTP.
    Serve,
}

/// An error: its kind, what went wrong as data, and where when it points into a file.
///
/// Small and cheap to move (three words): the data is boxed, since errors are rare.
#[derive(Debug, Clone)]
pub struct Error {
    /// What went wrong, which decides the exit status and the HTTP status.
    pub kind: ErrorKind,
    /// What went wrong, as data.
    pub detail: Box<Detail>,
    /// Where in the dump the error is, when it points into one; the words then start with it.
    pub location: Option<Box<Location>>,
}

impl Error {
    /// An error of `kind` saying `message`, for the few whose every value is in their words.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error::of(kind, Detail::Text(message.into()))
    }

    /// An error of `kind` with `detail`.
    pub fn of(kind: ErrorKind, detail: Detail) -> Self {
        Error { kind, detail: Box::new(detail), location: None }
    }

    /// An error of `kind` at `location` of a dump, saying `what` about that spot.
    pub fn at(kind: ErrorKind, location: Location, what: impl fmt::Display) -> Self {
        Error::of(kind, Detail::Text(what.to_string())).placed(location)
    }

    /// This error placed at `location`.
    pub fn placed(mut self, location: Location) -> Self {
        self.location = Some(Box::new(location));
        self
    }

    /// An option value that is not accepted: `option` is the option table's key (or a flag).
    pub fn bad_value(option: &'static str, value: &str, expected: impl Into<String>) -> Self {
        Error::of(ErrorKind::Usage, Detail::BadValue { option, value: value.to_string(), expected: expected.into() })
    }

    /// A name that is not there: `what` sort of name, and the `known` ones.
    pub fn unknown(what: Named, name: &str, known: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let known = known.into_iter().map(Into::into).collect();
        Error::of(ErrorKind::Usage, Detail::Unknown { what, name: name.to_string(), known })
    }

    /// A system error while doing `op` on `path` (`None`: the writer that knows the path names it).
    pub fn file(path: Option<&std::path::Path>, op: FileOp, e: &std::io::Error) -> Self {
        let kind = if e.kind() == std::io::ErrorKind::NotFound && matches!(op, FileOp::Read(_)) {
            ErrorKind::NotFound
        } else {
            ErrorKind::Io
        };
        let problem = FileProblem::Io { kind: e.kind(), reason: e.to_string() };
        Error::of(kind, Detail::File { path: path.map(|p| p.display().to_string()), op, problem })
    }

    /// What is wrong with the file at `path` (not an I/O failure: see [`Error::file`]), as `kind`.
    pub fn file_problem(kind: ErrorKind, path: &std::path::Path, op: FileOp, problem: FileProblem) -> Self {
        Error::of(kind, Detail::File { path: Some(path.display().to_string()), op, problem })
    }

    /// A write that failed with `e`, its path to be named by the writer that knows it.
    pub fn io(e: &std::io::Error) -> Self {
        Error::file(None, FileOp::Write, e)
    }

    /// This error with `path` named, when it is a file error whose path was left to the writer.
    pub fn on_path(mut self, path: &std::path::Path) -> Self {
        if let Detail::File { path: named @ None, .. } = &mut *self.detail {
            *named = Some(path.display().to_string());
        }
        self
    }

    /// A command line that asks what cannot be done as asked.
    pub fn misuse(misuse: Misuse) -> Self {
        Error::of(ErrorKind::Usage, Detail::Misuse(misuse))
    }

    /// A step that failed for a reason outside the input.
    pub fn failed(kind: ErrorKind, task: Task, reason: Option<String>) -> Self {
        Error::of(kind, Detail::Failed { task, reason })
    }

    /// The words of what went wrong and what to do, without the place (which [`Display`] puts
    /// first): what JSON errors give as `message`.
    ///
    /// [`Display`]: fmt::Display
    pub fn message(&self) -> String {
        self.detail.to_string()
    }
}

/// `FILE:LINE:COL: ` when the error has a place, then the detail's words. A shell adds its own
/// words for what the user can change (see `option_table::describe`).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(at) = &self.location {
            write!(f, "{at}: ")?;
        }
        fmt::Display::fmt(&self.detail, f)
    }
}

impl std::error::Error for Error {}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_three_words() {
        assert_eq!(std::mem::size_of::<Error>(), 3 * std::mem::size_of::<usize>());
    }

    #[test]
    fn the_place_leads_and_is_kept_apart() {
        let at = Location { file: "d.py".into(), line: 2, column: 5 };
        let err = Error::at(ErrorKind::Unreadable, at, "not valid Python");
        assert_eq!(err.to_string(), "d.py:2:5: not valid Python");
        assert_eq!(err.message(), "not valid Python");
    }
}
