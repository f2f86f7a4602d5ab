"""What each convention changes: per run and measure, the mean, its shift from the
reference, how many topics move, the largest move, and whether the runs swap places."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from irscore import trec
from irscore.conventions import Convention, conventions_from_config
from irscore.evaluate import concat_long, read_long_table

COLUMNS = [
    "measure",
    "convention",
    "description",
    "run",
    "mean",
    "reference",
    "difference",
    "topics_changed",
    "largest_topic_change",
    "run_order",
    "order_changes",
]
# Per-topic values closer than this count as unchanged (float noise, not a change).
SAME = 1e-12


def name_under(measure: str, convention: Convention) -> str:
    """The long table's name for `measure` under `convention` (nDCG lines are renamed
    ndcg_exp... when the convention's gain is exponential)."""
    if convention.gain == "exponential" and measure.startswith("ndcg") and "_exp" not in measure:
        return "ndcg_exp" + measure[len("ndcg") :]
    return measure


def _run_order(means: Mapping[str, float]) -> str:
    """Runs from best to worst ("a > b = c"); NaN means sort last."""
    ranked = sorted(means, key=lambda run: (np.isnan(means[run]), -np.nan_to_num(means[run]), run))
    text = ranked[0] if ranked else ""
    for before, after in itertools.pairwise(ranked):
        text += (" = " if means[before] == means[after] else " > ") + after
    return text


def convention_audit(
    table: pd.DataFrame, measures: Sequence[str], conventions: Sequence[Convention]
) -> pd.DataFrame:
    """One row per (measure, convention, run) comparing with the `reference` convention."""
    values = table.set_index(["convention", "measure", "run", "topic"])["value"].sort_index()
    runs = list(dict.fromkeys(table["run"]))
    rows = []
    for measure in measures:
        reference_means = {run: _mean(values, "reference", measure, run) for run in runs}
        reference_order = _run_order(reference_means)
        for convention in conventions:
            name = name_under(measure, convention)
            means = {run: _mean(values, convention.name, name, run) for run in runs}
            order = _run_order(means)
            for run in runs:
                changed, largest = _topic_changes(values, convention.name, name, measure, run)
                rows.append(
                    (
                        measure,
                        convention.name,
                        convention.description,
                        run,
                        means[run],
                        reference_means[run],
                        means[run] - reference_means[run],
                        changed,
                        largest,
                        order,
                        order != reference_order,
                    )
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def _mean(values: pd.Series, convention: str, measure: str, run: str) -> float:
    key = (convention, measure, run, "all")
    return float(values[key]) if key in values.index else np.nan


def _topic_values(values: pd.Series, convention: str, measure: str, run: str) -> pd.Series:
    try:
        topics = values.loc[(convention, measure, run)]
    except KeyError:
        return pd.Series(dtype=float)
    return topics[topics.index != "all"]


def _topic_changes(
    values: pd.Series, convention: str, measure: str, reference_measure: str, run: str
) -> tuple[int, float]:
    """Topics whose value differs from the reference (or that only one side has), and the
    largest change among the topics both have; -1 and NaN when the measure is absent."""
    mine = _topic_values(values, convention, measure, run)
    theirs = _topic_values(values, "reference", reference_measure, run)
    if mine.empty:
        return -1, np.nan
    both = mine.index.intersection(theirs.index)
    delta = (mine[both] - theirs[both]).abs()
    moved = (delta > SAME) | (mine[both].isna() != theirs[both].isna())
    only_one_side = len(mine.index.symmetric_difference(theirs.index))
    largest = float(delta.max()) if len(delta) and delta.notna().any() else 0.0
    return int(moved.sum()) + only_one_side, largest


def markdown(audit: pd.DataFrame, labels: Mapping[str, str]) -> str:
    """One section per measure: conventions as rows, each run's mean and shift as columns."""
    runs = list(dict.fromkeys(audit["run"]))
    sections = [
        "# What each convention changes\n\n"
        "Means over topics under each convention, with the shift from the reference "
        "(trec_eval 9.0.x) in brackets; *topics changed* counts, per run, the topics whose "
        "value moves (or that the convention adds or drops); *largest* is the largest "
        "per-topic move over all runs; *order* ranks the runs by the mean, in bold where it "
        "differs from the reference's. n/a: the convention does not define the measure.\n"
    ]
    for label, measure in labels.items():
        part = audit[audit["measure"] == measure]
        header = ["convention", "what changes", *runs, "topics changed", "largest", "order"]
        lines = [header, ["---", "---", *["---:"] * len(runs), "---", "---:", "---"]]
        for convention, rows in part.groupby("convention", sort=False):
            by_run = rows.set_index("run")
            reference = convention == "reference"
            absent = by_run["topics_changed"] < 0
            cells = [convention, rows["description"].iloc[0]]
            cells += [
                "n/a"
                if absent[run]
                else _shifted(by_run.at[run, "mean"], by_run.at[run, "difference"], reference)
                for run in runs
            ]
            counts = ["n/a" if n < 0 else str(n) for n in by_run["topics_changed"]]
            cells.append("–" if reference else " / ".join(counts))
            largest = by_run["largest_topic_change"].max()
            cells.append("–" if reference or np.isnan(largest) else f"{largest:.4f}")
            order = rows["run_order"].iloc[0]
            cells.append(f"**{order}**" if rows["order_changes"].iloc[0] else order)
            lines.append(cells)
        table = "".join("| " + " | ".join(map(str, c)) + " |\n" for c in lines)
        sections.append(f"## {label} (`{measure}`)\n\n{table}")
    return "\n".join(sections)


def _shifted(mean: float, diff: float, reference: bool) -> str:
    """`0.2396`, `0.2384 (-0.0012)`, or `(=)` for a shift that rounds to zero."""
    if np.isnan(mean) or reference:
        return f"{mean:.4f}"
    return f"{mean:.4f} (=)" if abs(diff) < 5e-5 else f"{mean:.4f} ({diff:+.4f})"


def write(
    eval_paths: Sequence[str],
    labels: Mapping[str, str],
    conventions: Mapping[str, Mapping | None],
    paths: Mapping[str, str],
) -> pd.DataFrame:
    """The convention audit of the workflow's runs as Markdown and CSV."""
    table = concat_long([read_long_table(p) for p in eval_paths])
    audit = convention_audit(table, list(labels.values()), conventions_from_config(conventions))
    trec.write_lines_atomically(paths["md"], [markdown(audit, labels)])
    trec.write_lines_atomically(
        paths["csv"], [audit.to_csv(index=False, float_format=trec.float_text, lineterminator="\n")]
    )
    return audit
