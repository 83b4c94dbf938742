//! From parsed tiles to the memory map: alias merging, views, conflicts and per-space totals.
//!
//! A box spans the lines from the first to the last mention of its names (a name rebound in both
//! arms of an `if` covers the whole `if`), and holds its bytes to `live_end`, the compiler's lifetime
//! (`dump::flow`): past a loop's back edge where the loop reads it again. What is live at a line is
//! what `[start, live_end]` holds.

use std::collections::BTreeSet;
use std::sync::Arc;

pub mod handovers;
mod holders;
pub mod live;
pub mod pipes;

pub use holders::{held_overlaps, holders, holders_of, reserved_blocks, slot_allocations};

use crate::backend::Backends;
use crate::dump::{self, Dump, ParsedFunction};
use crate::error::{Detail, Empty, Error, ErrorKind, Misuse, Named, Result};
use crate::hashed::HashMap;
use crate::model::{
    Addresses, BackendChoice, Block, FitAnswer, FunctionMap, Gap, Idle, LiveTile, MemoryMap, Peak, Reserved, Source,
    SpaceUsage, Tile, space_rank,
};

/// The memory map of `dump` without its findings, scaled by the capacities of `choice` (or of the
/// built-in backend its spaces imply, when `choice` was only assumed), choosing among `backends`,
/// with the backend the dump's spaces imply (for the findings to name); refuses a dump with
/// nothing to draw. The findings are made from this map, one layer up.
pub fn analyze(dump: &Dump, choice: BackendChoice, backends: &Backends) -> Result<(MemoryMap, Option<String>)> {
    let file = dump.display_name();
    // The lines' byte ranges (for each function's source) are found while the dump is parsed.
    let (parsed, lines) = crate::par::both(
        dump::worth_spreading(&dump.text),
        || dump::parse(&dump.text, &file),
        || crate::model::line_spans(&dump.text),
    );
    let parsed = parsed?;
    let used: BTreeSet<&str> = parsed.iter().flat_map(|f| &f.tiles).map(|t| t.space.as_str()).collect();
    let hint = backends.implied_by(&used).map(|b| b.name.clone());
    let choice = backends.infer(choice, &used);
    // Before AllocateMemoryAddr no tile has an address: each base gets its own column instead.
    let unassigned = parsed.iter().any(unassigned_function);
    let mut parsed = parsed;
    if unassigned {
        // Only functions with no address at all: a function that has offsets keeps them.
        parsed.iter_mut().filter(|f| f.tiles.iter().all(|t| base_offset(t) == 0)).for_each(bases_view);
    }
    // A function is drawn when it places something: a tile, a reserved window, or a tile it cannot
    // place (listed with its finding, so nothing the dump places goes unsaid).
    let (parsed, without_tiles): (Vec<ParsedFunction>, Vec<ParsedFunction>) =
        parsed.into_iter().partition(|f| !f.tiles.is_empty() || !f.unresolved.is_empty() || !f.reserved.is_empty());
    let without_tiles: Vec<(String, String)> = without_tiles.into_iter().map(|f| (f.name, f.ftype)).collect();
    let packing = PackBudget::for_dump(dump.text.len());
    // A bases view's offsets are no addresses: nothing passes bytes to anything there.
    let routes = (!unassigned).then(|| pipes::Routes::of(&choice.arch));
    let functions: Vec<FunctionMap> = crate::par::map_heavy_first(
        parsed,
        |f| f.tiles.len(),
        |f| {
            crate::budget::checkpoint()?;
            let physical = |space: &str| choice.physical.get(space).copied();
            let capacity = |space: &str| choice.capacities.get(space).copied();
            Ok(function_map(f, &dump.text, &lines, (capacity, physical), &packing, routes))
        },
    )
    .into_iter()
    .collect::<Result<_>>()?;
    crate::budget::checkpoint()?; // a pass that stopped early left its marks unfinished
    refuse_if_nothing_to_draw(&functions, &file)?;
    let mut map = MemoryMap {
        dump: dump.name.clone(),
        pass_name: dump::pass_name_of(&dump.name),
        backend: choice,
        functions,
        findings: Vec::new(),
        addresses: Addresses::Assigned,
        addresses_in: None,
        without_tiles,
    };
    if unassigned {
        map.addresses = Addresses::Unassigned;
        map.addresses_in = Some(addresses_dump(dump));
    }
    Ok((map, hint))
}

