//! Progressive HTML page: the static SVG of each card is readable at once; the script upgrades it.
//!
//! Everything a reader needs without scripts (header, one card per function with its pills and its
//! static SVG, the closed cards' inside `<noscript>`) is plain HTML. The map data and the plan ride
//! along as gzipped JSON (base64), the layout rules as JSON, so the script can rebuild each card as
//! an interactive view when it is opened; nothing is fetched.

use std::fmt::Write as _;
use std::ops::Range;

use serde_json::Value;

use crate::plan::PageLines;

use super::xml::{Markup, Value as Attr, Xml};
use crate::plan::page::{CardHead, DataPayload, Header, Page};
use crate::plan::{Pill, Plan};

const PAGE_CSS: &str = include_str!("page/page.css");
const PAGE_JS: &str = include_str!("page/page.js");

/// The page's script as it ships: without its comments (see [`lean`]).
fn page_script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| lean(PAGE_JS))
}

/// The page's stylesheet as it ships, without its comments.
fn page_css() -> &'static str {
    static CSS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CSS.get_or_init(|| lean(PAGE_CSS))
}

/// `source` (the page's own script or stylesheet) without whole-line comments, blank lines and
/// indentation: a third of the sources' bytes that every page would carry and no reader runs. Only
/// whole lines go, and each kept line keeps its end, so no statement is joined to another; the
/// sources hold no string that spans lines, where indentation would count (a test checks).
fn lean(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut in_block = false;
    for line in source.lines() {
        let t = line.trim_start();
        if in_block {
            in_block = !t.contains("*/");
            continue;
        }
        if t.starts_with("/*") {
            match t.find("*/") {
                None => in_block = true,
                Some(end) if t[end + 2..].trim().is_empty() => {}
                Some(_) => {
                    out.push_str(t);
                    out.push('\n');
                }
            }
            continue;
        }
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        out.push_str(t);
        out.push('\n');
    }
    out
}

