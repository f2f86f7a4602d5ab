"""The workflow's tables job: every table and results/summary.md in one process.

The tables need the long tables of every run (22 MB each on Cranfield), and a
Python process with pandas takes about a second to start, so one job reads
each input once and writes them all. `outputs` maps the keys that
workflow/rules/report_helpers.smk gives each file to its path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from irscore import audit, curves, published, summary, tables, ties, trec
from irscore.evaluate import read_long_table
from irscore.tables import paths_under


def write_tables(
    qrels: str,
    runs: Sequence[str],
    evals: Sequence[str],
    ideal: str,
    crosschecks: Sequence[str],
    outputs: Mapping[str, str],
    headline: Mapping[str, str],
    conventions: Mapping[str, Mapping[str, Any] | None],
    compare: Mapping[str, Any],
    figures: str | None = None,
    ir_measures_runs: Sequence[str] = (),
) -> None:
    """Every table and results/summary.md, from the qrels, the runs, their long tables
    (`evals`, in the runs' order), the ideal run's long table and every cross-check.

    `headline`, `conventions` and `compare` are the config's; `figures` is the published
    figures file (None: no comparison), `ir_measures_runs` the run files its
    experiments evaluated with ir_measures.
    """
    qrels_frame = trec.read_qrels(qrels)
    long_tables = [read_long_table(path) for path in evals]
    ideal_table = read_long_table(ideal, means_only=True)  # only its headline row is shown
    tables.write_headline([*long_tables, ideal_table], headline, paths_under(outputs, "reference_"))
    tiebreak = paths_under(outputs, "tiebreak_")
    ties.write_tie_table(
        qrels_frame, [trec.read_run(path) for path in runs], long_tables, conventions, tiebreak
    )
    curve_tables = paths_under(outputs, "curves_")
    curves.write_curve_tables(long_tables, conventions, curve_tables)
    audit.write(long_tables, headline, conventions, paths_under(outputs, "audit_"))
    audit.write_comparisons(long_tables, conventions, compare, paths_under(outputs, "compare_"))
    appendix = [outputs["compare_md"]]
    if figures:
        published.write_published(
            figures,
            qrels,
            ir_measures_runs,
            {str(t["run"].iloc[0]): t for t in long_tables},
            paths_under(outputs, "published_"),
        )
        appendix.append(outputs["published_comparison_md"])
    rules = list(tables.interpolation_conventions(conventions))
    summary.write(
        qrels_frame,
        [*long_tables, ideal_table],
        crosschecks,
        headline,
        outputs["summary"],
        tiebreak=tiebreak["md"],
        curves=[curve_tables[f"{rule}_md"] for rule in rules],
        interpolations=rules,
        audit=outputs["audit_md"],
        appendix=appendix,
    )
