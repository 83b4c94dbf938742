//! A build tree at once: a folder of many cases (PyPTO's `build_output/`, each case with its own
//! `passes_dump/`) drawn into one site, a page per case and an index of every function, worst first.
//!
//! Cases are independent, so they are drawn in parallel on scoped threads, one case at a time per
//! thread; a case that cannot be read is reported and the others go on. [`cases()`] is the listing
//! alone (each case with the dump it would draw), for any command that walks a tree.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::backend::Backends;
use crate::error::{Detail, Error, ErrorKind, FileOp, Missing, Misuse, Result};
use crate::model::{FunctionMap, MemoryMap};
use crate::plan::RULES;
use crate::render::xml::Xml;
use crate::{RenderOptions, dump, load_with};

use crate::cases::{self, MAX_CASES};
pub use crate::cases::{MAX_FOLDERS, case_folders, is_tree};

/// Name of the index page in the output folder.
pub const INDEX: &str = "index.html";

/// One case of a tree: a folder with a `passes_dump/`.
#[derive(Debug)]
pub struct Case {
    /// The case's path relative to the tree's root, with `/` between parts (`Ascend950/ffn`).
    pub name: String,
    /// The case folder.
    pub dir: PathBuf,
    /// The dump the case resolves to for the chosen pass, or why it has none.
    pub dump: Result<PathBuf>,
}

/// Every case under `root`, sorted by name, each with its chosen dump for `pass_name`.
pub fn cases(root: &Path, pass_name: &str) -> Result<Vec<Case>> {
    let dirs = cases::list(root);
    if dirs.len() > MAX_CASES {
        return Err(Error::misuse(Misuse::TooManyCases { root: root.display().to_string(), max: MAX_CASES }));
    }
    Ok(dirs
        .into_iter()
        .map(|(name, dir)| {
            let dump = dump::resolve(&dir, pass_name);
            Case { name, dir, dump }
        })
        .collect())
}

/// A case's error as the command line (the only shell that draws a tree) words it.
fn words(err: &Error) -> String {
    crate::option_table::describe(err, crate::option_table::Shell::Cli)
}

/// What became of one case.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Drawn to `page` (relative to the output folder), with a row per function.
    #[allow(missing_docs)]
    Drawn { page: String, functions: Vec<FunctionRow> },
    /// Nothing to draw, for a reason that is not a fault (`why` is short, e.g. "PTOAS").
    #[allow(missing_docs)]
    Skipped { why: String, message: String },
    /// The case could not be read or written.
    #[allow(missing_docs)]
    Failed { message: String },
}

/// A function's line in the index.
#[derive(Debug, Clone)]
pub struct FunctionRow {
    /// The function's name.
    pub name: String,
    /// `AIC`, `AIV` or `InCore`.
    pub ftype: String,
    /// The fullest space: its name and its high-water mark over its capacity.
    pub worst_space: String,
    /// That space's high-water mark over its capacity (1.0 = full).
    pub worst_occupancy: f64,
    /// Boxes in a cross-base conflict.
    pub conflicts: usize,
    /// Boxes drawn.
    pub tiles: usize,
    /// Error findings about it.
    pub errors: usize,
    /// Warnings about it.
    pub warnings: usize,
}

/// The site drawn from a tree.
#[derive(Debug)]
pub struct Report {
    /// (case name, outcome), sorted by case name.
    pub cases: Vec<(String, Outcome)>,
    /// Where the index page was written.
    pub index: PathBuf,
}

impl Report {
    /// How many cases could not be drawn.
    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|(_, o)| matches!(o, Outcome::Failed { .. })).count()
    }

    /// The last line: what was drawn, skipped (and why), and failed.
    pub fn summary(&self) -> String {
        let mut drawn = (0, 0);
        let mut skipped: Vec<(String, usize)> = Vec::new();
        let mut failed = Vec::new();
        for (name, outcome) in &self.cases {
            match outcome {
                Outcome::Drawn { functions, .. } => drawn = (drawn.0 + 1, drawn.1 + functions.len()),
                Outcome::Skipped { why, .. } => match skipped.iter_mut().find(|(w, _)| w == why) {
                    Some((_, n)) => *n += 1,
                    None => skipped.push((why.clone(), 1)),
                },
                Outcome::Failed { .. } => failed.push(name.as_str()),
            }
        }
        let skipped_total: usize = skipped.iter().map(|(_, n)| n).sum();
        let mut line = format!(
            "drew {} case{} ({} function{}) into {}; skipped {skipped_total}",
            drawn.0,
            plural(drawn.0),
            drawn.1,
            plural(drawn.1),
            self.index.display()
        );
        if !skipped.is_empty() {
            let why: Vec<String> = skipped.iter().map(|(w, n)| format!("{w}: {n}")).collect();
            line += &format!(" [{}]", why.join("; "));
        }
        line += &format!("; failed {}", failed.len());
        if !failed.is_empty() {
            line += &format!(" [{}]", failed.join(", "));
        }
        line
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// What to draw each case with.
pub struct TreeOptions<'a> {
    /// The pass whose dump each case draws.
    pub pass_name: &'a str,
    /// Backends to choose among, per case.
    pub backends: &'a Backends,
    /// Format, backend and view of every page; the format must not be stdout-only.
    pub render: RenderOptions,
    /// Threads to draw with; 0 means one per core.
    pub threads: usize,
    /// No progress on stderr (`-q`); a case that fails is still in the report.
    pub quiet: bool,
}

