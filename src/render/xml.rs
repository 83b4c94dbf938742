//! A small XML writer: element and attribute names are fixed strings of this crate, and every value
//! and text passes through the escaper, so text from a dump cannot change the document's structure.

use crate::plan::style::Color;

/// An attribute value: text is escaped, numbers are written short and stable.
#[derive(Clone, Copy)]
pub enum Value<'a> {
    /// Text, escaped when written.
    Str(&'a str),
    /// A coordinate: at most two decimals.
    Num(f64),
    /// An integer.
    Int(i64),
    /// A colour, written `#rrggbb`.
    Color(Color),
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(s: &'a str) -> Self {
        Value::Str(s)
    }
}

impl From<f64> for Value<'_> {
    fn from(v: f64) -> Self {
        Value::Num(v)
    }
}

impl From<Color> for Value<'_> {
    fn from(c: Color) -> Self {
        Value::Color(c)
    }
}

/// Markup this writer produced: every piece of text in it went through the escaper. Only the
/// writer makes one, so a page can embed it (a card's SVG in the HTML page) as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markup(String);

impl Markup {
    /// The markup as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The markup as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// Builds a document element by element.
pub struct Xml {
    out: String,
    stack: Vec<&'static str>,
    /// Whether the last start tag still waits for its `>`.
    pending: bool,
    /// HTML closes an empty element with an end tag (`<i></i>`), except the void ones.
    html: bool,
}

/// HTML elements that have no end tag.
const VOID: [&str; 6] = ["meta", "link", "br", "hr", "img", "input"];

impl Xml {
    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// Whether nothing is written yet.
    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// An empty XML (SVG) writer.
    pub fn new() -> Self {
        Xml { out: String::with_capacity(64 * 1024), stack: Vec::new(), pending: false, html: false }
    }

    /// An HTML document: the doctype, then elements as for XML, with HTML's rule for empty ones.
    pub fn html() -> Self {
        let mut x = Xml::html_fragment();
        x.out.push_str("<!DOCTYPE html>\n");
        x
    }

    /// Part of an HTML document, to embed in one with [`Xml::markup`]: as [`Xml::html`], without
    /// the doctype.
    pub fn html_fragment() -> Self {
        Xml { html: true, ..Xml::new() }
    }

    /// Embeds markup this writer made earlier, as it is.
    pub fn markup(&mut self, m: &Markup) {
        self.finish_start();
        self.out.push_str(&m.0);
    }

