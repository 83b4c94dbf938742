//! A compute function: what the parse returns for it, and its header read and held open while its
//! statements are walked (one part of a long body at a time), then closed into that result. Apart
//! from the parse, which decides which units of the dump are parsed, and from the walk itself.

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextRange, TextSize};

use ruff_python_ast::visitor::Visitor;

use super::annotation::{bad_number, dotted};
use super::flow::is_named;
use super::guard::Unit;
use super::walk::{Alloc, TileWalk};
use crate::budget::Limits;
use crate::error::{Location, Result};
use crate::model::{PeerBuffer, Reserved, Tile, Unresolved};

/// Function types that own tile memory; `Group`, `Orchestration`, `Spmd` and others do not.
pub(super) const COMPUTE_TYPES: [&str; 3] = ["AIC", "AIV", "InCore"];

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

/// A byte offset as the parser counts them; the file guard keeps dumps far below 4 GiB.
pub(super) fn offset(at: usize) -> TextSize {
    TextSize::try_from(at).unwrap_or(TextSize::new(u32::MAX))
}

/// A compute function, open to its statements; `Some(Err(_))` where the function is over a limit.
pub(super) fn function<'t>(
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
pub(super) struct OpenFunction<'t> {
    pub(super) name: String,
    pub(super) ftype: String,
    pub(super) src_start: u32,
    pub(super) src_end: u32,
    pub(super) walk: TileWalk<'t>,
}

impl<'t> OpenFunction<'t> {
    pub(super) fn start(
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
    pub(super) fn walk_more(&mut self, body: &[Stmt]) {
        self.walk.visit_body(body);
        if let Some(last) = body.last() {
            self.src_end = self.src_end.max(self.walk.line(last.end()));
        }
    }

    pub(super) fn within_lines(&self, file: &str) -> Result<()> {
        let limit = crate::budget::limits().lines_per_function;
        let span = (self.src_end - self.src_start + 1) as usize;
        if span > limit {
            let what = format!("lines in function {}", self.name);
            let at = Location { file: file.to_string(), line: self.src_start as usize, column: 1 };
            return Err(Limits::refuse(&what, span, limit, crate::budget::Limit::Lines).placed(at));
        }
        Ok(())
    }

    /// The function's tiles, or why it cannot have them (a MemRef number it cannot hold, a limit,
    /// the run stopped).
    pub(super) fn finish(self, file: &str) -> Result<ParsedFunction> {
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
            let what = format!("tiles in function {name}");
            let at = Location { file: file.to_string(), line: src_start as usize, column: 1 };
            return Err(Limits::refuse(&what, walk.tiles.len(), limit, crate::budget::Limit::Tiles).placed(at));
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
pub(super) fn function_type(func: &ast::StmtFunctionDef) -> Option<String> {
    type_of(func.decorator_list.iter().map(|d| &d.expression))
}

/// Whether `unit` is the definition of a function that is not drawn (an orchestration function,
/// say), as its decorators tell: such a unit, often a third of a dump, need not be parsed. So a
/// syntax error inside such a function goes unreported, except in the dump's last unit, where a
/// dump cut short breaks off. A decorator that does not parse alone says nothing; the unit is
/// then parsed, and the parser reports it.
pub(super) fn not_drawn(text: &str, unit: &Unit, decorators: &[(usize, usize)]) -> bool {
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
pub(super) fn type_of<'a>(mut decorators: impl Iterator<Item = &'a Expr>) -> Option<String> {
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
