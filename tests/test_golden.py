"""`irscore evaluate` prints what trec_eval prints, byte for byte, on the golden inputs.

The expected files are trec_eval's own output, 9.0.8's and 10.0's (tests/golden/
README.md gives each command); every measure of -m all_trec is compared, relstring
included, per topic (-q) on `small`, and in the summary on `medium` and `boundary`
(whose means test the order in which trec_eval adds the topics).
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from irscore.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
COMMAND = re.compile(r"^- `trec_eval(?:-10\.0)? (.*) (\S+)\.qrels \S+\.run > (\S+)`$")


def _commands() -> list[tuple[list[str], str, str]]:
    """(flags, input name, output file) of each golden file, from the README."""
    found = []
    for line in (GOLDEN / "README.md").read_text().splitlines():
        match = COMMAND.match(line)
        if match:
            found.append((match.group(1).split(), match.group(2), match.group(3)))
    return found


COMMANDS = _commands()


def test_every_golden_file_has_its_command():
    assert {output for _, _, output in COMMANDS} == {p.name for p in GOLDEN.glob("*.txt")}
    assert len(COMMANDS) == 22


@pytest.fixture(params=["plain", "engine"])
def scorer(request, monkeypatch):
    """Which path scores: the plain-Python one where it serves the flags (small files),
    or always the engine."""
    if request.param == "engine":
        from irscore.engine.small import plain_evaluate

        monkeypatch.setattr(plain_evaluate, "trec_eval_text", lambda *args, **kwargs: None)
    return request.param


@pytest.mark.parametrize(("flags", "name", "output"), COMMANDS, ids=[c[2] for c in COMMANDS])
def test_output_equals_trec_eval(flags, name, output, scorer):
    """trec_eval 9.0.8's output with the same flags; 10.0's with --compat trec_eval10,
    from both scoring paths."""
    _check_output(flags, name, output)


def _check_output(flags, name, output, run=None):
    """`irscore evaluate FLAGS` on a golden input (or `run` in its stead) prints the
    golden output."""
    qrels, run = GOLDEN / f"{name}.qrels", run or GOLDEN / f"{name}.run"
    if output.endswith(".trec_eval-10.0.txt"):
        flags = ["--compat", "trec_eval10", *flags]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["evaluate", *flags, str(qrels), str(run)])
    assert status == 0, err.getvalue()
    expected = (GOLDEN / output).read_text()
    assert out.getvalue() == expected


@pytest.mark.parametrize(("flags", "name", "output"), COMMANDS, ids=[c[2] for c in COMMANDS])
def test_output_equals_trec_eval_scored_two_topics_at_a_time(flags, name, output, monkeypatch):
    """The same bytes when the text is written a chunk of topics at a time (two topics a
    chunk here, 8,192 by default) and the means are carried from chunk to chunk."""
    from irscore.engine import evaluate
    from irscore.engine.small import plain_evaluate

    monkeypatch.setattr(evaluate, "CHUNK_TOPICS", 2)
    monkeypatch.setattr(plain_evaluate, "trec_eval_text", lambda *args, **kwargs: None)
    _check_output(flags, name, output)


@pytest.mark.parametrize("shuffled", [False, True], ids=["as_written", "lines_shuffled"])
@pytest.mark.parametrize(("flags", "name", "output"), COMMANDS, ids=[c[2] for c in COMMANDS])
def test_output_equals_trec_eval_streamed_by_topic(
    flags, name, output, shuffled, monkeypatch, tmp_path
):
    """The same bytes when the run is read a block of ~2,000 bytes of whole topics at a
    time (`irscore.cli.streamed`): as written (grouped by topic, so topics run across
    block edges), and with its lines shuffled (seeded), which is read again through
    the spill; trec_eval's output does not depend on the order of a run's lines
    (it sorts them, and the runs have one tag)."""
    import random

    from irscore.cli import evaluate, streamed
    from irscore.engine.small import plain_evaluate

    monkeypatch.setattr(evaluate, "STREAM_FROM", 0)
    monkeypatch.setattr(streamed, "BLOCK", 2000)
    monkeypatch.setattr(plain_evaluate, "trec_eval_text", lambda *args, **kwargs: None)
    run = GOLDEN / f"{name}.run"
    if shuffled:
        lines = run.read_text().splitlines(keepends=True)
        random.Random(7).shuffle(lines)
        run = tmp_path / run.name
        run.write_text("".join(lines))
    _check_output(flags, name, output, run)


def test_inputs_are_what_the_generator_writes():
    import importlib.util

    spec = importlib.util.spec_from_file_location("golden_generate", GOLDEN / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    collections = {n: generate.generate(*p) for n, p in generate.INPUTS.items()}
    collections["boundary"] = generate.boundary()
    for name, (qrels, run) in collections.items():
        assert (GOLDEN / f"{name}.qrels").read_text() == qrels
        assert (GOLDEN / f"{name}.run").read_text() == run
