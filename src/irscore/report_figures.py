"""The workflow's figure jobs: the figures of all runs, and the figures of single topics.

Each job reads its long tables once and draws every figure of its kind: a
Python process with pandas and matplotlib takes about a second to start.
`outputs` maps the keys that workflow/rules/report_helpers.smk gives each file
to its path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from irscore import plots, trec
from irscore.data import documents_in
from irscore.evaluate import read_long_table
from irscore.tables import paths_under


def write_figures(
    evals: Sequence[str],
    outputs: Mapping[str, str],
    labels: Mapping[str, str],
    conventions: Mapping[str, Mapping[str, Any] | None],
    dpi: int,
) -> None:
    """The figures of all runs: the 11-point curves of each interpolation rule and the
    convention dot plot of the `labels` measures. Both draw means only."""
    long_tables = [read_long_table(path, means_only=True) for path in evals]
    plots.write_curve_plots(long_tables, conventions, paths_under(outputs, "curves_"), dpi)
    plots.write_conventions_plot(
        long_tables,
        labels,
        conventions,
        outputs["conventions_png"],
        outputs["conventions_svg"],
        dpi=dpi,
    )


def write_topic_figures(
    qrels: str,
    manifest: str,
    example_run: str,
    evals: Sequence[str],
    outputs: Mapping[str, str],
    plot_settings: Mapping[str, Any],
    conventions: Mapping[str, Mapping[str, Any] | None],
) -> None:
    """The figures of single topics: one topic's curves for the example run (config
    `plots.example`, its run file `example_run`), and a per-topic AP scatter for each
    pair of runs (`plots.pairs`), from the long tables of the runs named (`evals`)."""
    long_tables = {str(t["run"].iloc[0]): t for t in map(read_long_table, evals)}
    example = plot_settings["example"]
    dpi = plot_settings["dpi"]
    plots.write_topic_example(
        trec.read_qrels(qrels),
        trec.read_run(example_run),
        long_tables[example["run"]],
        documents_in(manifest),
        example["topic"],
        conventions,
        outputs["topic_example_png"],
        outputs["topic_example_svg"],
        dpi=dpi,
    )
    for x, y in plot_settings["pairs"]:
        plots.write_pair_plot(
            long_tables[x],
            long_tables[y],
            plot_settings["label_topics"],
            outputs[f"pair_{x}_vs_{y}_png"],
            outputs[f"pair_{x}_vs_{y}_svg"],
            dpi=dpi,
        )
