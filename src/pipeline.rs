//! The crate's entry points, from a dump to bytes: loading a map, and rendering it in each format
//! within the run's limits (the output limit, the PNG's pixel limit and its digest, the page
//! written as it is made). `lib.rs` re-exports them; nothing below calls back up here.

use std::path::Path;

use crate::scene::digest::Heading;
use crate::{Dump, Error, Format, MemoryMap, Result, ViewOptions, build};
use crate::{analyze, backend, budget, compare, error, findings, par, plan, render, scene};

/// Reads the dump at `path` (a dump, a `passes_dump/` folder or a case folder) and builds its memory map with the built-in backends.
pub fn load(path: &Path, pass_name: &str, backend: Option<&str>) -> Result<MemoryMap> {
    load_with(path, pass_name, backend, &backend::Backends::builtin())
}

/// [`load`], choosing among `backends` (built-in ones and SoC files).
pub fn load_with(
    path: &Path,
    pass_name: &str,
    backend: Option<&str>,
    backends: &backend::Backends,
) -> Result<MemoryMap> {
    let dump = Dump::open(path, pass_name)?;
    let choice = backends.choose(backend, dump.path.as_deref())?;
    findings::build_with(&dump, choice, backends)
}

/// Everything a caller can ask of one render.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// The output format.
    pub format: Format,
    /// Backend name; `None` detects it (files) or assumes the default (posted text).
    pub backend: Option<String>,
    /// How to draw.
    pub view: ViewOptions,
    /// Device pixel ratio of PNG output, 1 to 4.
    pub scale: f64,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            format: Format::CLI_DEFAULT,
            backend: None,
            view: ViewOptions::default(),
            scale: plan::DEFAULT_SCALE,
        }
    }
}

/// Renders a dump that arrived as bytes (a request body); `name` is how messages refer to it.
pub fn render_bytes(name: &str, bytes: Vec<u8>, opts: &RenderOptions) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    render_bytes_to(name, bytes, opts, &mut out)?;
    Ok(out)
}

/// [`render_bytes`] into `out`, as the output is made (the service spools large answers to disk).
pub(crate) fn render_bytes_to(
    name: &str,
    bytes: Vec<u8>,
    opts: &RenderOptions,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let dump = Dump::from_bytes(name, bytes)?;
    let map = build(&dump, backend::choose(opts.backend.as_deref(), None)?)?;
    render_map_to(&map, opts, out)
}

/// Renders a memory map in the requested format, within the run's output limit (see [`budget`]).
pub fn render_map(map: &MemoryMap, opts: &RenderOptions) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    render_map_to(map, opts, &mut bytes)?;
    Ok(bytes)
}

/// [`render_map`] into `out`, as the output is made: the page of a large dump is written a few
/// cards at a time rather than held whole. Within the run's output limit, counted as it goes; an
/// error from `out` is an [`crate::ErrorKind::Io`] error with the system's words, its path left
/// for the writer to name.
pub fn render_map_to(map: &MemoryMap, opts: &RenderOptions, out: &mut dyn std::io::Write) -> Result<()> {
    let mut out = Limited { out, written: 0, limit: budget::limits().output_bytes, over: false };
    let written = write_map(map, opts, &mut out);
    out.finish(written)
}

/// A writer that refuses to go past the run's output limit.
struct Limited<'a> {
    out: &'a mut dyn std::io::Write,
    written: usize,
    limit: usize,
    /// The limit was passed (the writer's error is that).
    over: bool,
}

impl Limited<'_> {
    /// The outcome of writing through this writer: the limit's refusal, or what the writing gave.
    fn finish(self, written: Result<()>) -> Result<()> {
        if self.over {
            return Err(budget::Limits::refuse(
                "bytes of output",
                self.written,
                self.limit,
                budget::Limit::OutputBytes,
            ));
        }
        written
    }
}

