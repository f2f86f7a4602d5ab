"""Tables of reported numbers as Markdown (for people), CSV (for programs), LaTeX and HTML.

Markdown, LaTeX and HTML round to 4 decimals, as trec_eval prints; CSV keeps
every digit (repr), so nothing downstream ever re-parses a rounded number.
Missing values (a convention that is not configured, a measure it does not
define) print as n/a.
"""

from __future__ import annotations

import html as html_text
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from irscore.analysis.results import Results
from irscore.engine.reading import trec
from irscore.report import pages

DECIMALS = 4
# The headline column that appears when runs average different numbers of topics.
TOPICS = "topics"
FORMATS = ("md", "csv", "tex", "html")
HEADLINE_CAPTION = "Headline measures, reference convention (trec_eval 9.0.x)"


def headline(
    results: Results,
    columns: Mapping[str, str],
    convention: str = "reference",
    judged_topics: int | None = None,
) -> pd.DataFrame:
    """One row per run: the mean of each headline measure under `convention`.

    `columns` maps a column label (e.g. "P@10") to a measure name (e.g. "P_10");
    runs keep their order in `results`. When a run's means average another number of
    topics (num_q) than the `judged_topics` of the qrels, a last column `topics`
    ("3 of 225") shows each run's, so that no mean is read as comparable when it is not.
    """
    frame = results.means(list(columns.values()), convention)
    frame.columns = list(columns)
    if judged_topics is not None:
        counts = [results.mean(run, "num_q", convention) for run in results.runs]
        if any(n != judged_topics for n in counts):
            frame[TOPICS] = [f"{n:.0f} of {judged_topics}" for n in counts]
    return frame


def _cell(value) -> str:
    if value is None or value is pd.NA:
        return "n/a"
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


def html(
    frame: pd.DataFrame,
    caption: str,
    files: Sequence[tuple[str, str]] = (),
    splits: Sequence[pages.Split] = (),
) -> str:
    """A standalone HTML page holding the table (4 decimals), for the Snakemake report, with
    links to download `files` (name, text): the table's other formats. A wide table is cut
    in two as `splits` say (report.pages.Split)."""
    numeric = [False] + [pd.api.types.is_numeric_dtype(t) for t in frame.dtypes]
    header = [frame.index.name or "", *map(str, frame.columns)]
    rows = [
        [str(index), *map(_cell, values)]
        for index, values in zip(frame.index, frame.to_numpy(), strict=True)
    ]
    escaped = [[html_text.escape(cell) for cell in cells] for cells in [header, *rows]]
    table = pages.table_html(escaped[0], escaped[1:], numeric, caption, splits)
    return pages.page(caption, table, files)


def csv(frame: pd.DataFrame) -> str:
    """CSV with every float written as repr, so it reads back exactly."""
    return frame.to_csv(float_format=trec.float_text, lineterminator="\n")


def write(
    frame: pd.DataFrame,
    paths: Mapping[str, str],
    caption: str = "",
    splits: Sequence[pages.Split] = (),
) -> None:
    """Write `frame` to each of `paths` (keys md, csv, tex, html), each whole or not at all;
    the HTML page carries the other formats as downloads (and is cut as `html` says)."""
    render = {"md": markdown, "csv": csv, "tex": lambda f: latex(f, caption)}
    files = []
    for kind, path in paths.items():
        if kind != "html":
            text = render[kind](frame)
            trec.write_lines_atomically(path, [text])
            files.append((Path(path).name, text))
    if "html" in paths:
        trec.write_lines_atomically(paths["html"], [html(frame, caption, files, splits)])


def write_headline(
    results: Results,
    columns: Mapping[str, str],
    paths: Mapping[str, str],
    judged_topics: int | None = None,
) -> None:
    """The headline table of the reference convention (see `headline`)."""
    write(headline(results, columns, judged_topics=judged_topics), paths, caption=HEADLINE_CAPTION)
