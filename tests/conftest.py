"""Shared fixtures: inline TREC texts through the real readers; the Cranfield export.

Under CI=true a skipped test fails the run unless it is marked
`@pytest.mark.allowed_skip(reason=...)`: CI has everything every test needs, so
a skip there means a check silently did not run.
"""

import fcntl
import json
import os
import shutil
import subprocess
import sys
import textwrap
from itertools import count
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml

from irscore.engine.evaluate import evaluate
from irscore.engine.ranking.conventions import Convention
from irscore.engine.reading.trec import read_qrels, read_run

pytest_plugins = ["pytester"]  # tests/test_ci_skips.py runs pytest on small test files


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "allowed_skip(reason): may skip under CI=true, for the reason given "
        "(any other skip fails the run there)",
    )
    config.addinivalue_line(
        "markers", "slow: a module whose tests take tens of seconds in all (started early)"
    )


def pytest_collection_modifyitems(items):
    """Modules with a `workflow` test first, then the `slow` modules, each kept whole and
    in order: `make test` hands whole modules to its workers (--dist loadfile, in this
    order), so the long ones start early and the short ones fill the end, instead of one
    long module holding up the last minutes while the other worker idles."""
    workflow = {item.path for item in items if item.get_closest_marker("workflow")}
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (item.path not in workflow, item.path not in slow))


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


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder `name` that build(folder) fills, built once for the whole session: by
    whichever pytest-xdist worker asks first, while the others wait for it. Shared, so
    read it, never change it (copy it first)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # all workers'
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


def copy_finished(workdir: Path, to: Path) -> Path:
    """A copy of a finished workflow folder that Snakemake sees up to date: file times
    kept, its records under .snakemake/ included."""
    return Path(shutil.copytree(workdir, to, symlinks=True))


class TinyWorkflow(NamedTuple):
    """A finished `make results` on the tiny corpus: shared, so read it, never change it."""

    raw: Path  # the raw corpus (CRANFIELD_DIR of the run)
    workdir: Path  # the workflow folder
    output: str  # what `make results` printed

    def copy(self, to: Path) -> Path:
        """A copy of the finished folder that Snakemake sees up to date."""
        return copy_finished(self.workdir, to)


@pytest.fixture(scope="session")
def tiny_workflow(tmp_path_factory) -> TinyWorkflow:
    """`make results` from clean on the tiny corpus of test_workflow.py with two
    retrievers (test_report_workflow.two_retrievers), its pins in config.yaml: run once
    for the whole session."""
    from test_report_workflow import two_retrievers
    from test_workflow import copy_workflow, write_corpus

    def build(root: Path) -> None:
        pins = write_corpus(root / "raw")
        workdir = root / "clean"
        copy_workflow(workdir)
        two_retrievers(workdir)
        config = yaml.safe_load((workdir / "config.yaml").read_text())
        config["cranfield_sha256"] = pins
        (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        runner = [sys.executable, "-m", "irscore.pipeline.workflow_runner"]
        done = subprocess.run(  # what `CRANFIELD_DIR=raw make results` runs
            [*runner, "-d", str(workdir), "--cores", "2"],
            env={**os.environ, "CRANFIELD_DIR": str(root / "raw")},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        (root / "make-results.out").write_text(done.stdout)

    root = built_once(tmp_path_factory, "tiny-workflow", build)
    return TinyWorkflow(root / "raw", root / "clean", (root / "make-results.out").read_text())


# The README's examples read these; the workbench's compare all four.
CRANFIELD_RUNS = ("bim", "tfidf", "bm25", "ql")


class CranfieldRuns(NamedTuple):
    """Snakemake's first jobs on Cranfield: shared, so read it, never change it."""

    workdir: Path  # the workflow folder

    def copy(self, to: Path) -> Path:
        """A copy of the folder that Snakemake sees up to date."""
        return copy_finished(self.workdir, to)


@pytest.fixture(scope="session")
def cranfield_runs(tmp_path_factory) -> CranfieldRuns:
    """The workflow (as configured) in a folder whose results/ holds Cranfield's export
    (results/data/) and the runs of CRANFIELD_RUNS, made by Snakemake from the local
    copy: run once for the whole session."""
    from test_data import PINS, local_copy
    from test_workflow import copy_workflow, snakemake

    def build(workdir: Path) -> None:
        workdir.rmdir()
        copy_workflow(workdir)
        targets = ["results/data/qrels.txt", *(f"results/runs/{r}.run" for r in CRANFIELD_RUNS)]
        snakemake(workdir, Path(local_copy()), PINS, *targets)

    return CranfieldRuns(built_once(tmp_path_factory, "cranfield-runs", build))
