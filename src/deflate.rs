//! Deflate in pieces made apart, on any core, and joined into one stream: the PNG's strips (a zlib
//! stream) and the page's plan, in runs of cards (a gzip member). Each piece is a raw deflate run
//! flushed to a byte boundary, with no reference to bytes before it, so pieces join end to end;
//! the stream's checksum is combined from the pieces' own.

use std::cell::RefCell;

use zlib_rs::{DeflateFlush, Status};

thread_local! {
    /// Each thread's compressor and its level, reset after each piece: a fresh one costs its
    /// tables' allocation and zeroing, a tenth of a PNG's encoding.
    static COMPRESSOR: RefCell<Option<(i32, zlib_rs::Deflate)>> = const { RefCell::new(None) };
    /// Where each thread's compressor writes: zeroed once, not for every piece.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The bytes each thread's compressor is primed with, gathered from the parts before a piece.
    static DICTIONARY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `data` deflated at `level` as one piece of a stream: flushed to a byte boundary, or, for the
/// `last` piece, finished (the final block). Matches may reach back into `before`, the bytes just
/// ahead of it in the stream (its last 32 KiB, the window), or nothing. The error is the
/// compressor's words.
pub fn piece(data: &[u8], level: i32, last: bool, before: &[u8]) -> Result<Vec<u8>, &'static str> {
    piece_of(&[data], level, last, &[before])
}

/// [`piece`] of the bytes of `parts` one after the other, after those of `before`'s: lines kept
/// apart are deflated as one piece without first being copied into one.
pub fn piece_of(parts: &[&[u8]], level: i32, last: bool, before: &[&[u8]]) -> Result<Vec<u8>, &'static str> {
    let mut z = match COMPRESSOR.take() {
        Some((l, z)) if l == level => z,
        _ => zlib_rs::Deflate::new(level, false, 15), // raw: the stream's header and checksum are the caller's
    };
    DICTIONARY.with_borrow_mut(|dictionary| -> Result<(), &'static str> {
        window_of(before, dictionary);
        if dictionary.is_empty() {
            return Ok(());
        }
        z.set_dictionary(dictionary).map(drop).map_err(|e| e.as_str())
    })?;
    let mut out = Vec::new();
    SCRATCH.with_borrow_mut(|scratch| -> Result<(), &'static str> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let room = zlib_rs::compress_bound(total) + 64;
        if scratch.len() < room {
            scratch.resize(room, 0);
        }
        // Each part taken whole, the last with the flush: with no input left, a sync flush is
        // complete once the output was not filled, and a finish once the stream says it ended.
        let flush = if last { DeflateFlush::Finish } else { DeflateFlush::SyncFlush };
        let (lead, end) = match parts.split_last() {
            Some((&end, lead)) => (lead, end),
            None => (&[][..], &[][..]),
        };
        let inputs = lead.iter().map(|&p| (p, DeflateFlush::NoFlush)).chain([(end, flush)]);
        for (mut input, flush) in inputs {
            loop {
                let (before_in, before_out) = (z.total_in(), z.total_out());
                let status = z.compress(input, scratch, flush).map_err(|e| e.as_str())?;
                let wrote = (z.total_out() - before_out) as usize;
                out.extend_from_slice(&scratch[..wrote]);
                input = &input[(z.total_in() - before_in) as usize..];
                let done = match (flush, status) {
                    (_, Status::StreamEnd) => true,
                    (DeflateFlush::NoFlush, _) => input.is_empty(),
                    (DeflateFlush::Finish, _) => false,
                    _ => input.is_empty() && wrote < scratch.len(),
                };
                if done {
                    break;
                }
            }
        }
        Ok(())
    })?;
    // Reset, it deflates as a fresh one would (a compressor that failed is dropped above).
    z.reset();
    COMPRESSOR.set(Some((level, z)));
    Ok(out)
}

/// The last [`WINDOW`] bytes of `parts` one after the other, into `window`.
fn window_of(parts: &[&[u8]], window: &mut Vec<u8>) {
    window.clear();
    let mut want = WINDOW.min(parts.iter().map(|p| p.len()).sum());
    let mut tail: Vec<&[u8]> = Vec::new();
    for p in parts.iter().rev() {
        if want == 0 {
            break;
        }
        let take = want.min(p.len());
        tail.push(&p[p.len() - take..]);
        want -= take;
    }
    for p in tail.into_iter().rev() {
        window.extend_from_slice(p);
    }
}

/// The window of the deflate streams made here (15 bits).
const WINDOW: usize = 32 * 1024;

