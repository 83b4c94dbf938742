//! The HTTP service end to end: the real binary on an ephemeral port, spoken to over TCP by a small
//! HTTP/1.1 client written here (one request per connection), so what is tested is what a user gets.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Fixtures

mod common;

// The project's own dumps (tests/fixtures), there in every checkout.
const SMALL: &str = "fx_concise.py";
/// Three compute functions.
const THREE: &str = "fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py";
const NO_TILES: &str = "fx_ptoas_planner.py";
const NOT_ASSIGNED: &str = "fx_a2a3_case/passes_dump/34_after_MemoryReuse.py";
// Real dumps of the shared corpus, where it is present.
const MID: &str = "generated/Ascend910B/llama_7b_mini_1h_s16/passes_dump/35_after_AllocateMemoryAddr.py";
const BIG: &str = "cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py";

fn fixture(rel: &str) -> Vec<u8> {
    let path = common::fixtures().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A corpus dump, or `None` without a corpus (the test then returns, saying it skipped).
fn corpus(rel: &str) -> Option<Vec<u8>> {
    let path = common::corpus()?.join(rel);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

use common::TempDir;

/// The binary, serving on 127.0.0.1:0; killed when dropped.
struct Server {
    child: Child,
    addr: String,
    log: PathBuf,
}

impl Server {
    /// A server with its data in `dir`, extra flags and environment.
    fn start_in(dir: &Path, flags: &[&str], env: &[(&str, &str)]) -> Server {
        static STARTS: AtomicUsize = AtomicUsize::new(0);
        let log = dir.join(format!("server-{}.log", STARTS.fetch_add(1, Ordering::Relaxed)));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pto-memory-map"));
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

    fn get(&self, target: &str) -> Resp {
        request(&self.addr, "GET", target, &[], b"")
    }

    fn get_with(&self, target: &str, headers: &[(&str, &str)]) -> Resp {
        request(&self.addr, "GET", target, headers, b"")
    }

    fn post(&self, target: &str, content_type: &str, body: &[u8]) -> Resp {
        request(&self.addr, "POST", target, &[("Content-Type", content_type)], body)
    }

    fn post_with(&self, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
        request(&self.addr, "POST", target, headers, body)
    }

    fn healthy(&self) {
        let r = self.get("/healthz");
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["status"], "ok");
    }

    /// The value of an unlabelled metric.
    fn metric(&self, name: &str) -> f64 {
        let text = self.get("/metrics").text();
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no metric {name} in:\n{text}"))
    }

    /// Stops the server with SIGTERM (a graceful stop) and waits for it.
    fn stop(mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }

    /// SIGKILL: no chance to flush or clean anything.
    fn kill_9(mut self) {
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
fn server(flags: &[&str], env: &[(&str, &str)]) -> (Server, TempDir) {
    let dir = TempDir::new("s");
    (Server::start_in(&dir.0, flags, env), dir)
}

// ---------------------------------------------------------------------------------------------
// A minimal HTTP/1.1 client: one request per connection, `Connection: close`, body read to EOF.

#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// Checks the error shape and returns its code.
    fn error_code(&self) -> String {
        assert!(self.status >= 400, "expected an error, got {}: {}", self.status, self.text());
        assert_eq!(self.header("content-type"), Some("application/json"), "{}", self.text());
        let v = self.json();
        assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
        v["error"]["code"].as_str().expect("error.code").to_string()
    }
}

fn request(addr: &str, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
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
fn exchange(addr: &str, raw: &[u8]) -> Resp {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    stream.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = stream.write_all(raw);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if buf.is_empty() => panic!("no answer from {addr}: {e}"),
            Err(_) => break,
        }
    }
    parse_response(&buf)
}

fn parse_response(buf: &[u8]) -> Resp {
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

fn dechunk(mut data: &[u8]) -> Vec<u8> {
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
fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
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
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
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

#[test]
fn health_page_and_metrics_answer() {
    let (s, _dir) = server(&[], &[]);
    let h = s.get("/healthz");
    assert_eq!(h.status, 200);
    assert_eq!(h.header("content-type"), Some("application/json"));
    assert_eq!(h.json()["status"], "ok");
    assert_eq!(h.json()["version"], env!("CARGO_PKG_VERSION"));

    let page = s.get("/");
    assert_eq!(page.status, 200);
    assert!(page.header("content-type").unwrap().starts_with("text/html"));
    let html = page.text();
    assert!(html.contains("action=\"/render\"") && html.contains("enctype=\"multipart/form-data\""), "{html}");
    assert!(html.contains("name=\"dump\"") && html.contains("name=\"format\""));
    assert!(!html.contains("<script"), "the upload page works without JavaScript");
    assert!(html.contains("POST /maps"));
    assert_eq!(request(&s.addr, "HEAD", "/", &[], b"").status, 200);

    s.post("/render?format=json", "text/plain", &fixture(SMALL));
    s.get("/nowhere");
    let m = s.get("/metrics");
    assert_eq!(m.status, 200);
    assert!(m.header("content-type").unwrap().starts_with("text/plain"));
    let text = m.text();
    for needle in [
        "pto_http_requests_total{route=\"/render\",method=\"POST\",status=\"200\"} 1",
        "pto_http_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"} 1",
        "pto_render_duration_seconds_bucket{format=\"json\",le=\"+Inf\"} 1",
        "pto_render_duration_seconds_count{format=\"svg\"} 0",
        "pto_renders_in_flight 0",
        "pto_render_queue_depth 0",
        "pto_stored_maps 0",
    ] {
        assert!(text.contains(needle), "missing {needle} in:\n{text}");
    }
}

#[test]
fn each_request_is_one_json_log_line() {
    let (s, _dir) = server(&[], &[]);
    s.get("/healthz");
    s.post("/render?format=json", "text/plain", &fixture(SMALL));
    s.get("/maps/nope.svg");
    let log = std::fs::read_to_string(&s.log).unwrap();
    let requests: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("status").is_some())
        .collect();
    assert_eq!(requests.len(), 3, "{log}");
    assert_eq!(requests[1]["method"], "POST");
    assert_eq!(requests[1]["path"], "/render");
    assert_eq!(requests[1]["status"], 200);
    assert!(requests[1]["bytes"].as_i64().unwrap() > 100);
    assert!(requests[1]["ms"].as_f64().is_some());
    assert_eq!(requests[2]["status"], 404);
}

// ---------------------------------------------------------------------------------------------
// POST /render

#[test]
fn render_json_from_raw_gzip_and_multipart_bodies() {
    let (s, _dir) = server(&[], &[]);
    let dump = fixture(SMALL);
    let check = |r: &Resp, name: &str| {
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.header("content-type"), Some("application/json"));
        let v = r.json();
        assert_eq!(v["dump"], name);
        assert_eq!(v["functions"][0]["name"], "fx_scale");
    };
    check(&s.post("/render?format=json", "text/plain; charset=utf-8", &dump), "dump.py");
    check(
        &s.post("/render?format=json&name=35_after_AllocateMemoryAddr.py", "application/octet-stream", &dump),
        "35_after_AllocateMemoryAddr.py",
    );
    assert_eq!(
        s.post("/render?format=json&name=35_after_AllocateMemoryAddr.py", "text/plain", &dump).json()["pass_name"],
        "AllocateMemoryAddr"
    );
    // gzip, said by Content-Encoding, by Content-Type, or only seen in the bytes.
    let gz = gzip(&dump);
    check(
        &s.post_with("/render?format=json", &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], &gz),
        "dump.py",
    );
    check(&s.post("/render?format=json", "application/gzip", &gz), "dump.py");
    check(&s.post("/render?format=json", "application/octet-stream", &gz), "dump.py");
    // No Content-Type at all is a raw dump too.
    check(&s.post_with("/render?format=json", &[], &dump), "dump.py");

    // Multipart: the field `dump` with the form's own options, as the upload page sends it.
    let (ct, body) = multipart(&[
        ("format", None, b"json"),
        ("theme", None, b"dark"),
        ("dump", Some("some/dir/35_after_AllocateMemoryAddr.py"), &dump),
    ]);
    check(&s.post("/render", &ct, &body), "35_after_AllocateMemoryAddr.py");
    // ...or the form's only file field, whatever its name; a gzip file inside works too.
    let (ct, body) = multipart(&[("upload", Some("x.py.gz"), &gz)]);
    check(&s.post("/render?format=json", &ct, &body), "x.py.gz");
}

