//! Findings: what is wrong with a memory map, or worth a look, each under a stable code.
//!
//! They are computed once, by the analysis, and carried by the model, so the JSON, the text report,
//! `check` and SARIF all say the same thing. [`CODES`] is the one table of codes: `explain` prints
//! it, SARIF turns it into rules, the text report cites it.

use std::collections::BTreeSet;

use crate::model::{BackendChoice, BackendSource, Block, Finding, FunctionMap, MemoryMap, Severity, SpaceUsage, Tile};
use crate::units::fmt_bytes;

/// What a code means and what to do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// The stable name (`overflow`), as `explain`, `--allow` and SARIF rule ids take it.
    pub code: &'static str,
    /// The severity its findings have (`pressure` is a note below [`PRESSURE_WARNING`]).
    pub severity: Severity,
    /// A few words, for a rule's short description.
    pub title: &'static str,
    /// What it means.
    pub meaning: &'static str,
    /// What to do.
    pub remedy: &'static str,
}

/// Occupancy (high-water mark over capacity) from which `pressure` is a warning...
pub const PRESSURE_WARNING: f64 = 0.95;
/// ...and from which it is a note.
pub const PRESSURE_NOTE: f64 = 0.80;
/// `waste` when the high-water mark exceeds the peak of live bytes by at least this share of the
/// capacity. A quarter of a space is what a second buffer of the usual double-buffered kernel
/// needs; placement that costs that much is worth a look, and below it the gap is mostly alignment
/// and the lifetimes' slack. On the shared corpus it fires on none of the 157 function
/// spaces a backend describes: the largest gap there is 17.4 % (fa_fused_aiv, Vec).
pub const WASTE_SHARE: f64 = 0.25;

