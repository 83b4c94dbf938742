//! What the marks are, before any factor: the use ticks and idle stretch of each box, the
//! live-bytes profile of each space, free ranges that answer a `--fit` query, bytes past a capacity,
//! the lines under a card, and the byte counts a line's live list shows. The scene draws them
//! (`scene::insight`); this part of the plan depends on nothing that draws.

use super::{CAPACITY, FIT, HELD, IDLE, Mark, MarkText, OVERFLOW, ProfilePlan, USE};
use crate::model::{Block, FunctionMap, SpaceUsage};
use crate::plan::options::RULES;
use crate::plan::text;
use crate::plan::width::SUMMARY_SIZE;
use crate::units::fmt_bytes;

/// Width of a profile column.
const PROFILE_W: f64 = RULES.profile_px;
/// Size of small print.
const SMALL: f64 = 10.0;

/// The marks inside a box: a paler stretch where it sits idle (labelled where there is room, below
/// the box's own two label rows), and a use tick at each line that mentions it after it is bound.
///
/// A mark's words go on the first of their lines where no box drawn `over` the box is drawn (a
/// view into it, drawn after it): a view at the box's left edge covered the start of its idle
/// note. Where every such line is covered, they go on the first.
pub fn box_marks(b: &Block, over: &[&Block]) -> Vec<Mark> {
    let t = &b.tile;
    let mut out = Vec::new();
    if let Some(idle) = b.idle {
        let first = idle.from.max(t.start + 2);
        let label_line = clear_line(over, first, idle.to).unwrap_or(first);
        out.push(Mark {
            style: IDLE,
            bytes: None,
            lines: Some([idle.from, idle.to]),
            at: Vec::new(),
            text: (label_line <= idle.to).then(|| MarkText::new(format!("idle {} lines", idle.lines), label_line)),
            tip: None,
        });
    }
    if super::held_words(t).is_some() {
        // The paler tail after the last read, labelled where it has a line of its own.
        let (from, to) = (t.end + 1, t.held());
        let text = t.held_by.map(|h| format!("held by loop L{h}"));
        out.push(Mark {
            style: HELD,
            bytes: None,
            lines: Some([from, to]),
            at: Vec::new(),
            text: text
                .filter(|_| to > from)
                .map(|s| MarkText::new(s, clear_line(over, from + 1, to).unwrap_or(from + 1))),
            // The box's tooltip says why (`held_words`).
            tip: None,
        });
    }
    let at: Vec<u32> = t.uses.iter().copied().filter(|&u| u >= t.start && u <= t.end).collect();
    if !at.is_empty() {
        out.push(Mark { style: USE, bytes: None, lines: None, at, text: None, tip: None });
    }
    out
}

/// The first line of `from..=to` on which none of `over` is drawn (its first line to its held
/// end), if any.
fn clear_line(over: &[&Block], from: u32, to: u32) -> Option<u32> {
    let mut spans: Vec<(u32, u32)> = over.iter().map(|o| (o.tile.start, o.tile.held())).collect();
    spans.sort_unstable();
    let mut line = from;
    for (start, end) in spans {
        if start > line {
            break;
        }
        line = line.max(end.saturating_add(1));
    }
    (line <= to).then_some(line)
}

/// For each box, the boxes of its space and base drawn over it (the lane draws views after the
/// boxes they look into) that share some of its bytes, where it has words among its marks (an idle
/// note, a holding loop); none for the others. A base of more than [`MOST_OVER`] boxes is left
/// out: its words stay on their first line rather than the work growing with the square of its
/// boxes.
pub fn drawn_over(blocks: &[Block]) -> Vec<Vec<&Block>> {
    let worded = |b: &Block| b.idle.is_some() || super::held_words(&b.tile).is_some();
    let mut out = vec![Vec::new(); blocks.len()];
    if !blocks.iter().any(worded) {
        return out;
    }
    let mut bases: crate::hashed::HashMap<(&str, &str), Vec<usize>> = crate::hashed::HashMap::default();
    for (i, b) in blocks.iter().enumerate() {
        bases.entry((b.tile.space.as_str(), b.tile.base.as_str())).or_default().push(i);
    }
    for (i, b) in blocks.iter().enumerate().filter(|(_, b)| worded(b)) {
        let group = &bases[&(b.tile.space.as_str(), b.tile.base.as_str())];
        if group.len() <= MOST_OVER {
            out[i] = group
                .iter()
                .filter(|&&j| (blocks[j].view, j) > (b.view, i))
                .map(|&j| &blocks[j])
                .filter(|o| o.tile.offset < b.tile.stop() && b.tile.offset < o.tile.stop())
                .collect();
        }
    }
    out
}

