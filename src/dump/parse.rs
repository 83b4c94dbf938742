//! Walks a dump's syntax tree and collects the tile bindings of each compute function.
//!
//! Dumps are valid Python, so this uses a real parser rather than patterns: annotations spread over
//! many lines, wrapped calls and nested blocks all come out the same.

use std::collections::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, ModModule, Number, Stmt};
use ruff_python_parser::{Mode, ParseError, ParseErrorType, ParseOptions, Parsed};
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::flow::{Flow, is_named};
use super::guard::Unit;
use crate::budget::Limits;
use crate::error::{Error, ErrorKind, Location, Result};
use crate::model::{MAX_BYTES, PeerBuffer, Reserved, Slots, Tile, Unresolved};

/// Function types that own tile memory; `Group`, `Orchestration`, `Spmd` and others do not.
const COMPUTE_TYPES: [&str; 3] = ["AIC", "AIV", "InCore"];

/// A compute function as the dump writes it, before alias merging.
#[derive(Debug, Clone)]
pub struct ParsedFunction {
    /// The function's name.
    pub name: String,
    /// Its type (`AIC`, `AIV`, `InCore`, ...).
    pub ftype: String,
    /// Its first line (the first decorator), 1-based.
    pub src_start: u32,
    /// Its last line.
    pub src_end: u32,
    /// In order of first binding.
    pub tiles: Vec<Tile>,
    /// Tiles whose MemRef gives no address this tool can place, in dump order.
    pub unresolved: Vec<Unresolved>,
    /// `pl.system.reserve_buffer` windows, in dump order.
    pub reserved: Vec<Reserved>,
    /// `pl.system.import_peer_buffer` uses, in dump order.
    pub peer_buffers: Vec<PeerBuffer>,
    /// On-chip `pl.tile.alloc` declarations, in dump order.
    pub allocs: Vec<Alloc>,
}

/// `name: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32768, pinned=True)`: an allocation's base, its space
/// and total size, whether the author declared it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alloc {
    /// The base's name.
    pub name: String,
    /// Its memory space.
    pub space: String,
    /// Its size in bytes.
    pub size: i64,
    /// Declared by the author (`pinned=True`).
    pub pinned: bool,
    /// The line of the declaration.
    pub line: u32,
}

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
        return Err(Error::new(
            ErrorKind::Refused,
            format!(
                "{file}: the file is empty; a pass dump is the Python text PyPTO writes to \
                 passes_dump/NN_after_<Pass>.py"
            ),
        ));
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
            _ => Error::new(ErrorKind::Unreadable, format!("{file}: the parser failed on this input")),
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
        return Err(Error::new(
            ErrorKind::Refused,
            format!(
                "{file}: this is Python, but not a pass dump: it has no @pl.program class and no \
                 @pl.function. Pass the passes_dump/NN_after_AllocateMemoryAddr.py file PyPTO writes"
            ),
        ));
    }
    found.into_iter().flat_map(|f| f.functions).collect()
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

/// A byte offset as the parser counts them; the file guard keeps dumps far below 4 GiB.
fn offset(at: usize) -> TextSize {
    TextSize::try_from(at).unwrap_or(TextSize::new(u32::MAX))
}

/// A MemRef number the model cannot hold, and where it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BadNumber {
    at: TextSize,
    why: Bad,
}

/// What is wrong with a MemRef number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bad {
    /// Not an integer at all (a float literal; a size that is an expression).
    NotInteger,
    /// An integer beyond [`MAX_BYTES`].
    Beyond,
    /// A negative offset or size.
    Negative,
    /// Offset and size within range, but their sum past [`MAX_BYTES`].
    PastEnd,
}

/// The error for a MemRef offset or size that is not an integer within [`MAX_BYTES`], at the number.
fn bad_number(bad: BadNumber, lines: &LineIndex, text: &str, file: &str) -> Error {
    let pos = lines.line_column(bad.at, text);
    let what = match bad.why {
        Bad::Beyond => format!("is beyond \u{b1}{MAX_BYTES} bytes (1 TiB); no on-chip memory is that large"),
        Bad::NotInteger => "is not an integer (a float, or a size that is an expression); on-chip tiles have \
                            integer addresses and sizes"
            .to_string(),
        Bad::Negative => {
            "is negative; no allocator places a tile below address 0 or gives it fewer than 0 bytes".to_string()
        }
        Bad::PastEnd => format!("ends past {MAX_BYTES} bytes (1 TiB) with its size; no on-chip memory is that large"),
    };
    Error::at(
        ErrorKind::Unreadable,
        Location { file: file.to_string(), line: pos.line.get(), column: pos.column.get() },
        format!("this MemRef offset or size {what}, so the dump was edited or damaged: re-dump it with PyPTO"),
    )
}

