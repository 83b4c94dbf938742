//! Output files under attack, through the built binary: `-o` at what is not a regular file (a device,
//! a FIFO, a symbolic link) is written through or followed, never replaced, and a site of pages on a
//! full disk holds whole pages or none.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::TempDir;

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(args).output().expect("binary runs")
}

fn dump() -> PathBuf {
    common::fixtures().join("fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py")
}

fn draw_to(target: &Path, format: &str) -> Output {
    run(&[dump().as_os_str(), "-q".as_ref(), "-f".as_ref(), format.as_ref(), "-o".as_ref(), target.as_os_str()])
}

#[cfg(unix)]
#[test]
fn dev_null_stays_a_device() {
    use std::os::unix::fs::FileTypeExt;
    if !std::fs::metadata("/dev/null").is_ok_and(|m| m.file_type().is_char_device()) {
        // Something else on this machine already made it a file: nothing to test here.
        common::skipped("/dev/null is not a device here");
        return;
    }
    let out = draw_to(Path::new("/dev/null"), "svg");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device(), "/dev/null is still a device");
}

#[cfg(unix)]
#[test]
fn dev_stdout_writes_to_standard_output() {
    let out = draw_to(Path::new("/dev/stdout"), "svg");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.starts_with(b"<svg") || out.stdout.starts_with(b"<?xml"), "the picture went to the pipe");
}

#[cfg(unix)]
#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let dir = TempDir::new("fifo");
    let fifo = dir.0.join("pipe.svg");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        common::skipped("no mkfifo here");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = Vec::new();
            std::fs::File::open(&fifo).unwrap().read_to_end(&mut text).unwrap();
            text
        })
    };
    let out = draw_to(&fifo, "svg");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = reader.join().unwrap();
    assert!(text.len() > 1000 && text.ends_with(b"</svg>\n"), "{} bytes through the FIFO", text.len());
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
}

#[cfg(unix)]
#[test]
fn a_link_is_followed_not_replaced() {
    let dir = TempDir::new("link");
    let (real, link) = (dir.0.join("real.svg"), dir.0.join("link.svg"));
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink("real.svg", &link).unwrap();
    let out = draw_to(&link, "svg");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is still a link");
    assert!(std::fs::read_to_string(&real).unwrap().ends_with("</svg>\n"), "its target has the picture");
}

#[cfg(unix)]
#[test]
fn a_socket_is_refused() {
    let dir = TempDir::new("socket");
    let path = dir.0.join("sock.svg");
    let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let out = draw_to(&path, "svg");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sock.svg: cannot write: it is a socket"), "{err}");
}

/// Mounts a tmpfs of `kb` KiB at `dir`, if this process may (root in a container usually may).
fn tiny_disk(dir: &Path, kb: usize) -> bool {
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={kb}k"), "tmpfs"])
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_site_on_a_full_disk_holds_whole_pages_or_none() {
    let dir = TempDir::new("full");
    let (tree, site) = (dir.0.join("tree"), dir.0.join("site"));
    for i in 0..4 {
        let to = tree.join(format!("case{i}/passes_dump"));
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(dump(), to.join("35_after_AllocateMemoryAddr.py")).unwrap();
    }
    std::fs::create_dir_all(&site).unwrap();
    // Room for about two and a half pages of SVG.
    let page = run(&[dump().as_os_str(), "-q".as_ref(), "-f".as_ref(), "svg".as_ref(), "-o".as_ref(), "-".as_ref()]);
    let kb = page.stdout.len() * 5 / 2 / 1024;
    if !tiny_disk(&site, kb) {
        common::skipped("cannot mount a tmpfs here (not root?)");
        return;
    }
    let out = run(&[tree.as_os_str(), "-f".as_ref(), "svg".as_ref(), "-o".as_ref(), site.as_os_str()]);
    let names: Vec<(String, Vec<u8>)> = std::fs::read_dir(&site)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    let _ = Command::new("umount").arg(&site).status();
    assert!(!out.status.success(), "the disk was full: {}", String::from_utf8_lossy(&out.stdout));
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("No space left on device"), "{said}");
    let pages: Vec<&(String, Vec<u8>)> = names.iter().filter(|(n, _)| n.ends_with(".svg")).collect();
    assert!(
        !pages.is_empty() && pages.len() < 4,
        "some pages fit, not all: {:?}",
        names.iter().map(|n| &n.0).collect::<Vec<_>>()
    );
    for (name, bytes) in &pages {
        // A page cut short by the full disk would end anywhere; a whole one ends as a picture does.
        assert!(
            bytes.len() > page.stdout.len() / 2 && bytes.ends_with(b"</svg>\n"),
            "{name} is cut: {} bytes",
            bytes.len()
        );
    }
    assert!(
        names.iter().all(|(n, _)| !n.starts_with('.')),
        "nothing left beside: {:?}",
        names.iter().map(|n| &n.0).collect::<Vec<_>>()
    );
}
