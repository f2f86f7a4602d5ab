"""The distributions behind one pair's resampling tests: where the p-value and the CI come from.

Left, the randomisation test: the mean difference under every (or B random)
sign flips of the per-topic differences, with the tails at least as extreme as
the observed mean, whose share is the p-value. Right, the paired bootstrap: the
resampled mean differences with the percentile CI. Both use the same patterns,
resamples and seed as the tests in `stats`, so the picture matches the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irscore.analysis import stats
from irscore.engine.reading import trec
from irscore.report import plots


def pair_values(table: pd.DataFrame, pair: tuple[str, str], measure: str):
    """The per-topic values of run A and run B on the topics both have, in topic order."""
    parts = []
    for run in pair:
        rows = table[
            (table["run"] == run) & (table["measure"] == measure) & (table["topic"] != "all")
        ]
        parts.append(rows.set_index(rows["topic"].astype(str))["value"])
    a, b = parts
    common = a.index.intersection(b.index).sort_values()
    return a[common].to_numpy(), b[common].to_numpy()


def figure(
    a: np.ndarray, b: np.ndarray, names: tuple[str, str], measure: str, B=None, seed=0, alpha=0.05
):
    """Two panels: the randomisation null distribution and the bootstrap distribution."""
    from matplotlib.figure import Figure

    rand_B = B or 100_000
    boot_B = B or 10_000
    flipped, boot = stats.resampled_means(a, b, rand_B, boot_B, seed)
    observed = float(np.mean(b - a))
    rand = stats.randomization(a, b, B=rand_B, seed=seed)
    bs = stats.bootstrap(a, b, B=boot_B, seed=seed, alpha=alpha)
    fig = Figure(figsize=(9.6, 4.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    bins = np.histogram_bin_edges(flipped, bins=60)
    threshold = abs(observed) - 1e-10 * float(np.mean(np.abs(b - a)))
    tail = np.abs(flipped) >= threshold
    left.hist(flipped[~tail], bins=bins, color=plots.GREY, label="sign flips")
    left.hist(
        flipped[tail],
        bins=bins,
        color=plots.COLOURS[1],
        label=f"as extreme as observed (p = {rand.p:.3g})",
    )
    left.axvline(observed, color=plots.COLOURS[0], label=f"observed {observed:+.4f}")
    left.set_title("randomisation test: mean difference under H0", fontsize=11)
    left.set_xlabel(f"mean {measure} difference, {names[1]} - {names[0]}")
    left.set_ylabel("patterns")
    _legend_below(left)
    right.hist(boot, bins=60, color=plots.COLOURS[5], label="bootstrap resamples")
    for edge in (bs.ci_low, bs.ci_high):
        right.axvline(edge, color=plots.COLOURS[1], linestyle="--")
    right.axvline(observed, color=plots.COLOURS[0], label=f"observed {observed:+.4f}")
    right.axvline(0.0, color="#000000", linewidth=0.8, label="no difference")
    right.plot(
        [],
        [],
        color=plots.COLOURS[1],
        linestyle="--",
        label=f"{1 - alpha:.0%} CI [{bs.ci_low:.4f}, {bs.ci_high:.4f}]",
    )
    right.set_title("paired bootstrap: resampled mean difference", fontsize=11)
    right.set_xlabel(f"mean {measure} difference, {names[1]} - {names[0]}")
    right.set_ylabel("resamples")
    _legend_below(right)
    return fig


def _legend_below(axes) -> None:
    """The panel's legend under its axes, where it covers no bar and no line."""
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=9, frameon=False)


def save(table, pair, measure, B, seed, alpha, path: str) -> None:
    """Draw the pair's figure to PNG or SVG (by the suffix), whole or not at all."""
    kind = path.rsplit(".", 1)[-1].lower()
    a, b = pair_values(table, pair, measure)
    metadata = plots.PNG_METADATA if kind == "png" else plots.SVG_METADATA
    with plots.style():
        fig = figure(a, b, pair, measure, B, seed, alpha)
        with trec.atomic_output(path) as tmp:
            fig.savefig(tmp, format=kind, dpi=150, metadata=metadata)