/// A compute function, open to its statements; `Some(Err(_))` where the function is over a limit.
fn function<'t>(
    func: &ast::StmtFunctionDef,
    lines: &'t LineIndex,
    text: &'t str,
    file: &str,
) -> Option<Result<OpenFunction<'t>>> {
    let ftype = function_type(func)?;
    if !COMPUTE_TYPES.contains(&ftype.as_str()) {
        return None;
    }
    Some(OpenFunction::start(func, ftype, lines, text, file))
}

/// A compute function being walked: its header and the statements seen so far.
struct OpenFunction<'t> {
    name: String,
    ftype: String,
    src_start: u32,
    src_end: u32,
    walk: TileWalk<'t>,
}

impl<'t> OpenFunction<'t> {
    fn start(
        func: &ast::StmtFunctionDef,
        ftype: String,
        lines: &'t LineIndex,
        text: &'t str,
        file: &str,
    ) -> Result<OpenFunction<'t>> {
        let line = |at: TextSize| lines.line_index(at).get() as u32;
        let first = func.decorator_list.first().map_or(func.start(), |d| d.start());
        let name = func.name.id.to_string();
        // Where its reserved windows are: the function's cross-core space.
        let reserve_space = if ftype == "AIC" { "Mat" } else { "Vec" };
        let open = OpenFunction {
            name,
            src_start: line(first),
            src_end: line(func.end()),
            walk: TileWalk::new(lines, text, reserve_space),
            ftype,
        };
        open.within_lines(file)?;
        let mut open = open;
        let walk = &mut open.walk;
        walk.params(&func.parameters);
        for decorator in &func.decorator_list {
            walk.visit_decorator(decorator);
        }
        walk.visit_parameters(&func.parameters);
        if let Some(returns) = &func.returns {
            walk.visit_annotation(returns);
        }
        walk.visit_body(&func.body);
        Ok(open)
    }

    /// Walks statements of the function's body that a later unit holds.
    fn walk_more(&mut self, body: &[Stmt]) {
        self.walk.visit_body(body);
        if let Some(last) = body.last() {
            self.src_end = self.src_end.max(self.walk.line(last.end()));
        }
    }

    fn within_lines(&self, file: &str) -> Result<()> {
        let limit = crate::budget::limits().lines_per_function;
        let span = (self.src_end - self.src_start + 1) as usize;
        if span > limit {
            let what = format!("{file}:{}: lines in function {}", self.src_start, self.name);
            return Err(Limits::refuse(&what, span, limit, crate::budget::Limit::Lines));
        }
        Ok(())
    }

    /// The function's tiles, or why it cannot have them (a MemRef number it cannot hold, a limit,
    /// the run stopped).
    fn finish(self, file: &str) -> Result<ParsedFunction> {
        self.within_lines(file)?;
        let OpenFunction { name, ftype, src_start, src_end, mut walk } = self;
        if let Some(err) = walk.stopped {
            return Err(err);
        }
        if let Some(bad) = walk.bad_number {
            return Err(bad_number(bad, walk.lines, walk.text, file));
        }
        let limit = crate::budget::limits().tiles_per_function;
        if walk.tiles.len() > limit {
            let what = format!("{file}:{src_start}: tiles in function {name}");
            return Err(Limits::refuse(&what, walk.tiles.len(), limit, crate::budget::Limit::Tiles));
        }
        let (unresolved, reserved, peer_buffers) =
            (std::mem::take(&mut walk.unresolved), std::mem::take(&mut walk.reserved), std::mem::take(&mut walk.peers));
        let allocs = walk.allocs.clone();
        Ok(ParsedFunction {
            name,
            ftype,
            src_start,
            src_end,
            tiles: walk.finish(),
            unresolved,
            reserved,
            peer_buffers,
            allocs,
        })
    }
}

/// The `type=` keyword of the `@pl.function(...)` decorator: `pl.FunctionType.AIV` gives `AIV`.
fn function_type(func: &ast::StmtFunctionDef) -> Option<String> {
    type_of(func.decorator_list.iter().map(|d| &d.expression))
}