#[test]
fn a_form_has_one_rule_for_its_fields() {
    let (s, _dir) = server(&[], &[]);
    let dump = fixture(SMALL);
    let refused = |fields: &[(&str, Option<&str>, &[u8])], code: &str, says: &str| {
        let (ct, body) = multipart(fields);
        let r = s.post("/render?format=json", &ct, &body);
        assert_eq!(r.status, 400, "{}", r.text());
        let v = r.json();
        assert_eq!(v["error"]["code"], code, "{v}");
        assert!(v["error"]["message"].as_str().unwrap().contains(says), "{v}");
    };
    // A second file, whatever its name, is not silently skipped.
    refused(&[("upload", Some("x.py"), &dump), ("other", Some("y.py"), b"junk")], "bad_multipart", "'other'");
    refused(&[("dump", Some("x.py"), &dump), ("dump", Some("y.py"), &dump)], "bad_multipart", "second dump");
    // Text fields follow the query's rules: unknown names and repeats are 400, here as there.
    refused(&[("dump", Some("x.py"), &dump), ("colour", None, b"red")], "bad_option", "'colour'");
    refused(
        &[("theme", None, b"dark"), ("theme", None, b"light"), ("dump", Some("x.py"), &dump)],
        "bad_option",
        "more than once",
    );
    let (ct, body) = multipart(&[("theme", None, b"dark"), ("dump", Some("x.py"), &dump)]);
    assert_eq!(s.post("/render?format=json&theme=dark", &ct, &body).status, 400);
    // /diff: old and new once each, and no other file.
    let (ct, body) =
        multipart(&[("old", Some("a.py"), &dump), ("new", Some("b.py"), &dump), ("extra", Some("c.py"), &dump)]);
    let r = s.post("/diff", &ct, &body);
    assert_eq!((r.status, r.json()["error"]["code"].as_str()), (400, Some("bad_multipart")), "{}", r.text());
    let (ct, body) =
        multipart(&[("old", Some("a.py"), &dump), ("old", Some("a.py"), &dump), ("new", Some("b.py"), &dump)]);
    assert_eq!(s.post("/diff", &ct, &body).status, 400);
}

#[test]
fn render_takes_every_view_option() {
    let (s, _dir) = server(&[], &[]);
    let Some(dump) = corpus(MID) else { return };
    let r = s.post(
        "/render?format=json&backend=ascend950&x_axis=used&zoom=2&hide=Left,Right&hide=Bias&function=kernel_matmul&function=kernel_softmax&theme=dark&scale=1&width=900",
        "text/plain",
        &dump,
    );
    // Bias is not in this dump: the message names the spaces that are.
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.error_code(), "bad_option");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("Bias"));
    let r = s.post(
        "/render?format=json&backend=ascend950&x-axis=used&zoom=2&hide=Left,Right&function=kernel_matmul,kernel_softmax&theme=dark&scale=1&width=900",
        "text/plain",
        &dump,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["backend"]["name"], "Ascend950");
}

fn assert_picture(r: &Resp, format: &str) {
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

#[test]
fn render_svg() {
    let (s, _dir) = server(&[], &[]);
    assert_picture(&s.post("/render?format=svg&theme=dark", "text/plain", &fixture(SMALL)), "svg");
}

#[test]
fn render_png() {
    let (s, _dir) = server(&[], &[]);
    assert_picture(&s.post("/render?format=png&scale=1", "text/plain", &fixture(SMALL)), "png");
}

#[test]
fn render_html() {
    let (s, _dir) = server(&[], &[]);
    assert_picture(&s.post("/render?format=html", "text/plain", &fixture(SMALL)), "html");
}

#[test]
fn render_defaults_to_svg() {
    let (s, _dir) = server(&[], &[]);
    let r = s.post("/render", "text/plain", &fixture(SMALL));
    assert_picture(&r, "svg");
    assert!(r.header("content-disposition").unwrap().contains("dump.memory_map.svg"));
}

// ---------------------------------------------------------------------------------------------
// POST /maps and GET /maps/...

/// Stores `dump` and returns (status, response JSON).
fn store(s: &Server, target: &str, dump: &[u8]) -> (u16, Value) {
    let r = s.post(target, "text/plain", dump);
    assert!(r.status == 200 || r.status == 201, "{}", r.text());
    let v = r.json();
    let id = v["id"].as_str().unwrap().to_string();
    assert_eq!(r.header("location"), Some(format!("http://{}/maps/{id}", s.addr).as_str()));
    (r.status, v)
}

#[test]
fn storing_is_content_addressed_and_idempotent() {
    let (s, _dir) = server(&[], &[]);
    let dump = fixture(SMALL);
    let (status, v) = store(&s, "/maps", &dump);
    assert_eq!(status, 201);
    let id = v["id"].as_str().unwrap();
    assert_eq!(id, sha256_hex(&dump));
    for f in ["svg", "png", "html", "json"] {
        assert_eq!(v["links"][f], format!("http://{}/maps/{id}.{f}", s.addr));
    }
    // Again, gzip-encoded, and as an upload: the same id, 200.
    assert_eq!(store(&s, "/maps", &dump), (200, v.clone()));
    let r = s.post_with("/maps", &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], &gzip(&dump));
    assert_eq!((r.status, r.json()["id"].clone()), (200, Value::from(id)));
    assert_eq!(s.metric("pto_stored_maps"), 1.0);
    // An upload names its dump, and the name is drawn, so it is part of the id: another map, whose
    // id covers the name (an altered name in the store no longer matches it).
    let (ct, body) = multipart(&[("dump", Some("35_after_AllocateMemoryAddr.py"), &dump)]);
    let r = s.post("/maps", &ct, &body);
    assert_eq!(r.status, 201);
    let named = r.json()["id"].as_str().unwrap().to_string();
    let unit =
        [&b"#pto-memory-map {\"name\":\"35_after_AllocateMemoryAddr.py\",\"backend\":null}\n"[..], &dump].concat();
    assert_eq!(named, sha256_hex(&unit));
    assert_eq!(
        r.json()["links"]["svg"],
        format!("http://{}/maps/{named}.svg?name=35_after_AllocateMemoryAddr.py", s.addr)
    );
    assert_eq!(s.post("/maps", &ct, &body).status, 200, "the same upload again: the same map");
    assert_eq!(s.metric("pto_stored_maps"), 2.0);

    let info = s.get(&format!("/maps/{id}"));
    assert_eq!(info.status, 200);
    assert_eq!(info.json(), v);
}

