//! Where a run writes and what it must not overwrite: default and `--split` names, the inputs a
//! run reads (no output may be one of them), and writing a file or standard output. Shared by
//! every command that writes, so each writes the same way.

use std::io::Write;
use std::path::{Path, PathBuf};

use pto_memory_map::error::Misuse;
use pto_memory_map::{Error, Format, Result, dump};

use super::args::InputArgs;
use super::say::say;

/// Every file a run reads: the dumps `paths` resolve to, the SoC files, and the `ptoas/*.pto` files
/// the backend may be detected from. No output may be one of them.
pub fn inputs_read(paths: &[&Path], input: &InputArgs) -> Result<Vec<PathBuf>> {
    let mut files = input.soc.clone();
    for path in paths {
        let dump = dump::resolve(path, &input.pass_name)?;
        if let Some(ptoas) = dump.parent().and_then(Path::parent).map(|case| case.join("ptoas"))
            && let Ok(entries) = std::fs::read_dir(ptoas)
        {
            files.extend(
                entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "pto")),
            );
        }
        files.push(dump);
    }
    Ok(files)
}

/// Refuses an output that is one of `inputs`, by name or through a link, a hard link or a case-folding
/// file system: the same file is the same (device, inode). Checked before anything is written.
pub fn refuse_to_overwrite(target: &Path, inputs: &[PathBuf]) -> Result<()> {
    if target == Path::new("-") {
        return Ok(());
    }
    let Ok(out) = std::fs::metadata(target) else { return Ok(()) }; // a new file cannot be an input
    for input in inputs {
        if std::fs::metadata(input).is_ok_and(|m| same_file(&m, &out)) {
            return Err(Error::misuse(Misuse::OutputIsInput {
                output: target.display().to_string(),
                input: input.display().to_string(),
                instance: false,
            }));
        }
    }
    Ok(())
}

#[cfg(unix)]
pub fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
pub fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.created().ok() == b.created().ok()
}

/// `<dump stem>.memory_map.<ext>` beside the dump.
pub fn default_output(path: &Path, pass: &str, function: Option<&str>, format: Format) -> Result<PathBuf> {
    let dump = dump::resolve(path, pass)?;
    let stem = dump.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let middle = function.map(|f| format!(".{f}")).unwrap_or_default();
    Ok(dump.with_file_name(format!("{stem}.memory_map{middle}.{}", format.extension())))
}

/// With `--split`, `-o map.svg` gives `map.<function>.svg`; without `-o`, the default name per function.
pub fn split_output(path: &Path, pass: &str, output: Option<&Path>, function: &str, format: Format) -> Result<PathBuf> {
    match output {
        Some(out) if out == Path::new("-") => Err(Error::misuse(Misuse::SplitToStdout)),
        Some(out) => {
            let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            Ok(out.with_file_name(format!("{stem}.{function}.{}", format.extension())))
        }
        None => default_output(path, pass, Some(function), format),
    }
}

/// Writes `bytes` to `target` (see [`write_with`]).
pub fn write_output(target: &Path, bytes: &[u8]) -> Result<()> {
    write_with(target, |out| out.write_all(bytes).map_err(|e| Error::io(&e)))
}

/// Writes what `write` makes to `target` as it makes it (`-`: standard output, where a reader that
/// went away ends the run quietly, as other tools do). A file is written as
/// [`pto_memory_map::output`] says: beside its final name, then renamed, so a failed run leaves no
/// half-written file; a device or FIFO is written through, never replaced.
pub fn write_with(target: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    if target == Path::new("-") {
        let mut out = Sink { out: std::io::BufWriter::new(std::io::stdout().lock()), broken: false };
        let written = write(&mut out).and_then(|()| out.flush().map_err(|e| Error::io(&e)));
        return match written {
            Err(_) if out.broken => Ok(()),
            Err(e) => Err(e.on_path(Path::new("standard output"))),
            other => other,
        };
    }
    pto_memory_map::output::write_file(target, write)?;
    say(format_args!("wrote {}", target.display()));
    Ok(())
}

/// Standard output, remembering whether its reader went away.
pub struct Sink<W: Write> {
    out: W,
    broken: bool,
}

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.out.write(buf);
        self.broken |= written.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
        written
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let flushed = self.out.flush();
        self.broken |= flushed.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
        flushed
    }
}