    /// `<script>` or `<style>` with `content` as raw text: such an element ends at the first `</`,
    /// so every `</` (and `<!--`, which would switch the parser into its escaped state) is written
    /// in a form that reads back the same inside JSON and JavaScript strings, where they can occur.
    pub fn raw_text(&mut self, tag: &'static str, attrs: &[(&'static str, Value)], content: &str) {
        self.open(tag, attrs);
        self.finish_start();
        // One pass, straight into the page (the script is 60 KB): a `<` that starts `</` or `<!--`
        // is followed by a backslash escape of its next character.
        let content = allowed(content);
        let mut rest: &str = &content;
        while let Some(at) = rest.find('<') {
            self.out.push_str(&rest[..=at]);
            rest = &rest[at + 1..];
            if rest.starts_with('/') {
                self.out.push('\\');
            } else if rest.starts_with("!--") {
                self.out.push_str("\\u0021");
                rest = &rest[1..];
            }
        }
        self.out.push_str(rest);
        self.close();
    }

    /// `<tag attrs>`, then what `body` writes, then `</tag>`, all written to `out` (with what was
    /// written before) without being held: for the page's payloads of many megabytes. The body may
    /// not write a `<`, so it cannot end the element early; a `<` fails the write. Payloads are
    /// base64, which has none.
    pub fn raw_text_to(
        &mut self,
        tag: &'static str,
        attrs: &[(&'static str, Value)],
        out: &mut dyn std::io::Write,
        body: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.open(tag, attrs);
        self.finish_start();
        self.drain_to(out)?;
        body(&mut NoMarkup(out))?;
        self.close();
        Ok(())
    }

    /// A line break between blocks, so the page's source reads well.
    pub fn newline(&mut self) {
        self.finish_start();
        self.out.push('\n');
    }

    /// Opens `<tag a="v" ...>`; children follow until [`Xml::close`].
    pub fn open(&mut self, tag: &'static str, attrs: &[(&'static str, Value)]) {
        self.start(tag, attrs);
        self.stack.push(tag);
        self.pending = true;
    }

    /// Writes `<tag a="v" .../>` (in HTML, `<tag ...></tag>` unless the element is void).
    pub fn leaf(&mut self, tag: &'static str, attrs: &[(&'static str, Value)]) {
        self.start(tag, attrs);
        if self.self_closing(tag) {
            self.out.push_str("/>");
        } else {
            self.end_tag(">", tag);
        }
    }

    /// `before` then `</tag>`.
    fn end_tag(&mut self, before: &str, tag: &str) {
        self.out.push_str(before);
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
    }

    /// Whether an empty `tag` may be written `<tag/>`: always in XML, only void elements in HTML.
    fn self_closing(&self, tag: &str) -> bool {
        !self.html || VOID.contains(&tag)
    }

    /// Writes `<tag ...>text</tag>`.
    pub fn element(&mut self, tag: &'static str, attrs: &[(&'static str, Value)], text: &str) {
        self.open(tag, attrs);
        self.text(text);
        self.close();
    }

    /// Character data, escaped.
    pub fn text(&mut self, text: &str) {
        self.finish_start();
        escape_into(&mut self.out, text);
    }

    /// Closes the innermost open element.
    pub fn close(&mut self) {
        if let Some(tag) = self.stack.pop() {
            match (self.pending, self.self_closing(tag)) {
                (true, true) => self.out.push_str("/>"),
                (true, false) => self.end_tag(">", tag),
                (false, _) => self.end_tag("", tag),
            }
            self.pending = false;
        }
    }

    /// Writes what is written so far to `out` and forgets it; the elements still open stay open.
    /// A long document (a page of many cards) goes out a part at a time this way.
    pub fn drain_to(&mut self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(self.out.as_bytes())?;
        self.out.clear();
        Ok(())
    }

    /// [`Xml::finish`], written to `out`.
    pub fn finish_to(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(self.finish().0.as_bytes())
    }

    /// Closes whatever is open and returns the document.
    pub fn finish(mut self) -> Markup {
        while !self.stack.is_empty() {
            self.close();
        }
        self.out.push('\n');
        Markup(self.out)
    }

    fn start(&mut self, tag: &'static str, attrs: &[(&'static str, Value)]) {
        self.finish_start();
        self.out.push('<');
        self.out.push_str(tag);
        for (name, value) in attrs {
            self.out.push(' ');
            self.out.push_str(name);
            self.out.push_str("=\"");
            match *value {
                Value::Str(s) => escape_into(&mut self.out, s),
                Value::Num(v) => write_num(&mut self.out, v),
                Value::Int(v) => write_int(&mut self.out, v),
                Value::Color(c) => write_color(&mut self.out, c),
            }
            self.out.push('"');
        }
    }

    fn finish_start(&mut self) {
        if self.pending {
            self.out.push('>');
            self.pending = false;
        }
    }
}

impl Default for Xml {
    fn default() -> Self {
        Xml::new()
    }
}

/// Escapes the five XML specials, and replaces with U+FFFD what XML may not hold at all (see
/// [`forbidden`]); also fine for HTML text and attribute values.
fn escape_into(out: &mut String, text: &str) {
    // Text is copied a run at a time, up to a byte that may need a change. Such a byte is ASCII or
    // the lead byte of a character (bytes from 0xEF lead the characters from U+F000, where the
    // noncharacters are), so it starts a character; most need none (a tooltip's line breaks and
    // middle dots), and the run goes on.
    let bytes = text.as_bytes();
    let (mut run, mut at) = (0, 0);
    while at < bytes.len() {
        let b = bytes[at];
        if !(matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'') || maybe_forbidden(b)) {
            at += 1;
            continue;
        }
        let Some(c) = text[at..].chars().next() else { break };
        let instead = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&#39;",
            c if forbidden(c) => "\u{fffd}",
            c => {
                at += c.len_utf8();
                continue;
            }
        };
        out.push_str(&text[run..at]);
        out.push_str(instead);
        at += c.len_utf8();
        run = at;
    }
    out.push_str(&text[run..]);
}