/// Draws every case of `root` into `out` (created if missing) and writes the index there.
/// Errors only when the tree cannot be listed or the index cannot be written; a case's own failure
/// is in the report.
pub fn draw(root: &Path, out: &Path, opts: &TreeOptions) -> Result<Report> {
    check_view(&opts.render)?;
    let cases = cases(root, opts.pass_name)?;
    if cases.is_empty() {
        let detail = Detail::Missing { path: root.display().to_string(), what: Missing::CaseFolder };
        return Err(Error::of(ErrorKind::NotFound, detail));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::file(Some(out), FileOp::CreateFolder, &e))?;
    let progress = if opts.quiet { Progress::Quiet } else { Progress::new(cases.len()) };
    let threads =
        if opts.threads == 0 { std::thread::available_parallelism().map_or(2, |n| n.get()) } else { opts.threads };
    // Each case is drawn on one thread with the run's limits; the cases, not their functions, share
    // the cores.
    let budget = crate::budget::Budget { threads: Some(1), ..crate::budget::current() };
    let outcomes = crate::budget::run(budget, || {
        crate::par::run_on(threads, cases.len(), false, |i| {
            let outcome = draw_case(&cases[i], out, opts);
            progress.done(&cases[i].name, &outcome);
            outcome
        })
    })?;
    progress.finish();
    let cases: Vec<(String, Outcome)> = cases.into_iter().map(|case| case.name).zip(outcomes).collect();
    let index = out.join(INDEX);
    let report = Report { cases, index };
    let html = index_page(root, &report);
    // Like every page: written beside, then renamed, so a full disk leaves no half index.
    crate::output::write_bytes(&report.index, html.as_bytes())?;
    Ok(report)
}

/// Loads, renders and writes one case; never panics the caller's thread on bad input.
fn draw_case(case: &Case, out: &Path, opts: &TreeOptions) -> Outcome {
    let dump = match &case.dump {
        Ok(dump) => dump,
        Err(err) if err.kind == ErrorKind::NotFound => {
            return Outcome::Skipped {
                why: format!("no {} dump (PTOAS, or dumps below EXPLICIT)", opts.pass_name),
                message: words(err),
            };
        }
        Err(err) => return Outcome::Failed { message: words(err) },
    };
    let map = match load_with(dump, opts.pass_name, opts.render.backend.as_deref(), opts.backends) {
        Ok(map) => map,
        Err(err) if err.kind == ErrorKind::Refused => {
            return Outcome::Skipped { why: NO_MEMREF.to_owned(), message: words(&err) };
        }
        Err(err) => return Outcome::Failed { message: words(&err) },
    };
    // A site's index ranks cases by occupancy, which a bases view does not have.
    if map.addresses == crate::model::Addresses::Unassigned {
        let message = format!(
            "{}: every MemRef sits at offset 0 while two or more bases share a space: addresses not assigned \
             yet (drawn alone, it is a bases view)",
            dump.display()
        );
        return Outcome::Skipped { why: "before AllocateMemoryAddr".to_owned(), message };
    }
    let Some(render) = view_for(&map, &opts.render) else {
        return Outcome::Skipped { why: "no --function named here".to_owned(), message: String::new() };
    };
    let page = format!("{}.{}", case.name, opts.render.format.extension());
    let target = out.join(&page);
    let written = (|| {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::file(Some(parent), FileOp::CreateFolder, &e))?;
        }
        // Written as it is made, beside its name, then renamed: a full disk leaves the page that
        // was there before (or none), never part of one.
        crate::output::write_file(&target, |out| crate::render_map_to(&map, &render, out))
    })();
    match written {
        Ok(()) => Outcome::Drawn { page, functions: rows(&map, &render.view.functions) },
        Err(err) => Outcome::Failed { message: words(&err) },
    }
}

/// The view options that do not depend on a dump (zoom, width), checked once for the whole tree.
fn check_view(render: &RenderOptions) -> Result<()> {
    let view = crate::ViewOptions { hidden: Vec::new(), functions: Vec::new(), ..render.view.clone() };
    view.validate(&MemoryMap::default())
}