/// Every code, findings of the analysis first, then those `check` adds.
pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "overflow",
        severity: Severity::Error,
        title: "tile past the space's capacity",
        meaning: "A tile's offset + size is past the capacity of its memory space on the chosen backend: \
                  the kernel addresses bytes the chip does not have.",
        remedy: "Check that the backend is right (-b, or the case's ptoas/*.pto); if it is, the kernel needs \
                 smaller tiles in that space (tile the loop finer) or fewer of them live at once.",
    },
    CodeInfo {
        code: "conflict",
        severity: Severity::Error,
        title: "two allocations share bytes while both are live",
        meaning: "Two tiles of different bases overlap in address and in lifetime: writing one corrupts \
                  the other. Views into one base are not conflicts. A tile on bytes a declared multi-slot \
                  allocation holds (a slot no tile of it binds there) while the allocation is live, or on a \
                  window system.reserve_buffer keeps, is one too.",
        remedy: "Report the dump to the compiler (AllocateMemoryAddr placed two live buffers on the same \
                 bytes); if a tile is rebound by hand, make sure the first is dead before the second is written.",
    },
    CodeInfo {
        code: "short-lifetime",
        severity: Severity::Warning,
        title: "a read past the compiler's lifetime of its bytes",
        meaning: "A name MemoryReuse does not track (a loop's or a branch's result, a tile parameter) is read \
                  after the last line the compiler holds the bytes it lives in: MemoryReuse credits a read \
                  of a loop's result only to a tracked initial value, so a loop that starts from another \
                  loop's result loses the credit. The map draws the box to the real read; the compiler may \
                  place another tile on those bytes before it.",
        remedy: "Check that no tile is placed on those bytes between the two lines (a conflict says so); \
                 start the loop from a plain tile assignment, or report the dump to the compiler.",
    },
    CodeInfo {
        code: "pressure",
        severity: Severity::Warning,
        title: "space nearly full",
        meaning: "The space's high-water mark is at least 95 % of its capacity (a warning) or at least 80 % \
                  (a note): the next buffer, or a larger tile shape, will not fit.",
        remedy: "See what holds the space at its peak (the live set in the JSON and the text report) and \
                 shrink or shorten the biggest; a fit question (the `fit` option) asks whether a given buffer \
                 still fits.",
    },
    CodeInfo {
        code: "idle",
        severity: Severity::Note,
        title: "tile holds its bytes for nothing",
        meaning: "A tile is live for a long stretch (at least 8 lines and half its range) in which nothing \
                  mentions it: it holds its bytes there for nothing, and nothing else can use them.",
        remedy: "Load or compute the tile closer to its use, or end its life earlier, so the space can be \
                 reused in between.",
    },
    CodeInfo {
        code: "waste",
        severity: Severity::Note,
        title: "placement costs more than liveness",
        meaning: "The high-water mark exceeds the peak of bytes live at once by at least a quarter of the \
                  capacity: the addresses, not the lifetimes, use that much space.",
        remedy: "A placement that reuses freed ranges would need only the peak; look at the tiles above the \
                 peak's live set, which sit where earlier, dead tiles could have left room.",
    },
    CodeInfo {
        code: "could-pack",
        severity: Severity::Note,
        title: "a better placement exists",
        meaning: "The same tiles over the same lifetimes (the compiler's) pack into fewer bytes than \
                  AllocateMemoryAddr used: at least 1 KB and 5 % below the high-water mark. The packing \
                  keeps reserved windows, pinned and declared allocations where they are and moves a tile \
                  with its views; it is in the JSON (spaces[].packing), proven optimal or the best found.",
        remedy: "PyPTO's DSA planner (memory_planner=DSA_RP) solves this placement problem instead of \
                 placing whole bases one after another; or look at the packing's placement for where the \
                 compiler leaves room unused.",
    },
    CodeInfo {
        code: "backend-assumed",
        severity: Severity::Warning,
        title: "backend assumed, capacities may be wrong",
        meaning: "Nothing named the chip: no -b, no pto.target_arch in the case's ptoas/*.pto, no space only \
                  one backend has. The default backend's capacities were used.",
        remedy: "Pass -b (Ascend910B, Ascend950) or keep the case's ptoas/ folder beside passes_dump/.",
    },
    CodeInfo {
        code: "backend-mismatch",
        severity: Severity::Warning,
        title: "backend differs from what the case names",
        meaning: "The backend given with -b is not the chip the case's ptoas/*.pto names, or it lacks a \
                  space the dump uses: occupancy and overflow are measured against the wrong capacities.",
        remedy: "Drop -b to use the case's own target, or name the backend the kernel was compiled for.",
    },
    CodeInfo {
        code: "no-layouts",
        severity: Severity::Note,
        title: "dump without tile layouts",
        meaning: "No tile carries a pl.TileView: the dump was written at the CONCISE level, so layouts \
                  (blayout, slayout, fractal, valid_shape) cannot be shown.",
        remedy: "Re-dump with PassDumpLevel.EXPLICIT.",
    },
    CodeInfo {
        code: "unresolved",
        severity: Severity::Warning,
        title: "tile whose MemRef cannot be placed",
        meaning: "A tile's MemRef gives no address this tool can compute: an offset computed at run time \
                  outside a declared allocation, or a declared allocation not yet resolved (a dump from \
                  before InitMemRef). The tile is listed but not drawn, so the map may show less than the \
                  space holds.",
        remedy: "Open the dump after AllocateMemoryAddr; if the tile is there too, read its MemRef in the \
                 dump at the line given and report the form to the tool.",
    },
    CodeInfo {
        code: "reserved-unplaced",
        severity: Severity::Note,
        title: "reserved window not placed yet",
        meaning: "pl.system.reserve_buffer(..., base=-1): the window has a size but no address yet \
                  (AllocateMemoryAddr resolves it), so it is not drawn.",
        remedy: "Open the dump after AllocateMemoryAddr to see where the window lands.",
    },
    CodeInfo {
        code: "peer-buffer",
        severity: Severity::Note,
        title: "function uses a peer's reserved window",
        meaning: "pl.system.import_peer_buffer: the function exchanges data through a window reserved in \
                  its peer function's memory (the cross-core pipe); those bytes are drawn on the peer's \
                  card, not on this one.",
        remedy: "Nothing to do; look at the peer function's reserved window for its size.",
    },
    CodeInfo {
        code: "max-occupancy",
        severity: Severity::Error,
        title: "occupancy above the gate's limit",
        meaning: "check --max-occupancy: a space's high-water mark is a larger share of its capacity than \
                  the gate allows.",
        remedy: "Reduce what the space holds at its peak, or raise the limit if the growth is intended.",
    },
    CodeInfo {
        code: "max-hwm",
        severity: Severity::Error,
        title: "high-water mark above the gate's limit",
        meaning: "check --max-hwm: a space's high-water mark is above the bytes the gate allows.",
        remedy: "Reduce what the space holds at its peak, or raise the limit if the growth is intended.",
    },
    CodeInfo {
        code: "max-waste",
        severity: Severity::Error,
        title: "placement wastes more than the gate allows",
        meaning: "check --max-waste: a space's high-water mark is more bytes above the packer's placement of \
                  the same tiles over the same lifetimes (spaces[].packing) than the gate allows.",
        remedy: "Look at the packed placement (spaces[].packing.placement in the JSON) for the order that \
                 fits; try memory_planner=DSA_RP, or raise the limit if the waste is accepted.",
    },
    CodeInfo {
        code: "unreadable",
        severity: Severity::Error,
        title: "case that cannot be read",
        meaning: "check over a tree: a case folder whose dump is missing, unreadable or has nothing to draw. \
                  The other cases are still checked.",
        remedy: "Read the error: it names the file and what is wrong (often a dump from before \
                 AllocateMemoryAddr, or a missing passes_dump/).",
    },
];