/// Most boxes of one base [`drawn_over`] compares.
const MOST_OVER: usize = 256;

/// A space's live bytes per line (the union of the live boxes' ranges, computed by `analyze`), as
/// runs of equal values, `full` bytes filling the column (the card's largest peak, so that every
/// column of a card has one scale): one bar per run keeps long functions small.
pub fn profile_plan(s: &SpaceUsage, full: i64) -> ProfilePlan {
    let live = &s.profile;
    let room = PROFILE_W - 6.0;
    let mut bars = Vec::new();
    let mut i = 0;
    while i < live.len() {
        let mut j = i;
        while j + 1 < live.len() && live[j + 1] == live[i] {
            j += 1;
        }
        if live[i] > 0 && full > 0 {
            // A hundredth of a pixel is finer than any screen, and keeps the page's copy short.
            let w = ((live[i] as f64 / full as f64 * room).max(1.0) * 100.0).round() / 100.0;
            bars.push((i as u32, (j - i + 1) as u32, w));
        }
        i = j + 1;
    }
    ProfilePlan {
        peak: s.peak.bytes,
        peak_line: s.peak.line,
        head: [peak_head(s.peak.line), fmt_bytes(s.peak.bytes)],
        bars,
    }
}

/// The column's first line: `peak L49`, or `L1764` where that would run past the column (from
/// four-digit lines on) and into the next; the line alone, over the peak's mark, still reads as
/// the peak's.
fn peak_head(line: u32) -> String {
    let long = format!("peak L{line}");
    // The text starts 4 px in, and may use the 4 px gap to the next column.
    if text::width(&long, SMALL) <= PROFILE_W { long } else { format!("L{line}") }
}

/// Outlines over the free ranges that answer a `--fit` query in this space, each saying what fits.
pub fn fit_plan(f: &FunctionMap, space: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    for a in f.fits.iter().filter(|a| a.space == space) {
        let (from, to) = (a.from.max(f.src_start), a.to.min(f.src_end));
        if from > to {
            continue;
        }
        for g in &a.ranges {
            out.push(Mark {
                style: FIT,
                bytes: Some([g.offset, g.size]),
                lines: Some([from, to]),
                at: Vec::new(),
                text: Some(MarkText::new(format!("fits {}", fmt_bytes(a.bytes)), from)),
                tip: None,
            });
        }
    }
    out
}

/// Where tiles reach past their space's capacity: the capacity as a line down the lane, and each
/// such tile's bytes past it hatched over its lines (the `overflow` finding, drawn). A space the
/// backend gives no capacity (limit 0) has nothing to reach past.
pub fn overflow_plan(f: &FunctionMap, s: &SpaceUsage) -> Vec<Mark> {
    if s.limit <= 0 || s.hwm <= s.limit {
        return Vec::new();
    }
    let mut out =
        vec![Mark { style: CAPACITY, bytes: Some([s.limit, 0]), lines: None, at: Vec::new(), text: None, tip: None }];
    for b in f.blocks.iter().filter(|b| b.tile.space == s.space && b.tile.stop() > s.limit) {
        let t = &b.tile;
        let from = t.offset.max(s.limit);
        out.push(Mark {
            style: OVERFLOW,
            bytes: Some([from, t.stop() - from]),
            lines: Some([t.start, t.held()]),
            at: Vec::new(),
            text: None,
            tip: None,
        });
    }
    out
}

