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
//!
//! Ruff's lexer (`ruff_python_parser::lexer`) cannot stand in for this scan: it tells each token's
//! kind but not where the token is, and what this scan answers are places (where a unit starts,
//! where a decorator's text runs, where to point an error). So the scan reads the bytes itself, in
//! one pass, and knows only what it needs: strings, comments, brackets, words, line ends. It takes
//! about 1 % of the time of drawing the page it guards (`docs/benchmarks.md`), less than ruff's
//! lexer over the same text.

use crate::budget::{self, Limits};
use crate::error::{Error, ErrorKind, Location, Result};

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
/// the dump into [`Unit`]s, in one pass over its bytes.
pub fn check(text: &str, file: &str) -> Result<Scan> {
    let limits = budget::limits();
    let bytes = text.as_bytes();
    let mut cuts = Cuts::default();
    cuts.line(bytes, 0, 0);
    let mut depth: usize = 0;
    let (mut statement_start, mut statement_tokens) = (0, 0);
    // Tokens of the current unit, and of the units before it.
    let (mut tokens, mut before) = (0, 0);
    // Where the last statement seen starts; `None` until one is seen.
    let mut last_statement = None;
    let mut next_checkpoint = 0;
    let mut i = 0;
    while i < bytes.len() {
        if i >= next_checkpoint {
            budget::checkpoint()?;
            next_checkpoint = i + (1 << 16);
        }
        let byte = bytes[i];
        // Blanks are no tokens; a run of them is stepped over at once.
        if byte != b'\n' && byte.is_ascii_whitespace() {
            i = run_end(bytes, i, |b| b != b'\n' && b.is_ascii_whitespace());
            continue;
        }
        // Any other byte starts a token: a word (a name, a number) is one however long, every other
        // byte is one of its own. Comments and line ends are tokens to the parser too (16 M comment
        // lines are 32 M of them).
        statement_tokens += 1;
        tokens += 1;
        if statement_tokens == 1 && !matches!(byte, b'#' | b'\n') {
            last_statement = Some(statement_start);
        }
        if statement_tokens > limits.tokens_per_statement {
            let limit = budget::Limit::StatementTokens;
            let err = Limits::refuse("tokens in one statement", statement_tokens, limits.tokens_per_statement, limit);
            return Err(placed(text, file, statement_start, err));
        }
        if tokens > limits.tokens_per_function {
            let limit = budget::Limit::Tokens;
            let err = Limits::refuse("tokens in one function", tokens, limits.tokens_per_function, limit);
            return Err(placed(text, file, i, err));
        }
        match byte {
            b'#' => i = skip_line(bytes, i),
            q @ (b'"' | b'\'') => i = skip_string(bytes, i, q),
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_BRACKET_DEPTH {
                    let what = format!("brackets nested more than {MAX_BRACKET_DEPTH} levels deep");
                    return Err(too_deep(text, file, i, what));
                }
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'\\' => i += 2, // line continuation: the statement goes on
            b'\n' if depth == 0 => {
                statement_start = i + 1;
                statement_tokens = 0;
                if cuts.line(bytes, i + 1, tokens) {
                    before += tokens;
                    tokens = 0;
                }
                i += 1;
            }
            b if is_word(b) => i = run_end(bytes, i, is_word),
            _ => i += 1,
        }
        if i.saturating_sub(statement_start) > MAX_STATEMENT_BYTES {
            let what = format!("one statement runs over {} KiB", MAX_STATEMENT_BYTES / 1024);
            return Err(too_deep(text, file, statement_start, what));
        }
    }
    let decorators = std::mem::take(&mut cuts.decorators);
    Ok(Scan {
        units: cuts.units(text.len()),
        tokens: before + tokens,
        decorators,
        last_statement: last_statement.unwrap_or(0),
    })
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
#[derive(Debug, Default)]
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
    let (line, column) = place(text, at);
    Error::at(
        ErrorKind::Unreadable,
        Location { file: file.to_string(), line, column },
        format!("{what}; this is not the shape of a PyPTO pass dump (check that the file is one)"),
    )
}

/// `err` with `file:line:col` of byte `at` in front of its message.
fn placed(text: &str, file: &str, at: usize, err: Error) -> Error {
    let (line, column) = place(text, at);
    err.placed(Location { file: file.to_string(), line, column })
}