/// The table entry of `code`.
pub fn info(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|c| c.code == code)
}

/// A finding of `code`, with its table remedy (in no function or space until the caller says).
pub(crate) fn finding(code: &str, severity: Severity, message: String) -> Finding {
    Finding {
        code: code.to_string(),
        severity,
        function: None,
        space: None,
        tiles: Vec::new(),
        line: None,
        lines: Vec::new(),
        message,
        remedy: info(code).map(|c| c.remedy.to_string()).unwrap_or_default(),
    }
}

fn in_function(mut x: Finding, f: &FunctionMap, space: &str, tiles: Vec<String>, lines: Vec<u32>) -> Finding {
    x.function = Some(f.name.clone());
    x.space = Some(space.to_string());
    x.tiles = tiles;
    x.line = lines.first().copied();
    x.lines = lines;
    x
}

/// Builds the memory map of `dump` with its findings, scaled by the capacities of `choice` (or of
/// the built-in backend its spaces imply, when `choice` was only assumed); refuses a dump with
/// nothing to draw.
pub fn build(dump: &crate::dump::Dump, choice: BackendChoice) -> crate::error::Result<MemoryMap> {
    build_with(dump, choice, &crate::backend::Backends::builtin())
}

/// [`build`], inferring among `backends` (built-in ones and SoC files).
pub fn build_with(
    dump: &crate::dump::Dump,
    choice: BackendChoice,
    backends: &crate::backend::Backends,
) -> crate::error::Result<MemoryMap> {
    let (mut map, hint) = crate::analyze::analyze(dump, choice, backends)?;
    map.findings = compute(&map, hint.as_deref());
    crate::budget::checkpoint()?; // the findings stop early past the deadline
    Ok(map)
}

/// Every finding of `map`, worst first (then in dump order). `hint` names the backend the dump's
/// spaces point to, where they point to one.
pub fn compute(map: &MemoryMap, hint: Option<&str>) -> Vec<Finding> {
    let mut out = backend_findings(&map.backend, hint);
    if !map.has_layouts() {
        out.push(finding(
            "no-layouts",
            Severity::Note,
            "no tile carries a pl.TileView: the dump was written at the CONCISE level".into(),
        ));
    }
    for f in &map.functions {
        if crate::budget::expired() {
            break; // the caller's next checkpoint reports it
        }
        unresolved(f, &mut out);
        reserved(f, &mut out);
        conflicts(f, &mut out);
        held_conflicts(f, &mut out);
        for s in &f.spaces {
            let capacity = map.backend.capacities.get(&s.space).copied().filter(|&c| c > 0);
            let physical = map.backend.physical.get(&s.space).copied();
            let overflowed = capacity.is_some_and(|c| overflows(f, s, (c, physical), &mut out));
            if let Some(c) = capacity
                && !overflowed
            {
                pressure(f, s, c, &mut out);
                waste(f, s, c, &mut out);
            }
            could_pack(f, s, &mut out);
        }
        idle(f, &mut out);
        short_lifetimes(f, &mut out);
    }
    // Stable: within a severity, dump order (map-wide findings first).
    out.sort_by_key(|x| x.severity);
    out
}

fn backend_findings(b: &BackendChoice, hint: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    if b.source == BackendSource::Assumed {
        let why = match &b.ptoas_arch {
            Some(arch) => format!("the case's ptoas/*.pto names arch {arch}, which no known backend has"),
            None => "no backend named or found (no -b, no ptoas/*.pto)".to_string(),
        };
        out.push(finding("backend-assumed", Severity::Warning, format!("{why}: {}'s capacities assumed", b.name)));
    }
    if b.source == BackendSource::Given {
        if let Some(arch) = &b.ptoas_arch
            && *arch != b.arch
        {
            out.push(finding(
                "backend-mismatch",
                Severity::Warning,
                format!("-b {} (arch {}) but the case's ptoas/*.pto names arch {arch}", b.name, b.arch),
            ));
        } else if let Some(other) = hint
            && !other.eq_ignore_ascii_case(&b.name)
        {
            out.push(finding(
                "backend-mismatch",
                Severity::Warning,
                format!("-b {} but the dump uses a space only {other} has", b.name),
            ));
        }
    }
    out
}

