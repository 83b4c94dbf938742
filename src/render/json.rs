//! The memory map as JSON: the schema PyPTO's own tool embeds in its page (see README).

use serde::Serialize;

use crate::model::{Addresses, BackendChoice, Finding, FunctionMap, MemoryMap};

/// Pretty-printed, with a trailing newline, so it diffs well in review. Built no further than just
/// past the run's output limit (see [`crate::budget::json_capped`]).
pub fn render(map: &MemoryMap) -> String {
    let mut out = crate::budget::Capped::default();
    // An error is the cap (or the deadline): what was written so far is kept for the caller to
    // refuse.
    let _ = write(map, &mut out);
    // Whole JSON is UTF-8; only a cut at the output limit can end inside a character (and that
    // output is refused). Checking, not converting, keeps the common case a scan without a copy.
    String::from_utf8(out.bytes).unwrap_or_else(|cut| String::from_utf8_lossy(cut.as_bytes()).into_owned())
}

/// The map's fields before its functions, as [`MemoryMap`] serializes them.
#[derive(Serialize)]
struct Head<'a> {
    dump: &'a str,
    pass_name: &'a str,
    backend: &'a BackendChoice,
}

/// The map's fields after its functions, as [`MemoryMap`] serializes them.
#[derive(Serialize)]
struct Tail<'a> {
    findings: &'a [Finding],
    #[serde(skip_serializing_if = "assigned")]
    addresses: &'a Addresses,
    #[serde(skip_serializing_if = "none")]
    addresses_in: &'a Option<String>,
}

fn assigned(a: &&Addresses) -> bool {
    a.is_assigned()
}

fn none(a: &&Option<String>) -> bool {
    a.is_none()
}

/// Functions serialized at a time, on every core: what is held at once besides the output.
const FUNCTIONS_AT_ONCE: usize = 64;

/// The indent of a function in the report: inside the map's object and its `functions` array.
const FUNCTION_INDENT: &[u8] = b"    ";

/// The bytes of `serde_json::to_vec_pretty(map)` and a newline, written to `out` a batch of
/// functions at a time, each function serialized on a core of its own: written on one thread, and
/// gathered in memory before it was written out, the report was the last half of a 16x decode
/// case's run with the other core idle. Pretty JSON has a newline only between tokens (a string
/// holds its escaped), so a function serialized alone takes its place in the report by indenting
/// each of its lines; `tests/json.rs` holds the two equal. Stops at the first error of `out`, or
/// past the run's deadline (an error; the run's next checkpoint says which).
pub fn write(map: &MemoryMap, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let cut = || std::io::Error::other("over the output limit or past the deadline");
    let head = crate::budget::json_capped(&Head { dump: &map.dump, pass_name: &map.pass_name, backend: &map.backend });
    let tail = crate::budget::json_capped(&Tail {
        findings: &map.findings,
        addresses: &map.addresses,
        addresses_in: &map.addresses_in,
    });
    // `{` ... `\n}\n` each: the head less its close, the tail less its open.
    let (Some(head), Some(tail)) = (head.strip_suffix(b"\n}\n"), tail.strip_prefix(b"{")) else {
        return Err(cut());
    };
    out.write_all(head)?;
    out.write_all(b",\n  \"functions\": [")?;
    for (batch, functions) in map.functions.chunks(FUNCTIONS_AT_ONCE).enumerate() {
        let pieces = crate::par::map_ref_heavy_first(functions, |f| f.blocks.len(), function_json);
        if crate::budget::expired() {
            return Err(cut());
        }
        for (i, piece) in pieces.into_iter().enumerate() {
            out.write_all(if batch == 0 && i == 0 { b"\n" } else { b",\n" })?;
            out.write_all(FUNCTION_INDENT)?;
            out.write_all(&piece.ok_or_else(cut)?)?;
        }
    }
    out.write_all(if map.functions.is_empty() { b"]," } else { b"\n  ]," })?;
    out.write_all(tail)
}

/// A function's pretty JSON, each line after the first indented to its place in the report; `None`
/// where it was cut at the output limit.
fn function_json(f: &FunctionMap) -> Option<Vec<u8>> {
    let alone = crate::budget::json_capped(f);
    let alone = alone.strip_suffix(b"\n")?;
    let mut out = Vec::with_capacity(alone.len() + alone.len() / 8);
    for (i, line) in alone.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
            out.extend_from_slice(FUNCTION_INDENT);
        }
        out.extend_from_slice(line);
    }
    Some(out)
}
