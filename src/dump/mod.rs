//! Reading pass dumps: finding the file, checking it is text, and walking its syntax tree.

mod access;
mod annotation;
mod flow;
mod function;
mod guard;
mod parse;
mod resolve;
mod walk;

pub use function::ParsedFunction;
pub use parse::parse;
pub(crate) use parse::worth_spreading;
pub use resolve::{DEFAULT_PASS, resolve};

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, FileOp, FileProblem, Result};

/// The text of one dump, with the name it is reported under.
#[derive(Debug, Clone)]
pub struct Dump {
    /// Where it was read from; `None` for a dump posted to the service.
    pub path: Option<PathBuf>,
    /// The file name, used in messages and in the output (`32_after_AllocateMemoryAddr.py`).
    pub name: String,
    /// The dump's whole text, shared with the map's function sources.
    pub text: std::sync::Arc<String>,
}

impl Dump {
    /// Resolves `path` (a file, a `passes_dump/` folder or a case folder) and reads the dump.
    pub fn open(path: &Path, pass_name: &str) -> Result<Dump> {
        let file = resolve(path, pass_name)?;
        let bytes = read_file(&file, MAX_DUMP_BYTES, "the dump")?;
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut dump = Dump::from_bytes(&file.display().to_string(), bytes)?;
        dump.name = name;
        dump.path = Some(file);
        Ok(dump)
    }

    /// Takes bytes from anywhere (a request body); `name` is used in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Dump> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Dump { path: None, name: name.to_string(), text: std::sync::Arc::new(text) }),
            Err(err) => {
                let bytes = err.as_bytes();
                let at = err.utf8_error().valid_up_to();
                let (line, column) = line_col(&bytes[..at]);
                Err(Error::at(
                    ErrorKind::Unreadable,
                    crate::error::Location { file: name.to_string(), line, column },
                    format!(
                        "not UTF-8 text (byte 0x{:02x}); a pass dump is the Python \
                         text PyPTO writes to passes_dump/NN_after_<Pass>.py: pass that file",
                        bytes[at]
                    ),
                ))
            }
        }
    }

    /// The name messages use: the path when there is one.
    pub fn display_name(&self) -> String {
        match &self.path {
            Some(p) => p.display().to_string(),
            None => self.name.clone(),
        }
    }
}

/// The largest dump read from disk: a hundred times the largest real one (481 KB), and more than the
/// service's default body limit.
pub const MAX_DUMP_BYTES: u64 = 128 * 1024 * 1024;

/// Reads `path`, which must be a regular file (after links) of at most `limit` bytes: what every input
/// file goes through, dumps and SoC files alike, so `/dev/zero`, a FIFO or a folder is refused with a
/// message instead of read until memory runs out. `what` names the file in messages.
pub fn read_file(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>> {
    use std::io::Read;
    let op = FileOp::Read(what);
    let cannot = |e: std::io::Error| Error::file(Some(path), op, &e);
    let refuse = |kind: ErrorKind, problem: FileProblem| Error::file_problem(kind, path, op, problem);
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(refuse(ErrorKind::Unreadable, FileProblem::NotRegular));
    }
    let too_large = || refuse(ErrorKind::OverLimit, FileProblem::TooLarge { limit });
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path).map_err(cannot)?.take(limit + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(too_large()); // it grew while being read
    }
    Ok(bytes)
}

/// `32_after_AllocateMemoryAddr.py` gives `AllocateMemoryAddr`; other names lose only `.py`.
pub fn pass_name_of(file_name: &str) -> String {
    let stem = file_name.strip_suffix(".py").unwrap_or(file_name);
    match stem.split_once("_after_") {
        Some((num, pass)) if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) => pass.to_string(),
        _ => stem.to_string(),
    }
}

/// 1-based line and column (in characters) of the end of `prefix`, which must be valid UTF-8.
pub(crate) fn line_col(prefix: &[u8]) -> (usize, usize) {
    let line_start = prefix.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = String::from_utf8_lossy(&prefix[line_start..]).chars().count() + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_names() {
        assert_eq!(pass_name_of("32_after_AllocateMemoryAddr.py"), "AllocateMemoryAddr");
        assert_eq!(pass_name_of("vllm_ascend_norm_rope.py"), "vllm_ascend_norm_rope");
    }

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let err = read_file(Path::new("/dev/zero"), 1024, "the SoC file").unwrap_err();
        assert!(err.to_string().contains("must be a regular file"), "{err}");
        let err = read_file(Path::new("."), 1024, "the dump").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unreadable);
        let file = std::env::temp_dir().join(format!("pto-mm-read-{}", std::process::id()));
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_file(&file, 10, "x").unwrap(), b"0123456789");
        let err = read_file(&file, 9, "the dump").unwrap_err();
        assert_eq!(err.kind, ErrorKind::OverLimit);
        std::fs::remove_file(&file).unwrap();
    }

    #[test]
    fn non_utf8_names_the_place() {
        let err = Dump::from_bytes("d.py", b"x = 1\nab\xffc\n".to_vec()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unreadable);
        assert!(err.to_string().starts_with("d.py:2:3: not UTF-8"), "{err}");
    }
}