/// The level of the page's gzipped payloads. zlib-rs's level 1 leaves the decode case's page at
/// 952 KB, too near twice the dump (963 KB); level 3 (887 KB) cost 4 % more of the page's CPU time
/// than level 2 (902 KB), which takes no longer than level 1 (medians of 31, interleaved).
pub const PAYLOAD_LEVEL: i32 = 2;

/// A piece of a gzip member: its deflated bytes, and the CRC-32 and length of what it holds.
#[derive(Debug, Clone)]
pub struct GzipPiece {
    deflated: Vec<u8>,
    crc: u32,
    len: u64,
}

impl GzipPiece {
    /// `data` as a piece deflated at `level` (never the last: [`gzip_to`] ends the member),
    /// after `before` in the member (see [`piece`]).
    pub fn of(data: &[u8], level: i32, before: &[u8]) -> Result<GzipPiece, &'static str> {
        GzipPiece::of_parts(&[data], level, &[before])
    }

    /// [`GzipPiece::of`] the bytes of `parts` one after the other, after those of `before`'s.
    pub fn of_parts(parts: &[&[u8]], level: i32, before: &[&[u8]]) -> Result<GzipPiece, &'static str> {
        let deflated = piece_of(parts, level, false, before)?;
        let crc = parts.iter().fold(0, |crc, p| zlib_rs::crc32::crc32(crc, p));
        Ok(GzipPiece { deflated, crc, len: parts.iter().map(|p| p.len() as u64).sum() })
    }
}

/// One gzip member of `pieces`, in order, written to `out`: the header, the pieces, an empty
/// final block, the CRC-32 and the length.
pub fn gzip_to<P: std::borrow::Borrow<GzipPiece>>(
    pieces: impl IntoIterator<Item = P>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    // Deflate, no name or time, from an unknown system.
    out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])?;
    let (mut crc, mut len) = (0u32, 0u64);
    for p in pieces {
        let p = p.borrow();
        out.write_all(&p.deflated)?;
        crc = zlib_rs::crc32::crc32_combine(crc, p.crc, p.len);
        len += p.len;
    }
    // The final block, empty: fixed codes, its end-of-block code alone.
    out.write_all(&[0x03, 0x00])?;
    out.write_all(&crc.to_le_bytes())?;
    out.write_all(&(len as u32).to_le_bytes())
}

/// Parts of one gzip member (the lines of the page's plan, the functions of its data) deflated as
/// one piece, kept apart rather than copied into one.
#[derive(Default)]
struct Run {
    parts: Vec<Vec<u8>>,
    bytes: usize,
}

impl Run {
    fn parts(&self) -> Vec<&[u8]> {
        self.parts.iter().map(Vec::as_slice).collect()
    }

    /// The run left open after the last parts, if it holds any.
    fn left(self) -> Option<Run> {
        (!self.parts.is_empty()).then_some(self)
    }
}

/// The runs of [`RUN_BYTES`] or more that `parts` close, added to the `open` run in turn: what is
/// left open goes on with the next parts, so a member made a batch at a time is cut where one made
/// at once is, and deflates to the same bytes.
fn runs_of(parts: impl IntoIterator<Item = Vec<u8>>, open: &mut Run) -> Vec<Run> {
    let mut closed = Vec::new();
    for part in parts {
        open.bytes += part.len();
        open.parts.push(part);
        if open.bytes >= RUN_BYTES {
            closed.push(std::mem::take(open));
        }
    }
    closed
}

/// `runs` (see [`runs_of`]) deflated at [`PAYLOAD_LEVEL`] as pieces of one gzip member, on every
/// core, each primed with the bytes before it (`before` for the first), which the reader has just
/// inflated: pieces made cold grew the decode case's plan from 161 004 to 217 800 bytes of base64;
/// primed, it is 158 572 against 163 212 in one stream (`docs/benchmarks.md`). `None` where the
/// compressor failed.
fn pack_runs(before: &[&[u8]], runs: &[Run]) -> Vec<Option<GzipPiece>> {
    let parts: Vec<Vec<&[u8]>> = runs.iter().map(Run::parts).collect();
    let ahead = |i: usize| if i == 0 { before } else { &parts[i - 1][..] };
    let jobs: Vec<usize> = (0..parts.len()).collect();
    crate::par::map_ref(&jobs, |&i| GzipPiece::of_parts(&parts[i], PAYLOAD_LEVEL, ahead(i)).ok())
}