impl std::io::Write for Limited<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.written = self.written.saturating_add(buf.len());
        if self.written > self.limit {
            self.over = true;
            return Err(std::io::Error::other("over the output limit"));
        }
        self.out.write_all(buf).map(|()| buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

fn write_map(map: &MemoryMap, opts: &RenderOptions, out: &mut dyn std::io::Write) -> Result<()> {
    // The packed view is a map with more lanes, drawn as any map is (see `plan::packed`); a hidden
    // space hides its packed lane too.
    if opts.view.packed && matches!(opts.format, Format::Svg | Format::Png | Format::Html) {
        let (packed, hidden) = plan::packed::with_packed_lanes(map, &opts.view.hidden);
        let view = ViewOptions { packed: false, hidden, ..opts.view.clone() };
        return write_map(&packed, &RenderOptions { view, ..opts.clone() }, out);
    }
    opts.view.validate(map)?;
    budget::checkpoint()?;
    if !opts.view.fits.is_empty() {
        let mut answered = map.clone();
        analyze::answer_fits(&mut answered, &opts.view.fits)?;
        let view = ViewOptions { fits: Vec::new(), ..opts.view.clone() };
        return write_map(&answered, &RenderOptions { view, ..opts.clone() }, out);
    }
    // Refused before anything is planned or drawn when even its least size is past the limit.
    let least = least_output_bytes(map, opts);
    let limit = budget::limits().output_bytes;
    if let Some(least) = least.filter(|&least| least > limit) {
        return Err(budget::Limits::refuse(
            "bytes of output, at the least (counted from the map before drawing)",
            least,
            limit,
            budget::Limit::OutputBytes,
        ));
    }
    if opts.format == Format::Html {
        return write_page(map, &opts.view, out);
    }
    if opts.format == Format::Json {
        return write_json(map, &opts.view, out);
    }
    let bytes = render_unchecked(map, opts)?;
    // A builder past the deadline stopped early: what it made is not the output.
    budget::checkpoint()?;
    out.write_all(&bytes).map_err(|e| Error::io(&e))
}

/// The JSON report of what `view` draws of `map`, written as it is made.
fn write_json(map: &MemoryMap, view: &ViewOptions, out: &mut dyn std::io::Write) -> Result<()> {
    let written = render::json::write(&chosen(map, view), out);
    // Writing stops early past the deadline: that is the error then.
    budget::checkpoint()?;
    written.map_err(|e| Error::io(&e))
}

/// The least bytes `map` rendered as `opts` asks can take ([`render::least`]): its boxes, their
/// names and its lines, counted over the functions it draws (every one in the page, which has a
/// card for each) without the hidden spaces' boxes. `None` for a format with no such bound (PNG,
/// bounded by its pixels; the text report).
pub fn least_output_bytes(map: &MemoryMap, opts: &RenderOptions) -> Option<usize> {
    let view = &opts.view;
    let every = opts.format == Format::Html;
    let mut c = render::least::Counts::default();
    for f in map.functions.iter().filter(|f| every || view.draws(&f.name)) {
        c.lines += crate::plan::RowMap::of(f).drawn_lines() as usize;
        c.line_bytes += f.source.iter().map(str::len).sum::<usize>();
        for b in f.blocks.iter().filter(|b| !view.hidden.contains(&b.tile.space)) {
            c.boxes += 1;
            c.names += b.tile.name.len();
            c.others += b.tile.base.len() + b.aliases.iter().map(String::len).sum::<usize>();
        }
    }
    render::least::bytes(opts.format, &c)
}

/// Maps with up to this many boxes have their page's card plans made once and held (some 35 MB of
/// plans at the most); a larger map's are made twice, a batch at a time, which costs about a tenth
/// more time and keeps the memory of a whole model's page near its dump's size.
const HELD_PLAN_BOXES: usize = 20_000;

/// The HTML page, written a few cards at a time.
fn write_page(map: &MemoryMap, view: &ViewOptions, out: &mut dyn std::io::Write) -> Result<()> {
    write_page_planned(map, view, out, map.block_count() <= HELD_PLAN_BOXES)
}

/// The page, its card plans held (`hold`) or made twice a batch at a time: the same bytes.
fn write_page_planned(map: &MemoryMap, view: &ViewOptions, out: &mut dyn std::io::Write, hold: bool) -> Result<()> {
    // Every function gets a card, so the page can show any of them; the view options set the
    // static pictures' look. The static pictures are laid out from the plans the script draws.
    let every = ViewOptions { functions: Vec::new(), ..view.clone() };
    let planner = plan::Planner::new(map, &every);
    let flow = scene::Flow::new(&plan::Picture::of(map, &every, &planner.panels()));
    let font = plan::text::FONT_FAMILY;
    // A card is laid out and drawn in one job, and its layout dropped there.
    let draw = |range: std::ops::Range<usize>, plans: &[plan::CardPlan]| {
        let jobs: Vec<_> = range.zip(plans).collect();
        let views = par::map_ref_heavy_first(
            &jobs,
            |(_, plan)| plan.boxes.len(),
            |&(at, plan)| {
                let card = flow.card_apart(at, plan)?;
                Some(render::html::CardView {
                    svg: Some(render::svg::render_card(font, &card)),
                    pills: plan.pills.clone(),
                    notes: plan.summary.clone(),
                })
            },
        );
        views.into_iter().flatten().collect()
    };
    let rules = plan::rules_json();
    if hold {
        // The data is gzipped beside the plan, on the cores the plan leaves idle, rather than on
        // the writer's thread while the cards are drawn.
        let mut page = plan::Page::of(map);
        let (plan, ()) = par::both(true, || plan::planned(map, &every, &planner), || page.pack_data());
        budget::checkpoint()?;
        let held = |range: std::ops::Range<usize>| draw(range.clone(), plan.cards.get(range).unwrap_or_default());
        let written = render::html::write(&page, &held, &rules, &plan, out);
        par::drop_later(plan);
        return written;
    }
    // Each card is planned twice, once as the plan is packed and once as its picture is drawn.
    let plan = plan::PlanStream::new(map, &every, &planner);
    budget::checkpoint()?;
    let twice = |range: std::ops::Range<usize>| draw(range.clone(), &planner.pictures(range));
    render::html::write(&plan::Page::of(map), &twice, &rules, &plan, out)
}

/// The scene of `map` drawn as `view` asks (validated against it): the map planned, then the plan
/// placed in pixels. The scene reads the plan alone.
pub fn layout(map: &MemoryMap, view: &ViewOptions) -> scene::Scene {
    png_layout(map, view)(view, Heading::Drawn)
}

/// How a PNG of `map` drawn as `whole` lays out a scene for its view: as [`layout`], and for a
/// digest of the whole dump with a header that counts all of it (see [`scene::digest`]).
pub fn png_layout<'a>(
    map: &'a MemoryMap,
    whole: &'a ViewOptions,
) -> impl Fn(&ViewOptions, Heading) -> scene::Scene + 'a {
    move |view, heading| {
        let planner = plan::Planner::new(map, view);
        let plans = planner.cards(0..planner.len());
        let picture = plan::Picture::of(map, view, &planner.panels());
        let picture = if heading == Heading::Digest { picture.as_digest(map, whole) } else { picture };
        let scene = scene::layout(&picture, &plans);
        par::drop_later(plans); // as the scene is: freed on a worker
        scene
    }
}

