//! The memory map as a plain-text report: the overview of every function, the findings, and per
//! function each space's figures and what holds it at its peak.
//!
//! It does the job of the `report/memory_after_<Pass>.txt` PyPTO used to write. Every row is aligned
//! and carries its function's name, so `grep NAME` gives all of one function and `grep '^error'`
//! all the errors.

use crate::findings::{self, counts, counts_text};
use crate::model::{Finding, FunctionMap, MemoryMap, Severity, SpaceUsage, pipe_name, space_rank};
use crate::units::fmt_bytes;

/// The whole report, with a trailing newline.
pub fn render(map: &MemoryMap) -> String {
    let mut out = String::new();
    header(map, &mut out);
    overview(map, &mut out);
    findings_section(&map.findings, &mut out);
    for f in &map.functions {
        if crate::budget::output_done(out.len()) {
            break; // refused by the output's writer, or by the run's next checkpoint
        }
        function(f, &mut out);
    }
    visible_controls(out)
}

/// `text` with every control character but newline and tab written as `\xNN`: a report is read in
/// terminals, where an ESC from a dump's name would start an escape sequence (retitle the window,
/// rewrite the screen) and a BEL ring. Only the report's own newlines and tabs are control
/// characters it means; the rest came from the input.
pub fn visible_controls(text: String) -> String {
    let control = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(control) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if control(c) {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn header(map: &MemoryMap, out: &mut String) {
    let b = &map.backend;
    out.push_str(&format!("memory map of {} (pass {})\n", map.dump, map.pass_name));
    out.push_str(&format!("backend {} (arch {}), {}\n", b.name, b.arch, b.source.as_str()));
    let n = map.functions.len();
    out.push_str(&format!(
        "{n} function{}, {} boxes; findings: {}\n",
        if n == 1 { "" } else { "s" },
        map.block_count(),
        counts_text(&map.findings)
    ));
}

/// Occupancy in percent of the capacity (the limit); 0 where the capacity is unknown (the backend
/// does not describe the space), which no ordering then ranks as full.
pub fn occupancy(s: &SpaceUsage) -> f64 {
    s.occupancy() * 100.0
}

/// A space's occupancy as the report writes it: `13.0%`, or `capacity unknown`.
fn occupancy_text(s: &SpaceUsage) -> String {
    if s.described { format!("{:.1}%", occupancy(s)) } else { "capacity unknown".into() }
}

/// The fullest space of `f`, as a percentage.
pub fn worst(f: &FunctionMap) -> f64 {
    f.worst_occupancy()
}

fn overview(map: &MemoryMap, out: &mut String) {
    let mut spaces: Vec<&str> = map.functions.iter().flat_map(|f| &f.spaces).map(|s| s.space.as_str()).collect();
    spaces.sort_by_key(|s| space_rank(s));
    spaces.dedup();
    let order = crate::plan::overview::worst_first(map);
    let mut head = vec!["function".to_string(), "type".into(), "worst".into()];
    head.extend(spaces.iter().map(|s| s.to_string()));
    head.extend(["could pack".into(), "errors".into(), "warnings".into(), "notes".into()]);
    let mut rows = vec![head];
    for f in order {
        let mut row = vec![f.name.clone(), f.ftype.clone(), format!("{:.1}%", worst(f))];
        for space in &spaces {
            row.push(f.spaces.iter().find(|s| s.space == *space).map_or("-".into(), occupancy_text));
        }
        row.push(crate::plan::overview::could_pack(f).map_or("-".into(), |(text, _)| text));
        let mine: Vec<Finding> =
            map.findings.iter().filter(|x| x.function.as_deref() == Some(&f.name)).cloned().collect();
        let (e, w, n) = counts(&mine);
        row.extend([e.to_string(), w.to_string(), n.to_string()]);
        rows.push(row);
    }
    section(
        "OVERVIEW (occupancy = high-water mark / capacity; could pack = the space whose high-water mark is the \
         most above a packing of the same tiles; worst first: errors, warnings, occupancy)",
        out,
    );
    table(&rows, 2, out);
}

fn findings_section(all: &[Finding], out: &mut String) {
    section("FINDINGS (pto-memory-map explain CODE says more)", out);
    if all.is_empty() {
        out.push_str("none\n");
        return;
    }
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|x| {
            vec![
                x.severity.as_str().to_string(),
                x.code.clone(),
                x.function.clone().unwrap_or_else(|| "-".into()),
                x.space.clone().unwrap_or_else(|| "-".into()),
                x.line.map_or("-".into(), |l| format!("L{l}")),
                x.message.clone(),
            ]
        })
        .collect();
    table(&rows, 0, out);
    out.push('\n');
    let mut codes: Vec<&str> = all.iter().map(|x| x.code.as_str()).collect();
    codes.sort_by_key(|c| (findings::info(c).map_or(Severity::Note, |i| i.severity), *c));
    codes.dedup();
    for code in codes {
        if let Some(info) = findings::info(code) {
            out.push_str(&format!("to do for {code}: {}\n", info.remedy));
        }
    }
}

fn function(f: &FunctionMap, out: &mut String) {
    section(&format!("FUNCTION {} ({}, L{}-L{})", f.name, f.ftype, f.src_start, f.src_end), out);
    let mut rows = vec![
        [
            "function",
            "space",
            "hwm",
            "limit",
            "occupancy",
            "peak",
            "peak line",
            "headroom",
            "largest free",
            "tiles",
            "bases",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for s in &f.spaces {
        rows.push(vec![
            f.name.clone(),
            s.space.clone(),
            fmt_bytes(s.hwm),
            if s.described { fmt_bytes(s.limit) } else { "unknown".into() },
            occupancy_text(s),
            fmt_bytes(s.peak.bytes),
            format!("L{}", s.peak.line),
            if s.described { fmt_bytes(s.headroom) } else { "-".into() },
            if s.described {
                format!("{} at {}", fmt_bytes(s.largest_free.size), s.largest_free.offset)
            } else {
                "-".into()
            },
            s.tiles.to_string(),
            s.bases.to_string(),
        ]);
    }
    table(&rows, 2, out);
    packing(f, out);
    handovers(f, out);
    out.push('\n');
    let mut rows = vec![["function", "space", "peak line", "live tile", "bytes", "range"].map(String::from).to_vec()];
    for s in &f.spaces {
        for t in &s.peak.live {
            rows.push(vec![
                f.name.clone(),
                s.space.clone(),
                format!("L{}", s.peak.line),
                if t.reserved { format!("{} (reserved)", t.name) } else { t.name.clone() },
                fmt_bytes(t.size),
                format!("{}..{}", t.offset, t.offset.saturating_add(t.size)),
            ]);
        }
    }
    table(&rows, 4, out);
}

/// Each space's high-water mark beside the packer's placement of the same tiles over the same
/// lifetimes and the bound no placement beats: how much the compiler's placement leaves.
fn packing(f: &FunctionMap, out: &mut String) {
    if f.spaces.iter().all(|s| s.packing.is_none()) {
        return;
    }
    out.push('\n');
    let head = ["function", "space", "hwm", "packing", "lower bound", "waste", "packing is"];
    let mut rows = vec![head.map(String::from).to_vec()];
    for s in &f.spaces {
        let Some(p) = &s.packing else { continue };
        rows.push(vec![
            f.name.clone(),
            s.space.clone(),
            fmt_bytes(s.hwm),
            fmt_bytes(p.bytes),
            fmt_bytes(p.lower_bound),
            fmt_bytes(s.hwm - p.bytes),
            p.verdict().into(),
        ]);
    }
    table(&rows, 2, out);
}

/// The cross-pipe handovers a space lists in the text report; the JSON lists more.
const CROSS_PIPE_SHOWN: usize = 5;

/// Each space's handovers (bytes passing from one box to the next) and how many cross pipes, then
/// the first cross-pipe ones of each space: where the kernel needs a sync because of the reuse.
fn handovers(f: &FunctionMap, out: &mut String) {
    if f.spaces.iter().all(|s| s.handovers.as_ref().is_none_or(|h| h.count == 0)) {
        return;
    }
    out.push('\n');
    let mut rows = vec![["function", "space", "handovers", "cross-pipe"].map(String::from).to_vec()];
    let mut cross = vec![["function", "space", "line", "from", "to", "pipes"].map(String::from).to_vec()];
    for s in &f.spaces {
        let Some(h) = s.handovers.as_ref().filter(|h| h.count > 0) else { continue };
        rows.push(vec![f.name.clone(), s.space.clone(), h.count.to_string(), h.cross_pipe.to_string()]);
        // The list puts the cross-pipe handovers first.
        for x in h.list.iter().take_while(|x| x.cross_pipe()).take(CROSS_PIPE_SHOWN) {
            cross.push(vec![
                f.name.clone(),
                s.space.clone(),
                format!("L{}", x.line),
                format!("{} (L{})", x.from, x.from_line),
                x.to.to_string(),
                format!("{} -> {}", pipe_name(x.from_pipe), pipe_name(x.to_pipe)),
            ]);
        }
        if h.cross_pipe > CROSS_PIPE_SHOWN {
            let more = format!("(+{} more cross-pipe)", h.cross_pipe - CROSS_PIPE_SHOWN);
            cross.push(vec![f.name.clone(), s.space.clone(), String::new(), more]);
        }
    }
    table(&rows, 2, out);
    if cross.len() > 1 {
        out.push('\n');
        table(&cross, 6, out);
    }
}

fn section(title: &str, out: &mut String) {
    out.push('\n');
    out.push_str(title);
    out.push('\n');
}

/// Rows padded to aligned columns, two spaces apart; columns from `first_number` on (but the last
/// one when it is free text) are right-aligned. No trailing spaces.
fn table(rows: &[Vec<String>], first_number: usize, out: &mut String) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let pad = width[c] - cell.chars().count();
            let right = first_number > 0 && c >= first_number;
            if right {
                line.push_str(&" ".repeat(pad));
            }
            line.push_str(cell);
            if !right {
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(
            visible_controls("a\u{1b}]0;pwned\u{7}\tb\n\r\u{9b}c".into()),
            "a\\x1b]0;pwned\\x07\tb\n\\x0d\\x9bc"
        );
        assert_eq!(visible_controls("plain\n".into()), "plain\n");
    }

    #[test]
    fn tables_align_and_leave_no_trailing_spaces() {
        let mut out = String::new();
        let rows = vec![vec!["a".to_string(), "10".into()], vec!["long".into(), "2".into()]];
        table(&rows, 1, &mut out);
        assert_eq!(out, "a     10\nlong   2\n");
    }
}
