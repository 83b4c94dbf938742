#!/usr/bin/env python3
"""Races `pto-memory-map pack` against MiniMalloc built from its source, on the shared instances.

Usage:
  scripts/bench_pack.py [--pack DIR] [--minimalloc-git GIT_DIR] [--bin PATH] [--runs N] [--minimise-ms MS]

DIR (default $PMM_PACK, else ../shared/pack beside the repository) holds `minimalloc/` (the challenge
set A..K), `pypto/` (PyPTO's instances with `optimal.csv`) and `minimalloc-build/build.sh`. MiniMalloc
is built once into ~/.cache/pto-memory-map/minimalloc (GIT_DIR: a fetched copy of google/minimalloc;
needed only for that first build). The binary is $CARGO_TARGET_DIR/release/pto-memory-map unless
--bin names another (build it with `cargo build --release`).

Three races, each placement checked here pair by pair (a wrong placement fails the run):
  1. the challenge set, decision at 1 MiB (MiniMalloc's benchmark): wall time of each process,
     median of N runs, both tools alternating;
  2. the PyPTO instances, minimising: in-process times (MiniMalloc's `mm_opt` driver, ours from
     the `ms` our stderr line states), and whether each is proven optimal at the known optimum;
  3. minimising the challenge instances under a time limit (--minimise-ms): who proves what.
The load average is printed before and after: the machine is shared, so read figures with it.
"""

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache" / "pto-memory-map" / "minimalloc"
MIB = 1 << 20


def load():
    return open("/proc/loadavg").read().split()[:3]


def read_csv(path):
    lines = [l for l in Path(path).read_text().splitlines() if l.strip()]
    head = lines[0].split(",")
    col = {name: i for i, name in enumerate(head)}
    rows = []
    for line in lines[1:]:
        f = line.split(",")
        rows.append(
            (int(f[col["lower"]]), int(f[col["upper"]]), int(f[col["size"]]),
             int(f[col["offset"]]) if "offset" in col else None)
        )
    return rows


def check(instance, solution, align=1):
    """The peak of `solution` (a CSV with offsets) for `instance`, after checking every pair."""
    blocks = read_csv(instance)
    placed = read_csv(solution)
    assert len(blocks) == len(placed), f"{solution}: {len(placed)} rows for {len(blocks)}"
    items = []
    for (lo, up, size, _), (lo2, up2, size2, off) in zip(blocks, placed):
        assert (lo, up, size) == (lo2, up2, size2), f"{solution}: rows differ"
        assert off is not None and off % align == 0, f"{solution}: offset {off}"
        size = -(-size // align) * align
        items.append((lo, up, off, off + size))
    items.sort()
    for i, (lo, up, off, top) in enumerate(items):
        for lo2, up2, off2, top2 in items[i + 1:]:
            if lo2 >= up:
                break
            # Blocks of no size take no bytes.
            if off < top2 and off2 < top and top > off and top2 > off2:
                raise AssertionError(f"{solution}: blocks overlap")
    return max((t for lo, up, o, t in items if lo < up and t > o), default=0)


def build_minimalloc(pack_dir, git_dir):
    if (CACHE / "build" / "minimalloc").exists() and (CACHE / "build" / "mm_opt").exists():
        return CACHE / "build"
    if not git_dir:
        sys.exit("MiniMalloc is not built yet: give --minimalloc-git GIT_DIR (a fetched google/minimalloc)")
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["bash", str(pack_dir / "minimalloc-build" / "build.sh"), git_dir, str(CACHE)], check=True)
    return CACHE / "build"


