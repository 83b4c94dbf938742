//! The page's writer: what it writes (payloads, the markup of the header and the cards, the
//! page's own CSS and script made lean), and how it behaves when its plan is slow or its writer fails.

use super::*;

#[test]
fn bytes_read_like_the_script() {
    assert_eq!(crate::units::fmt_bytes(512), "512 B");
    assert_eq!(crate::units::fmt_bytes(1024), "1 KB");
    assert_eq!(crate::units::fmt_bytes(24 * 1024), "24 KB");
    assert_eq!(crate::units::fmt_bytes(41062), "40.1 KB");
    assert_eq!(crate::units::fmt_bytes(524_288), "512 KB");
    assert_eq!(crate::units::fmt_bytes(2 * 1024 * 1024), "2 MB");
}

const RULES: &str = r##"{"occupancy_warn":0.8,"occupancy_crit":0.95,"colors":{"light":{"Vec":"#2a78d6","unknown":"#7b858c"},"dark":{"Vec":"#3987e5","unknown":"#82837d"},"good":"#0ca30c","warning":"#fab219","critical":"#d03b3b"}}"##;

fn plan_of(map: &crate::MemoryMap) -> Plan {
    crate::plan::plan(map, &crate::ViewOptions::default())
}

/// A stand-in plan for the writer's tests: its JSON on one line.
impl PageLines for Value {
    fn write_lines(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        Ok(serde_json::to_writer(out, self)?)
    }

    fn write_gzip(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        crate::deflate::gzip_pieces(crate::deflate::pack_all([serde_json::to_vec(self)?]).into_iter(), out)
    }
}

/// The JSON a page carries in `<script id="{id}">`, inflated as the page's script does; the plan's
/// lines ([`PageLines`]) put back together as the [`Plan`] they are.
fn payload(page: &str, id: &str) -> serde_json::Value {
    use base64::Engine as _;
    use std::io::Read as _;
    let open = format!("<script type=\"{PAYLOAD_TYPE}\" id=\"{id}\">");
    let start = page.find(&open).unwrap_or_else(|| panic!("no {open}")) + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    let gz = base64::engine::general_purpose::STANDARD.decode(&page[start..end]).expect("base64");
    let mut json = String::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_string(&mut json).expect("gzip");
    let mut lines = json.split('\n').map(|line| serde_json::from_str::<serde_json::Value>(line).expect("JSON"));
    let mut head = lines.next().expect("a first line");
    if id == "pmm-plan" {
        head["cards"] = lines.collect();
    }
    head
}

/// A map whose dump-derived text tries to break out of every context it lands in.
fn hostile_map() -> crate::MemoryMap {
    serde_json::from_value(serde_json::json!({
        "dump": "x</script><b>.py", "pass_name": "AllocateMemoryAddr",
        "backend": {"name": "Ascend910B", "arch": "a2a3", "detected": false},
        "functions": [{
            "name": "f_<i>\"'&", "ftype": "AIV", "src_start": 1, "src_end": 2,
            "source": ["def f(): # </script><script>alert(1)</script>", "    <!-- x"],
            "spaces": [{"space": "Vec", "hwm": 180_000, "limit": 188_416, "tiles": 1, "bases": 1}],
            "boxes": [{"name": "t__tile", "space": "Vec", "base": "mem_vec_1", "offset": 0, "size": 180_000,
                "shape": [16, 16], "dtype": "FP32", "op": "tile.load", "start": 1, "end": 2,
                "aliases": [], "view": false, "conflict": false}]
        }]
    }))
    .expect("sample map")
}

#[test]
fn a_panic_while_drawing_ahead_goes_on_with_its_own_message() {
    let map = hostile_map().with_copies(80);
    assert!(map.functions.len() > 2 * CARDS_AT_ONCE);
    if crate::par::cores() < 2 {
        return; // one core: no drawing thread, nothing drawn ahead
    }
    let plan = plan_of(&map);
    // The second batch fails on the drawing thread only, so drawing it again here would
    // succeed: the panic must still be the page's, with its message.
    let here = std::thread::current().id();
    let draw = |range: Range<usize>| {
        let ahead = std::thread::current().id() != here;
        assert!(!ahead || range.start < CARDS_AT_ONCE, "boom at card {}", range.start);
        range.map(|_| CardView { svg: None, pills: Vec::new(), notes: Vec::new() }).collect()
    };
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = write(&Page::of(&map), &draw, RULES, &plan, &mut Vec::new());
    }))
    .unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.starts_with("boom at card"), "{message:?}");
}

