//! The harness of the service's end-to-end tests (`server.rs`, `server_store.rs`): the real binary
//! on an ephemeral port, a small HTTP/1.1 client written here (one request per connection), and the
//! dumps they post.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Fixtures

// The project's own dumps (tests/fixtures), there in every checkout.
pub const SMALL: &str = "fx_concise.py";
/// Three compute functions.
pub const THREE: &str = "fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py";
pub const NO_TILES: &str = "fx_ptoas_planner.py";
pub const NOT_ASSIGNED: &str = "fx_a2a3_case/passes_dump/34_after_MemoryReuse.py";
// Real dumps of the shared corpus, where it is present.
pub const MID: &str = "generated/Ascend910B/llama_7b_mini_1h_s16/passes_dump/35_after_AllocateMemoryAddr.py";
pub const BIG: &str = "cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py";

pub fn fixture(rel: &str) -> Vec<u8> {
    let path = crate::common::fixtures().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A corpus dump, or `None` without a corpus (the test then returns, saying it skipped).
pub fn corpus(rel: &str) -> Option<Vec<u8>> {
    let path = crate::common::corpus()?.join(rel);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The dump of one of the repository's examples (`demo_case`, `demo_change`).
pub fn example(case: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(case)
        .join("passes_dump/32_after_AllocateMemoryAddr.py");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

pub use crate::common::TempDir;

/// The binary, serving on 127.0.0.1:0; killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: String,
    pub log: PathBuf,
}

impl Server {
    /// A server with its data in `dir`, extra flags and environment.
    pub fn start_in(dir: &Path, flags: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start(dir, flags, None, env)
    }

    /// [`Server::start_in`], under `ulimit -v` of `vm_kb` when given (what memory bounds mean).
    pub fn start(dir: &Path, flags: &[&str], vm_kb: Option<u64>, env: &[(&str, &str)]) -> Server {
        static STARTS: AtomicUsize = AtomicUsize::new(0);
        let log = dir.join(format!("server-{}.log", STARTS.fetch_add(1, Ordering::Relaxed)));
        let mut cmd = Command::new("sh");
        let limit = vm_kb.map(|kb| format!("ulimit -v {kb} && ")).unwrap_or_default();
        cmd.arg("-c").arg(format!("{limit}exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_pto-memory-map"));
        cmd.args(["serve", "--bind", "127.0.0.1:0", "--data-dir"]).arg(dir.join("data"));
        if !flags.contains(&"--render-threads") {
            cmd.args(["--render-threads", "2"]);
        }
        cmd.args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("the binary starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let Some(addr) = line.trim().strip_prefix("listening on http://") else {
            let _ = child.kill();
            panic!("no address printed; got {line:?}; log: {}", std::fs::read_to_string(&log).unwrap_or_default());
        };
        Server { addr: addr.to_string(), child, log }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The resident set of the server process in bytes, where the system reports it.
    pub fn rss(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    }

    pub fn alive(&mut self) -> bool {
        self.child.try_wait().is_ok_and(|s| s.is_none())
    }

    pub fn get(&self, target: &str) -> Resp {
        request(&self.addr, "GET", target, &[], b"")
    }

    pub fn get_with(&self, target: &str, headers: &[(&str, &str)]) -> Resp {
        request(&self.addr, "GET", target, headers, b"")
    }

    pub fn post(&self, target: &str, content_type: &str, body: &[u8]) -> Resp {
        request(&self.addr, "POST", target, &[("Content-Type", content_type)], body)
    }

    pub fn post_with(&self, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
        request(&self.addr, "POST", target, headers, body)
    }

    pub fn healthy(&self) {
        let r = self.get("/healthz");
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["status"], "ok");
    }

    /// The value of an unlabelled metric.
    pub fn metric(&self, name: &str) -> f64 {
        let text = self.get("/metrics").text();
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no metric {name} in:\n{text}"))
    }

    /// Stops the server with SIGTERM (a graceful stop) and waits for it.
    pub fn stop(mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }

    /// SIGKILL: no chance to flush or clean anything.
    pub fn kill_9(mut self) {
        self.child.kill().unwrap();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server in its own temporary directory, returned with it (drop order: server first).
pub fn server(flags: &[&str], env: &[(&str, &str)]) -> (Server, TempDir) {
    let dir = TempDir::new("s");
    (Server::start_in(&dir.0, flags, env), dir)
}

// ---------------------------------------------------------------------------------------------
// A minimal HTTP/1.1 client: one request per connection, `Connection: close`, body read to EOF.

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// Checks the error shape and returns its code.
    pub fn error_code(&self) -> String {
        assert!(self.status >= 400, "expected an error, got {}: {}", self.status, self.text());
        assert_eq!(self.header("content-type"), Some("application/json"), "{}", self.text());
        let v = self.json();
        assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
        v["error"]["code"].as_str().expect("error.code").to_string()
    }
}

pub fn request(addr: &str, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    // A link copied from an answer is absolute: it names this server, and is asked of it by path.
    let target = match target.strip_prefix("http://") {
        Some(rest) => rest.strip_prefix(addr).unwrap_or_else(|| panic!("{target} is not a link to {addr}")),
        None => target,
    };
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-length") || k.eq_ignore_ascii_case("transfer-encoding"))
        && (method == "POST" || !body.is_empty())
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut raw = head.into_bytes();
    raw.extend_from_slice(body);
    exchange(addr, &raw)
}

/// Sends raw request bytes and reads the whole answer. A write cut short (the server answered early
/// and closed) is not an error: the answer is what counts.
pub fn exchange(addr: &str, raw: &[u8]) -> Resp {
    let mut stream = TcpStream::connect(addr).expect("connect");
    read_answer(&mut stream, raw).unwrap_or_else(|e| panic!("no answer from {addr}: {e}"))
}

/// [`exchange`] on a connection already open (to a server that answered it early, say).
pub fn read_answer(stream: &mut TcpStream, raw: &[u8]) -> std::io::Result<Resp> {
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    stream.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = stream.write_all(raw);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if buf.is_empty() => return Err(e),
            Err(_) => break,
        }
    }
    Ok(parse_response(&buf))
}

pub fn parse_response(buf: &[u8]) -> Resp {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| {
        panic!("no complete response head in {:?}", String::from_utf8_lossy(&buf[..buf.len().min(300)]))
    });
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = buf[end + 4..].to_vec();
    if headers.iter().any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked")) {
        body = dechunk(&body);
    }
    Resp { status, headers, body }
}

