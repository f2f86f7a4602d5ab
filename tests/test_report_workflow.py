"""Two clean runs of the workflow give the same bytes, and the report reads in Chromium.

Takes the whole workflow's run on the tiny corpus of test_workflow.py (with two of the
configured retrievers, to stay fast; the session's tiny_workflow, tests/conftest.py),
runs it again from clean in a copy, and compares every file under results/. Then
writes the Snakemake report as `make report` does and opens it in headless Chromium
(skipped, saying so, when no Chromium is installed): the start page, and every entry
clicked open as a reader does (tests/browser.py), must display, fit a 1400-pixel window
and keep all text in view. IRSCORE_REPORT_SHOTS=FOLDER keeps the screenshots of each entry there.
benchmarks/reproducibility.py runs the whole configured workflow twice on Cranfield.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import browser
import matplotlib.image
import pytest
import yaml
from test_workflow import snakemake

from irscore.report import layout

BROWSERS = browser.NAMES
CHROMIUM_FLAGS = (*browser.HEADLESS, "--window-size=1400,1000", "--virtual-time-budget=5000")


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
def runs(tiny_workflow, tmp_path_factory) -> tuple[Path, list[dict[str, bytes]]]:
    """The tiny workflow's directory, and its results/ after each of two clean runs: the
    session's `make results` (tiny_workflow, tests/conftest.py; without the log of the
    runner's own, which holds times), then Snakemake again from clean in a copy."""
    workdir = tiny_workflow.copy(tmp_path_factory.mktemp("report") / "workflow")
    # The first run's files as if it had run here: the export's log names its folder.
    here = (bytes(tiny_workflow.workdir), bytes(workdir))
    first = {k: v.replace(*here) for k, v in tree(tiny_workflow.workdir / "results").items()}
    del first["logs/workflow.log"]  # the runner's: Snakemake alone writes no such file
    shutil.rmtree(workdir / "results")
    pins = yaml.safe_load((workdir / "config.yaml").read_text())["cranfield_sha256"]
    snakemake(workdir, tiny_workflow.raw, pins)
    second = tree(workdir / "results")
    made = subprocess.run(  # what `make report` runs
        [sys.executable, "-m", "irscore.pipeline.workflow_runner", "-d", str(workdir), "--report"],
        env={**os.environ, "CRANFIELD_DIR": str(tiny_workflow.raw)},  # the pinned copy
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    (workdir / "make-report.out").write_text(made.stdout)
    return workdir, [first, second]


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
    found = browser.find()
    if found is None:
        pytest.skip(f"no headless Chromium to open the report (looked for {', '.join(BROWSERS)})")
    return found


def shots(tmp_path: Path, name: str) -> Path:
    """Where the screenshots go: IRSCORE_REPORT_SHOTS/NAME, else a temporary folder."""
    kept = os.environ.get("IRSCORE_REPORT_SHOTS")
    return Path(kept) / name if kept else tmp_path / name


@pytest.mark.workflow
def test_make_report_says_one_line_per_step_and_where_the_report_is(runs):
    lines = (runs[0] / "make-report.out").read_text().splitlines()
    assert len(lines) == 3
    assert re.fullmatch(r"\[1/2\] \d+ results, each with its caption", lines[0])
    assert lines[1].startswith("[2/2] the workflow: its rule graph")
    assert re.fullmatch(
        r"Done: results/report.html \(\d+\.\d MiB; the full log: results/logs/report.log\)",
        lines[2],
    )
    assert "Adding " in (runs[0] / "results" / "logs" / "report.log").read_text()


@pytest.mark.workflow
def test_every_entry_of_the_report_displays_and_fits_a_1400_pixel_window(runs, tmp_path):
    """Each entry, clicked open in the report: an HTML page or a figure (never a download),
    no sideways scrolling, no text outside the window, figures at a size that reads; and
    each category lists its entries in reading order."""
    config = yaml.safe_load((runs[0] / "config.yaml").read_text())
    with browser.Browser(chromium(), tmp_path / "profile") as chrome:
        found, missed, listed = browser.walk_report(
            chrome,
            runs[0] / "results" / "report.html",
            1400,
            1000,
            shots(tmp_path, "1400x1000"),
            dpi=config["plots"]["dpi"],
        )
    assert not missed, f"entries never shown: {missed}"
    assert len(found) == 1 + len(report_results(runs[0] / "results" / "report.html"))
    problems = {entry: p for entry, p in found.items() if p}
    assert not problems, "\n".join(f"{entry}: {p}" for entry, p in problems.items())
    curves = [row.split(" ", 2)[1] for row in listed[layout.CURVES]]
    assert list(dict.fromkeys(curves)) == ["trec_eval9", "trec_eval10", "textbook", "one"]
    assert [row.split(".")[0] for row in listed[layout.CONCLUSIONS]] == ["1", "2"]


@pytest.mark.workflow
def test_the_start_page_shows_its_title_in_an_800_by_1200_window(runs, tmp_path):
    with browser.Browser(chromium(), tmp_path / "profile") as chrome:
        found, _, _ = browser.walk_report(
            chrome,
            runs[0] / "results" / "report.html",
            800,
            1200,
            shots(tmp_path, "800x1200"),
            start_only=True,
        )
        title = chrome.evaluate("document.querySelector('h1.title').getBoundingClientRect().top")
    assert found["start page"] == []
    assert title >= 0


DOWNLOAD = re.compile(r'<a download="([^"]+)" href="data:[^;]+;charset=utf-8;base64,([^"]+)">')


@pytest.mark.workflow
def test_each_page_of_the_report_holds_its_other_formats_as_downloads(runs):
    """Every HTML entry's download links hold the bytes of the files they name."""
    results = runs[0] / "results"
    pages = {
        path: entry
        for path, entry in report_results(results / "report.html").items()
        if entry["mime_type"] == "text/html"
    }
    assert pages
    for path in pages:
        text = (runs[0] / path).read_text(encoding="utf-8")
        links = DOWNLOAD.findall(text)
        assert links, f"{path}: no download links"
        for name, data in links:
            same_name = [p.read_bytes() for p in results.rglob(name)]
            assert base64.b64decode(data) in same_name, f"{path}: {name} is not the file"
    tiebreak = dict(DOWNLOAD.findall((results / "tables" / "tiebreak.html").read_text()))
    assert sorted(tiebreak) == ["tiebreak.csv", "tiebreak.md", "tiebreak.tex"]


@pytest.mark.workflow
def test_a_download_link_in_a_report_entry_saves_the_file(runs, tmp_path):
    """The report shows an entry in a frame of its own: a click there still downloads."""
    saved = tmp_path / "downloads"
    saved.mkdir()
    with browser.Browser(chromium(), tmp_path / "profile") as chrome:
        chrome.allow_downloads(saved)
        chrome.window(1400, 1000)
        chrome.open((runs[0] / "results" / "report.html").resolve().as_uri())
        chrome.wait_for("document.querySelector('nav') !== null")
        chrome.evaluate(f"{browser.NAV_LINK % json.dumps(layout.TIES)}.click()")
        chrome.wait_for("document.querySelector('nav tbody tr') !== null")
        chrome.evaluate("document.querySelector('nav tbody tr a').click()")
        frame = browser.wait_for_frame(chrome)
        chrome.evaluate("document.querySelector('a[download=\"tiebreak.csv\"]').click()", frame)
        deadline = time.monotonic() + 20
        while not (saved / "tiebreak.csv").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    expected = (runs[0] / "results" / "tables" / "tiebreak.csv").read_bytes()
    assert (saved / "tiebreak.csv").read_bytes() == expected


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
    report = (runs[0] / "results" / "report.html").resolve()
    flags = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
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
