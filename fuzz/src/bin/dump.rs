//! The dump front end: any bytes through reading, parsing, analysis and the text back ends.
//! Any panic or abort is a crash; refusals are the expected answer to most inputs.

use pto_memory_map::{Format, RenderOptions, render_bytes};

fn main() {
    afl::fuzz!(|data: &[u8]| {
        for format in [Format::Json, Format::Svg] {
            let opts = RenderOptions { format, ..RenderOptions::default() };
            let _ = render_bytes("fuzz.py", data.to_vec(), &opts);
        }
    });
}
