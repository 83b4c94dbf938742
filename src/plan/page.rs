//! What a picture or page says of the dump as a whole, and of each card's head: the title, the
//! facts (dump, pass, functions, tiles, capacities), the header's notes, each card's error badges,
//! the page's overview and its data payload. Written once here from the model, so the SVG's header,
//! the PNG's metadata and the page's header can never word the same fact differently, and no back
//! end that draws a picture reads the model.

use serde::Serialize;

use super::ViewOptions;
use super::overview::{Overview, findings_of};
use super::width::visible_spaces;
use crate::model::{
    Addresses, BackendChoice, FitAnswer, FunctionMap, Gap, MemoryMap, PeerBuffer, Reserved, Severity, Source,
    SpaceUsage, Unresolved,
};

/// The head of a picture or page (see the module's comment).
#[derive(Debug, Clone)]
pub struct Header {
    /// `Memory map — AllocateMemoryAddr`: the heading.
    pub heading: String,
    /// `Memory map — AllocateMemoryAddr · x.py`: the document's title (SVG `<title>`, page `<title>`).
    pub title: String,
    /// The dump's file name.
    pub dump: String,
    /// The pass the dump was written after.
    pub pass_name: String,
    /// The functions drawn: `45`, or `1 of 45` under `--function`.
    pub functions: String,
    /// The tiles drawn (those of hidden spaces left out).
    pub tiles: String,
    /// The backend whose capacities scale the lanes.
    pub backend: String,
    /// Its architecture (`a2a3`).
    pub arch: String,
    /// Whether the backend was found next to the dump (else it is assumed).
    pub detected: bool,
    /// `Ascend910B (a2a3)`, with ` assumed` when it was not detected.
    pub capacities: String,
    /// Notes about the dump as a whole, each with whether it is a warning.
    pub notes: Vec<(String, bool)>,
}

/// What the header says of a dump written at the CONCISE level.
pub const CONCISE_NOTE: &str = "layouts not in this dump: re-dump with PassDumpLevel.EXPLICIT";

impl Header {
    /// The header of `map` drawn as `view` asks: its counts are of the functions and spaces drawn.
    pub fn of(map: &MemoryMap, view: &ViewOptions) -> Header {
        let drawn: Vec<&FunctionMap> = map.functions.iter().filter(|f| view.draws(&f.name)).collect();
        let tiles: usize = drawn
            .iter()
            .map(|f| {
                let shown = visible_spaces(f, view);
                f.blocks.iter().filter(|b| shown.contains(&b.tile.space.as_str())).count()
            })
            .sum();
        let all = map.functions.len();
        let b = &map.backend;
        let mut notes = Vec::new();
        if !map.has_layouts() {
            // The guide's edge case: a CONCISE dump leaves tile layouts unresolved.
            notes.push((CONCISE_NOTE.to_string(), false));
        }
        if let Some(note) = unassigned_note(map) {
            notes.push((note, true));
        }
        Header {
            heading: format!("Memory map — {}", map.pass_name),
            title: format!("Memory map — {} · {}", map.pass_name, map.dump),
            dump: map.dump.clone(),
            pass_name: map.pass_name.clone(),
            functions: if drawn.len() == all { all.to_string() } else { format!("{} of {all}", drawn.len()) },
            tiles: tiles.to_string(),
            backend: b.name.clone(),
            arch: b.arch.clone(),
            detected: b.detected,
            capacities: format!("{} ({}){}", b.name, b.arch, if b.detected { "" } else { " assumed" }),
            notes,
        }
    }
}

/// What the header says of a dump from before AllocateMemoryAddr: that its columns are bases, not
/// addresses, and which dump has the addresses.
pub fn unassigned_note(map: &MemoryMap) -> Option<String> {
    (map.addresses == Addresses::Unassigned).then(|| {
        format!(
            "addresses not assigned yet: a bases view, one column per base in first-use order; the addresses are in {}",
            map.addresses_in.as_deref().unwrap_or("the dump after AllocateMemoryAddr")
        )
    })
}

