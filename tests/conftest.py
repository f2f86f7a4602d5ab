"""Shared fixtures: inline TREC texts through the real readers; the Cranfield export.

Under CI=true a skipped test fails the run unless it is marked
`@pytest.mark.allowed_skip(reason=...)`: CI has everything every test needs, so
a skip there means a check silently did not run.
"""

import json
import os
import subprocess
import sys
import textwrap
from itertools import count
from pathlib import Path

import pytest
import yaml

from irscore.engine.conventions import Convention
from irscore.engine.evaluate import evaluate
from irscore.engine.trec import read_qrels, read_run

pytest_plugins = ["pytester"]  # tests/test_ci_skips.py runs pytest on small test files


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "allowed_skip(reason): may skip under CI=true, for the reason given "
        "(any other skip fails the run there)",
    )


def pytest_collection_modifyitems(items):
    """Modules with a `workflow` test first, each kept whole and in order: under
    pytest-xdist the Snakemake runs start early and the short tests fill the end,
    instead of one long run holding up the last minutes while the other worker idles."""
    slow = {item.path for item in items if item.get_closest_marker("workflow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Turn a skip under CI=true into a failure, unless the test allows it with a reason."""
    report = yield
    if not report.skipped or hasattr(report, "wasxfail") or os.environ.get("CI") != "true":
        return report
    allowed = item.get_closest_marker("allowed_skip")
    if allowed is not None and (allowed.kwargs.get("reason") or allowed.args):
        return report
    why = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    why = why.removeprefix("Skipped: ")
    report.outcome = "failed"
    report.longrepr = (
        f"skipped under CI=true ({why}); CI must provide what this test needs, "
        "or mark it @pytest.mark.allowed_skip(reason=...)"
    )
    return report


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


@pytest.fixture(scope="session")
def cranfield(tmp_path_factory):
    """The Cranfield export (qrels.txt, queries.tsv, docs.jsonl) from the local copy.

    Exported in a subprocess: ir_datasets binds its home folder at import, so
    one test process cannot load two homes.
    """
    repo = Path(__file__).resolve().parents[1]
    raw = os.environ.get("CRANFIELD_DIR") or str(repo.parent / "shared" / "data" / "cranfield")
    if not Path(raw, "cranqrel").is_file():
        pytest.skip(f"no local Cranfield copy at {raw}")
    folder = tmp_path_factory.mktemp("cranfield")
    pins = yaml.safe_load((repo / "config.yaml").read_text())["cranfield_sha256"]
    code = (
        "import sys, json; from irscore.pipeline.data import export_cranfield as e; "
        "f = sys.argv[1]; "
        "e(qrels=f + '/qrels.txt', queries=f + '/queries.tsv', docs=f + '/docs.jsonl', "
        "manifest=f + '/manifest.json', cranfield_dir=sys.argv[2], sha256=json.loads(sys.argv[3]))"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(folder), raw, json.dumps(pins)], check=True, timeout=120
    )
    return folder
