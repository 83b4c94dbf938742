//! A cheap scan that refuses input whose syntax tree would be too deep to walk.
//!
//! The parser copes with deep nesting, but walking or dropping the tree recurses once per level, and
//! 100 000 nested brackets overflow any thread's stack and abort the process, server included. So
//! before parsing, brackets are counted (CPython itself stops at 200 levels) and a single statement may
//! not exceed a length that bounds how deep an operator chain (`a.a.a...`, `a+a+...`) can get.
//!
//! Bytes do not bound memory, though: each `-` of `x = ------1` is a syntax node of some 80 bytes.
//! So the scan also counts tokens (names, numbers, strings, operators, comments, line ends), per
//! statement and per dump, against the run's [`Limits`](crate::budget::Limits), which bounds the
//! nodes the parser can allocate (about 100 bytes each).

use crate::budget::{self, Limits};
use crate::error::{Error, ErrorKind, Result};

/// CPython's own limit on nested brackets.
pub const MAX_BRACKET_DEPTH: usize = 200;

/// The longest statement accepted, in bytes. Real dumps stay under a few KiB per statement; this bound
/// keeps the deepest possible expression within the parse thread's stack (see `parse::STACK_BYTES`).
pub const MAX_STATEMENT_BYTES: usize = 256 * 1024;

/// Checks bracket depth, statement length and token counts, outside strings and comments.
pub fn check(text: &str, file: &str) -> Result<()> {
    let limits = budget::limits();
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut statement_start = 0usize;
    let (mut statement_tokens, mut tokens) = (0usize, 0usize);
    let mut in_word = false;
    let mut i = 0;
    while i < bytes.len() {
        if i % (1 << 16) == 0 {
            budget::checkpoint()?;
        }
        let byte = bytes[i];
        let word = byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80;
        let continues_word = word && in_word;
        // Comments and line ends are tokens to the parser too (16 M comment lines are 32 M of them).
        if !continues_word && (!byte.is_ascii_whitespace() || byte == b'\n') {
            statement_tokens += 1;
            tokens += 1;
            if statement_tokens > limits.tokens_per_statement {
                let what = "tokens in one statement";
                let err = Limits::refuse(what, statement_tokens, limits.tokens_per_statement, "--max-statement-tokens");
                return Err(placed(text, file, statement_start, err));
            }
            if tokens > limits.tokens_per_dump {
                let err = Limits::refuse("tokens in the dump", tokens, limits.tokens_per_dump, "--max-tokens");
                return Err(placed(text, file, i, err));
            }
        }
        in_word = word;
        match byte {
            b'#' => i = skip_line(bytes, i),
            q @ (b'"' | b'\'') => i = skip_string(bytes, i, q),
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_BRACKET_DEPTH {
                    return Err(too_deep(
                        text,
                        file,
                        i,
                        format!("brackets nested more than {MAX_BRACKET_DEPTH} levels deep"),
                    ));
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
                i += 1;
            }
            _ => i += 1,
        }
        if i.saturating_sub(statement_start) > MAX_STATEMENT_BYTES {
            return Err(too_deep(
                text,
                file,
                statement_start,
                format!("one statement runs over {} KiB", MAX_STATEMENT_BYTES / 1024),
            ));
        }
    }
    Ok(())
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
        assert!(err.message.contains("--max-statement-tokens"), "{err}");
        // Words, strings and comments are one token each, however long.
        check(&format!("x = {0} + '{0}'  # {0}\n", "a".repeat(60_000)), "d.py").unwrap();
    }

    #[test]
    fn a_long_operator_chain_is_refused() {
        let text = format!("x = a{}\n", format!(".{}", "a".repeat(200)).repeat(2_000));
        assert!(check(&text, "d.py").unwrap_err().message.contains("one statement runs over"));
    }
}
