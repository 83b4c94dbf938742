"""Many instances over one S3-compatible store, behind nginx: the deployment of docs/deploy.md, run
for real on loopback (SeaweedFS, or s3s-fs, as the store, two instances of the service, nginx with
examples/deploy/pto-memory-map.conf in front).

Run by tests/s3/run.sh, which provides the binaries: PMM_BIN (the service), NGINX_BIN, and the
store's: WEED (SeaweedFS's `weed`) or S3S_FS.
Standard library only.
"""

import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bucket import Bucket  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "fx_concise.py"
BUCKET, PREFIX = "pmm-maps", "team"
KEY, SECRET = "pmm-test-key", "pmm-test-secret"

checks = 0


def check(cond, what):
    global checks
    if not cond:
        raise AssertionError(what)
    checks += 1


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, target, body=None, headers=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, target, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def wait_for(what, cond, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if cond():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Stack:
    def __init__(self, work):
        self.work = work
        self.procs = {}
        self.s3_port = free_port()
        self.s3_root = work / "s3"
        self.s3_root.mkdir()
        # SeaweedFS when the caller gave its binary (WEED), else s3s-fs (S3S_FS).
        self.server = "seaweedfs" if os.environ.get("WEED") else "s3s-fs"
        self.weed_ports = {}
        self.bucket = Bucket(self.s3_port, BUCKET, KEY, SECRET)
        self.env = dict(
            os.environ,
            AWS_ENDPOINT_URL=f"http://127.0.0.1:{self.s3_port}",
            AWS_ACCESS_KEY_ID=KEY,
            AWS_SECRET_ACCESS_KEY=SECRET,
            AWS_REGION="us-east-1",
        )
        self.ports = {}

    def start_store(self):
        """Starts the store on its port (the same ports and folder each time, so a restart finds
        what was stored) and waits until it takes a write (outside the prefixes the test reads)."""
        log = open(self.work / "store.log", "ab")
        if self.server == "seaweedfs":
            # `weed mini`: master, volume server, filer and S3 gateway in one process, every port
            # its own (the defaults are fixed numbers other programs may hold).
            if not self.weed_ports:
                names = ["master", "master.port.grpc", "volume", "volume.port.grpc", "filer",
                         "filer.port.grpc", "s3.port.grpc", "admin", "admin.port.grpc"]
                self.weed_ports = {n: free_port() for n in names}
                (self.work / "weed-s3.json").write_text(json.dumps({"identities": [{
                    "name": "pmm", "credentials": [{"accessKey": KEY, "secretKey": SECRET}],
                    "actions": ["Admin", "Read", "Write", "List"]}]}))
            ports = [f"-{n if '.' in n else n + '.port'}={p}" for n, p in self.weed_ports.items()]
            cmd = [os.environ["WEED"], "mini", f"-dir={self.s3_root}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                   f"-s3.port={self.s3_port}", "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false",
                   "-admin.ui=false", "-master.telemetry=false", f"-s3.config={self.work / 'weed-s3.json'}",
                   f"-bucket={BUCKET}"] + ports
        else:
            (self.s3_root / BUCKET).mkdir(parents=True, exist_ok=True)
            cmd = [os.environ["S3S_FS"], "--host", "127.0.0.1", "--port", str(self.s3_port),
                   "--access-key", KEY, "--secret-key", SECRET, str(self.s3_root)]
        self.procs["s3"] = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        wait_for(f"{self.server} to take writes", self.bucket.writable, 60)

    def stop_store(self):
        p = self.procs.pop("s3")
        p.terminate()
        p.wait(30)

    def start_instance(self, name, prefix=PREFIX, quota=0):
        port = free_port()
        log = open(self.work / f"{name}.log", "ab")
        self.procs[name] = subprocess.Popen(
            [os.environ["PMM_BIN"], "serve", "--bind", f"127.0.0.1:{port}", "--render-threads", "2",
             "--store", f"s3://{BUCKET}/{prefix}", "--max-store-bytes", str(quota), "--trusted-proxy", "127.0.0.1"],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=self.env)
        self.ports[name] = port
        wait_for(name, lambda: request(port, "GET", "/healthz", timeout=5)[0] == 200)

    def stop_instance(self, name):
        p = self.procs.pop(name)
        p.terminate()
        p.wait(15)

    def start_nginx(self):
        conf = (ROOT / "examples" / "deploy" / "pto-memory-map.conf").read_text()
        a, b = self.ports["a"], self.ports["b"]
        conf = re.sub(r"server 127\.0\.0\.1:8081", f"server 127.0.0.1:{a}", conf)
        conf = re.sub(r"server 127\.0\.0\.1:8082", f"server 127.0.0.1:{b}", conf)
        conf = conf.replace("/var/cache/nginx/pto-memory-map", str(self.work / "nginx-cache"))
        self.nginx_port = free_port()
        conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{self.nginx_port};")
        (self.work / "pto-memory-map.conf").write_text(conf)
        n = self.work
        (n / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {n}/nginx.pid;
error_log {n}/nginx-error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {n}/nginx-body;
    proxy_temp_path {n}/nginx-proxy;
    fastcgi_temp_path {n}/nginx-fastcgi;
    uwsgi_temp_path {n}/nginx-uwsgi;
    scgi_temp_path {n}/nginx-scgi;
    include {n}/pto-memory-map.conf;
}}
""")
        # As root nginx's workers would run as nobody, which cannot write this cache directory.
        user = ["-g", "user root;"] if os.geteuid() == 0 else []
        log = open(self.work / "nginx.log", "ab")
        self.procs["nginx"] = subprocess.Popen(
            [os.environ["NGINX_BIN"], "-p", str(n), "-c", str(n / "nginx.conf")] + user,
            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        wait_for("nginx", lambda: request(self.nginx_port, "GET", "/healthz", timeout=5)[0] == 200)

    def stop_all(self):
        # Asked to stop first: nginx's master stops its workers only when it is asked (killed, it
        # leaves them running, holding their ports).
        for p in self.procs.values():
            if p.poll() is None:
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def objects(self, prefix=PREFIX):
        """Every object under the bucket's prefix, read over S3: name -> bytes."""
        return self.bucket.objects(prefix)