def timed(cmd):
    """Runs `cmd`: (wall seconds, CPU seconds of the process, the finished process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_pack = os.environ.get("PMM_PACK") or str(REPO.parent / "shared" / "pack")
    ap.add_argument("--pack", default=default_pack)
    ap.add_argument("--minimalloc-git")
    target = os.environ.get("CARGO_TARGET_DIR") or str(REPO / "target")
    ap.add_argument("--bin", default=str(Path(target) / "release" / "pto-memory-map"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--minimise-ms", type=int, default=5000)
    ap.add_argument("--only", help="challenge letters to run, e.g. ACK")
    ap.add_argument("--skip-pypto", action="store_true")
    args = ap.parse_args()
    pack_dir = Path(args.pack)
    mm = build_minimalloc(pack_dir, args.minimalloc_git)
    ours = args.bin
    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load before {' '.join(load())}")
    tmp = Path(tempfile.mkdtemp(prefix="bench-pack-"))

    # 1. The challenge set, decision at 1 MiB.
    print("\n1. challenge set, decision at 1 MiB (seconds, median of %d runs per process: wall, CPU)" % args.runs)
    print(f"{'inst':5}{'blocks':>7}{'MM wall':>9}{'MM cpu':>8}{'ours wall':>11}{'ours cpu':>10}{'cpu ratio':>11}"
          f"{'our peak':>10}")
    totals = [0.0, 0.0, 0.0, 0.0]
    letters = args.only or "ABCDEFGHIJK"
    for letter in letters:
        inst = pack_dir / "minimalloc" / f"{letter}.1048576.csv"
        n = len(read_csv(inst))
        theirs, mine, theirs_cpu, mine_cpu, peak = [], [], [], [], None
        for run in range(args.runs):
            out_mm = tmp / f"mm.{letter}.csv"
            t, c, done = timed([str(mm / "minimalloc"), f"--capacity={MIB}", f"--input={inst}",
                                f"--output={out_mm}"])
            assert done.returncode == 0, done.stderr
            assert check(inst, out_mm) <= MIB
            theirs.append(t)
            theirs_cpu.append(c)
            out = tmp / f"ours.{letter}.csv"
            t, c, done = timed([ours, "pack", str(inst), "-o", str(out), "--capacity", str(MIB)])
            assert done.returncode == 0, done.stderr
            peak = check(inst, out)
            assert peak <= MIB
            mine.append(t)
            mine_cpu.append(c)
        row = [statistics.median(x) for x in (theirs, theirs_cpu, mine, mine_cpu)]
        totals = [a + b for a, b in zip(totals, row)]
        print(f"{letter:5}{n:>7}{row[0]:>9.3f}{row[1]:>8.3f}{row[2]:>11.3f}{row[3]:>10.3f}"
              f"{row[1] / max(row[3], 1e-6):>10.1f}x{peak:>10}", flush=True)
    print(f"{'total':12}{totals[0]:>9.3f}{totals[1]:>8.3f}{totals[2]:>11.3f}{totals[3]:>10.3f}"
          f"{totals[1] / max(totals[3], 1e-6):>10.1f}x")
    print(f"load {' '.join(load())}")

    # 2. PyPTO's instances, minimising, in-process times.
    if not args.skip_pypto:
        print("\n2. PyPTO instances, minimising (ms in-process)")
        optimal = {}
        for line in (pack_dir / "pypto" / "optimal.csv").read_text().splitlines()[1:]:
            f = line.split(",")
            optimal[f[0]] = int(f[3])
        files = [pack_dir / "pypto" / f"{name}.csv" for name in sorted(optimal)]
        mm_out = tmp / "mm_pypto"
        mm_out.mkdir()
        done = subprocess.run([str(mm / "mm_opt"), "1000", str(mm_out)] + [str(f) for f in files],
                              capture_output=True, text=True, check=True)
        mm_ms, mm_proven = [], 0
        for line in done.stdout.splitlines()[1:]:
            f = line.split(",")
            mm_ms.append(int(f[5]) / 1000)
            mm_proven += f[2] == "1" and int(f[3]) == optimal[Path(f[0]).stem]
        our_ms, our_proven = [], 0
        for path in files:
            out = tmp / "ours_pypto.csv"
            done = subprocess.run([ours, "pack", str(path), "-o", str(out)], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            peak = check(path, out)
            ms = float(re.search(r"([0-9.]+) ms", done.stderr).group(1))
            our_ms.append(ms)
            our_proven += "proven optimal" in done.stderr and "not proven" not in done.stderr \
                and peak == optimal[path.stem]
        for name, ms, proven in (("MiniMalloc", mm_ms, mm_proven), ("ours", our_ms, our_proven)):
            print(f"{name:11} {len(ms)} instances, proven optimal at the known peak {proven}, "
                  f"median {statistics.median(ms):.4f} ms, max {max(ms):.3f} ms, total {sum(ms):.1f} ms")
        print(f"load {' '.join(load())}")

    # 3. Minimising the challenge set under a time limit.
    if args.minimise_ms > 0:
        print(f"\n3. challenge set, minimising under {args.minimise_ms} ms (peak, proven?, seconds)")
        for letter in letters:
            inst = pack_dir / "minimalloc" / f"{letter}.1048576.csv"
            mm_out = tmp / "mm_min"
            mm_out.mkdir(exist_ok=True)
            t_mm, _, done = timed([str(mm / "mm_opt"), str(args.minimise_ms), str(mm_out), str(inst)])
            f = done.stdout.splitlines()[1].split(",")
            out = tmp / f"ours.min.{letter}.csv"
            t_ours, _, mine = timed([ours, "pack", str(inst), "-o", str(out), "--deadline", str(args.minimise_ms)])
            assert mine.returncode == 0, mine.stderr
            peak = check(inst, out)
            proven = "not proven" not in mine.stderr
            print(f"{letter}: MiniMalloc {f[3]} {'proven' if f[2] == '1' else 'unproven'} {t_mm:.2f} s; "
                  f"ours {peak} {'proven' if proven else 'unproven'} {t_ours:.2f} s", flush=True)
        print(f"load {' '.join(load())}")


if __name__ == "__main__":
    main()
