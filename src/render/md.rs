//! The Markdown back end of a diff: a compact report for a pull-request comment.
//!
//! Text from a dump goes through [`md_code`] or [`md_text`], so a name cannot break the table or
//! inject markup.

use crate::compare::{MapDiff, TileChange, TileSlot, plural};
use crate::units::{fmt_bytes, signed_bytes};

/// A compact Markdown report for a pull-request comment.
pub fn render(d: &MapDiff) -> String {
    let mut out = format!("**Memory map:** {}\n\n", d.verdict);
    out += &format!(
        "`{}` → `{}` · {} · pass {}\n",
        md_code(&d.old.dump),
        md_code(&d.new.dump),
        md_text(&d.new.backend),
        md_text(&d.new.pass_name)
    );
    for f in d.functions.iter().filter(|f| f.changed) {
        out += &format!("\n#### `{}` ({})\n\n", md_code(&f.name), md_text(&f.ftype));
        out += "| space | old | new | delta | capacity | occupancy |\n|---|---:|---:|---:|---:|---|\n";
        for s in &f.spaces {
            let arrow = match s.delta.signum() {
                1 => "▲ ",
                -1 => "▼ ",
                _ => "",
            };
            out += &format!(
                "| {} | {} | {} | {}{} | {} | {} → {} |\n",
                md_text(&s.space),
                opt_bytes(s.old_hwm),
                opt_bytes(s.new_hwm),
                arrow,
                if s.delta == 0 { "0".into() } else { signed_bytes(s.delta) },
                if s.old_limit == s.limit {
                    fmt_bytes(s.limit)
                } else {
                    format!("{} → {}", fmt_bytes(s.old_limit), fmt_bytes(s.limit))
                },
                opt_pct(s.old_occupancy),
                opt_pct(s.new_occupancy),
            );
        }
        let t = &f.tiles;
        let mut notes = Vec::new();
        if !t.changed.is_empty() {
            let shown: Vec<String> = t.changed.iter().take(5).map(change_text).collect();
            notes.push(format!("{} changed ({}{})", t.changed.len(), shown.join("; "), more(t.changed.len(), 5)));
        }
        if !t.added.is_empty() {
            notes.push(format!("{} added ({}{})", t.added.len(), names(&t.added, 8), more(t.added.len(), 8)));
        }
        if !t.removed.is_empty() {
            notes.push(format!("{} removed ({}{})", t.removed.len(), names(&t.removed, 8), more(t.removed.len(), 8)));
        }
        let conflicts: Vec<String> = f
            .spaces
            .iter()
            .filter(|s| s.new_conflicts != s.old_conflicts)
            .map(|s| format!("{} conflicts {} → {}", md_text(&s.space), s.old_conflicts, s.new_conflicts))
            .collect();
        notes.extend(conflicts);
        if !notes.is_empty() {
            out += &format!("\nTiles: {}.\n", notes.join("; "));
        }
    }
    let unchanged = d.functions.iter().filter(|f| !f.changed).count();
    if unchanged > 0 {
        out += &format!("\n{unchanged} function{} unchanged.\n", plural(unchanged));
    }
    if !d.added.is_empty() {
        out += &format!("\nAdded: {}.\n", names(&d.added, usize::MAX));
    }
    if !d.removed.is_empty() {
        out += &format!("\nRemoved: {}.\n", names(&d.removed, usize::MAX));
    }
    out
}

fn change_text(c: &TileChange) -> String {
    // Lines count from the function's first line, so code added above it does not read as a change.
    let slot = |s: &TileSlot| format!("{} [{}, {}) lines +{}–{}", s.space, s.offset, s.offset + s.size, s.start, s.end);
    format!("`{}` {} → {}", md_code(&c.name), slot(&c.old), slot(&c.new))
}

fn names(list: &[String], most: usize) -> String {
    list.iter().take(most).map(|n| format!("`{}`", md_code(n))).collect::<Vec<_>>().join(", ")
}

fn more(n: usize, shown: usize) -> String {
    if n > shown { format!(", +{} more", n - shown) } else { String::new() }
}

fn opt_bytes(v: Option<i64>) -> String {
    v.map_or("–".into(), fmt_bytes)
}

fn opt_pct(v: Option<f64>) -> String {
    v.map_or("–".into(), |p| format!("{:.1}%", p * 100.0))
}

/// Text from a dump inside backticks: a backtick would end the code span.
fn md_code(s: &str) -> String {
    s.replace('`', "'")
}

/// Text from a dump in a table cell or sentence: no table breaks, no markup, no raw HTML.
fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' | '*' | '_' | '[' | ']' | '<' | '>' | '`' | '\\' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
