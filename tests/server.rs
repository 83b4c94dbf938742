//! The HTTP service end to end: the real binary on an ephemeral port, spoken to over TCP by a small
//! HTTP/1.1 client (`serve/`, one request per connection), so what is tested is what a user gets.
//! This file: health, logs, renders, forms and every refusal; `server_store.rs` the stored maps.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

mod common;
mod serve;

use serve::*;

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
