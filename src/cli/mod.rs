//! The command line's parts, one file each, used one way: `args` (what clap reads) and `say`
//! (standard output and error) at the bottom, then `usage` (a command line gotten wrong) and
//! `output` (where a run writes), then `render` (the default drawing) and `commands` (the
//! subcommands). `main.rs` only parses and dispatches.

pub mod args;
pub mod commands;
pub mod output;
pub mod render;
pub mod say;
pub mod usage;
