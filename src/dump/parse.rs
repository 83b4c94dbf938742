//! Walks a dump's syntax tree and collects the tile bindings of each compute function.
//!
//! Dumps are valid Python, so this uses a real parser rather than patterns: annotations spread over
//! many lines, wrapped calls and nested blocks all come out the same.
//!
//! This file cuts the dump into units and parses them (on every core for a large dump), a
//! function's long body a part at a time; what a function is (`function.rs`), the walk over its
//! statements (`walk.rs`) and the reading of one tile annotation (`annotation.rs`) have their own
//! files, each using only those after it.

use ruff_python_ast::{self as ast, Expr, ModModule, Stmt};
use ruff_python_parser::{Mode, ParseError, ParseErrorType, ParseOptions, Parsed};
use ruff_source_file::LineIndex;
use ruff_text_size::TextRange;

use super::annotation::dotted;
use super::function::{OpenFunction, ParsedFunction, function, not_drawn, offset};
use super::guard::Unit;
use crate::error::{Detail, Empty, Error, ErrorKind, Location, Result, Task};

/// Dumps smaller than this are parsed on one thread: a thread costs more than the parse.
const PARALLEL_BYTES: usize = 256 * 1024;

/// Whether a dump is large enough for its passes to be spread over the cores (see
/// [`PARALLEL_BYTES`]): the parse, and the whole-text passes run beside it.
pub(crate) fn worth_spreading(text: &str) -> bool {
    text.len() >= PARALLEL_BYTES
}

/// Parses `text` and returns every compute function with its tiles (possibly none), in dump order.
/// `file` names the dump in error messages.
///
/// The dump is parsed a `Unit` at a time (a function, or a class header with its first function),
/// on up to one thread per core, and each unit's tree is dropped once its tiles are taken.
pub fn parse(text: &str, file: &str) -> Result<Vec<ParsedFunction>> {
    // A dump in PyPTO's older syntax fails to parse, or parses with no tile this tool can read:
    // either way, say what it is rather than where the parser stopped.
    match parse_current(text, file) {
        Err(err) if err.kind == ErrorKind::Unreadable || err.kind == ErrorKind::Refused => {
            Err(legacy(text, file).unwrap_or(err))
        }
        Ok(found) if found.iter().all(|f| f.tiles.is_empty() && f.unresolved.is_empty()) => match legacy(text, file) {
            Some(err) => Err(err),
            None => Ok(found),
        },
        other => other,
    }
}

/// What only PyPTO's older printer writes (before about April 2026), and what each one is.
const LEGACY_MARKS: [(&str, &str); 4] = [
    ("pl.MemorySpace.", "pl.MemorySpace"),
    ("pl.block.alloc", "pl.block.alloc"),
    ("pl.MemRefType", "pl.MemRefType"),
    ("<unsupported IRNode type>", "<unsupported IRNode type> in a TileView"),
];

/// The refusal of a dump in PyPTO's older syntax, at its first mark of it; `None` for any other.
fn legacy(text: &str, file: &str) -> Option<Error> {
    // One pass over the lines, each looked at once: a mark in a comment (a dump's header may quote
    // anything) is no syntax, and a hostile line of a million marks costs its length, not more.
    let mut found: Vec<(usize, &str)> = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim_start().starts_with('#') {
            for (mark, what) in LEGACY_MARKS {
                if !found.iter().any(|&(_, w)| w == what)
                    && let Some(at) = line.find(mark)
                {
                    found.push((start + at, what));
                }
            }
        }
        if found.len() == LEGACY_MARKS.len() {
            break;
        }
        start += line.len();
    }
    let first = found.iter().map(|&(at, _)| at).min()?;
    let (line, column) = super::line_col(&text.as_bytes()[..first]);
    let what: Vec<&str> =
        LEGACY_MARKS.iter().map(|&(_, w)| w).filter(|w| found.iter().any(|&(_, f)| f == *w)).collect();
    Some(Error::at(
        ErrorKind::Refused,
        Location { file: file.to_string(), line, column },
        format!(
            "a PyPTO dump from before the pl.Mem syntax ({}): this tool reads the dumps \
             PyPTO has written since about April 2026 (pl.Mem.Vec, pl.tile.alloc, pl.MemRef(base, offset, \
             size)); re-dump the kernel with a current PyPTO",
            what.join(", ")
        ),
    ))
}

