"""The report of a set of runs: the tables and figures every user of it writes, from one code.

`write_run_tables` and `write_run_figures` make what any set of runs gets (ties,
11-point curves, the convention audit, paired tests, the convention plot); the
workflow's three report jobs (`tables_job`, `figures_job`, `topic_figures_job`)
add the headline table, the published figures and summary.md, and `irscore
audit` (report.own_runs) adds its terminal summary. Each job reads its long
tables once and draws everything of its kind: a Python process with pandas and
matplotlib takes about a second to start. `outputs` maps the keys of
report.layout to paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from irscore.analysis import curves, ties
from irscore.analysis.audit import COMPARISON_COLUMNS, write_comparisons
from irscore.analysis.audit import write as write_audit
from irscore.analysis.results import Results
from irscore.engine.ranking.prepare import Prepared, prepare
from irscore.engine.reading import trec
from irscore.report import pages, published, summary, tables
from irscore.report.layout import paths_under
from irscore.report.styles import Style, run_styles

# The HTML pages of the tie table and the convention audit each show two tables: the
# means under each order, then the counts; the means per run, then what changes.
TIES_SPLIT = pages.Split("changed ")
AUDIT_SPLIT = pages.Split("topics changed", moved=("what changes",))


def write_run_tables(
    prepared: Sequence[Prepared],
    results: Results,
    labels: Mapping[str, str],
    compare: Mapping[str, Any] | None,
    outputs: Mapping[str, str],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The tie-break table, the 11-point tables, the convention audit of the `labels`
    measures and (`compare` settings given) the paired tests, of the runs (`prepared`: each
    with the qrels, as `prepare.prepare` gives them, in the order of `results`). Returns
    the tie table, the audit and the comparisons (empty without `compare`)."""
    tie_frame = write_tie_table(prepared, results, paths_under(outputs, "tiebreak_"))
    write_curve_tables(results, paths_under(outputs, "curves_"))
    audited = write_audit(results, labels, paths_under(outputs, "audit_"))
    pages.write_markdown_page(
        outputs["audit_html"], outputs["audit_md"], [outputs["audit_csv"]], (AUDIT_SPLIT,)
    )
    comparisons = pd.DataFrame(columns=COMPARISON_COLUMNS)
    if compare:
        comparisons = write_comparisons(results, compare, paths_under(outputs, "compare_"))
        pages.write_markdown_page(
            outputs["compare_html"],
            outputs["compare_md"],
            [outputs["compare_flips"], outputs["compare_tests"]],
        )
    return tie_frame, audited, comparisons


def write_tie_table(
    prepared: Sequence[Prepared], results: Results, paths: Mapping[str, str]
) -> pd.DataFrame:
    """The tie-break table of the runs (rows in the order of `results`; `prepared` are their
    inputs, each run with the qrels as `prepare.prepare` gives them)."""
    frame = ties.tie_table(results, [ties.tie_counts(p) for p in prepared])
    tables.write(frame, paths, caption=ties.CAPTION, splits=(TIES_SPLIT,))
    return frame


def write_curve_tables(results: Results, outputs: Mapping[str, str]) -> None:
    """The averaged 11-point curves of every run under each interpolation rule that some
    convention isolates, as tables (`outputs` keys RULE_md, RULE_csv, RULE_tex, RULE_html)."""
    for rule, convention in results.interpolations.items():
        caption = (
            f"Mean interpolated precision at 11 recall levels, interpolation {rule} "
            f"(convention {convention})"
        )
        paths = {kind: outputs[f"{rule}_{kind}"] for kind in tables.FORMATS}
        tables.write(curves.curve_table(results, convention), paths, caption=caption)


def write_run_figures(
    results: Results, labels: Mapping[str, str], outputs: Mapping[str, str], dpi: int
) -> None:
    """The figures of the runs: the 11-point curves of each interpolation rule and the
    convention plot of the `labels` measures. Both draw means only; each run in its own
    style (report.styles, from the runs in the order of `results`)."""
    from irscore.report import convention_plots, plots  # here: only the figures need matplotlib

    styles = run_styles(results.runs)
    plots.write_curve_plots(results, styles, paths_under(outputs, "curves_"), dpi)
    convention_plots.write_conventions_plot(
        results, labels, outputs["conventions_png"], outputs["conventions_svg"], dpi=dpi
    )


