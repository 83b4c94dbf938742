//! `serve --store URL`: the local folder's long form, the S3 store's URL checks, and what clients
//! see when the S3 store does not answer (no server needed: nothing listens on the endpoint).
//! The S3 store against a real server is `tests/s3/run.sh`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const FIXTURE: &str = "tests/fixtures/fx_concise.py";

struct Served {
    child: Child,
    addr: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmm-store-url-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn serve(args: &[&str], env: &[(&str, &str)], log: &Path) -> Served {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pto-memory-map"));
    cmd.args(["serve", "--bind", "127.0.0.1:0", "--render-threads", "1"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(std::fs::File::create(log).unwrap()));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("listening on http://").map(str::to_string);
    let Some(addr) = addr else {
        let _ = child.kill();
        panic!("no address: {line:?}; {}", std::fs::read_to_string(log).unwrap_or_default());
    };
    Served { child, addr }
}

/// One request on its own connection: (status, head, body).
fn request(addr: &str, method: &str, target: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head[9..12].parse().unwrap();
    (status, head.to_ascii_lowercase(), raw[split + 4..].to_vec())
}

fn json(body: &[u8]) -> serde_json::Value {
    serde_json::from_slice(body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

#[test]
fn file_url_is_the_data_dir() {
    let dir = temp("file");
    let data = dir.join("data");
    let s = serve(&["--store", &format!("file://{}", data.display())], &[], &dir.join("log"));
    let dump = std::fs::read(FIXTURE).unwrap();
    let (status, _, body) = request(&s.addr, "POST", "/maps", &dump);
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
    let id = json(&body)["id"].as_str().unwrap().to_string();
    assert!(data.join("maps").join(&id[..2]).join(&id).is_file(), "stored under the URL's folder");
    assert_eq!(request(&s.addr, "POST", "/maps", &dump).0, 200);
    let (status, head, _) = request(&s.addr, "GET", &format!("/maps/{id}.svg"), b"");
    assert_eq!(status, 200);
    assert!(head.contains("etag:"));
    let (status, _, body) = request(&s.addr, "GET", "/healthz", b"");
    let health = json(&body);
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    assert_eq!(health["store"]["reachable"], true);
    assert_eq!(health["store"]["state"], "ok");
    assert!(health["store"].get("url").is_none(), "where the maps are is for the log: {health}");
    let (_, _, page) = request(&s.addr, "GET", "/metrics", b"");
    let page = String::from_utf8_lossy(&page);
    assert!(page.contains("pto_store_duration_seconds_count{op=\"put\"} 1"), "{page}");
    assert!(page.contains("pto_store_errors_total{op=\"get\"} 0"), "{page}");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_store_urls_stop_the_start_with_what_to_write() {
    let dir = temp("bad");
    for (args, expected) in [
        (vec!["--store", "ftp://host/x"], "use file://PATH or s3://BUCKET/PREFIX"),
        (vec!["--store", "s3://"], "names no bucket"),
        (vec!["--store", "file://"], "names no folder"),
        (vec!["--store", "s3://.."], "bucket name"),
        (vec!["--store", "s3://maps"], "names no prefix"),
        (vec!["--store", "s3://maps/"], "names no prefix"),
        (vec!["--store", "s3://maps/team/../other"], "'..' segment"),
        (vec!["--store", "s3://maps/./team"], "'..' segment"),
        (vec!["--store", "file:///tmp/x", "--data-dir", "y"], "cannot be used with"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pto-memory-map"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(&args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(expected), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An S3 store nobody answers for: the service starts, says so on `/healthz`, answers writes 503
/// with `Retry-After`, and a read it cannot check is 503, never 404.
#[test]
fn an_unreachable_s3_store_is_503_never_404() {
    if !cfg!(feature = "s3") {
        return;
    }
    let dir = temp("down");
    let env = [
        ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
        ("AWS_ACCESS_KEY_ID", "k"),
        ("AWS_SECRET_ACCESS_KEY", "s"),
        ("AWS_REGION", "us-east-1"),
    ];
    let s = serve(&["--store", "s3://maps/p"], &env, &dir.join("log"));
    let started = std::time::Instant::now();
    let (status, _, body) = request(&s.addr, "GET", "/healthz", b"");
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    let health = json(&body);
    assert_eq!((status, health["status"].as_str()), (200, Some("degraded")), "{health}");
    assert_eq!(health["store"]["reachable"], false);
    assert_eq!(health["store"]["state"], "not_answering");
    // Neither the endpoint nor the bucket nor the client's raw error: those are in the log.
    let text = String::from_utf8_lossy(&body);
    assert!(!text.contains("127.0.0.1") && !text.contains("maps/p") && !text.contains("Error"), "{text}");
    assert!(std::fs::read_to_string(dir.join("log")).unwrap().contains("127.0.0.1:9"), "the log has the detail");
    let (status, head, body) = request(&s.addr, "POST", "/maps", &std::fs::read(FIXTURE).unwrap());
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&body));
    assert!(head.contains("retry-after:"), "{head}");
    assert_eq!(json(&body)["error"]["code"], "store_unavailable");
    let id = "0".repeat(64);
    for target in [format!("/maps/{id}.svg"), format!("/maps/{id}"), format!("/maps/{id}/diff/{id}.md")] {
        let (status, _, body) = request(&s.addr, "GET", &target, b"");
        assert_eq!(status, 503, "{target}: {}", String::from_utf8_lossy(&body));
    }
    // A render needs no store.
    assert_eq!(request(&s.addr, "POST", "/render?format=json", &std::fs::read(FIXTURE).unwrap()).0, 200);
    let (_, _, page) = request(&s.addr, "GET", "/metrics", b"");
    let page = String::from_utf8_lossy(&page);
    assert!(!page.contains("pto_store_errors_total{op=\"head\"} 0"), "{page}");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
