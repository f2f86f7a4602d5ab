"""One statistics story: the page's Compare marks significance after the correction
`irscore compare` applies by default (holm), and both say which correction it is."""

from __future__ import annotations

import re
from pathlib import Path

from cli_calls import printed as cli

from irscore.web import presets, worker

DATA = presets.PRESETS["interleave"]["data"]


def page(kind: str, request: dict, folder: Path) -> dict:
    """The page's job on `request`, its inputs written into `folder` as the server does."""
    folder.mkdir()
    return worker.run(kind, worker.write_inputs(request, folder), folder)


def test_the_page_applies_compare_s_default_correction_and_says_which(tmp_path):
    done = page("compare", {**DATA, "metric": "P_10", "B": "200"}, tmp_path / "job")["ok"]
    assert "--correction=holm" in done["command"]
    for name, key in (("qrels", "qrels"), ("run_a", "a"), ("run_b", "b")):
        (tmp_path / name).write_text(DATA[key])
    paths = [str(tmp_path / name) for name in ("qrels", "run_a", "run_b")]
    text = cli("compare", "-m", "P_10", "--B", "200", *paths)  # the CLI's defaults
    said = re.search(r"^p adjusted: (.*)$", text, re.M)[1]
    assert (
        done["correction"] == said == "Holm over each test's 1 p-value, one per measure; alpha 0.05"
    )
    marks = [t["significant"] for t in done["tests"]]
    assert marks == [t["p_adjusted"] < 0.05 for t in done["tests"]]


def test_the_page_s_correction_can_be_chosen(tmp_path):
    done = page(
        "compare", {**DATA, "metric": "map", "B": "200", "correction": "none"}, tmp_path / "a"
    )
    assert done["ok"]["correction"] == "none, each p-value as its test gives it; alpha 0.05"
    refused = page("compare", {**DATA, "metric": "map", "correction": "sidak"}, tmp_path / "b")
    assert (
        "correction: 'sidak' is not one of holm, bonferroni, bh, none"
        in refused["error"]["message"]
    )
