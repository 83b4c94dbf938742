//! What a picture of a map draws around its cards, decided from the map: the header's words and
//! findings, which of the legend's entries it has, which functions get a card and how wide the
//! cards are. With the card plans it is all the scene reads, so a picture says nothing of the dump
//! that the plan did not decide.

use crate::model::{FunctionMap, MemoryMap, Severity};
use crate::plan::width::{card_width, scale, spans_width, text_width};
use crate::plan::{Header, RULES, ViewOptions};

/// The frame of a picture of a map drawn as a view asks (see the module's comment).
#[derive(Debug, Clone)]
pub struct Picture {
    /// The view it is drawn as.
    pub view: ViewOptions,
    /// The header's words and counts.
    pub header: Header,
    /// The header's findings: those about the functions and spaces drawn, or the whole dump.
    pub findings: Findings,
    /// Whether some card drawn has a cut band (the legend then says what one is).
    pub cut: bool,
    /// Whether some card drawn has a box widened to its least width (the legend then says so).
    pub wide: bool,
    /// Whether some box drawn is held past its last read (the legend then says what that is).
    pub held: bool,
    /// Which of the marks the compiler placed the map has anywhere (the legend names those).
    pub placed: PlacedMarks,
    /// For each card, in page order: the index of its function in the map.
    pub cards: Vec<usize>,
    /// The width the widest card needs at the view's width (never less than the minimum): the
    /// header wraps to it.
    pub width: f64,
    /// The width the widest card needs at its own panel width (see [`crate::plan::Planner::panels`]).
    pub panel_width: f64,
}

/// The header's findings, worded.
#[derive(Debug, Clone)]
pub struct Findings {
    /// `findings: 0 errors, 7 warnings, 66 notes`.
    pub counts: String,
    /// The count's tone: `crit` with an error, `warn` with a warning, else `muted`.
    pub level: &'static str,
    /// Whether one is an overflow (the header then says what the overflow marks are).
    pub overflow: bool,
    /// Every error and warning, errors first: its line (severity, code, function, space, dump
    /// line, message) and whether it is an error.
    pub listed: Vec<(String, bool)>,
}

/// The placed marks a map has somewhere: reserved windows, unsafe bands, declared slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacedMarks {
    /// A reserved window with an address.
    pub reserved: bool,
    /// A space with a physical size past its usable one.
    pub unsafe_band: bool,
    /// A tile of a declared multi-slot allocation.
    pub slots: bool,
}

impl PlacedMarks {
    /// The placed marks of the functions `drawn`, in the spaces `view` shows: the legend explains
    /// what the picture holds, not what the rest of the dump does.
    fn of(drawn: &[&FunctionMap], view: &ViewOptions) -> PlacedMarks {
        let shown = |space: &str| !view.hidden.iter().any(|h| h == space);
        PlacedMarks {
            reserved: drawn.iter().flat_map(|f| &f.reserved).any(|r| r.offset.is_some() && shown(&r.space)),
            unsafe_band: drawn.iter().flat_map(|f| &f.spaces).any(|s| s.physical.is_some() && shown(&s.space)),
            slots: drawn.iter().flat_map(|f| &f.blocks).any(|b| b.tile.slots.is_some() && shown(&b.tile.space)),
        }
    }
}

