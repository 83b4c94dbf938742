//! The memory map as data: what a dump says about on-chip memory, before any geometry.
//!
//! Serialized, this is the JSON back end, and it is the same schema PyPTO's own tool embeds in its
//! page, so tooling written for one reads the other.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

mod handover;
mod packing;
pub use handover::{Access, Accesses, HANDOVERS_LISTED, Handover, Handovers, Mem, Mems, Pipe, crosses, pipe_name};
pub use packing::{Placed, SpacePacking};

pub use crate::units::MAX_BYTES;

/// One tile binding: a named value that owns bytes of an on-chip space for a range of dump lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tile {
    pub name: String,
    pub space: String,
    /// The allocation the tile lives in (`mem_vec_3`, or a string base).
    pub base: String,
    pub offset: i64,
    pub size: i64,
    /// Static dimensions; empty when any dimension is symbolic.
    pub shape: Vec<i64>,
    pub dtype: String,
    /// Producer op without the leading `pl.` (`tile.load`), `param` for a parameter, empty otherwise.
    pub op: String,
    /// First and last dump line (1-based) that mention the name.
    pub start: u32,
    pub end: u32,
    /// The last line the compiler holds the tile's bytes (never before `end`): PyPTO's MemoryReuse
    /// keeps a tile defined before a loop and read inside it to the loop's end, and counts reads of
    /// a loop's or a branch's result as reads of the tile it carries (see `dump::flow`). What is
    /// live at a line is what `[start, live_end]` holds; read it through [`Tile::held`].
    #[serde(default)]
    pub live_end: u32,
    /// The header line of the loop that holds the tile past its last read, where one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_by: Option<u32>,
    /// Lines that read the name (reads, and writes through calls such as `pl.tile.write(t, ...)`)
    /// outside the statement that binds it; for a box, those of all its names.
    #[serde(default)]
    pub uses: Vec<u32>,
    /// The tile's `pl.TileView(...)` arguments; empty where the dump has none (CONCISE dumps).
    #[serde(default)]
    pub layout: String,
    /// The slot of a declared multi-slot allocation the tile's MemRef selects (`pl.MemRef(ub, ...,
    /// slots=N)[k]`): `offset`/`size` are then the slot when `k` is a constant, and the whole
    /// allocation when it is chosen at run time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Slots>,
    /// The tile's base is an author-declared allocation (`pl.tile.alloc(..., pinned=True)`), which
    /// the compiler's reuse never packs anything else into.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// The compiler's lifetime end over the names MemoryReuse tracks (plain tile assignments);
    /// `None` when the tile (every name of a box) is one it does not track.
    #[serde(skip)]
    pub compiler_end: Option<u32>,
    /// The latest read among names MemoryReuse does not track (loop and branch results, tile
    /// parameters), with why: a read past `compiler_end` is one the compiler's lifetime misses.
    #[serde(skip)]
    pub late: Option<Box<LateRead>>,
    /// The first and last op calls that access its bytes, for its handovers.
    #[serde(skip)]
    pub accesses: Accesses,
}

/// A read of a name MemoryReuse does not track (see [`Tile::late`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LateRead {
    /// The name read.
    pub name: String,
    /// Its last read, and the line its bytes are held to by the loop rule.
    pub read: u32,
    pub held: u32,
    /// Why the compiler does not credit it, in words.
    pub why: String,
}

/// Where a tile sits in a declared allocation of `count` equal slots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slots {
    /// How many slots the allocation has.
    pub count: u32,
    /// Bytes per slot (the MemRef's size).
    pub slot_size: i64,
    /// The slot, where the subscript is a constant; `None` where it is chosen at run time.
    pub index: Option<i64>,
    /// The subscript as written (`i % 2`).
    pub selector: String,
    /// The whole allocation: its first byte and its size (the `pl.tile.alloc` size where the dump
    /// has it, else `count` slots).
    pub alloc_offset: i64,
    pub alloc_size: i64,
}

/// A tile whose MemRef gives no address this tool can place (a run-time offset outside a declared
/// allocation, a declaration not yet resolved): listed, with an `unresolved` finding, not drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unresolved {
    pub name: String,
    pub space: String,
    pub base: String,
    /// The line that binds it.
    pub line: u32,
    /// The MemRef as written.
    pub memref: String,
    /// Why it cannot be placed.
    pub why: String,
}

