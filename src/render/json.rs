//! The memory map as JSON: the schema PyPTO's own tool embeds in its page (see README).

use crate::model::MemoryMap;

/// Pretty-printed, with a trailing newline, so it diffs well in review.
pub fn render(map: &MemoryMap) -> String {
    let mut out = serde_json::to_string_pretty(map).unwrap_or_default();
    out.push('\n');
    out
}
