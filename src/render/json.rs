//! The memory map as JSON: the schema PyPTO's own tool embeds in its page (see README).

use crate::model::MemoryMap;

/// Pretty-printed, with a trailing newline, so it diffs well in review. Built no further than just
/// past the run's output limit (see [`crate::budget::json_capped`]).
pub fn render(map: &MemoryMap) -> String {
    // Whole JSON is UTF-8; only a cut at the output limit can end inside a character (and that
    // output is refused). Checking, not converting, keeps the common case a scan without a copy.
    String::from_utf8(crate::budget::json_capped(map))
        .unwrap_or_else(|cut| String::from_utf8_lossy(cut.as_bytes()).into_owned())
}