/// `--hide` and `--function` name what some cases have and others not: each case keeps the names
/// it has. `None` when `--function` names none of its functions (nothing of it was asked for).
fn view_for(map: &MemoryMap, render: &RenderOptions) -> Option<RenderOptions> {
    let mut render = render.clone();
    let has_space = |s: &String| map.functions.iter().any(|f| f.spaces.iter().any(|u| &u.space == s));
    render.view.hidden.retain(has_space);
    if !render.view.functions.is_empty() {
        render.view.functions.retain(|n| map.functions.iter().any(|f| &f.name == n));
        if render.view.functions.is_empty() {
            return None;
        }
    }
    Some(render)
}

/// The short form of the analysis's refusal (it says it at length): a dump with nothing placed.
/// A dump whose addresses are not assigned yet is not refused (it is a bases view), so it is told
/// apart by the map, never by the refusal's words.
const NO_MEMREF: &str = "no MemRef (PTOAS, or a pass before AllocateMemoryAddr)";

/// The index rows of a drawn case: its functions, or those `--function` picked.
fn rows(map: &MemoryMap, picked: &[String]) -> Vec<FunctionRow> {
    map.functions.iter().filter(|f| picked.is_empty() || picked.contains(&f.name)).map(|f| row(f, map)).collect()
}

/// A function's worst space counts only spaces the backend gives a capacity to (for the others
/// the limit is the high-water mark itself, always 100%), unless it has no other.
fn row(f: &FunctionMap, map: &MemoryMap) -> FunctionRow {
    let known: Vec<_> = f.spaces.iter().filter(|s| map.backend.capacities.contains_key(&s.space)).collect();
    let spaces = if known.is_empty() { f.spaces.iter().collect() } else { known };
    let occupancy = crate::model::SpaceUsage::occupancy;
    let worst = spaces.into_iter().max_by(|a, b| occupancy(a).total_cmp(&occupancy(b)));
    let about = |severity| {
        map.findings.iter().filter(|x| x.severity == severity && x.function.as_deref() == Some(f.name.as_str())).count()
    };
    FunctionRow {
        name: f.name.clone(),
        ftype: f.ftype.clone(),
        worst_space: worst.map(|s| s.space.clone()).unwrap_or_default(),
        worst_occupancy: worst.map_or(0.0, occupancy),
        conflicts: f.blocks.iter().filter(|b| b.conflict).count(),
        tiles: f.blocks.len(),
        errors: about(crate::model::Severity::Error),
        warnings: about(crate::model::Severity::Warning),
    }
}

/// The index: every drawn function, the worst first (the page's order: errors, warnings, fullest),
/// then the cases not drawn.
fn index_page(root: &Path, report: &Report) -> String {
    let mut rows: Vec<(&str, &str, &FunctionRow)> = report
        .cases
        .iter()
        .filter_map(|(name, o)| match o {
            Outcome::Drawn { page, functions } => Some((name.as_str(), page.as_str(), functions)),
            _ => None,
        })
        .flat_map(|(name, page, fs)| fs.iter().map(move |f| (name, page, f)))
        .collect();
    rows.sort_by(|a, b| {
        let key = |f: &FunctionRow| (f.errors, f.warnings, f.worst_occupancy);
        crate::plan::overview::worse_first(key(a.2), key(b.2))
            .then(b.2.conflicts.cmp(&a.2.conflicts))
            .then(a.0.cmp(b.0))
    });

    let title = format!("Memory maps — {}", root.display());
    let mut x = Xml::html();
    x.open("html", &[("lang", "en".into())]);
    x.open("head", &[]);
    x.leaf("meta", &[("charset", "utf-8".into())]);
    x.leaf("meta", &[("name", "color-scheme".into()), ("content", "light dark".into())]);
    x.element("title", &[], &title);
    x.raw_text("style", &[], INDEX_CSS);
    x.close();
    x.newline();
    x.open("body", &[]);
    x.element("h1", &[], &title);
    x.element("p", &[("class", "summary".into())], &report.summary());
    x.newline();
    x.open("table", &[("class", "functions".into())]);
    x.open("thead", &[]);
    x.open("tr", &[]);
    for h in ["case", "function", "type", "worst occupancy", "space", "conflicts", "tiles"] {
        x.element("th", &[], h);
    }
    x.close();
    x.close();
    x.open("tbody", &[]);
    for (case, page, f) in rows {
        x.newline();
        x.open("tr", &[("class", level(f.worst_occupancy).into())]);
        x.open("td", &[]);
        x.element("a", &[("href", href(page, None).as_str().into())], case);
        x.close();
        x.open("td", &[]);
        x.element("a", &[("href", href(page, Some(&f.name)).as_str().into())], &f.name);
        x.close();
        x.element("td", &[], &f.ftype);
        x.element("td", &[("class", "num".into())], &format!("{:.1}%", f.worst_occupancy * 100.0));
        x.element("td", &[], &f.worst_space);
        x.element(
            "td",
            &[("class", if f.conflicts > 0 { "num conflict" } else { "num" }.into())],
            &f.conflicts.to_string(),
        );
        x.element("td", &[("class", "num".into())], &f.tiles.to_string());
        x.close();
    }
    x.close();
    x.close();
    let not_drawn: Vec<_> = report.cases.iter().filter(|(_, o)| !matches!(o, Outcome::Drawn { .. })).collect();
    if !not_drawn.is_empty() {
        x.newline();
        x.element("h2", &[], "Not drawn");
        x.open("table", &[("class", "not-drawn".into())]);
        x.open("thead", &[]);
        x.open("tr", &[]);
        for h in ["case", "outcome", "why"] {
            x.element("th", &[], h);
        }
        x.close();
        x.close();
        x.open("tbody", &[]);
        for (name, outcome) in not_drawn {
            let (class, what, why) = match outcome {
                Outcome::Skipped { why, message } => ("skipped", format!("skipped: {why}"), message.as_str()),
                Outcome::Failed { message } => ("failed", "failed".to_owned(), message.as_str()),
                Outcome::Drawn { .. } => continue,
            };
            x.newline();
            x.open("tr", &[("class", class.into())]);
            x.element("td", &[], name);
            x.element("td", &[], &what);
            x.element("td", &[("class", "why".into())], why);
            x.close();
        }
        x.close();
        x.close();
    }
    x.finish().into_string()
}

