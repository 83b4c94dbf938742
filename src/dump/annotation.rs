//! One tile annotation read: `pl.Tile[shape, dtype, pl.MemRef(base, offset, size), pl.Mem.Space,
//! ...]` into a tile (or a tile this tool cannot place), with the helpers that read its numbers,
//! names and spaces, and the error for a number the model cannot hold. Apart from the walk because
//! it reads one expression and knows nothing of functions or statements.

use ruff_python_ast::{self as ast, Expr, Number};
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextSize};

use super::flow::is_named;
use crate::error::{Error, ErrorKind, Location};
use crate::model::{MAX_BYTES, Slots, Tile, Unresolved};

/// A MemRef number the model cannot hold, and where it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BadNumber {
    pub(super) at: TextSize,
    pub(super) why: Bad,
}

/// What is wrong with a MemRef number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bad {
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
pub(super) fn bad_number(bad: BadNumber, lines: &LineIndex, text: &str, file: &str) -> Error {
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

/// What a tile annotation binds: a tile placed at its bytes, or one whose MemRef cannot be placed.
pub(super) enum Bound {
    // Boxed: a tile is several times the size of an unresolved one.
    Placed(Box<Tile>),
    Unresolved(Unresolved),
}

/// Builds a tile from `pl.Tile[shape, dtype, pl.MemRef(base, offset, size), pl.Mem.Space, ...]`, or
/// `Ok(None)` when the annotation is not a tile, has no MemRef, or is in DDR; `Err` when its MemRef's
/// offset or size is not an integer the model can hold.
pub(super) fn tile_from(
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
    Ok(Some(Bound::Placed(Box::new(Tile {
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
        accesses: Default::default(),
    }))))
}

/// The arguments of `pl.TileView(...)` as written, without the `pl.` prefixes: what the tooltip shows
/// of the tile's layout (`blayout=col_major, slayout=row_major, fractal=512`).
pub(super) fn tile_view(expr: &Expr, text: &str) -> Option<String> {
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
pub(super) type Bytes = std::result::Result<i64, BadNumber>;

/// What a MemRef says about where a tile is.
pub(super) enum MemRefRead {
    /// At `offset` for `size` bytes (for a slotted MemRef: its slot, or the whole allocation).
    Placed { base: String, offset: i64, size: i64, slots: Option<Slots> },
    /// Somewhere this tool cannot compute, and why.
    Unresolved { base: String, memref: String, why: String },
}

/// The most slots a declared allocation may have: far more than any double or multi buffer.
pub(super) const MAX_SLOTS: i64 = 1 << 16;

/// Reads `pl.MemRef(base, offset, size)` (a name or string base), the slotted form
/// `pl.MemRef(base, offset, size, slots=N)[k]` of a declared allocation, and the one-argument form
/// of a declaration not yet resolved (`pl.MemRef("ub", slots=2)[i % 2]`, before InitMemRef).
pub(super) fn memref(expr: &Expr, text: &str) -> Option<std::result::Result<MemRefRead, BadNumber>> {
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
pub(super) fn expr_offset(call: &ast::ExprCall) -> &Expr {
    &call.arguments.args[1]
}

/// A placed MemRef, or the refusal of one that starts below 0 or ends past [`MAX_BYTES`].
pub(super) fn within(
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

pub(super) fn beyond(at: TextSize) -> BadNumber {
    BadNumber { at, why: Bad::Beyond }
}

/// The sum of the integer terms of an offset written as a sum (`16384 + i % 2 * 16384` gives
/// 16384); `None` when a term that is not an integer is not a product with an integer factor, the
/// shape a slot selector's term has.
pub(super) fn constant_part(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::BinOp(b) if b.op == ast::Operator::Add => constant_part(&b.left)?.checked_add(constant_part(&b.right)?),
        Expr::BinOp(b) if b.op == ast::Operator::Mult => {
            (int_value(&b.left).is_some() || int_value(&b.right).is_some()).then_some(0)
        }
        other => int_value(other),
    }
}

/// A size: an integer from 0 to [`MAX_BYTES`], or the place of what is not one.
pub(super) fn bytes_value(expr: &Expr) -> Bytes {
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
pub(super) fn offset_value(expr: &Expr) -> std::result::Result<Option<i64>, BadNumber> {
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
pub(super) fn is_float(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value, .. }) => !matches!(value, Number::Int(_)),
        Expr::UnaryOp(u) => is_float(&u.operand),
        Expr::Call(call) if is_named(&call.func, "const") => call.arguments.args.first().is_some_and(is_float),
        _ => false,
    }
}

/// An integer literal too large for i64 (possibly negated or wrapped in `pl.const`).
pub(super) fn is_big_int(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(_), .. }) => true,
        Expr::UnaryOp(u) => is_big_int(&u.operand),
        Expr::Call(call) => call.arguments.args.first().is_some_and(is_big_int),
        _ => false,
    }
}