/// The pieces of the gzip member of `parts` one after the other (see [`gzip_pieces`]), deflated in
/// runs of at least [`RUN_BYTES`] on every core.
pub fn pack_all(parts: impl IntoIterator<Item = Vec<u8>>) -> Vec<Option<GzipPiece>> {
    let mut open = Run::default();
    let mut runs = runs_of(parts, &mut open);
    runs.extend(open.left());
    pack_runs(&[], &runs)
}

/// The gzip member of the parts of `batches` one after the other, written to `out` a batch at a
/// time: the same bytes as [`pack_all`] of them all makes, without holding them all.
pub fn gzip_batches(batches: impl Iterator<Item = Vec<Vec<u8>>>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    // Each batch's first run is primed with the run before it, the last batch's.
    let (mut last, mut open) = (Run::default(), Run::default());
    let pieces = batches.map(Some).chain([None]).flat_map(|batch| {
        let runs = match batch {
            Some(parts) => runs_of(parts, &mut open),
            // The run left open after the last batch.
            None => std::mem::take(&mut open).left().into_iter().collect(),
        };
        let pieces = pack_runs(&last.parts(), &runs);
        if let Some(run) = runs.into_iter().last() {
            last = run;
        }
        pieces
    });
    gzip_pieces(pieces, out)
}

/// The least bytes deflated as one piece of a member made in [`Run`]s. A piece a line of the
/// page's plan primed the compressor with the line before it (some 14 KB on the decode case) and
/// flushed it 38 times; pieces of 64 KiB make nine, each primed with the window's 32 KiB: the
/// page's CPU time 2.6 % less (medians of 21 interleaved pairs) for 1 176 bytes less page.
const RUN_BYTES: usize = 64 * 1024;

/// The gzip member of `packed` pieces (see [`gzip_to`]); an error where a piece could not be
/// compressed (`None`), after the pieces before it.
pub fn gzip_pieces(
    packed: impl Iterator<Item = Option<GzipPiece>>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut failed = false;
    let pieces = packed.map_while(|p| {
        p.or_else(|| {
            failed = true;
            None
        })
    });
    gzip_to(pieces, out)?;
    match failed {
        true => Err(std::io::Error::other("a part of the page's payload could not be compressed")),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn pieces_made_apart_inflate_as_one_member() {
        let parts: Vec<Vec<u8>> =
            (0..5).map(|i| format!("{{\"card\":{i},\"boxes\":[{}]}}\n", "1,".repeat(900 * i)).into_bytes()).collect();
        let pieces: Vec<GzipPiece> = (0..parts.len())
            .map(|i| GzipPiece::of(&parts[i], 2, if i == 0 { &[] } else { &parts[i - 1] }).unwrap())
            .collect();
        let cold: usize = parts.iter().map(|p| GzipPiece::of(p, 2, &[]).unwrap().deflated.len()).sum();
        let primed: usize = pieces.iter().map(|p| p.deflated.len()).sum();
        assert!(primed < cold, "a piece primed with the one before is smaller: {primed} vs {cold}");
        let mut gz = Vec::new();
        gzip_to(&pieces, &mut gz).unwrap();
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut back).unwrap();
        assert_eq!(back, parts.concat(), "the CRC and length are checked by the decoder too");
        let mut empty = Vec::new();
        gzip_to::<&GzipPiece>([], &mut empty).unwrap();
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&empty[..]).read_to_end(&mut back).unwrap();
        assert!(back.is_empty());
    }

    #[test]
    fn parts_deflate_as_their_bytes_one_after_the_other() {
        let lines: Vec<Vec<u8>> = (0..40)
            .map(|i| format!("{{\"card\":{i},\"tip\":\"{}\"}}\n", "lane ".repeat(300 + 97 * i)).into_bytes())
            .collect();
        let (before, run) = lines.split_at(15);
        let parts: Vec<&[u8]> = run.iter().map(Vec::as_slice).collect();
        let ahead: Vec<&[u8]> = before.iter().map(Vec::as_slice).collect();
        let apart = GzipPiece::of_parts(&parts, 2, &ahead).unwrap();
        let whole = GzipPiece::of(&run.concat(), 2, &before.concat()).unwrap();
        assert!(before.concat().len() > WINDOW, "the window is the last 32 KiB of several parts");
        assert_eq!((apart.deflated, apart.crc, apart.len), (whole.deflated, whole.crc, whole.len));
        let mut window = Vec::new();
        window_of(&ahead, &mut window);
        assert_eq!(window, before.concat()[before.concat().len() - WINDOW..]);
        window_of(&[b"ab", b"", b"c"], &mut window);
        assert_eq!(window, b"abc");
    }
}