/// Links are absolute, so one copied out of an answer resolves where it is pasted: from the
/// request's Host, from a trusted proxy's forwarded headers (never another peer's), or from
/// `--public-url`.
#[test]
fn links_are_absolute_from_the_host_a_trusted_proxy_or_the_public_url() {
    let dump = fixture(SMALL);
    let id = sha256_hex(&dump);
    let forwarded =
        [("Content-Type", "text/plain"), ("X-Forwarded-Host", "maps.example.com"), ("X-Forwarded-Proto", "https")];
    let (proxied, _a) = server(&["--trusted-proxy", "127.0.0.1"], &[]);
    let r = proxied.post_with("/maps", &forwarded, &dump);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["links"]["svg"], format!("https://maps.example.com/maps/{id}.svg"));
    assert_eq!(r.header("location"), Some(format!("https://maps.example.com/maps/{id}").as_str()));
    let info = proxied.get_with(&format!("/maps/{id}"), &forwarded[1..]);
    assert_eq!(info.json()["links"]["png"], format!("https://maps.example.com/maps/{id}.png"));

    let (direct, _b) = server(&[], &[]);
    let r = direct.post_with("/maps", &forwarded, &dump);
    let link = r.json()["links"]["svg"].as_str().unwrap().to_string();
    assert_eq!(link, format!("http://{}/maps/{id}.svg", direct.addr), "an untrusted peer's headers are ignored");
    let copied = direct.get(&link);
    assert_eq!((copied.status, copied.header("content-type")), (200, Some("image/svg+xml")));

    let (public, _c) = server(&["--public-url", "https://maps.example.com/pmm/"], &[]);
    let r = public.post("/maps?name=k.py", "text/plain", &dump);
    // A name is part of the map, so of its id.
    let named = r.json()["id"].as_str().unwrap().to_string();
    assert_ne!(named, id);
    assert_eq!(r.json()["links"]["json"], format!("https://maps.example.com/pmm/maps/{named}.json?name=k.py"));
    let bad = Command::new(env!("CARGO_BIN_EXE_pto-memory-map")).args(["serve", "--public-url", "maps"]).output();
    let bad = bad.unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--public-url 'maps' is not a URL"));
}

#[test]
fn stored_maps_have_permanent_cacheable_links() {
    let (s, _dir) = server(&[], &[]);
    let (_, v) = store(&s, "/maps?name=35_after_AllocateMemoryAddr.py", &fixture(SMALL));
    let link = v["links"]["json"].as_str().unwrap().to_string();
    assert!(link.ends_with(".json?name=35_after_AllocateMemoryAddr.py"), "{link}");

    let first = s.get(&link);
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.header("content-type"), Some("application/json"));
    assert_eq!(first.header("cache-control"), Some("public, max-age=31536000, immutable"));
    assert_eq!(first.json()["pass_name"], "AllocateMemoryAddr");
    let etag = first.header("etag").unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/"), "{etag}");

    // From the cache: the same bytes and tag.
    let again = s.get(&link);
    assert_eq!((again.body.as_slice(), again.header("etag")), (first.body.as_slice(), Some(etag.as_str())));
    assert!(s.metric("pto_render_cache_hits_total") >= 1.0);

    let not_modified = s.get_with(&link, &[("If-None-Match", &format!("\"other\", {etag}"))]);
    assert_eq!(not_modified.status, 304);
    assert!(not_modified.body.is_empty());
    assert_eq!(not_modified.header("etag"), Some(etag.as_str()));
    assert_eq!(s.get_with(&link, &[("If-None-Match", "\"stale\"")]).status, 200);

    // Equivalent options share a tag; different ones do not.
    let id = v["id"].as_str().unwrap();
    let tag = |q: &str| s.get(&format!("/maps/{id}.json{q}")).header("etag").map(str::to_string);
    assert_eq!(tag("?zoom=1.0&theme=LIGHT"), tag(""));
    assert_ne!(tag("?theme=dark"), tag(""));
    // The tag names the bytes: without `name` the map is drawn with the name it was stored with,
    // the same bytes as with that name given; another name is another picture.
    assert_eq!(tag(""), Some(etag.clone()), "the stored name is the name given");
    assert_ne!(tag("?name=other.py"), Some(etag.clone()), "the name is part of the picture");
}

#[test]
fn stored_map_in_every_picture_format() {
    let (s, _dir) = server(&[], &[]);
    let (_, v) = store(&s, "/maps", &fixture(SMALL));
    for f in ["svg", "png", "html"] {
        let link = v["links"][f].as_str().unwrap();
        let r = s.get(link);
        assert_picture(&r, f);
        let etag = r.header("etag").unwrap().to_string();
        assert_eq!(s.get_with(link, &[("If-None-Match", &etag)]).status, 304, "{f}");
    }
}