/// Whether `unit` is the definition of a function that is not drawn (an orchestration function,
/// say), as its decorators tell: such a unit, often a third of a dump, need not be parsed. So a
/// syntax error inside such a function goes unreported, except in the dump's last unit, where a
/// dump cut short breaks off. A decorator that does not parse alone says nothing; the unit is
/// then parsed, and the parser reports it.
fn not_drawn(text: &str, unit: &Unit, decorators: &[(usize, usize)]) -> bool {
    let Some(own) = unit.function.and_then(|(from, to)| decorators.get(from..to)) else { return false };
    let mut parsed = Vec::with_capacity(own.len());
    for &(start, end) in own {
        let range = TextRange::new(offset(start), offset(end));
        match ruff_python_parser::parse_expression_range(text, range) {
            Ok(expr) => parsed.push(expr.into_expr()),
            Err(_) => return false,
        }
    }
    !type_of(parsed.iter()).is_some_and(|t| COMPUTE_TYPES.contains(&t.as_str()))
}

/// The type a function's decorators give it (`@pl.function(type=pl.FunctionType.AIV)`).
fn type_of<'a>(mut decorators: impl Iterator<Item = &'a Expr>) -> Option<String> {
    decorators.find_map(|d| {
        let Expr::Call(call) = d else { return None };
        if !is_named(&call.func, "function") {
            return None;
        }
        let kw = call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.id == "type"))?;
        match &kw.value {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            value => Some(dotted(value)?.rsplit('.').next()?.to_string()),
        }
    })
}

/// Collects tile bindings and every read of a name, in one pass over the function. It keeps
/// nothing of the syntax tree (names are read from the text), so a long function's body can be
/// walked a part at a time, each part's tree dropped before the next is parsed.
struct TileWalk<'t> {
    lines: &'t LineIndex,
    text: &'t str,
    tiles: Vec<Tile>,
    /// Index into `tiles` by name, so binding is constant time however many tiles a function has.
    by_name: HashMap<String, usize>,
    /// Lines of the statement (or parameter) that first binds each tile, parallel to `tiles`.
    bindings: Vec<(u32, u32)>,
    /// (name, position) of every load, applied once all bindings are known; the name is the
    /// text's, and turned into a line only for the names that are tiles.
    loads: Vec<(&'t str, TextSize)>,
    /// The first MemRef number that is not an integer within [`MAX_BYTES`].
    bad_number: Option<BadNumber>,
    /// Tiles with a MemRef that cannot be placed.
    unresolved: Vec<Unresolved>,
    /// `reserve_buffer` windows and `import_peer_buffer` uses.
    reserved: Vec<Reserved>,
    peers: Vec<PeerBuffer>,
    /// On-chip allocation declarations.
    allocs: Vec<Alloc>,
    /// The space a `reserve_buffer` of this function reserves.
    reserve_space: &'static str,
    /// Why the walk stopped early (the run passed its deadline); the rest of the tree is skipped.
    stopped: Option<Error>,
    /// Loops and the results of loops and branches, for the compiler's lifetimes.
    flow: Flow,
}

impl<'t> TileWalk<'t> {
    fn new(lines: &'t LineIndex, text: &'t str, reserve_space: &'static str) -> Self {
        TileWalk {
            lines,
            text,
            tiles: Vec::new(),
            by_name: HashMap::new(),
            bindings: Vec::new(),
            loads: Vec::new(),
            bad_number: None,
            unresolved: Vec::new(),
            reserved: Vec::new(),
            peers: Vec::new(),
            allocs: Vec::new(),
            reserve_space,
            stopped: None,
            flow: Flow::default(),
        }
    }

    fn line(&self, at: TextSize) -> u32 {
        self.lines.line_index(at).get() as u32
    }

    /// Keeps the tile `annotation` describes, if any; a MemRef number it cannot hold is remembered
    /// (the first one is reported) rather than dropped with the tile.
    fn keep(&mut self, tile: std::result::Result<Option<Bound>, BadNumber>, lines: (u32, u32)) {
        match tile {
            Ok(Some(Bound::Placed(tile))) => {
                self.by_name.insert(tile.name.clone(), self.tiles.len());
                self.tiles.push(tile);
                self.bindings.push(lines);
            }
            Ok(Some(Bound::Unresolved(u))) => {
                if !self.unresolved.iter().any(|x| x.name == u.name) {
                    self.unresolved.push(u);
                }
            }
            Ok(None) => {}
            Err(bad) => {
                self.bad_number.get_or_insert(bad);
            }
        }
    }