/// [`parse`] for the current syntax.
fn parse_current(text: &str, file: &str) -> Result<Vec<ParsedFunction>> {
    if text.trim().is_empty() {
        return Err(nothing_to_draw(file, Empty::EmptyFile));
    }
    // The guard's scan and the line index are two passes over the whole text: at once on two
    // cores for a dump large enough to be parsed on several.
    let (scan, lines) = crate::par::both(
        worth_spreading(text),
        || super::guard::check(text, file),
        || LineIndex::from_source_text(text),
    );
    let scan = scan?;
    // A unit and the parts of its last function's body that follow it are one job, in order.
    let mut groups: Vec<&[Unit]> = Vec::new();
    let mut rest = &scan.units[..];
    while !rest.is_empty() {
        let len = 1 + rest[1..].iter().take_while(|u| u.continues).count();
        let (group, tail) = rest.split_at(len);
        groups.push(group);
        rest = tail;
    }
    let threads = if worth_spreading(text) { crate::par::cores() } else { 1 };
    let parse_groups = |threads, groups: &[&[Unit]]| {
        // The largest groups are taken first (each core takes its share of the order from its
        // start, then steals): the cores run out of work on small groups, together, rather than
        // one finishing a large function alone, and what the larger trees took is there for the
        // smaller ones (1x page 15.27 against 15.53 ms, 87 fewer page faults).
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(group_bytes(groups[i])));
        let parsed = crate::par::run_on(threads, groups.len(), true, |k| {
            let i = order[k];
            // A dump cut short ends in its last part, and must say so: that part is skipped as
            // any other function not drawn only when its last statement is whole.
            let whole = i + 1 < groups.len() || ends_whole(text, groups[i], scan.last_statement, &lines, file);
            let decorators = whole.then_some(&scan.decorators[..]);
            parse_group(text, groups[i], decorators, &lines, file)
        })
        .map_err(|e| match e.kind {
            ErrorKind::Io => e,
            _ => Error::failed(ErrorKind::Unreadable, Task::Parse { file: file.to_string() }, None),
        })?;
        // Back in dump order, where the first syntax error is the one reported.
        let mut in_order: Vec<_> = (0..groups.len()).map(|_| None).collect();
        for (i, found) in order.into_iter().zip(parsed) {
            in_order[i] = Some(found);
        }
        Ok::<_, Error>(in_order.into_iter().flatten().collect::<Vec<_>>())
    };
    let found = match parse_groups(threads, &groups)?.into_iter().collect::<Result<Result<Vec<Found>>>>()? {
        Ok(found) => found,
        // A unit that does not parse alone is a syntax error, or a cut the scan made in the wrong
        // place: the whole dump, parsed at once when its tree is within the limit, tells which.
        Err(_) if scan.units.len() > 1 && scan.tokens <= crate::budget::limits().tokens_per_function => {
            let whole = [Unit { start: 0, end: text.len(), member: false, continues: false, function: None }];
            parse_groups(1, &[&whole[..]])?.into_iter().collect::<Result<Result<Vec<Found>>>>()??
        }
        Err(syntax) => return Err(syntax),
    };
    if !found.iter().any(|f| f.program) && found.iter().all(|f| f.functions.is_empty()) {
        return Err(nothing_to_draw(file, Empty::NotPassDump));
    }
    found.into_iter().flat_map(|f| f.functions).collect()
}

/// A readable `file` with nothing to draw, for `why`.
fn nothing_to_draw(file: &str, why: Empty) -> Error {
    Error::of(ErrorKind::Refused, Detail::NothingToDraw { file: file.to_string(), why })
}

/// The bytes of dump text a group of units spans.
fn group_bytes(group: &[Unit]) -> usize {
    match (group.first(), group.last()) {
        (Some(first), Some(last)) => last.end - first.start,
        _ => 0,
    }
}

