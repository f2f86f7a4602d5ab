"""Figures of the report, drawn with matplotlib's Agg renderer in one fixed style.

Every figure is a plain `Figure` (no pyplot state, no interactive backend), in
DejaVu Sans (shipped with matplotlib) at fixed sizes. `save` writes PNG and SVG
without dates, software versions or random ids, so the same numbers give the
same bytes. Figures take numbers (DataFrames) and return a `Figure`; the
`write_*` functions take loaded long tables (and runs), compute the numbers
and save the figures.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.colors
import matplotlib.patches
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from irscore.analysis import curves
from irscore.analysis.results import Results
from irscore.engine.measures import RECALL_LEVELS
from irscore.engine.ranking.conventions import REFERENCE
from irscore.report.styles import Style

STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "figure.dpi": 100,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.4,
    "svg.fonttype": "path",
    "svg.hashsalt": "irscore",
    # Each figure asks for its own layout; `save` then drops it (see there).
    "figure.autolayout": False,
    "figure.constrained_layout.use": False,
}
PNG_METADATA = {"Software": None}
SVG_METADATA = {"Date": None, "Creator": None}
# Colour-blind-safe (Okabe & Ito) colours and markers, given to runs in config order;
# 7 colours and 5 markers make 35 distinct runs.
# The series of one topic's figure (not runs: those take report.styles).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
MARKERS = ("o", "s", "^", "D", "v")
GREY = "#999999"
# The rank marked on one topic's precision-recall and ROC curves (what a reader sees).
TOP = 10


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Draw and save within the fixed style (rcParams are read at both times)."""
    with matplotlib.rc_context(STYLE):
        yield


def save(figure: Figure, png: str, svg: str, dpi: int) -> None:
    """Write the figure as PNG (at `dpi`) and SVG, each whole or not at all.

    The layout is computed once, while the PNG is drawn, and kept for the SVG: both
    files show the same layout, and the costliest step of saving is not done twice.
    Without a layout engine (None, not "none"), matplotlib also skips the extra draw
    it makes before saving so that a layout can run.
    """
    for path, kind, metadata in ((png, "png", PNG_METADATA), (svg, "svg", SVG_METADATA)):
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                figure.savefig(out, format=kind, dpi=dpi, metadata=metadata)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        figure.set_layout_engine(None)


def fitted_top(values: np.ndarray, ceiling: float = 1.0) -> float:
    """The top of a [0, top] axis for `values` <= `ceiling`: the next 0.1 above the
    largest value with a margin, capped at the ceiling (the data, not the ceiling,
    sets the scale, so lines that stop near 0.6 are not squeezed into its lower half)."""
    finite = values[np.isfinite(values)]
    largest = float(finite.max()) if finite.size else ceiling
    return min(ceiling, np.ceil((largest + 0.02) * 10) / 10)


def curves_figure(
    table: pd.DataFrame, levels: Sequence[float], interpolation: str, styles: Mapping[str, Style]
) -> Figure:
    """Mean interpolated precision at the 11 recall levels, one line per run (table rows),
    in each run's own style; the legend lists the runs by 11pt_avg, best first, beside
    the axes; the y axis stops above the data and says where the ceiling is."""
    figure = Figure(figsize=(8.6, 4.8), layout="constrained")
    axes = figure.subplots()
    ranked = table.sort_values("11pt_avg", ascending=False, kind="stable")
    for run, row in ranked.iterrows():
        label = f"{run} ({row['11pt_avg']:.4f})"
        axes.plot(
            levels,
            row.iloc[: len(levels)].to_numpy(float),
            label=label,
            ms=4.5,
            **styles[str(run)].kwargs(),
        )
    top = fitted_top(table.iloc[:, : len(levels)].to_numpy(float))
    axes.set(
        xlim=(-0.02, 1.02),
        ylim=(0, top + 0.01),
        xticks=levels,
        xlabel="recall level",
        ylabel="interpolated precision (mean over topics)",
        title=f"11-point interpolated precision-recall, interpolation {interpolation}",
    )
    if top < 1.0:
        axes.text(
            0.99,
            0.98,
            f"axis cut at {top:.1f}; ceiling (ideal run): 1.0 at every level",
            transform=axes.transAxes,
            ha="right",
            va="top",
            fontsize=7.5,
            color="#555555",
            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "#cccccc"},
        )
    figure.legend(title="run (11pt_avg)", loc="outside right upper")
    return figure