fn refuse_if_nothing_to_draw(functions: &[FunctionMap], file: &str) -> Result<()> {
    if functions.is_empty() {
        let detail = Detail::NothingToDraw { file: file.to_string(), why: Empty::NoMemRef };
        return Err(Error::of(ErrorKind::Refused, detail));
    }
    Ok(())
}

/// Before address assignment every offset is 0, so distinct bases pile up at address 0. One base per
/// space at offset 0 is a real layout, so the tell is two or more bases there.
fn unassigned_function(f: &ParsedFunction) -> bool {
    if f.tiles.is_empty() || f.tiles.iter().any(|t| base_offset(t) != 0) {
        return false;
    }
    let mut bases: HashMap<&str, &str> = HashMap::default();
    f.tiles.iter().any(|t| *bases.entry(t.space.as_str()).or_insert(t.base.as_str()) != t.base.as_str())
}

/// Where a tile's allocation starts: its MemRef's offset, or for a slot of a declared multi-slot
/// allocation, the allocation's (a slot's own offset is the allocation's plus its index's slots).
fn base_offset(t: &Tile) -> i64 {
    t.slots.as_ref().map_or(t.offset, |s| s.alloc_offset)
}

/// Gives each base of `f` its own column: in each space, bases in the order of their first use,
/// side by side, each as wide as its allocation (its `pl.tile.alloc` size, or its largest tile),
/// and each tile at its base's column.
fn bases_view(f: &mut ParsedFunction) {
    let declared: HashMap<&str, i64> = f.allocs.iter().map(|a| (a.name.as_str(), a.size)).collect();
    let mut order: Vec<usize> = (0..f.tiles.len()).collect();
    order.sort_by_key(|&i| (f.tiles[i].start, i));
    let mut widths: HashMap<(String, String), i64> = HashMap::default();
    for t in &f.tiles {
        let w = widths.entry((t.space.clone(), t.base.clone())).or_insert(0);
        let whole = t.slots.as_ref().map_or(0, |s| s.alloc_offset.saturating_add(s.alloc_size));
        *w = (*w).max(t.stop()).max(whole).max(declared.get(t.base.as_str()).copied().unwrap_or(0));
    }
    let mut next: HashMap<String, i64> = HashMap::default();
    let mut column: HashMap<(String, String), i64> = HashMap::default();
    for i in order {
        let key = (f.tiles[i].space.clone(), f.tiles[i].base.clone());
        if !column.contains_key(&key) {
            let at = next.entry(key.0.clone()).or_insert(0);
            column.insert(key.clone(), *at);
            // The widths are MemRef sizes, each within 1 TiB; their sum over a function stays far
            // below i64's range.
            *at = at.saturating_add(widths[&key]);
        }
    }
    for t in &mut f.tiles {
        let at = column[&(t.space.clone(), t.base.clone())];
        t.offset = t.offset.saturating_add(at);
        if let Some(s) = &mut t.slots {
            s.alloc_offset = s.alloc_offset.saturating_add(at);
        }
    }
}

/// The dump that holds an unassigned dump's addresses: the highest-numbered
/// `NN_after_AllocateMemoryAddr.py` beside it, or the pass itself.
fn addresses_dump(dump: &Dump) -> String {
    let beside =
        dump.path.as_deref().and_then(|p| p.parent()).and_then(|dir| dump::resolve(dir, dump::DEFAULT_PASS).ok());
    match beside.and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())) {
        Some(name) => name,
        None => format!("the dump after {}", dump::DEFAULT_PASS),
    }
}

