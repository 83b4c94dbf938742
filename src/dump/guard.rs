//! A cheap scan that refuses input whose syntax tree would be too deep to walk.
//!
//! The parser copes with deep nesting, but walking or dropping the tree recurses once per level, and
//! 100 000 nested brackets overflow any thread's stack and abort the process, server included. So
//! before parsing, brackets are counted (CPython itself stops at 200 levels) and a single statement may
//! not exceed a length that bounds how deep an operator chain (`a.a.a...`, `a+a+...`) can get.
//!
//! Bytes do not bound memory, though: each `-` of `x = ------1` is a syntax node of some 80 bytes.
//! So the scan also counts tokens (names, numbers, strings, operators, comments, line ends), per
//! statement and per [`Unit`], against the run's [`Limits`](crate::budget::Limits), which bounds the
//! nodes the parser can allocate (about 100 bytes each) for the one unit it holds at a time.
//!
//! The same pass finds the units: a dump is a class of independent functions, so it is cut before
//! each member of a class after the first, and before each top-level definition. The parser then
//! takes one unit at a time, on as many threads as there are cores, and drops each syntax tree as
//! soon as its tiles are taken: a whole model's dump never holds its whole tree at once. The cuts
//! only have to be right for real dumps; a cut in the wrong place leaves a unit with an unclosed
//! string or bracket, which the parser reports, and the dump is then parsed whole.

use crate::budget::{self, Limits};
use crate::error::{Error, ErrorKind, Result};

/// CPython's own limit on nested brackets.
pub const MAX_BRACKET_DEPTH: usize = 200;

/// The longest statement accepted, in bytes. Real dumps stay under a few KiB per statement; this bound
/// keeps the deepest possible expression within the parse thread's stack (see `par::STACK_BYTES`).
pub const MAX_STATEMENT_BYTES: usize = 256 * 1024;

/// A stretch of the dump that parses on its own: the text before and including a class's first
/// member (or a whole top-level definition), one later member of a class, or a part of a long
/// function's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// Byte range in the dump; units are in order and cover it.
    pub start: usize,
    /// End of the range (exclusive).
    pub end: usize,
    /// A class member cut from its class, or a part of a long function's body: it starts indented,
    /// which the parser reports (and the caller forgives) as an unexpected indentation at its first
    /// token.
    pub member: bool,
    /// Statements of the body of the function the unit before ends in (a long body, cut).
    pub continues: bool,
    /// When the unit is one function's definition (a class member after the first, or a top-level
    /// `def`): the index range in [`Scan::decorators`] of its decorators, which say whether the
    /// function is one to draw before its body is parsed.
    pub function: Option<(usize, usize)>,
}

/// What the scan found: where to cut, and how many tokens there are.
#[derive(Debug, PartialEq, Eq)]
pub struct Scan {
    /// The units, in order, covering the dump.
    pub units: Vec<Unit>,
    /// Tokens of the whole dump.
    pub tokens: usize,
    /// Byte ranges of the decorator expressions (after the `@`) that [`Unit::function`] points at.
    pub decorators: Vec<(usize, usize)>,
    /// Where the dump's last statement starts (its line's indentation included): the one a dump
    /// cut short ends in, unclosed bracket, string and all. 0 when there is none.
    pub last_statement: usize,
}

/// Checks bracket depth, statement length and token counts, outside strings and comments, and cuts
/// the dump into [`Unit`]s.
///
/// A large dump is scanned in pieces at once, one per core (see [`pieces`]): each piece after the
/// first starts at a class member's definition, assuming the state the scan has there in a real
/// dump. A piece is taken only when the scan before it reaches its start in exactly that state;
/// otherwise that scan goes on over the piece, as one scan would, and tries the next. The answer is
/// the same either way.
pub fn check(text: &str, file: &str) -> Result<Scan> {
    let cores = if super::worth_spreading(text) { crate::par::cores() } else { 1 };
    check_in(text, file, cores)
}

/// [`check`] in up to `cores` pieces.
fn check_in(text: &str, file: &str, cores: usize) -> Result<Scan> {
    check_from(text, file, &pieces(text, cores))
}

