//! Writing an output file so that a failed run never leaves half of one, and never replaces what is
//! not a regular file.
//!
//! A regular file is written beside its final name and then takes it (see [`replace`]): a reader,
//! or a full disk, sees the old file or the new one. What is not a regular file is the user's to
//! keep: a symbolic link is followed and its target written; a character or block device or a FIFO
//! (`/dev/null`, `/dev/stdout`, a named pipe) is written through, as a shell's redirection would;
//! a socket or a folder is refused. Renaming a file over `/dev/null`, as root, turns the device into
//! a file for every other program on the machine.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, FileOp, FileProblem, Result};

/// What a path names, for writing.
enum Target {
    /// A regular file, or nothing yet: written beside, then renamed into place.
    File(PathBuf),
    /// A device or FIFO: written through, opened as it is.
    Through(PathBuf),
}

/// Symbolic links followed before giving up on a loop (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Where writing `target` should go, following symbolic links (even dangling ones: the file they
/// name is created), and how.
fn resolve(target: &Path) -> Result<Target> {
    let cannot = |problem: FileProblem| Error::file_problem(ErrorKind::Io, target, FileOp::Write, problem);
    let io = |e: std::io::Error| Error::file(Some(target), FileOp::Write, &e);
    // What the name leads to, through any links (`/dev/stdout` leads through /proc to a pipe, a
    // terminal or a file, whose link text need not be a path).
    if let Ok(meta) = std::fs::metadata(target) {
        if meta.is_file() {
            let real = std::fs::canonicalize(target).map_err(io)?;
            return Ok(Target::File(real));
        }
        if meta.is_dir() {
            return Err(cannot(FileProblem::IsFolder));
        }
        if is_socket(&meta) {
            return Err(cannot(FileProblem::IsSocket));
        }
        return Ok(Target::Through(target.to_path_buf()));
    }
    // Nothing there yet, or a link to nothing: the file is made where the last link points.
    let mut path = target.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&path).map_err(io)?;
                // A relative link is relative to the folder that holds it.
                path = match path.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(Target::File(path)),
        }
    }
    Err(cannot(FileProblem::LinkLoop))
}

#[cfg(unix)]
fn is_socket(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_socket()
}

#[cfg(not(unix))]
fn is_socket(_: &std::fs::Metadata) -> bool {
    false
}

