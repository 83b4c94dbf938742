//! The overview of a whole dump: one row per function, the worst first (errors, then warnings, then
//! the fullest space), with each space's occupancy, the fullest space's peak and the findings by
//! severity. The page's table, the PNG's digest, the text report and the tree's index read this one
//! order and these texts, so no two of them can rank or word a function differently.

use super::pill;
use crate::findings::counts_text;
use crate::hashed::HashMap;
use crate::model::{Finding, FunctionMap, MemoryMap, Severity, space_rank};
use crate::units::fmt_bytes;

/// The findings about one function.
pub fn findings_of<'a>(map: &'a MemoryMap, f: &FunctionMap) -> Vec<&'a Finding> {
    map.findings.iter().filter(|x| x.function.as_deref() == Some(f.name.as_str())).collect()
}

/// The one "worst first" order of every list of functions (the page's overview, the text report,
/// the tree's index): most errors, then most warnings, then the fullest space with a known capacity
/// (`fullest`, in any unit both sides share). `a` before `b` is `Less`; ties keep their order.
pub fn worse_first(a: (usize, usize, f64), b: (usize, usize, f64)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.total_cmp(&a.2))
}

/// Functions the worst first ([`worse_first`]), then in dump order.
pub fn worst_first(map: &MemoryMap) -> Vec<&FunctionMap> {
    let counts = counts_by_function(map);
    // Keys made once: a whole model has hundreds of functions and thousands of findings.
    let mut order: Vec<((usize, usize, f64), &FunctionMap)> = map
        .functions
        .iter()
        .map(|f| {
            let (e, w, _) = counts.get(f.name.as_str()).copied().unwrap_or_default();
            ((e, w, f.worst_occupancy()), f)
        })
        .collect();
    order.sort_by(|a, b| worse_first(a.0, b.0));
    order.into_iter().map(|(_, f)| f).collect()
}

/// Errors, warnings and notes about each function, by name.
fn counts_by_function(map: &MemoryMap) -> HashMap<&str, (usize, usize, usize)> {
    let mut by_name: HashMap<&str, (usize, usize, usize)> = HashMap::default();
    for x in &map.findings {
        let Some(name) = x.function.as_deref() else { continue };
        let c = by_name.entry(name).or_default();
        match x.severity {
            Severity::Error => c.0 += 1,
            Severity::Warning => c.1 += 1,
            Severity::Note => c.2 += 1,
        }
    }
    by_name
}

/// The overview of a dump (see the module's comment).
#[derive(Debug, Clone)]
pub struct Overview {
    /// `45 functions, worst first · findings: 0 errors, 7 warnings, 66 notes`.
    pub caption: String,
    /// How many functions the dump has.
    pub functions: usize,
    /// Every space some function has, in the spaces' order: the columns.
    pub spaces: Vec<String>,
    /// One row per function, the worst first.
    pub rows: Vec<Row>,
}

/// A function's row of the [`Overview`].
#[derive(Debug, Clone)]
pub struct Row {
    /// The function's name, whole.
    pub name: String,
    /// Its type (`AIV`, `AIC`, ...).
    pub ftype: String,
    /// How many dump lines it spans.
    pub lines: u32,
    /// How many rows its card draws them in (long runs where nothing is live folded:
    /// [`super::RowMap`]).
    pub rows: u32,
    /// Per column of [`Overview::spaces`]: the space's occupancy, where the function has the space.
    pub spaces: Vec<Option<Occupancy>>,
    /// The fullest space's peak (`Vec 180 KB L123`) and its bytes; `None` without spaces.
    pub peak: Option<(String, i64)>,
    /// The space where the packer saves the most (`Vec 16 KB → 8 KB`) and the bytes it saves;
    /// `None` where every space is packed as tightly as the compiler placed it.
    pub could_pack: Option<(String, i64)>,
    /// Errors, warnings and notes about the function.
    pub counts: (usize, usize, usize),
}

/// A space's occupancy as every overview shows it.
#[derive(Debug, Clone)]
pub struct Occupancy {
    /// `13.0%`; empty when the capacity is unknown (see [`super::Pill::pct`]).
    pub pct: String,
    /// `good`, `warn`, `crit` or `unknown`.
    pub level: &'static str,
    /// The high-water mark's share of the capacity, 0 to 1 (0 when the capacity is unknown).
    pub share: f64,
}

impl Overview {
    /// The overview of `map`.
    pub fn of(map: &MemoryMap) -> Overview {
        let mut spaces: Vec<&str> = map.functions.iter().flat_map(|f| &f.spaces).map(|s| s.space.as_str()).collect();
        spaces.sort_by_key(|s| space_rank(s));
        spaces.dedup();
        let counts = counts_by_function(map);
        let rows = worst_first(map)
            .into_iter()
            .map(|f| Row {
                name: f.name.clone(),
                ftype: f.ftype.clone(),
                lines: f.src_end.saturating_sub(f.src_start) + 1,
                rows: super::RowMap::of(f).rows(),
                spaces: spaces
                    .iter()
                    .map(|s| {
                        f.spaces.iter().find(|u| u.space == *s).map(|u| {
                            let p = pill(u);
                            Occupancy { pct: p.pct, level: p.level, share: u.occupancy().clamp(0.0, 1.0) }
                        })
                    })
                    .collect(),
                peak: peak(f),
                could_pack: could_pack(f),
                counts: counts.get(f.name.as_str()).copied().unwrap_or_default(),
            })
            .collect();
        let n = map.functions.len();
        let order = if n > 1 { ", worst first" } else { "" };
        let caption =
            format!("{n} function{}{order} · findings: {}", if n == 1 { "" } else { "s" }, counts_text(&map.findings));
        Overview { caption, functions: n, spaces: spaces.into_iter().map(str::to_string).collect(), rows }
    }
}

/// The peak of the fullest space (by occupancy; with no capacity anywhere, the most bytes):
/// `Vec 180 KB L123`, and its bytes.
fn peak(f: &FunctionMap) -> Option<(String, i64)> {
    let fullest =
        f.spaces.iter().max_by(|a, b| a.occupancy().total_cmp(&b.occupancy()).then(a.peak.bytes.cmp(&b.peak.bytes)))?;
    Some((format!("{} {} L{}", fullest.space, fmt_bytes(fullest.peak.bytes), fullest.peak.line), fullest.peak.bytes))
}

/// The space of `f` whose high-water mark is the most above its packing: `Vec 16 KB → 8 KB` (with
/// `best found` where the packing is not proven optimal), and the bytes saved.
pub fn could_pack(f: &FunctionMap) -> Option<(String, i64)> {
    let (s, p, saved) = f
        .spaces
        .iter()
        .filter_map(|s| s.packing.as_ref().map(|p| (s, p, s.hwm - p.bytes)))
        .filter(|&(_, _, saved)| saved > 0)
        .max_by_key(|&(s, _, saved)| (saved, std::cmp::Reverse(space_rank(&s.space))))?;
    let how = if p.proven_optimal { String::new() } else { format!(" ({})", p.verdict()) };
    Some((format!("{} {} → {}{how}", s.space, fmt_bytes(s.hwm), fmt_bytes(p.bytes)), saved))
}