/// `pl.Mem.Vec` gives `Vec`.
pub(super) fn mem_space(expr: &Expr) -> Option<String> {
    let Expr::Attribute(a) = expr else { return None };
    let mem = match a.value.as_ref() {
        Expr::Name(mem) => mem.id.as_str(),
        Expr::Attribute(mem) if dotted_parts(&mem.value, &mut [""; MAX_PARTS]).is_some() => mem.attr.id.as_str(),
        _ => return None,
    };
    (mem == "Mem").then(|| a.attr.id.to_string())
}

/// The static shape, or empty when any dimension is not an integer.
pub(super) fn shape(expr: &Expr) -> Vec<i64> {
    let Expr::List(list) = expr else { return Vec::new() };
    list.elts.iter().map(int_value).collect::<Option<Vec<_>>>().unwrap_or_default()
}

/// `pl.BF16` gives `BF16`: one dot, an upper-case name.
pub(super) fn dtype(expr: &Expr) -> Option<String> {
    let Expr::Attribute(a) = expr else { return None };
    let Expr::Name(_) = a.value.as_ref() else { return None };
    let ty = a.attr.id.as_str();
    let upper = ty.chars().any(|c| c.is_ascii_uppercase()) && !ty.chars().any(|c| c.is_ascii_lowercase());
    upper.then(|| ty.to_string())
}

/// `4096`, `-1` and `pl.const(4096, pl.INT64)` as an integer.
pub(super) fn int_value(expr: &Expr) -> Option<i64> {
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
pub(super) fn dotted(expr: &Expr) -> Option<String> {
    // Asked of every call a dump makes: its parts are found first, then written once.
    let mut parts = [""; MAX_PARTS];
    let parts = dotted_parts(expr, &mut parts)?;
    let mut name = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            name.push('.');
        }
        name.push_str(part);
    }
    Some(name)
}

/// The most parts of a dotted name read (`pl.tile.load` has three); a longer chain is no name.
const MAX_PARTS: usize = 16;

/// The parts of a dotted name, in order, in `parts`: `None` if `expr` is no dotted name.
fn dotted_parts<'e, 'p>(expr: &'e Expr, parts: &'p mut [&'e str; MAX_PARTS]) -> Option<&'p [&'e str]> {
    let mut n = 0;
    let mut at = expr;
    loop {
        let part = match at {
            Expr::Name(name) => name.id.as_str(),
            Expr::Attribute(a) => a.attr.id.as_str(),
            _ => return None,
        };
        *parts.get_mut(n)? = part;
        n += 1;
        match at {
            Expr::Attribute(a) => at = &a.value,
            _ => break,
        }
    }
    parts[..n].reverse();
    Some(&parts[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(text: &str) -> Expr {
        *ruff_python_parser::parse_expression(text).unwrap().into_syntax().body
    }

    #[test]
    fn dotted_names_spaces_and_dtypes_are_read_from_their_parts() {
        assert_eq!(dotted(&expr("pl.tile.load")).as_deref(), Some("pl.tile.load"));
        assert_eq!(dotted(&expr("x")).as_deref(), Some("x"));
        assert_eq!(dotted(&expr("f().a")), None, "a call is no name");
        let long = format!("a{}", ".b".repeat(MAX_PARTS));
        assert_eq!(dotted(&expr(&long)), None, "past the parts read");
        let most = format!("a{}", ".b".repeat(MAX_PARTS - 1));
        assert_eq!(dotted(&expr(&most)).as_deref(), Some(most.as_str()));
        for (text, space) in
            [("pl.Mem.Vec", Some("Vec")), ("Mem.Left", Some("Left")), ("pl.Memory.Vec", None), ("Vec", None)]
        {
            assert_eq!(mem_space(&expr(text)).as_deref(), space, "{text}");
        }
        for (text, ty) in [("pl.BF16", Some("BF16")), ("pl.x.BF16", None), ("pl.Bf16", None), ("BF16", None)] {
            assert_eq!(dtype(&expr(text)).as_deref(), ty, "{text}");
        }
    }
}