fn function_map(
    f: ParsedFunction,
    text: &Arc<String>,
    lines: &[(u32, u32)],
    (capacity, physical): (impl Fn(&str) -> Option<i64>, impl Fn(&str) -> Option<i64>),
    packing: &PackBudget,
    routes: Option<pipes::Routes>,
) -> FunctionMap {
    let mut tiles = f.tiles;
    if let Some(routes) = routes {
        tiles.iter_mut().for_each(|t| pipes::resolve(&mut t.accesses, routes));
    }
    let mut blocks = merge_aliases(tiles);
    // A tile on bytes a declared allocation or a reserved window holds is drawn as a conflict too.
    let holders = holders_of(&blocks, &f.reserved, (f.src_start, f.src_end));
    let held = held_overlaps(&blocks, &holders, 0).held;
    for (b, held) in blocks.iter_mut().zip(held) {
        b.conflict |= held;
    }
    let mut spaces = summarize(&blocks, &f.reserved, capacity, (f.src_start, f.src_end), packing);
    for s in &mut spaces {
        s.physical = physical(&s.space).filter(|&p| s.described && p > s.limit);
    }
    if routes.is_some() {
        handovers::mark(&mut blocks, &mut spaces);
    }
    let source = Source::of(text, lines, f.src_start, f.src_end);
    FunctionMap {
        name: f.name,
        ftype: f.ftype,
        src_start: f.src_start,
        src_end: f.src_end,
        source,
        spaces,
        blocks,
        fits: Vec::new(),
        unresolved: f.unresolved,
        reserved: f.reserved,
        peer_buffers: f.peer_buffers,
    }
}

/// Folds tiles that share a slot over touching lifetimes into one block, then marks overlaps.
///
/// A phi/yield chain rebinds one buffer under a new name each iteration; drawn apart they would be a
/// stack of identical rectangles. Same slot over disjoint lifetimes is reuse, the point of the
/// picture, and stays apart.
pub fn merge_aliases(tiles: Vec<Tile>) -> Vec<Block> {
    // Each tile's slot (space, base, offset, size), numbered in the order slots first appear; one
    // stable sort of the tiles' indices then puts each slot's tiles together, in that order, by
    // start. Tiles are not gathered into a list a slot under keys copied from them (3.4 % of the
    // decode case's page, most of it moving tiles and cloning names).
    let slot_of: Vec<usize> = {
        let mut seen: HashMap<(&str, &str, i64, i64), usize> = HashMap::default();
        tiles
            .iter()
            .map(|t| {
                let next = seen.len();
                *seen.entry((t.space.as_str(), t.base.as_str(), t.offset, t.size)).or_insert(next)
            })
            .collect()
    };
    let mut order: Vec<usize> = (0..tiles.len()).collect();
    order.sort_by_key(|&i| (slot_of[i], tiles[i].start));
    let mut tiles: Vec<Option<Tile>> = tiles.into_iter().map(Some).collect();
    let mut blocks = Vec::with_capacity(tiles.len());
    let mut order = order.into_iter().peekable();
    while let Some(i) = order.next() {
        let Some(first) = tiles[i].take() else { continue };
        let mut run = Block::of(first);
        while let Some(j) = order.next_if(|&j| slot_of[j] == slot_of[i]) {
            let Some(tile) = tiles[j].take() else { continue };
            // Touching or overlapping while the compiler holds the bytes: one allocation.
            if tile.start <= run.tile.held() {
                let t = &mut run.tile;
                t.end = t.end.max(tile.end);
                if tile.held() > t.held() {
                    (t.live_end, t.held_by) = (tile.held(), tile.held_by);
                }
                t.compiler_end = t.compiler_end.max(tile.compiler_end);
                if tile.late.as_ref().is_some_and(|l| t.late.as_ref().is_none_or(|m| l.held > m.held)) {
                    t.late = tile.late;
                }
                t.accesses.absorb(&tile.accesses);
                // Rebinding the slot under a new name is a use of the storage too.
                t.uses.push(tile.start);
                t.uses.extend(&tile.uses);
                run.aliases.push(tile.name);
            } else {
                let next = Block::of(tile);
                blocks.push(std::mem::replace(&mut run, next));
            }
        }
        blocks.push(run);
    }
    // Each block's key found once and each block moved once: comparing space names at every step
    // of a sort of whole blocks was most of this function's time. Stable, as the sort it replaced.
    blocks.sort_by_cached_key(|b| {
        let (rank, other) = space_rank(&b.tile.space);
        (rank, other.to_string(), b.tile.offset, b.tile.start)
    });
    mark_overlaps(&mut blocks);
    for b in &mut blocks {
        if b.tile.held() == b.tile.end {
            b.tile.held_by = None;
        }
        b.tile.live_end = b.tile.held();
        b.tile.uses.sort_unstable();
        b.tile.uses.dedup();
        b.idle = idle(&b.tile);
    }
    blocks
}

