//! The one place that knows geometry: from a memory map and view options to a [`Scene`] in pixels.

mod options;

pub use options::{RULES, Rules, Theme, ViewOptions, XAxis};
