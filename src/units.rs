//! Bytes for people and from people: the ground floor every other module may use, and which uses
//! nothing of the crate but its error type.
//!
//! KB and MB are 1024-based, as in PyPTO's own page, so a figure reads the same in both tools.

use crate::error::{Error, Result};

/// The largest magnitude a MemRef offset or size (or a SoC capacity) may have: 1 TiB, far beyond any
/// on-chip memory, and small enough that sums over a whole dump cannot overflow. Larger values are
/// refused where they enter, so the analysis and the layout never have to guard their arithmetic.
pub const MAX_BYTES: i64 = 1 << 40;

/// The plural ending of a count's noun: `s`, but for one.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `512 B`, `24 KB`, `40.1 KB`, `1.5 MB`.
pub fn fmt_bytes(n: i64) -> String {
    let a = n.unsigned_abs() as f64;
    let sign = if n < 0 { "-" } else { "" };
    if a < 1024.0 {
        format!("{n} B")
    } else if a < 1024.0 * 1024.0 {
        format!("{sign}{} KB", fmt_num(a / 1024.0))
    } else {
        format!("{sign}{} MB", fmt_num(a / (1024.0 * 1024.0)))
    }
}

/// A change in bytes: `+12 KB`, `−512 B`, `±0 B`.
pub fn signed_bytes(delta: i64) -> String {
    let sign = match delta.signum() {
        1 => "+",
        -1 => "−",
        _ => "±",
    };
    format!("{sign}{}", fmt_bytes(delta.abs()))
}

/// One decimal, without a trailing `.0`.
pub fn fmt_num(v: f64) -> String {
    // Every box's size and tooltip goes through here, and `{:.1}` takes the exact (slow) path for
    // most binary fractions. Away from a tie, rounding the tenths gives the same digits.
    let tenths = v * 10.0;
    if (0.0..1e15).contains(&tenths) && (tenths.fract() - 0.5).abs() > 1e-6 {
        let t = tenths.round() as u64;
        return if t.is_multiple_of(10) { (t / 10).to_string() } else { format!("{}.{}", t / 10, t % 10) };
    }
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// `98304`, `96K`, `96KB`, `96KiB`, `1MB` (case-insensitive units); `None` for anything else, or
/// for a value that does not fit an `i64`.
pub fn parse_bytes(s: &str) -> Option<i64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: i64 = num.parse().ok()?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// `SPACE=BYTES` (`Vec=96KB`), as `--max-hwm` takes it; `what` names the option in the message.
/// The space is returned as written: whether the map knows it is the caller's question.
pub fn parse_space_bytes(s: &str, what: &'static str) -> Result<(String, i64)> {
    parse_space_limit(s, what, 1)
}

/// `SPACE=BYTES` with at least `least` bytes: `--max-waste Vec=0` (no waste at all) is a limit,
/// where a high-water mark of 0 is not.
pub fn parse_space_limit(s: &str, what: &'static str, least: i64) -> Result<(String, i64)> {
    let bad = || Error::bad_value(what, s, "SPACE=BYTES, for example Vec=96KB");
    let (space, bytes) = s.split_once('=').ok_or_else(bad)?;
    let space = space.trim();
    let bytes = parse_bytes(bytes).filter(|&b| b >= least).ok_or_else(bad)?;
    if space.is_empty() {
        return Err(bad());
    }
    Ok((space.to_string(), bytes))
}

/// Text for a URL: every byte but RFC 3986's unreserved characters (and those in `keep`, such as
/// `/` for a path) percent-encoded. Links to stored maps, a site's pages and SARIF locations use it.
pub fn percent_encode(s: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || keep.contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The longest start of `value` of at most `bytes` bytes that ends on a character boundary.
pub fn truncated(value: &str, bytes: usize) -> &str {
    let mut end = bytes.min(value.len());
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    &value[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_decimal_as_the_standard_formatter_rounds_it() {
        let slow = |v: f64| {
            let s = format!("{v:.1}");
            s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
        };
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut values = vec![0.0, 0.04, 0.05, 0.25, 0.35, 1.95, 40.099609375, 99.95, 1023.96, 1e14, -0.04, -2.25];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bytes = (x % (1 << 40)) as f64;
            values.extend([bytes / 1024.0, bytes / 1_048_576.0, (x % 100_000) as f64 / 1000.0]);
        }
        for v in values {
            assert_eq!(fmt_num(v), slow(v), "{v}");
        }
    }

    #[test]
    fn bytes_read_like_pypto_s_pills() {
        assert_eq!(fmt_bytes(24576), "24 KB");
        assert_eq!(fmt_bytes(41062), "40.1 KB");
        assert_eq!(fmt_bytes(512), "512 B");
        assert_eq!(fmt_bytes(188_416), "184 KB");
        assert_eq!(fmt_bytes(2 * 1024 * 1024), "2 MB");
        assert_eq!(fmt_bytes(-2048), "-2 KB");
    }

    #[test]
    fn signed_bytes_marks_the_direction() {
        assert_eq!(signed_bytes(12 * 1024), "+12 KB");
        assert_eq!(signed_bytes(-512), "−512 B");
        assert_eq!(signed_bytes(0), "±0 B");
    }

    #[test]
    fn bytes_parse_with_1024_based_units() {
        assert_eq!(parse_bytes("98304"), Some(98304));
        assert_eq!(parse_bytes("96KB"), Some(96 * 1024));
        assert_eq!(parse_bytes("96 kib"), Some(96 * 1024));
        assert_eq!(parse_bytes("1M"), Some(1 << 20));
        assert_eq!(parse_bytes("1GB"), None);
        assert_eq!(parse_bytes("-1"), None);
        assert_eq!(parse_bytes("99999999999999999999"), None);
        assert_eq!(parse_space_bytes("Vec=96KB", "--max-hwm").unwrap(), ("Vec".to_string(), 98304));
        assert!(parse_space_bytes("Vec96KB", "--max-hwm").is_err());
        assert!(parse_space_bytes("=1KB", "--max-hwm").is_err());
        assert!(parse_space_bytes("Vec=0", "--max-hwm").is_err());
        assert_eq!(parse_space_limit("Vec=0", "--max-waste", 0).unwrap(), ("Vec".to_string(), 0));
        assert!(parse_space_limit("Vec=-1", "--max-waste", 0).is_err());
    }
}
