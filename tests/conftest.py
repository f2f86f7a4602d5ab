"""Shared fixture: evaluate inline TREC texts through the real readers."""

import textwrap
from itertools import count

import pytest

from irscore.conventions import Convention
from irscore.evaluate import evaluate
from irscore.trec import read_qrels, read_run


@pytest.fixture
def scores(tmp_path):
    """scores(qrels_text, run_text, spec=None, **convention) -> {(topic, measure): value}."""
    serial = count()

    def run(qrels_text, run_text, spec=None, **convention):
        n = next(serial)
        qrels_path, run_path = tmp_path / f"qrels{n}.txt", tmp_path / f"run{n}.txt"
        qrels_path.write_text(textwrap.dedent(qrels_text), encoding="utf-8")
        run_path.write_text(textwrap.dedent(run_text), encoding="utf-8")
        table = evaluate(
            read_qrels(qrels_path), read_run(run_path), [Convention(**convention)], spec
        )
        return dict(zip(zip(table.topic, table.measure, strict=True), table.value, strict=True))

    return run