/// A stretch of a live range with no mention is flagged once it is at least this many lines...
pub const IDLE_MIN_LINES: u32 = 8;
/// ...and at least this share of the range.
pub const IDLE_MIN_SHARE: f64 = 0.5;

/// The longest run of lines inside `t`'s range that mention none of its names, if it is at least
/// [`IDLE_MIN_LINES`] long and [`IDLE_MIN_SHARE`] of the range: a bar much longer than its uses.
pub fn idle(t: &Tile) -> Option<Idle> {
    let mut marks: Vec<u32> = Vec::with_capacity(t.uses.len() + 2);
    marks.push(t.start);
    marks.extend(t.uses.iter().copied().filter(|&u| u >= t.start && u <= t.held()));
    marks.push(t.held());
    let (from, to) = marks.windows(2).map(|w| (w[0], w[1])).max_by_key(|(a, b)| (b - a, std::cmp::Reverse(*a)))?;
    let lines = (to - from).saturating_sub(1);
    let range = t.held() - t.start + 1;
    (lines >= IDLE_MIN_LINES && lines as f64 >= IDLE_MIN_SHARE * range as f64).then_some(Idle {
        lines,
        from: from + 1,
        to: to - 1,
    })
}

/// Two blocks that overlap in address and lifetime: on the same base the narrower is a view into the
/// other; on different bases both are a conflict (two live allocations share bytes). Counted, not
/// walked pair by pair (see `overlap`): thousands of tiles over one range cost a few sorts.
fn mark_overlaps(blocks: &mut [Block]) {
    let marks = crate::overlap::overlaps(blocks);
    for ((b, view), conflicts) in blocks.iter_mut().zip(marks.view).zip(marks.conflicts) {
        b.view |= view;
        b.conflict |= conflicts > 0;
    }
}

/// Offsets a packing may take: the 32-byte alignment of every on-chip space.
const PACK_ALIGN: u64 = 32;
/// The most search one space may take of its map's budget.
const PACK_DEADLINE_US: u64 = 50_000;
/// The least packing budget of a map, and its share of the dump's bytes (in microseconds): about a
/// tenth of what drawing the map takes (the decode case's 481 KB: 2.4 ms of some 30 ms).
const PACK_BUDGET_FLOOR_US: u64 = 2_000;
const PACK_BUDGET_BYTES_PER_US: u64 = 200;

/// The packer's time for one map, shared by its spaces on every core. The greedy placements,
/// which prove most spaces optimal (their peak is the lower bound), take microseconds; a space that
/// needs the exact search gets at most 50 ms of what is left, and once the budget is
/// spent the rest get their greedy placement alone (`proven_optimal` then says whether it is).
pub struct PackBudget {
    left_us: std::sync::atomic::AtomicU64,
    per_space_us: u64,
}

