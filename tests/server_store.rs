//! The HTTP service's stored maps end to end (see `serve/` for the harness): content-addressed
//! storing, links, restarts, eviction, the token, diffs of stored maps.

use std::process::Command;

use std::time::Duration;

use serde_json::Value;

mod common;
mod serve;

use serve::*;

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
// Diffs, and what a stored map keeps

#[test]
fn diffs_of_posted_and_stored_dumps() {
    let (s, _dir) = server(&[], &[]);
    let old = example("demo_case");
    let new = example("demo_change");
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
fn stored_maps_keep_their_name_and_backend_and_diffs_take_a_backend_per_side() {
    let (s, _dir) = server(&[], &[]);
    let dump = example("demo_case");
    let other = example("demo_change");
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
