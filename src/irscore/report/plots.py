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
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from irscore import curves
from irscore.conventions import REFERENCE, name_under
from irscore.measures import RECALL_LEVELS
from irscore.results import Results

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
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
MARKERS = ("o", "s", "^", "D", "v")
GREY = "#999999"
SWAP = "⇄"
# A convention's mean further than this from the reference is drawn at the panel's edge.
FAR = 0.1
# The rank marked on one topic's precision-recall and ROC curves (what a reader sees).
TOP = 10


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Draw and save within the fixed style (rcParams are read at both times)."""
    with matplotlib.rc_context(STYLE):
        yield


def run_style(index: int) -> dict[str, str]:
    """Colour and marker of the run at position `index` in config order."""
    return {"color": COLOURS[index % len(COLOURS)], "marker": MARKERS[index % len(MARKERS)]}


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


def curves_figure(table: pd.DataFrame, levels: Sequence[float], interpolation: str) -> Figure:
    """Mean interpolated precision at the 11 recall levels, one line per run (table rows)."""
    figure = Figure(figsize=(6.4, 4.6), layout="constrained")
    axes = figure.subplots()
    for index, (run, row) in enumerate(table.iterrows()):
        label = f"{run} (11pt_avg {row['11pt_avg']:.4f})"
        axes.plot(levels, row.iloc[: len(levels)].to_numpy(float), label=label, **run_style(index))
    axes.set(
        xlim=(-0.02, 1.02),
        ylim=(0, 1.02),
        xticks=levels,
        xlabel="recall level",
        ylabel="interpolated precision (mean over topics)",
        title=f"11-point interpolated precision-recall, interpolation {interpolation}",
    )
    axes.legend(title="run", loc="upper right")
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


def pair_figure(ap: pd.DataFrame, label_topics: int) -> Figure:
    """Per-topic AP of two runs (columns x, y): scatter with the diagonal, the topics with
    the largest differences labelled; and the per-topic differences y - x, sorted."""
    x, y = ap.columns
    difference = (ap[y] - ap[x]).sort_values(ascending=False, kind="stable")
    sign = np.sign(difference)
    groups = {1.0: (f"{y} better", COLOURS[2]), -1.0: (f"{x} better", COLOURS[1])}
    groups[0.0] = ("equal", GREY)
    figure = Figure(figsize=(11, 5), layout="constrained")
    scatter, bars = figure.subplots(1, 2, width_ratios=(1, 1.3))
    scatter.plot([0, 1], [0, 1], color=GREY, ls=":", label="equal AP")
    for value, (name, colour) in groups.items():
        topics = difference.index[sign == value]
        scatter.scatter(
            ap.loc[topics, x], ap.loc[topics, y], s=14, color=colour, label=f"{name}: {len(topics)}"
        )
    largest = difference.abs().sort_values(ascending=False, kind="stable").index[:label_topics]
    for topic in largest:
        scatter.annotate(
            str(topic),
            (ap.at[topic, x], ap.at[topic, y]),
            xytext=(4, 4),
            textcoords="offset points",
            fontsize=8,
        )
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
    return figure


def _order(means: pd.Series) -> tuple[str, ...] | None:
    """Runs from best to worst mean (ties by name); None when a mean is missing."""
    if means.isna().any():
        return None
    # equal to 12 decimals: equal (sums in another order differ in the last bit)
    frame = pd.DataFrame({"run": means.index, "mean": means.to_numpy().round(12)})
    return tuple(frame.sort_values(["mean", "run"], ascending=[False, True])["run"])


def conventions_figure(means: pd.DataFrame, runs: Sequence[str]) -> Figure:
    """A dot plot per measure: each run's mean under every convention, the reference marked.

    `means` has columns measure (a label), convention, run, value, conventions in
    the order to draw. `SWAP` marks a convention under which the runs' order differs
    from the reference's. A mean more than `FAR` from its run's reference mean would
    squash every other row, so it is drawn at the panel's edge with its value written.
    """
    labels = list(dict.fromkeys(means["measure"]))
    conventions = list(dict.fromkeys(means["convention"]))
    columns = min(4, len(labels))
    rows = -(-len(labels) // columns)
    figure = Figure(
        figsize=(3.4 * columns + 2.2, 0.2 * len(conventions) * rows + 1.4), layout="constrained"
    )
    grid = figure.subplots(rows, columns, sharey=True, squeeze=False)
    y_of = pd.Series(np.arange(len(conventions))[::-1], index=conventions)
    for axes, label in zip(grid.flat, labels, strict=False):
        values = means[means["measure"] == label].pivot(
            index="convention", columns="run", values="value"
        )
        _dot_panel(axes, values.reindex(index=conventions, columns=list(runs)), y_of)
        axes.set_title(label)
    for axes in grid.flat[len(labels) :]:
        axes.set_visible(False)
    for axes in grid[:, 0]:
        axes.set_yticks(y_of.to_numpy(), conventions)
        for tick, convention in zip(axes.get_yticklabels(), conventions, strict=True):
            tick.set_fontweight("bold" if convention == "reference" else "normal")
    handles, names = grid.flat[0].get_legend_handles_labels()
    figure.legend(
        handles,
        names,
        title=(
            f"run (dotted line: its reference mean; {SWAP}: the runs' order differs from the "
            f"reference's; ▶ value: a mean more than {FAR} from the reference, off the scale)"
        ),
        loc="outside lower center",
        ncols=len(runs),
    )
    return figure


def _dot_panel(axes: Any, values: pd.DataFrame, y_of: pd.Series) -> None:
    """One measure: rows are conventions (y positions `y_of`), columns runs."""
    shift = values - values.loc["reference"]
    far = shift.abs() > FAR
    near = values.mask(far).to_numpy(float)
    lo, hi = (np.nanmin(near), np.nanmax(near)) if np.isfinite(near).any() else (0.0, 1.0)
    width = max(hi - lo, 0.01)
    axes.axhspan(y_of["reference"] - 0.5, y_of["reference"] + 0.5, color="#fff2cc", zorder=0)
    for index, run in enumerate(values.columns):
        look = run_style(index)
        axes.axvline(values.at["reference", run], color=look["color"], lw=0.7, ls=":")
        x = values[run].mask(far[run]).to_numpy(float)
        axes.plot(x, y_of.to_numpy(), ls="none", ms=5, mfc="none", label=run, **look)
    edges = {"<": (lo - 0.06 * width, "right"), ">": (hi + 0.06 * width, "left")}
    for convention in far.index[far.any(axis=1)]:
        off = values.loc[convention][far.loc[convention]]
        side = ">" if (shift.loc[convention][far.loc[convention]] > 0).all() else "<"
        x, align = edges[side]
        low, high = f"{off.min():.2f}", f"{off.max():.2f}"
        axes.plot([x], [y_of[convention]], ls="none", marker=side, ms=5, color="#333333")
        text = f"  {low}–{high}  " if low != high else f"  {low}  "
        axes.text(x, y_of[convention], text, ha=align, va="center", fontsize=7)
    to_axes = axes.get_yaxis_transform()
    reference_order = _order(values.loc["reference"])
    for convention in values.index:
        order = _order(values.loc[convention])
        if order is None:
            axes.text(0.01, y_of[convention], "n/a", transform=to_axes, va="center", fontsize=7)
        elif order != reference_order:
            axes.text(
                0.995,
                y_of[convention],
                SWAP,
                transform=to_axes,
                ha="right",
                va="center",
                color="#C00000",
                fontsize=10,
            )
    off_scale = shift.where(far)
    left = 0.5 if (off_scale < 0).any().any() else 0.1  # room for the values written
    right = 0.5 if (off_scale > 0).any().any() else 0.1
    axes.set(
        xlim=(lo - left * width, hi + right * width),
        xlabel="mean over topics",
        ylim=(-0.7, len(y_of) - 0.3),
    )
    axes.grid(axis="y", visible=False)


def convention_means(results: Results, labels: Mapping[str, str]) -> pd.DataFrame:
    """Each run's mean of each labelled measure under each convention (NaN when absent).

    Under an exponential-gain convention nDCG's lines are named ndcg_exp...;
    `conventions.name_under` gives the name each measure has under each convention.
    """
    rows = []
    for run in results.runs:
        for label, measure in labels.items():
            for convention in results.conventions:
                value = results.mean(run, name_under(measure, convention), convention.name)
                rows.append((label, convention.name, run, value))
    return pd.DataFrame(rows, columns=["measure", "convention", "run", "value"])


def write_conventions_plot(
    results: Results, labels: Mapping[str, str], png: str, svg: str, dpi: int
) -> None:
    """The convention audit as a dot plot."""
    with style():
        figure = conventions_figure(convention_means(results, labels), results.runs)
        save(figure, png, svg, dpi)


def write_pair_plot(
    results: Results, x: str, y: str, label_topics: int, png: str, svg: str, dpi: int
) -> None:
    """Per-topic AP of runs x and y under the reference convention, on the topics both
    evaluate."""
    ap = pd.concat(
        [results.per_topic(run, "map") for run in (x, y)],
        axis=1,
        join="inner",
    )
    with style():
        save(pair_figure(ap, label_topics), png, svg, dpi)


def write_curve_plots(results: Results, outputs: Mapping[str, str], dpi: int) -> None:
    """The 11-point curves as figures, one per interpolation rule (`outputs` keys RULE_png,
    RULE_svg)."""
    for rule, convention in results.interpolations.items():
        with style():
            figure = curves_figure(curves.curve_table(results, convention), RECALL_LEVELS, rule)
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
