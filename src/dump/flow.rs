//! The compiler's lifetimes: the last line on which PyPTO's MemoryReuse keeps a tile's bytes.
//!
//! MemoryReuse (its lifetime analysis in `memory_reuse_pass.cpp`) frees a tile after its last read,
//! with two rules this module follows on the dump's lines:
//! - a tile defined before a loop and read inside it (its header included, where a loop's initial
//!   values are read) is held to the end of the outermost such loop, since the next iteration reads
//!   it again;
//! - a read of a loop's result counts as a read of the loop's initial value, which the compiler
//!   gives the result's bytes, and a read of an `if`'s result as a read of the values its branches
//!   yield that those branches define.
//!
//! It tracks only tiles bound by plain assignments. Loop and branch results and tile parameters
//! are not tracked: for those, their own last read is extended by the same loop rule. A loop whose
//! initial value is not a tracked tile (another loop's result, say) gets no credit for later reads
//! of its own result; such a read can lie past the compiler's lifetime of its bytes, and the map
//! says so (see `findings`).
//!
//! Everything here is linear in the function's statements, tiles and lines (times the nesting
//! depth, which the dump's guard bounds).

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextSize};

use crate::hashed::HashMap;
use crate::model::{LateRead, Tile};

/// The control flow of one function that lifetimes depend on, recorded while it is walked.
#[derive(Debug, Default)]
pub(super) struct Flow {
    /// Every loop: its header's line and its last line.
    loops: Vec<(u32, u32)>,
    /// Results bound by a `pl.yield_` that ends a loop's or a branch's body.
    carries: Vec<Carry>,
    /// Each loop's carried names (`for i, (acc,) in pl.range(..., init_values=(x,))`) and the
    /// initial value each starts from, where that is a name.
    iter_args: Vec<(String, Option<String>)>,
}

/// One result of a loop or an `if`.
#[derive(Debug)]
struct Carry {
    name: String,
    /// The `pl.yield_` statement's lines.
    lines: (u32, u32),
    /// The last line of the loop or `if` that binds it: an inner one ends first.
    scope_end: u32,
    /// A loop's result: the line of its header and its initial value, where that is a name.
    from_loop: Option<(u32, Option<String>)>,
    /// The values yielded for it, each with the lines of its branch (an `if`), or the loop's body.
    values: Vec<(String, (u32, u32))>,
}

/// A `pl.yield_` at the end of a body: the names it binds and the names it yields.
struct Yield {
    targets: Vec<String>,
    values: Vec<Option<String>>,
    lines: (u32, u32),
}

fn name_of(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Name(n) => Some(n.id.to_string()),
        _ => None,
    }
}

/// The `pl.yield_` a body ends with (looking inside `with` scopes, which the printer opens around a
/// body and which end with the body's yield).
fn last_yield(body: &[Stmt], line: &impl Fn(TextSize) -> u32) -> Option<Yield> {
    let (targets, value) = match body.last()? {
        Stmt::With(w) => return last_yield(&w.body, line),
        Stmt::Assign(a) => {
            let targets = match a.targets.first()? {
                Expr::Tuple(t) => t.elts.iter().map(name_of).collect::<Option<Vec<_>>>()?,
                other => vec![name_of(other)?],
            };
            (targets, a.value.as_ref())
        }
        Stmt::AnnAssign(a) => (vec![name_of(&a.target)?], a.value.as_deref()?),
        _ => return None,
    };
    let Expr::Call(call) = value else { return None };
    if !is_named(&call.func, "yield_") {
        return None;
    }
    let values = call.arguments.args.iter().map(name_of).collect();
    let stmt = body.last()?;
    Some(Yield { targets, values, lines: (line(stmt.start()), line(stmt.end())) })
}

/// The lines a body spans.
fn body_lines(body: &[Stmt], line: &impl Fn(TextSize) -> u32) -> Option<(u32, u32)> {
    Some((line(body.first()?.start()), line(body.last()?.end())))
}

