"""The published figures' section of the report: the comparison and the ir_measures check
(`analysis.published`) as Markdown and CSV, for people and for programs."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pandas as pd

from irscore.analysis.published import (
    EQUAL,
    Published,
    compare,
    ir_measures_check,
    load_published,
)
from irscore.engine.reading import trec
from irscore.pipeline.crosscheck import TOLERANCE
from irscore.report import tables


def write_published(
    published: str | os.PathLike,
    qrels: str | os.PathLike,
    runs: Sequence[str],
    run_tables: Mapping[str, pd.DataFrame],
    outputs: Mapping[str, str],
) -> None:
    """Compare the published figures with the runs' long tables (run name -> table) and
    run ir_measures on the lab's run files (results/runs/RUN.run). `outputs` has keys
    comparison_md, comparison_csv, ir_measures_md and ir_measures_csv."""
    figures = load_published(published)
    comparison = compare(figures, run_tables)
    check = ir_measures_check(figures, qrels, {Path(p).stem: p for p in runs}, run_tables)
    for name, table, text in (
        ("comparison", comparison, comparison_markdown(figures, comparison)),
        ("ir_measures", check, ir_measures_markdown(check)),
    ):
        csv = tables.csv(table.set_index("experiment"))
        trec.write_lines_atomically(outputs[f"{name}_csv"], [csv])
        trec.write_lines_atomically(outputs[f"{name}_md"], [text])


def comparison_markdown(published: Published, table: pd.DataFrame) -> str:
    """The comparison (rows in figure order) for people: one table per experiment, the
    notes it names below it."""
    lines = [
        "# Published Cranfield figures, regenerated\n\n",
        "Each figure beside the value this workflow regenerates from the setup the text "
        "states (no parameter is fitted to a published number). `as printed`: the "
        "regenerated value rounded or truncated the way the text printed its figure; "
        "`verdict`: equal when that is the printed value. `difference` = regenerated - "
        "published.\n",
    ]
    note_names = pd.Series([f.note for f in published.figures], index=table.index)
    for experiment, source in published.sources.items():
        rows = table[table["experiment"] == experiment]
        names = note_names[rows.index]
        shown = pd.DataFrame(
            {
                "run": rows["run"],
                "figure": rows["figure"],
                "convention": [_convention_text(r) for r in rows.itertuples()],
                "published": rows["published"],
                "as printed": rows["regenerated_printed"],
                "regenerated": [_number(r.regenerated, r.published) for r in rows.itertuples()],
                "difference": [_number(r.difference, r.published, "+") for r in rows.itertuples()],
                "verdict": rows["verdict"],
                "note": names,
            }
        ).set_index("run")
        equal = int((rows["verdict"] == EQUAL).sum())
        lines.append(f"\n## {experiment}: {source}\n\n")
        lines.append(f"{equal} of {len(rows)} figures equal at the printed precision.\n\n")
        lines.append(tables.markdown(shown))
        used = [n for n in published.notes if n in set(names)]
        lines.extend(["\n", *(f"- **{n}**: {published.notes[n]}\n" for n in used)])
    return "".join(lines)


def ir_measures_markdown(table: pd.DataFrame) -> str:
    """The ir_measures check for people."""
    agree = int(table["agrees"].sum())
    shown = table.set_index("run").drop(columns="experiment")
    for column in ("ir_measures_value", "irscore_value"):
        shown[column] = [f"{v:.6f}" for v in table[column]]
    shown["difference"] = [f"{d:.1e}" for d in table["difference"]]
    return (
        "# The lab's own evaluation call beside irscore\n\n"
        f"`ir_measures.calc_aggregate` (ir_measures {version('ir-measures')}) on each run "
        "file and the qrels, beside irscore's value under the reference convention "
        f"(trec_eval's). {agree} of {len(table)} agree within {TOLERANCE:g}.\n\n"
        + tables.markdown(shown)
    )


def _convention_text(row: Any) -> str:
    return f"{row.convention} vs {row.versus}" if row.versus else row.convention


def _number(value: float, printed: str, sign: str = "") -> str:
    """`value` with two more decimals than the published figure (n/a when missing)."""
    if math.isnan(value):
        return "n/a"
    decimals = len(printed.partition(".")[2])
    return format(value, f"{sign}.{decimals + 2 if decimals else 0}f")
