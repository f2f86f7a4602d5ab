"""Figures: the same numbers give the same bytes, with no dates, versions or random ids."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from irscore.report import convention_plots, plots
from irscore.report.settings import check_plots
from irscore.report.styles import PALETTE, run_styles

STYLES = run_styles(["a", "b"])


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
        lambda: plots.pair_figure(pair(), 3, STYLES),
        lambda: convention_plots.conventions_figure(conventions(), ["a", "b"]),
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


def test_pair_labels_overlap_nothing_and_stay_inside():
    # Eight topics in a tight cluster near the frame, all labelled: every label must
    # find its own place inside the axes.
    topics = pd.Index([str(t) for t in range(100, 120)], name="topic")
    x = np.r_[np.full(8, 0.99), np.linspace(0.1, 0.5, 12)]
    y = np.r_[np.linspace(0.60, 0.67, 8), np.linspace(0.1, 0.5, 12)]
    with plots.style():
        figure = plots.pair_figure(pd.DataFrame({"a": x, "b": y}, index=topics), 8, STYLES)
    scatter = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    for text in scatter.texts:
        text.update_positions(renderer)
    boxes = [Text.get_window_extent(text, renderer) for text in scatter.texts]  # no leader
    assert sorted(text.get_text() for text in scatter.texts) == [str(t) for t in range(100, 108)]
    frame = scatter.get_window_extent(renderer)
    for i, box in enumerate(boxes):
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 <= frame.y1
        for other in boxes[i + 1 :]:
            assert plots._area(box, other) == 0


def test_curves_axis_fits_the_data_and_names_the_ceiling():
    levels = np.linspace(0, 1, 11)
    table = pd.DataFrame(
        [[*np.linspace(0.58, 0.1, 11).tolist(), 0.3], [*np.linspace(0.5, 0.0, 11).tolist(), 0.2]],
        index=pd.Index(["a", "b"], name="run"),
        columns=[*(f"{level:.1f}" for level in levels), "11pt_avg"],
    )
    with plots.style():
        figure = plots.curves_figure(table, levels, "trec_eval9", STYLES)
    axes = figure.axes[0]
    # top: ceil((0.58 + 0.02) * 10) / 10 = 0.6, plus 0.01 of headroom
    assert axes.get_ylim()[1] == pytest.approx(0.61)
    assert any("ceiling (ideal run): 1.0" in text.get_text() for text in axes.texts)
    lines = {line.get_label().split()[0]: line for line in axes.get_lines()}
    assert lines["a"].get_color() == STYLES["a"].color  # each run in its own style
    assert lines["b"].get_marker() == STYLES["b"].marker


def test_convention_heatmap_marks_swaps_and_writes_shifts():
    with plots.style():
        figure = convention_plots.conventions_figure(conventions(), ["a", "b"])
    panel = figure.axes[0]  # MAP: rows reference, judged_only, small
    texts = {(t.get_position(), t.get_text()) for t in panel.texts}
    swaps = [position[1] for position, text in texts if text == convention_plots.SWAP]
    assert swaps == [2]  # under "small", b (0.15) drops below a (0.21): row 2
    shifts = {text for _, text in texts}
    # judged_only: 0.2 + 0.6 - 0.2 = +0.60 for both runs; small: a +0.01, b 0.15 - 0.3
    assert {"+.60", "+.01", "-.15", ".200", ".300"} <= shifts
    image = panel.get_images()[0].get_array()
    assert image[0].tolist() == [0.0, 0.0]  # the reference row: no shift


def test_a_run_added_to_the_config_changes_no_other_runs_style():
    with open("config.yaml", encoding="utf-8") as stream:
        config = yaml.safe_load(stream)
    runs = [*config["retrievers"], *(config.get("runs") or {})]
    before = run_styles(runs)
    assert len({style.color for style in before.values()}) == len(runs)  # <= 12: no repeat
    for added in range(1, 40):
        names = [*runs, *(f"new_{i}" for i in range(added))]
        after = run_styles(names)
        assert {run: after[run] for run in runs} == before
        distinct = len(set(after.values()))
        assert distinct == len(names)  # every run drawn differently
        if len(names) <= len(PALETTE):
            assert len({style.color for style in after.values()}) == len(names)


def test_a_runs_style_comes_from_its_name_and_earlier_runs_keep_theirs():
    alone = run_styles(["bm25"])["bm25"]
    assert run_styles(["bm25", "y", "z"])["bm25"] == alone
    # a run whose name hashes to bm25's colour, listed first, keeps it; bm25 moves on
    rival = next(
        f"r{i}" for i in range(1000) if run_styles([f"r{i}"])[f"r{i}"].color == alone.color
    )
    moved = run_styles([rival, "bm25"])
    assert moved[rival].color == alone.color != moved["bm25"].color


def test_convention_heatmap_title_fits_a_narrow_figure():
    means = conventions()
    means = means[means["measure"] == "MAP"]
    means = pd.concat([means.assign(measure=f"M{i}") for i in range(8)])  # 8 panels, 2 runs
    with plots.style():
        figure = convention_plots.conventions_figure(means, ["a", "b"])
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
    title = figure._suptitle.get_window_extent(canvas.get_renderer())
    assert title.x0 >= 0 and title.x1 <= figure.bbox.width
