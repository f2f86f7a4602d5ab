"""trec_eval's own test suite (`make quicktest`, 9.0.8's and 10.0's) through `irscore
evaluate`, byte for byte.

The inputs, expected outputs and commands are NIST's (tests/golden/quicktest-*/,
each folder's README says where from); 10.0's commands run under `--compat
trec_eval10`.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from irscore.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
VERSIONS = {"9.0.8": [], "10.0": ["--compat", "trec_eval10"]}


def _cases() -> list:
    """One case per line of each version's commands.tsv: (version, arguments, output)."""
    cases = []
    for version in VERSIONS:
        folder = GOLDEN / f"quicktest-{version}"
        for number, line in enumerate((folder / "commands.tsv").read_text().splitlines(), 1):
            output, arguments = line.split("\t")
            case_id = f"{version}-{number}-{output}"
            cases.append(pytest.param(version, arguments.split(), output, id=case_id))
    return cases


CASES = _cases()


def test_both_quicktests_are_all_here():
    """11 commands in 9.0.8's Makefile, 15 in 10.0's; every file they name is present."""
    assert [sum(c.values[0] == v for c in CASES) for v in VERSIONS] == [11, 15]
    for version, arguments, output in (c.values for c in CASES):
        folder = GOLDEN / f"quicktest-{version}"
        assert (folder / output).is_file()
        assert (folder / arguments[-1]).is_file() and (folder / arguments[-2]).is_file()


@pytest.mark.parametrize(("version", "arguments", "output"), CASES)
def test_quicktest_command(version, arguments, output):
    """The command's output is the expected file's bytes."""
    folder = GOLDEN / f"quicktest-{version}"
    paths = [str(folder / a) if (folder / a).is_file() else a for a in arguments]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["evaluate", *VERSIONS[version], *paths])
    assert status == 0, err.getvalue()
    assert out.getvalue() == (folder / output).read_text()
