"""Shared paths for the Python package's tests (run by tests/wheel.sh against the installed wheel)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def demo_case() -> Path:
    """The bundled example: a case folder (passes_dump/ and ptoas/) with two functions."""
    return ROOT / "examples" / "demo_case"


@pytest.fixture
def over_capacity(tmp_path: Path) -> Path:
    """A hand-written case whose `spill` runs 8 KiB past Vec; copied so no test writes beside it."""
    case = tmp_path / "py_over_capacity_case"
    shutil.copytree(ROOT / "tests" / "fixtures" / "py_over_capacity_case", case)
    return case


@pytest.fixture
def fitting_case() -> Path:
    """A case on Ascend950 with no error or warning finding and every space below 90%."""
    return ROOT / "tests" / "fixtures" / "fx_a5_case"
