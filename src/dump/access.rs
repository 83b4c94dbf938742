//! The op calls of a function and the memory spaces they read and write, recorded while it is
//! walked, and each tile's first and last access among them (what its handovers are between).
//!
//! PyPTO infers an op's pipe from its name, the spaces of its positional arguments and the space of
//! its result (`Backend::TryInferPipe`); the dump states all three: the op is the call's dotted
//! name, a tile argument's space is in its annotation, a tensor is in DDR, and the result's space is
//! in the statement's annotation. The pipe itself depends on the chip's memory routes, so it is
//! worked out once the backend is known (`analyze`); here the facts are only gathered.

use ruff_python_ast::{self as ast, Expr};

use super::annotation::{dotted, mem_space};
use super::flow::is_named;
use crate::hashed::HashMap;
use crate::model::{Access, Accesses, Mem, Mems};

/// Ops that PyPTO registers as executing no memory access (declarations and zero-copy views: its
/// `no_execution_memory_access` evidence): they neither take bytes nor hand them on.
const NO_ACCESS: [&str; 10] = [
    "tile.alloc",
    "tile.create",
    "tile.get_block_idx",
    "tile.get_block_num",
    "tile.get_subblock_idx",
    "tile.reinterpret_view",
    "tile.reshape",
    "tile.set_validshape",
    "tile.slice",
    "tile.transpose_view",
];

/// The op calls met so far, and the space of every name that has one.
#[derive(Debug, Default)]
pub(super) struct Calls {
    /// Tiles in their space, tensors in DDR, loop-carried names in their initial value's.
    spaces: HashMap<String, Mem>,
    /// Statements that call an op accessing memory: their first and last line, in dump order (the
    /// walk visits statements in order, and simple statements never nest).
    calls: Vec<(u32, u32, Access)>,
}

/// The space a value of this annotation lives in: a tile's `pl.Mem.X`, DDR for a tensor (also as
/// `pl.Out[...]`/`pl.InOut[...]`), the one space of a tuple's members; `None` for a scalar, a
/// pointer, a tuple of several spaces.
fn annotated_space(annotation: &Expr) -> Option<Mem> {
    let Expr::Subscript(sub) = annotation else { return None };
    let elements: &[Expr] = match sub.slice.as_ref() {
        Expr::Tuple(t) => &t.elts,
        other => std::slice::from_ref(other),
    };
    if is_named(&sub.value, "Tile") {
        return elements.iter().find_map(mem_space).and_then(|s| Mem::parse(&s));
    }
    if is_named(&sub.value, "Tensor") {
        return Some(Mem::Ddr);
    }
    // An array lives in scalar-local memory, as PyPTO types it.
    if is_named(&sub.value, "Array") {
        return Some(Mem::ScalarLocal);
    }
    if is_named(&sub.value, "Out") || is_named(&sub.value, "InOut") {
        return elements.first().and_then(annotated_space);
    }
    if is_named(&sub.value, "Tuple") || is_named(&sub.value, "tuple") {
        // PyPTO takes a tuple's result space only when its members agree on one.
        let mut members = elements.iter().map(annotated_space);
        let first = members.next()??;
        return members.all(|m| m == Some(first)).then_some(first);
    }
    None
}

impl Calls {
    /// Remembers the space of a name bound with this annotation (a parameter, an assignment).
    pub(super) fn bind(&mut self, name: &str, annotation: &Expr) {
        // A tuple names no space as an argument (PyPTO reads an argument's space from a shaped
        // type only), though it may as a result.
        let tuple = matches!(annotation, Expr::Subscript(sub) if is_named(&sub.value, "Tuple") || is_named(&sub.value, "tuple"));
        if let Some(space) = annotated_space(annotation).filter(|_| !tuple) {
            self.spaces.insert(name.to_string(), space);
        }
    }

