"""Every command and the Python API refuse an input without a record (an empty file,
blank lines or comments only) as `irscore evaluate` does, in its words: one check
(`input_checks.require_records`), read through `input_checks.read_checked` by the
commands that take frames. `irscore audit qrels empty.run` reported "MAP changes by
up to 0"; `interleave` ended in a traceback."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import irscore
from irscore.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n2 Q0 c 1 3.0 t\n"
NOTHING = {
    "empty": "",
    "blank": "\n \n\t\n",
    "comments": "# a run\n\n# nothing else\n",
}


def _commands(qrels: str, good: str, bad: str, tmp_path: Path) -> dict[str, list[str]]:
    """Each command, with `bad` where a run goes (and a good run beside it where two go)."""
    return {
        "evaluate": ["evaluate", qrels, bad],
        "evaluate several": ["evaluate", qrels, good, bad],
        "compare": ["compare", qrels, good, bad],
        "audit": ["audit", "--out", str(tmp_path / "audit"), qrels, good, bad],
        "explain": ["explain", "--topic", "1", qrels, bad],
        "interleave": ["interleave", qrels, good, bad],
        "pool": ["pool", "--from-runs", good, bad, "--depth", "2", str(tmp_path / "pool")],
        "pool judged": [
            "pool",
            "--from-runs",
            bad,
            "--qrels",
            qrels,
            "--depth",
            "2",
            str(tmp_path / "pool"),
        ],
    }


def _said(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return tmp_path


@pytest.mark.parametrize("kind", list(NOTHING))
def test_every_command_refuses_a_run_without_results_as_evaluate(files, kind, capsys):
    bad = files / kind
    bad.write_text(NOTHING[kind])
    refused = _said(["evaluate", str(files / "q"), str(bad)], capsys)
    lines = {"empty": "the run file is empty", "blank": "no results: its 3 lines are blank"}
    lines["comments"] = "no results: its 3 lines are blank"
    assert refused[0] == 2 and refused[2].startswith(f"irscore: error: {bad}: {lines[kind]}")
    commands = _commands(str(files / "q"), str(files / "r"), str(bad), files)
    for name, argv in commands.items():
        assert _said(argv, capsys) == refused, name
    assert not (files / "audit").exists() and not (files / "pool").exists()


@pytest.mark.parametrize("kind", list(NOTHING))
def test_every_command_refuses_qrels_without_judgments_as_evaluate(files, kind, capsys):
    bad = files / kind
    bad.write_text(NOTHING[kind])
    refused = _said(["evaluate", str(bad), str(files / "r")], capsys)
    assert refused[0] == 2 and refused[2].startswith(f"irscore: error: {bad}: ")
    good = str(files / "r")
    argvs = {
        "compare": ["compare", str(bad), good, good],
        "audit": ["audit", "--out", str(files / "audit"), str(bad), good],
        "explain": ["explain", "--topic", "1", str(bad), good],
        "interleave": ["interleave", str(bad), good, good],
        "pool judged": ["pool", "--from-runs", good, "--qrels", str(bad), str(files / "pool")],
    }
    for name, argv in argvs.items():
        assert _said(argv, capsys) == refused, name
    assert not (files / "audit").exists() and not (files / "pool").exists()


@pytest.mark.parametrize("kind", list(NOTHING))
def test_the_api_refuses_what_evaluate_refuses(files, kind, capsys):
    bad = files / kind
    bad.write_text(NOTHING[kind])
    _, _, err = _said(["evaluate", str(files / "q"), str(bad)], capsys)
    message = err.removeprefix("irscore: error: ").strip()
    q, good = str(files / "q"), str(files / "r")
    calls = {
        "evaluate": lambda: irscore.evaluate(q, str(bad)),
        "evaluate several": lambda: irscore.evaluate(q, {"a": good, "b": str(bad)}),
        "iter_evaluate": lambda: list(irscore.iter_evaluate(q, str(bad))),
        "compare": lambda: irscore.compare(q, good, str(bad)),
        "compare many": lambda: irscore.compare(q, {"a": good, "b": str(bad), "c": good}),
        "audit": lambda: irscore.audit(q, {"a": good, "b": str(bad)}, B=10),
    }
    for name, call in calls.items():
        with warnings.catch_warnings(), pytest.raises(irscore.InputError) as raised:
            warnings.simplefilter("ignore")
            call()
        assert str(raised.value) == message, name
