//! What a change did to on-chip memory: two memory maps compared function by function, for code
//! review. The comparison is data; [`crate::render::md`] and the picture back ends present it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::{FunctionMap, MemoryMap, SpaceUsage, space_rank};
use crate::units::signed_bytes;

/// Two maps compared.
#[derive(Debug, Clone, Serialize)]
pub struct MapDiff {
    pub old: Side,
    pub new: Side,
    /// One sentence for the top of a review comment.
    pub verdict: String,
    /// Functions in both, in the new dump's order.
    pub functions: Vec<FunctionDiff>,
    /// Functions only in the new dump, and only in the old one.
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

/// Which dump a side is.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub dump: String,
    pub pass_name: String,
    pub backend: String,
}

/// One function present in both dumps.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionDiff {
    pub name: String,
    pub ftype: String,
    pub changed: bool,
    pub spaces: Vec<SpaceDiff>,
    pub tiles: TileChanges,
}

/// One space of a function, before and after; `None` where the space is not used on that side.
#[derive(Debug, Clone, Serialize)]
pub struct SpaceDiff {
    pub space: String,
    pub old_hwm: Option<i64>,
    pub new_hwm: Option<i64>,
    /// New high-water mark minus old (a missing side counts as 0).
    pub delta: i64,
    /// Capacity on the new side (else the old), and on the old side (else the new).
    pub limit: i64,
    pub old_limit: i64,
    pub old_occupancy: Option<f64>,
    pub new_occupancy: Option<f64>,
    pub old_tiles: usize,
    pub new_tiles: usize,
    pub old_bases: usize,
    pub new_bases: usize,
    pub old_conflicts: usize,
    pub new_conflicts: usize,
}

/// Tiles by name: changed when a name is in both and its slot or lifetime differs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TileChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<TileChange>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TileChange {
    pub name: String,
    pub old: TileSlot,
    pub new: TileSlot,
}

/// Where a tile sits and for how long. Lines count from the function's first line, so code added
/// above a function does not make all its tiles look changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TileSlot {
    pub space: &'static str,
    pub offset: i64,
    pub size: i64,
    pub start: u32,
    pub end: u32,
}

/// Compares `old` with `new`.
pub fn diff(old: &MemoryMap, new: &MemoryMap) -> MapDiff {
    let mut functions = Vec::new();
    let mut added = Vec::new();
    for f in &new.functions {
        match old.functions.iter().find(|o| o.name == f.name) {
            Some(o) => functions.push(function_diff(o, f)),
            None => added.push(f.name.clone()),
        }
    }
    let removed: Vec<String> = old
        .functions
        .iter()
        .filter(|o| !new.functions.iter().any(|f| f.name == o.name))
        .map(|o| o.name.clone())
        .collect();
    let mut d = MapDiff { old: side(old), new: side(new), verdict: String::new(), functions, added, removed };
    d.verdict = verdict(&d);
    d
}

fn side(m: &MemoryMap) -> Side {
    Side { dump: m.dump.clone(), pass_name: m.pass_name.clone(), backend: m.backend.name.clone() }
}

fn function_diff(old: &FunctionMap, new: &FunctionMap) -> FunctionDiff {
    let mut names: Vec<&str> = old.spaces.iter().chain(&new.spaces).map(|s| s.space.as_str()).collect();
    names.sort_by_key(|s| space_rank(s));
    names.dedup();
    let spaces: Vec<SpaceDiff> = names.iter().map(|s| space_diff(s, old, new)).collect();
    let tiles = tile_changes(old, new);
    let changed = !tiles.added.is_empty()
        || !tiles.removed.is_empty()
        || !tiles.changed.is_empty()
        || spaces.iter().any(|s| {
            s.old_hwm != s.new_hwm
                || s.old_tiles != s.new_tiles
                || s.old_bases != s.new_bases
                || s.old_conflicts != s.new_conflicts
                || s.old_occupancy != s.new_occupancy
        });
    FunctionDiff { name: new.name.clone(), ftype: new.ftype.clone(), changed, spaces, tiles }
}