/// What one unit holds: whether it has the `@pl.program` class, and its compute functions.
#[derive(Default)]
struct Found {
    program: bool,
    functions: Vec<Result<ParsedFunction>>,
}

/// Parses and walks a unit and the parts of its last function's body that follow it, one tree at
/// a time. The outer error stops the run (it was cancelled); the inner one is the first syntax
/// error.
fn parse_group<'t>(
    text: &'t str,
    units: &[Unit],
    decorators: Option<&[(usize, usize)]>,
    lines: &'t LineIndex,
    file: &str,
) -> Result<Result<Found>> {
    let mut found = Found::default();
    // A unit the decorators (when given) say is not drawn is skipped.
    if let (Some(unit), Some(decorators)) = (units.first(), decorators)
        && not_drawn(text, unit, decorators)
    {
        return Ok(Ok(found));
    }
    // The unit's last function, still open to the statements of the parts that follow.
    let mut open: Option<Result<OpenFunction<'t>>> = None;
    for unit in units {
        let parsed = match parse_unit(text, *unit, lines, file) {
            Ok(parsed) => parsed,
            Err(syntax) => return Ok(Err(syntax)),
        };
        crate::budget::checkpoint()?;
        let body = &parsed.syntax().body;
        if unit.continues {
            if let Some(Ok(f)) = &mut open {
                f.walk_more(body);
            }
            continue;
        }
        let mut start = |func: &ast::StmtFunctionDef, found: &mut Found| {
            if let Some(done) = open.take() {
                found.functions.push(done.and_then(|f| f.finish(file)));
            }
            open = function(func, lines, text, file);
        };
        for stmt in body {
            match stmt {
                Stmt::ClassDef(class) => {
                    found.program |= class.decorator_list.iter().any(|d| {
                        let name = match &d.expression {
                            Expr::Call(call) => dotted(&call.func),
                            other => dotted(other),
                        };
                        name.is_some_and(|n| n == "program" || n.ends_with(".program"))
                    });
                    for inner in &class.body {
                        if let Stmt::FunctionDef(func) = inner {
                            start(func, &mut found);
                        }
                    }
                }
                Stmt::FunctionDef(func) => start(func, &mut found),
                _ => {}
            }
        }
    }
    if let Some(done) = open {
        found.functions.push(done.and_then(|f| f.finish(file)));
    }
    Ok(Ok(found))
}

/// Whether the dump's last statement, which starts at `last_statement` in the last of `group`'s
/// units, parses on its own: then the dump was not cut short there (an unclosed bracket or string,
/// a half expression, a header without its body all fail alone as they fail in the whole unit).
fn ends_whole(text: &str, group: &[Unit], last_statement: usize, lines: &LineIndex, file: &str) -> bool {
    let Some(last) = group.last() else { return true };
    let tail = Unit {
        start: last_statement.clamp(last.start, last.end),
        member: true,
        continues: false,
        function: None,
        ..*last
    };
    parse_unit(text, tail, lines, file).is_ok()
}