    /// Tile-typed parameters live in memory the caller owns, from the signature on.
    fn params(&mut self, params: &ast::Parameters) {
        for p in params.iter() {
            let p = p.as_parameter();
            let Some(annotation) = &p.annotation else { continue };
            if self.by_name.contains_key(p.name.id.as_str()) {
                continue;
            }
            let (start, end) = (self.line(p.start()), self.line(p.end()));
            let tile = tile_from(p.name.id.as_str(), annotation, "param", start, end, self.text);
            self.keep(tile, (start, end));
        }
    }

    fn bind(&mut self, stmt: &ast::StmtAnnAssign) {
        let Expr::Name(target) = stmt.target.as_ref() else { return };
        let (start, end) = (self.line(stmt.start()), self.line(stmt.end()));
        if let Some(t) = self.by_name.get(target.id.as_str()).map(|&i| &mut self.tiles[i]) {
            // Rebound in a sibling branch: one lexical range covers both bindings.
            t.start = t.start.min(start);
            t.end = t.end.max(end);
            return;
        }
        let op = match stmt.value.as_deref() {
            Some(Expr::Call(call)) => dotted(&call.func).map(|n| n.strip_prefix("pl.").unwrap_or(&n).to_string()),
            _ => None,
        };
        let tile = tile_from(target.id.as_str(), &stmt.annotation, op.as_deref().unwrap_or(""), start, end, self.text);
        self.keep(tile, (start, end));
    }

    /// Records what a statement's call declares: an on-chip allocation (`pl.tile.alloc`), a reserved
    /// window (`pl.system.reserve_buffer`) or an imported one (`pl.system.import_peer_buffer`).
    fn declaration(&mut self, target: Option<&Expr>, value: &Expr) {
        let Expr::Call(call) = value else { return };
        let kw = |key: &str| call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.id == key));
        let text_kw = |key: &str| match kw(key).map(|k| &k.value) {
            Some(Expr::StringLiteral(s)) => Some(s.value.to_str().to_string()),
            _ => None,
        };
        let line = self.line(call.start());
        if is_named(&call.func, "alloc") {
            let Some(Expr::Name(target)) = target else { return };
            let args = &call.arguments.args;
            let (Some(space), Some(size)) = (args.first().and_then(mem_space), args.get(1).and_then(int_value)) else {
                return;
            };
            if space == "DDR" {
                return;
            }
            let pinned = kw("pinned").is_some_and(|k| matches!(&k.value, Expr::BooleanLiteral(b) if b.value));
            self.allocs.push(Alloc { name: target.id.to_string(), space, size, pinned, line });
        } else if is_named(&call.func, "reserve_buffer") {
            let size = kw("size").and_then(|k| int_value(&k.value)).unwrap_or(0);
            let base = kw("base").and_then(|k| int_value(&k.value)).unwrap_or(-1);
            let name = text_kw("name")
                .or_else(|| match target {
                    Some(Expr::Name(n)) => Some(n.id.to_string()),
                    _ => None,
                })
                .unwrap_or_default();
            if (0..=MAX_BYTES).contains(&size) && base <= MAX_BYTES - size {
                let offset = (base >= 0).then_some(base);
                self.reserved.push(Reserved { name, space: self.reserve_space.to_string(), offset, size, line });
            }
        } else if is_named(&call.func, "import_peer_buffer") {
            let (name, peer) = (text_kw("name").unwrap_or_default(), text_kw("peer_func").unwrap_or_default());
            self.peers.push(PeerBuffer { name, peer, line });
        }
    }

    /// Extends each range to every read of the name, and records the reads outside the binding
    /// statement itself as the tile's uses.
    fn finish(mut self) -> Vec<Tile> {
        // A declared allocation's size and pinning come from its `pl.tile.alloc` statement: no
        // MemRef states the size of a whole multi-slot allocation.
        if !self.allocs.is_empty() {
            let allocs: HashMap<&str, &Alloc> = self.allocs.iter().map(|a| (a.name.as_str(), a)).collect();
            for t in &mut self.tiles {
                let Some(alloc) = allocs.get(t.base.as_str()) else { continue };
                t.pinned = alloc.pinned;
                if let Some(slots) = &mut t.slots
                    && alloc.size > slots.alloc_size
                    && alloc.size <= MAX_BYTES - slots.alloc_offset
                {
                    slots.alloc_size = alloc.size;
                    if slots.index.is_none() {
                        t.size = alloc.size;
                    }
                }
            }
        }
        // Results of multi-value yields carry tiles the dump gives no type.
        for (tile, lines) in self.flow.results(&self.by_name, &self.tiles) {
            self.by_name.insert(tile.name.clone(), self.tiles.len());
            self.tiles.push(tile);
            self.bindings.push(lines);
        }
        let index = &self.by_name;
        let mut reads: Vec<Vec<u32>> = vec![Vec::new(); self.tiles.len()];
        for &(name, at) in &self.loads {
            if let Some(&i) = index.get(name) {
                let line = self.line(at);
                let (from, to) = self.bindings[i];
                if line < from || line > to {
                    reads[i].push(line);
                }
            }
        }
        for (t, mut uses) in self.tiles.iter_mut().zip(reads) {
            uses.sort_unstable();
            uses.dedup();
            if let (Some(&first), Some(&last)) = (uses.first(), uses.last()) {
                t.start = t.start.min(first);
                t.end = t.end.max(last);
            }
            t.uses = uses;
        }
        self.flow.lifetimes(&mut self.tiles, &self.bindings, &self.by_name);
        self.tiles
    }
}

