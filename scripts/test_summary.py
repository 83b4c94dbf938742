#!/usr/bin/env python3
"""The test run in one line: how many tests ran, how many were skipped and why, how many failed.

Reads the log `tests/run.sh` writes and counts what each suite reports of itself:
  - cargo's `test result: ok. N passed; F failed; I ignored` lines, less the tests that said
    `skipped: TEST: REASON` (tests/common's `skipped`): such a test returned early and passed in
    libtest's eyes, so it is counted here as skipped, not as run;
  - node's test runner (`# pass N` / `ℹ pass N`, `skipped`, `fail`);
  - pytest's `N passed, M skipped` line;
  - the service's scripts (`scale-out: N passed, F failed`).

Usage: test_summary.py LOG
"""

import re
import sys
from collections import Counter

CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored")
RUNNING = re.compile(r"^\s+(?:Running|Doc-tests) (\S+)")
# Anywhere in a line: libtest may have written "test NAME ... " before it and its verdict after.
SKIPPED = re.compile(r"skipped: (\S+?): (.+)$")
NODE = re.compile(r"^(?:#|ℹ) (pass|fail|skipped) (\d+)$")
PYTEST = re.compile(r"^=*\s*(\d+ (?:passed|failed|skipped|error).*?) in [\d.]+s")
SCRIPT = re.compile(r"^([\w-]+): (\d+) passed, (\d+) failed$")


def main(path):
    ran, failed = Counter(), Counter()
    skipped = {}
    binary = "?"
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            line = line.rstrip("\n")
            if m := RUNNING.match(line):
                binary = m.group(1)
            elif m := SKIPPED.search(line):
                # A test may look for the corpus more than once: count it once. A script that
                # skips (`attack_release.py`) is not one of cargo's tests.
                suite = "script" if m.group(1).endswith((".py", ".sh")) else binary
                skipped.setdefault((suite, m.group(1)), m.group(2))
            elif m := CARGO.match(line):
                ran["Rust"] += int(m.group(1))
                failed["Rust"] += int(m.group(2))
            elif m := NODE.match(line):
                kind, n = m.group(1), int(m.group(2))
                if kind == "pass":
                    ran["browser"] += n
                elif kind == "fail":
                    failed["browser"] += n
                else:
                    for i in range(n):
                        skipped[("browser", str(i))] = "skipped by the browser tests"
            elif m := PYTEST.match(line):
                for part in m.group(1).split(", "):
                    n, _, kind = part.partition(" ")
                    if not n.isdigit():
                        continue
                    if kind == "passed":
                        ran["Python"] += int(n)
                    elif kind in ("failed", "error", "errors"):
                        failed["Python"] += int(n)
                    elif kind == "skipped":
                        for i in range(int(n)):
                            skipped[("Python", str(i))] = "skipped by pytest"
            elif m := SCRIPT.match(line):
                ran["service"] += int(m.group(2))
                failed["service"] += int(m.group(3))
    rust_skipped = sum(1 for (b, _) in skipped if b not in ("browser", "Python", "script"))
    ran["Rust"] -= rust_skipped
    reasons = Counter(skipped.values())
    total = sum(ran.values())
    parts = ", ".join(f"{suite} {n}" for suite, n in ran.items() if n)
    why = "; ".join(f"{reason}: {n}" for reason, n in reasons.most_common())
    print(f"tests: {total} ran ({parts}), {len(skipped)} skipped" + (f" ({why})" if why else "")
          + f", {sum(failed.values())} failed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
