//! What is said about a map's findings: those a view draws, their counts in words, and the CLI's
//! line after a render. Apart from the passes because every report reads these and none finds
//! anything.

use crate::model::{Finding, FunctionMap, MemoryMap, Severity};

/// The findings about what a view draws: those of the chosen functions (`only`, all when empty) or of
/// the whole dump, less those about a space `hidden` takes off a card (a card keeps its first space
/// when every one is hidden). A finding about a space the function does not have (a peer's window)
/// stays. Every format and count of a map reads this one list.
pub fn drawn<'a>(map: &'a MemoryMap, only: &[String], hidden: &[String]) -> Vec<&'a Finding> {
    // By name, so a whole model's thousands of findings do not each search its functions.
    let by_name: crate::hashed::HashMap<&str, &FunctionMap> =
        map.functions.iter().map(|f| (f.name.as_str(), f)).collect();
    map.findings
        .iter()
        .filter(|x| {
            let Some(name) = &x.function else { return true };
            let Some(f) = by_name.get(name.as_str()) else { return false };
            if !crate::model::is_chosen(only, name) {
                return false;
            }
            let Some(space) = &x.space else { return true };
            let all_hidden = f.spaces.iter().all(|s| hidden.contains(&s.space));
            let first = f.spaces.first().is_some_and(|s| &s.space == space);
            !f.spaces.iter().any(|s| &s.space == space) || !hidden.contains(space) || (all_hidden && first)
        })
        .collect()
}

/// Findings counted by severity: (errors, warnings, notes).
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s: Severity| findings.iter().filter(|x| x.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Note))
}

/// `2 errors, 1 warning, 30 notes`.
pub fn counts_text(findings: &[Finding]) -> String {
    let (e, w, n) = counts(findings);
    let word = |k: usize, one: &str| format!("{k} {one}{}", if k == 1 { "" } else { "s" });
    format!("{}, {}, {}", word(e, "error"), word(w, "warning"), word(n, "note"))
}

/// The CLI's line after a render: `drew 45 functions of X.py; worst occupancy 100.0% (q_proj
/// Right); findings: 0 errors, 7 warnings, 66 notes`. With `only` (the `--function` names), just
/// those functions and the findings about them or the whole dump.
pub fn summary_line(map: &MemoryMap, only: &[String], hidden: &[String]) -> String {
    let drawn: Vec<&FunctionMap> = map.functions.iter().filter(|f| crate::model::is_chosen(only, &f.name)).collect();
    let worst = drawn
        .iter()
        .flat_map(|f| f.spaces.iter().map(move |s| (f, s)))
        .filter(|(_, s)| s.described && s.limit > 0) // an unknown capacity is no occupancy
        .map(|(f, s)| (s.occupancy() * 100.0, f, s))
        .fold(
            None,
            |best: Option<(f64, _, _)>, x| if best.as_ref().is_some_and(|b| b.0 >= x.0) { best } else { Some(x) },
        );
    let worst =
        worst.map_or("no space used".into(), |(p, f, s)| format!("worst occupancy {p:.1}% ({} {})", f.name, s.space));
    let about: Vec<Finding> = self::drawn(map, only, hidden).into_iter().cloned().collect();
    // Each error code with its first case (where, which tiles), so the line says what is wrong.
    let errors: Vec<&Finding> = about.iter().filter(|x| x.severity == Severity::Error).collect();
    let mut codes: Vec<&str> = errors.iter().map(|x| x.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    let cases: Vec<String> = codes
        .iter()
        .map(|code| {
            let of: Vec<&&Finding> = errors.iter().filter(|x| x.code == *code).collect();
            let more = if of.len() > 1 { format!(", and {} more", of.len() - 1) } else { String::new() };
            format!("{code}: {}{more}", where_and_what(of[0]))
        })
        .collect();
    let detail = if cases.is_empty() { String::new() } else { format!(" ({})", cases.join("; ")) };
    format!(
        "drew {} function{} of {}; {worst}; findings: {}{detail}",
        drawn.len(),
        if drawn.len() == 1 { "" } else { "s" },
        map.dump,
        counts_text(&about)
    )
}

/// `qk_matmul Vec: a__tile and b__tile at L12`: a finding's place and tiles, for one line.
fn where_and_what(x: &Finding) -> String {
    let place: Vec<&str> = [x.function.as_deref(), x.space.as_deref()].into_iter().flatten().collect();
    let tiles = match x.tiles.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [a, b, rest @ ..] => format!("{a}, {b} and {} more", rest.len()),
    };
    let line = x.line.map(|l| format!(" at L{l}")).unwrap_or_default();
    match (place.is_empty(), tiles.is_empty()) {
        (true, true) => line.trim_start().to_string(),
        (true, false) => format!("{tiles}{line}"),
        (false, true) => format!("{}{line}", place.join(" ")),
        (false, false) => format!("{}: {tiles}{line}", place.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::finding;

    #[test]
    fn counts_read_as_words() {
        let one = finding("conflict", Severity::Error, String::new());
        assert_eq!(counts_text(&[one]), "1 error, 0 warnings, 0 notes");
    }
}
