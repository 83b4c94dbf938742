//! Lines on standard output and error, and `-q`. Every other file of the command line writes
//! through these, so a closed pipe and a quiet run are handled in one place.

use std::io::Write;

/// A line on standard output. A reader that went away (`| head`, `| true`) is not a failure of the
/// run, so a closed pipe is ignored rather than a panic.
pub fn say(line: std::fmt::Arguments) {
    if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(std::io::stdout(), "{line}");
    }
}

/// `-q`: nothing on standard output or error but errors. Set once, before anything is written.
pub static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A line on standard error, ignoring a closed pipe as [`say`] does.
pub fn say_err(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr(), "{line}");
}