/// Lines under a card: idle tiles (longest first) and fit answers.
///
/// Each line is wrapped to `width` px (a card's panel): a long list of tile names runs on over
/// more lines rather than widening the card past the panel or being cut.
pub fn summary(f: &FunctionMap, width: f64) -> Vec<String> {
    let lines = summary_lines(f);
    let chars = (width / (text::advance_em() * SUMMARY_SIZE)).floor().max(20.0) as usize;
    lines.iter().flat_map(|l| wrap(l, chars)).collect()
}

/// `line` in pieces of at most `chars` characters, each after the first indented by two spaces,
/// broken after a `, ` where one is near enough, else at a space: a name is never broken, so a
/// single name longer than a piece has a piece of its own.
pub fn wrap(line: &str, chars: usize) -> Vec<String> {
    const INDENT: &str = "  ";
    let mut out = Vec::new();
    let mut rest = line;
    let mut lead = "";
    while lead.len() + rest.chars().count() > chars {
        let room = chars.saturating_sub(lead.len());
        // Byte index just past the `room`th character.
        let end = rest.char_indices().nth(room).map_or(rest.len(), |(i, _)| i);
        let head = &rest[..end];
        let at =
            head.rfind(", ").map(|i| i + 2).filter(|&i| i * 2 >= head.len()).or_else(|| head.rfind(' ').map(|i| i + 1));
        let at = match at.filter(|&i| i > 0) {
            Some(i) => i,
            // No break inside the room: the first break after it, or the whole rest.
            None => match rest[end..].find(' ') {
                Some(i) => end + i + 1,
                None => break,
            },
        };
        out.push(format!("{lead}{}", rest[..at].trim_end()));
        rest = &rest[at..];
        lead = INDENT;
    }
    out.push(format!("{lead}{rest}"));
    out
}

fn summary_lines(f: &FunctionMap) -> Vec<String> {
    let mut out = Vec::new();
    let mut idle: Vec<&Block> = f.blocks.iter().filter(|b| b.idle.is_some()).collect();
    idle.sort_by_key(|b| std::cmp::Reverse(b.idle.map(|i| i.lines as i64 * b.tile.size.max(0))));
    for b in idle.iter().take(3) {
        let i = b.idle.unwrap_or(crate::model::Idle { lines: 0, from: 0, to: 0 });
        out.push(format!(
            "idle: {} holds {} for {} lines with no use (L{}–L{})",
            b.tile.name,
            fmt_bytes(b.tile.size),
            i.lines,
            i.from,
            i.to
        ));
    }
    if idle.len() > 3 {
        // The rest by name: the picture itself shades their idle stretches.
        let rest: Vec<&str> = idle[3..].iter().take(6).map(|b| b.tile.name.as_str()).collect();
        let more = if idle.len() > 9 { format!(" and {} more", idle.len() - 9) } else { String::new() };
        out.push(format!("idle also: {}{more} (shaded in their boxes)", rest.join(", ")));
    }
    for a in &f.fits {
        let answer = if a.fits {
            let first = a.ranges[0];
            let more = if a.ranges.len() > 1 { format!(" (+{} more)", a.ranges.len() - 1) } else { String::new() };
            format!("yes, at [{}, {}){more}", first.offset, first.offset + first.size)
        } else {
            format!("no: the largest free range is {}", fmt_bytes(a.largest.size))
        };
        out.push(format!("fit {} {} over L{}–L{}: {answer}", a.space, fmt_bytes(a.bytes), a.from, a.to));
    }
    out.extend(f.spaces.iter().filter_map(holding));
    out
}

/// Tiles named in a space's "what holds it" line before `+N more`.
const HOLDING_SHOWN: usize = 4;

/// What holds a space at its peak, biggest first: `Vec peak 64 KB at L49: s__tile 64 KB, …`.
/// `None` for a space with nothing live.
pub fn holding(s: &SpaceUsage) -> Option<String> {
    let live = &s.peak.live;
    if s.peak.bytes <= 0 || live.is_empty() {
        return None;
    }
    let mut named: Vec<String> = live
        .iter()
        .take(HOLDING_SHOWN)
        .map(|t| {
            let what = if t.reserved { " (reserved)" } else { "" };
            format!("{}{what} {}", t.name, fmt_bytes(t.size))
        })
        .collect();
    if live.len() > HOLDING_SHOWN {
        named.push(format!("+{} more", live.len() - HOLDING_SHOWN));
    }
    Some(format!("{} peak {} at L{}: {}", s.space, fmt_bytes(s.peak.bytes), s.peak.line, named.join(", ")))
}