#[test]
fn a_dump_that_cannot_be_drawn_is_not_stored() {
    let (s, _dir) = server(&[], &[]);
    let r = s.post("/maps", "text/plain", &fixture(NO_TILES));
    assert_eq!((r.status, r.error_code().as_str()), (422, "nothing_to_draw"));
    let r = s.post("/maps", "text/plain", b"def f(:\n    pass\n");
    assert_eq!((r.status, r.error_code().as_str()), (400, "unreadable_dump"));
    assert_eq!(s.metric("pto_stored_maps"), 0.0);
    let id = sha256_hex(&fixture(NO_TILES));
    assert_eq!(s.get(&format!("/maps/{id}.json")).status, 404);
}

#[test]
fn maps_survive_a_restart_and_kill_9() {
    let dir = TempDir::new("persist");
    let small = fixture(SMALL);
    let mid = fixture(THREE);

    let s = Server::start_in(&dir.0, &[], &[]);
    let (status, v1) = store(&s, "/maps", &small);
    assert_eq!(status, 201);
    let tag1 = s.get(v1["links"]["json"].as_str().unwrap()).header("etag").unwrap().to_string();
    s.stop();

    // Each start takes a free port: the link's path is what stays (a public URL would keep the rest).
    let path = |v: &Value| {
        let link = v["links"]["json"].as_str().unwrap();
        link[link.find("/maps/").unwrap()..].to_string()
    };
    let s = Server::start_in(&dir.0, &[], &[]);
    assert_eq!(s.metric("pto_stored_maps"), 1.0);
    let r = s.get(&path(&v1));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("etag"), Some(tag1.as_str()), "the same link gives the same picture after a restart");
    // Accepted, then killed at once.
    let (status, v2) = store(&s, "/maps", &mid);
    assert_eq!(status, 201);
    s.kill_9();

    let s = Server::start_in(&dir.0, &[], &[]);
    assert_eq!(s.metric("pto_stored_maps"), 2.0);
    let r = s.get(&path(&v2));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["functions"].as_array().unwrap().len(), 3);
    assert_eq!(store(&s, "/maps", &mid).0, 200);
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn unreadable_and_undrawable_dumps() {
    let (s, _dir) = server(&[], &[]);
    let r = s.post("/render?format=json", "text/plain", b"# a dump\ndef f(:\n    pass\n");
    assert_eq!((r.status, r.error_code().as_str()), (400, "unreadable_dump"));
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("dump.py:2:7"), "{}", r.text());
    let r = s.post("/render?format=json", "text/plain", &fixture(NO_TILES));
    assert_eq!((r.status, r.error_code().as_str()), (422, "nothing_to_draw"));
    // Before AllocateMemoryAddr: drawn as a bases view, marked.
    let r = s.post("/render?format=json", "text/plain", &fixture(NOT_ASSIGNED));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["addresses"], "unassigned");
    let r = s.post("/render", "text/plain", b"");
    assert_eq!((r.status, r.error_code().as_str()), (400, "empty_body"));
    let (ct, body) = multipart(&[("format", None, b"json")]);
    assert_eq!(s.post("/render", &ct, &body).error_code(), "no_dump");
    let r = s.post("/render", "multipart/form-data; boundary=zzz", b"--zzz\r\ngarbage");
    assert_eq!(r.status, 400, "{}", r.text());
    r.error_code();
}

#[test]
fn bad_options_are_400_before_any_render() {
    let (s, _dir) = server(&[], &[]);
    let dump = fixture(SMALL);
    for (q, code) in [
        ("format=gif", "bad_option"),
        ("zoom=1000", "bad_option"),
        ("zoom=abc", "bad_option"),
        ("scale=9", "bad_option"),
        ("theme=pink", "bad_option"),
        ("backend=Ascend000", "bad_option"),
        ("colour=red", "bad_option"),
        ("format=svg&format=png", "bad_option"),
        ("hide=NoSuchSpace&format=json", "bad_option"),
        ("name=..%2Fetc%2Fpasswd", "bad_option"),
        ("zoom=%ZZ", "bad_option"),
    ] {
        let r = s.post(&format!("/render?{q}"), "text/plain", &dump);
        assert_eq!((r.status, r.error_code().as_str()), (400, code), "{q}: {}", r.text());
    }
    let (_, v) = store(&s, "/maps", &dump);
    let id = v["id"].as_str().unwrap();
    assert_eq!(s.get(&format!("/maps/{id}.json?format=svg")).error_code(), "bad_option");
    assert_eq!(s.get(&format!("/maps/{id}.json?zoom=0")).error_code(), "bad_option");
}

#[test]
fn unknown_routes_ids_and_methods() {
    let (s, _dir) = server(&[], &[]);
    let (_, v) = store(&s, "/maps", &fixture(SMALL));
    let id = v["id"].as_str().unwrap().to_string();
    let absent = "0".repeat(64);
    for target in [
        "/nowhere".to_string(),
        "/render/extra".to_string(),
        format!("/maps/{absent}"),
        format!("/maps/{absent}.svg"),
        format!("/maps/{}.svg", id.to_uppercase()),
        format!("/maps/{}.svg", &id[..63]),
        format!("/maps/{id}.gif"),
        format!("/maps/{id}.svg.json"),
        "/maps/..%2F..%2F..%2Fetc%2Fpasswd".to_string(),
        "/maps/%2e%2e.svg".to_string(),
        "/maps/../../etc/passwd".to_string(),
    ] {
        let r = s.get(&target);
        assert_eq!((r.status, r.error_code().as_str()), (404, "not_found"), "{target}");
    }
    for (method, target, allow) in [
        ("GET", "/render".to_string(), "POST"),
        ("PUT", "/maps".to_string(), "POST"),
        ("DELETE", format!("/maps/{id}.svg"), "GET, HEAD"),
        ("POST", "/healthz".to_string(), "GET, HEAD"),
        ("POST", "/metrics".to_string(), "GET, HEAD"),
        ("PATCH", "/".to_string(), "GET, HEAD"),
    ] {
        let r = request(&s.addr, method, &target, &[], b"");
        assert_eq!((r.status, r.error_code().as_str()), (405, "method_not_allowed"), "{method} {target}");
        assert_eq!(r.header("allow"), Some(allow), "{method} {target}");
    }
}

#[test]
fn unsupported_types_and_encodings_are_415() {
    let (s, _dir) = server(&[], &[]);
    let dump = fixture(SMALL);
    for ct in ["application/json", "application/x-www-form-urlencoded", "image/png", "not a type"] {
        let r = s.post("/render", ct, &dump);
        assert_eq!((r.status, r.error_code().as_str()), (415, "unsupported_media_type"), "{ct}");
    }
    for enc in ["br", "deflate", "gzip, br"] {
        let r = s.post_with("/render", &[("Content-Type", "text/plain"), ("Content-Encoding", enc)], &dump);
        assert_eq!((r.status, r.error_code().as_str()), (415, "unsupported_encoding"), "{enc}");
    }
    let r = s.post_with("/render", &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], &dump);
    assert_eq!((r.status, r.error_code().as_str()), (400, "bad_gzip"));
}

