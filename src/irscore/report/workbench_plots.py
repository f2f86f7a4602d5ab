"""The workbench's figures: how each measure accumulates down one ranking (`irscore explain
--plot`), and how an interleaving verdict settles (`irscore interleave --plot`, the report's
interleaving section). The computations are the workbench's; the drawing is the report's.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from irscore.engine.reading import trec
from irscore.report import plots
from irscore.report.plots import COLOURS, GREY, MARKERS
from irscore.workbench.explain import ExplainError, Explanation
from irscore.workbench.interleave import Outcome

# The running values drawn, with their colours (COLOURS order).
CURVES = ("P@i", "recall@i", "AP@i", "nDCG@i", "nDCG exp@i", "ERR@i")
# nDCG with exponential gain, often equal to the linear one (grades 0 and 1): a wide dashed
# line with hollow markers under it, so that both stay visible.
UNDER = {"nDCG exp@i": {"linestyle": (0, (5, 3)), "linewidth": 3.0, "markersize": 8,
                        "markerfacecolor": "none", "zorder": 1}}  # fmt: skip


def explain_figure(e: Explanation) -> Figure:
    """How each measure accumulates down the ranking: its value at cut-off i, per rank i."""
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    axes = fig.add_subplot()
    x = e.ranks["rank"]
    for i, column in enumerate(CURVES):
        values = e.ranks[column]
        if values.isna().all():
            continue
        style = {"markersize": 4, "zorder": 2, **UNDER.get(column, {})}
        axes.plot(
            x,
            values,
            color=COLOURS[i],
            marker=(*MARKERS, "P")[i],  # six curves, six markers
            label=column.replace("@i", ""),
            **style,
        )
    relevant = x[e.ranks["relevant"] == "yes"]
    axes.plot(
        relevant,
        [-0.04] * len(relevant),
        "|",
        color="#000000",
        markersize=8,
        label="relevant document",
    )
    axes.set_xlim(0.5, len(x) + 0.5)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # ranks: whole numbers
    axes.set_ylim(-0.08, 1.04)
    axes.set_xlabel("rank i (the measure at cut-off i)")
    axes.set_ylabel("value")
    axes.set_title(f"topic {e.topic}: each measure down the ranking ({e.convention.name})")
    axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig


def save_explain_figure(e: Explanation, path: str) -> None:
    """Write the figure as PNG or SVG (by the file's suffix), whole or not at all."""
    kind = path.rsplit(".", 1)[-1].lower()
    if kind not in ("png", "svg"):
        raise ExplainError(f"--plot {path}: the file name must end in .png or .svg")
    metadata = plots.PNG_METADATA if kind == "png" else plots.SVG_METADATA
    with plots.style():
        fig = explain_figure(e)
        with trec.atomic_output(path) as tmp:
            fig.savefig(tmp, format=kind, dpi=150, metadata=metadata)


def interleave_figure(outcomes: Mapping[str, Outcome], name_a: str, name_b: str) -> Figure:
    """B's share of the decided impressions as they accumulate, one line per outcome
    (per click model), with the line of no preference."""
    fig = Figure(figsize=(9.6, 4.0), layout="constrained")
    axes = fig.add_subplot()
    for i, (label, o) in enumerate(outcomes.items()):
        x = np.arange(1, len(o.running_share) + 1)
        axes.plot(
            x,
            o.running_share,
            color=COLOURS[i % len(COLOURS)],
            marker=MARKERS[i % len(MARKERS)],
            markersize=4,
            markevery=0.1,  # markers at even spacing on screen (the x axis is logarithmic)
            label=label,
        )
    axes.axhline(0.5, color=GREY, linestyle="--", linewidth=1.0, label="no preference")
    axes.set_xscale("log")
    axes.set_ylim(0, 1)
    axes.set_xlabel("impressions")
    axes.set_ylabel("share of decided impressions won by B")
    axes.set_title(f"interleaving A = {name_a} with B = {name_b}")
    axes.legend(loc="lower right", title="click model")
    return fig


def save_interleave_figure(o: Outcome, model: str, name_a: str, name_b: str, path: str) -> None:
    """Write the settling figure as PNG or SVG (by the file's suffix), whole or not at all."""
    kind = path.rsplit(".", 1)[-1].lower()
    metadata = plots.PNG_METADATA if kind == "png" else plots.SVG_METADATA
    with plots.style():
        fig = interleave_figure({model: o}, name_a, name_b)
        with trec.atomic_output(path) as tmp:
            fig.savefig(tmp, format=kind, dpi=150, metadata=metadata)
