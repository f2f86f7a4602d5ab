"""ranx's own tests, read as data: every value its tests of `ranx.evaluate` and of its
metric functions assert (tests/data/ranx_0.3.21_tests.json says where they come from),
scored through `irscore.evaluate` with the metric in ranx's spelling.

One spelling differs: ranx's `rbp.95` is trec_eval's -m syntax in irscore
(`rbp.p=0.95`), where ranx's metric is written `rbp@95` (docs/measure-names.md)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import irscore

DATA = json.loads((Path(__file__).parent / "data" / "ranx_0.3.21_tests.json").read_text())
CASES = [dict(zip(DATA["columns"], case, strict=True)) for case in DATA["cases"]]

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _irscore_name(metric: str) -> str:
    return re.sub(r"^rbp\.", "rbp@", metric)


def test_the_suite_holds_every_value():
    # 37 calls of ranx.evaluate (test_std's aside) and 11 per-topic values
    assert len(CASES) == 48


@pytest.mark.parametrize("case", CASES, ids=[f"{c['metric']}-{c['topic']}" for c in CASES])
def test_irscore_gives_ranx_value(case):
    name = _irscore_name(case["metric"])
    qrels = {
        q: {d: int(g) for d, g in docs.items()} for q, docs in DATA["qrels"][case["qrels"]].items()
    }
    table = irscore.evaluate(qrels, DATA["runs"][case["run"]], measures=[name])
    values = dict(zip(table["topic"].astype(str), table["value"], strict=True))
    got = values.get(case["topic"], 0.0)
    assert math.isfinite(got)
    assert got == pytest.approx(case["expected"], abs=1e-12), (name, case["topic"])
