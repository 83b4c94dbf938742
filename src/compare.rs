//! What a change did to on-chip memory: two memory maps compared function by function, for code
//! review. The comparison is data; [`crate::render::md`] and the picture back ends present it.

mod align;
pub mod tree;

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde::Serialize;

pub use align::{Alignment, statement_key};

use crate::hashed::HashMap;
use crate::model::{Block, FunctionMap, MemoryMap, SpaceUsage, space_rank};
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
    /// Where each base of a dump from before AllocateMemoryAddr (a bases view) landed in the other
    /// dump, which has addresses: empty unless exactly one side is unassigned.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placed: Vec<BasePlaced>,
}

/// One base of the unassigned side, and where the assigned side put it.
#[derive(Debug, Clone, Serialize)]
pub struct BasePlaced {
    pub function: String,
    pub space: String,
    pub base: String,
    /// The bytes its tiles take on the assigned side, `[from, to)`; `None` where no tile of the
    /// assigned side has this base (merged into another, or gone).
    pub from: Option<i64>,
    pub to: Option<i64>,
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
    /// Source lines only in the new function, and only in the old one, after alignment.
    pub lines_inserted: usize,
    pub lines_removed: usize,
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

/// Boxes matched across the two sides through the alignment of the source (see [`Alignment`]).
#[derive(Debug, Clone, Default, Serialize)]
pub struct TileChanges {
    /// Boxes only in the new function, and only in the old one (their first names).
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Boxes in both whose space, offset or size differ, or whose lifetime starts or ends at another
    /// statement.
    pub changed: Vec<TileChange>,
    /// Boxes in both, unchanged, under another name (SSA renumbering): old name, new name.
    pub renamed: Vec<(String, String)>,
    /// The spaces of the added and removed boxes (for pictures that draw only what changed).
    #[serde(skip)]
    pub touched: Vec<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TileChange {
    /// The box's name on the new side, and on the old side (the same unless it was renamed).
    pub name: String,
    pub old_name: String,
    pub old: TileSlot,
    pub new: TileSlot,
    /// What differs: `space`, `offset`, `size`, `start`, `end` (a lifetime bound at another statement).
    pub what: Vec<&'static str>,
}

/// Where a box sits and for how long, in its own dump's lines.
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
    // By name: thousands of small functions compared one with another would be quadratic.
    let olds: HashMap<&str, &FunctionMap> = old.functions.iter().rev().map(|f| (f.name.as_str(), f)).collect();
    let news: HashMap<&str, &FunctionMap> = new.functions.iter().map(|f| (f.name.as_str(), f)).collect();
    for f in &new.functions {
        if crate::budget::expired() {
            break; // the caller's next checkpoint reports it
        }
        match olds.get(f.name.as_str()) {
            Some(o) => functions.push(function_diff(o, f)),
            None => added.push(f.name.clone()),
        }
    }
    let removed: Vec<String> =
        old.functions.iter().filter(|o| !news.contains_key(o.name.as_str())).map(|o| o.name.clone()).collect();
    let placed = bases_placed(old, new);
    let mut d = MapDiff { old: side(old), new: side(new), verdict: String::new(), functions, added, removed, placed };
    d.verdict = verdict(&d);
    if !d.placed.is_empty() {
        let found = d.placed.iter().filter(|p| p.from.is_some()).count();
        d.verdict = format!(
            "addresses assigned: {found} of {} base{} placed (the bases view's columns are not addresses); {}",
            d.placed.len(),
            plural(d.placed.len()),
            d.verdict
        );
    }
    d
}

/// For a dump before AllocateMemoryAddr compared with one after it (either way round): each base
/// of the earlier one, in its functions' order, and the bytes its tiles take in the later one.
fn bases_placed(old: &MemoryMap, new: &MemoryMap) -> Vec<BasePlaced> {
    use crate::model::Addresses::{Assigned, Unassigned};
    let (early, late) = match (old.addresses, new.addresses) {
        (Unassigned, Assigned) => (old, new),
        (Assigned, Unassigned) => (new, old),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    // By key, not by search: thousands of bases, each looked for among thousands of tiles, were
    // quadratic.
    let lates: HashMap<&str, &FunctionMap> = late.functions.iter().rev().map(|f| (f.name.as_str(), f)).collect();
    for f in &early.functions {
        if crate::budget::expired() {
            break; // the caller's next checkpoint reports it
        }
        let Some(later) = lates.get(f.name.as_str()) else { continue };
        let mut seen: crate::hashed::HashSet<(&str, &str)> = crate::hashed::HashSet::default();
        let mut bases: Vec<(&str, &str, i64)> = Vec::new();
        for b in &f.blocks {
            if seen.insert((b.tile.space.as_str(), b.tile.base.as_str())) {
                bases.push((&b.tile.space, &b.tile.base, b.tile.offset));
            }
        }
        // The bases view's columns are in first-use order: so is this list.
        bases.sort_by_key(|x| (space_rank(x.0), x.2));
        let mut ranges: HashMap<(&str, &str), (i64, i64)> = HashMap::default();
        for b in &later.blocks {
            let r =
                ranges.entry((b.tile.space.as_str(), b.tile.base.as_str())).or_insert((b.tile.offset, b.tile.stop()));
            *r = (r.0.min(b.tile.offset), r.1.max(b.tile.stop()));
        }
        for (space, base, _) in bases {
            let range = ranges.get(&(space, base));
            out.push(BasePlaced {
                function: f.name.clone(),
                space: space.to_string(),
                base: base.to_string(),
                from: range.map(|r| r.0),
                to: range.map(|r| r.1),
            });
        }
    }
    out
}

fn side(m: &MemoryMap) -> Side {
    Side { dump: m.dump.clone(), pass_name: m.pass_name.clone(), backend: m.backend.name.clone() }
}

fn function_diff(old: &FunctionMap, new: &FunctionMap) -> FunctionDiff {
    let mut names: Vec<&str> = old.spaces.iter().chain(&new.spaces).map(|s| s.space.as_str()).collect();
    names.sort_by_key(|s| space_rank(s));
    names.dedup();
    let spaces: Vec<SpaceDiff> = names.iter().map(|s| space_diff(s, old, new)).collect();
    let alignment = Alignment::of(old, new);
    let tiles = tile_changes(old, new, &alignment);
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
    FunctionDiff {
        name: new.name.clone(),
        ftype: new.ftype.clone(),
        changed,
        spaces,
        tiles,
        lines_inserted: alignment.inserted,
        lines_removed: alignment.removed,
    }
}

fn space_diff(space: &str, old: &FunctionMap, new: &FunctionMap) -> SpaceDiff {
    let find = |f: &FunctionMap| f.spaces.iter().find(|s| s.space == space).cloned();
    let (o, n) = (find(old), find(new));
    let conflicts = |f: &FunctionMap| f.blocks.iter().filter(|b| b.tile.space == space && b.conflict).count();
    let occupancy = SpaceUsage::occupancy;
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

/// A box of one side, with what matching needs.
struct Entry<'a> {
    block: &'a Block,
    slot: TileSlot,
    /// The box's name with its numbers read as one placeholder, so `t__tile_3` and `t__tile_4` agree.
    stem: String,
}

impl<'a> Entry<'a> {
    fn of(block: &'a Block) -> Entry<'a> {
        let t = &block.tile;
        let slot = TileSlot { space: intern(&t.space), offset: t.offset, size: t.size, start: t.start, end: t.held() };
        Entry { block, slot, stem: align::statement_key(&t.name) }
    }

    fn names(&self) -> impl Iterator<Item = &'a str> {
        std::iter::once(self.block.tile.name.as_str()).chain(self.block.aliases.iter().map(String::as_str))
    }
}

/// Space names are few; keeping them `'static` keeps `TileSlot` `Copy`.
fn intern(space: &str) -> &'static str {
    crate::model::SPACE_ORDER.iter().find(|s| **s == space).copied().unwrap_or("other")
}

/// An old box's slot with its lifetime carried to the new side's lines (`None`: the statement is gone).
type Place = (&'static str, i64, i64, Option<u32>, Option<u32>);

/// Matches boxes in three rounds, each over what the earlier ones left: the same slot over the same
/// aligned statements (unchanged, whatever the name); then the same name (changed); then the same
/// name up to numbering, in the same space, starting at the same statement (renamed and changed).
/// What is left is added or removed. Each round is one pass over a hash map, so large functions stay
/// linear.
fn tile_changes(old: &FunctionMap, new: &FunctionMap, alignment: &Alignment) -> TileChanges {
    let olds: Vec<Entry> = old.blocks.iter().map(Entry::of).collect();
    let news: Vec<Entry> = new.blocks.iter().map(Entry::of).collect();
    let place = |e: &Entry| -> Place {
        let s = e.slot;
        (s.space, s.offset, s.size, alignment.new_line(s.start), alignment.new_line(s.end))
    };
    let mut old_of: Vec<Option<usize>> = vec![None; news.len()];
    let mut taken = vec![false; olds.len()];
    let mut out = TileChanges::default();

    // Round 1: same place. Several old boxes can share a place only on different bases (a
    // conflict); prefer the one with the same name, then the same stem. Thousands of boxes piled on
    // one place are looked up by key, each list read past its taken entries once.
    let mut by_place: Queues<Place> = Queues::default();
    let mut by_place_name: Queues<(Place, &str)> = Queues::default();
    let mut by_place_stem: Queues<(Place, &str)> = Queues::default();
    for (i, o) in olds.iter().enumerate() {
        let at = place(o);
        by_place.push(at, i);
        by_place_name.push((at, o.block.tile.name.as_str()), i);
        by_place_stem.push((at, o.stem.as_str()), i);
    }
    for (j, n) in news.iter().enumerate() {
        let s = n.slot;
        let key = (s.space, s.offset, s.size, Some(s.start), Some(s.end));
        let pick = by_place_name
            .first_free(&(key, n.block.tile.name.as_str()), &taken)
            .or_else(|| by_place_stem.first_free(&(key, n.stem.as_str()), &taken))
            .or_else(|| by_place.first_free(&key, &taken));
        if let Some(i) = pick {
            taken[i] = true;
            old_of[j] = Some(i);
            if olds[i].block.tile.name != n.block.tile.name {
                out.renamed.push((olds[i].block.tile.name.clone(), n.block.tile.name.clone()));
            }
        }
    }

    // Round 2: a name in common (a box's own name or an alias).
    let mut by_name: HashMap<&str, usize> = HashMap::default();
    for (i, o) in olds.iter().enumerate().filter(|(i, _)| !taken[*i]) {
        for name in o.names() {
            by_name.entry(name).or_insert(i);
        }
    }
    for (j, n) in news.iter().enumerate() {
        if old_of[j].is_some() {
            continue;
        }
        if let Some(i) = n.names().filter_map(|name| by_name.get(name).copied()).find(|i| !taken[*i]) {
            taken[i] = true;
            old_of[j] = Some(i);
            record(&mut out, change(&olds[i], n, alignment));
        }
    }

    // Round 3: the same stem in the same space, bound at the same statement.
    let mut by_stem: Queues<(&str, &str, Option<u32>)> = Queues::default();
    for (i, o) in olds.iter().enumerate().filter(|(i, _)| !taken[*i]) {
        by_stem.push((o.stem.as_str(), o.slot.space, alignment.new_line(o.slot.start)), i);
    }
    for (j, n) in news.iter().enumerate() {
        if old_of[j].is_some() {
            continue;
        }
        let key = (n.stem.as_str(), n.slot.space, Some(n.slot.start));
        if let Some(i) = by_stem.first_free(&key, &taken) {
            taken[i] = true;
            old_of[j] = Some(i);
            record(&mut out, change(&olds[i], n, alignment));
        }
    }

    for (e, unmatched) in
        news.iter().zip(old_of.iter().map(Option::is_none)).chain(olds.iter().zip(taken.iter().map(|t| !t)))
    {
        if unmatched && !out.touched.contains(&e.slot.space) {
            out.touched.push(e.slot.space);
        }
    }
    out.added = news.iter().zip(&old_of).filter(|(_, o)| o.is_none()).map(|(n, _)| n.block.tile.name.clone()).collect();
    out.removed = olds.iter().zip(&taken).filter(|(_, t)| !**t).map(|(o, _)| o.block.tile.name.clone()).collect();
    out
}

/// Old boxes by key, in order, each list with how far its front is known to be taken: boxes are only
/// ever taken, so the first free one of a key is found by moving that mark, and all the lookups of a
/// round cost the lists' length once (a scan from the front each time was quadratic on one place).
struct Queues<K>(HashMap<K, (Vec<usize>, usize)>);

impl<K> Default for Queues<K> {
    fn default() -> Self {
        Queues(HashMap::default())
    }
}

impl<K: std::hash::Hash + Eq> Queues<K> {
    fn push(&mut self, key: K, i: usize) {
        self.0.entry(key).or_default().0.push(i);
    }

    /// The first box of `key` not yet taken.
    fn first_free(&mut self, key: &K, taken: &[bool]) -> Option<usize> {
        let (list, front) = self.0.get_mut(key)?;
        while *front < list.len() && taken[list[*front]] {
            *front += 1;
        }
        list.get(*front).copied()
    }
}

/// A matched pair goes to `changed`, or to `renamed` when nothing but its name differs.
fn record(out: &mut TileChanges, c: TileChange) {
    if !c.what.is_empty() {
        out.changed.push(c);
    } else if c.name != c.old_name {
        out.renamed.push((c.old_name, c.name));
    }
}

fn change(old: &Entry, new: &Entry, alignment: &Alignment) -> TileChange {
    let (o, n) = (old.slot, new.slot);
    let mut what = Vec::new();
    for (word, differs) in [
        ("space", o.space != n.space),
        ("offset", o.offset != n.offset),
        ("size", o.size != n.size),
        ("start", alignment.new_line(o.start) != Some(n.start)),
        ("end", alignment.new_line(o.end) != Some(n.end)),
    ] {
        if differs {
            what.push(word);
        }
    }
    TileChange { name: new.block.tile.name.clone(), old_name: old.block.tile.name.clone(), old: o, new: n, what }
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
    if d.old.backend != d.new.backend {
        // Capacities differ, so every occupancy moves: say why first.
        parts.insert(0, format!("backend {} → {}", d.old.backend, d.new.backend));
    }
    if parts.iter().all(|p| p.starts_with("backend ")) && changed > 0 {
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

pub(crate) use crate::units::plural;

/// How a report names two dumps: the shortest ends of their paths that tell them apart, and never
/// less than the case folder (the one holding `passes_dump/`), so a header says which cases are
/// compared (`kernel_v1/passes_dump/35_after_X.py` and `kernel_v2/passes_dump/35_after_X.py`).
/// Paths are made absolute first, so `.` and `..` name real folders.
pub fn side_names(a: &Path, b: &Path) -> (String, String) {
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (a, b) = (absolute(a), absolute(b));
    let parts = |p: &Path| -> Vec<String> {
        p.components()
            .rev()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let (pa, pb) = (parts(&a), parts(&b));
    let shared = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
    let differ = if shared >= pa.len().min(pb.len()) { 1 } else { shared + 1 };
    let name = |p: &[String]| {
        // Up to the folder above `passes_dump`, when the path has one.
        let case = p.iter().position(|s| s == "passes_dump").map_or(1, |i| i + 2);
        let keep = differ.max(case).min(p.len());
        let mut kept: Vec<&str> = p.iter().take(keep).map(String::as_str).collect();
        kept.reverse();
        kept.join("/")
    };
    (name(&pa), name(&pb))
}

#[cfg(test)]
mod tests {
    use super::side_names;
    use std::path::Path;

    #[test]
    fn sides_are_named_down_to_their_case_folder() {
        let names = |a: &str, b: &str| side_names(Path::new(a), Path::new(b));
        let (a, b) = names("/no/x/kernel_v1/passes_dump/35_after_A.py", "/no/x/kernel_v2/passes_dump/35_after_A.py");
        assert_eq!(
            (a.as_str(), b.as_str()),
            ("kernel_v1/passes_dump/35_after_A.py", "kernel_v2/passes_dump/35_after_A.py")
        );
        let (a, b) = names("/no/case/passes_dump/35_after_A.py", "/no/case/passes_dump/34_after_A.py");
        assert_eq!((a.as_str(), b.as_str()), ("case/passes_dump/35_after_A.py", "case/passes_dump/34_after_A.py"));
        let (a, b) = names("/no/p/a.py", "/no/q/a.py");
        assert_eq!((a.as_str(), b.as_str()), ("p/a.py", "q/a.py"));
        let (a, b) = names("/no/p/a.py", "/no/p/a.py");
        assert_eq!((a.as_str(), b.as_str()), ("a.py", "a.py"));
    }
}
