#!/usr/bin/env python3
"""Writes a pass dump repeated N times, as one larger valid dump: a stand-in for a whole model's dump.

The header (comments, imports, `@pl.program`, the class line) is kept once; the class body is written
N times, and in copy k every function `def name(` becomes `def name__rK(`, so no two functions share
a name. Usage: repeat_dump.py DUMP N OUT
"""

import re
import sys

DEF = re.compile(r"^(\s+def )([A-Za-z_][A-Za-z0-9_]*)\(")


def repeat(text: str, times: int) -> str:
    lines = text.splitlines(keepends=True)
    class_at = next(i for i, line in enumerate(lines) if line.startswith("class "))
    head, body = lines[: class_at + 1], lines[class_at + 1 :]
    out = list(head)
    for k in range(times):
        if k == 0:
            out.extend(body)
            continue
        for line in body:
            out.append(DEF.sub(lambda m: f"{m.group(1)}{m.group(2)}__r{k}(", line, count=1))
    return "".join(out)


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    src, times, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    with open(dst, "w", encoding="utf-8") as f:
        f.write(repeat(text, times))


if __name__ == "__main__":
    main()