/// One `overflow` per block (or whole declared allocation) past the usable capacity; whether
/// there was any. `physical` is the space's physical size where the chip has more bytes than are
/// safe to use: a tile between the two is in the unsafe band, and the message says which it passes.
fn overflows(
    f: &FunctionMap,
    s: &SpaceUsage,
    (capacity, physical): (i64, Option<i64>),
    out: &mut Vec<Finding>,
) -> bool {
    let mut any = false;
    let tiles: Vec<&Block> = f.blocks.iter().filter(|b| b.tile.space == s.space).collect();
    // A declared allocation's unbound slots overflow too; one whose only tile already covers it
    // whole is that tile's finding.
    // (A set of the tiles' ranges: 64 000 allocations of one tile each, checked one against the
    // other, were 4 billion comparisons.)
    let ranges: std::collections::HashSet<(i64, i64)> = tiles.iter().map(|b| (b.tile.offset, b.tile.size)).collect();
    let whole: Vec<Block> = crate::analyze::slot_allocations(&tiles)
        .into_iter()
        .filter(|a| !ranges.contains(&(a.tile.offset, a.tile.size)))
        .collect();
    let windows: Vec<String> = f
        .reserved
        .iter()
        .filter(|r| r.space == s.space && r.offset.is_some())
        .map(|r| format!("{} ({})", r.name, fmt_bytes(r.size)))
        .collect();
    let floor = f.reserved.iter().filter(|r| r.space == s.space).filter_map(|r| Some(r.offset? + r.size)).max();
    for b in tiles.into_iter().chain(&whole).filter(|b| b.tile.stop() > capacity) {
        any = true;
        let t = &b.tile;
        let what = if t.slots.is_some() && whole.iter().any(|w| std::ptr::eq(w, b)) {
            format!("the declared allocation {} ({} slots)", t.name, t.slots.as_ref().map_or(0, |s| s.count))
        } else {
            t.name.clone()
        };
        let mut message = format!(
            "{what} ends at {} ({} + {}), {} past the {} capacity of {}",
            fmt_bytes(t.stop()),
            fmt_bytes(t.offset),
            fmt_bytes(t.size),
            fmt_bytes(t.stop() - capacity),
            s.space,
            fmt_bytes(capacity)
        );
        match physical {
            Some(p) if p > capacity && t.stop() <= p => message.push_str(&format!(
                ", inside the unsafe band {}..{}: the chip has those bytes, but the top {} of {} corrupt data",
                fmt_bytes(capacity),
                fmt_bytes(p),
                fmt_bytes(p - capacity),
                s.space
            )),
            Some(p) if p > capacity => {
                message.push_str(&format!(", and past the physical {} as well", fmt_bytes(p)));
            }
            _ => {}
        }
        if let Some(floor) = floor {
            message.push_str(&format!(
                "; the first {} of {} are reserved by system.reserve_buffer ({}), and tiles are placed above them",
                fmt_bytes(floor),
                s.space,
                windows.join(", ")
            ));
        }
        // Whether a better placement would have fit: the packing of the same tiles.
        if let Some(p) = &s.packing {
            let verdict = if p.bytes <= capacity {
                "would fit"
            } else if p.lower_bound > capacity {
                "would not fit either: more is held at once than the space has"
            } else {
                "was not found to fit"
            };
            message.push_str(&format!(
                "; a placement of the same tiles over the same lifetimes needs {} and {verdict}",
                fmt_bytes(p.bytes)
            ));
        }
        out.push(in_function(finding("overflow", Severity::Error, message), f, &s.space, names(b), vec![t.start]));
    }
    any
}

/// One `unresolved` per tile whose MemRef cannot be placed.
fn unresolved(f: &FunctionMap, out: &mut Vec<Finding>) {
    for u in &f.unresolved {
        let message =
            format!("{} ({}, base {}) is not drawn: {}; its MemRef: {}", u.name, u.space, u.base, u.why, u.memref);
        out.push(in_function(
            finding("unresolved", Severity::Warning, message),
            f,
            &u.space,
            vec![u.name.clone()],
            vec![u.line],
        ));
    }
}

