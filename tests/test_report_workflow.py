"""Two clean runs of the workflow give the same bytes, and the report renders in Chromium.

Runs the whole workflow on the tiny corpus of test_workflow.py (with two of the
configured retrievers, to stay fast), deletes results/ and runs it again, and
compares every file under results/. Then writes the Snakemake report and opens
it in headless Chromium (skipped, saying so, when no Chromium is installed):
the page must render the workflow description. benchmarks/reproducibility.py
runs the whole configured workflow twice on Cranfield.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import pytest
import yaml
from test_workflow import copy_workflow, snakemake, write_corpus

from irscore.report import layout

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
    if "interleaving" in config:
        config["interleaving"]["pairs"] = [["tfidf", "bm25"]]
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


def report_results(report: Path) -> dict[str, dict]:
    """The report's own index of the files it holds (its `results` JSON): captions,
    MIME types and the files themselves as data URIs."""
    text = report.read_text(encoding="utf-8")
    start = text.rindex("var results = {") + len("var results = ")
    return json.JSONDecoder().raw_decode(text, start)[0]


def chromium() -> str:
    """A headless Chromium, or skip saying why (.ci/run installs one)."""
    browser = next(filter(None, map(shutil.which, BROWSERS)), None)
    if browser is None:
        pytest.skip(f"no headless Chromium to open the report (looked for {', '.join(BROWSERS)})")
    return browser


@pytest.mark.workflow
def test_report_has_no_docutils_messages_and_a_caption_for_every_file(runs):
    report = runs[0] / "results" / "report.html"
    text = report.read_text(encoding="utf-8")
    for sign in ("System Message", "WARNING/", "ERROR/", "SEVERE/"):
        assert sign not in text, f"a docutils message in the report: {sign}"
    captions = {name: entry["caption"] for name, entry in report_results(report).items()}
    assert captions and all(len(caption) > 200 for caption in captions.values())
    # a template variable the rule lacks renders as nothing: no empty strong/literal
    for name, caption in captions.items():
        assert "<strong></strong>" not in caption and "****" not in caption, name


@pytest.mark.workflow
def test_report_renders_in_headless_chromium(runs, tmp_path):
    browser = chromium()
    report = (runs[0] / "results" / "report.html").resolve()
    flags = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*flags, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    # The description and the categories exist as elements only once the report's
    # JavaScript has run (in the file they are JSON strings).
    assert '<h1 class="title">irscore: reproducible offline evaluation' in dom
    for category in (layout.HEADLINE, layout.CURVES, layout.CONVENTIONS, layout.CONCLUSIONS):
        assert f"<span>{category}</span>" in dom
    assert "System Message" not in dom
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [*flags, f"--screenshot={screenshot}", report.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    pixels = matplotlib.image.imread(screenshot)
    assert pixels.shape[:2] == (1000, 1400) and pixels.std() > 0.1  # not a blank page


@pytest.mark.workflow
def test_every_figure_of_the_report_displays_in_headless_chromium(runs, tmp_path):
    """Each figure the report holds, loaded by Chromium from the report's own data URI,
    has a natural size > 0: it decodes and displays."""
    browser = chromium()
    figures = {
        name: entry["data_uri"]
        for name, entry in report_results(runs[0] / "results" / "report.html").items()
        if entry["mime_type"].startswith("image/")
    }
    # PNG and SVG of 3 curves, conventions, example, one pair, one interleaving pair
    assert len(figures) == 2 * 7
    images = "".join(
        f'<img id="{index}" src="{uri}">' for index, uri in enumerate(figures.values())
    )
    page = tmp_path / "figures.html"
    page.write_text(
        f"<!DOCTYPE html><html><body>{images}<pre id='sizes'></pre><script>"
        "window.onload = () => { document.getElementById('sizes').textContent = "
        "JSON.stringify([...document.images].map(i => [i.naturalWidth, i.naturalHeight])); };"
        "</script></body></html>",
        encoding="utf-8",
    )
    flags = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    sizes = json.loads(dom.split('<pre id="sizes">')[1].split("</pre>")[0])
    shown = dict(zip(figures, sizes, strict=True))
    blank = [name for name, (width, height) in shown.items() if not (width > 0 and height > 0)]
    assert not blank, f"figures that do not display: {blank}"