/// A plan packed on a thread that first waits for a word on `body`'s sender (or `wait`), beside
/// an [`AfterPlan`] writing to `out`, which `body` gets.
fn with_plan_packing(
    out: &mut Vec<u8>,
    wait: std::time::Duration,
    body: impl FnOnce(&mut AfterPlan<Value>, std::sync::mpsc::Sender<()>),
) {
    let plan = serde_json::json!({"cards": []});
    let plan = &plan;
    let (go, started) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let job = s.spawn(move || {
            let _ = started.recv_timeout(wait);
            gzipped(plan)
        });
        let mut rest = AfterPlan::new(Packed { plan, job: Some(job) }, out);
        body(&mut rest, go);
        rest.release().unwrap();
    });
}

#[test]
fn what_follows_the_plan_is_held_until_it_is_packed_then_follows_it() {
    use std::io::Write as _;
    let mut out = Vec::new();
    with_plan_packing(&mut out, std::time::Duration::from_secs(60), |rest, go| {
        rest.write_all(b"<script>").unwrap();
        assert!(rest.plan.is_some() && rest.held == b"<script>", "held while the plan is packed");
        go.send(()).unwrap();
        while !rest.plan.as_ref().is_some_and(Packed::is_ready) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        rest.write_all(b"body").unwrap();
        assert!(rest.plan.is_none() && rest.held.is_empty(), "out once the plan is");
        rest.write_all(b"</html>").unwrap();
    });
    let page = String::from_utf8(out).unwrap();
    assert!(page.starts_with(r#"<script type="application/gzip" id="pmm-plan">H4sI"#), "{page}");
    assert!(page.ends_with("</script>\n<script>body</html>"), "{page}");
}

#[test]
fn no_more_than_held_bytes_wait_for_the_plan() {
    use std::io::Write as _;
    let mut out = Vec::new();
    with_plan_packing(&mut out, std::time::Duration::from_secs(60), |rest, go| {
        rest.write_all(&vec![b'x'; HELD_BYTES - 1]).unwrap();
        assert!(rest.plan.is_some(), "held");
        // The plan is packed a moment after the write that does not fit begins: it waits.
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let _ = go.send(());
        });
        rest.write_all(b"xy").unwrap();
        assert!(rest.plan.is_none() && rest.held.is_empty(), "past the bound, the writer waits for the plan");
    });
    let page = String::from_utf8(out).unwrap();
    assert!(page.ends_with(&format!("</script>\n{}y", "x".repeat(HELD_BYTES))), "the held bytes follow the plan whole");
}