/// A note per reserved window not placed yet, and per window imported from a peer.
fn reserved(f: &FunctionMap, out: &mut Vec<Finding>) {
    for r in f.reserved.iter().filter(|r| r.offset.is_none()) {
        let message = format!(
            "{} reserves {} of {} with base=-1: not placed yet, so not drawn",
            r.name,
            fmt_bytes(r.size),
            r.space
        );
        out.push(in_function(
            finding("reserved-unplaced", Severity::Note, message),
            f,
            &r.space,
            vec![r.name.clone()],
            vec![r.line],
        ));
    }
    for p in &f.peer_buffers {
        let message = format!(
            "{} uses {}'s window {} (import_peer_buffer): its bytes are drawn on {}'s card",
            f.name, p.peer, p.name, p.peer
        );
        let space = if f.ftype == "AIC" { "Vec" } else { "Mat" };
        out.push(in_function(
            finding("peer-buffer", Severity::Note, message),
            f,
            space,
            vec![p.name.clone()],
            vec![p.line],
        ));
    }
}

/// Conflicting pairs listed one finding each, per function and space; past them one more finding
/// says how many pairs were not listed. Real dumps have none or a few; a hostile one has millions,
/// and listing them all made findings (and every report of them) quadratic in tiles.
pub const CONFLICTS_LISTED: usize = 50;

/// Conflicts: one finding per pair of blocks of different bases that overlap in address and
/// lifetime, up to [`CONFLICTS_LISTED`] per space, then one finding counting the rest. The pairs are
/// counted, not enumerated (see `overlap`), and only the blocks the analysis marked take part.
fn conflicts(f: &FunctionMap, out: &mut Vec<Finding>) {
    if !f.blocks.iter().any(|b| b.conflict) {
        return;
    }
    let counts = crate::overlap::conflict_counts(&f.blocks, |b| b.conflict);
    let mut spaces: Vec<&str> = Vec::new();
    for b in f.blocks.iter().filter(|b| b.conflict) {
        if !spaces.contains(&b.tile.space.as_str()) {
            spaces.push(&b.tile.space);
        }
    }
    for space in spaces {
        let pairs = crate::overlap::first_conflicts(&f.blocks, &counts, space, CONFLICTS_LISTED);
        for &(i, j) in &pairs {
            out.push(conflict(f, &f.blocks[i].tile, &f.blocks[j].tile));
        }
        let all: u64 =
            f.blocks.iter().zip(&counts).filter(|(b, _)| b.tile.space == space).map(|(_, n)| n).sum::<u64>() / 2;
        let more = all.saturating_sub(pairs.len() as u64);
        if more > 0 {
            let message = format!(
                "{more} more pairs of tiles of different bases share bytes in {space} while both are live \
                 (the first {} are listed)",
                pairs.len()
            );
            let line = pairs.first().map(|&(i, j)| vec![f.blocks[i].tile.start.max(f.blocks[j].tile.start)]);
            out.push(in_function(
                finding("conflict", Severity::Error, message),
                f,
                space,
                Vec::new(),
                line.unwrap_or_default(),
            ));
        }
    }
}

/// A `conflict` for each tile on bytes a declared allocation or a reserved window holds
/// ([`crate::analyze::held_overlaps`]), up to [`CONFLICTS_LISTED`] per function, then one counting the rest.
fn held_conflicts(f: &FunctionMap, out: &mut Vec<Finding>) {
    let holders = crate::analyze::holders(f);
    if holders.is_empty() {
        return;
    }
    let held = crate::analyze::held_overlaps(&f.blocks, &holders, CONFLICTS_LISTED);
    let listed = held.first.len();
    let more = held.pairs.saturating_sub(listed as u64);
    let first_line = held.first.first().map(|&(i, _)| f.blocks[i].tile.start);
    for &(i, h) in &held.first {
        let (t, (holder, declared)) = (&f.blocks[i].tile, &holders[h]);
        let ht = &holder.tile;
        let (lo, hi) = (t.offset.max(ht.offset), t.stop().min(ht.stop()));
        let (from, to) = (t.start.max(ht.start), t.held().min(ht.held()));
        let what = match (&ht.slots, declared) {
            (_, Some(line)) => format!("the window {} reserved by system.reserve_buffer (line {line})", ht.name),
            (Some(slots), None) => format!(
                "the declared allocation {} ({} slots of {}{}), which holds them while any of its tiles is live \
                 (L{}-L{}) though none of its tiles is on those bytes then",
                ht.base,
                slots.count,
                fmt_bytes(slots.slot_size),
                if ht.pinned { ", pinned" } else { "" },
                ht.start,
                ht.held()
            ),
            (None, None) => format!("the allocation {}", ht.base),
        };
        let message =
            format!("{} ({}) is on {} at {}..{} of {what} (L{from}-L{to})", t.name, t.base, fmt_bytes(hi - lo), lo, hi);
        let mut lines = vec![t.start, declared.unwrap_or(ht.start)];
        lines.sort_unstable();
        lines.dedup();
        let mut x = in_function(finding("conflict", Severity::Error, message), f, &t.space, names(&f.blocks[i]), lines);
        x.tiles.push(ht.name.clone());
        x.line = Some(from);
        out.push(x);
    }
    if more > 0 || held.unchecked > 0 {
        let mut message = format!(
            "{more} more tiles are on bytes a declared allocation or a reserved window holds (the first {listed} are listed)"
        );
        if held.unchecked > 0 {
            message.push_str(&format!(
                "; {} tiles that also share bytes with other tiles were not checked against each holder (too many pairs)",
                held.unchecked
            ));
        }
        let space = f.blocks.first().map_or(String::new(), |b| b.tile.space.clone());
        out.push(in_function(
            finding("conflict", Severity::Error, message),
            f,
            &space,
            Vec::new(),
            first_line.into_iter().collect(),
        ));
    }
}

