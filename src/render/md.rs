//! The Markdown back end of a diff: a compact report for a pull-request comment.
//!
//! Text from a dump goes through `md_code` or `md_text`, so a name cannot break the table or
//! inject markup.

use crate::compare::tree::TreeDiff;
use crate::compare::{MapDiff, Side, TileChange, TileSlot, plural};
use crate::units::{fmt_bytes, signed_bytes};

/// A compact Markdown report for a pull-request comment.
pub fn render(d: &MapDiff) -> String {
    super::txt::visible_controls(format!("**Memory map:** {}\n\n{}", d.verdict, body(d, "####")))
}

/// `` `old` (Ascend910B) → `new` (Ascend950) · pass AllocateMemoryAddr ``: which dumps, on which chips.
fn sides(old: &Side, new: &Side) -> String {
    let pass = if old.pass_name == new.pass_name {
        md_text(&new.pass_name)
    } else {
        format!("{} → {}", md_text(&old.pass_name), md_text(&new.pass_name))
    };
    format!(
        "`{}` ({}) → `{}` ({}) · pass {}\n",
        md_code(&old.dump),
        md_text(&old.backend),
        md_code(&new.dump),
        md_text(&new.backend),
        pass
    )
}

/// Everything under the verdict; function headings at `heading` level.
fn body(d: &MapDiff, heading: &str) -> String {
    let mut out = sides(&d.old, &d.new);
    if !d.placed.is_empty() {
        out += &format!(
            "\n{heading} Where the bases were placed\n\n| function | space | base | placed at |\n|---|---|---|---|\n"
        );
        for p in &d.placed {
            if crate::budget::output_done(out.len()) {
                break; // refused by the output's limit, or by the run's next checkpoint
            }
            let at = match (p.from, p.to) {
                (Some(from), Some(to)) => format!("[{from}, {to}) ({})", fmt_bytes(to - from)),
                _ => "not in the other dump".into(),
            };
            out += &format!("| `{}` | {} | `{}` | {at} |\n", md_code(&p.function), md_text(&p.space), md_code(&p.base));
        }
    }
    for f in d.functions.iter().filter(|f| f.changed) {
        if crate::budget::output_done(out.len()) {
            break; // refused by the output's limit, or by the run's next checkpoint
        }
        out += &format!("\n{heading} `{}` ({})\n\n", md_code(&f.name), md_text(&f.ftype));
        out += "| space | old | new | delta | capacity | occupancy |\n|---|---:|---:|---:|---:|---|\n";
        for s in &f.spaces {
            let arrow = arrow(s.delta);
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
        if !t.renamed.is_empty() {
            notes.push(format!("{} renamed, same slot and lifetime", t.renamed.len()));
        }
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

/// `` `c` size: Vec [4096, 5120) L12–14 → Vec [4096, 6144) L15–17 ``; lines are each dump's own,
/// and what changed is named, since lines alone move with any edit above.
fn change_text(c: &TileChange) -> String {
    let slot = |s: &TileSlot| {
        format!("{} [{}, {}) L{}–{}", s.space, s.offset, s.offset.saturating_add(s.size), s.start, s.end)
    };
    let was = if c.old_name == c.name { String::new() } else { format!(" (was `{}`)", md_code(&c.old_name)) };
    format!("`{}`{was} {}: {} → {}", md_code(&c.name), c.what.join(", "), slot(&c.old), slot(&c.new))
}

/// Rows of the opening table at most; the rest are in the folded details.
const MOVED_ROWS: usize = 60;

/// A tree diff as one PR comment: the verdict, a table of what moved, cases added, removed and
/// unreadable, then each changed case folded in `<details>`.
pub fn render_tree(d: &TreeDiff) -> String {
    let mut out = format!("**Memory map, {} case{}:** {}\n\n", d.cases.len(), plural(d.cases.len()), d.verdict);
    out += &format!("`{}` → `{}`\n", md_code(&d.base), md_code(&d.head));
    if !d.moved.is_empty() {
        out += "\n| case | function | space | high-water old → new | delta | new findings |\n";
        out += "|---|---|---|---:|---:|---|\n";
        for m in d.moved.iter().take(MOVED_ROWS) {
            let findings = if m.new_findings.is_empty() { "–".into() } else { md_text(&m.new_findings.join("; ")) };
            out += &format!(
                "| {} | `{}` | {} | {} → {} | {}{} | {} |\n",
                md_text(&m.case),
                md_code(&m.function),
                md_text(&m.space),
                opt_bytes(m.old_hwm),
                opt_bytes(m.new_hwm),
                arrow(m.delta),
                signed_bytes(m.delta),
                findings
            );
        }
        if d.moved.len() > MOVED_ROWS {
            out += &format!("\n{} more rows in the details below.\n", d.moved.len() - MOVED_ROWS);
        }
    }
    for (list, word) in [(&d.added, "Added cases"), (&d.removed, "Removed cases")] {
        if !list.is_empty() {
            out += &format!("\n{word}: {}.\n", names(list, usize::MAX));
        }
    }
    if !d.unreadable.is_empty() {
        out += "\nCould not be read:\n\n";
        for u in &d.unreadable {
            out += &format!("- `{}` ({}): {}\n", md_code(&u.case), u.side, md_text(&u.error));
        }
    }
    let (changed, unchanged): (Vec<_>, Vec<_>) = d.cases.iter().partition(|c| c.diff.verdict != "no change");
    for c in changed {
        out += &format!(
            "\n<details><summary><b>{}</b>: {}</summary>\n\n{}\n</details>\n",
            html_text(&c.case),
            html_text(&c.diff.verdict),
            body(&c.diff, "#####")
        );
    }
    if !unchanged.is_empty() {
        let list: Vec<String> = unchanged.iter().map(|c| c.case.clone()).collect();
        out += &format!("\n{} case{} unchanged: {}.\n", list.len(), plural(list.len()), names(&list, usize::MAX));
    }
    super::txt::visible_controls(out)
}

fn arrow(delta: i64) -> &'static str {
    match delta.signum() {
        1 => "▲ ",
        -1 => "▼ ",
        _ => "",
    }
}

/// Text inside the raw HTML of a `<summary>`: Markdown is not read there, so escape as HTML.
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('\n', " ")
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