impl PackBudget {
    /// The budget of a dump of `bytes`, with the run's `--pack-deadline`.
    pub fn for_dump(bytes: usize) -> PackBudget {
        PackBudget::with_deadline(bytes, crate::budget::limits().pack_deadline_ms)
    }

    /// The budget of a dump of `bytes` where each space may search `per_space_ms` (default 50 ms).
    pub fn with_deadline(bytes: usize, per_space_ms: Option<u64>) -> PackBudget {
        let us = (bytes as u64 / PACK_BUDGET_BYTES_PER_US).max(PACK_BUDGET_FLOOR_US);
        let per_space_us = per_space_ms.map_or(PACK_DEADLINE_US, |ms| ms.saturating_mul(1000));
        // A deadline asked for is given whole to the first space that needs it.
        let us = if per_space_ms.is_some() { us.max(per_space_us) } else { us };
        PackBudget { left_us: std::sync::atomic::AtomicU64::new(us), per_space_us }
    }

    /// The packing of one space's boxes (with its windows and declared allocations, which stay).
    fn pack(&self, boxes: &[&Block]) -> Option<crate::model::SpacePacking> {
        use std::sync::atomic::Ordering::Relaxed;
        let left = self.left_us.load(Relaxed);
        let deadline = std::time::Duration::from_micros(left.min(self.per_space_us));
        let packed = crate::pack::space::pack_space(boxes, PACK_ALIGN, deadline)?;
        let spent = packed.us;
        let _ = self.left_us.fetch_update(Relaxed, Relaxed, |l| Some(l.saturating_sub(spent)));
        Some(packed)
    }
}

/// What holds bytes of `space` in `f` line by line, as the peak, the live lists and the page's live
/// readout count it: its drawn boxes and its placed reserved windows (every line).
pub fn holding<'a>(f: &'a FunctionMap, space: &str, windows: &'a [Block]) -> Vec<&'a Block> {
    f.blocks.iter().filter(|b| b.tile.space == space).chain(windows).collect()
}

/// Per-space totals, in panel order. A declared allocation counts whole (all its slots); a
/// reserved window counts in the high-water mark and is not free, but is no live tile.
fn summarize(
    blocks: &[Block],
    reserved: &[Reserved],
    capacity: impl Fn(&str) -> Option<i64>,
    lines: (u32, u32),
    packing: &PackBudget,
) -> Vec<SpaceUsage> {
    let mut names: Vec<&str> = blocks.iter().map(|b| b.tile.space.as_str()).collect();
    names.extend(reserved.iter().filter(|r| r.offset.is_some()).map(|r| r.space.as_str()));
    names.sort_by_key(|s| space_rank(s));
    names.dedup();
    names
        .into_iter()
        .map(|space| {
            let tiles: Vec<&Block> = blocks.iter().filter(|b| b.tile.space == space).collect();
            let whole = slot_allocations(&tiles);
            let windows = reserved_blocks(reserved, space, lines);
            // What the peak and its live list count is what is drawn: the boxes and the placed
            // windows (every line); a declared allocation's unbound slots are taken, not live.
            let mut mine = tiles.clone();
            mine.extend(&windows);
            let hwm = mine.iter().chain(&whole.iter().collect::<Vec<_>>()).map(|b| b.tile.stop()).max().unwrap_or(0);
            let bases: BTreeSet<&str> = tiles.iter().map(|b| b.tile.base.as_str()).collect();
            // A space the backend does not describe is scaled by its own high-water mark.
            let limit = capacity(space).filter(|&c| c > 0).unwrap_or(hwm);
            let profile = live_profile(&mine, lines);
            let (peak_at, peak) =
                profile.iter().enumerate().fold((0, 0), |best, (i, &b)| if b > best.1 { (i, b) } else { best });
            let peak_line = lines.0 + peak_at as u32;
            let mut taken = mine.clone();
            taken.extend(&whole);
            SpaceUsage {
                space: space.to_string(),
                hwm,
                limit,
                physical: None,
                described: capacity(space).is_some_and(|c| c > 0),
                tiles: tiles.len(),
                bases: bases.len(),
                peak: Peak { bytes: peak, line: peak_line, live: live_at(&mine, peak_line) },
                headroom: limit - hwm,
                largest_free: largest(&free_ranges(&taken, limit, lines)),
                profile,
                packing: packing.pack(&taken),
                handovers: None,
            }
        })
        .collect()
}

