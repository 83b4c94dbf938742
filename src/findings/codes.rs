//! The one table of finding codes (what each means and what to do), the thresholds the passes
//! use, and how a finding is made with its table remedy. Apart from the passes because `explain`,
//! SARIF and `check` read the table alone, and its prose is long.

use crate::model::{Finding, Severity};

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

/// Conflicting pairs listed one finding each, per function and space; past them one more finding
/// says how many pairs were not listed. Real dumps have none or a few; a hostile one has millions,
/// and listing them all made findings (and every report of them) quadratic in tiles.
pub const CONFLICTS_LISTED: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_code_is_listed_once_with_words() {
        let mut seen = BTreeSet::new();
        for c in CODES {
            assert!(seen.insert(c.code), "{} twice", c.code);
            assert!(!c.meaning.is_empty() && !c.remedy.is_empty() && !c.title.is_empty());
        }
        assert!(info("overflow").is_some() && info("nope").is_none());
    }
}