def topic_figure(
    curve: pd.DataFrame,
    envelope: pd.DataFrame,
    points: pd.DataFrame,
    auc: float,
    title: str,
) -> Figure:
    """Left: one topic's precision and recall at every rank (the sawtooth), its interpolated
    envelope and the 11 points of each interpolation rule. Right: its ROC curve."""
    figure = Figure(figsize=(11, 4.6), layout="constrained")
    pr, roc = figure.subplots(1, 2)
    pr.plot(curve["recall"], curve["precision"], color=GREY, lw=1.0, label="at each rank")
    relevant = curve[curve["relevant"]]
    pr.plot(
        relevant["recall"],
        relevant["precision"],
        ls="none",
        marker=".",
        color="#333333",
        label="at a relevant document",
    )
    pr.plot(
        envelope["recall"],
        envelope["precision"],
        drawstyle="steps-pre",
        color=COLOURS[0],
        label="interpolated: max precision at recall ≥ r",
    )
    for index, rule in enumerate(points.columns):
        pr.plot(
            points.index,
            points[rule],
            ls="none",
            marker=MARKERS[index + 1],
            mfc="none",
            ms=7 - 1.5 * index,
            color=COLOURS[index + 1],
            label=f"11 points, {rule}",
        )
    top = curve.iloc[: min(TOP, len(curve))]
    mark = {"ls": "none", "marker": "*", "ms": 11, "color": "#000000", "zorder": 5}
    pr.plot(top["recall"].iloc[-1:], top["precision"].iloc[-1:], label=f"after rank {TOP}", **mark)
    pr.set(
        xlim=(-0.02, 1.02),
        ylim=(0, 1.05),
        xlabel="recall",
        ylabel="precision",
        title="precision-recall at every rank",
    )
    pr.legend(loc="upper right")
    retrieved_fpr = np.r_[0.0, curve["fpr"].to_numpy()]
    retrieved_tpr = np.r_[0.0, curve["recall"].to_numpy()]
    roc.plot(retrieved_fpr, retrieved_tpr, color=COLOURS[0], label=f"retrieved (AUC {auc:.3f})")
    roc.plot(
        [retrieved_fpr[-1], 1.0],
        [retrieved_tpr[-1], 1.0],
        color=COLOURS[0],
        ls="--",
        label="not retrieved, in random order",
    )
    roc.plot([0, 1], [0, 1], color=GREY, ls=":", label="random ranking")
    roc.plot(top["fpr"].iloc[-1:], top["recall"].iloc[-1:], label=f"after rank {TOP}", **mark)
    roc.set(
        xlim=(-0.02, 1.02),
        ylim=(0, 1.05),
        xlabel="false positive rate (non-relevant documents passed / all non-relevant)",
        ylabel="true positive rate (recall)",
        title="ROC curve of the same ranking",
    )
    roc.legend(loc="lower right")
    figure.suptitle(title)
    return figure


def pair_figure(ap: pd.DataFrame, label_topics: int, styles: Mapping[str, Style]) -> Figure:
    """Per-topic AP of two runs (columns x, y): scatter with the diagonal, the topics with
    the largest differences labelled where no label or point hides them; and the
    per-topic differences y - x, sorted. A topic a run wins is drawn in that run's colour."""
    x, y = ap.columns
    difference = (ap[y] - ap[x]).sort_values(ascending=False, kind="stable")
    sign = np.sign(difference)
    groups = {
        1.0: (f"{y} better", styles[str(y)].color),
        -1.0: (f"{x} better", styles[str(x)].color),
        0.0: ("equal", GREY),
    }
    figure = Figure(figsize=(11, 5), layout="constrained")
    scatter, bars = figure.subplots(1, 2, width_ratios=(1, 1.3))
    scatter.plot([0, 1], [0, 1], color=GREY, ls=":", label="equal AP")
    for value, (name, colour) in groups.items():
        topics = difference.index[sign == value]
        scatter.scatter(
            ap.loc[topics, x], ap.loc[topics, y], s=14, color=colour, label=f"{name}: {len(topics)}"
        )
    largest = difference.abs().sort_values(ascending=False, kind="stable").index[:label_topics]
    scatter.scatter(
        ap.loc[largest, x],
        ap.loc[largest, y],
        s=55,
        facecolors="none",
        edgecolors="#333333",
        lw=0.8,
    )  # a ring round each labelled topic
    scatter.set(
        xlim=(-0.02, 1.02),
        ylim=(-0.02, 1.02),
        aspect="equal",
        xlabel=f"AP of {x}",
        ylabel=f"AP of {y}",
        title=f"per-topic AP, {len(ap)} topics ({len(largest)} largest differences labelled)",
    )
    scatter.legend(title="topics", loc="upper left")
    # Sorted, the topics of each sign are contiguous: one filled step per sign draws the
    # same unit-wide bars as 225 rectangles would, with no seams between them.
    edges = np.arange(len(difference) + 1) - 0.5
    for value, (_, colour) in groups.items():
        where = np.flatnonzero(sign.to_numpy() == value)
        if len(where):
            span = slice(where[0], where[-1] + 1)
            bars.stairs(
                difference.to_numpy()[span],
                edges[span.start : span.stop + 1],
                baseline=0.0,
                fill=True,
                color=colour,
                lw=0,
            )
    bars.axhline(0, color="#333333", lw=0.8)
    mean = float(difference.mean()) if len(difference) else 0.0
    bars.axhline(mean, color="#333333", ls="--", lw=0.8, label=f"mean difference {mean:+.4f}")
    bars.set(
        xlim=(-0.5, max(len(difference), 1) - 0.5),
        xlabel="topics, sorted by difference",
        ylabel=f"AP of {y} − AP of {x}",
        title=f"per-topic AP difference, {y} − {x}",
    )
    bars.legend(loc="upper right")
    # Labels go in last, once the layout has fixed where the axes are.
    FigureCanvasAgg(figure)  # a renderer to measure the labels with
    figure.get_layout_engine().execute(figure)
    figure.set_layout_engine(None)
    place_labels(scatter, [(str(t), ap.at[t, x], ap.at[t, y]) for t in largest])
    return figure