impl Flow {
    /// Records what `stmt` opens: a loop, and the results a loop or an `if` binds. Nested
    /// statements are recorded when the walk reaches them.
    pub(super) fn record(&mut self, stmt: &Stmt, line: impl Fn(TextSize) -> u32) {
        match stmt {
            Stmt::For(f) => {
                let header = line(f.start());
                self.loops.push((header, line(f.end())));
                let (args, inits) = loop_names(f);
                for (k, arg) in args.into_iter().enumerate() {
                    self.iter_args.push((arg, inits.get(k).cloned().flatten()));
                }
                let (Some(y), Some(body)) = (last_yield(&f.body, &line), body_lines(&f.body, &line)) else { return };
                for (k, name) in y.targets.iter().enumerate() {
                    let init = inits.get(k).cloned().flatten();
                    let values = y.values.get(k).cloned().flatten().map(|v| (v, body)).into_iter().collect();
                    self.carries.push(Carry {
                        name: name.clone(),
                        lines: y.lines,
                        scope_end: line(f.end()),
                        from_loop: Some((header, init)),
                        values,
                    });
                }
            }
            Stmt::While(w) => {
                self.loops.push((line(w.start()), line(w.end())));
            }
            Stmt::If(i) => {
                let branches = std::iter::once(&i.body[..]).chain(i.elif_else_clauses.iter().map(|c| &c.body[..]));
                let yields: Vec<(Yield, (u32, u32))> =
                    branches.filter_map(|b| Some((last_yield(b, &line)?, body_lines(b, &line)?))).collect();
                let Some((first, _)) = yields.first() else { return };
                for (k, name) in first.targets.iter().enumerate() {
                    let values =
                        yields.iter().filter_map(|(y, lines)| Some((y.values.get(k).cloned()??, *lines))).collect();
                    let scope_end = line(i.end());
                    self.carries.push(Carry {
                        name: name.clone(),
                        lines: first.lines,
                        scope_end,
                        from_loop: None,
                        values,
                    });
                }
            }
            _ => {}
        }
    }
}

/// A `for`'s carried names and their initial values: `for i, (a, b) in pl.range(..., init_values=(x,
/// y))`, or `for (a,) in pl.while_(init_values=(x,))`.
fn loop_names(f: &ast::StmtFor) -> (Vec<String>, Vec<Option<String>>) {
    let Expr::Call(call) = f.iter.as_ref() else { return (Vec::new(), Vec::new()) };
    let inits = call
        .arguments
        .keywords
        .iter()
        .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "init_values"))
        .map(|k| match &k.value {
            Expr::Tuple(t) => t.elts.iter().map(name_of).collect(),
            other => vec![name_of(other)],
        })
        .unwrap_or_default();
    let carried = match f.target.as_ref() {
        Expr::Tuple(t) if is_named(&call.func, "while_") => Some(&t.elts[..]),
        Expr::Tuple(t) => match t.elts.get(1) {
            Some(Expr::Tuple(inner)) => Some(&inner.elts[..]),
            _ => None,
        },
        _ => None,
    };
    let args = carried.map(|c| c.iter().filter_map(name_of).collect()).unwrap_or_default();
    (args, inits)
}

/// What the binding of a tile is to the compiler.
fn tracked(t: &Tile) -> bool {
    t.op != "param" && t.op != "yield_"
}

impl Flow {
    /// Adds a tile for each result of a multi-value `pl.yield_` that carries one: the dump prints
    /// no type for those (`a, b = pl.yield_(x, y)`), yet each holds the bytes of the tile it
    /// carries, the yielded value's (or, passed through unchanged, the loop's initial value's).
    /// Returns the new tiles with their binding lines, in line order.
    pub(super) fn results(&self, index: &HashMap<String, usize>, tiles: &[Tile]) -> Vec<(Tile, (u32, u32))> {
        let passes: HashMap<&str, &str> =
            self.iter_args.iter().filter_map(|(a, i)| Some((a.as_str(), i.as_deref()?))).collect();
        let mut order: Vec<&Carry> = self.carries.iter().filter(|c| !index.contains_key(&c.name)).collect();
        order.sort_by_key(|c| (c.scope_end, c.lines.0)); // an inner loop's or if's results first
        let mut made: HashMap<&str, usize> = HashMap::default();
        let mut out: Vec<(Tile, (u32, u32))> = Vec::new();
        for c in order {
            // The value yielded, else the loop's initial value; an iter_arg passed through stands
            // for its initial value.
            let wanted = c
                .values
                .iter()
                .map(|(v, _)| v.as_str())
                .chain(c.from_loop.as_ref().and_then(|(_, init)| init.as_deref()));
            let carried = wanted
                .map(|n| passes.get(n).copied().unwrap_or(n))
                .find_map(|n| index.get(n).map(|&i| &tiles[i]).or_else(|| made.get(n).map(|&k| &out[k].0)));
            let Some(carried) = carried else { continue };
            if made.contains_key(c.name.as_str()) {
                continue;
            }
            let mut t = carried.clone();
            t.name = c.name.clone();
            t.op = "yield_".into();
            (t.start, t.end) = c.lines;
            t.uses = Vec::new();
            made.insert(&c.name, out.len());
            out.push((t, c.lines));
        }
        out
    }

