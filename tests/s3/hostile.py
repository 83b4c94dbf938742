"""The service against a slow store, a refusing store and hostile objects in the bucket (issue 49),
on the real store tests/s3/run.sh starts (SeaweedFS): `PMM_S3_SCRIPT=hostile.py bash tests/s3/run.sh`.

- a hanging store (its process stopped with SIGSTOP): maps already read are served within 1 s,
  /healthz answers within 2 s and says the store is not answering without naming it, a render
  that needs no store answers within 2 s, and a request that needs the store ends within 30 s
  (503/504); once the store runs again, everything stored is there and unchanged;
- a refusing store (wrong credentials): 502, no Retry-After, a body that says a retry will not help;
- the quota sweep of an instance on `team` leaves `team/a/...` and `teamX/...` alone;
- objects in the bucket: one of 300 MiB is answered 5xx within 10 s with the instance under 600 MB;
  an object whose metadata line was altered is refused (502, logged), never drawn; a map is read
  from the bucket once, not once per picture.
Standard library only.
"""

import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale_out import FIXTURE, PREFIX, Stack, check, request, variant, wait_for  # noqa: E402
import scale_out  # noqa: E402


def peak_rss_mb(proc):
    """The process's peak resident memory, in MB (Linux)."""
    status = Path(f"/proc/{proc.pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def store_calls(port, op):
    page = request(port, "GET", "/metrics")[2]
    found = re.search(rb'pto_store_duration_seconds_count\{op="' + op.encode() + rb'"\} ([0-9.]+)', page)
    return float(found.group(1)) if found else 0.0


def timed(port, method, target, body=None, headers=None, timeout=60):
    started = time.monotonic()
    status, head, answer = request(port, method, target, body, headers, timeout=timeout)
    return status, head, answer, time.monotonic() - started


def run(stack):
    stack.start_store()
    # A quota of about four maps, so that storing more sweeps.
    unit = len(variant("n0")) + 80
    stack.start_instance("a", quota=unit * 4)
    a = stack.ports["a"]
    b_ = stack.bucket

    # --- The sweep stays in its prefix. Neighbours: a deeper prefix and a sibling, each holding
    # objects named like maps, older than anything the instance stores.
    neighbours = {}
    for i in range(3):
        body = variant(f"neighbour {i}") * 3
        for key in (f"{PREFIX}/a/{i:064x}", f"{PREFIX}X/{i:064x}"):
            check(b_.put(key, body) == 200, f"neighbour {key} written")
            neighbours[key] = body
    time.sleep(1.1)  # Last-Modified has one-second steps: the neighbours are strictly older
    stored = []
    for i in range(8):
        status, _, body = request(a, "POST", "/maps", variant(f"n{i}"), {"Content-Type": "text/plain"})
        check(status == 201, f"store {i}: {status} {body!r}")
        stored.append(json.loads(body)["id"])
        time.sleep(0.3)
    def direct():
        """The keys directly under the instance's prefix: its maps."""
        return set(k for k in b_.keys(PREFIX) if "/" not in k[len(PREFIX) + 1:])

    wait_for("the sweep", lambda: len(direct()) <= 4, 20)
    left = direct()
    check(len(left) <= 4, f"the sweep kept the prefix within its quota: {sorted(left)}")
    for key, body in neighbours.items():
        check(b_.get(key) == body, f"the sweep left {key} alone, unchanged")
    print(f"hostile: the sweep kept {len(left)} maps of 8 under {PREFIX}/ and left the 6 neighbours alone")

    # --- A map is read from the bucket once: two pictures of it, one GET of the object.
    dump = FIXTURE.read_bytes()
    status, _, body = request(a, "POST", "/maps?name=kernel.py&backend=Ascend950", dump, {"Content-Type": "text/plain"})
    check(status in (200, 201), f"named store: {status} {body!r}")
    named = json.loads(body)["id"]
    stack.stop_instance("a")
    stack.start_instance("a")
    a = stack.ports["a"]
    gets = store_calls(a, "get")
    for ext in ("svg", "json", "png"):
        status, _, _ = request(a, "GET", f"/maps/{named}.{ext}")
        check(status == 200, f"{ext} of the named map: {status}")
    check(store_calls(a, "get") - gets == 1, f"one read of the object for three pictures: {store_calls(a, 'get') - gets}")
    status, _, held_svg = request(a, "GET", f"/maps/{named}.svg")
    last_seen = time.monotonic()  # the instance's word from the bucket on this map is believed 30 s

    # --- An altered object: the name in its metadata line changed (same length, so only the id
    # can tell). A fresh instance (nothing cached) must refuse it: 502, logged, never drawn.
    key = f"{PREFIX}/{named}"
    original = b_.get(key)
    altered = original.replace(b"kernel.py", b"evil99.py", 1)
    check(altered != original and len(altered) == len(original), "the object is altered")
    check(b_.put(key, altered) == 200, "altered in the bucket")
    stack.start_instance("fresh")
    fresh = stack.ports["fresh"]
    for ext in ("svg", "json"):
        status, head, body = request(fresh, "GET", f"/maps/{named}.{ext}")
        check(status == 502 and b"evil99" not in body and "retry-after" not in head,
              f"the altered object is refused: {status} {body[:200]!r}")
        check(json.loads(body)["error"]["code"] == "stored_map_invalid", body)
    log = (stack.work / "fresh.log").read_text()
    check("match its id" in log and named in log, "the refusal is logged, with the object")
    check(b_.put(key, original) == 200, "restored")

    # --- An object of 300 MiB where a map should be: refused unread, fast, in little memory.
    huge_id = "f" * 64
    check(b_.put(f"{PREFIX}/{huge_id}", b"#" * (300 << 20), timeout=300) == 200, "300 MiB object written")
    status, _, body, took = timed(fresh, "GET", f"/maps/{huge_id}.svg")
    check(500 <= status < 600 and took < 10, f"300 MiB object: {status} in {took:.1f} s")
    rss = peak_rss_mb(stack.procs["fresh"])
    check(rss < 600, f"the instance stayed under 600 MB: peak {rss:.0f} MB")
    print(f"hostile: a 300 MiB object answered {status} in {took:.2f} s, instance peak {rss:.0f} MB")
    b_.delete(f"{PREFIX}/{huge_id}")

    # --- A refusing store: wrong credentials.
    good_secret = stack.env["AWS_SECRET_ACCESS_KEY"]
    stack.env["AWS_SECRET_ACCESS_KEY"] = "wrong-secret"
    stack.start_instance("refused")
    stack.env["AWS_SECRET_ACCESS_KEY"] = good_secret
    r = stack.ports["refused"]
    status, head, body = request(r, "POST", "/maps", variant("refused"), {"Content-Type": "text/plain"})
    check(status == 502 and "retry-after" not in head, f"refused store, write: {status} {head}")
    error = json.loads(body)["error"]
    check(error["code"] == "store_refused" and "will not help" in error["message"], error)
    status, _, body = request(r, "GET", "/healthz")
    health = json.loads(body)
    check(health["status"] == "degraded" and health["store"]["state"] == "refusing", health)
    check(str(stack.s3_port) not in body.decode() and "pmm-maps" not in body.decode(), f"no endpoint or bucket: {body!r}")
    stack.stop_instance("refused")

    # --- A hanging store: its process stopped. What the instance holds, /healthz and renders
    # answer fast; what needs the store ends within 30 s.
    before = stack.objects(PREFIX)
    never_read = stored[-1]
    # Past the 30 s the instance believes the bucket's word, so the held map's first read below asks
    # the hanging store (before the circuit opens) and must not wait on it.
    time.sleep(max(0.0, 31 - (time.monotonic() - last_seen)))
    stack.procs["s3"].send_signal(signal.SIGSTOP)
    try:
        worst = {}
        for i in range(3):
            status, _, body, took = timed(a, "GET", f"/maps/{named}.svg")
            check(status == 200 and body == held_svg and took < 1, f"held map, store hung: {status} in {took:.2f} s")
            worst["held"] = max(worst.get("held", 0), took)
            status, _, body, took = timed(a, "GET", "/healthz")
            health = json.loads(body)
            check(status == 200 and took < 2 and health["store"]["state"] == "not_answering",
                  f"/healthz, store hung: {health} in {took:.2f} s")
            text = body.decode()
            check(str(stack.s3_port) not in text and "pmm-maps" not in text and "127.0.0.1" not in text,
                  f"/healthz names no endpoint or bucket: {text}")
            worst["healthz"] = max(worst.get("healthz", 0), took)
            status, _, _, took = timed(a, "POST", "/render?format=json", dump, {"Content-Type": "text/plain"})
            check(status == 200 and took < 2, f"render, store hung: {status} in {took:.2f} s")
            worst["render"] = max(worst.get("render", 0), took)
            status, _, _, took = timed(a, "GET", f"/maps/{never_read}.png")
            check(status in (503, 504) and took < 30, f"a map not held, store hung: {status} in {took:.2f} s")
            worst["needs store"] = max(worst.get("needs store", 0), took)
            status, head, _, took = timed(a, "POST", "/maps", variant("hung"), {"Content-Type": "text/plain"})
            check(status in (503, 504) and "retry-after" in head and took < 30, f"store, store hung: {status} in {took:.2f} s")
            worst["store"] = max(worst.get("store", 0), took)
        print("hostile: with the store stopped, the slowest answers: "
              + ", ".join(f"{k} {v:.2f} s" for k, v in worst.items()))
    finally:
        stack.procs["s3"].send_signal(signal.SIGCONT)
    wait_for("healthz ok", lambda: json.loads(request(a, "GET", "/healthz")[2])["status"] == "ok", 30)
    after = stack.objects(PREFIX)
    check(after == before, "nothing stored was lost or altered while the store hung")
    status, _, _ = request(a, "GET", f"/maps/{never_read}.png")
    check(status == 200, f"the map not held is drawn once the store is back: {status}")


def main():
    work = Path(tempfile.mkdtemp(prefix="pmm-hostile-"))
    stack = Stack(work)
    try:
        run(stack)
    except BaseException:
        for log in sorted(work.glob("*.log")):
            sys.stderr.write(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}\n")
        raise
    finally:
        stack.procs.get("s3") and stack.procs["s3"].send_signal(signal.SIGCONT)
        stack.stop_all()
        shutil.rmtree(work, ignore_errors=True)
    print(f"hostile: {scale_out.checks} passed, 0 failed")


if __name__ == "__main__":
    main()
