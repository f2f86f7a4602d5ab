"""Figures: the same numbers give the same bytes, with no dates, versions or random ids."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscore.report import plots
from irscore.report.settings import check_plots


def pair() -> pd.DataFrame:
    topics = pd.Index([str(t) for t in range(1, 21)], name="topic")
    x = np.linspace(0.05, 0.95, 20)
    return pd.DataFrame({"a": x, "b": x[::-1]}, index=topics)


def conventions() -> pd.DataFrame:
    rows = []
    for convention, shift in (("reference", 0.0), ("judged_only", 0.6), ("small", 0.01)):
        for run, mean in (("a", 0.2), ("b", 0.3)):
            value = mean + shift if (convention, run) != ("small", "b") else 0.15  # b drops below a
            rows.append(("MAP", convention, run, value))
    rows.append(("P@10", "reference", "a", 0.1))
    rows.append(("P@10", "reference", "b", np.nan))
    return pd.DataFrame(rows, columns=["measure", "convention", "run", "value"])


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plots.pair_figure(pair(), 3),
        lambda: plots.conventions_figure(conventions(), ["a", "b"]),
    ],
)
def test_figures_are_byte_identical_and_carry_no_date(tmp_path, draw):
    saved = []
    for attempt in ("one", "two"):
        with plots.style():
            plots.save(draw(), tmp_path / f"{attempt}.png", tmp_path / f"{attempt}.svg", dpi=60)
        saved.append({ext: (tmp_path / f"{attempt}.{ext}").read_bytes() for ext in ("png", "svg")})
    assert saved[0] == saved[1]
    svg, png = saved[0]["svg"], saved[0]["png"]
    assert b"<dc:date>" not in svg and b"Matplotlib" not in svg
    assert b"Software" not in png and b"matplotlib" not in png.lower()
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temporary file, then renamed


def test_check_plots_names_unknown_runs_and_self_pairs():
    good = {"example": {"run": "a", "topic": "1"}, "pairs": [["a", "b"]]}
    check_plots(good, ["a", "b"])
    with pytest.raises(ValueError, match="unknown run"):
        check_plots({**good, "pairs": [["a", "c"]]}, ["a", "b"])
    with pytest.raises(ValueError, match="with itself"):
        check_plots({**good, "pairs": [["a", "a"]]}, ["a", "b"])