# Where a label may sit around its point, in points: right or left of it, at rising
# distances, nearest first; past the first ring a line leads to the point.
LABEL_OFFSETS = sorted(
    ((dx, dy) for dx in (4, -4, 24, -24, 44, -44) for dy in (3, -11, 13, -21, 23, -31, 33, -41)),
    key=lambda offset: (abs(offset[0]) + abs(offset[1] + 4), offset[0] < 0),
)
LEADER = {"arrowstyle": "-", "color": "#777777", "lw": 0.5, "shrinkA": 0, "shrinkB": 3}


def place_labels(axes: Any, labels: Sequence[tuple[str, float, float]]) -> None:
    """Write each label (text, x, y) beside its point, at the first offset where it
    overlaps no label already placed nor any labelled point and stays inside the axes
    (when none is free, where it hides the least: other labels weigh most)."""
    renderer = axes.figure.canvas.get_renderer()
    frame = axes.get_window_extent(renderer)
    points = [axes.transData.transform((px, py)) for _, px, py in labels]
    dot = 3.0  # half a marker's width, in pixels at the figure's dpi
    dots = [Bbox.from_extents(qx - dot, qy - dot, qx + dot, qy + dot) for qx, qy in points]
    placed: list[Any] = []
    for text, px, py in labels:
        best = None
        for dx, dy in LABEL_OFFSETS:
            label = axes.annotate(
                text,
                (px, py),
                xytext=(dx, dy),
                textcoords="offset points",
                ha="left" if dx >= 0 else "right",
                fontsize=8,
                arrowprops=LEADER if abs(dx) > 4 or dy not in (3, -11) else None,
            )
            label.update_positions(renderer)
            box = Text.get_window_extent(label, renderer)  # the text's, not its line's
            # Hiding a label is worst, then leaving the axes, then covering a point.
            cost = 100 * sum(_area(box, other) for other in placed)
            cost += 10 * (box.width * box.height - _area(box, frame))
            cost += sum(_area(box, other) for other in dots)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, label, box)
            else:
                label.remove()
            if cost == 0:
                break
        placed.append(best[2])


def _area(one: Any, two: Any) -> float:
    """The area two boxes share."""
    width = min(one.x1, two.x1) - max(one.x0, two.x0)
    height = min(one.y1, two.y1) - max(one.y0, two.y0)
    return max(width, 0.0) * max(height, 0.0)


def write_pair_plot(
    results: Results,
    x: str,
    y: str,
    label_topics: int,
    styles: Mapping[str, Style],
    png: str,
    svg: str,
    dpi: int,
) -> None:
    """Per-topic AP of runs x and y under the reference convention, on the topics both
    evaluate."""
    ap = pd.concat(
        [results.per_topic(run, "map") for run in (x, y)],
        axis=1,
        join="inner",
    )
    with style():
        save(pair_figure(ap, label_topics, styles), png, svg, dpi)


def write_curve_plots(
    results: Results, styles: Mapping[str, Style], outputs: Mapping[str, str], dpi: int
) -> None:
    """The 11-point curves as figures, one per interpolation rule (`outputs` keys RULE_png,
    RULE_svg)."""
    for rule, convention in results.interpolations.items():
        with style():
            table = curves.curve_table(results, convention)
            figure = curves_figure(table, RECALL_LEVELS, rule, styles)
            save(figure, outputs[f"{rule}_png"], outputs[f"{rule}_svg"], dpi)


def write_topic_example(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    results: Results,
    name: str,
    documents: int,
    topic: str,
    png: str,
    svg: str,
    dpi: int,
) -> None:
    """One topic of run `name` (`run` its ranking, `documents` the collection's size): its
    precision-recall sawtooth with the envelope, and its ROC."""
    curve = curves.topic_curve(qrels, run, topic, documents)
    points = curves.topic_points(results, name, topic)
    ap = results.per_topic(name, "map")[topic]
    relevant = int(((qrels["topic"] == topic) & (qrels["grade"] >= REFERENCE.rel_level)).sum())
    title = (
        f"run {name}, topic {topic}: {relevant} relevant documents in the qrels, "
        f"{len(curve)} retrieved, AP {ap:.4f}"
    )
    with style():
        figure = topic_figure(curve, curves.envelope(curve), points, curves.roc_auc(curve), title)
        save(figure, png, svg, dpi)