impl<'a> Visitor<'a> for TileWalk<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.stopped.is_some() {
            return;
        }
        if let Err(err) = crate::budget::checkpoint() {
            self.stopped = Some(err);
            return;
        }
        match stmt {
            Stmt::AnnAssign(ann) => {
                self.bind(ann);
                if let Some(value) = &ann.value {
                    self.declaration(Some(&ann.target), value);
                }
            }
            Stmt::Assign(a) => self.declaration(a.targets.first(), &a.value),
            Stmt::Expr(e) => self.declaration(None, &e.value),
            Stmt::For(_) | Stmt::While(_) | Stmt::If(_) => {
                let lines = self.lines;
                self.flow.record(stmt, |at| lines.line_index(at).get() as u32);
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(name) = expr
            && name.ctx == ExprContext::Load
        {
            let text = self.text.get(name.range().to_std_range()).unwrap_or_default();
            self.loads.push((text, name.start()));
        }
        visitor::walk_expr(self, expr);
    }
}

/// What a tile annotation binds: a tile placed at its bytes, or one whose MemRef cannot be placed.
enum Bound {
    Placed(Tile),
    Unresolved(Unresolved),
}

/// Builds a tile from `pl.Tile[shape, dtype, pl.MemRef(base, offset, size), pl.Mem.Space, ...]`, or
/// `Ok(None)` when the annotation is not a tile, has no MemRef, or is in DDR; `Err` when its MemRef's
/// offset or size is not an integer the model can hold.
fn tile_from(
    name: &str,
    annotation: &Expr,
    op: &str,
    start: u32,
    end: u32,
    text: &str,
) -> std::result::Result<Option<Bound>, BadNumber> {
    let Expr::Subscript(sub) = annotation else { return Ok(None) };
    if !is_named(&sub.value, "Tile") {
        return Ok(None);
    }
    let elements: &[Expr] = match sub.slice.as_ref() {
        Expr::Tuple(t) => &t.elts,
        other => std::slice::from_ref(other),
    };
    let Some(space) = elements.iter().find_map(mem_space) else { return Ok(None) };
    if space == "DDR" {
        return Ok(None);
    }
    let Some(read) = elements.iter().find_map(|e| memref(e, text)) else { return Ok(None) };
    let (base, offset, size, slots) = match read? {
        MemRefRead::Placed { base, offset, size, slots } => (base, offset, size, slots),
        MemRefRead::Unresolved { base, memref, why } => {
            let name = name.to_string();
            return Ok(Some(Bound::Unresolved(Unresolved { name, space, base, line: start, memref, why })));
        }
    };
    Ok(Some(Bound::Placed(Tile {
        name: name.to_string(),
        space,
        base,
        offset,
        size,
        shape: elements.first().map(shape).unwrap_or_default(),
        dtype: elements.iter().skip(1).take(2).find_map(dtype).unwrap_or_default(),
        op: op.to_string(),
        start,
        end,
        live_end: end,
        held_by: None,
        uses: Vec::new(),
        layout: elements.iter().find_map(|e| tile_view(e, text)).unwrap_or_default(),
        slots,
        pinned: false,
        compiler_end: None,
        late: None,
    })))
}