/// The blocks live at `line`, biggest first (then lowest address): what holds the space there.
pub fn live_at(blocks: &[&Block], line: u32) -> Vec<LiveTile> {
    let mut live: Vec<LiveTile> = blocks
        .iter()
        .filter(|b| b.tile.start <= line && line <= b.tile.held())
        .map(|b| LiveTile {
            name: b.tile.name.clone(),
            offset: b.tile.offset,
            size: b.tile.size,
            reserved: b.tile.op == holders::RESERVE_OP,
        })
        .collect();
    live.sort_by(|a, b| b.size.cmp(&a.size).then(a.offset.cmp(&b.offset)));
    live
}

/// Bytes live at each line of `lines`: the union of the live blocks' address ranges, so a view or
/// an overlap counts its bytes once. The totals of [`live::changes`]' sweep, line by line:
/// O((blocks + lines) log blocks), where recomputing the union at every line would be lines x blocks.
pub fn live_profile(blocks: &[&Block], (from, to): (u32, u32)) -> Vec<i64> {
    let changes = live::changes(blocks, 0, (from, to));
    let mut next = 0;
    let mut total = 0;
    (from..=to)
        .map(|line| {
            while next < changes.len() && changes[next][0] <= line as i64 {
                total = changes[next][1];
                next += 1;
            }
            total
        })
        .collect()
}

/// The bytes `ranges` cover together, each counted once (`ranges` are sorted in place).
fn union_length(ranges: &mut [(i64, i64)]) -> i64 {
    ranges.sort_unstable();
    let (mut total, mut reach) = (0i64, i64::MIN);
    for &(lo, hi) in ranges.iter() {
        let lo = lo.max(reach);
        if hi > lo {
            total += hi - lo;
            reach = hi;
        }
    }
    total
}

/// Address ranges in `[0, limit)` that no block live during `lines` touches, lowest first.
pub fn free_ranges(blocks: &[&Block], limit: i64, (from, to): (u32, u32)) -> Vec<Gap> {
    let mut busy: Vec<(i64, i64)> = blocks
        .iter()
        // A tile of no bytes holds none: it splits no free range.
        .filter(|b| b.tile.start <= to && from <= b.tile.held() && b.tile.size > 0)
        .map(|b| (b.tile.offset, b.tile.stop()))
        .collect();
    busy.sort_unstable();
    let mut gaps = Vec::new();
    let mut at = 0i64;
    for (lo, hi) in busy {
        if lo > at && at < limit {
            gaps.push(Gap { offset: at, size: lo.min(limit) - at });
        }
        at = at.max(hi);
    }
    if at < limit {
        gaps.push(Gap { offset: at, size: limit - at });
    }
    gaps
}

fn largest(gaps: &[Gap]) -> Gap {
    gaps.iter().copied().fold(Gap::default(), |best, g| if g.size > best.size { g } else { best })
}

/// A `--fit` question: a buffer of `bytes` in `space`, live over `lines` (default: the whole function).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitQuery {
    /// The space the buffer would go in.
    pub space: String,
    /// Its size in bytes.
    pub bytes: i64,
    /// The dump lines it would live over; `None`, the whole function.
    pub lines: Option<(u32, u32)>,
}

