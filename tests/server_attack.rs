//! The service under attack, end to end: the real binary on an ephemeral port, spoken to over raw
//! TCP. Idle and slow uploads, bodies that never end, concurrent identical uploads, and the headers
//! every answer carries. Inputs are generated here.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

mod common;
mod serve;

use serve::{Resp, Server, exchange, read_answer, request, sha256_hex};

use common::TempDir;

fn dump() -> Vec<u8> {
    std::fs::read(common::fixtures().join("fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py")).unwrap()
}

fn healthy(addr: &str) {
    let r = request(addr, "GET", "/healthz", &[], b"");
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn a_thousand_idle_uploads_reserve_nothing() {
    let dir = TempDir::new("idle");
    // 4 GB of address space: each connection reserving its declared 32 MiB would need 32 GB.
    let mut server = Server::start(&dir.0, &["--read-timeout-ms", "20000"], Some(4 << 20), &[]);
    let head =
        "POST /render?format=json HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 33554000\r\n\r\n";
    let mut idle = Vec::new();
    for _ in 0..1000 {
        let mut s = TcpStream::connect(&server.addr).expect("connect");
        s.write_all(head.as_bytes()).unwrap();
        idle.push(s);
    }
    // Give the service time to take every connection in and start reading each body.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(server.alive(), "the service died: {}", server.log());
    healthy(&server.addr);
    let r = request(&server.addr, "POST", "/render?format=json", &[("Content-Type", "text/plain")], &dump());
    assert_eq!(r.status, 200, "{}", r.text());
    if let Some(rss) = server.rss() {
        assert!(rss < 1 << 30, "resident set {} MB with 1000 idle uploads", rss >> 20);
    }
    drop(idle);
    assert!(server.alive());
}

#[test]
fn bodies_in_flight_share_one_budget() {
    let dir = TempDir::new("crowd");
    // Bodies up to 100 kB: the service holds at most eight of them (800 kB) at once.
    let server = Server::start(&dir.0, &["--max-body-bytes", "100000", "--read-timeout-ms", "20000"], None, &[]);
    let head =
        "POST /render?format=json HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n";
    let part = vec![b'#'; 90_000];
    let mut slow = Vec::new();
    for _ in 0..8 {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(&part).unwrap();
        slow.push(s);
    }
    std::thread::sleep(Duration::from_millis(700));
    // A ninth body past the budget: 503, retry later.
    let mut ninth = TcpStream::connect(&server.addr).unwrap();
    let mut raw = head.as_bytes().to_vec();
    raw.extend_from_slice(&part);
    let r = read_answer(&mut ninth, &raw).unwrap();
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(r.text().contains("\"busy\""), "{}", r.text());
    assert_eq!(r.header("retry-after"), Some("1"));
    // Once the slow ones are gone, their share is given back.
    drop(slow);
    std::thread::sleep(Duration::from_millis(300));
    let r = request(&server.addr, "POST", "/render?format=json", &[("Content-Type", "text/plain")], &dump());
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn a_multipart_body_without_its_closing_boundary_is_refused_when_it_ends() {
    let dir = TempDir::new("multipart");
    let server = Server::start(&dir.0, &["--read-timeout-ms", "10000"], None, &[]);
    let mut body = b"--BBBBBB\r\nContent-Disposition: form-data; name=\"dump\"; filename=\"d.py\"\r\n\r\n".to_vec();
    body.extend_from_slice(&dump());
    body.extend_from_slice(b"\r\n"); // and no closing --BBBBBB--
    let started = Instant::now();
    let r = request(
        &server.addr,
        "POST",
        "/render?format=json",
        &[("Content-Type", "multipart/form-data; boundary=BBBBBB")],
        &body,
    );
    assert!(started.elapsed() < Duration::from_secs(3), "answered only after {:?}", started.elapsed());
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("bad_multipart"), "{}", r.text());
}

/// Asserts the headers every answer carries.
fn assert_secured(r: &Resp, what: &str) {
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"), "{what}: {}", r.status);
    let policy = r.header("content-security-policy").unwrap_or_else(|| panic!("{what}: no policy"));
    assert!(policy.contains("frame-ancestors"), "{what}: {policy}");
}

#[test]
fn every_answer_carries_the_security_headers_and_the_token_is_exact() {
    let dir = TempDir::new("headers");
    let server = Server::start(&dir.0, &[], None, &[("PMM_WRITE_TOKEN", "s3cret")]);
    let addr = &server.addr;
    let plain = [("Content-Type", "text/plain")];
    let answers = [
        ("index", 200, request(addr, "GET", "/", &[], b"")),
        ("healthz", 200, request(addr, "GET", "/healthz", &[], b"")),
        ("metrics", 200, request(addr, "GET", "/metrics", &[], b"")),
        ("svg", 200, request(addr, "POST", "/render?format=svg", &plain, &dump())),
        ("html", 200, request(addr, "POST", "/render?format=html", &plain, &dump())),
        ("404", 404, request(addr, "GET", "/nope", &[], b"")),
        ("405", 405, request(addr, "DELETE", "/render", &[], b"")),
        ("400", 400, request(addr, "POST", "/render?format=nope", &plain, &dump())),
        ("415", 415, request(addr, "POST", "/render", &[("Content-Type", "image/png")], b"x")),
        ("401", 401, request(addr, "POST", "/maps", &plain, &dump())),
        ("bad http", 400, exchange(addr, b"NOT HTTP AT ALL\r\n\r\n")),
    ];
    for (what, status, r) in &answers {
        assert_eq!(r.status, *status, "{what}: {}", r.text());
        assert_secured(r, what);
    }
    for page in ["index", "html"] {
        let r = &answers.iter().find(|a| a.0 == page).unwrap().2;
        assert!(r.header("content-security-policy").unwrap().contains("frame-ancestors 'self'"), "{page}");
    }
    // The write token is compared exactly: spaces around it make another token.
    let with = |auth: &str| {
        request(addr, "POST", "/maps", &[("Content-Type", "text/plain"), ("Authorization", auth)], &dump()).status
    };
    assert_eq!(with("Bearer  s3cret"), 401);
    assert_eq!(with("Bearer s3cret x"), 401);
    assert_eq!(with("Bearer s3cret"), 201);
}

#[test]
fn twenty_identical_uploads_at_once_store_one_map() {
    let dir = TempDir::new("race");
    let server = Server::start(&dir.0, &[], None, &[]);
    let body = dump();
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..20)
            .map(|_| {
                let (addr, body) = (&server.addr, &body);
                s.spawn(move || request(addr, "POST", "/maps", &[("Content-Type", "text/plain")], body).status)
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    assert_eq!(statuses.iter().filter(|&&s| s == 201).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|&&s| s == 200).count(), 19, "{statuses:?}");
}

#[test]
fn an_evicted_map_is_gone_from_memory_too() {
    let dir = TempDir::new("evict");
    let (a, b) = (dump(), [dump(), b"\n# another dump\n".to_vec()].concat());
    // Room for one map.
    let quota = (a.len() * 3 / 2).to_string();
    let server = Server::start(&dir.0, &["--max-store-bytes", &quota], None, &[]);
    let addr = &server.addr;
    // (status, id)
    let store = |body: &[u8], query: &str| {
        let r = request(addr, "POST", &format!("/maps{query}"), &[("Content-Type", "text/plain")], body);
        (r.status, r.text().split('"').nth(3).unwrap_or("").to_string())
    };
    let (status, id) = store(&a, "?name=first.py");
    assert_eq!(status, 201);
    let unit = [&b"#pto-memory-map {\"name\":\"first.py\",\"backend\":null}\n"[..], &a].concat();
    assert_eq!(id, sha256_hex(&unit), "the id covers the name");
    let svg = |id: &str| request(addr, "GET", &format!("/maps/{id}.svg"), &[], b"");
    let first = svg(&id);
    assert_eq!(first.status, 200);
    assert!(first.text().contains("first.py"));
    assert_eq!(store(&b, "").0, 201, "the second map evicts the first");
    assert_eq!(request(addr, "GET", &format!("/maps/{id}"), &[], b"").status, 404);
    assert_eq!(svg(&id).status, 404, "its render is not served from memory");
    // Stored again: the same map, id and picture.
    assert_eq!(store(&a, "?name=first.py"), (201, id.clone()));
    let again = svg(&id);
    assert_eq!((again.status, again.header("etag")), (200, first.header("etag")));
    // Under another name: another map (the name is drawn, so it is in the id), its own picture.
    let (status, other) = store(&a, "?name=second.py");
    assert!(status == 201 && other != id, "{status} {other}");
    let renamed = svg(&other);
    assert_eq!(renamed.status, 200);
    assert!(renamed.text().contains("second.py") && !renamed.text().contains("first.py"));
    assert_ne!(first.header("etag"), renamed.header("etag"), "other bytes, another tag");
}

/// Clients that ask for a large picture and never read it hold the answer budget, not more: past
/// it the others are told to come back (503 with `Retry-After`), another client's small render is
/// answered meanwhile, and the stalled connections are closed within the write timeout (30 s),
/// which frees the budget.
#[test]
fn readers_that_never_read_hold_the_answer_budget_and_are_cut_off() {
    // Drawn once, read whole: the picture is then in memory, so the stalled readers cost no render.
    let (_dir, s, target, whole) =
        large_picture("stalled", &["--cache-bytes", "268435456", "--max-answer-bytes", "100000000"]);
    let size = whole.body.len();
    let fits = 100_000_000 / size;
    let raw = format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
    let stalled: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut c = TcpStream::connect(&s.addr).unwrap();
            c.write_all(raw.as_bytes()).unwrap();
            std::thread::sleep(Duration::from_millis(300));
            c
        })
        .collect();
    let started = Instant::now();
    let render = request(&s.addr, "POST", "/render?format=json", &[("Content-Type", "text/plain")], &dump());
    assert_eq!(render.status, 200, "{}", render.text());
    assert!(started.elapsed() < Duration::from_secs(5), "a small render waited {:?}", started.elapsed());
    // Past the budget: 503 with Retry-After, at once.
    let refused = request(&s.addr, "GET", &target, &[], b"");
    assert_eq!(refused.status, 503, "{} clients' answers fit the budget of 100 MB", fits);
    assert!(refused.header("retry-after").is_some());
    let rss = s.rss().unwrap_or(0);
    assert!(rss < (fits as u64 + 2) * size as u64 + (200 << 20), "{rss} bytes resident");
    // Within the write timeout (30 s), the stalled connections are closed: those that got the
    // picture read it cut short; the others were told 503.
    std::thread::sleep(Duration::from_secs(36).saturating_sub(started.elapsed()));
    let (mut cut, mut busy) = (0, 0);
    for mut c in stalled {
        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut buf = Vec::new();
        let _ = c.read_to_end(&mut buf);
        match &buf.get(9..12) {
            Some(b"200") => {
                assert!(buf.len() < size, "a stalled reader was cut off");
                cut += 1;
            }
            Some(b"503") => busy += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((cut, busy), (fits.min(8), 8 - fits.min(8)));
    assert!(started.elapsed() < Duration::from_secs(60), "closed after {:?}", started.elapsed());
    // And the budget is free again.
    let again = request(&s.addr, "GET", &target, &[], b"");
    assert_eq!((again.status, again.body.len()), (200, size));
}

/// Answers no cache keeps are spooled to disk as they are drawn: eight clients that never read
/// a large picture hold the answer budget's count of bytes, but not that much memory, and the
/// picture comes out whole to a client that reads it.
#[test]
fn large_answers_are_spooled_not_held_in_memory() {
    // A cache too small to keep the picture: every GET renders, and spools, its own answer.
    let (_dir, s, target, whole) =
        large_picture("spooled", &["--cache-bytes", "1048576", "--max-answer-bytes", "2000000000"]);
    let size = whole.body.len();
    // What one render of it leaves resident (the allocator keeps some of what it freed).
    let drawn = s.rss().unwrap();
    let raw = format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
    // One at a time (a render this large may not take every render thread): each answer drawn and
    // held before the next is asked for; the budget counts them all.
    let mut stalled = Vec::new();
    for n in 1..=8 {
        let mut c = TcpStream::connect(&s.addr).unwrap();
        c.write_all(raw.as_bytes()).unwrap();
        stalled.push(c);
        let started = Instant::now();
        while s.metric("pto_answer_bytes_held") < (n * size) as f64 {
            assert!(started.elapsed() < Duration::from_secs(60), "held {}", s.metric("pto_answer_bytes_held"));
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // The answers are in the spool files the server holds open (unlinked: only /proc names them),
    // each the whole picture.
    let spooled = spooled_bytes(s.child.id());
    assert!(spooled >= 8 * size as u64, "{spooled} bytes spooled for 8 answers of {size} bytes");
    // Held in memory, the answers alone would add 8 times the picture (with spooling off this
    // test measured 12 times); spooled, the renders' own leftovers add 1.3 to 5.1 times, varying
    // with what the allocator keeps between renders.
    let rss = s.rss().unwrap();
    assert!(
        rss < drawn + 6 * size as u64,
        "{rss} bytes resident while 8 answers of {size} bytes are held, {drawn} after one render"
    );
    // Another client reads the same picture whole, from its own spool.
    let again = request(&s.addr, "GET", &target, &[], b"");
    assert_eq!(again.status, 200);
    assert!(again.body == whole.body, "a spooled answer differs from the first one");
    drop(stalled);
    let freed = Instant::now();
    while s.metric("pto_answer_bytes_held") > 0.0 {
        assert!(freed.elapsed() < Duration::from_secs(30), "held {}", s.metric("pto_answer_bytes_held"));
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!("spooled: 8 answers of {size} bytes held with {rss} bytes resident, {drawn} after one render");
}

/// Gzipped dumps posted to `/diff` count as large as they inflate: with two render threads, one
/// large render runs at a time, and a second large diff meanwhile is told to come back at once.
#[test]
fn gzipped_diffs_count_as_large_as_they_inflate() {
    let dir = TempDir::new("diffgz");
    let s = Server::start(&dir.0, &[], None, &[]);
    let old = common::many_functions(2000).into_bytes();
    let new = String::from_utf8(old.clone()).unwrap().replace("return t0", "return t1").into_bytes();
    assert!(old.len() > 512 << 10, "each side past the large-render size: {} bytes", old.len());
    let (old, new) = (serve::gzip(&old), serve::gzip(&new));
    assert!(old.len() + new.len() < 512 << 10, "small as they came: {} bytes", old.len() + new.len());
    let (ct, body) = serve::multipart(&[("old", Some("old.py.gz"), &old), ("new", Some("new.py.gz"), &new)]);
    let ct = ct.as_str();
    let addr = s.addr.clone();
    let (ct_first, body_first) = (ct.to_string(), body.clone());
    let first = std::thread::spawn(move || {
        request(&addr, "POST", "/diff?format=svg", &[("Content-Type", &ct_first)], &body_first)
    });
    std::thread::sleep(Duration::from_millis(300));
    let second = request(&s.addr, "POST", "/diff?format=svg", &[("Content-Type", ct)], &body);
    let first = first.join().unwrap();
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!((second.status, second.error_code().as_str()), (503, "busy"), "{}", second.text());
}

/// A service started with `flags`, a map of [`STALLED_FUNCTIONS`] functions stored in it, the
/// target of its SVG, and the SVG read whole once: larger than a socket's buffers.
fn large_picture(tag: &str, flags: &[&str]) -> (TempDir, Server, String, Resp) {
    let dir = TempDir::new(tag);
    let big = common::many_functions(STALLED_FUNCTIONS).into_bytes();
    let s = Server::start(&dir.0, flags, None, &[]);
    let stored = request(&s.addr, "POST", "/maps", &[("Content-Type", "text/plain")], &big);
    assert_eq!(stored.status, 201, "{}", stored.text());
    let id = stored.text().split('"').nth(3).unwrap().to_string();
    let target = format!("/maps/{id}.svg");
    let whole = request(&s.addr, "GET", &target, &[], b"");
    assert_eq!(whole.status, 200);
    let size = whole.body.len();
    assert!(size > 24 << 20, "the picture must be larger than a socket's buffers: {size} bytes");
    (dir, s, target, whole)
}

/// The bytes of the unlinked spool files process `pid` holds open, read through `/proc`.
fn spooled_bytes(pid: u32) -> u64 {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).expect("the server's open files");
    fds.flatten()
        .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t.to_string_lossy().contains(".spool")))
        .filter_map(|fd| std::fs::metadata(fd.path()).ok())
        .map(|m| m.len())
        .sum()
}

/// Functions in [`large_picture`]'s dump: a picture
/// of some 30 MB.
const STALLED_FUNCTIONS: usize = 5000;

/// A picture whose least size is past the output limit is refused before it is drawn (422, the figure
/// in the message, at once), and a name past 256 bytes is refused at the door, counted in bytes.
#[test]
fn a_picture_past_the_output_limit_is_refused_up_front_and_names_are_bounded() {
    let dir = TempDir::new("least");
    let s = Server::start(&dir.0, &["--max-output-bytes", "2000000"], None, &[]);
    // 300 tiles named with 8 KB each: 2.4 MB of names, which the SVG carries twice.
    let mut text = String::from("import pypto.language as pl\n\n@pl.program\nclass p:\n");
    text.push_str("    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n");
    for i in 0..300 {
        let name = format!("t{i}_{}", "n".repeat(8192));
        text.push_str(&format!(
            "        {name}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {}, 64), pl.Mem.Vec] = pl.tile.load(x)\n",
            i * 64
        ));
    }
    text.push_str("        return x\n");
    let started = Instant::now();
    let r = request(&s.addr, "POST", "/render?format=svg", &[("Content-Type", "text/plain")], text.as_bytes());
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("at the least (counted from the map before drawing)"), "{}", r.text());
    assert!(started.elapsed() < Duration::from_secs(10), "refused after {:?}", started.elapsed());
    // Names: 128 two-byte letters (256 bytes) are a name; 129 are not.
    let name = |n: usize| "%C3%A9".repeat(n);
    let target = |n: usize| format!("/render?format=json&name={}", name(n));
    let ok = request(&s.addr, "POST", &target(128), &[("Content-Type", "text/plain")], &dump());
    assert_eq!(ok.status, 200, "{}", ok.text());
    let refused = request(&s.addr, "POST", &target(129), &[("Content-Type", "text/plain")], &dump());
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert!(refused.text().contains("256 bytes"), "{}", refused.text());
    let huge = request(&s.addr, "POST", &format!("/render?function={}", "f".repeat(4000)), &[], &dump());
    assert_eq!(huge.status, 400, "{}", huge.text());
    assert!(huge.body.len() < 1000, "the refusal does not echo the name: {} bytes", huge.body.len());
}