impl Picture {
    /// The frame of `map` drawn as `view` asks, each card's lanes filling its `panels` width.
    pub fn of(map: &MemoryMap, view: &ViewOptions, panels: &[f64]) -> Picture {
        let chosen: Vec<(usize, &FunctionMap)> =
            map.functions.iter().enumerate().filter(|(_, f)| view.draws(&f.name)).collect();
        // Cards share one width so the page reads as a column; lanes keep their own widths.
        // Each card's lanes at the view's width: its own width, and whether they hold a cut band
        // or widened stretches (for the legend).
        let sized = crate::par::map_ref(&chosen, |(_, f)| {
            let text = text_width(f, view);
            let (spans, own) = scale(f, view);
            let cut = spans.iter().flatten().any(|s| s.cut.is_some());
            let wide = spans.iter().flatten().any(|s| !s.wide.is_empty());
            (text, spans_width(spans, own, f.src_end, view, None, text), cut, wide)
        });
        let width = sized.iter().map(|&(_, w, ..)| w).fold(RULES.width_min, f64::max).ceil();
        let jobs: Vec<_> =
            chosen.iter().zip(panels).zip(&sized).map(|((&(_, f), &p), &(t, own, ..))| (f, p, t, own)).collect();
        let panel_width = crate::par::map_ref(&jobs, |&(f, width, text, own)| match width == view.width {
            true => own, // the width just found
            false => card_width(f, &ViewOptions { width, ..view.clone() }, None, text),
        })
        .into_iter()
        .fold(0.0, f64::max);
        let drawn: Vec<&FunctionMap> =
            map.functions.iter().filter(|f| view.functions.is_empty() || view.functions.contains(&f.name)).collect();
        Picture {
            view: view.clone(),
            header: Header::of(map, view),
            findings: Findings::of(&drawn_findings(map, view)),
            cut: sized.iter().any(|&(.., cut, _)| cut),
            wide: sized.iter().any(|&(.., wide)| wide),
            held: drawn.iter().flat_map(|f| &f.blocks).any(|b| b.tile.held() > b.tile.end),
            placed: PlacedMarks::of(&drawn, view),
            cards: chosen.into_iter().map(|(index, _)| index).collect(),
            width,
            panel_width,
        }
    }
}

impl Picture {
    /// The picture as the digest of the whole dump `view` asked for: its header counts every
    /// function and tile and every finding, and says how many functions are drawn in full (its
    /// cards) and how many are summarised (a row of the digest's table alone), so the header of a
    /// digest never describes only the cards it could fit.
    pub fn as_digest(mut self, map: &MemoryMap, whole: &ViewOptions) -> Picture {
        let all = map.functions.iter().filter(|f| whole.draws(&f.name)).count();
        let full = self.cards.len();
        self.header = Header::of(map, whole);
        self.header.functions = format!("{all}: {full} in full, {} summarised", all - full);
        self.findings = Findings::of(&drawn_findings(map, whole));
        self
    }
}

impl Findings {
    fn of(findings: &[&crate::model::Finding]) -> Findings {
        let owned: Vec<crate::model::Finding> = findings.iter().map(|f| (*f).clone()).collect();
        let (errors, warnings, _) = crate::findings::counts(&owned);
        let level = if errors > 0 {
            "crit"
        } else if warnings > 0 {
            "warn"
        } else {
            "muted"
        };
        let mut listed: Vec<&&crate::model::Finding> =
            findings.iter().filter(|f| matches!(f.severity, Severity::Error | Severity::Warning)).collect();
        listed.sort_by_key(|f| f.severity);
        let listed = listed
            .into_iter()
            .map(|f| {
                let at = f.line.map(|l| format!(" L{l}")).unwrap_or_default();
                let place =
                    [f.function.as_deref(), f.space.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
                let place = format!("{place}{at}");
                let place = if place.trim().is_empty() { String::new() } else { format!(" · {}", place.trim()) };
                (format!("{} {}{place} · {}", f.severity.as_str(), f.code, f.message), f.severity == Severity::Error)
            })
            .collect();
        Findings {
            counts: format!("findings: {}", crate::findings::counts_text(&owned)),
            level,
            overflow: findings.iter().any(|f| f.code == "overflow"),
            listed,
        }
    }
}

/// What the header counts: the findings about the functions `view` draws (or about the whole
/// dump) in the spaces it shows.
fn drawn_findings<'a>(map: &'a MemoryMap, view: &ViewOptions) -> Vec<&'a crate::model::Finding> {
    crate::findings::drawn(map, &view.functions, &view.hidden)
}
