#!/usr/bin/env python3
"""The PNG, whole process, against librsvg's rsvg-convert (the peer) and our own SVG, in one run.

Prints a Markdown table, for the decode case (the corpus's 481 KB real dump):

- its largest function (`--function online_softmax`) at scale 2: our PNG, `rsvg-convert -z 2` of our
  SVG of it, and our SVG;
- the whole dump at scale 2: our PNG (the digest picture: the dump is past the PNG's pixel limit) and
  our SVG of the whole dump;

each with the median wall time, the median CPU time (user + system: more than the wall time when
several cores work), the peak memory (all measured by the kernel, wait4), and the spread of the wall
times (min-max, and the spread as a share of the median: the machine's noise). Then the goals, met
or missed: the PNG at least 10x faster than rsvg-convert and within 5x our SVG; the digest PNG
within 2x the whole dump's SVG; the PNG's peak memory at most its RGBA buffer plus 20 %.

The runs of every command are interleaved (one of each in turn, after one run of each not counted),
so a slower spell of the machine falls on all alike.

Needs a release build (made here with `cargo release-bin` unless BIN is set), rsvg-convert (Debian:
librsvg2-bin) and the corpus (PMM_CORPUS, default ../shared/corpus). Options: --runs N (default 9).
With BEFORE set to another build of pto-memory-map (an older commit's), its PNG runs in the same
rounds and the table has its row and the speed-up.
"""

import argparse
import os
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASE = "cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py"
FUNCTION = "online_softmax"