/// Every byte count a line's live list can show on the page, written as the map writes bytes (see
/// [`super::Plan::words`]): box sizes, and per line and space the live total and the largest
/// free range. The page's script formats nothing itself.
pub fn live_words(map: &crate::model::MemoryMap, view: &super::ViewOptions) -> std::collections::BTreeMap<i64, String> {
    let drawn: Vec<&crate::model::FunctionMap> = map.functions.iter().filter(|f| view.draws(&f.name)).collect();
    let mut values: Vec<i64> = crate::par::map_ref(&drawn, |f| function_words(f)).into_iter().flatten().collect();
    values.sort_unstable();
    values.dedup();
    values.into_iter().map(|v| (v, fmt_bytes(v))).collect()
}

/// The byte counts of [`live_words`] for one function, unsorted: box sizes, and the figures of
/// each lane's live changes (see [`lane_changes`]).
fn function_words(f: &crate::model::FunctionMap) -> Vec<i64> {
    let mut values: Vec<i64> = f.blocks.iter().map(|b| b.tile.size).collect();
    for s in &f.spaces {
        if crate::budget::expired() {
            break; // the page's next checkpoint reports it; these words are then never used
        }
        values.extend(lane_changes(f, s).iter().flat_map(|c| [c[1], c[3]]));
    }
    values
}

/// A lane's live list by line, as the page reads it: `changes` ([`lane_changes`]) with, at each
/// line where boxes of lane `lane` start or stop being live (their `lines` are the lines they are
/// live at), those boxes' indices after the figures: `[line, total, offset, size, box...]`. A box is
/// live from the entry that names it first up to the one that names it again; a line's list is
/// the boxes named an odd number of times at or before it.
pub fn live_list(
    changes: &[[i64; 4]],
    boxes: &[super::BoxPlan],
    lane: usize,
    (first, last): (u32, u32),
) -> Vec<Vec<i64>> {
    let mut flips: Vec<(i64, i64)> = Vec::new();
    for (i, b) in boxes.iter().enumerate().filter(|(_, b)| b.lane == lane) {
        let [start, end] = b.lines;
        if start > last || end < first || end < start {
            continue;
        }
        flips.push((i64::from(start.max(first)), i as i64));
        if end < last {
            flips.push((i64::from(end) + 1, i as i64));
        }
    }
    flips.sort_unstable();
    let mut out: Vec<Vec<i64>> = Vec::with_capacity(changes.len() + flips.len());
    let (mut c, mut f) = (0, 0);
    while c < changes.len() || f < flips.len() {
        let line = match (changes.get(c), flips.get(f)) {
            (Some(ch), Some(fl)) => ch[0].min(fl.0),
            (Some(ch), None) => ch[0],
            (None, Some(fl)) => fl.0,
            (None, None) => break,
        };
        let mut entry = match out.last() {
            Some(last) => last[..4].to_vec(),
            None => vec![line, 0, 0, 0],
        };
        entry[0] = line;
        if changes.get(c).is_some_and(|ch| ch[0] == line) {
            entry[1..4].copy_from_slice(&changes[c][1..]);
            c += 1;
        }
        while flips.get(f).is_some_and(|fl| fl.0 == line) {
            entry.push(flips[f].1);
            f += 1;
        }
        out.push(entry);
    }
    out
}