pub fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&data[..eol]).split(';').next().unwrap().trim(), 16)
            .expect("chunk size");
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 2 + size + 2..];
    }
    out
}

/// A multipart/form-data body: (field name, file name, content) per part.
pub fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "----pto-memory-map-test-7d3c";
    let mut body = Vec::new();
    for (name, file, content) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => {
                body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes())
            }
        }
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Deterministic pseudo-random bytes (xorshift), so a failure can be reproduced.
pub fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.extend_from_slice(&seed.to_le_bytes());
    }
    out.truncate(len);
    out
}

// ---------------------------------------------------------------------------------------------
// Service basics

pub fn assert_picture(r: &Resp, format: &str) {
    assert_eq!(r.status, 200, "{format}: {}", r.text());
    let (ct, magic): (&str, &[u8]) = match format {
        "svg" => ("image/svg+xml", b"<svg"),
        "png" => ("image/png", b"\x89PNG\r\n\x1a\n"),
        "html" => ("text/html; charset=utf-8", b"<!doctype html"),
        _ => ("application/json", b"{"),
    };
    assert_eq!(r.header("content-type"), Some(ct));
    let head = String::from_utf8_lossy(&r.body[..r.body.len().min(400)]).to_ascii_lowercase();
    assert!(
        r.body.starts_with(magic) || head.contains(&String::from_utf8_lossy(magic).to_ascii_lowercase()),
        "{format}: starts with {head:?}"
    );
}

/// Stores `dump` and returns (status, response JSON).
pub fn store(s: &Server, target: &str, dump: &[u8]) -> (u16, Value) {
    let r = s.post(target, "text/plain", dump);
    assert!(r.status == 200 || r.status == 201, "{}", r.text());
    let v = r.json();
    let id = v["id"].as_str().unwrap().to_string();
    assert_eq!(r.header("location"), Some(format!("http://{}/maps/{id}", s.addr).as_str()));
    (r.status, v)
}

/// A valid dump of one AIV function binding `n` tiles; `seed` makes dumps of the same size differ.
pub fn generated_dump(n: usize, seed: usize) -> Vec<u8> {
    let mut text = String::from(
        "import pypto.language as pl\n\n@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n",
    );
    for i in 0..n {
        let offset = ((i + seed) % 2048) * 64;
        text.push_str(&format!(
            "        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {offset}, 64), pl.Mem.Vec] = pl.tile.load(x)\n"
        ));
    }
    text.push_str("        return x\n");
    text.into_bytes()
}

/// Files under the server's map store (temporary files included).
pub fn stored_files(dir: &TempDir) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let maps = dir.0.join("data/maps");
    for shard in std::fs::read_dir(&maps).into_iter().flatten().flatten() {
        files.extend(std::fs::read_dir(shard.path()).into_iter().flatten().flatten().map(|e| e.path()));
    }
    files
}
