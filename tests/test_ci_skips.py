"""Under CI=true a skip fails the run unless the test is marked allowed_skip with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()
TESTS = """
import pytest

def test_plain_skip():
    pytest.skip("no data here")

@pytest.mark.allowed_skip(reason="needs a GPU, which CI has not")
def test_allowed_skip():
    pytest.skip("no GPU")

@pytest.mark.allowed_skip
def test_allowed_without_reason():
    pytest.skip("why?")

@pytest.mark.xfail(reason="known bug")
def test_expected_failure():
    assert False

def test_passes():
    pass
"""


@pytest.mark.parametrize(
    ("ci", "outcomes"),
    [
        ("true", {"passed": 1, "skipped": 1, "failed": 2, "xfailed": 1}),
        ("", {"passed": 1, "skipped": 3, "failed": 0, "xfailed": 1}),
    ],
)
def test_skips_fail_only_under_ci_and_unless_allowed(pytester, monkeypatch, ci, outcomes):
    monkeypatch.setenv("CI", ci)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_sample=TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(**outcomes)
    if ci:
        result.stdout.fnmatch_lines(["*skipped under CI=true (no data here)*allowed_skip*"])
