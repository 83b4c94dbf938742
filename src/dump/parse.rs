//! Walks a dump's syntax tree and collects the tile bindings of each compute function (I3-I5).
//!
//! Dumps are valid Python, so this uses a real parser rather than patterns: annotations spread over
//! many lines, wrapped calls and nested blocks all come out the same.

use std::collections::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Number, Stmt};
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextSize};

use crate::error::{Error, ErrorKind, Result};
use crate::model::{MAX_BYTES, Tile};

/// Function types that own tile memory (I4); `Group`, `Orchestration`, `Spmd` and others do not.
const COMPUTE_TYPES: [&str; 3] = ["AIC", "AIV", "InCore"];

/// Stack of the thread that parses, walks and drops the tree. The guard bounds the tree's depth; this
/// leaves ample room for that bound in unoptimized builds. Pages are only touched as the walk goes deep.
const STACK_BYTES: usize = 512 * 1024 * 1024;

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
}

/// Parses `text` and returns every compute function with its tiles (possibly none), in dump order.
/// `file` names the dump in error messages.
pub fn parse(text: &str, file: &str) -> Result<Vec<ParsedFunction>> {
    super::guard::check(text, file)?;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("dump-parser".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || parse_here(text, file))
            .map_err(|e| Error::new(ErrorKind::Io, format!("cannot start the parser thread: {e}")))?
            .join()
            .unwrap_or_else(|_| {
                Err(Error::new(ErrorKind::Unreadable, format!("{file}: the parser failed on this input")))
            })
    })
}

fn parse_here(text: &str, file: &str) -> Result<Vec<ParsedFunction>> {
    let lines = LineIndex::from_source_text(text);
    let module = ruff_python_parser::parse_module(text).map_err(|err| {
        let at = lines.line_column(err.location.start(), text);
        Error::new(
            ErrorKind::Unreadable,
            format!(
                "{file}:{}:{}: not valid Python: {}; a pass dump is the Python text PyPTO writes, unedited",
                at.line, at.column, err.error
            ),
        )
    })?;
    let mut out = Vec::new();
    for stmt in &module.syntax().body {
        match stmt {
            Stmt::ClassDef(class) => {
                for inner in &class.body {
                    if let Stmt::FunctionDef(func) = inner {
                        out.extend(function(func, &lines, text));
                    }
                }
            }
            Stmt::FunctionDef(func) => out.extend(function(func, &lines, text)),
            _ => {}
        }
    }
    out.into_iter()
        .collect::<std::result::Result<Vec<_>, TextSize>>()
        .map_err(|at| out_of_range(at, &lines, text, file))
}

/// The error for a MemRef whose offset or size is beyond [`MAX_BYTES`], at the annotation.
fn out_of_range(at: TextSize, lines: &LineIndex, text: &str, file: &str) -> Error {
    let pos = lines.line_column(at, text);
    Error::new(
        ErrorKind::Unreadable,
        format!(
            "{file}:{}:{}: a MemRef offset or size here is beyond \u{b1}{} bytes (1 TiB); no on-chip memory is \
             that large, so the dump was edited or damaged: re-dump it with PyPTO",
            pos.line, pos.column, MAX_BYTES
        ),
    )
}

/// A compute function's tiles; `Some(Err(at))` where a MemRef at `at` is out of range.
fn function<'a>(
    func: &'a ast::StmtFunctionDef,
    lines: &'a LineIndex,
    text: &'a str,
) -> Option<std::result::Result<ParsedFunction, TextSize>> {
    let ftype = function_type(func)?;
    if !COMPUTE_TYPES.contains(&ftype.as_str()) {
        return None;
    }
    let line = |at: TextSize| lines.line_index(at).get() as u32;
    let first = func.decorator_list.first().map_or(func.start(), |d| d.start());
    let mut walk =
        TileWalk { lines, text, tiles: Vec::new(), bindings: Vec::new(), loads: Vec::new(), out_of_range: None };
    walk.params(&func.parameters);
    for decorator in &func.decorator_list {
        walk.visit_decorator(decorator);
    }
    walk.visit_parameters(&func.parameters);
    if let Some(returns) = &func.returns {
        walk.visit_annotation(returns);
    }
    walk.visit_body(&func.body);
    if let Some(at) = walk.out_of_range {
        return Some(Err(at));
    }
    Some(Ok(ParsedFunction {
        name: func.name.id.to_string(),
        ftype,
        src_start: line(first),
        src_end: line(func.end()),
        tiles: walk.finish(),
    }))
}

/// The `type=` keyword of the `@pl.function(...)` decorator: `pl.FunctionType.AIV` gives `AIV`.
fn function_type(func: &ast::StmtFunctionDef) -> Option<String> {
    func.decorator_list.iter().find_map(|d| {
        let Expr::Call(call) = &d.expression else { return None };
        if !dotted(&call.func).is_some_and(|n| n == "function" || n.ends_with(".function")) {
            return None;
        }
        let kw = call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.id == "type"))?;
        match &kw.value {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            value => Some(dotted(value)?.rsplit('.').next()?.to_string()),
        }
    })
}

/// Collects tile bindings and every read of a name, in one pass over the function.
struct TileWalk<'a> {
    lines: &'a LineIndex,
    text: &'a str,
    tiles: Vec<Tile>,
    /// Lines of the statement (or parameter) that first binds each tile, parallel to `tiles`.
    bindings: Vec<(u32, u32)>,
    /// (name, position) of every load, applied once all bindings are known; borrowed from the tree,
    /// and turned into a line only for the names that are tiles.
    loads: Vec<(&'a str, TextSize)>,
    /// Where the first MemRef beyond [`MAX_BYTES`] was seen.
    out_of_range: Option<TextSize>,
}