/// [`check`] in pieces that start at 0 and at each of `starts` (in order).
fn check_from(text: &str, file: &str, starts: &[usize]) -> Result<Scan> {
    let limits = budget::limits();
    let scan_piece = |&(from, to): &(usize, usize)| {
        let mut scan = match from {
            0 => Scanner::new(text, file, limits),
            from => Scanner::at_member(text, file, limits, from),
        };
        let start = scan.carried();
        let run = scan.run(to);
        (start, run.map(|()| scan))
    };
    let mut whole = Scanner::new(text, file, limits);
    for (start, next) in at_once(&piece_ranges(starts, text.len()), &scan_piece) {
        // Up to where the piece starts: nothing left to do there after the first piece or a join.
        whole.run(start.i)?;
        if whole.carried() == start {
            whole.append(next?); // an error there is the one a single scan meets
        }
    }
    whole.run(text.len())?;
    Ok(whole.finish())
}

/// `job` of every range, in order, at once on the machine's pool (there are as many as cores):
/// halves by [`par::both`](crate::par::both), since [`par::map_ref`](crate::par::map_ref) keeps so
/// few jobs on the calling thread.
fn at_once<'t>(
    ranges: &[(usize, usize)],
    job: &(impl Fn(&(usize, usize)) -> (Carried, Result<Scanner<'t>>) + Sync),
) -> Vec<(Carried, Result<Scanner<'t>>)> {
    if ranges.len() < 2 {
        return ranges.iter().map(job).collect();
    }
    let (a, b) = ranges.split_at(ranges.len() / 2);
    let (mut a, b) = crate::par::both(true, || at_once(a, job), || at_once(b, job));
    a.extend(b);
    a
}

/// Where to start the pieces after the first of a dump scanned on `cores` cores: the start of an
/// indented line that starts a definition (see [`defines_member`]), the first one past each share
/// of the text. A dump without such lines is scanned whole. Linear in the text: each candidate
/// looks at its own line and the one before.
fn pieces(text: &str, cores: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts: Vec<usize> = Vec::new();
    for k in 1..cores.max(1) {
        // The first piece takes one share and a half: its worker is up first (the next some 200 us
        // later here), and the line index is built beside the pieces.
        let share = (text.len() as u64 * (2 * k as u64 + 1) / (2 * cores as u64 + 1)) as usize;
        let from = share.max(starts.last().map_or(0, |&s| s + 1));
        let found = bytes[from.min(bytes.len())..]
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[0] == b'\n' && w[1] == b' ')
            .map(|(n, _)| from + n + 1)
            .find(|&at| defines_member(bytes, at));
        match found {
            Some(at) => starts.push(at),
            None => break,
        }
    }
    starts
}

/// Whether the line at `at` is indented with spaces and starts a definition: a decorator, or a
/// `def` with none on the line before (a member starts at its first decorator).
fn defines_member(bytes: &[u8], at: usize) -> bool {
    let indent = bytes[at..].iter().take_while(|&&b| b == b' ').count();
    let rest = &bytes[at + indent..];
    let before = &bytes[..at.saturating_sub(1)];
    let line_before = &before[before.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1)..];
    let decorated = line_before.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'@');
    indent > 0 && (rest.first() == Some(&b'@') || (rest.starts_with(b"def ") && !decorated))
}

/// The byte ranges of the pieces that start at 0 and at each of `starts`.
fn piece_ranges(starts: &[usize], len: usize) -> Vec<(usize, usize)> {
    let from = std::iter::once(0).chain(starts.iter().copied());
    from.zip(starts.iter().copied().chain(std::iter::once(len))).collect()
}

/// The scan of a stretch of the dump, and everything it carries from one byte to the next.
struct Scanner<'t> {
    text: &'t str,
    file: &'t str,
    limits: Limits,
    /// The next byte to look at.
    i: usize,
    depth: usize,
    statement_start: usize,
    statement_tokens: usize,
    /// Tokens of the current unit, and of the units before it.
    tokens: usize,
    total: usize,
    /// Where the last statement seen starts; `None` until one is seen.
    last_statement: Option<usize>,
    cuts: Cuts,
    next_checkpoint: usize,
}

/// What a scan carries at a line start, as far as the rest of the scan depends on it: two scans
/// equal in this go on the same way. A piece starts with no tokens in its unit, which a scan past
/// the dump's start has at a line start only where it cut a unit: a scan equal to a piece's start
/// cut there too, and what it found before (cuts, decorators) is its own, what follows the piece's.
#[derive(Debug, PartialEq, Eq)]
struct Carried {
    i: usize,
    depth: usize,
    statement_start: usize,
    statement_tokens: usize,
    tokens: usize,
    /// Where the last unit started.
    last_cut: Option<usize>,
    /// The cuts' state, with [`LineState::members`] at most 2: only whether there was more than
    /// one member matters.
    line: LineState,
}