    /// Sets each tile's `live_end` and `held_by` (and what `findings` needs to say where the
    /// compiler's lifetime ends before a read). `tiles` have their lexical ranges and uses;
    /// `bindings` are the lines of the statement that binds each.
    pub(super) fn lifetimes(&self, tiles: &mut [Tile], bindings: &[(u32, u32)], index: &HashMap<String, usize>) {
        let loops = Loops::new(&self.loops);
        // Results whose reads the compiler credits to another tile: a loop's result to its initial
        // value (when that is tracked), an `if`'s to the values its branches define.
        // Each credit as one edge, so a chain of results costs its length, not its square: an
        // `if`'s result to the values its branches define, or to a nested `if`'s result that has
        // such values (whose own credits it then passes on); a loop's result to its initial value.
        let mut credit: HashMap<usize, Vec<usize>> = HashMap::default();
        let mut ifs: Vec<&Carry> = self.carries.iter().filter(|c| c.from_loop.is_none()).collect();
        ifs.sort_by_key(|c| (c.scope_end, c.lines.0)); // an inner `if` ends first, wherever it is
        let mut order = Vec::new();
        for c in &ifs {
            let Some(&r) = index.get(&c.name) else { continue };
            let mut local = Vec::new();
            for (v, (from, to)) in &c.values {
                let Some(&s) = index.get(v) else { continue };
                let nested = !tracked(&tiles[s]) && credit.contains_key(&s);
                if nested || (tracked(&tiles[s]) && (*from..=*to).contains(&bindings[s].0)) {
                    local.push(s);
                }
            }
            local.sort_unstable();
            local.dedup();
            if !local.is_empty() && credit.insert(r, local).is_none() {
                order.push(r);
            }
        }
        for c in self.carries.iter().filter(|c| c.from_loop.is_some()) {
            let (Some(&r), Some((_, Some(init)))) = (index.get(&c.name), &c.from_loop) else { continue };
            if let Some(&i) = index.get(init).filter(|&&i| tracked(&tiles[i])) {
                credit.entry(r).or_default().push(i);
                order.push(r);
            }
        }
        // Reads pass down the edges, outer results first (an `if`'s before the nested ones it
        // credits), each edge once; a tracked tile's last read takes in what reaches it.
        let mut reads: Vec<u32> = tiles.iter().map(|t| t.uses.last().copied().unwrap_or(0)).collect();
        let mut last: Vec<u32> = tiles.iter().map(|t| t.end).collect();
        order.dedup();
        for &r in order.iter().rev() {
            let read = reads[r];
            for &s in credit.get(&r).map(Vec::as_slice).unwrap_or_default() {
                if tracked(&tiles[s]) {
                    last[s] = last[s].max(read);
                } else {
                    reads[s] = reads[s].max(read);
                }
            }
        }
        let carries: HashMap<&str, &Carry> = self.carries.iter().map(|c| (c.name.as_str(), c)).collect();
        let tracked_at: Vec<bool> = tiles.iter().map(tracked).collect();
        for (i, t) in tiles.iter_mut().enumerate() {
            let def = bindings[i].0;
            let (end, held_by) = loops.extend(def, last[i]);
            t.live_end = end.max(t.end);
            t.held_by = held_by.filter(|_| end > t.end);
            if tracked(t) {
                t.compiler_end = Some(t.live_end);
            } else {
                let why = why_untracked(carries.get(t.name.as_str()).copied(), &t.op, |n| {
                    index.get(n).is_some_and(|&k| tracked_at.get(k).copied().unwrap_or(false))
                });
                t.late = Some(Box::new(LateRead { name: t.name.clone(), read: t.end, held: t.live_end, why }));
            }
        }
    }
}