/// Everything the page shows that is not a card's plan or picture: its header, its overview, each
/// card's head, and the data payload its script reads.
pub struct Page<'a> {
    /// The page's header: every function, every space (the reader hides spaces in the page).
    pub header: Header,
    /// The overview table.
    pub overview: Overview,
    /// The head of each function's card, in dump order.
    pub cards: Vec<CardHead>,
    /// The card the page opens with, the others collapsed: the worst function's (the overview's
    /// first row: most errors, else most warnings, else the fullest space of known capacity).
    pub opens: usize,
    /// The map's data for the script (see [`PageData`]), or that data gzipped already
    /// ([`Page::pack_data`]).
    pub data: DataPayload<'a>,
}

/// The page's data as the page is written: gzipped already, or to be gzipped as it is written.
pub enum DataPayload<'a> {
    /// To be serialized and gzipped on the writer's thread as it is written: the data of a whole
    /// model's dump is never held whole.
    Streamed(PageData<'a>),
    /// Gzipped (one member) on every core ([`Page::pack_data`]).
    Gzipped(std::io::Result<Vec<u8>>),
}

impl<'a> Page<'a> {
    /// The page of `map`: every function gets a card, so the page can show any of them.
    pub fn of(map: &'a MemoryMap) -> Page<'a> {
        let every = ViewOptions { functions: Vec::new(), hidden: Vec::new(), ..ViewOptions::default() };
        let overview = Overview::of(map);
        let cards: Vec<CardHead> = map.functions.iter().map(|f| CardHead::of(map, f)).collect();
        let worst = overview.rows.first().map(|r| r.name.as_str());
        Page {
            header: Header::of(map, &every),
            opens: cards.iter().position(|c| Some(c.name.as_str()) == worst).unwrap_or(0),
            overview,
            cards,
            data: DataPayload::Streamed(page_data(map)),
        }
    }

    /// Gzips the page's data now, its functions serialized and deflated on every core, rather than
    /// on the writer's thread as the page is written (where it took 1.2 ms of the decode case's
    /// page while the cores drew its cards): the whole JSON is held meanwhile, so a page planned a
    /// batch at a time (a whole model's dump) does not call this.
    pub fn pack_data(&mut self) {
        if let DataPayload::Streamed(data) = &self.data {
            let mut gzipped = Vec::new();
            let packed =
                crate::deflate::gzip_pieces(crate::deflate::pack_all(data.json_parts()).into_iter(), &mut gzipped);
            self.data = DataPayload::Gzipped(packed.map(|()| gzipped));
        }
    }
}

/// A card's head: the function's name and type, and a badge per error code.
#[derive(Debug, Clone)]
pub struct CardHead {
    /// The function's name.
    pub name: String,
    /// Its type.
    pub ftype: String,
    /// One per error code, `conflict ×2`, with the messages (one a line): a collapsed card says
    /// what is wrong in it.
    pub badges: Vec<(String, String)>,
}

impl CardHead {
    fn of(map: &MemoryMap, f: &FunctionMap) -> CardHead {
        let errors: Vec<_> = findings_of(map, f).into_iter().filter(|x| x.severity == Severity::Error).collect();
        let mut codes: Vec<&str> = errors.iter().map(|x| x.code.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        let badges = codes
            .into_iter()
            .map(|code| {
                let mine: Vec<_> = errors.iter().filter(|x| x.code == code).collect();
                let text = if mine.len() > 1 { format!("{code} ×{}", mine.len()) } else { code.to_string() };
                let title: Vec<&str> = mine.iter().map(|x| x.message.as_str()).collect();
                (text, title.join("\n"))
            })
            .collect();
        CardHead { name: f.name.clone(), ftype: f.ftype.clone(), badges }
    }
}

/// The map's JSON without its boxes: the plan carries every box the script draws, so the page does
/// not send them twice (the whole map is `-f json`). Nor its findings and peak live sets: the page
/// shows them as HTML (the overview table, the cards' badges) and from the plan (a line's live
/// list). Written straight from the map, through the borrowed shapes below, rather than through a
/// JSON tree trimmed after: that tree held every box for nothing. A map is plain strings and
/// numbers, so serializing it cannot fail.
pub fn page_data(map: &MemoryMap) -> PageData<'_> {
    PageData {
        dump: &map.dump,
        pass_name: &map.pass_name,
        backend: &map.backend,
        functions: map.functions.iter().map(PageFunction::of).collect(),
        addresses: map.addresses,
        addresses_in: map.addresses_in.as_deref(),
    }
}

impl PageData<'_> {
    /// The data's JSON up to its functions' list, and after it: the list's parts go between.
    fn shell(&self) -> (Vec<u8>, Vec<u8>) {
        let shell = serde_json::to_vec(&PageData { functions: Vec::new(), ..*self }).unwrap_or_default();
        // The list's key as the JSON writes it: a quote inside a string is escaped, so these bytes
        // are the key, never text of the dump.
        let key = br#""functions":[]"#;
        let at = shell.windows(key.len()).position(|w| w == key).map_or(shell.len(), |i| i + key.len() - 1);
        let (head, tail) = shell.split_at(at);
        (head.to_vec(), tail.to_vec())
    }

