//! pto-memory-map: draws what a PyPTO kernel keeps in on-chip memory, where, and for how long.
//!
//! The data flows one way: dump text -> [`dump`] (parse) -> [`analyze`] (the [`model::MemoryMap`])
//! -> [`layout`] (a [`layout::Scene`] in pixels) -> [`render`] (SVG, PNG, HTML, JSON). The CLI and the
//! HTTP [`server`] are thin shells over [`load`] and [`render`].
#![forbid(unsafe_code)]

pub mod analyze;
pub mod backend;
pub mod dump;
pub mod error;
pub mod model;
pub mod render;

pub use analyze::build;
pub use dump::Dump;
pub use error::{Error, ErrorKind, Result};
pub use model::MemoryMap;

use std::path::Path;

/// Reads the dump at `path` (any form of I1) and builds its memory map.
pub fn load(path: &Path, pass_name: &str, backend: Option<&str>) -> Result<MemoryMap> {
    let dump = Dump::open(path, pass_name)?;
    let choice = backend::choose(backend, dump.path.as_deref())?;
    build(&dump, choice)
}
