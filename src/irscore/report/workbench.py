"""The workbench's sections of the report: many systems in one table, and interleaving.

`systems_job` writes the table papers print for the configured runs against the
configured baseline (config `systems:`). `interleaving_job` interleaves each
configured pair of runs on the collection for simulated users of each click
model (config `interleaving:`) and puts the online verdict beside the offline
one for the same pair (the mean of the measure per topic, a paired t-test):
do clicks and the measure agree on which run is better, and after how many
impressions does the sign test settle?
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from irscore.analysis import systems_table
from irscore.analysis.audit import paired_comparisons
from irscore.analysis.results import Results
from irscore.engine.output.long_table import concat_long
from irscore.engine.ranking.conventions import REFERENCE
from irscore.engine.reading import trec
from irscore.report import pages
from irscore.workbench import interleave


def _reference_rows(results: Results, measures: Sequence[str]) -> pd.DataFrame:
    """Every run's reference-convention rows of `measures`, as one long table."""
    parts = []
    for table in results:
        keep = (table["convention"] == REFERENCE.name) & table["measure"].isin(measures)
        parts.append(table[keep])
    return concat_long(parts)


def systems_job(
    evals: Sequence[str],
    conventions: Mapping[str, Mapping[str, Any] | None],
    settings: Mapping[str, Any],
    compare: Mapping[str, Any],
    outputs: Mapping[str, str],
) -> None:
    """The systems table (md, csv, tex) and its tests (tsv) for the configured runs."""
    results = Results.read(evals, conventions)
    measures = list(settings["measures"])
    table = systems_table.build(
        _reference_rows(results, measures),
        results.runs,
        measures,
        settings["baseline"],
        test=settings["test"],
        correction=settings["correction"],
        alpha=compare["alpha"],
        B=compare["B"],
        seed=compare["seed"],
    )
    heading = f"# Many systems against the baseline {settings['baseline']}\n\n"
    trec.write_lines_atomically(outputs["md"], [heading + systems_table.markdown(table)])
    trec.write_lines_atomically(outputs["csv"], [systems_table.csv(table)])
    caption = "Mean over topics of each run, reference convention (trec_eval 9.0.x)."
    trec.write_lines_atomically(outputs["tex"], [systems_table.latex(table, caption)])
    trec.write_lines_atomically(
        outputs["tests"],
        [
            table.tests.to_csv(
                sep="\t", index=False, float_format=trec.float_text, lineterminator="\n"
            )
        ],
    )
    others = [outputs[key] for key in ("csv", "tex", "tests")]
    pages.write_markdown_page(outputs["html"], outputs["md"], others)


VERDICT_COLUMNS = [
    "run_a",
    "run_b",
    "measure",
    "mean_a",
    "mean_b",
    "offline",
    "click_model",
    "wins_a",
    "wins_b",
    "ties",
    "share_b",
    "p",
    "online",
    "agree",
    "settled_after",
]


def _direction(run_a: str, run_b: str, b_better: bool | None) -> str:
    return "no preference" if b_better is None else (run_b if b_better else run_a)


def interleaving_job(
    qrels: str,
    runs: Mapping[str, str],
    evals: Sequence[str],
    conventions: Mapping[str, Mapping[str, Any] | None],
    settings: Mapping[str, Any],
    outputs: Mapping[str, str],
) -> pd.DataFrame:
    """Interleave every pair under every click model; write the verdicts and the figures."""
    judged = interleave.grade_lookup(trec.read_qrels(qrels), settings["grades"])
    depth = 2 * settings["length"]  # what a merged list can reach in either run
    ranked = {name: interleave.rankings(trec.read_run(path), depth) for name, path in runs.items()}
    results = Results.read(evals, conventions)
    measure, alpha = settings["measure"], settings["alpha"]
    pairs = [tuple(pair) for pair in settings["pairs"]]
    offline = paired_comparisons(
        _reference_rows(results, [measure]),
        pairs,
        [measure],
        [REFERENCE],
        ("t",),
        alpha=alpha,
        correction="none",
    ).set_index(["run_a", "run_b"])
    rows, outcomes = [], {}
    for run_a, run_b in pairs:
        test = offline.loc[(run_a, run_b)]
        offline_better = (test["diff"] > 0) if test["significant"] else None
        for model in settings["click_models"]:
            o = interleave.simulate_rankings(
                judged,
                ranked[run_a],
                ranked[run_b],
                model,
                settings["impressions"],
                settings["length"],
                settings["seed"],
                settings["method"],
            )
            outcomes[run_a, run_b, model] = o
            online_better = (o.share_b > 0.5) if o.p_value < alpha else None
            rows.append(
                (
                    run_a,
                    run_b,
                    measure,
                    test["mean_a"],
                    test["mean_b"],
                    _direction(run_a, run_b, offline_better),
                    model,
                    o.wins_a,
                    o.wins_b,
                    o.ties,
                    o.share_b,
                    o.p_value,
                    _direction(run_a, run_b, online_better),
                    offline_better == online_better,
                    o.settled_after(alpha) or -1,
                )
            )
    verdicts = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    trec.write_lines_atomically(
        outputs["tsv"],
        [verdicts.to_csv(sep="\t", index=False, float_format=trec.float_text, lineterminator="\n")],
    )
    trec.write_lines_atomically(outputs["md"], [verdicts_markdown(verdicts, settings)])
    pages.write_markdown_page(outputs["html"], outputs["md"], [outputs["tsv"]])
    from irscore.report import plots  # here: only the figures need matplotlib
    from irscore.report.workbench_plots import interleave_figure

    with plots.style():
        for run_a, run_b in pairs:
            figure = interleave_figure(
                {m: outcomes[run_a, run_b, m] for m in settings["click_models"]}, run_a, run_b
            )
            plots.save(
                figure,
                outputs[f"{run_a}_vs_{run_b}_png"],
                outputs[f"{run_a}_vs_{run_b}_svg"],
                settings.get("dpi", 150),
            )
    return verdicts


def verdicts_markdown(verdicts: pd.DataFrame, settings: Mapping[str, Any]) -> str:
    """The online verdicts beside the offline ones, one row per pair and click model."""
    head = (
        "# Interleaving: do clicks agree with the offline measure?\n\n"
        f"{settings['method'].replace('_', '-')} interleaving of each pair, "
        f"{settings['impressions']:,} impressions of {settings['length']} documents per click "
        f"model (seed {settings['seed']}), grades as `{settings['grades']}`; the online "
        "verdict is the two-sided sign test of the impressions B wins among those decided, "
        f"the offline one a paired t-test of per-topic {settings['measure']}, both at "
        f"alpha {settings['alpha']}. *settled after*: the impressions after which the sign "
        "test stays significant.\n\n"
    )
    lines = [
        "| A | B | offline (mean A / B) | click model | wins A / B / ties | B's share | p "
        "| online | agree | settled after |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | --- | --- | ---: |",
    ]
    for r in verdicts.itertuples(index=False):
        settled = "never" if r.settled_after < 0 else f"{r.settled_after:,}"
        lines.append(
            f"| {r.run_a} | {r.run_b} | {r.offline} ({r.mean_a:.4f} / {r.mean_b:.4f}) "
            f"| {r.click_model} | {r.wins_a:,} / {r.wins_b:,} / {r.ties:,} | {r.share_b:.4f} "
            f"| {r.p:.3g} | {r.online} | {'yes' if r.agree else 'no'} | {settled} |"
        )
    return head + "\n".join(lines) + "\n"
