"""The load run of docs/deploy.md: cached stored maps, 20 s of wrk each, on loopback.

  local  one instance on its local folder, wrk straight at it
  nginx  nginx (examples/deploy/pto-memory-map.conf, its cache on) over two instances on s3s-fs
  proxy  the same with nginx's cache off: every request reaches an instance
  shared one of those instances, wrk straight at it: the same work as `local` but for the store,
         so the shared store's own cost on cached maps is `shared` against `local`

Rounds alternate the three so that a change in the machine's load falls on all alike. Not run by
tests/run.sh (it takes minutes and its figures depend on the machine); run it as
  PMM_BIN=... S3S_FS=... NGINX_BIN=... python3 tests/s3/load.py [seconds] [rounds]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale_out import FIXTURE, Stack, free_port, request, wait_for  # noqa: E402


def wrk(url, seconds):
    out = subprocess.run(
        ["wrk", "-t2", "-c16", f"-d{seconds}s", "--latency", url], capture_output=True, text=True, check=True
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    p99 = re.search(r"99%\s+([0-9.]+)(us|ms|s)", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, float(p99.group(1)) * scale, int(errors.group(1)) if errors else 0


def main():
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    work = Path(tempfile.mkdtemp(prefix="pmm-load-"))
    stack = Stack(work)
    try:
        stack.start_store()
        stack.start_instance("a")
        stack.start_instance("b")
        stack.start_nginx()
        local_port = free_port()
        log = open(work / "local.log", "ab")
        stack.procs["local"] = subprocess.Popen(
            [os.environ["PMM_BIN"], "serve", "--bind", f"127.0.0.1:{local_port}", "--render-threads", "2",
             "--data-dir", str(work / "local-data")],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        wait_for("local", lambda: request(local_port, "GET", "/healthz")[0] == 200)
        # nginx with its cache off, on another port.
        conf = (work / "pto-memory-map.conf").read_text()
        proxy_port = free_port()
        conf = conf.replace("proxy_cache pto_maps;", "proxy_cache off;")
        conf = re.sub(r"listen 127\.0\.0\.1:\d+;", f"listen 127.0.0.1:{proxy_port};", conf)
        conf = re.sub(r"proxy_cache_path [^;]*;", "", conf)
        conf = conf.replace("upstream pto_memory_map", "upstream pto_memory_map_nocache")
        conf = conf.replace("http://pto_memory_map;", "http://pto_memory_map_nocache;")
        (work / "pto-memory-map.conf").write_text((work / "pto-memory-map.conf").read_text() + conf)
        subprocess.run([os.environ["NGINX_BIN"], "-p", str(work), "-c", str(work / "nginx.conf"), "-s", "reload"]
                       + (["-g", "user root;"] if os.geteuid() == 0 else []), check=True)
        wait_for("nginx reload", lambda: request(proxy_port, "GET", "/healthz")[0] == 200)

        dump = FIXTURE.read_bytes()
        ids = {}
        for name, port in (("local", local_port), ("shared", stack.ports["a"])):
            status, _, body = request(port, "POST", "/maps", dump, {"Content-Type": "text/plain"})
            assert status in (200, 201), body
            ids[name] = json.loads(body)["id"]
        targets = {
            "local": (local_port, ids["local"]),
            "nginx": (stack.nginx_port, ids["shared"]),
            "proxy": (proxy_port, ids["shared"]),
            "shared": (stack.ports["a"], ids["shared"]),
        }
        for name, (port, map_id) in targets.items():
            for _ in range(3):  # every instance renders it once, then serves it from memory
                assert request(port, "GET", f"/maps/{map_id}.svg")[0] == 200, name
        results = {name: [] for name in targets}
        for _ in range(rounds):
            for name, (port, map_id) in targets.items():
                results[name].append(wrk(f"http://127.0.0.1:{port}/maps/{map_id}.svg", seconds))
        with open("/proc/loadavg") as f:
            load = f.read().split()[:3]
        for name, runs in results.items():
            shown = ", ".join(f"{rps:.0f}/s p99 {p99:.2f} ms" + (f" ({bad} non-2xx)" if bad else "")
                              for rps, p99, bad in runs)
            print(f"{name:6s} {shown}")
        print(f"load average after: {' '.join(load)}")
    finally:
        stack.stop_all()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