def variant(i):
    """A distinct dump (so a distinct id): the fixture with a comment line of its own."""
    return FIXTURE.read_bytes() + f"\n# variant {i}\n".encode()


def unit_is_whole(key, unit):
    """Whether a stored object is a complete unit for its key: the whole unit (a map stored with a
    name or backend) or the dump after its metadata line (one stored without) hashes to the key (a
    cut-short object could not)."""
    dump = unit.split(b"\n", 1)[1] if unit.startswith(b"#pto-memory-map ") else unit
    return key in (hashlib.sha256(unit).hexdigest(), hashlib.sha256(dump).hexdigest())


def id_of_map(dump, name=None, backend=None):
    """The id the service gives a dump stored with a name or backend: the SHA-256 of the unit it
    stores (the metadata line and the dump), so the id covers all that is drawn."""
    if name is None and backend is None:
        return hashlib.sha256(dump).hexdigest()
    meta = json.dumps({"name": name, "backend": backend}, separators=(",", ":")).encode()
    return hashlib.sha256(b"#pto-memory-map " + meta + b"\n" + dump).hexdigest()


def renders(port):
    """How many renders an instance has done (its metrics page)."""
    page = request(port, "GET", "/metrics")[2]
    return sum(float(v) for v in re.findall(rb'pto_render_duration_seconds_count\{format="[a-z]+"\} ([0-9.]+)', page))


def main():
    work = Path(tempfile.mkdtemp(prefix="pmm-scale-out-"))
    stack = Stack(work)
    try:
        run(stack)
    except BaseException:
        for log in sorted(work.glob("*.log")):
            sys.stderr.write(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}\n")
        raise
    finally:
        stack.stop_all()
        shutil.rmtree(work, ignore_errors=True)
    print(f"scale-out: {checks} passed, 0 failed")