    /// A loop-carried name lives where its initial value does.
    pub(super) fn carry(&mut self, name: &str, init: Option<&str>) {
        if let Some(&space) = init.and_then(|i| self.spaces.get(i)) {
            self.spaces.insert(name.to_string(), space);
        }
    }

    /// The names an untyped `a, b = pl.yield_(x, y)` binds live where the values it yields do
    /// (the dump types only single results).
    pub(super) fn yielded(&mut self, targets: &Expr, value: &Expr) {
        let Expr::Call(call) = value else { return };
        if !is_named(&call.func, "yield_") {
            return;
        }
        let names: Vec<&str> = match targets {
            Expr::Tuple(t) => t.elts.iter().filter_map(as_name).collect(),
            other => as_name(other).into_iter().collect(),
        };
        for (name, value) in names.into_iter().zip(&call.arguments.args) {
            self.carry(name, as_name(value));
        }
    }

    /// Records the statement over `lines` whose value is `value`, bound with `annotation` where it
    /// has one, if it calls an op that accesses memory.
    pub(super) fn statement(&mut self, lines: (u32, u32), value: &Expr, annotation: Option<&Expr>) {
        let Expr::Call(call) = value else { return };
        let Some(mut op) = dotted(&call.func) else { return };
        // Ops are `pl.<namespace>.<op>`; `pl.yield_`, `pl.range` and the like are syntax.
        if !op.strip_prefix("pl.").is_some_and(|op| op.contains('.')) {
            return;
        }
        op.replace_range(.."pl.".len(), "");
        if NO_ACCESS.contains(&op.as_str()) {
            return;
        }
        let mut inputs = Mems::default();
        let mut input_count = 0u8;
        for arg in &call.arguments.args {
            if let Some(&space) = as_name(arg).and_then(|n| self.spaces.get(n)) {
                inputs.insert(space);
                input_count = input_count.saturating_add(1);
            }
        }
        let result = annotation.and_then(annotated_space);
        let access = Access { line: lines.0, op, inputs, input_count, result, pipe: None };
        self.calls.push((lines.0, lines.1, access));
    }

    /// The op call on `line`, if that line is part of one.
    fn at(&self, line: u32) -> Option<&Access> {
        let k = self.calls.partition_point(|c| c.0 <= line);
        let (_, last, access) = self.calls.get(k.checked_sub(1)?)?;
        (line <= *last).then_some(access)
    }

    /// The first and last op calls among `lines` (a tile's binding line and the lines that read it).
    pub(super) fn accesses(&self, lines: impl Iterator<Item = u32>) -> Accesses {
        let mut out = Accesses::default();
        for line in lines {
            let Some(a) = self.at(line) else { continue };
            if out.first.as_ref().is_none_or(|f| a.line < f.line) {
                out.first = Some(Box::new(a.clone()));
            }
            if out.last.as_ref().is_none_or(|l| a.line > l.line) {
                out.last = Some(Box::new(a.clone()));
            }
        }
        out
    }
}

fn as_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        _ => None,
    }
}

/// The names a `for` carries and the names of their initial values, in order (`for i, (a, b) in
/// pl.range(n, init_values=(x, y))` gives `a` from `x`, `b` from `y`).
pub(super) fn carried(f: &ast::StmtFor) -> Vec<(&str, Option<&str>)> {
    let Expr::Tuple(target) = f.target.as_ref() else { return Vec::new() };
    let Some(Expr::Tuple(args)) = target.elts.get(1) else { return Vec::new() };
    let inits: Vec<Option<&str>> = match f.iter.as_ref() {
        Expr::Call(call) => call
            .arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.id == "init_values"))
            .map(|k| match &k.value {
                Expr::Tuple(t) => t.elts.iter().map(as_name).collect(),
                Expr::List(l) => l.elts.iter().map(as_name).collect(),
                _ => Vec::new(),
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    args.elts.iter().enumerate().filter_map(|(k, a)| Some((as_name(a)?, inits.get(k).copied().flatten()))).collect()
}
