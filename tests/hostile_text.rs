//! Hostile characters in a dump or its name: noncharacters and control characters never make a
//! picture ill-formed XML, and never reach a text report raw (where a terminal would act on them).

use pto_memory_map::{Format, RenderOptions, render_bytes};

/// A dump whose string base holds U+FFFE, an escape sequence that retitles a terminal, a BEL and a
/// lone surrogate (all as Python escapes), with such characters raw in a comment (see [`dump`]).
const DUMP: &str = r#"import pypto.language as pl

@pl.program
class p:
    @pl.function(type=pl.FunctionType.AIV)
    def f(self, x):
        a: pl.Tile[[4, 4], pl.FP32, pl.MemRef("b\ufffe\x1b]0;pwned\x07\udc80\uffff\ufdd0", 0, 64), pl.Mem.Vec] = pl.tile.load(x)
        b: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_1, 64, 64), pl.Mem.Vec] = pl.tile.add(a, a)  # COMMENT
        return b
"#;

/// The name `?name=` or a file name could give it.
const NAME: &str = "t\u{1b}]0;pwned\u{7}\u{fffe}\u{ffff}\u{9b}.py";

fn dump() -> String {
    DUMP.replace("COMMENT", "\u{fffe} \u{1b}[2J \u{7}")
}

fn render(format: Format) -> String {
    let opts = RenderOptions { format, ..Default::default() };
    let out = render_bytes(NAME, dump().into_bytes(), &opts).unwrap_or_else(|e| panic!("{format:?}: {e}"));
    String::from_utf8(out).unwrap()
}

#[test]
fn the_dump_really_carries_the_characters() {
    assert!(dump().contains('\u{fffe}') && dump().contains('\u{1b}'));
    let json = render(Format::Json);
    assert!(json.contains("\\u001b]0;pwned\\u0007"), "the JSON keeps them, escaped as JSON does");
}

#[test]
fn pictures_stay_well_formed_xml() {
    for format in [Format::Svg, Format::Html] {
        let text = render(format);
        let bad: Vec<u32> =
            text.chars().filter(|&c| pto_memory_map::render::xml::forbidden(c)).map(|c| c as u32).collect();
        assert!(bad.is_empty(), "{format:?} carries {bad:x?}");
        assert!(text.contains("pwned"), "{format:?}: the rest of the name is kept");
    }
    // And an XML parser takes the picture (usvg's, which the PNG tests draw the SVG with).
    let svg = render(Format::Svg);
    let tree = resvg::usvg::Tree::from_str(&svg, &resvg::usvg::Options::default());
    assert!(tree.is_ok(), "{:?}", tree.err());
}

#[test]
fn text_reports_show_control_characters_escaped() {
    let txt = render(Format::Txt);
    let raw: Vec<u32> = txt.chars().filter(|&c| c.is_control() && c != '\n' && c != '\t').map(|c| c as u32).collect();
    assert!(raw.is_empty(), "raw control characters {raw:x?}");
    assert!(txt.contains("t\\x1b]0;pwned\\x07"), "{}", txt.lines().next().unwrap_or_default());
}
