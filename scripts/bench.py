#!/usr/bin/env python3
"""Dump to HTML, whole process, against PyPTO's own tool (the yardstick), in one run.

Prints a Markdown table: for the 481 KB real case repeated 1x, 16x and 64x (scripts/repeat_dump.py),
the median wall time (after one run not counted) and peak memory of each tool, the speed ratio,
and the page size against the dump; then the speed goals (>= 30x faster, linear to 64x, peak memory <= 4x the dump at 64x,
page <= 2x the dump) with the figures that meet or miss them.

Needs: a release build (made here with `cargo release-bin`: linked statically, see README), the
corpus (PMM_CORPUS, default ../shared/corpus), and PyPTO's tool installed with ../shared/yardstick/install.sh under target/yardstick (this script installs it
when PMM_PYPTO_GIT names a PyPTO git directory). Options: --runs N (default 5), --sizes 1,16,64,
--yardstick-max N (largest repetition the yardstick runs, default 16: at 64x it takes about 30 s
and 4 GiB per run).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASE = "cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py"


def run(cmd, env=None):
    """Wall seconds and peak RSS (bytes) of one process, measured by the kernel (wait4)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(map(str, cmd))} failed:\n{err}")
    return wall, usage.ru_maxrss * 1024


def measure(cmd, runs, env=None, ref=None, ref_runs=0, ref_env=None):
    """Median, min and max wall time and peak memory of `runs` runs of `cmd`, and the same of
    `ref_runs` runs of `ref` when given. The two tools' runs are interleaved, spread evenly over the
    session, so a spell of a slower machine (this VM's speed drifts by a quarter within minutes)
    falls on both alike rather than on whichever ran then."""
    # One run first, not counted, for either tool: the first run after a build or an install may
    # find the binary, Python's modules or the dump outside the page cache (a 1x run of ours took
    # 33.5 ms so, against a median of 14.3 ms).
    run(cmd, env)
    if ref:
        run(ref, ref_env)
    order = sorted([((k + 0.5) / runs, 0) for k in range(runs)] + [((k + 0.5) / ref_runs, 1) for k in range(ref_runs if ref else 0)])
    samples = ([], [])
    for _, which in order:
        samples[which].append(run(cmd, env) if which == 0 else run(ref, ref_env))

    def summary(taken):
        walls = [s[0] for s in taken]
        return statistics.median(walls), min(walls), max(walls), max(s[1] for s in taken)

    return summary(samples[0]), summary(samples[1]) if ref else None


def ms(s):
    if s < 0.1:
        return f"{s * 1000:.1f} ms"  # a small dump's run: a millisecond is a tenth of it
    return f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s"


def mib(b):
    return f"{b / 2**20:.1f} MiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="1,16,64")
    ap.add_argument("--yardstick-max", type=int, default=16)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    corpus = Path(os.environ.get("PMM_CORPUS", ROOT.parent / "shared" / "corpus"))
    src = corpus / CASE
    if not src.is_file():
        sys.exit(f"bench: {src} not found (set PMM_CORPUS to the corpus folder)")
    yard = ROOT / "target" / "yardstick"
    if not (yard / "pypto" / "tools" / "memory_map.py").is_file():
        git = os.environ.get("PMM_PYPTO_GIT")
        if not git:
            sys.exit("bench: PyPTO's tool is not under target/yardstick; set PMM_PYPTO_GIT to a PyPTO git dir")
        installer = corpus.parent / "yardstick" / "install.sh"
        subprocess.run(["bash", str(installer), git, str(yard)], check=True)

    print("building release (cargo release-bin: linked statically) ...", file=sys.stderr)
    subprocess.run(["cargo", "--quiet", "release-bin"], cwd=ROOT, check=True)
    # Where cargo built it: ./target, or CARGO_TARGET_DIR or a config's target-dir.
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, check=True, capture_output=True
    )
    binary = Path(json.loads(meta.stdout)["target_directory"]) / "release" / "pto-memory-map"

    work = ROOT / "target" / "bench"
    work.mkdir(parents=True, exist_ok=True)
    ys_env = dict(os.environ, PYTHONPATH=str(yard))
    rows, ours = [], {}
    for n in sizes:
        folder = work / f"x{n}"
        folder.mkdir(exist_ok=True)
        dump = folder / src.name
        if not dump.is_file() or n == 1 and dump.stat().st_size != src.stat().st_size:
            subprocess.run([sys.executable, str(ROOT / "scripts" / "repeat_dump.py"), str(src), str(n), str(dump)], check=True)
        size = dump.stat().st_size
        page = folder / "ours.html"
        # Default limits: --max-tokens bounds one function, so a whole model's dump needs no lift.
        cmd = [str(binary), str(dump), "-q", "-f", "html", "-o", str(page)]
        # Ours at 1x takes 15 ms: five of its runs to each of the yardstick's make a steadier median.
        runs = args.runs * (5 if n == 1 else 1)
        ref_cmd, ref_runs = None, 0
        if n <= args.yardstick_max:
            ref_cmd = [sys.executable, "-m", "pypto.tools.memory_map", str(dump), "-o", str(folder / "ref.html")]
            ref_runs = max(1, args.runs if n == 1 else min(args.runs, 3))
        print(f"x{n}: {runs} runs of pto-memory-map, {ref_runs} of PyPTO's tool, interleaved ...", file=sys.stderr)
        mine, ref = measure(cmd, runs, None, ref_cmd, ref_runs, ys_env)
        ours[n] = (mine, size)
        rows.append((n, size, ref, mine, page.stat().st_size))

    print(
        f"\nDump to HTML, whole process, 2 cores; medians (min-max in brackets) of {args.runs} runs of each"
        f" tool, {5 * args.runs} of ours at 1x and at most 3 of PyPTO's past 1x, interleaved.\n"
    )
    print("| dump | size | PyPTO's tool | pto-memory-map | ratio | page / dump |")
    print("|---|---:|---:|---:|---:|---:|")
    for n, size, ref, mine, page in rows:
        name = "481 KB real case" if n == 1 else f"repeated {n}x"
        theirs = f"{ms(ref[0])}, {mib(ref[3])}" if ref else "(not run)"
        ratio = f"{ref[0] / mine[0]:.1f}x" if ref else "-"
        spread = f"{ms(mine[1])}-{ms(mine[2])}"
        print(f"| {name} | {size / 2**20:.2f} MiB | {theirs} | {ms(mine[0])} [{spread}], {mib(mine[3])} | {ratio} | {page / size:.2f}x |")

    print()
    for n, size, ref, mine, page in rows:
        if ref:
            verdict = "met" if ref[0] / mine[0] >= 30 else "missed"
            print(f"goal >= 30x PyPTO's tool at {n}x: {ref[0] / mine[0]:.1f}x ({verdict})")
    if 1 in ours and 64 in ours:
        (t1, *_), s1 = ours[1]
        (t64, _, _, rss64), s64 = ours[64]
        linear = t64 / (t1 * s64 / s1)
        print(f"goal linear to 64x (within 1.25x): the 64x run takes {linear:.2f}x of 64 times the 1x run"
              f" ({'met' if linear <= 1.25 else 'missed'})")
        print(f"goal peak memory <= 4x the dump at 64x: {rss64 / s64:.2f}x ({'met' if rss64 <= 4 * s64 else 'missed'})")
    for n, size, ref, mine, page in rows:
        print(f"goal page <= 2x the dump at {n}x: {page / size:.2f}x ({'met' if page <= 2 * size else 'missed'})")


if __name__ == "__main__":
    main()