/// Writes what `write` makes to the file `target` as it makes it (see the module's words on what
/// is written how). An error of `write` or of the disk leaves the old file, if any, as it was, and
/// no file beside it. Errors name `target`.
pub fn write_file(target: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let cannot = |e: std::io::Error| Error::file(Some(target), FileOp::Write, &e);
    // A write error of `write`'s own names no file: this is the file it was writing.
    let in_io = |e: Error| e.on_path(target);
    let path = match resolve(target)? {
        Target::Through(path) => {
            let file = std::fs::OpenOptions::new().write(true).open(&path).map_err(cannot)?;
            let mut out = std::io::BufWriter::with_capacity(64 << 10, file);
            write(&mut out).map_err(in_io)?;
            return out.flush().map_err(cannot);
        }
        Target::File(path) => path,
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let refuse = |problem: FileProblem| Error::file_problem(ErrorKind::Io, target, FileOp::Write, problem);
    let name = path.file_name().ok_or_else(|| refuse(FileProblem::NoFileName))?;
    if !dir.is_dir() {
        // The system's "No such file or directory" would not say which: the folder is missing.
        return Err(refuse(FileProblem::NoFolder { folder: dir.display().to_string(), exists: dir.exists() }));
    }
    let temp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    sweep_stale(dir, &name.to_string_lossy());
    let written = (|| {
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp);
        let mut out = std::io::BufWriter::with_capacity(64 << 10, file.map_err(cannot)?);
        write(&mut out).map_err(in_io)?;
        // Not synced to disk: a render can be run again, and the sync cost a small dump 7% of
        // its time. The rename still means a reader never sees half a file.
        drop(out.into_inner().map_err(|e| cannot(e.into_error()))?);
        replace(&temp, &path).map_err(cannot)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// How long a stale temporary file must have been left untouched before it is removed: a writer
/// that is still running (on another machine sharing the folder, whose process ids this one cannot
/// see) touches its file far more often.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes what an earlier run killed mid-write left beside `name` in `dir`: its `.NAME.PID.tmp`,
/// half a new output and never a user's file, once that process is gone (Linux: no `/proc/PID`)
/// and the file has been idle for [`STALE_AFTER`]. The `.old` name of a run killed while swapping
/// files may hold the previous output, so it is never removed. Anything that goes wrong here is
/// only clutter left: it is not an error.
fn sweep_stale(dir: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return; // No way to tell a dead process from a live one here.
    }
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| f.strip_prefix(&prefix)).and_then(|f| f.strip_suffix(".tmp")) else {
            continue;
        };
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) || pid == std::process::id().to_string() {
            continue;
        }
        let idle = entry
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if idle && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// [`write_file`] of bytes already made.
pub fn write_bytes(target: &Path, bytes: &[u8]) -> Result<()> {
    write_file(target, |out| out.write_all(bytes).map_err(|e| Error::io(&e)))
}

/// Puts the finished `temp` in `target`'s place. An old file there is moved aside first and
/// removed after: renamed over, ext4 would start writing the new file out before the rename
/// returns (its guard for files replaced without a sync), which took a small page's run a
/// millisecond. A reader sees the old file, the new one, or for a moment none; never half of one
/// while the machine stays up. Without that guard (and without a sync, see [`write_file`]) a
/// power loss in the next half-minute may leave the new output empty or cut short: run it again.
/// Should the new name not take, the old file goes back, unless something else took its name
/// meanwhile; then the error says where it was kept. Something other than a regular file that
/// appeared at `target` since it was looked at is never renamed over.
pub fn replace(temp: &Path, target: &Path) -> std::io::Result<()> {
    let now = std::fs::symlink_metadata(target).ok();
    if now.as_ref().is_some_and(|m| !m.is_file()) {
        return Err(std::io::Error::other("it is no longer a regular file; nothing was written to it"));
    }
    let aside = temp.with_extension("old");
    // The aside name has this process's id; a file left there by an earlier process is not ours
    // to replace, so the old output is then renamed over as it would be without this.
    let moved = std::fs::symlink_metadata(&aside).is_err() && now.is_some() && std::fs::rename(target, &aside).is_ok();
    if let Err(e) = std::fs::rename(temp, target) {
        if moved {
            // A link never replaces a file: a newer output that took the name stays.
            if std::fs::hard_link(&aside, target).is_err() {
                return Err(std::io::Error::new(e.kind(), format!("{e}; the old file is kept as {}", aside.display())));
            }
            let _ = std::fs::remove_file(&aside);
        }
        return Err(e);
    }
    if moved {
        // The new file is in place; an old one that cannot be removed is only clutter.
        let _ = std::fs::remove_file(&aside);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder holding an old output, `map.svg` ("old"), and the name of a new one beside
    /// it, as [`write_file`] names it.
    fn old_output(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("pmm-replace-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (temp, target) = (dir.join(".map.svg.1.tmp"), dir.join("map.svg"));
        std::fs::write(&target, "old").unwrap();
        (dir, temp, target)
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_new_file_takes_an_old_ones_place_or_the_old_one_goes_back() {
        let (dir, temp, target) = old_output("ok");
        std::fs::write(&temp, "new").unwrap();
        replace(&temp, &target).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(&dir), ["map.svg"], "nothing is left aside");
        // No file at `temp` now: the rename into place fails after the old file was moved aside.
        assert!(replace(&temp, &target).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(&dir), ["map.svg"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_already_at_the_aside_name_is_left_alone() {
        let (dir, temp, target) = old_output("taken");
        std::fs::write(dir.join(".map.svg.1.old"), "someone else's").unwrap();
        std::fs::write(&temp, "new").unwrap();
        replace(&temp, &target).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(dir.join(".map.svg.1.old")).unwrap(), "someone else's");
        // And when the new file cannot take the name, the old output stays where it was.
        assert!(replace(&temp, &target).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_writing_leaves_the_old_file_and_nothing_beside_it() {
        let (dir, _, target) = old_output("fails");
        let err = write_file(&target, |out| {
            out.write_all(&[b'x'; 100_000]).unwrap();
            Err(Error::io(&std::io::Error::new(std::io::ErrorKind::StorageFull, "the disk is full")))
        })
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Io);
        assert!(err.to_string().contains("map.svg: cannot write: the disk is full"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(names(&dir), ["map.svg"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_and_its_target_written() {
        let (dir, _, target) = old_output("link");
        let link = dir.join("link.svg");
        std::os::unix::fs::symlink("map.svg", &link).unwrap();
        write_bytes(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A dangling link: the file it names is made.
        let dangling = dir.join("dangling.svg");
        std::os::unix::fs::symlink("made.svg", &dangling).unwrap();
        write_bytes(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("made.svg")).unwrap(), "made");
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        // A loop of links is refused.
        std::os::unix::fs::symlink("b", dir.join("a")).unwrap();
        std::os::unix::fs::symlink("a", dir.join("b")).unwrap();
        assert!(write_bytes(&dir.join("a"), b"x").unwrap_err().to_string().contains("symbolic links"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_through_and_stays_a_device() {
        use std::os::unix::fs::FileTypeExt;
        if !std::fs::metadata("/dev/null").is_ok_and(|m| m.file_type().is_char_device()) {
            // Something else on this machine already made it a file: nothing to test here.
            eprintln!("note: /dev/null is not a device here; the device test is skipped");
            return;
        }
        write_bytes(Path::new("/dev/null"), b"into the void").unwrap();
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        let names: Vec<String> = names(Path::new("/dev"));
        assert!(!names.iter().any(|n| n.starts_with(".null.")), "nothing was left beside it");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn what_a_killed_run_left_is_swept_and_nothing_else() {
        let (dir, _, target) = old_output("stale");
        // A process id no process has: Linux's ids stay below 2^22.
        let dead = dir.join(".map.svg.4999999.tmp");
        let live = dir.join(format!(".map.svg.{}.tmp", std::os::unix::process::parent_id()));
        let fresh = dir.join(".map.svg.4999998.tmp");
        let aside = dir.join(".map.svg.4999997.old");
        let other = dir.join(".other.svg.4999999.tmp");
        let long_ago = std::time::SystemTime::now() - 2 * STALE_AFTER;
        for (path, age) in [
            (&dead, Some(long_ago)),
            (&live, Some(long_ago)),
            (&fresh, None),
            (&aside, Some(long_ago)),
            (&other, Some(long_ago)),
        ] {
            let file = std::fs::File::create(path).unwrap();
            if let Some(t) = age {
                file.set_modified(t).unwrap();
            }
        }
        write_bytes(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let left = names(&dir);
        assert!(!left.contains(&".map.svg.4999999.tmp".to_string()), "the dead run's file goes: {left:?}");
        for kept in [&live, &fresh, &aside, &other] {
            let kept = kept.file_name().unwrap().to_string_lossy().into_owned();
            assert!(left.contains(&kept), "{kept} stays: {left:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_folder_is_named_with_the_way_out() {
        let target = std::env::temp_dir().join(format!("pmm-nosuchdir-{}", std::process::id())).join("x.svg");
        let err = write_bytes(&target, b"x").unwrap_err();
        let dir = target.parent().unwrap().display().to_string();
        assert!(err.to_string().contains(&format!("the folder {dir} does not exist")), "{err}");
        assert!(err.to_string().contains(&format!("mkdir -p {dir}")), "{err}");
    }

    /// A file is made as any other program makes one: read and write for all, less the umask, so a
    /// map written for a web server is readable by it when the umask allows. Compared with a file
    /// the standard library creates beside it (the umask cannot be read without unsafe code).
    #[cfg(unix)]
    #[test]
    fn a_new_file_honours_the_umask_and_a_replaced_one_too() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, _, target) = old_output("mode");
        let made = dir.join("by-std");
        std::fs::File::create(&made).unwrap();
        let expected = std::fs::metadata(&made).unwrap().permissions().mode() & 0o777;
        assert_ne!(expected & 0o044, 0, "this test needs a umask that lets others read, as 022 does");
        let new = dir.join("new.svg");
        write_bytes(&new, b"new").unwrap();
        assert_eq!(std::fs::metadata(&new).unwrap().permissions().mode() & 0o777, expected);
        write_bytes(&target, b"replaced").unwrap();
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = std::env::temp_dir();
        assert!(write_bytes(&dir, b"x").unwrap_err().to_string().contains("it is a folder"));
    }
}