/// The `conflict` finding of two tiles of different bases that share bytes while both are live.
fn conflict(f: &FunctionMap, a: &Tile, b: &Tile) -> Finding {
    let (lo, hi) = (a.offset.max(b.offset), a.stop().min(b.stop()));
    let (from, to) = (a.start.max(b.start), a.held().min(b.held()));
    let message = format!(
        "{} ({}) and {} ({}) share {} at {}..{} while both are held (L{from}-L{to})",
        a.name,
        a.base,
        b.name,
        b.base,
        fmt_bytes(hi - lo),
        lo,
        hi
    );
    let mut lines = vec![a.start, b.start];
    lines.sort_unstable();
    lines.dedup();
    let mut x = in_function(
        finding("conflict", Severity::Error, message),
        f,
        &a.space,
        vec![a.name.clone(), b.name.clone()],
        lines,
    );
    // Where the overlap begins is the line to look at.
    x.line = Some(from);
    x
}

fn occupancy_pct(hwm: i64, capacity: i64) -> f64 {
    hwm as f64 / capacity as f64 * 100.0
}

fn pressure(f: &FunctionMap, s: &SpaceUsage, capacity: i64, out: &mut Vec<Finding>) {
    let share = s.hwm as f64 / capacity as f64;
    let severity = if share >= PRESSURE_WARNING {
        Severity::Warning
    } else if share >= PRESSURE_NOTE {
        Severity::Note
    } else {
        return;
    };
    let top = f.blocks.iter().filter(|b| b.tile.space == s.space).max_by_key(|b| (b.tile.stop(), b.tile.size));
    let message = format!(
        "{} is {:.1}% full: high-water mark {} of {}, {} left",
        s.space,
        occupancy_pct(s.hwm, capacity),
        fmt_bytes(s.hwm),
        fmt_bytes(capacity),
        fmt_bytes(capacity - s.hwm)
    );
    let live: Vec<String> = s.peak.live.iter().map(|t| t.name.clone()).collect();
    let tiles = if live.is_empty() { top.map(names).unwrap_or_default() } else { live };
    out.push(in_function(finding("pressure", severity, message), f, &s.space, tiles, vec![s.peak.line]));
}

fn waste(f: &FunctionMap, s: &SpaceUsage, capacity: i64, out: &mut Vec<Finding>) {
    let gap = s.hwm - s.peak.bytes;
    if (gap as f64) < WASTE_SHARE * capacity as f64 {
        return;
    }
    let message = format!(
        "{}: high-water mark {} but at most {} live at once (L{}): placement costs {} ({:.0}% of {})",
        s.space,
        fmt_bytes(s.hwm),
        fmt_bytes(s.peak.bytes),
        s.peak.line,
        fmt_bytes(gap),
        gap as f64 / capacity as f64 * 100.0,
        fmt_bytes(capacity)
    );
    // The tiles above the peak's live set are what placement pushed up.
    let ceiling = s.peak.live.iter().map(|t| t.offset + t.size).max().unwrap_or(0);
    let mut high: Vec<&Block> =
        f.blocks.iter().filter(|b| b.tile.space == s.space && b.tile.stop() > ceiling).collect();
    high.sort_by_key(|b| std::cmp::Reverse(b.tile.stop()));
    let lines: BTreeSet<u32> = high.iter().map(|b| b.tile.start).collect();
    let mut x = in_function(
        finding("waste", Severity::Note, message),
        f,
        &s.space,
        high.iter().map(|b| b.tile.name.clone()).collect(),
        lines.into_iter().collect(),
    );
    x.line = high.first().map(|b| b.tile.start).or(Some(s.peak.line));
    out.push(x);
}

