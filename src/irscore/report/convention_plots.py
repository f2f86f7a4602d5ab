"""The convention heatmap: for each measure, every configured convention's shift of each
run's mean from the reference, with the means in the cells and a mark where the runs'
order changes. Drawn in the style of `irscore.report.plots`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.colors
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from irscore.analysis.results import Results
from irscore.engine.ranking.conventions import name_under
from irscore.report.plots import save, style

SHIFTS = "RdBu"  # diverging: red = the convention lowers the mean, blue = raises it
SWAP = "⇄"
# Two panels a row and 7-point numbers in the cells, so that the figure reads at the
# width a report window shows it (about 1,000 pixels).
COLUMNS = 2
CELL_FONT = 7


def _order(means: pd.Series) -> tuple[str, ...] | None:
    """Runs from best to worst mean (ties by name); None when a mean is missing."""
    if means.isna().any():
        return None
    # equal to 12 decimals: equal (sums in another order differ in the last bit)
    frame = pd.DataFrame({"run": means.index, "mean": means.to_numpy().round(12)})
    return tuple(frame.sort_values(["mean", "run"], ascending=[False, True])["run"])


def conventions_figure(means: pd.DataFrame, runs: Sequence[str]) -> Figure:
    """A heatmap per measure: rows are conventions, columns runs, each cell the shift of the
    run's mean from its own reference mean (blue up, red down, on a scale that is linear
    below 0.001 and logarithmic above, so that shifts of 0.002 and of 0.7 both show).

    `means` has columns measure (a label), convention, run, value, conventions in the
    order to draw. The reference row holds each run's reference mean; shifts of 0.005 or
    more are written in their cell; grey: the convention does not define the measure;
    `SWAP` at a row's end: the runs' order by the measure differs from the reference's.
    """
    labels = list(dict.fromkeys(means["measure"]))
    conventions = list(dict.fromkeys(means["convention"]))
    columns = min(COLUMNS, len(labels))
    rows = -(-len(labels) // columns)
    panels = {}
    for label in labels:
        values = means[means["measure"] == label].pivot(
            index="convention", columns="run", values="value"
        )
        panels[label] = values.reindex(index=conventions, columns=list(runs))
    shifts = [(v - v.loc["reference"]).to_numpy(float) for v in panels.values()]
    finite = np.concatenate([np.abs(x[np.isfinite(x)]) for x in shifts] + [np.zeros(1)])
    limit = max(0.01, float(finite.max()))
    norm = matplotlib.colors.SymLogNorm(linthresh=1e-3, linscale=0.5, vmin=-limit, vmax=limit)
    figure = Figure(
        figsize=(columns * (0.3 * len(runs) + 0.5) + 2.4, rows * (0.19 * len(conventions) + 1.3)),
        layout="constrained",
    )
    grid = figure.subplots(rows, columns, sharey=True, squeeze=False)
    image = None
    for axes, label in zip(grid.flat, labels, strict=False):
        image = _shift_panel(axes, panels[label], norm)
        axes.set_title(label)
    for axes in grid.flat[len(labels) :]:
        axes.set_visible(False)
    for axes in grid[:, 0]:
        axes.set_yticks(np.arange(len(conventions)), conventions)
        for tick, convention in zip(axes.get_yticklabels(), conventions, strict=True):
            tick.set_fontweight("bold" if convention == "reference" else "normal")
    ticks = [t for t in (-1, -0.1, -0.01, -0.001, 0, 0.001, 0.01, 0.1, 1) if abs(t) <= limit]
    bar = figure.colorbar(image, ax=grid, location="right", shrink=0.6, ticks=ticks, aspect=40)
    bar.ax.set_yticklabels([f"{t:+g}" if t else "0" for t in ticks])
    bar.set_label("mean under the convention − reference mean")
    title = (
        "What each convention does to each run's mean (reference row: the mean itself; "
        f"grey: not defined; {SWAP}: the runs' order changes)"
    )
    # About 11 characters of the 10-point title per inch: wrapped to the figure's width.
    figure.suptitle(textwrap.fill(title, width=int(figure.get_figwidth() * 11)))
    return figure


def _shift_panel(axes: Any, values: pd.DataFrame, norm: Any) -> Any:
    """One measure: conventions as rows (top down), runs as columns; returns the image."""
    shift = (values - values.loc["reference"]).to_numpy(float)
    image = axes.imshow(
        np.ma.masked_invalid(shift), cmap=SHIFTS, norm=norm, aspect="auto", interpolation="nearest"
    )
    axes.set_facecolor("#d9d9d9")  # what a masked (undefined) cell shows
    reference = values.index.get_loc("reference")
    axes.add_patch(
        matplotlib.patches.Rectangle(
            (-0.5, reference - 0.5), values.shape[1], 1, color="#fff2cc", lw=0, zorder=2
        )
    )
    for column, run in enumerate(values.columns):
        mean = values.at["reference", run]
        text = "n/a" if np.isnan(mean) else f"{mean:.3f}".removeprefix("0")
        axes.text(column, reference, text, ha="center", va="center", fontsize=CELL_FONT, zorder=3)
    for row, column in zip(*np.nonzero(np.abs(np.nan_to_num(shift)) >= 0.005), strict=True):
        value = shift[row, column]
        dark = abs(norm(value) - 0.5) > 0.33
        axes.text(
            column,
            row,
            f"{value:+.2f}".replace("0.", "."),
            ha="center",
            va="center",
            fontsize=CELL_FONT,
            color="white" if dark else "black",
        )
    reference_order = _order(values.loc["reference"])
    for row, convention in enumerate(values.index):
        order = _order(values.loc[convention])
        if order is not None and order != reference_order:
            axes.text(
                values.shape[1] - 0.5 + 0.15,
                row,
                SWAP,
                ha="left",
                va="center",
                color="#C00000",
                fontsize=9,
                clip_on=False,
            )
    axes.set_xticks(np.arange(values.shape[1]), values.columns, rotation=90)
    axes.tick_params(length=0)
    axes.grid(visible=False)
    return image


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
    """The convention audit as a heatmap of shifts from the reference."""
    with style():
        figure = conventions_figure(convention_means(results, labels), results.runs)
        save(figure, png, svg, dpi)