/// `page` is what the page says besides the cards' plans (see [`Page`]); `static_cards[i]` is the
/// static SVG of the page's card `i` (from the SVG back end);
/// `rules_json` is the layout rules as a JSON object (see below).
///
/// The rules object carries `line_px`, `min_lane_px`, `min_box_px`, `zoom_step`, `zoom_min`,
/// `zoom_max`, `panel_px`, `splitter_min`, `splitter_max`, `splitter_default`, `plot_max_vh`,
/// `occupancy_warn`, `occupancy_crit` and `colors` (`light`/`dark` per space plus `good`, `warning`,
/// `critical`). The page reads every number from it, so the layout engine stays the one authority.
///
/// The page is written with the typed writer of [`super::xml`], like the SVG: text from the dump
/// goes in only as escaped text or attribute values, and the cards only as markup that writer made.
///
/// `plan` is what the layout engine decided for every card (see [`crate::plan`]): the
/// script draws it at the reader's factor, and the pills here are its texts.
pub fn render(page: &Page, static_cards: &[Markup], rules_json: &str, plan: &Plan) -> String {
    let view = |i: usize| {
        // The plan has a card per function, in order; a search only if it ever has not.
        let f = &page.cards[i];
        let planned = plan.cards.get(i).filter(|c| c.function == f.name);
        let planned = planned.or_else(|| plan.cards.iter().find(|c| c.function == f.name));
        CardView {
            svg: static_cards.get(i).cloned(),
            pills: planned.map(|c| c.pills.clone()).unwrap_or_default(),
            notes: planned.map(|c| c.summary.clone()).unwrap_or_default(),
        }
    };
    let draw = |range: Range<usize>| range.map(view).collect();
    // Writing to memory cannot fail, nor can a page without a run's deadline stop.
    let mut out = Vec::new();
    let _ = write(page, &draw, rules_json, plan, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// What the page shows of a card besides its plan: its static picture, and its plan's pills and
/// summary lines.
pub struct CardView {
    /// The static SVG of the card (from the SVG back end).
    pub svg: Option<Markup>,
    /// The pills beside its title.
    pub pills: Vec<Pill>,
    /// The summary lines under it.
    pub notes: Vec<String>,
}

/// Makes the [`CardView`]s of a range of the page's cards (see [`write()`]).
pub type StaticCards<'a> = dyn Fn(Range<usize>) -> Vec<CardView> + Sync + 'a;

/// Cards drawn and written at a time: the page of a whole model's dump is never held whole.
const CARDS_AT_ONCE: usize = 32;

/// [`render`] into `out`, as it is made: the head with the packed data (`plan` is the [`Plan`], or a
/// [`crate::plan::PlanStream`] that writes the same, as [`PageLines`]), then the body a few cards at a time,
/// each batch's static pictures drawn by `static_cards` (see `draw_ahead`) and dropped once
/// written. Stops past the run's deadline (see [`crate::budget`]); a write error is an
/// [`ErrorKind::Io`](crate::ErrorKind::Io) error.
pub fn write(
    page: &Page,
    static_cards: &StaticCards,
    rules_json: &str,
    plan: &impl PageLines,
    out: &mut dyn std::io::Write,
) -> crate::Result<()> {
    let io = |e: std::io::Error| crate::Error::io(&e);
    let n = page.cards.len();
    // Batches of even size: 38 cards drawn as 32 and 6 left the cores one large card to share.
    let size = n.div_ceil(n.div_ceil(CARDS_AT_ONCE).max(1)).max(1);
    let batches: Vec<Range<usize>> = (0..n).step_by(size).map(|from| from..(from + size).min(n)).collect();
    std::thread::scope(|s| {
        // The plan and the pictures are started first: the head is theirs to overlap too.
        let budget = crate::budget::current();
        let plan = pack_plan(s, plan, budget.clone());
        let drawn = draw_ahead(s, &batches, static_cards, budget);
        let mut x = head(&page.header, rules_json);
        x.raw_text_to("script", &payload_attrs("pmm-data"), out, |out| match &page.data {
            DataPayload::Streamed(data) => {
                let mut b64 = base64::write::EncoderWriter::new(out, &base64::engine::general_purpose::STANDARD);
                data.write_gzip(&mut b64)?;
                b64.finish().map(drop)
            }
            DataPayload::Gzipped(Ok(gzipped)) => base64_to(gzipped, out),
            DataPayload::Gzipped(Err(e)) => Err(std::io::Error::new(e.kind(), e.to_string())),
        })
        .map_err(io)?;
        x.newline();
        x.drain_to(out).map_err(io)?;
        let mut rest = AfterPlan::new(plan, out);
        x.raw_text("script", &[], &format!("\n{}", page_script()));
        x.close();
        x.newline();
        write_body(x, page, &batches, drawn.as_ref(), static_cards, &mut rest)?;
        rest.release().map_err(io)
    })
}

/// The page up to its payloads: the head's metadata, the stylesheet with the rules' colours, and
/// the rules.
fn head(header: &Header, rules_json: &str) -> Xml {
    let rules: Value = serde_json::from_str(rules_json).unwrap_or(Value::Null);
    let mut x = Xml::html();
    x.open("html", &[("lang", "en".into())]);
    x.newline();
    x.open("head", &[]);
    x.leaf("meta", &[("charset", "utf-8".into())]);
    x.leaf("meta", &[("name", "viewport".into()), ("content", "width=device-width, initial-scale=1".into())]);
    x.leaf("meta", &[("name", "color-scheme".into()), ("content", "light dark".into())]);
    x.leaf("meta", &[("name", "generator".into()), ("content", "pto-memory-map".into())]);
    x.element("title", &[], &header.title);
    // Colours come from the rules, so they are emitted as custom properties next to the stylesheet.
    x.raw_text("style", &[], &format!("\n{}\n{}", palette_css(&rules), page_css()));
    x.newline();
    // The data ride in the head, and the script with them: it starts inflating them while the body
    // is still being parsed, and wires the page once both are done.
    x.raw_text("script", &[("type", "application/json".into()), ("id", "pmm-rules".into())], rules_json);
    x.newline();
    x
}

/// A batch of cards drawn ahead, or the panic that stopped the drawing.
type Drawn = std::thread::Result<Vec<CardView>>;

/// Starts drawing the cards' pictures, `batches` in order, on a thread of their own (with the
/// workers' stack) when the run may use more than one core: the drawing takes up the cores the
/// payloads leave idle, and the writing of one batch overlaps the drawing of the next. At most two
/// batches wait, one sent and one being sent. The drawing stops when no one reads (the page stopped
/// on an error) or the run is past its deadline; a panic is sent on for the writer to raise.
/// `None` (one core, or no thread to be had): the writer draws each batch itself.
fn draw_ahead<'s>(
    s: &'s std::thread::Scope<'s, '_>,
    batches: &'s [Range<usize>],
    static_cards: &'s StaticCards,
    budget: crate::budget::Budget,
) -> Option<std::sync::mpsc::Receiver<Drawn>> {
    if crate::par::cores() < 2 || batches.is_empty() {
        return None;
    }
    let (ready, drawn) = std::sync::mpsc::sync_channel::<Drawn>(1);
    let draw = move || {
        for range in batches.iter().cloned() {
            if crate::budget::expired() {
                break;
            }
            let batch = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| static_cards(range)));
            let panicked = batch.is_err();
            if ready.send(batch).is_err() || panicked {
                break;
            }
        }
    };
    let thread = std::thread::Builder::new().name("pmm-cards".into()).stack_size(crate::par::STACK_BYTES);
    thread.spawn_scoped(s, move || crate::budget::run(budget, draw)).ok().map(|_| drawn)
}

