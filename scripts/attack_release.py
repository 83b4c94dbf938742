#!/usr/bin/env python3
"""The attack bounds, checked on a release build: each hostile input of up to 1 MB finishes (or is
refused) within 2 s and 300 MB in the CLI in every format (a diff of it with itself: 2 s and twice
the memory, its two maps built at once), and the service stays under 1 GB of resident memory with
four such requests at once (or sheds them with 503 at once).

A debug build is several times slower, so these figures mean something only for a release binary;
tests/run.sh runs this script when one exists (`cargo build --release`), and says so when not. The
debug-build tests (tests/attack_memory.rs, tests/attack_time.rs, the unit tests of `overlap` and
the live sweep) bound the same work by its growth instead.

    python3 scripts/attack_release.py [BINARY]    # default: the cargo target dir's release binary
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HEAD = (
    "import pypto.language as pl\n\n@pl.program\nclass p:\n"
    "    @pl.function(type=pl.FunctionType.AIV)\n    def f(self, x):\n"
)
WALL_S = 2.0
CLI_RSS = 300 << 20
SERVICE_RSS = 1 << 30
FORMATS = ["txt", "json", "svg", "png", "html"]


def piled(n):
    """`n` tiles on `n` bases over one range, all live at the end: every pair is a conflict."""
    lines = [
        f"        t{i}: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_{i}, {i * 2}, 16384), pl.Mem.Vec]"
        f" = pl.tile.load(x)\n"
        for i in range(n)
    ]
    names = ", ".join(f"t{i}" for i in range(n))
    return HEAD + "".join(lines) + f"        y = pl.tile.add({names})\n        return y\n"


def long_lived(lines):
    """One tile bound on the first line and returned after `lines` comment lines."""
    a = "        a: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_0, 0, 64), pl.Mem.Vec] = pl.tile.load(x)\n"
    return HEAD + a + "#\n" * lines + "        return a\n"


def release_binary():
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], capture_output=True, text=True, check=True
    )
    return os.path.join(json.loads(meta.stdout)["target_directory"], "release", "pto-memory-map")


def timed(cmd):
    """(exit code, wall seconds, peak RSS bytes, stderr) of `cmd` under /usr/bin/time -v."""
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    h, m, s = wall.groups()
    seconds = int(h or 0) * 3600 + int(m) * 60 + float(s)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) * 1024
    return p.returncode, seconds, rss, p.stderr


def peak_rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else release_binary()
    if not os.access(binary, os.X_OK):
        print(f"attack_release.py: no release binary at {binary}: run `cargo build --release` first", file=sys.stderr)
        return 2
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {"piled_5000": piled(5000), "live_240k_lines": long_lived(240_000)}
        for name, text in inputs.items():
            assert len(text) <= 1 << 20, f"{name}: {len(text)} bytes"
            path = os.path.join(tmp, f"{name}.py")
            with open(path, "w") as f:
                f.write(text)
            for fmt in FORMATS:
                out = os.path.join(tmp, f"{name}.{fmt}")
                code, wall, rss, err = timed([binary, path, "-f", fmt, "-o", out])
                size = os.path.getsize(out) if code == 0 and os.path.exists(out) else 0
                what = "ok" if code == 0 else "refused"
                print(f"{name:16} {len(text):>8} B  {fmt:4}  {what:7}  {wall:5.2f} s  {rss >> 20:4} MB  out {size} B")
                if code != 0 and "panicked" in err:
                    failures.append(f"{name} {fmt}: panicked")
                if wall > WALL_S or rss > CLI_RSS:
                    failures.append(f"{name} {fmt}: {wall:.2f} s, {rss >> 20} MB")
        # A diff of each input with itself (building and comparing both maps is what costs).
        for name in inputs:
            path = os.path.join(tmp, f"{name}.py")
            for fmt in ["md", "json", "svg"]:
                out = os.path.join(tmp, f"{name}.diff.{fmt}")
                code, wall, rss, err = timed([binary, "diff", path, path, "-f", fmt, "-o", out])
                what = "ok" if code == 0 else "refused"
                print(f"diff {name:16} {fmt:4}  {what:7}  {wall:5.2f} s  {rss >> 20:4} MB")
                if code != 0 and "panicked" in err:
                    failures.append(f"diff {name} {fmt}: panicked")
                # A diff builds its two maps at once, one per core: the time of one, the memory of two.
                if wall > WALL_S or rss > 2 * CLI_RSS:
                    failures.append(f"diff {name} {fmt}: {wall:.2f} s, {rss >> 20} MB")
        # The service, four such requests at once (one per format, the heaviest input each).
        server = subprocess.Popen(
            [binary, "serve", "--bind", "127.0.0.1:0", "--data-dir", os.path.join(tmp, "data")],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        try:
            addr = server.stdout.readline().strip().removeprefix("listening on ")
            results = []

            def post(name, fmt):
                req = urllib.request.Request(
                    f"{addr}/render?format={fmt}", data=inputs[name].encode(), headers={"Content-Type": "text/plain"}
                )
                started = time.monotonic()
                try:
                    with urllib.request.urlopen(req, timeout=60) as r:
                        status, body = r.status, len(r.read())
                except urllib.error.HTTPError as e:
                    status, body = e.code, len(e.read())
                results.append((name, fmt, status, body, time.monotonic() - started))

            for name in inputs:
                threads = [threading.Thread(target=post, args=(name, fmt)) for fmt in ["txt", "json", "svg", "html"]]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            for name, fmt, status, body, wall in results:
                print(f"service {name:16} {fmt:4} {status} {body:>9} B {wall:5.2f} s")
                # 503 is the service shedding what it will not take at once (a large dump's render
                # leaves a thread to small ones): an answer, given at once. Any other 5xx is a fault.
                if status >= 500 and not (status == 503 and wall < WALL_S):
                    failures.append(f"service {name} {fmt}: {status}")
            rss = peak_rss(server.pid)
            print(f"service peak RSS {rss >> 20} MB")
            if rss > SERVICE_RSS:
                failures.append(f"service: peak RSS {rss >> 20} MB")
        finally:
            server.terminate()
            server.wait()
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