/// The scene of the diff `d` of `old` and `new` drawn as `view` asks: the pairs planned, then
/// placed in pixels.
pub fn diff_layout(old: &MemoryMap, new: &MemoryMap, d: &compare::MapDiff, view: &ViewOptions) -> scene::Scene {
    scene::diff_scene(&plan::diff::DiffPicture::of(old, new, d, view))
}

/// Refuses an output over the run's limit, naming the option that raises it.
fn within_output_limit(bytes: Vec<u8>) -> Result<Vec<u8>> {
    let limit = budget::limits().output_bytes;
    if bytes.len() > limit {
        return Err(budget::Limits::refuse("bytes of output", bytes.len(), limit, budget::Limit::OutputBytes));
    }
    Ok(bytes)
}

/// The formats other than the page, whole, for a map whose view was validated and fits answered.
fn render_unchecked(map: &MemoryMap, opts: &RenderOptions) -> Result<Vec<u8>> {
    match opts.format {
        Format::Json => {
            let mut out = Vec::new();
            write_json(map, &opts.view, &mut out)?;
            Ok(out)
        }
        Format::Txt => Ok(render::txt::render(&chosen(map, &opts.view)).into_bytes()),
        Format::Svg => {
            let scene = layout(map, &opts.view);
            budget::checkpoint()?;
            let svg = render::svg::render(&scene).into_bytes();
            // Freeing every shape took 1.6 % of the decode case's SVG, on this thread, after it.
            par::drop_later(scene);
            Ok(svg)
        }
        Format::Html => {
            let mut page = Vec::new();
            write_page(map, &opts.view, &mut page)?;
            Ok(page)
        }
        Format::Png => {
            plan::SCALE.check("scale", opts.scale)?;
            // The picture's size is known from the scene (or from the line counts) before any SVG
            // text or pixel: one past the limit is refused then, or a whole dump gets its digest.
            let overview = plan::overview::Overview::of(map);
            let lay = png_layout(map, &opts.view);
            let scene =
                render::digest::png_scene(&overview, &lay, &opts.view, opts.scale).map_err(|e| advise(e, map, opts))?;
            budget::checkpoint()?;
            let head = plan::Header::of(map, &opts.view);
            let meta = render::png::Metadata { dump: &head.dump, pass_name: &head.pass_name, backend: &head.backend };
            render::png::render_scene(scene, opts.scale, &meta).map_err(|e| advise(e, map, opts))
        }
    }
}

