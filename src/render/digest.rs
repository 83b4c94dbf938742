//! The PNG's scene: the map itself, or, for a whole dump too large for one PNG, its digest
//! ([`crate::scene::digest`]).
//!
//! A PNG has a pixel limit ([`png::MAX_PIXELS`]); the page and the SVG do not. Whether a picture
//! fits is decided from sizes known before any drawing: first a lower bound from the functions'
//! line counts alone (a card is at least its lines tall), then the laid-out scene's size, before
//! any SVG text or pixel. A picture of chosen functions (`--function`) past the limit is refused
//! then. A whole dump past it gets the digest instead.

use crate::error::{Error, ErrorKind, Result, Task};
use crate::plan::overview::{Overview, Row};
use crate::plan::{RULES, ViewOptions};
use crate::scene::Scene;
use crate::scene::digest::{Heading, Layout, body_height, digest};

use super::png;

/// The most pixels the digest's cards may bring it to: a quarter of a PNG's limit (at scale 2,
/// some 3 100 x 5 400 px). The digest is read on a screen and pasted into reviews, where a taller
/// picture is scrolled past; and a quarter of the pixels is a quarter of the time.
const DIGEST_PIXELS: u64 = png::MAX_PIXELS / 4;

/// The scene a PNG of the dump as `view` asks draws at `scale`: the scene `lay` makes when it is
/// within the pixel limit; for a whole dump past it, the digest of its `overview`; for chosen
/// functions past it, the refusal.
pub fn png_scene(overview: &Overview, lay: &Layout, view: &ViewOptions, scale: f64) -> Result<Scene> {
    let whole = view.functions.is_empty();
    let least: f64 = overview.rows.iter().filter(|r| view.draws(&r.name)).map(body_height).sum();
    let any = !overview.rows.is_empty();
    if let Err(err) = png::pixels_at_least(RULES.width_min, least, scale) {
        if whole && any {
            return digest_png(overview, lay, view, scale);
        }
        return Err(err);
    }
    // A whole dump whose cards could not fit however they were laid out gets its digest without
    // laying them all out first (3.9 ms of the decode case's 43 ms digest).
    if whole && any && !png::fits_least(least_size(overview, view), scale) {
        return digest_png(overview, lay, view, scale);
    }
    crate::budget::checkpoint()?;
    let scene = lay(view, Heading::Drawn);
    crate::budget::checkpoint()?;
    match png::pixels(scene.width, scene.height, scale) {
        Ok(_) => Ok(scene),
        Err(_) if whole && any => {
            crate::par::drop_later(scene);
            digest_png(overview, lay, view, scale)
        }
        Err(err) => Err(err),
    }
}

/// [`crate::scene::least_size`] of the cards of `overview` that `view` draws.
pub fn least_size(overview: &Overview, view: &ViewOptions) -> (f64, f64) {
    let drawn = |r: &Row| {
        let has: Vec<&String> =
            overview.spaces.iter().zip(&r.spaces).filter(|(_, o)| o.is_some()).map(|(s, _)| s).collect();
        // Hiding every space leaves the first (see `plan::width::visible_spaces`).
        let shown = has.iter().filter(|s| !view.hidden.contains(s)).count();
        if shown == 0 { has.len().min(1) } else { shown }
    };
    let cards = overview.rows.iter().filter(|r| view.draws(&r.name)).map(|r| (r.rows, drawn(r)));
    crate::scene::least_size(cards, view.zoom)
}

std::thread_local! {
    /// Whether the last PNG this thread chose was the digest: the shells say so beside the file
    /// (a user who asked for the map gets a summary of it, and must learn how to get the rest).
    static DIGESTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the PNG drawn last on this thread was a digest rather than the whole map; reading it
/// clears it, so each render is told once.
pub fn took_digest() -> bool {
    DIGESTED.with(|d| d.replace(false))
}

/// The digest, within the PNG's limit.
fn digest_png(overview: &Overview, lay: &Layout, view: &ViewOptions, scale: f64) -> Result<Scene> {
    let scene = digest(overview, lay, view, scale, DIGEST_PIXELS)?;
    match png::pixels(scene.width, scene.height, scale) {
        Ok(_) => {
            DIGESTED.with(|d| d.set(true));
            Ok(scene)
        }
        Err(e) => Err(Error::failed(ErrorKind::TooLarge, Task::Digest, Some(e.to_string()))),
    }
}