/// The plan, the larger payload, gzipped on a thread of its own from the start of the page.
fn pack_plan<'s, P: PageLines>(
    s: &'s std::thread::Scope<'s, '_>,
    plan: &'s P,
    budget: crate::budget::Budget,
) -> Packed<'s, P> {
    let job = std::thread::Builder::new().spawn_scoped(s, move || crate::budget::run(budget, || gzipped(plan)));
    Packed { plan, job: job.ok() }
}

/// The plan being packed (see [`pack_plan`]); no thread when none was to be had.
struct Packed<'s, P> {
    plan: &'s P,
    job: Option<std::thread::ScopedJoinHandle<'s, std::io::Result<Vec<u8>>>>,
}

impl<P: PageLines> Packed<'_, P> {
    /// Whether [`Packed::bytes`] would not wait.
    fn is_ready(&self) -> bool {
        self.job.as_ref().is_none_or(|job| job.is_finished())
    }

    /// The gzipped plan, packed here if its thread panicked or never started.
    fn bytes(mut self) -> std::io::Result<Vec<u8>> {
        match self.job.take() {
            Some(job) => job.join().unwrap_or_else(|_| gzipped(self.plan)),
            None => gzipped(self.plan),
        }
    }
}

impl<P> Drop for Packed<'_, P> {
    /// A plan never written (the page stopped on an error) is waited for here, its panic if any
    /// dropped: the scope would otherwise raise it in place of the page's own error.
    fn drop(&mut self) {
        if let Some(job) = self.job.take() {
            let _ = job.join();
        }
    }
}

/// At most this much of the page is held back while the plan is packed; past it, the writer waits
/// for the plan. The 481 KB dump's page holds 75 KB; its 16x reaches the bound.
const HELD_BYTES: usize = 1 << 20;

/// The page's output from the plan's place on (the head, after the data): what the writer makes
/// while the plan is still being packed is held rather than waited for, up to [`HELD_BYTES`], and
/// goes out after the plan as soon as it is packed. So the body is written meanwhile, and the plan
/// still comes first, where the script starts inflating it while the body is parsed.
struct AfterPlan<'s, 'o, P> {
    /// The plan, until it is written.
    plan: Option<Packed<'s, P>>,
    held: Vec<u8>,
    out: &'o mut dyn std::io::Write,
    /// Writing the plan or what was held failed: the page is broken, every later write fails.
    failed: bool,
}

impl<'s, 'o, P: PageLines> AfterPlan<'s, 'o, P> {
    fn new(plan: Packed<'s, P>, out: &'o mut dyn std::io::Write) -> Self {
        AfterPlan { plan: Some(plan), held: Vec::new(), out, failed: false }
    }

