"""Tables of reported numbers as Markdown (for people), CSV (for programs) and LaTeX.

Markdown and LaTeX round to 4 decimals, as trec_eval prints; CSV keeps every
digit (repr), so nothing downstream ever re-parses a rounded number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from irscore import trec
from irscore.evaluate import read_long_table

DECIMALS = 4


def headline(
    long_tables: Sequence[pd.DataFrame], columns: Mapping[str, str], convention: str = "reference"
) -> pd.DataFrame:
    """One row per run: the `all` value of each headline measure under `convention`.

    `columns` maps a column label (e.g. "P@10") to a measure name (e.g. "P_10");
    runs keep the order in which their tables are given.
    """
    rows = []
    for table in long_tables:
        means = table[(table["convention"] == convention) & (table["topic"] == "all")]
        values = means.set_index("measure")["value"]
        missing = [m for m in columns.values() if m not in values.index]
        if missing:
            run = table["run"].iloc[0] if len(table) else "?"
            raise KeyError(f"run {run}: no {', '.join(missing)} under convention {convention}")
        rows.append([table["run"].iloc[0], *(values[m] for m in columns.values())])
    return pd.DataFrame(rows, columns=["run", *columns]).set_index("run")


def _cell(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "n/a" if np.isnan(value) else f"{value:.{DECIMALS}f}"
    return str(value)


def markdown(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table; numbers right-aligned, 4 decimals."""
    header = [frame.index.name or "", *map(str, frame.columns)]
    body = [
        [str(index), *map(_cell, row)]
        for index, row in zip(frame.index, frame.to_numpy(), strict=True)
    ]
    numeric = [False] + [pd.api.types.is_numeric_dtype(t) for t in frame.dtypes]
    rule = ["---:" if n else "---" for n in numeric]
    lines = [header, rule, *body]
    return "".join("| " + " | ".join(cells) + " |\n" for cells in lines)


def latex(frame: pd.DataFrame, caption: str) -> str:
    """A booktabs LaTeX table with 4 decimals."""
    align = "l" + "r" * len(frame.columns)
    header = " & ".join([_tex(frame.index.name or ""), *map(_tex, map(str, frame.columns))])
    body = "".join(
        " & ".join([_tex(str(index)), *map(_cell, row)]) + " \\\\\n"
        for index, row in zip(frame.index, frame.to_numpy(), strict=True)
    )
    return (
        "\\begin{table}\n\\centering\n"
        f"\\caption{{{_tex(caption)}}}\n"
        f"\\begin{{tabular}}{{{align}}}\n\\toprule\n{header} \\\\\n\\midrule\n"
        f"{body}\\bottomrule\n\\end{{tabular}}\n\\end{{table}}\n"
    )


def _tex(text: str) -> str:
    for char in ("\\", "&", "%", "$", "#", "_", "{", "}"):
        text = text.replace(char, "\\" + char)
    return text


def csv(frame: pd.DataFrame) -> str:
    """CSV with every float written as repr, so it reads back exactly."""
    return frame.to_csv(float_format=trec.float_text, lineterminator="\n")


def write(frame: pd.DataFrame, paths: Mapping[str, str], caption: str = "") -> None:
    """Write `frame` to each of `paths` (keys md, csv, tex), each whole or not at all."""
    render = {"md": markdown, "csv": csv, "tex": lambda f: latex(f, caption)}
    for kind, path in paths.items():
        trec.write_lines_atomically(path, [render[kind](frame)])


def write_headline(eval_paths, columns: Mapping[str, str], paths: Mapping[str, str]) -> None:
    """The headline table of the reference convention from the runs' long tables."""
    frame = headline([read_long_table(p) for p in eval_paths], columns)
    write(frame, paths, caption="Headline measures, reference convention (trec_eval 9.0.x)")