/// The part of `map` that `view` draws, for the JSON: the chosen functions (`--function`), without
/// the hidden spaces (`--hide`) and their boxes and fit answers; a function keeps its first space
/// when every one is hidden, as its card does.
fn chosen<'a>(map: &'a MemoryMap, view: &ViewOptions) -> std::borrow::Cow<'a, MemoryMap> {
    let drawn = findings::drawn(map, &view.functions, &view.hidden);
    // `drawn` keeps the findings' order, so as many as the map's are the map's: the whole map is
    // drawn, and copying it (2 % of the decode case's JSON) would change nothing.
    if view.functions.is_empty() && view.hidden.is_empty() && drawn.len() == map.findings.len() {
        return std::borrow::Cow::Borrowed(map);
    }
    let mut out = map.clone();
    out.functions.retain(|f| view.draws(&f.name));
    for f in &mut out.functions {
        let keep_first = f.spaces.iter().all(|s| view.hidden.contains(&s.space));
        let first = f.spaces.first().map(|s| s.space.clone());
        let shown = |space: &String| !view.hidden.contains(space) || (keep_first && Some(space) == first.as_ref());
        f.spaces.retain(|s| shown(&s.space));
        f.blocks.retain(|b| shown(&b.tile.space));
        f.fits.retain(|a| shown(&a.space));
    }
    // The findings about what is drawn (or about the whole dump), so a report's counts are its own.
    out.findings = drawn.into_iter().cloned().collect();
    std::borrow::Cow::Owned(out)
}

/// Fills in a picture-too-large error's advice: only what `opts` did not already ask for (no
/// `scale 1` to a render at scale 1, no one function to a render of one function), and first the
/// small spaces that widen the map, which are usually the cause.
fn advise(mut err: Error, map: &MemoryMap, opts: &RenderOptions) -> Error {
    let error::Detail::PictureTooLarge { advice, widening: wide, functions, .. } = &mut *err.detail else {
        return err;
    };
    let v = &opts.view;
    let set = |option: &'static str, value: &str| error::Advice::Set { option, value: value.to_string() };
    let widening = plan::width::widening_spaces(map, v);
    if !widening.is_empty() {
        advice.push(set("hide", &widening.join(",")));
        *wide = widening.iter().map(|s| s.to_string()).collect();
    }
    if v.functions.len() != 1 {
        advice.extend([error::Advice::Split, set("function", "NAME")]);
        *functions = map.functions.iter().filter(|f| v.draws(&f.name)).map(|f| f.name.clone()).collect();
    }
    if opts.scale > 1.0 {
        advice.push(set("scale", "1"));
    }
    if v.zoom > 1.0 {
        advice.push(set("zoom", "1"));
    }
    // A small space that sets the scale makes the `used` axis wider still, so it is not advised then.
    if v.x_axis == plan::XAxis::Limit && widening.is_empty() {
        advice.push(set("x_axis", "used"));
    }
    if v.scale_mode == plan::ScaleMode::Strict {
        advice.push(set("scale_mode", "insets"));
    }
    if advice.is_empty() {
        advice.extend([set("hide", "SPACE"), set("width", "PX")]);
    }
    err
}

/// Formats of a diff: the pictures, plus Markdown for a review comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFormat {
    /// A map format: the two maps drawn side by side (or the diff as JSON).
    Map(Format),
    /// A review comment.
    Markdown,
}

/// The formats a diff is written in, as an error about another says.
const DIFF_FORMATS: &str = "svg, png, html, md or json (a diff has no txt)";

impl std::str::FromStr for DiffFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<DiffFormat> {
        if s.eq_ignore_ascii_case("md") || s.eq_ignore_ascii_case("markdown") {
            return Ok(DiffFormat::Markdown);
        }
        s.parse()
            .ok()
            .filter(|f| *f != Format::Txt)
            .map(DiffFormat::Map)
            .ok_or_else(|| Error::bad_value("format", s, DIFF_FORMATS))
    }
}

impl DiffFormat {
    /// File extension, and the name `format=` / `-f` take.
    pub fn extension(self) -> &'static str {
        match self {
            DiffFormat::Map(f) => f.extension(),
            DiffFormat::Markdown => "md",
        }
    }

    /// HTTP `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            DiffFormat::Map(f) => f.content_type(),
            DiffFormat::Markdown => "text/markdown; charset=utf-8",
        }
    }
}