/// The arguments of `pl.TileView(...)` as written, without the `pl.` prefixes: what the tooltip shows
/// of the tile's layout (`blayout=col_major, slayout=row_major, fractal=512`).
fn tile_view(expr: &Expr, text: &str) -> Option<String> {
    let Expr::Call(call) = expr else { return None };
    if !is_named(&call.func, "TileView") {
        return None;
    }
    let range = call.arguments.range();
    let args = text.get(range.start().to_usize()..range.end().to_usize())?;
    let inner = args.strip_prefix('(').and_then(|a| a.strip_suffix(')')).unwrap_or(args);
    let flat: Vec<&str> = inner.split_whitespace().collect();
    let flat = flat.join(" ").replace("pl.TileLayout.", "").replace("pl.", "");
    Some(flat.trim_end_matches(',').trim().to_string())
}

/// A byte count read from a MemRef: an integer within [`MAX_BYTES`], or where it fails to be one.
type Bytes = std::result::Result<i64, BadNumber>;

/// What a MemRef says about where a tile is.
enum MemRefRead {
    /// At `offset` for `size` bytes (for a slotted MemRef: its slot, or the whole allocation).
    Placed { base: String, offset: i64, size: i64, slots: Option<Slots> },
    /// Somewhere this tool cannot compute, and why.
    Unresolved { base: String, memref: String, why: String },
}

/// The most slots a declared allocation may have: far more than any double or multi buffer.
const MAX_SLOTS: i64 = 1 << 16;

/// Reads `pl.MemRef(base, offset, size)` (a name or string base), the slotted form
/// `pl.MemRef(base, offset, size, slots=N)[k]` of a declared allocation, and the one-argument form
/// of a declaration not yet resolved (`pl.MemRef("ub", slots=2)[i % 2]`, before InitMemRef).
fn memref(expr: &Expr, text: &str) -> Option<std::result::Result<MemRefRead, BadNumber>> {
    let (call, subscript) = match expr {
        Expr::Call(call) => (call, None),
        Expr::Subscript(sub) => match sub.value.as_ref() {
            Expr::Call(call) => (call, Some(sub.slice.as_ref())),
            _ => return None,
        },
        _ => return None,
    };
    if !is_named(&call.func, "MemRef") {
        return None;
    }
    let source = |e: &dyn Ranged| {
        let raw = text.get(e.range().to_std_range()).unwrap_or_default();
        let flat = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        // A runaway expression is cut: the message needs its start, not all of it.
        match flat.char_indices().nth(160) {
            Some((at, _)) => format!("{}...", &flat[..at]),
            None => flat,
        }
    };
    let base_name = |e: Option<&Expr>| match e {
        Some(Expr::Name(n)) => Some(n.id.to_string()),
        Some(Expr::StringLiteral(s)) => Some(s.value.to_str().to_string()),
        _ => None,
    };
    let unresolved =
        |base: String, why: &str| Some(Ok(MemRefRead::Unresolved { base, memref: source(expr), why: why.to_string() }));
    let args = call.arguments.args.as_ref();
    let slots_kw = call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.id == "slots"));
    let [base, offset, size, ..] = args else {
        let base = base_name(args.first()).unwrap_or_default();
        return unresolved(
            base,
            "a declared allocation not resolved yet (a dump from before InitMemRef): it has no size or address",
        );
    };
    let Some(base) = base_name(Some(base)) else {
        return unresolved(String::new(), "its base is neither a name nor a string");
    };
    let size = match bytes_value(size) {
        Ok(size) => size,
        Err(bad) => return Some(Err(bad)),
    };
    let offset = match offset_value(offset) {
        Ok(offset) => offset,
        Err(bad) => return Some(Err(bad)),
    };
    let Some(slots_kw) = slots_kw else {
        return match (offset, subscript) {
            (Some(offset), None) => Some(within(base, offset, size, None, expr_offset(call).start())),
            (_, Some(_)) => unresolved(base, "a slot subscript on a MemRef without slots="),
            (None, None) => unresolved(
                base,
                "its offset is computed at run time, outside a declared allocation (a view whose address \
                 only the op knows)",
            ),
        };
    };
    let count = match int_value(&slots_kw.value) {
        Some(n) if (1..=MAX_SLOTS).contains(&n) => n,
        _ => return unresolved(base, "its slots= is not a count from 1 to 65536"),
    };
    let index = subscript.map(|s| (int_value(s), source(s)));
    // The allocation's first byte: the offset less its slot for a constant subscript, the
    // constant part of the offset expression for a run-time one.
    let (alloc_offset, index) = match (offset, index) {
        (Some(offset), None) => (offset, None),
        (Some(offset), Some((Some(k), selector))) => {
            if !(0..count).contains(&k) {
                return unresolved(base, &format!("slot {k} of an allocation of {count} slots"));
            }
            let Some(first) = k.checked_mul(size).and_then(|ks| offset.checked_sub(ks)) else {
                return Some(Err(beyond(expr_offset(call).start())));
            };
            (first, Some((Some(k), selector)))
        }
        (Some(offset), Some((None, selector))) => (offset, Some((None, selector))),
        (None, Some((k, selector))) => {
            if let Some(k) = k
                && !(0..count).contains(&k)
            {
                return unresolved(base, &format!("slot {k} of an allocation of {count} slots"));
            }
            let Some(c) = constant_part(expr_offset(call)) else {
                return unresolved(base, "its offset is not an address plus a slot of the selector");
            };
            // Checked: the numbers are the dump's, and a hostile one may be near i64's ends.
            let Some(first) = k.unwrap_or(0).checked_mul(size).and_then(|ks| c.checked_sub(ks)) else {
                return Some(Err(beyond(expr_offset(call).start())));
            };
            (first, Some((k, selector)))
        }
        (None, None) => return unresolved(base, "a run-time offset without a slot subscript"),
    };
    let Some(alloc_size) = size.checked_mul(count) else { return Some(Err(beyond(call.arguments.args[2].start()))) };
    let (k, selector) = index.unwrap_or((None, String::new()));
    let slots = Slots { count: count as u32, slot_size: size, index: k, selector, alloc_offset, alloc_size };
    let (offset, size) = match k {
        Some(k) => (alloc_offset + k * size, size),
        None => (alloc_offset, alloc_size),
    };
    Some(within(base, offset, size, Some(slots), expr_offset(call).start()))
}

