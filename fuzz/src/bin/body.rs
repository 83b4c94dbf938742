//! The HTTP body readers: raw, gzip and multipart bodies (and the two-dump form of /diff), with the
//! headers chosen by the first byte of the input. Any panic is a crash; errors are expected.

use pto_memory_map::server::read_body_for_fuzzing;

/// Header sets the service meets; multipart ones use the boundary `BBBB` so seeds can be written by
/// hand, and one keeps the 1-character boundary that once made the multipart parser panic.
const HEADERS: [&[(&str, &str)]; 6] = [
    &[("content-type", "text/plain")],
    &[("content-type", "text/plain"), ("content-encoding", "gzip")],
    &[("content-type", "application/gzip")],
    &[("content-type", "multipart/form-data; boundary=BBBB")],
    &[],
    &[("content-type", "multipart/form-data; boundary=B"), ("content-encoding", "identity")],
];

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let Some((&selector, body)) = data.split_first() else { return };
        let headers = HEADERS[selector as usize % HEADERS.len()];
        let pair = selector >= 128;
        if let Ok(dumps) = read_body_for_fuzzing(headers, body, 64 * 1024, pair) {
            assert!(dumps.iter().all(|d| d.len() <= 64 * 1024), "a body reader went past its limit");
        }
    });
}
