//! What a change did to on-chip memory: two memory maps compared function by function (`diff`), and
//! a map held against limits (`check`), for code review and CI gates.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{FunctionMap, MemoryMap, SpaceUsage, space_rank};

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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `+12 KB`, `-512 B`.
pub fn signed_bytes(delta: i64) -> String {
    let sign = if delta > 0 {
        "+"
    } else if delta < 0 {
        "−"
    } else {
        "±"
    };
    format!("{sign}{}", crate::layout::fmt_bytes(delta.abs()))
}

/// A compact Markdown report for a pull-request comment.
pub fn markdown(d: &MapDiff) -> String {
    let mut out = format!("**Memory map:** {}\n\n", d.verdict);
    out += &format!(
        "`{}` → `{}` · {} · pass {}\n",
        md_code(&d.old.dump),
        md_code(&d.new.dump),
        md_text(&d.new.backend),
        md_text(&d.new.pass_name)
    );
    for f in d.functions.iter().filter(|f| f.changed) {
        out += &format!("\n#### `{}` ({})\n\n", md_code(&f.name), md_text(&f.ftype));
        out += "| space | old | new | delta | capacity | occupancy |\n|---|---:|---:|---:|---:|---|\n";
        for s in &f.spaces {
            let arrow = match s.delta.signum() {
                1 => "▲ ",
                -1 => "▼ ",
                _ => "",
            };
            out += &format!(
                "| {} | {} | {} | {}{} | {} | {} → {} |\n",
                md_text(&s.space),
                opt_bytes(s.old_hwm),
                opt_bytes(s.new_hwm),
                arrow,
                if s.delta == 0 { "0".into() } else { signed_bytes(s.delta) },
                if s.old_limit == s.limit {
                    crate::layout::fmt_bytes(s.limit)
                } else {
                    format!("{} → {}", crate::layout::fmt_bytes(s.old_limit), crate::layout::fmt_bytes(s.limit))
                },
                opt_pct(s.old_occupancy),
                opt_pct(s.new_occupancy),
            );
        }
        let t = &f.tiles;
        let mut notes = Vec::new();
        if !t.changed.is_empty() {
            let shown: Vec<String> = t.changed.iter().take(5).map(change_text).collect();
            notes.push(format!("{} changed ({}{})", t.changed.len(), shown.join("; "), more(t.changed.len(), 5)));
        }
        if !t.added.is_empty() {
            notes.push(format!("{} added ({}{})", t.added.len(), names(&t.added, 8), more(t.added.len(), 8)));
        }
        if !t.removed.is_empty() {
            notes.push(format!("{} removed ({}{})", t.removed.len(), names(&t.removed, 8), more(t.removed.len(), 8)));
        }
        let conflicts: Vec<String> = f
            .spaces
            .iter()
            .filter(|s| s.new_conflicts != s.old_conflicts)
            .map(|s| format!("{} conflicts {} → {}", md_text(&s.space), s.old_conflicts, s.new_conflicts))
            .collect();
        notes.extend(conflicts);
        if !notes.is_empty() {
            out += &format!("\nTiles: {}.\n", notes.join("; "));
        }
    }
    let unchanged = d.functions.iter().filter(|f| !f.changed).count();
    if unchanged > 0 {
        out += &format!("\n{unchanged} function{} unchanged.\n", plural(unchanged));
    }
    if !d.added.is_empty() {
        out += &format!("\nAdded: {}.\n", names(&d.added, usize::MAX));
    }
    if !d.removed.is_empty() {
        out += &format!("\nRemoved: {}.\n", names(&d.removed, usize::MAX));
    }
    out
}

fn change_text(c: &TileChange) -> String {
    // Lines count from the function's first line, so code added above it does not read as a change.
    let slot = |s: &TileSlot| format!("{} [{}, {}) lines +{}–{}", s.space, s.offset, s.offset + s.size, s.start, s.end);
    format!("`{}` {} → {}", md_code(&c.name), slot(&c.old), slot(&c.new))
}

fn names(list: &[String], most: usize) -> String {
    list.iter().take(most).map(|n| format!("`{}`", md_code(n))).collect::<Vec<_>>().join(", ")
}

fn more(n: usize, shown: usize) -> String {
    if n > shown { format!(", +{} more", n - shown) } else { String::new() }
}

fn opt_bytes(v: Option<i64>) -> String {
    v.map_or("–".into(), crate::layout::fmt_bytes)
}

fn opt_pct(v: Option<f64>) -> String {
    v.map_or("–".into(), |p| format!("{:.1}%", p * 100.0))
}

/// Text from a dump inside backticks: a backtick would end the code span.
fn md_code(s: &str) -> String {
    s.replace('`', "'")
}

/// Text from a dump in a table cell or sentence: no table breaks, no markup, no raw HTML.
fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' | '*' | '_' | '[' | ']' | '<' | '>' | '`' | '\\' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Limits a map must stay within (`check`).
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Highest occupancy allowed, in percent of capacity.
    pub max_occupancy: Option<f64>,
    pub deny_conflicts: bool,
    /// Highest high-water mark allowed per space, in bytes.
    pub max_hwm: Vec<(String, i64)>,
}

/// One broken limit.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub function: String,
    pub space: String,
    pub rule: &'static str,
    pub figure: String,
    pub limit: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {} {} exceeds {}", self.function, self.space, self.rule, self.figure, self.limit)
    }
}

/// Every limit `map` breaks, function by function.
pub fn check(map: &MemoryMap, limits: &Limits) -> Vec<Violation> {
    let mut out = Vec::new();
    for f in &map.functions {
        for s in &f.spaces {
            let occupancy = if s.limit > 0 { s.hwm as f64 / s.limit as f64 * 100.0 } else { 0.0 };
            if let Some(max) = limits.max_occupancy
                && occupancy > max
            {
                out.push(violation(f, s, "occupancy", format!("{occupancy:.1}%"), format!("{max}%")));
            }
            for (space, max) in &limits.max_hwm {
                if *space == s.space && s.hwm > *max {
                    out.push(violation(f, s, "high-water mark", format!("{} B", s.hwm), format!("{max} B")));
                }
            }
            let conflicts = f.blocks.iter().filter(|b| b.tile.space == s.space && b.conflict).count();
            if limits.deny_conflicts && conflicts > 0 {
                out.push(violation(f, s, "conflicting boxes", conflicts.to_string(), "0".into()));
            }
        }
    }
    out
}

fn violation(f: &FunctionMap, s: &SpaceUsage, rule: &'static str, figure: String, limit: String) -> Violation {
    Violation { function: f.name.clone(), space: s.space.clone(), rule, figure, limit }
}

/// `Vec=96KB` or `Vec=98304` for `--max-hwm`.
pub fn parse_max_hwm(s: &str) -> Result<(String, i64)> {
    let bad = || Error::new(ErrorKind::Usage, format!("--max-hwm '{s}' is not SPACE=BYTES, for example Vec=96KB"));
    let (space, bytes) = s.split_once('=').ok_or_else(bad)?;
    let q: crate::analyze::FitQuery = format!("{space}={bytes}").parse().map_err(|_| bad())?;
    Ok((q.space, q.bytes))
}