/// Characters a document should not carry: the control characters other than tab, newline and
/// carriage return (XML 1.0 forbids those below U+0020; DEL and the C1 range it discourages, and a
/// terminal or viewer may act on them), and the noncharacters U+FDD0 to U+FDEF and U+xFFFE/U+xFFFF
/// of every plane (XML forbids U+FFFE and U+FFFF; a parser that meets one stops with an error, so
/// one such character in a dump or a `name=` made the whole SVG unreadable).
pub fn forbidden(c: char) -> bool {
    let u = c as u32;
    (u < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
        || (0x7F..=0x9F).contains(&u)
        || (0xFDD0..=0xFDEF).contains(&u)
        || (u & 0xFFFE) == 0xFFFE
}

/// Whether the UTF-8 byte `b` may be (part of) a character [`forbidden`] names: a control
/// character, DEL, the lead byte of the C1 range (0xC2), or a lead byte from U+F000 on (0xEF
/// and up), where the noncharacters are. Text without such bytes is passed on as it is.
fn maybe_forbidden(b: u8) -> bool {
    !(0x20..0xEF).contains(&b) || b == 0x7F || b == 0xC2
}

/// `text` with what [`forbidden`] names replaced by U+FFFD: for raw text (a page's script), which is
/// not escaped otherwise.
fn allowed(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.bytes().any(maybe_forbidden) || !text.chars().any(forbidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.chars().map(|c| if forbidden(c) { '\u{fffd}' } else { c }).collect())
}

/// A writer that passes bytes on unless they hold a `<`, which could close a raw text element.
struct NoMarkup<'a>(&'a mut dyn std::io::Write);

impl std::io::Write for NoMarkup<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.contains(&b'<') {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "markup in a raw text element"));
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A coordinate with at most two decimals and no trailing zeros, so output is stable and small.
pub fn num(v: f64) -> String {
    let mut s = String::new();
    write_num(&mut s, v);
    s
}

/// Writes `v` rounded to hundredths without allocating: this runs for every coordinate of a map.
pub fn write_num(out: &mut String, v: f64) {
    let cents = (v * 100.0).round();
    if !cents.is_finite() || cents.abs() > 1e15 {
        out.push('0');
        return;
    }
    let cents = cents as i64;
    if cents < 0 {
        out.push('-');
    }
    let (whole, frac) = (cents.unsigned_abs() / 100, cents.unsigned_abs() % 100);
    write_digits(out, whole);
    if frac != 0 {
        out.push('.');
        out.push(char::from(b'0' + (frac / 10) as u8));
        if frac % 10 != 0 {
            out.push(char::from(b'0' + (frac % 10) as u8));
        }
    }
}

/// Writes an integer in decimal.
pub fn write_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    write_digits(out, v.unsigned_abs());
}