/// Compares two maps and renders the comparison.
pub fn render_diff(
    old: &MemoryMap,
    new: &MemoryMap,
    format: DiffFormat,
    view: &ViewOptions,
    scale: f64,
) -> Result<Vec<u8>> {
    budget::checkpoint()?;
    let d = compare::diff(old, new);
    budget::checkpoint()?;
    let scene = || diff_layout(old, new, &d, view);
    let picture = || render::svg::render_markup(&scene());
    let out = match format {
        DiffFormat::Markdown => Ok(render::md::render(&d).into_bytes()),
        DiffFormat::Map(Format::Json) => Ok(budget::json_capped(&d)),
        DiffFormat::Map(Format::Svg) => Ok(picture().into_string().into_bytes()),
        DiffFormat::Map(Format::Html) => {
            let scene = scene();
            // A picture up to FITTED viewports wide is shrunk to the page's width, so both sides of
            // each pair are in view at once; a wider one (stacked pairs) keeps its size and scrolls.
            let fit = scene.width <= scene::DIFF_VIEWPORT * scene::DIFF_FITTED;
            Ok(render::diff::html(&d, &render::svg::render_markup(&scene), fit).into_bytes())
        }
        DiffFormat::Map(Format::Png) => {
            // The diff's scene drawn as a map's is, by the one raster path: no SVG text between
            // (the scene's size is refused past the pixel limit before anything is drawn).
            plan::SCALE.check("scale", scale)?;
            let scene = scene();
            budget::checkpoint()?;
            let head = plan::Header::of(new, view);
            let meta = render::png::Metadata { dump: &head.dump, pass_name: &head.pass_name, backend: &head.backend };
            render::png::render_scene(scene, scale, &meta)
        }
        DiffFormat::Map(Format::Txt) => Err(Error::bad_value("format", "txt", DIFF_FORMATS)),
    };
    let out = out?;
    budget::checkpoint()?; // a builder past the deadline stopped early
    within_output_limit(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    /// Takes this many bytes, then fails every write, as a full disk does (a write that does not fit
    /// takes what fits); keeps what it took.
    struct Breaks {
        room: usize,
        took: Vec<u8>,
    }

    impl std::io::Write for Breaks {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 && !buf.is_empty() {
                return Err(std::io::Error::other("the disk is full"));
            }
            let took = buf.len().min(self.room);
            self.room -= took;
            self.took.extend_from_slice(&buf[..took]);
            Ok(took)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_page_whose_writer_fails_among_the_cards_stops_with_its_error() {
        // Pictures are drawn batches ahead of the writing: when the writing stops, so must that.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx_a2a3_case");
        let map = load(&path, crate::dump::DEFAULT_PASS, None).unwrap().with_copies(60);
        assert!(map.functions.len() > 150, "several batches of cards");
        let mut whole = Vec::new();
        write_page_planned(&map, &ViewOptions::default(), &mut whole, true).unwrap();
        let card = "<section class=\"card\"";
        let first = String::from_utf8_lossy(&whole).find(card).unwrap();
        let map = std::sync::Arc::new(map);
        for hold in [true, false] {
            // On a thread of its own, so that a page that never ends fails the test, not hangs it.
            let (done, outcome) = std::sync::mpsc::channel();
            let map = std::sync::Arc::clone(&map);
            std::thread::spawn(move || {
                let mut out = Breaks { room: first + 60_000, took: Vec::new() };
                let err = write_page_planned(&map, &ViewOptions::default(), &mut out, hold).unwrap_err();
                let _ = done.send((err, String::from_utf8_lossy(&out.took).matches(card).count()));
            });
            let (err, cards) = outcome.recv_timeout(std::time::Duration::from_secs(120)).expect("the page stops");
            assert_eq!(err.kind, ErrorKind::Io, "{err}");
            assert!(err.to_string().contains("the disk is full"), "{err}");
            assert!(cards >= 2, "it failed among the cards, {cards} written");
        }
    }

    #[test]
    fn a_page_is_the_same_whether_its_plans_are_held_or_made_twice() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx_a2a3_case");
        let map = load(&path, crate::dump::DEFAULT_PASS, None).unwrap().with_copies(40);
        let page = |hold| {
            let mut out = Vec::new();
            write_page_planned(&map, &ViewOptions::default(), &mut out, hold).unwrap();
            out
        };
        let (held, twice) = (page(true), page(false));
        assert!(held.len() > 100_000 && held == twice, "{} and {} bytes", held.len(), twice.len());
    }
}