    /// The JSON of the functions `from` on, one part each (after a comma but the first's),
    /// serialized on every core.
    fn function_parts(&self, from: usize, functions: &[PageFunction]) -> Vec<Vec<u8>> {
        let jobs: Vec<(usize, &PageFunction)> = functions.iter().enumerate().collect();
        crate::par::map_ref(&jobs, |&(i, f)| {
            let mut part = if from + i == 0 { Vec::new() } else { b",".to_vec() };
            // A map is plain strings and numbers: serializing it cannot fail.
            let _ = serde_json::to_writer(&mut part, f);
            part
        })
    }

    /// The data's JSON in parts that make it one after the other: up to its functions' list, each
    /// function, and the rest.
    fn json_parts(&self) -> Vec<Vec<u8>> {
        let (head, tail) = self.shell();
        std::iter::once(head).chain(self.function_parts(0, &self.functions)).chain([tail]).collect()
    }

    /// The data's JSON gzipped (one member) into `out`, its functions serialized and deflated on
    /// every core a batch at a time: the same bytes as [`Page::pack_data`]'s.
    pub fn write_gzip(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let (head, tail) = self.shell();
        let at =
            |from: usize| self.function_parts(from, &self.functions[from..(from + BATCH).min(self.functions.len())]);
        let functions = (0..self.functions.len()).step_by(BATCH).map(at);
        crate::deflate::gzip_batches(std::iter::once(vec![head]).chain(functions).chain([vec![tail]]), out)
    }
}

/// Functions of the page's data serialized at a time while it is written ([`PageData::write_gzip`]).
const BATCH: usize = 64;

/// [`MemoryMap`] as the page's data has it.
#[derive(Serialize)]
pub struct PageData<'a> {
    dump: &'a str,
    pass_name: &'a str,
    backend: &'a BackendChoice,
    functions: Vec<PageFunction<'a>>,
    #[serde(skip_serializing_if = "Addresses::is_assigned")]
    addresses: Addresses,
    #[serde(skip_serializing_if = "Option::is_none")]
    addresses_in: Option<&'a str>,
}

/// [`FunctionMap`] without its boxes.
#[derive(Serialize)]
struct PageFunction<'a> {
    name: &'a str,
    ftype: &'a str,
    src_start: u32,
    src_end: u32,
    source: &'a Source,
    spaces: Vec<PageSpace<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    fits: &'a [FitAnswer],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    unresolved: &'a [Unresolved],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    reserved: &'a [Reserved],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    peer_buffers: &'a [PeerBuffer],
}

impl<'a> PageFunction<'a> {
    fn of(f: &'a FunctionMap) -> Self {
        PageFunction {
            name: &f.name,
            ftype: &f.ftype,
            src_start: f.src_start,
            src_end: f.src_end,
            source: &f.source,
            spaces: f.spaces.iter().map(PageSpace::of).collect(),
            fits: &f.fits,
            unresolved: &f.unresolved,
            reserved: &f.reserved,
            peer_buffers: &f.peer_buffers,
        }
    }
}

