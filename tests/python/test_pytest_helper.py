"""assert_fits, imported and as the pytest plugin's fixture, on a case that fits and one that does not."""

from __future__ import annotations

import textwrap

import pytest

from pto_memory_map import assert_fits
from pto_memory_map.testing import assert_fits as assert_fits_from_testing


def test_a_case_that_fits_passes_and_returns_the_report(fitting_case):
    report = assert_fits(fitting_case, max_occupancy=90, deny="warnings")
    assert report.passed and report.violations == []
    assert assert_fits is assert_fits_from_testing


def test_over_capacity_fails_with_the_findings_messages(over_capacity):
    with pytest.raises(AssertionError) as err:
        assert_fits(over_capacity)
    text = str(err.value)
    assert "the memory map does not fit (max_occupancy=90%, deny='warnings'): 2 violations" in text
    assert "spill: Vec: L17: overflow: c__tile ends at 192 KB" in text
    assert "spill: Vec: L17: max-occupancy: occupancy 104.3% exceeds 90%" in text
    # The function that fits is not blamed.
    assert "fits:" not in text


def test_a_failure_on_an_assumed_backend_says_how_to_name_the_chip():
    from conftest import ROOT

    # No ptoas/ beside this dump and no space only one chip has: Ascend910B is assumed.
    with pytest.raises(AssertionError) as err:
        assert_fits(ROOT / "tests" / "fixtures" / "find_overflow.py", deny=None)
    text = str(err.value)
    assert ": 2 violations\n" in text and "overflow" in text and "max-occupancy" in text
    assert "Ascend910B's capacities assumed" in text and "backend='Ascend950'" in text and "-b" in text
    # Naming the chip is heard: no such note then.
    with pytest.raises(AssertionError) as err:
        assert_fits(ROOT / "tests" / "fixtures" / "find_overflow.py", deny=None, backend="Ascend910B")
    assert "assumed" not in str(err.value)


def test_the_budget_is_the_callers(fitting_case):
    with pytest.raises(AssertionError, match="max-occupancy"):
        assert_fits(fitting_case, max_occupancy=10)
    # deny=None and no occupancy limit: only error findings fail.
    assert assert_fits(fitting_case, max_occupancy=None, deny=None).passed


def test_usage_errors_are_not_assertion_failures(fitting_case):
    import pto_memory_map as pmm

    with pytest.raises(pmm.UsageError):
        assert_fits(fitting_case, deny="bogus")


def test_the_plugins_fixture_in_a_users_suite(pytester, fitting_case, over_capacity):
    """The wheel registers the plugin under pytest11: a suite uses `assert_fits` without importing it."""
    pytester.makeini(
        """
        [pytest]
        memory_map_max_occupancy = 95
        """
    )
    pytester.makepyfile(
        test_kernels=textwrap.dedent(
            f"""
            def test_fits(assert_fits):
                assert assert_fits({str(fitting_case)!r}).passed

            def test_spills(assert_fits):
                assert_fits({str(over_capacity)!r})

            def test_allowed(assert_fits):
                assert_fits({str(over_capacity)!r}, allow="overflow", max_occupancy=None)
            """
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*max_occupancy=95%*2 violations*",
            "*spill: Vec: L17: overflow: c__tile ends at 192 KB*",
            "*max-occupancy: occupancy 104.3% exceeds 95%*",
        ]
    )
    # __tracebackhide__: the failure points at the user's line, not into the package.
    source = (pytester.path / "test_kernels.py").read_text().splitlines()
    line = next(
        i for i, text in enumerate(source, 1) if text.strip().startswith(f"assert_fits({str(over_capacity)!r})")
    )
    result.stdout.fnmatch_lines([f"test_kernels.py:{line}: AssertionError"])
    assert "pto_memory_map/testing.py" not in result.stdout.str()