/// Parses one unit, or says where its first syntax error is.
fn parse_unit(text: &str, unit: Unit, lines: &LineIndex, file: &str) -> Result<Parsed<ModModule>> {
    let range = TextRange::new(offset(unit.start), offset(unit.end));
    let parsed = ruff_python_parser::parse_cells_unchecked(text, [range], &ParseOptions::from(Mode::Module));
    // A member starts indented; the parser says so at its first token and reads it all the same.
    let forgiven = |e: &&ParseError| {
        unit.member
            && e.error == ParseErrorType::UnexpectedIndentation
            && text[unit.start..e.location.start().to_usize()].trim().is_empty()
    };
    if let Some(err) = parsed.errors().iter().find(|e| !forgiven(e)) {
        let at = lines.line_column(err.location.start(), text);
        return Err(Error::at(
            ErrorKind::Unreadable,
            Location { file: file.to_string(), line: at.line.get(), column: at.column.get() },
            format!("not valid Python: {}; a pass dump is the Python text PyPTO writes, unedited", err.error),
        ));
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/fixtures/fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py");

    /// The fixture's program, repeated until it is parsed in parallel (a class may be defined twice).
    fn large() -> String {
        let text = FIXTURE.repeat(PARALLEL_BYTES / FIXTURE.len() + 2);
        assert!(text.len() > PARALLEL_BYTES);
        text
    }

    /// The dump parsed whole, as one unit, on this thread.
    fn whole(text: &str) -> Result<Vec<ParsedFunction>> {
        let lines = LineIndex::from_source_text(text);
        let whole = [Unit { start: 0, end: text.len(), member: false, continues: false, function: None }];
        let found = parse_group(text, &whole, None, &lines, "d.py")??;
        found.functions.into_iter().collect()
    }

    #[test]
    fn parsing_by_units_gives_what_the_whole_dump_gives() {
        let text = large();
        let units = crate::dump::guard::check(&text, "d.py").unwrap().units;
        assert!(units.iter().filter(|u| u.member).count() > 10, "members are cut apart");
        let (by_units, at_once) = (parse(&text, "d.py").unwrap(), whole(&text).unwrap());
        assert!(by_units.len() > 10);
        assert_eq!(format!("{by_units:?}"), format!("{at_once:?}"));
    }

    #[test]
    fn a_syntax_error_in_a_member_is_placed_in_the_dump() {
        let text = large();
        // Break the last function's last line: the error is reported where it is, whether the dump is
        // parsed again whole (within --max-tokens) or not.
        let cut = text.trim_end().rfind('\n').unwrap();
        let broken = format!("{}\n        x = (\n", &text[..cut]);
        let line = broken.lines().count();
        let expected = whole(&broken).unwrap_err().to_string();
        assert!(
            expected.starts_with(&format!("d.py:{}:", line + 1)) || expected.starts_with(&format!("d.py:{line}:")),
            "{expected}"
        );
        assert_eq!(parse(&broken, "d.py").unwrap_err().to_string(), expected);
        let limits = crate::budget::Limits { tokens_per_function: 20_000, ..Default::default() };
        let small = crate::budget::Budget { limits, ..Default::default() };
        assert_eq!(crate::budget::run(small, || parse(&broken, "d.py")).unwrap_err().to_string(), expected);
    }

    /// `text` with the first statement of the `def` at `at` replaced by a half expression (the
    /// lines stay where they are), and where that body starts.
    fn first_statement_broken(text: &str, at: usize) -> (String, usize) {
        let body = at + text[at..].find(":\n").unwrap() + 2;
        let line_end = body + text[body..].find('\n').unwrap();
        (format!("{}        x = 1 +{}", &text[..body], &text[line_end..]), body)
    }

    #[test]
    fn functions_not_drawn_are_not_parsed_but_drawn_ones_are() {
        let text = large();
        // An orchestration function's first statement broken: its body is never parsed, and the
        // map is the unbroken dump's.
        let (broken, _) = first_statement_broken(&text, text.find("    def main(").unwrap());
        let (fine, skipped) = (parse(&text, "d.py").unwrap(), parse(&broken, "d.py").unwrap());
        assert_eq!(format!("{fine:?}"), format!("{skipped:?}"));
        // Broken inside the first compute function: reported, where the whole-dump parse puts it.
        let compute = text.find("    def fx_vector(").unwrap();
        let body = compute + text[compute..].find(":\n").unwrap() + 2;
        let broken = format!("{}        x = 1 +\n{}", &text[..body], &text[body..]);
        let err = parse(&broken, "d.py").unwrap_err().to_string();
        assert_eq!(err, whole(&broken).unwrap_err().to_string());
    }

    #[test]
    fn the_first_error_in_the_dump_is_reported_though_a_larger_function_is_parsed_first() {
        let text = large();
        // Broken in the first compute function, and in a later one made the largest of all.
        let later = text.rfind("    def fx_vector(").unwrap();
        let (tail, _) = first_statement_broken(&text[later..], 0);
        let padded = tail.replacen(":\n", &format!(":\n{}", "        y = 1\n".repeat(3000)), 1);
        let (head, _) = first_statement_broken(&text[..later], text.find("    def fx_vector(").unwrap());
        let broken = format!("{head}{padded}");
        let first = format!("d.py:{}:", broken[..broken.find("x = 1 +").unwrap()].lines().count());
        // Whether the dump is parsed again whole (within --max-tokens) or not.
        let err = parse(&broken, "d.py").unwrap_err().to_string();
        assert!(err.starts_with(&first), "{err}");
        let limits = crate::budget::Limits { tokens_per_function: 20_000, ..Default::default() };
        let small = crate::budget::Budget { limits, ..Default::default() };
        assert_eq!(crate::budget::run(small, || parse(&broken, "d.py")).unwrap_err().to_string(), err);
    }

    #[test]
    fn the_last_function_not_drawn_is_parsed_only_in_its_last_statement_unless_that_is_cut() {
        let text = large();
        // Its first statement broken but its last whole: skipped like the others.
        let (broken, body) = first_statement_broken(&text, text.rfind("    def main(").unwrap());
        assert_eq!(format!("{:?}", parse(&text, "d.py").unwrap()), format!("{:?}", parse(&broken, "d.py").unwrap()));
        // Cut short anywhere in its last statement, or after its header: reported, where the
        // whole-dump parse puts it.
        let statement = text.rfind("        c: pl.Tensor").unwrap();
        let cuts = ["c: pl.Tensor[[64,", "pl.FP32] =", "self.fx_cube(a", "self."]
            .map(|to| statement + text[statement..].find(to).unwrap() + to.len());
        for cut in cuts.into_iter().chain([body]) {
            let short = &text[..cut];
            let err = parse(short, "d.py").unwrap_err().to_string();
            assert_eq!(err, whole(short).unwrap_err().to_string(), "cut at {cut}");
        }
        // Cut after a whole statement: a whole dump, which no parser could tell from one cut short.
        let short = &text[..text.rfind("        return c").unwrap()];
        assert_eq!(parse(short, "d.py").unwrap().len(), parse(&text, "d.py").unwrap().len());
    }

    #[test]
    fn a_long_function_is_parsed_a_part_at_a_time_with_the_same_tiles() {
        // 20 000 tiles, some used much later, a loop and an if/else: long enough to be cut.
        let mut text = String::from(
            "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_x, 0, 64), pl.Mem.Vec]):\n",
        );
        for i in 0..20_000 {
            let offset = (i % 512) * 64;
            text.push_str(&format!(
                "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {offset}, 64), pl.Mem.Vec] = pl.tile.add(x, t{})\n",
                i / 2
            ));
            if i % 5000 == 4999 {
                text.push_str(&format!("        if t{i}:\n            y = t1\n        else:\n            y = t2\n"));
                text.push_str("        for k in range(4):\n            z = t3\n");
            }
        }
        text.push_str(
            "        return t0\n    @pl.function(type=pl.FunctionType.AIC)\n    def g(self, x):\n        return x\n",
        );
        let units = crate::dump::guard::check(&text, "d.py").unwrap().units;
        let parts = units.iter().filter(|u| u.continues).count();
        assert!(parts >= 5, "{parts} parts after the first");
        // No part starts with a clause that continues a statement.
        for u in units.iter().filter(|u| u.continues) {
            let first = text[u.start..].trim_start();
            assert!(!first.starts_with("else") && !first.starts_with("elif"), "{}", &first[..20]);
        }
        let (by_parts, at_once) = (parse(&text, "d.py").unwrap(), whole(&text).unwrap());
        assert_eq!(by_parts.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["f", "g"]);
        assert_eq!(by_parts[0].tiles.len(), 20_001);
        let (x, last) = (&by_parts[0].tiles[0], &by_parts[0].tiles[20_000]);
        assert!(x.end >= last.start, "x is read in every part: {} < {}", x.end, last.start);
        assert_eq!(format!("{by_parts:?}"), format!("{at_once:?}"));
    }
}
