#!/usr/bin/env python3
"""The speed guard: this build against an earlier one, side by side, whole process, in one run.

For the decode case (the corpus's 481 KB real dump) repeated 1x and 16x (scripts/repeat_dump.py),
each format (html, svg, json by default) is drawn by this build and by the build of `--against REV`
(a git revision, default f28e585, the commit the speed goals were met at), in pairs: the two runs of
a pair back to back, which one goes first alternating, so a slower spell of the machine falls on
both alike. It prints, per format and size, both medians, the median of the pairs' ratios (this
build's time over the other's: at most 1.05 is "no slower") and the noise (the spread of the other
build's times, max - min over the median). With --yardstick, PyPTO's own tool draws the same dumps
as a page in the same rounds, and the ratio against it is printed too (the goal: at least 30x).

The earlier build is made once and kept: its source is exported with `git archive` into
~/.cache/pmm-bench/<sha>/ and built there with `cargo release-bin` (linked statically, as this
build is) into a target folder shared by every revision, so only what differs is rebuilt. Both
binaries run from copies written at the start (see main). Needs the
corpus (PMM_CORPUS, default ../shared/corpus) and, for --yardstick, PyPTO's tool under
target/yardstick (see scripts/bench.py). A benchmark, not a test: run it on demand.

Usage: scripts/bench_guard.py [--against REV] [--pairs N] [--sizes 1,16] [--formats html,svg,json]
[--yardstick]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASE = "cases/decode_fwd_layers/passes_dump/32_after_AllocateMemoryAddr.py"
CACHE = Path(os.environ.get("PMM_BENCH_CACHE", Path.home() / ".cache" / "pmm-bench"))


sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import run  # noqa: E402  (wall seconds and peak memory of one process, by wait4)


def target_dir(cwd, env=None):
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=cwd, env=env, check=True, capture_output=True
    )
    return Path(json.loads(meta.stdout)["target_directory"])


def build_here():
    print("building this checkout (cargo release-bin) ...", file=sys.stderr)
    subprocess.run(["cargo", "--quiet", "release-bin"], cwd=ROOT, check=True)
    return target_dir(ROOT) / "release" / "pto-memory-map"


def build_rev(rev):
    """The release binary of `rev`, built once into the cache."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    binary = CACHE / "bin" / f"pto-memory-map-{sha[:12]}"
    if binary.is_file():
        return binary, sha
    src = CACHE / sha
    if not (src / "Cargo.toml").is_file():
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(CACHE / "target"))
    print(f"building {rev} ({sha[:12]}) once into {CACHE} ...", file=sys.stderr)
    subprocess.run(["cargo", "--quiet", "release-bin"], cwd=src, env=env, check=True)
    binary.parent.mkdir(parents=True, exist_ok=True)
    built = CACHE / "target" / "release" / "pto-memory-map"
    binary.write_bytes(built.read_bytes())
    binary.chmod(0o755)
    return binary, sha


def ms(s):
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", default="f28e585")
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--sizes", default="1,16")
    ap.add_argument("--formats", default="html,svg,json")
    ap.add_argument("--yardstick", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    formats = args.formats.split(",")

    corpus = Path(os.environ.get("PMM_CORPUS", ROOT.parent / "shared" / "corpus"))
    src = corpus / CASE
    if not src.is_file():
        sys.exit(f"bench_guard: {src} not found (set PMM_CORPUS to the corpus folder)")
    old, sha = build_rev(args.against)
    new = build_here()
    # Both binaries are run from copies written now: a binary file written minutes ago ran the 1x
    # page 2 to 4 % faster than the same bytes written an hour before (fewer page faults on its
    # code), which favoured whichever build was made last.
    fresh = ROOT / "target" / "bench" / "bin"
    fresh.mkdir(parents=True, exist_ok=True)
    for tag, binary in (("new", new), ("old", old)):
        copy = fresh / f"pto-memory-map-{tag}"
        copy.unlink(missing_ok=True)
        shutil.copy2(binary, copy)
    new, old = fresh / "pto-memory-map-new", fresh / "pto-memory-map-old"
    yard = ROOT / "target" / "yardstick"
    if args.yardstick and not (yard / "pypto" / "tools" / "memory_map.py").is_file():
        sys.exit("bench_guard: PyPTO's tool is not under target/yardstick (scripts/bench.py installs it)")

    work = ROOT / "target" / "bench"
    rows = []
    for n in sizes:
        folder = work / f"x{n}"
        folder.mkdir(parents=True, exist_ok=True)
        dump = folder / src.name
        if not dump.is_file() or n == 1 and dump.stat().st_size != src.stat().st_size:
            subprocess.run([sys.executable, str(ROOT / "scripts" / "repeat_dump.py"), str(src), str(n), str(dump)],
                           check=True)
        for fmt in formats:
            cmd = lambda b, tag: [str(b), str(dump), "-q", "-f", fmt, "-o", str(folder / f"guard-{tag}.{fmt}")]
            a, b = cmd(new, "new"), cmd(old, "old")
            run(a), run(b)  # one of each not counted: the page cache
            walls = ([], [])
            pairs = args.pairs if n == 1 else max(3, args.pairs // 3)
            print(f"x{n} {fmt}: {pairs} pairs ...", file=sys.stderr)
            for k in range(pairs):
                first, second = (0, 1) if k % 2 == 0 else (1, 0)
                for which in (first, second):
                    walls[which].append(run(a if which == 0 else b)[0])
            ratios = [x / y for x, y in zip(*walls)]
            ref = None
            if args.yardstick and fmt == "html" and n <= 16:
                env = dict(os.environ, PYTHONPATH=str(yard))
                yc = [sys.executable, "-m", "pypto.tools.memory_map", str(dump), "-o", str(folder / "ref.html")]
                ref = statistics.median(run(yc, env)[0] for _ in range(3 if n == 1 else 1))
            rows.append((n, fmt, walls, ratios, ref, (folder / f"guard-new.{fmt}").stat().st_size, dump.stat().st_size))

    load = os.getloadavg()
    print(f"\nThis build against {args.against} ({sha[:12]}), whole process, 2 cores, pairs in turn; load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}.\n")
    print("| dump | format | this build | " + args.against + " | ratio (median of pairs) | noise | output / dump |"
          + (" PyPTO's tool | vs PyPTO |" if args.yardstick else ""))
    print("|---|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.yardstick else ""))
    verdicts = []
    for n, fmt, walls, ratios, ref, out, size in rows:
        mine, theirs = statistics.median(walls[0]), statistics.median(walls[1])
        noise = (max(walls[1]) - min(walls[1])) / theirs
        ratio = statistics.median(ratios)
        line = (f"| {n}x | {fmt} | {ms(mine)} | {ms(theirs)} | {ratio:.3f} | {noise * 100:.0f} % | "
                f"{out / size:.2f}x |")
        if args.yardstick:
            line += f" {ms(ref)} | {ref / mine:.1f}x |" if ref else " - | - |"
        print(line)
        verdicts.append(f"{fmt} at {n}x: {ratio:.3f} of {args.against}'s time "
                        f"({'no slower' if ratio <= 1.05 else 'SLOWER'}, goal <= 1.05)")
        if ref:
            verdicts.append(f"{fmt} at {n}x: {ref / mine:.1f}x PyPTO's tool ({'met' if ref / mine >= 30 else 'missed'},"
                            " goal >= 30x)")
    print()
    for v in verdicts:
        print(v)


if __name__ == "__main__":
    main()
