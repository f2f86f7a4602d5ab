"""`irscore ARGV` run in the test's own process, its output captured: what the tests
that compare a surface with the command line call."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from os import PathLike

from irscore.cli import main


def called(*argv: str | PathLike) -> tuple[int, str, str]:
    """(status, stdout, stderr) of `irscore ARGV`."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def printed(*argv: str | PathLike) -> str:
    """What `irscore ARGV` prints, which must succeed (else its stderr is the failure)."""
    status, out, err = called(*argv)
    assert status == 0, err
    return out
