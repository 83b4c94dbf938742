"""``python -m pto_memory_map PATH [-o OUT] [-p PASS] [-b BACKEND] ...``: runs the binary.

Every argument goes to ``pto-memory-map`` unchanged, so the options, messages and exit status are
the binary's own (``--help`` lists them all).
"""

from __future__ import annotations

import os
import subprocess
import sys

from pto_memory_map import find_binary


def main() -> int:
    try:
        binary = find_binary()
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    args = [binary, *sys.argv[1:]]
    if os.name == "posix":
        # Become the binary: signals (Ctrl-C) and the exit status reach it and come back directly.
        os.execv(binary, args)
    return subprocess.call(args)


if __name__ == "__main__":
    sys.exit(main())