impl<'t> Scanner<'t> {
    /// The scan from the dump's start.
    fn new(text: &'t str, file: &'t str, limits: Limits) -> Self {
        Scanner::from_line(text, file, limits, 0, LineState::default())
    }

    /// The scan from `at`, the start of a line defining a member of a class (see [`pieces`]), in
    /// the state a scan reaches there when that member follows others at the same indentation.
    fn at_member(text: &'t str, file: &'t str, limits: Limits, at: usize) -> Self {
        let indent = text.as_bytes()[at..].iter().take_while(|&&b| b == b' ').count();
        let state = LineState { in_class: true, member_indent: Some(indent), members: 1, ..LineState::default() };
        Scanner::from_line(text, file, limits, at, state)
    }

    /// The scan from the line start `at`, outside brackets, with no tokens before it in its unit,
    /// the line looked at in `state`.
    fn from_line(text: &'t str, file: &'t str, limits: Limits, at: usize, state: LineState) -> Self {
        let mut scan = Scanner {
            text,
            file,
            limits,
            i: at,
            depth: 0,
            statement_start: at,
            statement_tokens: 0,
            tokens: 0,
            total: 0,
            last_statement: None,
            cuts: Cuts { state, ..Cuts::default() },
            next_checkpoint: 0,
        };
        scan.cuts.line(text.as_bytes(), at, 0);
        scan
    }

    fn carried(&self) -> Carried {
        let line = self.cuts.state;
        Carried {
            i: self.i,
            depth: self.depth,
            statement_start: self.statement_start,
            statement_tokens: self.statement_tokens,
            tokens: self.tokens,
            last_cut: self.cuts.at.last().map(|a| a.0),
            line: LineState { members: line.members.min(2), ..line },
        }
    }

    /// Scans on up to `end` (past it when a token or string runs over it).
    fn run(&mut self, end: usize) -> Result<()> {
        let (text, file, limits) = (self.text, self.file, self.limits);
        let bytes = text.as_bytes();
        let end = end.min(bytes.len());
        let mut i = self.i;
        while i < end {
            if i >= self.next_checkpoint {
                budget::checkpoint()?;
                self.next_checkpoint = i + (1 << 16);
            }
            let byte = bytes[i];
            // Blanks are no tokens; a run of them is stepped over at once.
            if byte != b'\n' && byte.is_ascii_whitespace() {
                i = run_end(bytes, i, |b| b != b'\n' && b.is_ascii_whitespace());
                continue;
            }
            // Any other byte starts a token: a word (a name, a number) is one however long, every
            // other byte is one of its own. Comments and line ends are tokens to the parser too (16
            // M comment lines are 32 M of them).
            self.statement_tokens += 1;
            self.tokens += 1;
            if self.statement_tokens == 1 && !matches!(byte, b'#' | b'\n') {
                self.last_statement = Some(self.statement_start);
            }
            if self.statement_tokens > limits.tokens_per_statement {
                let what = "tokens in one statement";
                let err = Limits::refuse(
                    what,
                    self.statement_tokens,
                    limits.tokens_per_statement,
                    crate::budget::Limit::StatementTokens,
                );
                return Err(placed(text, file, self.statement_start, err));
            }
            if self.tokens > limits.tokens_per_function {
                let err = Limits::refuse(
                    "tokens in one function",
                    self.tokens,
                    limits.tokens_per_function,
                    crate::budget::Limit::Tokens,
                );
                return Err(placed(text, file, i, err));
            }
            match byte {
                b'#' => i = skip_line(bytes, i),
                q @ (b'"' | b'\'') => i = skip_string(bytes, i, q),
                b'(' | b'[' | b'{' => {
                    self.depth += 1;
                    if self.depth > MAX_BRACKET_DEPTH {
                        let what = format!("brackets nested more than {MAX_BRACKET_DEPTH} levels deep");
                        return Err(too_deep(text, file, i, what));
                    }
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    i += 1;
                }
                b'\\' => i += 2, // line continuation: the statement goes on
                b'\n' if self.depth == 0 => {
                    self.statement_start = i + 1;
                    self.statement_tokens = 0;
                    if self.cuts.line(bytes, i + 1, self.tokens) {
                        self.total += self.tokens;
                        self.tokens = 0;
                    }
                    i += 1;
                }
                b if is_word(b) => i = run_end(bytes, i, is_word),
                _ => i += 1,
            }
            if i.saturating_sub(self.statement_start) > MAX_STATEMENT_BYTES {
                let what = format!("one statement runs over {} KiB", MAX_STATEMENT_BYTES / 1024);
                return Err(too_deep(text, file, self.statement_start, what));
            }
        }
        self.i = i;
        Ok(())
    }

