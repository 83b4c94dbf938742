"""A memory budget as one line of a test: ``assert_fits(compiled.output_dir, max_occupancy=90)``."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .api import PathLike, check
from .model import CheckReport

__all__ = ["assert_fits"]


def assert_fits(
    output_dir: PathLike,
    max_occupancy: Optional[float] = 90,
    deny: Union[str, Sequence[str], None] = "warnings",
    **kwargs: Any,
) -> CheckReport:
    """Fails (``AssertionError``) unless the dump in ``output_dir`` fits its on-chip memory.

    ``output_dir`` is a case folder (PyPTO's ``compiled.output_dir``), a ``passes_dump/`` folder, a
    dump file or a ``build_output/`` tree of cases. By default a space fuller than 90% fails, and
    so does any warning as well as any error; ``max_occupancy=None`` and ``deny=None`` relax that.
    Other keywords go to :func:`pto_memory_map.check` (``allow``, ``max_hwm``, ``backend``,
    ``pass_name``, ``soc``). The failure lists each violation with its function, space, line and
    message. Returns the report when the dump fits.
    """
    __tracebackhide__ = True  # pytest shows the failure at the caller's line
    report = check(output_dir, max_occupancy=max_occupancy, deny=deny, **kwargs)
    if not report.passed:
        lines = report.messages()
        budget = []
        if max_occupancy is not None:
            budget.append(f"max_occupancy={max_occupancy:g}%")
        if deny:
            budget.append(f"deny={deny!r}")
        # Capacities of a chip nothing named are a guess: say so, and how to name the chip.
        count = len(lines)
        assumed = [f for f in report.findings if f.code == "backend-assumed"]
        if assumed and kwargs.get("backend") is None:
            lines.append(
                f"note: {assumed[0].message}; if the kernel is for another chip, name it with "
                "backend='Ascend950' (or the chip's name; -b on the command line)"
            )
        raise AssertionError(
            f"{output_dir}: the memory map does not fit"
            + (f" ({', '.join(budget)})" if budget else "")
            + f": {count} violation{'s' if count != 1 else ''}\n  "
            + "\n  ".join(lines)
        )
    return report