/// A window `pl.system.reserve_buffer(name=..., size=..., base=...)` keeps at the bottom of the
/// function's cross-core space (Mat for AIC, Vec for AIV and InCore): every tile is placed above it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reserved {
    pub name: String,
    pub space: String,
    /// Its first byte; `None` for `base=-1`, not placed yet (before AllocateMemoryAddr).
    pub offset: Option<i64>,
    pub size: i64,
    /// The line of the `reserve_buffer` call.
    pub line: u32,
}

/// A peer function's reserved window this function uses (`pl.system.import_peer_buffer`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerBuffer {
    pub name: String,
    pub peer: String,
    pub line: u32,
}

impl Tile {
    /// One past the last byte.
    pub fn stop(&self) -> i64 {
        self.offset.saturating_add(self.size)
    }

    /// The last line its bytes are held: `live_end`, never before the last line that names it (a
    /// map read from older JSON has no `live_end`).
    pub fn held(&self) -> u32 {
        self.live_end.max(self.end)
    }

    /// Its held lines `[start, held]` doubled, as a closed range `[2 start + 1, max(2 held, 2 start +
    /// 1)]`: two tiles' ranges meet exactly when both hold bytes at once, and not when one is
    /// defined on the line of the other's last held read (the compiler's `LifetimesOverlap`: inputs
    /// are read before outputs are written, so the second may take the first's bytes).
    pub fn held_span(&self) -> (i64, i64) {
        let y0 = 2 * self.start as i64 + 1;
        (y0, (2 * self.held() as i64).max(y0))
    }

    /// Whether `self` and `other` hold bytes at once (see [`Tile::held_span`]).
    pub fn held_with(&self, other: &Tile) -> bool {
        let (a, b) = (self.held_span(), other.held_span());
        a.0 <= b.1 && b.0 <= a.1
    }

    /// A tile of `space` on `base`, bytes `[offset, offset + size)`, lines `[start, end]` and held
    /// to `end`, with nothing else set: the windows and allocations the analysis draws as boxes.
    pub fn plain(name: String, space: &str, base: &str, offset: i64, size: i64, start: u32, end: u32) -> Tile {
        Tile {
            name,
            space: space.into(),
            base: base.into(),
            offset,
            size,
            shape: Vec::new(),
            dtype: String::new(),
            op: String::new(),
            start,
            end,
            live_end: end,
            held_by: None,
            uses: Vec::new(),
            layout: String::new(),
            slots: None,
            pinned: false,
            compiler_end: None,
            late: None,
            accesses: Accesses::default(),
        }
    }
}

/// What is drawn: one tile, or several alias tiles that share a slot over touching lifetimes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    #[serde(flatten)]
    pub tile: Tile,
    /// The other names folded into this block, in order of their first line.
    pub aliases: Vec<String>,
    /// Overlaps a wider block of the same base while both are live: a view into it.
    pub view: bool,
    /// Overlaps a block of another base while both are live: two allocations share bytes (or lies on
    /// bytes a live declared allocation or a reserved window holds).
    pub conflict: bool,
    /// The longest stretch of its live range with no mention of any of its names, when that
    /// stretch is long enough to be worth a look (see `analyze::idle`).
    pub idle: Option<Idle>,
    /// Where its bytes come from and go to (see [`Handovers`]): kept for the tooltip, not written
    /// (the space's `handovers` lists them).
    #[serde(skip)]
    pub handovers: BoxHandovers,
}

/// A box's handovers: from the boxes whose bytes it takes, to those that take its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BoxHandovers {
    pub takes: Vec<Handover>,
    pub gives: Vec<Handover>,
}

#[cfg(test)]
impl Block {
    /// A block for unit tests: tile `name` of `space` on `base`, over bytes `[offset, offset +
    /// size)` and lines `[start, end]`, with nothing else set.
    pub(crate) fn sample(name: String, space: &str, base: &str, offset: i64, size: i64, start: u32, end: u32) -> Block {
        let tile = Tile::plain(name, space, base, offset, size, start, end);
        Block::of(tile)
    }
}

impl Block {
    /// A block of one tile, with nothing marked yet.
    pub fn of(tile: Tile) -> Block {
        Block {
            tile,
            aliases: Vec::new(),
            view: false,
            conflict: false,
            idle: None,
            handovers: BoxHandovers::default(),
        }
    }
}