/// A lane's live changes: at each line where the live set of the space changes, the live total and
/// the largest free range (`[line, total, offset, size]`, see `analyze::live::changes`), which the page looks
/// up rather than recomputes.
pub fn lane_changes(f: &crate::model::FunctionMap, s: &SpaceUsage) -> Vec<[i64; 4]> {
    let windows = crate::analyze::reserved_blocks(&f.reserved, &s.space, (f.src_start, f.src_end));
    let mine = crate::analyze::holding(f, &s.space, &windows);
    crate::analyze::live::changes(&mine, super::live_capacity(s), (f.src_start, f.src_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_wraps_between_names_and_never_inside_one() {
        let names: Vec<String> = (0..30).map(|i| format!("tile_name_number_{i}__tile")).collect();
        let line = format!("idle also: {} (shaded in their boxes)", names.join(", "));
        for chars in [20, 60, 120, 400] {
            let pieces = wrap(&line, chars);
            for p in &pieces {
                // Longer only when it is one name that alone is longer.
                let one_name = !p.trim_start().contains(' ');
                assert!(p.chars().count() <= chars || one_name, "{chars}: {p:?} is {} long", p.chars().count());
            }
            // Every name is whole in one piece, and the pieces are the line again.
            for n in &names {
                assert!(pieces.iter().any(|p| p.split(' ').any(|w| w.trim_end_matches(',') == n)), "{n}");
            }
            let joined: Vec<&str> = pieces.iter().map(|p| p.trim_start()).collect();
            assert_eq!(joined.join(" "), line, "{chars}");
            assert_eq!(pieces.len() == 1, line.chars().count() <= chars);
            assert!(pieces.iter().skip(1).all(|p| p.starts_with("  ") && !p.starts_with("   ")));
        }
        // A name longer than the room keeps a piece of its own, whole.
        let long = format!("idle: {} holds 8 KB", "x".repeat(50));
        assert_eq!(wrap(&long, 20), ["idle:", &format!("  {}", "x".repeat(50)), "  holds 8 KB"]);
    }

    #[test]
    fn an_idle_note_goes_below_the_views_drawn_over_its_box() {
        // A base live on lines 10-40, idle on 20-30; a view at its left edge on lines 18-22, another
        // on 23-24, and a box of another base over the same bytes (not drawn over it by this rule).
        let mut base = Block::sample("b".into(), "Vec", "mem_vec_1", 0, 4096, 10, 40);
        base.idle = Some(crate::model::Idle { lines: 11, from: 20, to: 30 });
        let mut views = [(0, 18, 22), (256, 23, 24)].map(|(offset, start, end)| {
            let mut v = Block::sample(format!("v{start}"), "Vec", "mem_vec_1", offset, 256, start, end);
            v.view = true;
            v
        });
        views[1].tile.offset = 4000; // within the base's bytes, at its right: still drawn over it
        let other = Block::sample("o".into(), "Vec", "mem_vec_2", 0, 64, 20, 20);
        let far = Block::sample("f".into(), "Vec", "mem_vec_1", 8192, 64, 20, 20);
        let blocks = vec![base, views[0].clone(), views[1].clone(), other, far];
        let over = drawn_over(&blocks);
        let names = |i: usize| over[i].iter().map(|b| b.tile.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(0), ["v18", "v23"], "the views, not another base's box nor bytes past its end");
        assert!((1..5).all(|i| over[i].is_empty()), "only a box with words has boxes over it");
        let line = |over: &[&Block]| box_marks(&blocks[0], over)[0].text.as_ref().map(|t| t.line);
        assert_eq!(line(&over[0]), Some(25), "below both views");
        assert_eq!(line(&[]), Some(20), "nothing over it: its first idle line");
        // Views over every idle line: the first, as before.
        let mut tall = views[0].clone();
        tall.tile.end = 35;
        assert_eq!(line(&[&tall]), Some(20));
        assert_eq!(clear_line(&[&blocks[1]], 18, 22), None);
        assert_eq!(clear_line(&[&blocks[1]], 18, 23), Some(23));
    }

    #[test]
    fn the_peak_line_fits_its_column_whatever_its_digits() {
        assert_eq!(peak_head(49), "peak L49");
        assert_eq!(peak_head(571), "peak L571");
        assert_eq!(peak_head(1764), "L1764");
        assert_eq!(peak_head(43_681), "L43681");
        for line in [1, 999, 1000, 99_999, 9_999_999] {
            assert!(text::width(&peak_head(line), SMALL) <= PROFILE_W, "{line}");
        }
    }
}