impl std::str::FromStr for FitQuery {
    type Err = Error;
    /// `SPACE=BYTES[@LINE-LINE]`; bytes may carry `K`/`KB`/`KiB` or `M`/`MB`/`MiB` (1024-based).
    fn from_str(s: &str) -> Result<FitQuery> {
        let bad = || Error::bad_value("fit", s, "SPACE=BYTES[@LINE-LINE], for example Vec=32KB or Vec=32768@120-180");
        let (space, rest) = s.split_once('=').ok_or_else(bad)?;
        let (bytes, lines) = match rest.split_once('@') {
            Some((b, l)) => {
                let (a, z) = l.split_once('-').ok_or_else(bad)?;
                let (a, z): (u32, u32) = (a.trim().parse().map_err(|_| bad())?, z.trim().parse().map_err(|_| bad())?);
                (b, Some((a.min(z), a.max(z))))
            }
            None => (rest, None),
        };
        let bytes = crate::units::parse_bytes(bytes).filter(|&b| b > 0).ok_or_else(bad)?;
        let space = space.trim();
        if space.is_empty() {
            return Err(bad());
        }
        Ok(FitQuery { space: space.to_string(), bytes, lines })
    }
}

/// Answers `queries` for every function of `map`; a function that does not use the space has all of
/// the backend's capacity free. A space nobody uses and the backend does not describe is an error.
pub fn answer_fits(map: &mut MemoryMap, queries: &[FitQuery]) -> Result<()> {
    for q in queries {
        let known = map.backend.capacities.contains_key(&q.space)
            || map.functions.iter().any(|f| f.spaces.iter().any(|s| s.space == q.space));
        if !known {
            let mut spaces: Vec<&String> = map.backend.capacities.keys().collect();
            spaces.sort_by_key(|s| space_rank(s));
            let named = Named::FitSpace { backend: map.backend.name.clone() };
            return Err(Error::unknown(named, &q.space, spaces));
        }
    }
    for q in queries {
        // A range that crosses no function would be answered nowhere: say which lines there are.
        if let Some((a, z)) = q.lines
            && !map.functions.iter().any(|f| a <= f.src_end && z >= f.src_start)
        {
            let ranges: Vec<String> =
                map.functions.iter().map(|f| format!("{} L{}–L{}", f.name, f.src_start, f.src_end)).collect();
            return Err(Error::misuse(Misuse::FitLines { lines: (a, z), functions: ranges }));
        }
    }
    let capacities = map.backend.capacities.clone();
    for f in &mut map.functions {
        // Lines are dump lines, so a range names the functions it crosses; the others get no answer
        // rather than a "yes" about lines they do not have.
        let crosses = |q: &&FitQuery| q.lines.is_none_or(|(a, z)| a <= f.src_end && z >= f.src_start);
        f.fits = queries.iter().filter(crosses).map(|q| answer(f, q, capacities.get(&q.space).copied())).collect();
    }
    Ok(())
}