/// [`SpaceUsage`] with its peak's place but not its live set.
#[derive(Serialize)]
struct PageSpace<'a> {
    space: &'a str,
    hwm: i64,
    limit: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    physical: Option<i64>,
    tiles: usize,
    bases: usize,
    peak: PagePeak,
    headroom: i64,
    largest_free: Gap,
}

impl<'a> PageSpace<'a> {
    fn of(s: &'a SpaceUsage) -> Self {
        PageSpace {
            space: &s.space,
            hwm: s.hwm,
            limit: s.limit,
            physical: s.physical,
            tiles: s.tiles,
            bases: s.bases,
            peak: PagePeak { bytes: s.peak.bytes, line: s.peak.line },
            headroom: s.headroom,
            largest_free: s.largest_free,
        }
    }
}

#[derive(Serialize)]
struct PagePeak {
    bytes: i64,
    line: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_data_is_the_map_without_boxes_findings_and_live_sets() {
        let text = include_str!("../../tests/fixtures/find_overflow.py");
        let dump = crate::Dump::from_bytes("d.py", text.as_bytes().to_vec()).unwrap();
        let mut map = crate::build(&dump, crate::backend::choose(None, None).unwrap()).unwrap();
        let fit: crate::analyze::FitQuery = "Vec=1KB".parse().unwrap();
        crate::analyze::answer_fits(&mut map, &[fit]).unwrap();
        assert!(map.functions.iter().any(|f| !f.fits.is_empty()), "the fixture answers a fit");
        assert!(map.functions.iter().flat_map(|f| &f.spaces).any(|s| !s.peak.live.is_empty()));
        // What the page's data must be: the map's own JSON, trimmed.
        let mut want = serde_json::to_value(&map).unwrap();
        want.as_object_mut().unwrap().remove("findings");
        for f in want["functions"].as_array_mut().unwrap() {
            f.as_object_mut().unwrap().remove("boxes");
            for s in f["spaces"].as_array_mut().unwrap() {
                s["peak"].as_object_mut().unwrap().remove("live");
                // The packing is the JSON's: the page shows none of it. The handovers it shows in
                // the boxes' tooltips, which the plan words.
                s.as_object_mut().unwrap().remove("packing");
                s.as_object_mut().unwrap().remove("handovers");
            }
        }
        let got = serde_json::to_value(page_data(&map)).unwrap();
        assert_eq!(got, want);
    }

    #[test]
    fn data_gzipped_on_every_core_inflates_to_its_json() {
        use std::io::Read;
        // Functions enough for several runs, and a dump name that spells the list's key.
        let text = include_str!("../../tests/fixtures/find_overflow.py");
        let dump = crate::Dump::from_bytes("\"functions\":[].py", text.as_bytes().to_vec()).unwrap();
        let mut map = crate::build(&dump, crate::backend::choose(None, None).unwrap()).unwrap();
        let one = map.functions[0].clone();
        map.functions = (0..200).map(|_| one.clone()).collect();
        let data = page_data(&map);
        let json = serde_json::to_vec(&data).unwrap();
        assert!(json.len() > 3 * 64 * 1024, "{} bytes make several runs", json.len());
        let parts = data.json_parts();
        assert_eq!(parts.len(), 202);
        assert_eq!(parts.concat(), json);
        let mut page = Page::of(&map);
        page.pack_data();
        let DataPayload::Gzipped(Ok(gzipped)) = &page.data else { panic!("packed") };
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&gzipped[..]).read_to_end(&mut back).unwrap();
        assert_eq!(back, json);
        // Written a batch of functions at a time, the same bytes.
        let mut streamed = Vec::new();
        data.write_gzip(&mut streamed).unwrap();
        assert!(map.functions.len() > 3 * BATCH);
        assert_eq!(&streamed, gzipped);
        // No functions: the list is empty.
        map.functions.clear();
        let data = page_data(&map);
        assert_eq!(data.json_parts().concat(), serde_json::to_vec(&data).unwrap());
    }
}
