"""The load run of docs/deploy.md: cached stored maps, wrk for N seconds each, on loopback.

  local        one instance on its local folder, wrk straight at it
  shared       one instance on the bucket, wrk straight at it: `local` but for the store
  nginx-local  nginx (examples/deploy/pto-memory-map.conf, its cache off) over the local instance
  nginx-one    the same nginx over one instance on the bucket (the `shared` one)
  nginx-bucket the same nginx over two instances on the bucket: every request reaches an instance
  nginx-cache  the example as it is (cache on) over the two instances on the bucket

The shared store's own cost on cached maps is `shared` against `local`, and, through nginx,
`nginx-one` against `nginx-local`; `nginx-bucket` against `nginx-local` adds the cost of two
instances sharing the same cores. Rounds alternate the configurations, in reverse order every
other round, so that a change in the machine's load falls on all alike; each line says the load
average around its run. A third argument picks configurations (comma-separated names). Not run by
tests/run.sh (it takes minutes and its figures depend on the machine); run it through run.sh,
which provides the store and nginx, with a release build:
  PMM_BIN=target/release/pto-memory-map PMM_S3_SCRIPT=load.py bash tests/s3/run.sh [seconds] [rounds] [names]
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


def store_calls(port):
    """An instance's store calls so far, by operation (its metrics page)."""
    page = request(port, "GET", "/metrics")[2].decode()
    return {op: float(n) for op, n in re.findall(r'pto_store_duration_seconds_count\{op="([a-z]+)"\} ([0-9.]+)', page)}


def uncached_proxy(conf, name, servers):
    """The example's server block with its cache off, over `servers`, on a port of its own."""
    port = free_port()
    conf = re.sub(r"proxy_cache_path [^;]*;", "", conf)
    conf = conf.replace("proxy_cache pto_maps;", "proxy_cache off;")
    conf = re.sub(r"listen 127\.0\.0\.1:\d+;", f"listen 127.0.0.1:{port};", conf)
    upstream = "".join(f"    server 127.0.0.1:{p} max_fails=3 fail_timeout=10s;\n" for p in servers)
    conf = re.sub(r"upstream pto_memory_map \{.*?keepalive",
                  f"upstream {name} {{\n{upstream}    keepalive", conf, flags=re.S)
    return conf.replace("http://pto_memory_map;", f"http://{name};"), port


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
        example = (work / "pto-memory-map.conf").read_text()
        bucket_conf, bucket_port = uncached_proxy(example, "pmm_bucket", [stack.ports["a"], stack.ports["b"]])
        one_conf, one_port = uncached_proxy(example, "pmm_one", [stack.ports["a"]])
        local_conf, nginx_local_port = uncached_proxy(example, "pmm_local", [local_port])
        (work / "pto-memory-map.conf").write_text(example + bucket_conf + one_conf + local_conf)
        subprocess.run([os.environ["NGINX_BIN"], "-p", str(work), "-c", str(work / "nginx.conf"), "-s", "reload"]
                       + (["-g", "user root;"] if os.geteuid() == 0 else []), check=True)
        for port in (bucket_port, one_port, nginx_local_port):
            wait_for("nginx reload", lambda: request(port, "GET", "/healthz")[0] == 200)

        dump = FIXTURE.read_bytes()
        ids = {}
        for name, port in (("local", local_port), ("shared", stack.ports["a"])):
            status, _, body = request(port, "POST", "/maps", dump, {"Content-Type": "text/plain"})
            assert status in (200, 201), body
            ids[name] = json.loads(body)["id"]
        targets = {
            "local": (local_port, ids["local"]),
            "shared": (stack.ports["a"], ids["shared"]),
            "nginx-local": (nginx_local_port, ids["local"]),
            "nginx-one": (one_port, ids["shared"]),
            "nginx-bucket": (bucket_port, ids["shared"]),
            "nginx-cache": (stack.nginx_port, ids["shared"]),
        }
        if len(sys.argv) > 3:
            targets = {name: targets[name] for name in sys.argv[3].split(",")}
        for name, (port, map_id) in targets.items():
            for _ in range(4):  # every instance renders it once, then serves it from memory
                status, _, _ = request(port, "GET", f"/maps/{map_id}.svg")
                assert status == 200, (name, status)
        results = {name: [] for name in targets}
        calls_before = store_calls(stack.ports["a"])
        for r in range(rounds):
            for name, (port, map_id) in list(targets.items())[::1 if r % 2 == 0 else -1]:
                before = os.getloadavg()[0]
                rps, p99, bad = wrk(f"http://127.0.0.1:{port}/maps/{map_id}.svg", seconds)
                results[name].append((rps, p99, bad, before, os.getloadavg()[0]))
                print(f"round {r + 1} {name:12s} {rps:8.0f}/s  p99 {p99:7.2f} ms  load {before:.1f} -> "
                      f"{os.getloadavg()[0]:.1f}" + (f"  ({bad} non-2xx)" if bad else ""), flush=True)
        print()
        for name, runs in results.items():
            mean = sum(x[0] for x in runs) / len(runs)
            print(f"{name:12s} mean {mean:8.0f}/s  p99 " + ", ".join(f"{x[1]:.2f}" for x in runs) + " ms")
        calls = {op: n - calls_before.get(op, 0) for op, n in store_calls(stack.ports["a"]).items()}
        print(f"store calls of the instance on the bucket during the runs: {calls}")
        for shared, alone in (("shared", "local"), ("nginx-one", "nginx-local"), ("nginx-bucket", "nginx-local")):
            if shared not in results or alone not in results:
                continue
            pairs = [s[0] / a[0] for s, a in zip(results[shared], results[alone])]
            mean = sum(r[0] for r in results[shared]) / sum(r[0] for r in results[alone])
            print(f"{shared} / {alone}: per round " + ", ".join(f"{x:.3f}" for x in pairs) + f"; overall {mean:.3f}")
    finally:
        stack.stop_all()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
