//! The passes that find what is wrong or worth a look in an analysed map, one function per code
//! (overflow, conflicts, pressure, waste, idle, could-pack, short lifetimes, ...), each linear in
//! tiles. Apart from the code table, which they read for remedies and thresholds.

use std::collections::BTreeSet;

use super::codes::{CONFLICTS_LISTED, PRESSURE_NOTE, PRESSURE_WARNING, WASTE_SHARE, finding};
use crate::model::{BackendChoice, BackendSource, Block, Finding, FunctionMap, MemoryMap, Severity, SpaceUsage, Tile};
use crate::units::fmt_bytes;

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

fn in_function(mut x: Finding, f: &FunctionMap, space: &str, tiles: Vec<String>, lines: Vec<u32>) -> Finding {
    x.function = Some(f.name.clone());
    x.space = Some(space.to_string());
    x.tiles = tiles;
    x.line = lines.first().copied();
    x.lines = lines;
    x
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
    let ranges: crate::hashed::HashSet<(i64, i64)> = tiles.iter().map(|b| (b.tile.offset, b.tile.size)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
