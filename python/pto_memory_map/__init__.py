"""pto-memory-map: the on-chip memory map of a PyPTO pass dump.

The work is done by the ``pto-memory-map`` binary that this package's wheel installs into the
environment's scripts folder; :func:`find_binary` says where it is, and ``python -m pto_memory_map``
runs it with the same arguments (``PATH [-o OUT] [-p PASS] [-b BACKEND]``, as PyPTO's
``python -m pypto.tools.memory_map`` takes them).

From Python: :func:`draw` returns a picture or page a notebook shows by itself, :func:`load` the map
as dataclasses, :func:`check` the findings against a budget, and
:func:`pto_memory_map.testing.assert_fits` makes that budget one line of a pytest test::

    import pto_memory_map as pmm
    pmm.draw(compiled.output_dir)                  # the map, in the notebook cell
    pmm.draw(compiled.output_dir, format="html")   # the interactive page
    pmm.assert_fits(compiled.output_dir, max_occupancy=90)
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

__all__ = [
    "find_binary",
    "draw",
    "load",
    "check",
    "code_quality",
    "options",
    "assert_fits",
    "Drawing",
    "MemoryMap",
    "Function",
    "Space",
    "Tile",
    "Finding",
    "CheckReport",
    "PtoMemoryMapError",
    "UsageError",
    "DumpError",
]

_NAME = "pto-memory-map" + (".exe" if sys.platform == "win32" else "")


def _user_scheme() -> str:
    get = getattr(sysconfig, "get_preferred_scheme", None)  # Python 3.10+
    return get("user") if get else ("nt_user" if os.name == "nt" else "posix_user")


def _candidates() -> list[Path]:
    """Where an installed wheel puts its scripts, in the order pip would have chosen them."""
    dirs = [sysconfig.get_path("scripts")]
    try:
        dirs.append(sysconfig.get_path("scripts", scheme=_user_scheme()))  # pip install --user
    except KeyError:
        pass
    # pip install --target DIR puts the package in DIR and the scripts in DIR/bin.
    dirs.append(str(Path(__file__).resolve().parent.parent / "bin"))
    return [Path(d) / _NAME for d in dirs if d]


def find_binary() -> str:
    """The path of the installed ``pto-memory-map`` binary; FileNotFoundError if there is none.

    ``PTO_MEMORY_MAP_BINARY``, when set, names the binary to use instead (a build of your own).
    """
    chosen = os.environ.get("PTO_MEMORY_MAP_BINARY")
    if chosen:
        if Path(chosen).is_file() and os.access(chosen, os.X_OK):
            return chosen
        raise FileNotFoundError(f"PTO_MEMORY_MAP_BINARY={chosen} is not an executable file")
    for path in _candidates():
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    found = shutil.which(_NAME)
    if found:
        return found
    raise FileNotFoundError(
        f"{_NAME} is not installed beside this package (looked in "
        + ", ".join(str(p.parent) for p in _candidates())
        + " and on PATH); reinstall it with `pip install \"pto-memory-map @ git+$PTO_MEMORY_MAP_REPO\"`"
        + " (the repository's address; `pip install pto-memory-map` once it is released)"
    )


# Below find_binary, which the API looks up when it is called.
from .api import Drawing, check, code_quality, draw, load, options  # noqa: E402
from .errors import DumpError, PtoMemoryMapError, UsageError  # noqa: E402
from .model import CheckReport, Finding, Function, MemoryMap, Space, Tile  # noqa: E402
from .testing import assert_fits  # noqa: E402