    /// Writes the plan (waiting for it if need be), then what was held. Once only.
    fn release(&mut self) -> std::io::Result<()> {
        let Some(plan) = self.plan.take() else { return self.broken() };
        let mut x = Xml::html_fragment();
        let written = x
            .raw_text_to("script", &payload_attrs("pmm-plan"), self.out, |out| base64_to(&plan.bytes()?, out))
            .and_then(|()| x.finish_to(self.out)) // and a line break
            // In pieces, so that an output limit stops the page near the limit, not a megabyte on.
            .and_then(|()| std::mem::take(&mut self.held).chunks(64 << 10).try_for_each(|c| self.out.write_all(c)));
        self.failed = written.is_err();
        written
    }

    /// An error if an earlier release failed.
    fn broken(&self) -> std::io::Result<()> {
        match self.failed {
            true => Err(std::io::Error::other("an earlier write of the page failed")),
            false => Ok(()),
        }
    }
}

impl<P: PageLines> std::io::Write for AfterPlan<'_, '_, P> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.broken()?;
        if let Some(plan) = &self.plan {
            if !plan.is_ready() && self.held.len() + buf.len() <= HELD_BYTES {
                if self.held.capacity() == 0 {
                    // Its pages are touched only as they are written: no copy as it grows.
                    self.held.reserve(HELD_BYTES);
                }
                self.held.extend_from_slice(buf);
                return Ok(buf.len());
            }
            self.release()?;
        }
        self.out.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The type of a payload's `<script>` and its id.
fn payload_attrs(id: &'static str) -> [(&'static str, Attr<'static>); 2] {
    [("type", PAYLOAD_TYPE.into()), ("id", id.into())]
}

/// The body: header, overview table, one card per function, a batch of `batches` at a time, each
/// batch's pictures from `drawn` (see `draw_ahead`) or, without it, drawn here. A panic while
/// drawing ahead goes on here, as one on this thread would.
fn write_body(
    mut x: Xml,
    page: &Page,
    batches: &[Range<usize>],
    drawn: Option<&std::sync::mpsc::Receiver<Drawn>>,
    static_cards: &StaticCards,
    out: &mut dyn std::io::Write,
) -> crate::Result<()> {
    let io = |e: std::io::Error| crate::Error::io(&e);
    x.open("body", &[]);
    header(&mut x, &page.header);
    super::overview::table(&mut x, &page.overview);
    x.open("main", &[("class", "cards".into())]);
    if page.cards.is_empty() {
        x.element("p", &[("class", "empty".into())], "No compute function binds a tile in this dump.");
    }
    for range in batches {
        x.drain_to(out).map_err(io)?;
        crate::budget::checkpoint()?;
        let views = match drawn.map(|d| d.recv()) {
            Some(Ok(Ok(views))) => views,
            Some(Ok(Err(panic))) => std::panic::resume_unwind(panic),
            // Drawing ahead stopped short (past the deadline): the checkpoint above said so, or
            // the batch is drawn here.
            Some(Err(_)) | None => static_cards(range.clone()),
        };
        for (i, f) in page.cards.iter().enumerate().take(range.end).skip(range.start) {
            let view = views.get(i - range.start);
            let pills = view.map_or(&[][..], |v| &v.pills[..]);
            let notes = view.map_or(&[][..], |v| &v.notes[..]);
            card(&mut x, i, i == page.opens, f, view.and_then(|v| v.svg.as_ref()), pills, notes);
            // Out a card at a time: the page's buffer stays the size of one card.
            x.drain_to(out).map_err(io)?;
        }
    }
    x.close();
    x.newline();
    x.close();
    x.newline();
    x.close();
    x.newline();
    x.finish_to(out).map_err(io)
}

/// The type of the page's two large payloads: gzip, then base64 (a page is text). Any type that
/// is not JavaScript makes a `<script>` an inert data block.
const PAYLOAD_TYPE: &str = "application/gzip";

/// The plan as the page carries it ([`PageLines`]), gzipped, in memory (a tenth of its JSON's size
/// or less).
fn gzipped(plan: &impl PageLines) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(64 * 1024);
    plan.write_gzip(&mut out)?;
    Ok(out)
}

/// `bytes` in base64, written to `out` a block at a time.
fn base64_to(bytes: &[u8], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut b64 = base64::write::EncoderWriter::new(out, &base64::engine::general_purpose::STANDARD);
    b64.write_all(bytes)?;
    b64.finish()?;
    Ok(())
}