fn space_diff(space: &str, old: &FunctionMap, new: &FunctionMap) -> SpaceDiff {
    let find = |f: &FunctionMap| f.spaces.iter().find(|s| s.space == space).cloned();
    let (o, n) = (find(old), find(new));
    let conflicts = |f: &FunctionMap| f.blocks.iter().filter(|b| b.tile.space == space && b.conflict).count();
    let occupancy = |s: &SpaceUsage| if s.limit > 0 { s.hwm as f64 / s.limit as f64 } else { 0.0 };
    SpaceDiff {
        space: space.to_string(),
        old_hwm: o.as_ref().map(|s| s.hwm),
        new_hwm: n.as_ref().map(|s| s.hwm),
        delta: n.as_ref().map_or(0, |s| s.hwm) - o.as_ref().map_or(0, |s| s.hwm),
        limit: n.as_ref().or(o.as_ref()).map_or(0, |s| s.limit),
        old_limit: o.as_ref().or(n.as_ref()).map_or(0, |s| s.limit),
        old_occupancy: o.as_ref().map(occupancy),
        new_occupancy: n.as_ref().map(occupancy),
        old_tiles: o.as_ref().map_or(0, |s| s.tiles),
        new_tiles: n.as_ref().map_or(0, |s| s.tiles),
        old_bases: o.as_ref().map_or(0, |s| s.bases),
        new_bases: n.as_ref().map_or(0, |s| s.bases),
        old_conflicts: conflicts(old),
        new_conflicts: conflicts(new),
    }
}

/// Every name of a function (box names and their aliases) with its slot.
fn slots(f: &FunctionMap) -> BTreeMap<&str, TileSlot> {
    let mut out = BTreeMap::new();
    for b in &f.blocks {
        let t = &b.tile;
        let slot = TileSlot {
            space: intern(&t.space),
            offset: t.offset,
            size: t.size,
            start: t.start.saturating_sub(f.src_start),
            end: t.end.saturating_sub(f.src_start),
        };
        out.insert(t.name.as_str(), slot);
        for a in &b.aliases {
            out.insert(a.as_str(), slot);
        }
    }
    out
}

/// Space names are few; keeping them `'static` keeps `TileSlot` `Copy`.
fn intern(space: &str) -> &'static str {
    crate::model::SPACE_ORDER.iter().find(|s| **s == space).copied().unwrap_or("other")
}

fn tile_changes(old: &FunctionMap, new: &FunctionMap) -> TileChanges {
    let (o, n) = (slots(old), slots(new));
    let mut out = TileChanges::default();
    for (name, slot) in &n {
        match o.get(name) {
            None => out.added.push(name.to_string()),
            Some(before) if before != slot => {
                out.changed.push(TileChange { name: name.to_string(), old: *before, new: *slot })
            }
            Some(_) => {}
        }
    }
    out.removed = o.keys().filter(|k| !n.contains_key(*k)).map(|k| k.to_string()).collect();
    out
}

/// "Vec high-water +12 KB in 2 functions; no new conflicts", or "no change".
fn verdict(d: &MapDiff) -> String {
    let mut parts = Vec::new();
    let mut per_space: BTreeMap<(usize, &str, &str), (i64, usize)> = BTreeMap::new();
    for f in &d.functions {
        for s in &f.spaces {
            if s.delta != 0 {
                let key = (space_rank(&s.space).0, s.space.as_str(), if s.delta > 0 { "up" } else { "down" });
                let e = per_space.entry(key).or_insert((0, 0));
                e.0 = if s.delta > 0 { e.0.max(s.delta) } else { e.0.min(s.delta) };
                e.1 += 1;
            }
        }
    }
    for ((_, space, _), (delta, n)) in &per_space {
        let most = if *n > 1 { " at most" } else { "" };
        parts.push(format!("{space} high-water {}{most} in {n} function{}", signed_bytes(*delta), plural(*n)));
    }
    let new_conflicts: usize =
        d.functions.iter().flat_map(|f| &f.spaces).map(|s| s.new_conflicts.saturating_sub(s.old_conflicts)).sum();
    let gone_conflicts: usize =
        d.functions.iter().flat_map(|f| &f.spaces).map(|s| s.old_conflicts.saturating_sub(s.new_conflicts)).sum();
    let changed = d.functions.iter().filter(|f| f.changed).count();
    if changed == 0 && d.added.is_empty() && d.removed.is_empty() {
        return "no change".into();
    }
    if parts.is_empty() && changed > 0 {
        parts.push(format!("no high-water mark moved ({changed} function{} changed)", plural(changed)));
    }
    parts.push(match new_conflicts {
        0 => "no new conflicts".into(),
        n => format!("{n} new conflicting box{}", if n == 1 { "" } else { "es" }),
    });
    if gone_conflicts > 0 {
        parts.push(format!("{gone_conflicts} conflicting box{} resolved", if gone_conflicts == 1 { "" } else { "es" }));
    }
    if !d.added.is_empty() {
        parts.push(format!("{} function{} added", d.added.len(), plural(d.added.len())));
    }
    if !d.removed.is_empty() {
        parts.push(format!("{} function{} removed", d.removed.len(), plural(d.removed.len())));
    }
    parts.join("; ")
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