def run(cmd):
    """Wall seconds, CPU seconds (user + system) and peak RSS (bytes) of one process (wait4)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench_png: {' '.join(map(str, cmd))} failed:\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def png_size(path):
    """Width and height from a PNG's header."""
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def ms(s):
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()

    corpus = Path(os.environ.get("PMM_CORPUS", ROOT.parent / "shared" / "corpus"))
    dump = corpus / CASE
    if not dump.is_file():
        sys.exit(f"bench_png: {dump} not found (set PMM_CORPUS to the corpus folder)")
    rsvg = subprocess.run(["sh", "-c", "command -v rsvg-convert"], capture_output=True, text=True).stdout.strip()
    if not rsvg:
        sys.exit("bench_png: rsvg-convert is not installed (Debian: apt-get install -y librsvg2-bin)")
    binary = os.environ.get("BIN")
    if not binary:
        print("building release (cargo release-bin) ...", file=sys.stderr)
        subprocess.run(["cargo", "--quiet", "release-bin"], cwd=ROOT, check=True)
        target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        binary = str(target / "release" / "pto-memory-map")

    work = ROOT / "target" / "bench_png"
    work.mkdir(parents=True, exist_ok=True)
    one_svg, one_png, peer_png = work / "one.svg", work / "one.png", work / "one.rsvg.png"
    all_svg, all_png = work / "all.svg", work / "all.png"
    base = [binary, str(dump), "-q"]
    one = ["--function", FUNCTION]
    # The peer draws our own SVG, written once here.
    subprocess.run(base + one + ["-f", "svg", "-o", str(one_svg)], check=True)
    commands = {
        "png": base + one + ["-f", "png", "--scale", "2", "-o", str(one_png)],
        "rsvg": [rsvg, "-z", "2", "-o", str(peer_png), str(one_svg)],
        "svg": base + one + ["-f", "svg", "-o", str(one_svg)],
        "digest png": base + ["-f", "png", "--scale", "2", "-o", str(all_png)],
        "whole svg": base + ["-f", "svg", "-o", str(all_svg)],
    }
    before = os.environ.get("BEFORE")
    if before:
        commands["png before"] = [before, str(dump), "-q"] + one + ["-f", "png", "--scale", "2", "-o", str(work / "before.png")]
    for cmd in commands.values():
        run(cmd)  # not counted: the first run may find files outside the page cache
    samples = {name: [] for name in commands}
    load_before = os.getloadavg()
    print(f"{args.runs} interleaved runs of each of {len(commands)} commands ...", file=sys.stderr)
    for _ in range(args.runs):
        for name, cmd in commands.items():
            samples[name].append(run(cmd))

    def stat(name):
        walls = [s[0] for s in samples[name]]
        med = statistics.median(walls)
        return {
            "wall": med,
            "cpu": statistics.median(s[1] for s in samples[name]),
            "peak": max(s[2] for s in samples[name]),
            "min": min(walls),
            "max": max(walls),
            "noise": (max(walls) - min(walls)) / med,
        }

    load_after = os.getloadavg()
    st = {name: stat(name) for name in commands}
    w, h = png_size(one_png)
    dw, dh = png_size(all_png)
    cores = os.cpu_count()
    print(
        f"\nPNG, whole process, {cores} cores; medians of {args.runs} interleaved runs of each command;"
        f" spread = (max - min) / median of the wall times. Load average (1, 5, 15 min) before"
        f" {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}, after"
        f" {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f}.\n"
    )
    print("| | picture | wall | cpu | peak | spread |")
    print("|---|---|---:|---:|---:|---:|")
    rows = [
        ("png", f"`pto-memory-map -f png --scale 2 --function {FUNCTION}`", f"{w} x {h} px"),
        ("rsvg", "`rsvg-convert -z 2` of our SVG of it", "same"),
        ("svg", f"`pto-memory-map -f svg --function {FUNCTION}`", "-"),
        ("digest png", "`pto-memory-map -f png --scale 2` (whole dump: the digest)", f"{dw} x {dh} px"),
        ("whole svg", "`pto-memory-map -f svg` (whole dump)", "-"),
    ]
    if before:
        rows.insert(1, ("png before", f"the same, built from BEFORE ({before})", "same"))
    for name, what, size in rows:
        s = st[name]
        print(
            f"| {what} | {size} | {ms(s['wall'])} [{ms(s['min'])}-{ms(s['max'])}] | {ms(s['cpu'])} |"
            f" {s['peak'] / 2**20:.1f} MiB | {s['noise'] * 100:.0f} % |"
        )
    print()
    peer = st["rsvg"]["wall"] / st["png"]["wall"]
    svg = st["png"]["wall"] / st["svg"]["wall"]
    digest = st["digest png"]["wall"] / st["whole svg"]["wall"]
    rgba = w * h * 4
    memory = st["png"]["peak"] / rgba
    verdict = lambda ok: "met" if ok else "missed"  # noqa: E731
    print(f"goal PNG >= 10x faster than rsvg-convert: {peer:.1f}x ({verdict(peer >= 10)})")
    print(f"goal PNG within 5x our SVG: {svg:.1f}x ({verdict(svg <= 5)})")
    print(f"goal digest PNG within 2x the whole dump's SVG: {digest:.2f}x ({verdict(digest <= 2)})")
    print(
        f"goal PNG peak <= RGBA buffer + 20 % ({rgba / 2**20:.1f} MiB): {memory:.2f}x the buffer"
        f" ({verdict(memory <= 1.2)})"
    )
    if before:
        print(f"PNG against BEFORE: {st['png before']['wall'] / st['png']['wall']:.2f}x wall, "
              f"{st['png before']['cpu'] / st['png']['cpu']:.2f}x cpu, "
              f"{st['png before']['peak'] / st['png']['peak']:.2f}x peak memory")
    print(f"cpu ratios (what the machine's load changes least): rsvg-convert / PNG {st['rsvg']['cpu'] / st['png']['cpu']:.1f}x,"
          f" PNG / SVG {st['png']['cpu'] / st['svg']['cpu']:.1f}x, digest / whole SVG {st['digest png']['cpu'] / st['whole svg']['cpu']:.1f}x")
    print(f"cpu / wall of the PNG: {st['png']['cpu'] / st['png']['wall']:.2f} (cores at work)")


if __name__ == "__main__":
    main()
