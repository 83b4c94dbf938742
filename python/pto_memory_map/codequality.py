"""``python -m pto_memory_map.codequality PATH [check options]``: the binary's
``pto-memory-map check --format codequality``, a GitLab Code Quality report on standard output
(paths relative to the working folder), so the findings show in a merge request's widget.

The report is written by the Rust binary, the one place findings are worded; this module only runs
it (:func:`pto_memory_map.api.code_quality` is the same from Python). The exit status is the
check's: 0 when the gate passed, 1 when it failed (the report is written either way), 2 for a
wrong argument.
"""

from __future__ import annotations

import subprocess
import sys
from typing import List, Optional

from .api import code_quality

__all__ = ["code_quality", "main"]


def main(argv: Optional[List[str]] = None) -> int:
    from . import find_binary

    args = sys.argv[1:] if argv is None else argv
    return subprocess.run([find_binary(), "check", "--format", "codequality", *args], check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