/// Lines `from..=to` inside a block's range where none of its names is mentioned: it holds its bytes
/// there for nothing, and that is what blocks reuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Idle {
    pub lines: u32,
    pub from: u32,
    pub to: u32,
}

/// The most bytes live at once in a space (union of the live blocks' bytes, so views and aliases
/// count once), the first line where that happens, and what holds them there.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Peak {
    pub bytes: i64,
    pub line: u32,
    /// The blocks live at `line`, biggest first: the answer to "what is holding the space?". The
    /// union of their ranges is `bytes`.
    #[serde(default)]
    pub live: Vec<LiveTile>,
}

/// One block live at a space's peak line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveTile {
    pub name: String,
    pub offset: i64,
    pub size: i64,
    /// A window `system.reserve_buffer` keeps on every line, not a tile.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reserved: bool,
}

/// A free address range `[offset, offset + size)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Gap {
    pub offset: i64,
    pub size: i64,
}

/// "Would a new buffer of `bytes` fit in `space` over lines `from..=to`, and where?"
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FitAnswer {
    pub space: String,
    pub bytes: i64,
    pub from: u32,
    pub to: u32,
    pub fits: bool,
    /// Every free range at least `bytes` long, lowest address first.
    pub ranges: Vec<Gap>,
    /// The largest free range, whether or not it is large enough.
    pub largest: Gap,
}

impl FunctionMap {
    /// The occupancy of its fullest space with a known capacity, in percent (0 when none has one).
    pub fn worst_occupancy(&self) -> f64 {
        self.spaces.iter().map(|s| s.occupancy() * 100.0).fold(0.0, f64::max)
    }
}

impl SpaceUsage {
    /// The high-water mark's share of the limit (1.0 is full); 0 for a space of no capacity or of
    /// a capacity the backend does not describe (no ordering or gate then ranks it as full).
    pub fn occupancy(&self) -> f64 {
        if self.described && self.limit > 0 { self.hwm as f64 / self.limit as f64 } else { 0.0 }
    }
}

/// Whether the function `name` is among those asked for: `only` names them, and empty asks for all
/// (the rule of `--function` and `function=` everywhere a map is drawn or summed up).
pub fn is_chosen(only: &[String], name: &str) -> bool {
    only.is_empty() || only.iter().any(|o| o == name)
}

fn described_by_default() -> bool {
    true
}

/// Per-space totals of one function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpaceUsage {
    pub space: String,
    /// High-water mark: the largest `offset + size` in the space.
    pub hwm: i64,
    /// Capacity from the backend, or the high-water mark where the backend does not describe it.
    pub limit: i64,
    /// The physical size, where the backend says the space has more bytes than are safe to use
    /// (the unsafe band is `limit..physical`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical: Option<i64>,
    /// Whether the backend describes the space (its `limit` is a capacity, not the high-water mark).
    /// Not written; a map read back from JSON takes every limit as a capacity.
    #[serde(skip_serializing, default = "described_by_default")]
    pub described: bool,
    /// Number of blocks.
    pub tiles: usize,
    /// Number of distinct bases.
    pub bases: usize,
    /// Most bytes live at once, and where.
    #[serde(default)]
    pub peak: Peak,
    /// Capacity minus high-water mark: what is left above the highest allocation.
    #[serde(default)]
    pub headroom: i64,
    /// The largest address range below the limit that no block uses at any line of the function.
    #[serde(default)]
    pub largest_free: Gap,
    /// Bytes live at each line of the function, from its first line: kept for drawing, not written.
    #[serde(skip)]
    pub profile: Vec<i64>,
    /// The same boxes over the same lifetimes placed by the packer (`pack::space`): the least
    /// high-water mark a placement could have, or the best found within the map's packing budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packing: Option<SpacePacking>,
    /// Where bytes pass from one box to the next, and how many of those cross pipes; `None` in a
    /// bases view, whose offsets are no addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handovers: Option<Handovers>,
}

/// Everything needed to draw one compute function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionMap {
    pub name: String,
    /// `AIC`, `AIV` or `InCore`.
    pub ftype: String,
    /// First line (the first decorator) and last line of the function in the dump.
    pub src_start: u32,
    pub src_end: u32,
    /// The dump's lines `src_start..=src_end`.
    pub source: Source,
    /// In panel order.
    pub spaces: Vec<SpaceUsage>,
    /// Sorted by (panel order, offset, start).
    #[serde(rename = "boxes", serialize_with = "blocks_until_deadline")]
    pub blocks: Vec<Block>,
    /// Answers to `--fit` queries, when asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fits: Vec<FitAnswer>,
    /// Tiles whose MemRef could not be placed, in dump order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<Unresolved>,
    /// Reserved windows, in dump order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reserved: Vec<Reserved>,
    /// Windows of peer functions this one imports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peer_buffers: Vec<PeerBuffer>,
}

