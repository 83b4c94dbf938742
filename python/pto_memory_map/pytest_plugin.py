"""The pytest plugin (registered under ``pytest11``, so installing the package enables it).

It adds the ``assert_fits`` fixture, whose budget defaults come from the ini options
``memory_map_max_occupancy`` and ``memory_map_deny`` so a suite sets them once::

    def test_qk_matmul(assert_fits):
        compiled = qk_matmul.compile(...)
        assert_fits(compiled.output_dir)
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

_DEFAULT_MAX_OCCUPANCY = "90"
_DEFAULT_DENY = "warnings"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "memory_map_max_occupancy",
        "assert_fits fixture: fail a space fuller than this percent ('none' for no limit)",
        default=_DEFAULT_MAX_OCCUPANCY,
    )
    parser.addini(
        "memory_map_deny",
        "assert_fits fixture: comma-separated 'warnings', 'notes' or codes that fail besides errors",
        default=_DEFAULT_DENY,
    )


@pytest.fixture
def assert_fits(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """``assert_fits(output_dir, **overrides)`` with the suite's budget from its ini options."""
    from .testing import assert_fits as check_fits

    raw_max = str(request.config.getini("memory_map_max_occupancy")).strip()
    try:
        max_occupancy = None if raw_max.lower() in ("", "none") else float(raw_max)
    except ValueError:
        raise pytest.UsageError(f"memory_map_max_occupancy = {raw_max!r} is not a percent (or 'none')") from None
    deny = [d.strip() for d in str(request.config.getini("memory_map_deny")).split(",") if d.strip()]

    def fits(output_dir: Any, **overrides: Any) -> Any:
        __tracebackhide__ = True
        kwargs = {"max_occupancy": max_occupancy, "deny": deny, **overrides}
        return check_fits(output_dir, **kwargs)

    return fits