def run(stack):
    stack.start_store()
    stack.start_instance("a")
    stack.start_instance("b")
    stack.start_nginx()
    a, b, nx = stack.ports["a"], stack.ports["b"], stack.nginx_port

    # Both instances see the store.
    for port in (a, b):
        status, _, body = request(port, "GET", "/healthz")
        health = json.loads(body)
        check(status == 200 and health["status"] == "ok" and health["store"]["reachable"] is True, health)

    # Stored through one, read through the other and through nginx: the same bytes and ETag.
    dump = FIXTURE.read_bytes()
    status, _, body = request(a, "POST", "/maps?name=kernel.py", dump, {"Content-Type": "text/plain"})
    check(status == 201, f"first store: {status} {body!r}")
    map_id = json.loads(body)["id"]
    check(map_id == id_of_map(dump, name="kernel.py"), "the id is the SHA-256 of the dump with its name")
    status, _, body = request(b, "POST", "/maps?name=kernel.py", dump, {"Content-Type": "text/plain"})
    check(status == 200 and json.loads(body)["id"] == map_id, "the other instance finds it stored: 200")
    target = f"/maps/{map_id}.svg"
    sb, hb, from_b = request(b, "GET", target)
    sa, ha, from_a = request(a, "GET", target)
    check(sb == 200 and sa == 200 and from_a == from_b and from_a.startswith(b"<"), "byte-identical")
    etag = hb["etag"]
    check(etag == ha["etag"], "both instances give one ETag")
    check("immutable" in hb["cache-control"], hb["cache-control"])
    s1, h1, via1 = request(nx, "GET", target)
    s2, h2, via2 = request(nx, "GET", target)
    check(s1 == 200 and via1 == from_a and h1["etag"] == etag, "through nginx: the same bytes and ETag")
    check(h2.get("x-cache-status") == "HIT" and via2 == from_a, f"nginx serves it again from its cache: {h2}")
    # A link copied from an answer through nginx is absolute, names nginx's address (from its
    # X-Forwarded-Host), and resolves there.
    status, _, body = request(nx, "POST", "/maps?name=kernel.py", dump, {"Content-Type": "text/plain"})
    link, origin = json.loads(body)["links"]["svg"], f"http://127.0.0.1:{nx}"
    check(status == 200 and link.startswith(f"{origin}/maps/{map_id}.svg"), f"the link names nginx: {link}")
    status, _, via = request(nx, "GET", link[len(origin):])
    check(status == 200 and via == from_a, f"the link copied from the answer resolves: {status}")
    for port in (a, b, nx):
        status, headers, body = request(port, "GET", target, headers={"If-None-Match": etag})
        check(status == 304 and body == b"" and headers.get("etag") == etag, f"304 on port {port}: {status}")

    # Identical posts racing on both instances: one object, one id, and exactly one 201. Both
    # instances look the map up first; a race that gets past both lookups is decided by the
    # conditional put (If-None-Match: *), and the loser's put is the 412 path, answered 200. That
    # holds only on a store whose conditional put is atomic: SeaweedFS checks and writes under a
    # lock on the object. s3s-fs checks before it writes, not atomically with the write, so two puts
    # landing within the same fraction of a millisecond can both succeed there: on it, such pairs
    # are counted and reported, not failed (docs/deploy.md lists which stores give one 201).
    atomic = stack.server == "seaweedfs"
    rounds = 20 if atomic else 6
    both_created = decided_by_put = 0
    for i in range(rounds):
        body = variant(i)
        statuses, ids = [], []
        gate = threading.Barrier(2)
        renders_before = renders(a) + renders(b)

        def post(port):
            gate.wait()
            st, _, answer = request(port, "POST", "/maps", body, {"Content-Type": "text/plain"})
            statuses.append(st)
            ids.append(json.loads(answer).get("id"))

        threads = [threading.Thread(target=post, args=(p,)) for p in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if atomic:
            check(sorted(statuses) == [200, 201], f"race {i}: exactly one 201, the other 200; got {statuses}")
        else:
            check(201 in statuses and set(statuses) <= {200, 201}, f"race {i}: a 201 and no error; got {statuses}")
        check(ids[0] == ids[1] == hashlib.sha256(body).hexdigest(), f"race {i}: one id")
        objects = stack.objects()
        check(list(objects).count(ids[0]) == 1, f"race {i}: one object")
        check(unit_is_whole(ids[0], objects[ids[0]]), f"race {i}: the object is whole")
        both_created += statuses == [201, 201]
        decided_by_put += sorted(statuses) == [200, 201] and renders(a) + renders(b) - renders_before == 2
    # The races must reach the conditional put, or the lookups alone decided them and the put's
    # atomicity went untested.
    check(decided_by_put + both_created >= rounds // 4,
          f"races that got past both lookups: {decided_by_put + both_created} of {rounds}")
    print(f"scale-out: races on {stack.server}: {rounds - both_created} of {rounds} answered one 201 "
          f"({decided_by_put} of them decided by the conditional put after both instances rendered); "
          f"{both_created} answered two")

    # The store stopped: writes get 503 with Retry-After; what an instance holds is still served;
    # what it does not hold is a 503, never a 404; /healthz and /metrics say so.
    # A map stored through a and never read through b: b holds nothing of it. (A map b has read
    # once is kept whole in its memory, so b can still draw it in any format with the store down.)
    status, _, body = request(a, "POST", "/maps", variant("unread"), {"Content-Type": "text/plain"})
    check(status == 201, f"a map b never reads: {status}")
    never_drawn = f"/maps/{json.loads(body)['id']}.png"
    status, _, png = request(b, "GET", f"/maps/{map_id}.png")
    check(status == 200, f"a picture b did not draw yet, of a map b read: {status}")
    stack.stop_store()
    status, headers, body = request(a, "POST", "/maps", variant("down"), {"Content-Type": "text/plain"})
    check(status == 503 and "retry-after" in headers, f"write with the store down: {status} {headers}")
    check(json.loads(body)["error"]["code"] == "store_unavailable", body)
    for port in (a, b, nx):
        status, _, held = request(port, "GET", target)
        check(status == 200 and held == from_a, f"held picture served on port {port} with the store down")
    status, _, body = request(b, "GET", never_drawn)
    check(status == 503, f"a map not held, store down: 503, not 404; got {status} {body[:200]!r}")
    status, _, held_png = request(b, "GET", f"/maps/{map_id}.png")
    check(status == 200 and held_png == png, f"a map b read is still drawn with the store down: {status}")
    status, _, body = request(a, "GET", "/healthz")
    health = json.loads(body)
    check(status == 200 and health["status"] == "degraded" and health["store"]["reachable"] is False, health)
    _, _, page = request(a, "GET", "/metrics")
    errors = sum(float(v) for v in re.findall(rb'pto_store_errors_total\{op="[a-z]+"\} ([0-9.]+)', page))
    check(errors > 0, "store errors are counted")
    check(b'pto_store_duration_seconds_count{op="put"}' in page, "store latency is measured")

    # Back up: writes work again, and the map not held is drawn.
    stack.start_store()
    wait_for("healthz ok", lambda: json.loads(request(a, "GET", "/healthz")[2])["status"] == "ok")
    status, _, body = request(a, "POST", "/maps", variant("down"), {"Content-Type": "text/plain"})
    check(status == 201, f"write after the store came back: {status} {body!r}")
    status, _, body = request(b, "GET", never_drawn)
    check(status == 200 and body.startswith(b"\x89PNG"), f"the map not held, drawn after: {status}")

    # kill -9 an instance while it stores: no partial object, and every link it answered works,
    # through nginx, through the survivor and through the killed instance started again.
    answered = []
    cut_off = []
    stop = threading.Event()

    def keep_storing():
        for i in range(1000):
            if stop.is_set():
                return
            try:
                st, _, answer = request(b, "POST", "/maps", variant(f"kill {i}"), {"Content-Type": "text/plain"})
            except OSError:
                cut_off.append(hashlib.sha256(variant(f"kill {i}")).hexdigest())
                return
            if st == 201:
                answered.append(json.loads(answer)["id"])

    writer = threading.Thread(target=keep_storing)
    writer.start()
    wait_for("some stores on b", lambda: len(answered) >= 3)
    stack.procs["b"].send_signal(signal.SIGKILL)
    stack.procs.pop("b").wait()
    stop.set()
    writer.join()
    stack.start_instance("b")
    b = stack.ports["b"]
    # Listed after the restart, so that a put the store was still finishing at the kill is in.
    objects = stack.objects()
    check(all(unit_is_whole(k, v) for k, v in objects.items()), "every object in the bucket is whole")
    check(not [k for k in objects if len(k) != 64], f"nothing but maps in the prefix: {list(objects)}")
    for map_id_b in answered:
        check(map_id_b in objects, "a 201 means the object is in the bucket")
        for port in (nx, a, b):
            status, _, _ = request(port, "GET", f"/maps/{map_id_b}.json")
            check(status == 200, f"a link answered before the kill works after it (port {port}): {status}")
    # A store cut off by the kill left its whole object (the PUT had landed) or none at all.
    for map_id_cut in cut_off:
        status, _, _ = request(a, "GET", f"/maps/{map_id_cut}.json")
        check((status == 200) == (map_id_cut in objects) and status in (200, 404),
              f"the store cut off by the kill: whole or absent, and served accordingly: {status}")
    print(f"scale-out: kill -9 after {len(answered)} stores; {len(cut_off)} store cut off mid-request "
          f"({'its object landed whole' if set(cut_off) & set(objects) else 'no object'})")
    # nginx left the dead instance out; a new store through it lands on the survivor.
    status, _, _ = request(nx, "POST", "/maps", variant("after kill"), {"Content-Type": "text/plain"})
    check(status == 201, f"store through nginx with one instance dead: {status}")

    # A quota on a prefix: room for two maps; the third store sweeps out the least recently stored.
    unit = len(variant("q0")) + len(b'#pto-memory-map {"name":null,"backend":null}\n')
    stack.start_instance("q", prefix="quota", quota=unit * 5 // 2)
    q = stack.ports["q"]
    stored = []
    for i in range(3):
        status, _, body = request(q, "POST", "/maps", variant(f"q{i}"), {"Content-Type": "text/plain"})
        check(status == 201, f"quota store {i}: {status} {body!r}")
        stored.append(json.loads(body)["id"])
        wait_for(f"the sweep after store {i}", lambda: len(stack.objects("quota")) <= 2, 10)
        time.sleep(0.3)
    left = stack.objects("quota")
    check(sorted(left) == sorted(stored[1:]), f"the least recently stored map went first: {sorted(left)}")
    status, _, _ = request(q, "GET", f"/maps/{stored[0]}.json")
    check(status == 404, f"the swept map is gone: {status}")
    status, _, _ = request(q, "POST", "/maps", variant("x" * unit * 3), {"Content-Type": "text/plain"})
    check(status == 507, f"a map larger than the quota: {status}")

    # A map removed from the bucket behind the instances' backs (a lifecycle rule, by hand) stops
    # being served by every instance within the stated bound (storage::SHARED_TRUST, 30 s), even
    # where its picture is in the memory cache.
    for port in (a, b):
        check(request(port, "GET", target)[0] == 200, f"the picture is served before removal (port {port})")
    removed = time.monotonic()
    check(stack.bucket.delete(f"{PREFIX}/{map_id}") in (200, 204), "the object is removed from the bucket")
    gone = {}
    while len(gone) < 2 and time.monotonic() - removed < 40:
        for port in (a, b):
            if port not in gone and request(port, "GET", target)[0] == 404:
                gone[port] = time.monotonic() - removed
        time.sleep(0.5)
    # 30 s from the instance's last word from the bucket (the reads just above), plus the polling
    # step and a request's time on a busy machine.
    check(len(gone) == 2 and max(gone.values()) <= 32, f"gone from both instances within 30 s: {gone}")
    print(f"scale-out: a map removed from the bucket was a 404 on both instances after "
          f"{max(gone.values()):.1f} s")


if __name__ == "__main__":
    main()