    /// Takes on `next`, the piece that starts where this scan stopped and in the state it is in.
    fn append(&mut self, next: Scanner) {
        let from = self.cuts.decorators.len();
        let start = self.i;
        if self.cuts.at.last().is_some_and(|a| a.0 == start) && next.cuts.at.first().is_some_and(|a| a.0 == start) {
            self.cuts.at.pop(); // the cut where a later piece starts, which the piece has too
        }
        let shifted = |(at, how, function): Cut| (at, how, function.map(|(a, b)| (a + from, b + from)));
        self.cuts.at.extend(next.cuts.at.into_iter().map(shifted));
        self.cuts.decorators.extend(next.cuts.decorators);
        let at = std::mem::take(&mut self.cuts.at);
        let decorators = std::mem::take(&mut self.cuts.decorators);
        self.cuts = Cuts { at, decorators, ..next.cuts };
        self.total += next.total;
        self.last_statement = next.last_statement.or(self.last_statement);
        (self.i, self.depth, self.statement_start) = (next.i, next.depth, next.statement_start);
        (self.statement_tokens, self.tokens, self.next_checkpoint) =
            (next.statement_tokens, next.tokens, next.next_checkpoint);
    }

    fn finish(mut self) -> Scan {
        let decorators = std::mem::take(&mut self.cuts.decorators);
        let tokens = self.total + self.tokens;
        let last_statement = self.last_statement.unwrap_or(0);
        Scan { units: self.cuts.units(self.text.len()), tokens, decorators, last_statement }
    }
}

/// A function body longer than this many tokens is cut before a statement at the body's own
/// indentation, so that the parser holds a part of it at a time (real functions have a few
/// thousand; a generated one of 100 000 tiles has millions).
pub const BODY_TOKENS: usize = 100_000;

/// Finds where the dump can be cut, one statement line at a time (lines inside brackets and strings
/// never reach it).
#[derive(Debug, Default)]
struct Cuts {
    /// Where each unit after the first starts, how, and (for a function's definition) its
    /// decorators, as in [`Unit::function`].
    at: Vec<Cut>,
    /// The decorators of definitions that start units, as in [`Scan::decorators`].
    decorators: Vec<(usize, usize)>,
    /// What the next line's cut depends on.
    state: LineState,
}

/// What [`Cuts::line`] carries from one statement line to the next.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct LineState {
    /// Where the expression of the decorator on the previous statement line starts: it ends
    /// where the next statement line starts.
    open_decorator: Option<usize>,
    /// The last unit started with a decorator, and its definition line is still to come.
    heading: bool,
    /// The last top-level definition is a class: its members are cut apart.
    in_class: bool,
    /// The indentation of the current class's members (that of its first statement).
    member_indent: Option<usize>,
    /// Members of the current class seen so far; the first stays with the class header.
    members: usize,
    /// The indentation of a decorator still waiting for its definition, which stays with it.
    decorated: Option<usize>,
    /// The indentation of the `def` (a member or top-level function) whose body the scan is in.
    def_indent: Option<usize>,
    /// The indentation of that body's statements.
    body_indent: Option<usize>,
}

/// Where a unit starts, how, and the index range of its decorators (as in [`Unit::function`]).
type Cut = (usize, Start, Option<(usize, usize)>);

/// How a unit starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// At the left margin: the file's start, or a top-level definition.
    Top,
    /// Indented, with a member of a class.
    Member,
    /// Indented, with a statement of the body the unit before ends in.
    Body,
}

