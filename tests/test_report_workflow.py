"""Two clean runs of the workflow give the same bytes, and the report renders in Chromium.

Runs the whole workflow on the tiny corpus of test_workflow.py (with two of the
configured retrievers, to stay fast), deletes results/ and runs it again, and
compares every file under results/. Then writes the Snakemake report and opens
it in headless Chromium (skipped, saying so, when no Chromium is installed):
the page must render the workflow description. benchmarks/reproducibility.py
runs the whole configured workflow twice on Cranfield.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import pytest
import yaml
from test_workflow import copy_workflow, snakemake, write_corpus

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
    "--virtual-time-budget=5000",
)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` and its bytes."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def two_retrievers(workdir: Path) -> None:
    """Keep tfidf and bm25 of the configured retrievers, and only what refers to them."""
    path = workdir / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["retrievers"] = {name: config["retrievers"][name] for name in ("tfidf", "bm25")}
    config["plots"].update(example={"run": "bm25", "topic": "2"}, pairs=[["tfidf", "bm25"]])
    for key, value in (("runs", {}), ("published", None)):
        if key in config:
            config[key] = value
    if "compare" in config:
        config["compare"]["pairs"] = [["tfidf", "bm25"]]
    path.write_text(yaml.safe_dump(config, sort_keys=False))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, list[dict[str, bytes]]]:
    """The tiny workflow's directory, and its results/ after each of two clean runs."""
    root = tmp_path_factory.mktemp("report")
    pins = write_corpus(root / "raw")
    workdir = root / "workflow"
    copy_workflow(workdir)
    two_retrievers(workdir)
    trees = []
    for _ in range(2):
        shutil.rmtree(workdir / "results", ignore_errors=True)
        snakemake(workdir, root / "raw", pins)
        trees.append(tree(workdir / "results"))
    snakemake(workdir, root / "raw", pins, "--report", "results/report.html")
    return workdir, trees


@pytest.mark.workflow
def test_two_clean_runs_give_the_same_bytes(runs):
    one, two = runs[1]
    assert sorted(one) == sorted(two)
    differ = sorted(name for name in one if one[name] != two[name])
    assert not differ, f"different bytes in two clean runs: {differ}"
    for name in ("tables/tiebreak.md", "tables/curves_textbook.csv", "plots/conventions.svg"):
        assert name in one
    assert "| ideal |" in one["tables/reference.md"].decode()


@pytest.mark.workflow
def test_report_renders_in_headless_chromium(runs, tmp_path):
    browser = next(filter(None, map(shutil.which, BROWSERS)), None)
    if browser is None:
        pytest.skip(f"no headless Chromium to open the report (looked for {', '.join(BROWSERS)})")
    report = (runs[0] / "results" / "report.html").resolve()
    flags = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*flags, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    # The description and the categories exist as elements only once the report's
    # JavaScript has run (in the file they are JSON strings).
    assert '<h1 class="title">irscore: reproducible offline evaluation' in dom
    for category in ("1. Headline", "3. Curves", "5. Conventions"):
        assert f"<span>{category}</span>" in dom
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [*flags, f"--screenshot={screenshot}", report.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    pixels = matplotlib.image.imread(screenshot)
    assert pixels.shape[:2] == (1000, 1400) and pixels.std() > 0.1  # not a blank page