fn header(x: &mut Xml, head: &Header) {
    x.open("header", &[("class", "page-head".into())]);
    x.open("div", &[("class", "head-row".into())]);
    x.element("p", &[("class", "eyebrow".into())], "pto-memory-map");
    // Hidden until the script can honour it: without scripts the page follows the system theme.
    x.element(
        "button",
        &[
            ("type", "button".into()),
            ("class", "theme-toggle".into()),
            ("hidden", "".into()),
            ("aria-label", "Toggle dark mode".into()),
        ],
        "theme",
    );
    x.close();
    x.element("h1", &[], &head.heading);
    x.open("ul", &[("class", "facts".into())]);
    let fact = |x: &mut Xml, label: &str, value: &str, class: Option<&'static str>| {
        x.open("li", &[]);
        x.text(label);
        x.text(" ");
        x.element("b", &class.map(|c| vec![("class", c.into())]).unwrap_or_default(), value);
        x.close();
    };
    fact(x, "dump", &head.dump, Some("dump-name"));
    fact(x, "pass", &head.pass_name, None);
    fact(x, "compute functions", &head.functions, None);
    fact(x, "tiles", &head.tiles, None);
    x.open("li", &[("class", "backend".into())]);
    x.text("capacities ");
    x.element("b", &[], &head.backend);
    x.text(&format!(" ({})", head.arch));
    if !head.detected {
        x.text(" ");
        x.element(
            "em",
            &[
                ("class", "assumed".into()),
                (
                    "title",
                    "No ptoas/*.pto target arch was found next to the dump, so the capacities are this backend's \
                     by assumption, not measured"
                        .into(),
                ),
            ],
            "assumed",
        );
    }
    x.close();
    x.close();
    // The static picture's header carries the same notes (a CONCISE dump has no tile layouts; a
    // dump from before AllocateMemoryAddr has no addresses).
    for (note, _) in &head.notes {
        x.element("p", &[("class", "note concise".into())], note);
    }
    x.element(
        "p",
        &[("class", "note".into())],
        "Address across, dump line down. A tile is held from the line that binds it to its last read, or to the \
         end of a loop that reads it again, as the compiler's MemoryReuse holds it.",
    );
    x.close();
    x.newline();
}