/// Why MemoryReuse does not track a name (`carry` its binding as a result, `op` its producer), in
/// words for a finding; `tracked` says whether a name is a tile it tracks.
fn why_untracked(carry: Option<&Carry>, op: &str, tracked: impl Fn(&str) -> bool) -> String {
    if op == "param" {
        return "it is a tile parameter, which MemoryReuse does not track".into();
    }
    match carry.map(|c| &c.from_loop) {
        Some(Some((header, Some(init)))) if !tracked(init) => format!(
            "the loop at line {header} starts from `{init}`, itself a loop's or a branch's result or a \
             parameter, and MemoryReuse credits reads of a loop's result only to a tracked initial value"
        ),
        Some(Some((header, _))) => {
            format!("MemoryReuse credits reads of the loop's result (line {header}) to its initial value")
        }
        Some(None) => "MemoryReuse credits reads of an if's result only to values its branches define".into(),
        None => "MemoryReuse does not track a loop's or a branch's result".into(),
    }
}

/// The loops of a function, nested, for "the outermost loop around a line that starts after a
/// given line" in a few steps: the innermost loop at each line, and each loop's parent.
struct Loops {
    /// First line covered by `inner`.
    first: u32,
    /// The innermost loop at each line from `first` (`usize::MAX`: none).
    inner: Vec<usize>,
    /// Each loop's header line, last line and enclosing loop.
    loops: Vec<(u32, u32, usize)>,
}

impl Loops {
    fn new(loops: &[(u32, u32)]) -> Loops {
        let mut sorted: Vec<(u32, u32)> = loops.to_vec();
        // Outer loops first: by header, the longer first.
        sorted.sort_by_key(|&(h, e)| (h, std::cmp::Reverse(e)));
        let first = sorted.iter().map(|l| l.0).min().unwrap_or(0);
        let last = sorted.iter().map(|l| l.1).max().unwrap_or(0);
        let mut inner = vec![usize::MAX; if sorted.is_empty() { 0 } else { (last - first + 1) as usize }];
        let mut out = Vec::with_capacity(sorted.len());
        for (k, &(h, e)) in sorted.iter().enumerate() {
            let parent = inner[(h - first) as usize];
            out.push((h, e.max(h), parent));
            for slot in &mut inner[(h - first) as usize..=(e.max(h) - first) as usize] {
                *slot = k;
            }
        }
        Loops { first, inner, loops: out }
    }

    /// A tile defined on line `def` and last read on line `read` is held to the end of the
    /// outermost loop around `read` whose header comes after `def`: the line, and that header.
    fn extend(&self, def: u32, read: u32) -> (u32, Option<u32>) {
        let mut k = match read.checked_sub(self.first).and_then(|i| self.inner.get(i as usize)) {
            Some(&k) => k,
            None => return (read, None),
        };
        let mut best = None;
        while k != usize::MAX && self.loops[k].0 > def {
            best = Some(k);
            k = self.loops[k].2;
        }
        match best {
            Some(b) if self.loops[b].1 > read => (self.loops[b].1, Some(self.loops[b].0)),
            _ => (read, None),
        }
    }
}

pub(super) fn is_named(expr: &Expr, last: &str) -> bool {
    match expr {
        Expr::Name(n) => n.id.as_str() == last,
        Expr::Attribute(a) => a.attr.id.as_str() == last && dotted_ok(&a.value),
        _ => false,
    }
}

/// Whether `expr` is a dotted name at all (what [`dotted`] would give one for).
fn dotted_ok(expr: &Expr) -> bool {
    match expr {
        Expr::Name(_) => true,
        Expr::Attribute(a) => dotted_ok(&a.value),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outermost_loop_after_the_definition_holds_a_read_inside_it() {
        // Lines: outer loop 10-40, inner loop 15-30, another loop 50-60.
        let loops = Loops::new(&[(15, 30), (10, 40), (50, 60)]);
        assert_eq!(loops.extend(5, 20), (40, Some(10)), "defined before both: the outer loop holds it");
        assert_eq!(loops.extend(12, 20), (30, Some(15)), "defined inside the outer loop: the inner one");
        assert_eq!(loops.extend(16, 20), (20, None), "defined inside both: freed after its read");
        assert_eq!(loops.extend(5, 45), (45, None), "read between loops");
        assert_eq!(loops.extend(5, 40), (40, None), "read on the loop's last line");
        assert_eq!(loops.extend(45, 50), (60, Some(50)), "read on the header: an initial value");
        assert_eq!(loops.extend(5, 3), (3, None));
        assert_eq!(Loops::new(&[]).extend(1, 9), (9, None));
    }
}