impl<'a> TileWalk<'a> {
    fn line(&self, at: TextSize) -> u32 {
        self.lines.line_index(at).get() as u32
    }

    /// Keeps `tile` if its MemRef is within range; otherwise remembers where the first bad one is.
    fn keep(&mut self, tile: Tile, annotation: &Expr, lines: (u32, u32)) {
        if tile.offset.unsigned_abs() > MAX_BYTES as u64 || tile.size.unsigned_abs() > MAX_BYTES as u64 {
            self.out_of_range.get_or_insert(annotation.start());
            return;
        }
        self.tiles.push(tile);
        self.bindings.push(lines);
    }

    /// Tile-typed parameters live in memory the caller owns, from the signature on.
    fn params(&mut self, params: &ast::Parameters) {
        for p in params.iter() {
            let p = p.as_parameter();
            let Some(annotation) = &p.annotation else { continue };
            if self.tiles.iter().any(|t| t.name == p.name.id.as_str()) {
                continue;
            }
            let (start, end) = (self.line(p.start()), self.line(p.end()));
            if let Some(tile) = tile_from(p.name.id.as_str(), annotation, "param", start, end, self.text) {
                self.keep(tile, annotation, (start, end));
            }
        }
    }

    fn bind(&mut self, stmt: &ast::StmtAnnAssign) {
        let Expr::Name(target) = stmt.target.as_ref() else { return };
        let (start, end) = (self.line(stmt.start()), self.line(stmt.end()));
        if let Some(t) = self.tiles.iter_mut().find(|t| t.name == target.id.as_str()) {
            // Rebound in a sibling branch: one lexical range covers both bindings.
            t.start = t.start.min(start);
            t.end = t.end.max(end);
            return;
        }
        let op = match stmt.value.as_deref() {
            Some(Expr::Call(call)) => dotted(&call.func).map(|n| n.strip_prefix("pl.").unwrap_or(&n).to_string()),
            _ => None,
        };
        if let Some(tile) =
            tile_from(target.id.as_str(), &stmt.annotation, op.as_deref().unwrap_or(""), start, end, self.text)
        {
            self.keep(tile, &stmt.annotation, (start, end));
        }
    }

    /// Extends each range to every read of the name, and records the reads outside the binding
    /// statement itself as the tile's uses.
    fn finish(mut self) -> Vec<Tile> {
        let index: HashMap<&str, usize> = self.tiles.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect();
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
        self.tiles
    }
}

impl<'a> Visitor<'a> for TileWalk<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::AnnAssign(ann) = stmt {
            self.bind(ann);
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(name) = expr
            && name.ctx == ExprContext::Load
        {
            self.loads.push((name.id.as_str(), name.start()));
        }
        visitor::walk_expr(self, expr);
    }
}

/// Builds a tile from `pl.Tile[shape, dtype, pl.MemRef(base, offset, size), pl.Mem.Space, ...]`, or
/// `None` when the annotation is not a tile, has no MemRef, or is in DDR.
fn tile_from(name: &str, annotation: &Expr, op: &str, start: u32, end: u32, text: &str) -> Option<Tile> {
    let Expr::Subscript(sub) = annotation else { return None };
    if !dotted(&sub.value).is_some_and(|n| n == "Tile" || n.ends_with(".Tile")) {
        return None;
    }
    let elements: &[Expr] = match sub.slice.as_ref() {
        Expr::Tuple(t) => &t.elts,
        other => std::slice::from_ref(other),
    };
    let (base, offset, size) = elements.iter().find_map(memref)?;
    let space = elements.iter().find_map(mem_space)?;
    if space == "DDR" {
        return None;
    }
    Some(Tile {
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
        uses: Vec::new(),
        layout: elements.iter().find_map(|e| tile_view(e, text)).unwrap_or_default(),
    })
}

/// The arguments of `pl.TileView(...)` as written, without the `pl.` prefixes: what the tooltip shows
/// of the tile's layout (`blayout=col_major, slayout=row_major, fractal=512`).
fn tile_view(expr: &Expr, text: &str) -> Option<String> {
    let Expr::Call(call) = expr else { return None };
    if !dotted(&call.func).is_some_and(|n| n == "TileView" || n.ends_with(".TileView")) {
        return None;
    }
    let range = call.arguments.range();
    let args = text.get(range.start().to_usize()..range.end().to_usize())?;
    let inner = args.strip_prefix('(').and_then(|a| a.strip_suffix(')')).unwrap_or(args);
    let flat: Vec<&str> = inner.split_whitespace().collect();
    let flat = flat.join(" ").replace("pl.TileLayout.", "").replace("pl.", "");
    Some(flat.trim_end_matches(',').trim().to_string())
}

/// `pl.MemRef(base, offset, size)` with a name or string base and integer offset and size.
fn memref(expr: &Expr) -> Option<(String, i64, i64)> {
    let Expr::Call(call) = expr else { return None };
    if !dotted(&call.func).is_some_and(|n| n == "MemRef" || n.ends_with(".MemRef")) {
        return None;
    }
    let [base, offset, size, ..] = call.arguments.args.as_ref() else { return None };
    let base = match base {
        Expr::Name(n) => n.id.to_string(),
        Expr::StringLiteral(s) => s.value.to_str().to_string(),
        _ => return None,
    };
    Some((base, int_value(offset)?, int_value(size)?))
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
        Expr::Call(call) if dotted(&call.func).is_some_and(|n| n == "const" || n.ends_with(".const")) => {
            int_value(call.arguments.args.first()?)
        }
        _ => None,
    }
}

/// An attribute chain as text: `pl.Mem.Vec`.
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
