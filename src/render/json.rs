//! The memory map as JSON: the schema PyPTO's own tool embeds in its page (see README).

use crate::model::MemoryMap;

/// Pretty-printed, with a trailing newline, so it diffs well in review. Built no further than just
/// past the run's output limit (see [`crate::budget::json_capped`]).
pub fn render(map: &MemoryMap) -> String {
    String::from_utf8_lossy(&crate::budget::json_capped(map)).into_owned()
}