#[test]
fn bodies_over_the_limit_are_413_also_after_gunzip() {
    let limit = 256 * 1024;
    let (s, _dir) = server(&["--max-body-bytes", &limit.to_string()], &[]);
    // Declared too large: refused before the body is read.
    let r = s.post_with("/render", &[("Content-Type", "text/plain"), ("Content-Length", "999999999")], b"");
    assert_eq!((r.status, r.error_code().as_str()), (413, "too_large"));
    // Chunked, no length: refused once the limit is passed.
    let big = vec![b'#'; limit + 10];
    let mut raw = format!(
        "POST /render HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
        big.len()
    )
    .into_bytes();
    raw.extend_from_slice(&big);
    raw.extend_from_slice(b"\r\n0\r\n\r\n");
    let r = exchange(&s.addr, &raw);
    assert_eq!((r.status, r.error_code().as_str()), (413, "too_large"));
    // A small gzip body that inflates past the limit: render and store alike.
    let bomb = gzip(&vec![b' '; limit * 8]);
    assert!(bomb.len() < limit);
    for target in ["/render", "/maps"] {
        let r = s.post_with(target, &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], &bomb);
        assert_eq!((r.status, r.error_code().as_str()), (413, "too_large"), "{target}");
    }
    // In a multipart upload too.
    let (ct, body) = multipart(&[("dump", Some("d.py"), &big)]);
    assert_eq!(s.post("/render", &ct, &body).error_code(), "too_large");
    s.healthy();
}

