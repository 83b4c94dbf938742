//! Damaged real dumps: every one gets a map or a clear error, never a panic.
//!
//! Each corpus dump is mutated the ways a dump gets damaged or edited by hand (a line lost or
//! doubled, a number changed to something odd, the file cut short), deterministically, and the result
//! goes through the whole pipeline in the formats that do not rasterize, plus the diff against the
//! original. A panic fails the test; an error must say where it is.

mod common;

use std::path::PathBuf;

use common::Rng;
use pto_memory_map::plan::XAxis;
use pto_memory_map::{DiffFormat, Dump, ErrorKind, Format, RenderOptions, ViewOptions, backend, build};

/// Numbers a hand edit or a broken printer could leave in a MemRef or a shape.
const ODD: [&str; 9] = ["0", "-1", "-4096", "1", "1099511627776", "9223372036854775807", "3.5", "-0", "99999999999"];

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let at = rng.below(lines.len() as u64) as usize;
    match rng.below(5) {
        0 => {
            lines.remove(at);
        }
        1 => lines.insert(at, lines[at]),
        2 => {
            let other = rng.below(lines.len() as u64) as usize;
            lines.swap(at, other);
        }
        3 => {
            let cut = rng.below(text.len() as u64) as usize;
            let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            return text[..cut].to_string();
        }
        _ => return replace_a_number(text, rng),
    }
    lines.join("\n")
}

fn replace_a_number(text: &str, rng: &mut Rng) -> String {
    let starts: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| c.is_ascii_digit() && !text[..i].ends_with(|p: char| p.is_ascii_alphanumeric() || p == '_'))
        .map(|(i, _)| i)
        .collect();
    let Some(&start) = starts.get(rng.below(starts.len() as u64) as usize) else { return text.to_string() };
    let end = text[start..].find(|c: char| !c.is_ascii_digit()).map_or(text.len(), |n| start + n);
    format!("{}{}{}", &text[..start], ODD[rng.below(ODD.len() as u64) as usize], &text[end..])
}

fn dumps() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = common::drawable_dumps().into_iter().map(|(p, _)| p).collect();
    out.push(common::example().join("passes_dump/32_after_AllocateMemoryAddr.py"));
    // The large case is covered by its own tests; mutating it here would only make this slow.
    out.retain(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 100_000));
    out
}

#[test]
fn mutated_corpus_dumps_are_drawn_or_refused_never_a_panic() {
    let mut rng = Rng(0x5eed_0fda_3a6e);
    // A longer hunt: PMM_ROBUST_ROUNDS=500 cargo test --release --test robust
    let rounds: u32 = std::env::var("PMM_ROBUST_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(12);
    let views = [ViewOptions::default(), ViewOptions { x_axis: XAxis::Used, zoom: 0.2, ..Default::default() }];
    let (mut drawn, mut refused) = (0, 0);
    let dumps = dumps();
    // Over the corpus and the fixtures, or the fixtures alone: the share of mutations either way.
    let total = dumps.len() * rounds as usize;
    for path in dumps {
        let original = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let before = build(
            &Dump::from_bytes(&name, original.clone().into_bytes()).unwrap(),
            backend::choose(None, None).unwrap(),
        );
        for round in 0..rounds {
            let text = mutate(&original, &mut rng);
            let what = format!("{} mutation #{round}", path.display());
            let map =
                match build(&Dump::from_bytes(&name, text.into_bytes()).unwrap(), backend::choose(None, None).unwrap())
                {
                    Ok(map) => map,
                    Err(e) => {
                        refused += 1;
                        assert!(!e.to_string().is_empty(), "{what}");
                        if e.kind == ErrorKind::Unreadable {
                            assert!(e.to_string().starts_with(&format!("{name}:")), "{what}: no place in '{e}'");
                        }
                        continue;
                    }
                };
            drawn += 1;
            for view in &views {
                for format in [Format::Json, Format::Svg, Format::Html] {
                    let opts = RenderOptions { format, view: view.clone(), ..Default::default() };
                    let out = pto_memory_map::render_map(&map, &opts);
                    assert!(out.is_ok_and(|b| !b.is_empty()), "{what}: {format:?}");
                }
            }
            if let Ok(old) = &before {
                for format in [DiffFormat::Markdown, DiffFormat::Map(Format::Json), DiffFormat::Map(Format::Svg)] {
                    assert!(
                        pto_memory_map::render_diff(old, &map, format, &ViewOptions::default(), 1.0).is_ok(),
                        "{what}"
                    );
                }
            }
        }
    }
    assert!(
        drawn * 5 > total && refused * 25 > total,
        "the mutations should both keep and break dumps: {drawn} drawn, {refused} refused of {total}"
    );
}