/// Writes `n` in decimal without the formatting machinery, which took half the time of drawing a
/// card (a page draws every card's picture, and a picture is mostly numbers).
fn write_digits(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// Writes a colour as `#rrggbb`.
fn write_color(out: &mut String, c: Color) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('#');
    for byte in [c.0, c.1, c.2] {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 15)]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_xml_forbids_is_replaced() {
        let mut x = Xml::new();
        x.element(
            "text",
            &[("data-name", "a\u{fffe}b\u{1b}c\u{7}".into())],
            "\u{ffff}x\u{fdd0}\u{1fffe}\u{9b}y\tz\u{e9}",
        );
        assert_eq!(
            x.finish().as_str(),
            "<text data-name=\"a\u{fffd}b\u{fffd}c\u{fffd}\">\u{fffd}x\u{fffd}\u{fffd}\u{fffd}y\tz\u{e9}</text>\n"
        );
        for c in ['\u{fffd}', '\u{fdcf}', '\u{fdf0}', '\u{10000}', '\u{a0}', '\u{d7ff}', '\u{e000}'] {
            assert!(!forbidden(c), "{:x}", c as u32);
        }
        let mut x = Xml::html_fragment();
        x.raw_text("script", &[], "var a = '\u{fffe}\u{1b}';");
        assert_eq!(x.finish().as_str(), "<script>var a = '\u{fffd}\u{fffd}';</script>\n");
    }

    #[test]
    fn text_is_escaped_a_run_at_a_time_as_a_character_at_a_time() {
        let by_char = |text: &str| -> String {
            text.chars()
                .map(|c| match c {
                    '&' => "&amp;".to_string(),
                    '<' => "&lt;".to_string(),
                    '>' => "&gt;".to_string(),
                    '"' => "&quot;".to_string(),
                    '\'' => "&#39;".to_string(),
                    c if forbidden(c) => "\u{fffd}".to_string(),
                    c => c.to_string(),
                })
                .collect()
        };
        let pieces = [
            "a",
            "·",
            "\n",
            "→",
            "&",
            "<",
            "'",
            "\u{1b}",
            "\u{9b}",
            "\u{fffe}",
            "\u{fdd0}",
            "é",
            "\u{1f600}",
            "\u{ef00}",
        ];
        for n in 0..pieces.len() * pieces.len() * pieces.len() {
            let (i, j, k) = (n % pieces.len(), n / pieces.len() % pieces.len(), n / pieces.len() / pieces.len());
            let text = format!("{}{}x{}", pieces[i], pieces[j], pieces[k]);
            let mut out = String::new();
            escape_into(&mut out, &text);
            assert_eq!(out, by_char(&text), "{text:?}");
        }
    }

    #[test]
    fn values_and_text_are_escaped() {
        let mut x = Xml::new();
        x.open("g", &[("data-name", "a\"<b>&'c".into())]);
        x.text("</g><script>");
        x.close();
        assert_eq!(x.finish().as_str(), "<g data-name=\"a&quot;&lt;b&gt;&amp;&#39;c\">&lt;/g&gt;&lt;script&gt;</g>\n");
    }

    #[test]
    fn raw_text_is_escaped_in_one_pass_as_by_each_rule_in_turn() {
        for content in ["a</b", "<!--", "<<!--<//", "<", "x<", "<!-", "</!--", "<!--/", "é</é<!--é", ""] {
            let mut x = Xml::html_fragment();
            x.raw_text("style", &[], content);
            let want = content.replace("</", "<\\/").replace("<!--", "<\\u0021--");
            assert_eq!(x.finish().into_string(), format!("<style>{want}</style>\n"), "{content:?}");
        }
    }

    #[test]
    fn html_closes_empty_elements_and_raw_text_cannot_end_early() {
        let mut x = Xml::html();
        x.leaf("meta", &[("charset", "utf-8".into())]);
        x.leaf("i", &[("class", "sw".into())]);
        x.open("b", &[]);
        x.close();
        x.raw_text("script", &[("type", "application/json".into())], r#"{"a":"</script><!-- x"}"#);
        let page = x.finish().into_string();
        assert_eq!(
            page,
            "<!DOCTYPE html>\n<meta charset=\"utf-8\"/><i class=\"sw\"></i><b></b><script type=\"application/json\">\
             {\"a\":\"<\\/script><\\u0021-- x\"}</script>\n"
        );
        let json = &page[page.find('{').unwrap()..page.rfind('}').unwrap() + 1];
        assert_eq!(serde_json::from_str::<serde_json::Value>(json).unwrap()["a"], "</script><!-- x");
    }

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(0.125), "0.13");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(3.5), "3.5");
        assert_eq!(num(-10240.05), "-10240.05");
        assert_eq!(num(0.1), "0.1");
        assert_eq!(num(1e12), "1000000000000");
    }

    #[test]
    fn integers_and_colours_are_written_as_the_formatter_would() {
        for v in [0, 7, -7, 10, 99, 100, 65_536, i64::MAX, i64::MIN] {
            let mut s = String::new();
            write_int(&mut s, v);
            assert_eq!(s, v.to_string());
        }
        let mut s = String::new();
        write_color(&mut s, Color(0x0a, 0xf0, 0xff));
        assert_eq!(s, "#0af0ff");
    }
}