#[test]
fn without_a_thread_the_plan_is_packed_here_and_a_failed_write_stays_failed() {
    use std::io::Write as _;
    let plan = serde_json::json!({"cards": []});
    let mut out = Vec::new();
    let mut rest = AfterPlan::new(Packed { plan: &plan, job: None }, &mut out);
    rest.write_all(b"<script>").unwrap();
    assert!(rest.plan.is_none() && rest.held.is_empty(), "nothing is held for a plan packed here");
    let page = String::from_utf8(out).unwrap();
    assert!(
        page.starts_with(r#"<script type="application/gzip" id="pmm-plan">"#) && page.ends_with("</script>\n<script>")
    );
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("the disk is full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut full = Full;
    let mut rest = AfterPlan::new(Packed { plan: &plan, job: None }, &mut full);
    assert!(rest.write(b"a").unwrap_err().to_string().contains("full"));
    let again = rest.write(b"b").unwrap_err();
    assert!(again.to_string().contains("earlier write"), "no bytes after a broken plan: {again}");
}

#[test]
fn a_plan_never_written_is_waited_for_and_its_panic_kept_from_the_page() {
    let plan = serde_json::json!({});
    let outcome = std::panic::catch_unwind(|| {
        std::thread::scope(|s| {
            let job = s.spawn(|| -> std::io::Result<Vec<u8>> { panic!("packing the plan") });
            drop(Packed { plan: &plan, job: Some(job) }); // as when the page stops on an error
        })
    });
    assert!(outcome.is_ok(), "the page's own error, not the plan's panic, is what the caller sees");
}

#[test]
fn page_is_escaped_and_self_contained() {
    let map = hostile_map();
    let mut card = Xml::new();
    card.leaf("svg", &[("class", "s".into())]);
    let page = render(&Page::of(&map), &[card.finish()], RULES, &plan_of(&map));
    assert!(page.contains("data-function=\"f_&lt;i&gt;&quot;&#39;&amp;\""));
    assert!(page.contains("<b class=\"dump-name\">x&lt;/script&gt;&lt;b&gt;.py</b>"));
    // Only our own four scripts close: the rules, the data, the plan, the code, in that order
    // (the code reads the other three as it starts), all in the head.
    assert_eq!(page.matches("</script>").count(), 4);
    let at = |what: &str| page.find(what).unwrap_or_else(|| panic!("{what}"));
    let order = [at("id=\"pmm-rules\""), at("id=\"pmm-data\""), at("id=\"pmm-plan\""), at("<script>\n"), at("</head>")];
    assert!(order.is_sorted(), "{order:?}");
    assert!(!page.contains("<!-- x"));
    // The raw name never appears: the payloads are gzip in base64, the rest escaped.
    assert!(!page.contains("<i>"));
    let back = payload(&page, "pmm-data");
    assert_eq!(back["functions"][0]["source"], serde_json::json!(map.functions[0].source));
    assert!(back["functions"][0].get("boxes").is_none(), "boxes travel once, in the plan");
    let plan = payload(&page, "pmm-plan");
    assert_eq!(
        plan["cards"][0]["boxes"][0]["tip"][0], "Vec · [16, 16] FP32 · tile.load",
        "the plan carries the tooltip lines"
    );
    assert_eq!(plan, serde_json::to_value(plan_of(&map)).unwrap(), "the plan arrives whole");
    // The header says the backend is assumed; the pill is critical (180000/188416 = 95.5 %).
    assert!(page.contains(">assumed</em>"));
    assert!(page.contains("class=\"pill occ-crit\" data-space=\"Vec\""));
    assert!(page.contains("Vec hwm 175.8 KB / 184 KB <span class=\"pct\">95.5%</span>"));
    assert!(page.contains("<div class=\"static-map\"><svg class=\"s\"/>"), "the card's SVG is embedded as made");
    // Colours come from the rules, per scheme.
    assert!(page.contains("--c-Vec:#2a78d6;") && page.contains("--c-Vec:#3987e5;"));
    assert!(page.contains("--critical:#d03b3b;"));
    for external in [" src=\"", " href=\"http", "@import", "url(http"] {
        assert!(!page.contains(external), "{external}");
    }
}

/// The page's neutrals are the pictures' palette, in both themes: written from it, and defined
/// nowhere else (the stylesheet only reads them).
#[test]
fn the_page_colours_are_the_palette() {
    use crate::plan::Theme;
    use crate::plan::style::palette;
    let rules: Value = serde_json::from_str(&crate::plan::options::rules_json()).unwrap();
    let css = palette_css(&rules);
    let (light, rest) = css.split_once("@media (prefers-color-scheme: dark)").unwrap();
    let (dark_auto, dark_forced) = rest.split_once(":root[data-theme=dark]").unwrap();
    for (block, theme) in [(light, Theme::Light), (dark_auto, Theme::Dark), (dark_forced, Theme::Dark)] {
        let p = palette(theme);
        for (name, color) in [
            ("bg", p.page),
            ("panel", p.card),
            ("fg", p.text),
            ("muted", p.muted),
            ("border", p.border),
            ("grid", p.grid),
        ] {
            let decl = format!("--{name}:{};", color.css());
            assert!(block.contains(&decl), "{theme:?}: {decl} not in {block}");
            let defined = format!("--{name}:");
            assert!(!PAGE_CSS.contains(&defined), "page.css defines --{name} itself");
            assert!(!PAGE_CSS.contains(&format!("--{name}: ")), "page.css defines --{name} itself");
        }
    }
}

/// The shipped script and stylesheet are their sources less whole comment lines: every line of
/// code is kept whole and in order, and no string or template runs over a line end (where
/// dropping indentation would change it).
#[test]
fn the_page_ships_its_code_without_comments() {
    for (source, shipped) in [(PAGE_JS.to_string(), page_script()), (PAGE_CSS.into(), page_css())] {
        let mut kept = shipped.lines();
        let mut in_block = false;
        for line in source.lines().map(str::trim) {
            let comment = in_block || line.starts_with("//") || line.starts_with("/*") || line.is_empty();
            in_block = (in_block || line.starts_with("/*")) && !line.contains("*/");
            let code_after =
                line.starts_with("/*") && line.find("*/").is_some_and(|e| !line[e + 2..].trim().is_empty());
            if !comment || code_after {
                assert_eq!(kept.next(), Some(line), "a line of code is kept as it is");
                assert!(line.matches('`').count() % 2 == 0, "a template literal spans lines: {line}");
            }
        }
        assert_eq!(kept.next(), None);
        assert!(shipped.len() < source.len());
    }
}
