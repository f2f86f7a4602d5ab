"""The Python API's arguments of a wrong type are a TypeError (a value out of range a
ValueError) whose message starts with the argument's name, raised before anything is
read: `irscore.evaluate(..., measures=[5])` was an AttributeError from str.partition."""

from __future__ import annotations

import pytest

import irscore

QRELS = {"q1": {"a": 1, "b": 0}}
RUN = {"q1": {"a": 1.0, "b": 0.5}}
RUNS = {"x": RUN, "y": RUN}


def _evaluate(**kw):
    return irscore.evaluate(QRELS, RUN, **kw)


def _iter(**kw):
    return list(irscore.iter_evaluate(QRELS, RUN, **kw))


def _compare(**kw):
    return irscore.compare(QRELS, RUN, RUN, **kw)


def _compare_many(**kw):
    return irscore.compare(QRELS, RUNS, **kw)


def _audit(**kw):
    return irscore.audit(QRELS, RUNS, **kw)


CASES = [
    # (call, argument, value, error)
    (_evaluate, "measures", [5], TypeError),
    (_evaluate, "measures", [None], TypeError),
    (_evaluate, "measures", ["map", 3.5], TypeError),
    (_evaluate, "measures", 5, TypeError),
    (_evaluate, "measures", b"map", TypeError),
    (_evaluate, "convention", 5, TypeError),
    (_evaluate, "convention", None, TypeError),
    (_evaluate, "convention", ["reference", 5], TypeError),
    (_evaluate, "per_topic", "no", TypeError),
    (_iter, "measures", [5], TypeError),
    (_iter, "convention", ["reference"], TypeError),  # one convention here
    (_iter, "rows", "many", TypeError),
    (_iter, "rows", 0, ValueError),
    (_iter, "rows", True, TypeError),
    (_compare, "measures", [None], TypeError),
    (_compare, "tests", 5, TypeError),
    (_compare, "tests", ["t", 5], TypeError),
    (_compare, "B", "many", TypeError),
    (_compare, "B", 0, ValueError),
    (_compare, "B", 2.5, TypeError),
    (_compare, "seed", "x", TypeError),
    (_compare, "alpha", "0.05", TypeError),
    (_compare, "alpha", 1.5, ValueError),
    (_compare, "correction", 5, TypeError),
    (_compare, "convention", 5, TypeError),
    (_compare_many, "baseline", 5, TypeError),
    (_compare_many, "all_pairs", "yes", TypeError),
    (_audit, "out", 5, TypeError),
    (_audit, "convention", "reference", TypeError),  # a mapping name -> changes
    (_audit, "B", None, TypeError),
    (_audit, "alpha", None, TypeError),
    (_audit, "measures", [5], TypeError),
    (_audit, "tests", [None], TypeError),
]


@pytest.mark.parametrize(
    ("call", "argument", "value", "error"),
    CASES,
    ids=[f"{c.__name__.strip('_')}-{a}-{v!r}" for c, a, v, _ in CASES],
)
def test_a_wrong_argument_is_named(call, argument, value, error):
    with pytest.raises(error) as raised:
        call(**{argument: value})
    assert type(raised.value) is error  # not InputError or another subclass
    assert str(raised.value).startswith(f"{argument}: ")


@pytest.mark.parametrize(
    ("call", "argument", "value"),
    [
        (lambda v: irscore.compare(QRELS, v, RUN), "run_a", 5),
        (lambda v: irscore.compare(QRELS, RUN, v), "run_b", 5),
        (lambda v: irscore.audit(QRELS, v), "runs", 5),
        (lambda v: irscore.write_run(v, RUN), "path", None),
        (lambda v: irscore.write_run(v, RUN), "path", 5),
    ],
)
def test_a_wrong_positional_argument_is_named(call, argument, value):
    with pytest.raises(TypeError, match=rf"^{argument}: expected "):
        call(value)


def test_a_streamed_result_that_is_no_triple_names_its_row():
    with pytest.raises(irscore.InputError, match=r"^results row 1: expected \(qid, docno, score\)"):
        list(irscore.iter_evaluate(QRELS, iter([("q1", "a", 1.0), 5])))


def test_right_types_pass():
    """The checks let through what the API documents: names as a string, a list, a
    tuple or a set; a Convention; numpy integers for B and seed."""
    import numpy as np

    from irscore.engine.ranking.conventions import Convention

    table = irscore.evaluate(QRELS, RUN, measures=("map",), convention=Convention())
    assert table["measure"].unique().tolist() == ["map"]
    got = irscore.compare(QRELS, RUN, RUN, measures={"map"}, tests="t", B=np.int64(10), seed=0)
    assert got["measure"].tolist() == ["map"]