/// The MemRef's offset argument.
fn expr_offset(call: &ast::ExprCall) -> &Expr {
    &call.arguments.args[1]
}

/// A placed MemRef, or the refusal of one that starts below 0 or ends past [`MAX_BYTES`].
fn within(
    base: String,
    offset: i64,
    size: i64,
    slots: Option<Slots>,
    at: TextSize,
) -> std::result::Result<MemRefRead, BadNumber> {
    let alloc = slots.as_ref().map_or((offset, size), |s| (s.alloc_offset, s.alloc_size));
    if offset < 0 || alloc.0 < 0 {
        return Err(BadNumber { at, why: Bad::Negative });
    }
    if offset > MAX_BYTES - size || alloc.1 > MAX_BYTES || alloc.0 > MAX_BYTES - alloc.1 {
        return Err(BadNumber { at, why: Bad::PastEnd });
    }
    Ok(MemRefRead::Placed { base, offset, size, slots })
}

fn beyond(at: TextSize) -> BadNumber {
    BadNumber { at, why: Bad::Beyond }
}

/// The sum of the integer terms of an offset written as a sum (`16384 + i % 2 * 16384` gives
/// 16384); `None` when a term that is not an integer is not a product with an integer factor, the
/// shape a slot selector's term has.
fn constant_part(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::BinOp(b) if b.op == ast::Operator::Add => constant_part(&b.left)?.checked_add(constant_part(&b.right)?),
        Expr::BinOp(b) if b.op == ast::Operator::Mult => {
            (int_value(&b.left).is_some() || int_value(&b.right).is_some()).then_some(0)
        }
        other => int_value(other),
    }
}

/// A size: an integer from 0 to [`MAX_BYTES`], or the place of what is not one.
fn bytes_value(expr: &Expr) -> Bytes {
    let Some(value) = int_value(expr) else {
        let why = if is_big_int(expr) { Bad::Beyond } else { Bad::NotInteger };
        return Err(BadNumber { at: expr.start(), why });
    };
    if value.unsigned_abs() > MAX_BYTES as u64 {
        return Err(beyond(expr.start()));
    }
    if value < 0 {
        return Err(BadNumber { at: expr.start(), why: Bad::Negative });
    }
    Ok(value)
}