/// A function's lines of the dump: a view of the dump's text, shared rather than copied, since the
/// compute functions are most of a dump. Serialized as the list of lines.
#[derive(Clone, Default)]
pub struct Source {
    text: Arc<String>,
    /// Byte range of each line in `text`, without its line end (as [`str::lines`] cuts them).
    lines: Vec<(u32, u32)>,
}

impl Source {
    /// Lines `first..=last` (1-based) of `text`, whose lines are `lines` (see [`line_spans`]);
    /// lines past the end of the text are empty.
    pub fn of(text: &Arc<String>, lines: &[(u32, u32)], first: u32, last: u32) -> Source {
        let end = text.len() as u32;
        let span = |n: u32| lines.get(n as usize - 1).copied().unwrap_or((end, end));
        Source { text: Arc::clone(text), lines: (first.max(1)..=last).map(span).collect() }
    }

    /// A source made of these lines (each without a line end).
    pub fn from_lines<S: AsRef<str>>(lines: impl IntoIterator<Item = S>) -> Source {
        let mut text = String::new();
        let mut spans = Vec::new();
        for line in lines {
            let start = text.len() as u32;
            text.push_str(line.as_ref());
            spans.push((start, text.len() as u32));
            text.push('\n');
        }
        Source { text: Arc::new(text), lines: spans }
    }

    /// Line `i` (0-based) of the function.
    pub fn get(&self, i: usize) -> Option<&str> {
        self.lines.get(i).map(|&(a, b)| &self.text[a as usize..b as usize])
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.lines.iter().map(|&(a, b)| &self.text[a as usize..b as usize])
    }
}

/// The byte range of each line of `text`, cut as [`str::lines`] cuts them (`\n` or `\r\n` ends a
/// line; a last line end opens no empty line). The dump guard keeps a dump far below 4 GiB.
pub fn line_spans(text: &str) -> Vec<(u32, u32)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let line = piece.strip_suffix('\n').map_or(piece, |l| l.strip_suffix('\r').unwrap_or(l));
        spans.push((start as u32, (start + line.len()) as u32));
        start += piece.len();
    }
    spans
}

impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Source {}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Source, D::Error> {
        Vec::<String>::deserialize(deserializer).map(Source::from_lines)
    }
}

/// Which backend supplied the capacities, and whether anything actually identified it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BackendChoice {
    pub name: String,
    pub arch: String,
    /// As PyPTO's tool sets it: true when the backend was named or read from `ptoas/*.pto`.
    pub detected: bool,
    /// How the backend was chosen; `detected` alone cannot tell a guess from an inference.
    #[serde(default)]
    pub source: BackendSource,
    /// The arch the case's `ptoas/*.pto` names, when it names one (whatever was chosen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptoas_arch: Option<String>,
    /// Bytes per on-chip space, as the backend describes them.
    #[serde(default)]
    pub capacities: std::collections::BTreeMap<String, i64>,
    /// Physical bytes of the spaces that have more than `capacities` says are safe to use.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub physical: std::collections::BTreeMap<String, i64>,
}

/// How a backend was chosen, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendSource {
    /// Named by the user (`-b`, `backend=`).
    Given,
    /// Read from `pto.target_arch` in the case's `ptoas/*.pto`.
    Ptoas,
    /// Nothing named it, but the dump uses a space only this backend has.
    Inferred,
    /// Nothing named or implied it: the default.
    #[default]
    Assumed,
}

impl BackendSource {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendSource::Given => "given",
            BackendSource::Ptoas => "ptoas",
            BackendSource::Inferred => "inferred",
            BackendSource::Assumed => "assumed",
        }
    }
}

