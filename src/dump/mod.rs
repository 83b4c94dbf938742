//! Reading pass dumps: finding the file (I1), checking it is text, and walking its syntax tree.

mod guard;
mod parse;
mod resolve;

pub use parse::{ParsedFunction, parse};
pub use resolve::{DEFAULT_PASS, resolve};

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};

/// The text of one dump, with the name it is reported under.
#[derive(Debug, Clone)]
pub struct Dump {
    /// Where it was read from; `None` for a dump posted to the service.
    pub path: Option<PathBuf>,
    /// The file name, used in messages and in the output (`32_after_AllocateMemoryAddr.py`).
    pub name: String,
    /// The dump's whole text.
    pub text: String,
}

impl Dump {
    /// Resolves `path` (a file, a `passes_dump/` folder or a case folder) and reads the dump.
    pub fn open(path: &Path, pass_name: &str) -> Result<Dump> {
        let file = resolve(path, pass_name)?;
        let bytes = std::fs::read(&file)
            .map_err(|e| Error::new(ErrorKind::Io, format!("{}: cannot read: {e}", file.display())))?;
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut dump = Dump::from_bytes(&file.display().to_string(), bytes)?;
        dump.name = name;
        dump.path = Some(file);
        Ok(dump)
    }

    /// Takes bytes from anywhere (a request body); `name` is used in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Result<Dump> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Dump { path: None, name: name.to_string(), text }),
            Err(err) => {
                let bytes = err.as_bytes();
                let at = err.utf8_error().valid_up_to();
                let (line, col) = line_col(&bytes[..at]);
                Err(Error::new(
                    ErrorKind::Unreadable,
                    format!(
                        "{name}:{line}:{col}: not UTF-8 text (byte 0x{:02x}); a pass dump is the Python \
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
    fn non_utf8_names_the_place() {
        let err = Dump::from_bytes("d.py", b"x = 1\nab\xffc\n".to_vec()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unreadable);
        assert!(err.message.starts_with("d.py:2:3: not UTF-8"), "{err}");
    }
}