fn idle(f: &FunctionMap, out: &mut Vec<Finding>) {
    for b in &f.blocks {
        let Some(idle) = b.idle else { continue };
        let t = &b.tile;
        let message = format!(
            "{} holds {} for {} lines (L{}-L{}) without a use: {} x {} lines",
            t.name,
            fmt_bytes(t.size),
            idle.lines,
            idle.from,
            idle.to,
            fmt_bytes(t.size),
            idle.lines
        );
        out.push(in_function(finding("idle", Severity::Note, message), f, &t.space, names(b), vec![idle.from]));
    }
}

/// A `could-pack` note where the packing of a space saves at least 1 KB and 5 % of its high-water mark.
fn could_pack(f: &FunctionMap, s: &SpaceUsage, out: &mut Vec<Finding>) {
    let Some(p) = &s.packing else { return };
    if !crate::pack::space::could_pack(s.hwm, p) {
        return;
    }
    let how = if p.proven_optimal {
        "optimal".to_string()
    } else {
        format!("the best found; no placement needs less than {}", fmt_bytes(p.lower_bound))
    };
    let message = format!(
        "AllocateMemoryAddr used {}; the same tiles over the same lifetimes pack into {} ({how}), {} less",
        fmt_bytes(s.hwm),
        fmt_bytes(p.bytes),
        fmt_bytes(s.hwm - p.bytes)
    );
    out.push(in_function(finding("could-pack", Severity::Note, message), f, &s.space, Vec::new(), vec![s.peak.line]));
}

/// A `short-lifetime` warning for each box whose bytes are read (through a name MemoryReuse does not
/// track) after the compiler's lifetime of them ends.
fn short_lifetimes(f: &FunctionMap, out: &mut Vec<Finding>) {
    for b in &f.blocks {
        let t = &b.tile;
        let (Some(end), Some(late)) = (t.compiler_end, &t.late) else { continue };
        if late.held <= end {
            continue;
        }
        let message = format!(
            "{} is read at line {}, but the compiler's lifetime of its bytes ({}, {} at {}..{}) ends at line {end}: {}",
            late.name,
            late.read,
            t.name,
            t.base,
            t.offset,
            t.stop(),
            late.why
        );
        let mut lines = vec![late.read, end];
        lines.sort_unstable();
        let mut x = in_function(finding("short-lifetime", Severity::Warning, message), f, &t.space, names(b), lines);
        x.line = Some(late.read);
        out.push(x);
    }
}

fn names(b: &Block) -> Vec<String> {
    std::iter::once(b.tile.name.clone()).chain(b.aliases.iter().cloned()).collect()
}

/// The findings about what a view draws: those of the chosen functions (`only`, all when empty) or of
/// the whole dump, less those about a space `hidden` takes off a card (a card keeps its first space
/// when every one is hidden). A finding about a space the function does not have (a peer's window)
/// stays. Every format and count of a map reads this one list.
pub fn drawn<'a>(map: &'a MemoryMap, only: &[String], hidden: &[String]) -> Vec<&'a Finding> {
    // By name, so a whole model's thousands of findings do not each search its functions.
    let by_name: std::collections::HashMap<&str, &FunctionMap> =
        map.functions.iter().map(|f| (f.name.as_str(), f)).collect();
    map.findings
        .iter()
        .filter(|x| {
            let Some(name) = &x.function else { return true };
            let Some(f) = by_name.get(name.as_str()) else { return false };
            if !crate::model::is_chosen(only, name) {
                return false;
            }
            let Some(space) = &x.space else { return true };
            let all_hidden = f.spaces.iter().all(|s| hidden.contains(&s.space));
            let first = f.spaces.first().is_some_and(|s| &s.space == space);
            !f.spaces.iter().any(|s| &s.space == space) || !hidden.contains(space) || (all_hidden && first)
        })
        .collect()
}

/// Findings counted by severity: (errors, warnings, notes).
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s: Severity| findings.iter().filter(|x| x.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Note))
}

/// `2 errors, 1 warning, 30 notes`.
pub fn counts_text(findings: &[Finding]) -> String {
    let (e, w, n) = counts(findings);
    let word = |k: usize, one: &str| format!("{k} {one}{}", if k == 1 { "" } else { "s" });
    format!("{}, {}, {}", word(e, "error"), word(w, "warning"), word(n, "note"))
}

