"""Every command the README and docs/ show with their output prints that output, on Cranfield.

The workflow's data and its bim, tfidf, bm25 and ql runs are made once for the session
(cranfield_runs, tests/conftest.py) and copied here (the README's examples read
results/data/qrels.txt and results/runs/{bim,tfidf,bm25,ql}.run); then each
`$ command` line of the README's sh blocks is run there and its stdout must be
the lines the README shows under it, byte for byte.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from doc_pages import everything

IRSCORE = Path(sys.executable).parent / "irscore"


def examples() -> list[tuple[str, str]]:
    """(command, expected stdout) of every `$ ` line in the sh blocks of the README and of
    every page of docs/."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", everything(), re.S):
        parts = re.split(r"^\$ (.*)\n", block, flags=re.M)
        found += list(zip(parts[1::2], parts[2::2], strict=True))
    return found


@pytest.fixture(scope="module")
def workdir(cranfield_runs, tmp_path_factory) -> Path:
    """A copy of the session's workflow folder with Cranfield's export and the bim, tfidf,
    bm25 and ql runs (tests/conftest.py): the examples write under its results/."""
    return cranfield_runs.copy(tmp_path_factory.mktemp("readme") / "workflow")


def test_the_readme_shows_examples_with_their_output():
    commands = [command for command, _ in examples()]
    assert len(commands) >= 6 and any(" audit " in c for c in commands), commands


@pytest.mark.workflow
@pytest.mark.parametrize(("command", "expected"), examples(), ids=[c for c, _ in examples()])
def test_readme_example_prints_what_the_readme_shows(workdir, command, expected):
    argv = shlex.split(command)
    assert argv[0] == ".venv/bin/irscore", "the docs' examples use the project's .venv"
    done = subprocess.run(
        [str(IRSCORE), *argv[1:]], cwd=workdir, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