/// The row's colour class, on the page's own thresholds.
fn level(occupancy: f64) -> &'static str {
    if occupancy >= RULES.occupancy_crit {
        "critical"
    } else if occupancy >= RULES.occupancy_warn {
        "warning"
    } else {
        "good"
    }
}

/// A relative link to a page (and a function's card in it): each path segment percent-encoded,
/// so a case folder named with spaces or `#` still links.
fn href(page: &str, function: Option<&str>) -> String {
    let mut out: String = page.split('/').map(percent_encode).collect::<Vec<_>>().join("/");
    if let Some(f) = function {
        out.push_str("#fn=");
        out.push_str(&percent_encode(f));
    }
    out
}

fn percent_encode(s: &str) -> String {
    crate::units::percent_encode(s, b"")
}

const INDEX_CSS: &str = "
body { font: 14px/1.4 ui-sans-serif, system-ui, sans-serif; margin: 24px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.summary { color: #555; margin: 0 0 16px; }
table { border-collapse: collapse; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e3e6ec; text-align: left; vertical-align: top; }
th { font-weight: 600; background: #f4f6f9; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.critical td:nth-child(4) { color: #b3261e; font-weight: 600; }
tr.warning td:nth-child(4) { color: #a15c00; font-weight: 600; }
td.conflict { color: #b3261e; font-weight: 600; }
tr.failed td:nth-child(2) { color: #b3261e; } td.why { color: #555; max-width: 70ch; }
a { color: #1f5fbf; }
@media (prefers-color-scheme: dark) {
  body { color: #e3e6ec; background: #14171c; } th { background: #222731; } th, td { border-color: #2c323d; }
  .summary, td.why { color: #aab; } a { color: #7fb0ff; }
}
";

/// Progress on stderr: a bar on a terminal, else one plain line per case (logs and CI).
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines {
        total: usize,
        done: AtomicUsize,
    },
    /// `-q`: nothing.
    Quiet,
}

impl Progress {
    fn new(total: usize) -> Progress {
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cases {wide_msg}") {
                bar.set_style(style);
            }
            Progress::Bar(bar)
        } else {
            Progress::Lines { total, done: AtomicUsize::new(0) }
        }
    }

    fn done(&self, name: &str, outcome: &Outcome) {
        match self {
            Progress::Bar(bar) => {
                if let Outcome::Failed { message } = outcome {
                    bar.println(format!("failed {name}: {message}"));
                }
                bar.set_message(name.to_owned());
                bar.inc(1);
            }
            Progress::Lines { total, done } => {
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                let what = match outcome {
                    Outcome::Drawn { page, functions } => {
                        format!("drew {page} ({} function{})", functions.len(), plural(functions.len()))
                    }
                    Outcome::Skipped { why, .. } => format!("skipped {name}: {why}"),
                    Outcome::Failed { message } => format!("failed {name}: {message}"),
                };
                eprintln!("[{n}/{total}] {what}");
            }
            Progress::Quiet => {}
        }
    }

    fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_percent_encoded_per_segment() {
        assert_eq!(href("a b/c#d.html", Some("f<1>")), "a%20b/c%23d.html#fn=f%3C1%3E");
    }
}