impl Cuts {
    /// Looks at the statement line starting at `start`, `tokens` into the current unit; true when
    /// a unit starts there.
    fn line(&mut self, bytes: &[u8], start: usize, tokens: usize) -> bool {
        if let Some(from) = self.state.open_decorator.take() {
            let end = start.saturating_sub(1); // the line end
            let end = if end > from && bytes[end - 1] == b'\r' { end - 1 } else { end };
            self.decorators.push((from, end.max(from)));
        }
        let indent = bytes[start..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        let rest = &bytes[start + indent..];
        if rest.first().is_none_or(|b| matches!(b, b'\n' | b'\r' | b'#')) {
            return false; // blank lines and comments belong to whatever is around them
        }
        let keyword = |k: &[u8]| {
            rest.starts_with(k) && rest.get(k.len()).is_some_and(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        };
        let decorator = rest[0] == b'@';
        let class = keyword(b"class");
        let function = keyword(b"def") || keyword(b"async");
        let definition = decorator || class || function;
        let after_decorator = self.state.decorated == Some(indent);
        self.state.decorated = decorator.then_some(indent);
        if self.state.def_indent.is_some_and(|d| indent <= d) {
            (self.state.def_indent, self.state.body_indent) = (None, None);
        }
        let cut = if indent == 0 {
            if definition && !decorator {
                self.state.in_class = class;
                self.state.member_indent = None;
                self.state.members = 0;
            } else if !definition {
                self.state.in_class = false;
            }
            if function {
                self.state.def_indent = Some(0);
            }
            (definition && !after_decorator && start > 0).then_some(Start::Top)
        } else if self.state.in_class && *self.state.member_indent.get_or_insert(indent) == indent {
            if !definition {
                return false;
            }
            if function {
                self.state.def_indent = Some(indent);
            }
            if !after_decorator {
                self.state.members += 1;
            }
            (!after_decorator && self.state.members > 1).then_some(Start::Member)
        } else if self.state.def_indent.is_some_and(|d| indent > d) {
            // A clause goes with the statement it continues.
            let clause = [&b"else"[..], b"elif", b"except", b"finally"].iter().any(|k| keyword(k));
            let body = *self.state.body_indent.get_or_insert(indent);
            (indent == body && tokens > BODY_TOKENS && !after_decorator && !clause).then_some(Start::Body)
        } else {
            None
        };
        if let Some(how) = cut {
            self.at.push((start, how, None));
            self.state.heading = how != Start::Body;
        }
        if self.state.heading {
            let first = self.at.last().and_then(|a| a.2).map_or(self.decorators.len(), |d| d.0);
            if decorator {
                self.state.open_decorator = Some(start + indent + 1);
                if let Some(at) = self.at.last_mut() {
                    at.2 = Some((first, first));
                }
            } else {
                self.state.heading = false;
                if let Some(at) = self.at.last_mut() {
                    at.2 = function.then_some((first, self.decorators.len()));
                }
            }
        }
        cut.is_some()
    }

    fn units(self, len: usize) -> Vec<Unit> {
        let unit = |(start, how, function): Cut, end: usize| Unit {
            start,
            end,
            member: how != Start::Top,
            continues: how == Start::Body,
            function,
        };
        let mut units = Vec::with_capacity(self.at.len() + 1);
        let mut start = (0, Start::Top, None);
        for next in self.at {
            units.push(unit(start, next.0));
            start = next;
        }
        units.push(unit(start, len));
        units
    }
}

/// A byte of a name or number (any non-ASCII byte too: names may be Unicode).
fn is_word(b: u8) -> bool {
    WORD[b as usize]
}

/// [`is_word`] as a table: the scan spends most of its time in runs of such bytes.
const WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        b += 1;
    }
    table
};

/// Index of the first byte from `i` on that is not `part` of the run.
fn run_end(bytes: &[u8], i: usize, part: impl Fn(u8) -> bool) -> usize {
    bytes[i..].iter().position(|&b| !part(b)).map_or(bytes.len(), |n| i + n)
}

fn skip_line(bytes: &[u8], i: usize) -> usize {
    bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| i + n)
}

/// Index just past the string that opens at `i` with quote `q`; single-quoted strings also stop at
/// the end of the line, where the parser will report them.
fn skip_string(bytes: &[u8], i: usize, q: u8) -> usize {
    let triple = bytes.len() >= i + 3 && bytes[i + 1] == q && bytes[i + 2] == q;
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' if !triple => return j,
            b if b == q => {
                if !triple {
                    return j + 1;
                }
                if bytes.len() >= j + 3 && bytes[j + 1] == q && bytes[j + 2] == q {
                    return j + 3;
                }
                j += 1;
            }
            _ => j += 1,
        }
    }
    bytes.len()
}

fn too_deep(text: &str, file: &str, at: usize, what: String) -> Error {
    let (line, col) = place(text, at);
    Error::new(
        ErrorKind::Unreadable,
        format!("{file}:{line}:{col}: {what}; this is not the shape of a PyPTO pass dump (check that the file is one)"),
    )
}

/// `err` with `file:line:col` of byte `at` in front of its message.
fn placed(text: &str, file: &str, at: usize, mut err: Error) -> Error {
    let (line, col) = place(text, at);
    err.message = format!("{file}:{line}:{col}: {}", err.message);
    err
}

