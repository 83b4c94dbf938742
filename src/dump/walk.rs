//! The walk over one compute function's statements that collects its tile bindings, allocations,
//! reserved windows and every read of a name. Apart from the parse, which cuts the dump and drives
//! the walk, and from the annotation reader, which this calls for each binding.

use std::cell::Cell;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextSize};

use super::access::{Calls, carried};
use super::annotation::{BadNumber, Bound, dotted, int_value, mem_space, tile_from};
use super::flow::{Flow, is_named};
use crate::error::Error;
use crate::hashed::HashMap;
use crate::model::{MAX_BYTES, PeerBuffer, Reserved, Tile, Unresolved};

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

/// Collects tile bindings and every read of a name, in one pass over the function. It keeps
/// nothing of the syntax tree (names are read from the text), so a long function's body can be
/// walked a part at a time, each part's tree dropped before the next is parsed.
pub(super) struct TileWalk<'t> {
    pub(super) lines: &'t LineIndex,
    /// Lines looked up from where the last lookup ended.
    cursor: LineCursor<'t>,
    pub(super) text: &'t str,
    pub(super) tiles: Vec<Tile>,
    /// Index into `tiles` by name, so binding is constant time however many tiles a function has.
    pub(super) by_name: HashMap<String, usize>,
    /// Lines of the statement (or parameter) that first binds each tile, parallel to `tiles`.
    pub(super) bindings: Vec<(u32, u32)>,
    /// (name, position) of every load, applied once all bindings are known; the name is the
    /// text's, and turned into a line only for the names that are tiles.
    pub(super) loads: Vec<(&'t str, TextSize)>,
    /// The first MemRef number that is not an integer within [`MAX_BYTES`].
    pub(super) bad_number: Option<BadNumber>,
    /// Tiles with a MemRef that cannot be placed.
    pub(super) unresolved: Vec<Unresolved>,
    /// `reserve_buffer` windows and `import_peer_buffer` uses.
    pub(super) reserved: Vec<Reserved>,
    pub(super) peers: Vec<PeerBuffer>,
    /// On-chip allocation declarations.
    pub(super) allocs: Vec<Alloc>,
    /// The space a `reserve_buffer` of this function reserves.
    pub(super) reserve_space: &'static str,
    /// Why the walk stopped early (the run passed its deadline); the rest of the tree is skipped.
    pub(super) stopped: Option<Error>,
    /// Loops and the results of loops and branches, for the compiler's lifetimes.
    pub(super) flow: Flow,
    /// The op calls and the spaces of names, for each tile's first and last access.
    pub(super) calls: Calls,
}

/// The 1-based line of an offset, looked up from the line found last: the walk asks in about the
/// text's order, so most answers are that line or the next, found without a binary search over the
/// dump's lines (which was 1.5 % of a JSON report's samples).
struct LineCursor<'t> {
    starts: &'t [TextSize],
    last: Cell<usize>,
}

impl<'t> LineCursor<'t> {
    fn new(lines: &'t LineIndex) -> Self {
        LineCursor { starts: lines.line_starts(), last: Cell::new(0) }
    }

    /// As [`LineIndex::line_index`].
    fn line(&self, at: TextSize) -> u32 {
        let starts = self.starts;
        let holds =
            |row: usize| starts.get(row).is_some_and(|&s| s <= at) && starts.get(row + 1).is_none_or(|&n| at < n);
        let last = self.last.get();
        let row = if holds(last) {
            last
        } else if holds(last + 1) {
            last + 1
        } else {
            // The first line starts at 0, so at least one start is at or before `at`.
            starts.partition_point(|&s| s <= at).saturating_sub(1)
        };
        self.last.set(row);
        row as u32 + 1
    }
}

impl<'t> TileWalk<'t> {
    pub(super) fn new(lines: &'t LineIndex, text: &'t str, reserve_space: &'static str) -> Self {
        TileWalk {
            lines,
            cursor: LineCursor::new(lines),
            text,
            tiles: Vec::new(),
            by_name: HashMap::default(),
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
            calls: Calls::default(),
        }
    }

    pub(super) fn line(&self, at: TextSize) -> u32 {
        self.cursor.line(at)
    }

    /// Keeps the tile `annotation` describes, if any; a MemRef number it cannot hold is remembered
    /// (the first one is reported) rather than dropped with the tile.
    pub(super) fn keep(&mut self, tile: std::result::Result<Option<Bound>, BadNumber>, lines: (u32, u32)) {
        match tile {
            Ok(Some(Bound::Placed(tile))) => {
                let tile = *tile;
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
    pub(super) fn params(&mut self, params: &ast::Parameters) {
        for p in params.iter() {
            let p = p.as_parameter();
            let Some(annotation) = &p.annotation else { continue };
            self.calls.bind(p.name.id.as_str(), annotation);
            if self.by_name.contains_key(p.name.id.as_str()) {
                continue;
            }
            let (start, end) = (self.line(p.start()), self.line(p.end()));
            let tile = tile_from(p.name.id.as_str(), annotation, "param", start, end, self.text);
            self.keep(tile, (start, end));
        }
    }

    pub(super) fn bind(&mut self, stmt: &ast::StmtAnnAssign) {
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
    pub(super) fn declaration(&mut self, target: Option<&Expr>, value: &Expr) {
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
    pub(super) fn finish(mut self) -> Vec<Tile> {
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
        for ((t, mut uses), &(bound, _)) in self.tiles.iter_mut().zip(reads).zip(&self.bindings) {
            uses.sort_unstable();
            uses.dedup();
            t.accesses = self.calls.accesses(std::iter::once(bound).chain(uses.iter().copied()));
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
                    let lines = (self.line(stmt.start()), self.line(stmt.end()));
                    self.calls.statement(lines, value, Some(&ann.annotation));
                }
                if let Expr::Name(target) = ann.target.as_ref() {
                    self.calls.bind(target.id.as_str(), &ann.annotation);
                }
            }
            Stmt::Assign(a) => {
                self.declaration(a.targets.first(), &a.value);
                if let Some(targets) = a.targets.first() {
                    self.calls.yielded(targets, &a.value);
                }
                self.calls.statement((self.line(stmt.start()), self.line(stmt.end())), &a.value, None);
            }
            Stmt::Expr(e) => {
                self.declaration(None, &e.value);
                self.calls.statement((self.line(stmt.start()), self.line(stmt.end())), &e.value, None);
            }
            Stmt::For(_) | Stmt::While(_) | Stmt::If(_) => {
                if let Stmt::For(f) = stmt {
                    for (name, init) in carried(f) {
                        self.calls.carry(name, init);
                    }
                }
                let lines = &self.cursor;
                self.flow.record(stmt, |at| lines.line(at));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_finds_the_line_the_index_finds_in_any_order() {
        let text = "a = 1\n\nb = (2,\r\n     3)\r\n\n\nc\nlast line without an end";
        let index = LineIndex::from_source_text(text);
        let cursor = LineCursor::new(&index);
        let every: Vec<TextSize> = (0..=text.len() as u32).map(TextSize::new).collect();
        let expected = |at: TextSize| index.line_index(at).get() as u32;
        // In order, backwards, and jumping about (a walk's loads are not always in text order).
        for &at in every.iter().chain(every.iter().rev()) {
            assert_eq!(cursor.line(at), expected(at), "at {at:?}");
        }
        let mut seed = 7u32;
        for _ in 0..500 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let at = every[(seed >> 8) as usize % every.len()];
            assert_eq!(cursor.line(at), expected(at), "at {at:?}");
        }
    }
}