/// The CLI's line after a render: `drew 45 functions of X.py; worst occupancy 100.0% (q_proj
/// Right); findings: 0 errors, 7 warnings, 66 notes`. With `only` (the `--function` names), just
/// those functions and the findings about them or the whole dump.
pub fn summary_line(map: &MemoryMap, only: &[String], hidden: &[String]) -> String {
    let drawn: Vec<&FunctionMap> = map.functions.iter().filter(|f| crate::model::is_chosen(only, &f.name)).collect();
    let worst = drawn
        .iter()
        .flat_map(|f| f.spaces.iter().map(move |s| (f, s)))
        .filter(|(_, s)| s.described && s.limit > 0) // an unknown capacity is no occupancy
        .map(|(f, s)| (s.occupancy() * 100.0, f, s))
        .fold(
            None,
            |best: Option<(f64, _, _)>, x| if best.as_ref().is_some_and(|b| b.0 >= x.0) { best } else { Some(x) },
        );
    let worst =
        worst.map_or("no space used".into(), |(p, f, s)| format!("worst occupancy {p:.1}% ({} {})", f.name, s.space));
    let about: Vec<Finding> = self::drawn(map, only, hidden).into_iter().cloned().collect();
    // Each error code with its first case (where, which tiles), so the line says what is wrong.
    let errors: Vec<&Finding> = about.iter().filter(|x| x.severity == Severity::Error).collect();
    let mut codes: Vec<&str> = errors.iter().map(|x| x.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    let cases: Vec<String> = codes
        .iter()
        .map(|code| {
            let of: Vec<&&Finding> = errors.iter().filter(|x| x.code == *code).collect();
            let more = if of.len() > 1 { format!(", and {} more", of.len() - 1) } else { String::new() };
            format!("{code}: {}{more}", where_and_what(of[0]))
        })
        .collect();
    let detail = if cases.is_empty() { String::new() } else { format!(" ({})", cases.join("; ")) };
    format!(
        "drew {} function{} of {}; {worst}; findings: {}{detail}",
        drawn.len(),
        if drawn.len() == 1 { "" } else { "s" },
        map.dump,
        counts_text(&about)
    )
}

/// `qk_matmul Vec: a__tile and b__tile at L12`: a finding's place and tiles, for one line.
fn where_and_what(x: &Finding) -> String {
    let place: Vec<&str> = [x.function.as_deref(), x.space.as_deref()].into_iter().flatten().collect();
    let tiles = match x.tiles.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [a, b, rest @ ..] => format!("{a}, {b} and {} more", rest.len()),
    };
    let line = x.line.map(|l| format!(" at L{l}")).unwrap_or_default();
    match (place.is_empty(), tiles.is_empty()) {
        (true, true) => line.trim_start().to_string(),
        (true, false) => format!("{tiles}{line}"),
        (false, true) => format!("{}{line}", place.join(" ")),
        (false, false) => format!("{}: {tiles}{line}", place.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_with_words() {
        let mut seen = BTreeSet::new();
        for c in CODES {
            assert!(seen.insert(c.code), "{} twice", c.code);
            assert!(!c.meaning.is_empty() && !c.remedy.is_empty() && !c.title.is_empty());
        }
        assert!(info("overflow").is_some() && info("nope").is_none());
    }

    /// `n` blocks of `n` bases in Vec, all over the same bytes and lines: every pair overlaps.
    fn piled(n: usize) -> Vec<Block> {
        (0..n)
            .map(|i| {
                let base = format!("mem_{i}");
                Block::sample(format!("t{i}"), "Vec", &base, i as i64 * 2, 16384, 1 + i as u32, 1 + n as u32)
            })
            .collect()
    }

    #[test]
    fn conflicts_are_listed_up_to_a_cap_then_counted() {
        let mut blocks = piled(400);
        let marks = crate::overlap::overlaps(&blocks);
        for (b, n) in blocks.iter_mut().zip(marks.conflicts) {
            b.conflict = n > 0;
        }
        let f = FunctionMap {
            name: "f".into(),
            ftype: "AIV".into(),
            src_start: 1,
            src_end: 401,
            source: Default::default(),
            spaces: Vec::new(),
            blocks,
            fits: Vec::new(),
            unresolved: Vec::new(),
            reserved: Vec::new(),
            peer_buffers: Vec::new(),
        };
        let mut out = Vec::new();
        conflicts(&f, &mut out);
        assert_eq!(out.len(), CONFLICTS_LISTED + 1);
        let pairs = 400 * 399 / 2;
        let last = out.last().unwrap();
        assert_eq!(last.code, "conflict");
        assert!(
            last.message.starts_with(&format!("{} more pairs of tiles", pairs - CONFLICTS_LISTED)),
            "{}",
            last.message
        );
        assert!(out[0].message.starts_with("t0 (mem_0) and t1 (mem_1) share"), "{}", out[0].message);
    }

    #[test]
    fn counts_read_as_words() {
        let one = finding("conflict", Severity::Error, String::new());
        assert_eq!(counts_text(&[one]), "1 error, 0 warnings, 0 notes");
    }
}