/// An offset: `Some` integer from 0 to [`MAX_BYTES`], `None` for an expression of names (computed
/// at run time), or the place of a number that cannot be one (a float, a negative or huge integer).
fn offset_value(expr: &Expr) -> std::result::Result<Option<i64>, BadNumber> {
    // PyPTO writes -1 for "no address yet" before AllocateMemoryAddr: such a tile is at the start
    // of its base, as the dumps that write 0 there put it.
    if int_value(expr) == Some(-1) {
        return Ok(Some(0));
    }
    if int_value(expr).is_some() || is_big_int(expr) || is_float(expr) {
        return bytes_value(expr).map(Some);
    }
    Ok(None)
}

/// A float or complex literal (possibly negated or wrapped in `pl.const`).
fn is_float(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value, .. }) => !matches!(value, Number::Int(_)),
        Expr::UnaryOp(u) => is_float(&u.operand),
        Expr::Call(call) if is_named(&call.func, "const") => call.arguments.args.first().is_some_and(is_float),
        _ => false,
    }
}

/// An integer literal too large for i64 (possibly negated or wrapped in `pl.const`).
fn is_big_int(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(_), .. }) => true,
        Expr::UnaryOp(u) => is_big_int(&u.operand),
        Expr::Call(call) => call.arguments.args.first().is_some_and(is_big_int),
        _ => false,
    }
}

/// `pl.Mem.Vec` gives `Vec`.
fn mem_space(expr: &Expr) -> Option<String> {
    let name = dotted(expr)?;
    let mut parts = name.rsplit('.');
    let space = parts.next()?;
    (parts.next()? == "Mem").then(|| space.to_string())
}

/// The static shape, or empty when any dimension is not an integer.
fn shape(expr: &Expr) -> Vec<i64> {
    let Expr::List(list) = expr else { return Vec::new() };
    list.elts.iter().map(int_value).collect::<Option<Vec<_>>>().unwrap_or_default()
}

/// `pl.BF16` gives `BF16`: one dot, an upper-case name.
fn dtype(expr: &Expr) -> Option<String> {
    let name = dotted(expr)?;
    let (_, ty) = name.split_once('.')?;
    let upper =
        !ty.contains('.') && ty.chars().any(|c| c.is_ascii_uppercase()) && !ty.chars().any(|c| c.is_ascii_lowercase());
    upper.then(|| ty.to_string())
}

/// `4096`, `-1` and `pl.const(4096, pl.INT64)` as an integer.
fn int_value(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(i), .. }) => i.as_i64(),
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::USub => int_value(&u.operand)?.checked_neg(),
        Expr::Call(call) if is_named(&call.func, "const") => int_value(call.arguments.args.first()?),
        _ => None,
    }
}

/// An attribute chain as text: `pl.Mem.Vec`.
/// Whether `expr` is a dotted name whose last part is `last` (`Tile`, `pl.Tile`), without
/// building the name: it is asked of every annotation and call.
fn dotted(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Name(n) => Some(n.id.to_string()),
        Expr::Attribute(a) => {
            let mut head = dotted(&a.value)?;
            head.push('.');
            head.push_str(a.attr.id.as_str());
            Some(head)
        }
        _ => None,
    }
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
        let expected = whole(&broken).unwrap_err().message;
        assert!(
            expected.starts_with(&format!("d.py:{}:", line + 1)) || expected.starts_with(&format!("d.py:{line}:")),
            "{expected}"
        );
        assert_eq!(parse(&broken, "d.py").unwrap_err().message, expected);
        let limits = crate::budget::Limits { tokens_per_function: 20_000, ..Default::default() };
        let small = crate::budget::Budget { limits, ..Default::default() };
        assert_eq!(crate::budget::run(small, || parse(&broken, "d.py")).unwrap_err().message, expected);
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
        let err = parse(&broken, "d.py").unwrap_err().message;
        assert_eq!(err, whole(&broken).unwrap_err().message);
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
        let err = parse(&broken, "d.py").unwrap_err().message;
        assert!(err.starts_with(&first), "{err}");
        let limits = crate::budget::Limits { tokens_per_function: 20_000, ..Default::default() };
        let small = crate::budget::Budget { limits, ..Default::default() };
        assert_eq!(crate::budget::run(small, || parse(&broken, "d.py")).unwrap_err().message, err);
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
            let err = parse(short, "d.py").unwrap_err().message;
            assert_eq!(err, whole(short).unwrap_err().message, "cut at {cut}");
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