def tables_job(
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
    sections: Sequence[str] = (),
) -> None:
    """The workflow's tables job: every table and results/summary.md, from the qrels, the
    runs, their long tables (`evals`, in the runs' order), the ideal run's long table and
    every cross-check.

    `headline`, `conventions` and `compare` are the config's; `figures` is the published
    figures file (None: no comparison), `ir_measures_runs` the run files its
    experiments evaluated with ir_measures.
    """
    qrels_frame = trec.read_qrels(qrels)
    results = Results.read(evals, conventions)
    # The ideal run: only its headline row is shown.
    with_ideal = results.plus(Results.read([ideal], conventions, means_only=True))
    tables.write_headline(
        with_ideal,
        headline,
        paths_under(outputs, "reference_"),
        judged_topics=qrels_frame["topic"].nunique(),
    )
    prepared = [prepare(qrels_frame, trec.read_run(path)) for path in runs]
    write_run_tables(prepared, results, headline, compare, outputs)
    appendix = [outputs["compare_md"]]
    if figures:
        published.write_published(
            figures,
            qrels,
            ir_measures_runs,
            {run: results.table(run) for run in results.runs},
            paths_under(outputs, "published_"),
        )
        pages.write_markdown_page(
            outputs["published_comparison_html"],
            outputs["published_comparison_md"],
            [outputs["published_comparison_csv"]],
        )
        appendix.append(outputs["published_comparison_md"])
    appendix += sections
    rules = list(results.interpolations)
    summary.write(
        qrels_frame,
        with_ideal,
        crosschecks,
        headline,
        outputs["summary_md"],
        tiebreak=outputs["tiebreak_md"],
        curves=[outputs[f"curves_{rule}_md"] for rule in rules],
        interpolations=rules,
        audit=outputs["audit_md"],
        appendix=appendix,
    )
    pages.write_markdown_page(
        outputs["summary_html"],
        outputs["summary_md"],
        splits=(TIES_SPLIT, AUDIT_SPLIT),
    )


def figures_job(
    evals: Sequence[str],
    outputs: Mapping[str, str],
    labels: Mapping[str, str],
    conventions: Mapping[str, Mapping[str, Any] | None],
    dpi: int,
) -> None:
    """The workflow's figures job: the figures of all runs, from their means."""
    write_run_figures(Results.read(evals, conventions, means_only=True), labels, outputs, dpi)


def topic_figures_job(
    qrels: str,
    manifest: str,
    example_run: str,
    evals: Sequence[str],
    outputs: Mapping[str, str],
    plot_settings: Mapping[str, Any],
    conventions: Mapping[str, Mapping[str, Any] | None],
    styles: Mapping[str, Sequence[str]],
) -> None:
    """The workflow's figures of single topics: one topic's curves for the example run
    (config `plots.example`, its run file `example_run`), and a per-topic AP scatter for
    each pair of runs (`plots.pairs`), from the long tables of the runs named (`evals`).
    `styles` gives each of these runs' (colour, marker), from report.styles over every
    configured run."""
    from irscore.pipeline.exports import documents_in
    from irscore.report import plots

    results = Results.read(evals, conventions)
    example = plot_settings["example"]
    dpi = plot_settings["dpi"]
    plots.write_topic_example(
        trec.read_qrels(qrels),
        trec.read_run(example_run),
        results,
        example["run"],
        documents_in(manifest),
        example["topic"],
        outputs["topic_example_png"],
        outputs["topic_example_svg"],
        dpi=dpi,
    )
    looks = {run: Style(*style) for run, style in styles.items()}
    for x, y in plot_settings["pairs"]:
        plots.write_pair_plot(
            results,
            x,
            y,
            plot_settings["label_topics"],
            looks,
            outputs[f"pair_{x}_vs_{y}_png"],
            outputs[f"pair_{x}_vs_{y}_svg"],
            dpi=dpi,
        )