fn place(text: &str, at: usize) -> (usize, usize) {
    let at = (0..=at.min(text.len())).rev().find(|&k| text.is_char_boundary(k)).unwrap_or(0);
    super::line_col(&text.as_bytes()[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_brackets_are_refused_with_a_place() {
        let text = format!("x = {}", "(".repeat(100_000));
        let err = check(&text, "d.py").unwrap_err();
        assert!(err.message.starts_with("d.py:1:"), "{err}");
        assert!(err.message.contains("nested more than 200"), "{err}");
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = format!("x = '{0}'  # {0}\ny = \"\"\"{0}\n\"\"\"\n", "(".repeat(500));
        check(&text, "d.py").unwrap();
    }

    #[test]
    fn a_statement_of_too_many_tokens_is_refused_with_the_option() {
        let text = format!("y = 1\nx = {}1\n", "-".repeat(30_000));
        let err = check(&text, "d.py").unwrap_err();
        assert_eq!(err.kind, ErrorKind::OverLimit);
        assert!(err.message.starts_with("d.py:2:1: tokens in one statement"), "{err}");
        assert!(
            matches!(
                err.detail.as_deref(),
                Some(crate::error::Detail::OverLimit { limit: crate::budget::Limit::StatementTokens, .. })
            ),
            "{err}"
        );
        // Words, strings and comments are one token each, however long.
        check(&format!("x = {0} + '{0}'  # {0}\n", "a".repeat(60_000)), "d.py").unwrap();
    }

    #[test]
    fn the_last_statement_is_found_past_comments_blank_lines_and_brackets() {
        let last = |text: &str| {
            let at = check(text, "d.py").unwrap().last_statement;
            text[at..].to_string()
        };
        assert_eq!(last("x = 1\n    y = f(\n  2)\n\n  # note\n\n"), "    y = f(\n  2)\n\n  # note\n\n");
        assert_eq!(last("x = 1\ny = 'a\n"), "y = 'a\n");
        assert_eq!(last("x = [1,\n"), "x = [1,\n");
        assert_eq!(last("x = 1 + \\\n  2"), "x = 1 + \\\n  2");
        assert_eq!(last("# only a comment\n"), "# only a comment\n");
    }

    #[test]
    fn a_long_operator_chain_is_refused() {
        let text = format!("x = a{}\n", format!(".{}", "a".repeat(200)).repeat(2_000));
        assert!(check(&text, "d.py").unwrap_err().message.contains("one statement runs over"));
    }

    /// The units of `text`, as (first line of each, member or not).
    fn units(text: &str) -> Vec<(String, bool)> {
        let scan = check(text, "d.py").unwrap();
        let mut at = 0;
        for u in &scan.units {
            assert_eq!(u.start, at, "units cover the dump in order");
            at = u.end;
        }
        assert_eq!(at, text.len());
        scan.units.iter().map(|u| (text[u.start..].lines().next().unwrap_or("").to_string(), u.member)).collect()
    }

    #[test]
    fn a_program_is_cut_before_each_member_after_the_first() {
        let text = r#"import pypto.language as pl

@pl.program
class P:
    @pl.function(
        type=pl.FunctionType.AIV,
    )
    def a(self):
        x = 1

    # a comment
    @pl.function
    @other
    def b(self):
        def inner():
            pass
        """
    def not_a_member(self):
        """
    def c(self, y=(
    1)):
        pass


def top():
    def nested():
        pass
    @d
    def nested2():
        pass
@pl.program
class Q:
    def d(self): pass
    def e(self): pass
"#;
        let line = |s: &str, member| (s.to_string(), member);
        assert_eq!(
            units(text),
            [
                line("import pypto.language as pl", false),
                line("@pl.program", false),
                line("    @pl.function", true),
                line("    def c(self, y=(", true),
                line("def top():", false),
                line("@pl.program", false),
                line("    def e(self): pass", true),
            ]
        );
    }

    #[test]
    fn a_function_unit_carries_its_decorators() {
        let text = "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIV)\n    def a(self):\n        x = 1\n\
                    \x20   @pl.function(\r\n        type=pl.FunctionType.Orchestration,\r\n    )  # c\r\n    @other\r\n    def b(self):\r\n        x = 2\r\n\
                    \x20   def c(self): pass\n    class D:\n        pass\n@pl.program\nclass Q:\n    pass\ndef top(): pass\n";
        let scan = check(text, "d.py").unwrap();
        let decorators = |u: &Unit| {
            u.function.map(|(a, b)| scan.decorators[a..b].iter().map(|&(s, e)| &text[s..e]).collect::<Vec<_>>())
        };
        let found: Vec<_> = scan.units.iter().map(decorators).collect();
        assert_eq!(
            found,
            [
                None, // the class and its first member
                Some(vec!["pl.function(\r\n        type=pl.FunctionType.Orchestration,\r\n    )  # c", "other"]),
                Some(vec![]),
                None, // a class is no function
                None,
                Some(vec![]),
            ]
        );
    }

    #[test]
    fn tokens_are_limited_per_unit_not_per_dump() {
        let member = |i: usize| format!("    def f{i}(self):\n{}", "        x = 1\n".repeat(100));
        let text = format!("class P:\n{}", (0..20).map(member).collect::<String>());
        let limits = Limits { tokens_per_function: 600, ..Limits::default() };
        let budget = || budget::Budget { limits, ..Default::default() };
        let scan = budget::run(budget(), || check(&text, "d.py")).unwrap();
        assert_eq!(scan.units.len(), 20);
        assert!(scan.tokens > 20 * 400, "{}", scan.tokens);
        let one = format!("class P:\n{}", member(0).replace("x = 1\n", "x = 1 + 2 + 3\n"));
        let err = budget::run(budget(), || check(&one, "d.py")).unwrap_err();
        assert!(err.message.contains("tokens in one function"), "{err}");
        assert!(
            matches!(
                err.detail.as_deref(),
                Some(crate::error::Detail::OverLimit { limit: crate::budget::Limit::Tokens, .. })
            ),
            "{err}"
        );
    }

    /// A program of `n` members, each with a body of a few statements.
    fn program(n: usize) -> String {
        let member = |i: usize| {
            format!(
                "    @pl.function(type=pl.FunctionType.AIV)\n    def f{i}(self, a: pl.Tensor[[16, 64], pl.FP32]):\n\
                 \x20       t{i}: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_{i}, 0, 4096)] = pl.tile.load(a, [0, 0])\n\
                 \x20       return t{i}\n"
            )
        };
        format!("import pypto.language as pl\n\n@pl.program\nclass P:\n{}", (0..n).map(member).collect::<String>())
    }

    /// The scan in pieces is the scan whole, for every number of pieces.
    fn same_in_pieces(text: &str) {
        let whole = check_in(text, "d.py", 1);
        for cores in 2..6 {
            let pieced = check_in(text, "d.py", cores);
            match (&whole, &pieced) {
                (Ok(w), Ok(p)) => assert_eq!(w, p, "{cores} pieces"),
                (Err(w), Err(p)) => assert_eq!(w.message, p.message, "{cores} pieces"),
                _ => panic!("{cores} pieces: {whole:?} against {pieced:?}"),
            }
        }
    }

    #[test]
    fn pieces_start_at_members_and_join_into_the_whole_scan() {
        let text = program(40);
        let starts = pieces(&text, 4);
        assert_eq!(starts.len(), 3, "{starts:?}");
        let limits = Limits::default();
        for &at in &starts {
            assert!(text[at..].starts_with("    @pl.function"), "{}", &text[at..at + 20]);
            // The guess is right: the scan from the start reaches the piece's start in its state.
            let mut whole = Scanner::new(&text, "d.py", limits);
            whole.run(at).unwrap();
            assert_eq!(whole.carried(), Scanner::at_member(&text, "d.py", limits, at).carried());
        }
        same_in_pieces(&text);
        assert_eq!(check_in(&text, "d.py", 3).unwrap().units.len(), 41); // the import, then 40 members
    }

    #[test]
    fn a_wrong_guess_is_scanned_over_as_one_scan_would() {
        // Each guess lands where the state is not that of a member's start: in a string, in
        // brackets, on the first member of a class, after a decorator, in a top-level function.
        let filler = "        x = 1\n".repeat(200);
        let in_string =
            format!("class P:\n    def a(self):\n        s = \"\"\"\n{filler}    def b(self):\n{filler}\"\"\"\n");
        let in_brackets = format!("class P:\n    def a(self):\n        s = (\n{filler}    def b(self):\n{filler})\n");
        let first_member = format!("import x\n{filler}{filler}class P:\n    def a(self):\n{filler}");
        let decorated =
            format!("class P:\n    def a(self):\n{filler}    @d(\n{filler}{filler}    )\n    def b(self):\n{filler}");
        let top = format!("def top():\n{filler}    def inner():\n{filler}    @d\n    def inner2():\n{filler}");
        // Where a long body is cut, a guess differs from the scan only in the line's state.
        let long_body =
            format!("def top():\n{}    def inner():\n        pass\n    y = 2\n", "    x = 1\n".repeat(24_999));
        // The guess fails (deep brackets) where the scan is inside a string and does not.
        let failing = format!(
            "class P:\n    def a(self):\n        s = \"\"\"\n{filler}    def b(self):\n        y = {}\n{filler}\"\"\"\n",
            "(".repeat(250)
        );
        let guesses = [
            (in_string, "    def b"),
            (in_brackets, "    def b"),
            (first_member, "    def a"),
            (decorated, "    def b"),
            (top, "    @d"),
            (long_body, "    def inner"),
            (failing, "    def b"),
        ];
        for (text, guess) in guesses {
            let at = text.find(guess).unwrap();
            let mut whole = Scanner::new(&text, "d.py", Limits::default());
            whole.run(at).unwrap();
            assert_ne!(whole.carried(), Scanner::at_member(&text, "d.py", Limits::default(), at).carried());
            assert_eq!(check_from(&text, "d.py", &[at]).unwrap(), check_in(&text, "d.py", 1).unwrap());
            same_in_pieces(&text);
        }
    }

    #[test]
    fn an_error_past_a_piece_start_is_the_whole_scans_error() {
        let mut text = program(30);
        text.insert_str(text.len() * 3 / 4, &format!("        x = {}\n", "(".repeat(300)));
        // Inserted mid-line or not, the scan in pieces refuses it with the same place and words.
        same_in_pieces(&text);
        let mut broken = program(30);
        broken.insert_str(broken.len() / 4, "'''");
        same_in_pieces(&broken);
        let limits = Limits { tokens_per_function: 60, ..Limits::default() };
        let text = program(30).replace("return t20", &format!("return t20{}", " + 1".repeat(40)));
        let run =
            |cores| budget::run(budget::Budget { limits, ..Default::default() }, || check_in(&text, "d.py", cores));
        let (whole, pieced) = (run(1).unwrap_err(), run(4).unwrap_err());
        assert!(whole.message.contains("tokens in one function"), "{whole}");
        assert_eq!(whole.message, pieced.message);
    }

    #[test]
    fn finding_the_pieces_is_linear_in_the_text() {
        // Every line a candidate, none a definition: each is looked at once, on its own line.
        let text = format!("{}x", "\n ".repeat(1 << 20));
        assert!(pieces(&text, 8).is_empty());
        let text = format!("{}x", "\n    @".repeat(1 << 18));
        assert_eq!(pieces(&text, 4).len(), 3);
    }

    /// What the scan costs against the page it guards, and what ruff's lexer alone takes over the
    /// same text (the alternative weighed against this scan): `cargo test --release --lib
    /// guard_cost -- --ignored --nocapture`, with the corpus at `$PMM_CORPUS`.
    #[test]
    #[ignore]
    fn guard_cost() {
        use ruff_python_ast::token::TokenKind;
        use std::time::{Duration, Instant};
        let corpus = std::env::var("PMM_CORPUS").unwrap_or_else(|_| "../shared/corpus".into());
        let path = std::path::Path::new(&corpus).join("cases/decode_fwd_layers");
        let Ok(dump) = crate::Dump::open(&path, crate::dump::DEFAULT_PASS) else { return };
        let median = |f: &mut dyn FnMut()| {
            f();
            let mut t: Vec<Duration> = (0..41)
                .map(|_| {
                    let at = Instant::now();
                    f();
                    at.elapsed()
                })
                .collect();
            t.sort();
            t[20].as_secs_f64() * 1e3
        };
        let text = dump.text.as_str();
        let scan = median(&mut || drop(check(text, "d.py").unwrap()));
        let lex = median(&mut || {
            let mut lexer = ruff_python_parser::lexer::lex(text, ruff_python_parser::Mode::Module);
            while lexer.next_token() != TokenKind::EndOfFile {}
        });
        let opts = crate::RenderOptions { format: crate::Format::Html, ..Default::default() };
        let page = median(&mut || {
            let map = crate::load(&path, crate::dump::DEFAULT_PASS, None).unwrap();
            drop(crate::render_map(&map, &opts).unwrap())
        });
        println!(
            "{} bytes: guard scan {scan:.2} ms, ruff lexer {lex:.2} ms, 1x page {page:.2} ms; scan {:.1}% of the page",
            text.len(),
            scan / page * 100.0
        );
    }
}