/// A whole dump's memory map.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MemoryMap {
    /// The dump's file name.
    pub dump: String,
    /// `32_after_AllocateMemoryAddr.py` gives `AllocateMemoryAddr`.
    pub pass_name: String,
    pub backend: BackendChoice,
    /// Compute functions that bind tiles, in dump order.
    pub functions: Vec<FunctionMap>,
    /// What is wrong or worth a look, worst first (see `findings`): computed once by the analysis so
    /// every back end reports the same list.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// `unassigned` for a dump from before AllocateMemoryAddr: drawn as a bases view, each base its
    /// own column on the byte scale in first-use order, so its offsets place columns, not addresses.
    #[serde(default, skip_serializing_if = "Addresses::is_assigned")]
    pub addresses: Addresses,
    /// Where the addresses are, for an unassigned dump: the AllocateMemoryAddr dump beside it, or
    /// the pass's name when none is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addresses_in: Option<String>,
    /// Compute functions of the dump that place nothing on chip (no tile, window or MemRef), so
    /// have no card: (name, type). Kept so that asking for one says why it is not drawn. Not part
    /// of the JSON, which describes what is drawn.
    #[serde(skip)]
    pub without_tiles: Vec<(String, String)>,
}

/// Whether a dump's MemRef offsets are addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Addresses {
    /// Assigned by AllocateMemoryAddr (or a later pass).
    #[default]
    Assigned,
    /// Not yet: every offset is 0 while bases share a space.
    Unassigned,
}

impl Addresses {
    /// Serde's skip test.
    pub fn is_assigned(&self) -> bool {
        *self == Addresses::Assigned
    }
}

impl MemoryMap {
    /// This map with its functions followed by `copies` renamed copies of them (`f_0`, `f_1`, ...):
    /// a page of many cards, for tests.
    #[cfg(test)]
    pub(crate) fn with_copies(&self, copies: usize) -> MemoryMap {
        let mut map = self.clone();
        for k in 0..copies {
            let copy = self.functions.iter().map(|f| FunctionMap { name: format!("{}_{k}", f.name), ..f.clone() });
            map.functions.extend(copy);
        }
        map
    }

    /// Whether any tile carries its `pl.TileView` layout: CONCISE dumps have none.
    pub fn has_layouts(&self) -> bool {
        self.functions.iter().flat_map(|f| &f.blocks).any(|b| !b.tile.layout.is_empty())
    }

    /// Total number of blocks over all functions.
    pub fn block_count(&self) -> usize {
        self.functions.iter().map(|f| f.blocks.len()).sum()
    }
}

/// How bad a finding is. Ordered worst first, so sorting puts errors on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The layout is wrong: bytes past the capacity, two live allocations on the same bytes.
    Error,
    /// Likely trouble: nearly full, or capacities of a chip nobody named.
    Warning,
    /// Worth a look: where space goes to waste.
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One thing the analysis found, with a stable code (`pto-memory-map explain CODE` says what it
/// means). `function`, `space` and `line` are `None` for findings about the whole dump.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub code: String,
    pub severity: Severity,
    pub function: Option<String>,
    pub space: Option<String>,
    /// The tiles involved (block names), most important first.
    pub tiles: Vec<String>,
    /// The dump line to look at first.
    pub line: Option<u32>,
    /// Every dump line involved (both tiles' first lines for a conflict), ascending.
    #[serde(default)]
    pub lines: Vec<u32>,
    /// One line, with the figures.
    pub message: String,
    /// What to do about it.
    #[serde(default)]
    pub remedy: String,
}

/// Left-to-right panel order; spaces not listed come after, by name.
pub const SPACE_ORDER: [&str; 8] = ["Vec", "Mat", "Left", "LeftScale", "Right", "RightScale", "Acc", "Bias"];

/// Sort key that puts spaces in panel order.
pub fn space_rank(space: &str) -> (usize, &str) {
    let rank = SPACE_ORDER.iter().position(|s| *s == space).unwrap_or(SPACE_ORDER.len());
    (rank, if rank == SPACE_ORDER.len() { space } else { "" })
}

/// Writes a function's blocks, stopping every 1024 blocks if the run's deadline has passed: a
/// function of tens of thousands of tiles must not hold a render thread long after its deadline
/// (the render's next checkpoint then reports the cancellation).
fn blocks_until_deadline<S: serde::Serializer>(blocks: &[Block], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::{Error as _, SerializeSeq};
    let mut seq = s.serialize_seq(Some(blocks.len()))?;
    for (i, b) in blocks.iter().enumerate() {
        if i % 1024 == 1023 && crate::budget::expired() {
            return Err(S::Error::custom("the run's deadline passed"));
        }
        seq.serialize_element(b)?;
    }
    seq.end()
}
