//! Findings: what is wrong with a memory map, or worth a look, each under a stable code.
//!
//! They are computed once, by the analysis, and carried by the model, so the JSON, the text report,
//! `check` and SARIF all say the same thing. [`CODES`] is the one table of codes: `explain` prints
//! it, SARIF turns it into rules, the text report cites it.
//!
//! The code table (`codes.rs`) is apart from the passes that find them (`passes.rs`) and from the
//! counts and lines said about them (`summary.rs`): the table is read by `explain`, SARIF and
//! `check` without the passes, and a pass is added without reading the table's prose.

mod codes;
mod passes;
mod summary;

pub(crate) use codes::finding;
pub use codes::{CODES, CONFLICTS_LISTED, CodeInfo, PRESSURE_NOTE, PRESSURE_WARNING, WASTE_SHARE, info};
pub use passes::compute;
pub use summary::{counts, counts_text, drawn, summary_line};

use crate::model::{BackendChoice, MemoryMap};

/// Builds the memory map of `dump` with its findings, scaled by the capacities of `choice` (or of
/// the built-in backend its spaces imply, when `choice` was only assumed); refuses a dump with
/// nothing to draw.
pub fn build(dump: &crate::dump::Dump, choice: BackendChoice) -> crate::error::Result<MemoryMap> {
    build_with(dump, choice, &crate::backend::Backends::builtin())
}

/// [`build`], inferring among `backends` (built-in ones and SoC files).
pub fn build_with(
    dump: &crate::dump::Dump,
    choice: BackendChoice,
    backends: &crate::backend::Backends,
) -> crate::error::Result<MemoryMap> {
    let (mut map, hint) = crate::analyze::analyze(dump, choice, backends)?;
    map.findings = compute(&map, hint.as_deref());
    crate::budget::checkpoint()?; // the findings stop early past the deadline
    Ok(map)
}
