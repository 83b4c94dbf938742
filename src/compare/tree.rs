//! Two build trees (`build_output/` folders of many cases) compared case by case: what a compiler
//! change did to every kernel it touched, as one report.

use std::path::PathBuf;

use serde::Serialize;

use super::{MapDiff, plural};
use crate::model::MemoryMap;
use crate::units::signed_bytes;

/// Two trees compared.
#[derive(Debug, Clone, Serialize)]
pub struct TreeDiff {
    /// The two roots, named by as much of their paths as tells them apart.
    pub base: String,
    pub head: String,
    /// One sentence for the top of a review comment.
    pub verdict: String,
    /// Every space whose high-water mark moved or that has new findings, case by case.
    pub moved: Vec<Moved>,
    /// Cases in both trees, by name.
    pub cases: Vec<CaseDiff>,
    /// Cases only in head, and only in base.
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Cases whose dump could not be read on a side; reported, not fatal.
    pub unreadable: Vec<Unreadable>,
}

/// One case present in both trees.
#[derive(Debug, Clone, Serialize)]
pub struct CaseDiff {
    pub case: String,
    pub diff: MapDiff,
}

/// One row of the table a tree report opens with.
#[derive(Debug, Clone, Serialize)]
pub struct Moved {
    pub case: String,
    pub function: String,
    pub space: String,
    pub old_hwm: Option<i64>,
    pub new_hwm: Option<i64>,
    pub delta: i64,
    /// What head has wrong that base had not. For now the conflicts that are new; the seam for the
    /// findings list (idle tiles, headroom, ...) is [`new_findings`].
    pub new_findings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    pub case: String,
    /// `base` or `head`.
    pub side: &'static str,
    pub error: String,
}

/// A case of a tree as read: its name (path below the root) and its map, or why there is none.
pub struct Case {
    pub name: String,
    /// The case folder, and the dump chosen in it.
    pub root: Option<PathBuf>,
    pub dump: Option<PathBuf>,
    pub map: Result<MemoryMap, String>,
}

/// Compares two trees' cases, paired by name. `names` are the roots as the report calls them.
pub fn compare(names: (String, String), base: Vec<Case>, head: Vec<Case>) -> TreeDiff {
    let mut d = TreeDiff {
        base: names.0,
        head: names.1,
        verdict: String::new(),
        moved: Vec::new(),
        cases: Vec::new(),
        added: Vec::new(),
        removed: Vec::new(),
        unreadable: Vec::new(),
    };
    let mut base: std::collections::BTreeMap<String, Case> = base.into_iter().map(|c| (c.name.clone(), c)).collect();
    for h in head {
        let Some(b) = base.remove(&h.name) else {
            if let Err(error) = h.map {
                d.unreadable.push(Unreadable { case: h.name.clone(), side: "head", error });
            }
            d.added.push(h.name);
            continue;
        };
        match (b.map, h.map) {
            (Ok(old), Ok(new)) => {
                let mut diff = super::diff(&old, &new);
                // The case is named above its details; each side says which tree, and the dump's
                // path in the case folder.
                for (side, word, dump, root) in
                    [(&mut diff.old, "base", &b.dump, &b.root), (&mut diff.new, "head", &h.dump, &h.root)]
                {
                    if let Some(path) = dump {
                        let below = root.as_deref().and_then(|r| path.strip_prefix(r).ok()).unwrap_or(path);
                        side.dump = format!("{word}: {}", below.display());
                    }
                }
                d.cases.push(CaseDiff { case: h.name, diff });
            }
            (old, new) => {
                for (side, r) in [("base", old), ("head", new)] {
                    if let Err(error) = r {
                        d.unreadable.push(Unreadable { case: h.name.clone(), side, error });
                    }
                }
            }
        }
    }
    for (name, b) in base {
        if let Err(error) = b.map {
            d.unreadable.push(Unreadable { case: name.clone(), side: "base", error });
        }
        d.removed.push(name);
    }
    d.added.sort();
    d.moved = moved(&d.cases);
    d.verdict = verdict(&d);
    d
}

fn moved(cases: &[CaseDiff]) -> Vec<Moved> {
    let mut rows = Vec::new();
    for c in cases {
        for f in &c.diff.functions {
            for s in &f.spaces {
                let findings = new_findings(s);
                if s.delta != 0 || !findings.is_empty() {
                    rows.push(Moved {
                        case: c.case.clone(),
                        function: f.name.clone(),
                        space: s.space.clone(),
                        old_hwm: s.old_hwm,
                        new_hwm: s.new_hwm,
                        delta: s.delta,
                        new_findings: findings,
                    });
                }
            }
        }
    }
    rows
}

/// What head has wrong in a space that base had not. The seam for the findings list: when the
/// model carries findings, list here those of head that base lacks; until then, new conflicts.
pub fn new_findings(s: &super::SpaceDiff) -> Vec<String> {
    let more = s.new_conflicts.saturating_sub(s.old_conflicts);
    if more == 0 {
        Vec::new()
    } else {
        vec![format!("{more} new conflicting box{}", if more == 1 { "" } else { "es" })]
    }
}

/// "3 of 14 cases changed: Vec high-water +12 KB at most in 2 functions; 1 case added; ...".
fn verdict(d: &TreeDiff) -> String {
    let changed = d.cases.iter().filter(|c| c.diff.verdict != "no change").count();
    let up = d.moved.iter().filter(|m| m.delta > 0).count();
    let down = d.moved.iter().filter(|m| m.delta < 0).count();
    let findings: usize = d.moved.iter().map(|m| m.new_findings.len()).sum();
    let mut parts = vec![format!("{changed} of {} case{} changed", d.cases.len(), plural(d.cases.len()))];
    if up + down > 0 {
        let worst = d.moved.iter().map(|m| m.delta).max().filter(|v| *v > 0);
        let mut moved = format!("{} high-water mark{} up, {down} down", up, plural(up));
        if let Some(w) = worst {
            moved += &format!(" (largest {})", signed_bytes(w));
        }
        parts.push(moved);
    } else {
        parts.push("no high-water mark moved".into());
    }
    parts.push(if findings == 0 {
        "no new findings".into()
    } else {
        format!("{findings} new finding{}", plural(findings))
    });
    for (list, word) in [(&d.added, "added"), (&d.removed, "removed")] {
        if !list.is_empty() {
            parts.push(format!("{} case{} {word}", list.len(), plural(list.len())));
        }
    }
    if !d.unreadable.is_empty() {
        parts.push(format!("{} unreadable", d.unreadable.len()));
    }
    parts.join("; ")
}