fn place(text: &str, at: usize) -> (usize, usize) {
    super::line_col(crate::units::truncated(text, at).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_brackets_are_refused_with_a_place() {
        let text = format!("x = {}", "(".repeat(100_000));
        let err = check(&text, "d.py").unwrap_err();
        assert!(err.to_string().starts_with("d.py:1:"), "{err}");
        assert!(err.to_string().contains("nested more than 200"), "{err}");
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
        assert!(err.to_string().starts_with("d.py:2:1: tokens in one statement"), "{err}");
        assert!(
            matches!(
                Some(&*err.detail),
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
        assert!(check(&text, "d.py").unwrap_err().to_string().contains("one statement runs over"));
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
        assert!(err.to_string().contains("tokens in one function"), "{err}");
        assert!(
            matches!(
                Some(&*err.detail),
                Some(crate::error::Detail::OverLimit { limit: crate::budget::Limit::Tokens, .. })
            ),
            "{err}"
        );
    }

    #[test]
    fn no_cut_falls_in_a_string_or_in_brackets() {
        // An indented definition inside a string or brackets is no member of the class.
        let filler = "        x = 1\n".repeat(200);
        let tail = "    def c(self):\n        pass\n";
        let in_string =
            format!("class P:\n    def a(self):\n        s = \"\"\"\n{filler}    def b(self):\n{filler}\"\"\"\n{tail}");
        let in_brackets =
            format!("class P:\n    def a(self):\n        s = (\n{filler}    def b(self):\n{filler})\n{tail}");
        let line = |s: &str, member| (s.to_string(), member);
        for text in [in_string, in_brackets] {
            assert_eq!(units(&text), [line("class P:", false), line("    def c(self):", true)]);
        }
    }

    #[test]
    fn a_long_body_is_cut_before_a_statement_at_its_own_indentation() {
        // 4 tokens a line: the body passes BODY_TOKENS just before `def inner`.
        let text = format!("def top():\n{}    def inner():\n        pass\n    y = 2\n", "    x = 1\n".repeat(24_999));
        let line = |s: &str, member| (s.to_string(), member);
        assert_eq!(units(&text), [line("def top():", false), line("    def inner():", true)]);
        let scan = check(&text, "d.py").unwrap();
        assert!(scan.units[1].continues && scan.units[1].function.is_none(), "{:?}", scan.units[1]);
        assert_eq!(scan.tokens, 6 + 4 * 24_999 + 6 + 2 + 4);
    }

    /// What the scan costs against the 1x map it guards (parse and analysis), and what ruff's lexer alone takes over
    /// the same text (the alternative weighed against this scan): `cargo test --release --lib
    /// guard_cost -- --ignored --nocapture`, with the corpus at `$PMM_CORPUS`. The three are timed
    /// in turn, round after round, so that a busy machine slows each alike; each prints its median
    /// and quartiles.
    #[test]
    #[ignore]
    fn guard_cost() {
        use ruff_python_ast::token::TokenKind;
        use std::time::Instant;
        let corpus = std::env::var("PMM_CORPUS").unwrap_or_else(|_| "../shared/corpus".into());
        let path = std::path::Path::new(&corpus).join("cases/decode_fwd_layers");
        let Ok(dump) = crate::Dump::open(&path, crate::dump::DEFAULT_PASS) else { return };
        let text = dump.text.as_str();
        let scan = || drop(check(text, "d.py").unwrap());
        let lex = || {
            let mut lexer = ruff_python_parser::lexer::lex(text, ruff_python_parser::Mode::Module);
            while lexer.next_token() != TokenKind::EndOfFile {}
        };
        // The map, not the page: a test below the crate's face reaches no higher than the findings.
        let map = || drop(crate::findings::build(&dump, crate::backend::choose(None, None).unwrap()).unwrap());
        let jobs: [(&str, &dyn Fn()); 3] = [("guard scan", &scan), ("ruff lexer", &lex), ("1x map", &map)];
        let rounds = 41;
        let mut times = vec![Vec::with_capacity(rounds); jobs.len()];
        for round in 0..=rounds {
            for (k, (_, job)) in jobs.iter().enumerate() {
                let at = Instant::now();
                job();
                if round > 0 {
                    times[k].push(at.elapsed().as_secs_f64() * 1e3); // the first round warms up
                }
            }
        }
        let quartiles = |t: &mut Vec<f64>| {
            t.sort_by(f64::total_cmp);
            (t[t.len() / 4], t[t.len() / 2], t[t.len() * 3 / 4])
        };
        let found: Vec<_> = times.iter_mut().map(quartiles).collect();
        let whole = found[found.len() - 1].1;
        println!("{} bytes, medians of {rounds} rounds (quartiles):", text.len());
        for ((name, _), (low, median, high)) in jobs.iter().zip(&found) {
            println!("  {name}: {median:.2} ms ({low:.2}-{high:.2}), {:.1}% of the map", median / whole * 100.0);
        }
    }
}