#[test]
fn a_full_queue_is_503() {
    let (s, _dir) = server(&["--render-threads", "1", "--queue-depth", "1"], &[]);
    let Some(dump) = corpus(BIG) else { return };
    // Timing decides how many find the queue full; over a few rounds at least one must.
    let mut seen = std::collections::BTreeMap::new();
    for _ in 0..5 {
        let statuses: Vec<(u16, Option<String>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..12)
                .map(|_| {
                    scope.spawn(|| {
                        let r = s.post("/render?format=json", "text/plain", &dump);
                        let code = (r.status != 200).then(|| r.error_code());
                        (r.status, code)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (status, code) in statuses {
            assert!(status == 200 || (status == 503 && code.as_deref() == Some("busy")), "{status} {code:?}");
            *seen.entry(status).or_insert(0) += 1;
        }
        if seen.contains_key(&503) {
            break;
        }
    }
    assert!(seen.contains_key(&503) && seen.contains_key(&200), "{seen:?}");
    s.healthy();
}

#[test]
fn a_render_past_the_time_limit_is_504() {
    let (s, _dir) = server(&["--render-timeout-ms", "1"], &[]);
    let Some(big) = corpus(BIG) else { return };
    let r = s.post("/render?format=json", "text/plain", &big);
    assert_eq!((r.status, r.error_code().as_str()), (504, "render_timeout"));
    s.healthy();
}

// ---------------------------------------------------------------------------------------------
// Load and hostile input

#[test]
fn fifty_concurrent_posts() {
    let (s, _dir) = server(&[], &[]);
    let small = fixture(SMALL);
    let mid = fixture(THREE);
    let results: Vec<(usize, u16, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..50)
            .map(|i| {
                let (s, small, mid) = (&s, &small, &mid);
                scope.spawn(move || match i % 3 {
                    0 => {
                        let r = s.post("/render?format=json", "text/plain", mid);
                        (i, r.status, r.json()["functions"].as_array().map_or(0, Vec::len).to_string())
                    }
                    1 => {
                        let r = s.post("/maps", "text/plain", small);
                        (i, r.status, r.json()["id"].as_str().unwrap_or("").to_string())
                    }
                    _ => {
                        let r = s.post_with("/render?format=json", &[("Content-Encoding", "gzip")], &gzip(small));
                        (i, r.status, r.json()["dump"].as_str().unwrap_or("").to_string())
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let id = sha256_hex(&small);
    for (i, status, what) in &results {
        match i % 3 {
            0 => assert_eq!((*status, what.as_str()), (200, "3"), "#{i}"),
            1 => assert!((*status == 200 || *status == 201) && *what == id, "#{i}: {status} {what}"),
            _ => assert_eq!((*status, what.as_str()), (200, "dump.py"), "#{i}"),
        }
    }
    assert_eq!(s.metric("pto_stored_maps"), 1.0);
    s.healthy();
}

#[test]
fn hostile_input_gets_an_error_and_the_server_lives() {
    let (s, _dir) = server(&[], &[]);
    // 100 000 nested brackets: refused by the depth guard with a position, no stack overflow.
    let mut deep = b"x = ".to_vec();
    deep.extend(std::iter::repeat_n(b'[', 100_000));
    let r = s.post("/render?format=json", "text/plain", &deep);
    assert_eq!((r.status, r.error_code().as_str()), (400, "unreadable_dump"), "{}", r.text());
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("dump.py:1:"), "{}", r.text());
    s.healthy();
    // Same through the store, and with parentheses.
    let mut parens = b"y = f".to_vec();
    parens.extend(std::iter::repeat_n(b'(', 100_000));
    assert_eq!(s.post("/maps", "text/plain", &parens).status, 400);
    // 10 MB of random bytes: not UTF-8, and the message says where.
    let r = s.post("/render?format=svg", "application/octet-stream", &noise(10 << 20, 0x9e37_79b9_7f4a_7c15));
    assert_eq!((r.status, r.error_code().as_str()), (400, "unreadable_dump"));
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("dump.py:1:"), "{}", r.text());
    // Valid text up to a stray byte on line 3.
    let r = s.post("/render?format=json", "text/plain", b"# ok\n# ok\n# caf\xe9\n");
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("dump.py:3:6"), "{}", r.text());
    // Random bytes that look like gzip.
    let mut fake = vec![0x1f, 0x8b];
    fake.extend(noise(4096, 7));
    assert_eq!(s.post("/render", "text/plain", &fake).error_code(), "bad_gzip");
    // Bytes that are not HTTP at all: whatever actix answers, the next request is served.
    let mut stream = TcpStream::connect(&s.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = stream.write_all(b"\x00\x01garbage\r\n\r\n");
    let _ = stream.read(&mut [0u8; 1024]);
    s.healthy();
}

#[test]
fn diffs_of_posted_and_stored_dumps() {
    let (s, _dir) = server(&[], &[]);
    let old = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_case/passes_dump/32_after_AllocateMemoryAddr.py"),
    )
    .unwrap();
    let new = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_change/passes_dump/32_after_AllocateMemoryAddr.py"),
    )
    .unwrap();
    // POST /diff: Markdown by default, the verdict first.
    let (ct, body) = multipart(&[("old", Some("a.py"), &old), ("new", Some("b.py"), &gzip(&new))]);
    let r = s.post("/diff", &ct, &body);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("content-type").unwrap().starts_with("text/markdown"));
    assert!(r.text().starts_with("**Memory map:** Vec high-water +32 KB in 1 function"), "{}", r.text());
    let r = s.post("/diff?format=json", &ct, &body);
    assert_eq!(r.json()["functions"][1]["spaces"][0]["delta"], 32768);
    let (ct1, one) = multipart(&[("old", Some("a.py"), &old)]);
    assert_eq!(s.post("/diff", &ct1, &one).error_code(), "no_dump");
    assert_eq!(s.post("/diff", "text/plain", &old).status, 415);

    // GET /maps/{old}/diff/{new}.{ext}, cached like stored maps.
    let (_, a) = store(&s, "/maps", &old);
    let (_, b) = store(&s, "/maps", &new);
    let (a, b) = (a["id"].as_str().unwrap().to_string(), b["id"].as_str().unwrap().to_string());
    for (ext, ct) in [
        ("md", "text/markdown"),
        ("json", "application/json"),
        ("svg", "image/svg+xml"),
        ("png", "image/png"),
        ("html", "text/html"),
    ] {
        let r = s.get(&format!("/maps/{a}/diff/{b}.{ext}?hide=Bias&scale=1"));
        assert_eq!(r.status, 200, "{ext}: {}", r.text());
        assert!(r.header("content-type").unwrap().starts_with(ct), "{ext}");
        assert_eq!(r.header("cache-control"), Some("public, max-age=31536000, immutable"));
        let etag = r.header("etag").unwrap().to_string();
        let again = s.get_with(&format!("/maps/{a}/diff/{b}.{ext}?hide=Bias&scale=1"), &[("If-None-Match", &etag)]);
        assert_eq!(again.status, 304, "{ext}");
    }
    assert_eq!(s.get(&format!("/maps/{a}/diff/{}.md", "0".repeat(64))).status, 404);
    assert_eq!(s.get(&format!("/maps/{a}/diff/{b}.gif")).status, 404);
    // Diffs are renders too: they reach the render metrics under their format (two posted
    // Markdown diffs, one stored; the one-dump upload failed before rendering).
    let metrics = s.get("/metrics").text();
    assert!(metrics.contains("pto_render_duration_seconds_count{format=\"md\"} 2"), "{metrics}");
    assert!(metrics.contains("pto_render_duration_seconds_count{format=\"png\"} 1"), "{metrics}");
    s.healthy();
}

#[test]
fn the_upload_form_offers_the_backend_and_a_scale_space_picks_ascend950() {
    let (s, _dir) = server(&[], &[]);
    let page = s.get("/").text();
    assert!(page.contains("<select name=\"backend\">"), "{page}");
    let dump = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/find_scale.py")).unwrap();
    // The form's "from the dump" sends an empty backend: inferred from LeftScale.
    let (ct, body) =
        multipart(&[("dump", Some("find_scale.py"), &dump), ("backend", None, b""), ("format", None, b"json")]);
    let r = s.post("/render", &ct, &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!((v["backend"]["name"].as_str(), v["backend"]["source"].as_str()), (Some("Ascend950"), Some("inferred")));
    // Named in the form, the backend is given, and a space it lacks is a mismatch.
    let (ct, body) = multipart(&[
        ("dump", Some("find_scale.py"), &dump),
        ("backend", None, b"Ascend910B"),
        ("format", None, b"json"),
    ]);
    let v = s.post("/render", &ct, &body).json();
    assert_eq!(v["backend"]["source"], "given");
    assert_eq!(v["findings"][0]["code"], "backend-mismatch");
    // And the text report is one more format.
    let r = s.post("/render?format=txt", "text/plain", &dump);
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/plain"));
    assert!(r.text().starts_with("memory map of dump.py"), "{}", r.text());
}

#[test]
fn stored_maps_keep_their_name_and_backend_and_diffs_take_a_backend_per_side() {
    let (s, _dir) = server(&[], &[]);
    let dump = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_case/passes_dump/32_after_AllocateMemoryAddr.py"),
    )
    .unwrap();
    let other = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo_change/passes_dump/32_after_AllocateMemoryAddr.py"),
    )
    .unwrap();
    let (_, a) = store(&s, "/maps?name=kernel_v1.py&backend=Ascend950", &dump);
    let (_, b) = store(&s, "/maps?name=kernel_v2.py", &other);
    let (a, b) = (a["id"].as_str().unwrap().to_string(), b["id"].as_str().unwrap().to_string());
    // A bare link draws the map with what it was stored with.
    let json = s.get(&format!("/maps/{a}.json")).json();
    assert_eq!((json["dump"].as_str(), json["backend"]["name"].as_str()), (Some("kernel_v1.py"), Some("Ascend950")));
    let json = s.get(&format!("/maps/{a}.json?name=x.py&backend=Ascend910B")).json();
    assert_eq!((json["dump"].as_str(), json["backend"]["name"].as_str()), (Some("x.py"), Some("Ascend910B")));
    // A stored diff names both sides, each on its own backend.
    let md = s.get(&format!("/maps/{a}/diff/{b}.md")).text();
    assert!(md.contains("`kernel_v1.py` (Ascend950) → `kernel_v2.py` (Ascend910B)"), "{md}");
    let md = s.get(&format!("/maps/{a}/diff/{b}.md?new_backend=Ascend950")).text();
    assert!(md.contains("(Ascend950) → `kernel_v2.py` (Ascend950)"), "{md}");
    // POST /diff: one kernel on two chips.
    let (ct, body) = multipart(&[
        ("old", Some("k.py"), &dump),
        ("new", Some("k.py"), &dump),
        ("old_backend", None, b"Ascend910B"),
        ("new_backend", None, b"Ascend950"),
    ]);
    let r = s.post("/diff?format=json", &ct, &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let d = r.json();
    assert_eq!((d["old"]["backend"].as_str(), d["new"]["backend"].as_str()), (Some("Ascend910B"), Some("Ascend950")));
    assert_eq!(s.post("/diff?old_backend=Nope", &ct, &body).error_code(), "bad_option");
    s.healthy();
}

// ---------------------------------------------------------------------------------------------
// Bounded work and who may store

/// A valid dump of one AIV function binding `n` tiles; `seed` makes dumps of the same size differ.
fn generated_dump(n: usize, seed: usize) -> Vec<u8> {
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
fn stored_files(dir: &TempDir) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let maps = dir.0.join("data/maps");
    for shard in std::fs::read_dir(&maps).into_iter().flatten().flatten() {
        files.extend(std::fs::read_dir(shard.path()).into_iter().flatten().flatten().map(|e| e.path()));
    }
    files
}

#[test]
fn a_slow_body_is_dropped_with_408() {
    let (s, _dir) = server(&["--read-timeout-ms", "700"], &[]);
    let mut stream = TcpStream::connect(&s.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "POST /render HTTP/1.1\r\nHost: {}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n",
        s.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    let started = std::time::Instant::now();
    // One byte every 100 ms: the body would take 100 s.
    let mut answer = Vec::new();
    stream.set_nonblocking(true).unwrap();
    while started.elapsed() < Duration::from_secs(15) {
        let _ = stream.write_all(b"x");
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&chunk[..n]),
            Err(_) => {}
        }
        if answer.windows(4).any(|w| w == b"\r\n\r\n") && answer.ends_with(b"}") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = parse_response(&answer);
    assert_eq!((r.status, r.error_code().as_str()), (408, "request_timeout"));
    assert!(started.elapsed() < Duration::from_secs(5), "dropped after {:?}", started.elapsed());
    s.healthy();
}

#[test]
fn a_render_past_its_deadline_frees_its_thread_and_stores_nothing() {
    let (s, dir) = server(&["--render-timeout-ms", "300", "--render-threads", "1"], &[]);
    // Big enough to take several seconds in this build, but a valid dump.
    let big = generated_dump(60_000, 0);
    let r = s.post("/maps", "text/plain", &big);
    assert_eq!((r.status, r.error_code().as_str()), (504, "render_timeout"));
    // The one render thread is soon free again: the render stops at its next checkpoint (the test
    // binary's other tests share the cores, so a debug build is given two seconds), then a small
    // store goes through.
    let started = std::time::Instant::now();
    while s.metric("pto_renders_in_flight") > 0.0 {
        assert!(started.elapsed() < Duration::from_secs(2), "the thread was held {:?}", started.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, _) = store(&s, "/maps", &generated_dump(3, 0));
    assert_eq!(status, 201);
    // And the timed-out map was never stored, not even later.
    std::thread::sleep(Duration::from_secs(2));
    let id = sha256_hex(&big);
    assert_eq!(s.get(&format!("/maps/{id}")).status, 404);
    assert_eq!(stored_files(&dir).len(), 1, "{:?}", stored_files(&dir));
}

#[test]
fn a_full_store_evicts_the_least_recently_used_map() {
    let dumps: Vec<Vec<u8>> = (0..3).map(|seed| generated_dump(20, seed)).collect();
    let quota = (dumps[0].len() * 2 + dumps[0].len() / 2).to_string();
    let (s, dir) = server(&["--max-store-bytes", &quota], &[]);
    let ids: Vec<String> = dumps.iter().map(|d| sha256_hex(d)).collect();
    store(&s, "/maps", &dumps[0]);
    store(&s, "/maps", &dumps[1]);
    assert_eq!(s.get(&format!("/maps/{}.json", ids[0])).status, 200); // 0 used last
    store(&s, "/maps", &dumps[2]);
    assert_eq!(s.get(&format!("/maps/{}", ids[1])).status, 404, "the least recently used map is gone");
    assert_eq!(s.get(&format!("/maps/{}", ids[0])).status, 200);
    assert_eq!(s.get(&format!("/maps/{}", ids[2])).status, 200);
    assert_eq!(stored_files(&dir).len(), 2);
    assert_eq!(s.metric("pto_stored_maps"), 2.0);
    // A map larger than the whole store: 507, and nothing is evicted for it.
    let huge = generated_dump(100, 7);
    let r = s.post("/maps", "text/plain", &huge);
    assert_eq!((r.status, r.error_code().as_str()), (507, "insufficient_storage"));
    assert_eq!(stored_files(&dir).len(), 2);
}

#[test]
fn storing_needs_the_token_when_one_is_set_and_rendering_does_not() {
    let (s, _dir) = server(&[], &[("PMM_WRITE_TOKEN", "s3cret-token")]);
    let dump = generated_dump(3, 1);
    let r = s.post("/maps", "text/plain", &dump);
    assert_eq!((r.status, r.error_code().as_str()), (401, "unauthorized"));
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    let wrong = [("Content-Type", "text/plain"), ("Authorization", "Bearer s3cret-tokem")];
    assert_eq!(s.post_with("/maps", &wrong, &dump).status, 401);
    let right = [("Content-Type", "text/plain"), ("Authorization", "Bearer s3cret-token")];
    assert_eq!(s.post_with("/maps", &right, &dump).status, 201);
    assert_eq!(s.post("/render?format=json", "text/plain", &dump).status, 200);
    // Without a token, anyone may store.
    let (open, _dir) = server(&[], &[]);
    assert_eq!(open.post("/maps", "text/plain", &dump).status, 201);
}

#[test]
fn another_sites_page_cannot_store() {
    let (s, _dir) = server(&[], &[]);
    let dump = generated_dump(3, 2);
    let (ct, body) = multipart(&[("dump", Some("d.py"), &dump)]);
    let evil = [("Content-Type", ct.as_str()), ("Origin", "http://evil.example")];
    let r = s.post_with("/maps", &evil, &body);
    assert_eq!((r.status, r.error_code().as_str()), (403, "forbidden"));
    assert_eq!(r.header("access-control-allow-origin"), None);
    let fetch = [("Content-Type", ct.as_str()), ("Sec-Fetch-Site", "cross-site")];
    assert_eq!(s.post_with("/maps", &fetch, &body).status, 403);
    // The service's own page (same origin) stores.
    let origin = format!("http://{}", s.addr);
    let own = [("Content-Type", ct.as_str()), ("Origin", origin.as_str())];
    let r = s.post_with("/maps", &own, &body);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), None);
}

#[test]
fn a_whole_diff_inflates_within_one_limit() {
    let (s, _dir) = server(&["--max-body-bytes", "100000"], &[]);
    // Each side inflates to 70 000 bytes: under the limit alone, over it together.
    let side = gzip(&vec![b'#'; 70_000]);
    let (ct, body) = multipart(&[("old", Some("a.py.gz"), &side), ("new", Some("b.py.gz"), &side)]);
    let r = s.post("/diff", &ct, &body);
    assert_eq!((r.status, r.error_code().as_str()), (413, "too_large"));
}

#[test]
fn protocol_level_errors_are_json_too() {
    let (s, _dir) = server(&["--read-timeout-ms", "600"], &[]);
    // Not HTTP at all.
    let r = exchange(&s.addr, b"HELLO THERE\r\n\r\n");
    assert_eq!((r.status, r.error_code().as_str()), (400, "bad_request"));
    // Headers larger than the HTTP layer takes.
    let big = format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(256 * 1024));
    let r = exchange(&s.addr, big.as_bytes());
    assert_eq!((r.status, r.error_code().as_str()), (431, "headers_too_large"));
    // Headers that never finish.
    let started = std::time::Instant::now();
    let r = exchange(&s.addr, b"GET /healthz HTTP/1.1\r\nHost: x\r\n");
    assert_eq!((r.status, r.error_code().as_str()), (408, "request_timeout"));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    s.healthy();
}

#[test]
fn a_short_multipart_boundary_is_refused_not_a_panic() {
    // Found by the body fuzz target: actix-multipart slices a line shorter than a 1-3 character
    // boundary and panics.
    let (s, _dir) = server(&[], &[]);
    for body in [&b"\n--B\r\n"[..], b"M-B\r\n\nx\r\n--B--\r\n"] {
        let r = s.post("/render", "multipart/form-data; boundary=B", body);
        assert_eq!((r.status, r.error_code().as_str()), (400, "bad_multipart"));
    }
    let r = s.post("/diff", "multipart/form-data; boundary=abc", b"--\n");
    assert_eq!((r.status, r.error_code().as_str()), (400, "bad_multipart"));
    s.healthy();
}

#[test]
fn a_body_cut_short_is_answered_at_once_not_at_the_read_timeout() {
    // A client that stops sending and closes its side has no more to say: the answer is a 400 at
    // once, whatever the read timeout. (One that keeps the connection open without sending is the
    // slow client of `a_slow_body_is_dropped_with_408`.)
    let (s, _dir) = server(&["--read-timeout-ms", "10000"], &[]);
    let part = b"--XYZ\r\nContent-Disposition: form-data; name=\"dump\"; filename=\"d.py\"\r\n\r\nimport pypto";
    for (ctype, body, code) in [
        ("multipart/form-data; boundary=XYZ", &part[..], "bad_multipart"),
        ("text/plain", &b"import pypto"[..], "bad_body"),
    ] {
        let mut stream = TcpStream::connect(&s.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let head = format!(
            "POST /render HTTP/1.1\r\nHost: {}\r\nContent-Type: {ctype}\r\nContent-Length: 100000\r\n\r\n",
            s.addr
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let started = std::time::Instant::now();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let r = parse_response(&answer);
        assert_eq!((r.status, r.error_code().as_str()), (400, code), "{ctype}");
        assert!(started.elapsed() < Duration::from_secs(3), "{ctype}: answered after {:?}", started.elapsed());
    }
    s.healthy();
}

/// The service words every error for HTTP clients: it names query parameters and form fields, never
/// a command-line flag, whatever went wrong (a bad value, an unknown option, a picture too large,
/// a work limit).
#[test]
fn http_errors_name_parameters_never_flags() {
    let (s, _dir) = server(&["--max-tiles", "8"], &[]);
    let demo = fixture("../../examples/demo_case/passes_dump/32_after_AllocateMemoryAddr.py");
    let small = fixture("find_conflict.py");
    let mut codes = Vec::new();
    for (target, body) in [
        ("/render?zoom=100", &small),
        ("/render?x_axis=up", &small),
        ("/render?x-axis=up", &small),
        ("/render?scale=9&format=png", &small),
        ("/render?colour=red", &small),
        ("/render?fit=Vec", &small),
        ("/render?hide=Nowhere", &small),
        ("/render?function=nothing", &small),
        ("/render?format=png&zoom=64&width=20000&scale=4&function=clash", &small),
        ("/render", &demo),
    ] {
        let r = s.post(target, "text/plain", body);
        let code = r.error_code();
        let message = r.json()["error"]["message"].as_str().unwrap_or_default().to_string();
        assert!(!r.text().contains("--"), "{target}: {}", r.text());
        codes.push((code, message));
    }
    let has = |code: &str| codes.iter().any(|(c, _)| c == code);
    assert!(has("bad_option") && has("picture_too_large") && has("over_limit"), "{codes:?}");
    let (_, too_large) = codes.iter().find(|(c, _)| c == "picture_too_large").unwrap();
    assert!(too_large.contains("scale=1") && too_large.contains("x_axis=used"), "{too_large}");
    let (_, x_axis) = &codes[1];
    assert_eq!(x_axis, "x_axis up is not accepted; it takes limit or used");
}

/// The upload form's errors come back as a page a person reads, worded with the form's labels.
#[test]
fn the_forms_errors_are_a_page_with_the_advice() {
    let (s, _dir) = server(&[], &[]);
    let small = fixture("find_conflict.py");
    let demo = fixture("../../examples/demo_case/passes_dump/32_after_AllocateMemoryAddr.py");
    // Functions named (a whole dump always gets a picture, its digest): too large, and refused.
    let (ct, body) = multipart(&[
        ("dump", Some("demo.py"), &demo),
        ("format", None, b"png"),
        ("function", None, b"qk_matmul,row_softmax"),
        ("zoom", None, b"64"),
        ("width", None, b"20000"),
        ("scale", None, b"4"),
    ]);
    let browser = [("Content-Type", ct.as_str()), ("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")];
    let r = s.post_with("/render", &browser, &body);
    assert_eq!(r.status, 422);
    assert!(r.header("content-type").unwrap().starts_with("text/html"), "{:?}", r.header("content-type"));
    let page = r.text();
    assert!(page.contains("The map could not be drawn") && page.contains("href=\"/\""), "{page}");
    assert!(page.contains("fill in “Only these functions”") && !page.contains("--"), "{page}");
    // A script that asks for anything still gets JSON.
    let r = s.post("/render?format=png&zoom=64&width=20000&scale=4&function=clash", "text/plain", &small);
    assert_eq!(r.error_code(), "picture_too_large");
}

/// The stored map of the corpus's decode case (past a PNG's pixel limit whole) answers its PNG link
/// with the digest picture, not a refusal.
#[test]
fn the_stored_png_of_a_dump_too_large_for_one_picture_is_its_digest() {
    let dump = common::corpus_dir().join("cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py");
    let Ok(dump) = std::fs::read(dump) else { return };
    let (s, _dir) = server(&[], &[]);
    let (_, v) = store(&s, "/maps", &dump);
    let r = s.get(v["links"]["png"].as_str().unwrap());
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("content-type"), Some("image/png"));
    assert!(r.body.starts_with(b"\x89PNG\r\n\x1a\n"));
}