fn answer(f: &FunctionMap, q: &FitQuery, capacity: Option<i64>) -> FitAnswer {
    let (from, to) = q.lines.map_or((f.src_start, f.src_end), |(a, z)| (a.max(f.src_start), z.min(f.src_end)));
    let limit = f.spaces.iter().find(|s| s.space == q.space).map(|s| s.limit).or(capacity).unwrap_or(0);
    let tiles: Vec<&Block> = f.blocks.iter().filter(|b| b.tile.space == q.space).collect();
    // Every slot of a declared allocation and every reserved window is taken.
    let (whole, windows) = (slot_allocations(&tiles), reserved_blocks(&f.reserved, &q.space, (f.src_start, f.src_end)));
    let mut mine = tiles;
    mine.extend(whole.iter().chain(&windows));
    let gaps = free_ranges(&mine, limit, (from, to));
    let ranges: Vec<Gap> = gaps.iter().copied().filter(|g| g.size >= q.bytes).collect();
    FitAnswer {
        space: q.space.clone(),
        bytes: q.bytes,
        from,
        to,
        fits: !ranges.is_empty(),
        largest: largest(&gaps),
        ranges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_queries_parse() {
        let q: FitQuery = "Vec=32KB@180-120".parse().unwrap();
        assert_eq!(q, FitQuery { space: "Vec".into(), bytes: 32768, lines: Some((120, 180)) });
        assert_eq!("Mat=4096".parse::<FitQuery>().unwrap().lines, None);
        assert!("Vec".parse::<FitQuery>().is_err());
        assert!("Vec=12XB".parse::<FitQuery>().is_err());
        assert!("Vec=0".parse::<FitQuery>().is_err());
    }

    fn block(offset: i64, size: i64, start: u32, end: u32) -> Block {
        Block::sample(String::new(), "Vec", "", offset, size, start, end)
    }

    #[test]
    fn the_sweep_agrees_with_the_union_at_every_line() {
        let blocks = [
            block(0, 100, 1, 5),
            block(50, 100, 3, 8),
            block(200, 10, 2, 2),
            block(0, 10, 7, 20),
            block(300, -5, 1, 9),
            block(40, 0, 1, 9),
        ];
        let refs: Vec<&Block> = blocks.iter().collect();
        let swept = live_profile(&refs, (2, 10));
        for (i, line) in (2..=10u32).enumerate() {
            let mut live: Vec<(i64, i64)> = blocks
                .iter()
                .filter(|b| b.tile.start <= line && line <= b.tile.end)
                .map(|b| (b.tile.offset, b.tile.stop()))
                .collect();
            assert_eq!(swept[i], union_length(&mut live), "line {line}");
        }
    }

    /// The pass as first written: every pair while addresses overlap.
    fn mark_overlaps_pairwise(blocks: &mut [Block]) {
        for i in 0..blocks.len() {
            for j in i + 1..blocks.len() {
                let (a, b) = (&blocks[i].tile, &blocks[j].tile);
                if a.space != b.space || b.offset >= a.stop() {
                    break;
                }
                if a.size <= 0 || b.size <= 0 {
                    continue;
                }
                // Views by closed ranges (touching counts); conflicts by the compiler's touching rule.
                let closed = a.start <= b.held() && b.start <= a.held();
                if a.base == b.base && closed {
                    let narrower = if b.size <= a.size { j } else { i };
                    blocks[narrower].view = true;
                } else if a.base != b.base && a.held_with(b) {
                    blocks[i].conflict = true;
                    blocks[j].conflict = true;
                }
            }
        }
    }

    #[test]
    fn the_overlap_search_marks_what_every_pair_would() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..300 {
            let mut blocks: Vec<Block> = (0..next(40) + 1)
                .map(|_| {
                    let start = next(30) as u32;
                    let mut b = block(next(6) as i64 * 32, next(5) as i64 * 32 - 16, start, start + next(12) as u32);
                    b.tile.base = format!("mem_{}", next(3));
                    b.tile.space = ["Vec", "Mat"][next(2) as usize].into();
                    b
                })
                .collect();
            blocks.sort_by(|a, b| {
                (space_rank(&a.tile.space), a.tile.offset, a.tile.start).cmp(&(
                    space_rank(&b.tile.space),
                    b.tile.offset,
                    b.tile.start,
                ))
            });
            let mut expected = blocks.clone();
            mark_overlaps_pairwise(&mut expected);
            mark_overlaps(&mut blocks);
            let marks = |bs: &[Block]| bs.iter().map(|b| (b.view, b.conflict)).collect::<Vec<_>>();
            assert_eq!(marks(&blocks), marks(&expected));
        }
    }

    #[test]
    fn union_counts_overlaps_once() {
        assert_eq!(union_length(&mut [(0, 10), (5, 20), (30, 40)]), 30);
        assert_eq!(union_length(&mut []), 0);
    }
}