fn card(x: &mut Xml, index: usize, open: bool, f: &CardHead, svg: Option<&Markup>, pills: &[Pill], notes: &[String]) {
    let id = format!("fn-{}", f.name);
    x.open(
        "section",
        &[
            ("class", "card".into()),
            ("data-function", f.name.as_str().into()),
            ("data-index", Attr::Int(index as i64)),
            ("id", id.as_str().into()),
        ],
    );
    // The worst card starts open, the others collapsed; <details> keeps cards collapsible without
    // scripts.
    let mut details: Vec<(&'static str, Attr)> = vec![("class", "card-details".into())];
    if open {
        details.push(("open", "".into()));
    }
    x.open("details", &details);
    x.open("summary", &[("class", "card-head".into())]);
    x.element("span", &[("class", "fn-name".into())], &f.name);
    x.text(" ");
    x.element("span", &[("class", "badge".into())], &f.ftype);
    super::overview::badges(x, f);
    x.open("span", &[("class", "pills".into())]);
    for p in pills {
        pill(x, p);
    }
    x.close();
    x.close();
    x.open("div", &[("class", "card-body".into())]);
    x.open("div", &[("class", "static-map".into())]);
    // A closed card's picture is for readers without scripts: with scripts, the browser keeps it
    // as unparsed text (a page of hundreds of cards opens in a fraction of the time), and the
    // script draws the card from the plan when it is opened.
    if !open {
        x.open("noscript", &[]);
    }
    match svg {
        Some(svg) => x.markup(svg),
        None => x.element("p", &[("class", "empty".into())], "No static image for this function."),
    }
    if !open {
        x.close();
    }
    x.close();
    // The static picture's lines under the card (idle tiles, fit answers), for the interactive view,
    // which replaces that picture; shown only once a card is live (page.css), so never twice.
    if !notes.is_empty() {
        x.open("ul", &[("class", "card-notes".into())]);
        for line in notes {
            let class = if line.starts_with("fit") { "fit" } else { "idle" };
            x.element("li", &[("class", class.into())], line);
        }
        x.close();
    }
    x.close();
    x.close();
    x.close();
    x.newline();
}

fn pill(x: &mut Xml, p: &Pill) {
    let class = format!("pill occ-{}", p.level);
    x.open(
        "span",
        &[
            ("class", class.as_str().into()),
            ("data-space", p.space.as_str().into()),
            ("title", p.title.as_str().into()),
        ],
    );
    x.leaf("i", &[("class", "sw".into()), ("aria-hidden", "true".into())]);
    x.text(&format!("{} ", p.text));
    x.element("span", &[("class", "pct".into())], &p.pct);
    x.text(" ");
    x.element("span", &[("class", "peak".into())], &p.peak);
    x.close();
}

/// Space colours as custom properties: light by default, dark when the system asks for it unless
/// the reader forced light, and dark when the reader forced it.
fn palette_css(rules: &Value) -> String {
    let colors = rules.get("colors");
    let scheme = |name: &str| -> String {
        let mut decl = String::new();
        if let Some(Value::Object(map)) = colors.and_then(|c| c.get(name)) {
            for (space, color) in map {
                if let (true, Some(color)) = (is_css_ident(space), color.as_str().filter(|c| is_css_color(c))) {
                    let _ = write!(decl, "--c-{space}:{color};");
                }
            }
        }
        decl
    };
    let mut status = String::new();
    for key in ["good", "warning", "critical"] {
        if let Some(color) = colors.and_then(|c| c.get(key)).and_then(Value::as_str).filter(|c| is_css_color(c)) {
            let _ = write!(status, "--{key}:{color};");
        }
    }
    // The shares of a space's colour the map's fills take (`style::mix`), per scheme.
    let shares = |name: &str| -> String {
        let mut decl = String::new();
        if let Some(Value::Object(map)) = colors.and_then(|c| c.get("mix")).and_then(|m| m.get(name)) {
            for (key, share) in map {
                if let (true, Some(share)) = (is_css_ident(key), share.as_f64()) {
                    let _ = write!(decl, "--mix-{key}:{}%;", (share * 1000.0).round() / 10.0);
                }
            }
        }
        decl
    };
    // The neutrals (page, card, text, frames, gridlines) of each theme: the pictures' own.
    let neutral = |name: &str| -> String {
        let mut decl = String::new();
        if let Some(Value::Object(map)) = colors.and_then(|c| c.get("neutral")).and_then(|m| m.get(name)) {
            for (key, color) in map {
                if let (true, Some(color)) = (is_css_ident(key), color.as_str().filter(|c| is_css_color(c))) {
                    let _ = write!(decl, "--{key}:{color};");
                }
            }
        }
        decl
    };
    let light = scheme("light") + &shares("light") + &neutral("light");
    let dark = scheme("dark") + &shares("dark") + &neutral("dark");
    let mut css = String::new();
    let _ = writeln!(css, ":root{{{light}{status}}}");
    let _ = writeln!(css, "@media (prefers-color-scheme: dark){{:root:not([data-theme=light]){{{dark}}}}}");
    let _ = writeln!(css, ":root[data-theme=dark]{{{dark}}}");
    // Each known space picks its colour, and its packed lane the same; any other space keeps the
    // `unknown` fallback.
    css.push_str("[data-space]{--c:var(--c-unknown, #7b858c)}\n");
    if let Some(Value::Object(map)) = colors.and_then(|c| c.get("light")) {
        let packed = crate::plan::packed::PACKED_SUFFIX;
        for space in map.keys().filter(|s| is_css_ident(s) && s.as_str() != "unknown") {
            let _ = writeln!(css, "[data-space=\"{space}\"],[data-space=\"{space}{packed}\"]{{--c:var(--c-{space})}}");
        }
    }
    css
}

fn is_css_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Only plain colour tokens (`#2a78d6`, `rgb(1, 2, 3)`) reach the stylesheet.
fn is_css_color(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "#(),.% ".contains(c))
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
